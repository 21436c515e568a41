"""terresoro_gait benchmark: exact BILP gait synthesis on TerreSoRo-IV (16 states, 240 primitives). JSON on stdout.

solve_p50_ms   median wall time of one exact solve (BILP (28) or (29) with its cut loop) over SOLVES random α,
               each on a fresh problem (no cuts carried over), alternating translation and rotation goals
sweep_wall_s   the paper's Latin-hypercube sweep, N = 100 α samples, L = 50, translation goal, in WORKERS processes
The weights are a seeded synthetic substrate (p ~ N(0, 5 mm), θ ~ N(0, 8°), gamma-distributed variances): no
TerreSoRo-IV data are published. Targets from the issue: p50 < 100 ms, sweep <= 10 s on 2 cores.
"""
import json
import os
import time

import numpy as np
import scipy

from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.synthesis import GaitProblem, Objective, lhs_sweep
from terresoro_gait.weights import EdgeWeights

TARGETS = {'solve_p50_ms': 100.0, 'sweep_wall_s': 10.0}
SOLVES = 20
BETA, GAMMA, EPS = 0.1, 1.0, 5.0
WORKERS = 2                # the "on 2 cores"


def substrate(seed: int = 3) -> EdgeWeights:
    rng = np.random.default_rng(seed)
    m = LimbDigraph(4).m
    return EdgeWeights(4, rng.normal(0, 5, m), rng.normal(0, 5, m), rng.normal(0, 8, m), rng.gamma(2, 1, m),
                       rng.gamma(2, 0.5, m))


def solve_times(weights: EdgeWeights) -> tuple[list[float], list[int]]:
    rng, graph = np.random.default_rng(11), LimbDigraph(4)
    times, iterations = [], []
    for k in range(SOLVES):
        goal = ('translation', 'rotation')[k % 2]
        alpha = tuple(rng.uniform(-1, 1, 2 if goal == 'translation' else 1))
        problem = GaitProblem(weights, graph)
        start = time.perf_counter()
        iterations.append(problem.solve(Objective(goal, alpha, BETA, GAMMA, EPS)).iterations)
        times.append(time.perf_counter() - start)
    return times, iterations


def main() -> None:
    weights = substrate()
    times, iterations = solve_times(weights)
    start = time.perf_counter()
    sweep = lhs_sweep(GaitProblem(weights, LimbDigraph(4)), 'translation', BETA, GAMMA, EPS, workers=WORKERS)
    sweep_wall_s = time.perf_counter() - start
    result = {'solve_p50_ms': round(1e3 * float(np.median(times)), 1),
              'solve_max_ms': round(1e3 * max(times), 1),
              'solve_iterations': iterations,
              'sweep_wall_s': round(sweep_wall_s, 2),
              'sweep_distinct_gaits': len(sweep.gaits), 'sweep_unresolved': sweep.unresolved, 'sweep_workers': WORKERS,
              'cpu_count': os.cpu_count(), 'scipy': scipy.__version__, 'targets': TARGETS}
    result['met'] = {'solve_p50_ms': result['solve_p50_ms'] < TARGETS['solve_p50_ms'],
                     'sweep_wall_s': result['sweep_wall_s'] <= TARGETS['sweep_wall_s']}
    print(json.dumps(result))


if __name__ == '__main__':
    main()
