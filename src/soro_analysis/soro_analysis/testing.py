"""Bags for the tests of analyses: the same messages in every form a rosbag2 bag takes. No ROS
graph.

Robot packages test their analysis on each of ``FORMATS`` with ``write_every_format``: a directory
written by our recorder's writer, directories as ``ros2 bag record`` writes them (MCAP and sqlite3
storage, with metadata.yaml), and their single ``.mcap`` and ``.db3`` files.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys.store import Typestore

from soro_analysis.bag import workspace_typestore
from soro_analysis.bag_writer import BagWriter

FORMATS = ('ours', 'mcap', 'sqlite3', 'single.mcap', 'single.db3')
STORAGE = {'mcap': StoragePlugin.MCAP, 'sqlite3': StoragePlugin.SQLITE3}


def write_bag(
    path: Path,
    topic: str,
    msgtype: str,
    messages: Iterable[tuple[int, bytes]],
    storage: str = 'ours',
    typestore: Typestore | None = None,
    flush_interval_s: float = 0.5,
) -> Path:
    """A rosbag2 directory at ``path`` holding ``messages`` ((receive ns, CDR), in order) on
    ``topic``: written by our BagWriter ('ours'), or by rosbags' writer with 'mcap' or 'sqlite3'
    storage."""
    store = typestore or workspace_typestore()
    if storage == 'ours':
        with BagWriter(path, store, flush_interval_s=flush_interval_s) as bag:
            bag.add_topic(topic, msgtype)
            for stamp, data in messages:
                bag.write_cdr(topic, stamp, data)
        return path
    with Writer(path, version=9, storage_plugin=STORAGE[storage]) as writer:
        connection = writer.add_connection(topic, msgtype, typestore=store)
        for stamp, data in messages:
            writer.write(connection, stamp, data)
    return path


def write_every_format(
    root: Path,
    topic: str,
    msgtype: str,
    messages: list[tuple[int, bytes]],
    typestore: Typestore | None = None,
) -> dict[str, Path]:
    """The same ``messages`` in each of FORMATS under ``root``, by format name."""
    made = {
        kind: write_bag(root / kind, topic, msgtype, messages, kind, typestore)
        for kind in ('ours', 'mcap', 'sqlite3')
    }
    made['single.mcap'] = Path(shutil.copy(root / 'mcap' / 'mcap.mcap', root / 'single.mcap'))
    made['single.db3'] = Path(
        shutil.copy(next((root / 'sqlite3').glob('*.db3')), root / 'single.db3')
    )
    return made
