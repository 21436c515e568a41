"""The installed executables as `ros2 launch launch/soro_link.launch.py sim:=true` starts them,
with its config, and as a hostile user starts them: bad arguments, SIGINT ignored by whoever
started them, a bridge paused mid-session."""

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
import rclpy
from ament_index_python.packages import get_package_prefix
from soro_interfaces.msg import LinkStatus
from std_msgs.msg import Float64MultiArray

from soro_link.device import GenericOutputs, SimulatedDevice
from soro_node.waiting import poll

pytestmark = pytest.mark.ros
ROOT = Path(__file__).resolve().parents[3]
EXECUTABLES = Path(get_package_prefix('soro_link')) / 'lib' / 'soro_link'


def start(*cmd):
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_sim_device_and_bridge_connect_and_stop_cleanly(tmp_path):
    port = tmp_path / 'soro_link_sim'
    device = start(str(EXECUTABLES / 'sim_device'), '--port', str(port), '--boot-delay-s', '2.0')
    bridge = start(
        str(EXECUTABLES / 'bridge_node'),
        '--ros-args',
        '--params-file',
        str(ROOT / 'config' / 'soro_link.yaml'),
        # a loaded machine may pause 300 ms
        '-p',
        f'port:={port}',
        '-p',
        'stale_timeout_s:=1.0',
    )
    rclpy.init()
    try:
        node = rclpy.create_node('link_watcher')
        seen = []
        node.create_subscription(LinkStatus, '/soro_link_bridge/link_status', seen.append, 10)
        deadline = time.monotonic() + 8.0
        while time.monotonic() < deadline and not any(
            s.state == LinkStatus.CONNECTED for s in seen
        ):
            rclpy.spin_once(node, timeout_sec=0.1)
        connected = [s for s in seen if s.state == LinkStatus.CONNECTED]
        assert connected, f'bridge never connected; states seen: {[s.state for s in seen]}'
        assert (
            connected[0].device.device_kind == 'generic_outputs' and connected[0].commands_enabled
        )
    finally:
        rclpy.shutdown()
        outputs = []
        # the bridge first: it must still reach the device to make it safe
        for process in (bridge, device):
            process.send_signal(signal.SIGINT)
            outputs.append(process.communicate(timeout=10)[0])
    assert (bridge.returncode, device.returncode) == (0, 0), outputs
    assert 'device in its safe state (bridge stopping)' in outputs[0]


@pytest.mark.parametrize(
    'override, refusal',
    [
        (
            'heartbeat_period_s:=-1.0',
            'parameter heartbeat_period_s = -1.0: allowed range is [0.01, 0.25]',
        ),
        ("port:=''", "parameter port = '': must not be empty"),
        ('port:=', "invalid ROS arguments: Couldn't parse parameter override rule: '-p port:='"),
    ],
)
def test_bad_start_parameters_end_cleanly_with_the_refusal_last(override, refusal):
    run = subprocess.run(
        [str(EXECUTABLES / 'bridge_node'), '--ros-args', '-p', 'autostart:=true', '-p', override],
        capture_output=True,
        text=True,
        timeout=30,
    )
    lines = (run.stdout + run.stderr).strip().splitlines()
    assert run.returncode == 2 and refusal in lines[-1], lines
    assert 'Traceback' not in run.stderr, run.stderr


def test_a_bridge_started_with_sigint_ignored_still_stops_on_sigint(tmp_path):
    """As a script's `node &` starts it, without job control: SIGINT inherited as ignored. (The
    recorder's case is soro_analysis/test/test_recorder.py's.)"""
    log = tmp_path / 'node.log'
    with SimulatedDevice(GenericOutputs()) as device:
        args = ['-p', f'port:={device.port}', '-p', 'autostart:=true']
        process = subprocess.Popen(
            [str(EXECUTABLES / 'bridge_node'), '--ros-args', *args],
            stdout=log.open('w'),
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )
        try:
            assert poll(lambda: 'opening' in log.read_text(), 15.0), log.read_text()
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=5.0) == 0, log.read_text()
        finally:
            process.kill()


def test_a_paused_bridge_logs_the_devices_watchdog_report(tmp_path):
    log = tmp_path / 'bridge.log'
    bridge = subprocess.Popen(
        [
            str(EXECUTABLES / 'bridge_node'),
            '--ros-args',
            '-p',
            f'port:={tmp_path / "tty"}',
            '-p',
            'autostart:=true',
        ],
        stdout=log.open('w'),
        stderr=subprocess.STDOUT,
    )
    # plugged in once the bridge waits for it (retrying at most 1 s apart); it boots 1.5 s after
    # the bridge opens the port, as an Arduino resets on open: its INFO report reaches the bridge
    assert poll(lambda: 'opening' in log.read_text(), 30.0)
    with SimulatedDevice(
        GenericOutputs(), port=tmp_path / 'tty', watchdog_ms=500, boot_delay_s=1.5
    ) as device:
        rclpy.init()
        try:
            node = rclpy.create_node('duty_source')
            duty = node.create_publisher(Float64MultiArray, '/soro_link_bridge/duty', 10)
            assert poll(lambda: 'device: booted (BOOTED)' in log.read_text(), 10.0), (
                log.read_text()
            )
            assert poll(
                lambda: duty.get_subscription_count() and device.event_times('handshake'), 5.0
            )
            duty.publish(Float64MultiArray(data=[0.5] * 4))
            assert poll(lambda: device.model.duty_pct == (50, 50, 50, 50), 2.0)
            # no heartbeat for 1.5 s: the firmware's watchdog trips
            os.kill(bridge.pid, signal.SIGSTOP)
            time.sleep(1.5)
            os.kill(bridge.pid, signal.SIGCONT)
            assert device.event_times('safe:watchdog')
            assert poll(lambda: '(WATCHDOG)' in log.read_text(), 3.0), log.read_text()
        finally:
            rclpy.try_shutdown()
            bridge.send_signal(signal.SIGINT)
            code = _stopped(bridge)
    assert code == 0, log.read_text()
    text = log.read_text()
    assert '[ERROR]' in next(line for line in text.splitlines() if '(WATCHDOG)' in line)
    assert 'device: no heartbeat or command for 500 ms: safe state (WATCHDOG)' in text
    # and the bridge says that it, not the device, was the one that stopped
    held = re.search(r'did not run for (\d+) ms: nothing was read or sent', text)
    assert held and int(held[1]) >= 1400, text
    # what the device sent while the bridge was stopped is read, not taken for a silent device
    assert 'no frame from the device' not in text, text
    assert 'Traceback' not in text and 'severity' not in text, text


def _stopped(process: subprocess.Popen, timeout_s: float = 10.0) -> int:
    """The exit code of a node sent SIGINT; one that has not stopped within ``timeout_s`` writes
    its threads' stacks (SIGUSR1) into its log first, and is killed."""
    try:
        return process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)
        time.sleep(0.5)
        process.kill()
        process.wait()
        return -signal.SIGKILL
