"""``soro-replay BAG``: publish a recorded experiment again, on its topics and types, with its
original timing (scaled by ``--rate``), for machines without ``ros2 bag play``; rviz2 and any node
can then watch it. ``--clock`` also publishes the recorded time on /clock (run the watchers with
use_sim_time:=true). Ctrl-C stops it.

    soro-replay runs/demo/terresoro/bag --rate 2 \\
        --topics /tracked_pose /terresoro_executor/executed_edge
"""

from __future__ import annotations

import sys
import time

import rclpy
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rosgraph_msgs.msg import Clock

from soro_analysis import replay
from soro_analysis.bag import UnreadableBag, offered_qos, read_raw
from soro_analysis.recorder import import_message_class
from soro_node.arguments import CommandParser, add_option, refuse
from soro_node.base_node import StartRefused, init_ros, refuse_start, shut_down

NODE_NAME = 'soro_replay'
PROG = 'soro-replay'
ACK_WAIT_S = 2.0
# the shortest pass of --loop: a bag of one message replayed at 1 Hz, not as fast as the CPU goes
MIN_LOOP_PASS_S = 1.0


def publisher_qos(offer: replay.Offer) -> QoSProfile:
    """The keep-last QoSProfile of a replay publisher: ``offer``'s depth, reliability and
    durability."""
    reliability = ReliabilityPolicy.RELIABLE if offer.reliable else ReliabilityPolicy.BEST_EFFORT
    durability = (
        DurabilityPolicy.TRANSIENT_LOCAL if offer.transient_local else DurabilityPolicy.VOLATILE
    )
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST,
        depth=offer.depth,
        reliability=reliability,
        durability=durability,
    )


class ReplayNode(Node):
    """One publisher per recorded topic, with the QoS it was recorded with (``replay.offer``;
    serialized messages go out as they were recorded), and /clock."""

    def __init__(
        self, types: dict[str, str], clock: bool, offers: dict[str, replay.Offer] | None = None
    ):
        super().__init__(NODE_NAME)
        offers = offers or {}
        self.publishers_by_topic = {
            topic: self.create_publisher(
                import_message_class(msgtype),
                topic,
                publisher_qos(offers.get(topic, replay.offer(()))),
            )
            for topic, msgtype in types.items()
        }
        self.clock_pub = self.create_publisher(Clock, '/clock', 10) if clock else None

    def publish(self, message) -> None:
        """Publish a RawMessage's serialized data on its topic."""
        self.publishers_by_topic[message.topic].publish(message.data)

    def wait_for_acks(self) -> None:
        """Let reliable subscribers take the last messages before the publishers go (at most
        ACK_WAIT_S)."""
        for publisher in self.publishers_by_topic.values():
            publisher.wait_for_all_acked(Duration(seconds=ACK_WAIT_S))

    def tick(self, stamp_ns: int) -> None:
        """Publish ``stamp_ns`` (recorded ns since the epoch) on /clock; only with ``clock``."""
        clock = Clock()
        clock.clock.sec, clock.clock.nanosec = divmod(stamp_ns, 1_000_000_000)
        self.clock_pub.publish(clock)


def message_class(bag: str, topic: str, msgtype: str) -> type:
    """The class ``topic`` is published as; a bag's type names are data, so only installed
    interface types are imported (``import_message_class``) and anything else is refused naming the
    topic and the type."""
    try:
        return import_message_class(msgtype)
    except (ImportError, ValueError) as error:
        raise UnreadableBag(
            f'{bag}: topic {topic} has type {msgtype!r}, which is not replayed ({error})'
        ) from None


def check_messages(bag: str, messages, classes: dict[str, type]) -> None:
    """Every message deserializes as its topic's type, as each subscriber will deserialize it: a
    corrupt one is refused here, before anything is published."""
    for k, message in enumerate(messages):
        try:
            deserialize_message(message.data, classes[message.topic])
        except RuntimeError as error:  # rclpy's RMWError: what a subscriber would meet
            raise UnreadableBag(
                f'{bag}: message {k} on {message.topic} is not valid CDR for '
                f'{message.msgtype} '
                f'({str(error).split(", at ")[0]})'
            ) from None


def _parser() -> CommandParser:
    parser = CommandParser(prog=PROG, description=__doc__.split('\n\n')[0])
    parser.add_argument('bag', help='a rosbag2 directory, or a single .mcap or .db3 file')
    add_option(parser, '--rate', replay.RATE)
    add_option(parser, '--start', replay.START)
    add_option(parser, '--delay', replay.DELAY)
    parser.add_argument(
        '--loop',
        action='store_true',
        help=f'start over at the end, until Ctrl-C (a pass lasts {MIN_LOOP_PASS_S:g} s at least)',
    )
    parser.add_argument('--topics', nargs='+', help='only these topics (default: all)')
    parser.add_argument('--clock', action='store_true', help='publish the recorded time on /clock')
    return parser


def main(argv: list[str] | None = None) -> int:
    """``soro-replay BAG [options] [--ros-args ...]``: read and check the bag, then replay it; 0,
    or 2 (``refuse``: one line on stderr) when the bag or the topics asked for are refused."""
    argv = sys.argv[1:] if argv is None else argv
    ros_args = argv[argv.index('--ros-args') :] if '--ros-args' in argv else []
    args = _parser().parse_args(argv[: len(argv) - len(ros_args)])
    try:
        messages = list(
            read_raw(
                args.bag,
                args.topics,
                lambda line: print(f'{PROG}: warning: {line}', file=sys.stderr),
            )
        )
        types = {m.topic: m.msgtype for m in messages}
        offers = {
            topic: replay.offer(profiles) for topic, profiles in offered_qos(args.bag).items()
        }
        check_messages(
            args.bag,
            messages,
            {topic: message_class(args.bag, topic, t) for topic, t in types.items()},
        )
    except UnreadableBag as error:
        return refuse(PROG, error)
    missing = sorted(set(args.topics or ()) - set(types))
    if missing or not messages:
        return refuse(PROG, f'{args.bag}: no messages on {", ".join(missing) or "any topic"}')
    plan = replay.plan(messages, args.rate, args.start)
    if not plan.messages:
        recorded_s = (max(m.stamp_ns for m in messages) - min(m.stamp_ns for m in messages)) / 1e9
        return refuse(
            PROG,
            f'{args.bag}: --start {args.start:g} s is past the recording ({recorded_s:.1f} s)',
        )
    try:
        init_ros([PROG] + ros_args)
    except StartRefused as error:
        return refuse_start(NODE_NAME, error)
    return _replay(ReplayNode(types, args.clock, offers), plan, args)


def _replay(node: ReplayNode, p: replay.Plan, args) -> int:
    node.get_logger().info(
        f'replaying {len(p.messages)} messages on {len(node.publishers_by_topic)} topics, '
        f'{p.duration_s:.1f} s at rate {args.rate:g}' + (', looping' if args.loop else '')
    )
    try:
        connected = time.monotonic() + args.delay
        while rclpy.ok() and time.monotonic() < connected:
            time.sleep(0.02)
        while rclpy.ok():
            began = time.monotonic()
            replay.play(p, node.publish, rclpy.ok, node.tick if args.clock else None, args.rate)
            if not args.loop:
                break
            # a pass of a few messages, or of one, would otherwise start over at once, for ever
            while rclpy.ok() and time.monotonic() < began + MIN_LOOP_PASS_S:
                time.sleep(0.02)
        node.wait_for_acks()
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        shut_down()
    return 0


if __name__ == '__main__':
    sys.exit(main())
