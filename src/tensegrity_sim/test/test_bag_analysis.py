"""The tensegrity analysis of a recorded run (soro-analyze --robot tensegrity) on a run integrated
by the core itself, written in every bag format rosbag2 has: ours, `ros2 bag record`'s MCAP and
sqlite3, single files."""

import json

import numpy as np
import pytest
from geometry_msgs.msg import Pose, Twist
from rclpy.serialization import deserialize_message, serialize_message
from soro_interfaces.msg import TensegrityState

from soro_analysis import cli
from soro_analysis.analyses import AnalysisError, analyze, options
from soro_analysis.bag import workspace_typestore
from soro_analysis.testing import FORMATS, write_bag, write_every_format
from tensegrity_sim import prism
from tensegrity_sim.bag_analysis import ANALYSIS
from tensegrity_sim.dynamics import Dynamics
from tensegrity_sim.integrate import simulate
from tensegrity_sim.presets import preset

STORE = workspace_typestore()
STATE = '/tensegrity_sim/state'
PSI, DT, SECONDS = 50.0, 0.01, 1.0
T0_NS = 1_700_000_000_000_000_000


def core_run():
    """The reproduce preset released at ψ = 50°: (t (k,), strains (k, 9)) from the offline core."""
    p = preset('savin2020_reproduce')
    dynamics = Dynamics(p.structure)
    trajectory = simulate(dynamics, p.initial_state(PSI), SECONDS, dt_s=DT, sample_period_s=DT)
    return trajectory.t, dynamics.strains(trajectory.states)


def state_messages():
    """(receive ns, CDR) of TensegrityState as the node publishes them at 100 Hz for the core's
    run."""
    t, strains = core_run()
    out = []
    for k, (time_s, strain) in enumerate(zip(t, strains)):
        msg = TensegrityState(
            sim_time_s=float(time_s),
            psi_rad=float(np.radians(PSI)),
            energy=1.0 - 0.1 * time_s,
            rod_poses=[Pose()] * 3,
            rod_twists=[Twist()] * 3,
            cable_strains=strain.tolist(),
            cable_lengths=(0.2 * (1 + strain)).tolist(),
            cable_rest_lengths=[0.2] * 9,
            cable_tensions=(2.0 * np.maximum(strain, 0)).tolist(),
            cable_status=[1] * 9,
            normal_mode=bool(np.all((strain >= 0) & (strain <= 1))),
        )
        stamp = T0_NS + k * 10_000_000
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 1_000_000_000)
        # received 2 ms after its stamp
        out.append((stamp + 2_000_000, serialize_message(msg)))
    return out


@pytest.fixture(scope='module')
def bags(tmp_path_factory):
    return write_every_format(
        tmp_path_factory.mktemp('bags'),
        STATE,
        'soro_interfaces/msg/TensegrityState',
        state_messages(),
        STORE,
    )


@pytest.mark.parametrize('kind', FORMATS)
def test_every_rosbag2_format_is_analysed_alike(bags, tmp_path, kind):
    report, warnings = analyze(bags[kind], tmp_path, 'auto', ['preset:=savin2020_reproduce'])
    t, strains = core_run()
    assert warnings == [] and report.numbers['messages'] == len(t) == 101
    assert report.numbers['psi_deg'] == pytest.approx(PSI) and report.numbers[
        'sim_time_s'
    ] == pytest.approx(SECONDS)
    final = {name: 100 * strains[-1, list(c)].mean() for name, c in prism.TRIPLES.items()}
    assert report.numbers['final_strain_pct'] == pytest.approx(final, abs=1e-12)
    # the same run, read back exactly
    assert report.numbers['max_difference_to_core'] < 1e-12
    assert report.numbers['rate_hz'] == pytest.approx(100.0)
    figures = json.loads((tmp_path / 'figures.json').read_text())['figures']['strains.png']
    assert figures['side_pct'] == pytest.approx(100 * strains[:, [2, 5, 8]].mean(axis=1))
    assert (tmp_path / 'strains.png').read_bytes()[:4] == b'\x89PNG'
    assert 'final strains upper/lower/side' in (tmp_path / 'summary.md').read_text()


def test_the_command_writes_summary_figures_and_json(bags, tmp_path, capsys):
    assert (
        cli.main(
            [
                str(bags['sqlite3']),
                '--out',
                str(tmp_path),
                '--json',
                '-p',
                'preset:=savin2020_reproduce',
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert json.loads(out)['numbers']['messages'] == 101
    assert f'{tmp_path / "summary.md"}' in err and '1 figure(s)' in err


def test_options_are_checked_against_the_analysis():
    with pytest.raises(
        AnalysisError, match=r"option 'psi:=3': expected name:=value with a name of tensegrity's"
    ):
        options(ANALYSIS, ['psi:=3'])
    with pytest.raises(AnalysisError, match='allowed values are'):
        options(ANALYSIS, ['preset:=nonsense'])
    assert options(ANALYSIS, ['preset:=savin2020_code']) == {'preset': 'savin2020_code'}


def test_a_bag_without_the_needed_topics_is_one_line(bags, tmp_path, capsys):
    assert cli.main([str(bags['ours']), '--robot', 'terresoro', '--out', str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1
    assert (
        f'{bags["ours"]}: no /terresoro_executor/executed_edge in this bag (it has '
        '/tensegrity_sim/state)'
    ) in err


def edited(messages, edit):
    """``messages`` with ``edit(k, state)`` applied to each one's TensegrityState."""
    out = []
    for k, (stamp, data) in enumerate(messages):
        state = deserialize_message(data, TensegrityState)
        edit(k, state)
        out.append((stamp, serialize_message(state)))
    return out


def retimed(messages, times: dict):
    """``messages`` with the sim_time_s of message k replaced by ``times[k]``."""

    def retime(k, state):
        state.sim_time_s = times.get(k, state.sim_time_s)

    return edited(messages, retime)


def state_bag(path, messages):
    return write_bag(path, STATE, 'soro_interfaces/msg/TensegrityState', messages, 'ours', STORE)


def test_states_without_a_simulated_time_are_left_out(tmp_path):
    """NaN or negative sim_time_s: a ValueError traceback with a preset before (issue 28's hostile
    pass); now left out and counted, and the rest compared with the core as recorded."""
    bag = state_bag(
        tmp_path / 'bag', retimed(state_messages(), {10: np.nan, 20: -1.0, 100: np.inf})
    )
    report, _ = analyze(bag, tmp_path / 'out', 'auto', ['preset:=savin2020_reproduce'])
    assert report.numbers['messages'] == 98 and report.numbers['max_difference_to_core'] < 1e-12
    assert report.numbers['sim_time_s'] == pytest.approx(0.99)
    summary = (tmp_path / 'out' / 'summary.md').read_text()
    assert '3 state(s) without a finite, non-negative simulated time left out' in summary


def test_the_core_is_compared_over_a_sweeps_longest_run_at_most(tmp_path):
    """A state at 1e9 s had the offline core integrate 1e11 steps."""
    bag = state_bag(tmp_path / 'bag', retimed(state_messages(), {99: 1e9, 100: 700.0}))
    report, _ = analyze(bag, tmp_path / 'out', 'auto', ['preset:=savin2020_reproduce'])
    assert report.numbers['max_difference_to_core'] < 1e-12
    assert report.numbers['sim_time_s'] == 1e9
    assert 'same simulated times, up to 600 s)' in (tmp_path / 'out' / 'summary.md').read_text()
    late = state_bag(
        tmp_path / 'late', retimed(state_messages()[:3], {0: 700.0, 1: 800.0, 2: 900.0})
    )
    with pytest.raises(AnalysisError, match='every state lies past 600 s of simulated time'):
        analyze(late, tmp_path / 'out', 'auto', ['preset:=savin2020_reproduce'])


def test_a_run_without_simulated_times_or_psi_is_one_line(tmp_path):
    messages = state_messages()[:5]
    untimed = retimed(messages, {0: np.nan, 1: -2.0, 2: np.nan, 3: -1.0, 4: np.nan})
    with pytest.raises(AnalysisError, match=r'none of the 5 /tensegrity_sim/state messages has a'):
        analyze(state_bag(tmp_path / 'untimed', untimed), tmp_path / 'out', 'auto')
    bag = state_bag(
        tmp_path / 'nan_psi', edited(messages, lambda k, state: setattr(state, 'psi_rad', np.nan))
    )
    assert analyze(bag, tmp_path / 'out', 'auto')[0].numbers['messages'] == 5
    with pytest.raises(AnalysisError, match='the run has no ψ to start the offline core from'):
        analyze(bag, tmp_path / 'out', 'auto', ['preset:=savin2020_reproduce'])
