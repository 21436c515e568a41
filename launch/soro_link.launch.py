"""Generic soro_link bridge, on hardware (port:=/dev/ttyUSB0) or against the simulated board (sim:=true).

    ros2 launch launch/soro_link.launch.py sim:=true
    ros2 launch launch/soro_link.launch.py port:=/dev/ttyACM0
"""
from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PythonExpression
from launch_ros.actions import Node

CONFIG = Path(__file__).resolve().parent.parent / 'config' / 'soro_link.yaml'
SIM_PORT = '/tmp/softbots/soro_link_sim'


def generate_launch_description():
    sim = LaunchConfiguration('sim')
    port = PythonExpression(["'", SIM_PORT, "' if '", sim, "' == 'true' else '", LaunchConfiguration('port'), "'"])
    return LaunchDescription([
        DeclareLaunchArgument('sim', default_value='false', description='use the simulated board on a pty'),
        DeclareLaunchArgument('port', default_value='/dev/ttyUSB0', description='serial port of the real board'),
        ExecuteProcess(
            cmd=['ros2', 'run', 'soro_link', 'sim_device', '--model', 'generic_outputs', '--port', SIM_PORT],
            condition=IfCondition(sim), output='screen'),
        Node(package='soro_link', executable='bridge_node', name='soro_link_bridge', output='screen',
             parameters=[str(CONFIG), {'port': port}]),
    ])
