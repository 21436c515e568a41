"""Run what a launch file starts, without the ros2 CLI (for ``make demo`` and tests): start,
record, stop cleanly. No rclpy.

``start`` starts the nodes of a launch file's description (``description.resolve``: the same
executables, parameter files, overrides and remappings as ``ros2 launch``), each an installed
console script in its own process with its own log file. Stopping sends SIGINT (what Ctrl-C and
``ros2 launch`` send) and waits, so nodes close their bags and put devices in their safe state
before they exit.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import yaml
from ament_index_python.packages import PackageNotFoundError, get_package_prefix

from softbots_bringup import description
from softbots_bringup.share import installed, share_dir
from soro_node.arguments import Terminated

STOP_TIMEOUT_S = 10.0
DUMP_WAIT_S = 0.5  # for a stuck node to write its threads' stacks


def write_params(path: Path, params: dict) -> Path:
    """{node: {parameter: value}} as a ROS parameters file (laid over the launch file's own)."""
    plain = {
        node: {
            'ros__parameters': {k: str(v) if isinstance(v, Path) else v for k, v in values.items()}
        }
        for node, values in params.items()
    }
    path.write_text(yaml.dump(plain, Dumper=_PlainDumper))
    return path


class _PlainDumper(yaml.SafeDumper):
    """YAML without anchors and aliases (one list given to two nodes): rcl cannot parse them."""

    def ignore_aliases(self, data) -> bool:
        return True


class ScenarioError(RuntimeError):
    """A process of the scenario failed; the message names it and points at its log."""


def executable(package: str, name: str) -> str:
    """Path of an installed console script (``ros2 run package name`` without the ros2 CLI)."""
    try:
        path = Path(get_package_prefix(package)) / 'lib' / package / name
    except PackageNotFoundError:
        raise ScenarioError(f'package {package} is not installed (run make build)') from None
    if not path.exists():
        raise ScenarioError(f'{package}/{name} is not installed (run make build)')
    return str(path)


class Process:
    """A node's process. ``own_session``: out of the caller's process group, so a terminal's Ctrl-C
    reaches only the caller, which passes one SIGINT on (``softbots-launch``); otherwise the node
    would get the terminal's and then the caller's, and a second SIGINT cuts a node's last moments
    short."""

    def __init__(self, name: str, command: list[str], log_dir: Path, own_session: bool = False):
        # robot1/x_sim: robot1.x_sim.log
        self.name, self.log = name, log_dir / f'{name.replace("/", ".")}.log'
        self._log_file = self.log.open('w')
        self.popen = subprocess.Popen(
            command, stdout=self._log_file, stderr=subprocess.STDOUT, start_new_session=own_session
        )
        self._interrupted = False

    def check_running(self) -> None:
        """Raise ScenarioError, naming the exit code and the log, when the process has exited."""
        if self.popen.poll() is not None:
            raise ScenarioError(
                f'{self.name} exited early with code {self.popen.returncode}; see {self.log}'
            )

    def wait_for_output(self, text: str, timeout_s: float = 20.0) -> None:
        """Block until ``text`` appears in the process's log (e.g. a node saying it is ready)."""
        deadline = time.monotonic() + timeout_s
        while text not in self.log.read_text(errors='replace'):
            self.check_running()
            if time.monotonic() > deadline:
                raise ScenarioError(
                    f'{self.name} did not print {text!r} within {timeout_s:g} s; see {self.log}'
                )
            time.sleep(0.05)

    def interrupt(self) -> None:
        """SIGINT, once (a second one asks a node to hurry: bridges then cut their goals' ending
        short)."""
        if self.popen.poll() is None and not self._interrupted:
            self._interrupted = True
            self.popen.send_signal(signal.SIGINT)

    def stop(self) -> int:
        """SIGINT (unless sent already), then wait; kill after STOP_TIMEOUT_S. Returns the exit
        code."""
        self.interrupt()
        if self.popen.poll() is None:
            try:
                self.popen.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.dump_threads()
                return self.kill()
        self._log_file.close()
        return self.popen.returncode

    def dump_threads(self) -> None:
        """Has a node that does not stop write every thread's stack into its log (soro_node's
        nodes answer SIGUSR1 so: ``init_ros``), before it is killed."""
        self.popen.send_signal(signal.SIGUSR1)
        time.sleep(DUMP_WAIT_S)

    def kill(self) -> int:
        """SIGKILL and wait; the exit code."""
        self.popen.kill()
        self.popen.wait()
        self._log_file.close()
        return self.popen.returncode


def start_recorder(bag: Path, topics: list[str], log_dir: Path) -> Process:
    """soro_analysis's recorder writing ``topics`` into the new bag directory ``bag``, once it is
    listening."""
    recorder = Process(
        'recorder',
        [
            executable('soro_analysis', 'recorder'),
            '--ros-args',
            '-p',
            f'output:={bag}',
            '-p',
            f'topics:=[{",".join(topics)}]',
            '-p',
            'discovery_period_s:=0.1',
        ],
        log_dir,
    )
    try:
        recorder.wait_for_output('recording into')
    except ScenarioError:
        recorder.stop()
        raise
    return recorder


def wait_recording(recorder: Process, topics: list[str], timeout_s: float = 20.0) -> None:
    """Block until ``recorder`` (from ``start_recorder``) has subscribed to each of ``topics``:
    their publishers must exist by then, and nothing they publish afterwards is missed."""
    for topic in topics:
        recorder.wait_for_output(f'recording {topic} (', timeout_s)


def start_recorded(
    launch_file: str,
    log_dir: Path,
    bag: Path,
    topics: list[str],
    arguments: dict[str, str] | None = None,
    extra_params=(),
) -> list[Process]:
    """The recorder writing ``topics`` into ``bag``, then the nodes of ``launch_file`` (see
    ``start``), returned once the recorder has subscribed to every topic, so nothing they publish
    is missed; recorder first. On a failure everything started is stopped again."""
    processes = [start_recorder(bag, topics, log_dir)]
    try:
        processes += start(launch_file, log_dir, arguments, extra_params)
        wait_recording(processes[0], topics)
    except ScenarioError:
        stop_all(processes)
        raise
    return processes


def stop_all(processes: list[Process], at_once: bool = False) -> dict[str, int]:
    """Stop ``processes`` in reverse start order, or ``at_once``: SIGINT to every one together, as
    ``ros2 launch`` and a terminal's Ctrl-C send it, then wait for each (a second Ctrl-C kills
    those still running). Their exit codes by name."""
    if at_once:
        for process in processes:
            process.interrupt()
    codes = {}
    try:
        for process in reversed(processes):
            codes[process.name] = process.stop()
    # a second Ctrl-C cuts the wait short, but leaves no node orphaned
    except KeyboardInterrupt:
        codes.update({p.name: p.kill() for p in processes if p.name not in codes})
    return codes


def run_for(seconds: float, processes: list[Process], until_exit: Process | None = None) -> None:
    """Let ``processes`` run for ``seconds`` (checking they stay up), or until ``until_exit``
    finishes by itself, then stop the others in reverse start order. Raises ScenarioError if a
    process failed or ``seconds`` ran out before ``until_exit`` finished."""
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (
            until_exit and until_exit.popen.poll() is not None
        ):
            for process in processes:
                if process is not until_exit:
                    process.check_running()
            time.sleep(0.1)
        if until_exit and until_exit.popen.poll() is None:
            raise ScenarioError(
                f'{until_exit.name} did not finish within {seconds:g} s; see {until_exit.log}'
            )
    finally:
        codes = stop_all(processes)
    failed = {name: code for name, code in codes.items() if code != 0}
    if failed:
        raise ScenarioError(
            f'processes did not stop cleanly: {failed}; logs in {processes[0].log.parent}'
        )


def process_name(node: description.ResolvedNode) -> str:
    """The node's name, under its namespace if it has one (robot1/terresoro_sim): two robots'
    processes, their logs and exit codes stay apart."""
    return f'{node.namespace}/{node.name}' if node.namespace else node.name


def full_name(node: description.ResolvedNode) -> str:
    """The node's fully qualified name, the key its overrides are written under (launch_ros writes
    them so)."""
    return f'/{node.namespace}/{node.name}' if node.namespace else f'/{node.name}'


def command(
    node: description.ResolvedNode, overrides_file: Path | None, extra_params=()
) -> list[str]:
    """The command line of a resolved node: its console script with --ros-args as launch_ros builds
    them."""
    args = [
        executable(node.package, node.executable),
        *node.arguments,
        '--ros-args',
        '-r',
        f'__node:={node.name}',
    ]
    if node.namespace:
        args += ['-r', f'__ns:=/{node.namespace}']
    for params in [*node.params, *([overrides_file] if overrides_file else []), *extra_params]:
        args += ['--params-file', str(params)]
    for source, target in node.remappings:
        args += ['-r', f'{source}:={target}']
    return args


def start(
    launch_file: str,
    log_dir: Path,
    arguments: dict[str, str] | None = None,
    extra_params=(),
    own_session: bool = False,
) -> list[Process]:
    """Start the nodes that ``ros2 launch softbots_bringup <launch_file> <arguments>`` starts, in
    its order, each waiting for its ready line; ``extra_params`` files are laid over the launch
    file's own (e.g. a demo's shorter τ). Nodes of packages outside the workspace (rviz2,
    robot_state_publisher) are left out; ``own_session``: see Process."""
    robot = description.load(installed(f'launch/{launch_file}'))
    processes = []
    try:
        for node in description.resolve(robot, arguments, share_dir()):
            if node.package in description.SYSTEM_EXECUTABLES:
                continue
            overrides = None
            if node.overrides:
                overrides = write_params(
                    log_dir / f'{process_name(node).replace("/", ".")}.overrides.yaml',
                    {full_name(node): node.overrides},
                )
            processes.append(
                Process(
                    process_name(node),
                    command(node, overrides, extra_params),
                    log_dir,
                    own_session,
                )
            )
            if node.ready:
                processes[-1].wait_for_output(node.ready)
    # Ctrl-C or SIGTERM: nodes in their own session missed it
    except (ScenarioError, KeyboardInterrupt, Terminated):
        for process in reversed(processes):
            process.stop()
        raise
    return processes
