"""Lattice A* (thesis §3.4.1; spec B5.1, C3: PL-06) on its primitives and on scenes whose answer is
known."""

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from salamander_nav.distance_field import DistanceField
from salamander_nav.euler_spiral import Piece
from salamander_nav.origami import KAPPA_MAX
from salamander_nav.planning import connection, lattice_astar, paths
from salamander_nav.planning.flood import FloodHeuristic
from salamander_nav.planning.lattice_astar import LatticeSettings, PrimitiveSet
from salamander_nav.scene import load_scene, scene_from_dict

SETTINGS = LatticeSettings()
ELL, TOL = SETTINGS.primitive_length_m, SETTINGS.goal_tolerance_m
SCENE = Path(__file__).resolve().parents[3] / 'config' / 'salamander_scene.yaml'


def field_of(bounds=(0, 0, 3, 2), resolution=0.01, **obstacles):
    scene = scene_from_dict({'bounds': list(bounds), 'resolution': resolution, **obstacles})
    return DistanceField.from_scene(scene)


def check(plan, field, start, goal):
    """The independent check of paths.py, without end headings (lattice A* gives no such
    guarantee)."""
    return paths.problems(
        plan.path,
        field,
        SETTINGS.kappa_max,
        SETTINGS.clearance_m,
        start,
        goal,
        goal_tolerance_m=TOL,
        heading_tolerance_rad=None,
    )


def test_defaults_are_spec_b51():
    assert ELL == pytest.approx(0.074) and TOL == pytest.approx(0.037)
    assert (SETTINGS.curvature_levels, SETTINGS.cell_m, SETTINGS.heading_bins) == (5, 0.01, 32)
    assert (
        SETTINGS.kappa_max == KAPPA_MAX
        and SETTINGS.clearance_m == 0.04
        and SETTINGS.sample_spacing_m <= 0.005
    )


def test_primitives_are_euler_spiral_pieces_continuous_in_curvature_within_kappa_max():
    primitives = PrimitiveSet(SETTINGS)
    assert len(primitives) == 25
    np.testing.assert_allclose(
        primitives.kappas, np.array([-1, -0.5, 0, 0.5, 1]) * KAPPA_MAX, atol=1e-12
    )
    along = np.linspace(0, ELL, 50)
    for i, kappa in enumerate(primitives.kappas):
        for n, (target, sigma) in enumerate(zip(primitives.targets[i], primitives.sigmas[i])):
            piece = Piece(0.0, 0.0, 0.0, kappa, (primitives.kappas[target] - kappa) / ELL, ELL)
            assert sigma == pytest.approx(piece.sigma, abs=1e-12)
            np.testing.assert_allclose(primitives.ends[i][n], piece.end()[:3], atol=1e-12)
            np.testing.assert_allclose(primitives.samples[i][n][-1], piece.end()[:2], atol=1e-12)
            # the child starts at this primitive's end curvature: continuous κ at the node
            assert piece.curvature(ELL) == pytest.approx(primitives.kappas[target], abs=1e-9)
            assert np.abs(piece.curvature(along)).max() <= KAPPA_MAX * (1 + 1e-12)
            spacing = np.hypot(*np.diff(np.vstack([[0, 0], primitives.samples[i][n]]), axis=0).T)
            assert spacing.max() <= SETTINGS.sample_spacing_m
        assert i in primitives.targets[i]  # the constant-κ arc


def test_a_max_sharpness_drops_the_sharp_transitions_but_never_the_arc():
    primitives = PrimitiveSet(LatticeSettings(max_sharpness=1.01 * 0.5 * KAPPA_MAX / ELL))
    # arcs, and one level either way
    assert len(primitives) == 5 + 2 * 4
    for i, targets in enumerate(primitives.targets):
        assert i in targets and np.all(np.abs(targets - i) <= 1)


def test_open_field_goes_straight_with_the_fewest_primitives():
    field, start, goal = field_of(), (0.3, 1.0, 0.0), (2.7, 1.0, 0.0)
    plan = lattice_astar.plan(field, start, goal)
    assert plan.success, plan.reason
    assert plan.planner == 'lattice_astar' and plan.effort_name == 'expansions'
    assert check(plan, field, start, goal) == []
    assert plan.length_m <= 2.4 * 1.03
    assert plan.details['primitives_used'] <= math.ceil(2.4 / ELL) + 1
    assert plan.effort < 200
    # details are plain numbers and lists
    json.dumps(plan.to_json())


def test_a_turned_start_still_uses_about_the_fewest_primitives():
    field, start, goal = field_of(), (0.3, 0.3, 1.2), (2.7, 1.7, 0.0)
    plan = lattice_astar.plan(field, start, goal)
    assert plan.success, plan.reason
    distance = math.dist(start[:2], goal[:2])
    assert plan.details['primitives_used'] <= math.ceil(distance / ELL) + 3
    assert plan.details['final_heading_error_deg'] >= 0


def test_a_wall_with_a_gap_is_passed_through_the_gap():
    wall = [
        [[1.4, 0.0], [1.6, 0.0], [1.6, 1.2], [1.4, 1.2]],
        [[1.4, 1.6], [1.6, 1.6], [1.6, 2.0], [1.4, 2.0]],
    ]
    field, start, goal = field_of(polygons=wall), (0.3, 1.0, 0.0), (2.7, 1.0, 0.0)
    plan = lattice_astar.plan(field, start, goal)
    assert plan.success, plan.reason
    crossing = plan.path[np.argmin(np.abs(plan.path[:, 0] - 1.5))]
    assert 1.2 + SETTINGS.clearance_m <= crossing[1] <= 1.6 - SETTINGS.clearance_m
    assert check(plan, field, start, goal) == []


def test_path_is_continuous_at_every_node_and_made_of_the_primitives():
    field, start, goal = field_of(circles=[[1.5, 1.0, 0.3]]), (0.3, 1.0, 0.0), (2.7, 1.1, 0.0)
    plan = lattice_astar.plan(field, start, goal, LatticeSettings(analytic_expansion=False))
    assert plan.success, plan.reason
    assert check(plan, field, start, goal) == []
    nodes = np.array(plan.details['nodes'])
    np.testing.assert_allclose(nodes[0], [*start, 0.0])
    steps = PrimitiveSet(SETTINGS).steps
    assert len(plan.path) == 1 + steps * (len(nodes) - 1)
    for n, (a, b) in enumerate(zip(nodes[:-1], nodes[1:])):
        # the primitive between two nodes
        end = Piece(*a, (b[3] - a[3]) / ELL, ELL).end()
        # position, heading and curvature
        assert np.abs(end - b).max() <= 1e-9
        # the dense path passes the node
        assert np.abs(plan.path[steps * (n + 1)] - b[:2]).max() <= 1e-9
    assert plan.max_curvature <= KAPPA_MAX * (1 + 1e-6)


def test_an_enclosed_goal_exhausts_the_lattice_and_returns_the_best_partial_path():
    ring = [
        [1.0 + 0.3 * math.cos(a), 0.6 + 0.3 * math.sin(a), 0.06]
        for a in np.linspace(0, 2 * math.pi, 30)
    ]
    field = field_of((0, 0, 1.4, 1.2), 0.02, circles=ring)
    start, goal = (0.2, 0.6, 0.0), (1.0, 0.6, 0.0)
    exhaustive = LatticeSettings(cell_m=0.05, heading_bins=16, obstacle_heuristic=False)
    plan = lattice_astar.plan(field, start, goal, exhaustive)
    assert not plan.success and plan.reason.startswith('no path: every reachable lattice state')
    assert f'({plan.effort})' in plan.reason
    assert len(plan.path) > 1 and math.dist(plan.path[-1], goal[:2]) < math.dist(
        start[:2], goal[:2]
    )
    assert plan.details['best_distance_m'] == pytest.approx(math.dist(plan.path[-1], goal[:2]))
    assert plan.details['states_stored'] >= plan.effort and plan.details['peak_open'] >= 1
    # the flood sees that nothing leads in: no expansion at all
    flood = lattice_astar.plan(field, start, goal, replace(exhaustive, obstacle_heuristic=True))
    assert flood.reason.startswith('no path: every reachable lattice state (0) explored')


def test_budgets_end_the_search_with_the_reason_and_a_partial_path():
    field, start, goal = field_of(), (0.3, 1.0, 0.0), (2.7, 1.0, 0.0)
    plan = lattice_astar.plan(field, start, goal, LatticeSettings(max_expansions=5))
    assert (
        not plan.success
        and plan.reason.startswith('budget of 5 expansions exhausted')
        and plan.effort == 5
    )
    assert len(plan.path) > 1 and math.dist(plan.path[-1], goal[:2]) < math.dist(
        start[:2], goal[:2]
    )
    # no way through: runs into time
    wall = [[[1.4, 0.0], [1.6, 0.0], [1.6, 2.0], [1.4, 2.0]]]
    plan = lattice_astar.plan(
        field_of(polygons=wall),
        start,
        goal,
        LatticeSettings(max_time_s=0.02, obstacle_heuristic=False),
    )
    assert not plan.success and plan.reason.startswith('time budget of 0.02 s exhausted')
    # the memory bound: states stored
    plan = lattice_astar.plan(
        field_of(polygons=CUP),
        start,
        goal,
        LatticeSettings(max_states=1000, obstacle_heuristic=False),
    )
    assert not plan.success and plan.reason.startswith('memory budget of 1000 states (about 0 MB)')
    assert 1000 <= plan.details['states_stored'] <= 1000 + len(PrimitiveSet(SETTINGS))


@pytest.mark.parametrize(
    'start, goal, reason',
    [
        ((1.5, 1.0, 0.0), (2.7, 1.0, 0.0), 'start (1.500, 1.000) is inside an obstacle'),
        ((0.3, 1.0, 0.0), (1.5, 1.0, 0.0), 'goal (1.500, 1.000) is inside an obstacle'),
        ((1.25, 1.0, 0.0), (2.7, 1.0, 0.0), 'mm from an obstacle (needs 40 mm)'),
        ((-0.5, 1.0, 0.0), (2.7, 1.0, 0.0), 'off the map'),
        ((0.3, math.inf, 0.0), (2.7, 1.0, 0.0), 'must be finite'),
        ((0.3, 1.0, math.nan), (2.7, 1.0, 0.0), 'must be finite'),
        ((0.3, 1.0), (2.7, 1.0, 0.0), 'must be finite poses'),
    ],
)
def test_bad_ends_fail_at_once_with_the_reason(start, goal, reason):
    no_margin = LatticeSettings(safety_margin_m=0.0)
    plan = lattice_astar.plan(field_of(circles=[[1.5, 1.0, 0.22]]), start, goal, no_margin)
    assert not plan.success and reason in plan.reason and plan.effort == 0


# a cup open toward the start, the goal behind it: the Euclidean heuristic fills it
CUP = [
    [[1.0, 0.45], [1.7, 0.45], [1.7, 0.55], [1.0, 0.55]],
    [[1.6, 0.45], [1.7, 0.45], [1.7, 1.55], [1.6, 1.55]],
    [[1.0, 1.45], [1.7, 1.45], [1.7, 1.55], [1.0, 1.55]],
]


def test_the_flood_heuristic_keeps_the_search_out_of_a_cup():
    field, start, goal = field_of(polygons=CUP), (0.3, 1.0, 0.0), (2.7, 1.0, 0.0)
    untimed = LatticeSettings(max_time_s=1e5)  # budgets in expansions only: no timed test
    flood = lattice_astar.plan(field, start, goal, untimed)
    assert flood.success and flood.effort < 80_000, flood.reason
    assert check(flood, field, start, goal) == []
    # the Euclidean heuristic fills the cup: as many expansions are not enough (it searched 10 s,
    # 160,000 expansions, without a path)
    euclidean = replace(untimed, obstacle_heuristic=False, max_expansions=flood.effort)
    plan = lattice_astar.plan(field, start, goal, euclidean)
    assert plan.reason.startswith(f'budget of {flood.effort} expansions exhausted')
    assert plan.details['best_distance_m'] > 1.0  # still in the cup


def test_the_flood_is_a_lower_bound_that_sees_round_obstacles():
    field, goal = field_of(polygons=CUP), (2.7, 1.0)
    flood = FloodHeuristic(field, goal, SETTINGS.required_m)
    inside = (1.45, 1.0)
    assert flood.at(*inside) > 1.5 * math.dist(inside, goal)
    plan = lattice_astar.plan(field, (*inside, math.pi), (*goal, 0.0))
    assert plan.success, plan.reason
    assert flood.at(*inside) <= plan.length_m - TOL
    # walled in: nothing leads to the goal
    assert FloodHeuristic(field, (1.3, 1.0), 0.5).at(0.3, 1.0) == math.inf


def test_a_start_within_the_tolerance_is_already_there():
    plan = lattice_astar.plan(field_of(), (1.0, 1.0, 0.0), (1.02, 1.0, 0.0))
    assert plan.success and plan.effort == 0 and plan.details['primitives_used'] == 0


def test_the_thesis_scene_is_solved():
    scene = load_scene(SCENE)
    field = DistanceField.from_scene(scene)
    thesis = LatticeSettings(analytic_expansion=False, turn_penalty=0.0)
    plan = lattice_astar.plan(field, scene.start, scene.goal, thesis)
    assert plan.success, plan.reason
    assert check(plan, field, scene.start, scene.goal) == []
    assert 'no heading guarantee' in plan.reason
    weighted = lattice_astar.plan(
        field, scene.start, scene.goal, replace(thesis, heuristic_weight=1.5)
    )
    assert weighted.success and weighted.effort <= plan.effort
    assert weighted.length_m <= 1.5 * plan.length_m
    euclidean = lattice_astar.plan(
        field, scene.start, scene.goal, replace(thesis, obstacle_heuristic=False)
    )
    assert euclidean.success and plan.effort < euclidean.effort
    assert plan.details['primitives_used'] <= euclidean.details['primitives_used']


def test_the_thesis_scene_ends_at_the_goal_pose_turning_little_more_than_it_must():
    """Issue 28: the goal heading ended 27-80° off, and the path turned 10.5 rad in all for a
    1.6 rad net turn (uniform costs let it weave): the turn penalty at 1 primitive per radian."""
    scene = load_scene(SCENE)
    field = DistanceField.from_scene(scene)
    plan = lattice_astar.plan(field, scene.start, scene.goal, LatticeSettings(turn_penalty=1.0))
    assert plan.success and plan.reason.startswith('reached the goal pose'), plan.reason
    assert plan.details['final_heading_error_deg'] <= 2.0 and plan.details['analytic_expansion_m']
    assert math.dist(plan.path[-1], scene.goal[:2]) <= 1e-3
    _, goal_error = paths.heading_errors(plan.path, scene.start, scene.goal)
    assert math.degrees(goal_error) <= 2.0
    psi = np.unwrap(paths.headings(plan.path))
    assert np.abs(np.diff(psi)).sum() <= 2 * abs(psi[-1] - psi[0])
    assert check(plan, field, scene.start, scene.goal) == []
    weaving = lattice_astar.plan(field, scene.start, scene.goal)  # no penalty: the thesis's costs
    psi = np.unwrap(paths.headings(weaving.path))
    assert weaving.success and np.abs(np.diff(psi)).sum() > 4 * abs(psi[-1] - psi[0])


@pytest.mark.parametrize(
    'pose, kappa0, goal',
    [
        ((0, 0, 0), 0.0, (0.3, 0.1, 0.0)),
        ((0, 0, 0), 6.0, (0.2, 0.2, math.pi / 2)),
        ((0, 0, 0.5), -12.0, (0.25, -0.05, -1.0)),
        ((1, 1, 0), 0.0, (1.1, 1.2, math.pi)),
    ],
)
def test_the_analytic_expansion_is_an_euler_spiral_chain_to_the_exact_pose(pose, kappa0, goal):
    pieces = connection.connect(pose, kappa0, goal, KAPPA_MAX)
    assert pieces and pieces[0].kappa0 == pytest.approx(kappa0)
    for a, b in zip(pieces, pieces[1:]):  # continuous curvature and pose at every join
        np.testing.assert_allclose(a.end(), [b.x0, b.y0, b.psi0, b.kappa0], atol=1e-9)
    end = pieces[-1].end()
    assert math.dist(end[:2], goal[:2]) <= 1e-3
    assert abs(math.remainder(end[2] - goal[2], 2 * math.pi)) <= math.radians(0.5)
    assert max(abs(p.curvature(s)) for p in pieces for s in (0.0, p.length)) <= KAPPA_MAX
    dense = np.vstack([pose[:2], connection.samples(pieces, 0.005)])
    assert np.abs(paths.curvatures(dense)).max() <= KAPPA_MAX
    # 5 cm ahead, facing back: no curve within κ_max
    assert connection.connect((0, 0, 0), 0.0, (0.05, 0.0, math.pi), KAPPA_MAX) is None


def test_the_connections_solver_reads_the_exact_end_and_its_derivatives():
    """The quadrature end the solver fits is the pieces' exact end, and its Jacobian the finite
    differences of that end (a wrong one made the solver give up on poses it can reach)."""
    rng = np.random.default_rng(1)
    for _ in range(5):
        u = np.r_[rng.uniform(-12, 12, 3), rng.uniform(0.05, 1.0)]
        kappa0, psi0 = rng.uniform(-12, 12), rng.uniform(-3, 3)
        curve = connection._Curve(kappa0, psi0)
        x, y, psi, _ = curve.pieces(u, (0.0, 0.0, psi0))[-1].end()
        np.testing.assert_allclose(curve.end(u), [x, y, 0.1 * (psi - psi0)], atol=1e-12)
        steps = np.eye(4) * 1e-7
        differences = [
            (
                connection._Curve(kappa0, psi0).end(u + h)
                - connection._Curve(kappa0, psi0).end(u - h)
            )
            / 2e-7
            for h in steps
        ]
        np.testing.assert_allclose(curve.jacobian(u), np.column_stack(differences), atol=1e-7)


@pytest.mark.parametrize(
    'name, value',
    [
        ('primitive_length_m', 0.0),
        ('curvature_levels', 4),
        ('curvature_levels', 5.0),
        ('kappa_max', -1.0),
        ('max_sharpness', 0.0),
        ('cell_m', 0.0),
        ('heading_bins', 2),
        ('goal_tolerance_m', 0.0),
        ('clearance_m', -0.01),
        ('sample_spacing_m', 0.01),
        ('max_expansions', 0),
        ('max_expansions', True),
        ('max_states', 999),
        ('max_time_s', 0.0),
        ('heuristic_weight', 0.5),
        ('safety_margin_m', -0.01),
        ('obstacle_heuristic', 1),
        ('analytic_expansion', None),
        ('turn_penalty', -1.0),
        ('kappa_max', math.nan),
        ('cell_m', 'fine'),
    ],
)
def test_bad_settings_are_refused_naming_the_field_and_the_range(name, value):
    with pytest.raises(ValueError, match=rf'^LatticeSettings\.{name} = .*: allowed .+$'):
        LatticeSettings(**{name: value})
