"""Cable kinematics of the origami module (thesis §3.3.1, Table 3.3, Eq. 3.1) and its workspace
(§3.1.1).

A module's deformation is (s, θ, ϕ): central-axis length s (m), bending angle θ = κ s between the
end plates (rad), bending direction ϕ (rad, in the bottom plate's frame: x to the plate's right,
cable 1 on +y). Three cables sit at angles ψ_k = 90°, 210°, 330° and distance ``d`` from the
plate's centre; ``d`` is not in the thesis (D-M1), so it is a parameter to measure on the robot. No
ROS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# maximum length, straight (§3.1.1); also the body length BL of §3.2
BODY_LENGTH_M = 0.148
S_MIN_M, S_MAX_M = 0.057, 0.148  # fully compressed and fully extended central axis (§3.1.1)
THETA_MAX_RAD = math.radians(106.0)  # maximum bending angle (§3.1.1)
R_TURN_MIN_M = 0.0799  # minimum turning radius, 0.54 BL (ch. 3 intro)
# 12.52 1/m: the planners' limit (D-M9 reads Table 4.1's 10.52 as a typo)
KAPPA_MAX = 1.0 / R_TURN_MIN_M
# ψ_k of the equilateral layout (spec B3, derived)
CABLE_ANGLES_RAD = np.radians([90.0, 210.0, 330.0])
DEFAULT_CABLE_OFFSET_M = 0.02  # d: illustrative only (spec B3), measure it on the robot


class WorkspaceError(ValueError):
    """A deformation or cable set that no module can take (non-finite, or cables that cross)."""


@dataclass(frozen=True)
class Bend:
    """A module deformation (s m, θ rad ≥ 0, ϕ rad)."""

    s_m: float
    theta_rad: float
    phi_rad: float

    @property
    def kappa(self) -> float:
        """Curvature of the central axis (1/m), θ = κ s."""
        return self.theta_rad / self.s_m


def chord(s_m, theta_rad):
    """2 sin(κs/2)/κ = s sinc(θ/2): the chord of the central arc (m), exact at θ = 0 (spec B3, κ →
    0)."""
    return s_m * np.sinc(np.asarray(theta_rad, dtype=float) / (2 * np.pi))


def cable_lengths(bend: Bend, d_m: float = DEFAULT_CABLE_OFFSET_M) -> np.ndarray:
    """(l1, l2, l3) in m of Eq. 3.1 written as 2 sin(κs/2)/κ - 2 sin(κs/2) d (·), so that κ → 0
    gives l_k = s."""
    c, m = chord(bend.s_m, bend.theta_rad), 2.0 * math.sin(bend.theta_rad / 2.0) * d_m
    phi = bend.phi_rad
    return np.array(
        [
            c - m * math.sin(phi),  # Eq. 3.1, l1
            c + m * math.sin(math.pi / 3 + phi),  # Eq. 3.1, l2
            c - m * math.cos(math.pi / 6 + phi),
        ]
    )  # Eq. 3.1, l3


def bend_of(lengths, d_m: float = DEFAULT_CABLE_OFFSET_M) -> Bend:
    """The deformation whose Eq. 3.1 cable lengths are ``lengths`` (m): the forward kinematics of
    spec B3."""
    lengths = np.asarray(lengths, dtype=float)
    if lengths.shape != (3,) or not np.all(np.isfinite(lengths)) or np.any(lengths <= 0):
        raise WorkspaceError(
            f'cable lengths {lengths.tolist()}: need three finite positive lengths (m)'
        )
    c = lengths.mean()
    offsets = c - lengths
    x, y = offsets @ np.cos(CABLE_ANGLES_RAD), offsets @ np.sin(CABLE_ANGLES_RAD)
    m = 2.0 / 3.0 * math.hypot(x, y)  # = 2 sin(κs/2) d
    if m < 1e-15 * c:
        return Bend(float(c), 0.0, 0.0)
    if m > 2 * d_m:
        raise WorkspaceError(
            f'cable lengths {lengths.tolist()} differ by more than the cable offset d = '
            f'{d_m} m '
            'allows'
        )
    theta = 2.0 * math.asin(m / (2.0 * d_m))
    kappa = m / (d_m * c)
    return Bend(float(theta / kappa), theta, math.atan2(y, x))


def saturate(bend: Bend) -> tuple[Bend, list[str]]:
    """``bend`` clipped into the workspace (57 ≤ s ≤ 148 mm, 0 ≤ θ ≤ 106°), with one line per
    clipped quantity."""
    values = (bend.s_m, bend.theta_rad, bend.phi_rad)
    if not all(math.isfinite(v) for v in values):
        raise WorkspaceError(
            f'deformation s = {bend.s_m} m, θ = {bend.theta_rad} rad, ϕ = {bend.phi_rad} '
            'rad '
            'is not finite'
        )
    s = min(max(bend.s_m, S_MIN_M), S_MAX_M)
    theta = min(max(bend.theta_rad, 0.0), THETA_MAX_RAD)
    notes = []
    if s != bend.s_m:
        notes.append(
            f's = {bend.s_m * 1e3:.1f} mm saturated to {s * 1e3:.1f} mm (allowed 57-148 mm)'
        )
    if theta != bend.theta_rad:
        notes.append(
            f'θ = {math.degrees(bend.theta_rad):.1f}° saturated to '
            f'{math.degrees(theta):.1f}° '
            '(allowed 0-106°)'
        )
    return Bend(s, theta, bend.phi_rad), notes


def steering_bend(kappa: float, s_m: float = S_MAX_M) -> Bend:
    """The planar bend that turns the robot on curvature ``kappa`` (1/m, REP-103: positive turns
    left) with cable 1 on top (§3.3.1): ϕ = 180° bends toward cable 2, the robot's left; ϕ = 0
    toward cable 3, its right."""
    return Bend(s_m, abs(kappa) * s_m, math.pi if kappa > 0 else 0.0)


def steering_curvature(bend: Bend) -> float:
    """Signed curvature (1/m) of the bend's horizontal part, -κ cos ϕ: the inverse of
    ``steering_bend`` for planar bends (ϕ = 0 or 180°), and what the robot turns on when a bend
    also lifts its front (any other ϕ)."""
    return -bend.kappa * math.cos(bend.phi_rad)
