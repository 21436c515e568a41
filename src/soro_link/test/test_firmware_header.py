"""firmware/soro_link.h passes the golden vectors, and Python decodes the frames it builds byte for
byte."""

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from soro_link.framing import MAX_BODY, PROTOCOL_VERSION, Frame, decode_frame, encode_frame

TEST_DIR = Path(__file__).resolve().parent
FIRMWARE_DIR = Path(__file__).resolve().parents[1] / 'firmware'
GOLDEN = TEST_DIR / 'golden_frames.txt'
CFLAGS = ['-std=c99', '-Wall', '-Wextra', '-Werror', '-pedantic']

pytestmark = pytest.mark.skipif(
    shutil.which('gcc') is None,
    reason='gcc not found: checking the C firmware header needs a host C compiler',
)


@pytest.fixture(scope='module')
def checker(tmp_path_factory):
    exe = tmp_path_factory.mktemp('golden_c_check') / 'golden_c_check'
    source = TEST_DIR / 'golden_c_check.c'
    build = subprocess.run(
        ['gcc', *CFLAGS, '-I', str(FIRMWARE_DIR), '-o', str(exe), str(source)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, f'gcc {" ".join(CFLAGS)} failed:\n{build.stderr}'
    return exe


def vector_count():
    lines = GOLDEN.read_text().splitlines()
    return sum(1 for line in lines if line.strip() and not line.startswith('#'))


def c_encode(checker, type_, seq, body):
    run = subprocess.run(
        [str(checker), 'encode', str(type_), str(seq), body.hex() or '-'],
        capture_output=True,
        text=True,
        check=True,
    )
    return bytes.fromhex(run.stdout.strip())


def test_c_header_passes_golden_vectors(checker):
    run = subprocess.run([str(checker), str(GOLDEN)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == f'{vector_count()} vectors checked'


@settings(max_examples=50, deadline=None, derandomize=True, database=None)
@given(type_=st.integers(0, 0xFF), seq=st.integers(0, 0xFFFF), body=st.binary(max_size=MAX_BODY))
@example(type_=0, seq=0, body=b'')
@example(type_=0x30, seq=0x0101, body=bytes(range(1, MAX_BODY + 1)))
@example(type_=0xFF, seq=0xFFFF, body=bytes(MAX_BODY))
def test_c_frames_decode_in_python(checker, type_, seq, body):
    wire = c_encode(checker, type_, seq, body)
    assert wire.endswith(b'\x00') and b'\x00' not in wire[:-1]
    assert decode_frame(wire[:-1]) == Frame(type_, seq, body, PROTOCOL_VERSION)
    assert encode_frame(Frame(type_, seq, body)) == wire
