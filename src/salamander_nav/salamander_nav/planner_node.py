"""``salamander_planner``: the salamander's planner server and navigator (thesis §3.4, spec B5,
B8). Its actions are shaped like Nav2's planner and navigator but have other fields, so they carry
their own names.

``~/plan_path`` (PlanPath) plans with CHOMP (default) or lattice A* on one signed-distance field of
the scene's obstacles, the ``obstacles`` topic (soro_interfaces/ObstacleScene, replacing them) and
the ``map`` topic (nav_msgs/OccupancyGrid, whose occupied and unknown cells count too). Every path
is checked before it is called a success; the result carries planning time, iterations or
expansions, length, maximum curvature and the end heading errors. ``~/plan_and_track``
(PlanAndTrack) plans from the tracked pose and has the controller follow the plan (its
``~/track_path``), relaying its feedback; ``goal_pose`` (rviz's 2D Goal Pose) does the same. Out:
``plan`` (nav_msgs/Path), ``~/costmap`` (the occupancy planned on), ``~/obstacle_markers``.

One plan at a time: a plan asked for while another runs is refused at once ("busy: planning another
path"). One navigation at a time: further PlanAndTrack goals are rejected at once, and a
``goal_pose`` that comes while navigating is dropped with a log line. The controller's TrackPath is
waited on through a node and executor of its own, so the threads that serve this node's requests
are never the ones its reply needs. On Ctrl-C the planner cancels the path it had the controller
follow and answers its navigation client before it exits. A map or obstacle message that cannot be
planned on is refused with one line naming the field; the previous world stays.
"""

from __future__ import annotations

import array
import logging
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
    SingleThreadedExecutor,
)
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from soro_interfaces.action import PlanAndTrack, PlanPath, TrackPath
from soro_interfaces.msg import ObstacleScene
from std_msgs.msg import Header
from visualization_msgs.msg import MarkerArray

from salamander_nav import planning
from salamander_nav.distance_field import check_grid, grid_occupancy
from salamander_nav.drawing import obstacle_markers
from salamander_nav.live_scene import LiveScene
from salamander_nav.parameters import PLANNER
from salamander_nav.planning import paths
from salamander_nav.scene import SceneError, load_scene, resolve_scene
from soro_geometry.pose_msgs import planar_pose, stamped
from soro_link.link_reports import log_at
from soro_node.base_node import (
    ActionClient,
    OneGoal,
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

LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
FOLLOW_ACTION = 'salamander_controller/track_path'
POSE_MAX_AGE_S = 0.5
# a goal sent just after start-up waits this long for motion capture's first pose (a busy machine's
# discovery took over 2 s)
FIRST_POSE_WAIT_S = 5.0
# a navigation sent just after start-up waits this long for the controller's TrackPath
FOLLOW_SERVER_WAIT_S = 5.0
# the controller answers a cancel within one command period; this bounds a silent one
CANCEL_WAIT_S = 3.0
# on Ctrl-C, how long the running navigation gets to cancel its path and answer
STOP_WAIT_S = 5.0
# a following controller reports every command period (20 Hz), and ends its goal itself after
# tracking_lost_s (3 s) without a pose; silent this long, it died or hangs (DDS notices a killed
# process only when its 20 s lease runs out)
CONTROLLER_SILENT_S = 5.0
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
        self._planning, self._navigating, self._stopping = (
            threading.Lock(),
            OneGoal(),
            threading.Event(),
        )
        group = ReentrantCallbackGroup()
        self.plan_pub = self.create_publisher(Path, 'plan', LATCHED)
        self.costmap_pub = self.create_publisher(OccupancyGrid, '~/costmap', LATCHED)
        self.markers_pub = self.create_publisher(MarkerArray, '~/obstacle_markers', LATCHED)
        self.create_subscription(
            ObstacleScene, 'obstacles', self._on_obstacles, 10, callback_group=group
        )
        self.create_subscription(OccupancyGrid, 'map', self._on_map, LATCHED, callback_group=group)
        self.create_subscription(
            PoseStamped,
            'mocap/salamander/pose',
            self._on_pose,
            sensor_data_qos(5),
            callback_group=group,
        )  # only the latest pose counts
        self.create_subscription(
            PoseStamped, 'goal_pose', self._on_goal_pose, 1, callback_group=group
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
            self._navigation,
            one_at_a_time=self._navigating,
            callback_group=group,
            **kept,
        )
        self.tracker = Tracker(
            self.get_name(), self.get_namespace(), self.resolve_service_name(FOLLOW_ACTION)
        )
        self.navigator = ActionClient(self, PlanAndTrack, '~/plan_and_track', callback_group=group)
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
        # before any array is made: a resolution of 0 or a 36 M-cell grid must cost nothing
        try:
            check_grid(info.width, info.height, info.resolution, origin, len(msg.data))
        except SceneError as error:
            self.get_logger().warning(f'map refused: {error}; planning on the previous world')
            return
        self._update_world(
            lambda: self.world.set_map(
                grid_occupancy(msg.data, info.width, info.height), origin, info.resolution
            ),
            f'map of {info.width} × {info.height} cells at {info.resolution} m',
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
        options = planning.PlannerOptions(
            p['clearance_m'],
            p['kappa_max'],
            p['chomp_iterations'],
            p['astar_max_expansions'],
            p['max_planning_s'],
            astar_heuristic_weight=p['astar_heuristic_weight'],
            safety_margin_m=p['safety_margin_m'],
            astar_max_states=p['astar_max_states'],
            chomp_from_lattice=p['chomp_from_lattice'],
        )
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
            self.plan_pub.publish(self._path_msg(plan))
        return plan

    def _start_pose(self):
        if not self._first_pose.wait(FIRST_POSE_WAIT_S):
            return None, (
                f'no tracked pose on mocap/salamander/pose in {FIRST_POSE_WAIT_S:.0f} s (or '
                'set use_start)'
            )
        pose, seen = self._pose
        age = self.get_clock().now().nanoseconds * 1e-9 - seen
        if age > POSE_MAX_AGE_S:
            return None, f'the tracked pose is {age:.1f} s old: is motion capture running?'
        return pose, ''

    def _plan_one_at_a_time(self, start_of, goal, planner_id: str):
        """(start, plan): the plan from ``start_of()`` (a pose and why not) to ``goal``; a refusal
        at once while another plan runs, so no request waits behind a slow one."""
        if not self._planning.acquire(blocking=False):
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
        start, plan = self._plan_one_at_a_time(
            lambda: (
                (planar_pose(request.start.pose), '') if request.use_start else self._start_pose()
            ),
            planar_pose(request.goal.pose),
            request.planner_id or '',
        )
        result = PlanPath.Result(
            success=plan.success,
            message=plan.reason,
            path=self._path_msg(plan),
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

    def _path_msg(self, plan: paths.Plan) -> Path:
        header = Header(stamp=self.get_clock().now().to_msg(), frame_id=self.settings.frame_id)
        path = np.asarray(plan.path).reshape(-1, 2)
        if len(path) < 2:
            return Path(header=header)
        poses = np.column_stack([path, plan.headings])
        return Path(header=header, poses=[stamped(p, header) for p in poses])

    # --- navigating: plan, then follow -----------------------------------------------------------
    def _on_goal_pose(self, msg: PoseStamped) -> None:
        goal = np.round(planar_pose(msg.pose), 3).tolist()
        # dropped, not queued: a stream of goals must not pile up
        if self._navigating.running():
            self.get_logger().warning(
                f'goal_pose {goal} dropped: navigating (cancel that goal first)',
                throttle_duration_sec=1.0,
            )
            return
        self.get_logger().info(f'goal_pose {goal}: navigating')
        self.navigator.send_goal_async(PlanAndTrack.Goal(goal=msg))

    def _navigation(self, goal_handle) -> PlanAndTrack.Result:
        request, result = goal_handle.request, PlanAndTrack.Result()
        if self._stopping.is_set():
            result.message = 'aborted: the planner is stopping'
            goal_handle.abort()
            return result
        goal_handle.publish_feedback(PlanAndTrack.Feedback(phase='planning'))
        _start, plan = self._plan_one_at_a_time(
            self._start_pose, planar_pose(request.goal.pose), request.planner_id
        )
        result.planning_time_s, result.path = plan.planning_s, self._path_msg(plan)
        if not plan.success or self._stopping.is_set():
            result.message = (
                f'no plan: {plan.reason}'
                if not plan.success
                else 'aborted: the planner is stopping'
            )
            goal_handle.abort()
            return result
        follow = self._follow(goal_handle, result.path)
        result.success, result.final_distance_m = follow.success, follow.final_distance_m
        result.max_cross_track_m, result.message = follow.max_cross_track_m, follow.message
        log_at(
            self.get_logger(),
            logging.INFO if follow.success else logging.WARNING,
            f'navigation ended: {follow.message}',
        )
        if goal_handle.is_cancel_requested:
            goal_handle.canceled()
        elif follow.success:
            goal_handle.succeed()
        else:
            goal_handle.abort()
        return result

    def _follow(self, goal_handle, path: Path) -> TrackPath.Result:
        """Have the controller follow ``path``, relaying its feedback and our client's cancel (or
        our stopping); its result. The wait holds this thread only: the controller's replies come
        in on the tracker's own."""
        client = self.tracker.client
        if not client.wait_for_server(timeout_sec=FOLLOW_SERVER_WAIT_S):
            return TrackPath.Result(
                message=f'no controller: {self.tracker.action} is not available in '
                f'{FOLLOW_SERVER_WAIT_S:.0f} s'
            )

        def relay(feedback) -> None:
            box['heard'] = time.monotonic()
            f = feedback.feedback
            goal_handle.publish_feedback(
                PlanAndTrack.Feedback(
                    phase='following',
                    distance_left_m=f.distance_left_m,
                    cross_track_m=f.cross_track_m,
                    heading_error=f.heading_error,
                    waypoint=f.waypoint,
                )
            )

        done, box = threading.Event(), {}
        sent = client.send_goal_async(TrackPath.Goal(path=path), feedback_callback=relay)
        sent.add_done_callback(lambda future: _chain(future, box, done))
        sent_at, ending_at, cancelled = time.monotonic(), None, False
        while not done.wait(0.05):
            now = time.monotonic()
            # the reply lost or never sent
            if 'handle' not in box and now - sent_at > FOLLOW_SERVER_WAIT_S:
                return TrackPath.Result(
                    message=f'the controller did not answer the path in '
                    f'{FOLLOW_SERVER_WAIT_S:.0f} s'
                )
            if (
                'handle' in box
                and now - box.setdefault('heard', now) > CONTROLLER_SILENT_S
                and not cancelled
            ):
                box['handle'].cancel_goal_async()  # in case it only hangs
                return TrackPath.Result(
                    message=f'the controller went away (no feedback for '
                    f'{CONTROLLER_SILENT_S:.0f} s while following)'
                )
            if ending_at is None and (goal_handle.is_cancel_requested or self._stopping.is_set()):
                ending_at = now
            if ending_at is not None and 'handle' in box and not cancelled:
                cancelled = True
                box['handle'].cancel_goal_async()
            if ending_at is not None and now - ending_at > CANCEL_WAIT_S:
                return TrackPath.Result(
                    message=f'the controller did not answer the cancel in {CANCEL_WAIT_S:.0f} s'
                )
        result = box.get('result') or TrackPath.Result(message='the controller refused the path')
        if self._stopping.is_set() and cancelled:
            result.message = f'aborted: the planner is stopping; the controller: {result.message}'
        return result

    def stop_navigating(self, executor, stop: StopRequest) -> None:
        """Ctrl-C: refuse new navigations, have the running one cancel its path, and spin until it
        has answered its client (at most STOP_WAIT_S; a second Ctrl-C cuts it short)."""
        self._stopping.set()
        if self._navigating.running():
            self.get_logger().warning(
                'stopping: cancelling the running navigation (its path and its goal)'
            )
        deadline = time.monotonic() + STOP_WAIT_S
        while (
            self._navigating.running()
            and time.monotonic() < deadline
            and stop.count < 2
            and rclpy.ok()
        ):
            spin_once(executor, self.get_logger(), 0.05)
        # the result goes out to a client waiting for it as the goal ends
        for _ in range(5):
            if rclpy.ok():
                spin_once(executor, self.get_logger(), 0.05)

    def destroy_node(self) -> None:
        """Close the TrackPath client (its thread and node), then destroy this node."""
        self.tracker.close()
        super().destroy_node()


class Tracker:
    """The controller's TrackPath client on a node and a thread-spun executor of its own. A
    navigation waits for the controller with one of the planner's executor threads; were the
    replies delivered by the same executor, four navigations at once held every thread and none
    could deliver (issue 26). The node takes no command-line remapping (it would take the planner's
    own name), so it is given the planner's namespace and the action's name as the planner resolved
    it."""

    def __init__(self, planner_name: str, namespace: str, action: str):
        self.node = Node(
            f'{planner_name}_tracker',
            namespace=namespace,
            use_global_arguments=False,
            start_parameter_services=False,
        )
        self.action, self.client = action, ActionClient(self.node, TrackPath, action)
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            self.executor.spin()
        except ExternalShutdownException:
            pass

    def close(self) -> None:
        """Shut the executor down, wait for its thread (at most 2 s), destroy the client's node."""
        self.executor.shutdown()
        self._thread.join(timeout=2.0)
        self.node.destroy_node()


def _chain(future, box: dict, done: threading.Event) -> None:
    handle = future.result()
    if not handle.accepted:
        done.set()
        return
    box['handle'] = handle
    handle.get_result_async().add_done_callback(
        lambda f: (box.update(result=f.result().result), done.set())
    )


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
        node.stop_navigating(executor, stop)
        node.destroy_node()
        shut_down()
    return 0


if __name__ == '__main__':
    sys.exit(main())
