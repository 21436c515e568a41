"""Upper bounds on the optimum from simple cycles already known, and the reduced-cost fixing they
allow: the speed of gait synthesis (terresoro_gait.synthesis), still exact. No ROS.

Every 2- and 3-cycle, each BILP solution's components, patches of them and earlier optima of the
same problem are known cycles; any of them meeting the tolerance bounds the optimum from above, and
with the LP relaxation's bound per edge that removes, before a BILP runs, every edge no cycle under
that bound can use.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.optimize import LinearConstraint, linprog

from terresoro_gait.digraph import LimbDigraph, canonical


class KnownCycles:
    """Simple cycles of one graph with their cycle vectors (k, m): every 2- and 3-cycle from the
    start, then each cycle a BILP solution is made of. Any of them meeting the tolerance bounds the
    optimum from above."""

    def __init__(self, graph: LimbDigraph):
        self.graph = graph
        self.cycles: list[tuple[int, ...]] = []
        self._index: set[tuple[int, ...]] = set()
        self._edges: list[list[int]] = []  # each cycle's edge columns: 2 or 3 of m
        self._matrix = sparse.csr_array((0, graph.m))
        vs = graph.vertices
        self.add(
            [(i, j) for i in vs for j in vs if i < j]
            + [(i, j, k) for i in vs for j in vs for k in vs if i < j and i < k and j != k]
        )

    def add(self, cycles) -> None:
        """Add the ``cycles`` (vertex sequences, from any vertex) not known yet, in canonical form,
        with their cycle vectors."""
        for cycle in cycles:
            cycle = canonical(tuple(cycle))
            if cycle not in self._index:
                self._index.add(cycle)
                self.cycles.append(cycle)
                self._edges.append(self.graph.cycle_edges(cycle))

    def best(
        self, c: np.ndarray, motion: np.ndarray, eps: float, excluded: set[tuple[int, ...]]
    ) -> float:
        """min c z over the known cycles with |motion z| ≤ eps componentwise (motion (r, m)), not
        in ``excluded``; inf if none. Strictly inside the tolerance by 1e-9 so the cycle is
        certainly feasible for the BILP too."""
        cycle = self.best_cycle(c, motion, eps, excluded)
        return np.inf if cycle is None else float(self.graph.cycle_vector(cycle) @ c)

    def best_cycle(
        self, c: np.ndarray, motion: np.ndarray, eps: float, excluded: set[tuple[int, ...]]
    ) -> tuple[int, ...] | None:
        """The known cycle ``best`` costs (None if none)."""
        if len(self._edges) != self._matrix.shape[0]:
            # sparse: at 6 limbs the dense rows were 85,344 x 4,032, 2.6 GiB
            rows = np.repeat(np.arange(len(self._edges)), [len(e) for e in self._edges])
            columns = np.concatenate(self._edges)
            self._matrix = sparse.csr_array(
                (np.ones(len(columns)), (rows, columns)), shape=(len(self._edges), self.graph.m)
            )
        cost = self._matrix @ c
        feasible = np.all(np.abs(self._matrix @ motion.T) <= eps - 1e-9, axis=1)
        if excluded:
            feasible &= np.array([cycle not in excluded for cycle in self.cycles])
        if not feasible.any():
            return None
        return self.cycles[int(np.flatnonzero(feasible)[np.argmin(cost[feasible])])]


def patched_cycles(first: tuple[int, ...], second: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every single cycle made of two vertex-disjoint cycles by the classical patching step: drop a
    -> a' of the first and b -> b' of the second, add a -> b' and b -> a'."""
    return [
        first[: i + 1] + second[j + 1 :] + second[: j + 1] + first[i + 1 :]
        for i in range(len(first))
        for j in range(len(second))
    ]


def merged_cycles(
    graph: LimbDigraph,
    cycles: list[tuple[int, ...]],
    c: np.ndarray,
    motion: np.ndarray,
    eps: float,
) -> list[tuple[int, ...]]:
    """Simple cycles near a disjoint solution, for upper bounds only (any simple cycle is a valid
    one): the components are patched together two at a time, each time the cheapest patch meeting
    the tolerance |motion z| <= eps (or, if none does, the one closest to it), so the cost stays
    close to the solution's, a lower bound."""
    merged, pool = [], list(cycles)
    while len(pool) > 1:
        best = None
        for a in range(len(pool)):
            for b in range(a + 1, len(pool)):
                for cycle in patched_cycles(pool[a], pool[b]):
                    z = graph.cycle_vector(cycle)
                    score = (max(0.0, np.abs(motion @ z).max() - eps), float(c @ z))
                    if best is None or score < best[0]:
                        best = (score, cycle, a, b)
        _, cycle, a, b = best
        pool = [g for k, g in enumerate(pool) if k not in (a, b)] + [cycle]
        merged.append(cycle)
    return merged


def lp_edge_bounds(c: np.ndarray, constraints: list) -> np.ndarray | None:
    """(m,) J_LP + r_e: no cycle using edge e costs less (with the LP relaxation's optimum J_LP and
    reduced cost r_e ≥ 0 of an edge at its lower bound, by LP duality); None if the LP fails."""
    relaxation = linprog(c, bounds=(0, 1), method='highs', **_inequalities(constraints))
    return relaxation.fun + relaxation.lower.marginals if relaxation.status == 0 else None


def edges_to_keep(bounds: np.ndarray, upper: float) -> np.ndarray:
    """Edges whose bound (J_LP + r_e) admits a cycle costing at most ``upper``."""
    # LP dual tolerances; keeping an edge is always safe
    return bounds <= upper + 1e-6 * (1.0 + abs(upper))


def _inequalities(constraints: list[LinearConstraint]) -> dict:
    """linprog's A_ub, b_ub, A_eq, b_eq from LinearConstraints lb ≤ A z ≤ ub."""
    A = np.vstack([np.atleast_2d(k.A) for k in constraints]).astype(float)
    lb = np.concatenate(
        [np.broadcast_to(k.lb, (np.atleast_2d(k.A).shape[0],)) for k in constraints]
    )
    ub = np.concatenate(
        [np.broadcast_to(k.ub, (np.atleast_2d(k.A).shape[0],)) for k in constraints]
    )
    equal = lb == ub
    upper, lower = ~equal & np.isfinite(ub), ~equal & np.isfinite(lb)
    return {
        'A_ub': np.vstack([A[upper], -A[lower]]),
        'b_ub': np.concatenate([ub[upper], -lb[lower]]),
        'A_eq': A[equal] if equal.any() else None,
        'b_eq': lb[equal] if equal.any() else None,
    }
