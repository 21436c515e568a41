"""soro_geometry against analytic cases: SE(2) round trips, wrap at ±π, circular means, quaternion
<-> yaw, the geometry_msgs conversions and the tracked pose history."""

import math

import numpy as np
import pytest
from geometry_msgs.msg import Quaternion
from std_msgs.msg import Header

from soro_geometry import pose_msgs, quaternion, se2
from soro_geometry.history import PoseHistory, TrackingLost

RNG = np.random.default_rng(11)
POSES = np.column_stack([RNG.normal(0, 2, (50, 2)), RNG.uniform(-3 * np.pi, 3 * np.pi, 50)])


def test_compose_with_the_inverse_is_the_identity():
    assert se2.compose(POSES, se2.inverse(POSES)) == pytest.approx(np.zeros((50, 3)), abs=1e-12)
    assert se2.compose(se2.inverse(POSES), POSES) == pytest.approx(np.zeros((50, 3)), abs=1e-12)


def test_relative_undoes_compose():
    a, b = POSES[:25], POSES[25:]
    d = se2.relative(a, se2.compose(a, b))
    assert d[:, :2] == pytest.approx(b[:, :2], abs=1e-12)
    assert np.cos(d[:, 2] - b[:, 2]) == pytest.approx(np.ones(25))
    assert np.all((d[:, 2] > -np.pi) & (d[:, 2] <= np.pi))


def test_compose_is_the_matrix_product():
    def matrix(g):
        c, s = math.cos(g[2]), math.sin(g[2])
        return np.array([[c, -s, g[0]], [s, c, g[1]], [0, 0, 1]])

    for a, b in zip(POSES[:10], POSES[10:20]):
        m = matrix(a) @ matrix(b)
        g = se2.compose(a, b)
        assert m[:2, 2] == pytest.approx(g[:2]) and math.atan2(m[1, 0], m[0, 0]) == pytest.approx(
            se2.wrap(g[2])
        )


@pytest.mark.parametrize(
    'angle, wrapped',
    [
        (math.pi, math.pi),
        (-math.pi, math.pi),
        (3 * math.pi, math.pi),
        (2 * math.pi, 0.0),
        (-0.5, -0.5),
        (7.0, 7.0 - 2 * math.pi),
    ],
)
def test_wrap_into_minus_pi_pi(angle, wrapped):
    assert float(se2.wrap(angle)) == pytest.approx(wrapped, abs=1e-12)


def test_chain_is_composition_step_by_step():
    steps = POSES[:7]
    expected, g = [], np.zeros(3)
    for step in steps:
        g = se2.compose(g, step)
        expected.append(g)
    assert se2.chain(steps) == pytest.approx(np.array(expected), abs=1e-12)


def test_circular_mean_across_the_cut_and_turn_keeping():
    assert float(se2.circular_mean(np.radians([179.0, -179.0, 179.0]))) == pytest.approx(
        math.radians(179.667), abs=1e-4
    )
    assert float(se2.circular_mean([0.1, 0.3])) == pytest.approx(0.2)
    assert float(se2.near(-math.pi + 0.1, 5 * math.pi)) == pytest.approx(5 * math.pi + 0.1)


def test_quaternion_yaw_round_trip_and_rotation():
    yaws = np.linspace(-math.pi + 1e-9, math.pi, 13)
    q = quaternion.from_yaw(yaws)
    assert quaternion.yaw(q) == pytest.approx(yaws, abs=1e-12)
    assert np.linalg.norm(q, axis=-1) == pytest.approx(np.ones(13))
    x = quaternion.rotate(q, np.tile([1.0, 0.0, 0.0], (13, 1)))
    assert x[:, :2] == pytest.approx(np.column_stack([np.cos(yaws), np.sin(yaws)]), abs=1e-12)
    # a pitched body keeps the heading of its x axis
    pitched = quaternion.multiply(
        quaternion.from_yaw(0.7), quaternion.from_axis_angle([0, 1, 0], 0.4)
    )
    assert float(quaternion.yaw(pitched)) == pytest.approx(0.7)


def test_planar_pose_messages_round_trip():
    for x, y, yaw in [(1.5, -2.0, 0.3), (0.0, 0.0, math.pi), (-0.2, 0.1, -2.9)]:
        msg = pose_msgs.pose_msg((x, y, yaw))
        assert msg.position.z == 0.0 and msg.orientation.x == msg.orientation.y == 0.0
        assert pose_msgs.planar_pose(msg) == pytest.approx([x, y, yaw])
    assert pose_msgs.yaw_of(Quaternion(w=math.cos(0.5), z=math.sin(0.5))) == pytest.approx(1.0)


def test_pose_history_averages_the_settled_frames_and_reports_a_lost_tracker():
    history = PoseHistory()
    for k, t in enumerate(np.arange(0.0, 1.0, 1 / 30)):
        # heading flickers across ±π
        history.add(t, (k * 0.0, 5.0, math.radians(179.0 if k % 2 else -179.0)))
    pose = history.at(0.95, 0.1, 0.3)  # frames at -179, 179, -179
    assert pose[:2] == pytest.approx([0.0, 5.0]) and math.degrees(pose[2]) == pytest.approx(
        -179.0 - 2 / 3, abs=1e-3
    )
    # no frame in the window: the last, 0.23 s old
    assert history.at(1.2, 0.1, 0.3)[1] == 5.0
    with pytest.raises(TrackingLost, match='is the tracker running'):
        history.at(2.0, 0.1, 0.3)


def test_pose_history_drops_frames_out_of_order_unstamped_or_not_finite():
    """Such a frame would be the 'latest' the learner waits for and stands in with."""
    history = PoseHistory()
    assert history.add(10.0, (1.0, 2.0, 0.0)) and history.add(10.1, (1.1, 2.0, 0.0))
    assert not history.add(0.0, (9.0, 9.0, 0.0))  # a motion-capture pose with no stamp
    assert not history.add(10.05, (9.0, 9.0, 0.0))  # reordered
    assert not history.add(10.2, (math.nan, 2.0, 0.0)) and not history.add(math.inf, (0, 0, 0))
    assert len(history) == 2 and history.latest()[0] == 10.1
    assert history.at(10.12, 0.05, 0.3)[0] == pytest.approx(1.1)


def test_pose_history_can_be_queried_while_a_subscription_adds_frames():
    # the learner's action thread asks for the settled pose while the tracker's callback appends
    # frames
    import threading
    import time

    from soro_geometry.history import PoseHistory

    history, stop = PoseHistory(max_frames=5_000), threading.Event()

    def track():
        # frames 1 ms apart in their stamps, added at up to 10 kHz: a free-running loop adds
        # thousands between two queries once threads switch every 0.5 ms (init_ros), and evicts the
        # window asked for from the 5,000 kept
        k = 0
        while not stop.is_set():
            history.add(k * 1e-3, (k * 1e-3, 0.0, 0.0))
            k += 1
            time.sleep(1e-4)

    tracker = threading.Thread(target=track)
    tracker.start()
    try:
        while len(history) < 100:
            pass
        for _ in range(300):
            latest = history.latest()[0]
            assert history.at(latest, 0.05, 0.2)[0] <= latest
            assert len(history.between(latest - 0.1, latest)) > 0
    finally:
        stop.set()
        tracker.join()


@pytest.mark.parametrize('axis', [[0, 0, 0], [0, math.nan, 1], [[0, 0, 1], [0, 0, 0]]])
def test_a_rotation_about_no_axis_is_refused_not_nan(axis):
    with pytest.raises(ValueError, match='axis'):
        quaternion.from_axis_angle(axis, 0.3)


def test_a_pose_off_the_floor_or_in_another_frame_is_named():
    header = Header(frame_id='map')
    assert pose_msgs.planar_problem(pose_msgs.stamped((1.0, 2.0, 0.5), header), 'map') is None
    assert pose_msgs.planar_problem(pose_msgs.stamped((1.0, 2.0, 0.5), Header()), 'map') is None
    odom = pose_msgs.stamped((1.0, 2.0, 0.5), Header(frame_id='odom'))
    assert pose_msgs.planar_problem(odom, 'map') == (
        "frame_id 'odom' is not 'map' (no transform is made)"
    )
    zero = pose_msgs.stamped((1.0, 2.0, 0.5), header)
    zero.pose.orientation = Quaternion(w=0.0)
    assert 'is not a rotation' in pose_msgs.planar_problem(zero, 'map')
    tilted = pose_msgs.stamped((1.0, 2.0, 0.0), header)
    tilted.pose.orientation = Quaternion(y=math.sin(0.05), w=math.cos(0.05))  # pitched 5.7°
    assert pose_msgs.planar_problem(tilted, 'map') == (
        'orientation tilts 6° out of the floor, not a heading'
    )
