"""The TerreSoRo executables started as a hostile user or a careless script starts them (own
processes)."""

import signal
import subprocess

import pytest

from softbots_bringup.runner import executable
from soro_node.waiting import poll

pytestmark = pytest.mark.ros


@pytest.mark.parametrize(
    'override, refusal',
    [
        ('tau_s:=0.0', 'parameter tau_s = 0.0: allowed range is [0.01, 10.0]'),
        (
            'reversal_pulse_s:=0.6',
            'parameter reversal_pulse_s = 0.6: must be shorter than tau_s = 0.55',
        ),
        ('port:=', "invalid ROS arguments: Couldn't parse parameter override rule: '-p port:='"),
    ],
)
def test_the_executor_refuses_bad_start_parameters_as_its_last_line(override, refusal):
    run = subprocess.run(
        [
            executable('terresoro_gait', 'terresoro_executor'),
            '--ros-args',
            '-p',
            'autostart:=true',
            '-p',
            override,
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    lines = (run.stdout + run.stderr).strip().splitlines()
    assert run.returncode == 2 and refusal in lines[-1], lines
    assert 'Traceback' not in run.stderr, run.stderr


def test_a_node_started_with_sigint_ignored_still_stops_on_sigint(tmp_path):
    """terresoro_sim runs on rclpy's own signal handlers (soro_node.base_node.run_node)."""
    log = tmp_path / 'sim.log'
    process = subprocess.Popen(
        [
            executable('terresoro_gait', 'terresoro_sim'),
            '--ros-args',
            '-p',
            f'port:={tmp_path / "ttySIM0"}',
        ],
        stdout=log.open('w'),
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert poll(lambda: 'behind' in log.read_text(), 15.0), log.read_text()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=5.0) == 0, log.read_text()
    finally:
        process.kill()
