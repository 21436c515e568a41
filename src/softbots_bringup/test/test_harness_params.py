"""softbots_bringup.runner.write_params: a parameters file that rcl parses (pure, no ROS)."""

import yaml

from softbots_bringup.runner import write_params


def test_one_value_given_to_two_nodes_is_written_out_twice(tmp_path):
    """rcl's parser knows no YAML anchors: a list shared by two nodes (as a test's robot-wide
    settings are) is written as two plain lists."""
    limbs = [0, 1]
    path = write_params(
        tmp_path / 'params.yaml',
        {'sim': {'motor_of_limb': limbs}, 'bridge': {'motor_of_limb': limbs}},
    )
    text = path.read_text()
    assert '&' not in text and '*' not in text, text
    assert yaml.safe_load(text)['bridge'] == {'ros__parameters': {'motor_of_limb': [0, 1]}}


def test_paths_are_written_as_strings(tmp_path):
    path = write_params(tmp_path / 'params.yaml', {'sim': {'truth_file': tmp_path / 'truth.csv'}})
    assert yaml.safe_load(path.read_text())['sim']['ros__parameters']['truth_file'] == str(
        tmp_path / 'truth.csv'
    )
