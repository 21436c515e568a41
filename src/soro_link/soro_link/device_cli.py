"""``sim_device``: run a simulated device behind a pseudo-terminal until SIGINT (for ``sim:=true``
launches)."""

from __future__ import annotations

import signal
import sys
import threading
from argparse import ArgumentTypeError
from pathlib import Path

from soro_link.device import GenericOutputs, SimulatedDevice
from soro_node.arguments import CommandParser, add_option, output_dir
from soro_node.params import ParamSpec

MODELS = {'generic_outputs': GenericOutputs}
WATCHDOG_MS = ParamSpec('watchdog_ms', 500, 'firmware watchdog (ms)', 10, 60_000)
BOOT_DELAY_S = ParamSpec(
    'boot_delay_s', 2.0, 'bootloader time after the port opens (s); an Arduino takes ~2', 0.0, 10.0
)


def main(argv: list[str] | None = None) -> int:
    """Run ``sim_device`` with ``argv`` (default: the command line) until SIGINT or SIGTERM; 0."""
    parser = CommandParser(prog='sim_device', description=__doc__)
    parser.add_argument('--model', choices=sorted(MODELS), default='generic_outputs')
    parser.add_argument('--port', required=True, help='symlink to create for the pseudo-terminal')
    add_option(parser, '--watchdog-ms', WATCHDOG_MS)
    add_option(parser, '--boot-delay-s', BOOT_DELAY_S)
    argv = sys.argv[1:] if argv is None else argv
    # started by launch_ros, which appends its own node name: not ours to read
    if '--ros-args' in argv:
        argv = argv[: argv.index('--ros-args')]
    args = parser.parse_args(argv)
    try:  # a stale symlink from an earlier run is replaced: only its folder must be writable
        output_dir(str(Path(args.port).parent))
    except ArgumentTypeError as error:
        parser.error(f'argument --port: {error}')
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with SimulatedDevice(
        MODELS[args.model](), args.port, args.watchdog_ms, boot_delay_s=args.boot_delay_s
    ):
        print(f'sim_device: {args.model} on {args.port}', flush=True)
        stop.wait()
    return 0


if __name__ == '__main__':
    sys.exit(main())
