"""soro_node.waiting: a wait ends with the result, and a cancel callback without a cancel
condition is never called."""

import threading

from rclpy.task import Future

from soro_node.waiting import wait_for


def test_on_cancel_without_a_cancel_condition_is_not_called():
    future, called = Future(), []
    threading.Timer(0.2, lambda: future.set_result('done')).start()
    assert wait_for(future, 5.0, on_cancel=lambda: called.append(1), poll_s=0.01) == 'done'
    assert called == []
