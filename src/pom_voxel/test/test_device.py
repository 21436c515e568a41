"""The quadruped's simulated actuator board through a real pseudo-terminal and the real link
supervisor: strokes commanded and read back at the rate limit, targets past the stroke refused, the
firmware watchdog holding the actuators where they are (the link's WATCHDOG log reports it, as
tested in soro_link), unplug and replug."""

import numpy as np
import pytest

from pom_voxel.actuators import to_mm, to_um
from pom_voxel.device import PomBoardFirmware
from soro_link.protocol import NackCode
from soro_link.supervisor import CommandRefused, LinkDown, LinkState
from soro_link.testing.links import linked
from soro_node.waiting import time_until


@pytest.fixture
def board():
    with linked(PomBoardFirmware(speed_mm_s=20.0), 'strokes') as connected:
        yield connected


def test_strokes_are_reached_at_the_rate_limit_and_read_back(board):
    device, link, telemetry = board
    link.send('set_strokes', wait_ack=True, target_um=to_um([5.0, -5.0, 2.5, 0.0]))
    took = time_until(
        lambda: telemetry and np.allclose(to_mm(telemetry[-1]['position_um']), [5, -5, 2.5, 0]),
        2.0,
    )
    # 5 mm at 20 mm/s: a quarter of a second, not a jump
    assert took is not None and took > 0.2
    assert (
        to_mm(telemetry[-1]['target_um']) == pytest.approx([5, -5, 2.5, 0])
        and not telemetry[-1]['holding']
    )


def test_a_target_past_the_stroke_limit_is_refused_and_nothing_moves(board):
    device, link, telemetry = board
    with pytest.raises(CommandRefused) as refused:
        link.send('set_strokes', wait_ack=True, target_um=to_um([0.0, 5.5, 0.0, 0.0]))
    assert refused.value.code == NackCode.OUT_OF_RANGE
    assert np.all(device.model.positions_mm() == 0.0)


def test_the_watchdog_holds_the_actuators_where_they_are_and_reports_it(board):
    device, link, telemetry = board
    device.model.speed_mm_s = 4.0  # 5 mm take 1.25 s: the watchdog trips half-way
    link.send('set_strokes', wait_ack=True, target_um=to_um([5.0, 5.0, 5.0, 5.0]))
    assert (
        time_until(lambda: telemetry and telemetry[-1]['position_um'][0] > 2000, 1.0) is not None
    )
    link.stop()  # the host goes silent mid-move
    assert time_until(lambda: device.event_times('safe:watchdog'), 1.0) is not None
    held = device.model.positions_mm()
    assert 0 < held[0] < 5.0
    assert time_until(lambda: False, 0.3) is None and device.model.positions_mm() == pytest.approx(
        held
    )
    assert device.model.safe and device.model.target_um == pytest.approx(1000 * held)


def test_unplug_and_replug_reconnect_and_the_board_boots_holding(board):
    device, link, telemetry = board
    device.unplug()
    assert time_until(lambda: link.state == LinkState.DISCONNECTED, 1.0) is not None
    with pytest.raises(LinkDown):
        link.send('set_strokes', target_um=to_um([1.0]))
    device.replug()
    assert time_until(lambda: link.state == LinkState.CONNECTED, 3.0) is not None
    # a board powers up holding, waiting for a fresh command
    assert device.model.safe
    link.send('set_strokes', wait_ack=True, target_um=to_um([1.0]))
    assert (
        time_until(lambda: device.model.positions_mm()[0] == pytest.approx(1.0), 1.0) is not None
    )
