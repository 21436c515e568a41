"""The snake's head controller on the hardware link (soro_link): the host streams every chamber's
valve duty, the head forwards each module's three over I²C (thesis §2.1.1; spec A6, option 2) and
reports the chambers back. No ROS.

Duties travel in whole percent, pressures in tenths of a kPa (gauge), always 15 slots (5 modules ×
3 chambers, i then j) of which the first ``modules × 3`` are used.
"""

from __future__ import annotations

import numpy as np

from soft_snake.gaits import CHAMBERS, MAX_SEGMENTS
from soro_link.protocol import BodySchema

SLOTS = MAX_SEGMENTS * CHAMBERS
# the head vents every chamber when duties stop for this long (spec A6)
COMMAND_TIMEOUT_S = 0.5
# a chamber whose pressure the board does not measure (firmware/snake_head.c)
PRESSURE_UNMEASURED = 0xFFFF

SCHEMAS = (
    # host -> head: duty (%) of every chamber, and how many modules the host thinks there are
    BodySchema(0x60, 'set_valves', [('modules', 'B'), ('duty_pct', f'{SLOTS}B')]),
    # head -> host at the telemetry rate: applied duty (%), chamber gauge pressure (0.1 kPa),
    # vented flag
    BodySchema(
        0x61,
        'chambers',
        [
            ('modules', 'B'),
            ('duty_pct', f'{SLOTS}B'),
            ('pressure_hpa', f'{SLOTS}H'),
            ('vented', '?'),
        ],
    ),
)


def to_wire(duty: np.ndarray) -> dict:
    """The ``set_valves`` body of duties (N, 3) in [0, 1]."""
    slots = np.zeros(SLOTS, dtype=int)
    slots[: duty.size] = np.round(np.clip(duty, 0.0, 1.0) * 100).astype(int).ravel()
    return {'modules': duty.shape[0], 'duty_pct': tuple(int(v) for v in slots)}


def duties_of(fields) -> np.ndarray:
    """Duties (N, 3) in [0, 1] of a ``set_valves`` or ``chambers`` body."""
    n = fields['modules']
    return np.array(fields['duty_pct'][: n * CHAMBERS], dtype=float).reshape(n, CHAMBERS) / 100.0


def pressures_of(fields) -> np.ndarray:
    """Gauge pressures (N, 3) in Pa of a ``chambers`` body; NaN where the board does not measure
    them."""
    n = fields['modules']
    hpa = np.array(fields['pressure_hpa'][: n * CHAMBERS], dtype=float).reshape(n, CHAMBERS)
    return np.where(hpa == PRESSURE_UNMEASURED, np.nan, hpa * 100.0)
