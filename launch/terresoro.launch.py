"""TerreSoRo-III or -IV: gait executor (the Arduino bridge), edge learner and gait synthesis, on
the robot or on the simulated robot and overhead tracker (sim:=true).

    ros2 launch softbots_bringup terresoro.launch.py robot:=iii sim:=true rviz:=true
    # a camera publishes tracked_pose:
    ros2 launch softbots_bringup terresoro.launch.py robot:=iv port:=/dev/ttyUSB0
    # the same, from the source tree:
    ros2 launch launch/terresoro.launch.py robot:=iv sim:=true

Then:
    ros2 action send_goal /terresoro_learner/learn_edges soro_interfaces/action/LearnEdges \\
        "{rounds: 5, seed: 1}"
    ros2 service call /terresoro_synthesis/synthesize soro_interfaces/srv/SynthesizeGait \\
        "{goal: translation, alpha: [-1.0, 0.0], eps: 0.05, k: 3}"
    ros2 action send_goal /terresoro_executor/execute_gait soro_interfaces/action/ExecuteGait \\
        "{vertices: [6, 4, 5, 7, 1], cycles: 20}" --feedback

ROBOT is what this launch starts, as data: the runner of demos and tests starts the same processes
from it.
"""

from softbots_bringup.description import Argument, NodeSpec, RobotLaunch, sim_port, switch

SIM_PORT = sim_port('terresoro')
CONFIG = 'config/terresoro_{robot}.yaml'
# kept across reboots (/tmp was not), one per namespace
WEIGHTS = '{data_dir}/terresoro_{robot}_weights.csv'

ROBOT = RobotLaunch(
    arguments=(
        Argument(
            'robot',
            'iii',
            'TerreSoRo-III (3 limbs, τ = 0.55 s) or -IV (4 limbs, τ = 0.45 s)',
            ('iii', 'iv'),
        ),
        switch('sim', 'the simulated robot and tracker on a pty'),
        Argument('port', '/dev/ttyUSB0', 'serial port of the Arduino'),
        Argument(
            'substrate',
            'rubber_mat',
            'simulated ground truth',
            ('rubber_mat', 'whiteboard', 'carpet'),
        ),
        switch('rviz', 'open rviz2 with config/terresoro.rviz'),
        Argument(
            'weights_file',
            '',
            'learned edge weights (CSV) that the learner writes and the executor and '
            'synthesis read (empty: '
            '~/.ros/softbots/[<namespace>/]terresoro_<robot>_weights.csv)',
        ),
    ),
    derive=lambda a: {
        'port': SIM_PORT if a['sim'] == 'true' else a['port'],
        'limbs': '4' if a['robot'] == 'iv' else '3',
        'weights_file': a['weights_file'] or WEIGHTS,
    },
    nodes=(
        NodeSpec(
            'terresoro_gait',
            'terresoro_sim',
            'terresoro_sim',
            (CONFIG,),
            {'port': SIM_PORT, 'substrate': '{substrate}'},
            when='sim',
            ready='behind',
        ),
        NodeSpec(
            'terresoro_gait',
            'terresoro_executor',
            'terresoro_executor',
            (CONFIG,),
            {'port': '{port}', 'weights_file': '{weights_file}'},
            ready='opening',
        ),
        NodeSpec(
            'terresoro_gait',
            'terresoro_learner',
            'terresoro_learner',
            (CONFIG,),
            {'weights_file': '{weights_file}'},
        ),
        NodeSpec(
            'terresoro_gait',
            'terresoro_synthesis',
            'terresoro_synthesis',
            (CONFIG,),
            {'weights_file': '{weights_file}'},
        ),
        NodeSpec(
            'robot_state_publisher',
            'robot_state_publisher',
            'robot_state_publisher',
            robot_description=('urdf/terresoro.urdf.xacro', {'limbs': '{limbs}'}),
        ),
        NodeSpec(
            'rviz2',
            'rviz2',
            'rviz2',
            arguments=('-d', '{share}/config/terresoro.rviz'),
            when='rviz',
        ),
    ),
)


def generate_launch_description():
    from softbots_bringup.launching import launch_description

    return launch_description(ROBOT)
