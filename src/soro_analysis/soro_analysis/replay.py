"""Replaying a recording with its original timing, scaled: which messages, when, and the loop that
keeps to it. No rclpy: ``replay_node`` gives it publishers.

Message k is due ``(t_k - t_first) / rate`` after the replay began, t being the recorded receive
times; with ``start_s`` the first seconds of the recording are skipped. Each message waits for its
own absolute instant, so a late one does not delay the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rosbags.interfaces import Qos, QosHistory

from soro_analysis.bag import RawMessage
from soro_analysis.recorder import recording_policies
from soro_node.params import ParamSpec

RATE = ParamSpec(
    'rate', 1.0, 'speed of the replay against the recording (2: twice as fast)', 0.01, 100.0
)
START = ParamSpec('start', 0.0, 'skip this many seconds of the recording (s)', 0.0)
DELAY = ParamSpec(
    'delay',
    1.0,
    'wait this long before the first message, for subscribers to connect (s)',
    0.0,
    60.0,
)
CLOCK_PERIOD_S = 0.01  # /clock ticks at least this often, between messages too


# a replay's history: deep enough that a reliable subscriber keeps up with a fast replay
REPLAY_DEPTH = 1000


@dataclass(frozen=True)
class Offer:
    """What a replay publisher offers on one topic."""

    reliable: bool
    transient_local: bool
    depth: int


def offer(recorded: Sequence[Qos]) -> Offer:
    """The QoS a topic is replayed with, from the profiles its publishers offered when recorded, as
    rosbag2's player adapts them: reliable when every publisher was, transient local when every one
    was, so a transient-local subscriber that joins during the replay still gets the latched
    messages. A latched topic keeps one message per recorded publisher (each latched its last;
    /tf_static has several), or as many as a publisher said it kept. A topic recorded without
    profiles (other tools, older bags) is replayed reliable and volatile."""
    if not recorded:
        return Offer(True, False, REPLAY_DEPTH)
    # the recorder's own rule: rosbag2's, both ways
    reliable, latched = recording_policies(recorded)
    kept = max(
        [len(recorded)]
        + [
            q.depth
            for q in recorded
            if q.history == QosHistory.KEEP_LAST and isinstance(q.depth, int)
        ]
    )
    return Offer(reliable, latched, min(kept, REPLAY_DEPTH) if latched else REPLAY_DEPTH)


@dataclass(frozen=True)
class Plan:
    """One pass of a replay: the ``messages`` to publish, each ``due_s`` after the pass starts (at
    the replay's rate), and ``first_ns``, the recorded time of its origin."""

    messages: list[RawMessage]  # in recorded order, those to replay
    due_s: list[float]  # after the start of each pass
    first_ns: int  # recorded time of the replay's origin (for /clock)

    @property
    def duration_s(self) -> float:
        """How long one pass lasts (s, at the replay's rate): the last message's due time."""
        return self.due_s[-1] if self.due_s else 0.0


def plan(messages: Sequence[RawMessage], rate: float = 1.0, start_s: float = 0.0) -> Plan:
    """The messages recorded at or after ``start_s`` into the recording, each due at its offset
    over ``rate``."""
    ordered = sorted(messages, key=lambda m: m.stamp_ns)
    if not ordered:
        return Plan([], [], 0)
    origin = ordered[0].stamp_ns + round(start_s * 1e9)
    kept = [m for m in ordered if m.stamp_ns >= origin]
    return Plan(kept, [(m.stamp_ns - origin) * 1e-9 / rate for m in kept], origin)


def play(
    p: Plan,
    publish: Callable[[RawMessage], None],
    keep_going: Callable[[], bool],
    tick: Callable[[int], None] | None = None,
    rate: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """One pass of ``p``: ``publish`` each message at its instant; ``tick(recorded time ns)`` at
    least every CLOCK_PERIOD_S when given; stops early when ``keep_going()`` turns false. Returns
    the messages published."""
    began = clock()
    for count, (message, due) in enumerate(zip(p.messages, p.due_s)):
        while True:
            if not keep_going():
                return count
            now = clock()
            wait = began + due - now
            if wait <= 0:
                break
            # one reading of the clock for both, and never past the message waited for: /clock is
            # monotonic
            if tick:
                tick(min(p.first_ns + round((now - began) * rate * 1e9), message.stamp_ns))
            sleep(min(wait, CLOCK_PERIOD_S) if tick else min(wait, 0.1))
        if tick:
            tick(message.stamp_ns)
        publish(message)
    return len(p.messages)
