"""What the controller computes around LOS (tracking.py) and the planner's scene at run time
(live_scene.py), without ROS."""

import math

import numpy as np
import pytest

from salamander_nav import origami, tracking
from salamander_nav.live_scene import LiveScene
from salamander_nav.los import LosStep
from salamander_nav.origami import Bend
from salamander_nav.scene import SceneError, scene_from_dict


def step(bend, drive=True):
    return LosStep(
        bend, drive, 'tracking' if drive else 'pose stale', 1, (0, 0), (0, 0), 0, 0, 0, 0
    )


def test_steering_command_turns_left_on_a_positive_bend_and_drives_every_wheel():
    left = tracking.steering_command(step(0.5), 0.08, 0.148, 0.02, Bend(0.148, 0, 0))
    assert (
        left.module_id == 1
        and left.bend == Bend(0.148, 0.5, math.pi)
        and left.wheel_rad_s == (4.0,) * 3
    )
    assert origami.steering_curvature(left.bend) == pytest.approx(0.5 / 0.148)
    right = tracking.steering_command(step(-0.5), 0.08, 0.148, 0.02, Bend(0.148, 0, 0))
    assert origami.steering_curvature(right.bend) == pytest.approx(-0.5 / 0.148)


def test_a_stop_holds_the_bend_and_stops_the_wheels():
    held = Bend(0.14, 0.3, math.pi)
    stop = tracking.steering_command(step(0.9, drive=False), 0.08, 0.148, 0.02, held)
    assert stop.bend == held and stop.wheel_rad_s == (0.0, 0.0, 0.0)


def test_bend_joints_split_the_planar_bend():
    joints = tracking.bend_joints(Bend(0.148, 1.2, math.pi))
    assert joints == pytest.approx([0.3] * 4) and tracking.joint_names()[-1] == 'body_bend_4'
    assert sum(tracking.bend_joints(Bend(0.148, 1.2, 0.0))) == pytest.approx(-1.2)


def test_stale_clock_gives_up_only_after_the_whole_period():
    clock = tracking.StaleClock(1.0)
    assert not clock.update(True, 10.0) and not clock.update(True, 10.9)
    assert clock.update(True, 11.01)
    assert (
        not clock.update(False, 11.1)
        and not clock.update(True, 11.2)
        and not clock.update(True, 12.1)
    )


def test_progress_checker_gives_up_only_after_a_window_without_progress():
    checker = tracking.ProgressChecker(0.02, 8.0)
    # 2 m left, then 10.5 mm of progress a second: 21 mm every 2 s
    assert all(checker.update(2.0 - 0.0105 * t, t) is None for t in range(20))
    # blocked at 1.80 m left (the last 20 mm came at 18 s, 1.811 m left): 8 s from then
    assert checker.update(1.8, 26.0) is None and checker.update(math.nan, 26.0) is None
    reason = checker.update(1.8, 26.01)
    assert reason == 'no progress: less than 20 mm along the path in 8.0 s (1.81 m left)'
    # circling: the distance left swings but never falls below its best by 20 mm
    circling = tracking.ProgressChecker(0.02, 8.0)
    swings = [circling.update(1.0 + 0.1 * math.sin(t), t) for t in np.arange(0, 20, 0.05)]
    assert swings[-1] and swings[-1].startswith('no progress')
    with pytest.raises(ValueError, match='must be > 0'):
        tracking.ProgressChecker(0.0, 8.0)


def test_a_speed_too_slow_for_the_progress_check_is_refused():
    assert tracking.progress_problem(0.005, 0.01, 8.0) is None  # 40 mm in 8 s
    problem = tracking.progress_problem(0.005, 0.03, 8.0)
    assert problem == (
        'speed_m_s = 0.005: 40 mm in progress_window_s = 8.0 s is under twice '
        'progress_required_m = 0.03 m'
    )


def test_the_end_heading_of_a_path_is_its_last_orientation_if_it_has_one():
    half = math.pi / 4
    assert tracking.end_heading((math.cos(half), 0, 0, math.sin(half))) == pytest.approx(
        math.pi / 2
    )
    assert tracking.end_heading((1, 0, 0, 0)) == 0.0
    assert tracking.end_heading((0, 0, 0, 0)) is None  # a path of positions only
    assert tracking.end_heading((math.nan, 0, 0, 1)) is None
    # not normalised: its direction still says the heading
    assert tracking.end_heading((2, 0, 0, 2)) == pytest.approx(math.pi / 2)


def test_trail_keeps_moving_points_only_and_caps_its_length():
    trail = tracking.Trail(spacing_m=0.01, max_points=3)
    kept = [trail.add((x, 0.0, 0.0)) for x in (0.0, 0.005, 0.011, 0.03, 0.05, 0.07)]
    assert kept == [True, False, True, True, True, True]
    assert trail.array()[:, 0].tolist() == [0.03, 0.05, 0.07]


SCENE = scene_from_dict({'bounds': [0, 0, 1, 1], 'resolution': 0.01, 'circles': [[0.5, 0.5, 0.1]]})


def test_world_obstacles_and_map_replace_what_the_field_sees():
    world = LiveScene(SCENE)
    assert world.field().clearance([0.5, 0.5]) < 0
    world.set_obstacles(
        np.array([[0.2, 0.2, 0.05]]), [np.array([[0.7, 0.7], [0.9, 0.7], [0.8, 0.9]])]
    )
    field = world.field()
    assert field.clearance([0.5, 0.5]) > 0 and field.clearance([0.2, 0.2]) < 0
    assert field.clearance([0.8, 0.75]) < 0
    occupied = np.zeros((50, 100), bool)
    occupied[:, 60:62] = True  # a wall on a 2 m × 1 m map at 2 cm
    world.set_map(occupied, (-1.0, 0.0), 0.02)
    field = world.field()
    assert field.shape == (50, 100) and field.clearance([0.21, 0.5]) < 0
    # the obstacles stay, drawn on the map's grid
    assert field.clearance([0.2, 0.2]) < 0


def test_world_refuses_a_map_with_no_free_cell_and_keeps_the_previous_one():
    world = LiveScene(SCENE)
    with pytest.raises(SceneError, match='no free cell'):
        world.set_map(np.ones((10, 10), bool), (0, 0), 0.1)
    assert world.field().shape == (100, 100)


@pytest.mark.parametrize('max_points', [0, -1])
def test_a_trail_that_keeps_nothing_is_refused(max_points):
    # max_points = 0 kept every pose: del poses[:-0] deletes nothing
    with pytest.raises(ValueError, match='max_points'):
        tracking.Trail(max_points=max_points)
