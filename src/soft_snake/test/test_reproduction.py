"""The table reproduction's bookkeeping on predictions whose answers are known, and one cell
predicted for real."""

import math

import pytest

from soft_snake import reproduction, tables
from soft_snake.cli import tables_main
from soft_snake.gaits import body_length_m


def as_predicted(cells, bl_per_s, forward_sign=1.0):
    return [
        reproduction.Prediction(c, v * length, forward_sign * v * length, length)
        for c, v in zip(cells, bl_per_s)
        for length in [body_length_m(c.segments)]
    ]


def test_the_measured_tables_predicted_perfectly_correlate_and_keep_the_thesis_trends():
    cells = tables.speeds()
    perfect = as_predicted(cells, [c.bl_per_s for c in cells])
    # (ties in the tables may break either way after the round trip through m/s)
    assert reproduction.rank_correlation(perfect) == pytest.approx(
        {'undulation': 1.0, 'sidewinding': 1.0}, abs=1e-3
    )
    trends = reproduction.trends(perfect)
    assert len(trends) == 6
    # the thesis's own data: every SN-13 trend holds on it but "best undulation β": its 5-segment
    # table peaks at 3π/4 and its 4-segment one at 11π/12, so the mean over all lands outside
    # [2π/3, 3π/4]
    failing = [name for name, (holds, _) in trends.items() if not holds]
    assert failing == [] or failing == ['best undulation β in [2π/3, 3π/4]'], failing


def test_reversed_predictions_anticorrelate_and_backward_motion_is_counted():
    cells = tables.speeds()
    reversed_ = as_predicted(cells, [1 - c.bl_per_s for c in cells], forward_sign=-1.0)
    assert reproduction.rank_correlation(reversed_)['undulation'] == pytest.approx(-1.0, abs=1e-3)
    holds, detail = reproduction.trends(reversed_)['undulation on grass slow or backward']
    assert holds and detail.endswith('36 of 36 cells backward')


def test_one_cell_predicted_by_the_simulator():
    cell = next(
        c
        for c in tables.speeds()
        if c.gait == 'undulation'
        and c.segments == 4
        and c.surface == 'paper'
        and c.frequency_hz == 2.0
        and math.isclose(c.beta_rad, 2 * math.pi / 3)
    )
    prediction = reproduction.predict(cell)
    assert cell.bl_per_s == 0.275  # the headline cell (Table 5.3)
    assert prediction.bl_per_s == pytest.approx(0.275, rel=0.15) and prediction.forward_m_s > 0


def test_tables_cli_refuses_a_bad_process_count(capsys, tmp_path):
    with pytest.raises(SystemExit) as ended:
        tables_main(['--json', str(tmp_path / 'out.json'), '--processes', '0'])
    assert ended.value.code == 2
    assert capsys.readouterr().err.strip() == (
        'soft-snake-tables: argument --processes: 0: allowed range is '
        '[1, 1000000] (--help for usage)'
    )
