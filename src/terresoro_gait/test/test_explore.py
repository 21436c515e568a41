"""Algorithm 1, stochastic Hierholzer's for complete digraphs, and the learning rounds (spec 3, 9.1
items 5 and 7, 9.2 items 8-10)."""

from collections import Counter
from itertools import permutations
from math import factorial

import pytest

from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.explore import closed_walk_edges, eulerian_rounds, stochastic_hierholzer

# spec 3.2: the paper's 2-limb Eulerian example, as edge numbers (1-based, paper order) and its
# vertex walk
PAPER_EULER_EDGES = [1, 5, 9, 10, 3, 11, 6, 12, 7, 2, 8, 4]
PAPER_EULER_WALK = [1, 2, 3, 4, 1, 4, 2, 4, 3, 1, 3, 2]


def is_eulerian_circuit(walk, vertices):
    """Read cyclically, ``walk`` uses every ordered pair of distinct ``vertices`` exactly once."""
    edges = Counter(closed_walk_edges(walk))
    return len(walk) == len(edges) and set(edges) == {
        (i, j) for i in vertices for j in vertices if i != j
    }


def test_papers_eulerian_example_is_a_closed_walk_over_all_edges():
    """Spec 9.1 item 5: e1 e5 e9 e10 e3 e11 e6 e12 e7 e2 e8 e4 chains head to tail, closes, and
    uses all 12 edges; as spec 3.2 derives, it is not a rotation of any of Algorithm 1's 24
    outputs."""
    edges = [tuple(LimbDigraph(2).edges[k - 1].tolist()) for k in PAPER_EULER_EDGES]
    assert [i for i, _ in edges] == PAPER_EULER_WALK and closed_walk_edges(
        PAPER_EULER_WALK
    ) == edges
    assert is_eulerian_circuit(PAPER_EULER_WALK, range(1, 5))
    rotations = {
        tuple(w[k:] + w[:k])
        for order in permutations(range(1, 5))
        for w in [stochastic_hierholzer(range(1, 5), order=order)]
        for k in range(12)
    }
    assert tuple(PAPER_EULER_WALK) not in rotations


@pytest.mark.parametrize(
    'graph',
    [
        LimbDigraph(1),
        LimbDigraph(2),
        LimbDigraph(3),
        LimbDigraph(4),
        LimbDigraph(4, (4,)),
        LimbDigraph(3, (1, 2)),
    ],
    ids=str,
)
def test_any_shuffle_gives_an_eulerian_circuit(graph):
    """Spec 9.2 item 8: length n(n-1), no repeated consecutive vertex (closure included), every
    ordered pair once, only the graph's own vertices (pruned graphs keep their numbers)."""
    for seed in range(5):
        walk = stochastic_hierholzer(graph.vertices, seed)
        assert len(walk) == graph.n * (graph.n - 1) == graph.m
        assert all(a != b for a, b in closed_walk_edges(walk))
        assert is_eulerian_circuit(walk, graph.vertices)


def test_identity_permutation_outputs():
    """Spec 9.2 item 9: the identity order gives [1,2], [1,3,2,3,1,2] and
    [1,4,2,4,3,4,1,3,2,3,1,2]."""
    assert stochastic_hierholzer([1, 2], order=[1, 2]) == [1, 2]
    assert stochastic_hierholzer([1, 2, 3], order=[1, 2, 3]) == [1, 3, 2, 3, 1, 2]
    assert stochastic_hierholzer(range(1, 5), order=range(1, 5)) == [
        1,
        4,
        2,
        4,
        3,
        4,
        1,
        3,
        2,
        3,
        1,
        2,
    ]


@pytest.mark.parametrize('n', [3, 4, 5])
def test_every_permutation_gives_a_distinct_circuit(n):
    """Spec 9.2 item 10: the n! orders give n! distinct outputs (6, 24, 120), each an Eulerian
    circuit."""
    walks = {
        tuple(stochastic_hierholzer(range(1, n + 1), order=order))
        for order in permutations(range(1, n + 1))
    }
    assert len(walks) == factorial(n)
    assert all(is_eulerian_circuit(w, range(1, n + 1)) for w in walks)


def test_seed_reproducibility_and_order_validation():
    """The same seed gives the same circuit and another seed another one; an order that is not a
    permutation of the vertices is refused."""
    vertices = LimbDigraph(3).vertices
    assert stochastic_hierholzer(vertices, 7) == stochastic_hierholzer(vertices, 7)
    assert stochastic_hierholzer(vertices, 7) != stochastic_hierholzer(vertices, 8)
    with pytest.raises(ValueError, match='not a permutation'):
        stochastic_hierholzer([1, 2, 3], order=[1, 2, 2])


@pytest.mark.parametrize('start', [None, 6])
def test_eulerian_rounds_chain_from_the_current_state(start):
    """Spec 3.4: R rounds give R m primitives; each round samples every edge once and starts at the
    current state (``start``, else the first round's first vertex); the whole sequence chains head
    to tail; rounds are fresh."""
    graph = LimbDigraph(3)
    primitives = eulerian_rounds(graph, 5, seed=3, start=start)
    assert len(primitives) == 5 * graph.m
    assert all(a[1] == b[0] for a, b in zip(primitives, primitives[1:]))
    rounds = [primitives[r * graph.m : (r + 1) * graph.m] for r in range(5)]
    first = primitives[0][0] if start is None else start
    for r in rounds:
        assert (
            sorted(r) == sorted(map(tuple, graph.edges.tolist())) and r[0][0] == first == r[-1][1]
        )
    assert len({tuple(r) for r in rounds}) == 5
    with pytest.raises(ValueError, match='start state 2'):
        eulerian_rounds(LimbDigraph(3, (3,)), 1, seed=0, start=2)


def test_learning_time_of_five_rounds():
    """Spec 9.1 item 7: 5 rounds of primitives of τ last 154 s ≈ 2.6 min (III, 0.55 s) and 540 s =
    9.0 min (IV)."""
    three = len(eulerian_rounds(LimbDigraph(3), 5, seed=0)) * 0.55
    four = len(eulerian_rounds(LimbDigraph(4), 5, seed=0)) * 0.45
    assert (three, round(three / 60, 1)) == (pytest.approx(154), 2.6)
    assert (four, round(four / 60, 1)) == (pytest.approx(540), 9.0)
