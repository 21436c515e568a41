"""rosbag2 (MCAP) files through rosbags, with the workspace's own message types registered.

Machines without ``ros2 bag`` write and read bags here; what is written is a standard rosbag2 directory
(``metadata.yaml`` plus an ``.mcap`` file) that ``ros2 bag info`` and the MCAP tools read. What is read is any
rosbag2 bag, ours or ``ros2 bag record``'s: a directory (MCAP or sqlite3) or a single ``.mcap`` or ``.db3`` file.

A bag survives a full disk: when the file system refuses a write (ENOSPC), ``BagWriter`` drops what it had not yet
put on disk, frees a reserve it keeps beside the bag for this moment, finishes the bag as ``close`` does with what
was on disk at its last flush, and raises ``DiskFull``.

A bag survives its writer: ``BagWriter`` puts what it holds on disk at least every ``flush_interval_s`` (a
complete MCAP chunk, synced), so a recorder killed by SIGKILL or a power cut loses at most that much. Such a bag
has no ``metadata.yaml`` and its ``.mcap`` no summary; ``read_messages`` reads it up to its last complete chunk and
says so (on a ROS machine ``ros2 bag reindex`` rebuilds its metadata).
"""
from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import struct
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from mcap.exceptions import McapError
from mcap.records import Channel, Message, Schema
from mcap.stream_reader import StreamReader
from rosbags.interfaces import Qos
from rosbags.rosbag2 import Reader, ReaderError, StoragePlugin, Writer
from rosbags.rosbag2.metadata import parse_qos
from rosbags.rosbag2.storage_mcap import PendingChunk
from rosbags.serde import SerdeError
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


class DiskFull(OSError):
    """The file system of a bag is full; the bag was finished with what was on disk at its last flush. The
    message is one line: ``disk full: <bag path>``."""


# Room kept beside a bag being written (a preallocated file, deleted at close), so that a bag whose disk filled up
# can still be finished: the MCAP summary (schemas, channels, an index entry per chunk) and metadata.yaml. It grows
# with the chunk index.
RESERVE_BASE_BYTES = 256 * 1024
RESERVE_PER_CHUNK_BYTES = 128
RESERVE_NAME = '.disk_reserve'


@dataclass
class _OnDisk:
    """What the writers had counted at the last flush: restored when later writes are lost to a full disk."""
    offset: int
    chunks: int
    channel_stats: dict
    message_times: tuple[int, int]
    counts: dict
    timestamps: tuple[int, int]


class BagWriter:
    """A rosbag2 MCAP writer that accepts serialized CDR (as rclpy raw subscriptions deliver it) or messages.

    Messages are gathered into MCAP chunks; a chunk is written and synced to disk once it is ``flush_interval_s``
    old (checked at each write and at each ``flush_if_due``, which a recorder calls from a timer so that a quiet
    topic is flushed too) or 1 MiB large. ``close`` writes the summary and ``metadata.yaml``.
    """

    def __init__(self, path: str | Path, typestore: Typestore | None = None, flush_interval_s: float = 0.5):
        self.typestore = typestore or workspace_typestore()
        self.flush_interval_s = flush_interval_s
        self.path = Path(path)
        self._writer = Writer(self.path, version=9, storage_plugin=StoragePlugin.MCAP)
        self._writer.open()
        self._connections = {}
        self._flushed_at = time.monotonic()
        self._closed, self.full = False, False
        self._reserve = self.path / RESERVE_NAME
        self._on_disk = self._checkpoint()
        with self._guard():
            self._writer.storage.bio.flush()      # the MCAP header, before any offset is taken as on disk
            self._grow_reserve()
            self._on_disk = self._checkpoint()

    def add_topic(self, topic: str, msgtype: str, offered_qos: Sequence[Qos] = ()) -> None:
        """Declare ``topic`` of ROS type ``msgtype`` (``pkg/msg/Name``), with the QoS profiles its publishers
        offered (stored as rosbag2 does: in metadata.yaml and in the MCAP channel); idempotent."""
        if topic not in self._connections:
            with self._guard():
                self._connections[topic] = self._writer.add_connection(topic, msgtype, typestore=self.typestore,
                                                                       offered_qos_profiles=list(offered_qos))

    def write_cdr(self, topic: str, stamp_ns: int, data: bytes) -> None:
        """Append one serialized message received at ``stamp_ns`` (ns since the epoch). Raises DiskFull when the
        file system is full (the bag is then finished; later calls raise it again)."""
        with self._guard():
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
        with self._guard():
            # rosbags (pinned) gathers a chunk in storage.chunk and writes it at 1 MiB or at close; closing it
            # early is its own step, and leaves the summary that close() writes complete
            storage = self._writer.storage
            if storage.chunk.bio.tell():
                storage.close_chunk()
            storage.bio.flush()
            os.fsync(storage.bio.fileno())
            self._grow_reserve()
            self._on_disk = self._checkpoint()
            self._flushed_at = time.monotonic()

    def message_counts(self) -> dict[str, int]:
        """Messages in the bag by topic (after a full disk: those it kept)."""
        return {topic: self._writer.counts[c.id] for topic, c in self._connections.items()}

    def close(self) -> None:
        """Write the summary and metadata.yaml; idempotent. Raises DiskFull when even that finds the disk full
        (the bag is then finished with what was on disk at the last flush)."""
        if self._closed:
            return
        with self._guard():
            self._writer.close()
        self._closed = True
        self._reserve.unlink(missing_ok=True)

    # -- a full disk

    @contextlib.contextmanager
    def _guard(self):
        if self.full:
            raise DiskFull(f'disk full: {self.path}')
        try:
            yield
        except DiskFull:        # from a nested guard (write_cdr -> flush): the bag is finished already
            raise
        except OSError as error:
            if error.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            self._finish_on_full_disk()
            raise DiskFull(f'disk full: {self.path}') from None

    def _grow_reserve(self) -> None:
        size = RESERVE_BASE_BYTES + RESERVE_PER_CHUNK_BYTES * len(self._writer.storage.chunks)
        fd = os.open(self._reserve, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.posix_fallocate(fd, 0, size)     # real blocks (a sparse file would free nothing)
        finally:
            os.close(fd)

    def _checkpoint(self) -> _OnDisk:
        storage, writer = self._writer.storage, self._writer
        return _OnDisk(storage.bio.tell(), len(storage.chunks), dict(storage.channel_stats),
                       (storage.message_start_time, storage.message_end_time), dict(writer.counts),
                       (writer.min_timestamp, writer.max_timestamp))

    def _finish_on_full_disk(self) -> None:
        """Forget what came after the last flush, cut the file back to it, free the reserve and finish the bag as
        close() does; if even that finds no room, the file stays cut at the last flush (readable as a killed
        writer's bag)."""
        self.full, self._closed = True, True
        storage, writer, kept = self._writer.storage, self._writer, self._on_disk
        del storage.chunks[kept.chunks:]
        storage.channel_stats = {cid: kept.channel_stats.get(cid, 0) for cid in storage.channel_stats}
        storage.message_start_time, storage.message_end_time = kept.message_times
        writer.counts = {cid: kept.counts.get(cid, 0) for cid in writer.counts}
        writer.min_timestamp, writer.max_timestamp = kept.timestamps
        storage.chunk = PendingChunk(2**63 - 1, 0, BytesIO(), defaultdict(list))    # as rosbags starts one
        with contextlib.suppress(OSError):      # its buffer cannot be written: the disk is full
            storage.bio.close()
        self._reserve.unlink(missing_ok=True)
        storage.bio = storage.path.open('r+b')
        storage.bio.truncate(kept.offset)
        storage.bio.seek(kept.offset)
        try:
            writer.close()
        except OSError:
            with contextlib.suppress(OSError):
                storage.bio.close()
            with storage.path.open('r+b') as stream:
                stream.truncate(kept.offset)

    def __enter__(self) -> BagWriter:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


@dataclass(frozen=True)
class RawMessage:
    topic: str
    msgtype: str        # pkg/msg/Name
    stamp_ns: int       # when the recorder received it (ns since the epoch)
    data: bytes         # serialized CDR


class UnreadableBag(ValueError):
    """Not a bag this module can read; the message says why in one line."""


# What reading a malformed bag raises below us (rosbags, also for bad YAML; the MCAP reader; the file system): turned
# into UnreadableBag at the edge of this module, so every tool says it in one line.
_MALFORMED = (ReaderError, McapError, OSError, EOFError, KeyError, ValueError, struct.error)


@contextlib.contextmanager
def _reading(path: Path):
    try:
        yield
    except UnreadableBag:
        raise
    except _MALFORMED as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]   # YAML errors span lines
        raise UnreadableBag(f'{path}: not a readable bag ({reason})') from None


def _check_path(path: Path) -> None:
    if path.is_symlink() and not path.exists():
        raise UnreadableBag(f'{path}: a symbolic link that leads nowhere (dangling, or a loop)')
    if not path.exists():
        raise UnreadableBag(f'{path}: no such file or directory')


def read_raw(path: str | Path, topics: Iterable[str] | None = None,
             report: Callable[[str], None] | None = None) -> Iterator[RawMessage]:
    """The messages of a bag, serialized, as recorded: a rosbag2 directory (MCAP or sqlite3, written by our
    recorder or by ``ros2 bag record``) or a single ``.mcap`` or ``.db3`` file.

    A directory with ``metadata.yaml`` is read in time order. One without (its writer was killed) and a single file
    are read in file order; an MCAP file that ends inside a record, up to its last complete record, and ``report``
    then gets one line saying how much was read."""
    path, wanted = Path(path), set(topics) if topics is not None else None
    report = report or (lambda _line: None)
    _check_path(path)
    with _reading(path):
        if path.is_dir() and (path / 'metadata.yaml').exists():
            yield from _rosbag2(path, wanted)
            return
        path = _storage_file(path)
        if path.suffix == '.mcap':
            yield from _mcap(path, wanted, report)
        else:
            yield from _sqlite3(path, wanted)


def offered_qos(path: str | Path) -> dict[str, list[Qos]]:
    """The QoS profiles each topic's publishers offered when it was recorded, where the bag stores them (rosbag2
    and our recorder: metadata.yaml, each MCAP channel's metadata, the sqlite3 topics table); a topic recorded
    without them (by older tools) is absent."""
    path = Path(path)
    _check_path(path)
    if path.is_dir() and (path / 'metadata.yaml').exists():
        with _reading(path), Reader(path) as reader:
            return {c.topic: list(c.ext.offered_qos_profiles) for c in reader.connections
                    if getattr(c.ext, 'offered_qos_profiles', None)}
    path = _storage_file(path)
    if path.suffix == '.mcap':
        with _reading(path), path.open('rb') as stream:
            stored = {r.topic: r.metadata.get('offered_qos_profiles', '') for r in _CompleteRecords(stream)
                      if isinstance(r, Channel)}
    else:
        try:
            with contextlib.closing(sqlite3.connect(f'file:{path}?mode=ro', uri=True)) as db:
                stored = dict(db.execute('SELECT name, offered_qos_profiles FROM topics'))
        except sqlite3.DatabaseError:      # no such column in the oldest rosbag2 files, or not a bag at all
            return {}
    return {topic: profiles for topic, text in stored.items() if (profiles := _parse_qos(text))}


def _parse_qos(text: str) -> list[Qos]:
    try:
        return parse_qos(text)
    except (ReaderError, KeyError, TypeError, AttributeError, ValueError):   # unreadable: replayed as if none stored
        return []


def _storage_file(path: Path) -> Path:
    """The one .mcap or .db3 file a bag without metadata.yaml is: ``path`` itself or the one in its directory."""
    if path.is_dir():
        files = sorted(path.glob('*.mcap')) + sorted(path.glob('*.db3'))
        if len(files) != 1:
            raise UnreadableBag(f'{path}: no metadata.yaml and {len(files)} .mcap/.db3 files; expected one')
        path = files[0]
    if path.suffix not in ('.mcap', '.db3'):
        raise UnreadableBag(f'{path}: neither a rosbag2 directory nor an .mcap or .db3 file')
    return path


def read_messages(path: str | Path, topics: Iterable[str] | None = None, typestore: Typestore | None = None,
                  report: Callable[[str], None] | None = None) -> Iterator[tuple[str, int, object]]:
    """Yield ``(topic, stamp_ns, message)`` from a bag (see ``read_raw``), deserialized with ``typestore`` (default:
    the workspace's)."""
    store = typestore or workspace_typestore()
    for message in read_raw(path, topics, report):
        yield message.topic, message.stamp_ns, decode(store, message, path)


def decode(store: Typestore, message: RawMessage, path: str | Path) -> object:
    """``message`` deserialized; UnreadableBag naming the bag, the topic and the type when the type is unknown
    or the CDR does not parse as one."""
    if message.msgtype not in store.types:
        raise UnreadableBag(f'{path}: {message.topic} carries {message.msgtype}, which is not in the typestore')
    try:
        return store.deserialize_cdr(message.data, message.msgtype)
    except (SerdeError, struct.error, IndexError, ValueError, UnicodeDecodeError) as error:
        raise UnreadableBag(f'{path}: a message on {message.topic} is not valid CDR for {message.msgtype} '
                            f'({error})') from None


def _rosbag2(path: Path, wanted: set[str] | None) -> Iterator[RawMessage]:
    with Reader(path) as reader:
        connections = [c for c in reader.connections if wanted is None or c.topic in wanted]
        for connection, stamp_ns, data in reader.messages(connections=connections):
            yield RawMessage(connection.topic, connection.msgtype, stamp_ns, data)


def _mcap(path: Path, wanted: set[str] | None, report: Callable[[str], None]) -> Iterator[RawMessage]:
    types, topics = {}, {}
    read, first_ns, last_ns = 0, None, None      # counted, not kept: a bag may hold millions
    with path.open('rb') as stream:
        records = _CompleteRecords(stream)
        for record in records:
            if isinstance(record, Schema):
                types[record.id] = record.name
            elif isinstance(record, Channel):
                if record.schema_id not in types:     # 0: a schema-less channel, which no ROS 2 bag has
                    raise UnreadableBag(f'{path}: channel {record.topic} has no schema (schema id '
                                        f'{record.schema_id}), so its type is unknown')
                topics[record.id] = (record.topic, types[record.schema_id])
            elif isinstance(record, Message) and record.channel_id in topics:
                topic, msgtype = topics[record.channel_id]
                read += 1
                first_ns = record.log_time if first_ns is None else min(first_ns, record.log_time)
                last_ns = record.log_time if last_ns is None else max(last_ns, record.log_time)
                if wanted is None or topic in wanted:
                    yield RawMessage(topic, msgtype, record.log_time, record.data)
    if not records.complete:
        span = (last_ns - first_ns) * 1e-9 if read else 0.0
        report(f'{path}: unfinished bag (the file ends without its summary: its writer was killed); read '
               f'{read} messages over {span:.3f} s on {len(topics)} topic(s) from its {path.stat().st_size} '
               'bytes, up to the last complete record')


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


def _sqlite3(path: Path, wanted: set[str] | None) -> Iterator[RawMessage]:
    """rosbag2's sqlite3 storage: tables ``topics`` (id, name, type, ...) and ``messages`` (topic_id, timestamp,
    data), read-only."""
    try:
        with contextlib.closing(sqlite3.connect(f'file:{path}?mode=ro', uri=True)) as db:
            topics = {row[0]: (row[1], row[2]) for row in db.execute('SELECT id, name, type FROM topics')}
            rows = db.execute('SELECT topic_id, timestamp, data FROM messages ORDER BY timestamp')
            for topic_id, stamp_ns, data in rows:
                topic, msgtype = topics[topic_id]
                if wanted is None or topic in wanted:
                    yield RawMessage(topic, msgtype, stamp_ns, bytes(data))
    except sqlite3.DatabaseError as error:
        raise UnreadableBag(f'{path}: not a readable rosbag2 sqlite3 file ({error})') from None
