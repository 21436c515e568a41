"""A listening node for tests and scenarios that watch a running stack from outside: it keeps every
message of the topics it is given, spinning on its own thread. (The rooms of a test harness that
every robot's node tests had typed out again.)"""

from __future__ import annotations

import contextlib
import threading

import rclpy
from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import qos_profile_sensor_data

from soro_node.base_node import spin_until
from soro_node.waiting import poll


class Probe:
    """``probe.messages[topic]``: every message received on ``topic`` so far, in order.

    Args:
        name: node name.
        topics: {topic: message type}.
    """

    def __init__(self, name: str, topics: dict):
        self.node = rclpy.create_node(name)
        self.messages: dict[str, list] = {topic: [] for topic in topics}
        for topic, kind in topics.items():
            self.node.create_subscription(kind, topic, self.messages[topic].append, 100)
        self._executor = SingleThreadedExecutor()
        self._executor.add_node(self.node)
        self._closing = threading.Event()
        self._thread = threading.Thread(
            target=spin_until,
            args=(self._executor, self._closing, self.node.get_logger()),
            daemon=True,
        )
        self._thread.start()

    def latest(self, topic: str):
        """The last message on ``topic``, or None."""
        received = self.messages[topic]
        return received[-1] if received else None

    def wait(self, topic: str, done, timeout_s: float) -> bool:
        """True once the last message on ``topic`` satisfies ``done``, False after
        ``timeout_s``."""
        return poll(lambda: self.latest(topic) is not None and done(self.latest(topic)), timeout_s)

    @contextlib.contextmanager
    def best_effort_stream(self, topic: str, message, period_s: float = 0.02):
        """``message`` published on ``topic`` every ``period_s`` while the context lasts, best
        effort, as the motion-capture drivers packaged for Jazzy (vrpn_mocap, mocap4r2) publish."""
        publisher = self.node.create_publisher(type(message), topic, qos_profile_sensor_data)
        timer = self.node.create_timer(period_s, lambda: publisher.publish(message))
        try:
            yield publisher
        finally:
            self.node.destroy_timer(timer)
            self.node.destroy_publisher(publisher)

    def change_state(self, node: str, transition: int, timeout_s: float = 5.0) -> bool:
        """Asks lifecycle node ``node`` (its name) for ``transition`` (lifecycle_msgs/Transition
        id), as ``ros2 lifecycle set`` does; whether it succeeded."""
        client = self.node.create_client(ChangeState, f'/{node}/change_state')
        try:
            if not client.wait_for_service(timeout_sec=timeout_s):
                return False
            future = client.call_async(ChangeState.Request(transition=Transition(id=transition)))
            return poll(future.done, timeout_s) and future.result().success
        finally:
            self.node.destroy_client(client)

    def close(self) -> None:
        """Stop the probe's spinning thread, then its executor (``spin_until``), and destroy its
        node."""
        self._closing.set()
        self._thread.join(timeout=5.0)
        self._executor.shutdown()
        self.node.destroy_node()
