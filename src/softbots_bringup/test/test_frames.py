"""REP-105 per robot, for every combination of its launch arguments: the tf tree its launch file builds (the URDF's
joints that robot_state_publisher publishes and each node's declared broadcasts, on the parameters the launch gives
it) is one tree ``map|world -> odom -> base_link -> URDF``, and every frame a node stamps, and rviz's fixed frame, is
in it. The URDF root carries no inertia (KDL warns about it at every robot_state_publisher start)."""
import xml.etree.ElementTree as ET

import pytest

from softbots_bringup import description, frame_tree
from softbots_bringup.share import installed, share_dir

ROBOTS = ('pom', 'terresoro', 'soft_snake', 'salamander', 'tensegrity')
CASES = [(name, args) for name in ROBOTS
         for args in description.every_combination(description.load(installed(f'launch/{name}.launch.py')))]


def resolved(name, args):
    return description.resolve(description.load(installed(f'launch/{name}.launch.py')), args, share_dir())


@pytest.mark.parametrize('name, args', CASES, ids=[f'{n}-{"-".join(a.values())}' for n, a in CASES])
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
