"""The salamander planner's navigations (``~/plan_and_track`` and ``goal_pose``): plan from the
tracked pose, have the controller follow the plan (its ``~/track_path``) while its feedback is
relayed, and plan again from where the robot is when a map or obstacles change under what is left
of the path. One navigation at a time; on Ctrl-C the running one cancels its path and answers its
client. The controller's TrackPath is waited on through a node and executor of its own
(``Tracker``), so the threads that serve the planner's requests are never the ones its reply
needs."""

from __future__ import annotations

import logging
import threading
import time

import numpy as np
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
from soro_interfaces.action import PlanAndTrack, TrackPath

from soro_geometry.pose_msgs import planar_pose
from soro_link.link_reports import log_at
from soro_node.answering_node import spin_until_answered
from soro_node.base_node import ActionClient, OneGoal, spin_once
from soro_node.commander import Commander
from soro_node.stop import StopRequest

FOLLOW_ACTION = 'salamander_controller/track_path'
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
# a world that keeps changing under the path must not keep the robot replanning for ever
MAX_REPLANS = 20
# a replan waits this long for a plan another client asked for
REPLAN_WAIT_S = 15.0
STOPPING = 'aborted: the planner is stopping'


class Navigation:
    """The navigations of ``planner`` (a SalamanderPlanner): its PlanAndTrack goals and
    goal_pose messages."""

    def __init__(self, planner, callback_group):
        self.planner, self.running, self.stopping = planner, OneGoal(), threading.Event()
        self.planned_on = 0  # the world's version the running navigation's path was planned on
        self.tracker = Tracker(
            planner.get_name(),
            planner.get_namespace(),
            planner.resolve_service_name(FOLLOW_ACTION),
        )
        self.client = ActionClient(
            planner, PlanAndTrack, '~/plan_and_track', callback_group=callback_group
        )

    def on_goal_pose(self, msg: PoseStamped) -> None:
        """rviz's 2D Goal Pose: navigate there, or drop it while navigating (a stream of goals must
        not pile up)."""
        goal = np.round(planar_pose(msg.pose), 3).tolist()
        if self.running.running():
            self.planner.get_logger().warning(
                f'goal_pose {goal} dropped: navigating (cancel that goal first)',
                throttle_duration_sec=1.0,
            )
            return
        self.planner.get_logger().info(f'goal_pose {goal}: navigating')
        self.client.send_goal_async(PlanAndTrack.Goal(goal=msg))

    def navigate(self, goal_handle) -> PlanAndTrack.Result:
        """The PlanAndTrack goal: plan, follow, plan again when the world blocks the path."""
        result = PlanAndTrack.Result()
        plan = None if self.stopping.is_set() else self._plan(goal_handle, 'planning', 0.0)
        follow, replans = None, 0
        while plan is not None:
            result.planning_time_s += plan.planning_s
            result.path = self.planner.path_msg(plan)
            if not plan.success or self.stopping.is_set():
                break
            follow = self._follow(goal_handle, result.path)
            if follow is not None or replans == MAX_REPLANS:
                break
            replans += 1  # the world changed under the path: from where the robot is now
            plan = self._plan(goal_handle, 'replanning', REPLAN_WAIT_S)
        result.message = _outcome(plan, follow, replans, self.stopping.is_set())
        if follow is not None:
            result.success, result.final_distance_m = follow.success, follow.final_distance_m
            result.max_cross_track_m = follow.max_cross_track_m
        log_at(
            self.planner.get_logger(),
            logging.INFO if result.success else logging.WARNING,
            f'navigation ended: {result.message}',
        )
        if goal_handle.is_cancel_requested:
            goal_handle.canceled()
        elif result.success:
            goal_handle.succeed()
        else:
            goal_handle.abort()
        return result

    def _plan(self, goal_handle, phase: str, wait_s: float):
        goal_handle.publish_feedback(PlanAndTrack.Feedback(phase=phase))
        request = goal_handle.request
        self.planned_on = self.planner.world.version  # a change from here on is checked
        _start, plan = self.planner.plan_one_at_a_time(
            self.planner.start_pose, request.goal, request.planner_id, wait_s
        )
        return plan

    def _follow(self, goal_handle, path: Path) -> TrackPath.Result | None:
        """Have the controller follow ``path``, relaying its feedback and our client's cancel (or
        our stopping); its result, or None when a change of the world blocked what is left of the
        path (the controller was stopped). The wait holds this thread only: the controller's
        replies come in on the tracker's own."""
        client = self.tracker.client
        if not client.wait_for_server(timeout_sec=FOLLOW_SERVER_WAIT_S):
            return TrackPath.Result(
                message=f'no controller: {self.tracker.action} is not available in '
                f'{FOLLOW_SERVER_WAIT_S:.0f} s'
            )
        # the controller must also have seen us, or it answers the first goal into the void
        self.tracker.meet(self.tracker.action, FOLLOW_SERVER_WAIT_S)
        following = Following(goal_handle, path, self.planned_on)
        sent = client.send_goal_async(TrackPath.Goal(path=path), feedback_callback=following.relay)
        sent.add_done_callback(following.answered)
        while not following.done.wait(0.05):
            failure = following.failure(time.monotonic())
            if failure:
                return TrackPath.Result(message=failure)
            following.check_world(self.planner)
            if following.blocked or goal_handle.is_cancel_requested or self.stopping.is_set():
                following.end(time.monotonic())
        return following.result(self.stopping.is_set())

    def stop(self, executor, stop: StopRequest) -> None:
        """Ctrl-C: refuse new navigations, have the running one cancel its path, and spin until it
        has answered its client (at most STOP_WAIT_S; a second Ctrl-C cuts it short)."""
        self.stopping.set()
        if self.running.running():
            self.planner.get_logger().warning(
                'stopping: cancelling the running navigation (its path and its goal)'
            )
        spin_until_answered(
            self.planner,
            lambda timeout_s: spin_once(executor, self.planner.get_logger(), timeout_s),
            STOP_WAIT_S,
            lambda: stop.count >= 2,
        )

    def close(self) -> None:
        """Close the TrackPath client (its thread and node)."""
        self.tracker.close()


def _outcome(plan, follow, replans: int, stopping: bool) -> str:
    """What a navigation's result says: the follow's end, or why there was no (new) plan."""
    again = f' (replanned {replans} time{"s" if replans != 1 else ""})' if replans else ''
    if plan is None or (stopping and follow is None):
        return STOPPING
    if not plan.success:
        if replans:
            return f'the path was blocked by a new map or obstacles and no new plan: {plan.reason}'
        return f'no plan: {plan.reason}'
    if follow is None:
        return f'the path was blocked {replans} times by a changing world: gave up{again}'
    return follow.message + again


class Following:
    """One TrackPath goal under way: its handle and result once they come, the last feedback's
    time, and whether we asked the controller to stop (our cancel, our stopping, or
    the path blocked)."""

    def __init__(self, goal_handle, path: Path, world_version: int):
        self.goal_handle, self.done, self.handle, self.outcome = (
            goal_handle,
            threading.Event(),
            None,
            None,
        )
        self.points = np.array([[p.pose.position.x, p.pose.position.y] for p in path.poses])
        self.sent_at = self.heard = time.monotonic()
        self.version, self.blocked = world_version, False
        self.ending_at, self.cancelled = None, False

    def relay(self, feedback) -> None:
        """The controller's feedback, passed on as the navigation's."""
        f = feedback.feedback
        self.heard = time.monotonic()
        self.goal_handle.publish_feedback(
            PlanAndTrack.Feedback(
                phase='following',
                distance_left_m=f.distance_left_m,
                cross_track_m=f.cross_track_m,
                heading_error=f.heading_error,
                waypoint=f.waypoint,
            )
        )

    def answered(self, future) -> None:
        """The controller's answer to the goal: the result awaited, or done if refused."""
        handle = future.result()
        if not handle.accepted:
            self.done.set()
            return
        self.handle, self.heard = handle, time.monotonic()
        handle.get_result_async().add_done_callback(self._ended)

    def _ended(self, future) -> None:
        self.outcome = future.result().result
        self.done.set()

    def failure(self, now: float) -> str:
        """Why to stop waiting on the controller ('' to go on): no answer, gone silent, or no
        answer to our cancel."""
        if self.handle is None and now - self.sent_at > FOLLOW_SERVER_WAIT_S:
            return f'the controller did not answer the path in {FOLLOW_SERVER_WAIT_S:.0f} s'
        if (
            self.handle is not None
            and now - self.heard > CONTROLLER_SILENT_S
            and not self.cancelled
        ):
            self.handle.cancel_goal_async()  # in case it only hangs
            return (
                f'the controller went away (no feedback for {CONTROLLER_SILENT_S:.0f} s while '
                'following)'
            )
        if self.ending_at is not None and now - self.ending_at > CANCEL_WAIT_S:
            return f'the controller did not answer the cancel in {CANCEL_WAIT_S:.0f} s'
        return ''

    def check_world(self, planner) -> None:
        """When the planner's world changed since the last look: stop following if what is left
        of the path (from its point nearest the robot) no longer keeps its clearance."""
        if self.blocked or planner.world.version == self.version:
            return
        self.version = planner.world.version
        here = planner.position()
        nearest = 0 if here is None else int(np.argmin(np.hypot(*(self.points - here).T)))
        if not planner.path_is_clear(self.points[nearest:]):
            self.blocked = True
            planner.get_logger().warning(
                'the map or obstacles changed under the path: stopping to plan again'
            )

    def end(self, now: float) -> None:
        """Ask the controller (once) to stop following."""
        if self.ending_at is None:
            self.ending_at = now
        if self.handle is not None and not self.cancelled:
            self.cancelled = True
            self.handle.cancel_goal_async()

    def result(self, stopping: bool) -> TrackPath.Result | None:
        """The controller's result once done; None when we stopped it for a blocked path."""
        arrived = self.outcome is not None and self.outcome.success  # before our cancel landed
        if (
            self.blocked
            and not arrived
            and not stopping
            and not self.goal_handle.is_cancel_requested
        ):
            return None
        result = self.outcome or TrackPath.Result(message='the controller refused the path')
        if stopping and self.cancelled:
            result.message = f'{STOPPING}; the controller: {result.message}'
        return result


class Tracker(Commander):
    """The controller's TrackPath client on a node and a thread-spun executor of its own (a
    Commander's). A navigation waits for the controller with one of the planner's executor
    threads; were the replies delivered by the same executor, four navigations at once held every
    thread and none could deliver (issue 26). The node takes no command-line remapping (it would
    take the planner's own name), so it is given the planner's namespace and the action's name as
    the planner resolved it."""

    def __init__(self, planner_name: str, namespace: str, action: str):
        super().__init__(
            f'{planner_name}_tracker',
            namespace=namespace,
            use_global_arguments=False,
            start_parameter_services=False,
        )
        self.action, self.client = action, ActionClient(self, TrackPath, action)
