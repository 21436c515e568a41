"""The salamander as salamander.launch.py sim:=true starts it (simulated ESP32 and motion capture, controller
bridge, planner), each in its own process, through real rclpy and a real pseudo-terminal: planning with both
planners, the closed loop from a 90° start to a 0° goal around the thesis's obstacles (SYS-01), obstacles set at
run time, refusals, a module command by hand, a best-effort motion capture driving the controller and the planner,
and the ESP32 vanishing mid-path."""
import math

import numpy as np
import pytest
import rclpy
from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
from sensor_msgs.msg import JointState
from soro_interfaces.action import PlanAndTrack, PlanPath, TrackPath
from soro_interfaces.msg import CircleObstacle, LinkStatus, ModuleCommand, ObstacleScene
from std_msgs.msg import Header
from visualization_msgs.msg import MarkerArray

from softbots_bringup import runner
from soro_geometry.pose_msgs import planar_pose, stamped
from soro_node.base_node import ActionClient
from soro_node.probe_node import Probe
from soro_node.waiting import poll

pytestmark = pytest.mark.ros
START, GOAL = (0.35, 0.3, math.pi / 2), (2.15, 1.55, 0.0)          # config/salamander_scene.yaml
LINK, POSE = '/salamander_controller/link_status', '/mocap/salamander/pose'
JOINTS, LOS = '/joint_states', '/salamander_controller/los_debug'
TRAIL = '/salamander_controller/trail'
TOPICS = {LINK: LinkStatus, POSE: PoseStamped, JOINTS: JointState, LOS: MarkerArray, TRAIL: Path}


class Salamander:
    def __init__(self, tmp_path):
        params, port = tmp_path / 'params.yaml', tmp_path / 'ttySALAMANDER'
        params.write_text(f'salamander_sim:\n  ros__parameters: {{port: {port}, start_pose: {list(START)}}}\n'
                          f'salamander_controller:\n  ros__parameters: {{port: {port}, speed_m_s: 0.25}}\n')
        self.processes = runner.start('salamander.launch.py', tmp_path, {'sim': 'true'}, extra_params=[params])
        self.probe = Probe('salamander_probe', TOPICS)
        node = self.probe.node
        self.obstacles = node.create_publisher(ObstacleScene, '/obstacles', 10)
        self.module = node.create_publisher(ModuleCommand, '/salamander_controller/module_command', 10)
        self.compute = ActionClient(node, PlanPath, '/salamander_planner/plan_path')
        self.navigate = ActionClient(node, PlanAndTrack, '/salamander_planner/plan_and_track')
        self.follow = ActionClient(node, TrackPath, '/salamander_controller/track_path')
        assert self.probe.wait(LINK, lambda m: m.state == LinkStatus.CONNECTED, 10.0)
        assert self.probe.wait(POSE, lambda m: True, 10.0), 'motion capture did not come up'

    link = property(lambda self: self.probe.latest(LINK))
    poses = property(lambda self: self.probe.messages[POSE])
    joints = property(lambda self: self.probe.messages[JOINTS])
    los = property(lambda self: self.probe.messages[LOS])

    def pose(self):
        return planar_pose(self.poses[-1].pose)

    def run(self, client, goal, timeout_s):
        assert client.wait_for_server(timeout_sec=5.0)
        feedback = []
        sent = client.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback))
        assert poll(sent.done, 5.0) and sent.result().accepted
        result = sent.result().get_result_async()
        assert poll(result.done, timeout_s), 'the goal did not end in time'
        return result.result().status, result.result().result, feedback

    def plan(self, start, goal, planner=''):
        header = Header(frame_id='map')
        return self.run(self.compute, PlanPath.Goal(goal=stamped(goal, header), start=stamped(start, header),
                                                             use_start=True, planner_id=planner), 30.0)

    def close(self):
        self.probe.close()
        return runner.stop_all(self.processes)


@pytest.fixture(scope='module')
def robot(tmp_path_factory):
    rclpy.init()
    salamander = Salamander(tmp_path_factory.mktemp('salamander'))
    yield salamander
    assert set(salamander.close().values()) == {0}
    rclpy.try_shutdown()


@pytest.mark.parametrize('planner', ['chomp', 'lattice_astar'])
def test_both_planners_plan_the_thesis_scene(robot, planner):
    status, result, _ = robot.plan(START, GOAL, planner)
    assert status == GoalStatus.STATUS_SUCCEEDED and result.success, result.message
    assert result.effort_name == {'chomp': 'iterations', 'lattice_astar': 'expansions'}[planner]
    assert result.effort > 0 and result.max_curvature <= 12.52 + 1e-6 and result.length_m > 2.0
    path = np.array([[p.pose.position.x, p.pose.position.y] for p in result.path.poses])
    assert path[0] == pytest.approx(START[:2]) and math.dist(path[-1], GOAL[:2]) < 0.04
    if planner == 'chomp':
        assert result.start_heading_error < math.radians(10) and result.goal_heading_error < math.radians(10)


def test_navigate_reaches_the_goal_around_the_obstacles(robot):
    assert poll(lambda: robot.poses, 5.0)
    status, result, feedback = robot.run(robot.navigate, PlanAndTrack.Goal(
        goal=stamped(GOAL, Header(frame_id='map'))), 60.0)
    assert status == GoalStatus.STATUS_SUCCEEDED and result.success, result.message
    assert result.final_distance_m < 0.05 and result.max_cross_track_m < 0.05
    assert {f.phase for f in feedback} == {'planning', 'following'}
    assert math.dist(robot.pose()[:2], GOAL[:2]) < 0.06
    assert robot.los and len(robot.los[-1].markers) == 3
    assert robot.joints and robot.joints[-1].name[0] == 'body_bend_1'


def test_obstacles_set_at_run_time_block_the_goal(robot):
    ring = ObstacleScene(header=Header(frame_id='map'), circles=[CircleObstacle(x=GOAL[0], y=GOAL[1], radius=0.2)])
    robot.obstacles.publish(ring)
    assert poll(lambda: not robot.plan(START, GOAL)[1].success, 5.0, poll_s=0.5)
    status, result, _ = robot.plan(START, GOAL)
    assert status == GoalStatus.STATUS_ABORTED and 'goal' in result.message
    robot.obstacles.publish(ObstacleScene(header=Header(frame_id='map')))       # empty: no obstacles at all
    assert poll(lambda: robot.plan(START, GOAL)[1].success, 5.0, poll_s=0.5)


def test_bad_goals_are_refused_with_a_reason(robot):
    _, result, _ = robot.plan(START, (float('nan'), 1.0, 0.0))
    assert not result.success and 'not finite' in result.message
    _, result, _ = robot.plan(START, GOAL, planner='rrt')
    assert not result.success and "planner_id 'rrt'" in result.message
    status, result, _ = robot.run(robot.follow, TrackPath.Goal(), 5.0)
    assert status == GoalStatus.STATUS_ABORTED and 'waypoints' in result.message


def test_a_module_command_by_hand_bends_the_module(robot):
    robot.module.publish(ModuleCommand(module_id=1, s=0.148, theta=0.8, phi=math.pi, wheel_speeds=[0.0] * 3))
    assert poll(lambda: robot.joints and sum(robot.joints[-1].position) == pytest.approx(0.8, abs=0.02), 5.0)
    robot.module.publish(ModuleCommand(module_id=1, s=0.148, theta=0.0, phi=0.0, wheel_speeds=[0.0] * 3))
    assert poll(lambda: abs(sum(robot.joints[-1].position)) < 0.02, 5.0)


def test_a_best_effort_motion_capture_drives_the_controller(robot):
    """vrpn_mocap and mocap4r2 publish best effort: the controller tracks such a pose (its trail reaches it)."""
    far = stamped((2.5, 0.2, 0.0), Header(frame_id='map'))
    with robot.probe.best_effort_stream(POSE, far):
        assert poll(lambda: any(p.pose.position.x == 2.5 for m in robot.probe.messages[TRAIL] for p in m.poses), 10.0)


def test_a_best_effort_motion_capture_gives_the_planner_its_start(robot, tmp_path):
    """A planner of its own on a pose topic that only a best-effort publisher feeds plans from that pose."""
    planner = runner.Process('qos_planner', [runner.executable('salamander_nav', 'salamander_planner'), '--ros-args',
                                             '-r', '__node:=qos_planner', '-r', 'mocap/salamander/pose:=/qos/pose'],
                             tmp_path)
    try:
        planner.wait_for_output('planner on')
        client = ActionClient(robot.probe.node, PlanPath, '/qos_planner/plan_path')
        header = Header(frame_id='map')
        with robot.probe.best_effort_stream('/qos/pose', stamped(START, header)):
            status, result, _ = robot.run(client, PlanPath.Goal(goal=stamped(GOAL, header),
                                                                planner_id='lattice_astar'), 30.0)
    finally:
        assert planner.stop() == 0
    assert status == GoalStatus.STATUS_SUCCEEDED, result.message
    assert planar_pose(result.path.poses[0].pose) == pytest.approx(START, abs=1e-3)     # the lattice's heading


def test_the_esp32_vanishing_aborts_the_path_and_the_link_comes_back(robot, tmp_path):
    sim = robot.processes[0]
    assert sim.name == 'salamander_sim'
    here = tuple(robot.pose())
    path = [(here[0] + 0.01 * k * math.cos(here[2]), here[1] + 0.01 * k * math.sin(here[2])) for k in range(200)]
    header = Header(frame_id='map')
    goal = TrackPath.Goal(speed_m_s=0.05)
    goal.path.poses = [stamped((x, y, here[2]), header) for x, y in path]
    assert robot.follow.wait_for_server(timeout_sec=5.0)
    feedback = []
    sent = robot.follow.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f))
    assert poll(lambda: len(feedback) >= 3, 5.0)
    result = sent.result().get_result_async()
    sim.popen.kill()                                    # the ESP32's USB cable pulled: its port vanishes
    sim.popen.wait()
    assert poll(result.done, 5.0) and result.result().status == GoalStatus.STATUS_ABORTED
    assert result.result().result.message.startswith('aborted')
    robot.processes[0] = runner.Process('salamander_sim', list(sim.popen.args), tmp_path)
    robot.processes[0].wait_for_output('behind')
    assert poll(lambda: robot.link.state == LinkStatus.CONNECTED, 10.0), 'the bridge did not reconnect'
