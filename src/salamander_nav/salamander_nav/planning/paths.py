"""What both planners return, and the independent check every returned path passes before it is
called a success.

A path is (N, 2) points in m, the robot's front wheel set (the kinematic reference of §3.3.2). Its
discrete heading is the direction of each point's chord to the next (the last point takes the
previous chord's); its discrete curvature at interior points is the signed Menger curvature of
three consecutive points (spec B5.2, curvature constraint), zero at the ends. No ROS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from soro_geometry import se2
from soro_geometry.polyline import curvatures, length  # noqa: F401  (part of a plan's vocabulary)

HEADING_TOLERANCE_RAD = math.radians(10.0)  # end headings within ±10° (C3, PL-03)
HALF_WIDTH_M = 0.04  # the salamander is 8 cm wide: its centre line keeps this from obstacles
# kept beyond the half-width by default (issue 28: at least 20 mm): it covers what the field gets
# wrong about the scene (up to half a cell, see sampling_loss) and what tracking adds
SAFETY_MARGIN_M = 0.02


class KeepsClearance:
    """For settings with ``clearance_m`` (the half-width) and ``safety_margin_m`` (m): what every
    path keeps from every obstacle."""

    @property
    def required_m(self) -> float:
        """The clearance every path keeps (m): the half-width and the safety margin."""
        return self.clearance_m + self.safety_margin_m


@dataclass
class Plan:
    """A planner's answer. ``success`` only when ``check`` found nothing wrong; ``reason`` says why
    not (or what was done). ``effort`` counts A* expansions or CHOMP iterations, named by
    ``effort_name``."""

    success: bool
    reason: str
    path: np.ndarray
    planner: str
    effort: int
    effort_name: str
    planning_s: float
    details: dict = field(default_factory=dict)

    @property
    def headings(self) -> np.ndarray:
        """Discrete heading (rad) at each point of ``path``, (N,) (the module's ``headings``)."""
        return headings(self.path)

    @property
    def max_curvature(self) -> float:
        """Largest absolute discrete (Menger) curvature of ``path`` (1/m); 0 under three points."""
        return float(np.abs(curvatures(self.path)).max(initial=0.0))

    @property
    def length_m(self) -> float:
        """Length of ``path`` (m): the sum of its segments."""
        return length(self.path)

    def to_json(self) -> dict:
        """The ``salamander-plan --json`` form (metres, degrees, milliseconds)."""
        path = np.asarray(self.path).reshape(-1, 2)
        out = {
            'success': self.success,
            'reason': self.reason,
            'planner': self.planner,
            'path': path.tolist(),
            'headings_deg': np.degrees(self.headings).tolist() if len(path) > 1 else [],
            'max_curvature': self.max_curvature,
            'length_m': self.length_m,
            'planning_ms': self.planning_s * 1e3,
            self.effort_name: self.effort,
        }
        out.update(self.details)
        return out


def headings(path) -> np.ndarray:
    """Direction (rad) of each point's chord to the next, the last point the previous chord's;
    (N,)."""
    d = np.diff(np.asarray(path, dtype=float), axis=0)
    angles = np.arctan2(d[:, 1], d[:, 0])
    return np.append(angles, angles[-1:])


def problems(
    path,
    field,
    kappa_max: float,
    clearance_m: float = 0.0,
    start=None,
    goal=None,
    goal_tolerance_m: float | None = None,
    heading_tolerance_rad: float | None = HEADING_TOLERANCE_RAD,
) -> list[str]:
    """Everything wrong with ``path``: a clearance under ``clearance_m`` anywhere along it
    (``clear``'s check, on samples at most half a cell apart), a curvature over ``kappa_max``
    (1/m), end points off ``start``/``goal`` (x, y, ψ rad) by more than ``goal_tolerance_m`` (exact
    ends when None), end headings off by more than ``heading_tolerance_rad`` (None: not checked,
    for lattice A*, which gives no orientation
    guarantee). An empty list is a path fit to drive."""
    path = np.asarray(path, dtype=float).reshape(-1, 2)
    if len(path) < 2 or not np.all(np.isfinite(path)):
        return [f'a path needs at least two finite points, got {len(path)}']
    found = []
    least, spacing = least_clearance(field, path)
    if least < clearance_m:
        found.append(
            f'collides: {least * 1e3:.1f} mm from an obstacle (needs ≥ '
            f'{clearance_m * 1e3:.1f} mm; sampled every {spacing * 1e3:.1f} mm)'
        )
    worst = float(np.abs(curvatures(path)).max())
    if worst > kappa_max * (1 + 1e-6):
        found.append(f'curvature {worst:.2f} 1/m exceeds κ_max = {kappa_max:.2f} 1/m')
    tolerance = 1e-9 if goal_tolerance_m is None else goal_tolerance_m
    psi = headings(path)
    for name, pose, point, heading in (
        ('start', start, path[0], psi[0]),
        ('goal', goal, path[-1], psi[-1]),
    ):
        if pose is None:
            continue
        miss = math.hypot(*(point - pose[:2]))
        if miss > tolerance:
            found.append(
                f'{name} missed by {miss * 1e3:.1f} mm (tolerance {tolerance * 1e3:.1f} mm)'
            )
        if heading_tolerance_rad is not None:
            error = abs(float(se2.wrap(heading - pose[2])))
            if error > heading_tolerance_rad:
                found.append(
                    f'{name} heading off by {math.degrees(error):.1f}° (tolerance '
                    f'{math.degrees(heading_tolerance_rad):.0f}°)'
                )
    return found


def sampling_loss(spacing_m: float) -> float:
    """How far (m) the continuous field can fall between two samples ``spacing_m`` apart, below the
    lesser of their values: the field is bilinear between cell centres, each component of its
    gradient within ±1 (neighbouring centres' distances differ by at most a cell), so it changes
    at most √2 per metre, and a point of the segment lies within spacing/2 of a sample. Samples at
    most half a cell apart (``check_spacing``) keep this under 0.36 cell: the check's only
    margin."""
    return spacing_m / math.sqrt(2.0)


def check_spacing(field) -> float:
    """The largest spacing (m) between the samples of a collision check on ``field``: half a
    cell."""
    return 0.5 * field.resolution


def clear(field, x, y, required_m: float, spacing_m: float) -> np.ndarray:
    """The collision check of both planners and of ``problems``: which samples (x, y arrays of one
    shape, m), taken along a path at most ``spacing_m`` apart, keep the segments around them at
    least ``required_m`` (the half-width and the safety margin) from every obstacle on the
    continuous field; bool of that shape."""
    return field.clearance_xy(x, y) >= required_m + sampling_loss(spacing_m)


class Check:
    """``clear`` bound to a field, a required clearance and a spacing, for many calls (lattice A*'s
    expansions): the same verdicts, faster. A point's bilinear value is within a cell of its own
    cell centre's (the gradient is at most √2, the centre at most h/√2 away), so a point whose
    cell centre clears the threshold by a cell passes without interpolating; the others are
    interpolated."""

    def __init__(self, field, required_m: float, spacing_m: float):
        self.field, self.threshold = field, required_m + sampling_loss(spacing_m)
        self.sure = (field.distance >= self.threshold + field.resolution).ravel()
        self.rows, self.cols = field.shape
        self.x0, self.y0 = (float(v) for v in field.origin)
        self.inv_res = 1.0 / field.resolution

    def __call__(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``clear(field, x, y, required_m, spacing_m)``: bool, the shape of x and y."""
        col = np.clip(((x - self.x0) * self.inv_res).astype(np.intp), 0, self.cols - 1)
        row = np.clip(((y - self.y0) * self.inv_res).astype(np.intp), 0, self.rows - 1)
        ok = self.sure[row * self.cols + col]
        unsure = ~ok
        if unsure.any():
            ok[unsure] = self.field.clearance_xy(x[unsure], y[unsure]) >= self.threshold
        return ok


def least_clearance(field, path) -> tuple[float, float]:
    """(the least clearance (m) of the continuous field at ``path``'s (N, 2) points and between
    them, sampled every ``check_spacing`` at most, each sample's sampling loss taken off: the
    loss of the longer segment beside it, so that a path checked part by part at different
    spacings (lattice A*'s primitives, its analytic expansion) reads as each part was checked;
    the largest spacing (m))."""
    samples, gaps = _densify(np.asarray(path, dtype=float), check_spacing(field))
    beside = np.maximum(np.r_[gaps, 0.0], np.r_[0.0, gaps])
    value = field.clearance_xy(samples[:, 0], samples[:, 1]) - sampling_loss(beside)
    return float(value.min()), float(gaps.max(initial=0.0))


def ends_problem(field, start, goal, required_m: float) -> str | None:
    """Why a path cannot begin at ``start`` or end at ``goal`` (x, y in m first): off the map,
    inside an obstacle, or nearer one than ``required_m`` on the continuous field; None when
    both ends are clear."""
    for name, pose in (('start', start), ('goal', goal)):
        point = np.asarray(pose, dtype=float).ravel()[:2]
        at = f'{name} ({point[0]:.3f}, {point[1]:.3f})'
        if not field.contains(point):
            (x0, y0), (x1, y1) = field.origin, field.extent
            return f'{at} is off the map (x {x0:g} to {x1:g} m, y {y0:g} to {y1:g} m)'
        d = float(field.clearance(point))
        if d < required_m or d < 0:
            where = 'inside an obstacle' if d < 0 else f'{d * 1e3:.0f} mm from an obstacle'
            needs = f' (needs {required_m * 1e3:.0f} mm)' if required_m > 0 else ''
            return f'{at} is {where}{needs}'
    return None


def heading_errors(path, start, goal) -> tuple[float, float]:
    """|ψ − ψ_requested| (rad) at the start and at the goal."""
    psi = headings(path)
    return abs(float(se2.wrap(psi[0] - start[2]))), abs(float(se2.wrap(psi[-1] - goal[2])))


def _densify(path: np.ndarray, spacing_m: float) -> tuple[np.ndarray, np.ndarray]:
    """``path``'s points and, on every segment longer than ``spacing_m``, evenly spaced ones
    between, (M, 2); with the distance (m) from each to the next, (M − 1,)."""
    seg = np.diff(path, axis=0)
    lengths = np.hypot(*seg.T)
    n = np.maximum(1, np.ceil(lengths / spacing_m - 1e-9).astype(int))
    base = np.repeat(np.arange(len(seg)), n)
    first = np.repeat(np.cumsum(n) - n, n)  # the index of each segment's first sample
    t = (np.arange(int(n.sum())) - first) / n[base]
    dense = np.vstack([path[base] + t[:, None] * seg[base], path[-1:]])
    return dense, (lengths / n)[base]
