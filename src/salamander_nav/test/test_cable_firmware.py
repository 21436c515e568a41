"""The controller talking to a module firmware without kinematics (send_cable_lengths: true, and a
simulated ESP32 that refuses (s, θ, ϕ)): a bend by hand goes out as Eq. 3.1's cable lengths, the
cables are driven there and the bend comes back."""

import math

import pytest
from sensor_msgs.msg import JointState
from soro_interfaces.msg import LinkStatus, ModuleCommand

from soro_node.waiting import poll

pytestmark = pytest.mark.ros
LINK = '/salamander_controller/link_status'


def test_a_bend_by_hand_arrives_as_cable_lengths(launch, tmp_path):
    port = tmp_path / 'ttySALAMANDER'
    robot = launch(
        'salamander.launch.py',
        topics={'/joint_states': JointState, LINK: LinkStatus},
        params={
            'salamander_sim': {'port': port, 'firmware_kinematics': False},
            'salamander_controller': {'port': port, 'send_cable_lengths': True},
        },
    )
    joints, link = robot.probe.messages['/joint_states'], robot.probe.messages[LINK]
    module = robot.probe.node.create_publisher(
        ModuleCommand, '/salamander_controller/module_command', 10
    )
    assert poll(lambda: link and link[-1].state == LinkStatus.CONNECTED, 10.0)
    assert poll(lambda: module.get_subscription_count() > 0, 5.0)
    module.publish(
        ModuleCommand(module_id=1, s=0.13, theta=0.6, phi=math.pi, wheel_speeds=[0.0] * 3)
    )
    assert poll(lambda: joints and sum(joints[-1].position) == pytest.approx(0.6, abs=0.02), 5.0)
