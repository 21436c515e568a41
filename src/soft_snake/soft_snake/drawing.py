"""What rviz shows of the snake: the bend joints of urdf/soft_snake.urdf.xacro from chamber
pressures, and the chambers coloured by pressure. Messages only, no rclpy.

The joint layout is the simulator's: segment i, share k (1/4, 1/2, 1/4 of the bend), axis yaw then
pitch.
"""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import Point
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker, MarkerArray

from soft_snake import body, pneumatics

CHAMBER_RADIUS_M = 0.009  # where a chamber sits off the axis, for the drawing only


def joint_names(segments: int) -> list[str]:
    """The URDF's bend joints, yaw then pitch for each of a segment's three shares:
    ['y0_0', 'p0_0', 'y0_1', ...], 6 per segment."""
    return [f'{axis}{i}_{k}' for i in range(segments) for k in range(3) for axis in 'yp']


def joint_positions(pressure_pa: np.ndarray, params: body.BodyParameters) -> list[float]:
    """The bend joints (rad, in ``joint_names`` order) of an unloaded snake at chamber pressures
    (N, 3) in Pa: what the pressures call for, not what the ground lets the body do."""
    # (N, 2)
    bends = body.bend(np.asarray(pressure_pa, dtype=float), pneumatics.SUPPLY_PA, params)
    return (bends[:, None, :] * np.array(body.JOINT_SHARE)[None, :, None]).ravel().tolist()


def pressure_colour(pressure_pa: float) -> ColorRGBA:
    """Blue vented to red at the 17 psi supply."""
    s = float(np.clip(pressure_pa / pneumatics.SUPPLY_PA, 0.0, 1.0))
    return ColorRGBA(r=s, g=0.15, b=1.0 - s, a=0.9)


def chamber_markers(pressure_pa: np.ndarray, stamp, segment_length_m: float) -> MarkerArray:
    """One cylinder per chamber along each segment's first half (a segment ``segment_length_m``
    long), in that half's frame, coloured by pressure."""
    markers = []
    for i, row in enumerate(np.asarray(pressure_pa, dtype=float)):
        for j, p in enumerate(row):
            m = Marker(
                header=Header(stamp=stamp, frame_id=f'segment{i}a'),
                ns='chambers',
                id=3 * i + j,
                type=Marker.CYLINDER,
                action=Marker.ADD,
                color=pressure_colour(p),
            )
            y, z = body.CHAMBER_YZ[j] * CHAMBER_RADIUS_M
            m.pose.position = Point(x=-segment_length_m / 4, y=float(y), z=float(z))
            # cylinder axis along x
            m.pose.orientation.y = m.pose.orientation.w = float(np.sqrt(0.5))
            m.scale.x = m.scale.y = 0.008
            m.scale.z = segment_length_m / 2
            markers.append(m)
    return MarkerArray(markers=markers)
