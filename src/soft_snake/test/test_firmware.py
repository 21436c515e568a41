"""The snake head's real firmware (firmware/snake_head.c), built with avr-gcc and run in
qemu-system-avr, against the host's link code and the real driver node.

Checked against the firmware: handshake and identity, set_valves reaching the module table it
forwards over I2C and coming back in telemetry, refusals, both watchdogs (the link's, and the
head's own when duties stop while heartbeats go on) with every chamber vented, unplug and replug, a
storm of bad frames. The I2C bus itself is a marked stub in the firmware and the chambers'
pressures are not measured there: the pneumatics and the body are the Python stand-in's
(soft_snake/device.py, soft_snake/simulator.py).
"""

import math
from pathlib import Path

import numpy as np
import pytest
from sensor_msgs.msg import JointState
from soro_interfaces.msg import LinkStatus
from std_msgs.msg import Float64MultiArray

from soft_snake.commander import SoftSnakeCommander
from soft_snake.valves import SCHEMAS, duties_of, pressures_of, to_wire
from softbots_bringup.testing import launch_on_board
from soro_link.c_header import header
from soro_link.protocol import LogCode, link_protocol
from soro_link.testing import firmware_checks as checks
from soro_link.testing.emulator import missing_tools

FIRMWARE = Path(__file__).resolve().parents[1] / 'firmware'
PROTOCOL = link_protocol(*SCHEMAS)
FIRMWARE_IMAGE, TRACE_PINS = 'snake_head', False  # what the fixtures `elf`, `board` run
DUTY = np.array([[1.0, 0.0, 0.25], [0.0, 1.0, 0.5], [0.75, 0.0, 0.0], [0.0, 0.1, 1.0]])

pytestmark = pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools()))


def test_generated_header_matches_the_python_schemas():
    assert (FIRMWARE / 'snake_head_messages.h').read_text() == header(
        SCHEMAS, 'snake', 'soft_snake.valves:SCHEMAS'
    )


def test_duties_reach_the_modules_and_come_back_in_telemetry(board):
    with checks.linked_host(board.port, PROTOCOL) as host:
        assert host.identity['device_kind'] == 'soft_snake_head'
        assert checks.command(host, 'set_valves', **to_wire(DUTY)) is None
        chambers = checks.telemetry_after(host, 'chambers', 0.1)
        assert np.array_equal(duties_of(chambers), DUTY) and not chambers['vented']
        assert np.isnan(pressures_of(chambers)).all()  # the head measures no pressure


def test_wrong_module_count_and_duty_over_100_are_refused_nothing_changed(board):
    with checks.linked_host(board.port, PROTOCOL) as host:
        assert checks.command(host, 'set_valves', **to_wire(DUTY)) is None
        # OUT_OF_RANGE
        assert checks.command(host, 'set_valves', **to_wire(DUTY[:3])) == 3
        wire = to_wire(DUTY)
        assert (
            checks.command(host, 'set_valves', modules=4, duty_pct=(101,) + wire['duty_pct'][1:])
            == 3
        )
        assert np.array_equal(duties_of(checks.telemetry_after(host, 'chambers', 0.05)), DUTY)


def test_link_watchdog_vents_every_chamber_within_watchdog_plus_one_tick(board):
    checks.check_watchdog(board.port, PROTOCOL, 'set_valves', **to_wire(DUTY))


def test_head_vents_when_duties_stop_while_heartbeats_go_on(board):
    with checks.linked_host(board.port, PROTOCOL) as host:
        assert checks.command(host, 'set_valves', **to_wire(DUTY)) is None
        # heartbeats only, until the board's 500 ms without duties have passed
        chambers = checks.telemetry_when(host, 'chambers', lambda f: f['vented'])
        assert chambers['vented'] and not any(chambers['duty_pct'])
        # the board's log line of it, sent in the same tick or the next
        watchdog_log = lambda m: m.name == 'log' and m['code'] == LogCode.WATCHDOG  # noqa: E731
        if not any(watchdog_log(m) for _, m in host.messages):
            host.read_until(watchdog_log, 1.0)
        logs = [m['text'] for _, m in host.messages if watchdog_log(m)]
        assert logs == ['no valve duties for 500 ms: every chamber vented']


def test_unplug_replug_boots_vented_and_replays_nothing(board):
    checks.unplug_replug(board, PROTOCOL, 'set_valves', **to_wire(DUTY))
    with checks.linked_host(board.port, PROTOCOL) as host:
        chambers = checks.telemetry_after(host, 'chambers', 0.05)
        assert chambers['vented'] and not any(chambers['duty_pct'])


def test_bad_frame_storm_is_counted_and_dropped_without_a_reset(board):
    checks.survives_storm(board.port, PROTOCOL, 'set_valves', **to_wire(DUTY))
    with checks.linked_host(board.port, PROTOCOL) as host:
        chambers = checks.telemetry_after(host, 'chambers', 0.05)
        assert (
            chambers['vented']
            and not any(chambers['duty_pct'])
            and math.isnan(pressures_of(chambers)[0, 0])
        )


@pytest.mark.ros
def test_the_driver_node_runs_a_gait_on_the_real_head(board, launch_in_test):
    """soft_snake.launch.py port:=<the emulated head>, as on the robot: a gait through the action,
    what rviz is sent, the head vented after it, and the cable pulled and plugged back."""
    link, pressure = '/soft_snake_driver/link_status', '/soft_snake_driver/chamber_pressure'
    robot = launch_on_board(
        launch_in_test,
        'soft_snake.launch.py',
        board.port,
        link,
        'soft_snake_head',
        SoftSnakeCommander,
        {pressure: Float64MultiArray, '/joint_states': JointState},
    )
    probe, commander = robot.probe, robot.commander
    result = commander.run_gait('undulation', frequency_hz=2.0, beta_rad=2 * math.pi / 3, cycles=4)
    assert result.success and result.cycles == 4, result.message
    assert np.isnan(probe.latest(pressure).data).all()  # the head measures none
    bends = [max(abs(p) for p in m.position) for m in probe.messages['/joint_states']]
    assert max(bends) > 0.3  # drawn from the duties the head forwarded
    assert probe.wait(link, lambda m: m.device_safe, 4.0)  # vented: no duties for 500 ms
    board.unplug()
    assert probe.wait(link, lambda m: m.state == LinkStatus.DISCONNECTED, 3.0)
    board.replug()
    assert probe.wait(link, lambda m: m.state == LinkStatus.CONNECTED and m.device_safe, 10.0)
