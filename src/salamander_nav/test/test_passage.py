"""The passage check both planners make first: a goal behind a gap narrower than the robot, or
enclosed, is refused at once with the width it needed; a gap the robot fits through is not."""

import pytest

from salamander_nav import planning
from salamander_nav.distance_field import DistanceField
from salamander_nav.planning.passage import passage_problem
from salamander_nav.scene import scene_from_dict

START, GOAL = (0.3, 0.5, 0.0), (1.7, 0.5, 0.0)
HALF_WIDTH_M = 0.04  # the salamander is 8 cm wide


def wall_with_gap(gap_m: float) -> DistanceField:
    """A 4 cm wall across a 2 m x 1 m scene at x = 1 m, a gap of ``gap_m`` centred at y = 0.5."""
    low, high = 0.5 - gap_m / 2, 0.5 + gap_m / 2
    return DistanceField.from_scene(
        scene_from_dict(
            {
                'bounds': [0, 0, 2, 1],
                'resolution': 0.01,
                'polygons': [
                    [[0.98, -0.1], [1.02, -0.1], [1.02, low], [0.98, low]],
                    [[0.98, high], [1.02, high], [1.02, 1.1], [0.98, 1.1]],
                ],
            }
        )
    )


@pytest.mark.parametrize('gap_m', [0.09, 0.12, 0.3])
def test_a_gap_the_robot_fits_through_is_a_passage(gap_m):
    assert passage_problem(wall_with_gap(gap_m), START, GOAL, HALF_WIDTH_M) is None


@pytest.mark.parametrize('gap_m', [0.0, 0.05, 0.07])
def test_a_gap_narrower_than_the_robot_is_no_passage(gap_m):
    why = passage_problem(wall_with_gap(gap_m), START, GOAL, HALF_WIDTH_M)
    assert why and why.startswith('no passage at least 80 mm wide between start and goal')


@pytest.mark.parametrize('planner', planning.PLANNERS)
def test_both_planners_refuse_an_enclosed_goal_without_searching(planner):
    ring = [[1.5, 0.3], [1.9, 0.3], [1.9, 0.7], [1.5, 0.7]]
    inner = [[1.55, 0.35], [1.85, 0.35], [1.85, 0.65], [1.55, 0.65]]
    scene = scene_from_dict({'bounds': [0, 0, 2, 1], 'resolution': 0.01, 'polygons': [ring]})
    walled = DistanceField.from_scene(scene)
    hollow = scene_from_dict({'bounds': [0, 0, 2, 1], 'resolution': 0.01, 'polygons': [inner]})
    occupied = walled.occupied & ~DistanceField.from_scene(hollow).occupied
    field = DistanceField(occupied, (0.0, 0.0), 0.01)
    options = planning.PlannerOptions(HALF_WIDTH_M, safety_margin_m=0.0)
    plan = planning.plan(planner, field, START, GOAL, options)
    assert not plan.success and plan.effort == 0, plan.reason
    assert plan.reason.startswith('no passage at least 80 mm wide'), plan.reason
