"""The origami salamander (Y. Sun's thesis, ch. 3): planner server and navigator, path follower and
host-ESP32 bridge, on the robot or on the simulated ESP32 and motion capture (sim:=true).

    ros2 launch softbots_bringup salamander.launch.py sim:=true rviz:=true
    ros2 launch softbots_bringup salamander.launch.py port:=/dev/ttyUSB0 planner:=lattice_astar
    ros2 launch launch/salamander.launch.py sim:=true           # the same, from the source tree

Then:
    ros2 action send_goal --feedback /salamander_planner/plan_and_track \\
        soro_interfaces/action/PlanAndTrack \\
        "{goal: {header: {frame_id: map}, pose: {position: {x: 2.15, y: 1.55}, \\
                                                 orientation: {w: 1.0}}}}"
    ros2 action send_goal /salamander_planner/plan_path soro_interfaces/action/PlanPath \\
        "{goal: {header: {frame_id: map}, pose: {position: {x: 2.15, y: 1.55}, \\
                                                 orientation: {w: 1.0}}}}"
    ros2 action send_goal --feedback /salamander_controller/track_path \\
        soro_interfaces/action/TrackPath \\
        "{path: {header: {frame_id: map}, poses: [{pose: {position: {x: 0.35, y: 0.3}}}, \\
                                                  {pose: {position: {x: 0.35, y: 0.9}}}]}}"
or rviz2's 2D Goal Pose tool (goal_pose). On the robot, motion capture publishes
mocap/salamander/pose.

ROBOT is what this launch starts, as data: the runner of demos and tests starts the same processes
from it.
"""

from softbots_bringup.description import Argument, NodeSpec, RobotLaunch, sim_port, switch

SIM_PORT = sim_port('salamander')
CONFIG = 'config/salamander.yaml'

ROBOT = RobotLaunch(
    arguments=(
        switch('sim', 'the simulated ESP32, modules and motion capture on a pty'),
        Argument('port', '/dev/ttyUSB0', 'serial port of the host ESP32'),
        Argument(
            'planner',
            'chomp',
            "default planner (CHOMP is the thesis's)",
            ('chomp', 'lattice_astar'),
        ),
        Argument('modules', '1', 'modules in the chain (ids 1-3)', ('1', '2', '3')),
        switch('rviz', 'open rviz2 with config/salamander.rviz'),
    ),
    derive=lambda a: {'port': SIM_PORT if a['sim'] == 'true' else a['port']},
    nodes=(
        NodeSpec(
            'salamander_nav',
            'salamander_sim',
            'salamander_sim',
            (CONFIG,),
            {'port': SIM_PORT, 'modules': '{modules}'},
            when='sim',
            ready='behind',
        ),
        NodeSpec(
            'salamander_nav',
            'salamander_controller',
            'salamander_controller',
            (CONFIG,),
            {'port': '{port}', 'modules': '{modules}'},
            ready='opening',
        ),
        NodeSpec(
            'salamander_nav',
            'salamander_planner',
            'salamander_planner',
            (CONFIG,),
            {'planner': '{planner}', 'scene_file': '{share}/config/salamander_scene.yaml'},
            ready='planner on',
        ),
        NodeSpec(
            'robot_state_publisher',
            'robot_state_publisher',
            'robot_state_publisher',
            robot_description=('urdf/salamander.urdf.xacro', {}),
        ),
        NodeSpec(
            'rviz2',
            'rviz2',
            'rviz2',
            arguments=('-d', '{share}/config/salamander.rviz'),
            when='rviz',
        ),
    ),
)


def generate_launch_description():
    from softbots_bringup.launching import launch_description

    return launch_description(ROBOT)
