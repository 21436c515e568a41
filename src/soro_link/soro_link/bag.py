"""rosbag2 (MCAP) files through rosbags, with the workspace's own message types registered.

Machines without ``ros2 bag`` write and read bags here; what is written is a standard rosbag2 directory
(``metadata.yaml`` plus an ``.mcap`` file) that ``ros2 bag info`` and the MCAP tools read.

A bag survives its writer: ``BagWriter`` puts what it holds on disk at least every ``flush_interval_s`` (a
complete MCAP chunk, synced), so a recorder killed by SIGKILL or a power cut loses at most that much. Such a bag
has no ``metadata.yaml`` and its ``.mcap`` no summary; ``read_messages`` reads it up to its last complete chunk and
says so (on a ROS machine ``ros2 bag reindex`` rebuilds its metadata).
"""
from __future__ import annotations

import os
import struct
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from mcap.exceptions import McapError
from mcap.records import Channel, Message, Schema
from mcap.stream_reader import StreamReader
from rosbags.rosbag2 import Reader, StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.store import Typestore

INTERFACE_PACKAGES = ('soro_interfaces',)


def message_definitions(package: str) -> dict[str, str]:
    """Map ``pkg/msg/Name`` to the .msg text installed in ``package``'s share directory."""
    msg_dir = Path(get_package_share_directory(package)) / 'msg'
    return {f'{package}/msg/{p.stem}': p.read_text() for p in sorted(msg_dir.glob('*.msg'))}


def workspace_typestore(packages: Iterable[str] = INTERFACE_PACKAGES) -> Typestore:
    """The Jazzy typestore plus every message of ``packages``, parsed from their installed .msg files."""
    store = get_typestore(Stores.ROS2_JAZZY)
    for package in packages:
        types = {}
        for name, text in message_definitions(package).items():
            types.update(get_types_from_msg(text, name))
        store.register(types)
    return store


class BagWriter:
    """A rosbag2 MCAP writer that accepts serialized CDR (as rclpy raw subscriptions deliver it) or messages.

    Messages are gathered into MCAP chunks; a chunk is written and synced to disk once it is ``flush_interval_s``
    old (checked at each write and at each ``flush_if_due``, which a recorder calls from a timer so that a quiet
    topic is flushed too) or 1 MiB large. ``close`` writes the summary and ``metadata.yaml``.
    """

    def __init__(self, path: str | Path, typestore: Typestore | None = None, flush_interval_s: float = 0.5):
        self.typestore = typestore or workspace_typestore()
        self.flush_interval_s = flush_interval_s
        self._writer = Writer(Path(path), version=9, storage_plugin=StoragePlugin.MCAP)
        self._writer.open()
        self._connections = {}
        self._flushed_at = time.monotonic()

    def add_topic(self, topic: str, msgtype: str) -> None:
        """Declare ``topic`` of ROS type ``msgtype`` (``pkg/msg/Name``); idempotent."""
        if topic not in self._connections:
            self._connections[topic] = self._writer.add_connection(topic, msgtype, typestore=self.typestore)

    def write_cdr(self, topic: str, stamp_ns: int, data: bytes) -> None:
        """Append one serialized message received at ``stamp_ns`` (ns since the epoch)."""
        self._writer.write(self._connections[topic], stamp_ns, data)
        self.flush_if_due()

    def write(self, topic: str, stamp_ns: int, message: object) -> None:
        """Append one rosbags message object."""
        msgtype = self._connections[topic].msgtype
        self.write_cdr(topic, stamp_ns, self.typestore.serialize_cdr(message, msgtype))

    def flush_if_due(self) -> None:
        if time.monotonic() - self._flushed_at >= self.flush_interval_s:
            self.flush()

    def flush(self) -> None:
        """Write the messages gathered so far as a complete chunk and sync the file: what a kill cannot take."""
        # rosbags (pinned) gathers a chunk in storage.chunk and writes it at 1 MiB or at close; closing it early
        # is its own step, and leaves the summary that close() writes complete
        storage = self._writer.storage
        if storage.chunk.bio.tell():
            storage.close_chunk()
        storage.bio.flush()
        os.fsync(storage.bio.fileno())
        self._flushed_at = time.monotonic()

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> BagWriter:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def read_messages(path: str | Path, topics: Iterable[str] | None = None, typestore: Typestore | None = None,
                  report: Callable[[str], None] | None = None) -> Iterator[tuple[str, int, object]]:
    """Yield ``(topic, stamp_ns, message)`` from a rosbag2 directory, in time order.

    An unfinished bag (no ``metadata.yaml``: its writer was killed) is read from its ``.mcap`` in file order up to
    the last complete chunk, and ``report`` gets one line saying how much was read."""
    store = typestore or workspace_typestore()
    wanted = set(topics) if topics is not None else None
    path = Path(path)
    if path.is_dir() and not (path / 'metadata.yaml').exists():
        yield from _unfinished(path, wanted, store, report or (lambda _line: None))
        return
    with Reader(path) as reader:
        connections = [c for c in reader.connections if wanted is None or c.topic in wanted]
        for connection, stamp_ns, data in reader.messages(connections=connections):
            yield connection.topic, stamp_ns, store.deserialize_cdr(data, connection.msgtype)


class UnreadableBag(ValueError):
    """Not a bag this module can read; the message says why in one line."""


def _unfinished(path: Path, wanted: set[str] | None, store: Typestore, report: Callable[[str], None]):
    files = sorted(path.glob('*.mcap'))
    if len(files) != 1:
        raise UnreadableBag(f'{path}: no metadata.yaml and {len(files)} .mcap files; expected one')
    types, topics, stamps = {}, {}, []
    with files[0].open('rb') as stream:
        records = _CompleteRecords(stream)
        for record in records:
            if isinstance(record, Schema):
                types[record.id] = record.name
            elif isinstance(record, Channel):
                topics[record.id] = (record.topic, types[record.schema_id])
            elif isinstance(record, Message) and record.channel_id in topics:
                topic, msgtype = topics[record.channel_id]
                stamps.append(record.log_time)
                if wanted is None or topic in wanted:
                    yield topic, record.log_time, store.deserialize_cdr(record.data, msgtype)
    span = (max(stamps) - min(stamps)) * 1e-9 if stamps else 0.0
    report(f'{path}: unfinished bag (no metadata.yaml: its writer never closed it); read {len(stamps)} messages '
           f'over {span:.3f} s on {len(topics)} topic(s) from its {files[0].stat().st_size} bytes, up to '
           + ('its end' if records.complete else 'the last complete record'))


class _CompleteRecords:
    """The MCAP records of ``stream`` in file order, up to the first one cut short; ``complete`` tells whether
    the file ended with its footer."""

    def __init__(self, stream):
        self._records = StreamReader(stream).records
        self.complete = False

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self._records)
        except StopIteration:
            self.complete = True
            raise
        except (McapError, EOFError, ValueError, struct.error):   # no summary, or a record cut short by a kill
            raise StopIteration from None
