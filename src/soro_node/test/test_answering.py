"""soro_node.answering_node: a server stopping mid-goal answers the client waiting for the result
before it is destroyed. A goal whose execute callback has returned is not yet answered: rclpy
sends its result from a task the executor has still to run (the salamander planner, stopped
mid-navigation, was destroyed in that window and its client waited for ever)."""

import threading
import time

import pytest
import rclpy
from action_msgs.msg import GoalStatus
from rclpy.executors import MultiThreadedExecutor, SingleThreadedExecutor
from soro_interfaces.action import ExecuteWalk

from soro_node.answering_node import spin_until_answered
from soro_node.base_node import ActionClient, action_server
from soro_node.waiting import poll

pytestmark = pytest.mark.ros


class Walks:
    """A walk server on its own node and multi-threaded executor (spun by the test, as a node's
    main() does), whose goals run until released and then abort; a client on a spinning
    executor."""

    def __init__(self):
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.server_node = rclpy.create_node('walk_server', context=self.context)
        self.client_node = rclpy.create_node('walk_client', context=self.context)
        self.release, self.returned = threading.Event(), threading.Event()
        self.server = action_server(self.server_node, ExecuteWalk, '/walk', self._walk)
        self.server_executor = MultiThreadedExecutor(num_threads=2, context=self.context)
        self.server_executor.add_node(self.server_node)
        self.client_executor = SingleThreadedExecutor(context=self.context)
        self.client_executor.add_node(self.client_node)
        self.thread = threading.Thread(target=self.client_executor.spin, daemon=True)
        self.thread.start()
        self.client = ActionClient(self.client_node, ExecuteWalk, '/walk')

    def _walk(self, goal_handle):
        self.release.wait(5.0)
        goal_handle.abort()
        self.returned.set()
        return ExecuteWalk.Result(success=False)

    def spin_server(self, timeout_s: float) -> None:
        self.server_executor.spin_once(timeout_sec=timeout_s)

    def spin_server_until(self, condition, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while not condition() and time.monotonic() < deadline:
            self.spin_server(0.02)
        return condition()

    def close(self) -> None:
        self.release.set()
        self.client_executor.shutdown()
        self.thread.join(timeout=5.0)
        self.client_node.destroy_node()
        rclpy.try_shutdown(context=self.context)


@pytest.fixture
def walks():
    walks = Walks()
    yield walks
    walks.close()


def test_a_server_destroyed_once_answered_leaves_no_client_waiting(walks):
    assert walks.server.answered(), 'a server without goals owes nothing'
    sent = walks.client.send_goal_async(ExecuteWalk.Goal())
    assert walks.spin_server_until(sent.done, 5.0) and sent.result().accepted
    result = sent.result().get_result_async()
    # the result request arrives while the goal runs
    walks.spin_server_until(lambda: False, 0.3)
    assert not walks.server.answered(), 'a running goal is not answered'

    walks.release.set()
    assert walks.returned.wait(5.0)
    # the execute task sets the result; the task sending it runs only when the server spins
    result_set = lambda: all(f.done() for f in walks.server._result_futures.values())  # noqa: E731
    assert poll(result_set, 2.0)
    assert not walks.server.answered(), 'a result not yet sent is not answered'

    assert spin_until_answered(walks.server_node, walks.spin_server, 3.0)
    walks.server_node.destroy_node()  # at once, as a stopping node does
    walks.server_executor.shutdown()
    assert poll(result.done, 2.0), 'the client got no result'
    assert result.result().status == GoalStatus.STATUS_ABORTED


def test_spinning_for_answers_gives_up_at_its_limit(walks):
    sent = walks.client.send_goal_async(ExecuteWalk.Goal())
    assert walks.spin_server_until(sent.done, 5.0) and sent.result().accepted
    started = time.monotonic()
    assert not spin_until_answered(walks.server_node, walks.spin_server, 0.5)
    assert 0.5 <= time.monotonic() - started < 2.0
    walks.release.set()
    assert spin_until_answered(walks.server_node, walks.spin_server, 3.0)
    walks.server_node.destroy_node()
    walks.server_executor.shutdown()
