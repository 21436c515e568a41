"""soft-snake-gait prints K for every segment and chamber (the top one included) at each time, and
refuses bad input in one line with exit code 2."""

import json
import math
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from soft_snake import cli
from soro_node.arguments import cores
from soro_node.waiting import poll


def test_prints_the_pattern_at_each_time(capsys):
    assert (
        cli.main(
            [
                '--gait',
                'undulation',
                '--segments',
                '4',
                '--freq',
                '2',
                '--beta',
                str(2 * math.pi / 3),
                '--times',
                '0.05,0.3',
                '--json',
                '--wave-direction',
                '1',  # Eq. 2.1 as printed
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert [s['t_s'] for s in out['states']] == [0.05, 0.3]
    assert out['states'][0]['K'] == [[1, -1, -1], [1, -1, -1], [-1, 1, -1], [1, -1, -1]]
    assert out['chambers'] == ['bottom_left', 'bottom_right', 'top']


@pytest.mark.parametrize(
    'argv, message',
    [
        (
            ['--gait', 'undulation', '--freq', '2.5', '--beta', '1', '--times', '0'],
            'frequency = 2.5 Hz: allowed',
        ),
        (
            [
                '--gait',
                'sidewinding',
                '--segments',
                '7',
                '--freq',
                '1',
                '--beta',
                '1',
                '--times',
                '0',
            ],
            'segments = 7',
        ),
        (
            ['--gait', 'undulation', '--freq', '1', '--beta', 'nan', '--times', '0'],
            'beta = nan: must be finite',
        ),
        (
            ['--gait', 'undulation', '--freq', '1', '--beta', '1', '--times', '0,x'],
            "argument --times: '0,x' is not",
        ),
        (
            ['--gait', 'crawl', '--freq', '1', '--beta', '1', '--times', '0'],
            'argument --gait: invalid choice',
        ),
        (  # what the driver refuses too
            ['--gait', 'undulation', '--freq', '1', '--beta', '120', '--times', '0'],
            'beta = 120: allowed -6.283 to 6.283 (rad, not degrees)',
        ),
        (
            ['--gait', 'undulation', '--freq', '1', '--beta', '1', '--phi', '5', '--times', '0'],
            'phi = 5: allowed -2 to 2',
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as ended:
        raise SystemExit(cli.main(argv))
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count('\n') == 1


@pytest.mark.parametrize(
    'argv, message',
    [
        (['--json', '/proc/tables.json'], 'argument --json: cannot write /proc/tables.json'),
        (
            ['--json', '-', '--plot', '/proc/tables.png'],
            'argument --plot: cannot write /proc/tables.png',
        ),
        (
            ['--json', '-', '--processes', '0'],
            'argument --processes: 0: allowed range is [1, 1000000]',
        ),
    ],
)
def test_tables_refuses_an_unwritable_output_before_it_works(argv, message, capsys):
    with pytest.raises(SystemExit) as ended:  # at once: the 288 cells take minutes
        raise SystemExit(cli.tables_main(argv))
    err = capsys.readouterr().err
    assert ended.value.code == 2 and message in err and err.count('\n') == 1, err


def _children() -> dict[int, list[int]]:
    """Every live process's children, by parent."""
    found: dict[int, list[int]] = {}
    for stat in Path('/proc').glob('[0-9]*/stat'):
        try:
            state, ppid = stat.read_text().rsplit(')', 1)[1].split()[:2]
        except (OSError, IndexError):
            continue  # ended meanwhile
        if state != 'Z':
            found.setdefault(int(ppid), []).append(int(stat.parent.name))
    return found


def _descendants(pid: int) -> list[int]:
    """The live processes started by ``pid``, and by them: its local Ray (raylet, GCS, workers)."""
    children, out, todo = _children(), [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _workers(pid: int) -> list[int]:
    """The Ray workers of the local Ray that ``pid`` started."""
    found = []
    for child in _descendants(pid):
        try:
            command = Path(f'/proc/{child}/cmdline').read_bytes()
        except OSError:
            continue
        if b'default_worker.py' in command or command.startswith(b'ray::'):
            found.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


@pytest.mark.cores
@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM])
def test_tables_caps_its_workers_and_ends_them_on_a_signal(tmp_path, signum):
    """Started as a script's ``&`` starts it (SIGINT ignored), with far more processes than
    cores: its local Ray (workers, raylet, GCS) ends with it."""
    out = tmp_path / 'tables.json'
    command = [
        sys.executable,
        '-c',
        'import sys; from soft_snake.cli import tables_main; sys.exit(tables_main())',
        '--json',
        str(out),
        '--processes',
        '100000',
    ]
    tables = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        note = tables.stderr.readline()
        assert note == (
            f'soft-snake-tables: --processes 100000: capped at the {cores()} cores available\n'
        )
        # its local Ray runs one task per CPU it was given, and it was given the cores
        assert poll(lambda: len(_workers(tables.pid)) >= cores(), timeout_s=120)
        workers = _descendants(tables.pid)
        tables.send_signal(signum)
        tables.wait(timeout=60)
    finally:
        tables.kill()
    # Ctrl-C: one line and 130 (ends_on_ctrl_c); SIGTERM: 143
    assert tables.returncode == 128 + signum
    # no orphans left working
    assert poll(lambda: not any(_alive(w) for w in workers), timeout_s=30)
    assert not out.exists()


@pytest.mark.parametrize(
    ('main', 'words'),
    [(cli.main, 'of a gait at given times'), (cli.tables_main, "SN-13's trends")],
)
def test_help_says_what_each_tool_does_in_whole_sentences(main, words, capsys):
    """The description was one line of the module docstring, cut mid-sentence."""
    with pytest.raises(SystemExit) as ended:
        main(['--help'])
    assert ended.value.code == 0 and words in ' '.join(capsys.readouterr().out.split())
