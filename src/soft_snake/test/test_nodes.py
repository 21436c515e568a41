"""The soft snake as soft_snake.launch.py sim:=true starts it (simulated head controller and MuJoCo
snake with motion capture, driver bridge), each in its own process, through real rclpy and a real
pseudo-terminal: a gait run with its tracked speed, what rviz is sent, refusals by name, the
step-climb row service, a best-effort motion capture, and the head controller vanishing
mid-gait."""

import math
import re
import threading
import time

import pytest
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState
from soro_interfaces.msg import LinkStatus
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
from visualization_msgs.msg import MarkerArray

from soft_snake.commander import SoftSnakeCommander
from soro_node.base_node import answered
from soro_node.commander import CommanderError
from soro_node.waiting import poll

pytestmark = pytest.mark.ros
LINK, COM, JOINTS = '/soft_snake_driver/link_status', '/mocap/soft_snake/com', '/joint_states'
CHAMBERS, PRESSURE = '/soft_snake_driver/chambers', '/soft_snake_driver/chamber_pressure'
TRAIL = '/soft_snake_driver/trail'
TOPICS = {
    LINK: LinkStatus,
    COM: PoseStamped,
    JOINTS: JointState,
    CHAMBERS: MarkerArray,
    PRESSURE: Float64MultiArray,
    TRAIL: Path,
}


class Snake:
    """soft_snake.launch.py sim:=true through the shared harness, named as the tests use it."""

    def __init__(self, launched):
        self.launched, self.commander, self.probe = launched, launched.commander, launched.probe
        self.processes = launched.processes
        assert self.probe.wait(LINK, lambda m: m.state == LinkStatus.CONNECTED, 10.0)

    link = property(lambda self: self.probe.latest(LINK))
    com = property(lambda self: self.probe.messages[COM])
    joints = property(lambda self: self.probe.messages[JOINTS])
    chambers = property(lambda self: self.probe.messages[CHAMBERS])
    pressure = property(lambda self: self.probe.messages[PRESSURE])


@pytest.fixture(scope='module')
def snake(launch):
    return Snake(launch('soft_snake.launch.py', commander=SoftSnakeCommander, topics=TOPICS))


def test_the_commander_sees_the_drivers_link_connected(snake):
    """What soft-snake-demo waits for before each gait (a gait sent while the link shakes hands is
    aborted); a driver that is not there is never connected."""
    assert snake.commander.wait_connected(10.0)
    absent = SoftSnakeCommander('/no_such_driver')
    try:
        assert not absent.wait_connected(1.5)
    finally:
        absent.close()


def test_undulation_through_the_bridge_moves_the_snake_head_first(snake):
    assert poll(lambda: snake.com, 5.0)
    before = snake.com[-1].pose.position
    feedback = []
    result = _undulate(snake, feedback, duration_s=6.0)
    assert result.success and result.cycles == 12, result.message
    assert [f.cycle for f in feedback] == list(range(1, 13))
    after = snake.com[-1].pose.position
    # Head first: +x, where a tail-first wave would go -0.8 m. Not straight: the heading is
    # sensitive to valve timing. Offline, 5 ms of timing jitter turns it by up to 60° while the
    # speed stays at 140-190 mm/s; 20 ms of jitter drops some runs to 47 mm/s, and a loaded 2-core
    # machine gives the live stack that much. The thesis's 140 mm/s is held by the offline
    # simulator tests; here the live stack must move the snake as a gait does.
    assert after.x - before.x > 0.05
    assert 0.03 < result.speed_m_s < 0.25 and result.distance_m > 0.15
    assert 'every chamber vented' in result.message
    assert poll(lambda: max(snake.pressure[-1].data) < 5e3, 3.0)  # vented after the run
    # the head is put in its safe state, not left to trip its 500 ms watchdog with an ERROR after
    # every gait (the hostile pass)
    time.sleep(1.0)
    log = snake.launched.process('soft_snake_driver').log.read_text()
    assert 'device in its safe state (undulation done)' in log and '(WATCHDOG)' not in log, log


def _undulate(snake, feedback: list, **length):
    """The thesis's headline undulation (2 Hz, 2π/3) for ``length`` (duration_s or cycles), its
    feedback appended to ``feedback``; the result."""
    return snake.commander.run_gait(
        'undulation',
        frequency_hz=2.0,
        beta_rad=2 * math.pi / 3,
        on_feedback=feedback.append,
        **length,
    )


def test_rviz_gets_bends_and_chambers_of_every_module(snake):
    assert poll(lambda: snake.joints and snake.chambers and snake.pressure, 5.0)
    joints = snake.joints[-1]
    assert len(joints.name) == 4 * 3 * 2 and joints.name[:2] == ['y0_0', 'p0_0']
    markers = snake.chambers[-1].markers
    assert len(markers) == 12 and markers[0].header.frame_id == 'segment0a'
    layout = snake.pressure[-1].layout.dim
    assert [(d.label, d.size) for d in layout] == [('segments', 4), ('chambers', 3)]


@pytest.mark.parametrize(
    'goal, reason',
    [
        (
            dict(gait='undulation', frequency_hz=3.0, duration_s=1.0),
            'frequency_hz = 3.0: allowed range is [0.05, 2.0] (as parameter frequency_hz)',
        ),
        (
            dict(
                gait='undulation', frequency_hz=0.01, duration_s=1.0
            ),  # (0, 2] before the spec held
            'frequency_hz = 0.01: allowed range is [0.05, 2.0] (as parameter frequency_hz)',
        ),
        (
            dict(gait='undulation', segments=5, duration_s=1.0),
            'segments = 5: the snake on the link has 4',
        ),
        (dict(gait='step_climb', duration_s=1.0), 'segments = 4: step climbing needs 5'),
        (
            dict(gait='undulation', beta_rad=math.nan, duration_s=1.0),
            'beta_rad = nan: must be finite',
        ),
        (dict(gait='undulation', duration_s=1.0, cycles=2), 'give one of the two'),
        (
            dict(gait='slither', duration_s=1.0),
            "gait 'slither': allowed undulation, sidewinding, step_climb",
        ),
    ],
)
def test_bad_goals_are_refused_by_name(snake, goal, reason):
    with pytest.raises(CommanderError, match=re.escape(reason)):
        snake.commander.run_gait(**goal)


def test_the_row_service_needs_a_climb(snake):
    with pytest.raises(CommanderError, match='no step climb is running'):
        snake.commander.advance_row()


def test_a_burst_of_row_requests_is_answered_every_one(snake):
    # the probe: 1,000 calls, 989 never answered
    calls = 500
    client = snake.probe.node.create_client(
        Trigger,
        '/soft_snake_driver/step_climb_advance',
        # the probe loses nothing itself
        qos_profile=QoSProfile(depth=calls),
    )
    # one answer first: a reply sent before the driver has matched this client is lost for good
    assert answered(client, Trigger.Request(), 5.0) is not None
    start = time.monotonic()
    futures = [client.call_async(Trigger.Request()) for _ in range(calls)]
    everyone = poll(lambda: all(f.done() for f in futures), 15.0)
    replies = [f.result() for f in futures if f.done()]
    print(
        f'\nstep_climb_advance: {len(replies)}/{calls} answered in '
        f'{time.monotonic() - start:.2f} s'
    )
    assert everyone, f'{calls - len(replies)} of {calls} calls never answered'
    assert {(a.success, a.message) for a in replies} == {(False, 'no step climb is running')}


def test_a_best_effort_motion_capture_drives_the_driver(snake):
    """vrpn_mocap and mocap4r2 publish best effort: the driver tracks such a centre of mass (its
    trail reaches it). A pose with no stamp is drawn but kept out of the gait's speed: before, one
    such pose first in a run had the speed tracker loop once per period since 1970, and the gait
    stalled with its feedback."""
    far = PoseStamped()
    far.header.frame_id, far.pose.position.x, far.pose.orientation.w = 'world', 2.5, 1.0
    feedback = []
    with snake.probe.best_effort_stream(COM, far):
        assert poll(
            lambda: any(
                p.pose.position.x == 2.5 for m in snake.probe.messages[TRAIL] for p in m.poses
            ),
            10.0,
        )
        result = _undulate(snake, feedback, cycles=4)
    assert result.success and [f.cycle for f in feedback] == [1, 2, 3, 4], result.message
    # the simulated snake's own poses only: 2.5 m away every other pose would be metres per second
    assert 0.01 < result.speed_m_s < 0.25, result.speed_m_s


@pytest.mark.parametrize('frame, x', [('nonsense', 0.5), ('world', 1e300)])
def test_a_pose_in_another_frame_or_beyond_the_arena_is_left_out(snake, frame, x):
    """Stamped poses in frame 'nonsense', or at ±1e300 m, went into the gait's speed: 4.4 km/s
    and 1.6e299 m/s (the hostile pass)."""
    elsewhere = PoseStamped()
    elsewhere.header.frame_id, elsewhere.pose.position.x = frame, x
    elsewhere.header.stamp = snake.commander.get_clock().now().to_msg()
    elsewhere.pose.orientation.w = 1.0
    with snake.probe.best_effort_stream(COM, elsewhere):
        result = _undulate(snake, [], cycles=4)
    assert result.success and 0.01 < result.speed_m_s < 0.25, (result.speed_m_s, result.message)
    # said once in 10 s, for whichever of the two came first
    log = snake.launched.process('soft_snake_driver').log.read_text()
    assert "m: left out (expected 'world', within ±1000 m)" in log


def test_the_head_vanishing_aborts_the_gait_and_the_link_comes_back(snake):
    sim = snake.processes[0]
    assert sim.name == 'soft_snake_sim'
    feedback, box = [], {}
    worker = threading.Thread(
        target=lambda: box.setdefault('error', _run_expecting_failure(snake, feedback))
    )
    worker.start()
    assert poll(lambda: len(feedback) >= 2, 10.0)
    # the head's serial link gone: its port vanishes
    sim.popen.kill()
    sim.popen.wait()
    worker.join(timeout=10.0)
    assert 'aborted' in box['error'] and 'chambers' in box['error']
    snake.launched.restart('soft_snake_sim', 'behind')
    assert poll(lambda: snake.link.state == LinkStatus.CONNECTED, 10.0), (
        'the bridge did not reconnect'
    )
    assert snake.commander.run_gait(
        'sidewinding', frequency_hz=1.0, beta_rad=math.pi / 2, cycles=2
    ).success


def _run_expecting_failure(snake, feedback) -> str:
    try:
        snake.commander.run_gait('undulation', duration_s=20.0, on_feedback=feedback.append)
    except CommanderError as error:
        return str(error)
    return 'the gait did not fail'
