"""The salamander's planners at field scale (issue 28), through ``salamander_nav.planning.plan``
(the entry the node and salamander-plan use), each figure beside its target:

- ``gap``: a wall across a 2 m × 1 m map with one gap; the widest gap refused and the narrowest
  planned, per planner, and the time of a refusal (target: 9 cm planned by both, 7 cm refused as
  "no passage" in < 0.5 s).
- ``enclosed``: a goal inside a closed ring on a 10 m × 10 m map: time and peak memory of the
  refusal (target < 0.5 s, < 200 MB).
- ``fields``: seeded random circle fields at 1 cm, 5 m (20 fields), 10 m and 20 m (5 each), with
  the density of bench/salamander.py (20 circles per 25 m², radius 0.1-0.3 m) and start and goal
  in opposite corners; only fields where a passage exists are kept (a flood over the cells with
  the clearance: how many were skipped is reported). Per size and planner: solved, p50 / p90 /
  max time, p90 peak memory each plan added (resident, in a forked child), the paths' total turning
  and the largest goal heading error. Targets: 5 m: 100 % solved, A* p90 < 300 ms; 10 m and 20 m:
  100 % solved, p90 < 2 s, peak < 1 GB; CHOMP ≥ 90 % on 10 m.
- ``thesis``: both planners on the thesis scene: total turning over the net heading change (target
  ≤ 2 for lattice A*) and the goal heading error (target ≤ 2° with analytic expansion).
The distance field is built once per map, outside the planners' times (the node keeps one per
world); its build time is reported per size.
"""

import json
import math
import os
import pickle
import resource
import statistics
import time
from dataclasses import replace

import numpy as np

from salamander_nav import planning
from salamander_nav.distance_field import DistanceField
from salamander_nav.planning import passage, paths
from salamander_nav.scene import load_scene, resolve_scene, scene_from_dict

RESOLUTION = 0.01
SIZES = {5.0: 20, 10.0: 5, 20.0: 5}  # side (m): fields
CIRCLES_PER_M2 = 20 / 25.0
DEFAULTS = planning.PlannerOptions()
WIDTH_ONLY = replace(DEFAULTS, safety_margin_m=0.0)  # the gaps: does the robot itself fit?
# name: (planner, options); the defaults (lattice A* weighted 1.2 with a turn penalty of 2, CHOMP
# from the line and, when that fails, from A*'s path), the thesis's planners (A* weight 1 with
# equal costs, CHOMP from the line only), CHOMP always from A*'s path
VARIANTS = {
    'chomp': ('chomp', DEFAULTS),
    'chomp_thesis': ('chomp', planning.THESIS),
    'chomp_from_lattice': ('chomp', replace(DEFAULTS, chomp_from_lattice=True)),
    'lattice_astar': ('lattice_astar', DEFAULTS),
    'lattice_astar_thesis': ('lattice_astar', planning.THESIS),
}


def field_of(side_x: float, side_y: float, circles=(), polygons=()) -> DistanceField:
    """The distance field of a scene at 1 cm."""
    scene = scene_from_dict(
        {
            'bounds': [0, 0, side_x, side_y],
            'resolution': RESOLUTION,
            'circles': [list(c) for c in circles],
            'polygons': [np.asarray(p).tolist() for p in polygons],
        }
    )
    return DistanceField.from_scene(scene)


def measured(run):
    """(seconds, peak resident memory it added in bytes, value) of ``run()``, run in a forked
    child so that its peak is its own (tracemalloc slowed the Python search tenfold)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: measure, send back, leave without cleaning up the parent's state
        os.close(read)
        base_kb = _resident_kb()
        began = time.perf_counter()
        value = run()
        took = time.perf_counter() - began
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with os.fdopen(write, 'wb') as out:
            pickle.dump((took, max(0, peak_kb - base_kb) * 1024, value), out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, 'rb') as got:
        result = pickle.load(got)
    os.waitpid(pid, 0)
    return result


def _resident_kb() -> int:
    with open('/proc/self/statm') as statm:
        return int(statm.read().split()[1]) * os.sysconf('SC_PAGE_SIZE') // 1024


def gap_figures() -> dict:
    """Which gap widths in a wall at x = 1 m each planner plans through or refuses."""
    start, goal = np.array([0.3, 0.5, 0.0]), np.array([1.7, 0.5, 0.0])
    out = {}
    for gap_cm in (7, 9, 10, 12, 16):
        half = gap_cm / 200.0
        wall = [
            [[0.95, -0.1], [1.05, -0.1], [1.05, 0.5 - half], [0.95, 0.5 - half]],
            [[0.95, 0.5 + half], [1.05, 0.5 + half], [1.05, 1.1], [0.95, 1.1]],
        ]
        field = field_of(2.0, 1.0, polygons=wall)
        for planner in planning.PLANNERS:
            took, _, plan = measured(
                lambda: planning.plan(planner, field, start, goal, WIDTH_ONLY)
            )
            out[f'{planner}_{gap_cm}cm'] = {
                'planned': plan.success,
                'ms': round(1e3 * took, 1),
                'reason': plan.reason[:90],
            }
    return out


def enclosed_figures() -> dict:
    """A goal in a closed ring (radius 0.5 m, 5 cm thick) on a 10 m map."""
    angles = np.linspace(0, 2 * math.pi, 400, endpoint=False)
    ring = [(5.0 + 0.5 * math.cos(a), 5.0 + 0.5 * math.sin(a), 0.03) for a in angles]
    field = field_of(10.0, 10.0, circles=ring)
    start, goal = np.array([1.0, 1.0, 0.0]), np.array([5.0, 5.0, 0.0])
    out = {}
    for planner in planning.PLANNERS:
        took, peak, plan = measured(lambda: planning.plan(planner, field, start, goal))
        out[planner] = {
            'refused': not plan.success,
            'ms': round(1e3 * took, 1),
            'peak_mb': round(peak / 2**20, 1),
            'reason': plan.reason[:90],
        }
    return out


def random_field(side: float, seed: int):
    """(field, start, goal) of a seeded circle field whose goal a passage reaches, or None."""
    rng = np.random.default_rng(seed)
    start = np.array([0.4, 0.4, math.pi / 4])
    goal = np.array([side - 0.4, side - 0.4, math.pi / 4])
    circles = []
    while len(circles) < round(CIRCLES_PER_M2 * side * side):
        x, y, r = rng.uniform(0.5, side - 0.5, 2).tolist() + [rng.uniform(0.1, 0.3)]
        if min(math.dist((x, y), start[:2]), math.dist((x, y), goal[:2])) > r + 0.25:
            circles.append((x, y, r))
    field = field_of(side, side, circles=circles)
    return (field, start, goal) if reachable(field, start, goal) else None


def reachable(field: DistanceField, start, goal) -> bool:
    """Whether start and goal share a region of cells with the clearance the planners require
    (half-width and safety margin): the planners' own passage check."""
    labels = passage.regions(field, DEFAULTS.required_m)
    return bool(
        passage.end_regions(labels, field, start) & passage.end_regions(labels, field, goal)
    )


def turning(plan, goal_heading: float) -> tuple[float, float]:
    """(the path's total absolute turning in rad, its end heading's error in degrees)."""
    headings = np.unwrap(paths.headings(plan.path))
    error = math.remainder(headings[-1] - goal_heading, 2 * math.pi)
    return float(np.abs(np.diff(headings)).sum()), math.degrees(abs(error))


def thesis_figures() -> dict:
    """Both planners on the thesis scene (config/salamander_scene.yaml): the total turning over
    the net heading change (target ≤ 2 for lattice A*) and the goal heading error (target ≤ 2°
    with analytic expansion)."""
    scene = load_scene(resolve_scene(''))
    field = DistanceField.from_scene(scene)
    out = {}
    for name, planner, options in (
        ('chomp_thesis', 'chomp', planning.THESIS),
        ('lattice_astar', 'lattice_astar', DEFAULTS),
        ('lattice_astar_thesis', 'lattice_astar', planning.THESIS),
    ):
        took, peak, plan = measured(
            lambda: planning.plan(planner, field, scene.start, scene.goal, options)
        )
        total, heading = turning(plan, scene.goal[2]) if plan.success else (math.nan, math.nan)
        net = abs(math.remainder(scene.goal[2] - scene.start[2], 2 * math.pi))
        out[name] = {
            'solved': plan.success,
            'ms': round(1e3 * took, 1),
            'turning_over_net': round(total / net, 2),
            'goal_heading_error_deg': round(heading, 1),
        }
    return out


def field_figures(side: float, count: int) -> dict:
    """The planners over ``count`` reachable seeded fields of ``side`` m."""
    rows = {
        name: {'s': [], 'peak': [], 'solved': 0, 'turning': [], 'heading': []} for name in VARIANTS
    }
    built, skipped, seed = [], 0, 0
    while len(built) < count:
        took, _, made = measured(lambda: random_field(side, seed))
        seed += 1
        if made is None:
            skipped += 1
            continue
        built.append(took)
        field, start, goal = made
        for name, row in rows.items():
            planner, options = VARIANTS[name]
            took, peak, plan = measured(
                lambda: planning.plan(planner, field, start, goal, options)
            )
            row['s'].append(took), row['peak'].append(peak)
            row['solved'] += plan.success
            if plan.success:
                total, heading = turning(plan, goal[2])
                row['turning'].append(total), row['heading'].append(heading)
    out = {
        'fields': count,
        'unreachable_skipped': skipped,
        'field_build_s_p50': round(statistics.median(built), 2),
    }
    for planner, row in rows.items():
        times = sorted(row['s'])
        out[planner] = {
            'solved': row['solved'],
            'p50_ms': round(1e3 * statistics.median(times), 1),
            'p90_ms': round(1e3 * times[max(0, math.ceil(0.9 * len(times)) - 1)], 1),
            'max_ms': round(1e3 * times[-1], 1),
            'peak_mb_p90': round(
                sorted(row['peak'])[max(0, math.ceil(0.9 * len(times)) - 1)] / 2**20, 1
            ),
        }
        if row['turning']:
            out[planner]['turning_rad_p50'] = round(statistics.median(row['turning']), 2)
            out[planner]['goal_heading_error_deg_max'] = round(max(row['heading']), 1)
    return out


def main() -> None:
    report = {'thesis': thesis_figures(), 'gap': gap_figures(), 'enclosed': enclosed_figures()}
    report['fields'] = {f'{side:g}m': field_figures(side, count) for side, count in SIZES.items()}
    print(json.dumps(report))


if __name__ == '__main__':
    main()
