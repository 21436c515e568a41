"""``SalamanderCommander``: blocking calls to the salamander's planner and controller for scripts
and the demo (in the manner of nav2_simple_commander's BasicNavigator). Each call returns the
action result, or raises CommanderError with the reason (a failed plan included).

    from soro_node import commander
    commander.init()
    robot = SalamanderCommander()
    robot.navigate((2.15, 1.55, 0.0), planner='chomp')          # x m, y m, heading rad
"""

from __future__ import annotations

from geometry_msgs.msg import PoseStamped
from soro_interfaces.action import PlanAndTrack, PlanPath, TrackPath
from std_msgs.msg import Header

from soro_geometry.pose_msgs import stamped
from soro_node.base_node import ActionClient
from soro_node.commander import Commander


class SalamanderCommander(Commander):
    """Blocking calls to ``~/plan_path`` and ``~/plan_and_track`` of ``planner`` and
    ``~/track_path`` of ``controller``; goal and start poses are stamped in ``frame_id``."""

    def __init__(
        self,
        planner: str = '/salamander_planner',
        controller: str = '/salamander_controller',
        frame_id: str = 'map',
        **kwargs,
    ):
        super().__init__('salamander_commander', **kwargs)
        self.frame_id = frame_id
        self.compute_client = ActionClient(self, PlanPath, f'{planner}/plan_path')
        self.navigate_client = ActionClient(self, PlanAndTrack, f'{planner}/plan_and_track')
        self.follow_client = ActionClient(self, TrackPath, f'{controller}/track_path')

    def pose(self, planar) -> PoseStamped:
        """A PoseStamped of ``planar`` (x m, y m, ψ rad) in ``frame_id``, stamped now."""
        return stamped(
            planar, Header(frame_id=self.frame_id, stamp=self.get_clock().now().to_msg())
        )

    def compute_path(
        self, goal, start=None, planner: str = '', timeout_s: float = 120.0
    ) -> PlanPath.Result:
        """Plan to ``goal`` (x m, y m, ψ rad) from ``start`` (or the tracked pose)."""
        request = PlanPath.Goal(
            goal=self.pose(goal), planner_id=planner, use_start=start is not None
        )
        if start is not None:
            request.start = self.pose(start)
        return self.run_action(self.compute_client, request, timeout_s)

    def follow_path(
        self, path, speed_m_s: float = 0.0, timeout_s: float = 600.0, on_feedback=None
    ) -> TrackPath.Result:
        """Have the controller follow ``path`` (nav_msgs/Path) at ``speed_m_s`` (0: its own
        ``speed_m_s`` parameter)."""
        return self.run_action(
            self.follow_client,
            TrackPath.Goal(path=path, speed_m_s=float(speed_m_s)),
            timeout_s,
            on_feedback,
        )

    def navigate(
        self, goal, planner: str = '', timeout_s: float = 600.0, on_feedback=None
    ) -> PlanAndTrack.Result:
        """Plan to ``goal`` (x m, y m, ψ rad) and follow the plan."""
        return self.run_action(
            self.navigate_client,
            PlanAndTrack.Goal(goal=self.pose(goal), planner_id=planner),
            timeout_s,
            on_feedback,
        )
