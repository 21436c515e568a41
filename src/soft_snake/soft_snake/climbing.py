"""The five-module snake climbing the 7 cm step in the simulator with Table 2.3's sequence (thesis
§2.2.2; spec A3). No ROS.

Row r of the table lifts wheel r + 1 (wheel 1 at the head, wheel 6 at the tail). The row advances
when that wheel has stood on the step's top for ``landed_s`` ("after the passive wheels land
steadily"); the climb ends when the sixth wheel has landed, or fails at ``timeout_s`` with the rows
it managed. The robot has no such sensor, so there the rows advance on a service call or a timer
(the nodes).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from soft_snake import body, calibration, simulator
from soft_snake.step_climb import SEGMENTS, StepClimb

STEP_AHEAD_M = 0.15  # the step's edge ahead of the head at the start


@dataclass
class ClimbResult:
    """``landed_at_s`` the time each wheel landed on the step (NaN: never), ``peak_height_m`` the
    highest each wheel's bottom got (6,), ``on_top`` whether every wheel ended on the step, and the
    trajectory."""

    landed_at_s: np.ndarray
    peak_height_m: np.ndarray
    on_top: bool
    trajectory: simulator.Trajectory

    @property
    def rows_done(self) -> int:
        """Rows of Table 2.3 completed: how many wheels landed on the step."""
        return int(np.count_nonzero(np.isfinite(self.landed_at_s)))


class WheelLandings:
    """Watches the wheels land on the step's top one after another, head to tail: ``update(sim)``
    returns the wheel (0-5) that has just stood there ``landed_s``, else None; ``peak`` is each
    wheel's highest bottom (m)."""

    def __init__(self, sim: simulator.SnakeSim, landed_s: float = 0.3):
        self.landed_s = landed_s
        self.step = mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_GEOM, 'step')
        self.wheels = [
            {mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_GEOM, f'wheel{a}_{s}') for s in 'lr'}
            for a in range(sim.segments + 1)
        ]
        self.landed_at = np.full(sim.segments + 1, np.nan)
        self.peak = np.zeros(sim.segments + 1)
        self._since = None

    @property
    def next_wheel(self) -> int:
        """The wheel (0 at the head) that must land next: how many have landed so far."""
        return int(np.count_nonzero(np.isfinite(self.landed_at)))

    def update(self, sim: simulator.SnakeSim) -> int | None:
        """Take this tick's wheel heights into ``peak``; the next wheel if it has now stood on the
        step's top for ``landed_s`` (its time then in ``landed_at``), else None."""
        self.peak = np.maximum(self.peak, sim.wheel_heights())
        wheel = self.next_wheel
        if wheel > sim.segments or not self._on_step(sim, wheel):
            self._since = None
            return None
        self._since = sim.t_s if self._since is None else self._since
        if sim.t_s - self._since < self.landed_s:
            return None
        self.landed_at[wheel], self._since = sim.t_s, None
        return wheel

    def _on_step(self, sim: simulator.SnakeSim, wheel: int) -> bool:
        contacts = sim.data.contact[: sim.data.ncon]
        return any(
            {c.geom1, c.geom2} & self.wheels[wheel]
            and self.step in (c.geom1, c.geom2)
            and sim.data.xpos[
                sim.model.geom_bodyid[c.geom1 if c.geom2 == self.step else c.geom2], 2
            ]
            > body.STEP_HEIGHT_M
            for c in contacts
        )


def climb_step(
    frequency_hz: float = 1.0,
    beta_rad: float = 2 * np.pi / 3,
    surface: str = 'paper',
    params: body.BodyParameters = calibration.CALIBRATED,
    landed_s: float = 0.3,
    timeout_s: float = 60.0,
    states=None,
) -> ClimbResult:
    """Run Table 2.3 on a five-module snake before a 7 cm step until the tail is up or
    ``timeout_s``."""
    climb = StepClimb(
        frequency_hz,
        calibration.HEAD_FIRST * beta_rad,
        **({} if states is None else {'states': states}),
    )
    sim = simulator.SnakeSim(SEGMENTS, surface, params, step_at_m=STEP_AHEAD_M)
    landings = WheelLandings(sim, landed_s)

    def watch(s: simulator.SnakeSim) -> None:
        if landings.update(s) is not None:
            climb.advance()

    def pattern(t: float) -> np.ndarray:
        return climb.chamber_states(t) if not climb.done else -np.ones((SEGMENTS, 3), np.int8)

    duration = 0.0
    parts = []
    while not climb.done and duration < timeout_s:
        parts.append(sim.run(pattern, 1.0, on_tick=watch))
        duration += 1.0
    trajectory = simulator.Trajectory(
        *(
            np.concatenate([getattr(p, f) for p in parts])
            for f in simulator.Trajectory.__dataclass_fields__
        )
    )
    on_top = bool(np.all(body.up_on_step(sim.wheel_heights())))
    return ClimbResult(landings.landed_at, landings.peak, on_top, trajectory)
