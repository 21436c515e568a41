"""Simulated microcontrollers behind real pseudo-terminals, speaking the device side of soro_link.

``SimulatedDevice`` is the firmware's link layer: it boots, answers the handshake, sends heartbeats
that carry its safe-state flag, acks or nacks commands, and runs the firmware watchdog (no
heartbeat or command for ``watchdog_ms`` puts it in its safe state and reports it). What the robot
does with a command lives in a ``DeviceModel``, which robot packages subclass with their own bodies
and physics.

The port is a stable symlink to the pseudo-terminal (like a udev ``/dev/serial/by-id`` name), so
``unplug`` and ``replug`` behave as a USB cable would: the path vanishes, then comes back on a
fresh terminal. It names the terminal through this process's own descriptor
(``/proc/<pid>/fd/<n>``), so it also vanishes when the process is killed: through a link to
``/dev/pts/<n>`` a bridge retrying the path of a killed simulator opened whichever device was
given that number next. A host opening the port resets the device, as DTR resets an Arduino and the
auto-reset circuit an ESP32 board: the terminal runs in packet mode, where the flush of the input
that pyserial does on every open reaches the device (TIOCPKT_FLUSHREAD).
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import tempfile
import termios
import threading
import time
import tty
from pathlib import Path

from soro_link.framing import Frame, StreamDecoder, encode_frame
from soro_link.protocol import (
    HEARTBEAT_SAFE,
    PROTOCOL_VERSION,
    BodyError,
    BodySchema,
    LogCode,
    LogLevel,
    Message,
    NackCode,
    link_protocol,
)

# On stop, a device whose host still talks keeps answering until the host has been quiet this long
# (its heartbeats come every 0.1 s, so it has closed the port), at most LINGER_S: Ctrl-C on a
# launch interrupts the bridge and the simulator at once, and the bridge's last act is to command
# the safe state and wait for the device's ack.
HOST_QUIET_S = 0.25
LINGER_S = 1.5


class DeviceModel:
    """Firmware behaviour beyond the link. The base class is a device with no robot commands."""

    device_kind = 'none'
    firmware_version = '0.0.0'
    schemas: tuple[BodySchema, ...] = ()

    def __init__(self):
        self.safe = True  # every device boots in its safe state and waits for a fresh command

    def command(self, message: Message, now: float) -> NackCode | None:
        """Apply a robot command; return None to ack it or a NackCode to refuse it."""
        return NackCode.UNKNOWN_TYPE

    def enter_safe_state(self) -> None:
        """Enter the safe state (at power-up, on the watchdog and on a safe_state command);
        subclasses also stop or vent their actuators."""
        self.safe = True

    def step(self, now: float, dt: float) -> list[tuple[str, dict]]:
        """Advance the physics by ``dt`` s; return telemetry messages ``(name, fields)`` to send
        now."""
        return []


class GenericOutputs(DeviceModel):
    """A generic actuator board: four outputs at a duty of 0-100 %, reported at ``telemetry_hz``.

    Safe state: all outputs at 0 %. Used by soro_link's own tests, its benchmark and its demo
    launch file.
    """

    device_kind = 'generic_outputs'
    firmware_version = '1.0.0'
    schemas = (
        BodySchema(0x20, 'set_outputs', [('duty_pct', '4B')]),
        BodySchema(0x21, 'outputs', [('duty_pct', '4B'), ('safe', '?')]),
    )

    def __init__(self, telemetry_hz: float = 20.0):
        super().__init__()
        self.duty_pct = (0, 0, 0, 0)
        self._period, self._next = 1.0 / telemetry_hz, 0.0

    def command(self, message, now):
        """Set the four duties (``duty_pct``, %); OUT_OF_RANGE, nothing changed, when one
        exceeds 100."""
        duty = message['duty_pct']
        if any(d > 100 for d in duty):
            return NackCode.OUT_OF_RANGE
        self.duty_pct, self.safe = tuple(duty), False
        return None

    def enter_safe_state(self):
        """All four outputs to 0 %."""
        self.duty_pct, self.safe = (0, 0, 0, 0), True

    def step(self, now, dt):
        """An ``outputs`` report (duties and safe flag) once per telemetry period."""
        if now < self._next:
            return []
        self._next = now + self._period
        return [('outputs', {'duty_pct': self.duty_pct, 'safe': self.safe})]


class SimulatedDevice:
    """A firmware stand-in on a pseudo-terminal; ``port`` is the path a bridge opens.

    Args:
        model: the robot behaviour.
        port: symlink path to create; a fresh temporary path when None.
        watchdog_ms: safe state after this long without a heartbeat or command from the host.
        heartbeat_period_s: device heartbeat period once the handshake is done.
        boot_delay_s: input is ignored this long after power-up, replug or a host opening the
            port (the bootloader of an Arduino, which resets on open).
        protocol_version: what the firmware announces (another value tests the bridge's refusal).
        tick_s: firmware loop period.
    """

    def __init__(
        self,
        model: DeviceModel,
        port: str | Path | None = None,
        watchdog_ms: int = 500,
        heartbeat_period_s: float = 0.1,
        boot_delay_s: float = 0.0,
        protocol_version: int = PROTOCOL_VERSION,
        tick_s: float = 0.005,
    ):
        self.model = model
        self.protocol = link_protocol(*model.schemas)
        self._tmpdir = None
        if port is None:
            self._tmpdir = tempfile.TemporaryDirectory(prefix='soro_link_')
            port = Path(self._tmpdir.name) / 'ttySIM0'
        self.port = str(port)
        self.watchdog_s, self.heartbeat_period_s = watchdog_ms / 1000.0, heartbeat_period_s
        self.boot_delay_s, self.protocol_version, self.tick_s = (
            boot_delay_s,
            protocol_version,
            tick_s,
        )
        # (monotonic time, what): boots, handshakes, safe-state entries
        self.events: list[tuple[float, str]] = []
        self.received: list[Message] = []  # every robot command accepted, in order
        # a noisy line: this many of the next acks never reach the host
        self.acks_to_lose = 0
        self._lock = threading.Lock()
        self._thread = None
        self._fds = None
        self._announce = False

    # --- cable -----------------------------------------------------------------------------------
    def start(self) -> SimulatedDevice:
        """Power up (``replug``) and return the device: ``SimulatedDevice(model).start()``."""
        self.replug()
        return self

    def replug(self) -> None:
        """Power up on a fresh pseudo-terminal behind the same path."""
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        fcntl.ioctl(master, termios.TIOCPKT, struct.pack('i', 1))
        link = Path(self.port)
        link.unlink(missing_ok=True)
        link.symlink_to(f'/proc/{os.getpid()}/fd/{slave}')
        self._fds = (master, slave)
        self._running, self._hung = True, False
        self._thread = threading.Thread(
            target=self._run, name=f'sim-{self.model.device_kind}', daemon=True
        )
        self._thread.start()

    def unplug(self) -> None:
        """Pull the cable: the path disappears and the host's open port fails."""
        self._running = False
        if self._thread:
            self._thread.join(timeout=2.0)
            self._thread = None
        Path(self.port).unlink(missing_ok=True)
        if self._fds:
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def hang(self) -> None:
        """Lock the firmware up: it stops reading and sending, and the port stays, as a USB-serial
        chip keeps a hung board enumerated; ``unplug`` and ``replug`` recover it."""
        self._hung = True

    def stop(self) -> None:
        """Power off, once the host has finished talking (see LINGER_S); ``unplug`` is the sudden
        cut."""
        self._linger()
        self.unplug()
        if self._tmpdir:
            self._tmpdir.cleanup()

    def _linger(self) -> None:
        deadline = time.monotonic() + LINGER_S
        while (
            self._thread
            and self._running
            and time.monotonic() < deadline
            and getattr(self, '_handshaken', False)
            and time.monotonic() - self._host_seen < HOST_QUIET_S
        ):
            time.sleep(0.02)

    def __enter__(self) -> SimulatedDevice:
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()

    def announce(self) -> None:
        """Send the identity unprompted at the next tick, as firmware does after a reset the host
        did not see (with another ``protocol_version`` set first: a device that came back as
        something else)."""
        self._announce = True

    def event_times(self, what: str) -> list[float]:
        """Monotonic times (s) of the recorded events ``what`` ('power_up', 'reset_on_open',
        'handshake', 'safe:watchdog', 'safe:safe_state_command')."""
        with self._lock:
            return [t for t, w in self.events if w == what]

    # --- firmware --------------------------------------------------------------------------------
    def _run(self) -> None:
        master = self._fds[0]
        decoder, boot_end = self._reset('power_up')
        last = time.monotonic()
        while self._running:
            if self._hung:
                time.sleep(self.tick_s)
                continue
            readable, _, _ = select.select([master], [], [], self.tick_s)
            data, host_opened = self._read(master) if readable else (b'', False)
            if host_opened:
                decoder, boot_end = self._reset('reset_on_open')
            now = time.monotonic()
            if now < boot_end:
                continue  # the bootloader swallows what arrives while it runs
            if not self._booted:
                self._booted, self._host_seen = True, now
                self._send('log', level=LogLevel.INFO, code=LogCode.BOOTED, text='booted')
            for frame in decoder.feed(data):
                self._handle(frame, now)
            self._report_rx_errors(decoder, now)
            if self._announce:
                self._announce = False
                self._identify()
            self._watchdog(now)
            self._heartbeat(now)
            for name, fields in self.model.step(now, now - last):
                if self._handshaken:
                    self._send(name, **fields)
            last = now

    def _reset(self, why: str) -> tuple[StreamDecoder, float]:
        """Start the firmware afresh (``why``: 'power_up' or 'reset_on_open'): safe, no host,
        nothing half-received; its decoder and the end of its boot."""
        self.model.enter_safe_state()
        self._seq, self._handshaken, self._booted = 0, False, False
        self._refused, self._rx_errors_sent, self._next_rx_errors = 0, None, 0.0
        self._host_seen = self._next_heartbeat = time.monotonic()
        self._event(why)
        return StreamDecoder(), self._host_seen + self.boot_delay_s

    def _read(self, master: int) -> tuple[bytes, bool]:
        """What the host wrote, and whether it has just opened the port (a packet-mode status
        byte in place of data)."""
        try:
            packet = os.read(master, 4097)
        except (BlockingIOError, OSError):  # EIO while no host has the terminal open
            return b'', False
        if not packet or packet[0] == termios.TIOCPKT_DATA:
            return packet[1:], False
        return b'', bool(packet[0] & termios.TIOCPKT_FLUSHREAD)

    def _handle(self, frame: Frame, now: float) -> None:
        try:
            message = self.protocol.decode(frame)
        except BodyError:
            known = frame.type in self.protocol.by_id
            code = (
                NackCode.BAD_VERSION
                if frame.version != PROTOCOL_VERSION
                else NackCode.BAD_BODY
                if known
                else NackCode.UNKNOWN_TYPE
            )
            self._nack(frame.seq, code)
            return
        if message.name == 'hello':
            self._host_seen, self._handshaken = now, True
            self._identify()
            self._event('handshake')
        elif message.name == 'heartbeat':
            self._host_seen = now
        elif message.name == 'safe_state':
            self._host_seen = now
            self._enter_safe('safe_state_command')
            self._send('ack', ack_seq=frame.seq)
        elif frame.type in {s.type_id for s in self.model.schemas}:
            self._robot_command(message, frame.seq, now)
        else:  # a device-to-host message sent the wrong way
            self._nack(frame.seq, NackCode.UNKNOWN_TYPE)

    def _report_rx_errors(self, decoder: StreamDecoder, now: float) -> None:
        """Frames dropped or refused since power-up, when a count changed, at most once a second
        (as the firmware, which also tells overflowed runs from other format errors; the stream
        decoder counts them as format)."""
        counts = {
            'crc': decoder.stats.crc_errors,
            'format': decoder.stats.format_errors,
            'overflow': 0,
            'refused': self._refused,
        }
        if self._handshaken and now >= self._next_rx_errors and counts != self._rx_errors_sent:
            self._next_rx_errors, self._rx_errors_sent = now + 1.0, counts
            self._send('rx_errors', **{k: min(v, 0xFFFF) for k, v in counts.items()})

    def _nack(self, seq: int, code: NackCode) -> None:
        self._refused += 1
        self._send('nack', ack_seq=seq, code=code)

    def _identify(self) -> None:
        self._send(
            'identity',
            protocol_version=self.protocol_version,
            device_kind=self.model.device_kind,
            firmware_version=self.model.firmware_version,
        )

    def _robot_command(self, message: Message, seq: int, now: float) -> None:
        if not self._handshaken:
            self._nack(seq, NackCode.NOT_READY)
            return
        self._host_seen = now
        code = self.model.command(message, now)
        if code is None:
            with self._lock:
                self.received.append(message)
                lost, self.acks_to_lose = self.acks_to_lose > 0, max(0, self.acks_to_lose - 1)
            if not lost:
                self._send('ack', ack_seq=seq)
        else:
            self._nack(seq, code)

    def _watchdog(self, now: float) -> None:
        if not self.model.safe and now - self._host_seen > self.watchdog_s:
            self._enter_safe('watchdog')
            self._send(
                'log',
                level=LogLevel.ERROR,
                code=LogCode.WATCHDOG,
                text=f'no heartbeat or command for {self.watchdog_s * 1000:.0f} ms: safe state',
            )

    def _heartbeat(self, now: float) -> None:
        if self._handshaken and now >= self._next_heartbeat:
            self._next_heartbeat = now + self.heartbeat_period_s
            self._send(
                'heartbeat',
                uptime_ms=int(now * 1000) & 0xFFFFFFFF,
                flags=HEARTBEAT_SAFE if self.model.safe else 0,
            )

    def _enter_safe(self, reason: str) -> None:
        self.model.enter_safe_state()
        self._event(f'safe:{reason}')

    def _send(self, name: str, **fields: object) -> None:
        schema = self.protocol.by_name[name]
        wire = encode_frame(
            Frame(schema.type_id, self._seq, schema.encode(fields), self.protocol_version)
        )
        self._seq = (self._seq + 1) & 0xFFFF
        try:
            os.write(self._fds[0], wire)
        except (BlockingIOError, OSError):
            pass  # nobody reading: a UART drops what no one hears

    def _event(self, what: str) -> None:
        with self._lock:
            self.events.append((time.monotonic(), what))
