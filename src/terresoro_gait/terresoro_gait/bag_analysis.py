"""A recorded TerreSoRo experiment analysed (soro-analyze --robot terresoro): what the executor ran
(``executed_edge``), the tracked pose and the open-loop prediction, turned into the paper's
numbers.

- Exploration (paper VI-C2): every goal of walk primitives is a learning round; its edge samples
  and the weights file are computed exactly as ``terresoro_learner`` computes them live (the
  tracked pose averaged over ``pose_window_s`` before each command instant and the end of the
  round), so the two files agree row for row, unless the live learner missed a frame the bag holds
  (it subscribes best effort, as motion capture publishes; a loaded machine can drop one): a window
  mean then differs by a fraction of the tracker noise.
- Gait runs (paper VII, Fig. 18, Table IX): per gait goal, the speed of each cycle (mm/s, BL/s,
  deg/s) from the tracked pose, mean and SD, against the prediction (``predicted_pose`` when
  recorded, else the weights).
Units at this edge: the paper's (mm, degrees); the bag holds SI.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from soro_analysis.analyses import Analysis, AnalysisError, Report
from soro_analysis.recording import Recording
from soro_geometry import pose_msgs
from soro_geometry.history import PoseHistory, TrackingLost
from soro_node.params import ParamSpec, named
from terresoro_gait import plots
from terresoro_gait.evaluation import CycleSpeeds, cycle_speeds, gait_cycle_starts
from terresoro_gait.kinematics import cycle_motion, predicted_speeds
from terresoro_gait.learning import add_samples, boundary_poses, estimate
from terresoro_gait.messages import seconds
from terresoro_gait.metrics import BODY_LENGTH_MM
from terresoro_gait.parameters import LEARNER
from terresoro_gait.units import pose_to_paper
from terresoro_gait.weights import EdgeWeights, WeightsError, read_csv, write_csv

EDGES = '/terresoro_executor/executed_edge'
PREDICTED = '/terresoro_executor/predicted_pose'
POSE = 'geometry_msgs/msg/PoseStamped'  # the type of pose_topic
OPTIONS = (
    ParamSpec(
        'pose_topic',
        '/tracked_pose',
        "the measured pose: the camera tracker, or a simulator's ground truth",
    ),
    named(LEARNER, 'pose_window_s'),
    named(LEARNER, 'tracking_timeout_s'),
    ParamSpec('n_limbs', 0, 'limbs; 0: from the largest state in the bag', 0, 8),
    ParamSpec(
        'tau_s', 0.0, 'τ for the speeds (s); 0: as run (end - start of each primitive)', 0.0, 10.0
    ),
    ParamSpec(
        'weights_file',
        '',
        "weights to compare the offline ones with (the live learner's) and to predict "
        'gait speeds from when no predicted_pose was recorded',
    ),
    ParamSpec(
        'truth_file',
        '',
        "a substrate model (the simulator's truth_file) to compare the learned weights with",
    ),
)


@dataclass(frozen=True)
class Edge:
    """One executed primitive (an ``executed_edge`` message): 1-based states ``initial`` ->
    ``terminal``, its command instant and the end of its τ (s), whether it was a transition, its
    1-based gait cycle (0: none) and its 0-based ``index`` in the goal."""

    initial: int
    terminal: int
    start_s: float
    end_s: float
    transition: bool
    cycle: int
    index: int


def goals(edges: list[Edge]) -> list[list[Edge]]:
    """The executed primitives split into the goals that ran them (a goal begins at index 0)."""
    runs: list[list[Edge]] = []
    for edge in edges:
        if edge.index == 0 or not runs:
            runs.append([])
        runs[-1].append(edge)
    return runs


def is_gait(run: list[Edge]) -> bool:
    """Whether a goal ran a gait (a primitive in a gait cycle) rather than a learning round."""
    return any(e.cycle > 0 for e in run)


def explore(
    rounds: list[list[Edge]], history: PoseHistory, n_limbs: int, window_s: float, max_age_s: float
) -> tuple[dict, EdgeWeights]:
    """Edge samples by edge and their weights (eq. 14) from the learning rounds."""
    samples: dict = {}
    for run in rounds:
        instants = [e.start_s for e in run] + [run[-1].end_s]
        add_samples(
            samples,
            [(e.initial, e.terminal) for e in run],
            boundary_poses(instants, history, window_s, max_age_s),
        )
    return samples, estimate(samples, n_limbs)


@dataclass(frozen=True)
class GaitRun:
    """One gait goal's completed cycles: measured and predicted speeds per cycle, the tracked path
    and the open-loop prediction's."""

    cycle: list[int]  # the gait as run, from its entry state
    measured: CycleSpeeds
    predicted: CycleSpeeds | None
    path_mm: np.ndarray  # (N, 3) measured poses during the run, mm and deg
    predicted_path_mm: np.ndarray  # (M, 3) open-loop predictions, or (0, 3)


def gait_run(
    run: list[Edge],
    history: PoseHistory,
    predicted: PoseHistory | None,
    weights: EdgeWeights | None,
    tau_s: float,
) -> GaitRun | None:
    """The cycles a gait goal completed (a cancelled or aborted one stops mid-cycle), or None if it
    completed none."""
    length = sum(e.cycle == 1 for e in run)
    cycles = max(e.cycle for e in run)
    if sum(e.cycle == cycles for e in run) < length:
        cycles -= 1
    body = [e for e in run if 1 <= e.cycle <= cycles]
    if not body:
        return None
    run = body
    cycle = [e.initial for e in body[:length]]
    tau = tau_s or float(np.mean([e.end_s - e.start_s for e in body]))
    starts = gait_cycle_starts([(e.start_s, e.end_s, e.transition) for e in run], length)
    measured = cycle_speeds(starts, history, length, tau)
    guess = None
    if predicted is not None and len(predicted) and cycles > 1:
        # the executor publishes each primitive's predicted end pose just after commanding it: the
        # last one before the next cycle's first command is the prediction of this cycle's end
        ends = [e.start_s for e in body[length::length]] + [body[-1].end_s]
        guess = cycle_speeds(ends, predicted, length, tau, window_s=0.0, max_age_s=tau)
    elif weights is not None:
        p, theta = cycle_motion(weights, cycle)
        speed, rate = predicted_speeds(p, theta, length, tau)
        guess = CycleSpeeds(np.array([speed]), np.array([rate]))
    path = np.array(
        [pose_to_paper(*g) for g in history.between(run[0].start_s, run[-1].end_s)]
    ).reshape(-1, 3)
    ahead = (
        predicted.between(run[0].start_s, run[-1].end_s)
        if predicted is not None
        else np.zeros((0, 3))
    )
    return GaitRun(
        cycle, measured, guess, path, np.array([pose_to_paper(*g) for g in ahead]).reshape(-1, 3)
    )


def _edges(recording: Recording) -> list[Edge]:
    return [
        Edge(
            m.initial_vertex,
            m.terminal_vertex,
            seconds(m.start),
            seconds(m.end),
            m.transition,
            m.cycle,
            m.index,
        )
        for m in recording.messages(EDGES)
    ]


def _history(recording: Recording, topic: str, covariance: bool = False) -> PoseHistory:
    history = PoseHistory(max_frames=10_000_000)
    for message in recording.messages(topic):
        pose = message.pose.pose if covariance else message.pose
        history.add(seconds(message.header.stamp), pose_msgs.planar_pose(pose))
    return history


def analyze(recording: Recording, out: Path, options: dict) -> Report:
    """The experiment in ``recording`` analysed into ``out``: learning rounds into weights.csv
    (against ``weights_file`` and ``truth_file`` when given), gait goals into speeds per cycle
    against the prediction. Raises MissingTopics without executed edges or ``pose_topic``,
    AnalysisError when a pose needed was not tracked or a weights file is bad."""
    try:
        return _analyze(recording, out, options)
    # no pose when one is needed; a bad weights file
    except (TrackingLost, WeightsError) as error:
        raise AnalysisError(f'{recording.path}: {error}') from None


def _analyze(recording: Recording, out: Path, options: dict) -> Report:
    recording.require(EDGES, options['pose_topic'], types={options['pose_topic']: POSE})
    edges = _edges(recording)
    n = options['n_limbs'] or max(
        1, int(np.ceil(np.log2(max(max(e.initial, e.terminal) for e in edges))))
    )
    history = _history(recording, options['pose_topic'])
    reference = read_csv(options['weights_file']) if options['weights_file'] else None
    report = Report(
        f'TerreSoRo-{ {3: "III", 4: "IV"}.get(n, str(n) + "-limb") } experiment: {recording.path}'
    )
    runs = goals(edges)
    learned = _exploration(
        report, [r for r in runs if not is_gait(r)], history, n, options, reference, out
    )
    predicted = (
        _history(recording, PREDICTED, covariance=True) if recording.count(PREDICTED) else None
    )
    gaits = [
        gait_run(r, history, predicted, learned or reference, options['tau_s'])
        for r in runs
        if is_gait(r)
    ]
    gaits = [g for g in gaits if g is not None]
    if gaits:
        _gaits(report, gaits, n, options['pose_topic'], out)
    if not gaits and learned is None:
        report.lines.append(f'No learning round and no gait run in {EDGES}.')
    return report


def _exploration(report: Report, rounds, history, n: int, options: dict, reference, out: Path):
    if not rounds:
        return None
    samples, weights = explore(
        rounds, history, n, options['pose_window_s'], options['tracking_timeout_s']
    )
    write_csv(weights, out / 'weights.csv')
    count = sum(len(s) for s in samples.values())
    report.numbers['exploration'] = {'rounds': len(rounds), 'samples': count}
    report.lines += [
        f'## Exploration: {len(rounds)} rounds, {count} edge samples',
        f'- weights computed offline: weights.csv (pose window {options["pose_window_s"]:g} s)',
    ]
    if reference is not None:
        difference = max(
            float(np.max(np.abs(getattr(weights, k) - getattr(reference, k))))
            for k in ('px_mm', 'py_mm', 'theta_deg', 'sp_mm2', 'stheta_deg2')
        )
        report.numbers['exploration']['max_abs_difference_to_weights_file'] = difference
        report.lines.append(
            f'- against {options["weights_file"]}: largest difference {difference:.3g}'
        )
    if options['truth_file']:
        truth = read_csv(options['truth_file'])
        rms_p = float(
            np.sqrt(
                np.mean((weights.px_mm - truth.px_mm) ** 2 + (weights.py_mm - truth.py_mm) ** 2)
            )
        )
        rms_t = float(np.sqrt(np.mean((weights.theta_deg - truth.theta_deg) ** 2)))
        report.numbers['exploration'].update(
            rms_error_translation_mm=rms_p, rms_error_rotation_deg=rms_t
        )
        plots.learned_vs_true(weights, truth, out / 'learned_vs_true.png')
        report.figures['learned_vs_true.png'] = {
            k: {'learned': getattr(weights, k), 'truth': getattr(truth, k)}
            for k in ('px_mm', 'py_mm', 'theta_deg')
        }
        report.lines.append(
            f'- against the substrate model: RMS error {rms_p:.2f} mm (translation), '
            f'{rms_t:.2f}° '
            '(rotation); learned_vs_true.png'
        )
    report.lines.append('')
    return weights


def _gaits(report: Report, gaits: list[GaitRun], n: int, pose_topic: str, out: Path) -> None:
    bl = BODY_LENGTH_MM.get(n, np.nan)
    rows = []
    report.lines += [
        f'## Gaits: speeds per cycle from {pose_topic}',
        '| gait (as run) | cycles | ‖ν‖ mm/s (mean ± SD) | BL/s | ω °/s '
        '(mean ± SD) | predicted ‖ν‖ mm/s '
        '| predicted ω °/s |',
        '|---|---|---|---|---|---|---|',
    ]
    for run in gaits:
        v, sv, w, sw = run.measured.mean_sd()
        pv, _, pw, _ = run.predicted.mean_sd() if run.predicted else (np.nan,) * 4
        rows.append(
            {
                'label': str(run.cycle),
                'cycle': run.cycle,
                'cycles': len(run.measured.speed_mm_s),
                'measured': (v, sv, w, sw),
                'predicted': (pv, pw),
                'speed_bl_s': v / bl,
                'speed_mm_s': run.measured.speed_mm_s,
                'yaw_rate_deg_s': run.measured.yaw_rate_deg_s,
            }
        )
        report.lines.append(
            f'| {run.cycle} | {rows[-1]["cycles"]} | {v:.2f} ± {sv:.2f} | {v / bl:.4f} | '
            f'{w:.2f} ± {sw:.2f} | {pv:.2f} | {pw:.2f} |'
        )
    report.numbers['gaits'] = rows
    paths = [
        {'label': str(r.cycle), 'truth': r.path_mm, 'predicted': r.predicted_path_mm}
        for r in gaits
    ]
    plots.trajectories(paths, out / 'trajectories.png')
    plots.speeds(rows, out / 'speeds.png')
    report.figures['trajectories.png'] = {
        p['label']: {'measured': p['truth'], 'predicted': p['predicted']} for p in paths
    }
    report.figures['speeds.png'] = {
        r['label']: {'measured': r['measured'], 'predicted': r['predicted']} for r in rows
    }
    report.lines += [
        '',
        '- trajectories.png: measured path and open-loop prediction; speeds.png: Fig. 18 style',
        '',
    ]


ANALYSIS = Analysis(
    'terresoro',
    'TerreSoRo exploration rounds and gait runs (paper VI-C2, VII)',
    (EDGES,),
    analyze,
    OPTIONS,
    {
        EDGES: 'soro_interfaces/msg/ExecutedEdge',
        PREDICTED: 'geometry_msgs/msg/PoseWithCovarianceStamped',
    },
)
