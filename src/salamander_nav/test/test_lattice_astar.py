"""Lattice A* (thesis §3.4.1; spec B5.1, C3: PL-06) on its primitives and on scenes whose answer is
known."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from salamander_nav.distance_field import DistanceField
from salamander_nav.euler_spiral import Piece
from salamander_nav.origami import KAPPA_MAX
from salamander_nav.planning import lattice_astar, paths
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
    plan = lattice_astar.plan(field, start, goal)
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
    plan = lattice_astar.plan(field, start, goal, LatticeSettings(cell_m=0.05, heading_bins=16))
    assert not plan.success and plan.reason.startswith('no path: every reachable lattice state')
    assert f'({plan.effort})' in plan.reason
    assert len(plan.path) > 1 and math.dist(plan.path[-1], goal[:2]) < math.dist(
        start[:2], goal[:2]
    )
    assert plan.details['best_distance_m'] == pytest.approx(math.dist(plan.path[-1], goal[:2]))
    assert plan.details['states_stored'] >= plan.effort and plan.details['peak_open'] >= 1


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
        field_of(polygons=wall), start, goal, LatticeSettings(max_time_s=0.02)
    )
    assert not plan.success and plan.reason.startswith('time budget of 0.02 s exhausted')


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
    plan = lattice_astar.plan(field_of(circles=[[1.5, 1.0, 0.22]]), start, goal)
    assert not plan.success and reason in plan.reason and plan.effort == 0


def test_a_start_within_the_tolerance_is_already_there():
    plan = lattice_astar.plan(field_of(), (1.0, 1.0, 0.0), (1.02, 1.0, 0.0))
    assert plan.success and plan.effort == 0 and plan.details['primitives_used'] == 0


def test_the_thesis_scene_is_solved():
    scene = load_scene(SCENE)
    field = DistanceField.from_scene(scene)
    plan = lattice_astar.plan(field, scene.start, scene.goal)
    assert plan.success, plan.reason
    assert check(plan, field, scene.start, scene.goal) == []
    assert 'no heading guarantee' in plan.reason
    weighted = lattice_astar.plan(
        field, scene.start, scene.goal, LatticeSettings(heuristic_weight=1.5)
    )
    assert weighted.success and weighted.effort <= plan.effort
    assert weighted.length_m <= 1.5 * plan.length_m


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
        ('max_time_s', 0.0),
        ('heuristic_weight', 0.5),
        ('kappa_max', math.nan),
        ('cell_m', 'fine'),
    ],
)
def test_bad_settings_are_refused_naming_the_field_and_the_range(name, value):
    with pytest.raises(ValueError, match=rf'^LatticeSettings\.{name} = .*: allowed .+$'):
        LatticeSettings(**{name: value})
