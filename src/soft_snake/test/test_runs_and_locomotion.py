"""The valve driver's run bookkeeping (runs.py) and the speed and curvature of a centre-of-mass
track (locomotion.py), without ROS."""

import math

import numpy as np
import pytest

from soft_snake import locomotion
from soft_snake.gaits import GaitError
from soft_snake.parameters import GAIT
from soft_snake.runs import GaitRequest, Run, SpeedTracker
from soft_snake.step_climb import FINISH_S, TABLE_2_3
from soro_node.params import named

DEFAULTS = {'frequency_hz': 2.0, 'beta_rad': 2 * math.pi / 3, 'phi': 0.0, 'wave_direction': -1}


def test_a_run_takes_the_defaults_and_turns_the_wave_head_first():
    run = Run(GaitRequest('undulation', cycles=3), DEFAULTS, 4, 100.0)
    assert run.ticks == 150 and run.period_s == 0.5 and run.climb is None
    k = run.pattern(0.1)
    assert k.shape == (4, 3) and np.all(k[:, 2] == -1) and np.all(k[:, 1] == -k[:, 0])
    # β → −β: segment 1 lags segment 0 by β/(2πω) instead of leading it
    lag = (2 * math.pi / 3) / (2 * math.pi * 2.0)
    assert np.array_equal(run.pattern(0.05 + lag)[1], run.pattern(0.05)[0])


@pytest.mark.parametrize(
    'request_, snake, reason',
    [
        (GaitRequest('undulation', frequency_hz=2.5, duration_s=1.0), 4, 'frequency = 2.5 Hz'),
        (
            GaitRequest('sidewinding', segments=3, duration_s=1.0),
            4,
            'segments = 3: the snake on the link has 4',
        ),
        (GaitRequest('step_climb', duration_s=1.0), 4, 'segments = 4: step climbing needs 5'),
        (GaitRequest('undulation', phi=math.inf, duration_s=1.0), 4, 'phi = inf: must be finite'),
        (GaitRequest('undulation'), 4, 'give one of the two'),
        (
            GaitRequest('undulation', duration_s=1e5),
            4,
            r'duration = 100000 s: allowed \[0.5, 3600\] s',
        ),
        # each read as "give one of the two", or run as 0 cycles and a success (the hostile pass)
        (GaitRequest('undulation', duration_s=math.nan), 4, r'duration_s = nan: allowed \(0, '),
        (GaitRequest('undulation', duration_s=-1.0), 4, r'duration_s = -1.0: allowed \(0, '),
        (
            GaitRequest('undulation', duration_s=1e-9),
            4,
            r'duration = 1e-09 s: allowed \[0.5, 3600\] s \(one period at least\)',
        ),
        (GaitRequest('crawl', duration_s=1.0), 4, "gait 'crawl'"),
    ],
)
def test_bad_requests_are_refused_by_name(request_, snake, reason):
    with pytest.raises(GaitError, match=reason):
        Run(request_, DEFAULTS, snake, 100.0)


def test_a_climb_runs_its_rows_pulls_the_tail_on_and_rests_vented():
    run = Run(GaitRequest('step_climb', duration_s=5.0), DEFAULTS, 5, 100.0)
    # row 1: the head segment in state 3
    assert run.pattern(0.0)[0].tolist() == [1, 1, -1]
    for _ in range(len(TABLE_2_3)):
        run.climb.advance()
    # every wheel up: the finishing row (segment 4 pressing down) for its 20 s, then all vented
    assert run.pattern(1.0)[3].tolist() == [-1, -1, 1]
    assert np.all(run.pattern(1.0 + FINISH_S) == -1)


def test_cycle_path_speed_and_curvature_of_known_tracks():
    t = np.arange(0, 10, 0.02)
    wiggle = np.column_stack([0.1 * t, 0.02 * np.sin(2 * math.pi * t / 0.5)])
    path = locomotion.cycle_path(t, wiggle, 0.5)
    assert len(path) == 19 and np.allclose(path[:, 1], 0, atol=1e-3)
    assert locomotion.speed(path, 0.5) == pytest.approx(0.1, rel=1e-3)
    # 0.1 m/s on a 0.5 m circle
    a = 0.2 * t
    circle = np.column_stack([0.5 * np.sin(a), 0.5 * (1 - np.cos(a))])
    assert locomotion.mean_curvature(locomotion.cycle_path(t, circle, 0.5)) == pytest.approx(
        2.0, rel=0.02
    )
    assert math.isnan(locomotion.mean_curvature(path[:2] * 0.01))  # too short to say
    assert locomotion.forward_speed(path, np.full(len(path), math.pi), 0.5) == pytest.approx(
        -0.1, rel=1e-3
    )


def test_the_speed_tracker_reads_motion_capture_as_the_simulator_does():
    tracker = SpeedTracker(0.5)
    assert math.isnan(tracker.run()[1]) and math.isnan(tracker.last_period_speed())
    for k in range(200):
        tracker.add(1000.0 + 0.02 * k, 0.05 * 0.02 * k, 0.0)
    distance, speed = tracker.run()
    # 3.98 s tracked: 7 whole periods, 6 steps between their means
    assert speed == pytest.approx(0.05, rel=1e-3) and distance == pytest.approx(
        0.05 * 0.5 * 6, rel=1e-3
    )
    assert tracker.last_period_speed() == pytest.approx(0.05, rel=1e-3)


def test_the_speed_tracker_drops_samples_out_of_order_or_not_finite():
    tracker = SpeedTracker(0.5)
    assert tracker.add(10.0, 0.0, 0.0) and tracker.add(10.1, 0.01, 0.0)
    assert not tracker.add(10.1, 5.0, 0.0)  # a repeat
    assert not tracker.add(3.0, 5.0, 0.0)  # from before
    assert not tracker.add(10.2, math.nan, 0.0) and not tracker.add(math.inf, 0.0, 0.0)
    assert tracker.add(10.2, 0.02, 0.0)


def test_a_cycle_path_over_a_span_of_decades_is_only_its_cycles():
    """A sample stamped at the epoch before a run's: its own cycle, then the run's periods (before,
    a loop over every period between them, 3.6e9 of them, stalled the driver)."""
    t = np.concatenate([[0.0], 1.8e9 + np.arange(0, 2.0, 0.02)])
    xy = np.column_stack([0.1 * t - 1.8e8 * (t > 0), np.zeros_like(t)])
    path = locomotion.cycle_path(t, xy, 0.5)
    assert len(path) == 1 + 3 and path[0].tolist() == [0.0, 0.0]
    assert np.diff(path[1:, 0]) == pytest.approx([0.05, 0.05])


@pytest.mark.parametrize('direction', [0, 2, -2])
def test_a_wave_direction_other_than_plus_or_minus_one_is_refused(direction):
    """wave_direction:=0 was taken at run time, and every gait then ran with β = 0 (all segments
    alike) and reported success (the hostile pass)."""
    spec = named(GAIT, 'wave_direction')
    assert spec.check(direction) == (
        f'parameter wave_direction = {direction}: allowed values are -1, 1'
    )
    assert spec.check(-1) is None and spec.check(1) is None
