"""Planar poses (x m, y m, yaw rad) to and from geometry_msgs (REP-103: z up, yaw about z).
Messages only, no rclpy."""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import Point, Pose, PoseStamped, Quaternion
from std_msgs.msg import Header

from soro_geometry import quaternion


def pose_msg(planar) -> Pose:
    """A geometry_msgs/Pose on the floor (z = 0) with a yaw-only orientation, from (x m, y m, yaw
    rad)."""
    x, y, yaw = (float(v) for v in planar)
    w, _, _, z = quaternion.from_yaw(yaw)
    return Pose(position=Point(x=x, y=y, z=0.0), orientation=Quaternion(z=float(z), w=float(w)))


def stamped(planar, header: Header) -> PoseStamped:
    """A geometry_msgs/PoseStamped of (x m, y m, yaw rad) on the floor, with ``header``."""
    return PoseStamped(header=header, pose=pose_msg(planar))


def yaw_of(orientation: Quaternion) -> float:
    """Heading (rad) of a geometry_msgs/Quaternion; roll and pitch are ignored."""
    return float(
        quaternion.yaw(np.array([orientation.w, orientation.x, orientation.y, orientation.z]))
    )


def planar_pose(pose: Pose) -> np.ndarray:
    """(x m, y m, yaw rad) (3,) of a geometry_msgs/Pose, yaw in (-π, π]."""
    return np.array([pose.position.x, pose.position.y, yaw_of(pose.orientation)])
