"""CHOMP's cost terms for the salamander planner (thesis §3.4.2, spec B5.2): smoothness, the
arc-length-weighted obstacle cost with its functional gradient, virtual obstacles for over-curved
points, and the orientation correction at both ends. No ROS.

A trajectory is ξ: the n free points (n, 2) in m between the fixed ends q_0 and q_{n+1}, at the
pseudo-time step Δt = 1/(n+1); every function takes the free points and the two ends.
"""

from __future__ import annotations

import math

import numpy as np

from salamander_nav.distance_field import DistanceField
from salamander_nav.planning.paths import curvatures

# correction vectors at most 30° off the path's direction (spec B5.2)
ORIENTATION_CLAMP_RAD = math.pi / 6


def full(xi, q0, q_end) -> np.ndarray:
    """The whole trajectory (n + 2, 2): q_0, the free points, q_{n+1}."""
    return np.vstack([q0, xi, q_end])


def smoothness(xi, q0, q_end) -> tuple[float, np.ndarray]:
    """F_smooth = ½ ‖K ξ + e‖² = ½ Σ_{t=0}^{n} ‖(q_{t+1} − q_t)/Δt‖² (all n + 1 differences, D-M15)
    and its gradient A ξ + b (n, 2), with A = KᵀK = tridiag(−1, 2, −1)/Δt² and b = Kᵀe."""
    q = full(xi, q0, q_end)
    inv_dt = len(q) - 1.0
    velocity = np.diff(q, axis=0) * inv_dt
    grad = (velocity[:-1] - velocity[1:]) * inv_dt  # (Kᵀ(Kξ + e))_t = (v_{t-1} − v_t)/Δt
    return 0.5 * float((velocity**2).sum()), grad


def obstacle_cost(d, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """c(d) and c'(d) of spec B5.2: −d + ε/2 inside (d < 0), (d − ε)²/(2ε) within ε, 0 beyond; C¹
    at 0 and ε."""
    d = np.asarray(d, dtype=float)
    c = np.where(
        d < 0, -d + 0.5 * epsilon, np.where(d <= epsilon, (d - epsilon) ** 2 / (2 * epsilon), 0.0)
    )
    slope = np.where(d < 0, -1.0, np.where(d <= epsilon, (d - epsilon) / epsilon, 0.0))
    return c, slope


def distance_with(points, field: DistanceField, circles) -> tuple[np.ndarray, np.ndarray]:
    """Signed distance (n,) and its gradient (n, 2) to the nearest of the field's obstacles and the
    virtual ``circles`` (k, 3) of (x, y, radius), whose d = ‖x − o‖ − ρ."""
    d, grad = field.query(points)
    for x, y, radius in np.asarray(circles).reshape(-1, 3):
        offset = points - (x, y)
        norm = np.maximum(np.hypot(*offset.T), 1e-12)
        dv = norm - radius
        closer = dv < d
        d = np.where(closer, dv, d)
        grad = np.where(closer[:, None], offset / norm[:, None], grad)
    return d, grad


def obstacle_term(
    xi, q0, q_end, field: DistanceField, circles, epsilon: float, body_m: float = 0.0
) -> tuple[float, np.ndarray]:
    """F_obs = Σ_{t=1}^{n} c(q_t) ‖(q_{t+1} − q_t)/Δt‖ (arc-length weighted: a quick pass through
    an obstacle is not cheap) and the standard CHOMP functional gradient ‖q̇‖ [P⊥ ∇c − c κ] at each
    free point (n, 2), with central differences for q̇ and q̈ (Zucker et al. 2013; the thesis:
    "same with the original CHOMP"). As in CHOMP's body model, d is measured from a disc of radius
    ``body_m`` around the point (the robot's half-width)."""
    q = full(xi, q0, q_end)
    inv_dt = len(q) - 1.0
    d, grad_d = distance_with(xi, field, circles)
    d = d - body_m
    c, slope = obstacle_cost(d, epsilon)
    forward = np.hypot(*(np.diff(q[1:], axis=0) * inv_dt).T)
    cost = float((c * forward).sum())
    qd = (q[2:] - q[:-2]) * (0.5 * inv_dt)
    qdd = (q[2:] - 2 * q[1:-1] + q[:-2]) * inv_dt**2
    speed = np.maximum(np.hypot(*qd.T), 1e-12)
    tangent = qd / speed[:, None]
    grad_c = slope[:, None] * grad_d

    def perpendicular(v):
        return v - (v * tangent).sum(1)[:, None] * tangent

    kappa = perpendicular(qdd) / (speed**2)[:, None]
    return cost, speed[:, None] * (perpendicular(grad_c) - c[:, None] * kappa)


def virtual_obstacles(path, kappa_max: float) -> np.ndarray:
    """Circles (k, 3) of (x, y, radius): the osculating circle (circumcentre, radius 1/κ) of every
    interior point of ``path`` (N, 2) whose Menger curvature exceeds ``kappa_max`` (spec B5.2,
    PL-04)."""
    path = np.asarray(path, dtype=float)
    kappa = curvatures(path)
    over = np.flatnonzero(np.abs(kappa) > kappa_max)
    if not len(over):
        return np.zeros((0, 3))
    a, b, c = path[over - 1], path[over], path[over + 1]
    ab, ac = b - a, c - a
    cross = ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0]
    ab2, ac2 = (ab**2).sum(1), (ac**2).sum(1)
    centre = (
        a
        + np.column_stack([ac[:, 1] * ab2 - ab[:, 1] * ac2, ab[:, 0] * ac2 - ac[:, 0] * ab2])
        / (2 * cross)[:, None]
    )
    return np.column_stack([centre, 1.0 / np.abs(kappa[over])])


def orientation_correction(xi, q0, q_end, psi_start: float, psi_end: float, m: int) -> np.ndarray:
    """v_ori (n, 2): for the first and last ``m`` free points, the vector to where the requested
    end heading puts them (p_k* = q_0 + k h (cos ψ, sin ψ), mirrored at the end, h the mean
    spacing; spec D-M15's reading), its angle to the path's direction clamped to ±π/6, then its
    component perpendicular to the path; zero elsewhere."""
    q = full(xi, q0, q_end)
    n = len(xi)
    m = min(m, n // 2)
    h = float(np.hypot(*np.diff(q, axis=0).T).mean())
    k = np.arange(1, m + 1)[:, None]
    targets = np.vstack(
        [
            q0 + k * h * [math.cos(psi_start), math.sin(psi_start)],
            (q_end - k * h * [math.cos(psi_end), math.sin(psi_end)])[::-1],
        ]
    )
    rows = np.concatenate([np.arange(m), np.arange(n - m, n)])
    tangent = q[rows + 2] - q[rows]
    tangent /= np.maximum(np.hypot(*tangent.T), 1e-12)[:, None]
    correction = targets - xi[rows]
    along = (correction * tangent).sum(1)
    across = tangent[:, 0] * correction[:, 1] - tangent[:, 1] * correction[:, 0]
    angle = np.clip(np.arctan2(across, along), -ORIENTATION_CLAMP_RAD, ORIENTATION_CLAMP_RAD)
    magnitude = np.hypot(along, across)
    normal = np.column_stack([-tangent[:, 1], tangent[:, 0]])
    out = np.zeros_like(xi)
    out[rows] = (magnitude * np.sin(angle))[:, None] * normal
    return out


def minor_arc(
    q0,
    q_end,
    n: int,
    rng: np.random.Generator,
    bulge: tuple[float, float] = (0.1, 0.95),
    side: float | None = None,
) -> np.ndarray:
    """n free points spaced evenly on a random circular arc through q_0 and q_{n+1} whose central
    angle is under 180°: a restart's initial guess (spec B5.2, Fig. 3.28). The central angle is
    drawn from ``bulge`` (fractions of π), the side (+1 left of the chord, -1 right) at random
    unless given."""
    q0, q_end = np.asarray(q0, dtype=float), np.asarray(q_end, dtype=float)
    chord = q_end - q0
    half = 0.5 * float(np.hypot(*chord))
    side = rng.choice([-1.0, 1.0]) if side is None else side
    # signed central angle
    central = rng.uniform(*bulge) * math.pi * side
    radius = half / math.sin(abs(central) / 2)
    normal = np.array([-chord[1], chord[0]]) / (2 * half)
    # turning counter-clockwise (central > 0) from q_0 to q_{n+1} puts the centre left of the chord
    centre = 0.5 * (q0 + q_end) + math.copysign(1.0, central) * normal * radius * math.cos(
        central / 2
    )
    start = math.atan2(*(q0 - centre)[::-1])
    angles = start + central * np.arange(1, n + 1) / (n + 1)
    return centre + radius * np.column_stack([np.cos(angles), np.sin(angles)])
