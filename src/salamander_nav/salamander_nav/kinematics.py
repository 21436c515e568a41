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

``Plant`` is the simulator's robot, which need not be this model: §3.3.2 assumes the path takes on
the neutral axis's curvature "over short periods", i.e. at once. On the robot the passive back
wheel set slides sideways until the body settles on the new arc, so the path's curvature follows
the bend's over some distance travelled, and the bend turns the robot by a factor that is not
exactly 1 (wheel slip, an uncalibrated d). The plant has both: a first-order lag over distance
(``curvature_lag_m``, speed independent) toward ``bend_gain`` × the bend's curvature. Lag 0 and
gain 1 are the thesis's model.
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


def lagged_curvature(
    kappa: float, kappa_bend: float, distance_m: float, lag_m: float = 0.0, gain: float = 1.0
) -> float:
    """The path curvature (1/m) after ``distance_m`` travelled from path curvature ``kappa`` with
    the bend's curvature held at ``kappa_bend``: a first-order lag over distance of length
    ``lag_m`` (m; 0: none, the thesis's assumption) toward ``gain`` × ``kappa_bend``. The step
    response reaches 63 % of the way after one ``lag_m``, whatever the speed."""
    target = gain * kappa_bend
    if lag_m <= 0:
        return target
    return target + (kappa - target) * math.exp(-abs(distance_m) / lag_m)


@dataclass(frozen=True)
class PlantError:
    """How the simulated robot differs from the planner's and tracker's model (module docstring):
    the path curvature's lag behind the bend (m of travel) and the steering gain."""

    curvature_lag_m: float = 0.0
    bend_gain: float = 1.0

    def __post_init__(self):
        """ValueError on a negative or non-finite lag, or a gain that is not finite and > 0."""
        if not (math.isfinite(self.curvature_lag_m) and self.curvature_lag_m >= 0):
            raise ValueError(f'curvature_lag_m = {self.curvature_lag_m}: must be finite and >= 0')
        if not (math.isfinite(self.bend_gain) and self.bend_gain > 0):
            raise ValueError(f'bend_gain = {self.bend_gain}: must be finite and > 0')


class Plant:
    """The front wheel set's state (x, y, ψ, κ) moved by the bend's curvature with ``error``: each
    step's curvature ends at ``lagged_curvature`` and changes linearly in between, so a step is one
    exact Euler-spiral piece (``advance``)."""

    def __init__(self, start_pose, error: PlantError = PlantError()):
        """At ``start_pose`` (x m, y m, ψ rad), on a straight path."""
        self.state = np.array([*start_pose, 0.0], dtype=float)
        self.error = error

    def step(self, v_m_s: float, kappa_bend: float, dt_s: float) -> np.ndarray:
        """Drive ``dt_s`` s at ``v_m_s`` with the bend's curvature ``kappa_bend`` (1/m); the new
        state."""
        kappa = lagged_curvature(
            self.state[3],
            kappa_bend,
            v_m_s * dt_s,
            self.error.curvature_lag_m,
            self.error.bend_gain,
        )
        rate = (kappa - self.state[3]) / dt_s if dt_s > 0 else 0.0
        self.state = advance(self.state, v_m_s, rate, dt_s, kappa_max=math.inf)
        return self.state
