"""What rviz2 shows of the planner's world: the scene's obstacles as a MarkerArray. Messages only,
no rclpy."""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import Point
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker, MarkerArray

from salamander_nav.scene import Scene


def obstacle_markers(scene: Scene, header: Header) -> MarkerArray:
    """Circles as flat cylinders and polygons as closed outlines, grey, with a DELETEALL first."""
    grey = ColorRGBA(r=0.45, g=0.45, b=0.5, a=0.9)
    markers = [Marker(header=header, ns='obstacles', action=Marker.DELETEALL)]
    for i, (x, y, r) in enumerate(scene.circles):
        m = Marker(
            header=header,
            ns='obstacles',
            id=i,
            type=Marker.CYLINDER,
            action=Marker.ADD,
            color=grey,
        )
        m.pose.position.x, m.pose.position.y, m.pose.position.z, m.pose.orientation.w = (
            x,
            y,
            0.05,
            1.0,
        )
        m.scale.x = m.scale.y = 2 * r
        m.scale.z = 0.1
        markers.append(m)
    for j, polygon in enumerate(scene.polygons):
        m = Marker(
            header=header,
            ns='obstacles',
            id=len(scene.circles) + j,
            type=Marker.LINE_STRIP,
            action=Marker.ADD,
            color=grey,
        )
        m.scale.x, m.pose.orientation.w = 0.02, 1.0
        m.points = [
            Point(x=float(x), y=float(y), z=0.05) for x, y in np.vstack([polygon, polygon[:1]])
        ]
        markers.append(m)
    return MarkerArray(markers=markers)
