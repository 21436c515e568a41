"""Tensegrity simulator live, watched in rviz2 (a simulation only: there is no tensegrity hardware).

    ros2 launch launch/tensegrity.launch.py                            # savin2020_reproduce released at ψ = 36°
    ros2 launch launch/tensegrity.launch.py psi_deg:=60 rviz:=true
    ros2 launch launch/tensegrity.launch.py preset:=savin2020_stated real_time_factor:=0.2
"""
from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / 'config' / 'tensegrity.yaml'
RVIZ = ROOT / 'config' / 'tensegrity.rviz'


def generate_launch_description():
    arg = LaunchConfiguration
    return LaunchDescription([
        DeclareLaunchArgument('preset', default_value='savin2020_reproduce',
                              description='savin2020_reproduce (L = 0.45 m), savin2020_stated (L = 0.3 m) or '
                                          'savin2020_code (the authors\' integrator)'),
        DeclareLaunchArgument('psi_deg', default_value='36.0', description='initial rod tilt ψ (deg), in (0, 90)'),
        DeclareLaunchArgument('real_time_factor', default_value='1.0', description='simulated s per wall s'),
        DeclareLaunchArgument('rviz', default_value='false', description='open rviz2 with config/tensegrity.rviz'),
        Node(package='tensegrity_sim', executable='tensegrity_sim_node', name='tensegrity_sim', output='screen',
             parameters=[str(CONFIG), {'preset': arg('preset'), 'psi_deg': arg('psi_deg'),
                                       'real_time_factor': arg('real_time_factor')}]),
        Node(package='rviz2', executable='rviz2', name='rviz2', arguments=['-d', str(RVIZ)],
             condition=IfCondition(arg('rviz'))),
    ])
