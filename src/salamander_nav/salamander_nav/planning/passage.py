"""Is there a passage at all? The check both planners make before they search (issue 28): the
cells where the robot's centre may stand, joined eight ways, and whether the start's region holds
the goal. An enclosed goal or a gap narrower than the robot is refused in one labelling of the grid
(tens of milliseconds for millions of cells) instead of a search that exhausts its budget. No ROS.

A cell counts as free when the field at its centre is at least the required clearance (the
half-width and the safety margin), and diagonal neighbours join. This never refuses what a planner
could find: both accept a path only where the continuous field (bilinear between centres) is at
least the required clearance (``paths.clear``), and a bilinear value is at most the largest of its
four centres, so every point of such a path has a free centre among its four, and where the path
crosses from one square of four centres to the next the two shared ones hold a free centre too:
the free centres it passes are joined eight ways. An end counts in the regions of the free centres
among its four.

What "a 9 cm gap" means: the field is exact to half a cell (a cell centre on an obstacle's edge is
free and half a cell from it; ``test_clearance`` measures it on random scenes), so on a 1 cm
grid a gap is resolved to ±5 mm. With no safety margin the robot (8 cm) needs 80 mm: a 9 cm gap
is a passage and a 7 cm gap is not. With the default 20 mm margin it needs 120 mm, and a 9 cm gap
is refused as "no passage at least 120 mm wide", which is the margin's point.
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


def end_regions(labels: np.ndarray, field: DistanceField, point) -> set[int]:
    """The regions (non-zero labels) of the up to four cell centres around ``point`` (x, y in
    m): those the bilinear field there is made of."""
    u, v = ((float(p) - o) / field.resolution - 0.5 for p, o in zip(point, field.origin))
    c0, r0 = math.floor(u), math.floor(v)
    rows = range(max(r0, 0), min(r0 + 2, field.shape[0]))
    cols = range(max(c0, 0), min(c0 + 2, field.shape[1]))
    return {int(labels[r, c]) for r in rows for c in cols} - {0}


def passage_problem(field: DistanceField, start, goal, clearance_m: float) -> str | None:
    """Why no path can join ``start`` and ``goal`` (x, y[, ψ] in m, rad) with ``clearance_m`` (m)
    on each side of the robot's centre line, or None when a passage may exist."""
    points = [np.asarray(p, dtype=float).ravel()[:2] for p in (start, goal)]
    if not all(np.all(np.isfinite(p)) for p in points):
        return None  # the planners' own checks name what is wrong with the ends
    if not all(field.contains(p) for p in points):
        return None
    labels = regions(field, clearance_m)
    start_regions, goal_regions = (end_regions(labels, field, p) for p in points)
    if not start_regions or not goal_regions or start_regions & goal_regions:
        return None  # an end too near an obstacle is the planners' refusal, with its distance
    return (
        f'no passage at least {2e3 * clearance_m:.0f} mm wide between start and goal '
        '(the goal lies in a region the start cannot reach)'
    )
