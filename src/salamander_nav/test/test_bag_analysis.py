"""The salamander analysis (soro-analyze --robot salamander) on a bag written here: a planned
quarter circle, a robot tracked 20 mm to the left of it with noise, the planner's markers and
costmap; the tracking error and the scene must come back as written, and a bag without a plan is
one line."""

import math
import re

import numpy as np
import pytest
from geometry_msgs.msg import Point
from nav_msgs.msg import OccupancyGrid, Path
from rclpy.serialization import serialize_message
from std_msgs.msg import Header
from visualization_msgs.msg import Marker, MarkerArray

from salamander_nav.bag_analysis import COSTMAP, LOS, MARKERS, PLAN, POSE, path_distance
from soro_analysis.analyses import analyze
from soro_analysis.bag import workspace_typestore
from soro_analysis.bag_writer import BagWriter
from soro_analysis.recording import MissingTopics
from soro_geometry.pose_msgs import stamped

T0 = 1_700_000_000.0
RADIUS, OFFSET = 1.0, 0.02


def header(t):
    h = Header(frame_id='map')
    h.stamp.sec, h.stamp.nanosec = int(t), int(round((t - int(t)) * 1e9))
    return h


def quarter(radius, n):
    a = np.linspace(-math.pi / 2, 0, n)
    return np.column_stack([radius * np.cos(a), 1 + radius * np.sin(a)]), a + math.pi / 2


def write(bag, with_plan=True):
    rng = np.random.default_rng(3)
    with BagWriter(bag, workspace_typestore()) as writer:
        kinds = {
            POSE: 'geometry_msgs/msg/PoseStamped',
            PLAN: 'nav_msgs/msg/Path',
            LOS: 'visualization_msgs/msg/MarkerArray',
            MARKERS: 'visualization_msgs/msg/MarkerArray',
            COSTMAP: 'nav_msgs/msg/OccupancyGrid',
        }
        for topic, kind in kinds.items():
            writer.add_topic(topic, kind)
        grid = OccupancyGrid(header=header(T0), data=[0] * (150 * 220))
        grid.info.resolution, grid.info.width, grid.info.height = 0.01, 150, 220
        grid.info.origin.position.x, grid.info.origin.position.y = -0.2, -0.1
        writer.write_cdr(COSTMAP, int(T0 * 1e9), serialize_message(grid))
        circle = Marker(type=Marker.CYLINDER, id=0)
        circle.pose.position.x, circle.pose.position.y, circle.scale.x = 0.2, 1.6, 0.2
        corners = ((1.0, 0.0), (1.2, 0.0), (1.2, 0.2), (1.0, 0.2), (1.0, 0.0))
        square = Marker(type=Marker.LINE_STRIP, id=1, points=[Point(x=x, y=y) for x, y in corners])
        writer.write_cdr(
            MARKERS, int(T0 * 1e9), serialize_message(MarkerArray(markers=[circle, square]))
        )
        plan, headings = quarter(RADIUS, 60)
        if with_plan:
            path = Path(
                header=header(T0),
                poses=[stamped((x, y, h), header(T0)) for (x, y), h in zip(plan, headings)],
            )
            writer.write_cdr(PLAN, int(T0 * 1e9) + 1, serialize_message(path))
        # 20 mm inside: left of the path
        robot, robot_headings = quarter(RADIUS - OFFSET, 400)
        for k, ((x, y), h) in enumerate(zip(robot, robot_headings)):
            t = T0 + 1.0 + 0.05 * k
            noisy = (x + rng.normal(0, 1e-4), y + rng.normal(0, 1e-4), h)
            writer.write_cdr(POSE, int(t * 1e9), serialize_message(stamped(noisy, header(t))))
            if k % 10 == 0:
                projection = Marker(id=0, points=[Point(x=x, y=y)])
                writer.write_cdr(
                    LOS, int(t * 1e9), serialize_message(MarkerArray(markers=[projection]))
                )


def test_tracking_error_plan_and_scene_come_back(tmp_path):
    write(tmp_path / 'bag')
    report, warnings = analyze(tmp_path / 'bag', tmp_path / 'out', 'salamander')
    assert warnings == []
    n = report.numbers
    assert n['tracking_error_mean_m'] == pytest.approx(OFFSET, abs=1e-3)
    assert n['tracking_error_max_m'] < OFFSET + 1e-3
    assert n['plan_length_m'] == pytest.approx(math.pi / 2 * RADIUS, rel=1e-3)
    assert n['plan_max_curvature'] == pytest.approx(1 / RADIUS, rel=1e-3)
    assert n['final_distance_to_goal_m'] == pytest.approx(OFFSET, abs=1e-3)
    for name in (
        'fig3_30_plan.png',
        'fig3_27_curvature.png',
        'fig3_31_tracking.png',
        'tracking_error.png',
    ):
        assert (tmp_path / 'out' / name).stat().st_size > 10_000
    assert re.search(
        r'tracking error \(distance to the plan\): mean (19|20)\.\d mm',
        (tmp_path / 'out' / 'summary.md').read_text(),
    )
    assert len(report.figures['fig3_31_tracking.png']['projections']) == 40


def test_a_bag_without_a_plan_is_refused_in_one_line(tmp_path):
    write(tmp_path / 'bag', with_plan=False)
    with pytest.raises(MissingTopics, match='/plan'):
        analyze(tmp_path / 'bag', tmp_path / 'out', 'salamander')


def test_path_distance_is_to_the_nearest_segment():
    path = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    points = np.array([[0.5, 0.3], [1.4, 0.5], [-0.3, -0.4], [2.0, 2.0]])
    assert path_distance(points, path) == pytest.approx([0.3, 0.4, 0.5, math.sqrt(2)])
