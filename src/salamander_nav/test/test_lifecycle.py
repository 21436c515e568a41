"""salamander_controller as a managed node, in process on its simulated ESP32 behind a real
pseudo-terminal: configured but not activated it publishes none of its data while the ESP32 streams
telemetry, and its diagnostics go on; once active its data flows."""

import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState

from salamander_nav.controller_node import SalamanderController
from salamander_nav.device import SalamanderFirmware
from soro_link.bridge_probe_node import inactive_bridge_check

pytestmark = pytest.mark.ros


def test_inactive_controller_publishes_no_data_and_active_does():
    bridge = lambda port: SalamanderController(parameter_overrides=[Parameter('port', value=port)])
    assert (
        inactive_bridge_check(
            bridge,
            SalamanderFirmware(),
            {
                '/joint_states': JointState,
            },
        )
        == {}
    )
