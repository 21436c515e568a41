"""``salamander_planner``: the salamander's planner server and navigator (thesis §3.4, spec B5,
B8). Its actions are shaped like Nav2's planner and navigator but have other fields, so they carry
their own names.

``~/plan_path`` (PlanPath) plans with CHOMP (default) or lattice A* on one signed-distance field of
the scene's obstacles, the ``obstacles`` topic (soro_interfaces/ObstacleScene, replacing them) and
the ``map`` topic (nav_msgs/OccupancyGrid, whose occupied and unknown cells count too; it replaces
the scene file's grid and obstacles, and a turned origin is honoured). Every path is checked before
it is called a success; the result carries planning time, iterations or expansions, length,
maximum curvature and the end heading errors. The start is motion capture's pose or, where nothing
publishes it, tf's ``frame_id -> base_frame``. ``~/plan_and_track`` and ``goal_pose`` navigate
(``navigation_node``: plan, follow, plan again when the world blocks the path). Out: ``plan``
(nav_msgs/Path), ``~/costmap`` (the occupancy planned on), ``~/obstacle_markers``.

One plan at a time: a plan asked for while another runs is refused at once ("busy: planning another
path"). A map or obstacle message that cannot be planned on is refused with one line naming the
field; the previous world stays.
"""

from __future__ import annotations

import array
import logging
import math
import sys
import threading
import time

import numpy as np
import rclpy
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import OccupancyGrid, Path
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import (
    ExternalShutdownException,
    MultiThreadedExecutor,
)
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from soro_interfaces.action import PlanAndTrack, PlanPath
from soro_interfaces.msg import ObstacleScene
from std_msgs.msg import Header
from visualization_msgs.msg import MarkerArray

from salamander_nav import planning
from salamander_nav.distance_field import check_grid, grid_occupancy
from salamander_nav.drawing import obstacle_markers
from salamander_nav.live_scene import LiveScene, map_yaw
from salamander_nav.navigation_node import Navigation
from salamander_nav.parameters import PLANNER
from salamander_nav.planning import paths
from salamander_nav.scene import SceneError, load_scene, resolve_scene
from soro_geometry.pose_msgs import planar_pose, planar_problem, stamped
from soro_link.link_reports import log_at
from soro_node.base_node import (
    StartRefused,
    action_server,
    declare_parameters,
    init_ros,
    refuse_start,
    sensor_data_qos,
    shut_down,
    spin_once,
)
from soro_node.params import FieldRefused, ParameterError, field_value
from soro_node.stop import StopRequest
from soro_node.tf_listener_node import PlanarTf

LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
POSE_MAX_AGE_S = 0.5
MOCAP_TOPIC = 'mocap/salamander/pose'
# a goal sent just after start-up waits this long for motion capture's first pose (a busy machine's
# discovery took over 2 s)
FIRST_POSE_WAIT_S = 5.0
FEEDBACK = QoSProfile(depth=10)
# How long an ended goal's result is kept for a client that asks late (rclpy's default is 900 s:
# goal_pose at 100/s then kept every failed plan's path, and the planner grew by megabytes a
# minute).
RESULT_KEEP_S = 30
BUSY = 'busy: planning another path'


class SalamanderPlanner(Node):
    """``~/plan_path`` and ``~/plan_and_track`` on the live scene, one plan and one navigation at a
    time; the module docstring lists its topics."""

    def __init__(self, **kwargs):
        super().__init__('salamander_planner', **kwargs)
        self.settings = declare_parameters(self, PLANNER)
        p = self.settings.checked()
        self.world = LiveScene(load_scene(resolve_scene(p['scene_file'])))
        self._lock = threading.Lock()
        self._pose: tuple[np.ndarray, float] | None = None
        self._first_pose = threading.Event()
        self._planning = threading.Lock()
        group = ReentrantCallbackGroup()
        self.navigation = Navigation(self, group)
        self.tf = PlanarTf(self, POSE_MAX_AGE_S)
        self.plan_pub = self.create_publisher(Path, 'plan', LATCHED)
        self.costmap_pub = self.create_publisher(OccupancyGrid, '~/costmap', LATCHED)
        self.markers_pub = self.create_publisher(MarkerArray, '~/obstacle_markers', LATCHED)
        self.create_subscription(
            ObstacleScene, 'obstacles', self._on_obstacles, 10, callback_group=group
        )
        self.create_subscription(OccupancyGrid, 'map', self._on_map, LATCHED, callback_group=group)
        self.create_subscription(
            PoseStamped,
            MOCAP_TOPIC,
            self._on_pose,
            sensor_data_qos(5),
            callback_group=group,
        )  # only the latest pose counts
        self.create_subscription(
            PoseStamped, 'goal_pose', self.navigation.on_goal_pose, 1, callback_group=group
        )
        # every request is answered or refused at once (the toolkit's queues hold a burst): one
        # plan and one navigation at a time, the robot following one path
        kept = dict(feedback_pub_qos_profile=FEEDBACK, result_timeout=RESULT_KEEP_S)
        action_server(
            self,
            PlanPath,
            '~/plan_path',
            self._compute,
            cancellable=False,
            callback_group=group,
            **kept,
        )  # a plan is not stopped part-way
        action_server(
            self,
            PlanAndTrack,
            '~/plan_and_track',
            self.navigation.navigate,
            one_at_a_time=self.navigation.running,
            callback_group=group,
            **kept,
        )
        self._publish_world()
        self.get_logger().info(
            f'{p["planner"]} planner on a {self.world.scene.shape[1]} × '
            f'{self.world.scene.shape[0]} grid at '
            f'{self.world.scene.resolution} m'
        )

    # --- the world -------------------------------------------------------------------------------
    def _on_obstacles(self, msg: ObstacleScene) -> None:
        circles = [(c.x, c.y, c.radius) for c in msg.circles]
        polygons = [[(p.x, p.y) for p in polygon.points] for polygon in msg.polygons]
        self._update_world(
            lambda: self.world.set_obstacles(np.array(circles).reshape(-1, 3), polygons),
            f'{len(circles)} circle(s) and {len(polygons)} polygon(s)',
        )

    def _on_map(self, msg: OccupancyGrid) -> None:
        info, origin = msg.info, (msg.info.origin.position.x, msg.info.origin.position.y)
        q = info.origin.orientation
        # before any array is made: a resolution of 0 or a 36 M-cell grid must cost nothing
        try:
            check_grid(info.width, info.height, info.resolution, origin, len(msg.data))
            yaw = map_yaw(q.x, q.y, q.z, q.w)
        except SceneError as error:
            self.get_logger().warning(f'map refused: {error}; planning on the previous world')
            return
        turned = f', turned {math.degrees(yaw):.1f}°' if yaw else ''
        self._update_world(
            lambda: self.world.set_map(
                grid_occupancy(msg.data, info.width, info.height), origin, info.resolution, yaw
            ),
            f'map of {info.width} × {info.height} cells at {info.resolution} m{turned}',
        )

    def _update_world(self, change, what: str) -> None:
        with self._lock:
            before = self.world.snapshot()
            try:
                change()
                self.world.field()
            except SceneError as error:
                # e.g. obstacles that cover the whole map: keep planning as before
                self.world.restore(before)
                self.get_logger().error(f'{what} refused: {error}; planning on the previous world')
                return
        self.get_logger().info(f'planning around {what}')
        self._publish_world()

    def _publish_world(self) -> None:
        with self._lock:
            field, scene = self.world.field(), self.world.scene
        header = Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.frame_id)
        grid = OccupancyGrid(
            header=header,
            data=array.array(
                'b',
                np.where(field.occupied, 100, 0)
                .astype(np.int8)
                # not a list: 25 M ints took 190 MB
                .tobytes(),
            ),
        )
        grid.info.resolution, (grid.info.height, grid.info.width) = field.resolution, field.shape
        grid.info.origin.position.x, grid.info.origin.position.y = (float(v) for v in field.origin)
        grid.info.origin.orientation.w = 1.0
        self.costmap_pub.publish(grid)
        self.markers_pub.publish(obstacle_markers(scene, header))

    def _on_pose(self, msg: PoseStamped) -> None:
        self._pose = (planar_pose(msg.pose), self.get_clock().now().nanoseconds * 1e-9)
        self._first_pose.set()

    # --- planning --------------------------------------------------------------------------------
    def _plan(self, start, goal, planner_id: str) -> paths.Plan:
        p = self.settings
        try:
            planner = field_value(p.spec('planner'), planner_id, 'planner_id', p.planner, unset='')
        except FieldRefused as refused:
            return _refusal(planner_id, str(refused))
        if not (np.all(np.isfinite(start)) and np.all(np.isfinite(goal))):
            return _refusal(
                planner,
                f'start {np.round(start, 3).tolist()} or goal {np.round(goal, 3).tolist()} '
                'is not finite',
            )
        options = planning.PlannerOptions.of(p)
        with self._lock:
            field = self.world.field()
        plan = planning.plan(
            planner, field, np.asarray(start, float), np.asarray(goal, float), options
        )
        log_at(
            self.get_logger(),
            logging.INFO if plan.success else logging.WARNING,
            f'{planner}: {plan.reason} ({plan.planning_s * 1e3:.0f} ms, '
            f'{plan.effort} {plan.effort_name})',
        )
        if plan.success:
            self.plan_pub.publish(self.path_msg(plan))
        return plan

    def path_is_clear(self, points) -> bool:
        """Whether ``points`` (N, 2), what is left of a path, keep the clearance every plan keeps
        (half-width and safety margin) in the present world, by the planners' own check."""
        with self._lock:
            field = self.world.field()
        required = planning.PlannerOptions.of(self.settings).required_m
        return len(points) < 2 or paths.least_clearance(field, points)[0] >= required

    def position(self):
        """The last tracked (x, y) in m, or None before motion capture's first pose."""
        return None if self._pose is None else self._pose[0][:2]

    def start_pose(self):
        """(the robot's pose (x, y, ψ), '') or (None, why there is none fresh enough): motion
        capture's, or, where nothing publishes it, tf's frame_id -> base_frame (Nav2's way)."""
        if self.tf.available and not self.count_publishers(MOCAP_TOPIC):
            return self._tf_start()
        if not self._first_pose.wait(FIRST_POSE_WAIT_S):
            return None, (
                f'no tracked pose on {MOCAP_TOPIC} in {FIRST_POSE_WAIT_S:.0f} s (or set use_start)'
            )
        pose, seen = self._pose
        age = self.get_clock().now().nanoseconds * 1e-9 - seen
        if age > POSE_MAX_AGE_S:
            return None, f'the tracked pose is {age:.1f} s old: is motion capture running?'
        return pose, ''

    def _tf_start(self):
        """The pose tf gives, waiting up to FIRST_POSE_WAIT_S for a first transform."""
        deadline = time.monotonic() + FIRST_POSE_WAIT_S
        while True:
            pose, why = self.tf.pose(self.settings.frame_id, self.settings.base_frame)
            if pose is not None or time.monotonic() > deadline:
                return pose, why
            time.sleep(0.1)

    def plan_one_at_a_time(
        self, start_of, goal: PoseStamped, planner_id: str, wait_s: float = 0.0
    ):
        """(start, plan): the plan from ``start_of()`` (a pose and why not) to ``goal``; a refusal
        when the goal is not a pose on this frame's floor, or while another plan runs (at once, or
        after ``wait_s``: a replan waits), so no request waits behind a slow one."""
        problem = planar_problem(goal, self.settings.frame_id)
        if problem:
            self.get_logger().warning(f'plan refused: goal {problem}', throttle_duration_sec=1.0)
            return None, _refusal(planner_id, f'goal {problem}')
        goal = planar_pose(goal.pose)
        if not self._planning.acquire(timeout=wait_s if wait_s > 0 else -1, blocking=wait_s > 0):
            self.get_logger().warning(f'plan refused: {BUSY}', throttle_duration_sec=1.0)
            return None, _refusal(planner_id, BUSY)
        try:
            start, why = start_of()
            return start, (
                _refusal(planner_id, why) if start is None else self._plan(start, goal, planner_id)
            )
        finally:
            self._planning.release()

    def _compute(self, goal_handle) -> PlanPath.Result:
        request = goal_handle.request
        start, plan = self.plan_one_at_a_time(
            lambda: (
                (planar_pose(request.start.pose), '') if request.use_start else self.start_pose()
            ),
            request.goal,
            request.planner_id or '',
        )
        result = PlanPath.Result(
            success=plan.success,
            message=plan.reason,
            path=self.path_msg(plan),
            effort_name=plan.effort_name,
            effort=int(plan.effort),
            length_m=plan.length_m if len(plan.path) > 1 else 0.0,
            max_curvature=plan.max_curvature if len(plan.path) > 2 else 0.0,
        )
        result.planning_time = Duration(
            sec=int(plan.planning_s), nanosec=int(plan.planning_s % 1 * 1e9)
        )
        if plan.success and start is not None:
            result.start_heading_error, result.goal_heading_error = paths.heading_errors(
                plan.path, start, planar_pose(request.goal.pose)
            )
        if plan.success:
            goal_handle.succeed()
        else:
            goal_handle.abort()
        return result

    def path_msg(self, plan: paths.Plan) -> Path:
        """``plan``'s path as a nav_msgs/Path in the map frame, each pose along its chord."""
        header = Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.frame_id)
        path = np.asarray(plan.path).reshape(-1, 2)
        if len(path) < 2:
            return Path(header=header)
        poses = np.column_stack([path, plan.headings])
        return Path(header=header, poses=[stamped(p, header) for p in poses])

    def destroy_node(self) -> None:
        """Close the navigations' TrackPath client, then destroy this node."""
        self.navigation.close()
        super().destroy_node()


def _refusal(planner: str, reason: str) -> paths.Plan:
    effort = 'expansions' if planner == 'lattice_astar' else 'iterations'
    return paths.Plan(False, reason, np.zeros((0, 2)), planner, 0, effort, 0.0)


def main(args=None) -> int:
    """Spin until Ctrl-C (a flag, not rclpy's handler, so that the context lives on while the
    running navigation cancels its path and answers), then stop navigating and clean up."""
    stop = StopRequest()
    try:
        init_ros(args, stop)
        node = SalamanderPlanner()
    except (StartRefused, ParameterError, SceneError) as error:
        return refuse_start('salamander_planner', error)
    executor = MultiThreadedExecutor(num_threads=4)
    executor.add_node(node)
    try:
        while rclpy.ok() and not stop.requested:
            spin_once(executor, node.get_logger(), 0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.navigation.stop(executor, stop)
        node.destroy_node()
        shut_down()
    return 0


if __name__ == '__main__':
    sys.exit(main())
