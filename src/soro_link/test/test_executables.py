"""The installed executables as `ros2 launch launch/soro_link.launch.py sim:=true` starts them, with its config."""
import signal
import subprocess
import time
from pathlib import Path

import pytest
import rclpy
from ament_index_python.packages import get_package_prefix
from soro_interfaces.msg import LinkStatus

pytestmark = pytest.mark.ros
ROOT = Path(__file__).resolve().parents[3]
EXECUTABLES = Path(get_package_prefix('soro_link')) / 'lib' / 'soro_link'


def start(*cmd):
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_sim_device_and_bridge_connect_and_stop_cleanly(tmp_path):
    port = tmp_path / 'soro_link_sim'
    device = start(str(EXECUTABLES / 'sim_device'), '--port', str(port), '--boot-delay-s', '2.0')
    bridge = start(str(EXECUTABLES / 'bridge_node'), '--ros-args', '--params-file', str(ROOT / 'config' / 'soro_link.yaml'),
                   '-p', f'port:={port}')
    rclpy.init()
    try:
        node = rclpy.create_node('link_watcher')
        seen = []
        node.create_subscription(LinkStatus, '/soro_link_bridge/link_status', seen.append, 10)
        deadline = time.monotonic() + 8.0
        while time.monotonic() < deadline and not any(s.state == LinkStatus.CONNECTED for s in seen):
            rclpy.spin_once(node, timeout_sec=0.1)
        connected = [s for s in seen if s.state == LinkStatus.CONNECTED]
        assert connected, f'bridge never connected; states seen: {[s.state for s in seen]}'
        assert connected[0].device.device_kind == 'generic_outputs' and connected[0].commands_enabled
    finally:
        rclpy.shutdown()
        outputs = []
        for process in (bridge, device):  # the bridge first: it must still reach the device to make it safe
            process.send_signal(signal.SIGINT)
            outputs.append(process.communicate(timeout=10)[0])
    assert (bridge.returncode, device.returncode) == (0, 0), outputs
    assert 'device in its safe state (bridge stopping)' in outputs[0]
