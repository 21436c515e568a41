"""The snake simulated in MuJoCo: valve duties in, chamber pressures, body bends, wheel contacts
and the body's motion out (thesis §2.3 in spirit, on one CPU core). No ROS.

Each control tick (10 ms, the valve driver's 100 Hz) the chambers follow their duties with the
thesis's Eqs. 2.6-2.8 on a shared supply (``pneumatics``), the pressures set every segment's bend
targets (``body.bend``), and MuJoCo steps the body to the next tick with joint servos of finite
stiffness, so gravity and the ground push back. ``run`` drives a whole gait and returns the
trajectory; ``gait_speed`` reduces it to the thesis's measure, the centre of mass's speed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mujoco
import numpy as np

from soft_snake import body, locomotion, pneumatics
from soft_snake.gaits import Gait, ValveCommander, chamber_states

TICK_S = 0.01


@dataclass
class Trajectory:
    """Samples at every tick: ``t_s`` (T,), centre of mass ``com_m`` (T, 3), head plate position
    ``head_m`` (T, 3), chamber ``pressure_pa`` (T, N, 3), wheel bottoms' heights ``wheel_z_m`` (T,
    N + 1) (the lower of each axle's two wheels)."""

    t_s: np.ndarray
    com_m: np.ndarray
    head_m: np.ndarray
    pressure_pa: np.ndarray
    wheel_z_m: np.ndarray

    def speed(self, period_s: float, after_s: float = 0.0) -> tuple[float, float]:
        """(speed, forward speed) in m/s from ``after_s`` on: the cycle-averaged path's length over
        its time, and the part of it made along the body's heading (negative: the snake backed
        up)."""
        path = locomotion.cycle_path(self.t_s, self.com_m[:, :2], period_s, after_s)
        head = locomotion.cycle_path(self.t_s, self.head_m[:, :2], period_s, after_s)
        headings = locomotion.body_headings(path, head)
        return locomotion.speed(path, period_s), locomotion.forward_speed(path, headings, period_s)


class SnakeSim:
    """An N-segment snake on ``surface`` (Table 5.1), optionally before a 7 cm step ``step_at_m``
    ahead; its ``chambers`` (Eqs. 2.6-2.8) rescaled to the step-response time constants
    ``tau_inflate_s`` and ``tau_vent_s`` when those are given."""

    def __init__(
        self,
        segments: int,
        surface: str = 'paper',
        params: body.BodyParameters = body.BodyParameters(),
        tau_inflate_s: float | None = None,
        tau_vent_s: float | None = None,
        step_at_m: float | None = None,
        chambers: pneumatics.ChamberParameters = pneumatics.DEFAULT_CHAMBERS,
    ):
        self.segments, self.params = segments, params
        self.model = mujoco.MjModel.from_xml_string(
            body.mjcf(segments, surface, params, step_at_m)
        )
        self.data = mujoco.MjData(self.model)
        self.chambers = pneumatics.Chambers(
            segments, _rescaled(chambers, tau_inflate_s, tau_vent_s)
        )
        self.substeps = max(1, round(TICK_S / params.timestep_s))
        self.t_s = 0.0
        name = lambda kind, n: mujoco.mj_name2id(self.model, kind, n)  # noqa: E731
        self._head = name(mujoco.mjtObj.mjOBJ_BODY, 'plate0')
        self._wheels = np.array(
            [
                [name(mujoco.mjtObj.mjOBJ_BODY, f'wheel{a}_{s}') for s in 'lr']
                for a in range(segments + 1)
            ]
        )
        self._share = np.array(body.JOINT_SHARE)
        self._chain = [
            name(mujoco.mjtObj.mjOBJ_BODY, part)
            for part in ['plate0']
            + [
                part
                for i in range(segments)
                for part in (f'segment{i}a', f'segment{i}b', f'plate{i + 1}')
            ]
        ]
        self._bend_qpos = np.array(
            [
                self.model.jnt_qposadr[name(mujoco.mjtObj.mjOBJ_JOINT, f'{a}{i}_{k}')]
                for i in range(segments)
                for k in range(3)
                for a in 'yp'
            ]
        )
        mujoco.mj_forward(self.model, self.data)

    def tick(self, duty: np.ndarray) -> None:
        """One control tick with valve ``duty`` (N, 3) in [0, 1] held over it."""
        self.follow(self.chambers.step(duty, TICK_S))

    def follow(self, pressure_pa: np.ndarray) -> None:
        """One control tick with the chambers at ``pressure_pa`` (N, 3): a valve board's own
        pneumatics drive the body."""
        self.chambers.pressure_pa = np.asarray(pressure_pa, dtype=float).copy()
        # (N, 2)
        bends = body.bend(self.chambers.pressure_pa, self.chambers.supply_pa, self.params)
        # ctrl layout: segment i, joint k (share), axis (yaw, pitch)
        self.data.ctrl[:] = (bends[:, None, :] * self._share[None, :, None]).ravel()
        mujoco.mj_step(self.model, self.data, nstep=self.substeps)
        self.t_s += TICK_S

    def run(
        self,
        pattern: Callable[[float], np.ndarray],
        duration_s: float,
        inflate_duty: float = 1.0,
        on_tick: Callable[['SnakeSim'], None] | None = None,
    ) -> Trajectory:
        """Drive chamber states K = ``pattern(t)`` (N, 3) for ``duration_s`` through the valve
        commander."""
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
        return (
            self.t_s,
            d.subtree_com[self._head].copy(),
            d.xpos[self._head].copy(),
            self.chambers.pressure_pa.copy(),
            self.wheel_heights(),
        )

    def com(self) -> np.ndarray:
        """The whole snake's centre of mass (3,), m."""
        return self.data.subtree_com[self._head].copy()

    def head_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """The head plate's position (3,) in m and orientation quaternion (w, x, y, z)."""
        return self.data.xpos[self._head].copy(), self.data.xquat[self._head].copy()

    def body_points(self) -> np.ndarray:
        """The body's axis from head to tail (3 N + 2, 3) in m: every plate's and half-segment's
        origin, then the tail's end, for drawing."""
        tail = self._chain[-1]
        end = (
            self.data.xpos[tail]
            - self.data.xmat[tail].reshape(3, 3)[:, 0] * self.params.end_plate_length_m
        )
        return np.vstack([self.data.xpos[self._chain], end])

    def wheel_heights(self) -> np.ndarray:
        """The bottom of each axle's lower wheel above the floor (N + 1,), head first, in m."""
        return self.data.xpos[self._wheels, 2].min(axis=1) - self.params.wheel_radius_m

    def joint_angles(self) -> np.ndarray:
        """Every bend joint's angle (N, 3, 2): segment, share, (yaw, pitch), in rad."""
        return self.data.qpos[self._bend_qpos].reshape(self.segments, 3, 2)


def _rescaled(
    chambers: pneumatics.ChamberParameters, tau_inflate_s: float | None, tau_vent_s: float | None
) -> pneumatics.ChamberParameters:
    """``chambers`` with the step-response time constants given (None: as they are)."""
    if tau_inflate_s is None and tau_vent_s is None:
        return chambers
    taus = pneumatics.step_time_constants(chambers)
    return chambers.with_time_constants(tau_inflate_s or taus[0], tau_vent_s or taus[1])


def run_gait(
    gait: Gait,
    surface: str,
    duration_s: float,
    params: body.BodyParameters = body.BodyParameters(),
    **chambers,
) -> Trajectory:
    """``gait`` on ``surface`` for ``duration_s``, from a straight snake at rest."""
    sim = SnakeSim(gait.segments, surface, params, **chambers)
    return sim.run(lambda t: chamber_states(gait, t), duration_s)


def gait_speed(
    gait: Gait,
    surface: str,
    params: body.BodyParameters = body.BodyParameters(),
    cycles: int = 6,
    settle_cycles: int = 1,
    min_duration_s: float = 10.0,
    **chambers,
) -> tuple[float, float]:
    """(speed, forward speed) in m/s of ``gait`` on ``surface`` after ``settle_cycles`` periods,
    measured over at least ``cycles`` periods and ``min_duration_s``; ``chambers`` as for
    ``SnakeSim``."""
    settle = settle_cycles * gait.period_s
    duration = settle + max(cycles * gait.period_s, min_duration_s)
    trajectory = run_gait(gait, surface, duration, params, **chambers)
    return trajectory.speed(gait.period_s, after_s=settle)
