"""soft_snake_sim on its own (port:=''), as a researcher explores gaits without any driver: it runs
its gait, publishes the simulated bends and motion capture, takes a new gait with ``ros2 param
set`` and refuses a bad one by name, through real rclpy; a bad parameter file ends its start
with the refusal as the last line."""

import math
import subprocess

import pytest
import rclpy
from geometry_msgs.msg import PoseStamped
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState

from softbots_bringup import runner
from soro_node.base_node import answered
from soro_node.probe_node import Probe
from soro_node.waiting import poll

pytestmark = pytest.mark.ros
COM, JOINTS = '/mocap/soft_snake/com', '/joint_states'


@pytest.fixture(scope='module')
def alone(tmp_path_factory):
    rclpy.init()
    log_dir = tmp_path_factory.mktemp('sim_alone')
    sim = runner.Process(
        'soft_snake_sim',
        [
            runner.executable('soft_snake', 'soft_snake_sim'),
            '--ros-args',
            '-p',
            "port:=''",
            '-p',
            'gait:=undulation',
        ],
        log_dir,
    )
    sim.wait_for_output('running undulation itself')
    probe = Probe('sim_alone_probe', {COM: PoseStamped, JOINTS: JointState})
    seen = {'com': probe.messages[COM], 'joints': probe.messages[JOINTS]}
    setter = probe.node.create_client(SetParameters, '/soft_snake_sim/set_parameters')

    def set_parameter(name, value):
        request = SetParameters.Request(
            parameters=[Parameter(name, value=value).to_parameter_msg()]
        )
        answer = answered(setter, request, 5.0)
        assert answer is not None, f'/soft_snake_sim never answered setting {name}'
        return answer.results[0]

    yield seen, set_parameter, sim
    probe.close()
    assert sim.stop() == 0
    rclpy.try_shutdown()


def test_it_undulates_head_first_and_shows_its_bends(alone):
    seen, _, _ = alone
    assert poll(lambda: len(seen['com']) > 150, 10.0)
    first, last = seen['com'][0].pose.position, seen['com'][-1].pose.position
    assert math.hypot(last.x - first.x, last.y - first.y) > 0.1 and last.x > first.x
    # every bend over the run: one message is one instant of the wave, and in CI the last one
    # caught every joint within 0.046 rad of straight
    assert all(len(m.name) == 24 for m in seen['joints'])
    assert max(abs(p) for m in seen['joints'] for p in m.position) > 0.05


def test_a_new_gait_by_parameter_and_a_bad_one_refused(alone):
    _, set_parameter, sim = alone
    assert set_parameter('gait', 'sidewinding').successful
    assert set_parameter('frequency_hz', 0.875).successful
    refused = set_parameter('frequency_hz', 3.0)
    assert not refused.successful and 'frequency_hz' in refused.reason and '2.0' in refused.reason
    refused = set_parameter('gait', 'slither')
    assert not refused.successful and 'undulation, sidewinding' in refused.reason
    sim.check_running()


@pytest.mark.parametrize(
    'text, refusal',
    [
        ('tau_vent_s: 0', 'tau_vent_s = 0.0: must be finite and > 0'),
        ('supply_drop: 0.2', "unknown parameter 'supply_drop'"),
    ],
)
def test_a_bad_parameter_file_ends_the_start_with_the_refusal_last(text, refusal, tmp_path):
    path = tmp_path / 'params.yaml'
    path.write_text(text)
    run = subprocess.run(
        [
            str(runner.executable('soft_snake', 'soft_snake_sim')),
            '--ros-args',
            '-p',
            "port:=''",
            '-p',
            f'body_parameters_file:={path}',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = (run.stdout + run.stderr).strip().splitlines()
    assert run.returncode == 2 and str(path) in lines[-1] and refusal in lines[-1], lines
    assert 'Traceback' not in run.stderr, run.stderr
