"""One gait run as the valve driver plays it: the request checked, the chamber pattern at each
tick, and the speed motion capture measured along the way. No ROS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from soft_snake import locomotion
from soft_snake.gaits import GAITS, STEP_CLIMB, Gait, GaitError, ValveCommander, chamber_states
from soft_snake.step_climb import SEGMENTS as CLIMB_SEGMENTS
from soft_snake.step_climb import StepClimb
from soro_geometry.history import PoseHistory

MAX_DURATION_S = 3600.0


@dataclass(frozen=True)
class GaitRequest:
    """A RunGait goal: zeros and empty strings take the driver's parameters (``defaults``)."""

    gait: str
    frequency_hz: float = 0.0
    beta_rad: float = 0.0
    phi: float = 0.0
    segments: int = 0
    duration_s: float = 0.0
    cycles: int = 0


class Run:
    """The request made runnable on a snake of ``snake_segments`` at ``tick_hz``: ``pattern(t)`` is
    K (N, 3), ``ticks`` how many commands, ``period_s`` one gait period; ``climb`` the step-climb
    table when climbing. Raises GaitError naming the parameter and its allowed range."""

    def __init__(self, request: GaitRequest, defaults: dict, snake_segments: int, tick_hz: float):
        segments = request.segments or snake_segments
        if segments != snake_segments:
            raise GaitError(f'segments = {segments}: the snake on the link has {snake_segments}')
        frequency = request.frequency_hz or defaults['frequency_hz']
        beta = (request.beta_rad or defaults['beta_rad']) * defaults['wave_direction']
        phi = request.phi if request.phi else defaults['phi']
        self.climb = None
        if request.gait == STEP_CLIMB:
            if segments != CLIMB_SEGMENTS:
                raise GaitError(f'segments = {segments}: step climbing needs {CLIMB_SEGMENTS}')
            self.climb = StepClimb(frequency, beta)
            self.pattern = self.climb.chamber_states  # every wheel up: rest, vented
        elif request.gait in GAITS:
            gait = Gait(request.gait, segments, frequency, beta, phi)
            self.pattern = lambda t: chamber_states(gait, t)
        else:
            raise GaitError(f'gait {request.gait!r}: allowed {", ".join(GAITS + (STEP_CLIMB,))}')
        self.period_s = 1.0 / frequency
        self.ticks = _ticks(request, self.period_s, tick_hz)
        self.segments = segments

    def duty(self, t_s: float, valves: ValveCommander) -> np.ndarray:
        """Valve duties (N, 3) at ``t_s``: the step climb's own (its pushing segments at partial
        pressure, ``StepClimb.duty``; once every wheel is up the finishing row's, then vented),
        else ``valves``' of the pattern."""
        if self.climb is None:
            return valves.duty(self.pattern(t_s))
        return self.climb.duty(t_s)


def _ticks(request: GaitRequest, period_s: float, tick_hz: float) -> int:
    # 0 (the field left unset) is not given; NaN and negatives are, and refused as such
    if not (math.isfinite(request.duration_s) and request.duration_s >= 0):
        raise GaitError(
            f'duration_s = {request.duration_s}: allowed (0, {MAX_DURATION_S:.0f}] s, or 0 for '
            'cycles'
        )
    if (request.duration_s > 0) == (request.cycles > 0):
        raise GaitError(
            f'duration_s = {request.duration_s}, cycles = {request.cycles}: give one of the two'
        )
    duration = request.duration_s if request.duration_s > 0 else request.cycles * period_s
    # a run shorter than one period ran 0 cycles and reported a success
    if not (period_s <= duration <= MAX_DURATION_S):
        raise GaitError(
            f'duration = {duration:g} s: allowed [{period_s:g}, {MAX_DURATION_S:.0f}] s (one '
            'period at least)'
        )
    return max(1, round(duration * tick_hz))


class SpeedTracker:
    """Centre-of-mass samples (time s, x m, y m) since a run began, from a motion-capture callback
    thread; the speed over the last gait period and over the whole run, as the simulator and the
    bag analysis read it."""

    def __init__(self, period_s: float):
        self.period_s = period_s
        # the longest run at motion capture's 100 Hz
        self._history = PoseHistory(max_frames=int(MAX_DURATION_S * 100) + 1)

    def add(self, t_s: float, x_m: float, y_m: float) -> bool:
        """One motion-capture sample: time ``t_s`` in s, centre of mass ``x_m``, ``y_m`` in m.
        Whether it was kept (``PoseHistory.add``: not one out of order or not finite)."""
        return self._history.add(t_s, (x_m, y_m, 0.0))

    def path(self) -> np.ndarray:
        """The cycle path so far (C, 2) in m, the mean position over each whole gait period; (0, 2)
        before two samples."""
        t, poses = self._history.frames()
        if len(t) < 2:
            return np.zeros((0, 2))
        return locomotion.cycle_path(t, poses[:, :2], self.period_s)

    def last_period_speed(self) -> float:
        """Speed (m/s) between the last two whole periods' mean positions (the action's feedback);
        NaN before two."""
        path = self.path()
        return locomotion.speed(path[-2:], self.period_s)

    def run(self) -> tuple[float, float]:
        """(distance m, speed m/s) along the cycle path so far; NaN without two whole periods
        tracked."""
        path = self.path()
        return (locomotion.length(path) if len(path) > 1 else math.nan), locomotion.speed(
            path, self.period_s
        )
