"""``terresoro-demo``: TerreSoRo-III on a simulated rubber mat, end to end through the real nodes: learn the
substrate (Algorithm 1 rounds, tracked poses), synthesize the fastest translation and rotation gaits with the
synthesis service, execute them, and compare predicted with simulated speed. Everything is recorded to a rosbag2
(MCAP) file; plots and summary.md go beside it. ``make demo`` runs it in a loopback-only network namespace.

    terresoro-demo --out runs/demo/terresoro        # the nodes as launch/terresoro.launch.py sim:=true starts them

Primitives are quasi-static (paper VI-A), so the simulated robot runs them at a shorter τ to keep the demo short;
speeds are reported at the robot's own τ (0.55 s for III), i.e. per-cycle motion divided by l·τ.
"""
from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from softbots_bringup import runner
from soro_geometry import pose_msgs
from soro_geometry.history import PoseHistory
from soro_link.bag import read_messages
from soro_node import commander
from soro_node.arguments import CommandParser, add_option, output_dir
from soro_node.params import ParamSpec, named
from terresoro_gait import messages, plots
from terresoro_gait.commander import TerreSoroCommander
from terresoro_gait.evaluation import cycle_speeds, gait_cycle_starts
from terresoro_gait.kinematics import cycle_motion, odometry, predicted_speeds
from terresoro_gait.metrics import BODY_LENGTH_MM
from terresoro_gait.parameters import LEARNER, PAPER_TAU_S
from terresoro_gait.units import pose_to_paper
from terresoro_gait.weights import read_csv

DEMO_TAU_S = 0.2
TRUTH_TOPIC = '/terresoro_sim/ground_truth'
TOPICS = [TRUTH_TOPIC, '/tracked_pose', '/terresoro_executor/executed_edge', '/terresoro_executor/predicted_pose',
          '/joint_states']
TRANSLATION_EPS_RAD = math.radians(2.0)     # ε_θ: translation gaits turn at most 2° per cycle (linearised)
ROTATION_EPS_M = 0.003                      # ε_t: rotation gaits drift at most 3 mm per cycle and axis


def demo_parameters(out: Path) -> Path:
    """A parameters file laid over the robot's config (node-specific entries there outrank ``-p``)."""
    port = out / 'ttySIM0'
    text = f"""/**:
  ros__parameters:
    tau_s: {DEMO_TAU_S}
    weights_file: {out / 'weights.csv'}
terresoro_sim:
  ros__parameters: {{port: {port}, settle_s: {DEMO_TAU_S / 2}, truth_file: {out / 'truth.csv'}}}
terresoro_executor:
  ros__parameters: {{port: {port}, reversal_pulse_s: 0.04}}
terresoro_learner:
  ros__parameters: {{pose_window_s: 0.066}}
"""
    path = out / 'demo_parameters.yaml'
    path.write_text(text)
    return path


def start_nodes(out: Path, logs: Path) -> list[runner.Process]:
    """The recorder, then what terresoro.launch.py robot:=iii sim:=true starts, with the demo's parameters over it."""
    recorder = runner.start_recorder(out / 'bag', TOPICS, logs)
    try:
        return [recorder] + runner.start('terresoro.launch.py', logs, {'robot': 'iii', 'sim': 'true'},
                                         extra_params=[demo_parameters(out)])
    except runner.ScenarioError:
        recorder.stop()
        raise


def stop_all(processes: list[runner.Process]) -> dict[str, int]:
    return {p.name: p.stop() for p in reversed(processes)}


def fastest(robot, goal: str) -> object:
    """The synthesized gait of ``goal`` with the largest predicted speed over α directions (spec 5.4, A6)."""
    if goal == 'translation':
        alphas = [(-math.cos(a), -math.sin(a)) for a in np.radians(np.arange(0, 360, 45))]
        key, eps = (lambda g: g.speed_m_s), TRANSLATION_EPS_RAD
    else:
        alphas, key, eps = [(-1.0,), (1.0,)], (lambda g: abs(g.yaw_rate_rad_s)), ROTATION_EPS_M
    gaits = [robot.synthesize(goal, alpha, eps=eps).gaits[0] for alpha in alphas]
    return max(gaits, key=key)


def run_scenario(out: Path, rounds: int, cycles: int) -> dict:
    logs = out / 'logs'
    logs.mkdir(parents=True, exist_ok=True)
    processes = start_nodes(out, logs)
    commander.init()
    robot = TerreSoroCommander()
    try:
        learned = robot.learn_edges(rounds=rounds, seed=1, on_feedback=lambda f: f.primitives_done == 1 and print(
            f'terresoro-demo: learning round {f.round}/{f.rounds} ({f.primitives_total} primitives)', flush=True))
        print(f'terresoro-demo: {learned.message}', flush=True)
        runs = {}
        for goal in ('translation', 'rotation'):
            gait = fastest(robot, goal)
            print(f'terresoro-demo: {goal} gait {list(gait.vertices)}, {cycles} cycles', flush=True)
            runs[goal] = (gait, robot.execute_gait(gait.vertices, cycles))
    finally:
        robot.close()
        commander.shutdown()
        codes = stop_all(processes)
    if any(code != 0 for code in codes.values()):
        raise runner.ScenarioError(f'processes did not stop cleanly: {codes}; logs in {logs}')
    return runs


def read_truth(bag: Path) -> tuple[PoseHistory, dict]:
    history, counts = PoseHistory(), {topic: 0 for topic in TOPICS}
    for topic, _, message in read_messages(bag):
        counts[topic] += 1
        if topic == TRUTH_TOPIC:
            history.add(messages.seconds(message.header.stamp), pose_msgs.planar_pose(message.pose))
    return history, counts


def evaluate(out: Path, runs: dict, history: PoseHistory) -> list[dict]:
    """Per gait: predicted speeds from the learned weights, simulated per-cycle speeds from the ground truth."""
    learned = read_csv(out / 'weights.csv')
    tau, rows = PAPER_TAU_S[learned.n_limbs], []
    for goal, (gait, result) in runs.items():
        body = [e for e in result.edges if not e.transition]
        cycle = [body[k].initial_vertex for k in range(len(gait.vertices))]   # as run: from the entry state
        l = len(cycle)
        records = [(messages.seconds(e.start), messages.seconds(e.end), e.transition) for e in result.edges]
        simulated = cycle_speeds(gait_cycle_starts(records, l), history, l, tau)
        p, theta = cycle_motion(learned, cycle)
        start_t = records[[r[2] for r in records].index(False)][0]
        start = pose_to_paper(*history.at(start_t, 0.05, 0.3))
        predicted_path, _ = odometry(learned, [(e.initial_vertex, e.terminal_vertex) for e in body], start)
        rows.append({'label': f'{goal} {list(gait.vertices)}', 'goal': goal, 'cycle': cycle,
                     'predicted': predicted_speeds(p, theta, l, tau),
                     'simulated': simulated.mean_sd(), 'cycles': len(simulated.speed_mm_s),
                     'truth': np.array([pose_to_paper(*g) for g in history.between(start_t, records[-1][1])]),
                     'predicted_path': np.vstack([start, predicted_path])})
    return rows


def summarize(out: Path, rows: list[dict], counts: dict, rounds: int) -> str:
    learned, truth = read_csv(out / 'weights.csv'), read_csv(out / 'truth.csv')
    bl = BODY_LENGTH_MM[learned.n_limbs]
    error_p = np.sqrt(np.mean((learned.px_mm - truth.px_mm) ** 2 + (learned.py_mm - truth.py_mm) ** 2))
    error_t = np.sqrt(np.mean((learned.theta_deg - truth.theta_deg) ** 2))
    lines = [f'# TerreSoRo-{"III" if learned.n_limbs == 3 else "IV"} on a simulated rubber mat', '',
             f'## Learning: {rounds} Eulerian rounds of {truth.px_mm.size} primitives',
             f'- learned means against the substrate model: RMS error {error_p:.2f} mm (translation), '
             f'{error_t:.2f}° (rotation); plot learned_vs_true.png', '',
             f'## Gaits, {rows[0]["cycles"]} cycles each; speeds at the robot\'s τ = {PAPER_TAU_S[learned.n_limbs]} s',
             '| gait (as run) | predicted ‖ν‖ mm/s | simulated ‖ν‖ mm/s (mean ± SD) | BL/s (sim.) '
             '| predicted ω °/s | simulated ω °/s (mean ± SD) |', '|---|---|---|---|---|---|']
    for row in rows:
        v, sv, w, sw = row['simulated']
        lines.append(f'| {row["goal"]} {row["cycle"]} | {row["predicted"][0]:.2f} | {v:.2f} ± {sv:.2f} | '
                     f'{v / bl:.4f} | {row["predicted"][1]:.2f} | {w:.2f} ± {sw:.2f} |')
    lines += ['', '- plots: trajectories.png (ground truth and open-loop prediction), speeds.png (Fig. 18 style)',
              f'- bag: bag/ (rosbag2, MCAP); messages per topic: '
              + ', '.join(f'{t} {n}' for t, n in counts.items()), '']
    text = '\n'.join(lines)
    (out / 'summary.md').write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog='terresoro-demo', description=__doc__.splitlines()[0])
    parser.add_argument('--out', type=output_dir, required=True, help='folder for the results (created)')
    add_option(parser, '--rounds', replace(named(LEARNER, 'rounds'), default=3), help='learning rounds (the paper: 5)')
    add_option(parser, '--cycles', ParamSpec('cycles', 10, 'cycles of each gait', 1, 1000))
    args = parser.parse_args(argv)
    try:
        runs = run_scenario(args.out.resolve(), args.rounds, args.cycles)
    except (runner.ScenarioError, commander.CommanderError) as error:
        print(f'terresoro-demo: {error}', file=sys.stderr)
        return 1
    history, counts = read_truth(args.out / 'bag')
    rows = evaluate(args.out, runs, history)
    plots.learned_vs_true(read_csv(args.out / 'weights.csv'), read_csv(args.out / 'truth.csv'),
                          args.out / 'learned_vs_true.png')
    plots.trajectories([{'label': r['label'], 'truth': r['truth'], 'predicted': r['predicted_path']} for r in rows],
                       args.out / 'trajectories.png')
    plots.speeds(rows, args.out / 'speeds.png')
    print(summarize(args.out, rows, counts, args.rounds))
    return 0


if __name__ == '__main__':
    sys.exit(main())
