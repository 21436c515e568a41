"""``salamander-demo``: the thesis's planning experiment (§3.4.5: start heading 90°, goal heading
0°, obstacles between), end to end. Both planners plan on the same scene offline and their figures
are measured side by side (Table 3.6 as numbers); then the CHOMP path is followed in simulation
through the real nodes, as salamander.launch.py sim:=true starts them, recorded to a rosbag2 (MCAP)
file, and analysed by ``soro-analyze`` into Fig. 3.30/3.27/3.31-style plots and the tracking error.

    salamander-demo --out runs/demo/salamander
"""

from __future__ import annotations

import json
import math
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from salamander_nav import planning, plots
from salamander_nav.commander import SalamanderCommander
from salamander_nav.distance_field import DistanceField
from salamander_nav.planning import paths
from salamander_nav.scene import Scene, SceneError, resolve_scene
from softbots_bringup import runner
from soro_analysis.analyses import analyze
from soro_analysis.plotting import save
from soro_node import commander
from soro_node.arguments import CommandParser, output_dir, refuse

TOPICS = [
    '/mocap/salamander/pose',
    '/plan',
    '/salamander_controller/los_debug',
    '/joint_states',
    '/salamander_planner/obstacle_markers',
    '/salamander_planner/costmap',
]


# Table 3.6's rows: the thesis's two planners, then lattice A* as a field user runs it
ROWS = (
    ('chomp', 'chomp', planning.THESIS),
    ('lattice_astar (thesis)', 'lattice_astar', planning.THESIS),
    ('lattice_astar (defaults)', 'lattice_astar', planning.PlannerOptions()),
)


def measure(
    planner: str,
    field: DistanceField,
    scene: Scene,
    options: planning.PlannerOptions,
    repeats: int = 5,
) -> tuple[paths.Plan, dict]:
    """The plan and its Table 3.6 row: median time of ``repeats`` runs, effort, peak Python memory
    (tracemalloc, a separate run: tracing slows the code), length, maximum curvature, end heading
    errors."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        plan = planning.plan(planner, field, scene.start, scene.goal, options)
        times.append(time.perf_counter() - began)
    tracemalloc.start()
    planning.plan(planner, field, scene.start, scene.goal, options)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    errors = (
        paths.heading_errors(plan.path, scene.start, scene.goal)
        if len(plan.path) > 1
        else (math.nan,) * 2
    )
    return plan, {
        'planner': planner,
        'success': plan.success,
        'time_ms': 1e3 * float(np.median(times)),
        plan.effort_name: plan.effort,
        'peak_memory_kb': peak / 1024,
        'length_m': plan.length_m,
        'max_curvature': plan.max_curvature,
        'start_heading_error_deg': math.degrees(errors[0]),
        'goal_heading_error_deg': math.degrees(errors[1]),
        'reason': plan.reason,
    }


def compare_planners(scene: Scene, field: DistanceField, out: Path) -> list[dict]:
    """Plan on ``scene`` (its ``field``) with every planner (``measure``), write planners.png (Fig.
    3.30) and table_3_6.json into ``out``; the Table 3.6 rows."""
    results = []
    for label, planner, options in ROWS:
        plan, row = measure(planner, field, scene, options)
        results.append((plan, {**row, 'planner': label}))
    rows = [row for _, row in results]
    save(
        plots.plans_figure(
            scene,
            {r['planner']: p.path for p, r in results},
            scene.start,
            scene.goal,
            "CHOMP and lattice A* on the thesis's scene (Fig. 3.30)",
        ),
        out / 'planners.png',
    )
    (out / 'table_3_6.json').write_text(json.dumps(rows, indent=1) + '\n')
    return rows


def table_lines(rows: list[dict]) -> list[str]:
    """The Table 3.6 rows of ``compare_planners`` as the markdown lines of the demo's summary."""
    lines = [
        "## Table 3.6, measured on the thesis's scene (start 90°, goal 0°)",
        '',
        '| planner | plan | time (ms) | iterations / expansions | peak memory (kB) '
        '| length (m) | '
        'max κ (1/m) | start / goal heading error (°) |',
        '|---|---|---|---|---|---|---|---|',
    ]
    for r in rows:
        effort = r.get('iterations', r.get('expansions'))
        lines.append(
            f'| {r["planner"]} | {"ok" if r["success"] else "failed"} | {r["time_ms"]:.1f} '
            f'| {effort} | '
            f'{r["peak_memory_kb"]:.0f} | {r["length_m"]:.3f} | '
            f'{r["max_curvature"]:.2f} | '
            f'{r["start_heading_error_deg"]:.1f} / {r["goal_heading_error_deg"]:.1f} |'
        )
    return lines + [
        '',
        "planners.png: the paths. The thesis's lattice A* gave no end-heading guarantee "
        '(§3.4.1); ours ends on the goal pose through an Euler-spiral connection. The thesis '
        'row costs every primitive the same (weight 1); the defaults weigh the heuristic 1.2 '
        "and charge 2 primitives per radian turned (maps larger than the thesis's).",
        '',
    ]


def follow_in_simulation(scene: Scene, out: Path) -> Path:
    """Start salamander.launch.py sim:=true recorded into ``out``/bag, navigate to the scene's goal
    with CHOMP (at most 300 s) and stop every process; the bag's path. Raises ScenarioError when a
    process fails or does not stop cleanly, CommanderError when the navigation fails."""
    logs, bag = out / 'logs', out / 'bag'
    logs.mkdir(parents=True, exist_ok=True)
    port = out / 'ttySALAMANDER'
    params = logs / 'demo_parameters.yaml'
    start = [float(v) for v in scene.start]
    params.write_text(
        f'salamander_sim:\n  ros__parameters: {{port: {port}, start_pose: {start}}}\n'
        f'salamander_controller:\n  ros__parameters: {{port: {port}}}\n'
    )
    processes = runner.start_recorded(
        'salamander.launch.py', logs, bag, TOPICS, {'sim': 'true'}, extra_params=[params]
    )
    commander.init()
    try:
        robot = SalamanderCommander()
        try:
            result = robot.navigate(
                tuple(scene.goal), planner='chomp', timeout_s=300.0, on_feedback=_progress()
            )
            print(f'salamander-demo: {result.message}', flush=True)
        finally:
            robot.close()
    finally:
        commander.shutdown()
        codes = runner.stop_all(processes)
    if any(codes.values()):
        raise runner.ScenarioError(f'processes did not stop cleanly: {codes}; logs in {logs}')
    return bag


def _progress():
    shown = {'waypoint': -1}

    def show(feedback) -> None:
        if feedback.phase == 'following' and feedback.waypoint // 10 != shown['waypoint'] // 10:
            shown['waypoint'] = feedback.waypoint
            print(
                f'salamander-demo: waypoint {feedback.waypoint}, '
                f'{feedback.distance_left_m:.2f} m left, '
                f'{feedback.cross_track_m * 1e3:+.0f} mm off the path',
                flush=True,
            )

    return show


def main(argv: list[str] | None = None) -> int:
    """``salamander-demo --out DIR [--scene FILE]``: both planners offline, then the CHOMP path
    followed in simulation and analysed; 0, 2 with one line on stderr when the scene is refused
    (nothing started), 1 when a step fails."""
    parser = CommandParser(
        prog='salamander-demo',
        description="the thesis's planning experiment end to end (§3.4.5): both planners on one "
        'scene, then the CHOMP path followed through the real nodes, recorded and analysed',
    )
    parser.add_argument(
        '--out', type=output_dir, required=True, help='folder for the results (created)'
    )
    parser.add_argument(
        '--scene',
        default='',
        help='scene YAML (default: the installed config/salamander_scene.yaml)',
    )
    args = parser.parse_args(argv)
    out = args.out.resolve()
    try:
        scene, field = planning.planning_scene(resolve_scene(args.scene))
    except SceneError as error:
        return refuse('salamander-demo', error)
    try:
        rows = compare_planners(scene, field, out)
        bag = follow_in_simulation(scene, out)
    except (SceneError, runner.ScenarioError, commander.CommanderError) as error:
        print(f'salamander-demo: {error}', file=sys.stderr)
        return 1
    live = out / 'live'
    live.mkdir(exist_ok=True)
    analyze(bag, live, 'salamander')
    analysed = [
        '#' + line if line.startswith('#') else line
        for line in (live / 'summary.md').read_text().split('\n')
    ]
    summary = '\n'.join(
        [
            "# Origami salamander: the thesis's planning experiment",
            '',
            *table_lines(rows),
            *analysed,
            "The analysis's figures and numbers are in live/.",
            '',
        ]
    )
    (out / 'summary.md').write_text(summary)
    print(summary)
    return 0


if __name__ == '__main__':
    sys.exit(main())
