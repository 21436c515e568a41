"""soro_node.base_node.ActionClient with the window of ros2/rclpy#1123 held open: each request
pauses after it is sent and before rclpy files its future, while an executor on another thread
takes the reply (as in every commander). rclpy's own client loses that reply and its future never
completes; ours completes, goal and result alike."""

import threading
import time

import pytest
import rclpy
import rclpy.action
from rclpy.executors import SingleThreadedExecutor
from soro_interfaces.action import ExecuteWalk

from soro_node.base_node import ActionClient
from soro_node.waiting import poll

pytestmark = pytest.mark.ros
PAUSE_S = 0.3  # far longer than a loopback reply takes
ANSWER_S = 3.0


class PausedAfterSending:
    """A client's rcl handle whose goal and result requests return PAUSE_S after they are sent."""

    def __init__(self, handle):
        self._handle = handle

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self._handle.__enter__()

    def __exit__(self, *exc):
        return self._handle.__exit__(*exc)

    def send_goal_request(self, request):
        return self._paused(self._handle.send_goal_request(request))

    def send_result_request(self, request):
        return self._paused(self._handle.send_result_request(request))

    @staticmethod
    def _paused(sequence_number):
        time.sleep(PAUSE_S)
        return sequence_number


@pytest.fixture
def walk_server():
    """A server that accepts every walk and finishes it at once, spun with the client's node on one
    thread."""
    context = rclpy.Context()
    rclpy.init(context=context)
    server_node = rclpy.create_node('walk_server', context=context)
    client_node = rclpy.create_node('walk_client', context=context)
    server = rclpy.action.ActionServer(server_node, ExecuteWalk, '/walk', _walk)
    executor = SingleThreadedExecutor(context=context)
    for node in (server_node, client_node):
        executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield client_node
    executor.shutdown()
    thread.join(timeout=5.0)
    server.destroy()
    for node in (server_node, client_node):
        node.destroy_node()
    rclpy.try_shutdown(context=context)


def _walk(goal_handle):
    goal_handle.succeed()
    return ExecuteWalk.Result(success=True, primitives=len(goal_handle.request.vertices))


def _paused_client(kind, node):
    client = kind(node, ExecuteWalk, '/walk')
    assert client.wait_for_server(timeout_sec=5.0)
    client._client_handle = PausedAfterSending(client._client_handle)
    return client


def test_a_reply_taken_before_the_future_is_filed_still_completes_it(walk_server):
    client = _paused_client(ActionClient, walk_server)
    sent = client.send_goal_async(ExecuteWalk.Goal(vertices=[1, 5, 7]))
    assert poll(sent.done, ANSWER_S) and sent.result().accepted
    result = sent.result().get_result_async()
    assert poll(result.done, ANSWER_S) and result.result().result.primitives == 3


def test_rclpys_own_client_loses_that_reply(walk_server):
    """The reference: the window is real, so the test above tests something. When rclpy files
    before it sends, this fails, and soro_node's ActionClient can go."""
    client = _paused_client(rclpy.action.ActionClient, walk_server)
    sent = client.send_goal_async(ExecuteWalk.Goal(vertices=[1, 5, 7]))
    assert not poll(sent.done, ANSWER_S)
