"""What the controller node computes around the LOS tracker, kept out of the node so it is tested
without ROS: the module command for a LOS step, the stale-pose clock, and the trail. No ROS."""

from __future__ import annotations

import math

import numpy as np

from salamander_nav.los import LosStep
from salamander_nav.modules import WHEELS, ModuleCommand
from salamander_nav.origami import Bend, steering_curvature

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
