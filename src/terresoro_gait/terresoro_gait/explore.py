"""Exploration of the limb-state digraph: Algorithm 1, stochastic Hierholzer's for complete
digraphs (paper III-C, spec 3.3-3.4). Vertices are the graph's own numbers (1-based, pruned graphs
keep theirs); a walk is a list of vertices read cyclically, its last vertex returning to its first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from terresoro_gait.digraph import LimbDigraph


def stochastic_hierholzer(
    vertices: Sequence[int],
    rng: np.random.Generator | int | None = None,
    order: Sequence[int] | None = None,
) -> list[int]:
    """An Eulerian circuit of the complete digraph on ``vertices`` as a closed walk of n(n-1)
    vertices.

    The vertices are shuffled with ``rng`` (a numpy Generator or seed), or taken in ``order`` (a
    permutation of ``vertices``) to enumerate the n! outputs. Algorithm 1 as corrected in spec
    3.3/A14: the states list has n entries, and the closing edge states[1] -> states[0] is
    implicit.
    """
    if order is None:
        states = [int(v) for v in np.random.default_rng(rng).permutation(list(vertices))]
    elif sorted(order) == sorted(vertices):
        states = [int(v) for v in order]
    else:
        raise ValueError(
            f'order {list(order)} is not a permutation of the vertices {list(vertices)}'
        )
    walk = []
    for i in range(len(states) - 1, -1, -1):  # for i = [n-1, ..., 1, 0]
        for j in range(i):  # j = 0; while i != j ... j = j + 1
            walk += [states[j], states[i]]
    return walk


def closed_walk_edges(walk: Sequence[int]) -> list[tuple[int, int]]:
    """The edges (i, j) of a closed walk, including the closing one walk[-1] -> walk[0]."""
    return [(int(a), int(b)) for a, b in zip(walk, list(walk[1:]) + list(walk[:1]))]


def eulerian_rounds(
    graph: LimbDigraph,
    rounds: int,
    seed: np.random.Generator | int | None = None,
    start: int | None = None,
) -> list[tuple[int, int]]:
    """The primitives (i, j) of ``rounds`` fresh random Eulerian circuits of ``graph``, R m in all
    (paper VI-C2: 5).

    Each circuit is rotated to begin at the current state (spec 3.4 recommendation): ``start``, or
    the first circuit's first vertex when None. A closed walk ends where it begins, so every round
    starts at that state and no lead-in primitive is needed; each round samples every edge exactly
    once.
    """
    if rounds < 0:
        raise ValueError(f'rounds = {rounds}: must be >= 0')
    if start is not None and start not in graph.vertices:
        raise ValueError(
            f'start state {start} is not a vertex of the graph {list(graph.vertices)}'
        )
    rng, primitives = np.random.default_rng(seed), []
    for _ in range(rounds):
        walk = stochastic_hierholzer(graph.vertices, rng)
        start = walk[0] if start is None else start
        at = walk.index(start)
        primitives += closed_walk_edges(walk[at:] + walk[:at])
    return primitives
