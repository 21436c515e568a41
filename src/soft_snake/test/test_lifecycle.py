"""soft_snake_driver as a managed node, in process on its simulated head behind a real
pseudo-terminal: configured but not activated it publishes none of its data while the head streams
telemetry, and its diagnostics go on; once active its data flows."""

import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from visualization_msgs.msg import MarkerArray

from soft_snake.device import SnakeHeadFirmware
from soft_snake.driver_node import SoftSnakeDriver
from soro_link.bridge_probe_node import inactive_bridge_check

pytestmark = pytest.mark.ros


def test_inactive_driver_publishes_no_data_and_active_does():
    bridge = lambda port: SoftSnakeDriver(parameter_overrides=[Parameter('port', value=port)])
    assert (
        inactive_bridge_check(
            bridge,
            SnakeHeadFirmware(),
            {
                '/joint_states': JointState,
                '/soft_snake_driver/chambers': MarkerArray,
                '/soft_snake_driver/chamber_pressure': Float64MultiArray,
            },
        )
        == {}
    )
