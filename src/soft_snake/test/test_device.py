"""The snake's simulated head controller through a real pseudo-terminal and the real link
supervisor: duties reach the chambers, which fill with the measured time constant and are read
back; the head vents every chamber when the duties stop (its own watchdog, the link still up) and
when the link goes silent; wrong module counts and duties over 100 % are refused and change
nothing; unplug and replug."""

import math

import numpy as np
import pytest

from soft_snake import gaits, pneumatics, valves
from soft_snake.device import SnakeHeadFirmware
from soro_link.protocol import NackCode
from soro_link.supervisor import CommandRefused, LinkState
from soro_link.testing.links import linked, unplug_and_replug
from soro_node.waiting import time_until


@pytest.fixture
def head():
    with linked(
        SnakeHeadFirmware(modules=4, tau_inflate_s=0.3, tau_vent_s=0.3), 'chambers'
    ) as connected:
        yield connected


def undulation_duties(t):
    gait = gaits.PRESETS['undulation_default'][0]
    return gaits.ValveCommander(4).duty(gaits.chamber_states(gait, t))


def test_duties_fill_the_chambers_with_the_time_constant_and_come_back(head):
    device, link, reports = head
    duty = undulation_duties(0.05)
    link.send('set_valves', wait_ack=True, **valves.to_wire(duty))
    took = time_until(
        lambda: device.model.pressures_pa()[0, 0] > (1 - math.exp(-1)) * pneumatics.SUPPLY_PA, 2.0
    )
    assert took is not None and took == pytest.approx(0.3, abs=0.1)  # one τ to 63 %
    assert (
        time_until(
            lambda: reports and valves.duties_of(reports[-1]).tolist() == duty.tolist(), 1.0
        )
        is not None
    )
    pressures = valves.pressures_of(reports[-1])
    assert pressures[0, 0] > 0.5 * pneumatics.SUPPLY_PA and pressures[0, 1] == 0.0
    assert not reports[-1]['vented']


def test_the_head_vents_every_chamber_when_duties_stop(head):
    device, link, reports = head
    link.send('set_valves', wait_ack=True, **valves.to_wire(np.ones((4, 3))))
    assert (
        time_until(lambda: device.model.pressures_pa().min() > 0.5 * pneumatics.SUPPLY_PA, 2.0)
        is not None
    )
    # 500 ms without a duty
    assert time_until(lambda: reports and reports[-1]['vented'], 1.5) is not None
    assert link.state == LinkState.CONNECTED
    assert (
        time_until(lambda: device.model.pressures_pa().max() < 0.05 * pneumatics.SUPPLY_PA, 2.0)
        is not None
    )


def test_a_silent_link_vents_every_chamber(head):
    device, link, _ = head
    link.send('set_valves', wait_ack=True, **valves.to_wire(np.ones((4, 3))))
    link.stop()
    assert time_until(lambda: device.event_times('safe:watchdog'), 1.0) is not None
    assert np.all(device.model.duty == 0)


# a 5-module command, 4 here
@pytest.mark.parametrize(
    'body', [valves.to_wire(np.ones((5, 3))), {'modules': 4, 'duty_pct': (101,) + (0,) * 14}]
)
def test_bad_commands_are_refused_and_change_nothing(head, body):
    device, link, _ = head
    with pytest.raises(CommandRefused) as refused:
        link.send('set_valves', wait_ack=True, **body)
    assert refused.value.code == NackCode.OUT_OF_RANGE and np.all(device.model.duty == 0)


def test_unplug_and_replug_boot_vented(head):
    device, link, _ = head
    assert unplug_and_replug(device, link)
    assert device.model.safe
    link.send('set_valves', wait_ack=True, **valves.to_wire(undulation_duties(0.3)))
