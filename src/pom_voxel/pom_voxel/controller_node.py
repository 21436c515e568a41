"""``pom_controller``: the voxel quadruped's controller and actuator-board bridge (Planes of
Motion, spec A5-A7, A9).

A soro_link lifecycle bridge to the board of four linear actuators. Action ``~/execute_gait``
(ExecuteVoxelGait) walks a key-pose gait: each key pose's strokes by POM inverse kinematics,
cosine-interpolated between key poses and commanded at ``command_rate_hz``; the robot returns to
its rest pose at the end and on cancel. On Ctrl-C (and on a link fault) it holds where it is
instead: that is the board's safe state (firmware/pom_board.c: a lattice under load must not spring
back), and the goal ends aborted with a result that says the actuators are held. A goal sent while
one runs is rejected at once. Service ``~/inverse_kinematics`` (ComputeVoxelIK) answers foot
targets with strokes and every node's predicted displacement. From the board's stroke telemetry it
publishes the POM forward kinematics of the markers a camera sees (``~/predicted_markers``,
geometry_msgs/PoseArray, the paper's Fig. 7 path) and the deformed lattice (``~/lattice``,
visualization_msgs/MarkerArray: nodes, beams, actuators coloured by stroke); the strokes themselves
go out as ``joint_states`` (one joint per actuator, its control-node displacement in m), the
paper's on-robot log. All in ``base_frame``, which it holds at the world's origin on tf
(``frame_id`` -> ``odom_frame`` -> ``base_frame``, static identities: POM has no odometry).
"""

from __future__ import annotations

import sys

import numpy as np
from geometry_msgs.msg import Point, Pose, PoseArray, Vector3
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.lifecycle import State, TransitionCallbackReturn
from sensor_msgs.msg import JointState
from soro_interfaces.action import ExecuteVoxelGait
from soro_interfaces.srv import ComputeVoxelIK
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker, MarkerArray

from pom_voxel import drawing, gaits, structure
from pom_voxel.actuators import SCHEMAS, to_mm, to_um
from pom_voxel.lattice import LatticeError
from pom_voxel.parameters import CONTROLLER
from pom_voxel.planes_of_motion import STROKE_LIMIT_MM, PlanesOfMotion
from soro_link.bridge_main_node import run_bridge
from soro_link.bridge_node import BridgeNode
from soro_node.base_node import GoalRefused, answering_service
from soro_node.frames import StaticTransforms, tracked_base_of
from soro_node.params import ParameterError, field_value

MAX_CYCLES = 10_000
# as the TerreSoRo executor: a board (or a simulated one on a busy machine) may pause
ACK_TIMEOUT_S = 0.5
LATTICE_PERIOD_S = 0.1  # the drawing is for the eye: 10 Hz of it is plenty


class PomController(BridgeNode):
    """``pom_controller``: the actuator board's lifecycle bridge with the gait action, the IK
    service and the POM predictions of the stroke telemetry."""

    LEFT_IN = ('actuators held where they are', 'actuators left to the firmware watchdog (held)')

    def __init__(self, **kwargs):
        super().__init__('pom_controller', SCHEMAS, CONTROLLER, **kwargs)
        self.pom: PlanesOfMotion | None = None
        self._last_drawing = 0.0
        self.markers_pub = self.create_lifecycle_publisher(PoseArray, '~/predicted_markers', 10)
        self.joint_pub = self.create_lifecycle_publisher(JointState, 'joint_states', 10)
        self.lattice_pub = self.create_lifecycle_publisher(MarkerArray, '~/lattice', 10)
        # no odometry: the structure stands at the world's origin for rviz (world -> odom ->
        # base_link, identities)
        self.tf = StaticTransforms(self, tracked_base_of(self.settings))
        group = ReentrantCallbackGroup()
        answering_service(
            self,
            ComputeVoxelIK,
            '~/inverse_kinematics',
            self._inverse_kinematics,
            callback_group=group,
        )
        self.goal_server(
            ExecuteVoxelGait,
            '~/execute_gait',
            self._walk,
            'cancelled; back at rest',
            (LatticeError,),
            callback_group=group,
        )

    def on_configure(self, state: State) -> TransitionCallbackReturn:
        """Load the structure, build POM with its ideality η and find the marker nodes; FAILURE,
        logged, on a refused parameter or lattice."""
        try:
            values = self.settings.checked()
            self.pom = PlanesOfMotion(
                structure.load(structure.resolve(values['structure_file'])), values['ideality']
            )
            self._markers = structure.effector_nodes(self.pom.structure, values['markers'])
        except (ParameterError, LatticeError) as error:
            self.get_logger().error(str(error))
            return TransitionCallbackReturn.FAILURE
        return super().on_configure(state)

    # --- inverse kinematics ----------------------------------------------------------------------
    def _inverse_kinematics(self, request, response):
        try:
            if self.pom is None:
                raise LatticeError('not configured yet (lifecycle: configure)')
            if not request.effectors:
                raise LatticeError(
                    "no effectors given: name one effector DOF in every actuator's plane"
                )
            if not len(request.effectors) == len(request.axes) == len(request.targets_m):
                raise LatticeError('effectors, axes and targets_m need one entry each per DOF')
            effectors = self.pom.structure.effectors
            unknown = [name for name in request.effectors if name not in effectors]
            if unknown:
                raise LatticeError(
                    f'no effector {", ".join(unknown)}; the structure has {", ".join(effectors)}'
                )
            dofs = [(effectors[name], axis) for name, axis in zip(request.effectors, request.axes)]
            strokes = self.pom.inverse(dofs, 1000.0 * np.asarray(request.targets_m, dtype=float))
        except LatticeError as error:
            self.get_logger().warning(f'inverse kinematics refused: {error}')
            response.success, response.message = False, str(error)
            return response
        names = [a.name for a in self.pom.structure.actuators]
        response.success, response.message, response.actuators = True, strokes.report(names), names
        response.strokes_m, response.saturated = (
            (strokes.q / 1000.0).tolist(),
            strokes.saturated.tolist(),
        )
        response.nodes = [Point(x=x, y=y, z=z) for x, y, z in self.pom.rest_m.tolist()]
        response.displacements = [
            Vector3(x=x, y=y, z=z) for x, y, z in (self.pom.forward(strokes.q) / 1000).tolist()
        ]
        return response

    # --- gaits -----------------------------------------------------------------------------------
    def _walk(self, goal_handle, result) -> str:
        goal, rate = goal_handle.request, self.settings['command_rate_hz']
        period = field_value(
            self.settings.spec('step_period_s'),
            goal.step_period_s,
            'step_period_s',
            self.settings.step_period_s,
        )
        if not 1 <= goal.cycles <= MAX_CYCLES:
            raise GoalRefused(f'cycles = {goal.cycles}: allowed 1-{MAX_CYCLES} cycles')
        self.require_active('controller')
        keys, _ = gaits.key_strokes(self.pom, gaits.gait(goal.gait), goal.reverse)
        per_step = max(1, round(period * rate))
        _, strokes = gaits.interpolate(keys[1:], period, per_step * (len(keys) - 1), 'cosine')
        steps = (
            (cycle, k, q) for cycle in range(1, goal.cycles + 1) for k, q in enumerate(strokes)
        )

        def act(_slot, step) -> None:
            cycle, k, q = step
            self._command(q)
            if k % per_step == 0:
                result.key_poses += 1
                goal_handle.publish_feedback(
                    ExecuteVoxelGait.Feedback(
                        cycle=cycle, key_pose=k // per_step + 1, strokes_m=(q / 1000.0).tolist()
                    )
                )

        self.play_goal(goal_handle, 1.0 / rate, steps, act)
        self._command(np.zeros(len(self.pom.structure.actuators)))  # back to rest, also on cancel
        return f'{goal.cycles} cycle(s) of {goal.gait}, {result.key_poses} key poses; back at rest'

    def _command(self, q_mm) -> None:
        self.goal_command(
            lambda link: link.send(
                'set_strokes',
                wait_ack=True,
                timeout_s=ACK_TIMEOUT_S,
                resend=True,
                target_um=to_um(q_mm),
            )
        )

    # --- telemetry: POM forward kinematics of what the actuators did -----------------------------
    def on_device_message(self, message) -> None:
        """The board's strokes: joint_states, the markers' predicted poses, the lattice (10 Hz)."""
        if message.name != 'strokes' or self.pom is None:
            return
        q = to_mm(message['position_um'])[: len(self.pom.structure.actuators)]
        header = Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.base_frame)
        positions = drawing.deformed_m(self.pom, q)
        self.joint_pub.publish(
            JointState(
                header=header,
                name=[a.name for a in self.pom.structure.actuators],
                position=(q / 1000.0).tolist(),
            )
        )
        self.markers_pub.publish(
            PoseArray(
                header=header, poses=[_pose(positions[self.pom.index[n]]) for n in self._markers]
            )
        )
        now = self.get_clock().now().nanoseconds * 1e-9
        if now - self._last_drawing >= LATTICE_PERIOD_S:
            self._last_drawing = now
            self.lattice_pub.publish(lattice_markers(self.pom, positions, q, header))


def _pose(p) -> Pose:
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in p)
    pose.orientation.w = 1.0
    return pose


def lattice_markers(
    pom: PlanesOfMotion, positions: np.ndarray, q_mm: np.ndarray, header: Header
) -> MarkerArray:
    """Nodes (spheres), beams (grey lines) and actuators (lines from blue at -5 mm to red at +5
    mm)."""

    def marker(ident, kind, scale, points, colours) -> Marker:
        m = Marker(header=header, ns='pom_lattice', id=ident, type=kind, action=Marker.ADD)
        m.scale.x = m.scale.y = m.scale.z = scale
        m.pose.orientation.w = 1.0
        m.points = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in points]
        m.colors = colours
        return m

    grey = ColorRGBA(r=0.6, g=0.6, b=0.6, a=1.0)
    beams = drawing.beam_pairs(pom)
    ends, colours = [], []
    for (control, partner), stroke in zip(drawing.actuator_pairs(pom), q_mm):
        if partner is None:
            continue
        s = float(np.clip(stroke / STROKE_LIMIT_MM, -1, 1))
        colour = ColorRGBA(r=(1 + s) / 2, g=0.1, b=(1 - s) / 2, a=1.0)
        ends += [positions[control], positions[partner]]
        colours += [colour, colour]
    return MarkerArray(
        markers=[
            marker(0, Marker.SPHERE_LIST, 0.006, positions, [grey] * len(positions)),
            marker(
                1, Marker.LINE_LIST, 0.0015, positions[beams.ravel()], [grey] * (2 * len(beams))
            ),
            marker(2, Marker.LINE_LIST, 0.004, ends, colours),
        ]
    )


def main(args=None) -> int:
    """Run ``pom_controller`` on three threads until Ctrl-C or SIGTERM; the exit code."""
    return run_bridge(
        PomController, 'pom_controller', lambda: MultiThreadedExecutor(num_threads=3), args
    )


if __name__ == '__main__':
    sys.exit(main())
