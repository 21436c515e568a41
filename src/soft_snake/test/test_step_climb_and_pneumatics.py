"""Table 2.3 as a state machine (SN-11), the chambers' pneumatics (SN-10, Eqs. 2.6-2.8), and the
thesis's tables shipped cell for cell (SN-14)."""

import math
import threading
import time

import numpy as np
import pytest

from soft_snake import pneumatics, tables
from soft_snake.gaits import GaitError
from soft_snake.step_climb import (
    ARCH,
    CLIMB_TABLE,
    FINISH_ROW,
    PRESS_DUTY,
    ROW_FREQUENCIES_HZ,
    ROW_UNDULATION_DUTIES,
    STATES,
    TABLE_2_3,
    UNDULATION_DUTY,
    StepClimb,
)


def test_sn11_rows_in_order_singles_hold_and_pairs_alternate_at_omega():
    # the thesis's table at ω in every row (ours has a frequency per row, below)
    climb = StepClimb(1.0, 2 * math.pi / 3, table=TABLE_2_3, row_frequencies_hz=None)
    assert climb.rows == 6 and [len(r) for r in TABLE_2_3] == [5] * 6
    t = np.arange(0, 2.0, 0.01)
    states = np.array([climb.segment_states(x) for x in t])
    assert np.all(states[:, 0] == 3)  # wheel1: the head raised, held
    second = states[:, 1]
    assert set(second) == {1, 2}
    # 2/1 flips twice per period at 1 Hz
    assert np.count_nonzero(np.diff(second)) == 4
    assert climb.chamber_states(0.0)[0].tolist() == [1, 1, -1]  # state 3: both bottom chambers
    for expected_row in range(1, 6):
        assert climb.advance() == expected_row
    assert climb.chamber_states(0.3)[4].tolist() == [1, 1, -1] and not climb.done
    assert climb.advance() == 6 and climb.done
    assert climb.advance() is None and climb.row == 6  # complete: nothing moves
    with pytest.raises(GaitError, match='complete'):
        climb.segment_states(0.0)


def test_sn11_the_state_dictionary_is_configurable_and_checked():
    custom = {**STATES, 4: (0, 1, 2)}
    climb = StepClimb(1.0, 1.0, custom)
    climb.advance()
    assert climb.chamber_states(0.0)[0].tolist() == [1, 1, 1]
    with pytest.raises(
        GaitError, match=r'state\(s\) \[5, 6\] of the step-climb table are missing'
    ):
        StepClimb(1.0, 1.0, {1: (0,), 2: (1,), 3: (0, 1), 4: (2,)}, table=TABLE_2_3)
    with pytest.raises(GaitError, match='frequency = 3.0 Hz'):
        StepClimb(3.0, 1.0)


def test_the_climb_holds_its_states_at_full_pressure_and_pushes_at_partial():
    climb = StepClimb(
        1.0, 2 * math.pi / 3, table=TABLE_2_3, state_duty={}, row_undulation_duties=None
    )
    duty = climb.duty(0.1)
    assert duty[0].tolist() == [1.0, 1.0, 0.0]  # wheel 1's row: state 3 holds the head up
    # "2/1": one bottom chamber at a time, at the undulation duty
    assert np.all(np.sort(duty[1:], axis=1) == [0.0, 0.0, UNDULATION_DUTY])
    climb.advance()
    assert climb.duty(0.1)[[0, 1, 4]].tolist() == [[0.0, 0.0, 1.0]] * 3  # state 4 pressing
    one_share = StepClimb(1.0, 1.0, undulation_duty=1.0, row_undulation_duties=None)
    assert one_share.duty(0.1)[1].max() == 1.0
    with pytest.raises(GaitError, match=r'undulation_duty = 0.0: allowed \(0, 1\]'):
        StepClimb(1.0, 1.0, undulation_duty=0.0)


def test_each_row_pushes_at_its_own_share_of_the_supply():
    """Row wheel1's four undulating segments push the reared head over the edge at 0.7 of the
    supply, row wheel2's at half of it, the arch's and the tail's at 0.7 and 0.6; one share for
    every row, or a refusal."""
    climb = StepClimb(1.0, 2 * math.pi / 3)
    shares = []
    for row in range(6):
        shares.append(float(climb.duty(0.1)[CLIMB_TABLE[row].index('2/1')].max()))
        climb.advance()
    assert shares == [0.7, UNDULATION_DUTY, 0.7, 0.7, 0.7, 0.6] == list(ROW_UNDULATION_DUTIES)
    with pytest.raises(GaitError, match='5 row undulation duties for a table of 6 rows'):
        StepClimb(1.0, 1.0, row_undulation_duties=(0.5,) * 5)
    with pytest.raises(GaitError, match=r'undulation_duty = 1.2: allowed \(0, 1\]'):
        StepClimb(1.0, 1.0, row_undulation_duties=(0.5,) * 5 + (1.2,))


def test_the_simulators_climb_presses_down_at_partial_pressure_and_lifts_wheel_2_from_behind():
    climb = StepClimb(1.0, 2 * math.pi / 3)
    climb.advance()
    # row wheel2 as rows wheel3-4: the landed head segment presses down (state 4, partly), the
    # segment behind wheel 2 lifts it (state 3, full supply), the rest undulate
    assert climb.segment_states(0.1)[:2] == [4, 3]
    assert climb.duty(0.1)[:2].tolist() == [[0.0, 0.0, PRESS_DUTY], [1.0, 1.0, 0.0]]
    assert sorted(climb.duty(0.1)[4]) == [0.0, 0.0, UNDULATION_DUTY]
    # row wheel1 is the thesis's; rows wheel3 and wheel4 arch segments 2-4 (D-S8)
    assert [i for i, row in enumerate(CLIMB_TABLE) if row == TABLE_2_3[i]] == [0]
    assert CLIMB_TABLE[2:4] == (ARCH, ARCH) and ARCH[1:4] == ('4',) * 3
    with pytest.raises(GaitError, match=r'state 4: duty = 1.5, allowed \(0, 1\]'):
        StepClimb(1.0, 1.0, state_duty={4: 1.5})


class _AdvancedMidTick(StepClimb):
    """A climb whose row advances while its valves are being computed, as the driver's
    ``~/step_climb_advance`` service can between two reads of the valve loop's thread."""

    def _segment_states(self, playing: tuple, t_s: float) -> list[int]:
        self.advance()
        return super()._segment_states(playing, t_s)


def test_the_last_wheel_landing_while_the_valves_are_computed_vents_them_on_the_next_tick():
    """Through the nodes the tail's wheel landed mid-tick and the goal aborted on an IndexError:
    a tick reads the row once, and gives that row's duties whole."""
    climb = _AdvancedMidTick(1.0, 2 * math.pi / 3, finish_s=0.0)
    climb.row = 5
    duty = climb.duty(0.1)
    assert climb.done and duty.shape == (5, 3)
    assert duty[2].tolist() == [1.0, 1.0, 0.0]  # row wheel6's segment 3 lifting, state 3
    assert climb.duty(0.2).max() == 0.0 and (climb.chamber_states(0.2) == -1).all()
    with pytest.raises(GaitError, match='the step climb is complete'):
        climb.segment_states(0.2)


class _AdvancedWhileAdvancing(StepClimb):
    """A climb that a second thread advances while the first caller's ``advance`` has read the
    row to increment it and not yet written it back: the driver's timer and its service."""

    def __init__(self, *args):
        self.first_caller, self.other_done, self._reads = None, threading.Event(), 0
        super().__init__(*args)

    @property
    def row(self) -> int:
        value = self._row
        if threading.current_thread() is not threading.main_thread():
            if self.first_caller is None:
                self.first_caller = threading.current_thread()
            if threading.current_thread() is self.first_caller:
                self._reads += 1
                if self._reads == 2:  # advance's read for the increment, after its check
                    # with the lock the other advance waits for this one: the wait runs out
                    self.other_done.wait(timeout=0.3)
        return value

    @row.setter
    def row(self, value: int) -> None:
        self._row = value


def test_two_threads_advancing_at_once_move_the_climb_two_rows():
    """Two advances at once (the timer and the service) each count: rows 1 and 2, none lost."""
    climb = _AdvancedWhileAdvancing(1.0, 2 * math.pi / 3)
    rows = []
    first = threading.Thread(target=lambda: rows.append(climb.advance()))
    first.start()
    deadline = time.monotonic() + 2.0
    while climb._reads < 2 and time.monotonic() < deadline:
        time.sleep(0.001)
    second = threading.Thread(
        target=lambda: (rows.append(climb.advance()), climb.other_done.set())
    )
    second.start()
    first.join(), second.join()
    # the interleaving happened: the first caller was inside advance when the second came
    assert climb.first_caller is first and climb._reads >= 2
    assert climb.row == 2 and sorted(rows) == [1, 2]


def test_once_every_wheel_is_up_the_finishing_row_pulls_the_tail_on_then_all_vent():
    """For ``finish_s`` from the first duty asked for after the last row: the three head segments
    undulating at 0.7 of the supply, the two tail segments pressing, then every chamber vented."""
    climb = StepClimb(1.0, 2 * math.pi / 3, finish_s=2.0)
    for _ in range(6):
        climb.advance()
    assert FINISH_ROW == ('2/1', '2/1', '2/1', '4', '4')
    duty = climb.duty(10.0)
    assert duty[3:].tolist() == [[0.0, 0.0, PRESS_DUTY]] * 2
    assert {tuple(duty[i]) for i in (0, 1, 2)} <= {(0.7, 0.0, 0.0), (0.0, 0.7, 0.0)}
    assert climb.duty(11.99).max() > 0 and climb.duty(12.0).max() == 0.0
    assert (climb.chamber_states(12.5) == -1).all()
    with pytest.raises(GaitError, match='finish_s = -1'):
        StepClimb(1.0, 1.0, finish_s=-1.0)


def _flips(climb: StepClimb, segment: int) -> int:
    """How often ``segment``'s state changes over 2 s of the current row."""
    states = [climb.segment_states(t) for t in np.arange(0, 2.0, 0.001)]
    return int(np.count_nonzero(np.diff([s[segment] for s in states])))


def test_each_row_switches_at_its_own_frequency_or_all_at_omega():
    """Over 2 s a "2/1" segment flips twice per period: 2, 4 and 6 times in rows wheel1, wheel2 and
    wheel3-6 at 0.5, 1 and 1.5 Hz; without row frequencies, 4 times in each at ω 1 Hz."""
    assert ROW_FREQUENCIES_HZ == (0.5, 1.0, 1.5, 1.5, 1.5, 1.5)
    climb, same = (
        StepClimb(1.0, 2 * math.pi / 3),
        StepClimb(1.0, 2 * math.pi / 3, row_frequencies_hz=None),
    )
    flips, at_omega = [], []
    for row in range(6):
        undulating = CLIMB_TABLE[row].index('2/1')
        flips.append(_flips(climb, undulating))
        at_omega.append(_flips(same, undulating))
        climb.advance(), same.advance()
    assert flips == [2, 4, 6, 6, 6, 6] and at_omega == [4] * 6
    with pytest.raises(GaitError, match=r'frequency = 2.5 Hz: allowed \(0, 2.0\] Hz'):
        StepClimb(1.0, 1.0, row_frequencies_hz=(1.0,) * 5 + (2.5,))
    with pytest.raises(GaitError, match='5 row frequencies for a table of 6 rows'):
        StepClimb(1.0, 1.0, row_frequencies_hz=(1.0,) * 5)


def test_sn10_the_step_response_time_constants_fall_in_the_measured_range():
    assert pneumatics.SUPPLY_PA == pytest.approx(117_211, rel=1e-4)  # 17 psi
    low, high = pneumatics.TAU_RANGE_S
    inflating, venting = pneumatics.step_time_constants()
    assert low <= inflating <= high and low <= venting <= high
    for tau in (0.23, 0.44):
        rescaled = pneumatics.ChamberParameters().with_time_constants(tau, tau)
        assert pneumatics.step_time_constants(rescaled) == pytest.approx((tau, tau), abs=2e-3)


def test_eq_2_7_inflation_is_orifice_limited_and_eq_2_8_venting_rate_capped():
    params = pneumatics.ChamberParameters(supply_drop_per_chamber=0.0)
    bank, full = pneumatics.Chambers(1, params), np.array([[1.0, 0.0, 0.0]])
    for _ in range(100):
        pressures = bank.step(full, 0.001)
    # dΔp/dt = −k_i Δp²: the deficit after 0.1 s from empty is 1 / (1 + 0.1 k_i)
    deficit = 1 - pressures[0, 0] / pneumatics.SUPPLY_PA
    assert deficit == pytest.approx(1 / (1 + 0.1 * params.k_i_per_s), rel=1e-9)
    assert pressures[0, 1] == 0.0
    bank.pressure_pa[0, 0] = pneumatics.SUPPLY_PA
    vented = bank.step(np.zeros((1, 3)), 0.1)[0, 0]
    # isobaric: at the cap T_p while k_d p exceeds it
    assert pneumatics.SUPPLY_PA - vented == pytest.approx(0.1 * params.t_p_pa_per_s, rel=1e-9)
    low = bank.step(np.zeros((1, 3)), 0.5)[0, 0]
    # below the knee T_p / k_d: exponential, never below zero
    assert 0 < low < params.t_p_pa_per_s / params.k_d_per_s


def test_the_tethered_supply_sags_when_many_chambers_fill_at_once():
    def after(chambers: int, drop: float) -> float:
        # every module at once (no module delay): the supply alone
        params = pneumatics.ChamberParameters(supply_drop_per_chamber=drop, module_delay_s=0.0)
        bank = pneumatics.Chambers(5, params)
        duty = np.zeros((5, 3))
        duty.flat[:chambers] = 1.0
        for _ in range(30):
            pressures = bank.step(duty, 0.01)
        return pressures.flat[0] / pneumatics.SUPPLY_PA

    sag = pneumatics.DEFAULT_CHAMBERS.supply_drop_per_chamber
    assert after(15, sag) < after(5, sag) < after(1, sag) - 0.05
    # yet never to nothing: the tether and the orifices divide the supply
    assert after(15, sag) > 0.05
    assert after(15, 0.0) == pytest.approx(after(1, 0.0))
    with pytest.raises(ValueError, match='k_i_per_s = nan: must be finite and > 0'):
        pneumatics.ChamberParameters(k_i_per_s=math.nan)


def test_sn14_tables_equal_the_thesis_cell_for_cell():
    cells = tables.speeds()
    assert len(cells) == 6 * 12 * 4
    at = {(c.gait, c.segments, c.frequency_hz, c.beta_text, c.surface): c.bl_per_s for c in cells}
    # kept verbatim (D-S11)
    assert at[('sidewinding', 4, 0.875, 'π/3', 'rubber')] == 0.0123
    assert at[('undulation', 3, 1.5, '2π/3', 'rubber')] == 0.294
    assert at[('undulation', 5, 2.0, '11π/12', 'grass')] == 0.066
    assert at[('sidewinding', 5, 0.875, '5π/6', 'grass')] == 0.045
    # each table's maximum is the one its figure caption names (spec A4.4)
    best = {}
    for c in cells:
        key = (c.gait, c.segments)
        if c.bl_per_s > best.get(key, (0,))[0]:
            best[key] = (c.bl_per_s, c.surface, c.frequency_hz, c.beta_text)
    assert best[('undulation', 3)] == (0.333, 'rubber', 1.75, '2π/3')
    assert best[('undulation', 4)] == (0.308, 'rubber', 1.5, '2π/3')
    assert best[('undulation', 5)] == (0.269, 'paper', 2.0, '3π/4')
    assert best[('sidewinding', 3)] == (0.210, 'rubber', 0.875, 'π/3')
    assert best[('sidewinding', 4)] == (0.158, 'rubber', 1.0, 'π/2')
    assert best[('sidewinding', 5)] == (0.106, 'rubber', 0.875, 'π/2')
    # the chapter-2 headline runs are cells of the 4-segment tables on paper
    assert at[('undulation', 4, 2.0, '2π/3', 'paper')] * 510 == pytest.approx(140.25)
    assert at[('sidewinding', 4, 0.875, 'π/2', 'paper')] * 510 == pytest.approx(76.5)
    assert tables.beta_of('11π/12') == pytest.approx(11 * math.pi / 12) and tables.beta_of(
        'π/3'
    ) == pytest.approx(math.pi / 3)


def test_friction_table():
    assert tables.friction() == {
        'paper': (5.83, 0.58),
        'rubber': (4.17, 0.42),
        'carpet': (9.17, 1.42),
        'grass': (9.17, 8.33),
    }
