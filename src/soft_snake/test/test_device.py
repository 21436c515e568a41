"""The snake's simulated head controller through a real pseudo-terminal and the real link
supervisor: duties reach the chambers, which fill as the offline simulator's do (Eqs. 2.6-2.8 on
the sagging supply) and are read back; the head vents every chamber when the duties stop (its own
watchdog, the link still up) and when the link goes silent; wrong module counts and duties over
100 % are refused and change nothing; unplug and replug."""

import math
import time

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
    with linked(SnakeHeadFirmware(modules=4), 'chambers') as connected:
        yield connected


def undulation_duties(t):
    gait = gaits.PRESETS['undulation_default'][0]
    return gaits.ValveCommander(4).duty(gaits.chamber_states(gait, t))


def offline_fill_s(duty: np.ndarray, level_pa: float, dt_s: float = 0.001) -> float:
    """How long the offline simulator's chambers take to bring chamber (0, 0) to ``level_pa``."""
    bank, t = pneumatics.Chambers(len(duty)), 0.0
    while bank.pressure_pa[0, 0] < level_pa:
        bank.step(duty, dt_s)
        t += dt_s
    return t


def streamed_until(link, duty: np.ndarray, reached, timeout_s: float) -> float | None:
    """Send ``duty`` every 0.1 s (the head vents after 0.5 s without duties) until ``reached()``:
    the seconds it took, or None."""
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        link.send('set_valves', wait_ack=True, **valves.to_wire(duty))
        took = time_until(reached, 0.1)
        if took is not None:
            return time.monotonic() - start
    return None


def test_duties_fill_the_chambers_as_offline_and_come_back(head):
    device, link, reports = head
    duty = undulation_duties(0.05)
    level = (1 - math.exp(-1)) * pneumatics.SUPPLY_PA  # 63 % of the nominal supply
    took = streamed_until(link, duty, lambda: device.model.pressures_pa()[0, 0] > level, 2.0)
    # the sagging supply shared by the filling chambers: slower than one chamber's 0.36 s
    offline = offline_fill_s(duty, level)
    assert offline > pneumatics.step_time_constants()[0] + 0.05
    assert took is not None and took == pytest.approx(offline, abs=0.1)
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
    # twelve chambers filling at once sag the supply: 0.4 of it in about 2 s
    full = lambda: device.model.pressures_pa().min() > 0.4 * pneumatics.SUPPLY_PA  # noqa: E731
    assert streamed_until(link, np.ones((4, 3)), full, 4.0) is not None
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
