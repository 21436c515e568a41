"""Reading recorded experiments back (pure, no ROS graph): every bag format rosbag2 writes, a bag
cut short in the middle of a chunk, typed series and their alignment in time, and choosing the
analysis from a bag's topics. The robots' own analyses are tested in their packages (e.g.
tensegrity_sim/test/test_bag_analysis.py)."""

import gc
import sqlite3

import numpy as np
import pytest
from geometry_msgs.msg import PoseStamped
from rclpy.serialization import serialize_message
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from std_msgs.msg import String

from soro_analysis import analyses, cli
from soro_analysis import recording as recording_module
from soro_analysis.analyses import Analysis, AnalysisError, Report, choose
from soro_analysis.bag import UnreadableBag, workspace_typestore
from soro_analysis.recording import MalformedMessages, MissingTopics, Recording, Series, align
from soro_analysis.testing import FORMATS, write_bag, write_every_format

STORE = workspace_typestore()
POSE, COUNT = '/tracked_pose', 200
T0_NS = 1_700_000_000_000_000_000


def pose_messages():
    """(receive ns, CDR) of a tracker's poses at 30 Hz, each received 2 ms after its stamp, x = k
    mm."""
    out = []
    for k in range(COUNT):
        msg = PoseStamped()
        stamp = T0_NS + k * 33_333_333
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 1_000_000_000)
        msg.pose.position.x, msg.pose.orientation.w = 1e-3 * k, 1.0
        out.append((stamp + 2_000_000, serialize_message(msg)))
    return out


def write_ours(path, flush_interval_s=0.5):
    return write_bag(
        path,
        POSE,
        'geometry_msgs/msg/PoseStamped',
        pose_messages(),
        'ours',
        STORE,
        flush_interval_s,
    )


@pytest.fixture(scope='module')
def bags(tmp_path_factory):
    return write_every_format(
        tmp_path_factory.mktemp('bags'),
        POSE,
        'geometry_msgs/msg/PoseStamped',
        pose_messages(),
        STORE,
    )


@pytest.mark.parametrize('kind', FORMATS)
def test_every_rosbag2_format_reads_back_the_same_series(bags, kind):
    recording = Recording.open(bags[kind])
    assert recording.warnings == [] and recording.topics == {POSE: 'geometry_msgs/msg/PoseStamped'}
    pose = recording.series(POSE, x=lambda m: m.pose.position.x)
    assert len(pose) == COUNT and pose['x'] == pytest.approx(1e-3 * np.arange(COUNT))
    stamps = (T0_NS + np.arange(COUNT) * 33_333_333) * 1e-9
    # float64 seconds since the epoch: 0.24 µs steps
    assert pose.stamp_s == pytest.approx(stamps, abs=5e-7)
    assert pose.receive_s - pose.stamp_s == pytest.approx(np.full(COUNT, 0.002), abs=1e-6)


def chunk_records(data: bytes) -> list[tuple[int, int]]:
    """(offset, length) of every Chunk record of an MCAP file: records are opcode (1 byte), length
    (uint64 LE), content, after the 8-byte magic."""
    chunks, at = [], 8
    while at + 9 <= len(data):
        opcode, length = data[at], int.from_bytes(data[at + 1 : at + 9], 'little')
        if opcode == 0x06:
            chunks.append((at, 9 + length))
        at += 9 + length
    return chunks


def test_a_bag_cut_in_the_middle_of_a_chunk_is_read_up_to_the_cut(tmp_path):
    bag = write_ours(tmp_path / 'bag', flush_interval_s=0.0)  # one chunk per message
    (bag / 'metadata.yaml').unlink()
    mcap = bag / 'bag.mcap'
    data = mcap.read_bytes()
    offset, length = chunk_records(data)[120]
    # the file ends half-way into the 121st chunk
    mcap.write_bytes(data[: offset + length // 2])
    recording = Recording.open(bag)
    assert recording.count(POSE) == 120
    assert len(recording.warnings) == 1 and 'read 120 messages' in recording.warnings[0]
    assert (
        'unfinished bag' in recording.warnings[0]
        and 'up to the last complete record' in recording.warnings[0]
    )
    x = recording.series(POSE, x=lambda m: m.pose.position.x)['x']
    assert x == pytest.approx(1e-3 * np.arange(120))  # a gap-free prefix


def counting(recording, out, options) -> Report:
    return Report('count', numbers={'poses': recording.count(POSE)})


ROBOTS = {
    'tracker': Analysis('tracker', 'a test analysis', (POSE,), counting),
    'talker': Analysis('talker', 'another', ('/chatter',), counting),
}


def test_an_analysis_that_fails_half_way_leaves_its_output_folder_as_it_was(
    bags, tmp_path, monkeypatch
):
    def half_then_fail(recording, out, options):
        (out / 'strains.png').write_bytes(b'\x89PNG half')
        raise AnalysisError('a value the bag should not hold')

    failing = {'tracker': Analysis('tracker', 'fails', (POSE,), half_then_fail)}
    monkeypatch.setattr(analyses, 'registered', lambda: failing)
    out = tmp_path / 'out'
    out.mkdir()
    (out / 'summary.md').write_text('an earlier run\n')
    with pytest.raises(AnalysisError, match='should not hold'):
        analyses.analyze(bags['ours'], out)
    assert [p.name for p in out.iterdir()] == ['summary.md']
    monkeypatch.setattr(analyses, 'registered', lambda: ROBOTS)
    analyses.analyze(bags['ours'], out)
    assert sorted(p.name for p in out.iterdir()) == ['figures.json', 'summary.md']
    assert '# count' in (out / 'summary.md').read_text()


def test_the_analysis_is_chosen_by_the_topics_in_the_bag(bags, tmp_path):
    recording = Recording.open(bags['ours'])
    assert choose(recording, 'auto', ROBOTS) is ROBOTS['tracker']
    assert choose(recording, 'talker', ROBOTS) is ROBOTS['talker']
    with pytest.raises(
        AnalysisError, match=r"no analysis for robot 'snake'; installed: talker, tracker"
    ):
        choose(recording, 'snake', ROBOTS)
    with pytest.raises(
        MissingTopics, match=r'no /chatter, /x in this bag \(it has /tracked_pose\)'
    ):
        recording.require('/chatter', '/x')
    bag = write_bag(
        tmp_path / 'other',
        '/other',
        'std_msgs/msg/String',
        [(T0_NS, serialize_message(String(data='hi')))],
    )
    with pytest.raises(
        AnalysisError,
        match=r"no robot's topics in this bag \(it has /other; each robot needs "
        r'tracker: /tracked_pose; talker: /chatter\)',
    ):
        choose(Recording.open(bag), 'auto', ROBOTS)


def test_a_type_this_workspace_does_not_know_is_named(tmp_path):
    """A bag from another workspace: its topics are listed, decoding one of an unknown type says
    which type."""
    theirs = get_typestore(Stores.ROS2_JAZZY)
    theirs.register(get_types_from_msg('int32 a', 'their_pkg/msg/Thing'))
    with Writer(tmp_path / 'theirs', version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        connection = writer.add_connection('/thing', 'their_pkg/msg/Thing', typestore=theirs)
        writer.write(
            connection,
            T0_NS,
            theirs.serialize_cdr(theirs.types['their_pkg/msg/Thing'](a=3), 'their_pkg/msg/Thing'),
        )
    recording = Recording.open(tmp_path / 'theirs')
    assert recording.topics == {'/thing': 'their_pkg/msg/Thing'} and recording.count('/thing') == 1
    with pytest.raises(
        MissingTopics,
        match='/thing carries their_pkg/msg/Thing, a type this workspace does not know',
    ):
        recording.messages('/thing')


def test_the_command_refuses_in_one_line(tmp_path, capsys):
    assert cli.main([str(tmp_path / 'nowhere'), '--out', str(tmp_path / 'out')]) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and 'nowhere: no such file or directory' in err


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
    source = Series(
        '/s',
        np.array([0.0, 1.0, 2.0, 4.0]),
        np.array([0.0, 1.0, 2.0, 4.0]),
        {
            'v': np.array([0.0, 10.0, 20.0, 40.0]),
            'xy': np.array([[0, 0], [1, 2], [2, 4], [4, 8.0]]),
        },
    )
    at = np.array([-0.05, 0.4, 0.6, 1.5, 3.0, 4.05, 9.0])
    nearest = align(at, source, 'v', 'nearest', max_gap_s=0.5)
    assert np.array_equal(nearest, [0.0, 0.0, 10.0, 10.0, np.nan, 40.0, np.nan], equal_nan=True)
    linear = align(at, source, 'v', 'linear', max_gap_s=0.9)
    assert np.array_equal(linear, [0.0, 4.0, 6.0, 15.0, np.nan, 40.0, np.nan], equal_nan=True)
    assert align(np.array([1.5]), source, 'xy', 'linear', max_gap_s=1.0) == pytest.approx(
        np.array([[1.5, 3.0]])
    )
    with pytest.raises(ValueError, match="how = 'cubic'"):
        align(at, source, 'v', 'cubic')


def test_a_series_decodes_one_message_at_a_time(tmp_path):
    """Issue 26 item 7 (soro-analyze peaked at 4.9 GB on a 327 MB bag): a Series keeps the numbers
    it extracts, not the decoded messages. While it is made, at most the message in hand is alive
    (counted four times among the interpreter's objects); before, all N were decoded first and
    kept."""
    n = 20_000
    poses = [data for _, data in pose_messages()]
    path = write_bag(
        tmp_path / 'bag',
        POSE,
        'geometry_msgs/msg/PoseStamped',
        [(T0_NS + k * 1_000_000, poses[k % COUNT]) for k in range(n)],
        'ours',
        STORE,
    )
    recording = Recording.open(path)
    pose_type = STORE.types['geometry_msgs/msg/PoseStamped']
    alive = []

    def x(message):
        # k = 7, 207, 407, 607
        if round(message.pose.position.x * 1e3) == 7 and len(alive) < 4:
            alive.append(sum(isinstance(o, pose_type) for o in gc.get_objects()))
        return message.pose.position.x

    pose = recording.series(POSE, x=x, y=lambda m: m.pose.position.y)
    assert len(pose) == n and pose['x'][COUNT + 3] == pytest.approx(3e-3)
    assert alive == [1, 1, 1, 1]
    assert sum(isinstance(o, pose_type) for o in gc.get_objects()) == 0
    assert [m.pose.position.x for m in recording.messages(POSE)[-2:]] == pytest.approx(
        [1e-3 * (COUNT - 2), 1e-3 * (COUNT - 1)]
    )


@pytest.mark.parametrize('block', [1000, 100])  # the change within a block, at a block's end
def test_a_field_that_changes_shape_between_messages_is_named(bags, monkeypatch, block):
    """A camera frame of 4 markers, then 5: a numpy ValueError traceback before (issue 28's
    hostile pass), within a block of packed messages or between two."""
    monkeypatch.setattr(recording_module, 'SERIES_BLOCK', block)
    recording = Recording.open(bags['ours'])
    points = lambda m: [[m.pose.position.x]] * (4 if m.pose.position.x < 0.1 else 5)  # noqa: E731
    with pytest.raises(MalformedMessages, match=rf'^{bags["ours"]}: {POSE}: points changes shape'):
        recording.series(POSE, points=points)
    assert recording.series(POSE, points=lambda m: [[m.pose.position.x]] * 4)['points'].shape == (
        COUNT,
        4,
        1,
    )


def test_numpy_booleans_go_into_figures_json(tmp_path):
    report = Report('flags', numbers={'reached': np.bool_(True), 'each': np.array([True, False])})
    assert report.document()['numbers'] == {'reached': True, 'each': [True, False]}
    report.write(tmp_path)
    assert '"reached": true' in (tmp_path / 'figures.json').read_text()
