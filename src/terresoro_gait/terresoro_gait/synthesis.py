"""Gait synthesis by binary integer linear programming (paper section V-B; spec 5.3-5.8), exact
with HiGHS.

BILP (28), translation: min (α_tᵀP + β S_p + γ 1) z
                        s.t. |Θz| ≤ ε_θ, Bz = 0, B^i z ≤ 1, 1ᵀz ≥ 2, z binary.
BILP (29), rotation:    min (α_θ Θ + β S_θ + γ 1) z
                        s.t. |Pz| ≤ ε_t (componentwise, spec A5), the same rest.
1ᵀz ≥ 2 excludes z = 0 (spec A3). The linear constraints admit unions of disjoint cycles; the
paper's detection step finds them and a cut removes the solution (spec 5.5). Two kinds of cut are
added, both valid for every simple cycle, so the optimum over simple cycles is exact:
- the paper's no-good cut on the whole support, Σ_{e ∈ supp z} z_e ≤ |supp z| - 1 (a simple cycle
  never strictly contains another cycle; a per-component subtour cut would be wrong, spec Test B);
- connectivity cuts, added lazily beside them: for a component S of a disjoint solution and
  vertices i ∈ S, j ∉ S, a single cycle through both must leave S: Σ_{e ∈ δ⁺(S)} z_e ≥ y_i + y_j -
  1, with y = B^i z.
Speed, still exact: each BILP runs only on the edges that reduced-cost fixing cannot exclude,
against the best known simple cycle meeting the tolerance (terresoro_gait.cycle_bounds). The
Latin-hypercube sweep of α is in terresoro_gait.sweep.

A second exact backend, CP-SAT's circuit constraint (terresoro_gait.cpsat), needs no cut loop and
has a shorter tail on 16 states and more; ``backend='auto'`` takes it there and HiGHS below, and
HiGHS wherever CP-SAT does not settle the optimum within the iteration limit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from terresoro_gait.cycle_bounds import KnownCycles, edges_to_keep, lp_edge_bounds, merged_cycles
from terresoro_gait.digraph import LimbDigraph, canonical
from terresoro_gait.objective import Objective
from terresoro_gait.weights import EdgeWeights

BACKENDS = ('auto', 'highs', 'cpsat')
# 'auto' takes CP-SAT from TerreSoRo-IV's 16 states up (bench/terresoro.py)
AUTO_CPSAT_STATES = 16
MAX_ITERATIONS = 50  # the paper's L
# k-best gaits in one request: each costs a full solve, up to seconds on TerreSoRo-IV
MAX_K_BEST = 50


class SynthesisInfeasible(RuntimeError):
    """No simple cycle meets the motion tolerance (or the cut loop ran out of iterations)."""


class IterationLimit(SynthesisInfeasible):
    """The cut loop found no single cycle within its L iterations: no gait for this α (spec
    A12)."""


@dataclass(frozen=True)
class Solution:
    """A synthesized gait: the simple cycle of states, its cost J = c z in the weights' units, the
    solves it took and the backend that found it."""

    cycle: tuple[int, ...]  # canonical: from its smallest vertex
    cost: float
    iterations: int  # BILP (or CP-SAT) solves it took
    backend: str = 'highs'  # which solver found it


# 7 limbs: 128 states, 683,000 known 3-cycles kept sparse; 8 would be 5.5 million
MAX_LIMBS = 7


class GaitProblem:
    """One weighted graph (complete or pruned) and its constraint rows; solves any Objective
    exactly."""

    def __init__(self, weights: EdgeWeights, graph: LimbDigraph, backend: str = 'auto'):
        if graph.n > 2**MAX_LIMBS:
            # its 2- and 3-cycles, the bounds every solve starts from: 5.5 million at 8 limbs
            raise ValueError(
                f'{graph.n} states ({graph.n_limbs} limbs): gait synthesis takes at most '
                f'{2**MAX_LIMBS} ({MAX_LIMBS} limbs)'
            )
        self.graph, self.backend = graph, check_backend(backend)
        self.P, self.theta, self.sp, self.stheta = weights.on(graph)
        ones = np.ones(graph.m)
        self._structure = [
            LinearConstraint(graph.incidence, 0, 0),  # B z = 0
            LinearConstraint(graph.initial_matrix, 0, 1),  # B^i z ≤ 1
            LinearConstraint(ones[None, :], 2, np.inf),  # 1ᵀz ≥ 2: z ≠ 0
        ]
        self.cuts: list[LinearConstraint] = []  # valid for every objective: kept across solves
        # simple cycles seen so far: upper bounds for any objective
        self._known = KnownCycles(graph)

    def costs(self, objective: Objective) -> np.ndarray:
        """c (m,) with J = c z."""
        if objective.goal == 'translation':
            return (
                np.asarray(objective.alpha) @ self.P + objective.beta * self.sp + objective.gamma
            )
        return objective.alpha[0] * self.theta + objective.beta * self.stheta + objective.gamma

    def tolerance(self, objective: Objective) -> LinearConstraint:
        """The motion tolerance: |Θz| ≤ ε_θ for translation, |Pz| ≤ ε_t componentwise for
        rotation."""
        if objective.goal == 'translation':
            # |Θz| ≤ ε_θ
            return LinearConstraint(self.theta[None, :], -objective.eps, objective.eps)
        # |Pz| ≤ ε_t
        return LinearConstraint(self.P, -objective.eps, objective.eps)

    def solve(
        self,
        objective: Objective,
        exclude: list[tuple[int, ...]] = (),
        max_iterations: int = MAX_ITERATIONS,
        backend: str | None = None,
    ) -> Solution:
        """The simple cycle minimising the objective, except the cycles in ``exclude``, by
        ``backend`` (the problem's own when None)."""
        backend = check_backend(backend or self.backend)
        if backend == 'cpsat' or (backend == 'auto' and self.graph.n >= AUTO_CPSAT_STATES):
            solution = self._solve_cpsat(objective, exclude, max_iterations)
            if solution is not None:
                return solution
        return self._solve_highs(objective, exclude, max_iterations)

    def _solve_cpsat(
        self, objective: Objective, exclude: list[tuple[int, ...]], max_iterations: int
    ) -> Solution | None:
        """The optimum by CP-SAT, or None where its answer cannot be verified exact (HiGHS decides
        then)."""
        # ortools loads only when a solve needs it
        from terresoro_gait import cpsat

        c, motion = self.costs(objective), self._motion(objective)
        excluded = {canonical(tuple(g)) for g in exclude}
        fixed = [self.tolerance(objective)] + [
            self._no_good(self.graph.cycle_vector(g)) for g in exclude
        ]
        bounds = lp_edge_bounds(c, self._structure + fixed + self.cuts)

        def cost_of(cycle: tuple[int, ...]) -> float:
            return float(c @ self.graph.cycle_vector(cycle))

        hint = self._known.best_cycle(c, motion, objective.eps, excluded)
        upper = np.inf if hint is None else cost_of(hint)
        # a first look on the edges the LP likes best: a good cycle bounds the rest
        if bounds is not None:
            look = cpsat.first_look(
                self.graph,
                c,
                motion,
                objective.eps,
                list(exclude),
                bounds <= np.quantile(bounds, cpsat.FIRST_LOOK_SHARE),
            )
            if look is not None and cost_of(look) < upper:
                hint, upper = look, cost_of(look)
        keep = edges_to_keep(bounds, upper) if bounds is not None and np.isfinite(upper) else None
        refix = (lambda at_most: edges_to_keep(bounds, at_most)) if bounds is not None else None
        model = cpsat.CircuitModel(self.graph, c, motion, objective.eps, list(exclude), keep, hint)
        try:
            found = model.solve(max_iterations, refix=refix)
        except cpsat.NoCycle:
            raise SynthesisInfeasible(self._infeasible(objective)) from None
        except cpsat.CannotVerify:
            return None
        self._known.add([found.cycle])
        return Solution(found.cycle, cost_of(found.cycle), found.solves, 'cpsat')

    def _solve_highs(
        self, objective: Objective, exclude: list[tuple[int, ...]], max_iterations: int
    ) -> Solution:
        c = self.costs(objective)
        fixed = [self.tolerance(objective)] + [
            self._no_good(self.graph.cycle_vector(g)) for g in exclude
        ]
        excluded = {canonical(tuple(g)) for g in exclude}
        for iteration in range(1, max_iterations + 1):
            constraints = self._structure + fixed + self.cuts
            keep = self._columns_to_keep(c, constraints, objective, excluded)
            z = self._bilp(c, constraints, objective, keep)
            cycles = self.graph.cycles_of(z)
            self._known.add(
                cycles
                + merged_cycles(self.graph, cycles, c, self._motion(objective), objective.eps)
            )
            if len(cycles) == 1:
                return Solution(cycles[0], float(c @ np.round(z)), iteration)
            self.cuts.append(self._no_good(z))
            self.cuts.extend(self._connectivity_cuts(cycles))
        raise IterationLimit(f"no single cycle after {max_iterations} iterations (the paper's L)")

    def k_best(
        self,
        objective: Objective,
        k: int,
        progress: Callable[[int, int], None] | None = None,
        backend: str | None = None,
    ) -> list[Solution]:
        """The k best simple cycles in order of cost (fewer if fewer exist), by no-good cuts on
        each one found; 1 <= k <= MAX_K_BEST. ``progress(found, k)`` is called after each."""
        if not 1 <= k <= MAX_K_BEST:
            raise ValueError(f'k = {k}: allowed range is [1, {MAX_K_BEST}]')
        found: list[Solution] = []
        for _ in range(k):
            try:
                found.append(
                    self.solve(objective, exclude=[s.cycle for s in found], backend=backend)
                )
            except SynthesisInfeasible:
                if not found:
                    raise
                break
            if progress:
                progress(len(found), k)
        return found

    def _bilp(
        self, c: np.ndarray, constraints: list, objective: Objective, keep: np.ndarray
    ) -> np.ndarray:
        """z (m,) minimising c z over the columns ``keep`` (bool (m,)); the others are fixed at
        0."""
        result = self._milp_on(c, constraints, keep)
        if result.status == 2 and not keep.all():
            # cannot happen (the known cycle bounding the fixing uses only kept edges): a guard,
            # not a path
            result = self._milp_on(c, constraints, np.ones_like(keep))
        if result.status == 2:
            raise SynthesisInfeasible(self._infeasible(objective))
        if result.x is None:
            raise SynthesisInfeasible(f'the BILP solver stopped: {result.message}')
        z = np.zeros(self.graph.m)
        z[keep] = result.x
        return z

    def _milp_on(self, c: np.ndarray, constraints: list, keep: np.ndarray):
        restricted = [
            LinearConstraint(np.atleast_2d(k.A)[:, keep], k.lb, k.ub) for k in constraints
        ]
        return milp(
            c[keep],
            constraints=restricted,
            integrality=np.ones(int(keep.sum())),
            bounds=Bounds(0, 1),
            options={'mip_rel_gap': 0.0},
        )

    def _columns_to_keep(
        self,
        c: np.ndarray,
        constraints: list,
        objective: Objective,
        excluded: set[tuple[int, ...]],
    ) -> np.ndarray:
        """Reduced-cost fixing, exact: bool (m,), False for edges no cycle costing at most the best
        known feasible simple cycle can use. With the LP relaxation's optimum J_LP and reduced cost
        r_e ≥ 0 of an edge at its lower bound, every z of the relaxation with z_e = 1 costs at
        least J_LP + r_e (LP duality); if that exceeds the cost U of a known simple cycle meeting
        the tolerance, the optimum (≤ U) has z_e = 0."""
        everything = np.ones(self.graph.m, dtype=bool)
        upper = self._known.best(c, self._motion(objective), objective.eps, excluded)
        if not np.isfinite(upper):
            return everything
        bounds = lp_edge_bounds(c, constraints)
        return everything if bounds is None else edges_to_keep(bounds, upper)

    @staticmethod
    def _infeasible(objective: Objective) -> str:
        what = (
            'rotation |Θz| ≤ ε_θ' if objective.goal == 'translation' else 'translation |Pz| ≤ ε_t'
        )
        return f'no simple cycle meets the {what} with eps = {objective.eps:g}'

    def _motion(self, objective: Objective) -> np.ndarray:
        """The rows the tolerance bounds: Θ (1, m) for translation, P (2, m) for rotation."""
        return self.theta[None, :] if objective.goal == 'translation' else self.P

    def _no_good(self, z: np.ndarray) -> LinearConstraint:
        support = np.round(z) > 0
        return LinearConstraint(support[None, :].astype(float), -np.inf, support.sum() - 1)

    def _connectivity_cuts(self, cycles: list[tuple[int, ...]]) -> list[LinearConstraint]:
        edges, out = self.graph.edges, self.graph.initial_matrix
        row = {v: r for r, v in enumerate(self.graph.vertices)}
        cuts = []
        for inside in cycles:
            leaving = np.isin(edges[:, 0], inside) & ~np.isin(edges[:, 1], inside)
            for other in cycles:
                if other is inside:
                    continue
                # Σ_{δ⁺(S)} z - y_i - y_j ≥ -1 with i, j the first vertices of the two components
                a = leaving.astype(float) - out[row[inside[0]]] - out[row[other[0]]]
                cuts.append(LinearConstraint(a[None, :], -1, np.inf))
        return cuts


def check_backend(backend: str) -> str:
    """``backend`` if it is one of BACKENDS; ValueError naming them otherwise."""
    if backend not in BACKENDS:
        raise ValueError(f'backend = {backend!r}: allowed values are {", ".join(BACKENDS)}')
    return backend
