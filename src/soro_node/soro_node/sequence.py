"""Timed sequences: steps played one per period at fixed instants of a monotonic clock (no rclpy).

A gait executor commands one primitive per τ (TerreSoRo), a valve pattern one valve state per tick
(the soft snake), a key-pose gait one actuator set-point per step (POM). ``SequencePlayer.play``
sleeps until each step's instant, then calls ``act`` for it at once, so whatever ``act`` does after
commanding the hardware (publishing, logging) never delays the next command. Instants are absolute,
t0 + k·period, so per-step delays do not add up; a step that starts more than ``max_late_s`` late
(the machine stalled) re-anchors the schedule at its actual start, so the steps after it still get
their whole period instead of being fired back to back.

    player = SequencePlayer(period_s=0.45)
    report = player.play(primitives, lambda slot, p: send(p),
                         stop=lambda: goal.is_cancel_requested)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

Step = TypeVar('Step')


@dataclass
class Slot:
    """The time slot of one step: it was due at ``due_s`` on the player's clock and began
    ``late_s`` after that."""

    index: int  # 0-based, in play order
    due_s: float
    late_s: float
    period_s: float
    _sleep_until: Callable[[float], None] = field(repr=False)

    def wait_until(self, offset_s: float) -> None:
        """Sleep until ``offset_s`` into the slot (e.g. the end of a reversal pulse); at once if
        that is past."""
        self._sleep_until(self.due_s + offset_s)


@dataclass
class PlayReport:
    """What ``SequencePlayer.play`` did: steps played, if stopped, each step's lateness (s)."""

    played: int = 0  # steps whose ``act`` ran
    stopped: bool = False  # ``stop()`` held before a step: the rest were not played
    # per played step, start minus due instant (s)
    late_s: list[float] = field(default_factory=list)
    reanchored: int = 0  # steps that began more than max_late_s late and moved the schedule


class SequencePlayer(Generic[Step]):
    """Plays steps at t0 + k·``period_s`` (s, on ``clock``); ``max_late_s`` defaults to a quarter
    period."""

    def __init__(
        self,
        period_s: float,
        max_late_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        """ValueError unless ``period_s`` > 0; ``clock`` and ``sleep`` (s) replaceable in tests."""
        if not period_s > 0:
            raise ValueError(f'period_s = {period_s}: must be > 0')
        self.period_s = period_s
        self.max_late_s = period_s / 4 if max_late_s is None else max_late_s
        self._clock, self._sleep = clock, sleep

    def sleep_until(self, instant_s: float) -> None:
        """Sleep until ``instant_s`` on the player's clock; return at once if it has passed."""
        remaining = instant_s - self._clock()
        if remaining > 0:
            self._sleep(remaining)

    def play(
        self,
        steps: Iterable[Step],
        act: Callable[[Slot, Step], None],
        stop: Callable[[], bool] = lambda: False,
    ) -> PlayReport:
        """Call ``act(slot, step)`` for each step at its instant, the first at once; ``stop()`` is
        asked just before each step (after its wait). Returns at the end of the last played step's
        slot, so a sequence played next starts on the same beat. An exception from ``act`` or
        ``stop`` ends the play and propagates."""
        report = PlayReport()
        anchor, anchor_index = self._clock(), 0
        due = anchor
        for index, step in enumerate(steps):
            due = anchor + (index - anchor_index) * self.period_s
            self.sleep_until(due)
            if stop():
                report.stopped = True
                return report
            late = self._clock() - due
            if late > self.max_late_s:
                anchor, anchor_index, due = due + late, index, due + late
                report.reanchored += 1
            report.late_s.append(late)
            act(Slot(index, due, late, self.period_s, self.sleep_until), step)
            report.played += 1
        if report.played:
            self.sleep_until(due + self.period_s)
        return report
