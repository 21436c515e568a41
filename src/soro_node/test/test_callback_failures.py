"""One bad message or request must not end a node: a callback that raises is logged and the node's
main() (``base_node.run_node``) spins on, and a service built with ``answering_service`` whose
handler raises answers failure with the reason instead of leaving its client waiting, and keeps
serving."""

import threading
import time

import pytest
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from std_srvs.srv import Trigger

from soro_node.base_node import answering_service, run_node
from soro_node.waiting import wait_for

pytestmark = pytest.mark.ros
CALLS = 3
ANSWER_S = 5.0


class Fragile(Node):
    """A node whose timer raises on its first tick (a malformed message, say) and whose service
    always raises."""

    def __init__(self):
        super().__init__('fragile')
        self.ticks = 0
        self.create_timer(0.02, self._tick)
        answering_service(self, Trigger, '~/poke', self._poke)

    def _tick(self) -> None:
        self.ticks += 1
        if self.ticks == 1:
            raise ZeroDivisionError('a malformed message')

    def _poke(self, _request, _response):
        raise KeyError('no such thing')


def _call_repeatedly(answers: list, finished: threading.Event) -> None:
    """From a context of its own: CALLS calls to /fragile/poke, each answer (or None when none
    came) in ``answers``."""
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('poker', context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        client = node.create_client(Trigger, '/fragile/poke')
        if client.wait_for_service(timeout_sec=ANSWER_S):
            for _ in range(CALLS):
                try:
                    answers.append(wait_for(client.call_async(Trigger.Request()), ANSWER_S))
                except TimeoutError:
                    answers.append(None)
    finally:
        finished.set()
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown(context=context)


def test_a_raising_callback_is_logged_and_a_raising_service_answers_failure(capfd):
    answers, finished = [], threading.Event()
    caller = threading.Thread(target=_call_repeatedly, args=(answers, finished))
    caller.start()
    nodes = []

    def make():
        nodes.append(Fragile())
        return nodes[0]

    # the timer's second tick may lag the calls on a busy machine
    deadline = time.monotonic() + 3 * ANSWER_S
    code = run_node(
        make,
        'fragile',
        until=lambda node: finished.is_set() and (node.ticks > 1 or time.monotonic() > deadline),
    )
    caller.join(timeout=ANSWER_S)
    # the timer went on after it raised
    assert code == 0 and nodes[0].ticks > 1
    assert len(answers) == CALLS and None not in answers, 'a call was left unanswered'
    assert all(
        not a.success and a.message == "failed: KeyError: 'no such thing' (in Fragile._poke)"
        for a in answers
    )
    log = capfd.readouterr().err
    assert (
        'callback failed, node goes on: ZeroDivisionError: a malformed message (in Fragile._tick)'
    ) in log
    assert "~/poke: request failed: KeyError: 'no such thing'" in log
