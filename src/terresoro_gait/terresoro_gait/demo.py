"""``terresoro-demo``: TerreSoRo-III on a simulated rubber mat, end to end through the real nodes:
learn the substrate (Algorithm 1 rounds, tracked poses), synthesize the fastest translation and
rotation gaits with the synthesis service, execute them, and compare predicted with measured speed.
Everything is recorded to a rosbag2 (MCAP) file, and the summary, numbers and plots beside it are
what ``soro-analyze`` says about that bag, as about a recording from the robot. ``make demo`` runs
it in a loopback-only network namespace.

    # the nodes as launch/terresoro.launch.py sim:=true starts them:
    terresoro-demo --out runs/demo/terresoro

Primitives are quasi-static (paper VI-A), so the simulated robot runs them at a shorter τ to keep
the demo short; speeds are reported at the robot's own τ (0.55 s for III), i.e. per-cycle motion
divided by l·τ.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from softbots_bringup import runner
from soro_analysis.analyses import analyze
from soro_node import commander
from soro_node.arguments import CommandParser, add_option, output_dir
from soro_node.params import ParamSpec, named
from terresoro_gait.commander import TerreSoroCommander
from terresoro_gait.parameters import LEARNER, PAPER_TAU_S

DEMO_TAU_S = 0.2
DEMO_POSE_WINDOW_S = 0.066  # two camera frames at 30 Hz
# the live learner's; soro-analyze writes weights.csv from the bag
LEARNER_WEIGHTS = 'learner_weights.csv'
TRUTH_TOPIC = '/terresoro_sim/ground_truth'
TOPICS = [
    TRUTH_TOPIC,
    '/tracked_pose',
    '/terresoro_executor/executed_edge',
    '/terresoro_executor/predicted_pose',
    '/joint_states',
]
# ε_θ: translation gaits turn at most 2° per cycle (linearised)
TRANSLATION_EPS_RAD = math.radians(2.0)
# ε_t: rotation gaits drift at most 3 mm per cycle and axis
ROTATION_EPS_M = 0.003


def demo_parameters(out: Path) -> Path:
    """A parameters file laid over the robot's config (node-specific entries there outrank
    ``-p``)."""
    port = out / 'ttySIM0'
    text = f"""/**:
  ros__parameters:
    tau_s: {DEMO_TAU_S}
terresoro_sim:
  ros__parameters: {{port: {port}, settle_s: {DEMO_TAU_S / 2}, truth_file: {out / 'truth.csv'}}}
terresoro_executor:
  ros__parameters: {{port: {port}, reversal_pulse_s: 0.04}}
terresoro_learner:
  ros__parameters: {{pose_window_s: {DEMO_POSE_WINDOW_S}}}
"""
    path = out / 'demo_parameters.yaml'
    path.write_text(text)
    return path


def start_nodes(out: Path, logs: Path) -> list[runner.Process]:
    """The recorder, then what terresoro.launch.py robot:=iii sim:=true starts, with the demo's
    parameters over it."""
    # not ~/.ros/softbots
    arguments = {'robot': 'iii', 'sim': 'true', 'weights_file': str(out / LEARNER_WEIGHTS)}
    return runner.start_recorded(
        'terresoro.launch.py',
        logs,
        out / 'bag',
        TOPICS,
        arguments,
        extra_params=[demo_parameters(out)],
    )


def fastest(robot, goal: str) -> object:
    """The synthesized gait of ``goal`` with the largest predicted speed over α directions (spec
    5.4, A6)."""
    if goal == 'translation':
        alphas = [(-math.cos(a), -math.sin(a)) for a in np.radians(np.arange(0, 360, 45))]
        key, eps = (lambda g: g.speed_m_s), TRANSLATION_EPS_RAD
    else:
        alphas, key, eps = [(-1.0,), (1.0,)], (lambda g: abs(g.yaw_rate_rad_s)), ROTATION_EPS_M
    gaits = [robot.synthesize(goal, alpha, eps=eps).gaits[0] for alpha in alphas]
    return max(gaits, key=key)


def run_scenario(out: Path, rounds: int, cycles: int) -> dict:
    """Start the simulated nodes, learn the substrate in ``rounds`` rounds, then synthesize and run
    the fastest translation and rotation gaits ``cycles`` cycles each; {goal: (gait, execution
    result)}. ScenarioError if a process did not stop cleanly."""
    logs = out / 'logs'
    logs.mkdir(parents=True, exist_ok=True)
    processes = start_nodes(out, logs)
    commander.init()
    robot = TerreSoroCommander()
    try:
        learned = robot.learn_edges(
            rounds=rounds,
            seed=1,
            on_feedback=lambda f: (
                f.primitives_done == 1
                and print(
                    f'terresoro-demo: learning round {f.round}/{f.rounds} ({f.primitives_total} '
                    'primitives)',
                    flush=True,
                )
            ),
        )
        print(f'terresoro-demo: {learned.message}', flush=True)
        runs = {}
        for goal in ('translation', 'rotation'):
            gait = fastest(robot, goal)
            print(
                f'terresoro-demo: {goal} gait {list(gait.vertices)}, {cycles} cycles', flush=True
            )
            runs[goal] = (gait, robot.execute_gait(gait.vertices, cycles))
    finally:
        robot.close()
        commander.shutdown()
        codes = runner.stop_all(processes)
    if any(code != 0 for code in codes.values()):
        raise runner.ScenarioError(f'processes did not stop cleanly: {codes}; logs in {logs}')
    return runs


def main(argv: list[str] | None = None) -> int:
    """``terresoro-demo``: the scenario in ``--out`` and soro-analyze's summary of its bag,
    printed; the exit code (1: the scenario failed or the analysis found no gait)."""
    parser = CommandParser(prog='terresoro-demo', description=__doc__.splitlines()[0])
    parser.add_argument(
        '--out', type=output_dir, required=True, help='folder for the results (created)'
    )
    add_option(
        parser,
        '--rounds',
        replace(named(LEARNER, 'rounds'), default=3),
        help='learning rounds, 2-1000 (the paper: 5)',
    )
    add_option(parser, '--cycles', ParamSpec('cycles', 10, 'cycles of each gait', 1, 1000))
    args = parser.parse_args(argv)
    out = args.out.resolve()
    try:
        run_scenario(out, args.rounds, args.cycles)
    except (runner.ScenarioError, commander.CommanderError) as error:
        print(f'terresoro-demo: {error}', file=sys.stderr)
        return 1
    # what soro-analyze says about the demo's own bag, as about a recording from the robot
    report, _ = analyze(out / 'bag', out, 'terresoro', analysis_options(out))
    print((out / 'summary.md').read_text())
    return 0 if report.numbers.get('gaits') else 1


def analysis_options(out: Path) -> list[str]:
    """soro-analyze's options for the demo's bag: the learner's window, the paper's τ for the
    speeds (the simulated robot ran at DEMO_TAU_S), the live learner's weights and the substrate
    model to compare with."""
    return [
        f'pose_window_s:={DEMO_POSE_WINDOW_S}',
        f'tau_s:={PAPER_TAU_S[3]}',
        f'weights_file:={out / LEARNER_WEIGHTS}',
        f'truth_file:={out / "truth.csv"}',
    ]


if __name__ == '__main__':
    sys.exit(main())
