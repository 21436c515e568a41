"""soro_node's one parameter path: a node's ``Settings`` built from its ParamSpecs (typed,
validated, kept current on a real rclpy node, a read-only one refused on change), and goal fields
checked against the same specs."""

import math

import pytest
import rclpy
from rclpy.parameter import Parameter

from soro_node.base_node import declare_parameters
from soro_node.params import FieldRefused, ParameterError, ParamSpec, Settings, field_value

SPEED = ParamSpec('speed_m_s', 0.08, 'forward speed (m/s)', 0.005, 0.3)
TAU = ParamSpec('tau_s', 0.55, 'time constant of a primitive (s)', 0.01, 10.0, read_only=True)
PLANNER = ParamSpec('planner', 'chomp', 'default planner', choices=('chomp', 'lattice_astar'))
SPECS = (SPEED, TAU, PLANNER)


def test_settings_are_read_by_name_or_attribute_with_the_specs_types():
    settings = Settings(SPECS, {'tau_s': 1})  # `-p tau_s:=1` arrives as an int
    assert settings.tau_s == settings['tau_s'] == 1.0 and isinstance(settings.tau_s, float)
    assert settings.speed_m_s == 0.08
    assert dict(settings) == {'speed_m_s': 0.08, 'tau_s': 1.0, 'planner': 'chomp'}
    with pytest.raises(AttributeError, match="no parameter 'speeed_m_s'"):
        _ = settings.speeed_m_s


def test_settings_checked_refuses_a_bad_start_up_value_naming_it():
    refusal = r'parameter speed_m_s = 0.5: allowed range is \[0.005, 0.3\]'
    with pytest.raises(ParameterError, match=refusal):
        Settings(SPECS, {'speed_m_s': 0.5}).checked()


@pytest.mark.parametrize(
    'value, reason',
    [
        (0.004, r'speed_m_s = 0.004: allowed range is \[0.005, 0.3\] \(as parameter speed_m_s\)'),
        (0.31, r'speed_m_s = 0.31: allowed range is \[0.005, 0.3\]'),
        (math.nan, 'speed_m_s = nan: must be finite'),
    ],
)
def test_a_goal_field_is_refused_with_its_parameters_range(value, reason):
    with pytest.raises(FieldRefused, match=reason):
        field_value(SPEED, value, 'speed_m_s', 0.08)


def test_a_goal_field_left_unset_takes_the_setting_and_a_good_one_its_own_value():
    assert field_value(SPEED, 0.0, 'speed_m_s', 0.08) == 0.08
    assert field_value(SPEED, 0.3, 'speed_m_s', 0.08) == 0.3
    assert field_value(PLANNER, '', 'planner_id', 'chomp', unset='') == 'chomp'
    refusal = "planner_id = 'rrt': allowed values are chomp, lattice_astar"
    with pytest.raises(FieldRefused, match=refusal):
        field_value(PLANNER, 'rrt', 'planner_id', 'chomp', unset='')


@pytest.fixture
def node():
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node(
        'params_test', context=context, parameter_overrides=[Parameter('speed_m_s', value=0.1)]
    )
    yield node
    node.destroy_node()
    rclpy.try_shutdown(context=context)


@pytest.mark.ros
def test_a_nodes_settings_follow_an_accepted_change_and_keep_a_refused_one_out(node):
    settings = declare_parameters(node, SPECS)
    assert settings.speed_m_s == 0.1  # the start-up override
    assert node.set_parameters([Parameter('speed_m_s', value=0.2)])[0].successful
    assert settings.speed_m_s == 0.2
    refused = node.set_parameters([Parameter('speed_m_s', value=0.5)])[0]
    assert not refused.successful and 'allowed range is [0.005, 0.3]' in refused.reason
    assert settings.speed_m_s == 0.2


@pytest.mark.ros
def test_a_read_only_parameter_is_refused_on_change_and_its_setting_stays(node):
    settings = declare_parameters(node, SPECS)
    refused = node.set_parameters([Parameter('tau_s', value=0.3)])[0]
    assert not refused.successful and 'read-only' in refused.reason
    assert settings.tau_s == 0.55


LOST = ParamSpec('lost_limbs', [], 'limb digits that no longer curl', item=int)
START = ParamSpec('start_pose', [0.35, 0.3, 1.57], 'x, y (m), heading (rad)')


@pytest.mark.ros
def test_a_list_parameter_takes_rclpys_arrays_and_checks_its_elements(node):
    """The hostile pass: lost_limbs [1] was refused ("array('q', [1]): must be of type list") and
    [] too, while ['a'] was taken and broke the executor's next configure."""
    settings = declare_parameters(node, (LOST, START))
    assert node.set_parameters([Parameter('lost_limbs', value=[1, 3])])[0].successful
    assert settings.lost_limbs == [1, 3] and type(settings.lost_limbs) is list
    empty = Parameter('lost_limbs', Parameter.Type.DOUBLE_ARRAY, [])
    assert node.set_parameters([empty])[0].successful and settings.lost_limbs == []
    refused = node.set_parameters([Parameter('lost_limbs', value=['a'])])[0]
    assert not refused.successful and refused.reason == (
        "parameter lost_limbs = ['a']: must be a list of int"
    )
    assert node.set_parameters([Parameter('start_pose', value=[1, 2, 0])])[0].successful
    assert settings.start_pose == [1.0, 2.0, 0.0] and type(settings.start_pose[0]) is float
    huge = node.set_parameters([Parameter('lost_limbs', value=['x'] * 100_000)])[0]
    assert not huge.successful and len(huge.reason) < 200 and '(100000 values)]' in huge.reason
