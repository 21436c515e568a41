"""The TerreSoRo limb board's real firmware (firmware/terresoro_board.c), built with avr-gcc and run in
qemu-system-avr, against the host's link code and the real executor node.

Checked against the firmware: handshake and identity, set_limbs reaching the H-bridge pins (qemu's log of the
chip's port writes) and coming back in telemetry, refusals, the link watchdog's timing and safe pins, unplug and
replug, a storm of bad frames. Left to the Python stand-in (terresoro_gait/device.py): the robot on its substrate,
what the tracker sees, which the firmware cannot know.
"""
from pathlib import Path

import pytest
import rclpy
from sensor_msgs.msg import JointState
from soro_interfaces.msg import LinkStatus

from softbots_bringup import runner
from soro_link import firmware_checks as checks
from soro_link.c_header import header
from soro_link.emulator import EmulatedBoard, build_images, missing_tools
from soro_link.protocol import link_protocol
from soro_node.probe_node import Probe
from soro_node.waiting import poll
from terresoro_gait.commander import TerreSoroCommander
from terresoro_gait.limbs import SCHEMAS

FIRMWARE = Path(__file__).resolve().parents[1] / 'firmware'
BOARD_MK = Path(__file__).resolve().parents[2] / 'soro_link' / 'firmware' / 'board.mk'
PROTOCOL = link_protocol(*SCHEMAS)
FORWARD_PORT, REVERSE_PORT = 'C', 'B'     # channel m: forward input PC(m), reverse input PB(m)

pytestmark = pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools()))


@pytest.fixture(scope='module')
def elf(tmp_path_factory):
    return build_images(BOARD_MK, tmp_path_factory.mktemp('firmware'))['terresoro_board']


@pytest.fixture
def board(elf):
    with EmulatedBoard(elf, trace_pins=True) as emulated:
        yield emulated


def pins(board):
    """The last value written to each port's channel bits: {'B': .., 'C': ..}."""
    last = {}
    for port, value in board.port_writes():
        last[port] = value & 0x0F
    return last


def test_generated_header_matches_the_python_schemas():
    generated = header(SCHEMAS, 'terresoro', 'terresoro_gait.limbs:SCHEMAS')
    assert (FIRMWARE / 'terresoro_messages.h').read_text() == generated


def test_drives_reach_the_h_bridges_and_come_back_in_telemetry(board):
    with checks.linked_host(board.port, PROTOCOL) as host:
        assert host.identity['device_kind'] == 'terresoro'
        assert pins(board) == {'B': 0, 'C': 0}                      # booted with every bridge off
        checks.command(host, 'set_limbs', drive=(1, 0, -1, 1))
        assert pins(board) == {'C': 0b1001, 'B': 0b0100}
        limbs = checks.telemetry_after(host, 'limbs', 0.45)         # the curl estimate reaches 100 % in 300 ms
        assert limbs['drive'] == (1, 0, -1, 1) and limbs['curl_pct'] == (100, 0, 0, 100) and not limbs['safe']
        assert limbs['vertex'] == 0                                 # the board does not know the wiring
        checks.command(host, 'set_limbs', drive=(-1, 0, 0, 0))      # a reversal pulse releases limb 0
        limbs = checks.telemetry_after(host, 'limbs', 0.45)
        assert limbs['drive'] == (-1, 0, 0, 0) and limbs['curl_pct'] == (0, 0, 0, 100)   # off keeps its curl


def test_out_of_range_drive_is_refused_and_nothing_moves(board):
    with checks.linked_host(board.port, PROTOCOL) as host:
        checks.command(host, 'set_limbs', drive=(1, 0, 0, 0))
        assert checks.command(host, 'set_limbs', drive=(0, 2, 0, 0)) == 3        # OUT_OF_RANGE
        assert pins(board) == {'C': 0b0001, 'B': 0}


def test_watchdog_stops_every_motor_within_watchdog_plus_one_tick(board):
    checks.check_watchdog(board.port, PROTOCOL, 'set_limbs', drive=(1, 1, -1, 1))
    assert pins(board) == {'B': 0, 'C': 0}


def test_unplug_replug_boots_safe_and_replays_nothing(board):
    checks.unplug_replug(board, PROTOCOL, 'set_limbs', drive=(1, 1, 1, 1))
    assert pins(board) == {'B': 0, 'C': 0}                          # the new run of the chip: only its boot


def test_bad_frame_storm_is_counted_and_dropped_without_a_reset(board):
    checks.survives_storm(board.port, PROTOCOL, 'set_limbs', drive=(1, 0, 0, 1))
    assert pins(board) == {'B': 0, 'C': 0}                          # the watchdog stopped the motors meanwhile


@pytest.mark.ros
def test_the_executor_node_runs_a_gait_on_the_real_board(elf, tmp_path):
    """terresoro.launch.py port:=<the emulated board>, as on the robot: a gait through the action, limb curls for
    rviz from the board's telemetry, every motor off after it, and the cable pulled and plugged back."""
    rclpy.init()
    link = '/terresoro_executor/link_status'
    with EmulatedBoard(elf, trace_pins=True) as board:
        processes = runner.start('terresoro.launch.py', tmp_path, {'port': board.port})
        probe = Probe('limb_probe', {link: LinkStatus, '/joint_states': JointState})
        commander = TerreSoroCommander()
        try:
            assert probe.wait(link, lambda m: m.state == LinkStatus.CONNECTED, 10.0)
            assert probe.latest(link).device.device_kind == 'terresoro'
            result = commander.execute_gait([1, 5, 7, 3], cycles=2, timeout_s=30.0)
            assert result.primitives == 8, result
            curls = [max(m.position) for m in probe.messages['/joint_states']]
            assert max(curls) == pytest.approx(2.0)                  # a limb fully curled (CURLED_BEND_RAD)
            assert len(board.port_writes()) >= 2 * 8                # every primitive reached the H-bridges
            assert poll(lambda: pins(board) == {'B': 0, 'C': 0}, 2.0)   # stopped in state 1: every bridge off
            board.unplug()
            assert probe.wait(link, lambda m: m.state == LinkStatus.DISCONNECTED, 3.0)
            board.replug()
            assert probe.wait(link, lambda m: m.state == LinkStatus.CONNECTED, 10.0)
        finally:
            commander.close()
            probe.close()
            codes = runner.stop_all(processes)
            rclpy.try_shutdown()
    assert set(codes.values()) == {0}
