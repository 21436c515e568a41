"""The snake simulated in MuJoCo: valve duties in, chamber pressures, body bends, wheel contacts and the body's
motion out (thesis §2.3 in spirit, on one CPU core). No ROS.

Each control tick (10 ms, the valve driver's 100 Hz) the chambers follow their duties with the first-order model of
``pneumatics``, the pressures set every segment's bend targets (``body.bend``), and MuJoCo steps the body to the
next tick with joint servos of finite stiffness, so gravity and the ground push back. ``run`` drives a whole gait
and returns the trajectory; ``gait_speed`` reduces it to the thesis's measure, the centre of mass's speed.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import mujoco
import numpy as np

from soft_snake import body, pneumatics
from soft_snake.gaits import Gait, ValveCommander, chamber_states

TICK_S = 0.01


@dataclass
class Trajectory:
    """Samples at every tick: ``t_s`` (T,), centre of mass ``com_m`` (T, 3), head plate position ``head_m``
    (T, 3) and heading ``heading_rad`` (T,) of the body (centre of mass to head: the head plate itself swings), chamber ``pressure_pa`` (T, N, 3), wheel bottoms' heights
    ``wheel_z_m`` (T, N + 1) (the lower of each axle's two wheels)."""
    t_s: np.ndarray
    com_m: np.ndarray
    head_m: np.ndarray
    heading_rad: np.ndarray
    pressure_pa: np.ndarray
    wheel_z_m: np.ndarray

    def cycle_path(self, period_s: float, after_s: float = 0.0) -> np.ndarray:
        """The centre of mass averaged over each whole gait period from ``after_s`` on (C, 2), in m: the path
        without the in-cycle wiggle, as motion capture's trajectories are read (Figs. 2.7, 2.9)."""
        per = int(round(period_s / TICK_S))
        start = int(np.searchsorted(self.t_s, after_s))
        cycles = (len(self.t_s) - start) // per
        return self.com_m[start:start + cycles * per, :2].reshape(cycles, per, 2).mean(axis=1)

    def speed(self, period_s: float, after_s: float = 0.0) -> tuple[float, float]:
        """(speed, forward speed) in m/s from ``after_s`` on: the length of the cycle-averaged path over its time,
        and the part of it made along the head's heading (negative: the snake backed up)."""
        path = self.cycle_path(period_s, after_s)
        steps = np.diff(path, axis=0)
        per = int(round(period_s / TICK_S))
        start = int(np.searchsorted(self.t_s, after_s))
        heading = self.heading_rad[start + per // 2::per][:len(steps)]
        along = np.einsum('ij,ij->i', steps, np.column_stack([np.cos(heading), np.sin(heading)]))
        duration = len(steps) * period_s
        return float(np.linalg.norm(steps, axis=1).sum() / duration), float(along.sum() / duration)


class SnakeSim:
    """An N-segment snake on ``surface`` (Table 5.1), optionally before a 7 cm step ``step_at_m`` ahead."""

    def __init__(self, segments: int, surface: str = 'paper', params: body.BodyParameters = body.BodyParameters(),
                 tau_inflate_s: float = 0.3, tau_vent_s: float = 0.3, step_at_m: float | None = None):
        self.segments, self.params = segments, params
        self.model = mujoco.MjModel.from_xml_string(body.mjcf(segments, surface, params, step_at_m))
        self.data = mujoco.MjData(self.model)
        self.chambers = pneumatics.Chambers(segments, tau_inflate_s, tau_vent_s)
        self.substeps = max(1, round(TICK_S / params.timestep_s))
        self.t_s = 0.0
        name = lambda kind, n: mujoco.mj_name2id(self.model, kind, n)      # noqa: E731
        self._head = name(mujoco.mjtObj.mjOBJ_BODY, 'plate0')
        self._wheels = np.array([[name(mujoco.mjtObj.mjOBJ_BODY, f'wheel{a}_{s}') for s in 'lr']
                                 for a in range(segments + 1)])
        self._share = np.array(body.JOINT_SHARE)
        mujoco.mj_forward(self.model, self.data)

    def tick(self, duty: np.ndarray) -> None:
        """One control tick with valve ``duty`` (N, 3) in [0, 1] held over it."""
        pressure = self.chambers.step(duty, TICK_S)
        bends = body.bend(pressure, self.chambers.supply_pa, self.params)          # (N, 2)
        # ctrl layout: segment i, joint k (share), axis (yaw, pitch)
        self.data.ctrl[:] = (bends[:, None, :] * self._share[None, :, None]).ravel()
        mujoco.mj_step(self.model, self.data, nstep=self.substeps)
        self.t_s += TICK_S

    def run(self, pattern: Callable[[float], np.ndarray], duration_s: float, inflate_duty: float = 1.0,
            on_tick: Callable[['SnakeSim'], None] | None = None) -> Trajectory:
        """Drive chamber states K = ``pattern(t)`` (N, 3) for ``duration_s`` through the valve commander."""
        valves = ValveCommander(self.segments, inflate_duty)
        samples = []
        for _ in range(int(round(duration_s / TICK_S))):
            self.tick(valves.duty(pattern(self.t_s)))
            samples.append(self._sample())
            if on_tick is not None:
                on_tick(self)
        columns = list(zip(*samples))
        return Trajectory(*(np.array(c) for c in columns))

    def _sample(self):
        d = self.data
        com, head = d.subtree_com[self._head].copy(), d.xpos[self._head].copy()
        return (self.t_s, com, head, math.atan2(head[1] - com[1], head[0] - com[0]),
                self.chambers.pressure_pa.copy(), self.wheel_heights())

    def wheel_heights(self) -> np.ndarray:
        """The bottom of each axle's lower wheel above the floor (N + 1,), head first, in m."""
        return self.data.xpos[self._wheels, 2].min(axis=1) - body.WHEEL_RADIUS_M

    def joint_angles(self) -> np.ndarray:
        """Every bend joint's angle (N, 3, 2): segment, share, (yaw, pitch), in rad."""
        qpos = self.data.qpos[7:]
        joints = [self.model.jnt_qposadr[mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, f'{a}{i}_{k}')]
                  for i in range(self.segments) for k in range(3) for a in 'yp']
        return qpos[np.array(joints) - 7].reshape(self.segments, 3, 2)


def run_gait(gait: Gait, surface: str, duration_s: float, params: body.BodyParameters = body.BodyParameters(),
             **chambers) -> Trajectory:
    """``gait`` on ``surface`` for ``duration_s``, from a straight snake at rest."""
    sim = SnakeSim(gait.segments, surface, params, **chambers)
    return sim.run(lambda t: chamber_states(gait, t), duration_s)


def gait_speed(gait: Gait, surface: str, params: body.BodyParameters = body.BodyParameters(), cycles: int = 6,
               settle_cycles: int = 2, min_duration_s: float = 4.0) -> tuple[float, float]:
    """(speed, forward speed) in m/s of ``gait`` on ``surface`` after ``settle_cycles`` periods, measured over at
    least ``cycles`` periods and ``min_duration_s``."""
    settle = settle_cycles * gait.period_s
    duration = settle + max(cycles * gait.period_s, min_duration_s)
    return run_gait(gait, surface, duration, params).speed(gait.period_s, after_s=settle)
