"""``soro_link_bridge`` (executable ``bridge_node``): the bridge to a generic four-output test
board."""

from __future__ import annotations

import math
import sys

from std_msgs.msg import Float64MultiArray

from soro_link.bridge_main_node import run_bridge
from soro_link.bridge_node import BridgeNode
from soro_link.device import GenericOutputs
from soro_link.protocol import Message
from soro_node.params import shown


class GenericOutputsBridge(BridgeNode):
    """Bridge to a generic four-output board: ``~/duty`` in (fractions 0-1), ``~/outputs`` out."""

    def __init__(self, **kwargs):
        super().__init__('soro_link_bridge', GenericOutputs.schemas, **kwargs)
        self.outputs_pub = self.create_lifecycle_publisher(Float64MultiArray, '~/outputs', 10)
        self.create_subscription(Float64MultiArray, '~/duty', self._on_duty, 10)
        # whether the board holds the safe state this bridge commanded, no duty sent since
        self._held_safe = False

    def _on_duty(self, msg: Float64MultiArray) -> None:
        duty = list(msg.data)
        if len(duty) != 4 or not all(math.isfinite(d) and 0.0 <= d <= 1.0 for d in duty):
            # a flood of them is one line a second and one safe-state command
            self.get_logger().error(
                f'~/duty {shown(duty)} refused: needs 4 finite fractions in [0, 1]; safe state',
                throttle_duration_sec=1.0,
            )
            # not again while the board holds the safe state this bridge last confirmed
            if self.link and not self._held_safe:
                self._held_safe = self.force_safe_state('invalid duty command')
            return
        self._held_safe = False
        self.send_command('set_outputs', duty_pct=tuple(round(d * 100) for d in duty))

    def on_device_message(self, message: Message) -> None:
        """The board's ``outputs`` report on ``~/outputs``, as fractions 0-1."""
        if message.name == 'outputs':
            self.outputs_pub.publish(
                Float64MultiArray(data=[d / 100.0 for d in message['duty_pct']])
            )


def main(args=None) -> int:
    """The generic bridge's process (``bridge_main_node.run_bridge``)."""
    return run_bridge(GenericOutputsBridge, 'soro_link_bridge', args=args)


if __name__ == '__main__':
    sys.exit(main())
