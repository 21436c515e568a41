"""``tensegrity_live``: the simulator live, for rviz2 and rosbag2.

Publishes ``~/state`` (soro_interfaces/TensegrityState), ``~/rod_poses`` (geometry_msgs/PoseArray)
and ``~/markers`` (visualization_msgs/MarkerArray: rods as cylinders, cables as lines coloured
slack / normal / over-strained) in ``frame_id`` at ``publish_rate_hz``, stepping the simulation
``real_time_factor`` times as fast as the wall clock, and places ``base_frame`` at the centre of
mass on tf (``frame_id`` -> ``odom_frame`` -> ``base_frame``). Services ``~/reset`` (to a ψ or to
given rod poses; also applies changed physical parameters) and ``~/set_rest_lengths`` (actuation);
action ``~/sweep`` runs the ψ sweep with progress feedback. ψ is in rad at both, as at every ROS
interface; the node turns it into the degrees of the paper's grid and presets. A run that diverges
stops publishing (never NaN) and logs why until the next reset.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import replace

import numpy as np
from geometry_msgs.msg import Point, Pose, PoseArray, PoseStamped, Twist
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from soro_interfaces.action import PsiSweep
from soro_interfaces.msg import TensegrityState
from soro_interfaces.srv import ResetTensegrity, SetRestLengths
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker, MarkerArray

from soro_node.base_node import (
    action_server,
    answering_service,
    declare_parameters,
    progress_reporter,
    run_goal,
    run_node,
)
from soro_node.frames import TrackedBase
from soro_node.params import ParameterError
from tensegrity_sim.integrate import SimulationDiverged
from tensegrity_sim.live import STATUS_COLOURS, LiveSimulation, cylinder_orientation
from tensegrity_sim.parameters import PRESET, RUN, physics_parameters, structure_from_parameters
from tensegrity_sim.presets import preset
from tensegrity_sim.prism import PsiError
from tensegrity_sim.structure import StructureError
from tensegrity_sim.sweep import GridError, psi_grid, run_sweep

# the share of a tick's period its stepping may take: the rest keeps services, parameters and the
# sweep's action answering at any real_time_factor
TICK_WORK_SHARE = 0.5
# wall seconds the simulation may lag its clock and still catch up (a tick late under load);
# beyond, real_time_factor is more than the machine simulates and the clock is set back
MAX_LAG_S = 0.5
# steps a reset tries before it answers, to refuse a structure that blows up at once (~50 ms)
TRIAL_STEPS = 20


class TensegritySimNode(Node):
    """Parameters in, messages out; the simulation itself is a LiveSimulation."""

    def __init__(self, **kwargs):
        super().__init__('tensegrity_sim', **kwargs)
        self.preset = preset(declare_parameters(self, (PRESET,)).checked()['preset'])
        self.physics = physics_parameters(self.preset)  # the preset gives their defaults
        self.settings = declare_parameters(self, self.physics + RUN)
        run = self.settings.checked()
        self.frame_id = run['frame_id']
        self.sim = self._build_simulation()
        self._hold_for = run['hold_for_subscribers']
        self.duration_s = run['duration_s']
        self.finished = False
        self._restart_clock()
        self.state_pub = self.create_publisher(TensegrityState, '~/state', 10)
        self.poses_pub = self.create_publisher(PoseArray, '~/rod_poses', 10)
        self.markers_pub = self.create_publisher(MarkerArray, '~/markers', 10)
        # world -> odom -> base_link at the centre of mass: rviz's world exists
        self.tf = TrackedBase.of(self, self.settings)
        answering_service(self, ResetTensegrity, '~/reset', self._reset)
        answering_service(self, SetRestLengths, '~/set_rest_lengths', self._set_rest_lengths)
        # beside the clock
        self.sweep_server = action_server(
            self, PsiSweep, '~/sweep', self._sweep, callback_group=ReentrantCallbackGroup()
        )
        self._tick_period_s = 1.0 / run['publish_rate_hz']
        self.create_timer(self._tick_period_s, self._tick)

    def _build_simulation(self) -> LiveSimulation:
        """A simulation from the current parameters; raises ParameterError, StructureError or
        PsiError."""
        values = self.settings.checked()
        sim = LiveSimulation(
            replace(self.preset, centre_radius_m=values['centre_radius_m']),
            structure_from_parameters(self.preset.structure, values),
            values['integrator'],
            values['dt_s'],
        )
        sim.reset_to_psi(degrees(values['psi']))
        return sim

    def destroy_node(self) -> None:
        """Destroy the sweep's action server, then the node."""
        self.sweep_server.destroy()
        super().destroy_node()

    # --- the clock -------------------------------------------------------------------------------
    def _tick(self) -> None:
        if self.sim.diverged:
            return
        now = self.get_clock().now()
        due = self._simulated_time_due(now)
        # a tick steps for at most a share of its period, so services and parameters still answer
        deadline = time.monotonic() + TICK_WORK_SHARE * self._tick_period_s
        try:
            self.sim.advance_to(due, deadline)
        except SimulationDiverged as error:
            self.get_logger().error(f'{error}; publishing stopped until ~/reset')
            return
        if due - self.sim.sim_time_s > MAX_LAG_S * self.settings.real_time_factor:
            self._fell_behind(now)
        self._publish(now.to_msg())
        if self.duration_s and self.sim.sim_time_s >= self.duration_s - 1e-9:
            self.get_logger().info(f'simulated {self.sim.sim_time_s:g} s (duration_s); exiting')
            self.finished = True

    def _simulated_time_due(self, now) -> float:
        """Where the simulation should be at wall time ``now``: real_time_factor times the wall
        time since the clock started, the clock held at 0 until ``hold_for_subscribers`` are
        listening."""
        if self._hold_for:  # the clock starts from this tick on, which still publishes t = 0
            self._anchor = (now, 0.0, self._anchor[2])
            if self.state_pub.get_subscription_count() >= self._hold_for:
                self._hold_for = 0
        rtf = self.settings.real_time_factor
        # re-anchor so that a change of speed does not jump the simulated time
        if rtf != self._anchor[2]:
            self._anchor = (now, self.sim.sim_time_s, rtf)
        wall0, sim0, _ = self._anchor
        return sim0 + rtf * (now - wall0).nanoseconds * 1e-9

    def _fell_behind(self, now) -> None:
        """The simulation lags its clock by more than MAX_LAG_S: the clock starts again from
        where it is (no backlog of steps to catch up, which froze the node at 100x), said once in
        10 s."""
        rtf = self.settings.real_time_factor
        self.get_logger().warning(
            f'real_time_factor {rtf:g} is more than this machine simulates: running as fast as '
            f'{TICK_WORK_SHARE:.0%} of each tick allows',
            throttle_duration_sec=10.0,
        )
        self._anchor = (now, self.sim.sim_time_s, rtf)

    def _restart_clock(self) -> None:
        """Simulated time 0 is now: (wall time, simulated time, real-time factor) of the clock's
        anchor."""
        self._anchor = (self.get_clock().now(), 0.0, self.settings.real_time_factor)

    def _released(self, request: ResetTensegrity.Request) -> LiveSimulation:
        """A simulation from the present parameters, at the request's rod poses or ψ."""
        sim = self._build_simulation()
        if request.rod_poses:
            sim.reset_to_poses(
                [[p.position.x, p.position.y, p.position.z] for p in request.rod_poses],
                [
                    [p.orientation.w, p.orientation.x, p.orientation.y, p.orientation.z]
                    for p in request.rod_poses
                ],
            )
        else:
            sim.reset_to_psi(degrees(request.psi))
        return sim

    # --- services and the action -----------------------------------------------------------------
    def _reset(self, request: ResetTensegrity.Request, response: ResetTensegrity.Response):
        try:
            sim = self._released(request)
            _trial(sim)
        except PsiError as error:
            response.success, response.message = (
                False,
                f'reset refused: psi = {request.psi!r} rad, that is {error}',
            )
            return response
        except (ParameterError, StructureError, ValueError) as error:
            response.success, response.message = False, f'reset refused: {error}'
            return response
        self.sim = sim
        self._restart_clock()
        response.success = True
        response.message = (
            'reset to the given rod poses'
            if request.rod_poses
            else f'reset to psi = {request.psi:g} rad ({degrees(request.psi):g} deg)'
        )
        return response

    def _set_rest_lengths(
        self, request: SetRestLengths.Request, response: SetRestLengths.Response
    ):
        try:
            self.sim.set_rest_lengths(np.array(request.rest_lengths))
        except StructureError as error:
            response.success, response.message = False, f'rest lengths refused: {error}'
            return response
        response.success, response.message = True, f'{len(request.rest_lengths)} rest lengths set'
        return response

    def _sweep(self, goal_handle) -> PsiSweep.Result:
        goal, result = goal_handle.request, PsiSweep.Result()
        result.psi_min = result.psi_max = result.psi_star = result.psi_2star = math.nan
        progress = progress_reporter(
            goal_handle,
            lambda done, total, psi: PsiSweep.Feedback(
                runs_done=done, runs_total=total, last_psi=math.radians(psi)
            ),
        )

        def work() -> str:
            grid = psi_grid(
                degrees(goal.psi_start), degrees(goal.psi_stop), degrees(goal.psi_step)
            )
            sweep = run_sweep(
                self.sim.preset, grid, duration_s=goal.duration_s or None, progress=progress
            )
            for name, value in sweep.thresholds.items():  # psi_min_deg -> psi_min, in rad
                setattr(
                    result,
                    name.removesuffix('_deg'),
                    math.nan if value is None else math.radians(value),
                )
            result.psi = [math.radians(p) for p in sweep.psi_deg]
            result.normal_mode = [run['normal_mode'] for run in sweep.runs]
            return f'{len(grid)} runs'

        return run_goal(
            goal_handle,
            result,
            work,
            (GridError, ValueError, SimulationDiverged),
            self.get_logger(),
            cancelled='sweep cancelled',
            refusal_prefix='sweep refused: ',
        )

    # --- messages --------------------------------------------------------------------------------
    def _publish(self, stamp) -> None:
        snap = self.sim.snapshot()
        header = Header(stamp=stamp, frame_id=self.frame_id)
        poses = [_pose(c, q) for c, q in zip(snap.centres, snap.quaternions)]
        self.poses_pub.publish(PoseArray(header=header, poses=poses))
        self.tf.send(
            PoseStamped(header=header, pose=_pose(snap.centre_of_mass, (1.0, 0.0, 0.0, 0.0)))
        )
        self.markers_pub.publish(MarkerArray(markers=self._markers(header, snap)))
        self.state_pub.publish(
            TensegrityState(
                header=header,
                sim_time_s=snap.sim_time_s,
                psi_rad=math.radians(snap.psi_deg),
                rod_poses=poses,
                rod_twists=[
                    _twist(v, w) for v, w in zip(snap.velocities, snap.angular_velocities)
                ],
                cable_lengths=snap.lengths.tolist(),
                cable_rest_lengths=snap.rest_lengths.tolist(),
                cable_strains=snap.strains.tolist(),
                cable_tensions=snap.tensions.tolist(),
                cable_status=snap.status.tolist(),
                center_of_mass=_point(snap.centre_of_mass),
                energy=snap.energy,
                normal_mode=snap.normal_mode,
            )
        )

    def _markers(self, header: Header, snap) -> list[Marker]:
        rods = [
            Marker(
                header=header,
                ns='rods',
                id=j,
                type=Marker.CYLINDER,
                action=Marker.ADD,
                pose=_pose(c, q),
                color=ColorRGBA(r=0.55, g=0.35, b=0.2, a=1.0),
            )
            for j, (c, q) in enumerate(zip(snap.centres, cylinder_orientation(snap.quaternions)))
        ]
        for rod, length in zip(rods, snap.rod_lengths):
            rod.scale.x = rod.scale.y = 0.015
            rod.scale.z = float(length)
        cables = Marker(header=header, ns='cables', id=0, type=Marker.LINE_LIST, action=Marker.ADD)
        cables.pose.orientation.w = 1.0
        cables.scale.x = 0.004
        cables.points = [_point(snap.ends[i]) for pair in snap.cable_ends for i in pair]
        cables.colors = [
            ColorRGBA(r=r, g=g, b=b, a=a)
            for s in snap.status
            for r, g, b, a in (STATUS_COLOURS[s],) * 2
        ]
        return rods + [cables]


def _point(x) -> Point:
    return Point(x=float(x[0]), y=float(x[1]), z=float(x[2]))


def degrees(rad: float) -> float:
    """An interface's angle (rad) in the degrees of the paper's ψ grid and presets, rounded to
    1e-9° so that a grid given in rad lands on the paper's whole degrees (30° = 0.5235987755982988
    rad is 29.999999999999996°)."""
    return round(math.degrees(rad), 9)


def _pose(centre, q) -> Pose:
    pose = Pose(position=_point(centre))
    pose.orientation.w, pose.orientation.x, pose.orientation.y, pose.orientation.z = (
        float(v) for v in q
    )
    return pose


def _twist(v, w) -> Twist:
    twist = Twist()
    twist.linear.x, twist.linear.y, twist.linear.z = (float(x) for x in v)
    twist.angular.x, twist.angular.y, twist.angular.z = (float(x) for x in w)
    return twist


def _trial(sim: LiveSimulation) -> None:
    """ValueError when ``sim`` diverges within TRIAL_STEPS: stiff cables at a coarse dt_s were
    reset with a success, then blew up (3.2e12 J) and stopped publishing."""
    try:
        sim.trial(TRIAL_STEPS)
    except SimulationDiverged as error:
        raise ValueError(f'{error} (in a trial of {TRIAL_STEPS} steps from this reset)') from None


def main(args=None) -> int:
    """Run the node until Ctrl-C or, if ``duration_s`` is set, that much simulated time (two
    threads: the sweep beside the clock); the exit code. A refused parameter, structure, ψ or
    preset ends the start in one line."""
    return run_node(
        TensegritySimNode,
        'tensegrity_sim',
        # the sweep action runs beside the clock
        lambda: MultiThreadedExecutor(num_threads=2),
        args=args,
        refused=(ParameterError, StructureError, PsiError, KeyError),
        until=lambda node: node.finished,
    )


if __name__ == '__main__':
    sys.exit(main())
