"""Malformed bags and hostile type names (issue 26, items 5 and 8): soro-analyze and soro-replay
answer each with one line naming the bag and exit 2, no traceback; a bag's schema name is data and
never imports a module."""

import os
import shutil
import subprocess
import sys

import pytest
from mcap.writer import Writer as McapWriter
from rclpy.serialization import serialize_message
from rosbags.typesys import get_types_from_msg
from std_msgs.msg import String

from softbots_bringup.runner import executable
from soro_analysis.bag import workspace_typestore
from soro_analysis.bag_writer import BagWriter
from soro_analysis.recorder import import_message_class

T0_NS = 1_700_000_000_000_000_000
STATE = '/tensegrity_sim/state'  # a signature topic, so soro-analyze gets as far as decoding


def good_bag(path, topic='/chatter', count=3000):
    with BagWriter(path, workspace_typestore()) as bag:
        bag.add_topic(topic, 'std_msgs/msg/String')
        for k in range(count):
            bag.write_cdr(
                topic, T0_NS + k * 1_000_000, serialize_message(String(data='x' * (k % 50)))
            )
    return path


def truncated(root):
    bag = shutil.copytree(good_bag(root / 'source'), root / 'truncated')
    mcap = next(bag.glob('*.mcap'))
    mcap.write_bytes(mcap.read_bytes()[: mcap.stat().st_size // 2])
    return bag


def metadata(text):
    def make(root):
        bag = good_bag(root / 'bag')
        (bag / 'metadata.yaml').write_text(text)
        return bag

    return make


def self_symlink(root):
    os.symlink('loop', root / 'loop')
    return root / 'loop'


def corrupt_cdr(root):
    """A string whose length field claims 2 GiB, on the tensegrity's state topic."""
    with BagWriter(root / 'corrupt', workspace_typestore()) as bag:
        bag.add_topic(STATE, 'soro_interfaces/msg/TensegrityState')
        bag.write_cdr(STATE, T0_NS, b'\x00\x01\x00\x00\xff\xff\xff\x7fabc')
    return root / 'corrupt'


def schemaless(root):
    """An MCAP file whose channel has schema id 0 (no schema): its type is unknown."""
    path = root / 'schemaless.mcap'
    with path.open('wb') as stream:
        writer = McapWriter(stream)
        writer.start('ros2', 'test')
        channel = writer.register_channel(STATE, 'cdr', 0)
        writer.add_message(channel, T0_NS, b'\x00\x01\x00\x00', T0_NS)
        writer.finish()
    return path


def empty_mcap(root):
    (root / 'empty.mcap').write_bytes(b'')
    return root / 'empty.mcap'


def foreign_mcap(root):
    """Random bytes named .mcap: read as an empty bag before (the reader stopped at the first
    record, as at a cut)."""
    (root / 'random.mcap').write_bytes(bytes(range(256)) * 20)
    return root / 'random.mcap'


MALFORMED = {
    'empty mcap': empty_mcap,
    'foreign mcap': foreign_mcap,
    'truncated mcap': truncated,
    'metadata not yaml': metadata('{{{: not yaml ['),
    'metadata lacking keys': metadata('a: 1\n'),
    'self symlink': self_symlink,
    'corrupt cdr': corrupt_cdr,
    'schema-less channel': schemaless,
}
TOOLS = {
    'soro-analyze': lambda bag, tmp: ['--robot', 'tensegrity', '--out', str(tmp / 'out')],
    'soro-replay': lambda bag, tmp: ['--delay', '0'],
}


def run(tool, bag, tmp_path):
    return subprocess.run(
        [executable('soro_analysis', tool), str(bag), *TOOLS[tool](bag, tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize('tool', TOOLS)
@pytest.mark.parametrize('kind', MALFORMED)
def test_a_malformed_bag_gets_one_line_and_exit_2(tmp_path, kind, tool):
    bag = MALFORMED[kind](tmp_path)
    done = run(tool, bag, tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert 'Traceback' not in done.stderr and done.stderr.count('\n') == 1, done.stderr
    assert done.stderr.startswith(f'{tool}: {bag}'), done.stderr
    if kind == 'self symlink':  # said "no such file or directory" before
        assert 'symbolic link' in done.stderr, done.stderr


def test_a_signature_topic_of_another_type_is_one_line(tmp_path):
    """The analysis' topic with the right name and another type: an AttributeError traceback
    before."""
    bag = good_bag(tmp_path / 'bag', topic=STATE, count=3)
    done = run('soro-analyze', bag, tmp_path)
    assert done.returncode == 2 and 'Traceback' not in done.stderr, done.stderr
    assert done.stderr == (
        f'soro-analyze: {bag}: {STATE} carries std_msgs/msg/String, not the '
        'soro_interfaces/msg/TensegrityState this analysis reads\n'
    )
    assert not (tmp_path / 'out').exists()


@pytest.mark.parametrize('msgtype', ['this/msg/X', 'antigravity/msg/X', 'os/msg/Path'])
def test_a_schema_name_is_never_imported(tmp_path, msgtype):
    """`this/msg/X` once printed the Zen of Python: the type is refused naming the topic, nothing
    is imported."""
    store = workspace_typestore()
    store.register(get_types_from_msg('string data', msgtype))
    with BagWriter(tmp_path / 'bag', store) as bag:
        bag.add_topic('/zen', msgtype)
        bag.write('/zen', T0_NS, store.types[msgtype](data='x'))
    done = run('soro-replay', tmp_path / 'bag', tmp_path)
    assert done.returncode == 2 and done.stdout == '', (done.stdout, done.stderr)
    assert done.stderr.count('\n') == 1 and '/zen' in done.stderr and msgtype in done.stderr, (
        done.stderr
    )


@pytest.mark.parametrize(
    'msgtype',
    [
        'this/msg/X',
        'os/msg/Path',
        'os/msg/path',
        'std_msgs/msg/../X',
        'std_msgs/msg',
        'Std_msgs/msg/String',
    ],
)
def test_only_installed_interface_types_are_imported(msgtype):
    module = msgtype.split('/')[0]
    loaded_before = module in sys.modules
    with pytest.raises(ValueError):
        import_message_class(msgtype)
    assert (module in sys.modules) == loaded_before
    assert 'this' not in sys.modules
    assert import_message_class('std_msgs/msg/String') is String
