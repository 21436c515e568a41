"""rosbag2 files read through rosbags, with the workspace's own message types registered.

Machines without ``ros2 bag`` read bags here (and write them with ``bag_writer``): any rosbag2 bag,
ours or ``ros2 bag record``'s, a directory (MCAP or sqlite3) or a single ``.mcap`` or ``.db3``
file.

A bag that its writer did not finish (``bag_writer``: a recorder killed by SIGKILL or a power cut)
has no ``metadata.yaml`` and its ``.mcap`` no summary; ``read_messages`` reads it up to its last
complete chunk and says so (on a ROS machine ``ros2 bag reindex`` rebuilds its metadata).
"""

from __future__ import annotations

import contextlib
import sqlite3
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from mcap.exceptions import McapError
from mcap.records import Channel, Message, Schema
from mcap.stream_reader import StreamReader
from rosbags.interfaces import Qos
from rosbags.rosbag2 import Reader, ReaderError
from rosbags.rosbag2.metadata import parse_qos
from rosbags.serde import SerdeError
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.store import Typestore

INTERFACE_PACKAGES = ('soro_interfaces',)


def message_definitions(package: str) -> dict[str, str]:
    """Map ``pkg/msg/Name`` to the .msg text installed in ``package``'s share directory."""
    msg_dir = Path(get_package_share_directory(package)) / 'msg'
    return {f'{package}/msg/{p.stem}': p.read_text() for p in sorted(msg_dir.glob('*.msg'))}


def workspace_typestore(packages: Iterable[str] = INTERFACE_PACKAGES) -> Typestore:
    """The Jazzy typestore plus every message of ``packages``, parsed from their installed .msg
    files."""
    store = get_typestore(Stores.ROS2_JAZZY)
    for package in packages:
        types = {}
        for name, text in message_definitions(package).items():
            types.update(get_types_from_msg(text, name))
        store.register(types)
    return store


@dataclass(frozen=True)
class RawMessage:
    """One recorded message, still serialized (CDR), with its topic, type and receive time."""

    topic: str
    msgtype: str  # pkg/msg/Name
    stamp_ns: int  # when the recorder received it (ns since the epoch)
    data: bytes  # serialized CDR


class UnreadableBag(ValueError):
    """Not a bag this module can read; the message says why in one line."""


# What reading a malformed bag raises below us (rosbags, also for bad YAML; the MCAP reader; the
# file system): turned into UnreadableBag at the edge of this module, so every tool says it in one
# line.
_MALFORMED = (ReaderError, McapError, OSError, EOFError, KeyError, ValueError, struct.error)


@contextlib.contextmanager
def _reading(path: Path):
    try:
        yield
    except UnreadableBag:
        raise
    except _MALFORMED as error:
        # YAML errors span lines
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise UnreadableBag(f'{path}: not a readable bag ({reason})') from None


def _check_path(path: Path) -> None:
    if path.is_symlink() and not path.exists():
        raise UnreadableBag(f'{path}: a symbolic link that leads nowhere (dangling, or a loop)')
    if not path.exists():
        raise UnreadableBag(f'{path}: no such file or directory')


def read_raw(
    path: str | Path,
    topics: Iterable[str] | None = None,
    report: Callable[[str], None] | None = None,
) -> Iterator[RawMessage]:
    """The messages of a bag, serialized, as recorded: a rosbag2 directory (MCAP or sqlite3,
    written by our recorder or by ``ros2 bag record``) or a single ``.mcap`` or ``.db3`` file.

    A directory with ``metadata.yaml`` is read in time order. One without (its writer was killed)
    and a single file are read in file order; an MCAP file that ends inside a record, up to its
    last complete record, and ``report`` then gets one line saying how much was read."""
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
    """The QoS profiles each topic's publishers offered when it was recorded, where the bag stores
    them (rosbag2 and our recorder: metadata.yaml, each MCAP channel's metadata, the sqlite3 topics
    table); a topic recorded without them (by older tools) is absent."""
    path = Path(path)
    _check_path(path)
    if path.is_dir() and (path / 'metadata.yaml').exists():
        with _reading(path), Reader(path) as reader:
            return {
                c.topic: list(c.ext.offered_qos_profiles)
                for c in reader.connections
                if getattr(c.ext, 'offered_qos_profiles', None)
            }
    path = _storage_file(path)
    if path.suffix == '.mcap':
        with _reading(path), path.open('rb') as stream:
            stored = {
                r.topic: r.metadata.get('offered_qos_profiles', '')
                for r in _CompleteRecords(stream, path)
                if isinstance(r, Channel)
            }
    else:
        try:
            with contextlib.closing(sqlite3.connect(f'file:{path}?mode=ro', uri=True)) as db:
                stored = dict(db.execute('SELECT name, offered_qos_profiles FROM topics'))
        # no such column in the oldest rosbag2 files, or not a bag at all
        except sqlite3.DatabaseError:
            return {}
    return {topic: profiles for topic, text in stored.items() if (profiles := _parse_qos(text))}


def _parse_qos(text: str) -> list[Qos]:
    try:
        return parse_qos(text)
    # unreadable: replayed as if none stored
    except (ReaderError, KeyError, TypeError, AttributeError, ValueError):
        return []


def _storage_file(path: Path) -> Path:
    """The one .mcap or .db3 file a bag without metadata.yaml is: ``path`` itself or the one in its
    directory."""
    if path.is_dir():
        files = sorted(path.glob('*.mcap')) + sorted(path.glob('*.db3'))
        if len(files) != 1:
            raise UnreadableBag(
                f'{path}: no metadata.yaml and {len(files)} .mcap/.db3 files; expected one'
            )
        path = files[0]
    if path.suffix not in ('.mcap', '.db3'):
        raise UnreadableBag(f'{path}: neither a rosbag2 directory nor an .mcap or .db3 file')
    return path


def read_messages(
    path: str | Path,
    topics: Iterable[str] | None = None,
    typestore: Typestore | None = None,
    report: Callable[[str], None] | None = None,
) -> Iterator[tuple[str, int, object]]:
    """Yield ``(topic, stamp_ns, message)`` from a bag (see ``read_raw``), deserialized with
    ``typestore`` (default: the workspace's)."""
    store = typestore or workspace_typestore()
    for message in read_raw(path, topics, report):
        yield message.topic, message.stamp_ns, decode(store, message, path)


def decode(store: Typestore, message: RawMessage, path: str | Path) -> object:
    """``message`` deserialized; UnreadableBag naming the bag, the topic and the type when the type
    is unknown or the CDR does not parse as one."""
    if message.msgtype not in store.types:
        raise UnreadableBag(
            f'{path}: {message.topic} carries {message.msgtype}, which is not in the typestore'
        )
    try:
        return store.deserialize_cdr(message.data, message.msgtype)
    except (SerdeError, struct.error, IndexError, ValueError, UnicodeDecodeError) as error:
        raise UnreadableBag(
            f'{path}: a message on {message.topic} is not valid CDR for {message.msgtype} '
            f'({error})'
        ) from None


def _rosbag2(path: Path, wanted: set[str] | None) -> Iterator[RawMessage]:
    with Reader(path) as reader:
        connections = [c for c in reader.connections if wanted is None or c.topic in wanted]
        for connection, stamp_ns, data in reader.messages(connections=connections):
            yield RawMessage(connection.topic, connection.msgtype, stamp_ns, data)


def _mcap(
    path: Path, wanted: set[str] | None, report: Callable[[str], None]
) -> Iterator[RawMessage]:
    types, topics = {}, {}
    read, first_ns, last_ns = 0, None, None  # counted, not kept: a bag may hold millions
    with path.open('rb') as stream:
        records = _CompleteRecords(stream, path)
        for record in records:
            if isinstance(record, Schema):
                types[record.id] = record.name
            elif isinstance(record, Channel):
                # 0: a schema-less channel, which no ROS 2 bag has
                if record.schema_id not in types:
                    raise UnreadableBag(
                        f'{path}: channel {record.topic} has no schema (schema id '
                        f'{record.schema_id}), so its type is unknown'
                    )
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
        report(
            f'{path}: unfinished bag (the file ends without its summary: its writer was '
            'killed); read '
            f'{read} messages over {span:.3f} s on {len(topics)} topic(s) from its '
            f'{path.stat().st_size} '
            'bytes, up to the last complete record'
        )


# every MCAP file begins with these bytes (the MCAP specification's magic)
MCAP_MAGIC = b'\x89MCAP0\r\n'


class _CompleteRecords:
    """The MCAP records of ``stream`` (the file at ``path``) in file order, up to the first one cut
    short; ``complete`` tells whether the file ended with its footer. UnreadableBag when the file
    does not begin as an MCAP file: a cut is read up to, but an empty or foreign file is no bag."""

    def __init__(self, stream, path: Path):
        head = stream.read(len(MCAP_MAGIC))
        if head != MCAP_MAGIC:
            what = 'an empty file' if not head else "its first bytes are not MCAP's magic"
            raise UnreadableBag(f'{path}: not an MCAP file ({what})')
        stream.seek(0)
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
        # no summary, or a record cut short by a kill
        except (McapError, EOFError, ValueError, struct.error):
            raise StopIteration from None


def _sqlite3(path: Path, wanted: set[str] | None) -> Iterator[RawMessage]:
    """rosbag2's sqlite3 storage: tables ``topics`` (id, name, type, ...) and ``messages``
    (topic_id, timestamp, data), read-only."""
    try:
        with contextlib.closing(sqlite3.connect(f'file:{path}?mode=ro', uri=True)) as db:
            topics = {
                row[0]: (row[1], row[2]) for row in db.execute('SELECT id, name, type FROM topics')
            }
            rows = db.execute('SELECT topic_id, timestamp, data FROM messages ORDER BY timestamp')
            for topic_id, stamp_ns, data in rows:
                topic, msgtype = topics[topic_id]
                if wanted is None or topic in wanted:
                    yield RawMessage(topic, msgtype, stamp_ns, bytes(data))
    except sqlite3.DatabaseError as error:
        raise UnreadableBag(f'{path}: not a readable rosbag2 sqlite3 file ({error})') from None
