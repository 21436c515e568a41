"""The second exact backend of gait synthesis: OR-Tools CP-SAT, whose circuit constraint says "one simple cycle
over a subset of the states" directly, so no cut loop is needed (``GaitProblem.solve`` picks it per call).

CP-SAT is an integer solver; costs c and tolerance rows are real. Exactness comes from a verification step, not
from the rounding. Costs are scaled by a power of two S and rounded, ĉ_e = round(S c_e), so |S c_e - ĉ_e| ≤ ½ and
a cycle g of len(g) ≤ n edges has |S J(g) - Ĵ(g)| ≤ n/2. Tolerance rows are scaled by T the same way and relaxed
by n/2 (|Θ̂z| ≤ T ε + n/2), so every cycle that meets the real tolerance meets the integer one.
 1. Minimise Ĵ under the relaxed rows; a cycle that misses the real tolerance is excluded (no-good) and the
    model solved again, until the optimum f meets it (or nothing is left: no cycle meets it).
 2. Every cycle g meeting the real tolerance with J(g) ≤ J(f) has Ĵ(g) ≤ S J(g) + n/2 ≤ S J(f) + n/2
    ≤ Ĵ(f) + n: listing the cycles with Ĵ ≤ Ĵ(f) + n under the relaxed rows and taking the least real J among
    those meeting the real tolerance is the exact optimum (ties: the smaller canonical vertex list).
Where this cannot be carried out — more than MAX_CANDIDATES cycles in that band (a plateau of equal costs), or
more than the iteration limit of step 1 — ``CannotVerify`` sends the caller back to HiGHS.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from terresoro_gait.digraph import LimbDigraph, canonical

INTEGER_LIMIT = 2 ** 30      # largest |scaled coefficient|: sums over a cycle stay far inside int64
MAX_CANDIDATES = 64          # cycles listed in step 2 before giving up to HiGHS
FIRST_LOOK_S = 0.8           # first_look: time for the search among the edges the LP relaxation likes best
FIRST_LOOK_SHARE = 0.15      # ... the share of the edges it searches: the lowest J_LP + r_e
WORKERS = 2                  # CP-SAT's portfolio: 2 measured best on 2 cores, 4 and 8 slower (bench/terresoro.py)


class CannotVerify(RuntimeError):
    """The integer model could not be shown to give the real optimum here: solve with HiGHS instead."""


class NoCycle(RuntimeError):
    """No simple cycle meets the tolerance (after the exclusions)."""


def scale(values: np.ndarray) -> int:
    """The power of two S with max |S v| ≤ INTEGER_LIMIT (1 for all-zero values)."""
    largest = float(np.abs(values).max(initial=0.0))
    return 1 if largest == 0 else 2 ** math.floor(math.log2(INTEGER_LIMIT / largest))


@dataclass(frozen=True)
class Found:
    cycle: tuple[int, ...]
    solves: int      # CP-SAT solves it took


class CircuitModel:
    """One synthesis problem as CP-SAT sees it: a literal per edge, a circuit over the states it visits.

    Args:
        graph: the limb-state digraph (complete or pruned).
        cost: c (m,) to minimise over cycle vectors z.
        motion: the tolerance rows (r, m), |motion z| ≤ eps componentwise.
        exclude: cycles that may not be the answer (k-best).
        keep: bool (m,), False for edges that no cycle as cheap as a known feasible one uses (exact reduced-cost
            fixing, GaitProblem._columns_to_keep): every cycle of steps 1 and 2 costs at most that much.
        hint: a feasible cycle to start the search from.
    """

    def __init__(self, graph: LimbDigraph, cost: np.ndarray, motion: np.ndarray, eps: float,
                 exclude: list[tuple[int, ...]] = (), keep: np.ndarray | None = None,
                 hint: tuple[int, ...] | None = None):
        self.graph, self.cost, self.motion, self.eps = graph, cost, motion, eps
        self.n = graph.n
        self.cost_scale, self.motion_scale = scale(cost), scale(motion)
        self.scaled_cost = np.round(cost * self.cost_scale).astype(np.int64)
        self.model = cp_model.CpModel()
        self.z = [self.model.new_bool_var(f'z{k}') for k in range(graph.m)]
        self._circuit()
        bound = math.floor(self.motion_scale * eps + self.n / 2)
        for row in np.round(motion * self.motion_scale).astype(np.int64):
            self.model.add_linear_constraint(self._sum(row), -bound, bound)        # relaxed: see the module
        self.model.add(sum(self.z) >= 2)                                             # not the empty cycle
        if keep is not None:
            self._fix(keep)
        for cycle in exclude:
            self._exclude(cycle)
        if hint is not None:
            for k, on in enumerate(graph.cycle_vector(hint)):
                self.model.add_hint(self.z[k], bool(on))

    def solve(self, max_iterations: int, refix: Callable[[float], np.ndarray] | None = None) -> Found:
        """The exact optimum (module steps 1 and 2); raises NoCycle or CannotVerify. ``refix(U)``, when given, is
        the keep mask for cycles costing at most U: step 2 needs only those as cheap as step 1's answer."""
        solves = 0
        objective = self._sum(self.scaled_cost)
        self.model.minimize(objective)
        while True:                                         # step 1
            solves += 1
            if solves > max_iterations:
                raise CannotVerify(f'no cycle meeting the real tolerance within {max_iterations} solves')
            first = self._run()
            if first is None:
                raise NoCycle('no simple cycle meets the tolerance')
            if self._meets_tolerance(first):
                break
            self._exclude(first)
        # step 2: every cycle in the band, cheapest first (minimising still: its bounds prune the band faster)
        self.model.add(objective <= int(self.scaled_cost @ self.graph.cycle_vector(first)) + self.n)
        if refix is not None:
            self._fix(refix(float(self.cost @ self.graph.cycle_vector(first))))
        candidates = [first]
        self._exclude(first)
        while (cycle := self._run()) is not None:
            solves += 1
            if len(candidates) == MAX_CANDIDATES:
                raise CannotVerify(f'more than {MAX_CANDIDATES} cycles within the rounding band of the optimum')
            candidates.append(cycle)
            self._exclude(cycle)
        feasible = [c for c in candidates if self._meets_tolerance(c)]
        best = min(feasible, key=lambda c: (float(self.cost @ self.graph.cycle_vector(c)), c))
        return Found(best, solves + 1)

    def _circuit(self) -> None:
        """AddCircuit over the states numbered 0..n-1; a skipped state is a self-loop literal."""
        index = {v: k for k, v in enumerate(self.graph.vertices)}
        arcs = [(index[int(i)], index[int(j)], self.z[k]) for k, (i, j) in enumerate(self.graph.edges)]
        arcs += [(k, k, self.model.new_bool_var(f'skip{v}')) for v, k in index.items()]
        self.model.add_circuit(arcs)

    def _fix(self, keep: np.ndarray) -> None:
        """z_e = 0 where ``keep`` is False (reduced-cost fixing: no cycle as cheap as a known one uses e)."""
        for k in np.flatnonzero(~keep):
            self.model.add(self.z[k] == 0)

    def _sum(self, coefficients: np.ndarray):
        return cp_model.LinearExpr.weighted_sum(self.z, [int(a) for a in coefficients])

    def _exclude(self, cycle: tuple[int, ...]) -> None:
        """No-good: not every edge of ``cycle`` (a simple cycle never strictly contains another one)."""
        edges = self.graph.cycle_edges(cycle)
        self.model.add(sum(self.z[k] for k in edges) <= len(edges) - 1)

    def _meets_tolerance(self, cycle: tuple[int, ...]) -> bool:
        return bool(np.all(np.abs(self.motion @ self.graph.cycle_vector(cycle)) <= self.eps))

    def _run(self, time_limit_s: float = 0.0) -> tuple[int, ...] | None:
        """The model's best cycle (optimal unless ``time_limit_s`` > 0 cut the search short), None if it has none;
        with a time limit also None when nothing was found in time."""
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = WORKERS
        if time_limit_s > 0:
            solver.parameters.max_time_in_seconds = time_limit_s
        status = solver.solve(self.model)
        if status == cp_model.INFEASIBLE or (time_limit_s > 0 and status == cp_model.UNKNOWN):
            return None
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise CannotVerify(f'CP-SAT stopped with status {solver.status_name(status)}')
        z = np.array([solver.value(v) for v in self.z])
        cycles = self.graph.cycles_of(z)
        if len(cycles) != 1:        # the circuit constraint admits one cycle only: a guard, not a path
            raise CannotVerify(f'CP-SAT returned {len(cycles)} cycles')
        return canonical(cycles[0])


def first_look(graph: LimbDigraph, cost: np.ndarray, motion: np.ndarray, eps: float,
               exclude: list[tuple[int, ...]], among: np.ndarray) -> tuple[int, ...] | None:
    """A good cycle meeting the tolerance, searched for FIRST_LOOK_S among the edges ``among`` only (bool (m,)):
    not an answer, an upper bound that lets reduced-cost fixing shrink the exact model. None if none was found."""
    model = CircuitModel(graph, cost, motion, eps, exclude, among)
    model.model.minimize(model._sum(model.scaled_cost))
    cycle = model._run(time_limit_s=FIRST_LOOK_S)
    return cycle if cycle is not None and model._meets_tolerance(cycle) else None
