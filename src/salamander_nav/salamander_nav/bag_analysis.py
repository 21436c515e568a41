"""A recorded salamander run analysed (soro-analyze --robot salamander), as the thesis shows its
experiment (§3.4.5): the planned path among the obstacles (Fig. 3.30), the curvature along it
against κ_max (the constraint of Fig. 3.27), the tracked robot with the LOS projection and
reference points (Fig. 3.31), and the tracking error: each tracked position's distance to the
planned path, computed here from the bag, not taken from the controller. The obstacles come from
the planner's recorded markers and costmap, else from the scene file option.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from salamander_nav import plots
from salamander_nav.origami import KAPPA_MAX
from salamander_nav.planning import paths
from salamander_nav.scene import Scene, SceneError, load_scene, resolve_scene, scene_from_dict
from soro_analysis.analyses import Analysis, AnalysisError, Report
from soro_analysis.plotting import figure, save
from soro_analysis.recording import Recording
from soro_geometry import quaternion
from soro_node.params import ParamSpec

POSE, PLAN, LOS = '/mocap/salamander/pose', '/plan', '/salamander_controller/los_debug'
MARKERS, COSTMAP = '/salamander_planner/obstacle_markers', '/salamander_planner/costmap'
OPTIONS = (
    ParamSpec(
        'scene_file',
        '',
        'scene YAML for the obstacles when the bag has no planner markers (empty: the '
        'installed config/salamander_scene.yaml)',
    ),
    ParamSpec('kappa_max', KAPPA_MAX, 'curvature limit drawn against the plan (1/m)', 0.1, 100.0),
    ParamSpec(
        'moving_m',
        0.005,
        'the run starts when the robot has moved this far from its first pose (m)',
        0.0,
        1.0,
    ),
)


def analyze(recording: Recording, out: Path, options: dict) -> Report:
    """The ``salamander`` analysis: the last plan against the tracked run (thesis §3.4.5).

    Draws Figs. 3.30, 3.27 and 3.31 and reports the tracking error: the distance (m) to the plan
    of each tracked position from when the robot has moved ``moving_m``. MissingTopics without
    the pose or the plan; AnalysisError when the robot never moved."""
    recording.require(POSE, PLAN)
    pose = recording.series(
        POSE,
        x=lambda m: m.pose.position.x,
        y=lambda m: m.pose.position.y,
        yaw=lambda m: _yaw(m.pose.orientation),
    )
    positions, t = np.column_stack([pose['x'], pose['y']]), pose.time()
    planned = _last_plan(recording)
    moved = np.hypot(*(positions - positions[0]).T) >= options['moving_m']
    if not moved.any():
        raise AnalysisError(f'{POSE}: the robot never moved {options["moving_m"] * 1e3:.0f} mm')
    run = slice(int(np.argmax(moved)), None)
    error = path_distance(positions[run], planned)
    scene = _scene(recording, options)
    kappa = paths.curvatures(planned)
    goal_miss = float(math.dist(positions[-1], planned[-1]))
    report = Report(f'Salamander path following: {recording.path}')
    report.numbers = {
        'tracked_poses': len(t),
        'run_s': float(t[-1] - t[run][0]),
        'plan_points': len(planned),
        'plan_length_m': paths.length(planned),
        'plan_max_curvature': float(np.abs(kappa).max()),
        'tracking_error_mean_m': float(error.mean()),
        'tracking_error_rms_m': float(np.sqrt((error**2).mean())),
        'tracking_error_max_m': float(error.max()),
        'final_distance_to_goal_m': goal_miss,
        'final_heading_deg': float(np.degrees(pose['yaw'][-1])),
    }
    _figures(
        report,
        scene,
        planned,
        kappa,
        positions[run],
        pose['yaw'][run],
        t[run] - t[run][0],
        error,
        _los_points(recording),
        options,
        out,
    )
    n = report.numbers
    report.lines += [
        f'## Run: {n["tracked_poses"]} tracked poses, {n["run_s"]:.1f} s moving, plan of '
        f'{n["plan_length_m"]:.2f} m (max curvature {n["plan_max_curvature"]:.2f} 1/m)',
        '- tracking error (distance to the plan): mean '
        f'{n["tracking_error_mean_m"] * 1e3:.1f} mm, rms '
        f'{n["tracking_error_rms_m"] * 1e3:.1f} mm, max {n["tracking_error_max_m"] * 1e3:.1f} mm',
        f'- stopped {goal_miss * 1e3:.0f} mm from the goal, heading {n["final_heading_deg"]:.1f}°',
        '- fig3_30_plan.png, fig3_27_curvature.png, fig3_31_tracking.png, tracking_error.png',
        '',
    ]
    return report


def path_distance(points, path) -> np.ndarray:
    """Distance (m) of each of ``points`` (N, 2) to the polyline ``path`` (M, 2): the nearest of
    its segments."""
    a, b = path[:-1], path[1:]
    ab = b - a
    rel = points[:, None, :] - a[None]
    u = np.clip((rel * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-18), 0.0, 1.0)
    nearest = a[None] + u[..., None] * ab[None]
    return np.hypot(*np.moveaxis(points[:, None, :] - nearest, -1, 0)).min(axis=1)


def _yaw(q) -> float:
    return float(quaternion.yaw(np.array([q.w, q.x, q.y, q.z])))


def _last_plan(recording: Recording) -> np.ndarray:
    plans = [m for m in recording.messages(PLAN) if len(m.poses) >= 2]
    if not plans:
        raise AnalysisError(f'{PLAN}: no path of two or more poses in this bag')
    return np.array([[p.pose.position.x, p.pose.position.y] for p in plans[-1].poses])


def _scene(recording: Recording, options: dict) -> Scene:
    grids, markers = recording.messages(COSTMAP), recording.messages(MARKERS)
    if not (grids and markers):
        try:
            return load_scene(resolve_scene(options['scene_file']))
        except SceneError as error:
            raise AnalysisError(f'no planner markers in the bag, and {error}') from None
    info = grids[-1].info
    x0, y0 = info.origin.position.x, info.origin.position.y
    circles = [
        (m.pose.position.x, m.pose.position.y, m.scale.x / 2)
        for m in markers[-1].markers
        if m.type == 3
    ]
    polygons = [[(p.x, p.y) for p in m.points[:-1]] for m in markers[-1].markers if m.type == 4]
    return scene_from_dict(
        {
            'bounds': [
                x0,
                y0,
                x0 + info.width * info.resolution,
                y0 + info.height * info.resolution,
            ],
            'resolution': info.resolution,
            'circles': circles,
            'polygons': polygons,
        }
    )


def _los_points(recording: Recording) -> tuple[np.ndarray, np.ndarray]:
    """Projection and reference points (N, 2) each from the controller's LOS markers (ids 0 and
    1)."""
    found = {0: [], 1: []}
    for message in recording.messages(LOS):
        for marker in message.markers:
            if marker.id in found and marker.points:
                found[marker.id].append((marker.points[0].x, marker.points[0].y))
    return np.array(found[0]).reshape(-1, 2), np.array(found[1]).reshape(-1, 2)


def _figures(report, scene, planned, kappa, positions, yaw, t, error, los, options, out) -> None:
    psi = paths.headings(planned)
    save(
        plots.plans_figure(
            scene,
            {'planned': planned},
            (*planned[0], psi[0]),
            (*planned[-1], psi[-1]),
            'Planned path (Fig. 3.30)',
        ),
        out / 'fig3_30_plan.png',
    )
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(planned, axis=0).T))])
    fig, ax = figure(size=(6.5, 3.0))
    ax[0, 0].plot(s, np.abs(kappa), label='|κ| along the plan')
    ax[0, 0].axhline(options['kappa_max'], color='tab:red', ls='--', label='κ_max')
    ax[0, 0].set(
        xlabel='arc length (m)', ylabel='curvature (1/m)', title='Curvature constraint (Fig. 3.27)'
    )
    ax[0, 0].legend()
    save(fig, out / 'fig3_27_curvature.png')
    save(
        plots.tracking_figure(scene, planned, positions, *los, yaw, 'Path tracking (Fig. 3.31)'),
        out / 'fig3_31_tracking.png',
    )
    fig, ax = figure(size=(6.5, 3.0))
    ax[0, 0].plot(t, error * 1e3)
    ax[0, 0].set(
        xlabel='time since the robot started (s)',
        ylabel='distance to the plan (mm)',
        title='Tracking error',
    )
    save(fig, out / 'tracking_error.png')
    report.figures.update(
        {
            'fig3_30_plan.png': {'planned': planned},
            'fig3_27_curvature.png': {'s_m': s, 'kappa': kappa},
            'fig3_31_tracking.png': {
                'positions': positions,
                'projections': los[0],
                'references': los[1],
            },
            'tracking_error.png': {'t_s': t, 'error_m': error},
        }
    )


ANALYSIS = Analysis(
    'salamander',
    'origami salamander: planned path, curvature, LOS tracking and its error',
    (POSE, PLAN),
    analyze,
    OPTIONS,
    {
        POSE: 'geometry_msgs/msg/PoseStamped',
        PLAN: 'nav_msgs/msg/Path',
        LOS: 'visualization_msgs/msg/MarkerArray',
        MARKERS: 'visualization_msgs/msg/MarkerArray',
        COSTMAP: 'nav_msgs/msg/OccupancyGrid',
    },
)
