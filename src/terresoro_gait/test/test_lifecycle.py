"""terresoro_executor as a managed node, in process on its simulated robot behind a real
pseudo-terminal: configured but not activated it publishes none of its data while the robot streams
telemetry, and its diagnostics go on; once active its data flows."""

import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState

from soro_link.bridge_probe_node import inactive_bridge_check
from terresoro_gait.device import TerreSoroFirmware
from terresoro_gait.executor_node import TerreSoroExecutor
from terresoro_gait.substrate import substrate_weights

pytestmark = pytest.mark.ros


def test_inactive_executor_publishes_no_data_and_active_does():
    bridge = lambda port: TerreSoroExecutor(parameter_overrides=[Parameter('port', value=port)])
    robot = TerreSoroFirmware(substrate_weights('rubber_mat', 3, 0), motor_of_limb=(0, 1, 2))
    assert (
        inactive_bridge_check(
            bridge,
            robot,
            {
                '/joint_states': JointState,
            },
        )
        == {}
    )
