"""A recorded voxel-quadruped gait analysed (soro-analyze --robot pom), as the paper checks POM
against the robot (Figs. 6 and 7): the actuators' logged strokes (``joint_states``), POM's forward
kinematics of them at the top markers, and, when the camera was recorded (``mocap_markers``), the
markers preprocessed as the authors did (spec A8) against that prediction, with the correlation of
each marker component over the run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pom_voxel import mocap, structure
from pom_voxel.lattice import LatticeError
from pom_voxel.parameters import MARKERS, STRUCTURE
from pom_voxel.planes_of_motion import PlanesOfMotion
from soro_analysis.analyses import Analysis, AnalysisError, Report
from soro_analysis.plotting import figure, save
from soro_analysis.recording import Recording, Series, align
from soro_node.params import ParamSpec

PREDICTED = '/pom_controller/predicted_markers'
JOINTS, CAMERA = '/joint_states', '/mocap_markers'
OPTIONS = (
    STRUCTURE,
    MARKERS,
    ParamSpec(
        'theta_align_deg',
        0.0,
        "camera-to-robot mounting angle for the preprocessing (deg; the authors' "
        'set-up: 90, the simulated camera: 0)',
        -360.0,
        360.0,
    ),
    ParamSpec(
        'rescale',
        'variance_ratio',
        'amplitude rescale of the preprocessing',
        choices=mocap.RESCALES,
    ),
    ParamSpec(
        'max_gap_s',
        0.05,
        'largest time between a camera frame and the stroke log it is compared with (s)',
        0.001,
        1.0,
    ),
)


def analyze(recording: Recording, out: Path, options: dict) -> Report:
    """The ``pom`` analysis: POM's forward kinematics of the logged strokes, against the camera.

    Plots each actuator's control-node displacement q (mm; ``/joint_states`` holds m) as Fig. 6
    and, when ``/mocap_markers`` was recorded, the preprocessed marker loops against POM's as
    Fig. 7, with the correlation of each marker's x and y. MissingTopics without
    ``/joint_states``; AnalysisError on a bad structure file, a marker the structure does not
    name or camera tracks the preprocessing refuses."""
    recording.require(JOINTS)
    try:
        pom = PlanesOfMotion(structure.load(structure.resolve(options['structure_file'])))
        nodes = [pom.index[pom.structure.effectors[name]] for name in options['markers']]
    except LatticeError as error:
        raise AnalysisError(str(error)) from None
    except KeyError as error:
        raise AnalysisError(f'markers: the structure names no effector {error}') from None
    names = [a.name for a in pom.structure.actuators]
    joints = recording.series(JOINTS, **{n: _joint(n) for n in names})
    q = 1000.0 * np.stack([joints[n] for n in names], axis=1)  # (T, M) mm
    t = joints.time() - joints.time()[0]
    predicted = pom.forward_many(q)[:, nodes, :2]  # (T, 4, 2) mm
    report = Report(f'Voxel quadruped gait: {recording.path}')
    report.numbers = {
        'stroke_samples': len(q),
        'duration_s': float(t[-1]),
        'actuators': names,
        'stroke_range_mm': {
            n: [float(q[:, k].min()), float(q[:, k].max())] for k, n in enumerate(names)
        },
    }
    _strokes_figure(t, q, names, out / 'fig6_strokes.png')
    report.figures['fig6_strokes.png'] = {'t_s': t, **{n: q[:, k] for k, n in enumerate(names)}}
    report.lines += [
        f'## Strokes: {len(q)} samples over {t[-1]:.1f} s from {JOINTS}',
        "- fig6_strokes.png: each actuator's control-node displacement "
        "(the paper's Fig. 6 POM output)",
    ]
    if recording.count(CAMERA):
        _against_camera(report, recording, joints, predicted, options, out)
    report.lines.append('')
    return report


def _joint(name: str):
    def position(message) -> float:
        return message.position[list(message.name).index(name)] if name in message.name else np.nan

    return position


def _against_camera(
    report: Report,
    recording: Recording,
    joints: Series,
    predicted: np.ndarray,
    options: dict,
    out: Path,
) -> None:
    count = len(options['markers'])
    camera = recording.series(CAMERA, xy=_markers_xy(count), seen=lambda m: len(m.poses))
    other = camera['seen'] != count
    if other.all():
        raise AnalysisError(
            f'{recording.path}: no {CAMERA} frame holds the {count} markers compared (frames '
            f'hold {", ".join(str(int(n)) for n in sorted(set(camera["seen"])))})'
        )
    frames = camera.time()
    try:
        measured = mocap.preprocess(
            1000.0 * camera['xy'], 'mm', options['theta_align_deg'], rescale=options['rescale']
        )
    except LatticeError as error:
        raise AnalysisError(f'{CAMERA}: {error}') from None
    seen = np.all(np.isfinite(camera['xy']), axis=(1, 2))
    model = Series(JOINTS, joints.receive_s, joints.stamp_s, {'xy': predicted})
    # POM at each camera frame
    at = align(frames[seen], model, 'xy', 'nearest', options['max_gap_s'])
    both = np.all(np.isfinite(at), axis=(1, 2))
    pom_loops = at[both] - at[both].mean(axis=0)
    loops = measured.markers[both]
    correlation = np.array(
        [
            [np.corrcoef(pom_loops[:, m, k], loops[:, m, k])[0, 1] for k in range(2)]
            for m in range(pom_loops.shape[1])
        ]
    )
    markers = options['markers']
    report.numbers['camera'] = {
        'frames': int(len(frames)),
        'compared': int(both.sum()),
        'dropped_frames': measured.dropped_frames,
        'frames_of_another_count': int(other.sum()),
        'correlation': {name: {'x': c[0], 'y': c[1]} for name, c in zip(markers, correlation)},
    }
    _loops_figure(pom_loops, loops, markers, out / 'fig7_markers.png')
    _agreement_figure(correlation, markers, out / 'marker_agreement.png')
    report.figures['fig7_markers.png'] = {
        name: {'pom': pom_loops[:, m], 'measured': loops[:, m]} for m, name in enumerate(markers)
    }
    report.figures['marker_agreement.png'] = report.numbers['camera']['correlation']
    report.lines += [
        '',
        f'## Markers: {int(both.sum())} camera frames against POM of the logged strokes',
        *(
            [f'{int(other.sum())} frame(s) holding other than {count} markers left out', '']
            if other.any()
            else []
        ),
        '| marker | r(x) | r(y) |',
        '|---|---|---|',
        *(f'| {name} | {c[0]:.3f} | {c[1]:.3f} |' for name, c in zip(markers, correlation)),
        '',
        "- fig7_markers.png: each marker's loop, POM against the "
        'preprocessed camera (Fig. 7; the '
        f"camera's amplitude is set by the {options['rescale']} rescale, "
        'spec A8); marker_agreement.png: '
        'the correlations',
    ]


def _markers_xy(count: int):
    """A camera frame's marker positions (count, 2) m; NaN, as a frame the camera lost, when it
    holds another number of markers (a marker hidden, or a reflection taken for one)."""

    def xy(message) -> list:
        if len(message.poses) != count:
            return [[np.nan, np.nan]] * count
        return [[p.position.x, p.position.y] for p in message.poses]

    return xy


def _strokes_figure(t, q, names, path) -> None:
    fig, axes = figure(size=(8, 3.5))
    for k, name in enumerate(names):
        axes[0, 0].plot(
            t,
            q[:, k],
            label=name,
            color=name if name in ('blue', 'red', 'green', 'yellow') else None,
        )
    axes[0, 0].set(
        xlabel='t, s',
        ylabel='control-node displacement, mm',
        title='actuator strokes (POM output)',
    )
    axes[0, 0].legend()
    save(fig, path)


def _loops_figure(pom_loops, loops, markers, path) -> None:
    fig, axes = figure(1, len(markers), size=(3.2, 3.2))
    for m, (ax, name) in enumerate(zip(axes[0], markers)):
        ax.plot(loops[:, m, 0], loops[:, m, 1], '.', ms=2, alpha=0.5, label='camera, preprocessed')
        ax.plot(pom_loops[:, m, 0], pom_loops[:, m, 1], label='POM of the logged strokes')
        ax.set(title=name, xlabel='x, mm', ylabel='y, mm', aspect='equal')
    axes[0, 0].legend()
    save(fig, path)


def _agreement_figure(correlation, markers, path) -> None:
    fig, axes = figure(size=(6, 3.5))
    index = np.arange(len(markers))
    axes[0, 0].bar(index - 0.2, correlation[:, 0], 0.4, label='x')
    axes[0, 0].bar(index + 0.2, correlation[:, 1], 0.4, label='y')
    axes[0, 0].set(
        xticks=index, xticklabels=markers, ylim=(-1, 1), ylabel='correlation over the run'
    )
    axes[0, 0].legend()
    save(fig, path)


ANALYSIS = Analysis(
    'pom',
    "a voxel quadruped gait: logged strokes, POM of them, the camera's markers",
    (PREDICTED,),
    analyze,
    OPTIONS,
    {
        PREDICTED: 'geometry_msgs/msg/PoseArray',
        JOINTS: 'sensor_msgs/msg/JointState',
        CAMERA: 'geometry_msgs/msg/PoseArray',
    },
)
