"""Lattice A* (thesis §3.4.1; spec B5.1, C3: PL-06) on scenes whose answer is known."""
import math
from pathlib import Path

import numpy as np
import pytest

from salamander_nav import lattice_astar, maps, planning
from salamander_nav.euler_spiral import Piece
from salamander_nav.lattice_astar import LatticeSettings, PrimitiveSet

SETTINGS = LatticeSettings()


def field_of(**scene):
    return maps.DistanceField.from_scene(maps.scene_from_dict({'bounds': [0, 0, 3, 2], 'resolution': 0.01, **scene}))


def test_primitives_are_euler_spiral_pieces_continuous_in_curvature_within_kappa_max():
    primitives = PrimitiveSet(SETTINGS)
    assert len(primitives) == 25
    np.testing.assert_allclose(primitives.kappas, [-12.52 * k for k in (1, 0.5, 0, -0.5, -1)], atol=0.01)
    for i, kappa in enumerate(primitives.kappas):
        for j, target in enumerate(primitives.kappas):
            piece = Piece(0, 0, 0, kappa, (target - kappa) / 0.074, 0.074)
            np.testing.assert_allclose(primitives.ends[i][j], piece.end()[:3], atol=1e-12)
            assert piece.curvature(0.074) == pytest.approx(target)          # the child starts where this ends
            along = np.linspace(0, 0.074, 20)
            assert np.abs(piece.curvature(along)).max() <= SETTINGS.kappa_max + 1e-12


def test_open_field_goes_nearly_straight():
    start, goal = (0.3, 1.0, 0.0), (2.7, 1.0, 0.0)
    plan = lattice_astar.plan(field_of(), start, goal)
    assert plan.success, plan.reason
    assert plan.length_m <= 2.4 + 0.074 and math.dist(plan.path[-1], goal[:2]) <= SETTINGS.goal_tolerance_m
    assert plan.length_m / 0.074 <= math.ceil(2.4 / 0.074) + 1                # primitives used
    assert plan.effort < 1000


def test_a_wall_with_a_gap_is_passed_through_the_gap():
    wall = [[[1.4, 0.0], [1.6, 0.0], [1.6, 1.2], [1.4, 1.2]], [[1.4, 1.6], [1.6, 1.6], [1.6, 2.0], [1.4, 2.0]]]
    field = field_of(polygons=wall)
    settings = LatticeSettings(cell_m=0.05, heading_bins=16)            # behind a wall A* fills the pocket first
    plan = lattice_astar.plan(field, (0.3, 0.5, 0.0), (2.7, 0.5, 0.0), settings)
    assert plan.success, plan.reason
    crossing = plan.path[np.argmin(np.abs(plan.path[:, 0] - 1.5))]
    assert 1.2 + 0.04 <= crossing[1] <= 1.6 - 0.04
    assert planning.problems(plan.path, field, SETTINGS.kappa_max, SETTINGS.clearance_m, (0.3, 0.5, 0.0),
                             (2.7, 0.5, 0.0), SETTINGS.goal_tolerance_m, heading_tolerance_rad=None) == []


def test_path_is_continuous_in_position_and_heading_at_every_node():
    plan = lattice_astar.plan(field_of(circles=[[1.5, 1.0, 0.3]]), (0.3, 1.0, 0.0), (2.7, 1.1, 0.0),
                              LatticeSettings(cell_m=0.025))
    assert plan.success, plan.reason
    steps = np.hypot(*np.diff(plan.path, axis=0).T)
    assert steps.max() <= SETTINGS.sample_spacing_m + 1e-9                    # no jump between primitives
    turn = np.abs(np.diff(np.unwrap(planning.headings(plan.path))))
    assert turn.max() <= SETTINGS.kappa_max * SETTINGS.sample_spacing_m * 1.5  # no kink either


def test_an_enclosed_goal_exhausts_the_lattice_and_returns_the_best_partial_path():
    ring = [[1.5 + 0.45 * math.cos(a), 1.0 + 0.45 * math.sin(a), 0.08] for a in np.linspace(0, 2 * math.pi, 40)]
    field = maps.DistanceField.from_scene(maps.scene_from_dict({'bounds': [0, 0, 2.2, 2], 'resolution': 0.02,
                                                                'circles': ring}))
    settings = LatticeSettings(cell_m=0.05, heading_bins=16)
    plan = lattice_astar.plan(field, (0.2, 1.0, 0.0), (1.5, 1.0, 0.0), settings)
    assert not plan.success and plan.reason.startswith('no path: every reachable lattice state')
    assert math.dist(plan.path[-1], (1.5, 1.0)) < math.dist((0.2, 1.0), (1.5, 1.0))
    assert plan.details['best_distance_m'] == pytest.approx(math.dist(plan.path[-1], (1.5, 1.0)))


def test_budgets_end_the_search_with_the_reason():
    plan = lattice_astar.plan(field_of(), (0.3, 1.0, 0.0), (2.7, 1.0, 0.0), LatticeSettings(max_expansions=5))
    assert not plan.success and plan.reason.startswith('budget of 5 expansions exhausted') and plan.effort == 5
    assert len(plan.path) > 1


@pytest.mark.parametrize('start, goal, reason', [((1.5, 1.0, 0.0), (2.7, 1.0, 0.0), 'start (1.500, 1.000) is inside'),
                                                 ((0.3, 1.0, 0.0), (1.5, 1.0, 0.0), 'goal (1.500, 1.000) is inside'),
                                                 ((0.3, math.inf, 0.0), (2.7, 1.0, 0.0), 'must be finite')])
def test_bad_ends_are_refused(start, goal, reason):
    plan = lattice_astar.plan(field_of(circles=[[1.5, 1.0, 0.2]]), start, goal)
    assert not plan.success and reason in plan.reason and plan.effort == 0


def test_the_thesis_scene_is_solved_with_a_weight_for_speed():
    scene = maps.load_scene(Path(__file__).resolve().parents[3] / 'config' / 'salamander_scene.yaml')
    field = maps.DistanceField.from_scene(scene)
    weighted = lattice_astar.plan(field, scene.start, scene.goal, LatticeSettings(heuristic_weight=1.2))
    assert weighted.success, weighted.reason
    assert weighted.max_curvature <= SETTINGS.kappa_max * (1 + 1e-6)
    assert 'no heading guarantee' in weighted.reason


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match='heading_bins'):
        LatticeSettings(heading_bins=1)
    with pytest.raises(ValueError, match='heuristic_weight'):
        LatticeSettings(heuristic_weight=0.5)
