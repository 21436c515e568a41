"""The pneumatic soft snake (Y. Sun's thesis, ch. 2): valve driver and head-controller bridge, on
the robot or on the simulated head controller, MuJoCo snake and motion capture (sim:=true).

    ros2 launch softbots_bringup soft_snake.launch.py sim:=true rviz:=true
    ros2 launch softbots_bringup soft_snake.launch.py sim:=true surface:=grass segments:=5
    # your own snake, fitted by soft-snake-fit:
    ros2 launch softbots_bringup soft_snake.launch.py sim:=true body_parameters:=$PWD/params.yaml
    # then a step_climb goal:
    ros2 launch softbots_bringup soft_snake.launch.py sim:=true segments:=5 step_ahead_m:=0.15
    # the head's Bluetooth serial port:
    ros2 launch softbots_bringup soft_snake.launch.py port:=/dev/rfcomm0
    # the same, from the source tree:
    ros2 launch launch/soft_snake.launch.py sim:=true

Then:
    ros2 action send_goal --feedback /soft_snake_driver/run_gait \\
        soro_interfaces/action/RunGait \\
        "{gait: undulation, frequency_hz: 2.0, beta_rad: 2.0944, duration_s: 10.0}"
    ros2 action send_goal --feedback /soft_snake_driver/run_gait \\
        soro_interfaces/action/RunGait \\
        "{gait: sidewinding, frequency_hz: 0.875, beta_rad: 1.5708, cycles: 8}"
    # during a step_climb goal:
    ros2 service call /soft_snake_driver/step_climb_advance std_srvs/srv/Trigger

On the robot, motion capture publishes mocap/soft_snake/com and mocap/soft_snake/head. For gait
exploration with no driver at all:
    ros2 run soft_snake soft_snake_sim --ros-args -p port:='' -p gait:=sidewinding

ROBOT is what this launch starts, as data: the runner of demos and tests starts the same processes
from it.
"""

from softbots_bringup.description import Argument, NodeSpec, RobotLaunch, sim_port, switch

SIM_PORT = sim_port('soft_snake')
CONFIG = 'config/soft_snake.yaml'

ROBOT = RobotLaunch(
    arguments=(
        switch('sim', 'the simulated head controller, MuJoCo snake and motion capture on a pty'),
        Argument('port', '/dev/ttyUSB0', 'serial port of the head controller'),
        Argument('segments', '4', 'modules of the snake (5 to climb the step)', ('3', '4', '5')),
        Argument(
            'surface',
            'paper',
            "the simulator's ground (Table 5.1)",
            ('paper', 'rubber', 'carpet', 'grass'),
        ),
        Argument(
            'step_ahead_m', '0.0', 'a 7 cm step this far ahead of the simulated head (m; 0: none)'
        ),
        Argument(
            'body_parameters',
            '',
            "your snake's parameter file (soft-snake-fit's params.yaml): the simulator runs "
            'it, rviz2 draws it (empty: the calibrated snake of the thesis)',
            file=True,
        ),
        switch('rviz', 'open rviz2 with config/soft_snake.rviz'),
    ),
    derive=lambda a: {'port': SIM_PORT if a['sim'] == 'true' else a['port']},
    nodes=(
        NodeSpec(
            'soft_snake',
            'soft_snake_sim',
            'soft_snake_sim',
            (CONFIG,),
            {
                'port': SIM_PORT,
                'segments': '{segments}',
                'surface': '{surface}',
                'step_ahead_m': '{step_ahead_m}',
                'body_parameters_file': '{body_parameters}',
            },
            when='sim',
            ready='behind',
        ),
        NodeSpec(
            'soft_snake',
            'soft_snake_driver',
            'soft_snake_driver',
            (CONFIG,),
            {
                'port': '{port}',
                'segments': '{segments}',
                'body_parameters_file': '{body_parameters}',
            },
            ready='opening',
        ),
        NodeSpec(
            'robot_state_publisher',
            'robot_state_publisher',
            'robot_state_publisher',
            robot_description=(
                'urdf/soft_snake.urdf.xacro',
                {'segments': '{segments}', 'body_parameters_file': '{body_parameters}'},
            ),
        ),
        NodeSpec(
            'rviz2',
            'rviz2',
            'rviz2',
            arguments=('-d', '{share}/config/soft_snake.rviz'),
            when='rviz',
        ),
    ),
)


def generate_launch_description():
    from softbots_bringup.launching import launch_description

    return launch_description(ROBOT)
