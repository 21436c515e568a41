"""The quadruped's actuator board on the hardware link (soro_link): four linear actuators, each
moving its control node along its stroke axis (spec A6). Positions travel in whole micrometres of
control-node displacement q (the actuator's length change is -2q); the firmware refuses targets
beyond its stroke limit. No ROS.
"""

from __future__ import annotations

import numpy as np

from soro_link.protocol import BodySchema

ACTUATORS = 4
UM_PER_MM = 1000

SCHEMAS = (
    # host -> device: target control-node displacement of each actuator (µm)
    BodySchema(0x40, 'set_strokes', [('target_um', f'{ACTUATORS}h')]),
    # device -> host at 50 Hz, the paper's on-robot logging: measured and target displacement (µm),
    # holding flag
    BodySchema(
        0x41,
        'strokes',
        [('position_um', f'{ACTUATORS}h'), ('target_um', f'{ACTUATORS}h'), ('holding', '?')],
    ),
)


def to_um(q_mm) -> tuple[int, ...]:
    """Strokes (mm, M ≤ ACTUATORS) as the board's µm fields; unused channels stay at 0."""
    q = np.zeros(ACTUATORS)
    q[: len(q_mm)] = q_mm
    return tuple(int(v) for v in np.round(q * UM_PER_MM))


def to_mm(um) -> np.ndarray:
    """The board's µm fields (e.g. position_um) as control-node displacements q in mm."""
    return np.asarray(um, dtype=float) / UM_PER_MM
