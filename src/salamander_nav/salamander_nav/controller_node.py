"""``salamander_controller``: the salamander's path follower and host-ESP32 bridge (thesis
§3.4.4-3.4.5, spec B6, B8).

A soro_link lifecycle bridge to the host ESP32, which relays each module's command over ESP-NOW.
Action ``~/track_path`` (TrackPath) runs line-of-sight tracking with PD steering at
``command_rate_hz`` on the tracked pose (``mocap/salamander/pose``): each step commands the front
module's planar bend and wheel speed, and reports cross-track and heading error, distance left and
the waypoint. The wheels stop at the goal, on cancel, when the link drops and whenever the pose is
stale; after ``tracking_lost_s`` without a fresh pose the path is abandoned, and so is a path the
robot makes less than ``progress_required_m`` of progress along in ``progress_window_s`` (blocked,
circling) or whose goal it passes outside the goal tolerances (position, and heading when the last
pose has one), each with the reason. ``~/module_command`` (soro_interfaces/ModuleCommand) drives
any module by hand (the pre-programmed gaits of §3.2.6) when no path is being followed. Out:
``~/los_debug`` (projection point, reference point, LOS vector), ``~/trail`` (the tracked path),
``joint_states`` (module 1's bend for the URDF), and on tf map→odom (a static identity) and
odom→base_link (the tracked pose).
"""

from __future__ import annotations

import itertools
import math
import sys
import time

import numpy as np
from geometry_msgs.msg import Point, PoseStamped
from nav_msgs.msg import Path
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState
from soro_interfaces.action import TrackPath
from soro_interfaces.msg import ModuleCommand as ModuleCommandMsg
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker, MarkerArray

from salamander_nav import modules, origami, tracking
from salamander_nav.los import LosSettings, LosTracker
from salamander_nav.modules import SCHEMAS, ModuleCommand
from salamander_nav.origami import Bend
from salamander_nav.parameters import CONTROLLER
from soro_geometry.pose_msgs import frame_problem, planar_pose, stamped
from soro_link.bridge_main_node import run_bridge
from soro_link.bridge_node import BridgeNode
from soro_node.base_node import GoalRefused, sensor_data_qos
from soro_node.frames import TrackedBase
from soro_node.params import field_value

ACK_TIMEOUT_S = 0.5
TRAIL_PERIOD_S = 0.5


class SalamanderController(BridgeNode):
    """The host-ESP32 bridge with ``~/track_path`` (LOS tracking with PD steering on the tracked
    pose) and ``~/module_command``; the module docstring lists its topics."""

    LEFT_IN = ('wheels stopped', 'wheels left to the ESP32 watchdog (300 ms)')

    def __init__(self, **kwargs):
        super().__init__('salamander_controller', SCHEMAS, CONTROLLER, **kwargs)
        # (x, y, ψ), monotonic time received
        self._pose: tuple[np.ndarray, float] | None = None
        self._bends: dict[int, Bend] = {}
        self.trail, self._trail_sent = tracking.Trail(), 0.0
        group = ReentrantCallbackGroup()
        self.create_subscription(
            PoseStamped,
            'mocap/salamander/pose',
            self._on_pose,
            sensor_data_qos(50),
            callback_group=group,
        )
        self.create_subscription(
            ModuleCommandMsg, '~/module_command', self._on_module_command, 10, callback_group=group
        )
        self.los_pub = self.create_lifecycle_publisher(MarkerArray, '~/los_debug', 10)
        self.trail_pub = self.create_lifecycle_publisher(Path, '~/trail', 10)
        self.joint_pub = self.create_lifecycle_publisher(JointState, 'joint_states', 10)
        self.tf = TrackedBase.of(self, self.settings)
        # one path at a time: a second is rejected at once, so requests queue only as a burst,
        # never behind a path
        self.goal_server(
            TrackPath,
            '~/track_path',
            self._follow,
            'cancelled; wheels stopped',
            callback_group=group,
            feedback_pub_qos_profile=QoSProfile(depth=10),
        )

    # --- tracking --------------------------------------------------------------------------------
    def _on_pose(self, msg: PoseStamped) -> None:
        pose = planar_pose(msg.pose)
        # dropped: the last finite pose goes stale and the wheels stop
        if not np.all(np.isfinite(pose)):
            self.get_logger().warning(
                f'mocap/salamander/pose refused: {pose.tolist()} is not finite',
                throttle_duration_sec=1.0,
            )
            return
        self._pose = (pose, time.monotonic())
        if self.trail.add(pose) and time.monotonic() - self._trail_sent > TRAIL_PERIOD_S:
            self._trail_sent = time.monotonic()
            header = Header(stamp=msg.header.stamp, frame_id=self.settings.frame_id)
            self.trail_pub.publish(
                Path(header=header, poses=[stamped(p, header) for p in self.trail.array()])
            )
        self.tf.send(msg)

    # --- following a path ------------------------------------------------------------------------
    def _follow(self, goal_handle, result) -> str:
        request, s = goal_handle.request, self.params  # as configured
        speed = field_value(
            self.settings.spec('speed_m_s'),
            request.speed_m_s,
            'speed_m_s',
            self.settings.speed_m_s,
        )
        self.require_active('controller')
        # a path in odom is not one in map, where motion capture tracks the robot
        problem = frame_problem(request.path.header.frame_id, self.settings.frame_id)
        if problem:
            raise GoalRefused(f'refused: path.header.{problem}')
        tracker = self._tracker(request.path.poses)
        progress = tracking.ProgressChecker(s['progress_required_m'], s['progress_window_s'])
        problem = tracking.progress_problem(
            speed, s['progress_required_m'], s['progress_window_s']
        )
        if problem:
            raise GoalRefused(f'refused: {problem}')
        stale = tracking.StaleClock(self.settings.tracking_lost_s)
        outcome: list[str] = []

        def act(_slot, _step) -> None:
            now = time.monotonic()
            pose, seen = self._pose or (np.full(3, np.nan), -np.inf)
            step = tracker.step(pose, seen, now)
            result.max_cross_track_m = max(
                result.max_cross_track_m, abs(np.nan_to_num(step.cross_track_m))
            )
            self._command(
                tracking.steering_command(
                    step, speed, s['s_nominal_m'], s['wheel_radius_m'], self._held_bend()
                )
            )
            if step.status in ('goal reached', 'goal missed'):
                result.final_distance_m = float(np.hypot(*(pose[:2] - tracker.waypoints[-1])))
                outcome.append(arrival(step.status, result.final_distance_m, pose, tracker))
            elif stale.update(not step.drive, now):
                outcome.append('lost')
            elif step.drive and (stuck := progress.update(step.distance_left_m, now)):
                outcome.append(stuck)
            if step.drive:
                self._report(goal_handle, pose, step)

        self.play_goal(
            goal_handle,
            1.0 / s['command_rate_hz'],
            itertools.repeat(None),
            act,
            until=lambda: bool(outcome),
        )
        return self._ended(outcome, stale)

    def _report(self, goal_handle, pose, step) -> None:
        """One control step's LOS markers and the goal's feedback."""
        self.los_pub.publish(los_markers(pose, step, self._header()))
        goal_handle.publish_feedback(
            TrackPath.Feedback(
                cross_track_m=step.cross_track_m,
                heading_error=step.heading_error,
                distance_left_m=step.distance_left_m,
                waypoint=step.waypoint,
                bend=step.bend_rad,
            )
        )

    def _ended(self, outcome: list[str], stale: tracking.StaleClock) -> str:
        """The wheels stopped; what the goal reports, or GoalRefused with why it was given up."""
        self._command(
            ModuleCommand(tracking.FRONT_MODULE, self._held_bend(), (0.0,) * modules.WHEELS)
        )
        if outcome == ['lost']:
            raise GoalRefused(
                f'aborted: no fresh pose on mocap/salamander/pose for {stale.give_up_s:.1f} s; '
                'wheels stopped'
            )
        if outcome and not outcome[0].startswith('goal reached'):
            raise GoalRefused(f'aborted: {outcome[0]}; wheels stopped')
        return outcome[0] if outcome else 'cancelled'

    def _tracker(self, poses) -> LosTracker:
        """The LOS tracker of a TrackPath's poses, to arrive with the last one's heading if it has
        one; GoalRefused with the reason for a path it cannot follow."""
        heading = None
        if poses:
            q = poses[-1].pose.orientation
            heading = tracking.end_heading((q.w, q.x, q.y, q.z))
        try:
            return LosTracker(
                [(p.pose.position.x, p.pose.position.y) for p in poses],
                self._los_settings(),
                heading,
            )
        except ValueError as error:
            raise GoalRefused(f'refused: {error}') from None

    def _los_settings(self) -> LosSettings:
        s = self.settings
        return LosSettings(
            s.lookahead_m,
            s.switch_radius_m,
            s.goal_tolerance_m,
            s.kp,
            s.kd_s,
            stale_after_s=s.stale_after_s,
            goal_heading_tolerance_rad=s.goal_heading_tolerance_rad,
            s_nominal_m=s.s_nominal_m,
            curvature_preview_m=s.curvature_preview_m,
        )

    def _held_bend(self) -> Bend:
        """The front module's bend as its encoders last read it, inside the workspace (the reading
        may round a hair beyond 148 mm or 106°, which the firmware would refuse)."""
        return origami.saturate(
            self._bends.get(tracking.FRONT_MODULE, Bend(origami.S_MAX_M, 0.0, 0.0))
        )[0]

    def _command(self, command: ModuleCommand) -> None:
        name, body = self._module_body(command)
        self.goal_command(
            lambda link: link.send(
                name, wait_ack=True, timeout_s=ACK_TIMEOUT_S, resend=True, **body
            )
        )

    # --- commands by hand ------------------------------------------------------------------------
    def _on_module_command(self, msg: ModuleCommandMsg) -> None:
        problem = modules.module_id_problem(
            msg.module_id, self.settings.modules
        ) or modules.wheel_speeds_problem(msg.wheel_speeds)
        if problem:
            self.get_logger().error(
                f'~/module_command refused: {problem}', throttle_duration_sec=1.0
            )
            return
        if self.goals_running():
            self.get_logger().warning(
                '~/module_command refused: following a path (cancel it first)',
                throttle_duration_sec=1.0,
            )
            return
        try:
            bend, notes = origami.saturate(Bend(msg.s, msg.theta, msg.phi))
        except origami.WorkspaceError as error:
            self.get_logger().error(f'~/module_command refused: {error}; wheels stopped')
            self.force_safe_state('invalid module command')
            return
        for note in notes:
            self.get_logger().warning(f'~/module_command for module {msg.module_id}: {note}')
        name, body = self._module_body(ModuleCommand(msg.module_id, bend, tuple(msg.wheel_speeds)))
        self.send_command(name, **body)

    def _module_body(self, command: ModuleCommand) -> tuple[str, dict]:
        """The body that carries ``command``: (s, θ, ϕ), or Eq. 3.1's cable lengths for a firmware
        without the kinematics (``send_cable_lengths``)."""
        if self.settings.send_cable_lengths:
            return 'module_cables', command.cable_fields(self.settings.cable_offset_m)
        return 'module_command', command.fields()

    # --- telemetry -------------------------------------------------------------------------------
    def on_device_message(self, message) -> None:
        """A module's state: its bend (a goal holds it) and, for the front module, joint_states."""
        if message.name != 'module_state':
            return
        bend = modules.bend_of_fields(message)
        self._bends[message['module_id']] = bend
        if message['module_id'] == tracking.FRONT_MODULE:
            self.joint_pub.publish(
                JointState(
                    header=self._header(),
                    name=tracking.joint_names(),
                    position=tracking.bend_joints(bend),
                )
            )

    def _header(self) -> Header:
        return Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.frame_id)


def arrival(status: str, distance_m: float, pose, tracker: LosTracker) -> str:
    """The outcome of a follow that ended at the goal: reached, or passed without meeting the
    goal's position and heading tolerances."""
    if status == 'goal reached':
        return f'goal reached {distance_m * 1e3:.0f} mm from the last waypoint'
    off = math.degrees(tracker.heading_error_at_goal(pose[2]))
    st = tracker.settings
    return (
        f'goal missed: passed it {distance_m * 1e3:.0f} mm away, heading {off:.0f}° off (goal '
        f'tolerances {st.goal_tolerance_m * 1e3:.0f} mm, '
        f'{math.degrees(st.goal_heading_tolerance_rad):.0f}°)'
    )


def los_markers(pose, step, header: Header) -> MarkerArray:
    """The thesis's Fig. 3.31 colours: projection point red, reference point yellow, LOS vector
    orange."""

    def marker(ident: int, kind: int, points, colour: ColorRGBA, scale: float) -> Marker:
        m = Marker(header=header, ns='los', id=ident, type=kind, action=Marker.ADD, color=colour)
        m.scale.x = m.scale.y = m.scale.z = scale
        m.pose.orientation.w = 1.0
        m.points = [Point(x=float(x), y=float(y), z=0.01) for x, y in points]
        return m

    red, yellow = ColorRGBA(r=0.9, g=0.1, b=0.1, a=1.0), ColorRGBA(r=1.0, g=0.85, b=0.0, a=1.0)
    orange = ColorRGBA(r=1.0, g=0.5, b=0.0, a=1.0)
    arrow = marker(2, Marker.ARROW, [pose[:2], step.reference], orange, 0.01)
    arrow.scale.y, arrow.scale.z = 0.02, 0.03
    return MarkerArray(
        markers=[
            marker(0, Marker.SPHERE_LIST, [step.projection], red, 0.03),
            marker(1, Marker.SPHERE_LIST, [step.reference], yellow, 0.03),
            arrow,
        ]
    )


def main(args=None) -> int:
    """The controller's process (``bridge_main_node.run_bridge``, three executor threads)."""
    return run_bridge(
        SalamanderController,
        'salamander_controller',
        lambda: MultiThreadedExecutor(num_threads=3),
        args,
    )


if __name__ == '__main__':
    sys.exit(main())
