"""Gaits of a voxel robot as key poses of foot DOFs, turned into actuator sequences by POM's
inverse kinematics (spec A7). No ROS.

A gait is a table: the rest pose, then the key poses of one cycle, each a target (mm) for every
chosen effector DOF. The quadruped's tripod gait (the authors' 8-step cycle, d = 5 mm) lifts one
front foot at a time while the back feet shift; played in reverse order it walks backwards. Between
key poses the strokes are interpolated over ``step_period_s``, linearly or with a cosine (zero
speed at each key pose); the paper gives no timing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pom_voxel.lattice import LatticeError
from pom_voxel.planes_of_motion import PlanesOfMotion, Strokes

SHAPES = ('linear', 'cosine')


@dataclass(frozen=True)
class KeyPoseGait:
    """A gait: per column an effector DOF (name, axis); the rest pose and one cycle (mm)."""

    name: str
    dofs: tuple[tuple[str, str], ...]  # (effector name, axis) per column
    rest: tuple[float, ...]  # the pose before and after walking (mm)
    cycle: tuple[tuple[float, ...], ...]  # key poses of one cycle, in order (mm)


D = 5.0  # the authors' step amplitude, mm (spec A7)
TRIPOD = KeyPoseGait(
    'tripod',
    (('front_left', 'z'), ('front_right', 'z'), ('back_left', 'y'), ('back_right', 'x')),
    rest=(0.0, 0.0, 0.0, 0.0),
    cycle=tuple(
        zip(
            [0, D, D, D, 0, -D, -D, -D],
            [0, -D, -D, -D, 0, D, D, D],
            [D, D, 0, -D, -D, -D, 0, D],
            [-D, -D, 0, D, D, D, 0, -D],
        )
    ),
)
GAITS = {g.name: g for g in (TRIPOD,)}


def gait(name: str) -> KeyPoseGait:
    """The gait ``name`` of GAITS; LatticeError listing the known gaits otherwise."""
    if name not in GAITS:
        raise LatticeError(f'gait {name!r}: known gaits are {", ".join(GAITS)}')
    return GAITS[name]


def key_strokes(
    pom: PlanesOfMotion, g: KeyPoseGait, reverse: bool = False
) -> tuple[np.ndarray, list[Strokes]]:
    """Strokes (P + 1, M) of the rest pose and of each key pose of one cycle (reverse: the cycle
    backwards), by IK of the gait's DOFs; and each pose's IK result (saturation)."""
    effectors = pom.structure.effectors
    missing = [name for name, _ in g.dofs if name not in effectors]
    if missing:
        raise LatticeError(f'gait {g.name}: the structure names no effector {", ".join(missing)}')
    dofs = [(effectors[name], axis) for name, axis in g.dofs]
    poses = [g.rest] + list(g.cycle[::-1] if reverse else g.cycle)
    solved = [pom.inverse(dofs, pose) for pose in poses]
    return np.array([s.q for s in solved]), solved


def interpolate(
    keys: np.ndarray, step_period_s: float, samples: int, shape: str = 'linear'
) -> tuple[np.ndarray, np.ndarray]:
    """One cycle through ``keys`` (P, M), closed back to the first: times (samples,) s from 0 to P
    steps (excluded) and strokes (samples, M), each step ``step_period_s`` long."""
    if shape not in SHAPES:
        raise LatticeError(f'shape = {shape!r}: allowed values are {", ".join(SHAPES)}')
    if not (np.isfinite(step_period_s) and step_period_s > 0) or samples < 1:
        raise LatticeError(
            f'step_period_s = {step_period_s!r}, samples = {samples!r}: need a finite '
            'period > 0 '
            'and at least one sample'
        )
    count = len(keys)
    phase = np.arange(samples) * count / samples  # in steps
    step, within = np.floor(phase).astype(int), phase % 1.0
    if shape == 'cosine':
        within = (1 - np.cos(np.pi * within)) / 2
    start, end = keys[step], keys[(step + 1) % count]
    return phase * step_period_s, start + within[:, None] * (end - start)


def trajectories(pom: PlanesOfMotion, strokes: np.ndarray) -> dict[str, np.ndarray]:
    """Each named effector's predicted displacement (T, 3) under strokes (T, M)."""
    x = pom.forward_many(strokes)
    return {name: x[:, pom.index[node]] for name, node in pom.structure.effectors.items()}
