"""soro_node.arguments: every command ends on Ctrl-C and SIGTERM however it was started, writes its
output whole or not at all, and reads its input files with a size bound."""

import re
import signal
import subprocess
import sys
import textwrap

import pytest

from soro_node import arguments

# A command that has read its arguments and works on (a worker pool's wait, or any long
# computation); ``finally`` shows whether it unwound.
COMMAND = textwrap.dedent("""
    import time
    from soro_node.arguments import CommandParser
    CommandParser(prog='busy').parse_args()      # sys.argv: ['-c']
    try:
        print('working', flush=True)
        time.sleep(120)
    finally:
        print('unwound', flush=True)
""")


def _started_without_job_control() -> subprocess.Popen:
    """The command as a script's ``busy &`` starts it: SIGINT ignored, inherited through exec."""
    process = subprocess.Popen(
        [sys.executable, '-c', COMMAND],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert process.stdout.readline() == 'working\n'
    return process


@pytest.mark.parametrize(
    'signum, code', [(signal.SIGINT, -signal.SIGINT), (signal.SIGTERM, 128 + signal.SIGTERM)]
)
def test_a_command_started_with_sigint_ignored_ends_on_the_signal_and_unwinds(signum, code):
    process = _started_without_job_control()
    process.send_signal(signum)
    try:
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == code and out == 'unwound\n', err


def test_write_output_leaves_the_old_file_when_the_write_fails(tmp_path):
    path = tmp_path / 'result.json'
    path.write_text('old\n')
    with pytest.raises(UnicodeEncodeError):
        arguments.write_output(path, 'half written \udc80')
    assert path.read_text() == 'old\n' and [p.name for p in tmp_path.iterdir()] == ['result.json']
    arguments.write_output(path, 'new')
    assert path.read_text() == 'new\n'


def test_read_input_stops_at_its_bound_and_names_the_reason(tmp_path):
    (tmp_path / 'bytes').write_bytes(b'\xff')
    for path, reason in (
        ('/dev/zero', 'more than 1 MiB'),
        (tmp_path, 'Is a directory'),
        (tmp_path / 'bytes', 'not text (byte 0 is not UTF-8)'),
    ):
        with pytest.raises(ValueError, match=re.escape(reason)):
            arguments.read_input(path, max_bytes=2**20)


def test_worker_count_is_capped_at_the_cores(capsys):
    cores = arguments.cores()
    assert arguments.worker_count(1, 'tool', '--processes') == 1 and capsys.readouterr().err == ''
    assert arguments.worker_count(100_000, 'tool', '--processes') == cores
    assert (
        capsys.readouterr().err
        == f'tool: --processes 100000: capped at the {cores} cores available\n'
    )
