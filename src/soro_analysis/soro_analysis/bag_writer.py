"""rosbag2 (MCAP) files written through rosbags, with the workspace's own message types registered:
a standard rosbag2 directory (``metadata.yaml`` plus an ``.mcap`` file) that ``ros2 bag info``, the
MCAP tools and ``bag`` read.

A bag survives a full disk: when the file system refuses a write (ENOSPC), ``BagWriter`` drops what
it had not yet put on disk, frees a reserve it keeps beside the bag for this moment, finishes the
bag as ``close`` does with what was on disk at its last flush, and raises ``DiskFull``.

A bag survives its writer: ``BagWriter`` puts what it holds on disk at least every
``flush_interval_s`` (a complete MCAP chunk, synced), so a recorder killed by SIGKILL or a power
cut loses at most that much; ``bag`` reads such a bag up to its last complete chunk.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from rosbags.interfaces import Qos
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.rosbag2.storage_mcap import PendingChunk
from rosbags.typesys.store import Typestore

from soro_analysis.bag import workspace_typestore


class DiskFull(OSError):
    """The file system of a bag is full; the bag was finished with what was on disk at its last
    flush. The message is one line: ``disk full: <bag path>``."""


# Room kept beside a bag being written (a preallocated file, deleted at close), so that a bag whose
# disk filled up can still be finished: the MCAP summary (schemas, channels, an index entry per
# chunk) and metadata.yaml. It grows with the chunk index.
RESERVE_BASE_BYTES = 256 * 1024
RESERVE_PER_CHUNK_BYTES = 128
RESERVE_NAME = '.disk_reserve'


@dataclass
class _OnDisk:
    """What the writers had counted at the last flush: restored when later writes are lost to a
    full disk."""

    offset: int
    chunks: int
    channel_stats: dict
    message_times: tuple[int, int]
    counts: dict
    timestamps: tuple[int, int]


class BagWriter:
    """A rosbag2 MCAP writer that accepts serialized CDR (as rclpy raw subscriptions deliver it) or
    messages.

    Messages are gathered into MCAP chunks; a chunk is written and synced to disk once it is
    ``flush_interval_s`` old (checked at each write and at each ``flush_if_due``, which a recorder
    calls from a timer so that a quiet topic is flushed too) or 1 MiB large. ``close`` writes the
    summary and ``metadata.yaml``.
    """

    def __init__(
        self, path: str | Path, typestore: Typestore | None = None, flush_interval_s: float = 0.5
    ):
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
            # the MCAP header, before any offset is taken as on disk
            self._writer.storage.bio.flush()
            self._grow_reserve()
            self._on_disk = self._checkpoint()

    def add_topic(self, topic: str, msgtype: str, offered_qos: Sequence[Qos] = ()) -> None:
        """Declare ``topic`` of ROS type ``msgtype`` (``pkg/msg/Name``), with the QoS profiles its
        publishers offered (stored as rosbag2 does: in metadata.yaml and in the MCAP channel);
        idempotent."""
        if topic not in self._connections:
            with self._guard():
                self._connections[topic] = self._writer.add_connection(
                    topic,
                    msgtype,
                    typestore=self.typestore,
                    offered_qos_profiles=list(offered_qos),
                )

    def write_cdr(self, topic: str, stamp_ns: int, data: bytes) -> None:
        """Append one serialized message received at ``stamp_ns`` (ns since the epoch). Raises
        DiskFull when the file system is full (the bag is then finished; later calls raise it
        again)."""
        with self._guard():
            self._writer.write(self._connections[topic], stamp_ns, data)
            self.flush_if_due()

    def write(self, topic: str, stamp_ns: int, message: object) -> None:
        """Append one rosbags message object."""
        msgtype = self._connections[topic].msgtype
        self.write_cdr(topic, stamp_ns, self.typestore.serialize_cdr(message, msgtype))

    def flush_if_due(self) -> None:
        """``flush`` when ``flush_interval_s`` has passed since the last one (a recorder also calls
        it on a timer, so a quiet topic's last messages reach the disk)."""
        if time.monotonic() - self._flushed_at >= self.flush_interval_s:
            self.flush()

    def flush(self) -> None:
        """Write the messages gathered so far as a complete chunk and sync the file: what a kill
        cannot take."""
        with self._guard():
            # rosbags (pinned) gathers a chunk in storage.chunk and writes it at 1 MiB or at close;
            # closing it early is its own step, and leaves the summary that close() writes complete
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
        """Write the summary and metadata.yaml; idempotent. Raises DiskFull when even that finds
        the disk full (the bag is then finished with what was on disk at the last flush)."""
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
        # from a nested guard (write_cdr -> flush): the bag is finished already
        except DiskFull:
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
            os.posix_fallocate(fd, 0, size)  # real blocks (a sparse file would free nothing)
        finally:
            os.close(fd)

    def _checkpoint(self) -> _OnDisk:
        storage, writer = self._writer.storage, self._writer
        return _OnDisk(
            storage.bio.tell(),
            len(storage.chunks),
            dict(storage.channel_stats),
            (storage.message_start_time, storage.message_end_time),
            dict(writer.counts),
            (writer.min_timestamp, writer.max_timestamp),
        )

    def _finish_on_full_disk(self) -> None:
        """Forget what came after the last flush, cut the file back to it, free the reserve and
        finish the bag as close() does; if even that finds no room, the file stays cut at the last
        flush (readable as a killed writer's bag)."""
        self.full, self._closed = True, True
        storage, writer, kept = self._writer.storage, self._writer, self._on_disk
        del storage.chunks[kept.chunks :]
        storage.channel_stats = {
            cid: kept.channel_stats.get(cid, 0) for cid in storage.channel_stats
        }
        storage.message_start_time, storage.message_end_time = kept.message_times
        writer.counts = {cid: kept.counts.get(cid, 0) for cid in writer.counts}
        writer.min_timestamp, writer.max_timestamp = kept.timestamps
        # as rosbags starts one
        storage.chunk = PendingChunk(2**63 - 1, 0, BytesIO(), defaultdict(list))
        with contextlib.suppress(OSError):  # its buffer cannot be written: the disk is full
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
