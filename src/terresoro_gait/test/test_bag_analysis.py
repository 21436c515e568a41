"""The TerreSoRo analysis of a recorded gait run (soro-analyze --robot terresoro), on a bag written
here with a known motion: per-cycle speeds and their spread, BL/s, the prediction from a weights
file, an aborted last cycle left out, a tracker that stops refused in one line."""

import json
import math

import numpy as np
import pytest
from geometry_msgs.msg import PoseStamped
from rclpy.serialization import serialize_message
from soro_interfaces.msg import ExecutedEdge

from soro_analysis.analyses import AnalysisError, analyze
from soro_analysis.bag import workspace_typestore
from soro_analysis.bag_writer import BagWriter
from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.kinematics import cycle_motion, predicted_speeds
from terresoro_gait.weights import EdgeWeights, write_csv

# a 3-limb gait of 4 states, 6 cycles asked
T0, TAU, GAIT, CYCLES = 1_700_000_000.0, 0.2, (1, 5, 7, 3), 6
# the cycles run forward by these, in their own frame; then 3° each
STEP_MM = (4.0, 5.0, 6.0, 7.0, 8.0)
TURN_DEG = 3.0


def stamp(msg_time, t):
    msg_time.sec, msg_time.nanosec = int(t), int(round((t - int(t)) * 1e9))


def edge(i, j, k, start, cycle, transition=False):
    msg = ExecutedEdge(
        initial_vertex=i, terminal_vertex=j, transition=transition, cycle=cycle, index=k
    )
    stamp(msg.start, start)
    stamp(msg.end, start + TAU)
    stamp(msg.header.stamp, start + TAU)
    return msg


def pose(t, x, y, yaw):
    msg = PoseStamped()
    stamp(msg.header.stamp, t)
    msg.pose.position.x, msg.pose.position.y = x, y
    msg.pose.orientation.z, msg.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    return msg


@pytest.fixture
def gait_bag(tmp_path):
    return write_gait_bag(tmp_path / 'bag')


def write_gait_bag(bag, tracked_s=math.inf):
    """Five complete cycles of GAIT, then one aborted after two primitives; the tracker (30 Hz, for
    ``tracked_s``) sees each cycle's motion settled before its end."""
    edges, t = [], T0
    for c in range(1, 6):
        for a, b in zip(GAIT, GAIT[1:] + GAIT[:1]):
            edges.append(edge(a, b, len(edges), t, c))
            t += TAU
    for a, b in zip(GAIT[:2], GAIT[1:3]):
        edges.append(edge(a, b, len(edges), t, 6))
        t += TAU
    edges.append(edge(GAIT[2], 1, len(edges), t, 0, transition=True))  # the stop
    # the pose after each cycle: it settles half-way through
    after = [np.zeros(3)]
    for step_mm in STEP_MM:
        x, y, yaw = after[-1]
        after.append(
            after[-1]
            + [
                step_mm * 1e-3 * math.cos(yaw),
                step_mm * 1e-3 * math.sin(yaw),
                math.radians(TURN_DEG),
            ]
        )
    cycle_s = len(GAIT) * TAU
    frames = [
        pose(T0 + k / 30, *after[min(5, int(k / 30 / cycle_s + 0.5))])
        for k in range(int(min(t + 1 - T0, tracked_s) * 30))
    ]
    with BagWriter(bag, workspace_typestore()) as writer:
        writer.add_topic('/terresoro_executor/executed_edge', 'soro_interfaces/msg/ExecutedEdge')
        writer.add_topic('/tracked_pose', 'geometry_msgs/msg/PoseStamped')
        for msg in edges:
            writer.write_cdr(
                '/terresoro_executor/executed_edge',
                int((msg.end.sec + msg.end.nanosec * 1e-9) * 1e9),
                serialize_message(msg),
            )
        for msg in frames:
            writer.write_cdr(
                '/tracked_pose',
                int((msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9) * 1e9),
                serialize_message(msg),
            )
    return bag


def weights_file(path):
    graph = LimbDigraph(3)
    m = graph.m
    weights = EdgeWeights(
        3,
        np.linspace(1, 3, m),
        np.linspace(-1, 1, m),
        np.linspace(-2, 2, m),
        np.ones(m),
        np.ones(m),
    )
    return write_csv(weights, path), weights


def test_a_gait_run_gives_each_complete_cycles_speed(gait_bag, tmp_path):
    path, weights = weights_file(tmp_path / 'w.csv')
    report, warnings = analyze(
        gait_bag,
        tmp_path / 'out',
        'terresoro',
        [f'weights_file:={path}', 'n_limbs:=3', 'tau_s:=0.55'],
    )
    [gait] = report.numbers['gaits']
    # the aborted 6th left out
    assert warnings == [] and gait['cycle'] == list(GAIT) and gait['cycles'] == 5
    period = len(GAIT) * 0.55
    assert gait['speed_mm_s'] == pytest.approx(np.array(STEP_MM) / period, abs=1e-6)
    assert gait['yaw_rate_deg_s'] == pytest.approx(np.full(5, TURN_DEG / period), abs=1e-6)
    v, sv, w, sw = gait['measured']
    assert v == pytest.approx(6.0 / period, abs=1e-6) and sv == pytest.approx(
        np.std(STEP_MM) / period, abs=1e-6
    )
    assert gait['speed_bl_s'] == pytest.approx(v / 220.0)
    p, theta = cycle_motion(weights, list(GAIT))
    assert gait['predicted'] == pytest.approx(predicted_speeds(p, theta, 4, 0.55))
    figures = json.loads((tmp_path / 'out' / 'figures.json').read_text())['figures']
    assert set(figures) == {'trajectories.png', 'speeds.png'}
    assert '| [1, 5, 7, 3] | 5 |' in (tmp_path / 'out' / 'summary.md').read_text()


def test_tau_as_run_and_a_tracker_that_stops(gait_bag, tmp_path):
    report, _ = analyze(gait_bag, tmp_path / 'as_run', 'terresoro', [])
    # float stamps
    assert report.numbers['gaits'][0]['measured'][0] == pytest.approx(6.0 / (4 * TAU), rel=1e-5)
    # the robot left the camera's view after 2 s
    lost = write_gait_bag(tmp_path / 'lost', tracked_s=2.0)
    with pytest.raises(
        AnalysisError, match=r'lost: no tracked pose in the 300 ms before t = 1700000002\.400 s'
    ):
        analyze(lost, tmp_path / 'lost_out', 'terresoro', [])
