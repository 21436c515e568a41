"""The soft snake's valve commands (soft_snake), what the head controller or the host computes every tick.

``gait_tick_us``: one N×3 valve command for the five-module snake (Eq. 2.1 or 2.2 and the duty map), p50 over
20,000 ticks (target under 20 µs); ``step_climb_tick_us`` the same from the Table 2.3 state machine. Beside them,
in the same run, ``numpy_sin_us``: a bare numpy sine of the same 15 phases, the floor any vectorised evaluation
pays, and each tick's ratio to it. The simulator's figures (real-time factor, table sweep) come with the simulator.
"""
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# this file is called soft_snake.py too: its folder must not hide the package
sys.path = [p for p in sys.path if Path(p or '.').resolve() != Path(__file__).resolve().parent]

from soft_snake.gaits import SIDEWINDING, UNDULATION, Gait, ValveCommander, chamber_states  # noqa: E402
from soft_snake.step_climb import StepClimb  # noqa: E402

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
    for gait in (Gait(UNDULATION, 5, 2.0, 2 * math.pi / 3), Gait(SIDEWINDING, 5, 0.875, math.pi / 2)):
        valves = ValveCommander(5)
        tick = p50_us(lambda t: valves.duty(chamber_states(gait, t)))
        report[f'gait_tick_us_{gait.kind}'] = round(tick, 2)
        report[f'gait_tick_over_sin_{gait.kind}'] = round(tick / floor, 1)
    climb, valves = StepClimb(2.0, 2 * math.pi / 3), ValveCommander(5)
    report['step_climb_tick_us'] = round(p50_us(lambda t: valves.duty(climb.chamber_states(t))), 2)
    report['gait_tick_us'] = max(report['gait_tick_us_undulation'], report['gait_tick_us_sidewinding'])
    print(json.dumps(report))


if __name__ == '__main__':
    main()
