"""The offline commands: JSON of the k best gaits, the LHS table, the exploration sequence, and
one-line refusals."""

import json
import re
import time

import pytest

from terresoro_gait import cli
from terresoro_gait.digraph import GaitError, LimbDigraph
from terresoro_gait.synthesis import GaitProblem, Objective
from terresoro_gait.weights import HEADER, write_csv


@pytest.fixture
def test_a_csv(tmp_path, test_a):
    return str(write_csv(test_a, tmp_path / 'test_a.csv'))


def test_synthesize_prints_the_k_best_gaits_with_their_composed_motion(test_a_csv, capsys):
    """Spec Test A, T1 (α_t = (-1, 0), ε_θ = 3): (1,2,4,3) J = -27, then (1,2,3) J = -24; motion
    composed in SE(2) from the smallest vertex, as in the spec 4.4 table."""
    assert (
        cli.synthesize_main(
            [
                '--weights',
                test_a_csv,
                '--goal',
                'translation',
                '--alpha',
                '-1,0',
                '--eps',
                '3',
                '--k',
                '2',
                '--json',
            ]
        )
        == 0
    )
    gaits = json.loads(capsys.readouterr().out)['gaits']
    assert [g['vertices'] for g in gaits] == [[1, 2, 4, 3], [1, 2, 3]]
    assert [g['cost'] for g in gaits] == pytest.approx([-27, -24])
    assert (gaits[0]['px_mm'], gaits[0]['py_mm'], gaits[0]['theta_deg']) == pytest.approx(
        (26.981733, -0.476880, -1), abs=1e-6
    )
    assert (gaits[1]['px_mm'], gaits[1]['py_mm']) == pytest.approx((23.977679, 0.348559), abs=1e-6)


@pytest.mark.parametrize('backend', ['highs', 'cpsat'])
def test_synthesize_backend_option_picks_the_solver_and_both_agree(test_a_csv, capsys, backend):
    assert (
        cli.synthesize_main(
            [
                '--weights',
                test_a_csv,
                '--goal',
                'translation',
                '--alpha',
                '-1,0',
                '--eps',
                '3',
                '--k',
                '2',
                '--backend',
                backend,
            ]
        )
        == 0
    )
    gaits = json.loads(capsys.readouterr().out)['gaits']
    assert [(g['vertices'], g['solver']) for g in gaits] == [
        ([1, 2, 4, 3], backend),
        ([1, 2, 3], backend),
    ]
    assert [g['cost'] for g in gaits] == pytest.approx([-27, -24], abs=1e-9)


def test_synthesize_with_a_lost_limb_stays_on_the_pruned_graph(tmp_path, random_weights, capsys):
    path = str(write_csv(random_weights(4, 5), tmp_path / 'iv.csv'))
    assert (
        cli.synthesize_main(
            [
                '--weights',
                path,
                '--goal',
                'rotation',
                '--alpha',
                '-1',
                '--eps',
                '5',
                '--lost-limbs',
                '1',
                '--k',
                '3',
            ]
        )
        == 0
    )
    gaits = json.loads(capsys.readouterr().out)['gaits']
    assert len(gaits) == 3 and all(max(g['vertices']) <= 8 for g in gaits)
    assert all(g['vertices'][0] == min(g['vertices']) for g in gaits)


def test_sweep_prints_one_row_per_distinct_gait(test_a_csv, capsys):
    assert (
        cli.sweep_main(
            [
                '--weights',
                test_a_csv,
                '--goal',
                'rotation',
                '--eps',
                '8',
                '--samples',
                '20',
                '--tau',
                '0.5',
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    rows = out.splitlines()[1:]
    hits = [int(r.split(']')[1].split()[0]) for r in rows]
    assert sum(hits) == 20 and f'{len(rows)} distinct gaits from 20 α samples' in err


@pytest.mark.cores
def test_sweep_runs_at_most_one_worker_per_core(test_a_csv, capsys):
    from soro_node.arguments import cores

    assert (
        cli.sweep_main(
            [
                '--weights',
                test_a_csv,
                '--goal',
                'rotation',
                '--eps',
                '8',
                '--samples',
                '20',
                '--workers',
                '256',
            ]
        )
        == 0
    )
    assert (
        f'terresoro-sweep: --workers 256: capped at the {cores()} cores available'
        in capsys.readouterr().err
    )


def refusal(main, arguments, capsys) -> str:
    """The one line a command refuses ``arguments`` with, at once (before any solve); exit code
    2."""
    started = time.monotonic()
    try:
        code = main(arguments)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 2 and out == '' and err.count('\n') == 1 and time.monotonic() - started < 1.0, (
        code,
        out,
        err,
    )
    return err


@pytest.mark.parametrize(
    'option, value, reason',
    [
        ('--workers', '0', '0: allowed range is [1, 256]'),
        ('--samples', '0', '0: allowed range is [1, 10000]'),
        ('--iterations', '0', '0: allowed range is [1, 1000]'),
        ('--samples', '2.5', "'2.5' is not a whole number"),
        ('--tau', '0', '0: allowed range is [0.01, 10.0]'),  # was: the paper's τ, silently
        ('--tau', '-1', '-1: allowed range is [0.01, 10.0]'),  # was: negative speeds
        ('--tau', 'nan', 'nan: must be finite'),  # was: NaN speeds, exit 0
        # a variance penalty that rewards variance
        ('--beta=-1e9', None, '-1e9: allowed range is [0.0, 1000000.0]'),
        ('--gamma=-1', None, '-1: allowed range is [0.0, 1000000.0]'),
    ],
)
def test_sweep_refuses_values_outside_their_range_in_one_line(
    test_a_csv, capsys, option, value, reason
):
    arguments = ['--weights', test_a_csv, '--goal', 'rotation', '--eps', '8', option] + (
        [value] if value else []
    )
    err = refusal(cli.sweep_main, arguments, capsys)
    assert err.startswith(f'terresoro-sweep: argument {option.split("=")[0]}: {reason}'), err


@pytest.mark.parametrize(
    'arguments, reason',
    [
        # was: minutes without output
        (['--k', '200'], 'argument --k: 200: allowed range is [1, 50]'),
        (['--beta=-1e9'], 'argument --beta: -1e9: allowed range is [0.0, 1000000.0]'),
        (['--eps', 'inf'], 'argument --eps: inf: must be finite'),
        # was: "the BILP solver stopped: The HiGHS status code was not recognized"
        (['--beta', '1e300'], 'argument --beta: 1e300: allowed range is [0.0, 1000000.0]'),
        (['--gamma', '1e7'], 'argument --gamma: 1e7: allowed range is [0.0, 1000000.0]'),
        (['--alpha', '1e300'], 'alpha = [1e+300]: each within ±1e+06'),
    ],
)
def test_synthesize_refuses_values_outside_their_range_in_one_line(
    test_a_csv, capsys, arguments, reason
):
    err = refusal(
        cli.synthesize_main,
        ['--weights', test_a_csv, '--goal', 'rotation', '--alpha', '-1', '--eps', '8'] + arguments,
        capsys,
    )
    assert err.startswith(f'terresoro-synthesize: {reason}'), err


def test_the_core_refuses_what_the_commands_refuse(test_a):
    with pytest.raises(
        ValueError, match=r'beta = -1000000000.0: must be finite and in \[0, 1e\+06\]'
    ):
        Objective('rotation', (-1.0,), beta=-1e9)
    with pytest.raises(ValueError, match=r'k = 200: allowed range is \[1, 50\]'):
        GaitProblem(test_a, LimbDigraph(2)).k_best(Objective('rotation', (-1.0,), eps=8.0), 200)


@pytest.mark.parametrize(
    'argv, message',
    [
        (['--seed', '-1'], 'argument --seed: -1: allowed range is [0, 2147483647]'),
        (['--lost-limbs', '1,1'], 'argument --lost-limbs: 1,1: a limb is named twice'),
    ],
)
def test_explore_names_a_bad_seed_or_limb_list(argv, message, capsys):
    with pytest.raises(SystemExit) as ended:
        cli.explore_main(['--limbs', '3', *argv])
    assert ended.value.code == 2 and message in capsys.readouterr().err


def test_explore_refuses_more_moves_than_it_can_print(capsys):
    assert cli.explore_main(['--limbs', '8', '--rounds', '1000']) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and '1000 rounds of 65280 moves: 65,280,000 is more' in err


def test_synthesis_refuses_more_limbs_than_its_cycle_bounds_fit_in_memory():
    with pytest.raises(ValueError, match=re.escape('256 states (8 limbs): gait synthesis takes')):
        GaitProblem(None, LimbDigraph(8))


def test_explore_prints_five_eulerian_rounds(capsys):
    """5 rounds on TerreSoRo-III: 280 primitives (5 m), every one of the 56 edges exactly 5 times,
    a closed walk."""
    assert cli.explore_main(['--limbs', '3', '--rounds', '5', '--seed', '7']) == 0
    states = [int(v) for v in capsys.readouterr().out.split()]
    edges = list(zip(states, states[1:]))
    assert len(edges) == 280 and states[0] == states[-1]
    assert {e: edges.count(e) for e in edges} == {
        tuple(map(int, e)): 5 for e in LimbDigraph(3).edges
    }


@pytest.mark.parametrize(
    'damage, message',
    [
        (lambda rows: rows[:-1], '1 edge(s) missing for 2 limbs, e.g. 4->3'),
        (lambda rows: rows + [rows[1]], 'edge 1->2 appears twice'),
        (
            lambda rows: [rows[0]] + [rows[1].replace(',10.0,', ',nan,', 1)] + rows[2:],
            'px_mm = nan is not finite',
        ),
        (
            lambda rows: [rows[0]] + [rows[1][: rows[1].rindex(',')] + ',-0.1'] + rows[2:],
            'stheta_deg2 = -0.1 is a negative',
        ),
        # a HiGHS "status unknown" before
        (
            lambda rows: [rows[0]] + [rows[1].replace(',10.0,', ',1e300,', 1)] + rows[2:],
            'bad.csv:2: px_mm = 1e+300 is beyond ±100000',
        ),
        (
            lambda rows: ['from,to,px,py,theta,sp,st'] + rows[1:],
            'header must be ' + ','.join(HEADER),
        ),
    ],
)
def test_a_bad_weights_file_is_one_line_naming_the_problem(
    test_a_csv, tmp_path, capsys, damage, message
):
    rows = open(test_a_csv).read().splitlines()
    bad = tmp_path / 'bad.csv'
    bad.write_text('\n'.join(damage(rows)) + '\n')
    assert (
        cli.synthesize_main(
            ['--weights', str(bad), '--goal', 'rotation', '--alpha', '-1', '--eps', '8']
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and err.startswith('terresoro-synthesize: ') and message in err


@pytest.mark.parametrize(
    'write, message',
    [
        (lambda path: path.write_bytes(b'\x9c\xff junk'), 'not text (byte 0 is not UTF-8)'),
        (lambda path: path.write_text('from,"to\n' + 'x' * 140_000), 'field larger than field'),
        (lambda path: path.unlink() or path.symlink_to('/dev/zero'), 'more than 64 MiB'),
    ],
)
def test_an_unreadable_weights_file_is_one_line_naming_it(tmp_path, capsys, write, message):
    bad = tmp_path / 'bad.csv'
    bad.write_text('')
    write(bad)
    argv = ['--weights', str(bad), '--goal', 'rotation', '--alpha', '-1', '--eps', '8']
    assert cli.synthesize_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and str(bad) in err and message in err, err


def test_a_spreadsheets_byte_order_mark_is_read(test_a_csv, tmp_path, capsys):
    marked = tmp_path / 'excel.csv'
    marked.write_bytes(open(test_a_csv, encoding='utf-8').read().encode('utf-8-sig'))
    argv = ['--goal', 'rotation', '--alpha', '-1', '--eps', '8']
    assert cli.synthesize_main(['--weights', str(marked), *argv]) == 0
    marked_out = capsys.readouterr().out
    assert cli.synthesize_main(['--weights', test_a_csv, *argv]) == 0
    assert marked_out == capsys.readouterr().out


def test_an_infeasible_tolerance_is_one_line(test_a_csv, capsys):
    """|Pz| ≤ 0: no cycle of Test A returns exactly to its start."""
    assert (
        cli.synthesize_main(
            ['--weights', test_a_csv, '--goal', 'rotation', '--alpha', '1', '--eps', '0']
        )
        == 2
    )
    assert (
        'no simple cycle meets the translation |Pz| ≤ ε_t with eps = 0' in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    'gait, message',
    [
        ([1, 2, 1], 'vertex 1 repeats'),
        ([3], 'at least 2 vertices'),
        ([2, 9], 'vertex 9 is not in the graph'),
        ([9, 1], 'vertex 9 is not in the graph (it curls lost limb(s) [1])'),
    ],
)
def test_a_gait_that_is_not_a_simple_cycle_is_refused(gait, message):
    graph = LimbDigraph(4, (1,)) if 9 in gait else LimbDigraph(2)
    with pytest.raises(GaitError) as caught:
        graph.check_cycle(gait)
    assert message in str(caught.value)


def test_a_demo_output_folder_that_cannot_be_made_is_one_line(tmp_path, capsys):
    from terresoro_gait import demo

    (tmp_path / 'blocker').write_text('a file where the folder would go')
    err = refusal(demo.main, ['--out', str(tmp_path / 'blocker' / 'run')], capsys)
    assert (
        err.startswith('terresoro-demo: argument --out: cannot write into ') and 'blocker' in err
    )


@pytest.mark.parametrize('robot, limbs', [('iii', 3), ('iv', 4)])
def test_the_configs_tau_is_the_papers(robot, limbs):
    """config/terresoro_<robot>.yaml (installed) and the CLI's default τ are the same paper VI-A
    value."""
    import yaml

    from softbots_bringup.share import installed
    from terresoro_gait.parameters import PAPER_TAU_S

    config = yaml.safe_load(installed(f'config/terresoro_{robot}.yaml').read_text())['/**'][
        'ros__parameters'
    ]
    assert config['n_limbs'] == limbs and config['tau_s'] == PAPER_TAU_S[limbs]
