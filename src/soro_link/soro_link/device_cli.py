"""``sim_device``: run a simulated device behind a pseudo-terminal until SIGINT (for ``sim:=true`` launches)."""
from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from soro_link.device import GenericOutputs, SimulatedDevice

MODELS = {'generic_outputs': GenericOutputs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--model', choices=sorted(MODELS), default='generic_outputs')
    parser.add_argument('--port', required=True, help='symlink to create for the pseudo-terminal')
    parser.add_argument('--watchdog-ms', type=int, default=500)
    parser.add_argument('--boot-delay-s', type=float, default=2.0, help='an Arduino boots for ~2 s after a reset')
    argv = sys.argv[1:] if argv is None else argv
    if '--ros-args' in argv:    # started by launch_ros, which appends its own node name: not ours to read
        argv = argv[:argv.index('--ros-args')]
    args = parser.parse_args(argv)
    if args.watchdog_ms <= 0 or args.boot_delay_s < 0:
        parser.error('--watchdog-ms must be > 0 and --boot-delay-s >= 0')
    Path(args.port).parent.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with SimulatedDevice(MODELS[args.model](), args.port, args.watchdog_ms, boot_delay_s=args.boot_delay_s):
        print(f'sim_device: {args.model} on {args.port}', flush=True)
        stop.wait()
    return 0


if __name__ == '__main__':
    sys.exit(main())
