"""The second exact backend of gait synthesis: OR-Tools CP-SAT, whose circuit constraint says "one
simple cycle over a subset of the states" directly, so no cut loop is needed (``GaitProblem.solve``
picks it per call).

CP-SAT is an integer solver; costs c and tolerance rows are real. The model is exact by
construction of its objective, not by the fineness of the rounding. Costs are scaled by a power of
two S (so S c_e is exact) and the model charges a cycle g

    Ĵ'(g) = Σ_{e ∈ g} ⌊S c_e⌋    for g outside the candidate set C: at most S J(g),
    Ĵ'(h) = Σ_{e ∈ h} ⌈S c_e⌉    for h in C (a penalty literal y_h ⇔ every edge of h):
                                  at least S J(h).

C holds cycles meeting the real tolerance, starting from the hint. If the model's optimum r is in
C, then for every cycle g outside it S J(g) ≥ Ĵ'(g) ≥ Ĵ'(r) ≥ S J(r): the cheapest member of C in
real arithmetic is the exact optimum (a cycle outside C can at most tie with it). If r is outside C
it joins C (or, missing the real tolerance, is excluded by a no-good) and the model is solved
again. Tolerance rows are scaled by T the same way and relaxed by n/2 (|Θ̂z| ≤ T ε + n/2), so every
cycle meeting the real tolerance meets the integer one. With a good hint (``first_look``) one solve
usually settles it; more than the iteration limit raises ``CannotVerify`` and the caller solves
with HiGHS instead.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from soro_node.arguments import cores
from terresoro_gait.digraph import LimbDigraph, canonical

# largest |scaled coefficient|: sums over a cycle stay far inside int64
INTEGER_LIMIT = 2**30
# first_look: time for the search among the edges the LP relaxation likes best
FIRST_LOOK_S = 0.8
FIRST_LOOK_SHARE = 0.15  # ... the share of the edges it searches: the lowest J_LP + r_e
# CP-SAT's portfolio: 2 measured best on 2 idle cores, 4 and 8 slower (bench/terresoro.py)
WORKERS = 2


def portfolio_workers(usable_cores: int | None = None, load: float | None = None) -> int:
    """CP-SAT's portfolio size for the cores free now: WORKERS on an idle machine, fewer when other
    work holds the cores (``usable_cores`` this process may run on, less the 1-minute ``load``
    average; both read when not given). Two portfolio threads that share the cores with other
    processes wait on each other: five limbs at load 2.7 on 2 cores took up to 3.0 s with 2 workers
    and 1.5 s with 1."""
    usable = cores() if usable_cores is None else usable_cores
    load = os.getloadavg()[0] if load is None else load
    return max(1, min(WORKERS, round(usable - load)))


class CannotVerify(RuntimeError):
    """The integer model could not be shown to give the real optimum here: solve with HiGHS
    instead."""


class NoCycle(RuntimeError):
    """No simple cycle meets the tolerance (after the exclusions)."""


def scale(values: np.ndarray) -> int:
    """The power of two S with max |S v| ≤ INTEGER_LIMIT (1 for all-zero values)."""
    largest = float(np.abs(values).max(initial=0.0))
    return 1 if largest == 0 else 2 ** math.floor(math.log2(INTEGER_LIMIT / largest))


@dataclass(frozen=True)
class Found:
    """The exact optimum, written from its smallest vertex, and the CP-SAT solves it took."""

    cycle: tuple[int, ...]
    solves: int  # CP-SAT solves it took


class CircuitModel:
    """One synthesis problem as CP-SAT sees it: a literal per edge, a circuit over the states it
    visits.

    Args:
        graph: the limb-state digraph (complete or pruned).
        cost: c (m,) to minimise over cycle vectors z.
        motion: the tolerance rows (r, m), |motion z| ≤ eps componentwise.
        exclude: cycles that may not be the answer (k-best).
        keep: bool (m,), False for edges that no cycle as cheap as a known feasible one uses
            (exact reduced-cost fixing, GaitProblem._columns_to_keep): no cycle that could beat
            it is lost.
        hint: a cycle to start the search from; the first candidate when it meets the real
            tolerance.
    """

    def __init__(
        self,
        graph: LimbDigraph,
        cost: np.ndarray,
        motion: np.ndarray,
        eps: float,
        exclude: list[tuple[int, ...]] = (),
        keep: np.ndarray | None = None,
        hint: tuple[int, ...] | None = None,
    ):
        self.graph, self.cost, self.motion, self.eps = graph, cost, motion, eps
        self.n = graph.n
        scaled = cost * scale(cost)  # exact: a power of two
        self.floor_cost, self.ceil_cost = (
            np.floor(scaled).astype(np.int64),
            np.ceil(scaled).astype(np.int64),
        )
        self.model = cp_model.CpModel()
        self.z = [self.model.new_bool_var(f'z{k}') for k in range(graph.m)]
        # C: cycles meeting the real tolerance
        self.candidates: list[tuple[int, ...]] = []
        # (K_h, y_h) for each h in C
        self._penalties: list = []
        self._circuit()
        motion_scale = scale(motion)
        bound = math.floor(motion_scale * eps + self.n / 2)
        for row in np.round(motion * motion_scale).astype(np.int64):
            # relaxed: see the module
            self.model.add_linear_constraint(self._sum(row), -bound, bound)
        # not the empty cycle
        self.model.add(sum(self.z) >= 2)
        if keep is not None:
            self._fix(keep)
        for cycle in exclude:
            self._exclude(cycle)
        self.hint = None if hint is None else canonical(tuple(hint))
        if hint is not None:
            for k, on in enumerate(graph.cycle_vector(hint)):
                self.model.add_hint(self.z[k], bool(on))

    def solve(
        self, max_iterations: int, refix: Callable[[float], np.ndarray] | None = None
    ) -> Found:
        """The exact optimum (see the module); raises NoCycle or CannotVerify. ``refix(U)``, when
        given, is the keep mask for cycles costing at most U: only those can beat the best
        candidate."""
        if self.hint is not None and self._meets_tolerance(self.hint):
            self._penalise(self.hint)
        for solves in range(1, max_iterations + 1):
            self.model.minimize(self._objective())
            cycle = self._run()
            # the cheapest candidate keeps its edges: a guard, not a path
            if cycle is None and self.candidates:
                raise CannotVerify('CP-SAT lost every candidate')
            if cycle is None:
                raise NoCycle('no simple cycle meets the tolerance')
            if cycle in self.candidates:
                return Found(min(self.candidates, key=lambda c: (self.real_cost(c), c)), solves)
            if not self._meets_tolerance(cycle):
                self._exclude(cycle)
                continue
            self._penalise(cycle)
            if refix is not None:
                self._fix(refix(min(self.real_cost(c) for c in self.candidates)))
        raise CannotVerify(f'no exact optimum within {max_iterations} CP-SAT solves')

    def real_cost(self, cycle: tuple[int, ...]) -> float:
        """J = c z of ``cycle`` in real arithmetic (unscaled, unrounded): what ranks candidates."""
        return float(self.cost @ self.graph.cycle_vector(cycle))

    def _objective(self):
        """Ĵ': rounded-down edge costs, plus K_h y_h for each candidate h (module)."""
        literals = self.z + [y for _, y in self._penalties]
        return cp_model.LinearExpr.weighted_sum(
            literals, [int(a) for a in self.floor_cost] + [k for k, _ in self._penalties]
        )

    def _penalise(self, cycle: tuple[int, ...]) -> None:
        """Make ``cycle`` a candidate, charged its rounded-up cost: K = Σ (⌈S c_e⌉ - ⌊S c_e⌋) over
        its edges on y ≥ Σ z_e - |cycle| + 1, so y is 1 exactly when every edge is (minimising
        keeps it 0 otherwise)."""
        edges = self.graph.cycle_edges(cycle)
        y = self.model.new_bool_var(f'candidate{len(self.candidates)}')
        self.model.add(sum(self.z[k] for k in edges) - len(edges) + 1 <= y)
        self._penalties.append((int((self.ceil_cost[edges] - self.floor_cost[edges]).sum()), y))
        self.candidates.append(cycle)
        if cycle == self.hint:
            self.model.add_hint(y, True)

    def _circuit(self) -> None:
        """AddCircuit over the states numbered 0..n-1; a skipped state is a self-loop literal."""
        index = {v: k for k, v in enumerate(self.graph.vertices)}
        arcs = [
            (index[int(i)], index[int(j)], self.z[k]) for k, (i, j) in enumerate(self.graph.edges)
        ]
        arcs += [(k, k, self.model.new_bool_var(f'skip{v}')) for v, k in index.items()]
        self.model.add_circuit(arcs)

    def _fix(self, keep: np.ndarray) -> None:
        """z_e = 0 where ``keep`` is False (reduced-cost fixing: no cycle as cheap as a known one
        uses e)."""
        for k in np.flatnonzero(~keep):
            self.model.add(self.z[k] == 0)

    def _sum(self, coefficients: np.ndarray):
        return cp_model.LinearExpr.weighted_sum(self.z, [int(a) for a in coefficients])

    def _exclude(self, cycle: tuple[int, ...]) -> None:
        """No-good: not every edge of ``cycle`` (a simple cycle never strictly contains another
        one)."""
        edges = self.graph.cycle_edges(cycle)
        self.model.add(sum(self.z[k] for k in edges) <= len(edges) - 1)

    def _meets_tolerance(self, cycle: tuple[int, ...]) -> bool:
        return bool(np.all(np.abs(self.motion @ self.graph.cycle_vector(cycle)) <= self.eps))

    def _run(self, time_limit_s: float = 0.0) -> tuple[int, ...] | None:
        """The model's best cycle (optimal unless ``time_limit_s`` > 0 cut the search short), None
        if it has none; with a time limit also None when nothing was found in time."""
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = portfolio_workers()
        # Ctrl-C is the command's (it unwinds and ends): OR-Tools would swallow it and go on
        solver.parameters.catch_sigint_signal = False
        if time_limit_s > 0:
            solver.parameters.max_time_in_seconds = time_limit_s
        status = solver.solve(self.model)
        if status == cp_model.INFEASIBLE or (time_limit_s > 0 and status == cp_model.UNKNOWN):
            return None
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE) or (
            time_limit_s == 0 and status != cp_model.OPTIMAL
        ):
            raise CannotVerify(f'CP-SAT stopped with status {solver.status_name(status)}')
        z = np.array([solver.value(v) for v in self.z])
        cycles = self.graph.cycles_of(z)
        # the circuit constraint admits one cycle only: a guard, not a path
        if len(cycles) != 1:
            raise CannotVerify(f'CP-SAT returned {len(cycles)} cycles')
        return canonical(cycles[0])


def first_look(
    graph: LimbDigraph,
    cost: np.ndarray,
    motion: np.ndarray,
    eps: float,
    exclude: list[tuple[int, ...]],
    among: np.ndarray,
) -> tuple[int, ...] | None:
    """A good cycle meeting the tolerance, searched for FIRST_LOOK_S among the edges ``among`` only
    (bool (m,)): not an answer, an upper bound that lets reduced-cost fixing shrink the exact
    model. None if none was found."""
    model = CircuitModel(graph, cost, motion, eps, exclude, among)
    model.model.minimize(model._objective())
    cycle = model._run(time_limit_s=FIRST_LOOK_S)
    return cycle if cycle is not None and model._meets_tolerance(cycle) else None
