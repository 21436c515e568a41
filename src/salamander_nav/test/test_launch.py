"""salamander.launch.py as ``ros2 launch softbots_bringup`` resolves it through the installed
share, and the parameters file it passes: the simulated ESP32 on the controller's port, the planner
argument reaching the planner, every parameter a declared one with an allowed value."""

import yaml

from salamander_nav import parameters
from softbots_bringup import description
from softbots_bringup.share import installed, share_dir
from soro_node.params import check_all


def nodes(arguments):
    robot = description.load(installed('launch/salamander.launch.py'))
    return {node.name: node for node in description.resolve(robot, arguments, share_dir())}


def test_sim_puts_the_simulated_esp32_on_the_controllers_port():
    started = nodes({'sim': 'true', 'modules': '3', 'rviz': 'true'})
    assert list(started) == [
        'salamander_sim',
        'salamander_controller',
        'salamander_planner',
        'robot_state_publisher',
        'rviz2',
    ]
    assert (
        started['salamander_sim'].overrides['port']
        == started['salamander_controller'].overrides['port']
    )
    assert (
        started['salamander_sim'].overrides['modules']
        == started['salamander_controller'].overrides['modules']
        == 3
    )


def test_on_hardware_the_controller_opens_the_given_port_and_the_planner_argument_arrives():
    started = nodes({'port': '/dev/ttyACM3', 'planner': 'lattice_astar'})
    assert 'salamander_sim' not in started
    assert started['salamander_controller'].overrides['port'] == '/dev/ttyACM3'
    assert started['salamander_planner'].overrides['planner'] == 'lattice_astar'
    assert started['salamander_planner'].overrides['scene_file'] == str(
        share_dir() / 'config' / 'salamander_scene.yaml'
    )
    assert installed('config/salamander_scene.yaml').is_file()


def test_every_file_named_is_installed_for_every_combination_of_arguments():
    robot = description.load(installed('launch/salamander.launch.py'))
    for values in description.every_combination(robot):
        for node in description.resolve(robot, values, share_dir()):
            missing = [str(f) for f in description.files_named(node) if not f.is_file()]
            assert not missing, f'{values}: {node.name} reads {missing}'


def test_the_parameters_file_holds_only_declared_parameters_with_allowed_values():
    config = yaml.safe_load(installed('config/salamander.yaml').read_text())
    specs = {
        'salamander_controller': parameters.CONTROLLER,
        'salamander_planner': parameters.PLANNER,
        'salamander_sim': parameters.SIMULATOR,
    }
    shared = config['/**']['ros__parameters']
    for node, node_specs in specs.items():
        # node keys match in any namespace
        given = {**shared, **config[f'/**/{node}']['ros__parameters']}
        declared = {spec.name for spec in node_specs} | {
            'port',
            'baud',
            'autostart',
            'heartbeat_period_s',
            'stale_timeout_s',
        }
        assert set(given) <= declared, f'{node}: {set(given) - declared}'
        check_all(
            node_specs, {k: v for k, v in given.items() if k in {s.name for s in node_specs}}
        )
