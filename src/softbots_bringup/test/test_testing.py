"""The node-test harness itself (softbots_bringup.testing), on soro_link.launch.py sim:=true: which
exit codes it accepts, a namespaced robot's probe, and a robot stopped that is stopped again."""

import signal

import pytest

from softbots_bringup.testing import close_all, launch_robot
from soro_node import commander as commanders

pytestmark = pytest.mark.ros
KILLED = -signal.SIGKILL


def test_only_a_node_the_test_killed_may_end_by_sigkill(tmp_path):
    commanders.init()
    try:
        robot = launch_robot('soro_link.launch.py', tmp_path, arguments={'namespace': 'r1'})
        probe_name = robot.probe.node.get_name()
        sim = robot.process('r1/soro_link_sim')
        robot.kill('r1/soro_link_bridge')
        sim.popen.kill()  # behind the harness's back
        codes = close_all([robot])
    finally:
        commanders.shutdown()
    # two robots under two namespaces, two probe names
    assert probe_name == 'r1_soro_link_probe'
    assert codes == {'r1/soro_link_sim': KILLED, 'r1/soro_link_bridge': KILLED}
    assert robot.unclean() == [('r1/soro_link_sim', KILLED)]
    assert close_all([robot]) == codes  # stopped already: the same codes
