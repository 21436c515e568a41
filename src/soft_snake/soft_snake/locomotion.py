"""How far and how straight a snake went, from its centre of mass's track: the thesis's speed
(Tables 5.2-5.7) and its deviation, the curvature of the trajectory (Figs. 5.2, 5.5). One reading
for the simulator, the driver's feedback and a recorded bag. No ROS.

A snake's centre of mass wiggles within every gait period; its path is the mean position over each
whole period, and its speed the length of that path over the time it spans.
"""

from __future__ import annotations

import math

import numpy as np

from soro_geometry.polyline import curvatures, length

CURVATURE_SPACING_M = 0.05


def cycle_path(t_s, xy_m, period_s: float, start_s: float | None = None) -> np.ndarray:
    """Mean position over each whole period from ``start_s`` (default: the first sample) on; (C, 2)
    in m for samples at times ``t_s`` (T,) of positions ``xy_m`` (T, 2), which need not be evenly
    spaced."""
    t, xy = np.asarray(t_s, dtype=float), np.asarray(xy_m, dtype=float).reshape(-1, 2)
    if not len(t):
        return np.zeros((0, 2))
    start = t[0] if start_s is None else start_s
    which = np.floor((t - start) / period_s + 1e-9).astype(np.int64)
    # one pass over the samples whatever the span: a stale stamp must not cost a loop per period
    whole = (which >= 0) & (which < which.max())
    cycles, index = np.unique(which[whole], return_inverse=True)
    sums = np.zeros((len(cycles), 2))
    np.add.at(sums, index, xy[whole])
    return sums / np.bincount(index, minlength=len(cycles))[:, None]


def speed(path_m, period_s: float) -> float:
    """Path length over the time it spans (m/s) for a cycle path; NaN with fewer than two
    cycles."""
    return length(path_m) / ((len(path_m) - 1) * period_s) if len(path_m) > 1 else math.nan


def forward_speed(path_m, headings_rad, period_s: float) -> float:
    """The part of the speed made along the body's heading at each step (m/s; negative: it backed
    up)."""
    steps = np.diff(np.asarray(path_m, dtype=float), axis=0)
    if not len(steps):
        return math.nan
    h = np.asarray(headings_rad, dtype=float)[: len(steps)]
    return float(
        np.einsum('ij,ij->i', steps, np.column_stack([np.cos(h), np.sin(h)])).sum()
        / (len(steps) * period_s)
    )


def body_headings(com_path_m, head_path_m) -> np.ndarray:
    """The body's heading in each period (rad): from the centre of mass's mean position to the
    head's, so that the head's swing within the period averages out; (C,) for cycle paths (C, 2) of
    both."""
    n = min(len(com_path_m), len(head_path_m))
    ahead = np.asarray(head_path_m, dtype=float)[:n] - np.asarray(com_path_m, dtype=float)[:n]
    return np.arctan2(ahead[:, 1], ahead[:, 0])


def mean_curvature(path_m, spacing_m: float = CURVATURE_SPACING_M) -> float:
    """Mean |curvature| (1/m) along a cycle path resampled every ``spacing_m`` of its length, the
    thesis's deviation; NaN when the path is shorter than two spacings. Resampling keeps a slow
    snake's short, noisy steps from passing for sharp turns."""
    p = np.asarray(path_m, dtype=float).reshape(-1, 2)
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(p, axis=0).T))])
    if len(p) < 2 or s[-1] < 2 * spacing_m:
        return math.nan
    at = np.arange(0.0, s[-1] + 1e-12, spacing_m)
    even = np.column_stack([np.interp(at, s, p[:, 0]), np.interp(at, s, p[:, 1])])
    return float(np.abs(curvatures(even)[1:-1]).mean())
