"""A recorded experiment read back: any rosbag2 bag's messages by topic, decoded on demand, as numpy series.

    rec = Recording.open('runs/bag1')                      # a directory, or a single .mcap or .db3 file
    rec.require('/tracked_pose')                           # MissingTopics naming what is absent
    pose = rec.series('/tracked_pose', x=lambda m: m.pose.position.x)
    pose.receive_s, pose.stamp_s, pose['x']                # (N,) each: receive time, header stamp, the field

Times are seconds since the epoch (receive: when the recorder got the message; stamp: its header, NaN without
one). ``align`` carries one series' values to another's instants, nearest or interpolated, with a maximum gap.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rosbags.typesys.store import Typestore

from soro_link.bag import read_raw, workspace_typestore

Progress = Callable[[int], None]      # messages read so far


class MissingTopics(LookupError):
    """The bag lacks topics an analysis needs; the message names them and what the bag has."""


@dataclass
class Series:
    """One topic's messages as arrays: ``receive_s`` and ``stamp_s`` (N,), and each extracted field (N, ...)."""
    topic: str
    receive_s: np.ndarray
    stamp_s: np.ndarray
    values: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.receive_s)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]

    def time(self, clock: str = 'stamp') -> np.ndarray:
        """The header stamps ('stamp'; receive times where a message has none) or the receive times."""
        if clock == 'receive':
            return self.receive_s
        return np.where(np.isfinite(self.stamp_s), self.stamp_s, self.receive_s)


class Recording:
    """Every message of a bag, kept serialized by topic; decoded (and cached) when a topic is asked for."""

    def __init__(self, raw: dict[str, tuple[str, list[int], list[bytes]]], typestore: Typestore, path: Path,
                 warnings: list[str]):
        self._raw, self.typestore, self.path, self.warnings = raw, typestore, path, warnings
        self._decoded: dict[str, list] = {}

    @classmethod
    def open(cls, path: str | Path, progress: Progress | None = None, typestore: Typestore | None = None,
             topics: Iterable[str] | None = None) -> Recording:
        """Read the bag at ``path`` (see ``soro_link.bag.read_raw``); a bag cut short is read up to the cut and
        ``warnings`` says how much was readable."""
        warnings: list[str] = []
        raw: dict[str, tuple[str, list[int], list[bytes]]] = {}
        for count, message in enumerate(read_raw(path, topics, warnings.append), 1):
            entry = raw.setdefault(message.topic, (message.msgtype, [], []))
            entry[1].append(message.stamp_ns)
            entry[2].append(message.data)
            if progress and count % 10_000 == 0:
                progress(count)
        return cls(raw, typestore or workspace_typestore(), Path(path), warnings)

    @property
    def topics(self) -> dict[str, str]:
        """Topic -> its type (pkg/msg/Name)."""
        return {topic: entry[0] for topic, entry in self._raw.items()}

    def count(self, topic: str) -> int:
        return len(self._raw[topic][1]) if topic in self._raw else 0

    def require(self, *topics: str) -> None:
        missing = [t for t in topics if t not in self._raw]
        if missing:
            raise MissingTopics(f'{self.path}: no {", ".join(missing)} in this bag (it has '
                                f'{", ".join(sorted(self._raw)) or "no messages"})')

    def messages(self, topic: str) -> list:
        """The decoded messages of ``topic`` in recorded order ([] when the bag has none)."""
        if topic not in self._decoded:
            msgtype, _, data = self._raw.get(topic, ('', [], []))
            if data and msgtype not in self.typestore.types:
                raise MissingTopics(f'{self.path}: {topic} carries {msgtype}, a type this workspace does not know')
            self._decoded[topic] = [self.typestore.deserialize_cdr(d, msgtype) for d in data]
        return self._decoded[topic]

    def receive_s(self, topic: str) -> np.ndarray:
        return np.array(self._raw[topic][1] if topic in self._raw else [], dtype=np.int64) * 1e-9

    def series(self, topic: str, **fields: Callable[[object], object]) -> Series:
        """``topic`` as a Series whose values are ``fields`` (name -> function of a message), e.g.
        ``x=lambda m: m.pose.position.x``; the header stamp is taken when the messages have one."""
        messages = self.messages(topic)
        stamp = np.array([_stamp_s(m) for m in messages], dtype=float)
        values = {name: np.array([get(m) for m in messages], dtype=float) for name, get in fields.items()}
        return Series(topic, self.receive_s(topic), stamp, values)


def _stamp_s(message) -> float:
    header = getattr(message, 'header', None)
    return header.stamp.sec + header.stamp.nanosec * 1e-9 if header is not None else np.nan


def align(times_s: np.ndarray, source: Series, name: str, how: str = 'nearest', max_gap_s: float = 0.1,
          clock: str = 'stamp') -> np.ndarray:
    """``source[name]`` at each of ``times_s`` (M,): the sample nearest in time, or interpolated linearly between
    the two around it; NaN where the sample used is more than ``max_gap_s`` away (for 'linear': where either of
    the two is). Result (M, ...) like the field. ``source`` is sorted by its ``clock`` first."""
    if how not in ('nearest', 'linear'):
        raise ValueError(f"how = {how!r}: allowed values are 'nearest', 'linear'")
    t = source.time(clock)
    order = np.argsort(t, kind='stable')
    t, values = t[order], source[name][order]
    times_s = np.asarray(times_s, dtype=float)
    out = np.full(times_s.shape + values.shape[1:], np.nan)
    if len(t) == 0:
        return out
    after = np.searchsorted(t, times_s)                    # the first sample at or after each instant
    lo, hi = np.clip(after - 1, 0, len(t) - 1), np.clip(after, 0, len(t) - 1)
    if how == 'nearest':
        pick = np.where(np.abs(times_s - t[lo]) <= np.abs(t[hi] - times_s), lo, hi)
        ok = np.abs(t[pick] - times_s) <= max_gap_s
        out[ok] = values[pick[ok]]
        return out
    span = t[hi] - t[lo]
    w = np.clip(np.where(span > 0, (times_s - t[lo]) / np.where(span > 0, span, 1.0), 0.0), 0.0, 1.0)
    ok = (np.abs(times_s - t[lo]) <= max_gap_s) & (np.abs(t[hi] - times_s) <= max_gap_s)
    w = w.reshape(w.shape + (1,) * (values.ndim - 1))
    out[ok] = ((1 - w) * values[lo] + w * values[hi])[ok]
    return out
