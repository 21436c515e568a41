"""Conversions between the core's paper-unit values and ROS messages (SI, REP-103). No rclpy:
messages only.

Planar poses travel as geometry_msgs poses in the world frame with z = 0 and a yaw-only quaternion.
"""

from __future__ import annotations

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose, PoseStamped, PoseWithCovarianceStamped
from soro_interfaces.msg import ExecutedEdge, Gait
from std_msgs.msg import Header

from soro_geometry import pose_msgs
from terresoro_gait.execution import Primitive
from terresoro_gait.kinematics import predicted_speeds
from terresoro_gait.units import covariance_to_si, pose_to_paper, pose_to_si

PLANAR_AXES = (0, 1, 5)  # x, y and yaw in the 6 x 6 covariance of geometry_msgs


def pose_msg(pose_paper) -> Pose:
    """A geometry_msgs/Pose of a paper-units pose (x mm, y mm, φ deg)."""
    return pose_msgs.pose_msg(pose_to_si(pose_paper))


def paper_pose(pose: Pose) -> np.ndarray:
    """(x mm, y mm, φ deg) of a geometry_msgs/Pose, yaw taken from its quaternion (roll and pitch
    ignored)."""
    return pose_to_paper(*pose_msgs.planar_pose(pose))


def stamped(pose_paper, header: Header) -> PoseStamped:
    """A PoseStamped (SI) of a paper-units pose (x mm, y mm, φ deg) with ``header``."""
    return pose_msgs.stamped(pose_to_si(pose_paper), header)


def with_covariance(pose_paper, cov_paper, header: Header) -> PoseWithCovarianceStamped:
    """Pose and its (3, 3) planar covariance (mm², mm·deg, deg²) as a PoseWithCovarianceStamped in
    SI; the out-of-plane axes get zero variance (the robot stays on the floor)."""
    msg = PoseWithCovarianceStamped(header=header)
    msg.pose.pose = pose_msg(pose_paper)
    full = np.zeros((6, 6))
    full[np.ix_(PLANAR_AXES, PLANAR_AXES)] = covariance_to_si(cov_paper)
    msg.pose.covariance = full.ravel().tolist()
    return msg


def executed_edge(
    primitive: Primitive, index: int, start: Time, end: Time, frame_id: str
) -> ExecutedEdge:
    """The ``index``-th primitive (0-based) of a goal as run from ``start`` to ``end``."""
    return ExecutedEdge(
        header=Header(stamp=end, frame_id=frame_id),
        initial_vertex=primitive.initial,
        terminal_vertex=primitive.terminal,
        start=start,
        end=end,
        transition=primitive.transition,
        cycle=primitive.cycle,
        index=index,
    )


def gait_msg(vertices, cost_si: float, motion_paper, tau_s: float) -> Gait:
    """A Gait from its cycle, SI cost and net motion of one cycle (p mm (2,), Θ deg) at primitive
    time τ."""
    x, y, yaw = pose_to_si((motion_paper[0][0], motion_paper[0][1], motion_paper[1]))
    speed, yaw_rate = predicted_speeds((x, y), yaw, len(vertices), tau_s)
    return Gait(
        vertices=[int(v) for v in vertices],
        cost=float(cost_si),
        x_m=x,
        y_m=y,
        yaw_rad=yaw,
        period_s=len(vertices) * tau_s,
        speed_m_s=float(speed),
        yaw_rate_rad_s=float(yaw_rate),
    )


def seconds(stamp: Time) -> float:
    """A builtin_interfaces/Time in seconds, as a float."""
    return stamp.sec + stamp.nanosec * 1e-9
