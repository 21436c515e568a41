"""Unit quaternions (w, x, y, z), Hamilton product, mapping body to world; arrays broadcast over leading axes."""
from __future__ import annotations

import numpy as np


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b over the last axis (3); several times faster than np.cross on the small arrays of a few rods."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def multiply(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product p ⊗ q, shapes (..., 4)."""
    pw, pv = p[..., :1], p[..., 1:]
    qw, qv = q[..., :1], q[..., 1:]
    w = pw * qw - np.sum(pv * qv, axis=-1, keepdims=True)
    return np.concatenate([w, pw * qv + qw * pv + cross(pv, qv)], axis=-1)


def multiply_pure(w: np.ndarray, q: np.ndarray) -> np.ndarray:
    """[0, w] ⊗ q for a vector w (..., 3), as in the quaternion kinematics q̇ = ½ [0, ω] ⊗ q."""
    qw, qv = q[..., :1], q[..., 1:]
    return np.concatenate([-np.sum(w * qv, axis=-1, keepdims=True), qw * w + cross(w, qv)], axis=-1)


def from_axis_angle(axis, angle_rad) -> np.ndarray:
    axis = np.asarray(axis, dtype=float)
    half = 0.5 * np.asarray(angle_rad, dtype=float)[..., None]
    return np.concatenate([np.cos(half), np.sin(half) * axis / np.linalg.norm(axis, axis=-1, keepdims=True)], axis=-1)


def from_rotation_vector(phi: np.ndarray) -> np.ndarray:
    """exp(φ/2): the rotation by |φ| about φ, shape (..., 3) -> (..., 4); exact unit norm for any φ."""
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
    """R(q) e_x, the first column of the rotation matrix, for q of any norm (divided out), shape (..., 3)."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([w * w + x * x - y * y - z * z, 2 * (x * y + w * z), 2 * (x * z - w * y)], axis=-1) \
        / np.sum(q * q, axis=-1, keepdims=True)


def normalized(q: np.ndarray) -> np.ndarray:
    return q / np.linalg.norm(q, axis=-1, keepdims=True)
