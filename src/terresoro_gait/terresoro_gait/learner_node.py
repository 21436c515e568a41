"""``terresoro_learner``: learn a substrate's edge weights on the robot (paper III-C/D, VI-C2; spec
2.2-3.4).

Action ``~/learn_edges`` (LearnEdges) runs ``rounds`` random Eulerian circuits of the complete
digraph (Algorithm 1), each begun and ended in state 1, through the executor's ``~/execute_walk``.
For every executed primitive it takes the tracked pose (``tracked_pose``) averaged over
``pose_window_s`` before its command instant and before the next one, turns the pair into an edge
sample in the frame of the initial state, and at the end estimates every edge's mean and covariance
and writes the weights file (CSV, mm and degrees). Feedback reports the round and primitives.

Motion capture drops out for a moment when a marker is occluded: a primitive whose start or end
pose was not tracked gives no sample and is run again, from state 1, in up to ``RESAMPLE_WALKS``
extra walks after the rounds (the result says how many; a short extra walk may fall inside an
occlusion whole). A round in which no primitive was tracked ends the run: the tracker is gone.
Ctrl-C mid-run cancels the running walk and aborts the goal ("aborted: the node is stopping"),
writing nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from geometry_msgs.msg import PoseStamped
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from soro_interfaces.action import ExecuteWalk, LearnEdges

from soro_geometry import pose_msgs
from soro_geometry.history import PoseHistory, TrackingLost
from soro_node.arguments import probe_writable
from soro_node.base_node import (
    STOPPING,
    ActionClient,
    OneGoal,
    action_server,
    declare_parameters,
    meet,
    node_stopping,
    run_node,
    sensor_data_qos,
)
from soro_node.params import FieldRefused, field_value
from soro_node.waiting import poll, wait_for
from terresoro_gait import messages
from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.execution import REST_VERTEX
from terresoro_gait.explore import stochastic_hierholzer
from terresoro_gait.learning import add_samples, boundary_poses, estimate, resampling_walk, spoiled
from terresoro_gait.parameters import LEARNER
from terresoro_gait.weights import WeightsError, write_csv

WALK_SERVER_TIMEOUT_S = 5.0
# a cancelled walk's answer waited for at most this (under run_node's GOALS_END_S): the executor
# may be stopping too
WALK_CANCEL_S = 2.0
TRACKER_WAIT_S = 10.0  # DDS discovery of a tracker started alongside can take seconds
# extra walks for primitives that tracking gaps spoiled, before giving up on them
RESAMPLE_WALKS = 3


class Failed(RuntimeError):
    """The learning run cannot go on; the message is the action result's reason."""


class TerreSoroLearner(Node):
    """``terresoro_learner``: the ``~/learn_edges`` action, edge weights from the tracked poses of
    walks that the executor runs."""

    def __init__(self, **kwargs):
        super().__init__('terresoro_learner', **kwargs)
        self.settings = declare_parameters(self, LEARNER)
        self.settings.checked()  # a bad value refuses the start
        self.history = PoseHistory()
        group = ReentrantCallbackGroup()
        self.create_subscription(
            PoseStamped,
            'tracked_pose',
            self._on_tracked,
            sensor_data_qos(100),
            # every pose of the averaging window (30-120 Hz)
            callback_group=group,
        )
        self.walk_action = f'{self.settings["executor"]}/execute_walk'
        # one at a time, so the walk's feedback is relayed in the order it was sent
        self.walk_client = ActionClient(
            self, ExecuteWalk, self.walk_action, callback_group=MutuallyExclusiveCallbackGroup()
        )
        self._meeting = MutuallyExclusiveCallbackGroup()
        # one learning run at a time: the robot walks one walk at a time
        self.server = action_server(
            self,
            LearnEdges,
            '~/learn_edges',
            self._learn,
            one_at_a_time=OneGoal(),
            callback_group=group,
        )

    def _check_rounds(self, rounds: int) -> None:
        """Refuse ``rounds`` outside the rounds parameter's range (a covariance needs two)."""
        try:
            field_value(self.settings.spec('rounds'), rounds, 'rounds', None, unset=None)
        except FieldRefused as refused:
            raise Failed(f'refused: {refused}') from None

    def _on_tracked(self, msg: PoseStamped) -> None:
        self.history.add(messages.seconds(msg.header.stamp), pose_msgs.planar_pose(msg.pose))

    def _learn(self, goal_handle) -> LearnEdges.Result:
        goal, result = goal_handle.request, LearnEdges.Result()
        path = goal.weights_file or self.settings.weights_file
        try:
            self._check_rounds(goal.rounds)
            if not path:
                raise Failed('refused: no weights_file in the goal or the parameters')
            _check_writable(path)
            samples, resampled = self._explore(goal_handle, goal)
            weights = estimate(samples, self.settings['n_limbs'])
            write_csv(weights, path)
        except (Failed, TrackingLost, WeightsError, ValueError, OSError) as error:
            result.message = str(error)
            goal_handle.canceled() if goal_handle.is_cancel_requested else goal_handle.abort()
            self.get_logger().warning(result.message)
            return result
        result.success, result.weights_file, result.resampled = True, str(path), resampled
        result.samples = sum(len(s) for s in samples.values())
        result.message = (
            f'{result.samples} edge samples over {goal.rounds} rounds written to {path}'
            + (
                f'; {resampled} primitives spoiled by tracking gaps were run again'
                if resampled
                else ''
            )
        )
        self.get_logger().info(result.message)
        goal_handle.succeed()
        return result

    def _explore(self, goal_handle, goal) -> tuple[dict, int]:
        """Samples by edge from ``goal.rounds`` Eulerian rounds, and the number of primitives run
        again because a tracking gap spoiled them."""
        if not poll(lambda: len(self.history) > 0, TRACKER_WAIT_S):
            raise Failed(
                f'refused: no tracked_pose within {TRACKER_WAIT_S:g} s; is the tracker running?'
            )
        graph = LimbDigraph(self.settings['n_limbs'])
        rng = np.random.default_rng(None if goal.seed < 0 else goal.seed)
        samples, lost = {}, []
        for round_ in range(1, goal.rounds + 1):
            if goal_handle.is_cancel_requested:
                raise Failed(f'cancelled in round {round_}; nothing written')
            _unless_stopping(round_)
            walk = stochastic_hierholzer(graph.vertices, rng)
            at = walk.index(REST_VERTEX)
            spoilt, run = self._sample_walk(
                goal_handle, walk[at:] + walk[:at], samples, round_, goal.rounds
            )
            lost += spoilt
            # a whole round untracked: the tracker is gone, not hidden
            if len(spoilt) == run:
                raise TrackingLost(
                    f'no tracked pose during round {round_}: is the tracker running and the '
                    'robot '
                    'in view?'
                )
        resampled = 0
        for extra in range(1, RESAMPLE_WALKS + 1):
            if not lost or goal_handle.is_cancel_requested:
                break
            _unless_stopping(goal.rounds + extra)
            self.get_logger().warning(
                f'tracking gaps spoiled {len(lost)} primitive(s); running them again'
            )
            resampled += len(lost)
            lost, _run = self._sample_walk(
                goal_handle,
                resampling_walk(lost, REST_VERTEX),
                samples,
                # extra walks extend the run
                goal.rounds + extra,
                goal.rounds + extra,
            )
        if lost:
            self.get_logger().warning(
                f'{len(lost)} primitive(s) still spoiled after {RESAMPLE_WALKS} extra walks'
            )
        return samples, resampled

    def _sample_walk(
        self, goal_handle, walk: list[int], samples: dict, round_: int, rounds: int
    ) -> tuple[list, int]:
        """Run ``walk``, add its tracked primitives to ``samples``; the primitives a tracking gap
        spoiled, and how many primitives ran."""
        edges = self._run_walk(goal_handle, walk, round_, rounds)
        pairs = [(e.initial_vertex, e.terminal_vertex) for e in edges]
        poses = self._boundary_poses(edges)
        add_samples(samples, pairs, poses)
        return spoiled(pairs, poses), len(pairs)

    def _boundary_poses(self, edges) -> np.ndarray:
        """Tracked pose at each primitive's command instant and at the end of the last one, (K + 1,
        3) in the paper's units (x mm, y mm, φ deg)."""
        instants = [messages.seconds(e.start) for e in edges] + [messages.seconds(edges[-1].end)]
        window, max_age = self.settings['pose_window_s'], self.settings['tracking_timeout_s']
        # camera frames arrive with latency: wait for the first one past the last instant (or for
        # max_age)
        poll(lambda: self.history.latest()[0] >= instants[-1], max_age)
        return boundary_poses(instants, self.history, window, max_age)

    def _run_walk(self, goal_handle, walk: list[int], round_: int, rounds: int) -> list:
        if not self.walk_client.wait_for_server(timeout_sec=WALK_SERVER_TIMEOUT_S):
            raise Failed(
                f'no executor action {self.walk_action} within {WALK_SERVER_TIMEOUT_S:g} s'
            )
        # before every walk: the executor may have restarted, and a goal it accepted before it
        # saw us would be answered into the void (once in CI, the learning run's first walk)
        if not meet(self, self.walk_action, WALK_SERVER_TIMEOUT_S, self._meeting):
            raise Failed(
                f'the executor of {self.walk_action} did not answer us within '
                f'{WALK_SERVER_TIMEOUT_S:g} s'
            )

        def progress(feedback):
            f = feedback.feedback
            goal_handle.publish_feedback(
                LearnEdges.Feedback(
                    round=round_,
                    rounds=rounds,
                    primitives_done=f.primitives_done,
                    primitives_total=f.primitives_total,
                )
            )

        accepted = wait_for(
            self.walk_client.send_goal_async(
                ExecuteWalk.Goal(vertices=walk), feedback_callback=progress
            ),
            WALK_SERVER_TIMEOUT_S,
        )
        if not accepted.accepted:
            raise Failed(f'round {round_}: the executor rejected the walk')
        answer = wait_for(
            accepted.get_result_async(),
            cancel=lambda: goal_handle.is_cancel_requested or node_stopping(),
            on_cancel=accepted.cancel_goal_async,
            # the executor may be stopping too and never answer
            after_cancel_s=WALK_CANCEL_S,
        ).result
        _unless_stopping(round_)
        if not answer.success:
            raise Failed(f'round {round_}: {answer.message}')
        return list(answer.edges)


def _check_writable(path: str) -> None:
    """Failed naming weights_file unless it can be written: checked before the robot moves (a
    folder given as the file was found after a minute of primitives, and the samples lost)."""
    try:
        probe_writable(Path(path).expanduser())
    except OSError as error:
        raise Failed(f'refused: weights_file {path}: {error.strerror or error}') from None


def _unless_stopping(round_: int) -> None:
    """Failed (the goal aborts, nothing written) once the node is stopping (Ctrl-C)."""
    if node_stopping():
        raise Failed(f'{STOPPING} (round {round_}); nothing written')


def main(args=None) -> int:
    """Run ``terresoro_learner`` until Ctrl-C; the exit code."""
    return run_node(
        TerreSoroLearner,
        'terresoro_learner',
        lambda: MultiThreadedExecutor(num_threads=3),
        args=args,
    )


if __name__ == '__main__':
    sys.exit(main())
