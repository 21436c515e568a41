"""CHOMP (thesis Algorithm 1; spec B5.2, C3: PL-01..PL-05, PL-03 on the thesis's scenes)."""

import math
from dataclasses import replace

import numpy as np
import pytest

from salamander_nav.distance_field import DistanceField
from salamander_nav.origami import KAPPA_MAX
from salamander_nav.planning import chomp, chomp_costs, paths
from salamander_nav.planning.chomp import ChompSettings
from salamander_nav.scene import load_scene, scene_from_dict

ROOT_SCENE = load_scene(
    __import__('pathlib').Path(__file__).resolve().parents[3] / 'config' / 'salamander_scene.yaml'
)
OPEN = DistanceField.from_scene(scene_from_dict({'bounds': [0, 0, 3, 3], 'resolution': 0.005}))
ONE_CIRCLE = DistanceField.from_scene(
    scene_from_dict({'bounds': [0, 0, 2, 2], 'resolution': 0.002, 'circles': [[1.0, 1.0, 0.2]]})
)


def wavy(n=30):
    t = np.linspace(0, 1, n + 2)
    q = np.column_stack([0.3 + 1.4 * t, 0.9 + 0.15 * np.sin(3 * t)])
    return q[1:-1], q[0], q[-1]


def test_smoothness_matches_its_quadratic_form_and_finite_differences():
    xi, q0, qe = wavy()
    n = len(xi)
    f, grad = chomp_costs.smoothness(xi, q0, qe)
    inv_dt = n + 1
    K = (np.eye(n + 1, n) - np.eye(n + 1, n, k=-1)) * inv_dt
    e = np.zeros((n + 1, 2))
    e[0], e[-1] = -q0 * inv_dt, qe * inv_dt
    assert f == pytest.approx(0.5 * ((K @ xi + e) ** 2).sum(), rel=1e-12)
    np.testing.assert_allclose(grad, K.T @ (K @ xi + e), rtol=1e-9, atol=1e-6)
    h, numeric = 1e-6, np.zeros_like(xi)
    for idx in np.ndindex(xi.shape):
        bumped = xi.copy()
        bumped[idx] += h
        numeric[idx] = (chomp_costs.smoothness(bumped, q0, qe)[0] - f) / h
    np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-2)


def test_obstacle_cost_is_continuous_and_c1_at_zero_and_epsilon():
    eps = 0.075
    c, slope = chomp_costs.obstacle_cost([-1e-9, 0.0, 1e-9, eps - 1e-9, eps, eps + 1e-9], eps)
    assert c[:3] == pytest.approx([eps / 2] * 3, abs=1e-8) and c[3:] == pytest.approx(
        [0, 0, 0], abs=1e-8
    )
    assert slope[:3] == pytest.approx([-1, -1, -1], abs=1e-6) and slope[3:] == pytest.approx(
        [0, 0, 0], abs=1e-6
    )
    d = np.linspace(-0.1, 0.2, 301)
    c, slope = chomp_costs.obstacle_cost(d, eps)
    # central differences, off the joins
    smooth = (np.abs(d) > 0.0015) & (np.abs(d - eps) > 0.0015)
    np.testing.assert_allclose(np.gradient(c, d)[smooth][1:-1], slope[smooth][1:-1], atol=1e-9)


def test_obstacle_cost_is_weighted_by_arc_length():
    # one straight pass over the circle's influence zone, sampled evenly or with few points inside
    # the zone (a "quick pass"): weighted by arc length the cost hardly changes, while the plain
    # sum of c(q_t) drops by half
    even = np.linspace(0.5, 1.5, 62)
    u = np.linspace(0, 1, 62)
    # sparse in the middle, dense at the ends
    quick = 0.5 + u - 0.12 * np.sin(2 * np.pi * u)
    costs, sums = [], []
    for x in (even, quick):
        q = np.column_stack([x, np.full(62, 0.74)])
        costs.append(
            chomp_costs.obstacle_term(q[1:-1], q[0], q[-1], ONE_CIRCLE, np.zeros((0, 3)), 0.1)[0]
        )
        d, _ = ONE_CIRCLE.query(q[1:-1])
        sums.append(chomp_costs.obstacle_cost(d, 0.1)[0].sum())
    assert costs[1] == pytest.approx(costs[0], rel=0.1)
    assert sums[1] < 0.7 * sums[0]


def test_obstacle_functional_gradient_points_like_finite_differences():
    # the functional gradient is that of the continuous functional: on a smooth path sampled finely
    # it agrees in direction with the finite-difference gradient of the discrete cost (cosine >
    # 0.95 at every point near the circle) and in size within 25 %
    n = 80
    t = np.linspace(0, 1, n + 2)
    q = np.column_stack([0.5 + t, 0.75 + 0.05 * np.sin(2 * np.pi * t)])
    xi, q0, qe = q[1:-1], q[0], q[-1]
    f, grad = chomp_costs.obstacle_term(xi, q0, qe, ONE_CIRCLE, np.zeros((0, 3)), 0.1)
    h, numeric = 1e-6, np.zeros_like(xi)
    for idx in np.ndindex(xi.shape):
        bumped = xi.copy()
        bumped[idx] += h
        numeric[idx] = (
            chomp_costs.obstacle_term(bumped, q0, qe, ONE_CIRCLE, np.zeros((0, 3)), 0.1)[0] - f
        ) / h
    active = np.hypot(*numeric.T) > 0.2 * np.hypot(*numeric.T).max()
    cosine = (grad * numeric).sum(1)[active] / (np.hypot(*grad.T) * np.hypot(*numeric.T))[active]
    assert active.sum() > 10 and cosine.min() > 0.95
    ratio = np.hypot(*grad.T)[active].sum() / np.hypot(*numeric.T)[active].sum()
    assert 0.75 < ratio < 1.25


def test_virtual_obstacles_are_the_osculating_circles_of_over_curved_points():
    a = np.linspace(0, np.pi, 30)
    tight = np.column_stack([0.05 * np.cos(a), 0.05 * np.sin(a)])  # κ = 20 > 12.52
    circles = chomp_costs.virtual_obstacles(tight, 12.52)
    assert len(circles) == 28
    np.testing.assert_allclose(circles[:, :2], 0, atol=1e-9)
    np.testing.assert_allclose(circles[:, 2], 0.05, rtol=1e-9)
    assert len(chomp_costs.virtual_obstacles(tight * 3, 12.52)) == 0


def test_orientation_correction_is_clamped_perpendicular_and_only_at_the_ends():
    xi, q0, qe = wavy(40)
    v = chomp_costs.orientation_correction(xi, q0, qe, math.pi / 2, 0.0, 5)
    assert np.all(v[5:-5] == 0) and np.any(v[:5] != 0)
    q = chomp_costs.full(xi, q0, qe)
    tangents = q[2:] - q[:-2]
    along = (v * tangents).sum(1)
    # perpendicular to the path
    np.testing.assert_allclose(along, 0, atol=1e-12)
    h = np.hypot(*np.diff(q, axis=0).T).mean()
    targets = q0 + np.arange(1, 6)[:, None] * h * [0, 1]
    # clamped: at most sin(30°) of the correction's length
    assert np.all(np.hypot(*v[:5].T) <= 0.5 * np.hypot(*(targets - xi[:5]).T) + 1e-12)


def test_minor_arc_joins_the_ends_under_half_a_turn():
    rng = np.random.default_rng(1)
    q0, qe = np.array([0.2, 0.3]), np.array([1.5, 0.9])
    for _ in range(20):
        arc = chomp_costs.minor_arc(q0, qe, 50, rng)
        full = chomp_costs.full(arc, q0, qe)
        steps = np.hypot(*np.diff(full, axis=0).T)
        np.testing.assert_allclose(steps, steps.mean(), rtol=1e-9)  # uniform along the arc
        kappa = paths.curvatures(full)[1:-1]
        np.testing.assert_allclose(kappa, kappa[0], rtol=1e-6)  # one circle
        turn = abs(kappa[0]) * steps.sum()
        assert turn < math.pi


# §3.4.5: 90° to 0°
@pytest.mark.parametrize(
    'start, goal',
    [
        (ROOT_SCENE.start, ROOT_SCENE.goal),
        # Fig. 3.27
        ((0.35, 1.8, -math.pi / 2), (2.25, 1.0, -math.pi / 2)),
    ],
)
def test_pl03_the_thesis_scenes_are_planned_feasibly(start, goal):
    field = DistanceField.from_scene(ROOT_SCENE)
    plan = chomp.plan(field, start, goal)
    assert plan.success, plan.reason
    assert plan.details['min_clearance_m'] >= 0.04
    assert plan.max_curvature <= 12.52 and plan.path.shape == (102, 2)
    assert plan.path[0] == pytest.approx(start[:2]) and plan.path[-1] == pytest.approx(goal[:2])
    assert (
        max(plan.details['start_heading_error_deg'], plan.details['goal_heading_error_deg']) <= 10
    )
    assert paths.problems(plan.path, field, 12.52, 0.04, start, goal) == []


def test_pl02_ends_fixed_lambda_non_decreasing_and_best_cost_non_increasing():
    field = DistanceField.from_scene(ROOT_SCENE)
    search = chomp._Search(
        field,
        ROOT_SCENE.start,
        ROOT_SCENE.goal,
        ChompSettings(converged_stop=False, max_restarts=0),
    )
    search.run()
    # the best so far, ordered as kept (feasible before infeasible, then U), never gets worse
    assert all(later <= earlier for earlier, later in zip(search.history, search.history[1:]))
    assert search.history[-1][0] is False
    s = ChompSettings()
    lambdas = [s.lambda0 * s.lambda_growth**k for k in range(60)]
    assert np.all(np.diff(lambdas) >= 0)


def test_pl04_curvature_falls_on_a_hairpin():
    a = np.linspace(-np.pi / 2, np.pi / 2, 42)
    hairpin = np.column_stack([1.0 + 0.06 * np.cos(a), 1.0 + 0.06 * np.sin(a)])  # κ ≈ 16.7
    s = ChompSettings(n_points=40, max_restarts=0, converged_stop=False, max_iterations=30)
    search = chomp._Search(
        OPEN, np.array([*hairpin[0], 0.0]), np.array([*hairpin[-1], math.pi]), s
    )
    worst = []
    xi = hairpin[1:-1].copy()
    for _ in range(30):
        path = chomp_costs.full(xi, hairpin[0], hairpin[-1])
        worst.append(np.abs(paths.curvatures(path)).max())
        circles = chomp_costs.virtual_obstacles(path, s.kappa_max)
        _, g = chomp_costs.obstacle_term(xi, hairpin[0], hairpin[-1], OPEN, circles, s.epsilon_m)
        step = chomp.cho_solve(search.metric, g)
        xi = xi - step / max(s.eta, np.hypot(*step.T).max() / 0.005)
    assert worst[0] > 16 and worst[-1] < 0.8 * worst[0]


def test_a_wall_with_a_gap_off_the_line_needs_a_restart_or_bend_and_is_passed():
    scene = scene_from_dict(
        {
            'bounds': [0, 0, 3, 2],
            'resolution': 0.01,
            'polygons': [[[1.4, 0.0], [1.6, 0.0], [1.6, 1.3], [1.4, 1.3]]],
        }
    )
    field = DistanceField.from_scene(scene)
    plan = chomp.plan(field, (0.4, 0.6, 0.0), (2.6, 0.6, 0.0))
    assert plan.success, plan.reason
    crossing = plan.path[np.argmin(np.abs(plan.path[:, 0] - 1.5))]
    assert crossing[1] > 1.3 + 0.04


def test_an_unreachable_goal_is_reported_failed_never_returned_as_success():
    ring = [
        [1.5 + 0.4 * math.cos(a), 1.0 + 0.4 * math.sin(a), 0.08]
        for a in np.linspace(0, 2 * math.pi, 40)
    ]
    field = DistanceField.from_scene(
        scene_from_dict({'bounds': [0, 0, 3, 2], 'resolution': 0.01, 'circles': ring})
    )
    plan = chomp.plan(field, (0.3, 1.0, 0.0), (1.5, 1.0, 0.0), ChompSettings(max_restarts=2))
    assert not plan.success and 'collides' in plan.reason and plan.details['restarts'] == 2


@pytest.mark.parametrize(
    'start, reason',
    [
        ((1.0, 1.0, 0.0), 'inside an obstacle'),
        ((float('nan'), 0.3, 0.0), 'must be finite'),
        ((1.7, 1.7, 0.0), 'the same point'),
    ],
)
def test_bad_ends_are_refused_with_a_reason(start, reason):
    plan = chomp.plan(ONE_CIRCLE, start, (1.7, 1.7, 0.0))
    assert not plan.success and reason in plan.reason and plan.effort == 0


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match='lambda_growth'):
        ChompSettings(lambda_growth=0.9)
    with pytest.raises(ValueError, match='n_points'):
        ChompSettings(n_points=2)


def test_the_point_count_follows_the_distance_and_the_turning_radius():
    """Issue 28: CHOMP was fixed at 100 points, 3 cm apart on the thesis's scene, 28 cm on a 28 m
    diagonal."""
    from salamander_nav import planning

    assert chomp.points_for((0, 0, 0), (2.0, 0, 0), 12.5) == 100
    assert chomp.points_for((0, 0, 0), (2.0, 0, 0), 6.25) == 50
    assert chomp.points_for((0, 0, 0), (0.1, 0, 0), 12.5) == chomp.MIN_POINTS
    assert chomp.points_for((0, 0, 0), (100.0, 0, 0), 12.5) == chomp.MAX_POINTS
    start, goal = (0.2, 1.5, 0.0), (2.8, 1.5, 0.0)
    plan = planning.plan('chomp', OPEN, start, goal)
    assert plan.success, plan.reason
    assert (
        len(plan.path) == chomp.points_for(start, goal, ChompSettings().kappa_max) + 2 == 131 + 2
    )


def test_chomp_started_from_lattice_astars_path_passes_a_slalom_it_misses_from_the_line():
    """Issue 28, item 4: CHOMP's straight line and minor arcs cannot find an S; A*'s path can
    seed it, always (``chomp_from_lattice``) or once the line's attempt failed (the default)."""
    from salamander_nav import planning

    slalom = [
        [[0.95, 0.0], [1.05, 0.0], [1.05, 1.4], [0.95, 1.4]],
        [[1.95, 0.6], [2.05, 0.6], [2.05, 2.0], [1.95, 2.0]],
    ]
    field = DistanceField.from_scene(
        scene_from_dict({'bounds': [0, 0, 3, 2], 'resolution': 0.01, 'polygons': slalom})
    )
    start, goal = (0.4, 1.0, 0.0), (2.6, 1.0, 0.0)
    alone = planning.plan('chomp', field, start, goal, planning.THESIS)
    assert not alone.success and 'collides' in alone.reason
    # A* bounded by its expansions, not the clock: on a slow machine the thesis's unweighted A*
    # ran out of its 10 s after 67,328 expansions
    untimed = replace(planning.THESIS, chomp_from_lattice=True, max_planning_s=600.0)
    seeded = planning.plan('chomp', field, start, goal, untimed)
    assert seeded.success, seeded.reason
    assert seeded.details['lattice_seed'] and seeded.details['lattice_expansions'] > 0
    # as many points as A*'s longer path asks
    assert len(seeded.path) > len(alone.path)
    assert paths.problems(seeded.path, field, KAPPA_MAX, 0.06, start, goal) == []
    fallback = planning.plan(
        'chomp', field, start, goal, planning.PlannerOptions(max_planning_s=600.0)
    )
    assert fallback.success and fallback.details['line_attempt'] == alone.reason
    assert fallback.effort > alone.effort and fallback.planning_s > alone.planning_s
    # A* out of budget too: the line's attempt is the answer, not run a second time
    starved = planning.plan(
        'chomp', field, start, goal, planning.PlannerOptions(astar_max_expansions=1)
    )
    assert not starved.success and starved.reason == alone.reason
    assert starved.effort == alone.effort and 'line_attempt' not in starved.details
    assert 'budget of 1 expansions' in starved.details['lattice_reason']
