"""The link behaviour every board's firmware must show, as checks the robot packages' firmware
tests call with their own command: acks and nacks, the watchdog's timing, unplug and replug, a
storm of bad frames. Each raises AssertionError naming what it saw. No ROS.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from soro_link.protocol import HEARTBEAT_SAFE, PROTOCOL_VERSION, LogCode, Protocol
from soro_link.supervisor import LinkConfig, LinkState, LinkSupervisor
from soro_link.testing.emulator import EmulatedBoard
from soro_link.testing.links import RawHost, bad_frames
from soro_node.waiting import time_until

WATCHDOG_S = 0.5  # SORO_WATCHDOG_MS in soro_board.h
TICK_S = 0.001
# the error of timing 0.5 s by the board clock fitted to heartbeat arrivals, loaded
CLOCK_FIT_S = 0.05
# how late a loaded host may read the log (emulator and test share 2 cores): a sanity bound only,
# the board's own count is the exact check
HOST_LATE_S = 0.5
HEARTBEAT_S = 0.1


@contextmanager
def linked_host(port: str, protocol: Protocol, heartbeats: bool = True) -> Iterator[RawHost]:
    """A raw host that has shaken hands (its identity in ``host.identity``) and, with
    ``heartbeats``, keeps the link alive from a thread of its own, so a loaded test process cannot
    set the watchdog off; closed on exit."""
    host = RawHost(port, protocol)
    try:
        host.identity = host.handshake().fields
        if heartbeats:
            host.start_heartbeats()
        yield host
    finally:
        host.close()


def command(host: RawHost, name: str, **fields: object) -> int | None:
    """Sends a command and waits for its answer: None when acked, the nack code when refused."""
    host.send(name, **fields)
    seq = host.seq
    got = host.read_until(lambda m: m.name in ('ack', 'nack') and m['ack_seq'] == seq, 1.0)
    assert got is not None, f'no answer to {name} within 1 s'
    return got[1]['code'] if got[1].name == 'nack' else None


def telemetry_after(host: RawHost, name: str, wait_s: float) -> dict:
    """The fields of the first ``name`` message after ``wait_s`` of heartbeats."""
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        host.send('heartbeat', uptime_ms=0, flags=0)
        host.read_until(lambda m: False, min(HEARTBEAT_S, max(0.0, end - time.monotonic())))
    got = host.read_until(lambda m: m.name == name, 0.5)
    assert got is not None, f'no {name} telemetry within 0.5 s'
    return got[1].fields


def telemetry_when(host: RawHost, name: str, done, timeout_s: float = 3.0) -> dict:
    """The fields of the first ``name`` message that satisfies ``done`` (heartbeats sent
    meanwhile), or of the last one seen when none did within ``timeout_s``: the board's clock says
    when a state is reached, not the host's (emulated boards run slow on a loaded machine)."""
    end, last = time.monotonic() + timeout_s, None
    while time.monotonic() < end:
        host.send('heartbeat', uptime_ms=0, flags=0)
        got = host.read_until(lambda m: m.name == name, HEARTBEAT_S)
        if got is not None:
            last = got[1].fields
            if done(last):
                return last
    assert last is not None, f'no {name} telemetry within {timeout_s:g} s'
    return last


def watchdog_delay_s(
    port: str, protocol: Protocol, name: str, **fields: object
) -> tuple[float, float]:
    """Commands the board out of its safe state, then falls silent: (the silence the board counted,
    in its WATCHDOG log; the time from sending the command, the last frame the board heard, to that
    log), both in seconds of the board's own clock, the second measured against its heartbeats'
    uptime: qemu's Timer1 runs a few per cent slow, a board's crystal does not. The heartbeat after
    the log must carry the safe flag."""
    with linked_host(port, protocol, heartbeats=False) as host:
        start = time.monotonic()
        # a second of heartbeats to time the board's clock by
        telemetry_after(host, 'heartbeat', 1.0)
        sent = host.send(name, **fields)
        got = host.read_until(
            lambda m: m.name == 'log' and m['code'] == LogCode.WATCHDOG, WATCHDOG_S + 1.0
        )
        assert got is not None, f'no WATCHDOG log within {WATCHDOG_S + 1.0} s of silence'
        beat = host.read_until(lambda m: m.name == 'heartbeat', 0.5)
        assert beat is not None and beat[1]['flags'] & HEARTBEAT_SAFE, (
            'the heartbeat after the watchdog is not safe'
        )
        counted = re.search(r'for (\d+) ms', got[1]['text'])
        assert counted is not None, (
            f'WATCHDOG log without the silence it counted: {got[1]["text"]!r}'
        )
        return int(counted.group(1)) / 1000.0, (got[0] - sent) * board_clock_rate(
            host.messages, since=start
        )


def check_watchdog(board_port: str, protocol: Protocol, name: str, **fields: object) -> None:
    """The watchdog fires after WATCHDOG_S and within one tick by the board's count, and the host,
    timing it by the board's clock, sees it no earlier (and not much later)."""
    counted_s, seen_s = watchdog_delay_s(board_port, protocol, name, **fields)
    assert WATCHDOG_S < counted_s <= WATCHDOG_S + TICK_S, (
        f'the board counted {counted_s * 1e3:.0f} ms of silence'
    )
    assert WATCHDOG_S - CLOCK_FIT_S <= seen_s <= WATCHDOG_S + HOST_LATE_S, (
        f'seen after {seen_s:.3f} s'
    )


def board_clock_rate(messages: list, since: float) -> float:
    """Board seconds per host second, from the heartbeats that arrived after ``since`` (host
    time)."""
    beats = np.array(
        [(t, m['uptime_ms'] / 1000.0) for t, m in messages if m.name == 'heartbeat' and t >= since]
    )
    assert len(beats) >= 10, f'{len(beats)} heartbeats to time the board clock by'
    # least squares: arrival jitter averages out
    return float(np.polyfit(beats[:, 0], beats[:, 1], 1)[0])


def unplug_replug(board: EmulatedBoard, protocol: Protocol, name: str, **fields: object) -> None:
    """With the bridges' own supervisor: connected and commanded, the emulator stops
    (DISCONNECTED), starts again from reset (CONNECTED within 5 s: qemu's pseudo-terminal polls for
    its host once a second) and reports itself safe: no command survived or was replayed."""
    link = LinkSupervisor(LinkConfig(board.port), protocol)
    link.start()
    try:
        assert time_until(lambda: link.state == LinkState.CONNECTED, 5.0) is not None, (
            'no connection'
        )
        link.send(name, wait_ack=True, **fields)
        assert time_until(lambda: not link.device_safe, 0.5) is not None, (
            'the command did not leave the safe state'
        )
        board.unplug()
        assert time_until(lambda: link.state == LinkState.DISCONNECTED, 1.0) is not None, (
            'unplug not seen'
        )
        board.replug()
        assert time_until(lambda: link.state == LinkState.CONNECTED, 5.0) is not None, (
            'no reconnection'
        )
        assert time_until(lambda: link.device_safe, 0.5) is not None, (
            'the board came back out of its safe state'
        )
        assert link.stats.reconnects == 1
    finally:
        link.stop()


def survives_storm(port: str, protocol: Protocol, name: str, **fields: object) -> dict:
    """Commands the board, then sends every frame of ``bad_frames``: the board reports each in the
    right rx_errors counter, keeps running (its uptime goes on, no boot log, an identity only for
    each hello) and ends safe once the host falls silent. The counts. Each frame is followed by a
    hello and its identity: qemu's UART has no line rate, and a backlog that a stalled emulator
    delivers at once could outrun the board's receive ring, which no real line can."""
    storm = bad_frames(protocol, name, fields)
    with linked_host(port, protocol, heartbeats=False) as host:
        assert command(host, name, **fields) is None, f'{name} refused'
        before = len(host.messages)
        for kind in storm:
            for wire in storm[kind]:
                host.write(wire)
                host.send('hello', protocol_version=PROTOCOL_VERSION)
                assert host.read_until(lambda m: m.name == 'identity', 2.0) is not None, (
                    'no identity for a hello'
                )
        expected = {kind: len(frames) for kind, frames in storm.items()}
        got = host.read_until(lambda m: m.name == 'rx_errors' and m.fields == expected, 5.0)
        counts = [m.fields for _, m in host.messages if m.name == 'rx_errors']
        assert got is not None, f'rx_errors {counts[-1:]} never reached {expected}'
        seen = [m for _, m in host.messages[before:]]
        assert not [m for m in seen if m.name == 'log' and m['code'] == LogCode.BOOTED], (
            'the board reset in the storm'
        )
        assert sum(m.name == 'identity' for m in seen) == sum(
            len(frames) for frames in storm.values()
        )
        uptimes = [m['uptime_ms'] for m in seen if m.name == 'heartbeat']
        assert uptimes == sorted(uptimes) and len(uptimes) >= 2, f'heartbeat uptimes {uptimes}'
        nacks = [m for m in seen if m.name == 'nack']
        assert len(nacks) == expected['refused'], (
            f'{len(nacks)} nacks for {expected["refused"]} refused frames'
        )
        beat = host.read_until(
            lambda m: m.name == 'heartbeat' and m['flags'] & HEARTBEAT_SAFE, WATCHDOG_S + 0.5
        )
        assert beat is not None, 'still out of the safe state after the storm and the silence'
        return expected
