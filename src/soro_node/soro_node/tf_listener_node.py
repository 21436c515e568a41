"""Where a frame is now, read from tf (tf2_ros's Buffer and TransformListener): for a node that
needs the robot's pose where no motion capture publishes it (a localisation stack broadcasting
``map -> odom -> base_link``, say).

tf2_ros is on every ROS machine but not among the pinned wheels (soro_node.frames): without it
``available`` is False and every lookup says so, and the node goes on with its other sources.
"""

from __future__ import annotations

import numpy as np
import rclpy.time

from soro_geometry.pose_msgs import yaw_of

try:
    from tf2_ros import Buffer, TransformException, TransformListener
except ImportError:  # the pinned wheels
    Buffer = TransformListener = None
    TransformException = Exception


class PlanarTf:
    """The latest ``target <- source`` transform on /tf and /tf_static, as a planar pose (x m, y
    m, yaw rad) of ``source`` in ``target``, refused when older than ``max_age_s``."""

    def __init__(self, node, max_age_s: float):
        self.node, self.max_age_s = node, max_age_s
        self.buffer = Buffer() if Buffer else None
        self._listener = TransformListener(self.buffer, node) if Buffer else None

    @property
    def available(self) -> bool:
        """Whether tf2_ros is installed (and so transforms are listened to)."""
        return self.buffer is not None

    def pose(self, target: str, source: str) -> tuple[np.ndarray | None, str]:
        """(the pose of ``source`` in ``target``, '') or (None, why there is none)."""
        if self.buffer is None:
            return None, 'tf2_ros is not installed: no transforms to read'
        try:
            latest = self.buffer.lookup_transform(target, source, rclpy.time.Time())
        except TransformException as error:
            return None, f'no transform {target} -> {source} on tf: {error}'
        stamp = rclpy.time.Time.from_msg(latest.header.stamp)
        age = (self.node.get_clock().now() - stamp).nanoseconds * 1e-9
        if age > self.max_age_s and stamp.nanoseconds:  # stamp 0: a static transform
            return None, f'the transform {target} -> {source} is {age:.1f} s old'
        t = latest.transform
        return np.array([t.translation.x, t.translation.y, yaw_of(t.rotation)]), ''
