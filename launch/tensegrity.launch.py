"""Tensegrity simulator live, watched in rviz2 (a simulation only: there is no tensegrity
hardware).

    # savin2020_reproduce released at ψ = 36°:
    ros2 launch softbots_bringup tensegrity.launch.py
    ros2 launch softbots_bringup tensegrity.launch.py psi:=1.0472 rviz:=true     # ψ = 60°
    ros2 launch softbots_bringup tensegrity.launch.py preset:=savin2020_stated \\
        real_time_factor:=0.2
    # the same, from the source tree:
    ros2 launch launch/tensegrity.launch.py

ROBOT is what this launch starts, as data: the runner of demos and tests starts the same processes
from it.
"""

from softbots_bringup.description import Argument, NodeSpec, RobotLaunch, switch

ROBOT = RobotLaunch(
    arguments=(
        Argument(
            'preset',
            'savin2020_reproduce',
            'savin2020_reproduce (L = 0.45 m), savin2020_stated (L = 0.3 m) '
            "or savin2020_code (the authors' integrator)",
            ('savin2020_reproduce', 'savin2020_stated', 'savin2020_code'),
        ),
        Argument(
            'psi',
            '0.6283185307179586',
            "initial rod tilt ψ (rad), in (0, π/2); the default: the paper's 36°",
        ),
        Argument('real_time_factor', '1.0', 'simulated s per wall s'),
        switch('rviz', 'open rviz2 with config/tensegrity.rviz'),
    ),
    nodes=(
        NodeSpec(
            'tensegrity_sim',
            'tensegrity_live',
            'tensegrity_sim',
            ('config/tensegrity.yaml',),
            {'preset': '{preset}', 'psi': '{psi}', 'real_time_factor': '{real_time_factor}'},
        ),
        NodeSpec(
            'rviz2',
            'rviz2',
            'rviz2',
            arguments=('-d', '{share}/config/tensegrity.rviz'),
            when='rviz',
        ),
    ),
)


def generate_launch_description():
    from softbots_bringup.launching import launch_description

    return launch_description(ROBOT)
