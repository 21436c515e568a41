"""The launch files' descriptions, resolved through the installed share as ``ros2 launch
softbots_bringup`` resolves them, and the runner's command lines for the same nodes."""

import _thread
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import rclpy
import yaml
from soro_interfaces.msg import LinkStatus

from softbots_bringup import cli, description, runner
from softbots_bringup.description import SIM_ROOT
from softbots_bringup.share import NotInstalled, installed, share_dir
from soro_node.probe_node import Probe
from soro_node.waiting import poll


def robot(launch_file):
    return description.load(installed(f'launch/{launch_file}'))


def by_name(nodes):
    return {node.name: node for node in nodes}


LAUNCH_FILES = sorted(p.name for p in (share_dir() / 'launch').glob('*.launch.py'))
WITH_RVIZ = [f for f in LAUNCH_FILES if 'rviz' in {a.name for a in robot(f).arguments}]


def test_terresoro_on_hardware_starts_the_three_nodes_on_the_given_port():
    nodes = by_name(
        description.resolve(
            robot('terresoro.launch.py'), {'robot': 'iv', 'port': '/dev/ttyACM1'}, share_dir()
        )
    )
    assert list(nodes) == [
        'terresoro_executor',
        'terresoro_learner',
        'terresoro_synthesis',
        'robot_state_publisher',
    ]
    executor = nodes['terresoro_executor']
    assert executor.params == (share_dir() / 'config' / 'terresoro_iv.yaml',)
    assert executor.overrides == {
        'port': '/dev/ttyACM1',
        'weights_file': '~/.ros/softbots/terresoro_iv_weights.csv',
    }
    assert all(
        n.params == executor.params for n in list(nodes.values())[:3]
    )  # one config for every node


def test_terresoro_sim_puts_the_simulated_robot_on_the_executor_port():
    nodes = by_name(
        description.resolve(
            robot('terresoro.launch.py'),
            {'sim': 'true', 'substrate': 'carpet', 'rviz': 'true'},
            share_dir(),
        )
    )
    assert list(nodes)[0] == 'terresoro_sim' and 'rviz2' in nodes
    assert nodes['terresoro_sim'].overrides == {
        'port': f'{SIM_ROOT}/terresoro_sim',
        'substrate': 'carpet',
    }
    assert (
        nodes['terresoro_executor'].overrides['port'] == nodes['terresoro_sim'].overrides['port']
    )
    assert nodes['terresoro_sim'].params == (share_dir() / 'config' / 'terresoro_iii.yaml',)
    assert nodes['rviz2'].arguments == ('-d', str(share_dir() / 'config' / 'terresoro.rviz'))


@pytest.mark.parametrize('robot_arg, limbs', [('iii', 3), ('iv', 4)])
def test_the_robot_description_expands_for_the_robot(robot_arg, limbs):
    rsp = by_name(
        description.resolve(robot('terresoro.launch.py'), {'robot': robot_arg}, share_dir())
    )['robot_state_publisher']
    urdf = description.urdf_text(rsp)
    assert urdf.count('<joint ') == 3 * limbs  # three curling segments per limb
    assert f'limb{limbs}_joint1' in urdf and f'limb{limbs + 1}_joint1' not in urdf


def test_override_values_are_typed_as_launch_ros_types_them():
    node = by_name(
        description.resolve(
            robot('tensegrity.launch.py'), {'psi': '1', 'real_time_factor': '2'}, share_dir()
        )
    )
    assert node['tensegrity_sim'].overrides == {
        'preset': 'savin2020_reproduce',
        'psi': 1,
        'real_time_factor': 2,
    }
    assert [type(v) for v in node['tensegrity_sim'].overrides.values()] == [str, int, int]


def test_a_snake_s_parameter_file_reaches_its_simulator_and_its_drawing(tmp_path, monkeypatch):
    """body_parameters:= is the sim node's and the driver's file and the URDF's sizes; left empty,
    all are the calibrated snake's: an empty override is the empty string, as launch_ros reads it,
    not null."""
    launch = robot('soft_snake.launch.py')
    nodes = by_name(description.resolve(launch, {'sim': 'true'}, share_dir()))
    for node in ('soft_snake_sim', 'soft_snake_driver'):
        assert nodes[node].overrides['body_parameters_file'] == ''
    assert 'xyz="-0.035 0 0"' in description.urdf_text(nodes['robot_state_publisher'])
    params = tmp_path / 'params.yaml'
    params.write_text('segment_length_m: 0.09\n')
    given = {'sim': 'true', 'body_parameters': str(params)}
    nodes = by_name(description.resolve(launch, given, share_dir()))
    for node in ('soft_snake_sim', 'soft_snake_driver'):
        assert nodes[node].overrides['body_parameters_file'] == str(params)
    urdf = description.urdf_text(nodes['robot_state_publisher'])
    assert 'xyz="-0.045 0 0"' in urdf and 'xyz="-0.035 0 0"' not in urdf
    monkeypatch.setenv('HOME', str(tmp_path))  # the shell leaves ~ after := to launch
    home = {'sim': 'true', 'body_parameters': '~/params.yaml'}
    nodes = by_name(description.resolve(launch, home, share_dir()))
    assert nodes['soft_snake_sim'].overrides['body_parameters_file'] == str(params)
    missing = {'sim': 'true', 'body_parameters': str(tmp_path / 'missing.yaml')}
    with pytest.raises(
        description.LaunchArgumentError, match=r'body_parameters:=.*: no such file'
    ):
        description.resolve(launch, missing, share_dir())


@pytest.mark.parametrize(
    'given, problem',
    [
        ({'robot': 'v'}, 'robot:=v: allowed iii, iv'),
        ({'limbs': '5'}, 'unknown launch argument(s) limbs'),
    ],
)
def test_bad_launch_arguments_are_refused_with_the_reason(given, problem):
    with pytest.raises(
        description.LaunchArgumentError, match=problem.replace('(', r'\(').replace(')', r'\)')
    ):
        description.resolve(robot('terresoro.launch.py'), given, share_dir())


@pytest.mark.parametrize('launch_file', WITH_RVIZ)
def test_a_launch_needing_a_package_not_installed_is_refused_before_any_node(launch_file):
    """rviz:=true on a ros-base robot (the real Jazzy launch): the nodes before rviz2 started, then
    the launch failed and left them running without it, a bridge holding its port."""
    nodes = description.resolve(robot(launch_file), {'rviz': 'true'}, share_dir())
    description.check_installed(nodes, lambda package: True)
    with pytest.raises(description.LaunchArgumentError) as refused:
        description.check_installed(nodes, lambda package: package != 'rviz2')
    assert str(refused.value).startswith(
        "package 'rviz2' (node rviz2) is not installed here, so nothing was started: a ros-base "
        'robot has none; launch with rviz:=false there'
    )
    without = description.resolve(robot(launch_file), {'rviz': 'false'}, share_dir())
    description.check_installed(without, lambda package: package != 'rviz2')
    assert len(WITH_RVIZ) == 5


def test_an_argument_close_to_one_of_ours_is_named_with_it():
    """ros2 launch ignores namspace:=r1 and starts the robot at the root; softbots-launch
    refuses it. An including launch's own arguments (use_sim_time) are not ours to judge."""
    given = ['namspace', 'rvis', 'sim', 'use_sim_time', 'my_world']
    assert description.near_misses(robot('pom.launch.py'), given) == [
        ('namspace', 'namespace'),
        ('rvis', 'rviz'),
    ]


def test_every_combination_covers_choices_and_switches():
    combos = description.every_combination(robot('terresoro.launch.py'))
    assert len(combos) == 2 * 2 * 3 * 2  # robot x sim x substrate x rviz; port at its default
    assert {c['robot'] for c in combos} == {'iii', 'iv'} and {c['port'] for c in combos} == {
        '/dev/ttyUSB0'
    }


def test_runner_command_is_the_launch_ros_command_line(tmp_path):
    [sim, bridge] = description.resolve(robot('soro_link.launch.py'), {'sim': 'true'}, share_dir())
    command = runner.command(bridge, tmp_path / 'over.yaml', [tmp_path / 'extra.yaml'])
    assert command[0] == runner.executable('soro_link', 'bridge_node')
    assert command[1:] == [
        '--ros-args',
        '-r',
        '__node:=soro_link_bridge',
        '--params-file',
        str(share_dir() / 'config' / 'soro_link.yaml'),
        '--params-file',
        str(tmp_path / 'over.yaml'),
        '--params-file',
        str(tmp_path / 'extra.yaml'),
    ]
    assert runner.command(sim, None)[1:5] == [
        '--model',
        'generic_outputs',
        '--port',
        f'{SIM_ROOT}/soro_link_sim',
    ]


@pytest.mark.ros
def test_runner_starts_what_the_launch_file_starts_and_stops_it_cleanly(tmp_path):
    """soro_link.launch.py sim:=true through the runner: the simulated board and the bridge, which
    connects."""
    processes = runner.start('soro_link.launch.py', tmp_path, {'sim': 'true'})
    try:
        assert [p.name for p in processes] == ['soro_link_sim', 'soro_link_bridge']
        processes[1].wait_for_output(f'opening {SIM_ROOT}/soro_link_sim')
        overrides = yaml.safe_load((tmp_path / 'soro_link_bridge.overrides.yaml').read_text())
        assert overrides == {
            '/soro_link_bridge': {'ros__parameters': {'port': f'{SIM_ROOT}/soro_link_sim'}}
        }
    finally:
        codes = [p.stop() for p in reversed(processes)]
    assert codes == [0, 0]


def test_a_file_missing_from_the_share_is_one_line():
    with pytest.raises(NotInstalled, match='config/nope.yaml is not in .*: rebuild the workspace'):
        installed('config/nope.yaml')


def test_an_uninstalled_package_is_named():
    with pytest.raises(runner.ScenarioError, match='package nope_pkg is not installed'):
        runner.executable('nope_pkg', 'x')


@pytest.mark.parametrize(
    'argv, problem',
    [
        (['terresoro.launch.py', 'robot:=v'], 'softbots-launch: robot:=v: allowed iii, iv'),
        (['nope.launch.py'], 'softbots-launch: launch/nope.launch.py is not in '),
        (
            ['soro_link.launch.py', 'sim:=yes'],
            'softbots-launch: sim:=yes: a boolean, allowed true/false/1/0 (any case)',
        ),
    ],
)
def test_softbots_launch_refuses_in_one_line(tmp_path, capsys, argv, problem):
    assert cli.main(argv + ['--logs', str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and err.startswith(problem)


# --- boolean arguments read as launch's IfCondition reads them (issue 25.1) ----------------------
@pytest.mark.parametrize('sim', ['true', 'True', 'TRUE', '1'])
def test_every_spelling_of_true_starts_the_simulator_and_keeps_off_the_real_port(sim):
    """sim:=True once meant false: no simulator, and the bridge opened /dev/ttyUSB0."""
    nodes = by_name(description.resolve(robot('soro_link.launch.py'), {'sim': sim}, share_dir()))
    assert list(nodes) == ['soro_link_sim', 'soro_link_bridge']
    assert nodes['soro_link_bridge'].overrides == {'port': f'{SIM_ROOT}/soro_link_sim'}


@pytest.mark.parametrize('sim', ['false', 'False', '0'])
def test_every_spelling_of_false_opens_the_given_port(sim):
    nodes = by_name(
        description.resolve(
            robot('soro_link.launch.py'), {'sim': sim, 'port': '/dev/ttyACM2'}, share_dir()
        )
    )
    assert list(nodes) == ['soro_link_bridge'] and nodes['soro_link_bridge'].overrides == {
        'port': '/dev/ttyACM2'
    }


@pytest.mark.parametrize(
    'launch_file',
    [
        'pom.launch.py',
        'salamander.launch.py',
        'soft_snake.launch.py',
        'soro_link.launch.py',
        'tensegrity.launch.py',
        'terresoro.launch.py',
    ],
)
@pytest.mark.parametrize('value', ['yes', 'on', 'tru', ''])
def test_anything_else_given_to_a_boolean_is_refused_in_one_line(launch_file, value):
    switches = [a.name for a in robot(launch_file).arguments if a.boolean]
    assert switches, f'{launch_file} has no boolean argument'
    for name in switches:
        with pytest.raises(description.LaunchArgumentError) as refused:
            description.resolve(robot(launch_file), {name: value}, share_dir())
        assert (
            str(refused.value) == f'{name}:={value}: a boolean, allowed true/false/1/0 (any case)'
        )


def test_the_runner_refuses_a_bad_boolean_before_starting_anything(tmp_path):
    with pytest.raises(description.LaunchArgumentError, match='rviz:=yes: a boolean'):
        runner.start('terresoro.launch.py', tmp_path, {'sim': 'true', 'rviz': 'yes'})
    assert list(tmp_path.iterdir()) == []  # no node's log: nothing was started


# --- namespaces (issue 25.5) ---------------------------------------------------------------------


@pytest.mark.parametrize('launch_file', LAUNCH_FILES)
def test_every_launch_file_starts_its_nodes_in_the_given_namespace(launch_file):
    combination = description.every_combination(robot(launch_file))[0]
    nodes = description.resolve(
        robot(launch_file), {**combination, 'namespace': '/robot1/'}, share_dir()
    )
    assert nodes and {node.namespace for node in nodes} == {'robot1'}
    root = description.resolve(robot(launch_file), combination, share_dir())
    assert {node.namespace for node in root} == {''}
    # tf goes into the namespace too, so two robots' base_link never meet on /tf
    assert all(
        {('/tf', 'tf'), ('/tf_static', 'tf_static')} <= set(node.remappings) for node in nodes
    )
    assert not any(
        source in ('/tf', '/tf_static') for node in root for source, _ in node.remappings
    )


@pytest.mark.parametrize('launch_file', [f for f in LAUNCH_FILES if f != 'tensegrity.launch.py'])
def test_the_simulated_port_is_per_namespace(launch_file):
    def ports(namespace):
        nodes = description.resolve(
            robot(launch_file), {'sim': 'true', 'namespace': namespace}, share_dir()
        )
        return {
            str(v)
            for node in nodes
            for v in (*node.overrides.values(), *node.arguments)
            if str(v).startswith(SIM_ROOT)
        }

    assert len(ports('r1')) == 1 and ports('r1') != ports('r2') != ports('')
    assert ports('r1').pop().startswith(f'{SIM_ROOT}/r1/')


def test_the_runner_starts_a_node_in_its_namespace_with_its_overrides_keyed_so(tmp_path):
    [sim, bridge] = description.resolve(
        robot('soro_link.launch.py'), {'sim': '1', 'namespace': 'r1'}, share_dir()
    )
    assert runner.command(bridge, None)[1:6] == [
        '--ros-args',
        '-r',
        '__node:=soro_link_bridge',
        '-r',
        '__ns:=/r1',
    ]
    assert runner.full_name(bridge) == '/r1/soro_link_bridge' and bridge.overrides == {
        'port': f'{SIM_ROOT}/r1/soro_link_sim'
    }
    assert runner.command(sim, None)[1:5] == [
        '--model',
        'generic_outputs',
        '--port',
        f'{SIM_ROOT}/r1/soro_link_sim',
    ]


@pytest.mark.parametrize('value', ['1robot', 'robot one', 'a//b', 'r-1'])
def test_a_namespace_that_is_not_a_ros_name_is_refused(value):
    with pytest.raises(
        description.LaunchArgumentError, match=f'namespace:={value}: not a ROS namespace'
    ):
        description.resolve(robot('tensegrity.launch.py'), {'namespace': value}, share_dir())


@pytest.mark.parametrize('config', sorted(p.name for p in (share_dir() / 'config').glob('*.yaml')))
def test_node_keys_of_every_config_match_under_any_namespace(config):
    """A key `salamander_controller:` matches only /salamander_controller: under a namespace the
    controller lost autostart and never opened its port. Keys are `/**` or `/**/<node>`."""
    content = yaml.safe_load((share_dir() / 'config' / config).read_text())
    node_keys = [k for k, v in content.items() if isinstance(v, dict) and 'ros__parameters' in v]
    assert all(k == '/**' or k.startswith('/**/') for k in node_keys), node_keys


# --- the TerreSoRo weights file (issue 25.9) -----------------------------------------------------
def test_the_weights_file_outlives_a_reboot_and_is_per_namespace():
    def weights(given):
        nodes = description.resolve(robot('terresoro.launch.py'), given, share_dir())
        return {
            n.name: n.overrides['weights_file'] for n in nodes if 'weights_file' in n.overrides
        }

    assert weights({}) == dict.fromkeys(
        ['terresoro_executor', 'terresoro_learner', 'terresoro_synthesis'],
        '~/.ros/softbots/terresoro_iii_weights.csv',
    )
    assert set(weights({'robot': 'iv', 'namespace': 'r2'}).values()) == {
        '~/.ros/softbots/r2/terresoro_iv_weights.csv'
    }
    assert set(weights({'weights_file': '/data/mat.csv'}).values()) == {'/data/mat.csv'}


# --- a sim launch stopped as ros2 launch stops it (issue 25.9) -----------------------------------
@pytest.fixture
def ros():
    rclpy.init()
    yield
    rclpy.try_shutdown()


@pytest.mark.ros
def test_a_sim_launch_interrupted_all_at_once_ends_with_the_safe_state_confirmed(tmp_path, ros):
    """ros2 launch (and Ctrl-C in its terminal) sends SIGINT to every node together: the simulated
    board must still answer the bridge's last safe-state command, or every sim run ends with "safe
    state not confirmed"."""
    processes = runner.start('soro_link.launch.py', tmp_path, {'sim': 'true'})
    probe = Probe('probe', {'/soro_link_bridge/link_status': LinkStatus})
    try:
        assert probe.wait(
            '/soro_link_bridge/link_status', lambda m: m.state == LinkStatus.CONNECTED, 15.0
        )
    finally:
        probe.close()
        codes = runner.stop_all(processes, at_once=True)
    log = processes[1].log.read_text()
    assert 'device in its safe state (bridge stopping)' in log and 'not confirmed' not in log, log
    assert codes == {'soro_link_bridge': 0, 'soro_link_sim': 0}


@pytest.mark.ros
def test_ctrl_c_in_the_terminal_of_softbots_launch_stops_a_sim_launch_cleanly(tmp_path, ros):
    """Ctrl-C reaches the terminal's whole foreground process group at once; every node must get
    exactly one SIGINT (a second one, from softbots-launch stopping them, cut a simulator's last
    moments short)."""
    out = tmp_path / 'out.txt'
    launch = subprocess.Popen(
        [
            runner.executable('softbots_bringup', 'softbots-launch'),
            'pom.launch.py',
            'sim:=true',
            'namespace:=ctrl_c',
            '--logs',
            str(tmp_path),
        ],
        stdout=out.open('w'),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # a "terminal"
    controller, status = (
        tmp_path / 'ctrl_c.pom_controller.log',
        '/ctrl_c/pom_controller/link_status',
    )
    probe = Probe('probe', {status: LinkStatus})
    try:
        assert probe.wait(status, lambda m: m.state == LinkStatus.CONNECTED, 60.0), out.read_text()
        # a Ctrl-C while it starts is 130 (what had started is stopped): up is its running line,
        # which can come after the link does on a loaded machine
        assert poll(lambda: 'Ctrl-C stops them' in out.read_text(), 30.0), out.read_text()
        os.killpg(launch.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        assert launch.wait(30.0) == 0, out.read_text()
    finally:
        probe.close()
        if launch.poll() is None:
            os.killpg(launch.pid, signal.SIGKILL)
    logs = {log.name: log.read_text() for log in tmp_path.glob('*.log')}
    assert len(logs) == 2 and not [name for name, text in logs.items() if 'Traceback' in text], (
        logs
    )
    assert 'device in its safe state (bridge stopping)' in logs[controller.name], logs


@pytest.mark.ros
def test_a_node_that_dies_is_named_and_the_others_keep_running(tmp_path, ros):
    """SIGKILL of the simulator stopped the whole launch without a word; under ros2 launch the
    others keep running, and the bridge retries its port (the hostile pass)."""
    out = tmp_path / 'out.txt'
    launch = subprocess.Popen(
        [
            runner.executable('softbots_bringup', 'softbots-launch'),
            *('soro_link.launch.py', 'sim:=true', 'namespace:=dies', '--logs', str(tmp_path)),
        ],
        stdout=out.open('w'),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        assert poll(lambda: 'Ctrl-C stops them' in out.read_text(), 60.0), out.read_text()
        [sim] = [
            int(pid)
            for pid in os.listdir('/proc')
            if pid.isdigit()
            and f'{SIM_ROOT}/dies/soro_link_sim' in _argv(pid)
            and 'sim_device' in ' '.join(_argv(pid))
        ]
        os.kill(sim, signal.SIGKILL)
        said = f'softbots-launch: dies/soro_link_sim exited with code -9 (log: {tmp_path}'
        assert poll(lambda: said in out.read_text(), 10.0), out.read_text()
        assert 'the others keep running' in out.read_text()
        time.sleep(1.0)
        assert launch.poll() is None
    finally:
        if launch.poll() is None:
            os.killpg(launch.pid, signal.SIGINT)  # it stops its nodes, in sessions of their own
        code = launch.wait(30.0)
    assert code == 1, out.read_text()
    assert 'Traceback' not in (tmp_path / 'dies.soro_link_bridge.log').read_text()


def _argv(pid: str) -> list[str]:
    try:
        return (Path('/proc') / pid / 'cmdline').read_bytes().decode().split('\0')
    except OSError:
        return []


IGNORES_SIGINT = (
    'import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); print("up", flush=True); '
    'time.sleep(60)'
)


def test_a_second_ctrl_c_while_stopping_kills_what_still_runs(tmp_path):
    """Nodes that take their time over the first Ctrl-C: a second one kills them rather than
    leaving them orphaned (softbots-launch starts them in sessions of their own, out of the
    terminal's reach)."""
    stubborn = [
        runner.Process(
            f'stubborn{i}', [sys.executable, '-c', IGNORES_SIGINT], tmp_path, own_session=True
        )
        for i in range(2)
    ]
    for process in stubborn:
        process.wait_for_output('up')
    # a terminal's Ctrl-C: Python raises it only with its own handler, which a run started in the
    # background of a shell without job control does not have (SIGINT ignored from the start)
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    second_ctrl_c = threading.Timer(0.5, _thread.interrupt_main)
    second_ctrl_c.start()
    try:
        codes = runner.stop_all(stubborn, at_once=True)
    finally:
        second_ctrl_c.join()
        signal.signal(signal.SIGINT, ignored)
    assert all(p.popen.poll() is not None for p in stubborn)
    assert codes == {'stubborn0': -signal.SIGKILL, 'stubborn1': -signal.SIGKILL}
