"""softbots_bringup: every robot's launch files, configs and URDFs installed into one share, and
what they start.

- ``description``: a launch file's nodes as data (``ROBOT = RobotLaunch(...)``), resolved for
  argument values.
- ``launching``: that description as launch_ros actions, for ``ros2 launch`` (ROS machines only).
- ``runner``: the same nodes as processes, for demos and tests on machines without the ros2 CLI.
- ``share``: the installed share, found through the ament index.
- ``cli``: ``softbots-launch``, the runner from the command line.
"""
