"""Framing: known answers, golden vectors, and a fuzzed stream decoder that never raises nor
accepts a bad CRC."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soro_link.framing import (
    MAX_BODY,
    MAX_ENCODED,
    Frame,
    FrameError,
    StreamDecoder,
    cobs_decode,
    cobs_encode,
    crc16_ccitt_false,
    decode_frame,
    encode_frame,
)

GOLDEN = Path(__file__).with_name('golden_frames.txt')


def golden_vectors():
    for line in GOLDEN.read_text().splitlines():
        if line and not line.startswith('#'):
            version, type_, seq, body, wire = line.split()
            yield (
                Frame(
                    int(type_), int(seq), b'' if body == '-' else bytes.fromhex(body), int(version)
                ),
                bytes.fromhex(wire),
            )


def test_crc_check_value():
    assert crc16_ccitt_false(b'123456789') == 0x29B1


@pytest.mark.parametrize(
    'raw, encoded',
    [
        (b'', b'\x01'),
        (b'\x00', b'\x01\x01'),
        (b'\x00\x00', b'\x01\x01\x01'),
        (b'\x11\x22\x00\x33', b'\x03\x11\x22\x02\x33'),
        (b'\x11\x00\x00\x00', b'\x02\x11\x01\x01\x01'),
        (bytes(range(1, 255)), b'\xff' + bytes(range(1, 255))),
        (bytes(range(1, 256)), b'\xff' + bytes(range(1, 255)) + b'\x02\xff'),
    ],
)
def test_cobs_known_answers(raw, encoded):
    assert cobs_encode(raw) == encoded
    assert cobs_decode(encoded) == raw


@pytest.mark.parametrize('frame, wire', list(golden_vectors()))
def test_golden_vectors_both_ways(frame, wire):
    assert encode_frame(frame) == wire
    assert decode_frame(wire[:-1]) == frame
    assert StreamDecoder().feed(wire) == [frame]


def test_oversized_body_is_refused():
    with pytest.raises(FrameError, match='240-byte maximum'):
        encode_frame(Frame(0x20, 0, bytes(MAX_BODY + 1)))


def test_a_241_byte_body_is_refused_on_decode():
    from soro_link.framing import CRC, HEADER, cobs_encode

    raw = HEADER.pack(1, 0x20, 0) + bytes(range(1, 242))
    with pytest.raises(FrameError, match='exceeds the 247-byte maximum'):
        decode_frame(cobs_encode(raw + CRC.pack(crc16_ccitt_false(raw))))


def test_maximum_frame_fits_the_bound():
    assert len(encode_frame(Frame(0x20, 0, bytes(range(1, 241))))) <= MAX_ENCODED


frames = st.builds(
    Frame, st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=MAX_BODY)
)


@settings(max_examples=300, deadline=None)
@given(frames)
def test_round_trip(frame):
    assert decode_frame(encode_frame(frame)[:-1]) == frame


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(frames, st.binary(max_size=300)), max_size=12), st.integers(1, 64))
def test_decoder_never_raises_and_finds_every_intact_frame(parts, chunk):
    """Random garbage between good frames: every good frame after a delimiter comes out, split at
    any chunking."""
    stream, expected = b'', []
    for part in parts:
        if isinstance(part, Frame):
            # a delimiter first: garbage before it is dropped
            stream += b'\x00' + encode_frame(part)
            expected.append(part)
        else:
            stream += part
    decoder = StreamDecoder()
    got = [f for i in range(0, len(stream), chunk) for f in decoder.feed(stream[i : i + chunk])]
    # garbage may itself decode as a valid frame by chance (probability ~2^-16 each); intact frames
    # must all be there
    it = iter(got)
    assert all(any(g == e for g in it) for e in expected)


@settings(max_examples=500, deadline=None)
@given(frames, st.data())
def test_corruption_is_never_accepted(frame, data):
    wire = bytearray(encode_frame(frame))
    index = data.draw(st.integers(0, len(wire) - 2))
    flip = data.draw(st.integers(1, 255))
    wire[index] ^= flip
    decoder = StreamDecoder()
    got = decoder.feed(bytes(wire))
    # a flipped byte may become a delimiter and split the frame; no piece may pass as the original
    assert frame not in got
    assert decoder.stats.crc_errors + decoder.stats.format_errors >= 1 or got == []
    assert decoder.feed(encode_frame(frame)) == [frame]  # resynchronised at the next delimiter


@settings(max_examples=200, deadline=None)
@given(frames, st.integers(1, 40))
def test_truncated_frame_is_dropped_and_the_next_one_decoded(frame, cut):
    wire = encode_frame(frame)
    truncated = wire[: max(1, len(wire) - 1 - cut)]
    decoder = StreamDecoder()
    assert decoder.feed(truncated + b'\x00') == []
    assert decoder.stats.crc_errors + decoder.stats.format_errors == 1
    assert decoder.feed(wire) == [frame]


def test_endless_garbage_stays_bounded_and_is_counted_once():
    decoder = StreamDecoder()
    for _ in range(100):
        assert decoder.feed(b'\x55' * 1000) == []
    assert len(decoder._buffer) <= MAX_ENCODED
    good = encode_frame(Frame(0x21, 5, b'ok'))
    assert decoder.feed(b'\x00' + good) == [Frame(0x21, 5, b'ok')]
    assert decoder.stats.format_errors == 1
