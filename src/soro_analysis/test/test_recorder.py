"""The recorder node: every message it receives ends up in a complete bag, in order; a SIGKILL
loses at most one flush period; SIGINT ends the recording at once even under an endless stream; a
latched message published before it started is recorded, with each topic's offered QoS in
metadata.yaml; it refuses an existing bag."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import rclpy
import yaml
from ament_index_python.packages import get_package_prefix
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from soro_interfaces.msg import LinkStatus
from std_msgs.msg import Int32, String

from soro_analysis.bag import MCAP_MAGIC, read_messages, read_raw
from soro_analysis.recorder import (
    import_message_class,
    offered_profile,
    recordable_type,
    recording_policies,
    select_topics,
)
from soro_node.waiting import poll

pytestmark = pytest.mark.ros

N_CHATTER = 200
N_STATUS = 20
MATCH_TIMEOUT_S = 8.0
EXIT_TIMEOUT_S = 5.0


def start_recorder(bag):
    # -m rather than the `recorder` console script: runs the module on PYTHONPATH, whatever
    # install/ holds
    cmd = [
        sys.executable,
        '-m',
        'soro_analysis.recorder_node',
        '--ros-args',
        '-p',
        f'output:={bag}',
        '-p',
        'topics:=[/chatter,/link_status]',
    ]
    return subprocess.Popen(
        cmd, env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def stop(proc):
    """Kill ``proc`` if it still runs; its output so far."""
    if proc.poll() is None:
        proc.kill()
    return proc.communicate(timeout=EXIT_TIMEOUT_S)[0]


def link_status(i):
    msg = LinkStatus(
        state=i % 4,
        device_safe=bool(i % 2),
        commands_enabled=True,
        rtt_last_s=1e-4 * i,
        rtt_p50_s=0.9e-3,
        rtt_p99_s=1.7e-3,
        last_rx_age_s=0.01 * i,
        frames_rx=10 * i,
        frames_tx=11 * i,
        crc_errors=i,
        format_errors=2,
        nacks=i // 3,
        reconnects=1,
    )
    msg.header.stamp.sec, msg.header.stamp.nanosec, msg.header.frame_id = (
        100 + i,
        250_000_000,
        'base_link',
    )
    msg.device.device_kind, msg.device.firmware_version = 'soft_snake', f'0.9.{i}'
    msg.device.protocol_version, msg.device.port = 1, '/dev/ttyACM0'
    return msg


def fields(msg, like):
    """``msg`` (rclpy or rosbags) as nested dicts of the fields that the rclpy message ``like``
    has; the test data holds no NaN, so == compares every field."""
    if not hasattr(like, 'get_fields_and_field_types'):
        return msg
    return {
        name: fields(getattr(msg, name), getattr(like, name))
        for name in like.get_fields_and_field_types()
    }


def wait_until_matched(proc, *publishers):
    deadline = time.monotonic() + MATCH_TIMEOUT_S
    while not all(p.get_subscription_count() for p in publishers):
        assert proc.poll() is None, f'recorder exited early:\n{stop(proc)}'
        assert time.monotonic() < deadline, (
            f'recorder did not subscribe within {MATCH_TIMEOUT_S} s:\n{stop(proc)}'
        )
        time.sleep(0.05)


def test_every_published_message_is_in_the_bag_after_sigint(tmp_path):
    bag = tmp_path / 'bag'
    chatter = [String(data=f'hello {i}') for i in range(N_CHATTER)]
    statuses = [link_status(i) for i in range(N_STATUS)]
    context = rclpy.Context()
    rclpy.init(context=context)
    proc = start_recorder(bag)
    out = ''
    try:
        node = rclpy.create_node('recorder_test_talker', context=context)
        qos = QoSProfile(
            reliability=ReliabilityPolicy.RELIABLE,
            history=HistoryPolicy.KEEP_LAST,
            depth=N_CHATTER,
        )
        pub_chatter = node.create_publisher(String, '/chatter', qos)
        pub_status = node.create_publisher(LinkStatus, '/link_status', qos)
        # The recorder subscribes only after discovering these publishers, so its readers know our
        # writers already when our writers see them: once matched here, nothing published is
        # dropped for want of a match there.
        wait_until_matched(proc, pub_chatter, pub_status)
        every = N_CHATTER // N_STATUS
        for i, msg in enumerate(chatter):
            pub_chatter.publish(msg)
            if i % every == 0:
                pub_status.publish(statuses[i // every])
        # one burst from reliable publishers, SIGINT right after: the recorder must hold (reliable,
        # keep-all) and drain every message still waiting in its subscriptions
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=EXIT_TIMEOUT_S)[0]
        assert proc.returncode == 0, out
    finally:
        if proc.poll() is None:
            out = stop(proc)
        rclpy.try_shutdown(context=context)

    got = list(read_messages(bag))
    assert [m.data for t, _, m in got if t == '/chatter'] == [m.data for m in chatter], out
    got_statuses = [m for t, _, m in got if t == '/link_status']
    assert len(got_statuses) == N_STATUS, out
    assert [fields(m, s) for m, s in zip(got_statuses, statuses)] == [
        fields(s, s) for s in statuses
    ]
    assert (
        f'wrote {N_CHATTER} messages on /chatter' in out
        and f'wrote {N_STATUS} messages on /link_status' in out
    )


class Stream:
    """/chatter at about 1 kHz from a thread, as 'hello <i>'; ``sent`` holds each message's send
    time (monotonic)."""

    def __init__(self, context, proc):
        self.node = rclpy.create_node('recorder_test_stream', context=context)
        qos = QoSProfile(
            reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST, depth=10_000
        )
        self.publisher = self.node.create_publisher(String, '/chatter', qos)
        wait_until_matched(proc, self.publisher)
        self.sent, self.running = [], True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.running and len(self.sent) < 60_000:  # bounded whatever happens to the test
            self.publisher.publish(String(data=f'hello {len(self.sent)}'))
            self.sent.append(time.monotonic())
            time.sleep(0.001)

    def stop(self):
        self.running = False
        self.thread.join(timeout=5.0)


def recorded_indices(bag, report=None):
    return [
        int(m.data.split()[1]) for t, _, m in read_messages(bag, report=report) if t == '/chatter'
    ]


def test_sigkill_loses_at_most_one_flush_period(tmp_path):
    bag = tmp_path / 'bag'
    context = rclpy.Context()
    rclpy.init(context=context)
    proc = start_recorder(bag)
    try:
        stream = Stream(context, proc)
        time.sleep(3.5)
        proc.kill()  # as a power cut would: no handler runs
        killed = time.monotonic()
        proc.wait(timeout=EXIT_TIMEOUT_S)
        stream.stop()
    finally:
        stop(proc)
        rclpy.try_shutdown(context=context)
    assert not (bag / 'metadata.yaml').exists()
    reports = []
    got = recorded_indices(bag, reports.append)
    assert got == list(range(len(got))), 'what was flushed is a gap-free prefix of the stream'
    before_kill = sum(t < killed for t in stream.sent)
    lost_s = killed - stream.sent[len(got) - 1]
    # flush_period_s = 0.5 s
    assert len(got) > 2000 and lost_s <= 1.0, (len(got), before_kill, lost_s)
    assert (
        len(reports) == 1
        and f'unfinished bag (the file ends without its summary: its writer was killed); read '
        f'{len(got)} messages'
        in reports[0]
    ), reports


def test_sigint_ends_the_recording_at_once_under_an_endless_stream(tmp_path):
    bag = tmp_path / 'bag'
    context = rclpy.Context()
    rclpy.init(context=context)
    proc = start_recorder(bag)
    try:
        stream = Stream(context, proc)
        time.sleep(1.0)
        published = len(stream.sent)  # every one of these was sent before the signal
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=EXIT_TIMEOUT_S)[0]
        took = time.monotonic() - asked
        stream.stop()
    finally:
        stop(proc)
        rclpy.try_shutdown(context=context)
    # the stream still running did not hold it
    assert proc.returncode == 0 and took < 1.0, (took, out)
    got = recorded_indices(bag)
    assert got == list(range(len(got))) and published <= len(got) <= published + 150, (
        published,
        len(got),
    )


def test_a_full_disk_ends_the_recording_with_a_finished_bag_and_one_line(tmp_path):
    """Issue 26 item 6: on a full file system (a 2 MB tmpfs in a mount namespace of its own) the
    recorder died with two ENOSPC tracebacks and no metadata. Now it says "disk full: <bag>", exits
    1, and the bag it leaves has its metadata.yaml and reads whole, in order, without the
    killed-writer warning."""
    small, kept = tmp_path / 'small', tmp_path / 'kept'
    small.mkdir()
    bag = small / 'bag'
    # the tmpfs is seen only inside the namespace: the bag is copied out before it ends
    script = (
        f'mount -t tmpfs -o size=2m tmpfs {small} || exit 99; "$@"; code=$?; cp -r {bag} '
        f'{kept}; '
        'exit $code'
    )
    cmd = [
        'unshare',
        '--mount',
        'bash',
        '-c',
        script,
        'small_disk',
        sys.executable,
        '-m',
        'soro_analysis.recorder_node',
        '--ros-args',
        '-p',
        f'output:={bag}',
        '-p',
        'topics:=[/chatter]',
        '-p',
        'flush_period_s:=0.1',
    ]
    context = rclpy.Context()
    rclpy.init(context=context)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        node = rclpy.create_node('full_disk_talker', context=context)
        publisher = node.create_publisher(
            String,
            '/chatter',
            QoSProfile(
                reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST, depth=1000
            ),
        )
        deadline = time.monotonic() + MATCH_TIMEOUT_S
        while (
            not publisher.get_subscription_count()
            and proc.poll() is None
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        if proc.poll() == 99:
            pytest.skip('cannot mount a tmpfs here (needs root or a user namespace)')
        # 2 MB at ~1 MB/s: full within a few seconds
        sent, deadline = 0, time.monotonic() + 20.0
        while proc.poll() is None and time.monotonic() < deadline:
            publisher.publish(String(data=f'{sent} ' + 'x' * 2000))
            sent += 1
            time.sleep(0.002)
        out = stop(proc)
    finally:
        rclpy.try_shutdown(context=context)
    assert proc.returncode == 1, out
    assert 'Traceback' not in out and f'disk full: {bag}' in out, out
    reports = []
    got = [
        int(message.data.split()[0])
        for _, _, message in read_messages(kept, report=reports.append)
    ]
    assert (kept / 'metadata.yaml').exists() and not reports, (reports, out)
    assert 0 < len(got) < sent and got == list(range(len(got))), (len(got), sent)
    assert f'bag closed: {len(got)} messages' in out


def test_a_topic_seen_first_through_its_subscribers_is_recorded_reliably(tmp_path):
    """The QoS is chosen once a publisher shows: a subscriber alone must not make it best
    effort."""
    bag = tmp_path / 'bag'
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('recorder_test_late', context=context)
    node.create_subscription(String, '/chatter', lambda _m: None, 10)
    proc = start_recorder(bag)
    try:
        # three discovery periods with /chatter known only by its subscriber
        time.sleep(1.5)
        qos = QoSProfile(
            reliability=ReliabilityPolicy.RELIABLE,
            history=HistoryPolicy.KEEP_LAST,
            depth=N_CHATTER,
        )
        publisher = node.create_publisher(String, '/chatter', qos)
        deadline = time.monotonic() + MATCH_TIMEOUT_S  # ours and the recorder's
        while publisher.get_subscription_count() < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        for i in range(N_CHATTER):
            publisher.publish(String(data=f'late {i}'))
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=EXIT_TIMEOUT_S)[0]
    finally:
        stop(proc)
        rclpy.try_shutdown(context=context)
    assert 'recording /chatter (std_msgs/msg/String, reliable)' in out, out
    assert [m.data for t, _, m in read_messages(bag) if t == '/chatter'] == [
        f'late {i}' for i in range(N_CHATTER)
    ]


def test_a_topic_of_two_types_is_recorded_once_one_is_left(tmp_path):
    """A String and an Int32 publisher on one topic: it was skipped for good, and none of its
    961 String messages recorded after the Int32 publisher had gone (the hostile pass)."""
    bag = tmp_path / 'bag'
    # two participants: one may not publish a topic under two types
    context, other = rclpy.Context(), rclpy.Context()
    rclpy.init(context=context)
    rclpy.init(context=other)
    node = rclpy.create_node('recorder_test_types', context=context)
    strings = node.create_publisher(String, '/chatter', 10)
    numbers = rclpy.create_node('recorder_test_numbers', context=other)
    numbers.create_publisher(Int32, '/chatter', 10)
    proc = start_recorder(bag)
    try:
        time.sleep(1.5)  # three discovery periods with both types
        numbers.destroy_node()
        rclpy.try_shutdown(context=other)
        deadline = time.monotonic() + MATCH_TIMEOUT_S
        while strings.get_subscription_count() < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        for i in range(20):
            strings.publish(String(data=f'left {i}'))
            time.sleep(0.01)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=EXIT_TIMEOUT_S)[0]
    finally:
        stop(proc)
        rclpy.try_shutdown(context=context)
        rclpy.try_shutdown(context=other)
    assert out.count('not recording /chatter yet: it carries 2 types') == 1, out
    assert 'recording /chatter as std_msgs/msg/String, the one type left' in out, out
    assert [m.data for t, _, m in read_messages(bag) if t == '/chatter'] == [
        f'left {i}' for i in range(20)
    ]


def on_disk(bag, topic):
    """Messages on ``topic`` that the recorder running into ``bag`` has flushed so far."""
    files = list(bag.glob('*.mcap')) if bag.is_dir() else []
    # a file the writer has made but not yet begun is not an MCAP file yet
    if not files or files[0].stat().st_size < len(MCAP_MAGIC):
        return 0
    return len(list(read_raw(files[0], [topic])))


def test_a_latched_message_published_before_the_recorder_is_recorded_with_its_qos(tmp_path):
    """As rosbag2: subscribed transient local when every publisher offers it, so a map, a plan or a
    robot description published before the recording began is in the bag; the offered profiles go
    into metadata.yaml."""
    bag = tmp_path / 'bag'
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('recorder_test_latched', context=context)
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    node.create_publisher(String, '/chatter', latched).publish(String(data='the map'))
    proc = start_recorder(bag)
    try:
        poll(lambda: on_disk(bag, '/chatter'), MATCH_TIMEOUT_S)
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=EXIT_TIMEOUT_S)[0]
    finally:
        stop(proc)
        rclpy.try_shutdown(context=context)
    assert [m.data for t, _, m in read_messages(bag) if t == '/chatter'] == ['the map'], out
    info = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    (chatter,) = [
        t['topic_metadata']
        for t in info['topics_with_message_count']
        if t['topic_metadata']['name'] == '/chatter'
    ]
    # rmw's infinite duration, as rosbag2 writes it
    infinite = {'sec': 9223372036, 'nsec': 854775807}
    # the graph does not tell a publisher's history: rosbag2 stores unknown and 0 too
    assert chatter['offered_qos_profiles'] == [
        {
            'history': 'unknown',
            'depth': 0,
            'reliability': 'reliable',
            'durability': 'transient_local',
            'deadline': infinite,
            'lifespan': infinite,
            'liveliness': 'automatic',
            'liveliness_lease_duration': infinite,
            'avoid_ros_namespace_conventions': False,
        }
    ]


def test_existing_output_directory_is_refused(tmp_path):
    bag = tmp_path / 'bag'
    bag.mkdir()
    (bag / 'keep.txt').write_text('earlier recording')
    proc = start_recorder(bag)
    out = ''
    try:
        out = proc.communicate(timeout=EXIT_TIMEOUT_S)[0]
    finally:
        if proc.poll() is None:
            out = stop(proc)
    assert proc.returncode != 0
    assert "parameter 'output'" in out and str(bag) in out and 'exists already' in out, out
    assert [p.name for p in bag.iterdir()] == ['keep.txt']


def test_topic_selection_and_type_import():
    discovered = [
        ('/chatter', ['std_msgs/msg/String']),
        ('/a/_hidden', ['std_msgs/msg/String']),
        ('/link_status', ['soro_interfaces/msg/LinkStatus']),
    ]
    assert select_topics(discovered, [], []) == [
        ('/chatter', ['std_msgs/msg/String']),
        ('/link_status', ['soro_interfaces/msg/LinkStatus']),
    ]
    assert select_topics(discovered, ['/a/_hidden', '/nowhere'], []) == [
        ('/a/_hidden', ['std_msgs/msg/String'])
    ]
    assert select_topics(discovered, [], ['/chatter']) == [
        ('/link_status', ['soro_interfaces/msg/LinkStatus'])
    ]
    assert import_message_class('soro_interfaces/msg/LinkStatus') is LinkStatus
    with pytest.raises(ImportError):
        import_message_class('std_msgs/msg/NoSuch')
    # no ROS type name; no installed interface package
    for bad in ('std_msgs/String', 'no_such_pkg/msg/X'):
        with pytest.raises(ValueError):
            import_message_class(bad)
    with pytest.raises(ValueError, match='2 types'):
        recordable_type(['std_msgs/msg/String', 'std_msgs/msg/Int32'], {'std_msgs/msg/String'})
    with pytest.raises(ValueError, match='typestore'):
        recordable_type(['my_pkg/msg/Unknown'], {'std_msgs/msg/String'})


def test_the_subscription_adapts_to_every_publisher_as_rosbag2_does():
    latched = offered_profile(QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
    sensor = offered_profile(QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT))
    assert recording_policies([latched]) == (True, True)
    # one volatile publisher: volatile for all
    assert recording_policies([latched, sensor]) == (False, False)
    assert recording_policies([]) == (False, False)


def test_the_recorder_started_with_sigint_ignored_still_stops_on_sigint(tmp_path):
    """As a script's `recorder &` starts it, without job control: SIGINT inherited as ignored."""
    log = tmp_path / 'node.log'
    recorder = Path(get_package_prefix('soro_analysis')) / 'lib' / 'soro_analysis' / 'recorder'
    process = subprocess.Popen(
        [str(recorder), '--ros-args', '-p', f'output:={tmp_path}/bag'],
        stdout=log.open('w'),
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert poll(lambda: 'recording into' in log.read_text(), 15.0), log.read_text()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=5.0) == 0, log.read_text()
    finally:
        process.kill()
