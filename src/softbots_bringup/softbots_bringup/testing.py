"""The node-test harness of every robot (a pytest plugin, registered with ``-p`` in
tools/pytest.ini): a robot's nodes started from its launch description as ``ros2 launch ...
sim:=true`` starts them, each in its own process, handed back with the robot's commander and a
probe that keeps what the nodes publish.

    @pytest.fixture(scope='module')
    def robot(launch):
        return launch('pom.launch.py', commander=PomCommander, topics={LINK: LinkStatus},
                      params={'pom_controller': {'command_rate_hz': 40.0}})

rclpy is started once per test module that asks for ``launch`` and ended after it; every node
must exit 0 (or be one a test killed by ``LaunchedRobot.kill``).
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from soro_interfaces.msg import LinkStatus

from softbots_bringup import description, runner
from soro_node import commander as commanders
from soro_node.probe_node import Probe


class LaunchedRobot:
    """A robot's processes (in launch order), its commander (or None) and a ``Probe``."""

    def __init__(self, processes: list[runner.Process], commander, probe: Probe, log_dir: Path):
        self.processes, self.commander, self.probe = processes, commander, probe
        self.log_dir = log_dir
        self.killed: list[runner.Process] = []  # by the test, on purpose (``kill``)
        self._clients_open = True

    def process(self, name: str) -> runner.Process:
        """The running process of node ``name``."""
        return next(p for p in self.processes if p.name == name)

    def restart(self, name: str, ready: str) -> runner.Process:
        """Node ``name`` started again with its command line (after a test killed it), once it
        printed ``ready``."""
        index = next(i for i, p in enumerate(self.processes) if p.name == name)
        command = list(self.processes[index].popen.args)
        self.processes[index] = runner.Process(name, command, self.log_dir)
        self.processes[index].wait_for_output(ready)
        return self.processes[index]

    def kill(self, name: str) -> runner.Process:
        """Node ``name`` killed (SIGKILL: a host that dies without a goodbye); the harness then
        expects SIGKILL's exit code of it, not 0 (unless ``restart`` starts it again)."""
        process = self.process(name)
        process.kill()
        self.killed.append(process)
        return process

    def unclean(self) -> list[tuple[str, int | None]]:
        """(name, exit code) of each process that did not exit 0, or by SIGKILL if it was
        ``kill``ed."""
        return [
            (p.name, p.popen.returncode)
            for p in self.processes
            if p.popen.returncode != (-signal.SIGKILL if p in self.killed else 0)
        ]

    def close_clients(self) -> None:
        """Probe and commander destroyed (once)."""
        if self._clients_open:
            self._clients_open = False
            self.probe.close()
            if self.commander is not None:
                self.commander.close()


def close_all(robots: list[LaunchedRobot], at_once: bool = False) -> dict[str, int]:
    """Every robot's probe and commander destroyed, then all their processes stopped, the last
    started first; ``at_once``: SIGINT to every process of every robot together, as one Ctrl-C
    reaches every launch in a terminal (``runner.stop_all``). Exit codes by process name; robots
    stopped already give theirs again."""
    for robot in robots:
        robot.close_clients()
    return runner.stop_all([p for robot in robots for p in robot.processes], at_once)


def launch_robot(
    launch_file: str,
    log_dir: Path,
    arguments: dict | None = None,
    params: dict | None = None,
    commander=None,
    topics: dict | None = None,
) -> LaunchedRobot:
    """Starts ``launch_file`` with ``arguments`` (``sim: 'true'`` unless given, where the launch
    file has a ``sim`` argument) and ``params`` over its own, then ``commander()`` (a Commander
    class, or None) and a probe of ``topics`` ({topic: message type})."""
    extra = [runner.write_params(log_dir / 'params.yaml', params)] if params else []
    known = description.load(runner.installed(f'launch/{launch_file}')).arguments
    simulated = {'sim': 'true'} if any(a.name == 'sim' for a in known) else {}
    processes = runner.start(
        launch_file, log_dir, {**simulated, **(arguments or {})}, extra_params=extra
    )
    name, client = launch_file.removesuffix('.launch.py'), None
    # namespace:=robot1's probe and robot2's: two robots in one test, two probe names
    namespace = (arguments or {}).get('namespace', '').strip('/').replace('/', '_')
    name = '_'.join(filter(None, (namespace, name, 'probe')))
    try:
        client = commander() if commander else None
        return LaunchedRobot(processes, client, Probe(name, topics or {}), log_dir)
    except BaseException:  # nothing started outlives a harness that could not finish
        if client is not None:
            client.close()
        runner.stop_all(processes)
        raise


def launch_on_board(
    launch, launch_file: str, port: str, link: str, device_kind: str, commander, topics=None
) -> LaunchedRobot:
    """``launch_file`` started as on the robot (``sim:=false port:=<port>``) by ``launch`` (the
    fixture), once its bridge's ``link`` status says it is connected to a board that calls itself
    ``device_kind``; the probe also keeps ``topics``."""
    robot = launch(
        launch_file,
        arguments={'sim': 'false', 'port': port},
        commander=commander,
        topics={link: LinkStatus, **(topics or {})},
    )
    assert robot.probe.wait(link, lambda m: m.state == LinkStatus.CONNECTED, 10.0)
    assert robot.probe.latest(link).device.device_kind == device_kind
    return robot


def _launcher(tmp_path_factory):
    """The generator behind ``launch`` and ``launch_in_test``: rclpy up, a launching function,
    then every robot it launched stopped, rclpy down, and every node's exit code checked."""
    commanders.init()
    robots = []

    def start(launch_file: str, **how) -> LaunchedRobot:
        log_dir = tmp_path_factory.mktemp(launch_file.removesuffix('.launch.py'))
        robots.append(launch_robot(launch_file, log_dir, **how))
        return robots[-1]

    yield start
    try:
        close_all(robots)
    finally:
        commanders.shutdown()
    unclean = [code for robot in robots for code in robot.unclean()]
    assert not unclean, f'nodes that did not exit 0: {unclean}'


@pytest.fixture(scope='module')
def launch(tmp_path_factory):
    """launch(launch_file, **how) -> LaunchedRobot (see ``launch_robot``), shared by the tests of
    a module; all it launched is stopped after the module, and every node must exit 0."""
    yield from _launcher(tmp_path_factory)


@pytest.fixture
def launch_in_test(tmp_path_factory):
    """``launch`` for one test: what it launched is stopped after the test (e.g. before its
    emulated board)."""
    yield from _launcher(tmp_path_factory)
