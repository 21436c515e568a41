"""``terresoro_sim``: the simulated TerreSoRo world for ``sim:=true``: the robot and its Arduino
behind a pseudo-terminal, on a ground-truth substrate, seen by an overhead camera tracker.

The firmware (``device.TerreSoroFirmware``) answers on ``port`` exactly as the real board would, so
the executor runs its real bridge code. The tracker publishes ``tracked_pose``
(geometry_msgs/PoseStamped in ``frame_id``) at ``tracker_rate_hz`` with Gaussian noise, as the
paper's marker tracking would (VI-B), and sends nothing while the marker is occluded
(``occlusion_s`` in every ``occlusion_period_s``); ``~/ground_truth`` is the same pose without
noise, for evaluation only.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from geometry_msgs.msg import PoseStamped
from rclpy.node import Node
from std_msgs.msg import Header

from soro_link.device import SimulatedDevice
from soro_node.base_node import declare_parameters, run_node
from terresoro_gait import messages
from terresoro_gait.device import TerreSoroFirmware
from terresoro_gait.limbs import check_motor_map
from terresoro_gait.parameters import SIMULATOR
from terresoro_gait.substrate import substrate_weights
from terresoro_gait.units import DEG_PER_RAD, MM_PER_M
from terresoro_gait.weights import write_csv


class TerreSoroSimNode(Node):
    """``terresoro_sim``: the simulated robot and board behind ``port`` on a ground-truth
    substrate, and the overhead tracker."""

    def __init__(self, **kwargs):
        super().__init__('terresoro_sim', **kwargs)
        self.settings = declare_parameters(self, SIMULATOR)
        p = self.settings.checked()
        truth = substrate_weights(p['substrate'], p['n_limbs'], p['seed'])
        if p['truth_file']:
            write_csv(truth, p['truth_file'])
        self.firmware = TerreSoroFirmware(
            truth,
            check_motor_map(p['motor_of_limb'], p['n_limbs']),
            p['seed'] + 1,
            p['settle_s'],
            tuple(p['failed_limbs']),
        )
        Path(p['port']).parent.mkdir(parents=True, exist_ok=True)
        self.device = SimulatedDevice(
            self.firmware, p['port'], p['watchdog_ms'], boot_delay_s=p['boot_delay_s']
        ).start()
        self._rng = np.random.default_rng(p['seed'] + 2)
        self._frame = p['frame_id']
        self.tracked_pub = self.create_publisher(PoseStamped, 'tracked_pose', 10)
        self.truth_pub = self.create_publisher(PoseStamped, '~/ground_truth', 10)
        self.create_timer(1.0 / p['tracker_rate_hz'], self._camera_frame)
        self.get_logger().info(f'TerreSoRo-{p["n_limbs"]} on {p["substrate"]} behind {p["port"]}')

    def _camera_frame(self) -> None:
        truth = self.firmware.pose()
        sd_m, sd_rad = self.settings.tracker_noise_m, self.settings.tracker_noise_rad
        noise = self._rng.normal(0.0, [sd_m * MM_PER_M, sd_m * MM_PER_M, sd_rad * DEG_PER_RAD])
        now = self.get_clock().now()
        header = Header(stamp=now.to_msg(), frame_id=self._frame)
        if not self._occluded(now.nanoseconds * 1e-9):
            self.tracked_pub.publish(messages.stamped(truth + noise, header))
        self.truth_pub.publish(messages.stamped(truth, header))

    def _occluded(self, t_s: float) -> bool:
        occlusion_s = self.settings.occlusion_s
        return occlusion_s > 0 and t_s % self.settings.occlusion_period_s < occlusion_s

    def destroy_node(self) -> None:
        """Power the simulated board off (its pseudo-terminal goes), then destroy the node."""
        self.device.stop()
        super().destroy_node()


def main(args=None) -> int:
    """Run ``terresoro_sim`` until Ctrl-C; the exit code."""
    return run_node(TerreSoroSimNode, 'terresoro_sim', args=args)


if __name__ == '__main__':
    sys.exit(main())
