"""Is there a passage at all? The check both planners make before they search (issue 28): the
cells where the robot's centre may stand, joined eight ways, and whether the start's region holds
the goal. An enclosed goal or a gap narrower than the robot is refused in one labelling of the grid
(tens of milliseconds for millions of cells) instead of a search that exhausts its budget. No ROS.

A cell counts as free when the field's clearance at its centre is at least the required one, and
diagonal neighbours join: the check is as exact as the field (within half a cell of the scene's
geometry), so on a 1 cm grid a 9 cm gap is a passage for an 8 cm robot and a 7 cm gap is not.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import ndimage

from salamander_nav.distance_field import DistanceField

EIGHT_WAYS = np.ones((3, 3), dtype=bool)


def regions(field: DistanceField, clearance_m: float) -> np.ndarray:
    """Labels (rows, cols) of int: the connected regions where a centre kept ``clearance_m`` (m)
    from every obstacle may lie, 0 where none can."""
    labels, _ = ndimage.label(field.distance >= clearance_m, structure=EIGHT_WAYS)
    return labels


def cell_of(field: DistanceField, point) -> tuple[int, int] | None:
    """(row, col) of the cell holding ``point`` (x, y in m), None off the grid."""
    col, row = (math.floor((float(v) - o) / field.resolution) for v, o in zip(point, field.origin))
    if 0 <= row < field.shape[0] and 0 <= col < field.shape[1]:
        return row, col
    return None


def passage_problem(field: DistanceField, start, goal, clearance_m: float) -> str | None:
    """Why no path can join ``start`` and ``goal`` (x, y[, ψ] in m, rad) with ``clearance_m`` (m)
    on each side of the robot's centre line, or None when a passage may exist."""
    points = [np.asarray(p, dtype=float).ravel()[:2] for p in (start, goal)]
    if not all(np.all(np.isfinite(p)) for p in points):
        return None  # the planners' own checks name what is wrong with the ends
    ends = [cell_of(field, p) for p in points]
    if None in ends:
        return None
    labels = regions(field, clearance_m)
    start_region, goal_region = (labels[cell] for cell in ends)
    if not start_region or not goal_region or start_region == goal_region:
        return None  # an end too near an obstacle is the planners' refusal, with its distance
    return (
        f'no passage at least {2e3 * clearance_m:.0f} mm wide between start and goal '
        '(the goal lies in a region the start cannot reach)'
    )
