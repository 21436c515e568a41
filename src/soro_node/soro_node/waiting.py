"""Blocking waits for node code that runs on an executor worker thread (action bodies, script
clients) and for tests. No rclpy: any future with ``add_done_callback`` and ``result`` will do
(rclpy's do)."""

from __future__ import annotations

import threading
import time


class WaitTimeout(TimeoutError):
    """``wait_for``'s future gave no result within its timeout."""

    pass


def poll(done, timeout_s: float, poll_s: float = 0.05) -> bool:
    """True once ``done()`` holds, False after ``timeout_s``."""
    return time_until(done, timeout_s, poll_s) is not None


def time_until(done, timeout_s: float, poll_s: float = 0.002) -> float | None:
    """Seconds until ``done()`` held (checked every ``poll_s``), or None if it did not within
    ``timeout_s``."""
    start = time.monotonic()
    while True:
        if done():
            return time.monotonic() - start
        if time.monotonic() - start >= timeout_s:
            return None
        time.sleep(poll_s)


def wait_for(
    future,
    timeout_s: float = float('inf'),
    cancel=None,
    on_cancel=None,
    poll_s: float = 0.05,
    after_cancel_s: float = float('inf'),
):
    """``future.result()`` once done; calls ``on_cancel()`` once when ``cancel()`` turns true
    meanwhile, and then waits at most ``after_cancel_s`` more (a peer that is stopping too may
    never answer); raises WaitTimeout after either."""
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    deadline, asked = time.monotonic() + timeout_s, False
    while not done.wait(poll_s):
        if time.monotonic() > deadline:
            raise WaitTimeout(
                f'no answer within {after_cancel_s if asked else timeout_s:g} s'
                + (' of cancelling' if asked else '')
            )
        if on_cancel and cancel and not asked and cancel():
            on_cancel()
            asked = True
            deadline = min(deadline, time.monotonic() + after_cancel_s)
    return future.result()
