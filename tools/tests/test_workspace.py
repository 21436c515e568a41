"""Test 6c and 6d of the foundation: manifests declare what the code imports; launch files name
real things."""

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
    (pkg / 'setup.py').write_text(
        textwrap.dedent("""
        from setuptools import setup
        setup(name='demo_pkg',
              entry_points={'console_scripts': ['demo_node = demo_pkg.core:main']})
    """)
    )
    return wc.find_manifests(tmp_path / 'src')[0]


def test_every_workspace_package_is_found():
    assert {'soro_interfaces', 'soro_link'} <= WORKSPACE


@pytest.mark.parametrize('manifest', MANIFESTS, ids=lambda m: m.name)
def test_interface_packages_depend_on_what_rosidl_generates_for_them(manifest):
    assert wc.interface_dependencies(manifest) == []


def test_a_service_without_service_msgs_is_named(tmp_path):
    manifest = make_package(
        tmp_path, '<depend>action_msgs</depend><exec_depend>service_msgs</exec_depend>', ''
    )
    (manifest.path / 'srv').mkdir()
    (manifest.path / 'srv' / 'Reset.srv').write_text('float64 psi\n---\nbool success\n')
    assert wc.interface_dependencies(manifest) == [
        'package demo_pkg: its .srv files need <depend>service_msgs</depend> in package.xml'
    ]


@pytest.mark.parametrize('manifest', MANIFESTS, ids=lambda m: m.name)
def test_package_xml_declares_every_import(manifest):
    assert wc.missing_dependencies(manifest, WORKSPACE) == []


@pytest.mark.parametrize('manifest', MANIFESTS, ids=lambda m: m.name)
def test_only_node_modules_import_rclpy(manifest):
    assert wc.rclpy_outside_nodes(manifest) == []


def test_a_pure_module_that_imports_rclpy_is_named(tmp_path):
    manifest = make_package(
        tmp_path, '<exec_depend>rclpy</exec_depend>', 'from rclpy.node import Node\n'
    )
    assert wc.rclpy_outside_nodes(manifest) == [
        'package demo_pkg: demo_pkg/core.py imports rclpy; only *_node.py and commander.py may '
        '(move the ROS side into a *_node.py module)'
    ]


VERIFIED = wc.verified_keys()


@pytest.mark.parametrize('manifest', MANIFESTS, ids=lambda m: m.name)
def test_every_rosdep_key_is_verified_against_rosdistro(manifest):
    assert wc.unverified_keys(manifest, VERIFIED, WORKSPACE) == []


def test_the_import_map_names_only_verified_keys():
    assert set(wc.PYTHON_KEYS.values()) - set(VERIFIED) == set()
    assert set(wc.ROS_MODULES) - set(VERIFIED) == set()


def test_imports_without_a_rosdep_key_are_pinned_for_every_machine():
    """What PIP_ONLY lets a package.xml leave out must come from the lock files, the robot's
    included."""
    env = Path(__file__).resolve().parents[1] / 'env'
    for distribution in wc.PIP_ONLY.values():
        for lock in ('ros.txt', 'robot.txt'):
            assert f'\n{distribution}==' in (env / lock).read_text().lower(), (distribution, lock)


def test_keys_the_readme_and_image_skip_are_verified():
    """rosdep install --skip-keys in README.md and docker/Dockerfile name real keys (a typo would
    skip nothing)."""
    for text in ((ROOT / 'README.md').read_text(), (ROOT / 'docker' / 'Dockerfile').read_text()):
        skipped = text.split('--skip-keys "')[1].split('"')[0].split()
        assert skipped and set(skipped) <= set(VERIFIED), skipped


ENV = ROOT / 'tools' / 'env'
SKIPPING = {name: (ROOT / name).read_text() for name in ('README.md', 'docker/Dockerfile')}
PINNED = (ENV / 'robot.txt').read_text() + (ENV / 'nodeps.txt').read_text()


def test_every_pip_key_a_package_names_is_skipped_and_pinned():
    """rosdep stops on a pip key on Ubuntu 24.04: README's and the image's rosdep install skip each
    one, and the robot's lock files pin what it stands for."""
    assert set(wc.pip_keys()) <= set(VERIFIED)
    assert wc.unskipped_pip_keys(MANIFESTS, wc.pip_keys(), SKIPPING, PINNED) == []


def test_a_pip_key_left_out_of_skip_keys_or_the_locks_is_named(tmp_path):
    manifest = make_package(
        tmp_path, '<exec_depend>python3-mujoco-pip</exec_depend>', 'import mujoco\n'
    )
    skipping = {'README.md': 'rosdep install --skip-keys "python3-rosbags-pip"'}
    assert wc.unskipped_pip_keys([manifest], wc.pip_keys(), skipping, 'rosbags==0.11.9\n') == [
        'README.md: rosdep install does not skip "python3-mujoco-pip" (a pip key; add '
        'it to --skip-keys)',
        '"python3-mujoco-pip" installs pip mujoco, which no lock file pins (tools/env/robot.txt)',
    ]


def test_an_unknown_key_is_named(tmp_path):
    manifest = make_package(
        tmp_path,
        '<test_depend>gcc</test_depend><exec_depend>python3-numpy</exec_depend>',
        'import numpy\n',
    )
    assert wc.unverified_keys(manifest, VERIFIED) == [
        'package demo_pkg: "gcc" is not a verified rosdep key (tools/rosdep_keys.yaml)'
    ]


def test_missing_dependency_is_named_with_package_and_import(tmp_path):
    manifest = make_package(
        tmp_path,
        '<exec_depend>python3-numpy</exec_depend>',
        'import os\nimport numpy as np\nfrom scipy.optimize import milp\nfrom . import core\n',
    )
    assert wc.missing_dependencies(manifest) == [
        'package demo_pkg: demo_pkg/core.py imports scipy, but package.xml has no '
        '<exec_depend>python3-scipy</exec_depend>'
    ]


def test_test_imports_need_a_test_depend(tmp_path):
    manifest = make_package(
        tmp_path,
        '<exec_depend>rclpy</exec_depend>',
        'import rclpy\n',
        'import pytest\nimport rclpy\n',
    )
    problems = wc.missing_dependencies(manifest)
    assert problems == [
        'package demo_pkg: test/test_core.py imports pytest, '
        'but package.xml has no <test_depend>python3-pytest</test_depend>'
    ]
    manifest = make_package(
        tmp_path / 'b',
        '<exec_depend>rclpy</exec_depend><test_depend>python3-pytest</test_depend>',
        'import rclpy\n',
        'import pytest\nimport rclpy\n',
    )
    assert wc.missing_dependencies(manifest) == []


def test_unknown_module_asks_for_a_key(tmp_path):
    manifest = make_package(tmp_path, '', 'import some_unheard_of_lib\n')
    [problem] = wc.missing_dependencies(manifest)
    assert 'no rosdep key known for "some_unheard_of_lib"' in problem


def test_workspace_packages_are_their_own_keys(tmp_path):
    manifest = make_package(
        tmp_path,
        '<exec_depend>soro_link</exec_depend>',
        'from soro_link import framing\nimport soro_x\n',
    )
    [problem] = wc.missing_dependencies(manifest, {'soro_link', 'soro_x'})
    assert problem.endswith(
        'imports soro_x, but package.xml has no <exec_depend>soro_x</exec_depend>'
    )


LAUNCH = """
from softbots_bringup.description import NodeSpec, RobotLaunch, switch

ROBOT = RobotLaunch(arguments=(switch('sim', 'simulated'),), nodes=(
    NodeSpec('{pkg}', '{exe}', 'demo_node', ('config/{params}',)),
    NodeSpec('demo_pkg', 'demo_sim', 'demo_sim', when='sim'),
))

def generate_launch_description():
    from softbots_bringup.launching import launch_description
    return launch_description(ROBOT)
"""
INSTALL = ROOT / 'install'


def launch_tree(tmp_path, pkg, exe, params):
    """An install/ with demo_pkg (demo_node, demo_sim) and softbots_bringup's share holding
    config/demo.yaml."""
    lib = tmp_path / 'install' / 'demo_pkg' / 'lib' / 'demo_pkg'
    lib.mkdir(parents=True)
    for name in ('demo_node', 'demo_sim'):
        (lib / name).write_text('#!/bin/sh\n')
    config = wc.bringup_share(tmp_path / 'install') / 'config'
    config.mkdir(parents=True)
    (config / 'demo.yaml').write_text('demo_node:\n  ros__parameters: {}\n')
    launch = tmp_path / 'demo.launch.py'
    launch.write_text(LAUNCH.format(pkg=pkg, exe=exe, params=params))
    return launch


def test_launch_checker_accepts_a_consistent_launch_file(tmp_path):
    assert (
        wc.launch_problems(
            launch_tree(tmp_path, 'demo_pkg', 'demo_node', 'demo.yaml'), tmp_path / 'install'
        )
        == []
    )


@pytest.mark.parametrize(
    'pkg, exe, params, expected',
    [
        ('nope_pkg', 'demo_node', 'demo.yaml', 'package "nope_pkg" is not installed in {install}'),
        (
            'demo_pkg',
            'other_node',
            'demo.yaml',
            'package "demo_pkg" has no executable "other_node" (it has: demo_node, demo_sim)',
        ),
        (
            'demo_pkg',
            'demo_node',
            'missing.yaml',
            'file "config/missing.yaml" is not installed in {share}',
        ),
    ],
)
def test_launch_checker_names_what_is_missing(tmp_path, pkg, exe, params, expected):
    install = tmp_path / 'install'
    expected = expected.format(install=install, share=wc.bringup_share(install))
    assert wc.launch_problems(launch_tree(tmp_path, pkg, exe, params), install) == [
        f'demo.launch.py: {expected}'
    ]


def test_launch_checker_reports_syntax_errors(tmp_path):
    bad = tmp_path / 'bad.launch.py'
    bad.write_text('def generate_launch_description(:\n')
    [problem] = wc.launch_problems(bad, tmp_path)
    assert problem.startswith('bad.launch.py: does not load')


@pytest.mark.parametrize('launch_file', LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_file_names_only_what_is_installed(launch_file):
    """Every package, executable and file the launch starts or reads, for every choice of its
    arguments, resolved through install/ as `ros2 launch softbots_bringup <file>` resolves it."""
    assert wc.launch_problems(launch_file, INSTALL) == []


@pytest.mark.parametrize('launch_file', LAUNCH_FILES, ids=lambda p: p.name)
def test_what_a_launch_file_starts_from_ros_is_an_exec_depend_of_the_bringup(launch_file):
    """rviz:=true on a ros-base robot aborted the whole launch: rviz2 was nobody's dependency."""
    [bringup] = [m for m in MANIFESTS if m.name == 'softbots_bringup']
    assert wc.undeclared_system_packages(launch_file, bringup) == []


def test_a_launch_that_starts_an_undeclared_ros_package_is_named(tmp_path):
    [bringup] = [m for m in MANIFESTS if m.name == 'softbots_bringup']
    bare = wc.Manifest(bringup.name, bringup.path, bringup.run_keys - {'rviz2'}, bringup.test_keys)
    assert wc.undeclared_system_packages(ROOT / 'launch' / 'pom.launch.py', bare) == [
        'pom.launch.py: starts rviz2, but softbots_bringup/package.xml has no '
        '<exec_depend>rviz2</exec_depend>'
    ]


@pytest.mark.parametrize('launch_file', LAUNCH_FILES, ids=lambda p: p.name)
def test_installed_launch_file_is_the_source_one(launch_file):
    assert (
        wc.bringup_share(INSTALL) / 'launch' / launch_file.name
    ).read_text() == launch_file.read_text()


def test_top_level_folders_are_installed_whole():
    assert wc.uninstalled_sources(ROOT, INSTALL) == []
    assert {p.name for p in (wc.bringup_share(INSTALL) / 'urdf').iterdir()} >= {
        'terresoro.urdf.xacro'
    }


def test_a_file_missing_from_the_install_is_named(tmp_path):
    (tmp_path / 'config').mkdir()
    (tmp_path / 'config' / 'robot.yaml').write_text('a: 1\n')
    assert wc.uninstalled_sources(tmp_path, tmp_path / 'install') == [
        'config/robot.yaml is not installed as it is in the source tree: make build'
    ]
