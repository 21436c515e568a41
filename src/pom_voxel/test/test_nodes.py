"""The voxel quadruped as pom.launch.py sim:=true starts it (simulated board and camera, controller
bridge), each in its own process, through real rclpy and a real pseudo-terminal: IK service, a
tripod gait, cancel, refusals, the predicted markers and the lattice drawing."""

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseArray
from soro_interfaces.action import ExecuteVoxelGait
from soro_interfaces.msg import LinkStatus
from soro_interfaces.srv import ComputeVoxelIK
from visualization_msgs.msg import MarkerArray

from pom_voxel.commander import PomCommander
from soro_node.waiting import poll

pytestmark = pytest.mark.ros
TRIPOD = dict(
    effectors=['front_left', 'front_right', 'back_left', 'back_right'], axes=['z', 'z', 'y', 'x']
)
LINK, LATTICE = '/pom_controller/link_status', '/pom_controller/lattice'
MARKERS, CAMERA = '/pom_controller/predicted_markers', '/mocap_markers'
TOPICS = {LINK: LinkStatus, MARKERS: PoseArray, LATTICE: MarkerArray, CAMERA: PoseArray}


class Quadruped:
    """pom.launch.py sim:=true through the shared harness, named as the tests use it."""

    def __init__(self, launched):
        self.launched, self.commander, self.probe = launched, launched.commander, launched.probe
        self.processes = launched.processes
        assert self.probe.wait(LINK, lambda m: m.state == LinkStatus.CONNECTED, 10.0)

    link = property(lambda self: self.probe.latest(LINK))
    markers = property(lambda self: self.probe.messages[MARKERS])
    lattice = property(lambda self: self.probe.latest(LATTICE))
    camera = property(lambda self: self.probe.messages[CAMERA])

    def call_ik(self, **request):
        return self.commander.answer(
            self.commander.ik_client, ComputeVoxelIK.Request(**request), 5.0, 'IK'
        )

    def send(self, goal):
        return self.commander.send_goal(self.commander.gait_client, goal)


@pytest.fixture(scope='module')
def robot(launch, tmp_path_factory):
    port = tmp_path_factory.mktemp('pom_port') / 'ttyPOM'
    return Quadruped(
        launch(
            'pom.launch.py',
            commander=PomCommander,
            topics=TOPICS,
            params={
                'pom_sim': {'port': port},
                'pom_controller': {'port': port, 'command_rate_hz': 40.0},
            },
        )
    )


def test_inverse_kinematics_gives_the_papers_strokes_and_every_node(robot):
    # the tripod's second key pose
    answer = robot.call_ik(**TRIPOD, targets_m=[0.005, -0.005, 0.005, -0.005])
    assert answer.success and answer.actuators == ['blue', 'yellow', 'red', 'green']
    assert np.array(answer.strokes_m) == pytest.approx([0.005, -0.005, 0.005, -0.005])
    assert len(answer.nodes) == len(answer.displacements) > 30 and not any(answer.saturated)
    far = robot.call_ik(**TRIPOD, targets_m=[0.0, 0.0, 0.008, 0.0])
    assert (
        far.success and far.saturated == [False, True, False, False] and 'saturated' in far.message
    )
    wrong = robot.call_ik(effectors=['nose'], axes=['z'], targets_m=[0.001])
    assert not wrong.success and wrong.message.startswith('no effector nose; the structure has')


def test_an_empty_request_is_answered_and_the_controller_lives_on(robot):
    # once ended the controller (np.vstack of nothing)
    empty = robot.call_ik(effectors=[], axes=[], targets_m=[])
    assert not empty.success and empty.message.startswith('no effectors given')
    again = robot.call_ik(**TRIPOD, targets_m=[0.005, -0.005, 0.005, -0.005])
    assert again.success and robot.processes[-1].popen.poll() is None


def test_a_tripod_cycle_walks_its_key_poses_and_the_markers_follow(robot):
    before = len(robot.markers)
    gait = robot.send(ExecuteVoxelGait.Goal(gait='tripod', cycles=1, step_period_s=0.25))
    assert gait.ended(10.0) and gait.result.success, gait.result.message
    assert [f.key_pose for f in gait.feedback] == list(range(1, 9)) and gait.result.key_poses == 8
    assert np.array(gait.feedback[1].strokes_m) == pytest.approx([0.005, -0.005, 0.005, -0.005])
    xs = np.array([m.poses[0].position.x for m in robot.markers[before:]])
    rest_x = 1 * 0.0762 / 2
    assert xs.max() - rest_x == pytest.approx(
        0.005, abs=5e-4
    ) and xs.min() - rest_x == pytest.approx(-0.005, abs=5e-4)
    assert robot.lattice is not None and len(robot.lattice.markers) == 3
    assert poll(lambda: robot.camera, 3.0), 'no frame from the simulated camera'
    assert len(robot.camera[-1].poses) == 4 and robot.camera[-1].header.frame_id == 'world'


def test_cancel_returns_to_rest_and_bad_goals_are_refused(robot):
    gait = robot.send(ExecuteVoxelGait.Goal(gait='tripod', cycles=100, step_period_s=0.25))
    assert poll(lambda: len(gait.feedback) >= 3, 5.0)
    gait.cancel()
    assert gait.ended(3.0) and gait.status == GoalStatus.STATUS_CANCELED
    assert poll(
        lambda: np.allclose(
            [p.position.x for p in robot.markers[-1].poses],
            # markers back at rest
            [0.0381, 0.1143, 0.0381, 0.1143],
            atol=2e-4,
        ),
        2.0,
    )
    for goal, reason in (
        (ExecuteVoxelGait.Goal(gait='tripod', cycles=2**32 - 1), 'cycles = 4294967295'),
        (ExecuteVoxelGait.Goal(gait='gallop', cycles=1), "gait 'gallop': known gaits are tripod"),
    ):
        refused = robot.send(goal)
        assert refused.ended(5.0) and refused.status == GoalStatus.STATUS_ABORTED
        assert reason in refused.result.message


def test_the_board_vanishing_aborts_the_gait_and_the_link_comes_back(robot):
    sim = robot.processes[0]
    assert sim.name == 'pom_sim'
    gait = robot.send(ExecuteVoxelGait.Goal(gait='tripod', cycles=100, step_period_s=0.25))
    assert poll(lambda: len(gait.feedback) >= 2, 5.0)
    sim.popen.kill()  # the board loses power: its port vanishes
    sim.popen.wait()
    assert gait.ended(3.0) and gait.status == GoalStatus.STATUS_ABORTED
    assert gait.result.message.startswith('aborted: ')
    assert poll(lambda: robot.link.state != LinkStatus.CONNECTED, 2.0)
    robot.launched.restart('pom_sim', 'behind')
    assert poll(lambda: robot.link.state == LinkStatus.CONNECTED, 10.0), (
        'the bridge did not reconnect'
    )
    again = robot.send(ExecuteVoxelGait.Goal(gait='tripod', cycles=1, step_period_s=0.1))
    assert again.ended(10.0) and again.result.success, again.result.message
