"""The soft snake climbing the 7 cm step offline (issue 29 item 5; thesis §2.2.2, Table 2.3).

Ten runs of ``climbing.climb_step`` (five sheathed modules on paper, the climb's table with each
row at its ω and share of the supply, ``step_climb.ROW_FREQUENCIES_HZ`` and
``ROW_UNDULATION_DUTIES``, β = 2π/3, 60 s each), each from a start
jittered with its seed (``climbing.Start.jittered``: ±20 mm along and across, ±5° of heading).
Prints JSON: per run the start, the rows done (wheels over the step), when each got there and how
far past the edge its centre was, and each wheel's peak height; overall ``climbed`` (runs with all
six wheels over the step within 60 s; target at least 8 of 10), ``row_1_done`` and the median time
to the first row, per wheel ``over_step`` (in how many runs it got over) and ``over_step_s`` (the
range of its times), and ``on_step_at_end`` (runs whose snake, after the climb's finishing row,
vented and settled, has every wheel on the step: at its height, the axle's rear wheel's centre past
the edge; per run ``end_past_edge_mm``).

``--through-nodes``: the same ten starts through the nodes instead (soft_snake.launch.py sim:=true
segments:=5 step_ahead_m:=0.15, the simulator's ``start_seed`` the run's seed, the driver's
``step_climb`` goal for ``GOAL_S``: 60 s and the finishing row's 20 s, the simulator advancing the
rows as each wheel gets over): per run when each wheel got over within 60 s, from the simulator's
log, counted from the goal's start, and where the wheels were 3 s after the goal had vented them
(the simulator's ``~/wheel_heights`` and ``~/wheel_past_edge``). About 110 s a run; run it in the
loopback namespace (``tools/netns_run.sh``), as ``make bench`` does.

``--params FILE``: the snake a parameter file gives (``soft-snake-fit``'s ``params.yaml``, or any
of ``model.SnakeModel``'s names; offline the climb's model, through the nodes the simulator's
``body_parameters_file``) instead of the calibrated one; ``--runs N`` the first N seeds.
"""

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from std_msgs.msg import Float64MultiArray

from soft_snake import body, climbing, model, model_file, step_climb
from soft_snake.bag_analysis import PAST_EDGE, WHEELS
from soft_snake.commander import SoftSnakeCommander
from softbots_bringup import runner
from soro_node import commander

RUNS = 10
TIMEOUT_S = 60.0
# through the nodes the goal runs on for the finishing row after the 60 s
GOAL_S = TIMEOUT_S + step_climb.FINISH_S + 5.0


def one_run(seed: int, snake: model.SnakeModel) -> dict:
    """One climb of ``snake`` from the start drawn with ``seed``."""
    start = climbing.Start.jittered(seed)
    result = climbing.climb_step(timeout_s=TIMEOUT_S, start=start, snake=snake)
    return {
        'seed': seed,
        'start': {
            'along_mm': round(start.along_m * 1e3, 1),
            'across_mm': round(start.across_m * 1e3, 1),
            'heading_deg': round(math.degrees(start.heading_rad), 1),
        },
        'rows_done': result.rows_done,
        'over_step_at_s': [None if math.isnan(t) else round(t, 2) for t in result.landed_at_s],
        'past_edge_mm': [None if math.isnan(d) else round(d * 1e3, 1) for d in result.past_edge_m],
        'peak_height_mm': [round(h * 1e3) for h in result.peak_height_m],
        **end_state(result.end_height_m, result.end_past_edge_m),
    }


def end_state(heights_m, past_edge_m) -> dict:
    """Where the settled snake's wheels ended (mm), and how many stand on the step."""
    return {
        'end_past_edge_mm': [round(d * 1e3) for d in past_edge_m],
        'end_height_mm': [round(h * 1e3) for h in heights_m],
        'wheels_on_step_at_end': int(body.on_step(heights_m, past_edge_m).sum()),
    }


def per_wheel(runs: list[dict]) -> tuple[list[int], list[list[float] | None]]:
    """For each wheel, head first: in how many runs it got over the step, and the earliest and
    latest time it did (None: never)."""
    times = [
        [r['over_step_at_s'][w] for r in runs if r['over_step_at_s'][w] is not None]
        for w in range(6)
    ]
    return [len(t) for t in times], [[min(t), max(t)] if t else None for t in times]


def one_run_through_nodes(seed: int, out: Path, params: str | None) -> dict:
    """One climb through the nodes from the start drawn with ``seed`` (the simulator's body from
    the parameter file ``params``, if given): when each wheel got over, and where the wheels were
    once the goal (the finishing row's time longer) had vented them."""
    logs = out / f'seed{seed}'
    logs.mkdir(parents=True)
    sim = {'start_seed': seed, **({'body_parameters_file': params} if params else {})}
    seeded = runner.write_params(logs / 'start.yaml', {'soft_snake_sim': sim})
    arguments = {'sim': 'true', 'segments': '5', 'step_ahead_m': str(climbing.STEP_AHEAD_M)}
    processes = runner.start('soft_snake.launch.py', logs, arguments, [seeded])
    try:
        snake, last = SoftSnakeCommander(), {}
        for key, topic in (('height', WHEELS), ('past_edge', PAST_EDGE)):
            snake.create_subscription(
                Float64MultiArray, topic, lambda m, key=key: last.__setitem__(key, m.data), 10
            )
        try:
            if not snake.wait_connected():
                raise runner.ScenarioError(f'seed {seed}: the driver never reached the head')
            began = time.time()
            snake.run_gait('step_climb', 1.0, 2 * math.pi / 3, duration_s=GOAL_S)
            time.sleep(climbing.SETTLE_S)  # vented: the body settles
            end = {key: np.array(value) for key, value in last.items()}
        finally:
            snake.close()
    finally:
        runner.stop_all(processes)
    over, late = [None] * 6, {}
    for line in (logs / 'soft_snake_sim.log').read_text().splitlines():
        if 'is over the step' in line:
            stamp, wheel = float(line.split('] [')[1]), int(line.split('wheel ')[1].split()[0])
            at = round(stamp - began, 2)
            # the snake settles on after the goal has vented it: not a climb within the time
            if at <= TIMEOUT_S:
                over[wheel - 1] = at
            else:
                late[wheel] = at
    return {
        'seed': seed,
        'rows_done': sum(t is not None for t in over),
        'over_step_at_s': over,
        **end_state(end['height'], end['past_edge']),
        'over_after_the_goal_s': late,
    }


def through_nodes(count: int, params: str | None) -> dict:
    """The first ``count`` climbs through the nodes, each in its own launch."""
    commander.init()
    try:
        with tempfile.TemporaryDirectory() as out:
            runs = [one_run_through_nodes(seed, Path(out), params) for seed in range(count)]
    finally:
        commander.shutdown()
    over_step, over_step_s = per_wheel(runs)
    return {
        'through_nodes': True,
        'timeout_s': TIMEOUT_S,
        'climbed': sum(r['rows_done'] == 6 for r in runs),
        'rows_done': [r['rows_done'] for r in runs],
        'over_step': over_step,
        'over_step_s': over_step_s,
        'goal_s': GOAL_S,
        'on_step_at_end': sum(r['wheels_on_step_at_end'] == 6 for r in runs),
        'runs': runs,
    }


def main() -> int:
    """Run the climbs (offline, or ``--through-nodes``) and print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--through-nodes', action='store_true', help='through the nodes')
    parser.add_argument('--params', help='a parameter file (default: the calibrated model)')
    parser.add_argument('--runs', type=int, default=RUNS, help=f'the first RUNS seeds ({RUNS})')
    args = parser.parse_args()
    if not 1 <= args.runs <= RUNS:
        parser.error(f'--runs {args.runs}: from 1 to {RUNS}')
    named = {'model': args.params or 'calibrated'}
    # loaded here, so that a bad file ends the bench at once with its reason
    try:
        snake = model_file.load_or_calibrated(args.params)
    except ValueError as error:
        parser.error(str(error))
    if args.through_nodes:
        # the simulator reads the file from its own working directory
        params = str(Path(args.params).resolve()) if args.params else None
        print(json.dumps({**named, **through_nodes(args.runs, params)}, indent=1))
        return 0
    runs = [one_run(seed, snake) for seed in range(args.runs)]
    firsts = [r['over_step_at_s'][0] for r in runs if r['over_step_at_s'][0] is not None]
    over_step, over_step_s = per_wheel(runs)
    report = {
        **named,
        'row_frequencies_hz': list(step_climb.ROW_FREQUENCIES_HZ),
        'row_undulation_duties': list(step_climb.ROW_UNDULATION_DUTIES),
        'timeout_s': TIMEOUT_S,
        'climbed': sum(r['rows_done'] == 6 for r in runs),
        'row_1_done': len(firsts),
        'rows_done': [r['rows_done'] for r in runs],
        'median_row_1_s': statistics.median(firsts) if firsts else None,
        'over_step': over_step,
        'over_step_s': over_step_s,
        'on_step_at_end': sum(r['wheels_on_step_at_end'] == 6 for r in runs),
        'runs': runs,
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == '__main__':
    sys.exit(main())
