"""soro_geometry: geometry shared by every robot (no rclpy). Angles are radians at every interface
here; robots whose papers use degrees convert at their own edge.

- ``se2``: planar poses and transforms (x, y, θ), composition, inverse, relative pose, wrap,
  circular mean.
- ``quaternion``: unit quaternions (w, x, y, z), Hamilton product, rotation, yaw.
- ``pose_msgs``: planar poses to and from geometry_msgs (the one module that imports message
  types).
- ``history``: a tracked pose's recent frames and the settled pose at an instant.
"""
