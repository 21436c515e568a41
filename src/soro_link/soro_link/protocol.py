"""soro_link messages: bodies declared once as schemas, from which both encoding and decoding come.

Link messages (type ids below 0x20) are the same for every robot; robot packages declare their own
command and telemetry bodies with ``BodySchema`` (ids 0x20 and up) and build their ``Protocol``
with ``link_protocol(...)``.

Field formats, all little-endian: the ``struct`` codes ``B b H h I i Q q f d ?``, a fixed array as
a count and a code (``'4f'``: a tuple of four float32), and ``'s'`` (a UTF-8 string behind a
one-byte length).
"""

from __future__ import annotations

import enum
import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from soro_link.framing import MAX_BODY, PROTOCOL_VERSION, Frame, FrameError, encode_frame

ROBOT_TYPES_START = 0x20


class BodyError(FrameError):
    """A body that does not match its schema (wrong size, missing field, out of range, not
    finite)."""


class LinkType(enum.IntEnum):
    """Type ids of the link messages, shared by every robot (below ROBOT_TYPES_START)."""

    HELLO = 0x01  # host -> device: start of the handshake
    # device -> host: who it is; its layout never changes between protocol versions
    IDENTITY = 0x02
    HEARTBEAT = 0x03  # both ways; the device's carries its safe-state flag
    ACK = 0x04  # device -> host: command ``ack_seq`` accepted
    NACK = 0x05  # device -> host: command ``ack_seq`` refused with ``code``
    LOG = 0x06  # device -> host: fault or log report
    SAFE_STATE = 0x07  # host -> device: vent valves / stop motors now
    # device -> host: frames it dropped or refused since boot (when a count changed, <= 1 Hz)
    RX_ERRORS = 0x08


class NackCode(enum.IntEnum):
    """NACK's ``code``: why the device refused a command."""

    UNKNOWN_TYPE = 1
    BAD_BODY = 2
    OUT_OF_RANGE = 3
    BAD_VERSION = 4
    NOT_READY = 5  # e.g. a robot command before the handshake


class LogCode(enum.IntEnum):
    """LOG's ``code``: what the device reports."""

    INFO = 0
    BOOTED = 1
    # no heartbeat or command for watchdog_ms: the device went to its safe state
    WATCHDOG = 2
    FAULT = 3  # robot-specific fault; the text says which


class LogLevel(enum.IntEnum):
    """LOG's ``level``: the report's severity."""

    INFO = 0
    WARN = 1
    ERROR = 2


HEARTBEAT_SAFE = 0x01  # HEARTBEAT.flags bit: the device is in its safe state


class BodySchema:
    """The fields of one message body, in wire order: ``[(name, format), ...]`` (formats in the
    module doc)."""

    def __init__(self, type_id: int, name: str, fields: Sequence[tuple[str, str]] = ()):
        """ValueError on a type id outside 1..255, struct.error on a bad field format."""
        if not 0 < type_id <= 0xFF:
            raise ValueError(f'type id {type_id} out of 1..255')
        self.type_id, self.name, self.fields = type_id, name, tuple(fields)
        for _field_name, fmt in self.fields:
            if fmt != 's':
                struct.calcsize('<' + fmt)  # raises struct.error on a bad format

    def encode(self, values: Mapping[str, object]) -> bytes:
        """The body bytes of ``values`` (field name to value), in wire order.

        BodyError when a field is missing, not finite (f, d) or does not fit its format, or
        when the body exceeds MAX_BODY bytes."""
        out = bytearray()
        for name, fmt in self.fields:
            if name not in values:
                raise BodyError(f'{self.name}: field "{name}" missing')
            out += self._pack(name, fmt, values[name])
        if len(out) > MAX_BODY:
            raise BodyError(f'{self.name}: body of {len(out)} bytes exceeds {MAX_BODY}')
        return bytes(out)

    def decode(self, body: bytes) -> dict[str, object]:
        """Field values of ``body`` by name; BodyError on a bad size, non-finite float or UTF-8."""
        values, offset = {}, 0
        try:
            for name, fmt in self.fields:
                values[name], offset = self._unpack(name, fmt, body, offset)
        except (struct.error, IndexError, UnicodeDecodeError) as exc:
            raise BodyError(
                f'{self.name}: body of {len(body)} bytes does not match the schema ({exc})'
            ) from None
        if offset != len(body):
            raise BodyError(f'{self.name}: {len(body) - offset} bytes beyond the schema')
        return values

    def _pack(self, name: str, fmt: str, value: object) -> bytes:
        if fmt == 's':
            data = str(value).encode()
            if len(data) > 255:
                raise BodyError(f'{self.name}: string "{name}" longer than 255 bytes')
            return bytes([len(data)]) + data
        items = tuple(value) if fmt[:-1] else (value,)
        if fmt[-1] in 'fd' and not all(math.isfinite(v) for v in items):
            raise BodyError(f'{self.name}: field "{name}" is not finite: {value!r}')
        try:
            return struct.pack('<' + fmt, *items)
        except struct.error as exc:
            raise BodyError(
                f'{self.name}: field "{name}" = {value!r} does not fit "{fmt}" ({exc})'
            ) from None

    def _unpack(self, name: str, fmt: str, body: bytes, offset: int) -> tuple[object, int]:
        if fmt == 's':
            length = body[offset]
            if offset + 1 + length > len(body):
                raise struct.error(f'string "{name}" runs past the end')
            return body[offset + 1 : offset + 1 + length].decode(), offset + 1 + length
        items = struct.unpack_from('<' + fmt, body, offset)
        if fmt[-1] in 'fd' and not all(math.isfinite(v) for v in items):
            raise BodyError(f'{self.name}: field "{name}" is not finite: {items}')
        return (items if fmt[:-1] else items[0]), offset + struct.calcsize('<' + fmt)


LINK_SCHEMAS = (
    BodySchema(LinkType.HELLO, 'hello', [('protocol_version', 'B')]),
    BodySchema(
        LinkType.IDENTITY,
        'identity',
        [('protocol_version', 'B'), ('device_kind', 's'), ('firmware_version', 's')],
    ),
    BodySchema(LinkType.HEARTBEAT, 'heartbeat', [('uptime_ms', 'I'), ('flags', 'B')]),
    BodySchema(LinkType.ACK, 'ack', [('ack_seq', 'H')]),
    BodySchema(LinkType.NACK, 'nack', [('ack_seq', 'H'), ('code', 'B')]),
    BodySchema(LinkType.LOG, 'log', [('level', 'B'), ('code', 'B'), ('text', 's')]),
    BodySchema(LinkType.SAFE_STATE, 'safe_state', []),
    BodySchema(
        LinkType.RX_ERRORS,
        'rx_errors',
        [('crc', 'H'), ('format', 'H'), ('overflow', 'H'), ('refused', 'H')],
    ),
)


@dataclass(frozen=True)
class Message:
    """A decoded message: its schema name, sequence number and field values."""

    name: str
    seq: int
    fields: dict

    def __getitem__(self, key: str) -> object:
        """The value of field ``key``; KeyError if the message has none."""
        return self.fields[key]


class Protocol:
    """The set of bodies one link speaks: the link messages plus a robot's own."""

    def __init__(self, schemas: Sequence[BodySchema]):
        """Register every schema of ``schemas``, as ``register`` does."""
        self.by_id: dict[int, BodySchema] = {}
        self.by_name: dict[str, BodySchema] = {}
        for schema in schemas:
            self.register(schema)

    def register(self, schema: BodySchema) -> None:
        """Add ``schema``; ValueError when its type id or name is already taken."""
        if schema.type_id in self.by_id or schema.name in self.by_name:
            raise ValueError(
                f'message {schema.name} (0x{schema.type_id:02x}) clashes with one already '
                'registered'
            )
        self.by_id[schema.type_id] = schema
        self.by_name[schema.name] = schema

    def encode(self, name: str, seq: int, **values: object) -> bytes:
        """Wire bytes of message ``name`` with sequence number ``seq``; raises BodyError or
        KeyError."""
        schema = self.by_name[name]
        return encode_frame(Frame(schema.type_id, seq, schema.encode(values)))

    def decode(self, frame: Frame) -> Message:
        """Message of a frame; raises BodyError for an unknown type, a foreign version or a bad
        body."""
        schema = self.by_id.get(frame.type)
        if schema is None:
            raise BodyError(f'unknown message type 0x{frame.type:02x}')
        if frame.version != PROTOCOL_VERSION and frame.type != LinkType.IDENTITY:
            raise BodyError(
                f'frame of protocol version {frame.version}, expected {PROTOCOL_VERSION}'
            )
        return Message(schema.name, frame.seq, schema.decode(frame.body))


def link_protocol(*robot_schemas: BodySchema) -> Protocol:
    """The link messages plus ``robot_schemas`` (type ids from 0x20)."""
    for schema in robot_schemas:
        if schema.type_id < ROBOT_TYPES_START:
            raise ValueError(
                f'robot message {schema.name} uses link type id 0x{schema.type_id:02x}'
            )
    return Protocol(LINK_SCHEMAS + tuple(robot_schemas))
