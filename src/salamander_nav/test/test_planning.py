"""The independent check of a planned path, and the plan's JSON form."""

import math

import numpy as np
import pytest

from salamander_nav.distance_field import DistanceField
from salamander_nav.planning import paths
from salamander_nav.planning.paths import Plan
from salamander_nav.scene import scene_from_dict

FIELD = DistanceField.from_scene(
    scene_from_dict({'bounds': [0, 0, 2, 2], 'resolution': 0.01, 'circles': [[1.0, 1.0, 0.2]]})
)


def test_menger_curvature_of_a_circle_and_headings():
    angles = np.linspace(0, math.pi / 2, 30)
    arc = np.column_stack([0.5 * np.cos(angles), 0.5 * np.sin(angles)])
    kappa = paths.curvatures(arc)
    np.testing.assert_allclose(kappa[1:-1], 2.0, rtol=1e-12)
    assert kappa[0] == kappa[-1] == 0 and paths.curvatures(arc[::-1])[5] == pytest.approx(-2.0)
    assert paths.headings([[0, 0], [1, 1], [1, 2]]).tolist() == pytest.approx(
        [math.pi / 4, math.pi / 2] * 1 + [math.pi / 2]
    )
    assert paths.length([[0, 0], [3, 4], [3, 5]]) == 6.0


def test_a_good_path_has_no_problems_and_a_bad_one_has_each():
    good = np.column_stack([np.linspace(0.2, 1.8, 50), np.full(50, 0.3)])
    assert paths.problems(good, FIELD, 12.5, 0.04, (0.2, 0.3, 0.0), (1.8, 0.3, 0.0)) == []
    through = np.column_stack([np.linspace(0.2, 1.8, 50), np.full(50, 1.0)])
    found = paths.problems(through, FIELD, 12.5, 0.04, (0.2, 1.0, math.pi / 2), (1.9, 1.0, 0.0))
    assert [f.split()[0] for f in found] == ['collides:', 'start', 'goal']
    kink = np.array([[0.2, 0.3], [0.3, 0.3], [0.3, 0.4]])
    assert 'exceeds κ_max' in paths.problems(kink, FIELD, 12.5)[0]
    assert paths.problems([[0, 0]], FIELD, 12.5)[0].startswith('a path needs')


def test_a_collision_between_points_is_found():
    # both ends free, the segment crosses the circle
    jump = np.array([[0.5, 1.0], [1.5, 1.0]])
    assert paths.problems(jump, FIELD, 12.5)[0].startswith('collides')


def test_json_form():
    plan = Plan(
        False,
        'budget exhausted',
        np.array([[0, 0], [0.3, 0.4]]),
        'lattice_astar',
        17,
        'expansions',
        0.0123,
        {'best_distance_m': 1.0},
    )
    out = plan.to_json()
    assert (
        out['success'] is False
        and out['expansions'] == 17
        and out['planning_ms'] == pytest.approx(12.3)
    )
    assert out['path'] == [[0, 0], [0.3, 0.4]] and out['length_m'] == pytest.approx(0.5)
    assert out['headings_deg'][0] == pytest.approx(math.degrees(math.atan2(0.4, 0.3)))
    assert out['best_distance_m'] == 1.0
