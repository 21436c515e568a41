"""The host side of a soro_link: open, handshake, heartbeats, supervision, reconnection. No rclpy.

``LinkSupervisor`` owns one serial port (any pyserial URL). A background thread reads and decodes
frames, answers nothing on its own but heartbeats, and keeps the state a bridge node reports:

    DISCONNECTED -> (port opens) HANDSHAKING -> (identity of our protocol version) CONNECTED
    CONNECTED -> (no valid frame for ``stale_timeout_s``) STALE -> (hello answered) CONNECTED
    any -> (port error or vanished) DISCONNECTED, reopened with exponential backoff

No command is ever replayed.
"""

from __future__ import annotations

import enum
import logging
import math
import os
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import serial

from soro_link.framing import StreamDecoder
from soro_link.protocol import HEARTBEAT_SAFE, PROTOCOL_VERSION, BodyError, Message, Protocol

log = logging.getLogger('soro_link')

# a turn of the link's loop takes at most its read timeout (5 ms) or a 20 ms wait to reopen; one
# this much longer means the process did not run (a frozen VM, swapping, SIGSTOP, an interpreter
# lock held), which the device could only see as the host's silence
HELD_WARN_S = 0.25
# a port missing this soon after start is said at info, not warned about: the nodes of a launch
# start together, and its board's stand-in makes the port a moment after the bridge first looks
PORT_GRACE_S = 2.0
# a write the device does not take in this long fails: the device is not reading
WRITE_TIMEOUT_S = 0.5


class LinkState(enum.IntEnum):  # values match soro_interfaces/msg/LinkStatus
    """Where a link is in its life (the module docstring gives the transitions)."""

    DISCONNECTED = 0
    HANDSHAKING = 1
    CONNECTED = 2
    STALE = 3


LINK_LOST = -1  # PendingAck.code of a command whose link closed before its ack


class LinkDown(RuntimeError):
    """A command could not be sent or was not acknowledged: the link is not connected or timed
    out."""


class CommandRefused(RuntimeError):
    """The device nacked a command."""

    def __init__(self, name: str, code: int):
        super().__init__(f'device refused {name} with code {code}')
        self.code = code


@dataclass(frozen=True)
class LinkConfig:
    """A link's port, baud rate and timings (s): heartbeats, staleness, hellos, the
    handshake warning, the reopening backoff; ``rtt_window`` round trips are kept."""

    port: str
    baud: int = 115200
    heartbeat_period_s: float = 0.1
    stale_timeout_s: float = 0.3
    hello_interval_s: float = 0.25
    # an Arduino takes ~2 s to boot after the port opens: warn only past this
    handshake_warn_s: float = 3.0
    backoff_initial_s: float = 0.1
    backoff_max_s: float = 1.0
    rtt_window: int = 1000


@dataclass
class LinkStats:
    """A link's counters since its supervisor was made, and its recent round trips (s)."""

    frames_rx: int = 0
    frames_tx: int = 0
    crc_errors: int = 0
    format_errors: int = 0
    nacks: int = 0
    resent: int = 0  # set-points sent again after a lost ack (confirm's resend)
    reconnects: int = 0
    rtts_s: deque = field(default_factory=lambda: deque(maxlen=1000), repr=False)

    def rtt_percentile(self, q: float) -> float:
        """The q-quantile (0-1) of recent round trips, s; NaN before the first."""
        if not self.rtts_s:
            return math.nan
        ordered = sorted(self.rtts_s)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if q < 1 else ordered[-1]

    @property
    def rtt_p50_s(self) -> float:
        """The median of recent round trips, s; NaN before the first."""
        return statistics.median(self.rtts_s) if self.rtts_s else math.nan


@dataclass
class PendingAck:
    """A sent command awaiting the device's ack (``LinkSupervisor.post``, then ``confirm``)."""

    name: str
    seq: int
    sent: float
    done: threading.Event = field(default_factory=threading.Event)
    code: int | None = None  # None: acked
    rtt_s: float = math.nan
    fields: dict = field(default_factory=dict)  # what was sent, for a resend


class LinkSupervisor:
    """Supervises one device link; thread-safe. Callbacks run on the supervisor's thread.

    Args:
        config: port and timings.
        protocol: the bodies this link speaks (``link_protocol(*robot_schemas)``).
        on_message: called with every robot (non-link) message and LOG report received.
        on_state: called with the new LinkState whenever it changes.
    """

    def __init__(
        self,
        config: LinkConfig,
        protocol: Protocol,
        on_message: Callable[[Message], None] | None = None,
        on_state: Callable[[LinkState], None] | None = None,
        serial_for_url: Callable[..., serial.SerialBase] = serial.serial_for_url,
    ):
        self.config, self.protocol = config, protocol
        self._on_message, self._on_state = (
            on_message or (lambda m: None),
            on_state or (lambda s: None),
        )
        self._open_port = serial_for_url
        self.state = LinkState.DISCONNECTED
        self.identity: dict | None = None
        self.device_safe = False  # only the device's own heartbeat may say it is safe
        # what the device dropped or refused of ours (its rx_errors report)
        self.device_rx_errors: dict = {}
        self.last_error = ''
        self.stats = LinkStats(rtts_s=deque(maxlen=config.rtt_window))
        self._lock = threading.RLock()
        self._port = None
        self._decoder = StreamDecoder()
        self._seq = 0
        self._pending: dict[int, PendingAck] = {}
        self._newest: dict[str, int] = {}  # message name -> seq of the last one posted
        self._last_rx = math.nan
        self._next_open = self._next_hello = self._next_heartbeat = self._handshake_start = 0.0
        self._backoff = config.backoff_initial_s
        self._latest: dict[str, tuple[Message, float]] = {}
        # s our writes spent blocked since the loop's last turn: a device that stops reading holds
        # every writer (under the lock) up to the write timeout, which is not a stalled host
        self._writing_s = 0.0
        self._running = False
        self._thread = None
        self._started_s, self._opened_once = math.nan, False

    # --- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the supervisor thread, which opens the port (retrying with backoff) and keeps
        the link."""
        self._running, self._started_s = True, time.monotonic()
        self._thread = threading.Thread(
            target=self._run, name=f'soro_link {self.config.port}', daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop the supervisor thread and close the port; commands awaiting their ack fail with
        LinkDown."""
        self._running = False
        if self._thread:
            self._thread.join(timeout=2.0)
        self._close('stopped', reconnect=False)

    # --- commands --------------------------------------------------------------------------------
    def send(
        self,
        name: str,
        wait_ack: bool = False,
        timeout_s: float = 0.5,
        resend: bool = False,
        **fields: object,
    ) -> float:
        """Send message ``name``; with ``wait_ack``, block for the device's ack and return the
        round trip in s.

        Raises LinkDown when not connected or no ack arrives in ``timeout_s`` (with ``resend``, see
        ``confirm``), CommandRefused on a nack, BodyError when the fields do not fit the schema
        (nothing is sent then).
        """
        pending = self.post(name, **fields)
        return self.confirm(pending, timeout_s, resend) if wait_ack else math.nan

    def post(self, name: str, **fields: object) -> PendingAck:
        """Send message ``name`` without waiting; ``confirm`` its ack later (a timed sequence keeps
        its beat while the ack travels). Raises LinkDown when not connected, BodyError when the
        fields do not fit."""
        with self._lock:
            if self.state not in (LinkState.CONNECTED, LinkState.STALE):
                raise LinkDown(
                    f'link on {self.config.port} is {self.state.name.lower()}'
                    + (f': {self.last_error}' if self.last_error else '')
                )
            seq = self._next_seq()
            wire = self.protocol.encode(name, seq, **fields)
            pending = self._pending[seq] = PendingAck(
                name, seq, time.monotonic(), fields=dict(fields)
            )
            self._newest[name] = seq
            self._write(wire)
        return pending

    def confirm(self, pending: PendingAck, timeout_s: float = 0.5, resend: bool = False) -> float:
        """The round trip (s) of a posted message once acked, ``timeout_s`` counted from its
        sending. Raises LinkDown when no ack came in time or the link was lost first,
        CommandRefused on a nack.

        With ``resend`` (for idempotent set-points only: sent twice, they do what once does), a
        missing ack sends the message once more, with another ``timeout_s`` for its ack, before
        giving up: one frame lost on a noisy line must not end a gait. The round trip is then the
        resent message's. Only the newest message of its name is sent again: resending one that a
        newer set-point followed would undo the newer one."""
        if not pending.done.wait(max(0.0, pending.sent + timeout_s - time.monotonic())):
            with self._lock:
                self._pending.pop(pending.seq, None)
                again = resend and self._newest.get(pending.name) == pending.seq
                self.stats.resent += again  # under the lock, as the reader counts
            if again:
                log.warning(
                    f'no ack for {pending.name} within {timeout_s * 1000:.0f} ms: sending '
                    'it once more'
                )
                return self.confirm(self.post(pending.name, **pending.fields), timeout_s)
            raise LinkDown(f'no ack for {pending.name} within {timeout_s * 1000:.0f} ms')
        if pending.code == LINK_LOST:
            raise LinkDown(f'link lost before the device acknowledged {pending.name}')
        if pending.code is not None:
            raise CommandRefused(pending.name, pending.code)
        return pending.rtt_s

    def safe_state(self, timeout_s: float = 0.5) -> float:
        """Command the device's safe state and wait for its ack."""
        return self.send('safe_state', wait_ack=True, timeout_s=timeout_s)

    def latest(self, name: str) -> tuple[Message, float] | None:
        """The last ``name`` message and its age in s, or None if none arrived since the link came
        up."""
        with self._lock:
            if name not in self._latest:
                return None
            message, stamp = self._latest[name]
            return message, time.monotonic() - stamp

    @property
    def last_rx_age_s(self) -> float:
        """Seconds since the last valid frame from the device; NaN before the first."""
        return time.monotonic() - self._last_rx

    # --- the supervisor thread -------------------------------------------------------------------
    def _run(self) -> None:
        last = time.monotonic()
        while self._running:
            now = time.monotonic()
            self._report_held(now - last)
            last = now
            if self._port is None:
                if now >= self._next_open:
                    self._try_open(now)
                else:
                    time.sleep(min(0.02, self._next_open - now))
                continue
            try:
                data = self._port.read(self._port.in_waiting or 1)
            # TypeError: pyserial on a vanished fd
            except (serial.SerialException, OSError, TypeError) as exc:
                self._close(f'port lost: {exc}', reconnect=True)
                continue
            with self._lock:
                for frame in self._decoder.feed(data):
                    self._receive(frame, time.monotonic())
                self._count_decoder_errors()
                # as of when this turn began to read: a turn the process was stopped in read only
                # what it had asked for before the stop, and the rest is read next turn
                self._keep_alive(now)

    def _report_held(self, gap_s: float) -> None:
        """Warn when the loop's last turn took ``gap_s`` well beyond its own waits, unless our
        writes blocking on the device explain it (``_write`` says so itself)."""
        with self._lock:
            writing_s, self._writing_s = self._writing_s, 0.0
        if gap_s - writing_s > HELD_WARN_S:
            log.warning(
                f'the link on {self.config.port} did not run for {gap_s * 1000:.0f} ms: nothing '
                'was read or sent meanwhile (a stalled host?)'
            )

    def _try_open(self, now: float) -> None:
        try:
            # exclusive (flock): a second bridge, or one retrying a path that has come to name
            # another device's terminal, is refused instead of taking half of its bytes
            port = self._open_port(
                self.config.port,
                baudrate=self.config.baud,
                timeout=0.005,
                write_timeout=WRITE_TIMEOUT_S,
                exclusive=True,
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            if self._port_not_there_yet(now):
                self._set_error(f'waiting for {self.config.port} to appear', logging.INFO)
            else:
                self._set_error(f'cannot open {self.config.port}: {exc}; retrying')
            self._next_open = now + self._backoff
            self._backoff = min(self._backoff * 2, self.config.backoff_max_s)
            return
        with self._lock:
            self._port, self._decoder = port, StreamDecoder()
            # why it would not open is past: diagnostics said "handshaking; cannot open ..."
            self._opened_once, self.last_error = True, ''
            self._backoff = self.config.backoff_initial_s
            self._handshake_start, self._next_hello = now, now
            self._set_state(LinkState.HANDSHAKING)

    def _close(self, reason: str, reconnect: bool) -> None:
        with self._lock:
            if self._port is not None:
                try:
                    self._port.close()
                except (serial.SerialException, OSError):
                    pass
                self._port = None
                if reconnect:
                    self.stats.reconnects += 1
                    self._set_error(reason)
            self._forget_device()
            self._next_open = time.monotonic() + self.config.backoff_initial_s
            self._set_state(LinkState.DISCONNECTED)

    def _forget_device(self) -> None:
        """No command, telemetry or identity survives a lost or refused device."""
        for pending in self._pending.values():
            pending.code = LINK_LOST
            pending.done.set()
        self._pending.clear()
        self._latest.clear()
        self.identity, self.device_safe, self.device_rx_errors = None, False, {}

    def _receive(self, frame, now: float) -> None:
        try:
            message = self.protocol.decode(frame)
        except BodyError as exc:
            self.stats.format_errors += 1
            log.debug('dropped frame: %s', exc)
            return
        self.stats.frames_rx += 1
        self._last_rx = now
        if message.name == 'identity':
            self._identify(message)
        elif message.name == 'heartbeat':
            self.device_safe = bool(message['flags'] & HEARTBEAT_SAFE)
        elif message.name == 'rx_errors':
            self.device_rx_errors = dict(message.fields)
        elif message.name in ('ack', 'nack'):
            self._resolve(message, now)
        elif self.identity is None and message.name != 'log':
            # telemetry of a device not (or no longer) identified is not ours to trust; its log is
            return
        else:
            self._latest[message.name] = (message, now)
            self._call(self._on_message, message)
        if self.state == LinkState.STALE and self.identity is not None:
            self._set_state(LinkState.CONNECTED)

    def _identify(self, message: Message) -> None:
        version = message['protocol_version']
        if version != PROTOCOL_VERSION:
            # also mid-session (a device rebooted into other firmware, or a forged frame): nothing
            # more is sent to it but hellos, until it identifies as a device of our version
            self._set_error(
                f'device on {self.config.port} speaks soro_link protocol version {version}, '
                f'this bridge speaks version {PROTOCOL_VERSION}: refused'
            )
            self._forget_device()
            if self.state != LinkState.HANDSHAKING:
                self._handshake_start = self._next_hello = time.monotonic()
                self._set_state(LinkState.HANDSHAKING)
            return
        self.identity = {
            'device_kind': message['device_kind'],
            'firmware_version': message['firmware_version'],
            'protocol_version': version,
        }
        self.last_error = ''
        self._set_state(LinkState.CONNECTED)

    def _resolve(self, message: Message, now: float) -> None:
        pending = self._pending.pop(message['ack_seq'], None)
        if pending is None:
            return
        pending.rtt_s = now - pending.sent
        if message.name == 'nack':
            pending.code = message['code']
            self.stats.nacks += 1
        else:
            self.stats.rtts_s.append(pending.rtt_s)
        pending.done.set()

    def _keep_alive(self, now: float) -> None:
        connected = self.state in (LinkState.CONNECTED, LinkState.STALE)
        if self.state == LinkState.CONNECTED and now - self._last_rx > self.config.stale_timeout_s:
            self._set_state(LinkState.STALE)
            self._set_error(
                f'no frame from the device for {self.config.stale_timeout_s * 1000:.0f} ms'
            )
        if self.state in (LinkState.HANDSHAKING, LinkState.STALE) and now >= self._next_hello:
            # a STALE device may have rebooted: it answers a hello again, never a replayed command
            self._next_hello = now + self.config.hello_interval_s
            self._write(
                self.protocol.encode('hello', self._next_seq(), protocol_version=PROTOCOL_VERSION)
            )
            if (
                self.state == LinkState.HANDSHAKING
                and now - self._handshake_start > self.config.handshake_warn_s
                and not self.last_error
            ):
                self._set_error(
                    f'no identity from {self.config.port} after '
                    f'{self.config.handshake_warn_s:.0f} s'
                )
        if connected and now >= self._next_heartbeat:
            self._next_heartbeat = now + self.config.heartbeat_period_s
            self._write(
                self.protocol.encode(
                    'heartbeat', self._next_seq(), uptime_ms=int(now * 1000) & 0xFFFFFFFF, flags=0
                )
            )

    def _write(self, wire: bytes) -> None:
        started, failure = time.monotonic(), None
        try:
            self._port.write(wire)
            self.stats.frames_tx += 1
        # AttributeError: port closed meanwhile
        except (serial.SerialException, OSError, AttributeError) as exc:
            failure = exc
        blocked_s = time.monotonic() - started
        self._writing_s += blocked_s
        # tenths of a second: a device that stays hung times every write out the same, one line
        blocked = (
            f' after {blocked_s:.1f} s: the device is not reading (a hung firmware?)'
            if blocked_s > HELD_WARN_S
            else ''
        )
        if failure is not None:
            self._set_error(f'write failed: {failure}{blocked}')
        elif blocked:
            log.warning(f'a write to {self.config.port} blocked{blocked}')

    def _count_decoder_errors(self) -> None:
        self.stats.crc_errors += self._decoder.stats.crc_errors
        self.stats.format_errors += self._decoder.stats.format_errors
        self._decoder.stats.crc_errors = self._decoder.stats.format_errors = 0

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFFFF
        return self._seq

    def _set_state(self, state: LinkState) -> None:
        if state != self.state:
            self.state = state
            self._call(self._on_state, state)

    def _call(self, callback: Callable, argument: object) -> None:
        try:
            callback(argument)
        except Exception:  # a user callback must never stop link supervision
            log.exception('link callback failed')

    def _port_not_there_yet(self, now: float) -> bool:
        """A port that has never opened and does not exist within PORT_GRACE_S of start: the
        stand-in of the same launch still making it, or a board being plugged in."""
        return (
            not self._opened_once
            and now - self._started_s < PORT_GRACE_S
            and not os.path.exists(self.config.port)
        )

    def _set_error(self, text: str, level: int = logging.WARNING) -> None:
        if text != self.last_error:  # one log line per distinct problem, not one per retry
            log.log(level, text)
        self.last_error = text
