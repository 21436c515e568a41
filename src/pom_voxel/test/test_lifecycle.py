"""pom_controller as a managed node, in process on its simulated actuator board behind a real
pseudo-terminal: configured but not activated it publishes none of its data while the actuator
board streams telemetry, and its diagnostics go on; once active its data flows."""

import pytest
from geometry_msgs.msg import PoseArray
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from visualization_msgs.msg import MarkerArray

from pom_voxel.controller_node import PomController
from pom_voxel.device import PomBoardFirmware
from soro_link.bridge_probe_node import inactive_bridge_check

pytestmark = pytest.mark.ros


def test_inactive_controller_publishes_no_data_and_active_does():
    bridge = lambda port: PomController(parameter_overrides=[Parameter('port', value=port)])
    assert (
        inactive_bridge_check(
            bridge,
            PomBoardFirmware(),
            {
                '/joint_states': JointState,
                '/pom_controller/predicted_markers': PoseArray,
                '/pom_controller/lattice': MarkerArray,
            },
        )
        == {}
    )
