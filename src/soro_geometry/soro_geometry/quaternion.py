"""Unit quaternions (w, x, y, z), Hamilton product, mapping body to world, yaw; arrays broadcast
over leading axes.

The products are bilinear forms evaluated as outer product @ constant table: two numpy calls
instead of a dozen component-wise ones, which is what a step of a few rods costs (numpy's per-call
overhead dominates at this size).
"""

from __future__ import annotations

import numpy as np


def _levi_civita() -> np.ndarray:
    eps = np.zeros((3, 3, 3))
    for i, j, k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        eps[i, j, k], eps[i, k, j] = 1.0, -1.0
    return eps


def _hamilton() -> np.ndarray:
    """H[j, k, i]: (p ⊗ q)_i = Σ_jk p_j q_k H[j, k, i]."""
    eps, table = _levi_civita(), np.zeros((4, 4, 4))
    table[0, 0, 0] = 1.0
    for a in range(3):
        table[1 + a, 1 + a, 0] = -1.0  # w = pw qw - pv·qv
        table[0, 1 + a, 1 + a] = table[1 + a, 0, 1 + a] = 1.0  # v = pw qv + qw pv + pv × qv
        for b in range(3):
            for c in range(3):
                table[1 + b, 1 + c, 1 + a] += eps[a, b, c]
    return table


_EPS = _levi_civita()
CROSS = _EPS.transpose(1, 2, 0).reshape(9, 3)  # (a_j b_k) -> Σ ε_ijk a_j b_k
HAMILTON = _hamilton().reshape(16, 4)
PURE = _hamilton()[1:, :, :].reshape(12, 4)  # [0, w] ⊗ q for a vector w
# (q_j q_k) -> (R(q) e_x · |q|², |q|²): the first column of the rotation matrix, and the squared
# norm
BODY_X = np.zeros((4, 4, 4))
for (j, k), row in {
    (0, 0): (1, 0, 0, 1),
    (1, 1): (1, 0, 0, 1),
    (2, 2): (-1, 0, 0, 1),
    (3, 3): (-1, 0, 0, 1),
    (1, 2): (0, 2, 0, 0),
    (0, 3): (0, 2, 0, 0),
    (1, 3): (0, 0, 2, 0),
    (0, 2): (0, 0, -2, 0),
}.items():
    BODY_X[j, k] = row
BODY_X = BODY_X.reshape(16, 4)


def _bilinear(a: np.ndarray, b: np.ndarray, table: np.ndarray) -> np.ndarray:
    outer = a[..., :, None] * b[..., None, :]
    return outer.reshape(outer.shape[:-2] + (table.shape[0],)) @ table


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b over the last axis (3)."""
    return _bilinear(a, b, CROSS)


def multiply(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product p ⊗ q, shapes (..., 4)."""
    return _bilinear(p, q, HAMILTON)


def multiply_pure(w: np.ndarray, q: np.ndarray) -> np.ndarray:
    """[0, w] ⊗ q for a vector w (..., 3), as in the quaternion kinematics q̇ = ½ [0, ω] ⊗ q."""
    return _bilinear(w, q, PURE)


def from_axis_angle(axis, angle_rad) -> np.ndarray:
    """The rotation by ``angle_rad`` about ``axis`` (..., 3) of any non-zero length; (..., 4).
    ValueError for a zero or non-finite axis (it names no rotation)."""
    axis = np.asarray(axis, dtype=float)
    length = np.linalg.norm(axis, axis=-1, keepdims=True)
    if not np.all(np.isfinite(length) & (length > 0)):
        raise ValueError(f'axis {axis.tolist()}: every axis must be finite and non-zero')
    half = 0.5 * np.asarray(angle_rad, dtype=float)[..., None]
    return np.concatenate([np.cos(half), np.sin(half) * axis / length], axis=-1)


def from_rotation_vector(phi: np.ndarray) -> np.ndarray:
    """exp(φ/2): the rotation by |φ| about φ, shape (..., 3) -> (..., 4); exact unit norm for any
    φ."""
    angle = np.linalg.norm(phi, axis=-1, keepdims=True)
    # sin(a/2)/a, written with sinc so that φ -> 0 needs no special case
    scale = 0.5 * np.sinc(angle / (2 * np.pi))
    return np.concatenate([np.cos(0.5 * angle), scale * phi], axis=-1)


def rotate(q: np.ndarray, x: np.ndarray) -> np.ndarray:
    """R(q) x for unit q, shapes (..., 4) and (..., 3)."""
    qw, qv = q[..., :1], q[..., 1:]
    t = 2.0 * cross(qv, x)
    return x + qw * t + cross(qv, t)


def body_x(q: np.ndarray) -> np.ndarray:
    """R(q) e_x, the first column of the rotation matrix, for q of any norm (divided out), shape
    (..., 3)."""
    scaled = _bilinear(q, q, BODY_X)
    return scaled[..., :3] / scaled[..., 3:]


def normalized(q: np.ndarray) -> np.ndarray:
    """``q`` (..., 4) divided by its norm."""
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def from_yaw(yaw_rad) -> np.ndarray:
    """The rotation by ``yaw_rad`` about z, shape (...,) -> (..., 4)."""
    half = 0.5 * np.asarray(yaw_rad, dtype=float)
    zero = np.zeros_like(half)
    return np.stack([np.cos(half), zero, zero, np.sin(half)], -1)


def yaw(q: np.ndarray) -> np.ndarray:
    """Heading (rad, in (-π, π]) of the rotation q (..., 4): the angle of R(q) e_x projected onto
    the xy plane, i.e. the z angle of the z-y-x (yaw-pitch-roll) decomposition."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
