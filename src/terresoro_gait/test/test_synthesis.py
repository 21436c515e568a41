"""BILPs (28) and (29): the spec's Tests A and B exactly, exact optima against exhaustive search
over every simple cycle (n = 4 and n = 8), k-best order, infeasible tolerances, and synthesis on a
graph pruned for a lost limb."""

import numpy as np
import pytest

from terresoro_gait import cpsat
from terresoro_gait.digraph import LimbDigraph, state_bits
from terresoro_gait.kinematics import simple_cycles
from terresoro_gait.sweep import lhs_sweep
from terresoro_gait.synthesis import GaitProblem, Objective, SynthesisInfeasible
from terresoro_gait.weights import EdgeWeights


@pytest.mark.parametrize(
    'goal, alpha, beta, gamma, eps, cycle, cost',
    [
        ('translation', (-1, 0), 0, 0, 3, (1, 2, 4, 3), -27),
        ('translation', (-1, 0), 0, 0, 0.5, (1, 2, 3), -24),
        ('translation', (-1, 0), 0, 5, 3, (1, 2, 3), -9),
        ('translation', (1, 0), 0, 0, 3, (3, 4), 4),
        ('translation', (-1, 0), 2, 0, 3, (1, 2, 4, 3), -19),
        ('rotation', (-1,), 0, 0, 3, (1, 3, 4), -27),
        ('rotation', (-1,), 0, 0, 8, (1, 3, 2, 4), -34),
        ('rotation', (1,), 0, 0, 8, (1, 4, 2), -6),
        ('rotation', (-1,), 5, 0, 8, (1, 3, 4), -25.5),
    ],
)
@pytest.mark.parametrize('backend', ['highs', 'cpsat'])
def test_spec_test_a(test_a, goal, alpha, beta, gamma, eps, cycle, cost, backend):
    """T1-T5 and R1-R4 of spec 9.3; T4 is where z = 0 would win without 1ᵀz ≥ 2."""
    solution = GaitProblem(test_a, LimbDigraph(2), backend).solve(
        Objective(goal, alpha, beta, gamma, eps)
    )
    assert (solution.cycle, solution.backend) == (
        cycle,
        backend,
    ) and solution.cost == pytest.approx(cost, abs=1e-9)


def test_spec_test_b_needs_the_whole_solution_cut():
    """Pure rotation weights: the first BILP returns (1,2) + (3,4) (J = -18); cutting that solution
    gives (1,2), J = -10, in 2 iterations. A per-component subtour cut would have removed (1,2)
    itself."""
    theta = -np.ones(12)
    theta[[0, 3]], theta[[8, 11]] = 5, 4  # 1->2, 2->1 and 3->4, 4->3
    weights = EdgeWeights(2, np.zeros(12), np.zeros(12), theta, np.zeros(12), np.full(12, 0.1))
    solution = GaitProblem(weights, LimbDigraph(2)).solve(Objective('rotation', (-1,), 0, 0, 1))
    assert (solution.cycle, solution.cost, solution.iterations) == ((1, 2), -10.0, 2)


def all_cycles(graph):
    """Every simple cycle as canonical tuples and as cycle vectors (c, m)."""
    cycles = simple_cycles(graph)
    return cycles, np.array([graph.cycle_vector(c) for c in cycles])


def exhaustive_ranking(problem, objective, cycles, Z):
    """Feasible cycles sorted by cost, with their costs."""
    cost = Z @ problem.costs(objective)
    motion = Z @ (problem.theta[:, None] if objective.goal == 'translation' else problem.P.T)
    feasible = np.all(np.abs(motion) <= objective.eps + 1e-9, axis=1)
    order = np.flatnonzero(feasible)[np.argsort(cost[feasible], kind='stable')]
    return [cycles[i] for i in order], cost[order]


@pytest.fixture(scope='module')
def eight():
    graph = LimbDigraph(3)
    cycles, Z = all_cycles(graph)
    # spec 5.2: true simple cycles of the complete digraph on 8 vertices
    assert len(cycles) == 16064
    return graph, cycles, Z


@pytest.mark.parametrize('backend, tolerance', [('highs', 1e-7), ('cpsat', 1e-9)])
@pytest.mark.parametrize('seed', [1, 2, 3])
def test_optimum_equals_exhaustive_search_on_eight_vertices(
    eight, random_weights, seed, backend, tolerance
):
    graph, cycles, Z = eight
    weights = random_weights(3, seed)
    rng = np.random.default_rng(100 + seed)
    for objective in (
        Objective('translation', tuple(rng.uniform(-1, 1, 2)), 0.2, 1.0, 4.0),
        Objective('rotation', (rng.uniform(-1, 1),), 0.2, 1.0, 6.0),
    ):
        problem = GaitProblem(weights, graph, backend)
        solution = problem.solve(objective)
        ranked, costs = exhaustive_ranking(problem, objective, cycles, Z)
        assert solution.cost == pytest.approx(costs[0], abs=tolerance)
        assert solution.cycle == ranked[0] or costs[1] == pytest.approx(costs[0], abs=tolerance)


def test_k_best_follows_the_exhaustive_ranking(eight, random_weights):
    graph, cycles, Z = eight
    problem = GaitProblem(random_weights(3, 7), graph)
    objective = Objective('translation', (-0.6, 0.8), 0.1, 0.5, 5.0)
    best = problem.k_best(objective, 4)
    ranked, costs = exhaustive_ranking(problem, objective, cycles, Z)
    assert [s.cost for s in best] == pytest.approx(list(costs[:4]), abs=1e-7)
    assert len({s.cycle for s in best}) == 4


@pytest.mark.parametrize('backend, tolerance', [('highs', {}), ('cpsat', {'abs': 1e-9})])
def test_k_best_on_four_vertices_lists_every_feasible_cycle_in_order(test_a, backend, tolerance):
    graph = LimbDigraph(2)
    problem = GaitProblem(test_a, graph, backend)
    objective = Objective('translation', (-1, 0), 0, 0, 3)
    ranked, costs = exhaustive_ranking(problem, objective, *all_cycles(graph))
    found = problem.k_best(objective, 30)
    # all of them, then it stops
    assert [s.cost for s in found] == pytest.approx(list(costs), **tolerance)
    assert len(all_cycles(graph)[0]) == 20


def test_a_tolerance_no_cycle_meets_is_refused_with_the_reason(test_a):
    problem = GaitProblem(test_a, LimbDigraph(2))
    with pytest.raises(
        SynthesisInfeasible,
        match=r'no simple cycle meets the translation \|Pz\| ≤ ε_t with eps = 0',
    ):
        problem.solve(Objective('rotation', (-1,), 0, 0, 0.0))


@pytest.mark.parametrize('lost, allowed', [((1,), set(range(1, 9))), ((4,), set(range(1, 17, 2)))])
def test_loss_of_limb_synthesis_keeps_the_original_numbering(random_weights, lost, allowed):
    """Spec 5.8: TerreSoRo-IV without limb 1 (or 4) is the complete digraph on 8 states, 56 edges,
    original numbers; gaits synthesized on it never curl the lost limb, with the same learned
    weights."""
    graph = LimbDigraph(4, lost)
    assert (graph.n, graph.m, set(graph.vertices)) == (8, 56, allowed)
    weights = random_weights(4, 11)
    for objective in (
        Objective('translation', (1, 0), 0.1, 1.0, 5.0),
        Objective('rotation', (-1,), 0.1, 1.0, 5.0),
    ):
        cycle = GaitProblem(weights, graph).solve(objective).cycle
        assert set(cycle) <= allowed
        assert all(state_bits(v, 4)[lost[0] - 1] == 0 for v in cycle)


def test_objective_refuses_bad_hyperparameters():
    with pytest.raises(ValueError, match='translation goal takes 2'):
        Objective('translation', (1.0,))
    with pytest.raises(ValueError, match='eps = -1'):
        Objective('rotation', (1.0,), eps=-1)
    with pytest.raises(ValueError, match="goal = 'sideways'"):
        Objective('sideways', (1.0,))


def test_lhs_sweep_finds_each_distinct_exact_optimum_once(test_a):
    """Spec 5.4: α = 2h - 1 over a Latin hypercube; every α's optimum is in the result exactly
    once, and each gait is the exhaustive optimum for the α samples recorded with it."""
    graph = LimbDigraph(2)
    problem = GaitProblem(test_a, graph)
    result = lhs_sweep(problem, 'translation', beta=0.0, gamma=0.5, eps=3.0, samples=40, seed=4)
    assert sum(len(a) for a in result.alphas) == 40 and result.unresolved == 0
    assert len({g.cycle for g in result.gaits}) == len(result.gaits) >= 2
    cycles, Z = all_cycles(graph)
    for gait, alphas in zip(result.gaits, result.alphas):
        for alpha in alphas:
            ranked, costs = exhaustive_ranking(
                problem, Objective('translation', alpha, 0.0, 0.5, 3.0), cycles, Z
            )
            assert gait.cycle == ranked[0] or costs[1] == pytest.approx(costs[0])
    assert all(abs(a) <= 1 for alphas in result.alphas for alpha in alphas for a in alpha)


def test_reduced_cost_fixing_on_a_shared_problem_keeps_the_exhaustive_optimum(
    eight, random_weights, monkeypatch
):
    """One problem solving a run of nearby α: the known cycles then bound each optimum tightly, so
    the BILP runs on fewer columns (checked); every answer still equals the exhaustive optimum."""
    graph, cycles, Z = eight
    problem = GaitProblem(random_weights(3, 5), graph)
    widths = []
    solve_on = problem._milp_on
    monkeypatch.setattr(
        problem,
        '_milp_on',
        lambda c, cons, keep: widths.append(int(keep.sum())) or solve_on(c, cons, keep),
    )
    for angle in np.linspace(0, 2 * np.pi, 12, endpoint=False):
        objective = Objective('translation', (np.cos(angle), np.sin(angle)), 0.2, 0.5, 4.0)
        solution = problem.solve(objective)
        ranked, costs = exhaustive_ranking(problem, objective, cycles, Z)
        assert solution.cost == pytest.approx(costs[0], abs=1e-7)
        assert solution.cycle == ranked[0] or costs[1] == pytest.approx(costs[0], abs=1e-7)
    assert min(widths) < graph.m


def test_patching_two_disjoint_cycles_gives_simple_cycles_of_both():
    from terresoro_gait.cycle_bounds import patched_cycles

    graph = LimbDigraph(3)
    patched = patched_cycles((1, 2, 3), (4, 5))
    assert len(patched) == 6 and (1, 5, 4, 2, 3) in patched
    assert all(sorted(graph.check_cycle(p)) == [1, 2, 3, 4, 5] for p in patched)


@pytest.mark.cores
def test_lhs_sweep_in_two_processes_equals_the_sequential_sweep(test_a):
    graph = LimbDigraph(2)
    one = lhs_sweep(GaitProblem(test_a, graph), 'translation', 0.0, 0.5, 3.0, samples=40, seed=4)
    two = lhs_sweep(
        GaitProblem(test_a, graph), 'translation', 0.0, 0.5, 3.0, samples=40, seed=4, workers=2
    )
    assert [g.cycle for g in one.gaits] == [
        g.cycle for g in two.gaits
    ] and one.alphas == two.alphas
    assert [g.cost for g in one.gaits] == pytest.approx([g.cost for g in two.gaits])


def test_cpsat_passes_spec_test_b_without_a_cut_loop():
    theta = -np.ones(12)
    theta[[0, 3]], theta[[8, 11]] = 5, 4
    weights = EdgeWeights(2, np.zeros(12), np.zeros(12), theta, np.zeros(12), np.full(12, 0.1))
    solution = GaitProblem(weights, LimbDigraph(2), 'cpsat').solve(
        Objective('rotation', (-1,), 0, 0, 1)
    )
    assert (solution.cycle, solution.cost) == ((1, 2), -10.0)


def test_both_backends_agree_on_random_terresoro_iv_problems(random_weights):
    graph, rng = LimbDigraph(4), np.random.default_rng(19)
    for seed in range(3):
        weights = random_weights(4, 40 + seed)
        for objective in (
            Objective('translation', tuple(rng.uniform(-1, 1, 2)), 0.1, 1.0, 5.0),
            Objective('rotation', (rng.uniform(-1, 1),), 0.1, 1.0, 5.0),
        ):
            highs = GaitProblem(weights, graph, 'highs').solve(objective)
            cpsat = GaitProblem(weights, graph, 'cpsat').solve(objective)
            assert (cpsat.backend, highs.backend) == ('cpsat', 'highs')
            assert cpsat.cycle == highs.cycle and cpsat.cost == pytest.approx(highs.cost, abs=1e-9)


def near_tie(fractions: dict, optimum: tuple, trap: tuple):
    """A TerreSoRo-II graph whose edge e costs -w + f q (f from ``fractions``: {edge: (w, f)},
    every other edge 100), q being the cost grid of the integer model; ``trap`` rounds cheaper than
    ``optimum`` though it costs more."""
    from terresoro_gait import cpsat

    graph = LimbDigraph(2)
    q = 1.0 / cpsat.scale(np.array([100.0]))
    px = np.array(
        [
            -fractions[e][0] + fractions[e][1] * q if e in fractions else 100.0
            for e in map(tuple, graph.edges.tolist())
        ]
    )
    cycles, Z = all_cycles(graph)
    # by exhaustion
    assert cycles[int(np.argmin(Z @ px))] == optimum
    # edge by edge
    rounded = {c: graph.cycle_vector(c) @ np.round(px / q) for c in (optimum, trap)}
    # the trap is armed
    assert rounded[trap] < rounded[optimum]
    return EdgeWeights(2, px, np.zeros(12), np.zeros(12), np.zeros(12), np.full(12, 0.1)), graph


@pytest.mark.parametrize(
    'fractions, optimum, trap',
    [
        # (1,2) and (3,4) cost -20 + 0.8q and -20 + 0.6q: the hint, a known 2-cycle, is already the
        # optimum
        (
            {(1, 2): (10, 0.4), (2, 1): (10, 0.4), (3, 4): (10, 0.6), (4, 3): (10, 0.0)},
            (3, 4),
            (1, 2),
        ),
        # the 4-cycle costs -20 + 0.2q; the known 2-cycle (1,3), the hint, -20 + 0.3q but rounds a
        # grid step cheaper
        (
            {
                (1, 2): (5, 0.55),
                (2, 3): (5, -0.45),
                (3, 4): (5, 0.1),
                (4, 1): (5, 0.0),
                (1, 3): (10, 0.15),
                (3, 1): (10, 0.15),
            },
            (1, 2, 3, 4),
            (1, 3),
        ),
    ],
    ids=['optimum-known', 'optimum-unknown'],
)
def test_a_near_tie_below_the_integer_scale_is_decided_in_real_arithmetic(
    fractions, optimum, trap
):
    weights, graph = near_tie(fractions, optimum, trap)
    solution = GaitProblem(weights, graph, 'cpsat').solve(
        Objective('translation', (1, 0), 0, 0, 1)
    )
    assert solution.cycle == optimum and solution.cost < graph.cycle_vector(trap) @ weights.px_mm


def test_auto_takes_cpsat_from_sixteen_states_and_highs_below(random_weights):
    objective = Objective('translation', (1, 0), 0.1, 1.0, 5.0)
    assert GaitProblem(random_weights(3, 1), LimbDigraph(3)).solve(objective).backend == 'highs'
    assert GaitProblem(random_weights(4, 1), LimbDigraph(4)).solve(objective).backend == 'cpsat'
    with pytest.raises(
        ValueError, match="backend = 'gurobi': allowed values are auto, highs, cpsat"
    ):
        GaitProblem(random_weights(3, 1), LimbDigraph(3), 'gurobi')


def test_the_sweep_works_with_either_backend_and_auto_sweeps_with_highs(test_a):
    problem = {b: GaitProblem(test_a, LimbDigraph(2), b) for b in ('auto', 'highs', 'cpsat')}
    results = {
        b: lhs_sweep(p, 'translation', beta=0.0, gamma=0.5, eps=3.0, samples=20, seed=4)
        for b, p in problem.items()
    }
    assert {g.backend for g in results['auto'].gaits} == {'highs'}
    assert {g.backend for g in results['cpsat'].gaits} == {'cpsat'}
    assert [g.cycle for g in results['cpsat'].gaits] == [g.cycle for g in results['highs'].gaits]
    assert results['cpsat'].alphas == results['highs'].alphas


@pytest.mark.parametrize('lost', [(1,), (4,)])
def test_cpsat_loss_of_limb_synthesis_equals_highs(random_weights, lost):
    graph, weights = LimbDigraph(4, lost), random_weights(4, 11)
    for objective in (
        Objective('translation', (1, 0), 0.1, 1.0, 5.0),
        Objective('rotation', (-1,), 0.1, 1.0, 5.0),
    ):
        highs = GaitProblem(weights, graph, 'highs').solve(objective)
        cpsat = GaitProblem(weights, graph, 'cpsat').solve(objective)
        assert cpsat.cycle == highs.cycle and cpsat.cost == pytest.approx(highs.cost, abs=1e-9)


@pytest.mark.parametrize(
    'usable, load, workers', [(2, 0.1, 2), (2, 0.8, 1), (2, 4.5, 1), (8, 3.0, 2), (1, 0.0, 1)]
)
def test_the_cpsat_portfolio_takes_the_cores_other_work_leaves_free(usable, load, workers):
    """Idle 2 cores: both portfolio threads; a loaded machine (other work on the cores): one, never
    none."""
    assert cpsat.portfolio_workers(usable, load) == workers
