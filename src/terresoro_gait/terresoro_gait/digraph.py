"""The limb-state digraph of the pMFC framework (paper section III; spec 1.3-1.5, 5.8).

Vertices are robot states, numbered as in the paper (1-based): v = 1 + the limb states read as a
binary number, limb 1 the leftmost (most significant) digit, 1 = curled. Edges are the motion
primitives i -> j of the complete digraph, ordered lexicographically by (i, j) as in the paper's B
for the 2-limb robot (spec 1.5). A graph pruned for failed limbs keeps the original vertex numbers
(the paper's Table VIII uses 11 and 13 on a pruned graph).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from soro_node.params import shown


class GaitError(ValueError):
    """A vertex list that is not a simple cycle of the graph; the message says what is wrong."""


def state_bits(v: int, n_limbs: int) -> tuple[int, ...]:
    """Limb states (limb 1 first) of vertex v: eq. (15), 1 = curled."""
    return tuple(int(b) for b in format(v - 1, f'0{n_limbs}b'))


def vertex(bits: Sequence[int]) -> int:
    """The vertex (1-based) of limb states ``bits``, limb 1 first."""
    return 1 + int(''.join(str(int(b)) for b in bits), 2)


def canonical(cycle: Sequence[int]) -> tuple[int, ...]:
    """A cycle written from its smallest vertex (the gait's identity, whatever vertex it is started
    from)."""
    start = cycle.index(min(cycle))
    return tuple(cycle[start:]) + tuple(cycle[:start])


@dataclass(frozen=True)
class LimbDigraph:
    """The complete digraph on the states where every lost limb is uncurled (all states without
    lost limbs)."""

    n_limbs: int
    lost_limbs: tuple[int, ...] = ()

    def __post_init__(self):
        if not 1 <= self.n_limbs <= 8:
            raise ValueError(f'n_limbs = {self.n_limbs}: allowed range is [1, 8]')
        for limb in self.lost_limbs:
            if not 1 <= limb <= self.n_limbs:
                raise ValueError(f'lost limb {limb}: limbs are numbered 1..{self.n_limbs}')
        if len(set(self.lost_limbs)) == self.n_limbs:
            raise ValueError('every limb is lost: no motion primitive is left')

    @cached_property
    def vertices(self) -> tuple[int, ...]:
        """Vertex numbers (1-based, original numbering), ascending."""
        return tuple(
            v
            for v in range(1, 2**self.n_limbs + 1)
            if not any(state_bits(v, self.n_limbs)[limb - 1] for limb in self.lost_limbs)
        )

    @cached_property
    def edges(self) -> np.ndarray:
        """(m, 2) array of (initial, terminal) vertex numbers, lexicographic, no self-loops."""
        return np.array(
            [(i, j) for i in self.vertices for j in self.vertices if i != j], dtype=int
        ).reshape(-1, 2)

    @cached_property
    def edge_index(self) -> dict[tuple[int, int], int]:
        """0-based column of edge (i, j)."""
        return {(int(i), int(j)): k for k, (i, j) in enumerate(self.edges)}

    @property
    def n(self) -> int:
        """n, the number of vertices (the states left once lost limbs are pruned)."""
        return len(self.vertices)

    @property
    def m(self) -> int:
        """m, the number of edges: every ordered pair of distinct vertices, n (n - 1)."""
        return len(self.edges)

    @cached_property
    def initial_matrix(self) -> np.ndarray:
        """B^i (n x m): 1 where edge k leaves vertex row v (eq. 11, indices read as in spec A1)."""
        return self._vertex_matrix(0)

    @cached_property
    def terminal_matrix(self) -> np.ndarray:
        """B^t (n x m): 1 where edge k enters vertex row v."""
        return self._vertex_matrix(1)

    @cached_property
    def incidence(self) -> np.ndarray:
        """B = B^i - B^t (n x m), eq. (4)."""
        return self.initial_matrix - self.terminal_matrix

    def _vertex_matrix(self, end: int) -> np.ndarray:
        row = {v: r for r, v in enumerate(self.vertices)}
        matrix = np.zeros((self.n, self.m), dtype=int)
        matrix[[row[int(v)] for v in self.edges[:, end]], np.arange(self.m)] = 1
        return matrix

    def check_cycle(self, cycle: Sequence[int]) -> tuple[int, ...]:
        """``cycle`` as a tuple if it is a simple cycle of this graph (at least 2 vertices, none
        repeated, each consecutive pair and the closing pair an edge); raises GaitError naming the
        problem."""
        cycle = tuple(int(v) for v in cycle)
        if len(cycle) < 2:
            raise GaitError(f'gait {shown(cycle)}: a gait needs at least 2 vertices')
        for v in cycle:
            if v not in self.vertices:
                lost = (
                    f' (it curls lost limb(s) {list(self.lost_limbs)})'
                    if 1 <= v <= 2**self.n_limbs
                    else ''
                )
                raise GaitError(f'gait {shown(cycle)}: vertex {v} is not in the graph{lost}')
        counts = collections.Counter(cycle)  # linear: a goal may carry thousands of vertices
        repeated = min((v for v, count in counts.items() if count > 1), default=None)
        if repeated is not None:
            raise GaitError(
                f'gait {shown(cycle)}: vertex {repeated} repeats; a gait is a simple cycle'
            )
        return cycle

    def cycle_edges(self, cycle: Sequence[int]) -> list[int]:
        """0-based edge columns of a simple cycle, in order, including the closing edge."""
        cycle = self.check_cycle(cycle)
        return [self.edge_index[(a, b)] for a, b in zip(cycle, cycle[1:] + cycle[:1])]

    def cycle_vector(self, cycle: Sequence[int]) -> np.ndarray:
        """z (m,) in {0, 1}: eq. (12)."""
        z = np.zeros(self.m, dtype=int)
        z[self.cycle_edges(cycle)] = 1
        return z

    def cycles_of(self, z: Iterable[float]) -> list[tuple[int, ...]]:
        """The vertex-disjoint simple cycles making up z (B z = 0, B^i z <= 1), each canonical, by
        following the unique successor of every active edge (the paper's DFS detection step)."""
        successor = {
            int(self.edges[k, 0]): int(self.edges[k, 1]) for k in np.flatnonzero(np.round(z) > 0)
        }
        cycles, seen = [], set()
        for start in sorted(successor):
            if start in seen:
                continue
            cycle, v = [], start
            while v not in seen:
                seen.add(v)
                cycle.append(v)
                v = successor[v]
            cycles.append(canonical(cycle))
        return cycles


def simple_cycle_count_formula(n: int) -> int:
    """The paper's n_z = Σ_i C(n, n-i+1) (n-i)! (section V-A); counts n self-loops a loop-free
    digraph lacks."""
    from math import comb, factorial

    return sum(comb(n, n - i + 1) * factorial(n - i) for i in range(1, n + 1))
