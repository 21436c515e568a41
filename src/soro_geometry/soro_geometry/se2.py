"""SE(2): planar poses and transforms, written once for the stack (DESIGN: "SE(2) helpers exist
once").

A pose or transform is g = (x, y, θ) = [R(θ) p; 0 1] with p = (x, y) in any length unit the caller
picks and θ in **radians**. Every function broadcasts over leading axes: a pose array has shape
(..., 3), a vector (..., 2). Compositions do not wrap the angle (a sum of rotations keeps its
turns); ``relative`` and ``wrap`` do.
"""

from __future__ import annotations

import numpy as np


def rot(theta) -> np.ndarray:
    """R(θ) = [[cos θ, -sin θ], [sin θ, cos θ]] (paper section IV), shape (..., 2, 2); θ in rad."""
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def rotate(theta, v) -> np.ndarray:
    """R(θ) v for vectors v (..., 2); θ (...,) in rad."""
    v = np.asarray(v, dtype=float)
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], -1)


def wrap(angle):
    """Angle (rad) wrapped into (-π, π]."""
    return np.pi - np.mod(np.pi - np.asarray(angle, dtype=float), 2 * np.pi)


def compose(a, b) -> np.ndarray:
    """a b: the transform b expressed in a's frame and then applied after a; (..., 3) each, angle
    not wrapped."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.concatenate(
        [a[..., :2] + rotate(a[..., 2], b[..., :2]), (a[..., 2] + b[..., 2])[..., None]], -1
    )


def inverse(g) -> np.ndarray:
    """g^-1 = (-R(θ)^T p, -θ), shape (..., 3)."""
    g = np.asarray(g, dtype=float)
    return np.concatenate([-rotate(-g[..., 2], g[..., :2]), -g[..., 2:3]], -1)


def relative(g_s, g_e) -> np.ndarray:
    """g_s^-1 g_e: the end pose in the frame of the start pose, angle wrapped into (-π, π]; (...,
    3)."""
    d = compose(inverse(g_s), g_e)
    return np.concatenate([d[..., :2], wrap(d[..., 2])[..., None]], -1)


def chain(steps) -> np.ndarray:
    """g_1, g_1 g_2, ..., g_1 ⋯ g_l: the pose after each of the steps (..., l, 3), in the frame
    before the first; angles not wrapped. The same as composing one step at a time, in two
    cumulative sums."""
    steps = np.asarray(steps, dtype=float)
    heading = np.cumsum(steps[..., 2], -1)
    # each step in the heading before it
    xy = np.cumsum(rotate(heading - steps[..., 2], steps[..., :2]), -2)
    return np.concatenate([xy, heading[..., None]], -1)


def circular_mean(angles, axis: int = -1) -> np.ndarray:
    """Mean direction (rad, in (-π, π]) of ``angles`` (rad) along ``axis``: the angle of the mean
    unit vector."""
    angles = np.asarray(angles, dtype=float)
    return np.arctan2(np.sin(angles).mean(axis), np.cos(angles).mean(axis))


def near(angle, reference) -> np.ndarray:
    """``angle`` (rad) plus the whole turns that bring it within π of ``reference`` (keeps a
    heading's turn count)."""
    angle = np.asarray(angle, dtype=float)
    return angle + 2 * np.pi * np.round((np.asarray(reference, dtype=float) - angle) / (2 * np.pi))
