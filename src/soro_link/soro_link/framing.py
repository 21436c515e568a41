"""soro_link wire format: COBS-delimited frames with a small header and a CRC-16/CCITT-FALSE.

A frame on the wire is ``cobs(header + body + crc) + b'\\x00'`` where

======== ====== =====================================================================
field    bytes  meaning
======== ====== =====================================================================
version  1      protocol version (``PROTOCOL_VERSION``)
type     1      message type id (``protocol.LinkType`` below 0x20, robot messages above)
seq      2      sequence number, little-endian, wraps at 65536
body     0-240  little-endian fields declared once in a ``protocol.BodySchema``
crc      2      CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over header and body, little-endian
======== ====== =====================================================================

The firmware side is ``firmware/soro_link.h``; both are held to the same golden byte vectors.
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass, field

PROTOCOL_VERSION = 1
HEADER = struct.Struct('<BBH')
CRC = struct.Struct('<H')
MAX_BODY = 240
MAX_RAW = HEADER.size + MAX_BODY + CRC.size
MAX_ENCODED = MAX_RAW + MAX_RAW // 254 + 1 + 1  # COBS overhead plus the delimiter
DELIMITER = b'\x00'


class FrameError(ValueError):
    """A frame that cannot be built or cannot be accepted."""


def crc16_ccitt_false(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor
    (check("123456789") = 0x29B1)."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing (Cheshire & Baker 1999); the result contains no zero
    byte."""
    out = bytearray()
    chunks = data.split(b'\x00')
    for index, chunk in enumerate(chunks):
        while len(chunk) >= 254:
            out += b'\xff' + chunk[:254]
            chunk = chunk[254:]
            if not chunk and index == len(chunks) - 1:
                return bytes(out)  # a full block that ends the data needs no closing code
        out.append(len(chunk) + 1)
        out += chunk
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of ``cobs_encode``; raises FrameError on a zero byte or a code that runs past the
    end."""
    if b'\x00' in data:
        raise FrameError('COBS: zero byte inside a frame')
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            raise FrameError('COBS: bad code byte')
        out += data[i + 1 : end]
        if code != 0xFF and end < n:
            out.append(0)
        i = end
    return bytes(out)


@dataclass(frozen=True)
class Frame:
    """One decoded frame: header fields and the raw body bytes."""

    type: int
    seq: int
    body: bytes = b''
    version: int = PROTOCOL_VERSION


def encode_frame(frame: Frame) -> bytes:
    """Wire bytes of ``frame``, delimiter included."""
    if len(frame.body) > MAX_BODY:
        raise FrameError(f'body of {len(frame.body)} bytes exceeds the {MAX_BODY}-byte maximum')
    if not (0 <= frame.type <= 0xFF and 0 <= frame.version <= 0xFF):
        raise FrameError(f'type {frame.type} or version {frame.version} out of 0..255')
    raw = HEADER.pack(frame.version, frame.type, frame.seq & 0xFFFF) + frame.body
    return cobs_encode(raw + CRC.pack(crc16_ccitt_false(raw))) + DELIMITER


def decode_frame(encoded: bytes) -> Frame:
    """Frame from the bytes between two delimiters; raises CrcError on a CRC mismatch, FrameError
    otherwise."""
    if len(encoded) > MAX_ENCODED - 1:
        raise FrameError(
            f'frame of {len(encoded)} bytes exceeds the {MAX_ENCODED - 1}-byte maximum'
        )
    raw = cobs_decode(encoded)
    if not HEADER.size + CRC.size <= len(raw) <= MAX_RAW:
        raise FrameError(
            f'frame of {len(raw)} bytes is outside {HEADER.size + CRC.size}..{MAX_RAW}'
        )
    (crc,) = CRC.unpack_from(raw, len(raw) - CRC.size)
    if crc != crc16_ccitt_false(raw[: -CRC.size]):
        raise CrcError('CRC mismatch')
    version, type_, seq = HEADER.unpack_from(raw)
    return Frame(type_, seq, raw[HEADER.size : -CRC.size], version)


class CrcError(FrameError):
    """The frame's CRC does not match its contents."""


@dataclass
class DecoderStats:
    """A StreamDecoder's counts since it started: frames accepted, CRC failures, format errors."""

    frames: int = 0
    crc_errors: int = 0
    format_errors: int = 0  # bad COBS, too short, oversized


@dataclass
class StreamDecoder:
    """Turns a byte stream into frames; corrupt frames are counted and dropped, never raised.

    After garbage or a partial frame it resynchronises at the next delimiter. A run of bytes longer
    than the maximum frame is discarded as it arrives, so memory stays bounded whatever the line
    carries.
    """

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buffer: bytearray = field(default_factory=bytearray)
    _overflow: bool = False

    def feed(self, data: bytes) -> list[Frame]:
        """The frames that ``data`` completes, in order; corrupt ones are counted and dropped."""
        frames = []
        *complete, rest = (bytes(self._buffer) + data).split(DELIMITER)
        for chunk in complete:
            overflowed, self._overflow = self._overflow, False
            if overflowed or len(chunk) >= MAX_ENCODED:
                self.stats.format_errors += 1
            elif chunk:  # empty chunks are idle delimiters
                frames.append(self._accept(chunk))
        self._buffer = bytearray(rest)
        if len(self._buffer) > MAX_ENCODED:
            self._buffer.clear()
            self._overflow = True
        return [f for f in frames if f is not None]

    def _accept(self, chunk: bytes) -> Frame | None:
        try:
            frame = decode_frame(chunk)
        except CrcError:
            self.stats.crc_errors += 1
            return None
        except FrameError:
            self.stats.format_errors += 1
            return None
        self.stats.frames += 1
        return frame
