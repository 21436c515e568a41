"""soro_recorder: records topics into a rosbag2 (MCAP) directory, for machines without ``ros2
bag``.

Messages arrive through raw subscriptions (serialized CDR, never deserialized here) and go straight
into the bag through :class:`soro_analysis.bag_writer.BagWriter`, stamped with their receive time;
what was recorded is on disk within ``flush_period_s``, so a SIGKILL or a power cut loses at most
that much. SIGINT or SIGTERM ends the recording: the recorder takes the messages published before
the signal that are still on their way, then closes the bag so ``metadata.yaml`` is written. On a
full disk it stops at once, finishes the bag with what was on disk at the last flush, logs ``disk
full: <bag>`` and exits with status 1.

    python -m soro_analysis.recorder_node --ros-args -p output:=/tmp/run1 \\
        -p "topics:=[/chatter,/link_status]"

Parameters (read once at start-up; ``recorder.RECORDER``):
  output              string    bag directory to create; must not exist yet
  topics              string[]  topics to record; unset or empty records every visible
                                (non-hidden) topic
  discovery_period_s  double    how often to look for new topics, 0.05-10 s (default 0.5 s)
  flush_period_s      double    put what was recorded on disk this often, 0.05-10 s (default 0.5 s)
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from soro_analysis.bag_writer import BagWriter, DiskFull
from soro_analysis.recorder import (
    RECORDER,
    ParameterRefused,
    SeveralTypes,
    check_output,
    import_message_class,
    offered_profile,
    recordable_type,
    recording_policies,
    select_topics,
)
from soro_node.base_node import StartRefused, declare_parameters, init_ros, refuse_start, shut_down
from soro_node.params import ParameterError
from soro_node.stop import StopRequest

NODE_NAME = 'soro_recorder'

# As rosbag2 does (recorder.recording_policies): reliable and keep-all when every publisher offers
# reliable (measured: a 2000-message burst kept whole, where best effort with a depth of 100 kept
# 286), else best effort, the one reliability that matches best-effort publishers too, with a
# history deep enough for bursts of a sensor stream; transient local when every publisher offers
# it, so latched messages published before the recorder are recorded.
BEST_EFFORT_DEPTH = 1000


def subscription_qos(reliable: bool, latched: bool) -> QoSProfile:
    """The QoS a topic is recorded with: reliable and keep-all, or best effort keeping
    BEST_EFFORT_DEPTH; transient local when ``latched``."""
    durability = DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE
    if reliable:
        return QoSProfile(
            reliability=ReliabilityPolicy.RELIABLE,
            history=HistoryPolicy.KEEP_ALL,
            durability=durability,
        )
    return QoSProfile(
        reliability=ReliabilityPolicy.BEST_EFFORT,
        history=HistoryPolicy.KEEP_LAST,
        depth=BEST_EFFORT_DEPTH,
        durability=durability,
    )


# After a stop request, keep taking messages published before it until none has come for this long
# (they may still be in transit), but no longer than the limit. Messages published after the stop
# are not recorded and do not keep the recorder waiting, so an endless publisher cannot hold up the
# shutdown.
DRAIN_QUIET_S = 0.1
DRAIN_LIMIT_S = 2.0


class RecorderNode(Node):
    """Discovers topics, subscribes to them raw and writes every message into the bag as it
    arrives."""

    def __init__(self, stop: StopRequest):
        super().__init__(NODE_NAME)
        output, self._wanted, period_s, flush_s = self._read_parameters()
        self._stop = stop
        try:
            self._bag = BagWriter(output, flush_interval_s=flush_s)
        except OSError as exc:  # e.g. a parent that is a file, or no permission
            raise ParameterRefused(
                'output', str(output), 'a path where a directory can be created', str(exc)
            ) from None
        self._types: dict[str, str] = {}  # recorded topic -> its type
        self._skipped: set[str] = set()  # topics warned about once and never recorded
        # topics of several types at once, warned about once and looked at again each discovery
        self._waiting: set[str] = set()
        self.total = 0
        self.get_logger().info(
            f'recording into {output.resolve()} '
            f'({", ".join(self._wanted) if self._wanted else "all visible topics"})'
        )
        self._timer = self.create_timer(period_s, self.discover)
        # a quiet topic's last messages are flushed too
        self.create_timer(flush_s / 2, self._bag.flush_if_due)
        self.discover()

    # -- parameters

    def _read_parameters(self) -> tuple[Path, tuple[str, ...], float, float]:
        values = declare_parameters(self, RECORDER).checked()  # all read once, at start-up
        return (
            check_output(values['output']),
            self._resolve_topics(values['topics']),
            values['discovery_period_s'],
            values['flush_period_s'],
        )

    def _resolve_topics(self, names: Sequence[str]) -> tuple[str, ...]:
        """Fully qualified names (as discovery reports them), in the given order, without
        repeats."""
        resolved = []
        for name in names:
            try:
                full = self.resolve_topic_name(name)
            except RuntimeError as exc:  # rclpy raises RCLError, a RuntimeError, for invalid names
                raise ParameterRefused(
                    'topics',
                    list(names),
                    'valid ROS topic names',
                    f'{name!r}: {str(exc).split(", at ")[0]}',
                ) from None
            if full not in resolved:
                resolved.append(full)
        return tuple(resolved)

    # -- recording

    def discover(self) -> None:
        """Subscribe to wanted topics that appeared since the last look."""
        handled = set(self._types) | self._skipped
        for topic, types in select_topics(self.get_topic_names_and_types(), self._wanted, handled):
            self._start(topic, types)

    def _start(self, topic: str, types: list[str]) -> None:
        publishers = self.get_publishers_info_by_topic(topic)
        # seen through its subscribers only: decide its QoS once a publisher shows
        if not publishers:
            return
        try:
            msgtype = recordable_type(types, self._bag.typestore.types)
            cls = import_message_class(msgtype)
        except SeveralTypes as exc:
            if topic not in self._waiting:
                self._waiting.add(topic)
                self.get_logger().warning(f'not recording {topic} yet: {exc}; once one is left')
            return
        except (ImportError, ValueError) as exc:
            self._skipped.add(topic)
            self.get_logger().warning(f'not recording {topic}: {exc}')
            return
        if topic in self._waiting:
            self._waiting.discard(topic)
            self.get_logger().info(f'recording {topic} as {msgtype}, the one type left')
        offered = [offered_profile(p.qos_profile) for p in publishers]
        # stored in the bag, for replay, as rosbag2 does
        self._bag.add_topic(topic, msgtype, offered)
        self._types[topic] = msgtype
        reliable, latched = recording_policies(offered)
        self.create_subscription(
            cls,
            topic,
            functools.partial(self._on_message, topic),
            subscription_qos(reliable, latched),
            raw=True,
        )
        self.get_logger().info(
            f'recording {topic} ({msgtype}, {"reliable" if reliable else "best effort"}'
            f'{", transient local" if latched else ""})'
        )

    def _on_message(self, topic: str, data: bytes, info: dict) -> None:
        stamp_ns = self.get_clock().now().nanoseconds  # receive time, taken before anything else
        if self._stop.after(info['source_timestamp'] or info['received_timestamp']):
            return
        self._bag.write_cdr(topic, stamp_ns, data)
        self.total += 1

    @property
    def disk_full(self) -> bool:
        """Whether the bag met a full disk (it is then finished with what was on disk)."""
        return self._bag.full

    def stop_discovery(self) -> None:
        """Stop looking for new topics; the subscriptions stay, for the drain."""
        self._timer.cancel()

    def close(self) -> None:
        """Finish the bag (writes metadata.yaml) and report what it holds."""
        with contextlib.suppress(DiskFull):  # the bag is finished all the same; said below
            self._bag.close()
        if self._bag.full:
            self.get_logger().error(f'disk full: {self._bag.path}')
        kept = self._bag.message_counts()  # after a full disk, fewer than were received
        for topic, count in kept.items():
            self.get_logger().info(f'wrote {count} messages on {topic} ({self._types[topic]})')
        missing = [t for t in self._wanted if t not in self._types and t not in self._skipped]
        if missing:
            self.get_logger().warning(f'never saw requested topics: {", ".join(missing)}')
        self.get_logger().info(f'bag closed: {sum(kept.values())} messages on {len(kept)} topics')


def drain(executor: SingleThreadedExecutor, node: RecorderNode, stop: StopRequest) -> None:
    """Take the messages still waiting after a stop request (see DRAIN_QUIET_S); a second signal
    cuts it short."""
    now = time.monotonic()
    limit, quiet_until = now + DRAIN_LIMIT_S, now + DRAIN_QUIET_S
    while stop.count < 2 and time.monotonic() < min(limit, quiet_until):
        before = node.total
        executor.spin_once(timeout_sec=0.01)
        if node.total != before:
            quiet_until = time.monotonic() + DRAIN_QUIET_S


EXIT_DISK_FULL = 1


def record(node: RecorderNode, stop: StopRequest) -> int:
    """Record until a stop request (0) or a full disk (EXIT_DISK_FULL; the bag is finished by
    then)."""
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        while not stop.count:
            executor.spin_once(timeout_sec=0.1)
        node.stop_discovery()
        drain(executor, node, stop)
    # raised by a write or a flush, out of the callback that met it: the bag is finished
    except DiskFull:
        pass
    finally:
        # also after an error in a callback, so what was written stays readable; says "disk full"
        node.close()
        executor.shutdown()
    return EXIT_DISK_FULL if node.disk_full else 0


def main(args: list[str] | None = None) -> int:
    """The recorder's process: record until SIGINT or SIGTERM, then close the bag; 0,
    EXIT_DISK_FULL on a full disk, or a start-up refusal's exit code."""
    stop = StopRequest()
    # before anything else, so even an early Ctrl-C ends in a closed bag, not a traceback
    stop.install()
    try:
        # rclpy's own handlers would shut the context down at once, before the waiting messages are
        # taken
        init_ros(args, stop)
    except StartRefused as exc:
        return refuse_start(NODE_NAME, exc)
    try:
        try:
            node = RecorderNode(stop)
        except (ParameterRefused, ParameterError) as exc:
            return refuse_start(NODE_NAME, exc)
        try:
            return record(node, stop)
        finally:
            node.destroy_node()
    finally:
        shut_down()


if __name__ == '__main__':
    sys.exit(main())
