"""Static checks of the workspace: manifests that declare what the code imports with rosdep keys
that exist, rclpy only in node modules, and launch files whose every node and file is installed.

Pure: reads files, returns lists of problems (empty when all is well). The tests in tools/tests run
them over src/, launch/ and install/; run this module directly for a report (after `make build`).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml
from catkin_pkg.package import parse_package

# Import name -> rosdep key, for everything that is not a ROS package of the same name. Keys ending
# in -pip are installed from tools/env/robot.txt by `make env`; rosdep skips them (README). Every
# key is in rosdep_keys.yaml.
PYTHON_KEYS = {
    'numpy': 'python3-numpy',
    'scipy': 'python3-scipy',
    'networkx': 'python3-networkx',
    'serial': 'python3-serial',
    'matplotlib': 'python3-matplotlib',
    'yaml': 'python3-yaml',
    'pytest': 'python3-pytest',
    'hypothesis': 'python3-hypothesis',
    'lxml': 'python3-lxml',
    'xacro': 'xacro',
    'rosbags': 'python3-rosbags-pip',
    # the one rosdep key that installs mcap (pip, with its ROS 2 decoder)
    'mcap': 'mcap-ros2-support',
    'yourdfpy': 'python3-yourdfpy-pip',
    'catkin_pkg': 'python3-catkin-pkg',
    'mujoco': 'python3-mujoco-pip',
    # ros/rosdistro 8468e88: debian and ubuntu apt; the venvs pin pip's 0.68.1
    'numba': 'python3-numba',
}
# Imports that no rosdep key provides (ros/rosdistro 8468e88 has none): they are installed from the
# lock files by `make env` on every machine, robots included (tools/env/robot.txt), and a
# package.xml cannot name them.
PIP_ONLY = {'Pynite': 'pynitefea', 'ortools': 'ortools', 'ray': 'ray'}
# ROS packages whose Python module has the package's name.
ROS_MODULES = {
    'rclpy',
    'ament_index_python',
    'launch',
    'launch_ros',
    'launch_testing',
    'rosidl_runtime_py',
    'builtin_interfaces',
    'std_msgs',
    'std_srvs',
    'geometry_msgs',
    'sensor_msgs',
    'nav_msgs',
    'diagnostic_msgs',
    'visualization_msgs',
    'action_msgs',
    'tf2_ros',
    'lifecycle_msgs',
    'rcl_interfaces',
    'unique_identifier_msgs',
    'rosgraph_msgs',
}


@dataclass(frozen=True)
class Manifest:
    """A package.xml's package name, directory and dependency keys, as the checks read them."""

    name: str
    path: Path  # the package directory
    run_keys: frozenset[str]  # depend + exec_depend (what installed code may import)
    test_keys: frozenset[str]  # run_keys + test_depend (what tests may import)
    # every dependency key of any kind (what rosdep resolves)
    all_keys: frozenset[str] = frozenset()


# What rosidl's generated code for an interface file needs, to build and at run time: in Jazzy
# every service (an action's goal, result and cancel services too) carries
# service_msgs/ServiceEventInfo for service introspection, and an action uses action_msgs' goal
# types. Declared as <depend>, as the ROS 2 interface tutorial does.
INTERFACE_DEPENDENCIES = {'srv': ('service_msgs',), 'action': ('action_msgs', 'service_msgs')}


def find_manifests(src: Path) -> list[Manifest]:
    """Every package.xml below ``src``, parsed (catkin_pkg raises on an invalid one)."""
    manifests = []
    for xml in sorted(src.glob('*/package.xml')):
        pkg = parse_package(str(xml))
        run = {d.name for d in pkg.build_depends + pkg.exec_depends}
        run |= {d.name for d in getattr(pkg, 'depends', [])}
        every = run | {
            d.name
            for d in pkg.test_depends
            + pkg.buildtool_depends
            + pkg.build_export_depends
            + pkg.exec_depends
        }
        manifests.append(
            Manifest(
                pkg.name,
                xml.parent,
                frozenset(run),
                frozenset(run | {d.name for d in pkg.test_depends}),
                frozenset(every),
            )
        )
    return manifests


def top_level_imports(source: str, filename: str = '<string>') -> set[str]:
    """Top-level module names that ``source`` imports absolutely."""
    names = set()
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split('.')[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split('.')[0])
    return names


def rosdep_key(module: str, workspace: set[str] = frozenset()) -> str | None:
    """The rosdep key that provides ``module``; None for the standard library.

    ``workspace`` holds the names of the workspace's own packages, which are keys of themselves.
    """
    if module in sys.stdlib_module_names or module == '__future__':
        return None
    if module in PYTHON_KEYS:
        return PYTHON_KEYS[module]
    if module in PIP_ONLY:
        return None
    if (
        module in workspace
        or module in ROS_MODULES
        or module.endswith(('_msgs', '_interfaces', '_srvs'))
    ):
        return module
    return f'<no rosdep key known for "{module}": add it to tools/workspace_checks.py PYTHON_KEYS>'


def local_modules(manifest: Manifest) -> set[str]:
    """Modules that live inside the package itself (its Python package, test helpers, setup.py)."""
    names = {p.name for p in manifest.path.iterdir() if (p / '__init__.py').exists()}
    names |= {p.stem for p in manifest.path.rglob('*.py')}
    return names | {manifest.name}


def missing_dependencies(manifest: Manifest, workspace: set[str] = frozenset()) -> list[str]:
    """One message per import of the package's Python code that its package.xml does not
    declare."""
    problems = []
    local = local_modules(manifest)
    for py in sorted(manifest.path.rglob('*.py')):
        rel = py.relative_to(manifest.path)
        if rel.name == 'setup.py':
            continue
        is_test = rel.parts[0] == 'test'
        allowed = manifest.test_keys if is_test else manifest.run_keys
        kind = 'test_depend' if is_test else 'exec_depend'
        for module in sorted(top_level_imports(py.read_text(), str(py)) - local):
            key = rosdep_key(module, workspace)
            if key is not None and key not in allowed:
                problems.append(
                    f'package {manifest.name}: {rel} imports {module}, '
                    f'but package.xml has no <{kind}>{key}</{kind}>'
                )
    return problems


def verified_keys(path: Path = Path(__file__).with_name('rosdep_keys.yaml')) -> dict[str, str]:
    """Rosdep key -> the ros/rosdistro file it was found in (tools/rosdep_keys.yaml)."""
    return yaml.safe_load(path.read_text())['keys']


def unverified_keys(
    manifest: Manifest, verified: dict[str, str], workspace: set[str] = frozenset()
) -> list[str]:
    """One message per key of the package.xml that is neither a workspace package nor a verified
    rosdep key, so `rosdep install --from-paths src` would stop on it."""
    return [
        f'package {manifest.name}: "{key}" is not a verified rosdep key (tools/rosdep_keys.yaml)'
        for key in sorted(manifest.all_keys - set(workspace))
        if key not in verified
    ]


def pip_keys(path: Path = Path(__file__).with_name('rosdep_keys.yaml')) -> dict[str, str]:
    """Rosdep key -> the pip distribution rosdep would install for it (tools/rosdep_keys.yaml,
    ``pip:``)."""
    return yaml.safe_load(path.read_text())['pip']


def skipped_keys(text: str) -> set[str]:
    """The keys of the ``rosdep install ... --skip-keys "..."`` command in ``text`` (README.md, a
    Dockerfile)."""
    if '--skip-keys "' not in text:
        return set()
    return set(text.split('--skip-keys "', 1)[1].split('"', 1)[0].split())


def unskipped_pip_keys(
    manifests: list[Manifest], pips: dict[str, str], skipping: dict[str, str], pinned: str
) -> list[str]:
    """One message per pip-resolved key that a package.xml names but a ``rosdep install`` command
    in ``skipping`` (where -> its text) does not skip, or whose distribution no lock file pins
    (``pinned``: their text): rosdep refuses pip on Ubuntu 24.04 (PEP 668), and forced it would
    install an unpinned copy beside the pinned one."""
    named = sorted({key for m in manifests for key in m.all_keys if key in pips})
    problems = [
        f'{where}: rosdep install does not skip "{key}" (a pip key; add it to --skip-keys)'
        for where, text in skipping.items()
        for key in named
        if key not in skipped_keys(text)
    ]
    return problems + [
        f'"{key}" installs pip {pips[key]}, which no lock file pins (tools/env/robot.txt)'
        for key in named
        if f'\n{pips[key]}==' not in '\n' + pinned.lower()
    ]


def interface_dependencies(manifest: Manifest) -> list[str]:
    """One message per package that rosidl needs for the manifest's .srv/.action files and that its
    package.xml does not have as a <depend> (build and run)."""
    pkg = parse_package(str(manifest.path / 'package.xml'))
    declared = {d.name for d in pkg.build_depends} & {d.name for d in pkg.exec_depends}
    needed = {
        key: kind
        for kind, keys in INTERFACE_DEPENDENCIES.items()
        if any((manifest.path / kind).glob(f'*.{kind}'))
        for key in keys
    }
    return [
        f'package {manifest.name}: its .{kind} files need <depend>{key}</depend> in package.xml'
        for key, kind in sorted(needed.items())
        if key not in declared
    ]


def rclpy_outside_nodes(manifest: Manifest) -> list[str]:
    """House rule: only ``*_node.py`` modules (and ``commander.py``, the blocking client libraries
    for scripts) import rclpy; everything else of a package is pure and tested without ROS. One
    message per offender."""
    problems = []
    # the Python package, not its tests
    for py in sorted((manifest.path / manifest.name).rglob('*.py')):
        if py.name.endswith('_node.py') or py.name == 'commander.py':
            continue
        if 'rclpy' in top_level_imports(py.read_text(), str(py)):
            problems.append(
                f'package {manifest.name}: {py.relative_to(manifest.path)} imports rclpy; '
                'only *_node.py '
                f'and commander.py may (move the ROS side into a *_node.py module)'
            )
    return problems


# installed by softbots_bringup
TOP_LEVEL = {'launch': '*.launch.py', 'config': '*.*', 'urdf': '*.*'}


def bringup_share(install: Path) -> Path:
    """softbots_bringup's installed share folder under the install tree ``install``."""
    return install / 'softbots_bringup' / 'share' / 'softbots_bringup'


def launch_problems(launch_file: Path, install: Path) -> list[str]:
    """What a launch file starts or reads that is not installed under ``install``, for every
    combination of its arguments' choices: packages, executables, and parameter, URDF and rviz
    files resolved through the installed share of softbots_bringup (where ``ros2 launch
    softbots_bringup ...`` finds them)."""
    # installed by the build; the manifest checks above need no build
    from softbots_bringup import description

    where, share = launch_file.name, bringup_share(install)
    try:
        robot = description.load(launch_file)
    except (SyntaxError, TypeError, ImportError, NameError) as exc:
        return [f'{where}: does not load: {exc}']
    problems = set()
    for values in description.every_combination(robot):
        for node in description.resolve(robot, values, share):
            problems.update(
                _executable_problems(
                    where, node.package, node.executable, install, description.SYSTEM_EXECUTABLES
                )
            )
            problems.update(
                f'{where}: file "{f.relative_to(share) if f.is_relative_to(share) else f}" '
                'is not '
                f'installed in {share}'
                for f in description.files_named(node)
                if not f.is_file()
            )
    return sorted(problems)


def undeclared_system_packages(launch_file: Path, bringup: Manifest) -> list[str]:
    """Packages of the ROS installation (rviz2, robot_state_publisher) that a launch file can
    start, for some combination of its arguments, but softbots_bringup's package.xml does not
    exec_depend on: on a machine without them ``ros2 launch`` aborts before any node starts
    (rviz:=true on a ros-base robot did)."""
    from softbots_bringup import description

    robot = description.load(launch_file)
    started = {
        node.package
        for values in description.every_combination(robot)
        for node in description.resolve(robot, values, Path('/share'))
    }
    return [
        f'{launch_file.name}: starts {package}, but {bringup.name}/package.xml has no '
        f'<exec_depend>{package}</exec_depend>'
        for package in sorted(started & set(description.SYSTEM_EXECUTABLES) - bringup.run_keys)
    ]


def _executable_problems(
    where: str, package: str, executable: str, install: Path, system: dict[str, set[str]]
) -> list[str]:
    if package in system:
        known = system[package]
    elif (install / package).is_dir():
        lib = install / package / 'lib' / package
        known = {p.name for p in lib.iterdir()} if lib.is_dir() else set()
    else:
        return [f'{where}: package "{package}" is not installed in {install}']
    if executable not in known:
        return [
            f'{where}: package "{package}" has no executable "{executable}" '
            f'(it has: {", ".join(sorted(known)) or "none"})'
        ]
    return []


def uninstalled_sources(root: Path, install: Path) -> list[str]:
    """Top-level launch/, config/ and urdf/ files whose installed copy in softbots_bringup's share
    is missing or stale (the top-level folders are the single source; `make build` installs
    them)."""
    share, problems = bringup_share(install), []
    for folder, pattern in TOP_LEVEL.items():
        for source in sorted((root / folder).glob(pattern)):
            copy = share / folder / source.name
            if not copy.is_file() or copy.read_bytes() != source.read_bytes():
                problems.append(
                    f'{folder}/{source.name} is not installed as it is in the source tree: '
                    'make build'
                )
    return problems


def main() -> int:
    """Run every check on this workspace's src/, launch/, install/; print problems, 1 if any."""
    root = Path(__file__).resolve().parents[1]
    manifests = find_manifests(root / 'src')
    workspace = {m.name for m in manifests}
    verified = verified_keys()
    problems = [
        p
        for m in manifests
        for p in missing_dependencies(m, workspace)
        + rclpy_outside_nodes(m)
        + unverified_keys(m, verified, workspace)
        + interface_dependencies(m)
    ]
    problems += uninstalled_sources(root, root / 'install')
    problems += [
        p
        for f in sorted((root / 'launch').glob('*.launch.py'))
        for p in launch_problems(f, root / 'install')
    ]
    [bringup] = [m for m in manifests if m.name == 'softbots_bringup']
    problems += [
        p
        for f in sorted((root / 'launch').glob('*.launch.py'))
        for p in undeclared_system_packages(f, bringup)
    ]
    print('\n'.join(problems) or f'{len(manifests)} packages and their launch files check out')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
