"""Body schemas: one declaration for both directions; bad bodies are errors that name the field."""

import math

import pytest

from soro_link.framing import Frame, decode_frame
from soro_link.protocol import BodyError, BodySchema, LinkType, link_protocol

COMMAND = BodySchema(
    0x20, 'limb_command', [('curl', '4?'), ('pwm', 'B'), ('target_rad', 'f'), ('note', 's')]
)
PROTOCOL = link_protocol(COMMAND)


def test_round_trip_through_the_wire():
    wire = PROTOCOL.encode(
        'limb_command', 7, curl=(True, False, True, False), pwm=200, target_rad=0.5, note='x'
    )
    message = PROTOCOL.decode(decode_frame(wire[:-1]))
    assert (message.name, message.seq) == ('limb_command', 7)
    assert message.fields == {
        'curl': (True, False, True, False),
        'pwm': 200,
        'target_rad': 0.5,
        'note': 'x',
    }


def test_layout_is_little_endian_in_declared_order():
    body = BodySchema(0x20, 'b', [('a', 'H'), ('b', 'f'), ('s', 's')]).encode(
        {'a': 0x1234, 'b': 1.0, 's': 'hi'}
    )
    assert body == bytes.fromhex('3412') + bytes.fromhex('0000803f') + b'\x02hi'


@pytest.mark.parametrize(
    'values, message',
    [
        (
            {'curl': (True,) * 4, 'pwm': 256, 'target_rad': 0.0, 'note': ''},
            'field "pwm" = 256 does not fit "B"',
        ),
        (
            {'curl': (True,) * 4, 'pwm': 1, 'target_rad': math.nan, 'note': ''},
            'field "target_rad" is not finite',
        ),
        ({'curl': (True,) * 3, 'pwm': 1, 'target_rad': 0.0, 'note': ''}, 'field "curl"'),
        ({'curl': (True,) * 4, 'pwm': 1, 'note': ''}, 'field "target_rad" missing'),
    ],
)
def test_bad_values_are_refused_with_the_field_named(values, message):
    with pytest.raises(BodyError, match=message):
        COMMAND.encode(values)


def test_short_long_and_unknown_bodies_are_refused():
    good = COMMAND.encode({'curl': (True,) * 4, 'pwm': 1, 'target_rad': 0.0, 'note': 'ab'})
    with pytest.raises(BodyError, match='does not match the schema'):
        COMMAND.decode(good[:-1])
    with pytest.raises(BodyError, match='1 bytes beyond the schema'):
        COMMAND.decode(good + b'\x00')
    with pytest.raises(BodyError, match='unknown message type 0x99'):
        PROTOCOL.decode(Frame(0x99, 0, b''))
    with pytest.raises(BodyError, match='protocol version 2, expected 1'):
        PROTOCOL.decode(Frame(LinkType.ACK, 0, b'\x00\x00', version=2))


def test_identity_is_readable_from_any_protocol_version():
    body = PROTOCOL.by_name['identity'].encode(
        {'protocol_version': 2, 'device_kind': 'k', 'firmware_version': 'v'}
    )
    assert PROTOCOL.decode(Frame(LinkType.IDENTITY, 1, body, version=2))['protocol_version'] == 2


def test_robot_schemas_cannot_take_link_ids_or_clash():
    with pytest.raises(ValueError, match='uses link type id 0x05'):
        link_protocol(BodySchema(0x05, 'mine', []))
    with pytest.raises(ValueError, match='clashes'):
        link_protocol(COMMAND, BodySchema(0x20, 'other', []))
