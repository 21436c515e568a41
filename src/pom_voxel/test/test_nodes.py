"""The voxel quadruped as pom.launch.py sim:=true starts it (simulated board and camera, controller bridge), each in
its own process, through real rclpy and a real pseudo-terminal: IK service, a tripod gait, cancel, refusals, the
predicted markers and the lattice drawing."""

import numpy as np
import pytest
import rclpy
from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseArray
from soro_interfaces.action import ExecuteVoxelGait
from soro_interfaces.msg import LinkStatus
from soro_interfaces.srv import ComputeVoxelIK
from visualization_msgs.msg import MarkerArray

from softbots_bringup import runner
from soro_node.base_node import ActionClient
from soro_node.probe_node import Probe
from soro_node.waiting import poll

pytestmark = pytest.mark.ros
TRIPOD = dict(effectors=['front_left', 'front_right', 'back_left', 'back_right'], axes=['z', 'z', 'y', 'x'])
LINK, LATTICE = '/pom_controller/link_status', '/pom_controller/lattice'
MARKERS, CAMERA = '/pom_controller/predicted_markers', '/mocap_markers'
TOPICS = {LINK: LinkStatus, MARKERS: PoseArray, LATTICE: MarkerArray, CAMERA: PoseArray}


class Quadruped:
    def __init__(self, tmp_path):
        params = tmp_path / 'params.yaml'
        port = tmp_path / 'ttyPOM'
        params.write_text(f'pom_sim:\n  ros__parameters: {{port: {port}}}\n'
                          f'pom_controller:\n  ros__parameters: {{port: {port}, command_rate_hz: 40.0}}\n')
        self.processes = runner.start('pom.launch.py', tmp_path, {'sim': 'true'}, extra_params=[params])
        self.probe = Probe('pom_probe', TOPICS)
        self.ik = self.probe.node.create_client(ComputeVoxelIK, '/pom_controller/inverse_kinematics')
        self.gait = ActionClient(self.probe.node, ExecuteVoxelGait, '/pom_controller/execute_gait')
        assert self.probe.wait(LINK, lambda m: m.state == LinkStatus.CONNECTED, 10.0)

    link = property(lambda self: self.probe.latest(LINK))
    markers = property(lambda self: self.probe.messages[MARKERS])
    lattice = property(lambda self: self.probe.latest(LATTICE))
    camera = property(lambda self: self.probe.messages[CAMERA])

    def call_ik(self, **request):
        assert self.ik.wait_for_service(timeout_sec=5.0)
        future = self.ik.call_async(ComputeVoxelIK.Request(**request))
        assert poll(future.done, 5.0)
        return future.result()

    def send(self, goal):
        assert self.gait.wait_for_server(timeout_sec=5.0)
        feedback = []
        sent = self.gait.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback))
        assert poll(sent.done, 5.0)
        return sent.result(), feedback

    def close(self):
        self.probe.close()
        return runner.stop_all(self.processes)


@pytest.fixture(scope='module')
def robot(tmp_path_factory):
    rclpy.init()
    quadruped = Quadruped(tmp_path_factory.mktemp('pom'))
    yield quadruped
    assert set(quadruped.close().values()) == {0}
    rclpy.try_shutdown()


def test_inverse_kinematics_gives_the_papers_strokes_and_every_node(robot):
    answer = robot.call_ik(**TRIPOD, targets_m=[0.005, -0.005, 0.005, -0.005])     # the tripod's second key pose
    assert answer.success and answer.actuators == ['blue', 'yellow', 'red', 'green']
    assert np.array(answer.strokes_m) == pytest.approx([0.005, -0.005, 0.005, -0.005])
    assert len(answer.nodes) == len(answer.displacements) > 30 and not any(answer.saturated)
    far = robot.call_ik(**TRIPOD, targets_m=[0.0, 0.0, 0.008, 0.0])
    assert far.success and far.saturated == [False, True, False, False] and 'saturated' in far.message
    wrong = robot.call_ik(effectors=['nose'], axes=['z'], targets_m=[0.001])
    assert not wrong.success and wrong.message.startswith('no effector nose; the structure has')


def test_an_empty_request_is_answered_and_the_controller_lives_on(robot):
    empty = robot.call_ik(effectors=[], axes=[], targets_m=[])     # once ended the controller (np.vstack of nothing)
    assert not empty.success and empty.message.startswith('no effectors given')
    again = robot.call_ik(**TRIPOD, targets_m=[0.005, -0.005, 0.005, -0.005])
    assert again.success and robot.processes[-1].popen.poll() is None


def test_a_tripod_cycle_walks_its_key_poses_and_the_markers_follow(robot):
    before = len(robot.markers)
    handle, feedback = robot.send(ExecuteVoxelGait.Goal(gait='tripod', cycles=1, step_period_s=0.25))
    result = handle.get_result_async()
    assert poll(result.done, 10.0) and result.result().result.success, result.result().result.message
    assert [f.key_pose for f in feedback] == list(range(1, 9)) and result.result().result.key_poses == 8
    assert np.array(feedback[1].strokes_m) == pytest.approx([0.005, -0.005, 0.005, -0.005])
    xs = np.array([m.poses[0].position.x for m in robot.markers[before:]])
    rest_x = 1 * 0.0762 / 2
    assert xs.max() - rest_x == pytest.approx(0.005, abs=5e-4) and xs.min() - rest_x == pytest.approx(-0.005, abs=5e-4)
    assert robot.lattice is not None and len(robot.lattice.markers) == 3
    assert poll(lambda: robot.camera, 3.0), 'no frame from the simulated camera'
    assert len(robot.camera[-1].poses) == 4 and robot.camera[-1].header.frame_id == 'world'


def test_cancel_returns_to_rest_and_bad_goals_are_refused(robot):
    handle, feedback = robot.send(ExecuteVoxelGait.Goal(gait='tripod', cycles=100, step_period_s=0.25))
    assert poll(lambda: len(feedback) >= 3, 5.0)
    result = handle.get_result_async()
    handle.cancel_goal_async()
    assert poll(result.done, 3.0) and result.result().status == GoalStatus.STATUS_CANCELED
    assert poll(lambda: np.allclose([p.position.x for p in robot.markers[-1].poses],
                                    [0.0381, 0.1143, 0.0381, 0.1143], atol=2e-4), 2.0)      # markers back at rest
    for goal, reason in ((ExecuteVoxelGait.Goal(gait='tripod', cycles=2**32 - 1), 'cycles = 4294967295'),
                         (ExecuteVoxelGait.Goal(gait='gallop', cycles=1), "gait 'gallop': known gaits are tripod")):
        handle, _ = robot.send(goal)
        result = handle.get_result_async()
        assert poll(result.done, 5.0) and result.result().status == GoalStatus.STATUS_ABORTED
        assert reason in result.result().result.message


def test_the_board_vanishing_aborts_the_gait_and_the_link_comes_back(robot, tmp_path):
    sim = robot.processes[0]
    assert sim.name == 'pom_sim'
    handle, feedback = robot.send(ExecuteVoxelGait.Goal(gait='tripod', cycles=100, step_period_s=0.25))
    assert poll(lambda: len(feedback) >= 2, 5.0)
    result = handle.get_result_async()
    sim.popen.kill()                                     # the board loses power: its port vanishes
    sim.popen.wait()
    assert poll(result.done, 3.0) and result.result().status == GoalStatus.STATUS_ABORTED
    assert result.result().result.message.startswith('aborted: ')
    assert poll(lambda: robot.link.state != LinkStatus.CONNECTED, 2.0)
    robot.processes[0] = runner.Process('pom_sim', list(sim.popen.args), tmp_path)
    robot.processes[0].wait_for_output('behind')
    assert poll(lambda: robot.link.state == LinkStatus.CONNECTED, 10.0), 'the bridge did not reconnect'
    handle, _ = robot.send(ExecuteVoxelGait.Goal(gait='tripod', cycles=1, step_period_s=0.1))
    again = handle.get_result_async()
    assert poll(again.done, 10.0) and again.result().result.success, again.result().result.message
