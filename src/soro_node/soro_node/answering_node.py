"""Stopping a node without leaving an action client waiting: its goals end, their results go out.

rclpy sends a goal's result from an executor task scheduled after the goal's execute callback has
returned; a node destroyed before that task ran (or right after, before DDS delivered the reply)
leaves the client waiting for ever, since nothing tells an rclpy client that its server is gone.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable

import rclpy
import rclpy.action
import rclpy.node

# after the last result went out, spinning on this long for DDS to deliver it (loopback: < 1 ms)
DELIVERY_S = 0.2


class AnsweringActionServer(rclpy.action.ActionServer):
    """rclpy's ActionServer that knows whether it has answered every client: ``answered()`` holds
    when no goal is executing and every result request taken has had its response sent."""

    def __init__(self, *args, **kwargs):
        self._owed_lock, self._owed = threading.Lock(), 0
        super().__init__(*args, **kwargs)

    def answered(self) -> bool:
        """No goal executing, no result request unanswered."""
        with self._owed_lock:
            if self._owed:
                return False
        return all(future.done() for future in list(self._result_futures.values()))

    async def _execute_get_result_request(self, request_header_and_message):
        """rclpy's, counting the response owed: a known goal's is sent by a done callback of its
        result future (an unknown or expired goal's at once, by rclpy)."""
        header, request = request_header_and_message
        future = self._result_futures.get(bytes(request.goal_id.uuid))
        if future is None:
            await super()._execute_get_result_request(request_header_and_message)
            return
        with self._owed_lock:
            self._owed += 1
        future.add_done_callback(functools.partial(self._send_result_response, header))

    def _send_result_response(self, request_header, future):
        try:
            super()._send_result_response(request_header, future)
        finally:
            with self._owed_lock:
                self._owed -= 1


def spin_until_answered(
    node: rclpy.node.Node,
    spin_once: Callable[[float], None],
    limit_s: float,
    cut_short: Callable[[], bool] = lambda: False,
) -> bool:
    """Spin (by ``spin_once(timeout_s)``) until every AnsweringActionServer of ``node`` has
    answered (then DELIVERY_S more), at most ``limit_s``, or until ``cut_short()`` (a second
    Ctrl-C). Whether all answered."""
    servers = [w for w in node.waitables if isinstance(w, AnsweringActionServer)]
    deadline, answered_at = time.monotonic() + limit_s, None
    while rclpy.ok(context=node.context) and not cut_short():
        now = time.monotonic()
        # checked every pass: a request taken while waiting for delivery is owed again
        if all(server.answered() for server in servers):
            answered_at = answered_at or now
        else:
            answered_at = None
        if now >= min(deadline, (answered_at or deadline) + DELIVERY_S):
            break
        spin_once(0.02)
    return answered_at is not None
