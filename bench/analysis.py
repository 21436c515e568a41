"""Reading recorded experiments back (soro_analysis) and replaying them (soro-replay).

``read``: a bag of 200,000 small messages (geometry_msgs/PoseStamped, as a tracker records them),
written by our recorder's writer. ``read_msgs_per_s`` is our typed reading (``Recording.open`` and
one ``series`` of x, y and the header stamp); beside it, in the same run, rosbags' own reader of
the same file deserializing every message (``rosbags_msgs_per_s``) and their ratio,
``ratio_vs_rosbags`` (aim: at least 1, our layer costing nothing).

``memory``: soro-analyze as a process on a TerreSoRo gait run whose tracker wrote MEMORY_MESSAGES
poses (geometry_msgs/PoseStamped at 1 kHz, as the recorder's writer writes them): its peak resident
memory against the bag's size (``peak_over_bag``). Target (issue 26): peak at most 1 GB or twice
the bag, whichever is larger (the issue's probe, 2 M messages in a 327 MB bag, peaked at 4.9 GB
before); ``python bench/analysis.py --messages 2000000`` runs the probe itself.

``replay``: soro-replay as a process, a subscriber in this one, a recording of 2,000 messages 1 ms
apart replayed at rising rates; per rate the p95 error of the gaps between arrivals against the
recorded gaps over the rate. ``replay_max_rate_hz``: the highest message rate whose p95 error stays
under 2 ms (the timing test's bound).
"""

import argparse
import json
import math
import re
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import rclpy
from geometry_msgs.msg import PoseStamped
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from rosbags.rosbag2 import Reader
from soro_interfaces.msg import ExecutedEdge

from softbots_bringup.runner import executable
from soro_analysis.bag import workspace_typestore
from soro_analysis.bag_writer import BagWriter
from soro_analysis.recording import Recording

READ_MESSAGES, REPLAY_MESSAGES, T0_NS = 200_000, 2_000, 1_700_000_000_000_000_000
MEMORY_MESSAGES = 400_000
GAIT, TAU_S = (1, 5, 7, 3), 0.2  # a 3-limb gait of 4 states, 5 cycles from T0
REPLAY_RATES = (1, 2, 5, 10, 20, 50)  # x the recorded 1 kHz


def write_poses(path: Path, count: int, gap_ns: int) -> Path:
    store = workspace_typestore()
    with BagWriter(path, store) as bag:
        bag.add_topic('/tracked_pose', 'geometry_msgs/msg/PoseStamped')
        for k in range(count):
            msg = PoseStamped()
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(
                T0_NS + k * gap_ns, 1_000_000_000
            )
            msg.pose.position.x, msg.pose.orientation.w = 1e-3 * k, 1.0
            bag.write_cdr('/tracked_pose', T0_NS + k * gap_ns, serialize_message(msg))
    return path


def write_gait_run(path: Path, count: int) -> Path:
    """Five cycles of a TerreSoRo gait from T0, the robot moving 5 mm per cycle, and ``count``
    tracked poses at 1 kHz from T0 (most of them after the gait, the robot standing still)."""

    def stamp(field, t_ns):
        field.sec, field.nanosec = divmod(t_ns, 1_000_000_000)

    cycle_ns, tau_ns = len(GAIT) * round(TAU_S * 1e9), round(TAU_S * 1e9)
    with BagWriter(path, workspace_typestore()) as bag:
        bag.add_topic('/terresoro_executor/executed_edge', 'soro_interfaces/msg/ExecutedEdge')
        bag.add_topic('/tracked_pose', 'geometry_msgs/msg/PoseStamped')
        for k in range(5 * len(GAIT)):
            edge = ExecutedEdge(
                initial_vertex=GAIT[k % 4],
                terminal_vertex=GAIT[(k + 1) % 4],
                cycle=k // 4 + 1,
                index=k,
            )
            stamp(edge.start, T0_NS + k * tau_ns)
            stamp(edge.end, T0_NS + (k + 1) * tau_ns)
            edge.header.stamp = edge.end
            bag.write_cdr(
                '/terresoro_executor/executed_edge',
                T0_NS + (k + 1) * tau_ns,
                serialize_message(edge),
            )
        msg = PoseStamped()
        msg.header.frame_id, msg.pose.orientation.w = 'world', 1.0
        for k in range(count):
            t_ns = T0_NS + k * 1_000_000
            stamp(msg.header.stamp, t_ns)
            msg.pose.position.x = 5e-3 * min(5, math.floor((t_ns - T0_NS) / cycle_ns + 0.5))
            bag.write_cdr('/tracked_pose', t_ns, serialize_message(msg))
    return path


def analysis_memory(path: Path, out: Path) -> dict:
    """soro-analyze on ``path`` under /usr/bin/time -v: its peak resident memory against the bag's
    size."""
    run = subprocess.run(
        [
            '/usr/bin/time',
            '-v',
            executable('soro_analysis', 'soro-analyze'),
            str(path),
            '--out',
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert run.returncode == 0, run.stderr
    peak = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', run.stderr)[1]) * 1024
    size = sum(f.stat().st_size for f in path.iterdir())
    limit = max(1 << 30, 2 * size)
    return {
        'bag_mb': round(size / 1e6, 1),
        'peak_rss_mb': round(peak / 1e6, 1),
        'peak_over_bag': round(peak / size, 2),
        'limit_mb': round(limit / 1e6, 1),
        'met': peak <= limit,
    }


def read_rates(path: Path) -> dict:
    started = time.perf_counter()
    recording = Recording.open(path)
    series = recording.series(
        '/tracked_pose', x=lambda m: m.pose.position.x, y=lambda m: m.pose.position.y
    )
    ours = time.perf_counter() - started
    assert len(series) == READ_MESSAGES
    store, started = workspace_typestore(), time.perf_counter()
    with Reader(path) as reader:
        plain = [store.deserialize_cdr(data, c.msgtype) for c, _, data in reader.messages()]
    theirs = time.perf_counter() - started
    assert len(plain) == READ_MESSAGES
    return {
        'messages': READ_MESSAGES,
        'read_msgs_per_s': round(READ_MESSAGES / ours),
        'rosbags_msgs_per_s': round(READ_MESSAGES / theirs),
        'ratio_vs_rosbags': round(theirs / ours, 3),
    }


def replay_error_ms(path: Path, rate: float) -> tuple[float, int]:
    """(p95 |arrival gap - recorded gap / rate| in ms, messages received); every message is
    required."""
    node = rclpy.create_node(f'replay_bench_listener_{int(rate)}')
    arrivals = []
    qos = QoSProfile(
        reliability=ReliabilityPolicy.RELIABLE,
        history=HistoryPolicy.KEEP_LAST,
        depth=REPLAY_MESSAGES,
    )
    # the middleware's arrival time (ns since the epoch)
    node.create_subscription(
        PoseStamped,
        '/tracked_pose',
        lambda _m, info: arrivals.append(info['received_timestamp'] * 1e-9),
        qos,
    )
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    subprocess.run(
        [
            executable('soro_analysis', 'soro-replay'),
            str(path),
            '--rate',
            str(rate),
            '--delay',
            '1.5',
        ],
        capture_output=True,
        timeout=60,
        check=True,
    )
    time.sleep(0.5)
    executor.shutdown()
    node.destroy_node()
    if len(arrivals) < 2:
        return float('nan'), len(arrivals)
    return float(np.percentile(np.abs(np.diff(arrivals) - 1e-3 / rate) * 1e3, 95)), len(arrivals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument(
        '--messages', type=int, default=MEMORY_MESSAGES, help='tracked poses in the memory bag'
    )
    parser.add_argument('--memory-only', action='store_true', help='only the memory figure')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        memory = analysis_memory(
            write_gait_run(Path(tmp) / 'memory', args.messages), Path(tmp) / 'report'
        )
        memory['messages'] = args.messages + 5 * len(GAIT)
        if args.memory_only:
            print(json.dumps({'memory': memory}, indent=1))
            return
        read = read_rates(write_poses(Path(tmp) / 'read', READ_MESSAGES, 10_000_000))
        rclpy.init()
        replayed = write_poses(Path(tmp) / 'replay', REPLAY_MESSAGES, 1_000_000)
        runs = {int(1000 * rate): replay_error_ms(replayed, rate) for rate in REPLAY_RATES}
        rclpy.shutdown()
    kept = [hz for hz, (error, count) in runs.items() if error < 2.0 and count == REPLAY_MESSAGES]
    print(
        json.dumps(
            {
                'memory': memory,
                'read': {
                    **read,
                    'target': 'ratio_vs_rosbags >= 1',
                    'met': read['ratio_vs_rosbags'] >= 1,
                },
                'replay': {
                    'messages': REPLAY_MESSAGES,
                    'by_rate_hz': {
                        hz: {'p95_gap_error_ms': round(e, 3), 'received': n}
                        for hz, (e, n) in runs.items()
                    },
                    'replay_max_rate_hz': max(kept) if kept else 0,
                },
            },
            indent=1,
        )
    )


if __name__ == '__main__':
    main()
