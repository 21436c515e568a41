"""The voxel-quadruped analysis (soro-analyze --robot pom) on a bag written here: the tripod's
strokes logged at 50 Hz, a camera that sees the POM markers turned, shifted and noised; the markers
must agree component by component, and a bag without the stroke log is one line."""

import numpy as np
import pytest
from geometry_msgs.msg import Pose, PoseArray
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState

from pom_voxel import gaits, structure
from pom_voxel.bag_analysis import CAMERA, JOINTS, PREDICTED
from pom_voxel.planes_of_motion import PlanesOfMotion
from soro_analysis.analyses import analyze
from soro_analysis.bag import workspace_typestore
from soro_analysis.bag_writer import BagWriter
from soro_analysis.recording import MissingTopics

T0 = 1_700_000_000.0
NAMES = ['blue', 'yellow', 'red', 'green']
MARKERS = ['marker_yr', 'marker_gr', 'marker_yb', 'marker_gb']


def stamped(msg, t):
    msg.header.stamp.sec, msg.header.stamp.nanosec = int(t), int(round((t - int(t)) * 1e9))
    return msg


@pytest.fixture
def gait_bag(tmp_path):
    pom = PlanesOfMotion(structure.load(structure.resolve('')))
    keys, _ = gaits.key_strokes(pom, gaits.TRIPOD)
    # 50 Hz over a 4 s cycle
    _, strokes = gaits.interpolate(keys[1:], 0.5, 8 * 25, 'cosine')
    strokes = np.vstack([strokes] * 3)
    rest = (
        np.array([pom.structure.effectors[m] for m in MARKERS], dtype=float)[:, :2]
        * pom.structure.pitch_m
        / 2
    )
    rng = np.random.default_rng(2)
    bag = tmp_path / 'bag'
    with BagWriter(bag, workspace_typestore()) as writer:
        for topic, kind in (
            (JOINTS, 'sensor_msgs/msg/JointState'),
            (CAMERA, 'geometry_msgs/msg/PoseArray'),
            (PREDICTED, 'geometry_msgs/msg/PoseArray'),
        ):
            writer.add_topic(topic, kind)
        for k, q in enumerate(strokes):
            t = T0 + k * 0.02
            # velocity and effort filled: rclpy's serialize_message pads empty float64 sequences in
            # a way that rosbags refuses (the DDS wire form that recorders store is read fine)
            joint = stamped(
                JointState(
                    name=NAMES, position=(q / 1000).tolist(), velocity=[0.0] * 4, effort=[0.0] * 4
                ),
                t,
            )
            writer.write_cdr(JOINTS, int(t * 1e9), serialize_message(joint))
            writer.write_cdr(PREDICTED, int(t * 1e9), serialize_message(stamped(PoseArray(), t)))
            if k % 2:  # a 25 Hz camera
                xy = rest + np.array([pom.effectors(q)[m][:2] for m in MARKERS]) / 1000
                turn = 0.1 * k / len(strokes)
                lab = (
                    xy @ np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
                    + 0.001 * k / 100
                )
                lab += rng.normal(0, 1e-4, lab.shape)
                poses = []
                for x, y in lab:
                    pose = Pose()
                    pose.position.x, pose.position.y = float(x), float(y)
                    poses.append(pose)
                writer.write_cdr(
                    CAMERA, int(t * 1e9), serialize_message(stamped(PoseArray(poses=poses), t))
                )
    return bag


def test_logged_strokes_and_camera_markers_agree_with_pom(gait_bag, tmp_path):
    report, warnings = analyze(gait_bag, tmp_path, 'auto')
    assert warnings == [] and report.numbers['actuators'] == NAMES
    assert report.numbers['stroke_range_mm']['blue'] == pytest.approx([-5.0, 5.0])
    camera = report.numbers['camera']
    assert camera['compared'] == camera['frames'] == 300 and camera['dropped_frames'] == 0
    for name in MARKERS:
        assert (
            camera['correlation'][name]['x'] > 0.98 and camera['correlation'][name]['y'] > 0.98
        ), camera
    for png in ('fig6_strokes.png', 'fig7_markers.png', 'marker_agreement.png'):
        assert (tmp_path / png).read_bytes()[:4] == b'\x89PNG'


def test_a_bag_without_the_stroke_log_is_one_line(tmp_path):
    bag = tmp_path / 'bag'
    with BagWriter(bag, workspace_typestore()) as writer:
        writer.add_topic(PREDICTED, 'geometry_msgs/msg/PoseArray')
        writer.write_cdr(PREDICTED, int(T0 * 1e9), serialize_message(stamped(PoseArray(), T0)))
    with pytest.raises(MissingTopics, match=r'no /joint_states in this bag'):
        analyze(bag, tmp_path / 'out', 'pom')
