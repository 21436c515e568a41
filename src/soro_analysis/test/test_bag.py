"""Foundation test 6b: an MCAP bag of our own messages reads back identically, with rosidl's type
hash."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ament_index_python.packages import get_package_share_directory
from rclpy.serialization import deserialize_message, serialize_message
from soro_interfaces.msg import LinkStatus as RclpyLinkStatus

from soro_analysis.bag import read_messages, workspace_typestore
from soro_analysis.bag_writer import BagWriter

STORE = workspace_typestore()
LinkStatus = STORE.types['soro_interfaces/msg/LinkStatus']
DeviceIdentity = STORE.types['soro_interfaces/msg/DeviceIdentity']
Header = STORE.types['std_msgs/msg/Header']
Time = STORE.types['builtin_interfaces/msg/Time']


def link_status(i):
    return LinkStatus(
        header=Header(stamp=Time(sec=100 + i, nanosec=250_000_000), frame_id='base_link'),
        state=LinkStatus.CONNECTED,
        device=DeviceIdentity('soft_snake', '0.9.1', 1, '/dev/ttyACM0'),
        device_safe=bool(i % 2),
        commands_enabled=True,
        rtt_last_s=1e-3 * i,
        rtt_p50_s=0.9e-3,
        rtt_p99_s=1.7e-3,
        last_rx_age_s=math.nan if i == 0 else 0.01,
        frames_rx=10 * i,
        frames_tx=11 * i,
        crc_errors=i,
        format_errors=2,
        nacks=0,
        reconnects=1,
    )


def rosidl_hash(name):
    share = Path(get_package_share_directory('soro_interfaces'))
    description = json.loads((share / 'msg' / f'{name}.json').read_text())
    return next(
        h['hash_string']
        for h in description['type_hashes']
        if h['type_name'] == f'soro_interfaces/msg/{name}'
    )


def test_mcap_round_trip_is_identical_and_carries_rosidl_hash(tmp_path):
    bag = tmp_path / 'bag'
    sent = [link_status(i) for i in range(50)]
    with BagWriter(bag, STORE) as writer:
        writer.add_topic('/link_status', 'soro_interfaces/msg/LinkStatus')
        for i, msg in enumerate(sent):
            writer.write('/link_status', 1_000_000_000 + i * 10_000_000, msg)

    assert len(list(bag.glob('*.mcap'))) == 1
    got = list(read_messages(bag, typestore=STORE))
    assert [t for _, t, _ in got] == [1_000_000_000 + i * 10_000_000 for i in range(50)]
    assert {topic for topic, _, _ in got} == {'/link_status'}
    # NaN != NaN, so compare serialized bytes, which are equal exactly when every field is
    assert [STORE.serialize_cdr(m, LinkStatus.__msgtype__) for _, _, m in got] == [
        STORE.serialize_cdr(m, LinkStatus.__msgtype__) for m in sent
    ]
    assert math.isnan(got[0][2].last_rx_age_s) and got[3][2].crc_errors == 3

    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    [topic] = metadata['topics_with_message_count']
    assert topic['message_count'] == 50
    assert metadata['storage_identifier'] == 'mcap'
    assert topic['topic_metadata']['type_description_hash'] == rosidl_hash('LinkStatus')


def test_typestore_and_rclpy_read_each_others_bytes():
    # Fast CDR leaves alignment padding uninitialised, so the check is field by field, not byte by
    # byte.
    ros_msg = RclpyLinkStatus(state=2, rtt_p99_s=1.5e-3, crc_errors=4, reconnects=9)
    ros_msg.device.device_kind = 'pom_voxel'
    ros_msg.header.stamp.sec = 42
    ours = STORE.deserialize_cdr(serialize_message(ros_msg), LinkStatus.__msgtype__)
    assert (ours.state, ours.rtt_p99_s, ours.crc_errors, ours.reconnects) == (2, 1.5e-3, 4, 9)
    assert (ours.device.device_kind, ours.header.stamp.sec) == ('pom_voxel', 42)

    back = deserialize_message(
        bytes(STORE.serialize_cdr(link_status(3), LinkStatus.__msgtype__)), RclpyLinkStatus
    )
    assert (back.header.stamp.sec, back.header.frame_id, back.device.port) == (
        103,
        'base_link',
        '/dev/ttyACM0',
    )
    assert (back.rtt_last_s, back.frames_tx, back.crc_errors, back.device_safe) == (
        3e-3,
        33,
        3,
        True,
    )
    assert STORE.hash_rihs01('soro_interfaces/msg/DeviceIdentity') == rosidl_hash('DeviceIdentity')


FULL_AT_CLOSE = """
import json, sys
from pathlib import Path
from soro_analysis.bag import read_messages, workspace_typestore
from soro_analysis.bag_writer import BagWriter, DiskFull
store = workspace_typestore()
String = store.types['std_msgs/msg/String']
small = Path(sys.argv[1])
bag = BagWriter(small / 'bag', store, flush_interval_s=3600.0)
bag.add_topic('/chatter', 'std_msgs/msg/String')
for i in range(100):
    bag.write('/chatter', 1_000_000_000 + i, String(data=f'{i} ' + 'x' * 1000))
bag.flush()
try:                                    # something else takes the rest of the disk
    with (small / 'filler').open('wb') as filler:
        while True:
            filler.write(b'f' * 65536)
            filler.flush()
except OSError:
    pass
# gathered in memory: no write fails until the bag is closed:
for i in range(100, 200):
    bag.write('/chatter', 1_000_000_000 + i, String(data=f'{i} ' + 'x' * 1000))
try:
    bag.close()
    said = 'closed'
except DiskFull as error:
    said = str(error)
reports = []
kept = [int(m.data.split()[0]) for _, _, m in read_messages(small / 'bag', report=reports.append)]
print(json.dumps({'said': said, 'kept': kept, 'reports': reports,
                  'files': sorted(p.name for p in (small / 'bag').iterdir())}))
"""


def test_a_disk_that_fills_up_before_close_leaves_a_finished_bag(tmp_path):
    """Issue 26 item 6, the writer alone: the disk fills up (another file takes it) between a flush
    and close. The bag is finished with what the flush put on disk, metadata.yaml included, and
    close says "disk full"."""
    small = tmp_path / 'small'
    small.mkdir()
    script = f'mount -t tmpfs -o size=1m tmpfs {small} || exit 99; exec "$@"'
    run = subprocess.run(
        [
            'unshare',
            '--mount',
            'bash',
            '-c',
            script,
            'small_disk',
            sys.executable,
            '-c',
            FULL_AT_CLOSE,
            str(small),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if run.returncode == 99:
        pytest.skip('cannot mount a tmpfs here (needs root)')
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result['said'] == f'disk full: {small / "bag"}'
    assert result['kept'] == list(range(100)) and result['reports'] == []
    assert result['files'] == ['bag.mcap', 'metadata.yaml']
