"""Planar polylines (N, 2) in m: length and discrete curvature, for planned paths and tracked
trajectories alike."""

from __future__ import annotations

import numpy as np


def length(path) -> float:
    """Sum of the segment lengths (m)."""
    path = np.asarray(path, dtype=float).reshape(-1, 2)
    return float(np.hypot(*np.diff(path, axis=0).T).sum())


def curvatures(path) -> np.ndarray:
    """Signed Menger curvature 4·area/(|a||b||c|) (1/m) at each interior point, 0 at both ends;
    (N,)."""
    p = np.asarray(path, dtype=float)
    out = np.zeros(len(p))
    if len(p) < 3:
        return out
    a, b = p[1:-1] - p[:-2], p[2:] - p[1:-1]
    cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    sides = np.hypot(*a.T) * np.hypot(*b.T) * np.hypot(*(p[2:] - p[:-2]).T)
    out[1:-1] = np.divide(2.0 * cross, sides, out=np.zeros_like(cross), where=sides > 0)
    return out
