"""The tf broadcasters on a real rclpy node: the pairs a tracked robot sends are REP-105's (world
-> odom static, odom -> base tracked, whatever frame the pose comes in), named by the node's frame
parameters; and the frames a message asks tf for, nested headers included."""

import pytest
import rclpy
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
from std_msgs.msg import Header
from visualization_msgs.msg import Marker, MarkerArray

from soro_node.base_node import declare_parameters
from soro_node.frames import BASE_FRAME, ODOM_FRAME, TrackedBase, stamped_frames, tracked_base_of
from soro_node.params import ParamSpec

pytestmark = pytest.mark.ros


@pytest.fixture
def node():
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node(
        'frames_test',
        context=context,
        parameter_overrides=[rclpy.parameter.Parameter('base_frame', value='hub')],
    )
    frames = (ParamSpec('frame_id', 'map', 'world frame'), ODOM_FRAME, BASE_FRAME)
    node.settings = declare_parameters(node, frames)
    yield node
    node.destroy_node()
    rclpy.try_shutdown(context=context)


def test_a_tracked_base_sends_odom_to_base_from_a_map_pose_and_map_to_odom_static(node):
    tf = TrackedBase.of(node, node.settings)
    tf.send(PoseStamped(header=Header(frame_id='map')))
    assert tf.static.pairs == (('map', 'odom'),)
    assert tf.odometry.sent == {('odom', 'hub')}
    assert tf.pairs == tracked_base_of(
        {'frame_id': 'map', 'odom_frame': 'odom', 'base_frame': 'hub'}
    )


def test_stamped_frames_finds_nested_headers_and_skips_empty_ones():
    markers = MarkerArray(
        markers=[Marker(header=Header(frame_id='segment0a')), Marker(header=Header())]
    )
    path = Path(header=Header(frame_id='map'), poses=[PoseStamped(header=Header(frame_id='odom'))])
    assert stamped_frames(markers) == {'segment0a'}
    assert stamped_frames(path) == {'map', 'odom'}
