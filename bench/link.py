"""soro_link benchmark: codec throughput and command-to-ack round trip through a pseudo-terminal.
JSON on stdout.

codec_frames_per_s  encode + decode of frames with 32-byte bodies, one core
rtt_p50_ms/p99_ms   command -> ack through a pseudo-terminal and the simulated device (software
                    cost only: a pseudo-terminal has no baud rate)
est_rtt_115200_ms   rtt_p99_ms plus the wire time of the command and the ack at 115200 baud
                    (10 bits a byte)
"""

import json
import os
import statistics
import time

from soro_link.device import GenericOutputs, SimulatedDevice
from soro_link.framing import Frame, decode_frame, encode_frame
from soro_link.protocol import link_protocol
from soro_link.supervisor import LinkConfig, LinkState, LinkSupervisor
from soro_node.waiting import time_until

TARGETS = {'codec_frames_per_s': 50_000, 'rtt_p99_ms': 2.0, 'est_rtt_115200_ms': 8.8}
BAUD = 115200


def codec_frames_per_s(n: int = 100_000) -> float:
    body = os.urandom(32)
    start = time.perf_counter()
    for i in range(n):
        decode_frame(encode_frame(Frame(0x20, i & 0xFFFF, body))[:-1])
    return n / (time.perf_counter() - start)


def round_trips_s(
    port: str, protocol, command: str, fields, n: int, warm_up: int = 200
) -> list[float]:
    """Command-to-ack round trips (s) through the bridges' link supervisor on ``port``:
    ``fields(i)`` is the i-th command's body; ``warm_up`` commands first, not counted.
    bench/firmware.py uses it too."""
    link = LinkSupervisor(LinkConfig(port), protocol)
    link.start()
    try:
        time_until(lambda: link.state == LinkState.CONNECTED, 5.0)
        for i in range(warm_up):
            link.send(command, wait_ack=True, **fields(i))
        return [link.send(command, wait_ack=True, **fields(i)) for i in range(n)]
    finally:
        link.stop()


def generic_round_trips_s(n: int = 3000) -> list[float]:
    with SimulatedDevice(GenericOutputs(), tick_s=0.001) as device:
        return round_trips_s(
            device.port,
            link_protocol(*GenericOutputs.schemas),
            'set_outputs',
            lambda i: {'duty_pct': (i % 100, 2, 3, 4)},
            n,
        )


def wire_time_ms() -> float:
    protocol = link_protocol(*GenericOutputs.schemas)
    command = protocol.encode('set_outputs', 1, duty_pct=(50, 50, 50, 50))
    ack = protocol.encode('ack', 1, ack_seq=1)
    return (len(command) + len(ack)) * 10 / BAUD * 1e3


def main() -> None:
    rtts = sorted(generic_round_trips_s())
    p99 = rtts[int(0.99 * len(rtts))] * 1e3
    result = {
        'codec_frames_per_s': round(codec_frames_per_s()),
        'rtt_p50_ms': round(statistics.median(rtts) * 1e3, 4),
        'rtt_p99_ms': round(p99, 4),
        'est_rtt_115200_ms': round(p99 + wire_time_ms(), 4),
        'round_trips': len(rtts),
    }
    result['targets'] = TARGETS
    result['met'] = {
        'codec_frames_per_s': result['codec_frames_per_s'] >= TARGETS['codec_frames_per_s'],
        'rtt_p99_ms': result['rtt_p99_ms'] < TARGETS['rtt_p99_ms'],
        'est_rtt_115200_ms': result['est_rtt_115200_ms'] < TARGETS['est_rtt_115200_ms'],
    }
    print(json.dumps(result))


if __name__ == '__main__':
    main()
