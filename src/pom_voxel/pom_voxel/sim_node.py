"""``pom_sim``: the simulated voxel quadruped for ``sim:=true``: its actuator board behind a
pseudo-terminal and an overhead motion-capture camera.

The board (``device.PomBoardFirmware``) answers on ``port`` exactly as the real one would, so the
controller runs its real bridge code. The camera publishes ``mocap_markers``
(geometry_msgs/PoseArray in ``frame_id``, positions only) at ``camera_rate_hz``: the four top
markers where POM puts them for the actuators' actual strokes, seen from above with noise. Their
body also drifts along (+x, +y) and turns slowly, at rates that are invented: POM does not model
contact with the floor, so how far a gait carries the robot is not simulated. The preprocessing of
the paper (pom_voxel.mocap) removes that motion again.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from geometry_msgs.msg import Pose, PoseArray
from rclpy.node import Node
from std_msgs.msg import Header

from pom_voxel import drawing, structure
from pom_voxel.device import PomBoardFirmware
from pom_voxel.parameters import SIMULATOR
from pom_voxel.planes_of_motion import PlanesOfMotion
from soro_link.device import SimulatedDevice
from soro_node.base_node import declare_parameters, run_node


class PomSimNode(Node):
    """``pom_sim``: the simulated actuator board behind ``port`` and the overhead camera publishing
    ``mocap_markers``."""

    def __init__(self, **kwargs):
        super().__init__('pom_sim', **kwargs)
        self.settings = declare_parameters(self, SIMULATOR)
        p = self.settings.checked()
        self.pom = PlanesOfMotion(structure.load(structure.resolve(p['structure_file'])))
        self._markers = [
            self.pom.index[node]
            for node in structure.effector_nodes(self.pom.structure, p['markers'])
        ]
        self.firmware = PomBoardFirmware(p['speed_mm_s'])
        Path(p['port']).parent.mkdir(parents=True, exist_ok=True)
        self.device = SimulatedDevice(self.firmware, p['port'], p['watchdog_ms']).start()
        self._rng, self._started = np.random.default_rng(p['seed']), self.get_clock().now()
        self.camera_pub = self.create_publisher(PoseArray, 'mocap_markers', 10)
        self.create_timer(1.0 / p['camera_rate_hz'], self._camera_frame)
        self.get_logger().info(
            f'voxel quadruped ({len(self.pom.structure.voxels)} voxels) behind {p["port"]}'
        )

    def _camera_frame(self) -> None:
        q = self.firmware.positions_mm()[: len(self.pom.structure.actuators)]
        body = drawing.deformed_m(self.pom, q)[self._markers, :2]
        t = (self.get_clock().now() - self._started).nanoseconds * 1e-9
        turn = self.settings.turn_rad_s * t
        c, s = np.cos(turn), np.sin(turn)
        lab = body @ np.array([[c, s], [-s, c]]) + self.settings.drift_m_s * t / np.sqrt(2)
        lab += self._rng.normal(0.0, self.settings.camera_noise_m, lab.shape)
        poses = []
        for x, y in lab:
            pose = Pose()
            pose.position.x, pose.position.y, pose.orientation.w = float(x), float(y), 1.0
            poses.append(pose)
        header = Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.frame_id)
        self.camera_pub.publish(PoseArray(header=header, poses=poses))

    def destroy_node(self) -> None:
        """Power the simulated board off (its pseudo-terminal goes), then destroy the node."""
        self.device.stop()
        super().destroy_node()


def main(args=None) -> int:
    """Run ``pom_sim`` until Ctrl-C; the exit code."""
    return run_node(PomSimNode, 'pom_sim', args=args)


if __name__ == '__main__':
    sys.exit(main())
