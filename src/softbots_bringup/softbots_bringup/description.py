"""What a robot's launch file starts, as data (no launch, no rclpy): one description that ``ros2
launch`` (through ``launching``), the process runner of demos and tests (``runner``) and the
workspace check all read, so the three cannot drift apart.

Strings in a description are templates over the launch arguments and the values ``derive`` adds,
written ``{name}``; ``{share}`` is the installed share of softbots_bringup, where launch/, config/
and urdf/ live, and ``{sim_dir}`` the folder of the simulated ports and files of this launch's
namespace, ``{data_dir}`` that of its lasting files (under ~/.ros/softbots). Parameter files are
share-relative. Override values are read as YAML after substitution, as launch_ros reads them
(an empty value is the empty string).

Boolean arguments read as launch's ``IfCondition`` reads them (true/false/1/0, any case) and are
passed on as 'true'/'false'; anything else is refused before any node starts. Every launch takes
``namespace:=`` (added here, not in each launch file): its nodes are started in that namespace, and
its simulated ports live in their own folder.
"""

from __future__ import annotations

import difflib
import importlib.util
import itertools
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# Executables of the ROS installation that launch files may start: not wheels, so on a ROS machine
# only
SYSTEM_EXECUTABLES = {'rviz2': {'rviz2'}, 'robot_state_publisher': {'robot_state_publisher'}}
# Where simulated ports and files go: one folder per namespace, so two simulated robots never share
# a port; SOFTBOTS_SIM_ROOT moves the whole tree (parallel test workers, two checkouts on one
# machine)
SIM_ROOT = os.environ.get('SOFTBOTS_SIM_ROOT') or '/tmp/softbots'
# Where a robot's lasting files go (learned weights): kept across reboots, one folder per
# namespace; nodes expand ~
DATA_ROOT = '~/.ros/softbots'
# What launch's IfCondition accepts (launch.conditions.evaluate_condition_expression), lower-cased
BOOLEAN_VALUES = {'true': 'true', '1': 'true', 'false': 'false', '0': 'false'}
# a ROS name's token (rcl's validation, without ~ and {})
NAME_TOKEN = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
# Under a namespace, tf goes into it too (as Nav2's multi-robot bringup does): two robots'
# base_link never mix
NAMESPACED_TF = (('/tf', 'tf'), ('/tf_static', 'tf_static'))


@dataclass(frozen=True)
class Argument:
    """A launch argument: its name, default and description, the values allowed (``choices``; none:
    any), whether it is a boolean, and whether it names a file that must exist (when not empty)."""

    name: str
    default: str
    description: str
    choices: tuple[str, ...] = ()
    # read as launch's conditions read it; passed on as 'true'/'false'
    boolean: bool = False
    # an input file: refused by the argument's name before anything reads it (xacro would name its
    # own expression instead)
    file: bool = False


def switch(name: str, description: str, default: bool = False) -> Argument:
    """A boolean launch argument (sim:=, rviz:=)."""
    return Argument(name, 'true' if default else 'false', description, boolean=True)


NAMESPACE = Argument(
    'namespace',
    '',
    'ROS namespace of every node of this launch, e.g. robot1 (empty: the root); '
    'simulated ports go into /tmp/softbots/<namespace>/',
)


@dataclass(frozen=True)
class NodeSpec:
    """A node of a launch, as templates: package, executable, name, parameter files, overrides,
    remappings and arguments; optionally its URDF, the boolean argument ``when`` it starts under,
    and the ``ready`` line the runner waits for."""

    package: str
    executable: str
    name: str
    params: tuple[str, ...] = ()  # parameter files, share-relative templates
    overrides: Mapping[str, str] = field(default_factory=dict)  # parameter -> value template
    remappings: tuple[tuple[str, str], ...] = ()
    arguments: tuple[str, ...] = ()  # command-line arguments (templates)
    # (xacro file, its mappings), templates
    robot_description: tuple[str, Mapping[str, str]] | None = None
    # a boolean argument that must be true for the node to start
    when: str | None = None
    # what the node logs once it is up (the runner waits for it)
    ready: str | None = None


@dataclass(frozen=True)
class RobotLaunch:
    """A robot's launch: its arguments (``namespace`` added when missing), its nodes, and
    ``derive``, more template values computed from the argument values."""

    arguments: tuple[Argument, ...]
    nodes: tuple[NodeSpec, ...]
    # values computed from the arguments
    derive: Callable[[dict[str, str]], dict[str, str]] = lambda values: {}

    def __post_init__(self):
        # every launch takes namespace:=
        if all(a.name != NAMESPACE.name for a in self.arguments):
            object.__setattr__(self, 'arguments', (*self.arguments, NAMESPACE))


@dataclass(frozen=True)
class ResolvedNode:
    """A node as it is started: every template filled in, every file an absolute path."""

    package: str
    executable: str
    name: str
    namespace: str  # '' (the root) or e.g. 'robot1', without slashes at the ends
    params: tuple[Path, ...]
    overrides: dict[str, object]
    remappings: tuple[tuple[str, str], ...]
    arguments: tuple[str, ...]
    robot_description: tuple[Path, dict[str, str]] | None
    ready: str | None


class LaunchArgumentError(ValueError):
    """A launch argument that is unknown, outside its choices, not a boolean where one is needed,
    not a name, or not a file where one is needed."""


def argument_values(robot: RobotLaunch, given: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every argument's value: ``given`` over the defaults, checked against the choices; booleans
    as 'true' or 'false', the namespace without slashes at its ends."""
    given = dict(given or {})
    known = {a.name: a for a in robot.arguments}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise LaunchArgumentError(
            f'unknown launch argument(s) {", ".join(unknown)}; known: {", ".join(known)}'
        )
    values = {name: str(given.get(name, a.default)) for name, a in known.items()}
    for name, a in known.items():
        if a.choices and values[name] not in a.choices:
            raise LaunchArgumentError(f'{name}:={values[name]}: allowed {", ".join(a.choices)}')
        if a.boolean:
            values[name] = boolean(name, values[name])
        if a.file and values[name]:
            values[name] = input_file(name, values[name])
    values[NAMESPACE.name] = namespace(values[NAMESPACE.name])
    return values


def input_file(name: str, value: str) -> str:
    """``value`` as an absolute path (~ expanded: the shell leaves it after :=), so that every node
    reads the same file wherever it runs; LaunchArgumentError naming the argument when no such file
    exists."""
    path = Path(value).expanduser().resolve()
    if not path.is_file():
        raise LaunchArgumentError(f'{name}:={value}: no such file')
    return str(path)


def boolean(name: str, value: str) -> str:
    """'true' or 'false' for what launch's IfCondition reads so; LaunchArgumentError for anything
    else (a typo must not silently mean false: sim:=True once opened the real serial port)."""
    try:
        return BOOLEAN_VALUES[value.lower()]
    except KeyError:
        raise LaunchArgumentError(
            f'{name}:={value}: a boolean, allowed true/false/1/0 (any case)'
        ) from None


def namespace(value: str) -> str:
    """The namespace without its leading and trailing slash ('' for the root); refused unless a ROS
    name."""
    stripped = value.strip().strip('/')
    if stripped and not all(NAME_TOKEN.fullmatch(token) for token in stripped.split('/')):
        raise LaunchArgumentError(
            f'namespace:={value}: not a ROS namespace (tokens of letters, digits and _, '
            f'not starting with a digit, separated by /)'
        )
    return stripped


def sim_dir(ns: str) -> str:
    """The folder of a namespace's simulated ports and files (the one place their path is made)."""
    return f'{SIM_ROOT}/{ns}' if ns else SIM_ROOT


def sim_port(robot: str) -> str:
    """The template of ``robot``'s simulated port, ``{sim_dir}/<robot>_sim``: the one place it is
    spelled. A launch gives it to the board stand-in and the bridge alike; a stand-in started alone
    takes ``default_sim_port``."""
    return f'{{sim_dir}}/{robot}_sim'


def default_sim_port(robot: str) -> str:
    """``robot``'s simulated port outside a launch (the root namespace): its stand-in's default."""
    return sim_port(robot).format(sim_dir=sim_dir(''))


def data_dir(ns: str) -> str:
    """The folder of a namespace's lasting files, ~ unexpanded (the nodes expand it where they
    run)."""
    return f'{DATA_ROOT}/{ns}' if ns else DATA_ROOT


def resolve(
    robot: RobotLaunch, given: Mapping[str, str] | None, share: Path
) -> list[ResolvedNode]:
    """The nodes that ``ros2 launch`` starts for these argument values, in launch order."""
    values = argument_values(robot, given)
    ns = values[NAMESPACE.name]
    values.update(share=str(share), sim_dir=sim_dir(ns), data_dir=data_dir(ns))

    def fill(template: str) -> str:
        return template.format(**values)

    # e.g. {sim_dir}/x_sim
    values.update({name: fill(value) for name, value in robot.derive(values).items()})
    nodes = []
    for spec in robot.nodes:
        if spec.when and values[spec.when] != 'true':
            continue
        description = None
        if spec.robot_description:
            xacro, mappings = spec.robot_description
            description = (share / fill(xacro), {k: fill(v) for k, v in mappings.items()})
        nodes.append(
            ResolvedNode(
                spec.package,
                spec.executable,
                spec.name,
                ns,
                tuple(share / fill(p) for p in spec.params),
                {k: as_launch_ros_reads(fill(v)) for k, v in spec.overrides.items()},
                tuple((fill(a), fill(b)) for a, b in spec.remappings)
                + (NAMESPACED_TF if ns else ()),
                tuple(fill(a) for a in spec.arguments),
                description,
                spec.ready,
            )
        )
    return nodes


def check_installed(nodes: list[ResolvedNode], installed: Callable[[str], bool]) -> None:
    """LaunchArgumentError naming the first node whose package ``installed`` does not find, so that
    a launch refuses before it starts anything (rviz:=true on a ros-base robot left the nodes
    started before rviz2 running without their launch)."""
    for node in nodes:
        if not installed(node.package):
            hint = INSTALL_HINTS.get(node.package, 'install it, or leave out what starts it')
            raise LaunchArgumentError(
                f'package {node.package!r} (node {node.name}) is not installed here, so nothing '
                f'was started: {hint}'
            )


# what to do about a missing system package
INSTALL_HINTS = {
    'rviz2': 'a ros-base robot has none; launch with rviz:=false there and open rviz2 on a '
    'workstation (rviz2 -d config/<robot>.rviz, same domain)',
}


def near_misses(robot: RobotLaunch, names) -> list[tuple[str, str]]:
    """(given, meant) for each of ``names`` that is not an argument of ``robot`` but close to one
    (namspace:= for namespace:=). ``ros2 launch`` ignores an argument no file declares, and an
    including launch passes its own on, so a near miss is worth a warning, not a refusal."""
    known = [a.name for a in robot.arguments]
    return [
        (name, close[0])
        for name in sorted(set(names) - set(known))
        if (close := difflib.get_close_matches(name, known, n=1, cutoff=0.75))
    ]


def as_launch_ros_reads(value: str):
    """An override's text as launch_ros types it: YAML, but an empty text is the empty string
    (YAML reads it as null, which no parameter can be)."""
    return yaml.safe_load(value) if value else ''


def every_combination(robot: RobotLaunch) -> list[dict[str, str]]:
    """Argument values covering every choice and both values of every boolean argument (others at
    default)."""
    axes = [
        [(a.name, c) for c in a.choices]
        if a.choices
        else [(a.name, 'true'), (a.name, 'false')]
        if a.boolean
        else [(a.name, a.default)]
        for a in robot.arguments
    ]
    return [dict(combination) for combination in itertools.product(*axes)]


def files_named(node: ResolvedNode) -> list[Path]:
    """Every file a resolved node reads: parameter files, its robot description, files in its
    arguments."""
    files = list(node.params) + ([node.robot_description[0]] if node.robot_description else [])
    return files + [Path(a) for a in node.arguments if a.startswith('/') and Path(a).suffix]


def urdf_text(node: ResolvedNode) -> str:
    """The URDF a robot_state_publisher node publishes: its xacro file expanded with its
    mappings."""
    import xacro  # imported here: only nodes with a robot description need it

    path, mappings = node.robot_description
    return xacro.process_file(str(path), mappings=mappings).toxml()


def load(launch_file: Path) -> RobotLaunch:
    """The ``ROBOT`` description of a launch file, read without importing launch (its generator
    imports it lazily)."""
    spec = importlib.util.spec_from_file_location(
        f'softbots_launch_{Path(launch_file).stem.split(".")[0]}', launch_file
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    robot = getattr(module, 'ROBOT', None)
    if not isinstance(robot, RobotLaunch):
        raise TypeError(f'{launch_file} defines no ROBOT = RobotLaunch(...)')
    return robot
