"""Line-of-sight path following with PD steering (thesis §3.4.4-3.4.5, Fig. 3.29; spec B6,
LOS-01..05). No ROS.

Each control step: switch to the next waypoint inside the switch radius R_switch of the current one
(LOS-01); project the robot on the current segment, clamped to it (LOS-02); move the projection
ahead by the lookahead Δ, or take the waypoint when less than Δ is left (LOS-03); steer toward that
reference point: the heading error e = wrap(atan2(p_ref − p) − ψ) (LOS-04) goes through a PD whose
output is the planar bending angle, saturated at the module's 106° (LOS-05, D-M17). The robot stops
within the goal tolerance of the last waypoint, and whenever the tracked pose is older than
``stale_after_s``. Scalar ``math`` throughout: a step is a few microseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from salamander_nav.origami import BODY_LENGTH_M, THETA_MAX_RAD


@dataclass(frozen=True)
class LosSettings:
    """Spec D-M17's starting values: Δ ≈ 1 BL, R_switch ≈ 0.5 BL, Kp 1 rad of bend per rad of
    error, Kd 0.1 s."""

    lookahead_m: float = BODY_LENGTH_M
    switch_radius_m: float = 0.075
    goal_tolerance_m: float = 0.05
    kp: float = 1.0
    kd_s: float = 0.1
    max_bend_rad: float = THETA_MAX_RAD
    stale_after_s: float = 0.3

    def __post_init__(self):
        """ValueError on a length or staleness <= 0, a gain < 0 or a bend beyond 106°."""
        for name in ('lookahead_m', 'switch_radius_m', 'goal_tolerance_m', 'stale_after_s'):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f'{name} = {value}: must be finite and > 0')
        for name in ('kp', 'kd_s'):
            if not (math.isfinite(getattr(self, name)) and getattr(self, name) >= 0):
                raise ValueError(f'{name} = {getattr(self, name)}: must be finite and >= 0')
        if not 0 < self.max_bend_rad <= THETA_MAX_RAD:
            raise ValueError(
                f'max_bend_rad = {self.max_bend_rad}: allowed (0, {THETA_MAX_RAD:.4f}] (106°)'
            )


@dataclass(frozen=True)
class LosStep:
    """One control step: the signed bend (rad, positive turns left) and whether to drive, with what
    LOS saw."""

    bend_rad: float
    drive: bool
    status: str  # 'tracking', 'goal reached' or 'pose stale'
    waypoint: int  # index k of the waypoint being approached
    projection: tuple[float, float]
    reference: tuple[float, float]
    los_heading: float  # rad
    heading_error: float  # rad, in (-π, π]
    cross_track_m: float  # signed: positive when the robot is left of the segment
    distance_left_m: float


def wrap(angle: float) -> float:
    """``angle`` (rad) in (-π, π] (LOS-04)."""
    return math.pi - (math.pi - angle) % (2.0 * math.pi)


class LosTracker:
    """Follows ``waypoints`` (M+1, 2) in m from w_0; call ``step`` at the control rate."""

    def __init__(self, waypoints, settings: LosSettings = LosSettings()):
        """ValueError unless ``waypoints`` has two distinct finite points; repeats dropped."""
        w = np.asarray(waypoints, dtype=float)
        if w.ndim != 2 or w.shape[1] != 2 or len(w) < 2 or not np.all(np.isfinite(w)):
            raise ValueError(
                f'waypoints: need at least two finite (x, y) points, got shape {w.shape}'
            )
        # repeated points: no segment
        keep = np.concatenate([[True], np.hypot(*np.diff(w, axis=0).T) > 1e-9])
        if keep.sum() < 2:
            raise ValueError('waypoints: every point is the same; nothing to follow')
        self.waypoints = [tuple(p) for p in w[keep].tolist()]
        seg = np.hypot(*np.diff(w[keep], axis=0).T)
        # path left after w_k
        self._after = np.concatenate([np.cumsum(seg[::-1])[::-1], [0.0]]).tolist()
        self.settings, self.index = settings, 1
        self._last_error: float | None = None
        self._last_t: float | None = None

    @property
    def last(self) -> int:
        """The index of the last waypoint, the goal."""
        return len(self.waypoints) - 1

    def step(self, pose, pose_time_s: float, now_s: float) -> LosStep:
        """The command for tracked ``pose`` (x, y, ψ) taken at ``pose_time_s``, at time ``now_s``
        (s)."""
        x, y, psi = (float(v) for v in pose)
        st = self.settings
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(psi)):
            return self._stop('pose not finite')
        if now_s - pose_time_s > st.stale_after_s:
            return self._stop('pose stale')
        k, w = self.index, self.waypoints
        # LOS-01
        while k < self.last and math.hypot(x - w[k][0], y - w[k][1]) < st.switch_radius_m:
            k += 1
        self.index = k
        (ax, ay), (bx, by) = w[k - 1], w[k]
        length = math.hypot(bx - ax, by - ay)
        ux, uy = (bx - ax) / length, (by - ay) / length
        # LOS-02
        along = min(max((x - ax) * ux + (y - ay) * uy, 0.0), length)
        px, py = ax + along * ux, ay + along * uy
        # LOS-03
        if length - along <= st.lookahead_m:
            rx, ry = bx, by
        else:
            rx, ry = px + st.lookahead_m * ux, py + st.lookahead_m * uy
        left = length - along + self._after[k]
        cross = ux * (y - ay) - uy * (x - ax)
        if k == self.last and math.hypot(x - bx, y - by) < st.goal_tolerance_m:
            self._last_error = None
            return LosStep(
                0.0, False, 'goal reached', k, (px, py), (rx, ry), psi, 0.0, cross, left
            )
        # LOS-04
        los = math.atan2(ry - y, rx - x)
        error = wrap(los - psi)
        rate = (
            0.0
            if self._last_error is None or now_s <= self._last_t
            else wrap(error - self._last_error) / (now_s - self._last_t)
        )
        self._last_error, self._last_t = error, now_s
        # LOS-05, PD saturated
        bend = min(max(st.kp * error + st.kd_s * rate, -st.max_bend_rad), st.max_bend_rad)
        return LosStep(bend, True, 'tracking', k, (px, py), (rx, ry), los, error, cross, left)

    def _stop(self, status: str) -> LosStep:
        self._last_error = None  # a pause is not a heading rate
        nan = float('nan')
        return LosStep(0.0, False, status, self.index, (nan, nan), (nan, nan), nan, nan, nan, nan)
