"""What a robot's launch file starts, as data (no launch, no rclpy): one description that ``ros2 launch`` (through
``launching``), the process runner of demos and tests (``runner``) and the workspace check all read, so the three
cannot drift apart.

Strings in a description are templates over the launch arguments and the values ``derive`` adds, written
``{name}``; ``{share}`` is the installed share of softbots_bringup, where launch/, config/ and urdf/ live. Parameter
files are share-relative. Override values are read as YAML after substitution, as launch_ros reads them.
"""
from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# Executables of the ROS installation that launch files may start: not wheels, so on a ROS machine only
SYSTEM_EXECUTABLES = {'rviz2': {'rviz2'}, 'robot_state_publisher': {'robot_state_publisher'}}


@dataclass(frozen=True)
class Argument:
    name: str
    default: str
    description: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeSpec:
    package: str
    executable: str
    name: str
    params: tuple[str, ...] = ()                  # parameter files, share-relative templates
    overrides: Mapping[str, str] = field(default_factory=dict)    # parameter -> value template
    remappings: tuple[tuple[str, str], ...] = ()
    arguments: tuple[str, ...] = ()               # command-line arguments (templates)
    robot_description: tuple[str, Mapping[str, str]] | None = None   # (xacro file, its mappings), templates
    when: str | None = None                       # a boolean argument that must be true for the node to start
    ready: str | None = None                      # what the node logs once it is up (the runner waits for it)


@dataclass(frozen=True)
class RobotLaunch:
    arguments: tuple[Argument, ...]
    nodes: tuple[NodeSpec, ...]
    derive: Callable[[dict[str, str]], dict[str, str]] = lambda values: {}   # values computed from the arguments


@dataclass(frozen=True)
class ResolvedNode:
    """A node as it is started: every template filled in, every file an absolute path."""
    package: str
    executable: str
    name: str
    params: tuple[Path, ...]
    overrides: dict[str, object]
    remappings: tuple[tuple[str, str], ...]
    arguments: tuple[str, ...]
    robot_description: tuple[Path, dict[str, str]] | None
    ready: str | None


class LaunchArgumentError(ValueError):
    """A launch argument that is unknown or outside its choices."""


def argument_values(robot: RobotLaunch, given: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every argument's value: ``given`` over the defaults, checked against the choices."""
    given = dict(given or {})
    known = {a.name: a for a in robot.arguments}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise LaunchArgumentError(f'unknown launch argument(s) {", ".join(unknown)}; known: {", ".join(known)}')
    values = {name: str(given.get(name, a.default)) for name, a in known.items()}
    for name, a in known.items():
        if a.choices and values[name] not in a.choices:
            raise LaunchArgumentError(f'{name}:={values[name]}: allowed {", ".join(a.choices)}')
    return values


def resolve(robot: RobotLaunch, given: Mapping[str, str] | None, share: Path) -> list[ResolvedNode]:
    """The nodes that ``ros2 launch`` starts for these argument values, in launch order."""
    values = argument_values(robot, given)
    values.update(robot.derive(values), share=str(share))

    def fill(template: str) -> str:
        return template.format(**values)

    nodes = []
    for spec in robot.nodes:
        if spec.when and values[spec.when] != 'true':
            continue
        description = None
        if spec.robot_description:
            xacro, mappings = spec.robot_description
            description = (share / fill(xacro), {k: fill(v) for k, v in mappings.items()})
        nodes.append(ResolvedNode(
            spec.package, spec.executable, spec.name, tuple(share / fill(p) for p in spec.params),
            {k: yaml.safe_load(fill(v)) for k, v in spec.overrides.items()},
            tuple((fill(a), fill(b)) for a, b in spec.remappings), tuple(fill(a) for a in spec.arguments),
            description, spec.ready))
    return nodes


def every_combination(robot: RobotLaunch) -> list[dict[str, str]]:
    """Argument values covering every choice and both values of every boolean argument (others at default)."""
    axes = [[(a.name, c) for c in a.choices] if a.choices else
            [(a.name, 'true'), (a.name, 'false')] if a.default in ('true', 'false') else [(a.name, a.default)]
            for a in robot.arguments]
    return [dict(combination) for combination in itertools.product(*axes)]


def files_named(node: ResolvedNode) -> list[Path]:
    """Every file a resolved node reads: parameter files, its robot description, files in its arguments."""
    files = list(node.params) + ([node.robot_description[0]] if node.robot_description else [])
    return files + [Path(a) for a in node.arguments if a.startswith('/') and Path(a).suffix]


def urdf_text(node: ResolvedNode) -> str:
    """The URDF a robot_state_publisher node publishes: its xacro file expanded with its mappings."""
    import xacro     # imported here: only nodes with a robot description need it
    path, mappings = node.robot_description
    return xacro.process_file(str(path), mappings=mappings).toxml()


def load(launch_file: Path) -> RobotLaunch:
    """The ``ROBOT`` description of a launch file, read without importing launch (its generator imports it lazily)."""
    spec = importlib.util.spec_from_file_location(f'softbots_launch_{Path(launch_file).stem.split(".")[0]}',
                                                  launch_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    robot = getattr(module, 'ROBOT', None)
    if not isinstance(robot, RobotLaunch):
        raise TypeError(f'{launch_file} defines no ROBOT = RobotLaunch(...)')
    return robot
