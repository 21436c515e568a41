"""A voxel structure as the POM model needs it (spec A4, A6, A9): voxels (some flagged as rigid
extensions), linear actuators (control node, stroke axis, the node at their other end) and named
end effectors, read from a YAML file such as config/pom.yaml. No ROS.

    voxels: [{centre: [1, 1, 1]}, {centre: [5, 3, 1], extension: true}, ...]
    actuators: [{name: blue, node: [2, 1, 1], stroke: z, partner: [2, 1, 3]}, ...]
    effectors: {front_left: [3, 4, 1], marker_yr: [1, 3, 4], ...}
    pitch_m: 0.0762
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from pom_voxel.lattice import AXES, LatticeError, check_voxel, node_axis
from soro_node.arguments import read_input, yaml_document

# FERVOR's 3 in voxels; the quadruped's is in the paper's SI (spec A1)
DEFAULT_PITCH_M = 0.0762
FIELDS = ('voxels', 'actuators', 'effectors', 'pitch_m')
# half-pitches: far beyond any printable lattice, well within int64
MAX_COORDINATE = 2**31


@dataclass(frozen=True)
class Actuator:
    """A linear actuator: control node (half-pitch units), stroke axis, its other end's node."""

    name: str
    node: tuple[int, int, int]  # the control node: q is its displacement along +stroke
    stroke: int  # axis 0, 1, 2 of the push
    partner: tuple[int, int, int] | None  # the node at the actuator's other end


@dataclass(frozen=True)
class Structure:
    """A voxel structure: voxels, actuators, named effectors (lattice nodes) and pitch (m).

    Construction raises LatticeError naming the first bad voxel, actuator, effector or pitch."""

    voxels: np.ndarray  # (V, 3) centres, odd integers
    # (V,) bool: rigid extensions that do not rotate with a plane
    extension: np.ndarray
    actuators: tuple[Actuator, ...]
    effectors: dict[str, tuple[int, int, int]]
    pitch_m: float = DEFAULT_PITCH_M

    def __post_init__(self):
        """LatticeError on a bad or repeated voxel, a stroke along its node's axis, a bad pitch."""
        if self.voxels.ndim != 2 or self.voxels.shape[1:] != (3,) or np.any(self.voxels % 2 == 0):
            bad = next((v for v in self.voxels.reshape(-1, 3) if np.any(v % 2 == 0)), self.voxels)
            check_voxel(bad)  # names it
        if len({tuple(v) for v in self.voxels.tolist()}) != len(self.voxels):
            raise LatticeError('voxels: a centre is listed twice')
        for actuator in self.actuators:
            if node_axis(actuator.node) == actuator.stroke:
                raise LatticeError(
                    f'actuator {actuator.name}: stroke {AXES[actuator.stroke]} is the axis '
                    'of its node '
                    f'{actuator.node}; a node is pushed across its axis, '
                    'never along it'
                )
        names = [a.name for a in self.actuators]
        if len(set(names)) != len(names):
            raise LatticeError(f'actuators: a name is used twice ({", ".join(names)})')
        for node in self.effectors.values():
            node_axis(node)
        if not (np.isfinite(self.pitch_m) and self.pitch_m > 0):
            raise LatticeError(f'pitch_m = {self.pitch_m!r}: must be finite and > 0')


def _node(value, what: str) -> tuple[int, int, int]:
    # |coordinate| bounded so that numpy's int64 holds it (YAML integers have no limit)
    if not (
        isinstance(value, (list, tuple))
        and len(value) == 3
        and all(type(v) is int for v in value)
        and all(abs(v) <= MAX_COORDINATE for v in value)
    ):
        raise LatticeError(
            f'{what} = {_brief(value)}: expected [x, y, z], three integers (half-pitch '
            'units) of '
            f'at most {MAX_COORDINATE} in size'
        )
    return tuple(value)


def _axis(value, what: str) -> int:
    if not isinstance(value, str) or len(value) != 1 or value not in AXES:
        raise LatticeError(f'{what} = {_brief(value)}: expected one of x, y, z')
    return AXES.index(value)


def _items(data: dict, key: str, kind: type, source: str, required: bool = False):
    """``data[key]`` when it is a ``kind`` (list or mapping); absent or null is empty unless
    ``required``."""
    value = data.get(key)
    if value is None and not required:
        return kind()
    if not isinstance(value, kind) or (required and not value):
        shape = 'a non-empty list' if kind is list else 'a mapping of name: [x, y, z]'
        raise LatticeError(f'{source}: {key} = {_brief(value)}: expected {shape}')
    return value


def _pitch(value, source: str) -> float:
    if type(value) not in (int, float) or not (math.isfinite(value) and value > 0):
        raise LatticeError(
            f'{source}: pitch_m = {_brief(value)}: expected a finite number > 0 (m)'
        )
    return float(value)


def from_dict(data: dict, source: str = 'structure') -> Structure:
    """A Structure from the YAML document's mapping; LatticeError naming the first bad item."""
    if not isinstance(data, dict):
        raise LatticeError(
            f'{source}: expected a mapping with voxels, actuators and effectors, not '
            f'{type(data).__name__ if data is not None else "an empty document"}'
        )
    unknown = sorted(str(k) for k in data if k not in FIELDS)
    if unknown:
        raise LatticeError(
            f'{source}: unknown field(s) {", ".join(unknown)}; allowed: {", ".join(FIELDS)}'
        )
    voxels, extension = [], []
    for k, item in enumerate(_items(data, 'voxels', list, source, required=True)):
        what = f'{source}: voxels[{k}]'
        if not isinstance(item, dict):
            raise LatticeError(
                f'{what} = {_brief(item)}: expected {{centre: [x, y, z], extension: false}}'
            )
        voxels.append(_node(item.get('centre'), f'{what}.centre'))
        if not isinstance(item.get('extension', False), bool):
            raise LatticeError(
                f'{what}.extension = {_brief(item["extension"])}: expected true or false'
            )
        extension.append(item.get('extension', False))
    actuators = []
    for k, item in enumerate(_items(data, 'actuators', list, source)):
        what = f'{source}: actuators[{k}]'
        if not isinstance(item, dict):
            raise LatticeError(f'{what}: expected {{name, node, stroke, partner}}')
        partner = item.get('partner')
        actuators.append(
            Actuator(
                str(item.get('name', k)),
                _node(item.get('node'), f'{what}.node'),
                _axis(item.get('stroke'), f'{what}.stroke'),
                None if partner is None else _node(partner, f'{what}.partner'),
            )
        )
    effectors = {
        str(name): _node(node, f'{source}: effectors.{name}')
        for name, node in _items(data, 'effectors', dict, source).items()
    }
    return Structure(
        np.array(voxels, dtype=int),
        np.array(extension, dtype=bool),
        tuple(actuators),
        effectors,
        _pitch(data.get('pitch_m', DEFAULT_PITCH_M), source),
    )


def load(path: str | Path) -> Structure:
    """A Structure from a YAML file; LatticeError (a ValueError) with one line on any problem."""
    try:
        data = yaml_document(read_input(path))
    except ValueError as error:  # unreadable, too large, not text
        raise LatticeError(f'cannot read the structure {error}') from None
    except yaml.YAMLError as error:
        raise LatticeError(f'{path}: not YAML ({str(error).splitlines()[0]})') from None
    return from_dict(data, str(path))


def effector_nodes(
    structure: Structure, names, what: str = 'markers'
) -> list[tuple[int, int, int]]:
    """The lattice nodes of the effectors ``names`` (e.g. the markers a camera sees); LatticeError
    naming the parameter ``what`` and the structure's effectors when one is not there."""
    unknown = [str(name) for name in names if name not in structure.effectors]
    if unknown:
        raise LatticeError(
            f'parameter {what}: no effector {", ".join(unknown)} in the structure; it has '
            f'{", ".join(structure.effectors) or "none"}'
        )
    return [structure.effectors[name] for name in names]


def _brief(value) -> str:
    """``value`` for a one-line message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


def resolve(path: str | Path) -> Path:
    """``path``, or when empty the structure the workspace ships (config/pom.yaml, the paper's
    quadruped)."""
    if path:
        return Path(path)
    # only when the default is asked for
    from softbots_bringup.share import NotInstalled, installed

    try:
        return installed('config/pom.yaml')
    except NotInstalled as error:
        raise LatticeError(f'no structure file given and {error}') from None
