"""``soft_snake_driver``: the soft snake's valve driver and head-controller bridge (thesis
§2.1-2.2; spec A6).

A soro_link lifecycle bridge to the head controller. Action ``~/run_gait`` (RunGait) streams every
chamber's valve duty at ``tick_hz`` from Eq. 2.1, Eq. 2.2 or the step-climb table 2.3, for a
duration or a number of gait periods, and vents every chamber at the end, on cancel and on Ctrl-C;
its feedback carries the cycle and, when motion capture publishes ``mocap/soft_snake/com``, the
centre of mass's speed. ``~/step_climb_advance`` (std_srvs/Trigger) moves the climb to the next
wheel (the robot cannot feel a wheel land); ``step_climb_row_s`` does it on a timer. Every request
is answered, a burst of a thousand included (``soro_node.base_node.REQUEST_DEPTH``), when the
client's own queues are as deep (``SoftSnakeCommander``'s are; rclpy's default client keeps 10); a
gait sent while one runs is rejected at once. From the head's telemetry: ``joint_states`` (the
bends the pressures call for, urdf/soft_snake.urdf.xacro; of ``body_parameters_file``'s snake,
or the calibrated one), ``~/chambers`` (visualization_msgs/MarkerArray, chambers coloured by
pressure) and ``~/chamber_pressure``
(std_msgs/Float64MultiArray, N × 3 gauge pressures in Pa, NaN where the head measures none: then
the drawing uses the pressures the duties call for); ``~/valve_duty`` the commanded duties (N × 3,
0-1) whenever they change. ``mocap/soft_snake/head`` places the snake in tf for rviz; ``~/trail``
(nav_msgs/Path) is the tracked centre of mass's recent path.
"""

from __future__ import annotations

import math
import sys
from collections import deque

import numpy as np
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.lifecycle import State, TransitionCallbackReturn
from sensor_msgs.msg import JointState
from soro_interfaces.action import RunGait
from std_msgs.msg import Float64MultiArray, Header, MultiArrayDimension, MultiArrayLayout
from std_srvs.srv import Trigger
from visualization_msgs.msg import MarkerArray

from soft_snake import calibration, drawing, model_file, pneumatics
from soft_snake.gaits import GaitError, ValveCommander
from soft_snake.parameters import DRIVER
from soft_snake.runs import GaitRequest, Run, SpeedTracker
from soft_snake.valves import SCHEMAS, duties_of, pressures_of, to_wire
from soro_geometry.pose_msgs import frame_problem
from soro_link.bridge_main_node import run_bridge
from soro_link.bridge_node import BridgeNode
from soro_node.base_node import answering_service, sensor_data_qos
from soro_node.frames import TrackedBase
from soro_node.params import field_value

ACK_TIMEOUT_S = 0.5
# one tracked pose in five joins the trail (10 Hz at motion capture's 50 Hz) ...
TRAIL_EVERY = 5
# ... for 30 s, and the trail goes out once a second: a long Path costs a Python node
TRAIL_POSES = 300
# m either way from the origin of frame_id: a motion-capture pose beyond is not the snake's
ARENA_M = 1000.0


class SoftSnakeDriver(BridgeNode):
    """The soft snake's valve driver, a BridgeNode to the head controller: ``~/run_gait``,
    ``~/step_climb_advance`` and the head's telemetry (see the module docstring)."""

    LEFT_IN = ('chambers vented', "chambers left to the head's watchdog (vents)")

    def __init__(self, **kwargs):
        super().__init__('soft_snake_driver', SCHEMAS, DRIVER, **kwargs)
        self._run: Run | None = None
        self._tracker: SpeedTracker | None = None
        self.segments = self.settings.segments
        self.drawn_body = calibration.CALIBRATED  # body_parameters_file's, once configured
        self.joint_pub = self.create_lifecycle_publisher(JointState, 'joint_states', 10)
        self.chambers_pub = self.create_lifecycle_publisher(MarkerArray, '~/chambers', 10)
        self.pressure_pub = self.create_lifecycle_publisher(
            Float64MultiArray, '~/chamber_pressure', 10
        )
        self.duty_pub = self.create_lifecycle_publisher(Float64MultiArray, '~/valve_duty', 10)
        self.trail_pub = self.create_lifecycle_publisher(Path, '~/trail', 10)
        self._trail: deque[PoseStamped] = deque(maxlen=TRAIL_POSES)
        self._poses_seen = 0
        self._last_duty: np.ndarray | None = None
        self.tf = TrackedBase.of(self, self.settings)  # base_link is the head (plate0)
        group = ReentrantCallbackGroup()
        self.create_subscription(
            PoseStamped,
            'mocap/soft_snake/com',
            self._on_com,
            sensor_data_qos(10),
            callback_group=group,
        )  # every pose: the speed fit and the trail
        self.create_subscription(
            PoseStamped,
            'mocap/soft_snake/head',
            self.tf.send,
            sensor_data_qos(5),
            callback_group=group,
        )
        answering_service(
            self, Trigger, '~/step_climb_advance', self._advance, callback_group=group
        )
        self.goal_server(
            RunGait,
            '~/run_gait',
            self._run_gait,
            'cancelled; every chamber vented',
            (GaitError,),
            callback_group=group,
            make_result=lambda: RunGait.Result(distance_m=math.nan, speed_m_s=math.nan),
        )

    def on_configure(self, state: State) -> TransitionCallbackReturn:
        """The snake of ``body_parameters_file`` to draw, then the bridge's configure; FAILURE,
        logged in one line, for a file refused."""
        path = self.settings.body_parameters_file
        try:
            self.drawn_body = model_file.load_or_calibrated(path).body
        except ValueError as exc:
            self.get_logger().error(f'body_parameters_file refused: {exc}')
            return TransitionCallbackReturn.FAILURE
        return super().on_configure(state)

    # --- running a gait --------------------------------------------------------------------------
    def _run_gait(self, goal_handle, result) -> str:
        try:
            return self._play(goal_handle, result)
        finally:
            self._run = self._tracker = None

    def _play(self, goal_handle, result) -> str:
        g, settings = goal_handle.request, self.settings
        tick_hz = settings['tick_hz']
        # the wave's fields stand in for the parameters of the same names: one range for both
        wave = [
            field_value(settings.spec(name), getattr(g, name), name, settings[name])
            for name in ('frequency_hz', 'beta_rad', 'phi')
        ]
        run = Run(
            GaitRequest(g.gait, *wave, g.segments, g.duration_s, g.cycles),
            settings,
            self.segments,
            tick_hz,
        )
        self.require_active('driver')
        self._run, self._tracker = run, SpeedTracker(run.period_s)
        valves = ValveCommander(self.segments, settings['inflate_duty'])
        per_cycle = max(1, round(run.period_s * tick_hz))
        row_every = round(settings['step_climb_row_s'] * tick_hz)
        pending = [None]  # the previous tick's ack, confirmed one tick later

        def act(slot, index) -> None:
            t = index / tick_hz
            if run.climb is not None and row_every and index and index % row_every == 0:
                run.climb.advance()
            duty = run.duty(t, valves)
            pending[0] = self._command(duty, pending[0])
            if (index + 1) % per_cycle == 0:
                result.cycles = (index + 1) // per_cycle
                goal_handle.publish_feedback(
                    RunGait.Feedback(
                        cycle=result.cycles,
                        elapsed_s=t,
                        speed_m_s=self._tracker.last_period_speed(),
                        step_climb_row=min(run.climb.row + 1, run.climb.rows) if run.climb else 0,
                    )
                )

        self.play_goal(goal_handle, 1.0 / tick_hz, range(run.ticks), act)
        # every chamber vented, also on cancel; then the head's safe state, which waits for the
        # next gait's duties (left commanded, its watchdog tripped 500 ms later with an ERROR)
        self._command(np.zeros((self.segments, 3)), None)
        self.force_safe_state(f'{g.gait} done')
        result.distance_m, result.speed_m_s = self._tracker.run()
        speed = (
            '' if math.isnan(result.speed_m_s) else f', {result.speed_m_s * 1e3:.1f} mm/s tracked'
        )
        return (
            f'{g.gait}: {run.ticks / tick_hz:.1f} s, {result.cycles} cycle(s){speed}; every '
            'chamber vented'
        )

    def _command(self, duty: np.ndarray, previous):
        """Post this tick's duties and confirm the previous tick's ack, so a slow ack never delays
        a tick."""

        def send(link):
            pending = link.post('set_valves', **to_wire(duty))
            if previous is not None:
                link.confirm(previous, ACK_TIMEOUT_S, resend=True)
            return pending

        pending = self.goal_command(send)
        if self._last_duty is None or not np.array_equal(duty, self._last_duty):
            self.hand_over(lambda: self.duty_pub.publish(_array(duty)))  # never from the beat
            self._last_duty = duty
        return pending

    def _advance(self, request, response):
        climb = None if self._run is None else self._run.climb
        row = None if climb is None else climb.advance()
        response.success = row is not None
        if climb is None:
            response.message = 'no step climb is running'
        elif row is None:
            response.message = 'the climb is complete: every wheel is up'
        else:
            response.message = (
                f'every wheel is up: pulling the tail on for {climb.finish_s:g} s'
                if row == climb.rows
                else f'lifting wheel {row + 1}'
            )
        return response

    def _on_com(self, msg: PoseStamped) -> None:
        frame, at = msg.header.frame_id, msg.pose.position
        # NaN fails the bound too; a pose elsewhere once made a gait 4.4 km/s
        if frame_problem(frame, self.settings.frame_id) or not (
            abs(at.x) <= ARENA_M and abs(at.y) <= ARENA_M
        ):
            self.get_logger().warning(
                f"a centre-of-mass pose in frame '{frame}' at ({at.x:g}, {at.y:g}) m: left out "
                f"(expected '{self.settings.frame_id}', within ±{ARENA_M:g} m)",
                throttle_duration_sec=10.0,
            )
            return
        self._poses_seen += 1
        if self._poses_seen % TRAIL_EVERY == 0:
            self._trail.append(msg)
            if self._poses_seen % (TRAIL_EVERY * 10) == 0:
                self.trail_pub.publish(Path(header=msg.header, poses=list(self._trail)))
        tracker, stamp = self._tracker, msg.header.stamp
        if tracker is None:
            return
        if not (stamp.sec or stamp.nanosec):
            # no time to place it at; the speed is a distance over time
            self.get_logger().warning(
                'a centre-of-mass pose with no stamp: not in the speed', throttle_duration_sec=10.0
            )
            return
        tracker.add(stamp.sec + stamp.nanosec * 1e-9, msg.pose.position.x, msg.pose.position.y)

    # --- telemetry -------------------------------------------------------------------------------
    def on_device_message(self, message) -> None:
        """The head's chambers: joint_states, the chamber drawing and the measured pressures."""
        if message.name != 'chambers':
            return
        if message['modules'] != self.segments:
            self.get_logger().error(
                f'the head reports {message["modules"]} modules, this driver has '
                f'{self.segments}: check the segments parameter'
            )
            return
        pressure, duty = pressures_of(message), duties_of(message)
        # a head that measures no pressure (firmware/snake_head.c) is drawn with the pressures its
        # duties call for
        drawn = np.where(np.isnan(pressure), duty * pneumatics.SUPPLY_PA, pressure)
        stamp = self.get_clock().now().to_msg()
        self.joint_pub.publish(
            JointState(
                header=Header(stamp=stamp),
                name=drawing.joint_names(self.segments),
                position=drawing.joint_positions(drawn, self.drawn_body),
            )
        )
        self.chambers_pub.publish(
            drawing.chamber_markers(drawn, stamp, self.drawn_body.segment_length_m)
        )
        self.pressure_pub.publish(_array(pressure))


def _array(values: np.ndarray) -> Float64MultiArray:
    """N × 3 values as a Float64MultiArray with its (segments, chambers) layout."""
    rows, columns = values.shape
    layout = MultiArrayLayout(
        dim=[
            MultiArrayDimension(label='segments', size=rows, stride=rows * columns),
            MultiArrayDimension(label='chambers', size=columns, stride=columns),
        ]
    )
    return Float64MultiArray(layout=layout, data=values.ravel().tolist())


def main(args=None) -> int:
    """The driver's process (``bridge_main_node.run_bridge``) on a three-thread executor."""
    return run_bridge(
        SoftSnakeDriver, 'soft_snake_driver', lambda: MultiThreadedExecutor(num_threads=3), args
    )


if __name__ == '__main__':
    sys.exit(main())
