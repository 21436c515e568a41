"""Gait synthesis by binary integer linear programming (paper section V-B; spec 5.3-5.8), exact with HiGHS.

BILP (28), translation: min (α_tᵀP + β S_p + γ 1) z  s.t. |Θz| ≤ ε_θ, Bz = 0, B^i z ≤ 1, 1ᵀz ≥ 2, z binary.
BILP (29), rotation:    min (α_θ Θ + β S_θ + γ 1) z  s.t. |Pz| ≤ ε_t (componentwise, spec A5), the same rest.
1ᵀz ≥ 2 excludes z = 0 (spec A3). The linear constraints admit unions of disjoint cycles; the paper's detection
step finds them and a cut removes the solution (spec 5.5). Two kinds of cut are added, both valid for every simple
cycle, so the optimum over simple cycles is exact:
- the paper's no-good cut on the whole support, Σ_{e ∈ supp z} z_e ≤ |supp z| - 1 (a simple cycle never strictly
  contains another cycle; a per-component subtour cut would be wrong, spec Test B);
- connectivity cuts, added lazily beside them: for a component S of a disjoint solution and vertices i ∈ S,
  j ∉ S, a single cycle through both must leave S: Σ_{e ∈ δ⁺(S)} z_e ≥ y_i + y_j - 1, with y = B^i z.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.stats import qmc

from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.weights import EdgeWeights

GOALS = ('translation', 'rotation')
MAX_ITERATIONS = 50       # the paper's L
LHS_SAMPLES = 100         # the paper's N


class SynthesisInfeasible(RuntimeError):
    """No simple cycle meets the motion tolerance (or the cut loop ran out of iterations)."""


class IterationLimit(SynthesisInfeasible):
    """The cut loop found no single cycle within its L iterations: no gait for this α (spec A12)."""


@dataclass(frozen=True)
class Objective:
    """What to minimise, in the weights' units: alpha (2,) for translation (mm⁻¹) or (1,) for rotation (deg⁻¹);
    beta penalises variance, gamma length (per primitive); eps is ε_θ (deg) or ε_t (mm)."""
    goal: str
    alpha: tuple[float, ...]
    beta: float = 0.0
    gamma: float = 0.0
    eps: float = 1.0

    def __post_init__(self):
        if self.goal not in GOALS:
            raise ValueError(f'goal = {self.goal!r}: allowed values are {", ".join(GOALS)}')
        size = 2 if self.goal == 'translation' else 1
        if len(self.alpha) != size:
            raise ValueError(f'alpha: a {self.goal} goal takes {size} value(s), got {len(self.alpha)}')
        for name, value in (('alpha', max(map(abs, self.alpha))), ('beta', self.beta), ('gamma', self.gamma)):
            if not np.isfinite(value):
                raise ValueError(f'{name}: must be finite')
        if not (np.isfinite(self.eps) and self.eps >= 0):
            raise ValueError(f'eps = {self.eps!r}: must be finite and >= 0')


@dataclass(frozen=True)
class Solution:
    cycle: tuple[int, ...]      # canonical: from its smallest vertex
    cost: float
    iterations: int             # BILP solves it took


class GaitProblem:
    """One weighted graph (complete or pruned) and its constraint rows; solves any Objective exactly."""

    def __init__(self, weights: EdgeWeights, graph: LimbDigraph):
        self.graph = graph
        self.P, self.theta, self.sp, self.stheta = weights.on(graph)
        ones = np.ones(graph.m)
        self._structure = [LinearConstraint(graph.incidence, 0, 0),           # B z = 0
                           LinearConstraint(graph.initial_matrix, 0, 1),       # B^i z ≤ 1
                           LinearConstraint(ones[None, :], 2, np.inf)]        # z ≠ 0
        self.cuts: list[LinearConstraint] = []   # valid for every objective: kept across solves

    def costs(self, objective: Objective) -> np.ndarray:
        """c (m,) with J = c z."""
        if objective.goal == 'translation':
            return np.asarray(objective.alpha) @ self.P + objective.beta * self.sp + objective.gamma
        return objective.alpha[0] * self.theta + objective.beta * self.stheta + objective.gamma

    def tolerance(self, objective: Objective) -> LinearConstraint:
        if objective.goal == 'translation':
            return LinearConstraint(self.theta[None, :], -objective.eps, objective.eps)       # |Θz| ≤ ε_θ
        return LinearConstraint(self.P, -objective.eps, objective.eps)                          # |Pz| ≤ ε_t

    def solve(self, objective: Objective, exclude: list[tuple[int, ...]] = (),
              max_iterations: int = MAX_ITERATIONS) -> Solution:
        """The simple cycle minimising the objective, except the cycles in ``exclude``."""
        c = self.costs(objective)
        fixed = [self.tolerance(objective)] + [self._no_good(self.graph.cycle_vector(g)) for g in exclude]
        for iteration in range(1, max_iterations + 1):
            z = self._bilp(c, self._structure + fixed + self.cuts, objective)
            cycles = self.graph.cycles_of(z)
            if len(cycles) == 1:
                return Solution(cycles[0], float(c @ np.round(z)), iteration)
            self.cuts.append(self._no_good(z))
            self.cuts.extend(self._connectivity_cuts(cycles))
        raise IterationLimit(f'no single cycle after {max_iterations} iterations (the paper\'s L)')

    def k_best(self, objective: Objective, k: int) -> list[Solution]:
        """The k best simple cycles in order of cost (fewer if fewer exist), by no-good cuts on each one found."""
        found: list[Solution] = []
        for _ in range(k):
            try:
                found.append(self.solve(objective, exclude=[s.cycle for s in found]))
            except SynthesisInfeasible:
                if not found:
                    raise
                break
        return found

    def _bilp(self, c: np.ndarray, constraints: list, objective: Objective) -> np.ndarray:
        result = milp(c, constraints=constraints, integrality=np.ones(self.graph.m), bounds=Bounds(0, 1),
                      options={'mip_rel_gap': 0.0})
        if result.status == 2:
            what = 'rotation |Θz| ≤ ε_θ' if objective.goal == 'translation' else 'translation |Pz| ≤ ε_t'
            raise SynthesisInfeasible(f'no simple cycle meets the {what} with eps = {objective.eps:g}')
        if result.x is None:
            raise SynthesisInfeasible(f'the BILP solver stopped: {result.message}')
        return result.x

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


@dataclass
class SweepResult:
    gaits: list[Solution]           # distinct gaits, in order of first discovery
    alphas: list[list[tuple]]       # per gait, the α samples that produced it
    unresolved: int                 # α samples with no single cycle within the iteration limit (spec A12)


def lhs_sweep(problem: GaitProblem, goal: str, beta: float, gamma: float, eps: float,
              samples: int = LHS_SAMPLES, max_iterations: int = MAX_ITERATIONS, seed: int = 0) -> SweepResult:
    """Spec 5.4: α = 2h - 1 over a Latin hypercube h ∈ [0, 1]^M (M = 2 translation, 1 rotation) of ``samples``
    rows, each solved exactly; gaits de-duplicated by their canonical vertex list. Cuts are shared across rows
    (they are valid for every α). Raises SynthesisInfeasible when the tolerance admits no cycle at all."""
    hypercube = qmc.LatinHypercube(d=2 if goal == 'translation' else 1, seed=seed).random(samples)
    result = SweepResult([], [], 0)
    index: dict[tuple[int, ...], int] = {}
    for h in hypercube:
        alpha = tuple(float(a) for a in 2 * h - 1)
        try:
            solution = problem.solve(Objective(goal, alpha, beta, gamma, eps), max_iterations=max_iterations)
        except IterationLimit:
            result.unresolved += 1
            continue
        if solution.cycle not in index:
            index[solution.cycle] = len(result.gaits)
            result.gaits.append(solution)
            result.alphas.append([])
        result.alphas[index[solution.cycle]].append(alpha)
    return result
