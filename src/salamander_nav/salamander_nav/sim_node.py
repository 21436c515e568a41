"""``salamander_sim``: the simulated origami salamander for ``sim:=true``: its host ESP32 and
modules behind a pseudo-terminal, and motion capture.

The ESP32 (``device.SalamanderFirmware``) answers on ``port`` exactly as the real one would, so the
controller runs its real bridge code; behind it the single-module model of §3.3.2 moves the front
wheel set with the cable and wheel loops' lag and a wheel slip noise, and, as parameters, the model
error of a real robot (``curvature_lag_m``, ``bend_gain``: ``kinematics.Plant``). Motion capture
publishes that pose as ``mocap/salamander/pose`` (geometry_msgs/PoseStamped in ``frame_id``) at
``mocap_rate_hz`` with position noise, as the thesis's Matlab loop read its mocap (§3.4.5).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from geometry_msgs.msg import PoseStamped
from rclpy.node import Node
from std_msgs.msg import Header

from salamander_nav.device import SalamanderFirmware
from salamander_nav.kinematics import ModuleGeometry, PlantError
from salamander_nav.origami import BODY_LENGTH_M
from salamander_nav.parameters import SIMULATOR
from soro_geometry.pose_msgs import stamped
from soro_link.device import SimulatedDevice
from soro_node.base_node import declare_parameters, run_node
from soro_node.params import ParameterError


class SalamanderSimNode(Node):
    """A SalamanderFirmware behind ``port`` and motion capture of its front wheel set, with
    ``mocap_noise_m`` noise. Raises ParameterError for a ``start_pose`` that is not three finite
    numbers."""

    def __init__(self, **kwargs):
        super().__init__('salamander_sim', **kwargs)
        self.settings = declare_parameters(self, SIMULATOR)
        p = self.settings.checked()
        start = np.asarray(p['start_pose'], dtype=float)
        if start.shape != (3,) or not np.all(np.isfinite(start)):
            raise ParameterError(
                f'parameter start_pose = {p["start_pose"]!r}: needs [x m, y m, heading '
                'rad], finite'
            )
        geometry = ModuleGeometry(
            cable_offset_m=p['cable_offset_m'], wheel_radius_m=p['wheel_radius_m']
        )
        self.firmware = SalamanderFirmware(
            p['modules'],
            geometry,
            p['spool_rate_max_rad_s'],
            p['wheel_tau_s'],
            p['slip_noise'],
            start_pose=start,
            seed=p['seed'],
            kinematics=p['firmware_kinematics'],
            plant_error=PlantError(p['curvature_lag_m'], p['bend_gain']),
        )
        Path(p['port']).parent.mkdir(parents=True, exist_ok=True)
        self.device = SimulatedDevice(self.firmware, p['port'], p['watchdog_ms']).start()
        self._rng = np.random.default_rng(p['seed'] + 1)
        self.pose_pub = self.create_publisher(PoseStamped, 'mocap/salamander/pose', 10)
        self.create_timer(1.0 / p['mocap_rate_hz'], self._mocap_frame)
        self.get_logger().info(
            f'salamander ({p["modules"]} module(s)) at {start.round(3).tolist()} behind '
            f'{p["port"]}'
        )

    def _mocap_frame(self) -> None:
        noise = self.settings.mocap_noise_m
        pose = self.firmware.pose() + self._rng.normal(0.0, 1.0, 3) * [
            noise,
            noise,
            noise / (BODY_LENGTH_M / 2),
        ]
        header = Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.frame_id)
        self.pose_pub.publish(stamped(pose, header))

    def destroy_node(self) -> None:
        """Stop the simulated device, then destroy the node."""
        self.device.stop()
        super().destroy_node()


def main(args=None) -> int:
    """The simulator's process (``run_node``); a ParameterError refuses the start."""
    return run_node(SalamanderSimNode, 'salamander_sim', args=args, refused=(ParameterError,))


if __name__ == '__main__':
    sys.exit(main())
