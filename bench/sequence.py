"""Schedule jitter of the timed-sequence player (soro_node.sequence) with the machine loaded,
against a floor.

A gait executor's steps must start on their beat whatever else runs. Each run plays STEPS steps of
PERIOD_S; every step does WORK_S of Python work after its command (what the TerreSoRo executor does
when it publishes the edge, the prediction and the feedback), while LOAD_PROCESSES busy processes
hold the cores. Reported per run: the lateness of each step's command after its due instant (p50,
p99, max in ms) and the spread of the intervals between consecutive commands (what test_nodes
checks against τ, within 30 ms).

- ``player``: the SequencePlayer: sleep to the instant, command, then work.
- ``work_first``: how the executor ran before, command after the previous step's sleep and work,
  for comparison.
- ``floor``: bare absolute sleeps with no work, the least any scheduler can do on this machine at
  this load.
Printed as one JSON object; ``ratio_p99`` is the player's p99 lateness over the floor's.

``executor``: the same figures end to end, for the real TerreSoRo executor against the simulated
robot, as terresoro.launch.py sim:=true starts them (at the demo's τ = 0.2 s): the intervals
between the command instants of a 15-cycle gait's primitives (``ExecutedEdge.start``), idle and
with the same load.
"""

import json
import multiprocessing
import tempfile
import time
from pathlib import Path

import numpy as np

from softbots_bringup import runner
from soro_node import commander
from soro_node.sequence import SequencePlayer
from terresoro_gait.commander import TerreSoroCommander
from terresoro_gait.demo import DEMO_TAU_S, demo_parameters
from terresoro_gait.messages import seconds

STEPS, PERIOD_S, WORK_S, LOAD_PROCESSES = 120, 0.05, 0.015, 2


def busy(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def work(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def player() -> list[float]:
    commands = []

    def act(slot, step):
        commands.append(time.monotonic())
        work(WORK_S)

    SequencePlayer(PERIOD_S).play(range(STEPS), act)
    return commands


def work_first() -> list[float]:
    commands, t0 = [], time.monotonic()
    for k in range(STEPS):
        commands.append(time.monotonic())
        time.sleep(max(0.0, t0 + (k + 1) * PERIOD_S - time.monotonic()))
        work(WORK_S)
    return commands


def floor() -> list[float]:
    commands, t0 = [], time.monotonic()
    for k in range(STEPS):
        time.sleep(max(0.0, t0 + k * PERIOD_S - time.monotonic()))
        commands.append(time.monotonic())
    return commands


def figures(run) -> dict:
    t0 = time.monotonic()  # every scheme's first step is due at once
    t = np.array(run())
    late_ms = 1e3 * (t - (t0 + PERIOD_S * np.arange(len(t))))
    interval_error_ms = 1e3 * np.abs(np.diff(t) - PERIOD_S)
    return {
        'late_p50_ms': round(float(np.percentile(late_ms, 50)), 3),
        'late_p99_ms': round(float(np.percentile(late_ms, 99)), 3),
        'late_max_ms': round(float(late_ms.max()), 3),
        'interval_error_max_ms': round(float(interval_error_ms.max()), 3),
    }


def executor_intervals() -> dict:
    """Command intervals of the real executor (a 3-state gait, 15 cycles) against their τ, in
    ms."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        processes = runner.start(
            'terresoro.launch.py',
            out,
            {'robot': 'iii', 'sim': 'true'},
            extra_params=[demo_parameters(out)],
        )
        commander.init()
        robot = TerreSoroCommander()
        try:
            result = robot.execute_gait([1, 2, 4], cycles=15)
        finally:
            robot.close()
            commander.shutdown()
            for process in reversed(processes):
                process.stop()
    error_ms = 1e3 * np.abs(np.diff([seconds(e.start) for e in result.edges]) - DEMO_TAU_S)
    return {
        'primitives': len(result.edges),
        'interval_error_p50_ms': round(float(np.median(error_ms)), 3),
        'interval_error_max_ms': round(float(error_ms.max()), 3),
    }


class Load:
    """LOAD_PROCESSES busy processes, up on every core while the block runs."""

    def __enter__(self):
        self.stop = multiprocessing.Event()
        self.processes = [
            multiprocessing.Process(target=busy, args=(self.stop,), daemon=True)
            for _ in range(LOAD_PROCESSES)
        ]
        for process in self.processes:
            process.start()
        time.sleep(1.0)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for process in self.processes:
            process.join(timeout=5.0)


def main() -> None:
    idle = executor_intervals()
    with Load():
        runs = {
            name: figures(run)
            for name, run in (('floor', floor), ('player', player), ('work_first', work_first))
        }
        loaded = executor_intervals()
    print(
        json.dumps(
            {
                'steps': STEPS,
                'period_s': PERIOD_S,
                'work_s': WORK_S,
                'load_processes': LOAD_PROCESSES,
                **runs,
                'ratio_p99': round(
                    runs['player']['late_p99_ms'] / max(runs['floor']['late_p99_ms'], 1e-3), 2
                ),
                'executor': {'idle': idle, 'loaded': loaded},
                'target_interval_error_max_ms': 30.0,
                'met': max(
                    runs['player']['interval_error_max_ms'], loaded['interval_error_max_ms']
                )
                < 30.0,
            }
        )
    )


if __name__ == '__main__':
    main()
