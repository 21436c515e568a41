"""``tensegrity-sweep`` in-process: the paper's thresholds in the JSON report, the figures,
progress and bad input."""

import json
import re
import time

import pytest

from tensegrity_sim import cli

PNG_MAGIC = b'\x89PNG\r\n\x1a\n'
TRIPLE_KEYS = {'min_pct', 'max_pct', 'final_pct', 'spread_pct', 'slack', 'over_strain', 'shape'}


@pytest.fixture(scope='module')
def full_sweep(tmp_path_factory):
    """The issue's run: savin2020_reproduce over 30..75° step 1, JSON and plots, quiet: (exit code,
    report, dir)."""
    out = tmp_path_factory.mktemp('sweep')
    code = cli.main(
        [
            '--preset',
            'savin2020_reproduce',
            '--psi',
            '30:75:1',
            '--json',
            str(out / 'out.json'),
            '--plots',
            str(out / 'plots'),
            '--quiet',
        ]
    )
    return code, json.loads((out / 'out.json').read_text()), out / 'plots'


def test_full_sweep_reports_the_paper_thresholds(full_sweep):
    """Exit 0; ψ_min = 36°, ψ_max = 68° (paper), ψ* = 42°, ψ** = 57° (spec B7) at the top of the
    report."""
    code, report, _ = full_sweep
    assert code == 0
    assert (
        report['psi_min_deg'],
        report['psi_max_deg'],
        report['psi_star_deg'],
        report['psi_2star_deg'],
    ) == (36, 68, 42, 57)
    assert (report['preset'], report['integrator'], report['dt_s'], report['duration_s']) == (
        'savin2020_reproduce',
        'rk4',
        0.01,
        5.0,
    )


def test_full_sweep_has_one_entry_per_psi(full_sweep):
    """46 entries (30..75°), each with the three triple summaries and the normal-mode flag, normal
    exactly 36..68°."""
    entries = full_sweep[1]['psi']
    assert [e['psi_deg'] for e in entries] == list(range(30, 76))
    for entry in entries:
        assert set(entry) == {'psi_deg', 'upper', 'lower', 'side', 'normal_mode'}
        assert all(set(entry[name]) == TRIPLE_KEYS for name in ('upper', 'lower', 'side'))
        assert entry['normal_mode'] == (36 <= entry['psi_deg'] <= 68)
        assert entry['upper']['slack'] == (entry['psi_deg'] < 36)
        assert entry['lower']['over_strain'] == (entry['psi_deg'] > 68)


@pytest.mark.parametrize('name', ['fig3_strain_vs_time.png', 'fig4_psi_ranges.png'])
def test_full_sweep_writes_the_figures(full_sweep, name):
    """Fig. 3 and Fig. 4 as valid PNG files (signature) with real content (> 20 kB)."""
    data = (full_sweep[2] / name).read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 20_000


def test_progress_goes_to_stderr_and_json_to_stdout(capsys):
    """Without --quiet: a progress bar ending at 3/3 and the summary on stderr; '--json -' puts
    only JSON on stdout."""
    assert cli.main(['--psi', '36:38:1', '--duration', '0.2', '--json', '-']) == 0
    out, err = capsys.readouterr()
    assert [e['psi_deg'] for e in json.loads(out)['psi']] == [36, 37, 38]
    assert 'sweep [' in err and '3/3 (ψ = 38°)' in err and 'savin2020_reproduce, 3 runs:' in err


def test_quiet_suppresses_the_progress(capsys):
    assert cli.main(['--psi', '40', '--duration', '0.1', '--quiet']) == 0
    err = capsys.readouterr().err
    assert 'sweep [' not in err and err.count('\n') == 1


@pytest.mark.parametrize(
    'psi, problem',
    [
        ('0:20:1', r"--psi '0:20:1': psi_deg = 0\.0: allowed range is \(0°, 90°\)"),
        ('abc', "--psi 'abc': expected START:STOP:STEP"),
        ('50:40:1', "--psi '50:40:1': expected finite START:STOP:STEP with STOP >= START"),
        ('40:50:0', 'STEP > 0'),
        ('80:95:5', r'psi_deg = 90\.0'),
    ],
)
def test_bad_psi_grid_exits_2_with_one_line(capsys, psi, problem):
    """A bad --psi: exit code 2 and one line on stderr naming the problem, nothing on stdout."""
    assert cli.main(['--psi', psi, '--quiet']) == 2
    out, err = capsys.readouterr()
    assert out == '' and err.count('\n') == 1 and err.startswith('tensegrity-sweep: ')
    assert re.search(problem, err)


def test_step_not_dividing_the_duration_exits_2(capsys):
    """dt = 3 ms: samples every 9 ms, which do not divide 5 s; the message names the --duration
    value."""
    assert cli.main(['--psi', '40', '--dt', '0.003', '--quiet']) == 2
    assert (
        'duration_s = 5.0: must be a whole multiple of sample_period_s' in capsys.readouterr().err
    )


@pytest.mark.filterwarnings('ignore:(overflow|invalid value):RuntimeWarning')
def test_diverging_run_exits_2_with_the_time(capsys):
    """The semi-implicit step at dt = 0.1 s (the largest allowed) against 20 N·s/m drag on 1 kg is
    unstable: the state passes 1e6 before 5 s and is reported: exit 2, 'diverged ... at t = ...' on
    stderr."""
    assert (
        cli.main(['--psi', '40', '--dt', '0.1', '--integrator', 'semi_implicit', '--quiet']) == 2
    )
    err = capsys.readouterr().err
    assert (
        err.count('\n') == 1
        and 'simulation diverged (state non-finite or beyond 1e+06) at t = ' in err
    )


@pytest.mark.parametrize(
    'option, target, reason',
    [
        # a file where a folder must be
        ('--json', 'blocker/x.json', 'cannot write {0}: File exists: {1}'),
        ('--plots', 'blocker/figs', 'cannot write into {0}: Not a directory'),
        ('--json', '/proc/x.json', 'cannot write {}: No such file or directory'),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_before_the_work(
    tmp_path, capsys, option, target, reason
):
    (tmp_path / 'blocker').write_text('a file where a folder would have to be')
    target = str(tmp_path / target)
    started = time.monotonic()
    with pytest.raises(SystemExit) as exit_:  # a whole default sweep would take seconds
        cli.main(['--quiet', option, target])
    out, err = capsys.readouterr()
    assert (
        exit_.value.code == 2
        and time.monotonic() - started < 1.0
        and out == ''
        and err.count('\n') == 1
    )
    assert err.startswith(
        f'tensegrity-sweep: argument {option}: {reason.format(target, tmp_path / "blocker")}'
    ), err


@pytest.mark.parametrize(
    'arguments, refusal',
    [
        # was: the preset's dt, silently
        (['--dt', '0'], 'argument --dt: 0: allowed range is [1e-05, 0.1]'),
        (['--duration', '0'], 'argument --duration: 0: allowed range is [0.01, 600.0]'),
        # was: 56.8 TiB asked
        (['--duration', '1e9'], 'argument --duration: 1e9: allowed range is [0.01, 600.0]'),
        (['--dt', 'nan'], 'argument --dt: nan: must be finite'),
        (['--dt', '1e-9'], 'argument --dt: 1e-9: allowed range is [1e-05, 0.1]'),
        (['--psi', 'nan:75:1'], "--psi 'nan:75:1': expected finite START:STOP:STEP"),
        (
            ['--psi', '30:75:1e-7'],
            'ψ grid 30:75:1e-07: 450000001 runs, more than one sweep may do (MAX_RUNS = 10000)',
        ),
        # the count overflows an int (was: an OverflowError traceback)
        (['--psi', '30:75:1e-310'], 'ψ grid 30:75:1e-310: inf runs, more than one sweep may do'),
        (
            ['--dt', '1e-5'],
            '46 runs × 500000 steps (duration_s = 5, dt_s = 1e-05) = 23000000 run-steps, more '
            'than one '
            'sweep may do (MAX_RUN_STEPS = 2000000)',
        ),
        # the adaptive integrator's steps are its own: the samples kept bound it (was 1.4 GB)
        (
            ['--integrator', 'adaptive', '--dt', '0.1', '--psi', '30:63:0.1', '--duration', '600'],
            '331 runs × 60000 samples (duration_s = 600, one every 0.01 s) = 19860000 '
            'run-samples, more than one sweep may keep (MAX_RUN_SAMPLES = 2000000)',
        ),
    ],
)
def test_values_that_would_mislead_or_never_finish_are_refused_at_once(capsys, arguments, refusal):
    started = time.monotonic()
    try:
        code = cli.main(arguments + ['--quiet'])
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 2 and time.monotonic() - started < 1.0 and out == '' and err.count('\n') == 1
    assert err.startswith(f'tensegrity-sweep: {refusal}'), err
