"""A tracked pose placed in tf, so that rviz draws the robot model where motion capture sees it.

tf2_ros is on every ROS machine but not among the pinned wheels (the dev-env notes); without it ``PoseToTf`` does
nothing, and says so once, rather than stopping a node that has more to do than drawing.
"""
from __future__ import annotations

from dataclasses import dataclass

from geometry_msgs.msg import PoseStamped, TransformStamped

try:
    from tf2_ros import TransformBroadcaster
except ImportError:                      # the pinned wheels
    TransformBroadcaster = None

Pair = tuple[str, str]                   # (parent frame, child frame)


@dataclass(frozen=True)
class FrameUse:
    """What one node puts in tf terms: the header.frame_id of what it publishes, and the transforms it broadcasts
    (each package's ``parameters.FRAMES`` gives it per executable; softbots_bringup.frame_tree checks the trees)."""
    stamps: frozenset[str] = frozenset()
    broadcasts: tuple[Pair, ...] = ()


class PoseToTf:
    """Broadcasts each PoseStamped given to ``send`` as the transform ``frame_id`` (default: the message's) →
    ``child_frame`` (default: the one given here), translation and rotation as tracked."""

    def __init__(self, node, child_frame: str):
        self.child_frame = child_frame
        self._tf = TransformBroadcaster(node) if TransformBroadcaster else None
        if self._tf is None:
            node.get_logger().info('tf2_ros is not installed: no transform for rviz from the tracked pose')

    def send(self, msg: PoseStamped, frame_id: str | None = None, child_frame: str | None = None) -> None:
        if self._tf is None:
            return
        transform = TransformStamped(header=msg.header, child_frame_id=child_frame or self.child_frame)
        if frame_id:
            transform.header.frame_id = frame_id
        p = msg.pose.position
        transform.transform.translation.x, transform.transform.translation.y = p.x, p.y
        transform.transform.translation.z = p.z
        transform.transform.rotation = msg.pose.orientation
        self._tf.sendTransform(transform)
