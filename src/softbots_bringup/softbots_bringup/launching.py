"""A RobotLaunch turned into launch_ros actions, for ``ros2 launch`` (ROS machines only: launch and
launch_ros are not on PyPI, so this module is exercised on the robot, not in CI; the description it
reads is tested here).

Every launch argument is declared with its choices; the nodes are resolved when the launch runs,
from the argument values, by the same ``description.resolve`` that the runner and the workspace
check use, so a bad value (sim:=yes) is refused there before any node starts; so is a node whose
package is not installed (rviz2 on a ros-base robot), and an argument close to one of ours
(namspace:=) is warned about. Booleans get no
``choices``: launch compares those case-sensitively, and sim:=True must mean what IfCondition reads
it as.
"""

from __future__ import annotations

from ament_index_python.packages import PackageNotFoundError, get_package_prefix
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.logging import get_logger
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from softbots_bringup.description import (
    RobotLaunch,
    check_installed,
    near_misses,
    resolve,
    urdf_text,
)
from softbots_bringup.share import share_dir


def launch_description(robot: RobotLaunch) -> LaunchDescription:
    """The LaunchDescription of ``robot``: every argument declared, and the nodes resolved from the
    argument values when the launch runs."""
    arguments = [
        DeclareLaunchArgument(
            a.name,
            default_value=a.default,
            description=a.description,
            **({'choices': list(a.choices)} if a.choices else {}),
        )
        for a in robot.arguments
    ]
    return LaunchDescription(
        arguments + [OpaqueFunction(function=lambda context: _nodes(robot, context))]
    )


def _nodes(robot: RobotLaunch, context) -> list[Node]:
    for given, meant in near_misses(robot, context.launch_configurations):
        get_logger('launch').warning(f'{given}:= is not an argument of this launch; {meant}:=?')
    values = {a.name: LaunchConfiguration(a.name).perform(context) for a in robot.arguments}
    nodes = resolve(robot, values, share_dir())
    check_installed(nodes, _installed)
    return [_node(node) for node in nodes]


def _installed(package: str) -> bool:
    try:
        get_package_prefix(package)
    except PackageNotFoundError:
        return False
    return True


def _node(node) -> Node:
    overrides = dict(node.overrides)
    if node.robot_description:
        overrides['robot_description'] = urdf_text(node)
    # relative, so that a PushRosNamespace around this launch still prefixes it; None (not '') for
    # the root
    return Node(
        package=node.package,
        executable=node.executable,
        name=node.name,
        namespace=node.namespace or None,
        output='screen',
        parameters=[str(p) for p in node.params] + ([overrides] if overrides else []),
        remappings=list(node.remappings),
        arguments=list(node.arguments),
    )
