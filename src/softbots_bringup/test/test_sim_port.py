"""The simulated port is one launch argument with one spelling, the description's
``{sim_dir}/<robot>_sim`` (``description.sim_port``): the board stand-in and its bridge get the
same value from the launch, a stand-in's ``port`` default is that port outside a launch, and no
launch file, config file or parameters.py spells one of its own."""

import importlib
import re
from pathlib import Path

import pytest

from softbots_bringup import description
from softbots_bringup.share import installed, share_dir

CHECKOUT = Path(__file__).resolve().parents[3]  # launch/, config/ and src/ of this source tree
SIMULATED = ('pom', 'salamander', 'soft_snake', 'terresoro', 'soro_link')
# a port written out: a /tmp path, a pty's name, or the template typed again instead of sim_port()
SECOND_SPELLING = re.compile(r'/tmp/|ttySIM|\{sim_dir\}/')


def ports_given(robot: str, namespace: str = '') -> dict[str, str]:
    """The port each node of ``robot``'s launch with sim:=true is given (parameter or --port)."""
    launch = description.load(installed(f'launch/{robot}.launch.py'))
    nodes = description.resolve(launch, {'sim': 'true', 'namespace': namespace}, share_dir())
    given = {node.name: node.overrides['port'] for node in nodes if 'port' in node.overrides}
    given.update(
        {
            node.name: node.arguments[node.arguments.index('--port') + 1]
            for node in nodes
            if '--port' in node.arguments
        }
    )
    return given


@pytest.mark.parametrize('robot', SIMULATED)
def test_the_stand_in_and_the_bridge_get_the_one_port_of_the_launch(robot):
    for namespace in ('', 'r1'):
        given = ports_given(robot, namespace)
        expected = description.sim_port(robot).format(sim_dir=description.sim_dir(namespace))
        assert len(given) == 2 and set(given.values()) == {expected}, given


@pytest.mark.parametrize('robot', SIMULATED[:-1])
def test_a_stand_in_started_alone_opens_the_port_its_launch_gives(robot):
    launch = description.load(installed(f'launch/{robot}.launch.py'))
    stand_in = next(node for node in launch.nodes if node.when == 'sim')
    frames = importlib.import_module(f'{stand_in.package}.parameters').FRAMES
    specs, _ = frames[stand_in.executable]
    default = next(spec.default for spec in specs if spec.name == 'port')
    assert default == ports_given(robot)[stand_in.name] == description.default_sim_port(robot)


def test_no_launch_config_or_parameters_file_spells_a_simulated_port_of_its_own():
    files = [
        *CHECKOUT.glob('launch/*.launch.py'),
        *CHECKOUT.glob('config/*.yaml'),
        *CHECKOUT.glob('src/*/*/parameters.py'),
    ]
    assert len(files) >= 15, 'not the source tree'
    spelled = [
        f'{path.relative_to(CHECKOUT)}:{number}: {line.strip()}'
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if SECOND_SPELLING.search(line)
    ]
    assert not spelled, '\n'.join(spelled)
