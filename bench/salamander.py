"""The salamander's planners and tracker (salamander_nav) on a 5 m × 5 m map at 1 cm (250,000
cells), over twenty seeded random fields of 20 circular obstacles (radius 0.1-0.3 m) between a
start and a goal 4.2 m apart.

``astar_p50_ms`` / ``astar_expansions_per_s``: lattice A* as the thesis ran it (heuristic weight 1,
10 s budget; target p50 under 200 ms; the thesis's Matlab expanded 49,735 nodes in 6.36 s, 7,800/s;
Nav2's Smac lattice plans in 2-20 ms on 147k cells), ``astar_w1.2_*`` the same as weighted A*
(paths at most 1.2 times the shortest). Beside them, in the same run, ``grid_dijkstra_p50_ms``:
scipy's compiled Dijkstra over the same free cells (8-connected), the plain algorithm a grid
planner is, which also says how many goals are reachable at all (``reachable``).
``chomp_60_iter_ms``: CHOMP with n = 100 points and 60 iterations, p50 (target under 30 ms).
``los_pd_step_us``: one LOS/PD step (target under 100 µs, 10 kHz). ``rasterise_1000_circles_s``
(issue 26): 1,000 circles rasterised on a 5 m × 5 m scene at 1 mm (25 M cells), each over its
bounding box; ``rasterise_1000_circles_full_grid_s`` the former way (every circle tested on every
cell), timed on 10 circles and scaled to 1,000 (it took 94 s).
"""

import json
import statistics
import time

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from salamander_nav.distance_field import DistanceField, cell_centres, rasterise
from salamander_nav.los import LosTracker
from salamander_nav.planning import chomp, lattice_astar
from salamander_nav.scene import scene_from_dict

FIELDS, SIDE, RESOLUTION = 20, 5.0, 0.01
START, GOAL = np.array([0.4, 0.4, np.pi / 4]), np.array([3.4, 3.4, np.pi / 4])


def random_field(seed: int) -> DistanceField:
    """20 circles placed away from the start and the goal."""
    rng, circles = np.random.default_rng(seed), []
    while len(circles) < 20:
        x, y, r = rng.uniform(0.5, 4.5), rng.uniform(0.5, 4.5), rng.uniform(0.1, 0.3)
        if (
            min(np.hypot(x - START[0], y - START[1]), np.hypot(x - GOAL[0], y - GOAL[1]))
            > r + 0.25
        ):
            circles.append((x, y, r))
    scene = scene_from_dict(
        {'bounds': [0, 0, SIDE, SIDE], 'resolution': RESOLUTION, 'circles': circles}
    )
    return DistanceField.from_scene(scene)


def timed(run):
    began = time.perf_counter()
    value = run()
    return time.perf_counter() - began, value


def grid_dijkstra(field: DistanceField, clearance_m: float) -> float:
    """Shortest 8-connected path length (m) over the cells at least ``clearance_m`` from
    obstacles."""
    free = field.distance >= clearance_m
    rows, cols = free.shape
    index = np.arange(free.size).reshape(free.shape)
    edges = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        a = index[max(0, -dr) : rows - max(0, dr), max(0, -dc) : cols - max(0, dc)]
        b = index[max(0, dr) : rows - max(0, -dr) or None, max(0, dc) : cols - max(0, -dc) or None]
        ok = free.ravel()[a.ravel()] & free.ravel()[b.ravel()]
        edges.append(
            (a.ravel()[ok], b.ravel()[ok], np.full(ok.sum(), np.hypot(dr, dc) * RESOLUTION))
        )
    i, j, w = (np.concatenate(part) for part in zip(*edges))
    graph = coo_matrix((w, (i, j)), shape=(free.size, free.size)).tocsr()
    cell = lambda p: (
        int((p[1] - field.origin[1]) / RESOLUTION) * cols
        + int((p[0] - field.origin[0]) / RESOLUTION)
    )
    return float(dijkstra(graph, directed=False, indices=cell(START))[cell(GOAL)])


def rasterise_figures() -> dict:
    rng = np.random.default_rng(26)
    circles = np.column_stack(
        [rng.uniform(0, SIDE, 1000), rng.uniform(0, SIDE, 1000), rng.uniform(0.01, 0.1, 1000)]
    )
    scene = scene_from_dict(
        {'bounds': [0, 0, SIDE, SIDE], 'resolution': 0.001, 'circles': circles.tolist()}
    )
    per_box_s, _ = timed(lambda: rasterise(scene))
    setup_s, centres = timed(lambda: cell_centres(scene.shape, scene.bounds[:2], scene.resolution))
    occupied = np.zeros(scene.shape, dtype=bool)

    def full_grid(some):
        for x, y, r in some:
            occupied[...] |= (centres[..., 0] - x) ** 2 + (centres[..., 1] - y) ** 2 <= r * r

    full_s = setup_s + 100 * timed(lambda: full_grid(circles[:10]))[0]
    return {
        'rasterise_cells': scene.shape[0] * scene.shape[1],
        'rasterise_1000_circles_s': round(per_box_s, 3),
        'rasterise_1000_circles_full_grid_s': round(full_s, 1),
    }


def main() -> None:
    runs = {1.0: ([], [], []), 1.2: ([], [], [])}  # weight -> times, expansions, successes
    grid_s, reachable, chomp_s = [], 0, []
    chomp_settings = chomp.ChompSettings(
        n_points=100, max_iterations=60, max_restarts=0, converged_stop=False
    )
    for seed in range(FIELDS):
        field = random_field(seed)
        for weight, (times, expansions, solved) in runs.items():
            took, plan = timed(
                lambda: lattice_astar.plan(
                    field, START, GOAL, lattice_astar.LatticeSettings(heuristic_weight=weight)
                )
            )
            times.append(took), expansions.append(plan.effort), solved.append(plan.success)
        took, length = timed(lambda: grid_dijkstra(field, 0.04))
        grid_s.append(took)
        reachable += bool(np.isfinite(length))
        chomp_s.append(timed(lambda: chomp.plan(field, START, GOAL, chomp_settings))[0])
    path = np.column_stack([np.linspace(0, 4, 200), 0.1 * np.sin(np.linspace(0, 4, 200))])
    tracker, step_s = LosTracker(path), []
    for k in range(20_000):
        pose = (4 * (k % 10_000) / 10_000, 0.02, 0.1)
        began = time.perf_counter()
        tracker.step(pose, 0.0, 0.0)
        step_s.append(time.perf_counter() - began)
        if tracker.index > 150:
            tracker = LosTracker(path)
    p50 = statistics.median
    report = {'map_cells': int(SIDE / RESOLUTION) ** 2, 'fields': FIELDS, 'reachable': reachable}
    for weight, (times, expansions, solved) in runs.items():
        name = 'astar' if weight == 1.0 else f'astar_w{weight}'
        report.update(
            {
                f'{name}_solved': sum(solved),
                f'{name}_p50_ms': round(1e3 * p50(times), 1),
                f'{name}_max_ms': round(1e3 * max(times), 1),
                f'{name}_expansions_p50': int(p50(expansions)),
                f'{name}_expansions_per_s': round(sum(expansions) / sum(times)),
                f'{name}_over_grid_dijkstra': round(p50(times) / p50(grid_s), 2),
            }
        )
    print(
        json.dumps(
            {
                **report,
                'grid_dijkstra_p50_ms': round(1e3 * p50(grid_s), 1),
                'chomp_60_iter_ms': round(1e3 * p50(chomp_s), 1),
                'los_pd_step_us': round(1e6 * p50(step_s), 2),
                **rasterise_figures(),
            }
        )
    )


if __name__ == '__main__':
    main()
