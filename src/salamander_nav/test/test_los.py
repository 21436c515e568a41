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


def test_projection_is_clamped_to_the_segment_and_reference_leads_by_the_lookahead():
    tracker = LosTracker(STRAIGHT, LosSettings(lookahead_m=0.2, switch_radius_m=0.05))
    out = tracker.step((-0.3, 0.4, 0.0), 0, 0)
    assert out.projection == (0.0, 0.0) and out.reference == pytest.approx((0.2, 0.0))
    out = tracker.step((0.5, -0.2, 0.0), 0, 0.05)
    assert out.projection == pytest.approx((0.5, 0.0)) and out.reference == pytest.approx(
        (0.7, 0.0)
    )
    assert out.cross_track_m == pytest.approx(-0.2) and out.distance_left_m == pytest.approx(1.5)
    # 0.15 m left on the segment ≤ Δ: the waypoint
    out = tracker.step((0.85, 0.1, 0.0), 0, 0.1)
    assert out.reference == (1.0, 0.0)


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
