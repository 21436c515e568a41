"""The voxel quadruped (Planes of Motion): its controller and actuator-board bridge, on the robot
or on the simulated board and motion-capture camera (sim:=true).

    ros2 launch softbots_bringup pom.launch.py sim:=true rviz:=true
    # the board; a camera publishes mocap_markers:
    ros2 launch softbots_bringup pom.launch.py port:=/dev/ttyACM0
    # the same, from the source tree:
    ros2 launch launch/pom.launch.py sim:=true

Then: ros2 action send_goal /pom_controller/execute_gait soro_interfaces/action/ExecuteVoxelGait \\
          "{gait: tripod, cycles: 3, step_period_s: 1.0}" --feedback
      ros2 service call /pom_controller/inverse_kinematics soro_interfaces/srv/ComputeVoxelIK \\
          "{effectors: [front_left, front_right, back_left, back_right], axes: [z, z, y, x], \\
            targets_m: [0.005, -0.005, 0.0, 0.0]}"

ROBOT is what this launch starts, as data: the runner of demos and tests starts the same processes
from it.
"""

from softbots_bringup.description import Argument, NodeSpec, RobotLaunch, sim_port, switch

SIM_PORT = sim_port('pom')
STRUCTURE = '{share}/config/pom.yaml'

ROBOT = RobotLaunch(
    arguments=(
        switch('sim', 'the simulated actuator board and camera on a pty'),
        Argument('port', '/dev/ttyACM0', 'serial port of the actuator board'),
        Argument('step_period_s', '1.0', "time between a gait's key poses (s)"),
        switch('rviz', 'open rviz2 with config/pom.rviz'),
    ),
    derive=lambda a: {'port': SIM_PORT if a['sim'] == 'true' else a['port']},
    nodes=(
        NodeSpec(
            'pom_voxel',
            'pom_sim',
            'pom_sim',
            (),
            {'port': SIM_PORT, 'structure_file': STRUCTURE},
            when='sim',
            ready='behind',
        ),
        NodeSpec(
            'pom_voxel',
            'pom_controller',
            'pom_controller',
            (),
            {
                'port': '{port}',
                'structure_file': STRUCTURE,
                'autostart': 'true',
                'step_period_s': '{step_period_s}',
            },
            ready='opening',
        ),
        NodeSpec(
            'robot_state_publisher',
            'robot_state_publisher',
            'robot_state_publisher',
            robot_description=('urdf/pom.urdf.xacro', {}),
        ),
        NodeSpec(
            'rviz2', 'rviz2', 'rviz2', arguments=('-d', '{share}/config/pom.rviz'), when='rviz'
        ),
    ),
)


def generate_launch_description():
    from softbots_bringup.launching import launch_description

    return launch_description(ROBOT)
