"""Test 6c and 6d of the foundation: manifests declare what the code imports; launch files name real things."""
import textwrap
from pathlib import Path

import pytest

import workspace_checks as wc

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = wc.find_manifests(ROOT / 'src')
WORKSPACE = {m.name for m in MANIFESTS}
LAUNCH_FILES = sorted((ROOT / 'launch').glob('*.launch.py'))

PACKAGE_XML = """<?xml version="1.0"?>
<package format="3">
  <name>demo_pkg</name><version>0.0.0</version><description>d</description>
  <maintainer email="dev@example.org">a</maintainer><license>Apache-2.0</license>
  {deps}
  <export><build_type>ament_python</build_type></export>
</package>
"""


def make_package(tmp_path, deps, code, test_code=''):
    pkg = tmp_path / 'src' / 'demo_pkg'
    (pkg / 'demo_pkg').mkdir(parents=True)
    (pkg / 'test').mkdir()
    (pkg / 'package.xml').write_text(PACKAGE_XML.format(deps=deps))
    (pkg / 'demo_pkg' / '__init__.py').write_text('')
    (pkg / 'demo_pkg' / 'core.py').write_text(code)
    (pkg / 'test' / 'test_core.py').write_text(test_code)
    (pkg / 'setup.py').write_text(textwrap.dedent("""
        from setuptools import setup
        setup(name='demo_pkg', entry_points={'console_scripts': ['demo_node = demo_pkg.core:main']})
    """))
    return wc.find_manifests(tmp_path / 'src')[0]


def test_every_workspace_package_is_found():
    assert {'soro_interfaces', 'soro_link'} <= WORKSPACE


@pytest.mark.parametrize('manifest', MANIFESTS, ids=lambda m: m.name)
def test_package_xml_declares_every_import(manifest):
    assert wc.missing_dependencies(manifest, WORKSPACE) == []


def test_missing_dependency_is_named_with_package_and_import(tmp_path):
    manifest = make_package(tmp_path, '<exec_depend>python3-numpy</exec_depend>',
                            'import os\nimport numpy as np\nfrom scipy.optimize import milp\nfrom . import core\n')
    assert wc.missing_dependencies(manifest) == [
        'package demo_pkg: demo_pkg/core.py imports scipy, but package.xml has no <exec_depend>python3-scipy</exec_depend>']


def test_test_imports_need_a_test_depend(tmp_path):
    manifest = make_package(tmp_path, '<exec_depend>rclpy</exec_depend>', 'import rclpy\n', 'import pytest\nimport rclpy\n')
    problems = wc.missing_dependencies(manifest)
    assert problems == ['package demo_pkg: test/test_core.py imports pytest, '
                        'but package.xml has no <test_depend>python3-pytest</test_depend>']
    manifest = make_package(tmp_path / 'b', '<exec_depend>rclpy</exec_depend><test_depend>python3-pytest</test_depend>',
                            'import rclpy\n', 'import pytest\nimport rclpy\n')
    assert wc.missing_dependencies(manifest) == []


def test_unknown_module_asks_for_a_key(tmp_path):
    manifest = make_package(tmp_path, '', 'import some_unheard_of_lib\n')
    [problem] = wc.missing_dependencies(manifest)
    assert 'no rosdep key known for "some_unheard_of_lib"' in problem


def test_workspace_packages_are_their_own_keys(tmp_path):
    manifest = make_package(tmp_path, '<exec_depend>soro_link</exec_depend>', 'from soro_link import bag\nimport soro_x\n')
    [problem] = wc.missing_dependencies(manifest, {'soro_link', 'soro_x'})
    assert problem.endswith('imports soro_x, but package.xml has no <exec_depend>soro_x</exec_depend>')


LAUNCH = """
from launch import LaunchDescription
from launch_ros.actions import Node

def generate_launch_description():
    return LaunchDescription([Node(package='{pkg}', executable='{exe}', parameters=['{params}'])])
"""


def launch_tree(tmp_path, pkg, exe, params):
    make_package(tmp_path, '', 'def main():\n    pass\n')
    (tmp_path / 'config').mkdir()
    (tmp_path / 'config' / 'demo.yaml').write_text('demo_node:\n  ros__parameters: {}\n')
    (tmp_path / 'launch').mkdir()
    launch = tmp_path / 'launch' / 'demo.launch.py'
    launch.write_text(LAUNCH.format(pkg=pkg, exe=exe, params=params))
    return launch


def test_launch_checker_accepts_a_consistent_launch_file(tmp_path):
    assert wc.launch_problems(launch_tree(tmp_path, 'demo_pkg', 'demo_node', 'demo.yaml'), tmp_path) == []


@pytest.mark.parametrize('pkg, exe, params, expected', [
    ('nope_pkg', 'demo_node', 'demo.yaml', 'package "nope_pkg" is not in src/'),
    ('demo_pkg', 'other_node', 'demo.yaml', 'package "demo_pkg" has no executable "other_node" (it has: demo_node)'),
    ('demo_pkg', 'demo_node', 'missing.yaml', 'file "missing.yaml" is not in config/, urdf/ or launch/'),
])
def test_launch_checker_names_what_is_missing(tmp_path, pkg, exe, params, expected):
    assert wc.launch_problems(launch_tree(tmp_path, pkg, exe, params), tmp_path) == [f'demo.launch.py: {expected}']


def test_launch_checker_reports_syntax_errors(tmp_path):
    bad = tmp_path / 'bad.launch.py'
    bad.write_text('def generate_launch_description(:\n')
    [problem] = wc.launch_problems(bad, tmp_path)
    assert problem.startswith('bad.launch.py: does not parse')


@pytest.mark.parametrize('launch_file', LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_file_names_only_what_exists(launch_file):
    assert wc.launch_problems(launch_file, ROOT) == []
