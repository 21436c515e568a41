"""terresoro_gait benchmark: exact BILP gait synthesis on TerreSoRo-IV (16 states, 240 primitives).
JSON on stdout.

solve_p50_ms
    median wall time of one exact solve (BILP (28) or (29) with its cut loop), SOLVES random α per
    substrate, each on a fresh problem (no cuts or known cycles carried over), goals alternating
sweep_wall_s
    the paper's Latin-hypercube sweep, N = 100 α samples, L = 50, translation goal, in WORKERS
    processes; the slowest substrate's
Workload: the simulated TerreSoRo-IV's substrate models (terresoro_gait.substrate: rubber_mat,
whiteboard, carpet), in which curling limbs drag the hub, as the paper's robots move; the targets
are judged on them. No TerreSoRo-IV weights are published. Stress case, reported under
"unstructured" without a target: every primitive's mean motion drawn independently (p ~ N(0, 5 mm),
θ ~ N(0, 8°)), which leaves the LP relaxation far from the optimum. Targets from the issue: p50 <
100 ms, sweep <= 10 s on 2 cores.

backends
    per exact backend (HiGHS BILP with cuts, CP-SAT circuit with rounded-up candidates), in the
    same run: p50 and max of one solve over the same BACKEND_SOLVES random α (translation, β = 0.1,
    γ = 1, ε = 5) on the whiteboard substrate, for TerreSoRo-IV (16 states) and a five-limb robot
    (32 states, 992 edges), and the IV sweep as above with each backend. Targets (issue 19): IV max
    < 1 s, five limbs max < 3 s, IV sweep with 'auto' no slower than with HiGHS (auto/highs within
    SWEEP_NOISE).
"""

import json
import os
import time

import numpy as np
import ortools
import scipy

from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.substrate import PRESETS, substrate_weights
from terresoro_gait.sweep import lhs_sweep
from terresoro_gait.synthesis import GaitProblem, Objective
from terresoro_gait.weights import EdgeWeights

TARGETS = {'solve_p50_ms': 100.0, 'sweep_wall_s': 10.0, 'iv_max_s': 1.0, 'five_limbs_max_s': 3.0}
BACKEND_SOLVES = 40
SOLVES = 20
BETA, GAMMA, EPS = 0.1, 1.0, 5.0
WORKERS = 2  # the "on 2 cores"
# auto sweeps with HiGHS too; the same HiGHS sweep run twice differed by up to 9 % here
SWEEP_NOISE = 1.15


def unstructured(seed: int = 3) -> EdgeWeights:
    rng = np.random.default_rng(seed)
    m = LimbDigraph(4).m
    return EdgeWeights(
        4,
        rng.normal(0, 5, m),
        rng.normal(0, 5, m),
        rng.normal(0, 8, m),
        rng.gamma(2, 1, m),
        rng.gamma(2, 0.5, m),
    )


def solve_times(weights: EdgeWeights) -> list[float]:
    rng, graph = np.random.default_rng(11), LimbDigraph(4)
    times = []
    for k in range(SOLVES):
        goal = ('translation', 'rotation')[k % 2]
        alpha = tuple(rng.uniform(-1, 1, 2 if goal == 'translation' else 1))
        problem = GaitProblem(weights, graph)
        start = time.perf_counter()
        problem.solve(Objective(goal, alpha, BETA, GAMMA, EPS))
        times.append(time.perf_counter() - start)
    return times


def sweep(weights: EdgeWeights) -> dict:
    start = time.perf_counter()
    result = lhs_sweep(
        GaitProblem(weights, LimbDigraph(4)), 'translation', BETA, GAMMA, EPS, workers=WORKERS
    )
    return {
        'wall_s': round(time.perf_counter() - start, 2),
        'distinct_gaits': len(result.gaits),
        'unresolved': result.unresolved,
    }


def backend_times(n_limbs: int, backend: str) -> dict:
    """p50 and max (s) of BACKEND_SOLVES translation solves on the whiteboard substrate, fresh
    problems."""
    weights, graph = substrate_weights('whiteboard', n_limbs, seed=1), LimbDigraph(n_limbs)
    rng, times = np.random.default_rng(19), []
    for _ in range(BACKEND_SOLVES):
        objective = Objective('translation', tuple(rng.uniform(-1, 1, 2)), BETA, GAMMA, EPS)
        start = time.perf_counter()
        GaitProblem(weights, graph, backend).solve(objective)
        times.append(time.perf_counter() - start)
    return {'p50_s': round(float(np.median(times)), 3), 'max_s': round(max(times), 3)}


def backends() -> dict:
    whiteboard = substrate_weights('whiteboard', 4, seed=0)
    out = {}
    for backend in ('highs', 'cpsat'):
        out[backend] = {'iv': backend_times(4, backend), 'five_limbs': backend_times(5, backend)}
    for backend in ('highs', 'cpsat', 'auto'):
        start = time.perf_counter()
        lhs_sweep(
            GaitProblem(whiteboard, LimbDigraph(4), backend),
            'translation',
            BETA,
            GAMMA,
            EPS,
            workers=WORKERS,
        )
        out.setdefault('iv_sweep_wall_s', {})[backend] = round(time.perf_counter() - start, 2)
    out['iv_sweep_auto_over_highs'] = round(
        out['iv_sweep_wall_s']['auto'] / out['iv_sweep_wall_s']['highs'], 3
    )
    return out


def figures(times: list[float], sweeps: dict) -> dict:
    return {
        'solve_p50_ms': round(1e3 * float(np.median(times)), 1),
        'solve_max_ms': round(1e3 * max(times), 1),
        'sweep_wall_s': max(s['wall_s'] for s in sweeps.values()),
        'sweeps': sweeps,
    }


def main() -> None:
    presets = {name: substrate_weights(name, 4, seed=0) for name in PRESETS}
    times = [t for weights in presets.values() for t in solve_times(weights)]
    result = figures(times, {name: sweep(weights) for name, weights in presets.items()})
    stress = unstructured()
    result['unstructured'] = figures(solve_times(stress), {'iid_gaussian': sweep(stress)})
    result['backends'] = b = backends()
    result.update(
        {
            'workers': WORKERS,
            'cpu_count': os.cpu_count(),
            'scipy': scipy.__version__,
            'ortools': ortools.__version__,
            'targets': TARGETS,
        }
    )
    result['met'] = {
        'solve_p50_ms': result['solve_p50_ms'] < TARGETS['solve_p50_ms'],
        'sweep_wall_s': result['sweep_wall_s'] <= TARGETS['sweep_wall_s'],
        'iv_max_s': b['cpsat']['iv']['max_s'] < TARGETS['iv_max_s'],
        'five_limbs_max_s': b['cpsat']['five_limbs']['max_s'] < TARGETS['five_limbs_max_s'],
        'iv_sweep_no_slower': b['iv_sweep_auto_over_highs'] <= SWEEP_NOISE,
    }
    print(json.dumps(result))


if __name__ == '__main__':
    main()
