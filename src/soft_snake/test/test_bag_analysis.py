"""The soft-snake analysis (soro-analyze --robot soft_snake) on bags written here: a snake whose
centre of mass goes straight at 100 mm/s with a wiggle at the gait period, or round a circle of 0.5
m radius, with the driver's duties switching at 2 Hz; the speed, body lengths per second, the
period read off the duties and the path's curvature must come back as written."""

import math

import numpy as np
import pytest
from geometry_msgs.msg import PoseStamped
from rclpy.serialization import serialize_message
from std_msgs.msg import Float64MultiArray, Header, MultiArrayDimension, MultiArrayLayout

from soft_snake.bag_analysis import COM, DUTY, HEAD, PAST_EDGE, WHEELS, gait_period
from soft_snake.gaits import body_length_m
from soro_analysis.analyses import AnalysisError, analyze
from soro_analysis.bag import workspace_typestore
from soro_analysis.bag_writer import BagWriter

T0, PERIOD, SPEED = 1_700_000_000.0, 0.5, 0.1


def pose(t, x, y):
    msg = PoseStamped(header=Header(frame_id='world'))
    msg.header.stamp.sec, msg.header.stamp.nanosec = int(t), int(round((t - int(t)) * 1e9))
    msg.pose.position.x, msg.pose.position.y, msg.pose.orientation.w = float(x), float(y), 1.0
    return serialize_message(msg)


def duties(open_):
    layout = MultiArrayLayout(
        dim=[
            MultiArrayDimension(label='segments', size=4, stride=12),
            MultiArrayDimension(label='chambers', size=3, stride=3),
        ]
    )
    return serialize_message(
        Float64MultiArray(layout=layout, data=[1.0 if open_ else 0.0] + [0.0] * 11)
    )


def write(bag, track, run_s=10.0, switching=True, wheels=None):
    """``track(t)`` → (x, y) of the centre of mass at 50 Hz; the head 0.2 m ahead along the
    track; ``wheels``: {topic: f(t) → six values}, at 20 Hz."""
    wheels = wheels or {}
    with BagWriter(bag, workspace_typestore()) as writer:
        writer.add_topic(COM, 'geometry_msgs/msg/PoseStamped')
        writer.add_topic(HEAD, 'geometry_msgs/msg/PoseStamped')
        writer.add_topic(DUTY, 'std_msgs/msg/Float64MultiArray')
        for topic in wheels:
            writer.add_topic(topic, 'std_msgs/msg/Float64MultiArray')
        events = [
            (T0 + k / 20, topic, serialize_message(Float64MultiArray(data=list(f(k / 20)))))
            for topic, f in wheels.items()
            for k in range(int(run_s * 20))
        ]
        for k in range(int(run_s * 50) + 1):
            t = T0 + k / 50
            x, y = track(t - T0)
            ahead = np.subtract(track(t - T0 + 0.01), (x, y))
            hx, hy = np.array((x, y)) + 0.2 * ahead / np.linalg.norm(ahead)
            events += [(t, COM, pose(t, x, y)), (t, HEAD, pose(t, hx, hy))]
        for k in range(int(run_s / (PERIOD / 2))):
            t = T0 + k * PERIOD / 2
            events.append((t, DUTY, duties(k % 2 == 0 or not switching)))
        for t, topic, data in sorted(events, key=lambda e: e[0]):
            writer.write_cdr(topic, int(t * 1e9), data)
    return bag


def straight(t):
    return SPEED * t, 0.01 * math.sin(2 * math.pi * t / PERIOD)


def test_a_straight_run_gives_its_speed_and_no_curvature(tmp_path):
    report, _ = analyze(write(tmp_path / 'bag', straight), tmp_path / 'out', 'soft_snake')
    n = report.numbers
    assert n['period_s'] == pytest.approx(PERIOD, abs=0.021) and n['segments'] == 4
    assert n['speed_mm_s'] == pytest.approx(100.0, rel=0.03)
    assert n['speed_bl_s'] == pytest.approx(0.1 / body_length_m(4), rel=0.03)
    assert n['forward_speed_mm_s'] == pytest.approx(100.0, rel=0.03)
    assert n['path_curvature_per_m'] < 0.05
    assert {p.name for p in (tmp_path / 'out').glob('*.png')} == {
        'trajectory.png',
        'speed.png',
        'chambers.png',
    }
    assert 'head first' in (tmp_path / 'out' / 'summary.md').read_text()


def test_a_snake_of_other_sizes_counts_body_lengths_by_its_parameter_file(tmp_path):
    """The file the run was launched with (body_parameters:=) gives the body length; one the
    analysis cannot read is refused in one line naming the option."""
    bag = write(tmp_path / 'bag', straight)
    mine = tmp_path / 'mine.yaml'
    mine.write_text('segment_length_m: 0.09\nplate_length_m: 0.04\n')
    option = f'body_parameters_file:={mine}'
    n = analyze(bag, tmp_path / 'out', 'soft_snake', [option])[0].numbers
    length = 2 * 0.061 + 3 * 0.04 + 4 * 0.09
    assert n['body_length_m'] == pytest.approx(length)
    assert n['speed_bl_s'] == pytest.approx(0.1 / length, rel=0.03)
    missing = f'body_parameters_file:={tmp_path / "missing.yaml"}'
    with pytest.raises(AnalysisError, match='body_parameters_file: .*missing.yaml'):
        analyze(bag, tmp_path / 'out2', 'soft_snake', [missing])


def test_a_circle_gives_its_curvature_and_a_reversed_track_goes_backwards(tmp_path):
    def circle(t):
        a = SPEED * t / 0.5
        return 0.5 * math.sin(a), 0.5 * (1 - math.cos(a))

    n = analyze(write(tmp_path / 'c', circle), tmp_path / 'oc', 'soft_snake')[0].numbers
    assert n['path_curvature_per_m'] == pytest.approx(2.0, rel=0.05)
    assert n['speed_mm_s'] == pytest.approx(100.0, rel=0.03)
    backwards = analyze(
        write(tmp_path / 'b', lambda t: (-SPEED * t, 0.0)),
        tmp_path / 'ob',
        'soft_snake',
        ['period_s:=0.5'],
    )[0].numbers
    # the head leads along the track, so a snake going -x with its head at -x goes head first
    assert backwards['forward_speed_mm_s'] == pytest.approx(100.0, rel=0.03)


def test_no_gait_in_the_bag_is_one_line(tmp_path):
    bag = tmp_path / 'still'
    with BagWriter(bag, workspace_typestore()) as writer:
        writer.add_topic(COM, 'geometry_msgs/msg/PoseStamped')
        writer.add_topic(DUTY, 'std_msgs/msg/Float64MultiArray')
        writer.write_cdr(COM, int(T0 * 1e9), pose(T0, 0, 0))
        writer.write_cdr(DUTY, int(T0 * 1e9), duties(False))
    with pytest.raises(AnalysisError, match='no chamber was ever opened'):
        analyze(bag, tmp_path / 'out', 'soft_snake')


def test_the_period_is_read_off_the_busiest_chamber():
    t = np.arange(0, 5, 0.01)
    duty = np.zeros((len(t), 3, 3))
    duty[:, 1, 2] = np.sin(2 * math.pi * 0.875 * t) > 0
    assert gait_period(t, duty) == pytest.approx(1 / 0.875, abs=0.011)
    with pytest.raises(AnalysisError, match='no chamber opened twice'):
        gait_period(t, np.zeros((len(t), 3, 3)))


def _climbing(t):
    """Wheel heights of a climb: each wheel rises to the step's 70 mm, one a second."""
    return [0.07 if t > k + 1 else 0.0 for k in range(6)]


def _past_edge(t):
    """Each axle's centre past the edge at the end: the tail's 50 mm behind it."""
    return [0.45, 0.34, 0.24, 0.15, 0.05, -0.05]


def test_a_climb_ends_with_the_wheels_on_the_step_or_overhanging_it(tmp_path):
    """Every wheel at the step's height, the tail's centre 50 mm behind the edge: five on it."""
    wheels = {WHEELS: _climbing, PAST_EDGE: _past_edge}
    report, _ = analyze(
        write(tmp_path / 'bag', straight, wheels=wheels), tmp_path / 'o', 'soft_snake'
    )
    n = report.numbers
    assert n['wheels_at_step_height_at_end'] == 6 and n['wheels_on_step_at_end'] == 5
    summary = (tmp_path / 'o' / 'summary.md').read_text()
    assert 'off it: wheel 6 (70 mm up, -50 mm past the edge)' in summary
    # a bag from before ~/wheel_past_edge: judged by height only, and said so
    report, _ = analyze(
        write(tmp_path / 'old', straight, wheels={WHEELS: _climbing}), tmp_path / 'p', 'soft_snake'
    )
    assert report.numbers['wheels_on_step_at_end'] is None
    assert 'not recorded' in (tmp_path / 'p' / 'summary.md').read_text()
