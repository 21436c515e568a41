"""The controller talking to a module firmware without kinematics (send_cable_lengths: true, and a simulated
ESP32 that refuses (s, θ, ϕ)): a bend by hand goes out as Eq. 3.1's cable lengths, the cables are driven there and
the bend comes back."""
import math
import threading

import pytest
import rclpy
from rclpy.executors import SingleThreadedExecutor
from sensor_msgs.msg import JointState
from soro_interfaces.msg import LinkStatus, ModuleCommand

from softbots_bringup import runner
from soro_node.waiting import poll

pytestmark = pytest.mark.ros


def test_a_bend_by_hand_arrives_as_cable_lengths(tmp_path):
    params, port = tmp_path / 'params.yaml', tmp_path / 'ttySALAMANDER'
    params.write_text(f'salamander_sim:\n  ros__parameters: {{port: {port}, firmware_kinematics: false}}\n'
                      f'salamander_controller:\n  ros__parameters: {{port: {port}, send_cable_lengths: true}}\n')
    rclpy.init()
    processes = runner.start('salamander.launch.py', tmp_path, {'sim': 'true'}, extra_params=[params])
    node = rclpy.create_node('cable_probe')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    try:
        joints, link = [], []
        node.create_subscription(JointState, '/joint_states', joints.append, 50)
        node.create_subscription(LinkStatus, '/salamander_controller/link_status', link.append, 10)
        module = node.create_publisher(ModuleCommand, '/salamander_controller/module_command', 10)
        assert poll(lambda: link and link[-1].state == LinkStatus.CONNECTED, 10.0)
        assert poll(lambda: module.get_subscription_count() > 0, 5.0)
        module.publish(ModuleCommand(module_id=1, s=0.13, theta=0.6, phi=math.pi, wheel_speeds=[0.0] * 3))
        assert poll(lambda: joints and sum(joints[-1].position) == pytest.approx(0.6, abs=0.02), 5.0)
    finally:
        executor.shutdown()
        node.destroy_node()
        codes = runner.stop_all(processes)
        rclpy.try_shutdown()
    assert set(codes.values()) == {0}
