"""``terresoro_executor``: the TerreSoRo hardware bridge and gait executor (paper VI-A, VII; spec
8).

A soro_link lifecycle bridge to the robot's Arduino. Actions ``~/execute_gait`` (ExecuteGait: a
simple cycle of states, repeated) and ``~/execute_walk`` (ExecuteWalk: a closed walk once, for
exploration) run one primitive per τ, open loop, and end with a clean stop in state 1. Each
primitive is a 12 V step on the limbs that curl and a reversal pulse on those that uncurl.
Publishes ``~/executed_edge`` per primitive, the open-loop prediction from the learned weights
(``~/predicted_pose`` with covariance, ``~/predicted_path``), ``joint_states`` from the limbs' curl
telemetry, and ``~/trail``, the path of the tracked pose (``tracked_pose``); the tracked pose also
places ``base_frame`` on tf where tf2_ros is installed: ``frame_id`` -> ``odom_frame`` static
identity, ``odom_frame`` -> ``base_frame`` tracked (REP-105). A device that disconnects or refuses
a command aborts the goal with the reason and leaves the robot in its safe state.
"""

from __future__ import annotations

import sys
import threading
from collections import deque

from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from nav_msgs.msg import Path
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.duration import Duration
from rclpy.executors import MultiThreadedExecutor
from rclpy.lifecycle import State, TransitionCallbackReturn
from sensor_msgs.msg import JointState
from soro_interfaces.action import ExecuteGait, ExecuteWalk
from soro_interfaces.msg import ExecutedEdge
from std_msgs.msg import Header

from soro_link.bridge_main_node import run_bridge
from soro_link.bridge_node import BridgeNode
from soro_node.base_node import GoalRefused, sensor_data_qos
from soro_node.frames import TrackedBase
from soro_node.params import ParameterError
from terresoro_gait import messages
from terresoro_gait.digraph import GaitError
from terresoro_gait.execution import gait_primitives, stop_primitives, walk_primitives
from terresoro_gait.limbs import (
    SCHEMAS,
    curl_joint_positions,
    joint_names,
    primitive_drives,
    vertex_of_curls,
)
from terresoro_gait.parameters import EXECUTOR, executor_config
from terresoro_gait.prediction import Prediction

ACK_TIMEOUT_S = 0.5
# a goal sent right after start-up waits this long for the link and the robot's state
TELEMETRY_WAIT_S = 5.0
# the trail is for the eye; every camera frame would cost thousands of poses a second
TRAIL_PERIOD_S = 0.5


class TerreSoroExecutor(BridgeNode):
    """``terresoro_executor``: the Arduino's lifecycle bridge with the gait and walk actions and
    the open-loop prediction of every primitive."""

    LEFT_IN = ('robot in its safe state', 'robot left to its firmware watchdog (safe state)')

    def __init__(self, **kwargs):
        super().__init__('terresoro_executor', SCHEMAS, EXECUTOR, **kwargs)
        # set by configure and by the device's telemetry
        self.robot, self.vertex = None, None
        # the state the last command left the robot in
        self._at = None
        self._telemetry = threading.Event()
        self._trail: deque = deque()
        self._latest_tracked = None
        self.edge_pub = self.create_lifecycle_publisher(ExecutedEdge, '~/executed_edge', 100)
        self.predicted_pub = self.create_lifecycle_publisher(
            PoseWithCovarianceStamped, '~/predicted_pose', 10
        )
        self.predicted_path_pub = self.create_lifecycle_publisher(Path, '~/predicted_path', 10)
        self.trail_pub = self.create_lifecycle_publisher(Path, '~/trail', 10)
        self.joint_pub = self.create_lifecycle_publisher(JointState, 'joint_states', 10)
        self.tf = TrackedBase.of(self, self.settings)
        # goals run for minutes beside telemetry, tracking and services
        group = ReentrantCallbackGroup()
        self.create_subscription(
            PoseStamped,
            'tracked_pose',
            self._on_tracked,
            sensor_data_qos(10),
            callback_group=group,
        )
        self.create_timer(TRAIL_PERIOD_S, self._publish_trail)
        for action, name, run in (
            (ExecuteGait, '~/execute_gait', self._execute_gait),
            (ExecuteWalk, '~/execute_walk', self._execute_walk),
        ):
            self.goal_server(
                action,
                name,
                run,
                'cancelled; stopped in state 1',
                (GaitError,),
                callback_group=group,
            )  # one goal of either at a time

    def on_configure(self, state: State) -> TransitionCallbackReturn:
        """Take the robot's description from the parameters (executor_config); FAILURE, logged, on
        a refused or conflicting value."""
        try:
            self.robot = executor_config(self.settings.checked())
        except (ParameterError, ValueError) as error:
            self.get_logger().error(str(error))
            return TransitionCallbackReturn.FAILURE
        return super().on_configure(state)

    # --- actions ---------------------------------------------------------------------------------
    def _execute_gait(self, goal_handle, result: ExecuteGait.Result) -> str:
        goal = goal_handle.request
        return self._execute(
            goal_handle,
            result,
            lambda graph, current: gait_primitives(
                graph, current, list(goal.vertices), goal.cycles
            ),
            lambda p, k, total, edge, pose: ExecuteGait.Feedback(
                cycle=p.cycle, edge=edge, predicted_pose=pose
            ),
        )

    def _execute_walk(self, goal_handle, result: ExecuteWalk.Result) -> str:
        walk = list(goal_handle.request.vertices)
        return self._execute(
            goal_handle,
            result,
            lambda graph, current: walk_primitives(graph, current, walk),
            lambda p, k, total, edge, pose: ExecuteWalk.Feedback(
                primitives_done=k, primitives_total=total, edge=edge
            ),
        )

    def _execute(self, goal_handle, result, plan, feedback) -> str:
        """Run plan(graph, current state), then the clean stop (also on cancel); fill
        ``result``."""
        self._at = self._ready()
        primitives = plan(self.robot.graph, self._at)
        prediction = self._prediction()
        self._run(primitives, goal_handle, result, prediction, feedback)
        self._run(stop_primitives(self._at), None, result, prediction, feedback)
        if isinstance(result, ExecuteGait.Result):
            result.predicted_pose = (
                prediction.message(self._world_header()) or result.predicted_pose
            )
        return f'done: {result.primitives} primitives, stopped in state 1'

    def _ready(self) -> int:
        self.require_active('executor')
        if not self._telemetry.wait(TELEMETRY_WAIT_S):
            raise GoalRefused(
                f'refused: no telemetry from the robot within {TELEMETRY_WAIT_S:g} s, its '
                'state is unknown'
            )
        return self.vertex

    def _run(self, primitives, goal_handle, result, prediction, feedback) -> None:
        """Run ``primitives`` one per τ on the sequence player until done or cancelled (asked
        before each one; never for the clean stop, which has no ``goal_handle``). Each primitive's
        acks are confirmed after the next one is commanded, so a slow ack never moves a command."""
        total, unconfirmed = len(primitives), []

        def act(slot, primitive) -> None:
            self._at = primitive.initial
            start, posted = self._drive(primitive, slot, unconfirmed)
            unconfirmed[:] = posted
            # its slot's end: the next command instant
            end = start + Duration(seconds=self.robot.tau_s)
            edge = messages.executed_edge(
                primitive, result.primitives, start.to_msg(), end.to_msg(), self.settings.frame_id
            )
            self._at = primitive.terminal
            prediction.step(primitive)
            self.edge_pub.publish(edge)
            result.edges.append(edge)
            result.primitives += 1
            pose = self._publish_prediction(prediction)
            if goal_handle is not None:
                goal_handle.publish_feedback(
                    feedback(primitive, slot.index + 1, total, edge, pose)
                )

        report = self.play_goal(goal_handle, self.robot.tau_s, primitives, act)
        self._confirm(unconfirmed)
        if report.reanchored:
            self.get_logger().warning(
                f'{report.reanchored} primitive(s) started over τ/4 late (up to '
                f'{max(report.late_s) * 1e3:.0f} ms): was the '
                'machine overloaded?'
            )

    def _drive(self, primitive, slot, previous):
        """Command one primitive at the start of its slot: the pulse drive at once, the held drive
        after the reversal pulse; confirm the ``previous`` primitive's acks in between. Returns the
        command instant (rclpy Time) and this primitive's posted commands."""
        r = self.robot
        pulse, after = primitive_drives(
            primitive.initial,
            primitive.terminal,
            r.graph.n_limbs,
            r.motor_of_limb,
            r.hold_curled_powered,
        )
        start = self.get_clock().now()
        posted = [self._post(pulse, primitive)]
        self._confirm(previous)
        if after != pulse:
            slot.wait_until(r.reversal_pulse_s)
            posted.append(self._post(after, primitive))
        return start, posted

    def _post(self, drive, primitive):
        """Send one drive; (the primitive, the pending ack)."""
        posted = self.goal_command(
            lambda link: link.post('set_limbs', drive=drive), _in(primitive)
        )
        return primitive, posted

    def _confirm(self, posted) -> None:
        """Wait (up to ACK_TIMEOUT_S from their sending) for the acks of ``posted`` drives."""
        for primitive, pending in posted:
            self.goal_command(
                lambda link, sent=pending: link.confirm(sent, ACK_TIMEOUT_S, resend=True),
                _in(primitive),
            )

    # --- prediction, tracking and telemetry ------------------------------------------------------
    def _publish_prediction(self, prediction: Prediction) -> PoseWithCovarianceStamped:
        pose = prediction.message(self._world_header())
        if pose is None:
            return PoseWithCovarianceStamped()
        self.predicted_pub.publish(pose)
        self.predicted_path_pub.publish(prediction.path(self._world_header()))
        return pose

    def _prediction(self) -> Prediction:
        """Open-loop odometry from the tracked pose (or the origin), on the weights file if there
        is one."""
        start = messages.paper_pose(self._latest_tracked.pose) if self._latest_tracked else None
        prediction = Prediction.from_file(
            self.settings.weights_file, self.robot.graph.n_limbs, start
        )
        if prediction.problem:
            self.get_logger().warning(
                f'no open-loop prediction: {prediction.problem}', throttle_duration_sec=60.0
            )
        return prediction

    def _on_tracked(self, msg: PoseStamped) -> None:
        """Keep the tracked pose for predictions and the trail; it places base_link (odom ->
        base_link) for rviz."""
        self._latest_tracked = msg
        self.tf.send(msg)
        self._trail.append(msg)
        while len(self._trail) > self.settings.trail_length:
            self._trail.popleft()

    def _publish_trail(self) -> None:
        if self._trail:
            self.trail_pub.publish(Path(header=self._trail[-1].header, poses=list(self._trail)))

    def on_device_message(self, message) -> None:
        """The limbs' curls: the robot's state for the next goal, and joint_states."""
        if message.name != 'limbs' or self.robot is None:
            return
        self.vertex = int(message['vertex']) or vertex_of_curls(
            message['curl_pct'], self.robot.motor_of_limb
        )
        self._telemetry.set()
        curl = [message['curl_pct'][m] / 100.0 for m in self.robot.motor_of_limb]
        self.joint_pub.publish(
            JointState(
                header=self._world_header(),
                name=joint_names(len(curl)),
                position=curl_joint_positions(curl),
            )
        )

    def _world_header(self) -> Header:
        return Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.frame_id)


def _in(primitive) -> str:
    """Where a goal aborted: `` in primitive 3->1``."""
    return f' in primitive {primitive.initial}->{primitive.terminal}'


def main(args=None) -> int:
    """Run ``terresoro_executor`` until Ctrl-C or SIGTERM (four threads: goals beside telemetry and
    tracking); the exit code."""
    return run_bridge(
        TerreSoroExecutor, 'terresoro_executor', lambda: MultiThreadedExecutor(num_threads=4), args
    )


if __name__ == '__main__':
    sys.exit(main())
