"""The Latin-hypercube sweep of α (paper V-B; spec 5.4): N exact solves over directions of motion,
the distinct gaits they give, and which α produced each."""

from __future__ import annotations

import copy
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np
from scipy.stats import qmc

from terresoro_gait.synthesis import (
    MAX_ITERATIONS,
    GaitProblem,
    IterationLimit,
    Objective,
    Solution,
)

LHS_SAMPLES = 100  # the paper's N
MAX_SAMPLES = 10_000  # one sweep: about 15 minutes on TerreSoRo-IV with two cores
# Neighbouring α directions tend to share their optimum, whose cycle then bounds the next solve
# tightly for the reduced-cost fixing; cuts and cycles carried from distant directions only slow
# HiGHS. On the bench, arcs of 10 rows, each on a fresh copy of the problem, beat one problem per
# process (IV: 10 s against 13.5 s, 2 cores).
ARC_ROWS = 10
# Workers come from a fork server, a single-threaded process that has imported the solver once:
# forking the caller itself is unsafe when it runs threads, as a ROS node does.
_WORKERS = multiprocessing.get_context('forkserver')
_WORKERS.set_forkserver_preload(['terresoro_gait.synthesis'])


@dataclass
class GaitSweepResult:
    """What one α sweep found: the distinct gaits, the α samples behind each, the unresolved."""

    gaits: list[Solution]  # distinct gaits, in order of first discovery
    alphas: list[list[tuple]]  # per gait, the α samples that produced it
    # α samples with no single cycle within the iteration limit (spec A12)
    unresolved: int


def lhs_sweep(
    problem: GaitProblem,
    goal: str,
    beta: float,
    gamma: float,
    eps: float,
    samples: int = LHS_SAMPLES,
    max_iterations: int = MAX_ITERATIONS,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> GaitSweepResult:
    """Spec 5.4: α = 2h - 1 over a Latin hypercube h ∈ [0, 1]^M (M = 2 translation, 1 rotation) of
    ``samples`` rows, each solved exactly; gaits de-duplicated by their canonical vertex list,
    listed in row order. The rows, in order of α's direction, are cut into arcs of ARC_ROWS, each
    solved on its own copy of ``problem`` (which is left unchanged), in ``workers`` processes.
    ``progress(rows_done, samples)`` is called after each arc; an exception it raises stops the
    sweep (arcs not started are dropped). Raises SynthesisInfeasible when the tolerance admits no
    cycle."""
    hypercube = qmc.LatinHypercube(d=2 if goal == 'translation' else 1, seed=seed).random(samples)
    alphas = [tuple(float(a) for a in 2 * h - 1) for h in hypercube]
    order = sorted(
        range(samples),
        key=lambda r: (
            np.arctan2(alphas[r][1], alphas[r][0]) if len(alphas[r]) == 2 else alphas[r][0]
        ),
    )
    arcs = [[(r, alphas[r]) for r in order[k : k + ARC_ROWS]] for k in range(0, samples, ARC_ROWS)]
    jobs = [(problem, goal, beta, gamma, eps, arc, max_iterations) for arc in arcs]
    solved, report = {}, progress or (lambda done, total: None)
    if workers <= 1:
        for job in jobs:
            solved.update(_solve_rows(copy.deepcopy(job[0]), *job[1:]))
            report(len(solved), samples)
        return _collect(alphas, solved)
    with ProcessPoolExecutor(min(workers, len(arcs)), mp_context=_WORKERS) as pool:
        # each job unpickles its own copy
        futures = [pool.submit(_solve_rows, *job) for job in jobs]
        try:
            for future in as_completed(futures):
                solved.update(future.result())
                report(len(solved), samples)
        finally:
            for future in futures:
                future.cancel()
    return _collect(alphas, solved)


def sweep_backend(backend: str) -> str:
    """'auto' in a sweep is HiGHS: neighbouring α share cuts and known cycles along an arc, which
    only the HiGHS backend reuses (TerreSoRo-IV's N = 100 sweep: 6.2-6.8 s with HiGHS, 6.6-7.4 s
    with CP-SAT, bench/terresoro.py)."""
    return 'highs' if backend == 'auto' else backend


def _solve_rows(
    problem: GaitProblem,
    goal: str,
    beta: float,
    gamma: float,
    eps: float,
    rows: list[tuple[int, tuple]],
    max_iterations: int,
) -> dict:
    """{row: Solution, or None when the cut loop ran out} for (row, α) pairs, solved in turn on
    ``problem``."""
    solved, backend = {}, sweep_backend(problem.backend)
    for row, alpha in rows:
        try:
            solved[row] = problem.solve(
                Objective(goal, alpha, beta, gamma, eps),
                max_iterations=max_iterations,
                backend=backend,
            )
        except IterationLimit:
            solved[row] = None
    return solved


def _collect(alphas: list[tuple], solved: dict) -> GaitSweepResult:
    """The sweep's result from every row's solution, in row order."""
    result = GaitSweepResult([], [], 0)
    index: dict[tuple[int, ...], int] = {}
    for row, alpha in enumerate(alphas):
        solution = solved[row]
        if solution is None:
            result.unresolved += 1
            continue
        if solution.cycle not in index:
            index[solution.cycle] = len(result.gaits)
            result.gaits.append(solution)
            result.alphas.append([])
        result.alphas[index[solution.cycle]].append(alpha)
    return result
