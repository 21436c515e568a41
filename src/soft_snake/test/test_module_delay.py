"""pneumatics.ModuleDelay: each module's chambers follow their valves later the nearer the head."""

import numpy as np
import pytest

from soft_snake import pneumatics

TICK_S = 0.01


def felt_over(delay: pneumatics.ModuleDelay, duties: list[np.ndarray]) -> np.ndarray:
    return np.array([delay.step(d, TICK_S) for d in duties])


def test_the_tail_feels_a_valve_at_once_and_each_module_nearer_the_head_later():
    """Three modules, 50 ms a module: all valves open at t = 0 (after 0.2 s closed); the tail's
    chambers fill from 0.2 s, the middle's from 0.25 s, the head's from 0.3 s; closing at 0.5 s
    reaches them at 0.5, 0.55 and 0.6 s."""
    delay = pneumatics.ModuleDelay(3, 0.05)
    shut, full = np.zeros((3, 3)), np.ones((3, 3))
    duties = [shut] * 20 + [full] * 30 + [shut] * 30
    felt = felt_over(delay, duties)[:, :, 0]
    first_open = [int(np.argmax(felt[:, i] > 0)) for i in range(3)]
    assert first_open == [30, 25, 20]
    closed_again = [50 + int(np.argmax(felt[50:, i] == 0)) for i in range(3)]
    assert closed_again == [60, 55, 50]


def test_before_its_first_duty_arrives_a_module_is_vented():
    delay = pneumatics.ModuleDelay(2, 0.1)
    felt = felt_over(delay, [np.ones((2, 3))] * 5)
    assert np.all(felt[:, 0] == 0) and np.all(felt[:, 1] == 1)


def test_no_delay_passes_the_duties_through_and_the_history_stays_bounded():
    same = np.random.default_rng(0).random((4, 3))
    assert np.array_equal(pneumatics.ModuleDelay(4, 0.0).step(same, TICK_S), same)
    delay = pneumatics.ModuleDelay(5, 0.1)
    felt_over(delay, [np.ones((5, 3))] * 2000)
    # the head waits 0.4 s: 40 ticks of history, and one more
    assert len(delay._sent) <= 42


def test_a_negative_or_non_finite_delay_is_refused():
    for bad in (-0.01, float('nan'), float('inf')):
        with pytest.raises(ValueError, match='module_delay_s'):
            pneumatics.ChamberParameters(module_delay_s=bad)
