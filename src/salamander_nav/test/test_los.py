"""Line-of-sight tracking with PD steering (spec B6, C3: LOS-01..05)."""

import math

import numpy as np
import pytest

from salamander_nav.los import LosSettings, LosTracker, wrap

STRAIGHT = [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]


def test_waypoint_switches_exactly_inside_the_switch_radius():
    tracker = LosTracker(STRAIGHT, LosSettings(switch_radius_m=0.1))
    assert tracker.step((0.8999, 0.0, 0.0), 0, 0).waypoint == 1  # 0.1001 m from w_1: not yet
    # 0.0999 m: inside R, next waypoint
    assert tracker.step((0.9001, 0.0, 0.0), 0, 0.05).waypoint == 2
    assert tracker.index == 2


def test_waypoint_switches_once_the_robot_has_passed_it_outside_the_radius():
    # 0.2 m to the side of w_1, never inside R: the old tracker held w_1 and circled it
    tracker = LosTracker(STRAIGHT, LosSettings(switch_radius_m=0.1))
    assert tracker.step((0.999, 0.2, 0.0), 0, 0).waypoint == 1  # not yet across w_1's normal
    out = tracker.step((1.001, 0.2, 0.0), 0, 0.05)
    assert out.waypoint == 2 and out.projection == pytest.approx((1.001, 0.0))
    # passing several at once: the first waypoint not passed
    tracker = LosTracker([(0, 0), (0.1, 0), (0.2, 0), (0.3, 0), (2, 0)])
    assert tracker.step((0.25, 0.5, 0.0), 0, 0).waypoint == 3


def test_the_goal_is_reached_only_with_its_heading_and_missed_once_passed():
    settings = LosSettings(goal_tolerance_m=0.05, goal_heading_tolerance_rad=0.2)
    tracker = LosTracker(STRAIGHT, settings, goal_heading=0.1)
    assert tracker.step((1.97, 0.01, 0.35), 0, 0).status == 'tracking'  # 0.25 rad off
    assert tracker.step((1.98, 0.01, 0.25), 0, 0.05).status == 'goal reached'  # 0.15 rad off
    missed = LosTracker(STRAIGHT, settings, goal_heading=0.1).step((2.01, 0.01, 0.5), 0, 0)
    assert (missed.status, missed.drive, missed.bend_rad) == ('goal missed', False, 0.0)
    # 80 mm to the side of the goal, across its normal: missed, not circled back to
    wide = LosTracker(STRAIGHT, settings).step((2.001, 0.08, 0.0), 0, 0)
    assert wide.status == 'goal missed'
    # without a heading at the path's end, any heading arrives
    assert LosTracker(STRAIGHT, settings).step((1.98, 0.0, 3.0), 0, 0).status == 'goal reached'
    with pytest.raises(ValueError, match='goal heading'):
        LosTracker(STRAIGHT, goal_heading=math.nan)


def test_projection_is_clamped_to_the_segment_and_reference_leads_by_the_lookahead():
    tracker = LosTracker(STRAIGHT, LosSettings(lookahead_m=0.2, switch_radius_m=0.05))
    out = tracker.step((-0.3, 0.4, 0.0), 0, 0)
    assert out.projection == (0.0, 0.0) and out.reference == pytest.approx((0.2, 0.0))
    out = tracker.step((0.5, -0.2, 0.0), 0, 0.05)
    assert out.projection == pytest.approx((0.5, 0.0)) and out.reference == pytest.approx(
        (0.7, 0.0)
    )
    assert out.cross_track_m == pytest.approx(-0.2) and out.distance_left_m == pytest.approx(1.5)
    # 0.15 m left on the segment ≤ Δ: no longer the waypoint (the lookahead would shrink to
    # nothing there) but Δ on along the segment's line
    out = tracker.step((0.85, 0.1, 0.0), 0, 0.1)
    assert out.reference == pytest.approx((1.05, 0.0))


def test_los_heading_and_wrapped_error():
    tracker = LosTracker(STRAIGHT, LosSettings(lookahead_m=0.3))
    out = tracker.step((0.0, -0.3, math.radians(170)), 0, 0)
    assert out.los_heading == pytest.approx(math.atan2(0.3, 0.3))
    assert out.heading_error == pytest.approx(wrap(math.pi / 4 - math.radians(170)))
    assert -math.pi < out.heading_error <= math.pi
    assert wrap(math.pi) == math.pi and wrap(-math.pi) == math.pi


def test_pd_is_zero_on_the_line_and_steers_back_toward_it():
    tracker = LosTracker(STRAIGHT)
    assert tracker.step((0.5, 0.0, 0.0), 0, 0).bend_rad == 0.0
    left_of_path = LosTracker(STRAIGHT).step((0.5, 0.1, 0.0), 0, 0)
    right_of_path = LosTracker(STRAIGHT).step((0.5, -0.1, 0.0), 0, 0)
    # turn right / left, toward the line
    assert left_of_path.bend_rad < 0 < right_of_path.bend_rad


def test_pd_derivative_and_saturation():
    settings = LosSettings(kp=2.0, kd_s=0.5, lookahead_m=0.3)
    tracker = LosTracker(STRAIGHT, settings)
    first = tracker.step((0.3, 0.0, 0.2), 0, 0.0)
    second = tracker.step((0.3, 0.0, 0.1), 0, 0.1)
    assert first.bend_rad == pytest.approx(2.0 * -0.2)
    assert second.bend_rad == pytest.approx(2.0 * -0.1 + 0.5 * (0.1 / 0.1))
    big = LosTracker(STRAIGHT, settings).step((0.3, 0.0, 3.0), 0, 0)
    assert big.bend_rad == pytest.approx(-math.radians(106))


def test_the_feed_forward_reads_the_curvature_the_preview_ahead():
    """On the path's line with no heading error, the bend is the feed-forward alone: κ s of the
    curvature at the projection, or ``curvature_preview_m`` further along (a quarter circle of
    radius 0.5 m after a straight metre)."""
    straight = np.column_stack([np.linspace(0, 1, 21), np.zeros(21)])
    angles = np.linspace(-math.pi / 2, 0, 40)[1:]
    path = np.vstack(
        [straight, np.column_stack([1 + 0.5 * np.cos(angles), 0.5 + 0.5 * np.sin(angles)])]
    )
    s = 0.148
    at_projection = LosTracker(path, LosSettings(s_nominal_m=s, kp=0.0, kd_s=0.0))
    assert at_projection.step((0.5, 0.0, 0.0), 0, 0).bend_rad == pytest.approx(0.0)
    previewed = LosTracker(
        path, LosSettings(s_nominal_m=s, kp=0.0, kd_s=0.0, curvature_preview_m=0.6)
    )
    assert previewed.step((0.5, 0.0, 0.0), 0, 0).bend_rad == pytest.approx(s / 0.5, rel=0.02)
    with pytest.raises(ValueError, match='curvature_preview_m'):
        LosSettings(curvature_preview_m=-0.1)


def test_stops_at_the_goal_and_on_a_stale_pose():
    tracker = LosTracker(STRAIGHT, LosSettings(goal_tolerance_m=0.05))
    assert tracker.step((1.0, 0.0, 0.0), 0, 0).waypoint == 2
    done = tracker.step((1.97, 0.01, 0.0), 0, 0.1)
    assert (done.drive, done.status, done.bend_rad) == (False, 'goal reached', 0.0)
    stale = LosTracker(STRAIGHT).step((0.5, 0.0, 0.0), 1.0, 1.31)
    assert (stale.drive, stale.status) == (False, 'pose stale')
    assert LosTracker(STRAIGHT).step((math.nan, 0.0, 0.0), 0, 0).status == 'pose not finite'


def test_follows_a_curve_in_closed_loop():
    # a unicycle that turns on the PD's bend (κ = bend / 0.148) follows a quarter circle within a
    # few cm
    from salamander_nav import kinematics

    angles = np.linspace(-math.pi / 2, 0, 40)
    path = np.column_stack([np.cos(angles), 1 + np.sin(angles)])
    tracker, state, t, worst = LosTracker(path), np.array([0.0, 0.0, 0.0, 0.0]), 0.0, 0.0
    for _ in range(2000):
        out = tracker.step(state[:3], t, t)
        if not out.drive:
            break
        kappa = out.bend_rad / 0.148
        state = kinematics.advance(state, 0.1, (kappa - state[3]) / 0.05, 0.05)
        t += 0.05
        worst = max(worst, abs(out.cross_track_m))
    assert out.status == 'goal reached' and worst < 0.03


@pytest.mark.parametrize('waypoints', [[(0, 0)], [(0, 0), (0, 0)], [(0, 0), (math.nan, 1)]])
def test_bad_paths_are_refused(waypoints):
    with pytest.raises(ValueError, match='waypoints'):
        LosTracker(waypoints)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match='lookahead_m'):
        LosSettings(lookahead_m=-1)
    with pytest.raises(ValueError, match='106'):
        LosSettings(max_bend_rad=3.0)
    with pytest.raises(ValueError, match='goal_heading_tolerance_rad'):
        LosSettings(goal_heading_tolerance_rad=0.0)
