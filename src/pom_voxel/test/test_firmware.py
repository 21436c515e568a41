"""The POM quadruped's actuator board's real firmware (firmware/pom_board.c), built with avr-gcc
and run in qemu-system-avr, against the host's link code and the real controller node.

Checked against the firmware: handshake and identity, set_strokes driving the steppers (qemu's log
of the chip's STEP and DIR pin writes) at the rate limit and coming back in telemetry, refusals,
the watchdog holding every actuator where it stands, unplug and replug, a storm of bad frames. The
lattice those actuators deform is the Python side's (pom_voxel/planes_of_motion.py).
"""

from pathlib import Path

import pytest
from sensor_msgs.msg import JointState
from soro_interfaces.msg import LinkStatus

from pom_voxel.actuators import SCHEMAS, to_um
from pom_voxel.commander import PomCommander
from softbots_bringup.testing import launch_on_board
from soro_link.c_header import header
from soro_link.protocol import link_protocol
from soro_link.testing import firmware_checks as checks
from soro_link.testing.emulator import missing_tools
from soro_node.waiting import poll

FIRMWARE = Path(__file__).resolve().parents[1] / 'firmware'
PROTOCOL = link_protocol(*SCHEMAS)
FIRMWARE_IMAGE, TRACE_PINS = 'pom_board', True  # what the fixtures `elf`, `board` run
# one step a tick per actuator; STEP of actuator a on PD(4 + a)
UM_PER_STEP, STEP_PINS = 20, 0xF0

pytestmark = pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools()))


def step_pulses(board, actuator):
    """Rising edges written to actuator ``actuator``'s STEP pin."""
    levels = [
        bool(value & (0x10 << actuator)) for port, value in board.port_writes() if port == 'D'
    ]
    return sum(1 for before, now in zip(levels, levels[1:]) if now and not before)


def test_generated_header_matches_the_python_schemas():
    assert (FIRMWARE / 'pom_messages.h').read_text() == header(
        SCHEMAS, 'pom', 'pom_voxel.actuators:SCHEMAS'
    )


def test_targets_step_the_actuators_at_the_rate_limit_and_come_back_in_telemetry(board):
    with checks.linked_host(board.port, PROTOCOL) as host:
        assert host.identity['device_kind'] == 'pom_quadruped'
        assert checks.command(host, 'set_strokes', target_um=to_um([2.0, -1.0, 0.0, 4.9])) is None
        early = checks.telemetry_after(host, 'strokes', 0.05)
        assert 0 < early['position_um'][0] < 2000  # 20 mm/s: 2 mm takes 100 ms
        strokes = checks.telemetry_when(
            host, 'strokes', lambda f: f['position_um'] == f['target_um']
        )
        assert strokes['position_um'] == (2000, -1000, 0, 4900) and strokes['target_um'] == (
            2000,
            -1000,
            0,
            4900,
        )
        assert not strokes['holding']
        # qemu's log of the pin writes reaches its file late
        assert poll(lambda: [step_pulses(board, a) for a in range(4)] == [100, 50, 0, 245], 1.0)


def test_target_beyond_the_stroke_limit_is_refused_and_nothing_moves(board):
    with checks.linked_host(board.port, PROTOCOL) as host:
        # OUT_OF_RANGE
        assert checks.command(host, 'set_strokes', target_um=(0, 0, 5001, 0)) == 3
        assert checks.telemetry_after(host, 'strokes', 0.1)['position_um'] == (0, 0, 0, 0)
        assert step_pulses(board, 2) == 0


def test_watchdog_holds_every_actuator(board):
    checks.check_watchdog(board.port, PROTOCOL, 'set_strokes', target_um=(-5000,) * 4)
    with checks.linked_host(board.port, PROTOCOL) as host:
        strokes = checks.telemetry_after(host, 'strokes', 0.1)
    assert strokes['holding'] and strokes['position_um'] == strokes['target_um'] == (-5000,) * 4


def test_safe_state_mid_stroke_holds_where_each_actuator_stands(board):
    with checks.linked_host(board.port, PROTOCOL) as host:
        assert checks.command(host, 'set_strokes', target_um=(-5000, 5000, 0, 0)) is None
        checks.telemetry_after(host, 'strokes', 0.1)  # a full stroke takes 250 ms
        assert checks.command(host, 'safe_state') is None
        held = checks.telemetry_after(host, 'strokes', 0.0)
        later = checks.telemetry_after(host, 'strokes', 0.2)
    assert (
        held['holding']
        and -5000 < held['position_um'][0] < 0
        and 0 < held['position_um'][1] < 5000
    )
    assert later['position_um'] == held['position_um'] == later['target_um']


def test_unplug_replug_boots_holding_and_replays_nothing(board):
    checks.unplug_replug(board, PROTOCOL, 'set_strokes', target_um=(100, 100, 100, 100))


def test_bad_frame_storm_is_counted_and_dropped_without_a_reset(board):
    checks.survives_storm(board.port, PROTOCOL, 'set_strokes', target_um=(40, 0, 0, 0))


@pytest.mark.ros
def test_the_controller_node_walks_on_the_real_board(board, launch_in_test):
    """pom.launch.py port:=<the emulated board>, as on the robot: a tripod gait through the action,
    actuator strokes for rviz from the board's telemetry, and the cable pulled and plugged back."""
    link = '/pom_controller/link_status'
    robot = launch_on_board(
        launch_in_test,
        'pom.launch.py',
        board.port,
        link,
        'pom_quadruped',
        PomCommander,
        {'/joint_states': JointState},
    )
    probe, commander = robot.probe, robot.commander
    result = commander.execute_gait('tripod', cycles=1, timeout_s=60.0)
    assert result.success, result.message
    strokes = [max(abs(p) for p in m.position) for m in probe.messages['/joint_states']]
    assert 0.001 < max(strokes) <= 0.005  # metres: the board moved within its limit
    board.unplug()
    assert probe.wait(link, lambda m: m.state == LinkStatus.DISCONNECTED, 3.0)
    board.replug()
    assert probe.wait(link, lambda m: m.state == LinkStatus.CONNECTED and m.device_safe, 10.0)
