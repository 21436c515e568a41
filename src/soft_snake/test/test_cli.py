"""soft-snake-gait prints K for every segment and chamber (the top one included) at each time, and refuses bad
input in one line with exit code 2."""
import json
import math

import pytest

from soft_snake import cli


def test_prints_the_pattern_at_each_time(capsys):
    assert cli.main(['--gait', 'undulation', '--segments', '4', '--freq', '2', '--beta', str(2 * math.pi / 3),
                     '--times', '0.05,0.3', '--json']) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s['t_s'] for s in out['states']] == [0.05, 0.3]
    assert out['states'][0]['K'] == [[1, -1, -1], [1, -1, -1], [-1, 1, -1], [1, -1, -1]]
    assert out['chambers'] == ['bottom_left', 'bottom_right', 'top']


@pytest.mark.parametrize('argv, message', [
    (['--gait', 'undulation', '--freq', '2.5', '--beta', '1', '--times', '0'], 'frequency = 2.5 Hz: allowed'),
    (['--gait', 'sidewinding', '--segments', '7', '--freq', '1', '--beta', '1', '--times', '0'], 'segments = 7'),
    (['--gait', 'undulation', '--freq', '1', '--beta', 'nan', '--times', '0'], 'beta = nan: must be finite'),
    (['--gait', 'undulation', '--freq', '1', '--beta', '1', '--times', '0,x'], "argument --times: '0,x' is not"),
    (['--gait', 'crawl', '--freq', '1', '--beta', '1', '--times', '0'], "argument --gait: invalid choice")])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as ended:
        raise SystemExit(cli.main(argv))
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count('\n') == 1
