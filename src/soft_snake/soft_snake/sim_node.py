"""``soft_snake_sim``: the simulated soft snake for ``sim:=true``, and for gait exploration on its
own.

With a ``port`` the head controller (``device.SnakeHeadFirmware``) answers there exactly as the
real one would, so the driver runs its real bridge code, and the MuJoCo snake follows that board's
chamber pressures. With an empty ``port`` there is no board: the simulator runs ``gait`` itself
from its parameters, which ``ros2 param set`` changes while it runs, and publishes the bends on
``joint_states`` (the driver does that when there is a board).

With ``step_ahead_m`` a 7 cm step stands before the snake, which wears the wave-spring sheath
(``climbing.sheathed``): each wheel that gets over the step (``climbing.WheelLandings``) is passed
on to the driver's ``~/step_climb_advance``, as the operator does on the robot (a wheel over the
step advances Table 2.3's rows), and the wheels' heights go out on ``~/wheel_heights`` and how
far each axle's rear wheel's centre is past the step's edge on ``~/wheel_past_edge``
(std_msgs/Float64MultiArray, m, head to tail; behind the edge negative).

Either way the physics advances in step with the wall clock, and motion capture publishes the head
plate's pose (``mocap/soft_snake/head``) and the centre of mass (``mocap/soft_snake/com``),
geometry_msgs/PoseStamped in ``frame_id``, at ``mocap_rate_hz`` with position noise, as the thesis
recorded its runs (§2.2.2).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from pathlib import Path

import numpy as np
from geometry_msgs.msg import PoseStamped
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, Header
from std_srvs.srv import Trigger

from soft_snake import climbing, model_file, simulator
from soft_snake.device import SnakeHeadFirmware
from soft_snake.drawing import joint_names
from soft_snake.gaits import Gait, GaitError, ValveCommander, chamber_states
from soft_snake.parameters import SIMULATOR
from soro_link.device import SimulatedDevice
from soro_node.base_node import declare_parameters, run_node
from soro_node.frames import TrackedBase
from soro_node.params import ParameterError

# a physics loop this far behind the clock (a busy machine) skips ahead, not races
LAG_RESET_S = 0.5
# worth a warning: the board's thread waits for the interpreter meanwhile
SLOW_TICK_S = 0.05
# 0.2 ms of physics per 10 ms tick: with this pause it still runs at 10x real time
MIN_PAUSE_S = 0.0005


class SoftSnakeSimNode(Node):
    """The simulated snake (see the module docstring): MuJoCo physics paced by the wall clock
    on a thread of its own, behind a simulated head controller on ``port`` or running
    ``gait`` itself, and the motion capture of its head and centre of mass."""

    def __init__(self, **kwargs):
        super().__init__('soft_snake_sim', **kwargs)
        self.settings = declare_parameters(self, SIMULATOR)
        p = self.settings.checked()
        built = model_file.load_or_calibrated(p['body_parameters_file'])
        # before the step the snake wears the sheath it climbed in (§2.2.2): built in, as it
        # sets the body's radius and joints
        worn = climbing.sheathed(built.body) if p['step_ahead_m'] else built.body
        self.sim = simulator.SnakeSim(
            p['segments'],
            p['surface'],
            worn,
            # tau_s 0: the chambers' own time constants
            p['tau_s'] or None,
            p['tau_s'] or None,
            step_at_m=p['step_ahead_m'] or None,
            chambers=built.chambers,
        )
        if p['step_ahead_m'] and p['start_seed'] >= 0:
            climbing.place(self.sim, climbing.Start.jittered(p['start_seed']))
        self.landings = climbing.WheelLandings(self.sim) if p['step_ahead_m'] else None
        self._landed: deque[int] = deque()
        self._lock, self._running = threading.Lock(), True
        self.device = self.firmware = None
        if p['port']:
            self.firmware = SnakeHeadFirmware(p['segments'], self.sim.chambers.params)
            Path(p['port']).parent.mkdir(parents=True, exist_ok=True)
            self.device = SimulatedDevice(self.firmware, p['port'], p['watchdog_ms']).start()
        self._valves, self._gait_error = ValveCommander(p['segments']), None
        # rebuilt when a parameter changes, not every tick
        self._gait: Gait | None = None
        self.add_post_set_parameters_callback(lambda _changed: setattr(self, '_gait', None))
        self._rng = np.random.default_rng(p['seed'])
        self.head_pub = self.create_publisher(PoseStamped, 'mocap/soft_snake/head', 10)
        self.com_pub = self.create_publisher(PoseStamped, 'mocap/soft_snake/com', 10)
        self.joint_pub = (
            None if self.device else self.create_publisher(JointState, 'joint_states', 10)
        )
        # without a board the simulator places the snake, else the driver does
        self.tf = None if self.device else TrackedBase.of(self, self.settings)
        self.create_timer(1.0 / p['mocap_rate_hz'], self._mocap_frame)
        if self.landings is not None:
            self.wheels_pub = self.create_publisher(Float64MultiArray, '~/wheel_heights', 10)
            self.past_edge_pub = self.create_publisher(Float64MultiArray, '~/wheel_past_edge', 10)
            # relative: the driver in the simulator's own namespace (two snakes, two drivers)
            self.advance = self.create_client(Trigger, f'{p["driver"]}/step_climb_advance')
            self.create_timer(0.05, self._report_landings)
        self._physics = threading.Thread(target=self._run_physics, daemon=True)
        self._physics.start()
        where = (
            f'behind {p["port"]}'
            if self.device
            else f'running {p["gait"]} itself (no valve board)'
        )
        body = p['body_parameters_file'] or 'the calibrated body'
        self.get_logger().info(
            f'{p["segments"]}-module soft snake ({body}) on {p["surface"]}, {where}'
        )

    # --- physics, paced by the wall clock --------------------------------------------------------
    def _run_physics(self) -> None:
        began = time.monotonic()
        while self._running:
            behind = time.monotonic() - began - self.sim.t_s
            if behind > LAG_RESET_S:
                began += behind  # keep real time from here on
            # always a pause: a loop that only computes holds the GIL, and the board's thread,
            # which gives it up at every read and write, would wait for it each time (the firmware
            # then falls behind its host)
            time.sleep(max(-behind, MIN_PAUSE_S))
            if behind < 0:
                continue
            tick_began = time.monotonic()
            with self._lock:
                if self.firmware is not None:
                    self.sim.follow(self.firmware.pressures_pa())
                else:
                    self.sim.tick(self._own_duty())
                if self.landings is not None:
                    landed = self.landings.update(self.sim)
                    if landed is not None:
                        self._landed.append(landed)
            took = time.monotonic() - tick_began
            if took > SLOW_TICK_S:
                self.get_logger().warning(
                    f'a physics tick took {took * 1e3:.0f} ms (t = {self.sim.t_s:.2f} s)'
                )

    def _own_duty(self) -> np.ndarray:
        try:
            if self._gait is None:
                g = self.settings
                self._valves.inflate_duty = g['inflate_duty']
                self._gait = Gait(
                    g['gait'],
                    g['segments'],
                    g['frequency_hz'],
                    g['beta_rad'],
                    g['phi'],
                    g['wave_direction'],
                )
            duty, error = self._valves.duty(chamber_states(self._gait, self.sim.t_s)), None
        except GaitError as problem:
            duty, error = np.zeros((self.sim.segments, 3)), str(problem)
        if error != self._gait_error:
            self._gait_error = error
            if error:
                self.get_logger().error(f'{error}: every chamber vented')
            else:
                self.get_logger().info('gait running')
        return duty

    def _report_landings(self) -> None:
        """Wheel heights for the record, and each landing passed to the driver (from the executor:
        the physics thread never waits on ROS)."""
        with self._lock:
            heights = self.sim.wheel_heights()
            past_edge = self.landings.centres_past_edge(self.sim)
        self.wheels_pub.publish(Float64MultiArray(data=heights.tolist()))
        self.past_edge_pub.publish(Float64MultiArray(data=past_edge.tolist()))
        while self._landed:
            wheel = self._landed.popleft()
            self.get_logger().info(f'wheel {wheel + 1} is over the step: advancing the climb')
            if self.advance.service_is_ready():
                self.advance.call_async(Trigger.Request())
            else:
                self.get_logger().warning('no step_climb_advance service to call')

    # --- what motion capture and rviz see --------------------------------------------------------
    def _mocap_frame(self) -> None:
        with self._lock:
            (head, quaternion), com = self.sim.head_pose(), self.sim.com()
            bends = self.sim.joint_angles() if self.joint_pub is not None else None
        noise = self.settings.mocap_noise_m
        head, com = head + self._rng.normal(0, noise, 3), com + self._rng.normal(0, noise, 3)
        header = Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.frame_id)
        head_msg = _pose(header, head, quaternion)
        self.head_pub.publish(head_msg)
        self.com_pub.publish(_pose(header, com, (1.0, 0.0, 0.0, 0.0)))
        if self.joint_pub is not None:
            self.tf.send(head_msg)
            self.joint_pub.publish(
                JointState(
                    header=Header(stamp=header.stamp),
                    name=joint_names(self.sim.segments),
                    position=bends.ravel().tolist(),
                )
            )

    def destroy_node(self) -> None:
        """Stop the physics thread and the simulated head controller, then destroy the node."""
        self._running = False
        self._physics.join(timeout=1.0)
        if self.device is not None:
            self.device.stop()
        super().destroy_node()


def _pose(header: Header, position, quaternion_wxyz) -> PoseStamped:
    msg = PoseStamped(header=header)
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = (float(v) for v in position)
    o = msg.pose.orientation
    o.w, o.x, o.y, o.z = (float(v) for v in quaternion_wxyz)
    return msg


def main(args=None) -> int:
    """The simulator's process (``base_node.run_node``); a refused parameter stops its start."""
    return run_node(
        SoftSnakeSimNode, 'soft_snake_sim', args=args, refused=(ParameterError, ValueError)
    )


if __name__ == '__main__':
    sys.exit(main())
