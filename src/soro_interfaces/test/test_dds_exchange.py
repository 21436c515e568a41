"""Foundation test 6a: a soro_interfaces message crosses DDS between two rclpy processes."""

import os
import subprocess
import sys
import textwrap
import time

import pytest
import rclpy
from rclpy.node import Node
from soro_interfaces.msg import LinkStatus

pytestmark = pytest.mark.ros

PUBLISHER = textwrap.dedent("""
    import rclpy, sys
    from soro_interfaces.msg import LinkStatus
    rclpy.init()
    node = rclpy.create_node('link_status_talker')
    pub = node.create_publisher(LinkStatus, 'link_status', 10)
    msg = LinkStatus(state=LinkStatus.CONNECTED, rtt_p99_s=0.00125, crc_errors=7, device_safe=True)
    msg.device.device_kind = 'terresoro_iv'
    msg.device.firmware_version = '1.2.0'
    msg.device.protocol_version = 1
    node.create_timer(0.05, lambda: pub.publish(msg))
    deadline = node.get_clock().now().nanoseconds + 20e9
    while rclpy.ok() and node.get_clock().now().nanoseconds < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
""")


def test_link_status_crosses_between_processes():
    talker = subprocess.Popen([sys.executable, '-c', PUBLISHER], env=os.environ.copy())
    rclpy.init()
    try:
        node = Node('link_status_listener')
        received = []
        node.create_subscription(LinkStatus, 'link_status', received.append, 10)
        deadline = time.monotonic() + 15.0
        while not received and time.monotonic() < deadline and talker.poll() is None:
            rclpy.spin_once(node, timeout_sec=0.1)
        assert received, 'no LinkStatus arrived from the other process within 15 s'
        msg = received[0]
        assert (msg.state, msg.crc_errors, msg.device_safe) == (LinkStatus.CONNECTED, 7, True)
        assert msg.rtt_p99_s == pytest.approx(0.00125)
        assert (
            msg.device.device_kind,
            msg.device.firmware_version,
            msg.device.protocol_version,
        ) == ('terresoro_iv', '1.2.0', 1)
        node.destroy_node()
    finally:
        rclpy.shutdown()
        talker.terminate()
        talker.wait(timeout=10)
