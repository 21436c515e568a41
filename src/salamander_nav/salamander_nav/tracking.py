"""What the controller node computes around the LOS tracker, kept out of the node so it is tested
without ROS: the module command for a LOS step, the stale-pose clock, the progress checker, and the
trail. No ROS."""

from __future__ import annotations

import math

import numpy as np

from salamander_nav.los import LosStep
from salamander_nav.modules import WHEELS, ModuleCommand
from salamander_nav.origami import Bend, steering_curvature
from soro_geometry import quaternion

FRONT_MODULE = 1
# the URDF splits module 1's planar bend over four joints (urdf/salamander.urdf.xacro)
BEND_JOINTS = 4


def steering_command(
    step: LosStep, speed_m_s: float, s_nominal_m: float, wheel_radius_m: float, held: Bend
) -> ModuleCommand:
    """The front module's command for a LOS step: the PD's planar bend (ϕ = 180° turns left, 0
    right; D-M17) at the nominal length with every wheel at ``speed_m_s`` (ω1 = ω2, D-M22), or,
    when LOS says stop, the wheels stopped and the bend ``held`` where it is."""
    if not step.drive:
        return ModuleCommand(FRONT_MODULE, held, (0.0,) * WHEELS)
    bend = Bend(s_nominal_m, abs(step.bend_rad), math.pi if step.bend_rad > 0 else 0.0)
    return ModuleCommand(FRONT_MODULE, bend, (speed_m_s / wheel_radius_m,) * WHEELS)


def bend_joints(bend: Bend) -> list[float]:
    """Joint positions (rad) of the URDF's body_bend_1..4 for a module's bend: its planar angle in
    equal parts."""
    planar = steering_curvature(bend) * bend.s_m
    return [planar / BEND_JOINTS] * BEND_JOINTS


def end_heading(wxyz) -> float | None:
    """The heading (rad) a path's last pose asks to arrive with, from its orientation quaternion
    (w, x, y, z); None when it has none: all zeros (a path of positions only) or not finite."""
    q = np.asarray(wxyz, dtype=float)
    if not np.all(np.isfinite(q)) or np.linalg.norm(q) < 0.5:
        return None
    return float(quaternion.yaw(q / np.linalg.norm(q)))


def progress_problem(speed_m_s: float, required_m: float, window_s: float) -> str | None:
    """Why a follow at ``speed_m_s`` could not meet the progress check even on a straight path
    (it must cover twice ``required_m`` in ``window_s``), or None."""
    if speed_m_s * window_s >= 2.0 * required_m:
        return None
    return (
        f'speed_m_s = {speed_m_s}: {speed_m_s * window_s * 1e3:.0f} mm in progress_window_s = '
        f'{window_s} s is under twice progress_required_m = {required_m} m'
    )


class StaleClock:
    """How long the tracked pose has been stale (s), to give up a path after ``give_up_s`` without
    tracking."""

    def __init__(self, give_up_s: float):
        """Not stale yet; ``give_up_s`` (s): how long the pose may stay stale before giving up."""
        self.give_up_s, self.since = give_up_s, None

    def update(self, stale: bool, now_s: float) -> bool:
        """Record one step; True when the pose has been stale for longer than ``give_up_s``."""
        if not stale:
            self.since = None
            return False
        self.since = now_s if self.since is None else self.since
        return now_s - self.since > self.give_up_s


class ProgressChecker:
    """Whether a path is still being followed (Nav2's progress checker, measured along the path):
    the distance left must fall by ``required_m`` within every ``window_s``, or the follow is
    given up. A robot that circles, is blocked or drives off the path makes no such progress."""

    def __init__(self, required_m: float, window_s: float):
        """``required_m`` (m) of the path within ``window_s`` (s); ValueError unless both > 0."""
        if not (required_m > 0 and window_s > 0):
            raise ValueError(
                f'progress {required_m} m in {window_s} s: both must be > 0 to ever be met'
            )
        self.required_m, self.window_s = required_m, window_s
        self._best: tuple[float, float] | None = None  # distance left, when

    def update(self, distance_left_m: float, now_s: float) -> str | None:
        """Record the distance left (m; NaN while the pose is unknown) at ``now_s`` (s): None while
        there is progress, else why the follow stops."""
        if self._best is None or distance_left_m <= self._best[0] - self.required_m:
            if math.isfinite(distance_left_m):
                self._best = (distance_left_m, now_s)
            return None
        best, since = self._best
        if now_s - since <= self.window_s:
            return None
        return (
            f'no progress: less than {self.required_m * 1e3:.0f} mm along the path in '
            f'{self.window_s:.1f} s ({best:.2f} m left)'
        )


class Trail:
    """The tracked positions, one every ``spacing_m`` at least, at most ``max_points`` (the oldest
    dropped)."""

    def __init__(self, spacing_m: float = 0.005, max_points: int = 20_000):
        """An empty trail: points at least ``spacing_m`` (m) apart, at most ``max_points`` kept
        (ValueError below 1)."""
        if max_points < 1:
            raise ValueError(f'max_points = {max_points}: a trail keeps at least 1 point')
        self.spacing_m, self.max_points, self.poses = spacing_m, max_points, []

    def add(self, pose) -> bool:
        """Keep ``pose`` (x, y, ψ) if it moved ``spacing_m`` from the last kept one; True if
        kept."""
        if self.poses and math.dist(self.poses[-1][:2], pose[:2]) < self.spacing_m:
            return False
        self.poses.append(tuple(float(v) for v in pose))
        del self.poses[: -self.max_points]
        return True

    def array(self) -> np.ndarray:
        """The kept poses (K, 3): x, y in m, ψ in rad, oldest first."""
        return np.array(self.poses).reshape(-1, 3)


def joint_names() -> list[str]:
    """The URDF's bend joints body_bend_1..4, in the order of ``bend_joints``' positions."""
    return [f'body_bend_{k}' for k in range(1, BEND_JOINTS + 1)]
