"""A listening node for tests and scenarios that watch a running stack from outside: it keeps every
message of the topics it is given, spinning on its own thread. (The rooms of a test harness that
every robot's node tests had typed out again.)"""

from __future__ import annotations

import contextlib
import threading

import rclpy
from lifecycle_msgs.msg import State, Transition
from lifecycle_msgs.srv import ChangeState, GetState
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import qos_profile_sensor_data

from soro_node.base_node import spin_until
from soro_node.waiting import poll

# the primary state each transition ends in when it succeeds
GOAL_STATE = {
    Transition.TRANSITION_CONFIGURE: State.PRIMARY_STATE_INACTIVE,
    Transition.TRANSITION_CLEANUP: State.PRIMARY_STATE_UNCONFIGURED,
    Transition.TRANSITION_ACTIVATE: State.PRIMARY_STATE_ACTIVE,
    Transition.TRANSITION_DEACTIVATE: State.PRIMARY_STATE_INACTIVE,
    Transition.TRANSITION_UNCONFIGURED_SHUTDOWN: State.PRIMARY_STATE_FINALIZED,
    Transition.TRANSITION_INACTIVE_SHUTDOWN: State.PRIMARY_STATE_FINALIZED,
    Transition.TRANSITION_ACTIVE_SHUTDOWN: State.PRIMARY_STATE_FINALIZED,
}
# how long one get_state request waits for its answer before it is asked again
STATE_QUERY_S = 1.0


class Probe:
    """``probe.messages[topic]``: every message received on ``topic`` so far, in order.

    Args:
        name: node name.
        topics: {topic: message type}.
    """

    def __init__(self, name: str, topics: dict):
        self.node = rclpy.create_node(name)
        self.messages: dict[str, list] = {topic: [] for topic in topics}
        self._clients: dict = {}
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
        id), as ``ros2 lifecycle set`` does; whether it succeeded. Fast DDS drops a service's
        response when it has not matched the new client's reader within 100 ms (a loaded
        machine), so an unanswered request is judged by the state the node is then in."""
        client = self._client(ChangeState, f'/{node}/change_state')
        if not client.wait_for_service(timeout_sec=timeout_s):
            return False
        future = client.call_async(ChangeState.Request(transition=Transition(id=transition)))
        if poll(future.done, timeout_s):
            return future.result().success
        goal = GOAL_STATE.get(transition)
        return goal is not None and self.lifecycle_state(node, timeout_s) == goal

    def lifecycle_state(self, node: str, timeout_s: float = 5.0) -> int | None:
        """Lifecycle node ``node``'s primary state id (lifecycle_msgs/State), asked again every
        ``STATE_QUERY_S`` until answered (asking changes nothing); None after ``timeout_s``."""
        client, answered = self._client(GetState, f'/{node}/get_state'), []

        def ask() -> bool:
            if client.wait_for_service(timeout_sec=STATE_QUERY_S):
                future = client.call_async(GetState.Request())
                if poll(future.done, STATE_QUERY_S):
                    answered.append(future.result().current_state.id)
            return bool(answered)

        return answered[0] if poll(ask, timeout_s) else None

    def _client(self, kind, service: str):
        """The probe's one client of ``service``, kept until it closes: a late answer then
        finds its client, and the server has matched it for every call after the first."""
        if service not in self._clients:
            self._clients[service] = self.node.create_client(kind, service)
        return self._clients[service]

    def close(self) -> None:
        """Stop the probe's spinning thread, then its executor (``spin_until``), and destroy its
        node."""
        self._closing.set()
        self._thread.join(timeout=5.0)
        self._executor.shutdown()
        self.node.destroy_node()
