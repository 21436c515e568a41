"""A recorded experiment read back: any rosbag2 bag's messages by topic, decoded on demand, as
numpy series.

    # a directory, or a single .mcap or .db3 file:
    rec = Recording.open('runs/bag1')
    rec.require('/tracked_pose')                           # MissingTopics naming what is absent
    pose = rec.series('/tracked_pose', x=lambda m: m.pose.position.x)
    # (N,) each: receive time, header stamp, the field:
    pose.receive_s, pose.stamp_s, pose['x']

Times are seconds since the epoch (receive: when the recorder got the message; stamp: its header,
NaN without one). ``align`` carries one series' values to another's instants, nearest or
interpolated, with a maximum gap.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rosbags.typesys.store import Typestore

from soro_analysis.bag import RawMessage, decode, read_raw, workspace_typestore

Progress = Callable[[int], None]  # messages read so far


class MissingTopics(LookupError):
    """The bag lacks topics an analysis needs, or has one as another type; the message names them
    and what the bag has."""


class MalformedMessages(ValueError):
    """A topic's messages do not hold what an analysis reads of them (a field whose shape changes
    from message to message); the message names the topic and the field."""


@dataclass
class Series:
    """One topic's messages as arrays: ``receive_s`` and ``stamp_s`` (N,), and each extracted field
    (N, ...)."""

    topic: str
    receive_s: np.ndarray
    stamp_s: np.ndarray
    values: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.receive_s)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]

    def subset(self, keep: np.ndarray) -> Series:
        """The messages where ``keep`` ((N,) bool) is true, in order."""
        values = {name: v[keep] for name, v in self.values.items()}
        return Series(self.topic, self.receive_s[keep], self.stamp_s[keep], values)

    def time(self, clock: str = 'stamp') -> np.ndarray:
        """The header stamps ('stamp'; receive times where a message has none) or the receive
        times."""
        if clock == 'receive':
            return self.receive_s
        return np.where(np.isfinite(self.stamp_s), self.stamp_s, self.receive_s)


class _Topic:
    """One topic's serialized messages, packed: every CDR blob end to end in one buffer, with its
    end offsets and receive stamps in typed arrays (a Python bytes object per message would cost
    ~2x a bag of small messages)."""

    def __init__(self, msgtype: str):
        self.msgtype = msgtype
        self.stamps_ns = array('q')
        self.ends = array('Q')
        self.blob = bytearray()

    def add(self, stamp_ns: int, data: bytes) -> None:
        self.blob += data
        self.stamps_ns.append(stamp_ns)
        self.ends.append(len(self.blob))

    def __len__(self) -> int:
        return len(self.ends)

    def data(self, k: int) -> bytes:
        return bytes(self.blob[self.ends[k - 1] if k else 0 : self.ends[k]])


class Messages(Sequence):
    """A topic's messages, decoded one at a time when iterated or indexed and never kept: a topic
    of millions of messages costs its serialized size, not millions of message objects."""

    def __init__(self, recording: Recording, topic: str):
        self._recording, self._topic = recording, topic
        self._entry = recording._raw.get(topic) or _Topic('')

    def __len__(self) -> int:
        return len(self._entry)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if not -len(self) <= k < len(self):
            raise IndexError(f'{self._topic}: message {k} of {len(self)}')
        return self._decode(k % len(self))

    def __iter__(self) -> Iterator:
        return (self._decode(k) for k in range(len(self)))

    def _decode(self, k: int):
        entry = self._entry
        return decode(
            self._recording.typestore,
            RawMessage(self._topic, entry.msgtype, entry.stamps_ns[k], entry.data(k)),
            self._recording.path,
        )


class Recording:
    """Every message of a bag, kept serialized by topic; decoded one at a time when a topic is
    asked for."""

    def __init__(
        self, raw: dict[str, _Topic], typestore: Typestore, path: Path, warnings: list[str]
    ):
        self._raw, self.typestore, self.path, self.warnings = raw, typestore, path, warnings

    @classmethod
    def open(
        cls,
        path: str | Path,
        progress: Progress | None = None,
        typestore: Typestore | None = None,
        topics: Iterable[str] | None = None,
    ) -> Recording:
        """Read the bag at ``path`` (see ``soro_analysis.bag.read_raw``); a bag cut short is read
        up to the cut and ``warnings`` says how much was readable."""
        warnings: list[str] = []
        raw: dict[str, _Topic] = {}
        for count, message in enumerate(read_raw(path, topics, warnings.append), 1):
            entry = raw.get(message.topic)
            if entry is None:
                entry = raw[message.topic] = _Topic(message.msgtype)
            entry.add(message.stamp_ns, message.data)
            if progress and count % 10_000 == 0:
                progress(count)
        return cls(raw, typestore or workspace_typestore(), Path(path), warnings)

    @property
    def topics(self) -> dict[str, str]:
        """Topic -> its type (pkg/msg/Name)."""
        return {topic: entry.msgtype for topic, entry in self._raw.items()}

    def count(self, topic: str) -> int:
        """How many messages the bag has on ``topic`` (0 when none)."""
        return len(self._raw[topic]) if topic in self._raw else 0

    def require(self, *topics: str, types: Mapping[str, str] | None = None) -> None:
        """Raise MissingTopics naming those of ``topics`` the bag has no message on, or a topic of
        ``types`` (topic -> pkg/msg/Name; required or not) that the bag holds as another type."""
        missing = [t for t in topics if t not in self._raw]
        if missing:
            raise MissingTopics(
                f'{self.path}: no {", ".join(missing)} in this bag (it has '
                f'{", ".join(sorted(self._raw)) or "no messages"})'
            )
        for topic, msgtype in (types or {}).items():
            if topic in self._raw and self._raw[topic].msgtype != msgtype:
                raise MissingTopics(
                    f'{self.path}: {topic} carries {self._raw[topic].msgtype}, not the '
                    f'{msgtype} this analysis reads'
                )

    def messages(self, topic: str) -> Messages:
        """The messages of ``topic`` in recorded order (empty when the bag has none), decoded as
        they are read: iterate once where a topic may be long; an index decodes that one
        message."""
        msgtype = self._raw[topic].msgtype if topic in self._raw else ''
        if msgtype and msgtype not in self.typestore.types:
            raise MissingTopics(
                f'{self.path}: {topic} carries {msgtype}, a type this workspace does not know'
            )
        return Messages(self, topic)

    def receive_s(self, topic: str) -> np.ndarray:
        """Receive times (s since the epoch) of ``topic``'s messages, (N,); empty when the bag has
        none."""
        return (
            np.array(self._raw[topic].stamps_ns if topic in self._raw else [], dtype=np.int64)
            * 1e-9
        )

    def series(self, topic: str, **fields: Callable[[object], object]) -> Series:
        """``topic`` as a Series whose values are ``fields`` (name -> function of a message), e.g.
        ``x=lambda m: m.pose.position.x``; the header stamp is taken when the messages have one.
        The messages are decoded one at a time and only the extracted numbers kept."""
        columns, where = {'stamp': _stamp_s, **fields}, f'{self.path}: {topic}'
        blocks, pending = {name: [] for name in columns}, {name: [] for name in columns}
        for k, message in enumerate(self.messages(topic), 1):
            for name, get in columns.items():
                pending[name].append(get(message))
            # Python floats cost 32 bytes each, an array's 8: pack as we go
            if k % SERIES_BLOCK == 0:
                _pack(blocks, pending, where)
        _pack(blocks, pending, where)
        try:
            values = {
                name: np.concatenate(parts) if parts else np.zeros(0)
                for name, parts in blocks.items()
            }
        except ValueError:
            raise MalformedMessages(
                f'{where}: {_ragged(blocks)} changes shape between messages'
            ) from None
        return Series(topic, self.receive_s(topic), values.pop('stamp'), values)


SERIES_BLOCK = 65_536


def _pack(blocks: dict[str, list], pending: dict[str, list], where: str) -> None:
    for name, values in pending.items():
        if values:
            try:
                blocks[name].append(np.array(values, dtype=float))
            # a list of 4 points in one message and 5 in the next
            except ValueError:
                raise MalformedMessages(
                    f'{where}: {name} changes shape between messages'
                ) from None
            values.clear()


def _ragged(blocks: dict[str, list]) -> str:
    """The name of the first field whose packed blocks differ in shape."""
    return next(n for n, parts in blocks.items() if len({p.shape[1:] for p in parts}) > 1)


def _stamp_s(message) -> float:
    header = getattr(message, 'header', None)
    return header.stamp.sec + header.stamp.nanosec * 1e-9 if header is not None else np.nan


def align(
    times_s: np.ndarray,
    source: Series,
    name: str,
    how: str = 'nearest',
    max_gap_s: float = 0.1,
    clock: str = 'stamp',
) -> np.ndarray:
    """``source[name]`` at each of ``times_s`` (M,): the sample nearest in time, or interpolated
    linearly between the two around it; NaN where the sample used is more than ``max_gap_s`` away
    (for 'linear': where either of the two is). Result (M, ...) like the field. ``source`` is
    sorted by its ``clock`` first."""
    if how not in ('nearest', 'linear'):
        raise ValueError(f"how = {how!r}: allowed values are 'nearest', 'linear'")
    t = source.time(clock)
    order = np.argsort(t, kind='stable')
    t, values = t[order], source[name][order]
    times_s = np.asarray(times_s, dtype=float)
    out = np.full(times_s.shape + values.shape[1:], np.nan)
    if len(t) == 0:
        return out
    # the first sample at or after each instant
    after = np.searchsorted(t, times_s)
    lo, hi = np.clip(after - 1, 0, len(t) - 1), np.clip(after, 0, len(t) - 1)
    if how == 'nearest':
        pick = np.where(np.abs(times_s - t[lo]) <= np.abs(t[hi] - times_s), lo, hi)
        ok = np.abs(t[pick] - times_s) <= max_gap_s
        out[ok] = values[pick[ok]]
        return out
    span = t[hi] - t[lo]
    w = np.clip(
        np.where(span > 0, (times_s - t[lo]) / np.where(span > 0, span, 1.0), 0.0), 0.0, 1.0
    )
    ok = (np.abs(times_s - t[lo]) <= max_gap_s) & (np.abs(t[hi] - times_s) <= max_gap_s)
    w = w.reshape(w.shape + (1,) * (values.ndim - 1))
    out[ok] = ((1 - w) * values[lo] + w * values[hi])[ok]
    return out
