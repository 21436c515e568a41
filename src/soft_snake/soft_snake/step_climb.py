"""Step climbing of a five-module snake onto a 7 cm step (thesis §2.2.2, Table 2.3, Fig. 2.10; spec
A3). No ROS.

Table 2.3 gives, for each passive wheel to lift (wheel 1 at the head to wheel 6 at the tail), each
segment's state; "a/b" alternates between states a and b at the undulation frequency. The states
themselves are drawn only in Fig. 2.10, so what each inflates is a configurable dictionary, by
default the spec's reading (D-S8): 1 and 2 the two lateral bends, 3 both bottom chambers (bends
up), 4 the top chamber (bends down), 5 and 6 lateral with the top. An alternating segment takes Eq.
2.1's phase 2π ω t + i β: while sin > 0 the state of the pair that inflates chamber 0, as K_i0 = +1
there (spec A3, D-S9). Rows advance on a trigger (a wheel over the step in the simulator, a service
on the robot).

The valves' duty is the pressure asked for (D-S1): the held states get the full supply but for
those in ``state_duty`` (state 4, pressing down, at ``PRESS_DUTY``), the segments that keep
undulating ("2/1") their row's share of it (``ROW_UNDULATION_DUTIES``). The thesis gives no
pressures for the climb; ours is partial pressure for the pushing segments, so that their filling
leaves the tethered supply (``pneumatics``) to the segment holding the head up, and for the segment
pressing down, so that it lands the wheels ahead of it without pinning down the wheel behind it.

The thesis "developed and tuned" its gait in its simulator (§2.2.2) and gives its table, not its
tuning; ours is ``CLIMB_TABLE``, the default of ``StepClimb``, tuned in our simulator the same way
(``TABLE_2_3`` stays verbatim). Rows wheel1 and wheel2 rear the head onto the step as the thesis
narrates; from row wheel3 on the landed segments press down together, as the verbatim rows wheel2
and wheel5 do ("down" bending of the landed segments raises the next wheel, D-S8), and arch the
body from the head's wheels on the step to the tail's on the floor, an arch that the undulating
segments at its ends walk over the edge. The climb's ω is not given (D-S9): each row has its own,
``ROW_FREQUENCIES_HZ``, tuned in our simulator too.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping

import numpy as np

from soft_snake.gaits import CHAMBERS, GaitError

SEGMENTS = 5
# Table 2.3 verbatim: rows wheel1..wheel6, columns segment1..segment5
TABLE_2_3 = (
    ('3', '2/1', '2/1', '2/1', '2/1'),
    ('4', '4', '2/1', '2/1', '4'),
    ('2/1', '4', '3', '2/1', '2/1'),
    ('2/1', '2/1', '4', '3', '2/1'),
    ('2/1', '2/1', '2/1', '4', '4'),
    ('5/6', '2/1', '2/1', '2/1', '3'),
)
# Table 2.3 as our simulator climbs it (tuned in it, bench/snake_step.py; D-S8). Row wheel2 has no
# 3 and, verbatim, also presses segments 2 and 5 down: that throws the snake back off the step, so
# it is read as row wheel3 is, the landed head segment pressing down (4) and segment 2 lifting
# wheel 2 (3). Verbatim, row wheel3 (segment 3 lifting) only gets wheel 3 to 43-47 mm and leaves
# the snake on its belly on the step's corner; pressing segments 2-4 down together arches plates
# 1-3 up to 90-105 mm between the head's wheels on the step and the tail's on the floor, and
# segments 1 and 5 undulating walk the arch over the edge: rows wheel3 and wheel4. Row wheel5
# raises the head (3) while segments 3-4 arch under wheel 5, the only combination of 2/1, 3, 4 and
# 5/6 that gets it over without flipping the tail; row wheel6 presses the head down for a foothold
# (4; the verbatim 5/6's downward bias), and segment 3 lifts (3) while 4 presses (4) as the
# thesis's rows wheel3 and wheel4 do. docs/soft_snake.md: what each verbatim row does instead.
ARCH = ('2/1', '4', '4', '4', '2/1')
CLIMB_TABLE = (
    TABLE_2_3[0],
    ('4', '3', '2/1', '2/1', '2/1'),
    ARCH,
    ARCH,
    ('3', '2/1', '4', '4', '2/1'),
    ('4', '2/1', '3', '4', '2/1'),
)
# each row's ω (ours, tuned in the simulator, bench/snake_step.py; D-S9), wheel1 to wheel6: the
# head rears and reaches over the edge sooner at 0.5 Hz, the arch walks at 1.5 Hz (on the body
# calibrated before, at 1, 1.25, 1.4 and 1.6 Hz no run climbed within 60 s), and row wheel6 pulls
# the tail over at 1.5 Hz (at 1.25 Hz in 1 of 10 runs, at 1.75 Hz in none)
ROW_FREQUENCIES_HZ = (0.5, 1.0, 1.5, 1.5, 1.5, 1.5)
# inflated chambers j (spec A3 reading)
STATES = {1: (0,), 2: (1,), 3: (0, 1), 4: (2,), 5: (0, 2), 6: (1, 2)}
# the undulating segments' share of the supply while climbing (ours; see the module docstring)
UNDULATION_DUTY = 0.5
# each row's share (ours, tuned in the simulator, bench/snake_step.py), wheel1 to wheel6: tuned
# one or two rows at a time on jittered starts other than the benchmark's, 10 or 16 a set. With
# rows wheel1 and wheel5 at 0.8, row wheel6 at 0.4, 0.5, 0.6 and 0.7 got the tail over in 1, 8,
# 14 and 2 of 16 runs; row wheel4 at 0.6 in 1 of 16, most with three wheels over. These shares
# climbed all six wheels within 60 s in 29 of 30 runs from starts they were not tuned on
ROW_UNDULATION_DUTIES = (0.7, 0.5, 0.7, 0.7, 0.7, 0.6)
# state 4's share of the supply (ours, tuned in the simulator): at 0.65 and at the full supply no
# run gets wheel 3 over (0 of 16), at 0.9 one of 16 climbs, the rest mostly with three wheels over
PRESS_DUTY = 0.85
# the held states' duties where not 1 (the full supply)
STATE_DUTY = {4: PRESS_DUTY}
# once the tail's wheel is over, the thesis's "rest of the modules pulling it forward with lateral
# undulation" (ours, tuned in the simulator, bench/snake_step.py): the three head segments undulate
# on the step at 2 Hz and 0.7 of the supply while the two tail segments press down (4), for 20 s;
# then every chamber vents. Vented at once, the arch flattening lengthens the body backwards and
# the tail's wheel ends 44-53 mm behind the edge (6 of 6 runs); with the head's two segments
# undulating over the held arch instead (2/1, 2/1, 3, 4, 2/1 at 0.8), 59-85 mm behind it (10 of
# 10); after this, 59-87 mm past it (20 of 20)
FINISH_ROW = ('2/1', '2/1', '2/1', '4', '4')
FINISH_HZ, FINISH_DUTY, FINISH_S = 2.0, 0.7, 20.0


class StepClimb:
    """Table 2.3 run row by row. ``states`` maps a state number to the chambers it inflates; row
    r's "a/b" segments switch at ``row_frequencies_hz[r]`` (None: at ``frequency_hz`` in every
    row) with their chambers at ``row_undulation_duties[r]`` (None: ``undulation_duty``). Once
    the last row is done, ``FINISH_ROW`` pulls the tail on for ``finish_s`` (from the first duty
    asked for after it; 0: none), then every chamber vents."""

    def __init__(
        self,
        frequency_hz: float,
        beta_rad: float,
        states: Mapping[int, tuple[int, ...]] = STATES,
        table=CLIMB_TABLE,
        undulation_duty: float = UNDULATION_DUTY,
        state_duty: Mapping[int, float] = STATE_DUTY,
        row_frequencies_hz: tuple[float, ...] | None = ROW_FREQUENCIES_HZ,
        row_undulation_duties: tuple[float, ...] | None = ROW_UNDULATION_DUTIES,
        finish_s: float = FINISH_S,
    ):
        frequencies = (frequency_hz, *(row_frequencies_hz or ()))
        for value in frequencies:
            if not (math.isfinite(value) and 0 < value <= 2.0):
                raise GaitError(f'frequency = {value} Hz: allowed (0, 2.0] Hz')
        if not math.isfinite(beta_rad):
            raise GaitError(f'beta = {beta_rad}: must be finite')
        for value in (undulation_duty, *(row_undulation_duties or ())):
            if not (math.isfinite(value) and 0 < value <= 1):
                raise GaitError(f'undulation_duty = {value}: allowed (0, 1]')
        for number, duty in state_duty.items():
            if not (math.isfinite(duty) and 0 < duty <= 1):
                raise GaitError(f'state {number}: duty = {duty}, allowed (0, 1]')
        if not (math.isfinite(finish_s) and finish_s >= 0):
            raise GaitError(f'finish_s = {finish_s}: must be finite and >= 0')
        self.state_duty, self.finish_s = dict(state_duty), finish_s
        self.frequency_hz, self.beta_rad = frequency_hz, beta_rad
        self.cells = [_states_of(row) for row in table]
        finish = _states_of(FINISH_ROW)
        if any(len(row) != SEGMENTS for row in self.cells):
            raise GaitError(f'step climbing needs {SEGMENTS} segments in every row of its table')
        self.row_frequencies_hz = _per_row(
            row_frequencies_hz, frequency_hz, self.rows, 'frequencies'
        )
        self.row_undulation_duties = _per_row(
            row_undulation_duties, undulation_duty, self.rows, 'undulation duties'
        )
        used = {s for row in [*self.cells, finish] for cell in row for s in cell}
        missing = sorted(used - set(states))
        if missing:
            raise GaitError(
                f'state(s) {missing} of the step-climb table are missing from the state '
                'dictionary '
                f'(it has {sorted(states)})'
            )
        for number, chambers in states.items():
            if not set(chambers) <= set(range(CHAMBERS)):
                raise GaitError(f'state {number}: chambers {chambers}, allowed 0-2')
        self.states = dict(states)
        # "a/b": while sin > 0 the state that inflates chamber 0 (K_i0 = +1, as Eq. 2.1 would),
        # else the other
        self.cells = [self._chamber_0_first(row) for row in self.cells]
        self.finish_cells = self._chamber_0_first(finish)  # ``rows`` counts the table's only
        self.row = 0
        self._advancing = threading.Lock()
        self._finish_began_s: float | None = None

    def _chamber_0_first(self, row: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """``row`` with each "a/b" cell's state that inflates chamber 0 first."""
        return [tuple(sorted(cell, key=lambda s: 0 not in self.states[s])) for cell in row]

    @property
    def rows(self) -> int:
        """Rows of the table: one per wheel to lift, head to tail."""
        return len(self.cells)

    @property
    def done(self) -> bool:
        """Whether every row has run (the tail's wheel is up); ``segment_states`` then raises."""
        return self.row >= self.rows

    def advance(self) -> int | None:
        """Move on to the next wheel's row (its wheel landed); the new row index (== rows once the
        tail is up), None if the climb was complete already (nothing moved)."""
        # the driver's timer and its ~/step_climb_advance service are two threads: one advance
        # each, and the one that finds the climb complete is told so
        with self._advancing:
            if self.row >= self.rows:
                return None
            self.row += 1
            return self.row

    def segment_states(self, t_s: float) -> list[int]:
        """The state number of each segment at time ``t_s`` in the current row."""
        row = self.row
        if row >= self.rows:
            raise GaitError('the step climb is complete: every wheel is up')
        return self._segment_states(self._playing(row, t_s), t_s)

    def chamber_states(self, t_s: float) -> np.ndarray:
        """K (5, 3): +1 for the chambers each segment's state inflates, −1 (vented) for the
        others; once the climb is complete the finishing row's, then every chamber vented."""
        return self._chamber_states(self._playing(self.row, t_s), t_s)

    def duty(self, t_s: float) -> np.ndarray:
        """Valve duties (5, 3) in [0, 1] at ``t_s``: the inflated chambers of a held state at its
        ``state_duty`` (1 unless listed), those of an alternating ("a/b") segment at the row's
        undulation duty, the rest vented; once the climb is complete the finishing row's, then
        all vented."""
        # one read of the row: on the robot a service advances it while the valves are computed
        playing = self._playing(self.row, t_s)
        inflated = self._chamber_states(playing, t_s) > 0
        if playing is None:
            return np.zeros(inflated.shape)
        cells, _, undulation_duty = playing
        share = [
            self.state_duty.get(cell[0], 1.0) if len(cell) == 1 else undulation_duty
            for cell in cells
        ]
        return np.where(inflated, np.array(share)[:, None], 0.0)

    def _playing(self, row: int, t_s: float) -> tuple | None:
        """(cells, ω Hz, undulation duty) of what plays at ``t_s`` in ``row``: the table's row,
        the finishing row for ``finish_s`` from the first time asked past the table, or None
        (vented)."""
        if row < self.rows:
            return self.cells[row], self.row_frequencies_hz[row], self.row_undulation_duties[row]
        if self._finish_began_s is None:
            self._finish_began_s = t_s
        if t_s - self._finish_began_s < self.finish_s:
            return self.finish_cells, FINISH_HZ, FINISH_DUTY
        return None

    def _segment_states(self, playing: tuple, t_s: float) -> list[int]:
        cells, omega, _ = playing
        out = []
        for i, cell in enumerate(cells):
            rising = math.sin(2 * math.pi * omega * t_s + i * self.beta_rad) > 0
            out.append(cell[0] if len(cell) == 1 or rising else cell[1])
        return out

    def _chamber_states(self, playing: tuple | None, t_s: float) -> np.ndarray:
        k = -np.ones((SEGMENTS, CHAMBERS), dtype=np.int8)
        if playing is not None:
            for i, state in enumerate(self._segment_states(playing, t_s)):
                k[i, list(self.states[state])] = 1
        return k


def _states_of(row) -> list[tuple[int, ...]]:
    """A table row's cells ("2/1", "4") as state numbers ((2, 1), (4,))."""
    return [tuple(int(s) for s in cell.split('/')) for cell in row]


def _per_row(values, every_row: float, rows: int, what: str) -> tuple[float, ...]:
    """``values``, one per row of a ``rows``-row table (None: ``every_row`` in each)."""
    out = tuple(values or [every_row] * rows)
    if len(out) != rows:
        raise GaitError(f'{len(out)} row {what} for a table of {rows} rows')
    return out
