"""The timed-sequence player against its schedule: on a virtual clock (exact), and on the real one
(order only)."""

import time

import pytest

from soro_node.sequence import SequencePlayer


class VirtualClock:
    """A monotonic clock that moves only when slept on, or when a step's work takes ``work_s``."""

    def __init__(self, t0: float = 100.0):
        self.now = t0
        self.sleeps = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.sleeps.append(seconds)
        self.now += seconds


def play(steps, period_s=0.5, work_s=lambda step: 0.0, stall=None, stop_at=None, **kwargs):
    """Play ``steps`` on a virtual clock; returns (report, [(step, instant acted)], clock at
    return)."""
    clock, acted = VirtualClock(), []
    stall = stall or {}

    def act(slot, step):
        acted.append((step, clock.now))
        clock.now += work_s(step)

    def stop():
        clock.now += stall.pop(len(acted), 0.0)  # the machine stalls before this step's command
        return stop_at is not None and len(acted) == stop_at

    player = SequencePlayer(period_s, clock=clock, sleep=clock.sleep, **kwargs)
    report = player.play(steps, act, stop)
    return report, acted, clock.now


def test_steps_start_on_the_beat_and_work_does_not_delay_the_next():
    report, acted, end = play(range(5), period_s=0.5, work_s=lambda step: 0.3)
    assert [t - 100.0 for _, t in acted] == pytest.approx([0.0, 0.5, 1.0, 1.5, 2.0], abs=1e-12)
    assert end == pytest.approx(102.5)  # returns at the end of the last slot
    assert report.played == 5 and not report.stopped and report.late_s == pytest.approx([0.0] * 5)


def test_small_delays_do_not_accumulate():
    report, acted, _ = play(range(4), period_s=0.5, stall={1: 0.05, 2: 0.05, 3: 0.05})
    assert [t - 100.0 for _, t in acted] == pytest.approx([0.0, 0.55, 1.05, 1.55])
    assert report.late_s == pytest.approx([0.0, 0.05, 0.05, 0.05]) and report.reanchored == 0


def test_a_long_stall_reanchors_so_later_steps_keep_their_whole_period():
    # 0.4 > max_late_s = 0.125
    report, acted, end = play(range(4), period_s=0.5, stall={2: 0.4})
    assert [t - 100.0 for _, t in acted] == pytest.approx([0.0, 0.5, 1.4, 1.9])
    assert report.reanchored == 1 and end == pytest.approx(102.4)


def test_work_longer_than_a_period_pushes_the_next_step_rather_than_overlapping():
    report, acted, _ = play(range(3), period_s=0.5, work_s=lambda step: 0.8 if step == 0 else 0.0)
    times = [t - 100.0 for _, t in acted]
    assert times == pytest.approx([0.0, 0.8, 1.3])
    assert all(b - a >= 0.5 - 1e-12 for a, b in zip(times, times[1:]))


def test_stop_is_asked_before_each_step_and_ends_at_the_slot_boundary():
    report, acted, end = play(iter(range(10)), period_s=0.5, stop_at=3)
    assert [s for s, _ in acted] == [0, 1, 2] and report.stopped and report.played == 3
    # the end of step 2's slot, where step 3 was due
    assert end == pytest.approx(101.5)


def test_sub_steps_inside_a_slot():
    clock, marks = VirtualClock(), []

    def act(slot, step):
        marks.append(('pulse', step, clock.now))
        slot.wait_until(0.1)
        marks.append(('hold', step, clock.now))

    SequencePlayer(0.45, clock=clock, sleep=clock.sleep).play([1, 2], act)
    assert [(k, s, round(t - 100.0, 9)) for k, s, t in marks] == [
        ('pulse', 1, 0.0),
        ('hold', 1, 0.1),
        ('pulse', 2, 0.45),
        ('hold', 2, 0.55),
    ]


def test_steps_are_taken_lazily():
    def endless():
        k = 0
        while True:
            yield k
            k += 1

    report, acted, _ = play(endless(), stop_at=4)
    assert report.played == 4 and [s for s, _ in acted] == [0, 1, 2, 3]


def test_nothing_to_play_returns_at_once():
    report, acted, end = play([])
    assert report.played == 0 and acted == [] and end == 100.0


@pytest.mark.parametrize('period', [0.0, -1.0, float('nan')])
def test_a_period_that_is_not_positive_is_refused(period):
    with pytest.raises(ValueError, match='period_s'):
        SequencePlayer(period)


def test_on_the_real_clock_steps_come_in_order_and_never_early():
    starts = []
    SequencePlayer(0.02).play(
        range(5), lambda slot, step: starts.append((time.monotonic(), slot.due_s))
    )
    assert all(t >= due for t, due in starts)
    assert all(b[1] - a[1] >= 0.02 - 1e-9 for a, b in zip(starts, starts[1:]))
