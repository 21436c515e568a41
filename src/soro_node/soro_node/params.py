"""Typed node parameters: one declaration gives the descriptor, the default and the validation. No
rclpy.

Nodes declare a tuple of ``ParamSpec`` (``base_node.declare_parameters`` turns them into rclpy
descriptors and hands back the node's ``Settings``, the one way a node reads its parameters);
``ParamSpec.check`` is what refuses a bad value, with a message that names the parameter, the
value and what is allowed, both at start-up and on a later ``ros2 param set``. ``field_value``
checks a goal's or request's field against the spec of the parameter it stands in for, so a goal
cannot ask for what the parameter would refuse.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ParamSpec:
    """One node parameter: name, default (its type is the parameter's), description, what it
    allows (bounds, choices, non-empty) and whether it is read-only."""

    name: str
    # its Python type is the parameter's type: bool, int, float, str, list
    default: object
    description: str
    low: float | None = None  # bounds for int and float, inclusive unless ``open_interval``
    high: float | None = None
    choices: tuple = ()  # allowed values (a str's, or an int's such as a direction ±1)
    read_only: bool = False
    open_interval: bool = False  # the bounds themselves are refused, e.g. an angle in (0°, 90°)
    nonempty: bool = False  # a string or list that must not be empty, e.g. a device's port
    # a list's element type (int, float or str); taken from the default's first element when None
    item: type | None = None

    def check(self, value: object) -> str | None:
        """None if ``value`` is allowed, else the reason it is refused, naming the parameter."""
        problem = self.problem(value)
        return f'parameter {self.name} = {shown(value)}: {problem}' if problem else None

    def problem(self, value: object) -> str | None:
        """None if ``value`` is allowed, else what is wrong with it ('allowed range is [0.01,
        1.0]')."""
        kind = type(self.default)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is list and isinstance(value, (tuple, array)):  # rclpy: array('q') for int arrays
            value = list(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f'must be of type {kind.__name__}'
        if kind is list and not all(_is(element, self.item_type) for element in value):
            return f'must be a list of {self.item_type.__name__}'
        if kind is float and not math.isfinite(value):
            return 'must be finite'
        if kind in (int, float) and not (self._above_low(value) and self._below_high(value)):
            return f'allowed range is {self.allowed_range}'
        if self.nonempty and not value:
            return 'must not be empty'
        if self.choices and value not in self.choices:
            return f'allowed values are {", ".join(map(str, self.choices))}'
        return None

    @property
    def item_type(self) -> type:
        """A list parameter's element type."""
        return self.item or (type(self.default[0]) if self.default else str)

    @property
    def allowed_range(self) -> str:
        """The bounds as text, e.g. '[0.01, 1.0]', '(0, 90)' or '>= 1'."""
        if self.high is None:
            return f'> {self.low}' if self.open_interval else f'>= {self.low}'
        if self.low is None:
            return f'< {self.high}' if self.open_interval else f'<= {self.high}'
        return f'({self.low}, {self.high})' if self.open_interval else f'[{self.low}, {self.high}]'

    def _above_low(self, value) -> bool:
        return (
            self.low is None or value > self.low or (value == self.low and not self.open_interval)
        )

    def _below_high(self, value) -> bool:
        return (
            self.high is None
            or value < self.high
            or (value == self.high and not self.open_interval)
        )


def named(specs: tuple[ParamSpec, ...], name: str) -> ParamSpec:
    """The spec called ``name`` in ``specs`` (KeyError if none): one declaration reused, e.g. by a
    command."""
    found = [spec for spec in specs if spec.name == name]
    if not found:
        raise KeyError(f'no parameter {name!r} among {", ".join(spec.name for spec in specs)}')
    return found[0]


class ParameterError(ValueError):
    """A parameter value that its ParamSpec refuses."""


def check_all(specs: tuple[ParamSpec, ...], values: dict[str, object]) -> dict[str, object]:
    """Validated values by name (ints promoted to float where the spec is float); raises
    ParameterError."""
    out = {}
    for spec in specs:
        value = values.get(spec.name, spec.default)
        problem = spec.check(value)
        if problem:
            raise ParameterError(problem)
        out[spec.name] = _typed(spec, value)
    return out


def _typed(spec: ParamSpec, value: object) -> object:
    """``value`` as the spec's type where rclpy hands an int for a float (``-p rate:=10``) or an
    array for a list (``array('d')``), a list's ints made float where its elements are."""
    if isinstance(spec.default, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(spec.default, list) and isinstance(value, (tuple, array)):
        value = list(value)
    if isinstance(spec.default, list) and spec.item_type is float:
        return [float(v) for v in value]
    return value


def _is(value: object, kind: type) -> bool:
    """Whether ``value`` is a ``kind`` as a parameter's element (an int for a float; no bool)."""
    if isinstance(value, bool):
        return kind is bool
    return isinstance(value, kind) or (kind is float and isinstance(value, int))


def shown(value: object, limit: int = 12) -> str:
    """``value`` for a message: a sequence (rclpy's arrays too) as a list, elided after ``limit``
    elements ('[1, 2, ..., (5000 values)]': a goal or parameter may carry a million), anything
    cut at 120 characters."""
    if isinstance(value, (list, tuple, array)):
        items = list(value)
        text = repr(items)
        if len(items) > limit:
            text = f'{repr(items[: limit - 2])[:-1]}, ... ({len(items)} values)]'
    else:
        text = repr(value)
    return text if len(text) <= 120 else f'{text[:100]}... ({len(text)} characters)'


class Settings(Mapping):
    """A node's parameter values by its specs' names: ``settings.name`` or ``settings['name']``.

    The node toolkit builds it when it declares the specs and refreshes it on every change the
    specs accept (a read-only parameter never changes), so a node reads the current value without
    asking rclpy. ``checked()`` validates them all at once: what a node calls at start-up (a
    bridge at configure) to refuse bad values.
    """

    def __init__(self, specs: tuple[ParamSpec, ...], values: Mapping[str, object] | None = None):
        self._specs = {spec.name: spec for spec in specs}
        self._values = {spec.name: spec.default for spec in specs}
        self.refresh(values or {})

    def refresh(self, values: Mapping[str, object]) -> None:
        """Take the new ``values`` of this node's parameters (a name without a spec is not one)."""
        for name, value in values.items():
            if name in self._specs:
                self._values[name] = _typed(self._specs[name], value)

    def checked(self) -> dict[str, object]:
        """All values validated, by name; raises ParameterError naming the first one refused."""
        return check_all(tuple(self._specs.values()), self._values)

    def spec(self, name: str) -> ParamSpec:
        """The declaration of parameter ``name``."""
        return self._specs[name]

    def __getitem__(self, name: str) -> object:
        return self._values[name]

    def __getattr__(self, name: str) -> object:
        try:
            return self.__dict__['_values'][name]
        except KeyError:
            raise AttributeError(f"no parameter {name!r} among the node's settings") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


class FieldRefused(ValueError):
    """A goal or request field whose value the matching parameter's spec refuses."""


def field_value(
    spec: ParamSpec, value: object, field: str, current: object, unset: object = 0
) -> object:
    """The value a goal's or request's ``field`` asks for, checked against ``spec``, the parameter
    it stands in for: ``current`` (the node's setting) when the field is left ``unset``.
    FieldRefused says the field, the value and the spec's allowed values (e.g. 'speed_m_s = 0.5:
    allowed range is [0.005, 0.3] (as parameter speed_m_s)')."""
    if value == unset:
        return current
    problem = spec.problem(value)
    if problem:
        raise FieldRefused(f'{field} = {shown(value)}: {problem} (as parameter {spec.name})')
    return _typed(spec, value)
