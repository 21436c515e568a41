"""Issue 29's table targets (soft_snake.targets) on the thesis's own cells and on made-up
predictions whose flaws are known."""

import math

import pytest

from soft_snake import tables, targets


def measured():
    return [(c, c.bl_per_s) for c in tables.speeds()]


def test_the_robot_s_own_tables_meet_the_grouped_targets_and_miss_one_trend():
    """Tables 5.2-5.4: the robot's β spread (median 1.09) and frequency departure (8.7 %) meet
    the targets; BL/s falls from 3 to 5 modules except on carpet (0.127 against 0.136); Tables
    5.5-5.7: sidewinding on carpet and grass at 0.51 and 0.53 of rubber and paper."""
    figures = targets.table_targets(measured())
    assert figures['undulation_phase_spread']['value'] == pytest.approx(1.089, abs=0.001)
    assert figures['undulation_phase_spread']['groups'] == '32 of 36'
    assert figures['undulation_phase_spread']['met']
    assert figures['undulation_frequency_departure']['value'] == pytest.approx(0.087, abs=0.001)
    assert figures['undulation_frequency_departure']['met']
    trend = figures['undulation_falls_from_3_to_5_modules']
    assert trend['value']['carpet'] == [0.127, 0.136] and not trend['met']
    ratio = figures['sidewinding_rough_over_smooth']
    assert ratio['value'] == {'carpet': 0.509, 'grass': 0.529} and ratio['met']


def test_a_prediction_that_falls_with_beta_as_sin_squared_misses_the_spread():
    """A travelling-wave thrust ∝ sin²β (5.8x from 2π/3 to 11π/12) fails the spread target in
    every group; the other figures are the robot's, so they still hold."""
    pairs = [
        (c, c.bl_per_s * (math.sin(c.beta_rad) ** 2 if c.gait == 'undulation' else 1.0))
        for c in tables.speeds()
    ]
    spread = targets.table_targets(pairs)['undulation_phase_spread']
    assert spread['value'] > 5 and spread['groups'] == '0 of 36' and not spread['met']
    assert targets.table_targets(pairs)['sidewinding_rough_over_smooth']['met']


def test_cells_standing_still_or_missing_give_unmet_targets_not_errors():
    """A prediction of 0 everywhere (flat in β and in frequency, but standing: infinite ratios),
    and a measured CSV of sidewinding only (NaN): every such target unmet, nothing raised."""
    still = targets.table_targets([(c, 0.0) for c in tables.speeds()])
    assert not any(t['met'] for t in still.values())
    assert still['undulation_phase_spread']['value'] == math.inf
    side = targets.table_targets([(c, v) for c, v in measured() if c.gait == 'sidewinding'])
    assert math.isnan(side['undulation_phase_spread']['value'])
    assert side['undulation_phase_spread']['groups'] == '0 of 0'
    assert not side['undulation_falls_from_3_to_5_modules']['met']
