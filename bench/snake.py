"""The soft snake's valve commands (soft_snake), what the head controller or the host computes
every tick.

``gait_tick_us``: one N×3 valve command for the five-module snake (Eq. 2.1 or 2.2 and the duty
map), p50 over 20,000 ticks (target under 20 µs); ``step_climb_tick_us`` the same from the Table
2.3 state machine. Beside them, in the same run, ``numpy_sin_us``: a bare numpy sine of the same 15
phases, the floor any vectorised evaluation pays, and each tick's ratio to it.

The simulator: ``sim_realtime_factor``, simulated over wall seconds for the four-module snake
undulating on paper (calibrated body, 2 ms step, valves and chambers every 10 ms), on one core
(target at least 20); beside it ``mujoco_floor_realtime_factor``, the same model stepped by bare
``mj_step`` calls with constant controls, and the ratio (how much of MuJoCo's own speed the gait
loop keeps); ``table_sweep_wall_s``, every cell of Tables 5.2-5.7 (288 runs) on one local Ray
worker.
"""

import json
import math
import statistics
import time

import mujoco
import numpy as np

from soft_snake import calibration, reproduction, simulator
from soft_snake.gaits import PRESETS, SIDEWINDING, UNDULATION, Gait, ValveCommander, chamber_states
from soft_snake.step_climb import StepClimb

TICKS = 20_000


def p50_us(tick) -> float:
    times = []
    for k in range(TICKS):
        t = 0.01 * k
        began = time.perf_counter()
        tick(t)
        times.append(time.perf_counter() - began)
    return 1e6 * statistics.median(times)


def main() -> None:
    report = {}
    phases = np.linspace(0, 6, 15).reshape(5, 3)
    floor = p50_us(lambda t: np.sin(phases + t))
    report['numpy_sin_us'] = round(floor, 2)
    for gait in (
        Gait(UNDULATION, 5, 2.0, 2 * math.pi / 3),
        Gait(SIDEWINDING, 5, 0.875, math.pi / 2),
    ):
        valves = ValveCommander(5)
        tick = p50_us(lambda t: valves.duty(chamber_states(gait, t)))
        report[f'gait_tick_us_{gait.kind}'] = round(tick, 2)
        report[f'gait_tick_over_sin_{gait.kind}'] = round(tick / floor, 1)
    climb, valves = StepClimb(2.0, 2 * math.pi / 3), ValveCommander(5)
    report['step_climb_tick_us'] = round(p50_us(lambda t: valves.duty(climb.chamber_states(t))), 2)
    report['gait_tick_us'] = max(
        report['gait_tick_us_undulation'], report['gait_tick_us_sidewinding']
    )
    report.update(simulator_figures())
    print(json.dumps(report))


def simulator_figures(simulated_s: float = 20.0) -> dict:
    gait = calibration.head_first(PRESETS['undulation_default'][0])
    began = time.perf_counter()
    simulator.run_gait(gait, 'paper', simulated_s, calibration.CALIBRATED)
    ours = simulated_s / (time.perf_counter() - began)
    sim = simulator.SnakeSim(4, 'paper', calibration.CALIBRATED)
    sim.data.ctrl[:] = 0.2
    steps = int(simulated_s / sim.model.opt.timestep)
    began = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(sim.model, sim.data)
    floor = simulated_s / (time.perf_counter() - began)
    began = time.perf_counter()
    predictions = reproduction.predict_tables()
    sweep = time.perf_counter() - began
    return {
        'sim_realtime_factor': round(ours, 1),
        'mujoco_floor_realtime_factor': round(floor, 1),
        'sim_over_floor': round(ours / floor, 2),
        'table_sweep_wall_s': round(sweep, 1),
        'table_cells': len(predictions),
        'rank_correlation': {
            k: round(v, 2) for k, v in reproduction.rank_correlation(predictions).items()
        },
    }


if __name__ == '__main__':
    main()
