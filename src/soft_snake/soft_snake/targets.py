"""Issue 29's targets on the speed tables, each a number computed alike from the thesis's measured
cells and from a simulator's predicted ones, so every figure stands beside the robot's own. No ROS,
no simulator.

Each function takes (cell, BL/s) pairs. ``table_targets`` gathers them with their targets:
- undulation's spread across phase offsets: per (modules, frequency, surface), the fastest β over
  the slowest (target ≤ 1.3; the robot's median 1.09);
- undulation across 1.5-2 Hz: per (modules, β, surface), the largest departure from the mean over
  the three frequencies (target ≤ 10 %; the robot's median 8.7 %);
- undulation's BL/s falls from 3 to 5 modules on every surface (§5.1.1; the robot's does on three:
  on carpet 0.127 with 3, 0.136 with 5);
- sidewinding on carpet and on grass over rubber and paper (target 0.5 ± 0.1; §5.1.2).
A grouped figure is the median over its groups, met when that median is (the robot's own worst
groups are 2.6x and 88 %: 3 modules on carpet at 2 Hz); the share of groups meeting the target is
beside it.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict

from soft_snake import tables
from soft_snake.gaits import SIDEWINDING, UNDULATION

PHASE_SPREAD_MAX = 1.3
FREQUENCY_DEPARTURE_MAX = 0.10
SIDEWINDING_SURFACE_RATIO = (0.4, 0.6)
# a cell at or below this stands still: its group's ratio is infinite (a snake that stands still
# at every β is not "flat in β")
FLOOR_BL_S = 1e-3


def _groups(pairs, gait: str, keys: tuple[str, ...]) -> list[list[float]]:
    """The BL/s of ``gait``'s cells grouped by the cell fields ``keys``."""
    out = defaultdict(list)
    for cell, bl_per_s in pairs:
        if cell.gait == gait:
            out[tuple(getattr(cell, k) for k in keys)].append(bl_per_s)
    return list(out.values())


def phase_spread(pairs) -> list[float]:
    """Undulation's fastest over slowest β per (modules, frequency, surface)."""
    groups = _groups(pairs, UNDULATION, ('segments', 'frequency_hz', 'surface'))
    return [max(g) / min(g) if min(g) > FLOOR_BL_S else math.inf for g in groups]


def frequency_departure(pairs) -> list[float]:
    """Undulation's largest relative departure from the mean over frequency per (modules, β,
    surface)."""
    groups = _groups(pairs, UNDULATION, ('segments', 'beta_rad', 'surface'))
    return [
        max(abs(v / statistics.mean(g) - 1) for v in g) if min(g) > FLOOR_BL_S else math.inf
        for g in groups
    ]


def predicted(predictions) -> list[tuple]:
    """(cell, simulated BL/s) of each ``reproduction.Prediction``."""
    return [(p.cell, p.bl_per_s) for p in predictions]


def mean_bl_per_s(pairs, **where) -> float:
    """The mean BL/s of the pairs whose cell has each field given in ``where`` (NaN: none has)."""
    values = [v for c, v in pairs if all(getattr(c, k) == w for k, w in where.items())]
    return statistics.mean(values) if values else float('nan')


def modules_trend(pairs) -> dict[str, tuple[float, float]]:
    """Per surface, undulation's mean BL/s with 3 and with 5 modules."""
    return {
        s: (
            mean_bl_per_s(pairs, gait=UNDULATION, surface=s, segments=3),
            mean_bl_per_s(pairs, gait=UNDULATION, surface=s, segments=5),
        )
        for s in tables.SURFACES
    }


def sidewinding_surface_ratio(pairs) -> dict[str, float]:
    """Sidewinding's mean BL/s on carpet and on grass over its mean on rubber and paper."""
    smooth = (
        mean_bl_per_s(pairs, gait=SIDEWINDING, surface='rubber')
        + mean_bl_per_s(pairs, gait=SIDEWINDING, surface='paper')
    ) / 2
    return {
        s: mean_bl_per_s(pairs, gait=SIDEWINDING, surface=s) / max(smooth, FLOOR_BL_S)
        for s in ('carpet', 'grass')
    }


def _grouped(values: list[float], limit: float) -> dict:
    """A grouped target: the median over the groups against ``limit`` (NaN, unmet, with no group:
    a measured CSV need not hold every table)."""
    median = statistics.median(values) if values else float('nan')
    return {
        'value': median,
        'target': f'<= {limit}',
        'met': median <= limit,
        'groups': f'{sum(v <= limit for v in values)} of {len(values)}',
    }


def table_targets(pairs) -> dict[str, dict]:
    """Each target: its ``value`` (the median over groups, or per surface), the ``target``, whether
    it is ``met`` and, for grouped ones, how many groups meet it (``groups``)."""
    trend = modules_trend(pairs)
    ratio = sidewinding_surface_ratio(pairs)
    low, high = SIDEWINDING_SURFACE_RATIO
    return {
        'undulation_phase_spread': _grouped(phase_spread(pairs), PHASE_SPREAD_MAX),
        'undulation_frequency_departure': _grouped(
            frequency_departure(pairs), FREQUENCY_DEPARTURE_MAX
        ),
        'undulation_falls_from_3_to_5_modules': {
            'value': {s: [round(a, 3), round(b, 3)] for s, (a, b) in trend.items()},
            'target': 'on every surface',
            'met': all(a > b for a, b in trend.values()),
        },
        'sidewinding_rough_over_smooth': {
            'value': {s: round(r, 3) for s, r in ratio.items()},
            'target': f'{low}-{high}',
            'met': all(low <= r <= high for r in ratio.values()),
        },
    }


def beside_the_robot(predictions) -> dict[str, dict]:
    """``table_targets`` of the simulated speeds (``simulator``) and of the measured ones of the
    same cells (``robot``)."""
    return {
        'simulator': table_targets(predicted(predictions)),
        'robot': table_targets([(p.cell, p.cell.bl_per_s) for p in predictions]),
    }
