"""The single-module kinematic model of the salamander (thesis §3.3.2, Table 3.4, spec B4.3). No
ROS.

The state is (x, y, ψ, κ): the front (active, purely rolling) wheel set's position (m) and heading
(rad), and the neutral axis's curvature (1/m), which the moving robot's path takes on (§3.3.2's
assumption):

    ẋ = v cos ψ,  ẏ = v sin ψ,  ψ̇ = v κ,  κ̇ = 2 r α̇ / (D L),  v = (ω1 + ω2) r1 / 2,  |κ| ≤ κ_max

With v and κ̇ held over a step the path is an Euler-spiral piece, so ``advance`` is exact, not an
ODE step. The curvature law is κ = 2 ΔL / (D L) with ΔL = r α the cable retraction (D-M3: the
printed 4 r α / (D L) drops a factor; only linearity matters) and D the lateral cable separation √3
d (D-M4). r, r1 and d are not in the thesis (D-M1): they are parameters to measure on the robot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from salamander_nav.euler_spiral import Piece
from salamander_nav.origami import BODY_LENGTH_M, DEFAULT_CABLE_OFFSET_M, KAPPA_MAX


@dataclass(frozen=True)
class ModuleGeometry:
    """The unknown constants of Table 3.4 (m): cable offset d, spool radius r, wheel radius r1,
    module length L."""

    cable_offset_m: float = DEFAULT_CABLE_OFFSET_M
    spool_radius_m: float = 0.005
    wheel_radius_m: float = 0.02
    length_m: float = BODY_LENGTH_M

    @property
    def cable_separation_m(self) -> float:
        """D of the curvature law: the left/right cables' lateral separation, √3 d with cable 1 on
        top (D-M4)."""
        return math.sqrt(3.0) * self.cable_offset_m


def curvature_of_retraction(retraction_m, geometry: ModuleGeometry = ModuleGeometry()):
    """κ = 2 (L − L1) / (D L) (1/m) for a cable retraction L − L1 (m) (§3.3.2)."""
    return 2.0 * np.asarray(retraction_m) / (geometry.cable_separation_m * geometry.length_m)


def curvature_rate(spool_rate_rad_s, geometry: ModuleGeometry = ModuleGeometry()):
    """κ̇ (1/(m s)) for the two bottom origami motors turning at ±α̇ (rad/s): 2 r α̇ / (D L)
    (D-M3)."""
    return curvature_of_retraction(
        geometry.spool_radius_m * np.asarray(spool_rate_rad_s), geometry
    )


def forward_speed(omega1_rad_s, omega2_rad_s, wheel_radius_m: float):
    """v = (ω1 + ω2) r1 / 2 (m/s), Table 3.4's last line (SA-04)."""
    return (np.asarray(omega1_rad_s) + np.asarray(omega2_rad_s)) * wheel_radius_m / 2.0


def advance(
    state, v_m_s: float, kappa_rate: float, dt_s: float, kappa_max: float = KAPPA_MAX
) -> np.ndarray:
    """The state (x, y, ψ, κ) after ``dt_s`` at speed ``v_m_s`` and curvature rate ``kappa_rate``
    (1/(m s)), the curvature held at ±``kappa_max`` once it gets there: at most two exact pieces
    (spiral, then arc)."""
    x, y, psi, kappa = (float(v) for v in state)
    target = min(max(kappa + kappa_rate * dt_s, -kappa_max), kappa_max)
    t_ramp = dt_s if kappa_rate == 0 else min(dt_s, (target - kappa) / kappa_rate)
    pose = np.array([x, y, psi, kappa])
    for duration, rate in ((t_ramp, kappa_rate), (dt_s - t_ramp, 0.0)):
        if duration <= 0:
            continue
        if v_m_s == 0:
            pose[3] += rate * duration
            continue
        end = Piece(*pose, rate / v_m_s, v_m_s * duration).end()
        pose = end
    pose[3] = target
    return pose
