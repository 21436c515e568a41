"""Gait evaluation from recorded runs (paper VII, Fig. 18, Table IX; spec A22): per-cycle speeds of
an executed gait from tracked or ground-truth poses, against the speeds the learned weights
predict. Units: mm, degrees, seconds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from soro_geometry import se2
from soro_geometry.history import PoseHistory
from terresoro_gait.kinematics import predicted_speeds
from terresoro_gait.units import DEG_PER_RAD, MM_PER_M


@dataclass(frozen=True)
class CycleSpeeds:
    """Speeds of each gait cycle (K,): translation ‖p‖/T (mm/s) and rotation Θ/T (deg/s), T =
    l·τ."""

    speed_mm_s: np.ndarray
    yaw_rate_deg_s: np.ndarray

    def mean_sd(self) -> tuple[float, float, float, float]:
        """(mean, SD) of the translation speeds (mm/s), then of the rotation rates (deg/s), over
        the cycles; SD with ddof = 0."""
        return (
            float(self.speed_mm_s.mean()),
            float(self.speed_mm_s.std()),
            float(self.yaw_rate_deg_s.mean()),
            float(self.yaw_rate_deg_s.std()),
        )


def cycle_speeds(
    cycle_starts_s,
    history: PoseHistory,
    length: int,
    tau_s: float,
    window_s: float = 0.05,
    max_age_s: float = 0.3,
) -> CycleSpeeds:
    """Speeds of the cycles between consecutive instants of ``cycle_starts_s`` (K + 1,) (the last
    is the end of the last cycle), from the poses of ``history`` there ((x m, y m, yaw rad), as
    tracked), each cycle's motion in its own start frame, at the primitive time ``tau_s`` (which
    may differ from the run's: primitives are quasi-static, spec 8)."""
    g = np.array([history.at(t, window_s, max_age_s) for t in cycle_starts_s])
    motion = se2.relative(g[:-1], g[1:])
    return CycleSpeeds(
        *predicted_speeds(MM_PER_M * motion[:, :2], DEG_PER_RAD * motion[:, 2], length, tau_s)
    )


def gait_cycle_starts(edges, length: int) -> list[float]:
    """Command instants (s) starting each cycle of an executed gait of ``length`` states, plus the
    end of its last, from the executed primitives as (start_s, end_s, transition) records;
    transitions are left out."""
    body = [e for e in edges if not e[2]]
    return [e[0] for e in body[::length]] + [body[-1][1]]
