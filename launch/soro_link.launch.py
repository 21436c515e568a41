"""Generic soro_link bridge, on hardware (port:=/dev/ttyUSB0) or against the simulated board
(sim:=true).

    ros2 launch softbots_bringup soro_link.launch.py sim:=true
    ros2 launch softbots_bringup soro_link.launch.py port:=/dev/ttyACM0
    # the same, from the source tree:
    ros2 launch launch/soro_link.launch.py sim:=true

ROBOT is what this launch starts, as data: the runner of demos and tests starts the same processes
from it.
"""

from softbots_bringup.description import Argument, NodeSpec, RobotLaunch, sim_port, switch

SIM_PORT = sim_port('soro_link')

ROBOT = RobotLaunch(
    arguments=(
        switch('sim', 'use the simulated board on a pty'),
        Argument('port', '/dev/ttyUSB0', 'serial port of the real board'),
    ),
    derive=lambda a: {'port': SIM_PORT if a['sim'] == 'true' else a['port']},
    nodes=(
        NodeSpec(
            'soro_link',
            'sim_device',
            'soro_link_sim',
            arguments=('--model', 'generic_outputs', '--port', SIM_PORT),
            when='sim',
            ready='sim_device:',
        ),
        NodeSpec(
            'soro_link',
            'bridge_node',
            'soro_link_bridge',
            ('config/soro_link.yaml',),
            {'port': '{port}'},
        ),
    ),
)


def generate_launch_description():
    from softbots_bringup.launching import launch_description

    return launch_description(ROBOT)
