"""pom_controller under requests it cannot serve at once, through pom.launch.py sim:=true: a burst
of gait goals is answered goal by goal (the busy controller rejects at once) and every result
request is answered; and Ctrl-C in mid-gait leaves the robot held where it is (the board's safe
state), the goal aborted saying so."""

import signal
import threading
import time

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseArray
from rclpy.qos import QoSProfile
from soro_interfaces.action import ExecuteVoxelGait
from soro_interfaces.msg import LinkStatus

from pom_voxel.commander import PomCommander
from soro_node.base_node import ActionClient
from soro_node.waiting import poll

pytestmark = pytest.mark.ros
LINK, CAMERA = '/pom_controller/link_status', '/mocap_markers'
GOALS = 100
SEND_EVERY_S = 0.01  # 100 goals/s, as the probe sent them
ANSWER_S = 20.0
# the probe's own queues hold the whole burst: what is lost, the server lost
QUEUE = QoSProfile(depth=GOALS)


@pytest.fixture
def quadruped(launch_in_test, tmp_path):
    """The simulated quadruped with a still camera (no drift, turn or noise): (processes, probe,
    gait client)."""
    port = tmp_path / 'ttyPOM'
    robot = launch_in_test(
        'pom.launch.py',
        commander=PomCommander,
        topics={LINK: LinkStatus, CAMERA: PoseArray},
        params={
            'pom_sim': {'port': port, 'drift_m_s': 0.0, 'turn_rad_s': 0.0, 'camera_noise_m': 0.0},
            'pom_controller': {'port': port},
        },
    )
    client = ActionClient(
        robot.probe.node,
        ExecuteVoxelGait,
        '/pom_controller/execute_gait',
        goal_service_qos_profile=QUEUE,
        result_service_qos_profile=QUEUE,
        cancel_service_qos_profile=QUEUE,
    )
    assert robot.probe.wait(LINK, lambda m: m.state == LinkStatus.CONNECTED, 10.0)
    assert client.wait_for_server(timeout_sec=5.0)
    # the controller can answer us before the burst
    assert robot.commander.meet('/pom_controller/execute_gait')
    return robot.processes, robot.probe, client


def test_a_burst_of_goals_is_answered_goal_by_goal(quadruped):
    processes, _probe, client = quadruped
    sent, answered_at = [], {}
    for index in range(GOALS):
        future = client.send_goal_async(
            ExecuteVoxelGait.Goal(gait='tripod', cycles=1, step_period_s=0.25)
        )
        start = time.monotonic()
        future.add_done_callback(lambda _f, i=index: answered_at.setdefault(i, time.monotonic()))
        sent.append((start, future))
        time.sleep(SEND_EVERY_S)
    answered = poll(lambda: all(f.done() for _s, f in sent), ANSWER_S)
    handles = [f.result() for _s, f in sent if f.done()]
    accepted = [h for h in handles if h.accepted]
    results = [h.get_result_async() for h in accepted]
    results_answered = poll(lambda: all(r.done() for r in results), ANSWER_S)
    refusals = sorted(
        answered_at[i] - s for i, (s, f) in enumerate(sent) if f.done() and not f.result().accepted
    )
    print(
        f'\ngoals answered {len(handles)}/{GOALS} ({len(accepted)} accepted, '
        f'{len(refusals)} rejected); results '
        f'answered {sum(r.done() for r in results)}/{len(results)}; time to refuse: median '
        f'{1e3 * np.median(refusals or [np.nan]):.1f} ms, max '
        f'{1e3 * max(refusals or [np.nan]):.1f} ms'
    )
    assert answered, f'{GOALS - len(handles)} of {GOALS} goals never answered'
    assert results_answered, (
        f'{sum(not r.done() for r in results)} of {len(results)} result requests unanswered'
    )
    assert refusals, 'a busy controller accepted every goal instead of rejecting'
    assert results[0].result().status == GoalStatus.STATUS_SUCCEEDED
    assert processes[-1].popen.poll() is None


def test_ctrl_c_in_mid_gait_holds_the_robot_where_it_is(quadruped):
    processes, probe, client = quadruped
    controller = processes[-1]
    assert controller.name == 'pom_controller' and poll(lambda: probe.messages[CAMERA], 5.0)
    rest = _xy(probe.latest(CAMERA))
    feedback, reached = [], threading.Event()

    def on_feedback(message):
        feedback.append(message.feedback)
        if message.feedback.key_pose == 2:
            reached.set()

    sent = client.send_goal_async(
        ExecuteVoxelGait.Goal(gait='tripod', cycles=10, step_period_s=2.0),
        feedback_callback=on_feedback,
    )
    assert poll(sent.done, 5.0) and sent.result().accepted
    assert reached.wait(10.0), 'the gait did not reach its second key pose'
    controller.popen.send_signal(signal.SIGINT)  # Ctrl-C, at the key pose (±5 mm strokes)
    result = sent.result().get_result_async()
    assert poll(result.done, 5.0), 'the client got no result'
    assert result.result().status == GoalStatus.STATUS_ABORTED
    assert 'held' in result.result().result.message, result.result().result.message
    assert controller.popen.wait(10.0) == 0
    # the board's watchdog has fired by now: it holds
    time.sleep(0.5)
    held = _xy(probe.latest(CAMERA))
    assert np.max(np.abs(held - rest)) > 0.003, 'the robot went back to rest'


def _xy(frame: PoseArray) -> np.ndarray:
    return np.array([(p.position.x, p.position.y) for p in frame.poses])
