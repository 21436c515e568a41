"""For robot packages' tests of their firmware, simulated or real: the device behind a real
pseudo-terminal and the host's link supervisor connected to it, as a bridge would be; a raw host
for what a supervisor never sends; the bad frames every device must survive. No ROS."""

from __future__ import annotations

import collections
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import serial

from soro_link.device import DeviceModel, SimulatedDevice
from soro_link.framing import (
    DELIMITER,
    MAX_ENCODED,
    PROTOCOL_VERSION,
    Frame,
    StreamDecoder,
    cobs_decode,
    cobs_encode,
    encode_frame,
)
from soro_link.protocol import Message, Protocol, link_protocol
from soro_link.supervisor import LinkConfig, LinkState, LinkSupervisor
from soro_node.waiting import time_until


class NotConnected(RuntimeError):
    """The link did not reach CONNECTED in time."""


@contextmanager
def linked(
    model: DeviceModel, telemetry: str, watchdog_ms: int = 300, connect_s: float = 3.0
) -> Iterator[tuple[SimulatedDevice, LinkSupervisor, list]]:
    """(device, link, messages): ``model`` behind a pseudo-terminal with a firmware watchdog of
    ``watchdog_ms``, a supervisor connected to it speaking the model's schemas, and the list its
    ``telemetry`` messages arrive in. Both are stopped on exit."""
    messages: list = []
    device = SimulatedDevice(model, watchdog_ms=watchdog_ms).start()
    link = LinkSupervisor(
        LinkConfig(device.port),
        link_protocol(*model.schemas),
        on_message=lambda m: m.name == telemetry and messages.append(m),
    )
    link.start()
    try:
        if time_until(lambda: link.state == LinkState.CONNECTED, connect_s) is None:
            raise NotConnected(
                f'no connection to the simulated {model.device_kind} within {connect_s} s'
            )
        yield device, link, messages
    finally:
        link.stop()
        device.stop()


def unplug_and_replug(
    device: SimulatedDevice, link: LinkSupervisor, timeout_s: float = 3.0
) -> bool:
    """Pull the device's cable and plug it back in: True when the link saw it go and then come
    back."""
    device.unplug()
    gone = time_until(lambda: link.state == LinkState.DISCONNECTED, timeout_s) is not None
    device.replug()
    return gone and time_until(lambda: link.state == LinkState.CONNECTED, timeout_s) is not None


LINE_CHUNK = 32  # bytes written at once; about 2.8 ms of a 115200-baud line


class RawHost:
    """A host that writes frames by hand, for what a supervisor never sends: silence, malformed
    frames, storms. Every message it reads is kept in ``messages`` as (arrival time, Message)."""

    def __init__(self, port: str, protocol: Protocol):
        self.serial = serial.Serial(port, 115200, timeout=0.01)
        # what the board said to an earlier host is not for this one
        self.serial.reset_input_buffer()
        self.protocol, self.seq = protocol, 0
        self.decoder = StreamDecoder()
        self.messages: list[tuple[float, Message]] = []
        # frames read with an earlier one that ended a read_until: the next read_until starts there
        self._unread: collections.deque = collections.deque()
        self._lock = threading.RLock()
        self._beating = threading.Event()

    def send(self, name: str, **fields: object) -> float:
        """Sends one message; its sending time (monotonic). Its sequence number is ``seq`` until
        the next send."""
        with self._lock:
            self.seq = (self.seq + 1) & 0xFFFF
            return self.write(self.protocol.encode(name, self.seq, **fields))

    def start_heartbeats(self, period_s: float = 0.1) -> None:
        """Heartbeats from a thread of their own, as a bridge's supervisor sends them, until
        ``close``."""

        def beat():
            while not self._beating.wait(period_s):
                with self._lock:
                    if self._beating.is_set():  # closed while this beat waited for the port
                        return
                    self.send('heartbeat', uptime_ms=0, flags=0)

        threading.Thread(target=beat, name='raw-host heartbeats', daemon=True).start()

    def write(self, wire: bytes) -> float:
        """Writes ``wire`` no faster than a 115200-baud line carries it (10 bits a byte): an
        emulated UART takes bytes as fast as they come, a real one cannot, and a board is sized for
        the real line."""
        for start in range(0, len(wire), LINE_CHUNK):
            chunk = wire[start : start + LINE_CHUNK]
            self.serial.write(chunk)
            if len(wire) > LINE_CHUNK:
                time.sleep(len(chunk) * 10 / 115200)
        return time.monotonic()

    def read_until(
        self, done: Callable[[Message], bool], timeout_s: float
    ) -> tuple[float, Message] | None:
        """Reads until a message satisfies ``done``: (arrival time, message), or None after
        ``timeout_s``. Messages that came in one read with it, after it, are kept for the next
        call (a watchdog's log line and the telemetry of its tick arrive together: losing the
        rest of a read lost the log)."""
        deadline = time.monotonic() + timeout_s
        while True:
            while self._unread:
                arrived = self._unread.popleft()
                self.messages.append(arrived)
                if done(arrived[1]):
                    return arrived
            if time.monotonic() >= deadline:
                return None
            frames = self.decoder.feed(self.serial.read(256))
            now = time.monotonic()
            self._unread.extend((now, self.protocol.decode(frame)) for frame in frames)

    def handshake(self, timeout_s: float = 5.0) -> Message:
        """Hello until the identity comes; raises NotConnected. A port that just opened may lose
        the first bytes, as a board's reset does, and qemu's pseudo-terminal notices a new host
        only on its 1 s poll."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.send('hello', protocol_version=PROTOCOL_VERSION)
            if (got := self.read_until(lambda m: m.name == 'identity', 0.25)) is not None:
                return got[1]
        raise NotConnected(f'no identity on {self.serial.port} within {timeout_s} s')

    def close(self) -> None:
        """Stop the heartbeats and close the port."""
        self._beating.set()
        with self._lock:
            self.serial.close()


def bad_frames(
    protocol: Protocol, command: str, fields: dict, seed: int = 0, each: int = 25
) -> dict[str, list]:
    """Wire frames a device must count and drop or refuse, by the rx_errors counter each lands in:
    a flipped CRC byte ('crc'), broken COBS and too-short frames ('format'), runs longer than any
    frame ('overflow'), and well-formed frames of another protocol version or with a body that does
    not fit ('refused', nacked). All are built on ``command`` with ``fields``, a valid robot
    command."""
    rng = random.Random(seed)
    good = protocol.encode(command, 1, **fields)
    raw = cobs_decode(good[:-1])
    crc, formats, overflow, refused = [], [], [], []
    for k in range(each):
        wrong = bytearray(raw)
        wrong[-1 - k % 2] ^= 1 + rng.randrange(255)
        crc.append(cobs_encode(bytes(wrong)) + DELIMITER)
        # a COBS code that runs past the end
        formats.append(bytes([len(good) + 5]) + good[1:])
        overflow.append(
            bytes(rng.randrange(1, 256) for _ in range(MAX_ENCODED + 1 + k % 5)) + DELIMITER
        )
        body = protocol.by_name[command].encode(fields)
        refused.append(
            encode_frame(
                Frame(protocol.by_name[command].type_id, k, body, PROTOCOL_VERSION + 1 + k % 3)
            )
        )
        refused.append(
            encode_frame(Frame(protocol.by_name[command].type_id, k, body + bytes(1 + k % 4)))
        )
    # shorter than header and CRC
    formats += [cobs_encode(bytes(n)) + DELIMITER for n in range(1, 6)]
    return {'crc': crc, 'format': formats, 'overflow': overflow, 'refused': refused}
