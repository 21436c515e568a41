"""The simulated host ESP32 and its modules through a real pseudo-terminal and the real link
supervisor: commands reach the module they name and come back as telemetry, the cables move at the
spool rate limit, the 300 ms command watchdog stops a module's wheels while the link stays up, the
link watchdog stops them all, module addressing, unplug and replug."""

import math

import numpy as np
import pytest

from salamander_nav import modules, origami
from salamander_nav.device import SalamanderFirmware
from salamander_nav.modules import ModuleCommand
from salamander_nav.origami import Bend
from soro_link.protocol import NackCode
from soro_link.supervisor import CommandRefused, LinkState
from soro_link.testing.links import linked, unplug_and_replug
from soro_node.waiting import time_until


@pytest.fixture
def esp32():
    with linked(SalamanderFirmware(modules=2, slip_noise=0.0), 'module_state') as connected:
        yield connected


def latest(states, module_id):
    return next((m for m in reversed(states) if m['module_id'] == module_id), None)


def test_a_bend_reaches_its_module_at_the_spool_rate_and_is_read_back(esp32):
    device, link, states = esp32
    bend = Bend(0.148, math.radians(60), math.pi)
    link.send('module_command', wait_ack=True, **ModuleCommand(2, bend, (0, 0, 0)).fields())
    took = time_until(
        lambda: latest(states, 2) and abs(latest(states, 2)['theta_deg'] - 60) < 0.5, 3.0
    )
    # the longest cable change at 5 mm × 20.9 rad/s = 0.105 m/s
    change = np.abs(origami.cable_lengths(bend) - 0.148).max()
    assert took is not None and took > 0.8 * change / 0.1045
    # module 1 untouched
    assert latest(states, 1)['theta_deg'] == pytest.approx(0.0, abs=1e-3)
    assert modules.bend_of_fields(latest(states, 2)).phi_rad == pytest.approx(math.pi, abs=0.01)


def test_the_front_module_drives_the_plant_on_its_bend(esp32):
    device, link, _ = esp32
    kappa = 5.0
    command = ModuleCommand(1, origami.steering_bend(kappa), (0.0, 5.0, 5.0))
    # 2 s of commands at 10 Hz, as a controller sends them
    for _ in range(20):
        link.send('module_command', wait_ack=True, **command.fields())
        time_until(lambda: False, 0.1)
    v, k = device.model.speed_and_curvature()
    assert v == pytest.approx(5.0 * 0.02, rel=0.02) and k == pytest.approx(kappa, rel=1e-6)
    x, y, psi = device.model.pose()
    # on the circle of radius 1/κ
    assert math.hypot(x, y - 1 / kappa) == pytest.approx(1 / kappa, abs=0.01)
    assert psi > 0.3  # turned left


def test_module_watchdog_stops_the_wheels_but_keeps_the_link(esp32):
    device, link, states = esp32
    link.send(
        'module_command', wait_ack=True, **ModuleCommand(1, Bend(0.148, 0, 0), (0, 4, 4)).fields()
    )
    assert time_until(lambda: device.model.modules[1].wheels[1] > 3.0, 1.0) is not None
    assert (
        time_until(
            lambda: (
                latest(states, 1) and latest(states, 1)['flags'] & modules.FLAG_WHEELS_TIMED_OUT
            ),
            1.0,
        )
        is not None
    )
    assert time_until(lambda: device.model.modules[1].wheels[1] < 0.05, 1.0) is not None
    assert link.state == LinkState.CONNECTED and not device.model.safe


def test_the_link_watchdog_stops_every_wheel(esp32):
    device, link, _ = esp32
    for module_id in (1, 2):
        link.send(
            'module_command',
            wait_ack=True,
            **ModuleCommand(module_id, Bend(0.148, 0.5, 0), (3, 3, 3)).fields(),
        )
    assert time_until(lambda: device.model.modules[2].bend().theta_rad > 0.49, 1.0) is not None
    link.stop()
    assert time_until(lambda: device.event_times('safe:watchdog'), 1.0) is not None
    assert all(not m.wheels_target.any() for m in device.model.modules.values())
    assert device.model.modules[2].bend().theta_rad > 0.1  # bends hold


@pytest.mark.parametrize(
    'fields',
    [
        # no module 3 on this robot
        ModuleCommand(3, Bend(0.1, 0.0, 0.0), (0, 0, 0)).fields(),
        # s beyond 148 mm
        ModuleCommand(1, Bend(0.2, 0.0, 0.0), (0, 0, 0)).fields(),
        ModuleCommand(1, Bend(0.1, 2.0, 0.0), (0, 0, 0)).fields(),  # θ beyond 106°
        # wheel beyond its motor
        ModuleCommand(1, Bend(0.1, 0.0, 0.0), (0, 100, 0)).fields(),
    ],
)
def test_out_of_range_commands_are_refused_and_nothing_moves(esp32, fields):
    device, link, _ = esp32
    with pytest.raises(CommandRefused) as refused:
        link.send('module_command', wait_ack=True, **fields)
    assert refused.value.code == NackCode.OUT_OF_RANGE
    assert all(not m.wheels_target.any() for m in device.model.modules.values())


def test_a_bend_a_rounding_beyond_the_limit_is_taken_at_the_limit(esp32):
    # a bend read back from the encoders (forward kinematics, float32 telemetry) and sent again as
    # "hold it" can land a hair beyond 148 mm or 106°: the firmware takes it at the limit, a real
    # excess is still refused
    device, link, _ = esp32
    hair = ModuleCommand(
        1, Bend(origami.S_MAX_M + 2e-6, origami.THETA_MAX_RAD + 2e-6, 0.0), (0, 0, 0)
    )
    link.send('module_command', wait_ack=True, **hair.fields())
    assert (
        time_until(
            lambda: device.model.modules[1].bend().theta_rad > origami.THETA_MAX_RAD - 1e-3, 3.0
        )
        is not None
    )
    with pytest.raises(CommandRefused):
        link.send(
            'module_command',
            wait_ack=True,
            **ModuleCommand(1, Bend(origami.S_MAX_M + 1e-4, 0.0, 0.0), (0, 0, 0)).fields(),
        )


def test_cable_lengths_for_a_dumb_firmware(esp32):
    device, link, states = esp32
    command = ModuleCommand(1, Bend(0.12, math.radians(40), 0.0), (0, 0, 0))
    link.send(
        'module_cables', wait_ack=True, **command.cable_fields(origami.DEFAULT_CABLE_OFFSET_M)
    )
    assert (
        time_until(lambda: latest(states, 1) and abs(latest(states, 1)['s_mm'] - 120) < 0.1, 2.0)
        is not None
    )
    with pytest.raises(CommandRefused):
        link.send(
            'module_cables',
            wait_ack=True,
            module_id=1,
            cables_mm=(100.0, 200.0, 50.0),
            wheel_rad_s=(0, 0, 0),
        )


def test_a_firmware_without_kinematics_takes_only_cable_lengths():
    with linked(SalamanderFirmware(kinematics=False), 'module_state') as (device, link, _):
        command = ModuleCommand(1, Bend(0.12, 0.5, 0.0), (0, 0, 0))
        with pytest.raises(CommandRefused) as refused:
            link.send('module_command', wait_ack=True, **command.fields())
        assert refused.value.code == NackCode.UNKNOWN_TYPE
        link.send(
            'module_cables', wait_ack=True, **command.cable_fields(origami.DEFAULT_CABLE_OFFSET_M)
        )


def test_unplug_and_replug(esp32):
    device, link, _ = esp32
    assert unplug_and_replug(device, link)
    link.send(
        'module_command',
        wait_ack=True,
        **ModuleCommand(2, Bend(0.1, 0.2, 0.0), (0, 1, 1)).fields(),
    )


def test_wheel_speeds_beyond_the_motor_are_named():
    assert modules.wheel_speeds_problem([60.0, -60.0, 0.0]) is None
    assert modules.wheel_speeds_problem([1e6, 0.0, 0.0]) == (
        "wheel speeds ['1e+06', '0', '0'] beyond ±60 rad/s"
    )
    assert 'not finite' in modules.wheel_speeds_problem([math.nan, 0.0, 0.0])


def test_module_id_problem_names_the_range():
    assert (
        modules.module_id_problem(4, 3) == 'module id 4 does not exist: this robot has modules 1-3'
    )
    assert modules.module_id_problem(2, 3) is None
    with pytest.raises(ValueError, match='allowed 1-3'):
        SalamanderFirmware(modules=4)
