"""REP-105 per robot, for every combination of its launch arguments: the tf tree its launch file
builds (the URDF's joints that robot_state_publisher publishes and each node's declared broadcasts,
on the parameters the launch gives it) is one tree ``map|world -> odom -> base_link -> URDF``, and
every frame a node stamps, and rviz's fixed frame, is in it. The URDF root carries no inertia (KDL
warns about it at every robot_state_publisher start)."""

import importlib
import xml.etree.ElementTree as ET

import pytest

from softbots_bringup import description, frame_tree
from softbots_bringup.share import installed, share_dir

ROBOTS = ('pom', 'terresoro', 'soft_snake', 'salamander', 'tensegrity')
CASES = [
    (name, args)
    for name in ROBOTS
    for args in description.every_combination(
        description.load(installed(f'launch/{name}.launch.py'))
    )
]


def resolved(name, args):
    return description.resolve(
        description.load(installed(f'launch/{name}.launch.py')), args, share_dir()
    )


@pytest.mark.parametrize(
    'name, args', CASES, ids=[f'{n}-{"-".join(a.values())}' for n, a in CASES]
)
def test_every_stamped_frame_is_in_the_one_rep105_tree_the_launch_builds(name, args):
    tree = frame_tree.build(resolved(name, args))
    assert frame_tree.check(tree) == []
    assert tree.roots() in (['map'], ['world'])
    assert tree.chain('base_link') == ['base_link', 'odom'] + tree.roots()


@pytest.mark.parametrize('name, args', [(n, a) for n, a in CASES if n != 'tensegrity'])
def test_the_urdf_root_is_base_link_without_inertia(name, args):
    rsp = [n for n in resolved(name, args) if n.robot_description]
    assert len(rsp) == 1
    urdf = ET.fromstring(description.urdf_text(rsp[0]))
    children = {j.find('child').get('link') for j in urdf.iter('joint')}
    roots = [link for link in urdf.iter('link') if link.get('name') not in children]
    assert [link.get('name') for link in roots] == ['base_link']
    assert roots[0].find('inertial') is None


def test_the_check_names_a_frame_stamped_outside_the_tree_and_a_frame_with_two_parents():
    tree = frame_tree.Tree()
    tree.add('a', 'map', 'odom')
    tree.add('b', 'world', 'odom')
    tree.stamps['lab'] = ['pom_sim']
    problems = frame_tree.check(tree)
    assert any('odom has two parents' in p for p in problems)
    assert any(p.startswith('lab (stamped by pom_sim) is not in tf') for p in problems)


# --- live: the frames the running nodes do stamp -------------------------------------------------
def message_type(name: str):
    package, _, kind = name.split('/')
    return getattr(importlib.import_module(f'{package}.msg'), kind)


# robot: (launch arguments, its nodes' port parameters, topics that must have spoken before the
# check)
LIVE = {
    'soft_snake': (
        {'sim': 'true'},
        ('soft_snake_sim', 'soft_snake_driver'),
        ('/soft_snake_driver/chambers', '/mocap/soft_snake/head', '/soft_snake_driver/trail'),
    ),
    'salamander': (
        {'sim': 'true'},
        ('salamander_sim', 'salamander_controller'),
        ('/mocap/salamander/pose', '/joint_states'),
    ),
    'pom': ({'sim': 'true'}, ('pom_sim', 'pom_controller'), ('/mocap_markers', '/joint_states')),
    'tensegrity': ({}, (), ('/tensegrity_sim/rod_poses', '/tensegrity_sim/markers')),
}


@pytest.mark.ros
@pytest.mark.parametrize('name', LIVE)
def test_every_frame_the_running_sim_stamps_is_declared_and_in_the_tree(name, tmp_path):
    import rclpy

    from softbots_bringup import runner
    from soro_node.frames import stamped_frames
    from soro_node.probe_node import Probe
    from soro_node.waiting import poll

    args, ported, awaited = LIVE[name]
    params, port = tmp_path / 'ports.yaml', tmp_path / f'tty_{name}'
    params.write_text(
        ''.join(f'{node}:\n  ros__parameters: {{port: {port}}}\n' for node in ported)
    )
    tree = frame_tree.build(resolved(name, args))
    rclpy.init()
    processes = runner.start(
        f'{name}.launch.py', tmp_path, args, extra_params=[params] if ported else []
    )
    probe = None
    try:
        lister = rclpy.create_node(f'{name}_topic_lister')
        assert poll(
            lambda: set(awaited) <= {t for t, _ in lister.get_topic_names_and_types()}, 10.0
        )
        topics = {
            t: message_type(types[0])
            for t, types in lister.get_topic_names_and_types()
            # no goal: no feedback
            if '/msg/' in types[0] and t not in ('/parameter_events', '/rosout')
        }
        lister.destroy_node()
        probe = Probe(f'{name}_frames_probe', topics)
        assert poll(lambda: all(probe.messages[t] for t in awaited), 20.0), (
            f'silent: {[t for t in awaited if not probe.messages[t]]}'
        )
        live = {}
        for topic, received in probe.messages.items():
            for msg in list(received):
                for frame in stamped_frames(msg):
                    live.setdefault(frame, set()).add(topic)
    finally:
        if probe:
            probe.close()
        codes = runner.stop_all(processes)
        rclpy.try_shutdown()
    assert set(codes.values()) == {0}
    assert live, 'no stamped message at all'
    # reachable in tf
    assert {f: sorted(t) for f, t in live.items() if f not in tree.frames()} == {}
    # and declared
    assert set(live) <= set(tree.stamps)
