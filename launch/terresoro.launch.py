"""TerreSoRo-III or -IV: gait executor (the Arduino bridge), edge learner and gait synthesis, on the robot or on
the simulated robot and overhead tracker (sim:=true).

    ros2 launch launch/terresoro.launch.py robot:=iii sim:=true rviz:=true
    ros2 launch launch/terresoro.launch.py robot:=iv port:=/dev/ttyUSB0          # a camera tracker publishes tracked_pose

Then: ros2 action send_goal /terresoro_learner/learn_edges soro_interfaces/action/LearnEdges "{rounds: 5, seed: 1}"
      ros2 service call /terresoro_synthesis/synthesize soro_interfaces/srv/SynthesizeGait \\
          "{goal: translation, alpha: [-1.0, 0.0], eps: 0.05, k: 3}"
      ros2 action send_goal /terresoro_executor/execute_gait soro_interfaces/action/ExecuteGait \\
          "{vertices: [6, 4, 5, 7, 1], cycles: 20}" --feedback
"""
from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import Command, LaunchConfiguration, PythonExpression
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue

ROOT = Path(__file__).resolve().parent.parent
CONFIG = {'iii': ROOT / 'config' / 'terresoro_iii.yaml', 'iv': ROOT / 'config' / 'terresoro_iv.yaml'}
URDF = ROOT / 'urdf' / 'terresoro.urdf.xacro'
RVIZ = ROOT / 'config' / 'terresoro.rviz'
SIM_PORT = '/tmp/softbots/terresoro_sim'


def generate_launch_description():
    arg = LaunchConfiguration
    sim = arg('sim')
    config = PythonExpression([repr(str(CONFIG['iv'])), " if '", arg('robot'), "' == 'iv' else ",
                              repr(str(CONFIG['iii']))])
    port = PythonExpression(["'", SIM_PORT, "' if '", sim, "' == 'true' else '", arg('port'), "'"])
    limbs = PythonExpression(["'4' if '", arg('robot'), "' == 'iv' else '3'"])
    description = ParameterValue(Command(['xacro ', str(URDF), ' limbs:=', limbs]), value_type=str)
    return LaunchDescription([
        DeclareLaunchArgument('robot', default_value='iii', choices=['iii', 'iv'],
                              description='TerreSoRo-III (3 limbs, τ = 0.55 s) or -IV (4 limbs, τ = 0.45 s)'),
        DeclareLaunchArgument('sim', default_value='false', description='the simulated robot and tracker on a pty'),
        DeclareLaunchArgument('port', default_value='/dev/ttyUSB0', description='serial port of the Arduino'),
        DeclareLaunchArgument('substrate', default_value='rubber_mat',
                              description='simulated ground truth: rubber_mat, whiteboard or carpet'),
        DeclareLaunchArgument('rviz', default_value='false', description='open rviz2 with config/terresoro.rviz'),
        Node(package='terresoro_gait', executable='terresoro_sim', name='terresoro_sim', output='screen',
             parameters=[config, {'port': SIM_PORT, 'substrate': arg('substrate')}], condition=IfCondition(sim)),
        Node(package='terresoro_gait', executable='terresoro_executor', name='terresoro_executor', output='screen',
             parameters=[config, {'port': port}]),
        Node(package='terresoro_gait', executable='terresoro_learner', name='terresoro_learner', output='screen',
             parameters=[config]),
        Node(package='terresoro_gait', executable='terresoro_synthesis', name='terresoro_synthesis',
             output='screen', parameters=[config]),
        Node(package='robot_state_publisher', executable='robot_state_publisher', name='robot_state_publisher',
             parameters=[{'robot_description': description}]),
        Node(package='rviz2', executable='rviz2', name='rviz2', arguments=['-d', str(RVIZ)],
             condition=IfCondition(arg('rviz'))),
    ])
