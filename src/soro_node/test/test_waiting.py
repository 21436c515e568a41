"""soro_node.waiting: a wait ends with the result, a cancel callback without a cancel
condition is never called, and a cancelled wait gives up after its grace."""

import threading

import pytest
from rclpy.task import Future

from soro_node.waiting import WaitTimeout, wait_for


def test_on_cancel_without_a_cancel_condition_is_not_called():
    future, called = Future(), []
    threading.Timer(0.2, lambda: future.set_result('done')).start()
    assert wait_for(future, 5.0, on_cancel=lambda: called.append(1), poll_s=0.01) == 'done'
    assert called == []


def test_a_cancelled_wait_gives_up_after_its_grace_when_no_answer_comes():
    """A peer stopping too may never answer a cancel: the wait ends ``after_cancel_s`` later."""
    future, called = Future(), []
    with pytest.raises(WaitTimeout, match='no answer within 0.2 s of cancelling'):
        wait_for(
            future,
            cancel=lambda: True,
            on_cancel=lambda: called.append(1),
            poll_s=0.01,
            after_cancel_s=0.2,
        )
    assert called == [1]
    answered = Future()
    threading.Timer(0.1, lambda: answered.set_result('cancelled')).start()
    assert wait_for(answered, cancel=lambda: True, on_cancel=lambda: None, after_cancel_s=5.0) == (
        'cancelled'
    )
