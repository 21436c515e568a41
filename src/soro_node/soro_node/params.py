"""Typed node parameters: one declaration gives the descriptor, the default and the validation. No rclpy.

Nodes declare a tuple of ``ParamSpec`` (``bridge_node.declare_parameters`` turns them into rclpy descriptors);
``ParamSpec.check`` is what refuses a bad value, with a message that names the parameter, the value and what is
allowed, both at start-up and on a later ``ros2 param set``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ParamSpec:
    name: str
    default: object                 # its Python type is the parameter's type: bool, int, float, str, list
    description: str
    low: float | None = None        # bounds for int and float, inclusive unless ``open_interval``
    high: float | None = None
    choices: tuple = ()             # allowed values for str
    read_only: bool = False
    open_interval: bool = False     # the bounds themselves are refused, e.g. an angle in (0°, 90°)
    nonempty: bool = False          # a string or list that must not be empty, e.g. a device's port

    def check(self, value: object) -> str | None:
        """None if ``value`` is allowed, else the reason it is refused, naming the parameter."""
        problem = self.problem(value)
        return f'parameter {self.name} = {value!r}: {problem}' if problem else None

    def problem(self, value: object) -> str | None:
        """None if ``value`` is allowed, else what is wrong with it ('allowed range is [0.01, 1.0]')."""
        kind = type(self.default)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f'must be of type {kind.__name__}'
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
    def allowed_range(self) -> str:
        if self.high is None:
            return f'> {self.low}' if self.open_interval else f'>= {self.low}'
        if self.low is None:
            return f'< {self.high}' if self.open_interval else f'<= {self.high}'
        return f'({self.low}, {self.high})' if self.open_interval else f'[{self.low}, {self.high}]'

    def _above_low(self, value) -> bool:
        return self.low is None or value > self.low or (value == self.low and not self.open_interval)

    def _below_high(self, value) -> bool:
        return self.high is None or value < self.high or (value == self.high and not self.open_interval)


def named(specs: tuple[ParamSpec, ...], name: str) -> ParamSpec:
    """The spec called ``name`` in ``specs`` (KeyError if none): one declaration reused, e.g. by a command."""
    found = [spec for spec in specs if spec.name == name]
    if not found:
        raise KeyError(f'no parameter {name!r} among {", ".join(spec.name for spec in specs)}')
    return found[0]


class ParameterError(ValueError):
    """A parameter value that its ParamSpec refuses."""


def check_all(specs: tuple[ParamSpec, ...], values: dict[str, object]) -> dict[str, object]:
    """Validated values by name (ints promoted to float where the spec is float); raises ParameterError."""
    out = {}
    for spec in specs:
        value = values.get(spec.name, spec.default)
        problem = spec.check(value)
        if problem:
            raise ParameterError(problem)
        out[spec.name] = float(value) if isinstance(spec.default, float) else value
    return out
