"""Reading recorded experiments back (pure, no ROS graph): every bag format rosbag2 writes, a bag cut short, typed
series and their alignment in time, and the tensegrity analysis on a run integrated by the core itself."""
import json
import shutil
import sqlite3

import numpy as np
import pytest
from geometry_msgs.msg import Pose, Twist
from rclpy.serialization import serialize_message
from rosbags.rosbag2 import StoragePlugin, Writer
from soro_interfaces.msg import TensegrityState
from std_msgs.msg import String

from soro_analysis import cli
from soro_analysis.analyses import AnalysisError, analyze, choose, options, registered
from soro_analysis.recording import MissingTopics, Recording, Series, align
from soro_link.bag import BagWriter, UnreadableBag, workspace_typestore
from tensegrity_sim import prism
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
    """(receive ns, CDR) of TensegrityState as the node publishes them at 100 Hz for the core's run."""
    t, strains = core_run()
    out = []
    for k, (time_s, strain) in enumerate(zip(t, strains)):
        msg = TensegrityState(sim_time_s=float(time_s), psi_rad=float(np.radians(PSI)), energy=1.0 - 0.1 * time_s,
                              rod_poses=[Pose()] * 3, rod_twists=[Twist()] * 3, cable_strains=strain.tolist(),
                              cable_lengths=(0.2 * (1 + strain)).tolist(), cable_rest_lengths=[0.2] * 9,
                              cable_tensions=(2.0 * np.maximum(strain, 0)).tolist(), cable_status=[1] * 9,
                              normal_mode=bool(np.all((strain >= 0) & (strain <= 1))))
        stamp = T0_NS + k * 10_000_000
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 1_000_000_000)
        out.append((stamp + 2_000_000, serialize_message(msg)))          # received 2 ms after its stamp
    return out


def write_ours(path, flush_interval_s=0.5):
    with BagWriter(path, STORE, flush_interval_s=flush_interval_s) as bag:
        bag.add_topic(STATE, 'soro_interfaces/msg/TensegrityState')
        for stamp, data in state_messages():
            bag.write_cdr(STATE, stamp, data)
    return path


def write_rosbag2(path, storage):
    """As `ros2 bag record` writes them: a rosbag2 directory with metadata.yaml, MCAP or sqlite3 storage."""
    with Writer(path, version=9, storage_plugin=storage) as writer:
        connection = writer.add_connection(STATE, 'soro_interfaces/msg/TensegrityState', typestore=STORE)
        for stamp, data in state_messages():
            writer.write(connection, stamp, data)
    return path


@pytest.fixture(scope='module')
def bags(tmp_path_factory):
    root = tmp_path_factory.mktemp('bags')
    made = {'ours': write_ours(root / 'ours'), 'mcap': write_rosbag2(root / 'mcap', StoragePlugin.MCAP),
            'sqlite3': write_rosbag2(root / 'sqlite3', StoragePlugin.SQLITE3)}
    made['single.mcap'] = shutil.copy(root / 'mcap' / 'mcap.mcap', root / 'single.mcap')
    made['single.db3'] = shutil.copy(next((root / 'sqlite3').glob('*.db3')), root / 'single.db3')
    return made


@pytest.mark.parametrize('kind', ['ours', 'mcap', 'sqlite3', 'single.mcap', 'single.db3'])
def test_every_rosbag2_format_is_analysed_alike(bags, tmp_path, kind):
    report, warnings = analyze(bags[kind], tmp_path, 'auto', ['preset:=savin2020_reproduce'])
    t, strains = core_run()
    assert warnings == [] and report.numbers['messages'] == len(t) == 101
    assert report.numbers['psi_deg'] == pytest.approx(PSI) and report.numbers['sim_time_s'] == pytest.approx(SECONDS)
    final = {name: 100 * strains[-1, list(c)].mean() for name, c in prism.TRIPLES.items()}
    assert report.numbers['final_strain_pct'] == pytest.approx(final, abs=1e-12)
    assert report.numbers['max_difference_to_core'] < 1e-12        # the same run, read back exactly
    assert report.numbers['rate_hz'] == pytest.approx(100.0)
    figures = json.loads((tmp_path / 'figures.json').read_text())['figures']['strains.png']
    assert figures['side_pct'] == pytest.approx(100 * strains[:, [2, 5, 8]].mean(axis=1))
    assert (tmp_path / 'strains.png').read_bytes()[:4] == b'\x89PNG'
    assert 'final strains upper/lower/side' in (tmp_path / 'summary.md').read_text()


def chunk_records(data: bytes) -> list[tuple[int, int]]:
    """(offset, length) of every Chunk record of an MCAP file: records are opcode (1 byte), length (uint64 LE),
    content, after the 8-byte magic."""
    chunks, at = [], 8
    while at + 9 <= len(data):
        opcode, length = data[at], int.from_bytes(data[at + 1:at + 9], 'little')
        if opcode == 0x06:
            chunks.append((at, 9 + length))
        at += 9 + length
    return chunks


def test_a_bag_cut_in_the_middle_of_a_chunk_is_read_up_to_the_cut(tmp_path):
    bag = write_ours(tmp_path / 'bag', flush_interval_s=0.0)        # one chunk per message
    (bag / 'metadata.yaml').unlink()
    mcap = bag / 'bag.mcap'
    data = mcap.read_bytes()
    chunks = chunk_records(data)
    offset, length = chunks[60]
    mcap.write_bytes(data[:offset + length // 2])                 # the file ends half-way into the 61st chunk
    recording = Recording.open(bag)
    kept = recording.count(STATE)
    assert kept == 60
    assert len(recording.warnings) == 1 and f'read {kept} messages' in recording.warnings[0]
    assert 'unfinished bag' in recording.warnings[0] and 'up to the last complete record' in recording.warnings[0]
    times = recording.series(STATE, t=lambda m: m.sim_time_s)['t']
    assert times == pytest.approx(np.arange(kept) * DT)          # a gap-free prefix


def test_missing_topics_and_unknown_robots_are_one_line(bags, tmp_path, capsys):
    recording = Recording.open(bags['ours'])
    with pytest.raises(MissingTopics, match=r'no /tracked_pose, /x in this bag \(it has /tensegrity_sim/state\)'):
        recording.require('/tracked_pose', '/x')
    bag = tmp_path / 'chatter'
    with BagWriter(bag, STORE) as writer:
        writer.add_topic('/chatter', 'std_msgs/msg/String')
        writer.write_cdr('/chatter', T0_NS, serialize_message(String(data='hi')))
    with pytest.raises(AnalysisError, match=r"no robot's topics in this bag \(it has /chatter; each robot needs"):
        choose(Recording.open(bag))
    assert cli.main([str(bag), '--robot', 'terresoro', '--out', str(tmp_path / 'out')]) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and 'no /terresoro_executor/executed_edge' in err
    assert cli.main([str(tmp_path / 'nowhere'), '--out', str(tmp_path / 'out')]) == 2
    assert 'nowhere: no such file or directory' in capsys.readouterr().err
    with pytest.raises(AnalysisError, match=r"option 'psi:=3': expected name:=value with a name of tensegrity's"):
        options(registered()['tensegrity'], ['psi:=3'])
    with pytest.raises(AnalysisError, match='allowed values are'):
        options(registered()['tensegrity'], ['preset:=nonsense'])


def test_the_command_writes_summary_figures_and_json(bags, tmp_path, capsys):
    assert cli.main([str(bags['sqlite3']), '--out', str(tmp_path), '--json', '-p', 'preset:=savin2020_reproduce']) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)['numbers']['messages'] == 101
    assert f'{tmp_path / "summary.md"}' in err and '1 figure(s)' in err


def test_a_db3_that_is_not_a_bag_is_refused(tmp_path):
    broken = tmp_path / 'broken.db3'
    broken.write_bytes(b'not sqlite at all' * 100)
    with pytest.raises(UnreadableBag, match='not a readable rosbag2 sqlite3 file'):
        Recording.open(broken)
    empty = tmp_path / 'empty.db3'
    sqlite3.connect(empty).close()
    with pytest.raises(UnreadableBag, match='no such table: topics'):
        Recording.open(empty)


def test_alignment_nearest_and_linear_with_a_maximum_gap():
    source = Series('/s', np.array([0.0, 1.0, 2.0, 4.0]), np.array([0.0, 1.0, 2.0, 4.0]),
                    {'v': np.array([0.0, 10.0, 20.0, 40.0]), 'xy': np.array([[0, 0], [1, 2], [2, 4], [4, 8.0]])})
    at = np.array([-0.05, 0.4, 0.6, 1.5, 3.0, 4.05, 9.0])
    nearest = align(at, source, 'v', 'nearest', max_gap_s=0.5)
    assert np.array_equal(nearest, [0.0, 0.0, 10.0, 10.0, np.nan, 40.0, np.nan], equal_nan=True)
    linear = align(at, source, 'v', 'linear', max_gap_s=0.9)
    assert np.array_equal(linear, [0.0, 4.0, 6.0, 15.0, np.nan, 40.0, np.nan], equal_nan=True)
    assert align(np.array([1.5]), source, 'xy', 'linear', max_gap_s=1.0) == pytest.approx(np.array([[1.5, 3.0]]))
    with pytest.raises(ValueError, match="how = 'cubic'"):
        align(at, source, 'v', 'cubic')
