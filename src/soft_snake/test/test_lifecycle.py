"""soft_snake_driver as a managed node, in process on its simulated head behind a real
pseudo-terminal: configured but not activated it publishes none of its data while the head streams
telemetry, and its diagnostics go on; once active its data flows."""

import numpy as np
import pytest
from builtin_interfaces.msg import Time
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from visualization_msgs.msg import MarkerArray

from soft_snake import drawing
from soft_snake.device import SnakeHeadFirmware
from soft_snake.driver_node import SoftSnakeDriver
from soro_link.bridge_probe_node import inactive_bridge_check

pytestmark = pytest.mark.ros


DATA = {
    '/joint_states': JointState,
    '/soft_snake_driver/chambers': MarkerArray,
    '/soft_snake_driver/chamber_pressure': Float64MultiArray,
}


def driver(body_parameters_file='', made=None):
    def make(port):
        node = SoftSnakeDriver(
            parameter_overrides=[
                Parameter('port', value=port),
                Parameter('body_parameters_file', value=str(body_parameters_file)),
            ]
        )
        if made is not None:
            made.append(node)
        return node

    return make


def test_inactive_driver_publishes_no_data_and_active_does():
    assert inactive_bridge_check(driver(), SnakeHeadFirmware(), DATA) == {}


def test_the_driver_draws_the_snake_of_its_parameter_file_and_refuses_a_bad_one(tmp_path):
    """rviz2 draws the snake the launch's body_parameters:= names (the URDF's sizes, the driver's
    bends and chambers); a file that is missing or refused fails configure, and nothing runs."""
    missing = tmp_path / 'missing.yaml'
    assert inactive_bridge_check(driver(missing), SnakeHeadFirmware(), DATA) == {
        'configure': 'soft_snake_driver refused configure (FAILURE)'
    }
    bad = tmp_path / 'bad.yaml'
    bad.write_text('segment_length_m: -0.09\n')
    assert 'configure' in inactive_bridge_check(driver(bad), SnakeHeadFirmware(), DATA)
    mine, made = tmp_path / 'mine.yaml', []
    mine.write_text('segment_length_m: 0.09\nbend_rad: 1.5\n')
    assert inactive_bridge_check(driver(mine, made), SnakeHeadFirmware(), DATA) == {}
    drawn = made[0].drawn_body
    assert (drawn.segment_length_m, drawn.bend_rad) == (0.09, 1.5)
    marker = drawing.chamber_markers(np.zeros((4, 3)), Time(), drawn.segment_length_m).markers[0]
    assert (marker.pose.position.x, marker.scale.z) == pytest.approx((-0.0225, 0.045))
