"""The launch files' descriptions, resolved through the installed share as ``ros2 launch softbots_bringup`` resolves
them, and the runner's command lines for the same nodes."""
import pytest
import yaml

from softbots_bringup import cli, description, runner
from softbots_bringup.share import NotInstalled, installed, share_dir


def robot(launch_file):
    return description.load(installed(f'launch/{launch_file}'))


def by_name(nodes):
    return {node.name: node for node in nodes}


def test_terresoro_on_hardware_starts_the_three_nodes_on_the_given_port():
    nodes = by_name(description.resolve(robot('terresoro.launch.py'), {'robot': 'iv', 'port': '/dev/ttyACM1'},
                                        share_dir()))
    assert list(nodes) == ['terresoro_executor', 'terresoro_learner', 'terresoro_synthesis', 'robot_state_publisher']
    executor = nodes['terresoro_executor']
    assert executor.params == (share_dir() / 'config' / 'terresoro_iv.yaml',)
    assert executor.overrides == {'port': '/dev/ttyACM1'}
    assert all(n.params == executor.params for n in list(nodes.values())[:3])   # one config for every node


def test_terresoro_sim_puts_the_simulated_robot_on_the_executor_port():
    nodes = by_name(description.resolve(robot('terresoro.launch.py'), {'sim': 'true', 'substrate': 'carpet',
                                                                        'rviz': 'true'}, share_dir()))
    assert list(nodes)[0] == 'terresoro_sim' and 'rviz2' in nodes
    assert nodes['terresoro_sim'].overrides == {'port': '/tmp/softbots/terresoro_sim', 'substrate': 'carpet'}
    assert nodes['terresoro_executor'].overrides['port'] == nodes['terresoro_sim'].overrides['port']
    assert nodes['terresoro_sim'].params == (share_dir() / 'config' / 'terresoro_iii.yaml',)
    assert nodes['rviz2'].arguments == ('-d', str(share_dir() / 'config' / 'terresoro.rviz'))


@pytest.mark.parametrize('robot_arg, limbs', [('iii', 3), ('iv', 4)])
def test_the_robot_description_expands_for_the_robot(robot_arg, limbs):
    rsp = by_name(description.resolve(robot('terresoro.launch.py'), {'robot': robot_arg},
                                      share_dir()))['robot_state_publisher']
    urdf = description.urdf_text(rsp)
    assert urdf.count('<joint ') == 3 * limbs                 # three curling segments per limb
    assert f'limb{limbs}_joint1' in urdf and f'limb{limbs + 1}_joint1' not in urdf


def test_override_values_are_typed_as_launch_ros_types_them():
    node = by_name(description.resolve(robot('tensegrity.launch.py'), {'psi_deg': '50'}, share_dir()))
    assert node['tensegrity_sim'].overrides == {'preset': 'savin2020_reproduce', 'psi_deg': 50,
                                                'real_time_factor': 1.0}


@pytest.mark.parametrize('given, problem', [
    ({'robot': 'v'}, 'robot:=v: allowed iii, iv'),
    ({'limbs': '5'}, 'unknown launch argument(s) limbs'),
])
def test_bad_launch_arguments_are_refused_with_the_reason(given, problem):
    with pytest.raises(description.LaunchArgumentError, match=problem.replace('(', r'\(').replace(')', r'\)')):
        description.resolve(robot('terresoro.launch.py'), given, share_dir())


def test_every_combination_covers_choices_and_switches():
    combos = description.every_combination(robot('terresoro.launch.py'))
    assert len(combos) == 2 * 2 * 3 * 2                 # robot x sim x substrate x rviz; port at its default
    assert {c['robot'] for c in combos} == {'iii', 'iv'} and {c['port'] for c in combos} == {'/dev/ttyUSB0'}


def test_runner_command_is_the_launch_ros_command_line(tmp_path):
    [sim, bridge] = description.resolve(robot('soro_link.launch.py'), {'sim': 'true'}, share_dir())
    command = runner.command(bridge, tmp_path / 'over.yaml', [tmp_path / 'extra.yaml'])
    assert command[0] == runner.executable('soro_link', 'bridge_node')
    assert command[1:] == ['--ros-args', '-r', '__node:=soro_link_bridge',
                           '--params-file', str(share_dir() / 'config' / 'soro_link.yaml'),
                           '--params-file', str(tmp_path / 'over.yaml'), '--params-file', str(tmp_path / 'extra.yaml')]
    assert runner.command(sim, None)[1:5] == ['--model', 'generic_outputs', '--port', '/tmp/softbots/soro_link_sim']


@pytest.mark.ros
def test_runner_starts_what_the_launch_file_starts_and_stops_it_cleanly(tmp_path):
    """soro_link.launch.py sim:=true through the runner: the simulated board and the bridge, which connects."""
    processes = runner.start('soro_link.launch.py', tmp_path, {'sim': 'true'})
    try:
        assert [p.name for p in processes] == ['soro_link_sim', 'soro_link_bridge']
        processes[1].wait_for_output('opening /tmp/softbots/soro_link_sim')
        overrides = yaml.safe_load((tmp_path / 'soro_link_bridge.overrides.yaml').read_text())
        assert overrides == {'soro_link_bridge': {'ros__parameters': {'port': '/tmp/softbots/soro_link_sim'}}}
    finally:
        codes = [p.stop() for p in reversed(processes)]
    assert codes == [0, 0]


def test_a_file_missing_from_the_share_is_one_line():
    with pytest.raises(NotInstalled, match='config/nope.yaml is not in .*: rebuild the workspace'):
        installed('config/nope.yaml')


def test_an_uninstalled_package_is_named():
    with pytest.raises(runner.ScenarioError, match='package nope_pkg is not installed'):
        runner.executable('nope_pkg', 'x')


@pytest.mark.parametrize('argv, problem', [
    (['terresoro.launch.py', 'robot:=v'], 'softbots-launch: robot:=v: allowed iii, iv'),
    (['nope.launch.py'], 'softbots-launch: launch/nope.launch.py is not in '),
])
def test_softbots_launch_refuses_in_one_line(tmp_path, capsys, argv, problem):
    assert cli.main(argv + ['--logs', str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and err.startswith(problem)
