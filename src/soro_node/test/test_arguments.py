"""soro_node.arguments: every command ends on Ctrl-C and SIGTERM however it was started, writes its
output whole or not at all, and reads its input files with a size bound."""

import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
import yaml

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


def test_write_output_keeps_links_devices_and_the_files_mode(tmp_path):
    """A rename would turn a symlink, /dev/null or a named pipe into a plain file (as root it
    replaced the machine's /dev/null); a temporary file's 0600 would stick to the result."""
    (tmp_path / 'real.json').write_text('old\n')
    (tmp_path / 'link.json').symlink_to('real.json')
    arguments.write_output(arguments.output_file(str(tmp_path / 'link.json')), 'new')
    assert (tmp_path / 'link.json').is_symlink() and (
        tmp_path / 'real.json'
    ).read_text() == 'new\n'
    old_mask = os.umask(0o027)
    try:
        arguments.write_output(tmp_path / 'fresh.json', '{}')
        (tmp_path / 'real.json').chmod(0o604)
        arguments.write_output(tmp_path / 'real.json', 'newer')
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE((tmp_path / 'fresh.json').stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / 'real.json').stat().st_mode) == 0o604
    fifo = tmp_path / 'pipe'
    os.mkfifo(fifo)
    probing = threading.Thread(target=arguments.output_file, args=(str(fifo),), daemon=True)
    probing.start()
    probing.join(timeout=5)
    assert not probing.is_alive(), 'probing a FIFO waited for a reader'
    read = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_text()), daemon=True)
    reader.start()
    arguments.write_output(fifo, 'through the pipe')
    reader.join(timeout=5)
    assert read == ['through the pipe\n'] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_read_input_stops_at_its_bound_and_names_the_reason(tmp_path):
    (tmp_path / 'bytes').write_bytes(b'\xff')
    for path, reason in (
        ('/dev/zero', 'more than 1 MiB'),
        (tmp_path, 'Is a directory'),
        (tmp_path / 'bytes', 'not text (byte 0 is not UTF-8)'),
    ):
        with pytest.raises(ValueError, match=re.escape(reason)):
            arguments.read_input(path, max_bytes=2**20)


def test_read_input_drops_a_byte_order_mark(tmp_path):
    path = tmp_path / 'excel.csv'
    path.write_bytes('gait,segments\n'.encode('utf-8-sig'))
    assert arguments.read_input(path) == 'gait,segments\n'


def test_yaml_documents_read_numbers_as_ros_does_and_refuse_a_key_given_twice():
    # YAML 1.1 (PyYAML) reads 1e-3 as the text '1e-3'; ros2's -p and YAML 1.2 read a float
    assert arguments.yaml_document('{max_gap_s: 1e-3, n: 10, rate: .5}') == {
        'max_gap_s': 0.001,
        'n': 10,
        'rate': 0.5,
    }
    with pytest.raises(yaml.YAMLError, match=re.escape("'pitch_m' given twice (line 3)")):
        arguments.yaml_document('pitch_m: 0.1\nvoxels: []\npitch_m: 0.2\n')


def _parser() -> arguments.CommandParser:
    parser = arguments.CommandParser(prog='tool')
    parser.add_argument('--out', type=arguments.output_dir)
    parser.add_argument('--json', type=arguments.output_file)
    parser.add_argument('--count', type=int)
    return parser


def test_a_refused_command_leaves_no_folder_its_arguments_made(tmp_path, capsys):
    (tmp_path / 'kept').mkdir()
    parser = _parser()
    args = parser.parse_args(
        ['--out', str(tmp_path / 'a/b/c'), '--json', f'{tmp_path}/kept/x/r.json']
    )
    assert args.out.is_dir() and (tmp_path / 'kept/x').is_dir()
    assert arguments.refuse('tool', 'bad.csv: missing column(s) gait') == 2
    assert capsys.readouterr().err == 'tool: bad.csv: missing column(s) gait\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ['kept']
    assert list((tmp_path / 'kept').iterdir()) == []


def test_argparses_own_refusal_removes_the_folders_too(tmp_path):
    with pytest.raises(SystemExit) as exit_:
        _parser().parse_args(['--out', str(tmp_path / 'made'), '--count', 'many'])
    assert exit_.value.code == 2 and list(tmp_path.iterdir()) == []


def test_a_refusal_keeps_what_the_command_wrote_and_folders_that_were_there(tmp_path):
    parser = _parser()
    args = parser.parse_args(['--out', str(tmp_path / 'new')])
    (args.out / 'evaluations.jsonl').write_text('{}\n')  # a fit's stored work
    arguments.refuse('tool', 'interrupted')
    assert (args.out / 'evaluations.jsonl').read_text() == '{}\n'
    parser.parse_args(['--out', str(tmp_path)])
    arguments.refuse('tool', 'refused')
    assert tmp_path.is_dir()


def test_one_path_given_as_two_outputs_is_refused_before_the_work(tmp_path, capsys):
    """salamander-plan --json oj --plots oj planned, then ended in an IsADirectoryError traceback
    (issue 28's hostile pass)."""
    parser = _parser()
    parser.add_argument('--csv', type=arguments.output_file)
    for argv, kinds in (
        (['--json', 'oj', '--out', 'oj'], 'a file and a folder'),
        (['--json', 'oj', '--csv', './x/../oj'], 'a file and a file'),
    ):
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args([a if a.startswith('--') else str(tmp_path / a) for a in argv])
        assert exit_.value.code == 2
        assert capsys.readouterr().err == (
            f'tool: {tmp_path / "oj"} is given as two outputs ({kinds}) (--help for usage)\n'
        )
        assert list(tmp_path.iterdir()) == []
    # a file inside the folder, and a device twice, are two outputs
    args = parser.parse_args(
        ['--out', str(tmp_path / 'o'), '--json', str(tmp_path / 'o/r.json'), '--csv', os.devnull]
    )
    assert args.out == tmp_path / 'o'
    assert parser.parse_args(['--json', os.devnull, '--csv', os.devnull]).json == Path(os.devnull)


@pytest.mark.parametrize('flag', ['--out', '--json'])
def test_an_empty_output_path_is_refused(flag, capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args([flag, ''])
    assert 'an empty path' in capsys.readouterr().err


def test_ctrl_c_in_a_command_is_one_line_and_takes_its_empty_folders_away(tmp_path, capsys):
    @arguments.ends_on_ctrl_c('tool')
    def main(argv):
        _parser().parse_args(argv)
        raise KeyboardInterrupt

    assert main(['--out', str(tmp_path / 'made')]) == 130
    assert capsys.readouterr().err == 'tool: interrupted\n' and list(tmp_path.iterdir()) == []


def test_worker_count_is_capped_at_the_cores(capsys):
    cores = arguments.cores()
    assert arguments.worker_count(1, 'tool', '--processes') == 1 and capsys.readouterr().err == ''
    assert arguments.worker_count(100_000, 'tool', '--processes') == cores
    assert (
        capsys.readouterr().err
        == f'tool: --processes 100000: capped at the {cores} cores available\n'
    )
