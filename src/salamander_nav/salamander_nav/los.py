"""Line-of-sight path following with PD steering (thesis §3.4.4-3.4.5, Fig. 3.29; spec B6,
LOS-01..05). No ROS.

Each control step: switch to the next waypoint inside the switch radius R_switch of the current one
(LOS-01), or once the robot has passed it (its along-track position beyond the waypoint, across the
perpendicular to the segment there: a robot that cannot get inside R_switch, say on a plant that
turns later than the model, moves on instead of circling the waypoint for ever); project the robot
on the current segment, clamped to it (LOS-02); move the projection ahead by the lookahead Δ along
the segment's line, past its waypoint if need be (LOS-03 took the waypoint when less than Δ was
left: the lookahead then shrank to nothing at each waypoint, and a robot whose path curvature lags
its bend oscillated about the path); steer toward that reference point: the heading error e =
wrap(atan2(p_ref − p) − ψ) (LOS-04) goes through a PD whose output is the planar bending angle
(LOS-05, D-M17), to which the bend of the path's own curvature is added (κ s: the robot turns with
the path before an error shows the turn), read ``curvature_preview_m`` ahead of the projection (a
body whose path turns later than its bend must bend early), saturated at the module's 106°.
The goal is reached within the goal tolerance of the last waypoint and, when the path's end has a
heading, within ``goal_heading_tolerance_rad`` of it; a robot that passes the goal without that
stops ('goal missed'): a car-like robot would come back only by a loop off the planned path. The
robot also stops whenever the tracked pose is older than ``stale_after_s``. Scalar ``math`` but for
one interpolation: a step is some microseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from salamander_nav.origami import BODY_LENGTH_M, S_MAX_M, THETA_MAX_RAD
from salamander_nav.planning.paths import curvatures


@dataclass(frozen=True)
class LosSettings:
    """Spec D-M17's starting values: Δ ≈ 1 BL, R_switch ≈ 0.5 BL, Kp 1 rad of bend per rad of
    error; Kd 0.5 s, not 0.1 s, damps a robot whose path curvature lags its bend by a body length
    (test_closed_loop.py). ``s_nominal_m``: the central axis's length while steering (bend =
    κ s)."""

    lookahead_m: float = BODY_LENGTH_M
    switch_radius_m: float = 0.075
    goal_tolerance_m: float = 0.05
    kp: float = 1.0
    kd_s: float = 0.5
    max_bend_rad: float = THETA_MAX_RAD
    stale_after_s: float = 0.3
    goal_heading_tolerance_rad: float = math.radians(25.0)
    s_nominal_m: float = S_MAX_M
    # the feed-forward reads the path's curvature this far ahead of the projection, for a body
    # whose path turns later than its bend: with half a body length, one whose path lags by one
    # reaches Fig. 3.27's goal (3 of 3 noise seeds; none without), but the model's robot cuts
    # that path's corners by 60 mm instead of 34 (test_closed_loop.py): 0 is the thesis's robot
    curvature_preview_m: float = 0.0

    def __post_init__(self):
        """ValueError on a length or staleness <= 0, a gain < 0 or a bend beyond 106°."""
        for name in (
            'lookahead_m',
            'switch_radius_m',
            'goal_tolerance_m',
            'stale_after_s',
            'goal_heading_tolerance_rad',
            's_nominal_m',
        ):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f'{name} = {value}: must be finite and > 0')
        if not (math.isfinite(self.curvature_preview_m) and self.curvature_preview_m >= 0):
            raise ValueError(f'curvature_preview_m = {self.curvature_preview_m}: must be >= 0')
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
    status: str  # 'tracking', 'goal reached', 'goal missed', 'pose stale' or 'pose not finite'
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
    """Follows ``waypoints`` (M+1, 2) in m from w_0 to arrive with ``goal_heading`` (rad; None:
    any); call ``step`` at the control rate."""

    def __init__(
        self,
        waypoints,
        settings: LosSettings = LosSettings(),
        goal_heading: float | None = None,
    ):
        """ValueError unless ``waypoints`` has two distinct finite points (repeats dropped) and
        ``goal_heading`` is None or finite."""
        if goal_heading is not None and not math.isfinite(goal_heading):
            raise ValueError(f'goal heading {goal_heading}: not finite')
        self.goal_heading = goal_heading
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
        # the path's own (Menger) curvature at each waypoint, 0 at both ends
        self._curvature = curvatures(w[keep])
        self._along = np.concatenate([[0.0], np.cumsum(seg)])  # arc length at each waypoint
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
        k = self.index = self._switch(x, y)
        (ax, ay), (bx, by) = self.waypoints[k - 1], self.waypoints[k]
        length = math.hypot(bx - ax, by - ay)
        ux, uy = (bx - ax) / length, (by - ay) / length
        # LOS-02
        ahead = (x - ax) * ux + (y - ay) * uy
        along = min(max(ahead, 0.0), length)
        px, py = ax + along * ux, ay + along * uy
        # LOS-03, except that the reference runs on along the segment's line past its waypoint
        # instead of stopping on it: a lookahead that shrank to nothing at each waypoint made a
        # robot whose path curvature lags its bend oscillate about the path
        rx, ry = px + st.lookahead_m * ux, py + st.lookahead_m * uy
        left = length - along + self._after[k]
        cross = ux * (y - ay) - uy * (x - ax)
        arrival = self._arrival(x, y, psi, ahead >= length) if k == self.last else None
        if arrival:
            self._last_error = None
            return LosStep(0.0, False, arrival, k, (px, py), (rx, ry), psi, 0.0, cross, left)
        # LOS-04
        los = math.atan2(ry - y, rx - x)
        error = wrap(los - psi)
        rate = (
            0.0
            if self._last_error is None or now_s <= self._last_t
            else wrap(error - self._last_error) / (now_s - self._last_t)
        )
        self._last_error, self._last_t = error, now_s
        # LOS-05, PD plus the bend of the path's own curvature (its waypoints' Menger curvatures,
        # interpolated) the preview ahead of the projection, saturated
        at = self._along[k - 1] + along + st.curvature_preview_m
        kappa = float(np.interp(at, self._along, self._curvature))
        ahead = kappa * st.s_nominal_m
        bend = min(max(st.kp * error + st.kd_s * rate + ahead, -st.max_bend_rad), st.max_bend_rad)
        return LosStep(bend, True, 'tracking', k, (px, py), (rx, ry), los, error, cross, left)

    def _switch(self, x: float, y: float) -> int:
        """The waypoint to approach from (x, y): past every one the robot is inside R_switch of
        (LOS-01) or has passed along its segment; never past the goal."""
        k, w = self.index, self.waypoints
        while k < self.last:
            (ax, ay), (bx, by) = w[k - 1], w[k]
            passed = (x - bx) * (bx - ax) + (y - by) * (by - ay) >= 0.0
            if not passed and math.hypot(x - bx, y - by) >= self.settings.switch_radius_m:
                break
            k += 1
        return k

    def heading_error_at_goal(self, psi: float) -> float:
        """ψ − the goal heading, wrapped (rad); 0 when the path's end has no heading."""
        return 0.0 if self.goal_heading is None else wrap(psi - self.goal_heading)

    def _arrival(self, x: float, y: float, psi: float, passed: bool) -> str | None:
        """'goal reached' within the goal's position and heading tolerances, 'goal missed' when the
        robot passed the goal without, else None (on the last segment)."""
        gx, gy = self.waypoints[-1]
        st = self.settings
        if (
            math.hypot(x - gx, y - gy) < st.goal_tolerance_m
            and abs(self.heading_error_at_goal(psi)) <= st.goal_heading_tolerance_rad
        ):
            return 'goal reached'
        return 'goal missed' if passed else None

    def _stop(self, status: str) -> LosStep:
        self._last_error = None  # a pause is not a heading rate
        nan = float('nan')
        return LosStep(0.0, False, status, self.index, (nan, nan), (nan, nan), nan, nan, nan, nan)
