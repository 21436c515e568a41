"""Stopping a process cleanly on SIGINT/SIGTERM: a handler that only records the request. No rclpy.

Python's default handler raises KeyboardInterrupt wherever the main thread happens to be, and an
exception raised inside a finaliser (``__del__``, e.g. of a garbage-collected rclpy Future) is only
printed and then lost: the process goes on as if nothing had been asked. A flag cannot be lost; the
main loop polls it.
"""

from __future__ import annotations

import signal
import time


class StopRequest:
    """Counts SIGINT/SIGTERM and keeps the instant of the first (``time.time_ns``, the clock DDS
    stamps messages with at their source). The handler only sets a flag, so a signal can never
    interrupt a write halfway nor be lost in a finaliser; the main loop notices within one spin
    timeout. A second signal asks to hurry."""

    def __init__(self):
        """No signal received yet."""
        self.count = 0
        self.at_ns: int | None = None

    def __call__(self, _signum, _frame) -> None:
        """The signal handler: count the signal and keep the instant of the first."""
        self.count += 1
        self.at_ns = self.at_ns or time.time_ns()

    @property
    def requested(self) -> bool:
        """Whether a SIGINT or SIGTERM has arrived."""
        return self.count > 0

    def after(self, sent_ns: int) -> bool:
        """Whether something stamped ``sent_ns`` (e.g. a message at its publisher) came after the
        stop."""
        return self.at_ns is not None and sent_ns > self.at_ns

    def install(self) -> None:
        """Make this the handler of SIGINT and SIGTERM (call it from the main thread)."""
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self)
