"""The stack's interfaces keep ROS's conventions: angles in radians (no field in degrees), and no
type that takes the name of a Nav2 action while carrying other fields (nav2_msgs is not installed
here, so the names are listed)."""

import importlib
import inspect

import pytest

# every action name nav2_msgs has had (Jazzy's and later ones): a soro_interfaces type of one of
# these names would be taken for Nav2's
NAV2_ACTIONS = {
    'AssistedTeleop',
    'BackUp',
    'ClassifyPath',
    'ComputeAndTrackRoute',
    'ComputePath',
    'ComputePathThroughPoses',
    'ComputePathToPose',
    'ComputePathToPoses',
    'ComputePlan',
    'ComputeRoute',
    'DockRobot',
    'DriveOnHeading',
    'DummyBehavior',
    'DummyRecovery',
    'Empty',
    'ExecuteMission',
    'FollowGPSWaypoints',
    'FollowObject',
    'FollowPath',
    'FollowWaypoints',
    'NavigateThroughPoses',
    'NavigateToPose',
    'NavigateToPoses',
    'RandomCrawl',
    'SmoothPath',
    'Spin',
    'TrackPrecomputedRoute',
    'UndockRobot',
    'Wait',
}
PARTS = {'msg': ('',), 'srv': ('Request', 'Response'), 'action': ('Goal', 'Result', 'Feedback')}


def interfaces():
    """(kind, name, class) of every soro_interfaces message, service and action."""
    found = []
    for kind in PARTS:
        module = importlib.import_module(f'soro_interfaces.{kind}')
        found += [
            (kind, name, cls)
            for name, cls in inspect.getmembers(module, inspect.isclass)
            if '_' not in name and all(hasattr(cls, part) for part in PARTS[kind] if part)
        ]
    return found


def fields(kind, cls):
    """'Part.field' of every field of the type, its request/response or goal/result/feedback."""
    parts = [(part, getattr(cls, part) if part else cls) for part in PARTS[kind]]
    return [
        f'{part or cls.__name__}.{field}'
        for part, c in parts
        for field in c.get_fields_and_field_types()
    ]


def test_every_kind_of_interface_is_found():
    kinds = {kind for kind, _, _ in interfaces()}
    assert kinds == {'msg', 'srv', 'action'} and len(interfaces()) > 15


@pytest.mark.parametrize(
    'kind, name, cls', interfaces(), ids=lambda v: v if isinstance(v, str) else ''
)
def test_no_field_is_in_degrees(kind, name, cls):
    assert [f for f in fields(kind, cls) if 'deg' in f.split('.')[1].split('_')] == []


def test_no_type_takes_a_nav2_action_name():
    assert sorted(name for _, name, _ in interfaces() if name in NAV2_ACTIONS) == []
