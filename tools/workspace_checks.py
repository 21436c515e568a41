"""Static checks of the workspace: manifests that declare what the code imports, launch files that name real things.

Pure: reads files, returns lists of problems (empty when all is well). The tests in tools/tests run them over src/
and launch/; run this module directly for a report.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

from catkin_pkg.package import parse_package

# Import name -> rosdep key, for everything that is not a ROS package of the same name. Keys ending in -pip are
# installed from tools/env/base.txt by `make env`; rosdep skips them (README).
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
    'mcap': 'python3-mcap-pip',
    'mcap_ros2': 'python3-mcap-ros2-support-pip',
    'yourdfpy': 'python3-yourdfpy-pip',
    'catkin_pkg': 'python3-catkin-pkg',
}
# ROS packages whose Python module has the package's name.
ROS_MODULES = {
    'rclpy', 'ament_index_python', 'launch', 'launch_ros', 'launch_testing', 'rosidl_runtime_py',
    'builtin_interfaces', 'std_msgs', 'std_srvs', 'geometry_msgs', 'sensor_msgs', 'nav_msgs', 'diagnostic_msgs',
    'visualization_msgs', 'action_msgs', 'tf2_ros', 'lifecycle_msgs', 'rcl_interfaces', 'unique_identifier_msgs',
}


@dataclass(frozen=True)
class Manifest:
    name: str
    path: Path                  # the package directory
    run_keys: frozenset[str]    # depend + exec_depend (what installed code may import)
    test_keys: frozenset[str]   # run_keys + test_depend (what tests may import)


def find_manifests(src: Path) -> list[Manifest]:
    """Every package.xml below ``src``, parsed (catkin_pkg raises on an invalid one)."""
    manifests = []
    for xml in sorted(src.glob('*/package.xml')):
        pkg = parse_package(str(xml))
        run = {d.name for d in pkg.build_depends + pkg.exec_depends}
        run |= {d.name for d in getattr(pkg, 'depends', [])}
        manifests.append(Manifest(pkg.name, xml.parent, frozenset(run),
                                  frozenset(run | {d.name for d in pkg.test_depends})))
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
    if module in workspace or module in ROS_MODULES or module.endswith(('_msgs', '_interfaces', '_srvs')):
        return module
    return f'<no rosdep key known for "{module}": add it to tools/workspace_checks.py PYTHON_KEYS>'


def local_modules(manifest: Manifest) -> set[str]:
    """Modules that live inside the package itself (its Python package, test helpers, setup.py)."""
    names = {p.name for p in manifest.path.iterdir() if (p / '__init__.py').exists()}
    names |= {p.stem for p in manifest.path.rglob('*.py')}
    return names | {manifest.name}


def missing_dependencies(manifest: Manifest, workspace: set[str] = frozenset()) -> list[str]:
    """One message per import of the package's Python code that its package.xml does not declare."""
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
                problems.append(f'package {manifest.name}: {rel} imports {module}, '
                                f'but package.xml has no <{kind}>{key}</{kind}>')
    return problems


def console_scripts(setup_py: Path) -> set[str]:
    """Executable names declared in a setup.py's ``console_scripts`` entry points."""
    names = set()
    for node in ast.walk(ast.parse(setup_py.read_text(), str(setup_py))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and '=' in node.value \
                and ':' in node.value.split('=', 1)[1]:
            names.add(node.value.split('=', 1)[0].strip())
    return names


def executables(src: Path) -> dict[str, set[str]]:
    """Package name -> its executables, for every ament_python package below ``src``."""
    return {m.name: console_scripts(m.path / 'setup.py') for m in find_manifests(src)
            if (m.path / 'setup.py').exists()}


FILE_SUFFIXES = ('.yaml', '.rviz', '.xacro', '.urdf')
# Executables of the ROS installation that launch files may start (rviz2 and friends are not wheels: ROS machine only)
SYSTEM_EXECUTABLES = {'rviz2': {'rviz2'}, 'robot_state_publisher': {'robot_state_publisher'}}


def launch_problems(launch_file: Path, root: Path) -> list[str]:
    """What a launch file names that does not exist: packages, executables, config/urdf/rviz files.

    Packages and executables come from ``Node(package=..., executable=...)`` calls with literal arguments; files from
    string literals ending in a config suffix, looked up under ``root``'s config/, urdf/ and launch/ folders.
    """
    where = launch_file.name
    try:
        tree = ast.parse(launch_file.read_text(), str(launch_file))
    except SyntaxError as exc:
        return [f'{where}: does not parse: {exc}']
    if not any(isinstance(n, ast.FunctionDef) and n.name == 'generate_launch_description' for n in tree.body):
        return [f'{where}: defines no generate_launch_description()']
    known = {**SYSTEM_EXECUTABLES, **executables(root / 'src')}
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            kw = {k.arg: k.value.value for k in node.keywords
                  if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)}
            if 'package' in kw and 'executable' in kw:
                pkg, exe = kw['package'], kw['executable']
                if pkg not in known:
                    problems.append(f'{where}: package "{pkg}" is not in src/')
                elif exe not in known[pkg]:
                    problems.append(f'{where}: package "{pkg}" has no executable "{exe}" '
                                    f'(it has: {", ".join(sorted(known[pkg])) or "none"})')
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith(FILE_SUFFIXES):
            name = Path(node.value).name
            if not any((root / d / name).exists() for d in ('config', 'urdf', 'launch')):
                problems.append(f'{where}: file "{node.value}" is not in config/, urdf/ or launch/')
    return problems


def main() -> int:
    root = Path(__file__).resolve().parents[1]
    manifests = find_manifests(root / 'src')
    workspace = {m.name for m in manifests}
    problems = [p for m in manifests for p in missing_dependencies(m, workspace)]
    problems += [p for f in sorted((root / 'launch').glob('*.launch.py')) for p in launch_problems(f, root)]
    print('\n'.join(problems) or f'{len(manifests)} packages and their launch files check out')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
