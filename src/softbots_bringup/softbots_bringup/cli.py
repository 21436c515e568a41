"""``softbots-launch``: a launch file's nodes on a machine without the ros2 CLI (the wheels
machines, CI)."""

from __future__ import annotations

import signal
import sys
import tempfile
import time
from pathlib import Path

from softbots_bringup import description, runner
from softbots_bringup.share import NotInstalled
from soro_node.arguments import CommandParser, Terminated, output_dir, refuse


def main(argv: list[str] | None = None) -> int:
    """``softbots-launch ROBOT.launch.py [name:=value ...]``: start what ``ros2 launch
    softbots_bringup`` starts, on a machine without the ros2 CLI, until Ctrl-C; logs in --logs
    (default: a temporary folder)."""
    parser = CommandParser(
        prog='softbots-launch', description=main.__doc__.split(':', 1)[1].strip()
    )
    parser.add_argument(
        'launch_file', help="e.g. terresoro.launch.py (installed in softbots_bringup's share)"
    )
    parser.add_argument('arguments', nargs='*', metavar='name:=value')
    parser.add_argument('--logs', type=output_dir, help="folder for each node's log")
    args = parser.parse_args(argv)
    if any(':=' not in a for a in args.arguments):
        parser.error('launch arguments are name:=value')
    logs = args.logs or Path(tempfile.mkdtemp(prefix='softbots-launch-'))
    try:
        # the nodes out of the terminal's process group: Ctrl-C reaches only us, and each node gets
        # one SIGINT, all at once, as ros2 launch sends it
        processes = runner.start(
            args.launch_file,
            logs,
            dict(a.split(':=', 1) for a in args.arguments),
            own_session=True,
        )
    except (runner.ScenarioError, NotInstalled, description.LaunchArgumentError) as error:
        return refuse('softbots-launch', error)
    except KeyboardInterrupt:  # while starting: what had started is stopped
        return 130
    except Terminated:
        return 128 + signal.SIGTERM
    # the nodes are in their own sessions: stop them on these too
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.default_int_handler)
    print(
        f'softbots-launch: {", ".join(p.name for p in processes)} running; logs in {logs}; '
        'Ctrl-C stops them',
        flush=True,  # the line that says the launch is up, also into a file or a pipe
    )
    exited = {}
    try:
        while len(exited) < len(processes):
            _report_exits(processes, exited)
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    codes = runner.stop_all(processes, at_once=True)
    return 0 if not any({**codes, **exited}.values()) else 1


def _report_exits(processes, exited: dict[str, int]) -> None:
    """Name each node that has exited since the last look (into ``exited``, by name): the others
    keep running, as under ``ros2 launch``, so a bridge whose simulator died retries its port."""
    for process in processes:
        code = process.popen.poll()
        if code is None or process.name in exited:
            continue
        exited[process.name] = code
        rest = 'the others keep running' if len(exited) < len(processes) else 'none is left'
        print(
            f'softbots-launch: {process.name} exited with code {code} (log: {process.log}); '
            f'{rest}',
            flush=True,
        )


if __name__ == '__main__':
    sys.exit(main())
