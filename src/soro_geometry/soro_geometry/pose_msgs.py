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


# a quaternion within this of unit length is a rotation (what a float32 round trip leaves)
UNIT_TOLERANCE = 1e-3
# a goal tilted further than this out of the floor is not a planar one
MAX_TILT_DEG = 5.0


def frame_problem(frame_id: str, frame: str) -> str | None:
    """Why a message stamped ``frame_id`` is not in ``frame``, or None: no transform is made, and
    an empty frame_id is taken as ``frame``."""
    if frame_id in ('', frame):
        return None
    return f"frame_id '{frame_id}' is not '{frame}' (no transform is made)"


def planar_problem(pose: PoseStamped, frame: str) -> str | None:
    """Why ``pose`` is not a pose on the floor of ``frame``, or None: another frame
    (``frame_problem``), an orientation that is not a rotation, or one that tilts the pose out of
    the plane (a yaw read off it would be arbitrary)."""
    problem = frame_problem(pose.header.frame_id, frame)
    if problem:
        return problem
    q = pose.pose.orientation
    norm = float(np.sqrt(q.w**2 + q.x**2 + q.y**2 + q.z**2))
    if not abs(norm - 1.0) <= UNIT_TOLERANCE:
        return f'orientation (x, y, z, w) = ({q.x:g}, {q.y:g}, {q.z:g}, {q.w:g}) is not a rotation'
    tilt = np.degrees(np.arccos(np.clip(1.0 - 2.0 * (q.x**2 + q.y**2) / norm**2, -1.0, 1.0)))
    if tilt > MAX_TILT_DEG:
        return f'orientation tilts {tilt:.0f}° out of the floor, not a heading'
    return None
