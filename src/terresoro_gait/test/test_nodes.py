"""The TerreSoRo nodes through real rclpy and a real pseudo-terminal: explore -> learn ->
synthesize -> execute in simulation, bad goals, a device that vanishes mid-gait, and a best-effort
tracker. A 2-limb robot at τ = 0.15 s keeps the rounds short.

The simulated robot and the executor run in their own processes, as the launch file starts them, so
the firmware, the camera and the executor's τ schedule keep their timing whatever the other nodes
do with this interpreter."""

import math
import time

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
from sensor_msgs.msg import JointState
from soro_interfaces.action import ExecuteGait, ExecuteWalk, LearnEdges, SweepGaits
from soro_interfaces.msg import ExecutedEdge, LinkStatus
from soro_interfaces.srv import SynthesizeGait

from softbots_bringup import runner
from soro_analysis.analyses import analyze
from soro_node.base_node import GOALS_END_S, STOPPING
from soro_node.probe_node import Probe
from soro_node.waiting import poll
from terresoro_gait.commander import TerreSoroCommander
from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.execution import MAX_GOAL_PRIMITIVES
from terresoro_gait.messages import paper_pose
from terresoro_gait.sweep import lhs_sweep
from terresoro_gait.synthesis import GaitProblem
from terresoro_gait.units import objective_from_si
from terresoro_gait.weights import read_csv

pytestmark = pytest.mark.ros
TAU, LIMBS, ROUNDS = 0.15, 2, 3
POSE_WINDOW_S = 0.05
TRACKING_TIMEOUT_S = 0.08  # under τ - settle_s: a stand-in frame is one of the settled robot
RECORDED = ['/tracked_pose', '/terresoro_executor/executed_edge']


LINK, JOINTS = '/terresoro_executor/link_status', '/joint_states'
EDGES, TRUTH = '/terresoro_executor/executed_edge', '/terresoro_sim/ground_truth'
WATCHED = {LINK: LinkStatus, JOINTS: JointState, EDGES: ExecutedEdge, TRUTH: PoseStamped}


class World:
    """terresoro.launch.py's nodes (simulated robot and tracker, executor, learner, synthesis) for
    a 2-limb robot at τ = 0.15 s, its commander, and the recorder of a learning run."""

    def __init__(self, launch, tmp_path):
        self.weights, self.truth = tmp_path / 'weights.csv', tmp_path / 'truth.csv'
        robot, board = dict(n_limbs=LIMBS, tau_s=TAU), dict(motor_of_limb=[0, 1])
        self.robot = launch(
            'terresoro.launch.py',
            arguments={'weights_file': str(self.weights)},
            params={
                'terresoro_sim': dict(
                    robot, **board, settle_s=0.06, truth_file=self.truth, seed=5
                ),
                'terresoro_executor': dict(
                    robot, **board, reversal_pulse_s=0.03, stale_timeout_s=1.0
                ),
                'terresoro_learner': dict(
                    robot, pose_window_s=POSE_WINDOW_S, tracking_timeout_s=TRACKING_TIMEOUT_S
                ),
                'terresoro_synthesis': robot,
            },
            commander=TerreSoroCommander,
            topics=WATCHED,
        )
        self.commander, self.probe = self.robot.commander, self.robot.probe
        self.client = self.probe.node
        self.learn_client = self.commander.learn_client
        self.gait_client = self.commander.gait_client
        self.sweep_client = self.commander.sweep_client
        # the learning run is recorded, as a researcher records one, for the offline analysis to
        # redo
        self.bag = tmp_path / 'bag'
        self.recorder = runner.start_recorder(self.bag, RECORDED, tmp_path)
        runner.wait_recording(self.recorder, RECORDED)
        assert poll(self.connected, 10.0), 'the executor did not connect to the simulated robot'
        assert poll(lambda: self.joints is not None, 5.0), (
            'no limb telemetry from the simulated robot'
        )

    executor = property(lambda self: self.robot.process('terresoro_executor'))
    sim = property(lambda self: self.robot.process('terresoro_sim'))
    joints = property(lambda self: self.probe.latest(JOINTS))
    truth_poses = property(lambda self: self.probe.messages[TRUTH])

    def connected(self, since: int = 0) -> bool:
        """The executor's link reported connected (in a status after the first ``since``)."""
        return any(m.state == LinkStatus.CONNECTED for m in self.probe.messages[LINK][since:])

    def restart(self, name: str, ready: str) -> None:
        """Node ``name`` (stopped or killed by a test) started again, and the link connected."""
        since = len(self.probe.messages[LINK])
        self.robot.restart(name, ready)
        assert poll(lambda: self.connected(since), 10.0)

    def goal(self, client, goal, timeout_s, on_feedback=None):
        sent = self.commander.send_goal(client, goal, on_feedback)
        assert sent.ended(timeout_s)
        return sent.result, sent.feedback

    def synthesize(self, **request):
        return self.commander.answer(
            self.commander.synthesis_client, SynthesizeGait.Request(**request), 10.0, 'synthesize'
        )


@pytest.fixture(scope='module')
def world(launch, tmp_path_factory):
    w = World(launch, tmp_path_factory.mktemp('terresoro'))
    yield w
    w.recorder.stop()


def test_learned_weights_approach_the_substrate(world):
    result, feedback = world.goal(world.learn_client, LearnEdges.Goal(rounds=ROUNDS, seed=7), 60.0)
    assert result.success, result.message
    world.learned = result
    m = LimbDigraph(LIMBS).m
    if result.resampled:
        # a loaded machine drops tracker frames: each spoilt primitive is run again in an extra
        # walk from state 1, whose connecting primitives are samples too
        assert result.samples >= ROUNDS * m and feedback[-1].round > ROUNDS, result.message
    else:
        # every round starts and ends in state 1: no lead-ins
        assert result.samples == ROUNDS * m and feedback[-1].round == ROUNDS
    assert feedback[-1].primitives_done == feedback[-1].primitives_total
    learned, truth = read_csv(world.weights), read_csv(world.truth)
    # 3 samples of noise 0.4 mm (0.4°) per axis plus tracker noise: the mean is off by ~0.3; the
    # means spread ~3
    assert np.sqrt(np.mean((learned.px_mm - truth.px_mm) ** 2)) < 0.6
    assert np.sqrt(np.mean((learned.theta_deg - truth.theta_deg) ** 2)) < 0.6
    assert np.std(truth.px_mm) > 4 * np.sqrt(np.mean((learned.px_mm - truth.px_mm) ** 2))


def test_the_recorded_learning_run_gives_the_learners_weights_offline(world, tmp_path):
    """soro-analyze on the bag of the learning run above: the same edge samples, the same weights
    file."""
    assert world.recorder.stop() == 0
    report, warnings = analyze(
        world.bag,
        tmp_path,
        'terresoro',
        [
            f'pose_window_s:={POSE_WINDOW_S}',
            f'tracking_timeout_s:={TRACKING_TIMEOUT_S}',
            f'weights_file:={world.weights}',
        ],
    )
    learned = world.learned
    # the extra walks that ran spoilt primitives again are rounds in the bag
    assert warnings == [] and report.numbers['exploration']['rounds'] >= ROUNDS
    assert (report.numbers['exploration']['rounds'] == ROUNDS) == (learned.resampled == 0)
    # the bag may hold a frame the live learner missed: then a primitive it ran again has one
    # more sample offline
    assert learned.samples <= report.numbers['exploration']['samples']
    assert report.numbers['exploration']['samples'] <= learned.samples + learned.resampled
    live, offline = read_csv(world.weights), read_csv(tmp_path / 'weights.csv')
    rows = [
        np.column_stack([w.px_mm, w.py_mm, w.theta_deg, w.sp_mm2, w.stheta_deg2])
        for w in (live, offline)
    ]
    difference = np.abs(rows[1] - rows[0]).max(axis=1)
    # the same to 1e-9, but for a frame the live learner's best-effort subscription missed on a
    # loaded machine: it moves the two primitives beside it by a fraction of the 0.3 mm (0.2°)
    # tracker noise, and a primitive run again with one sample more offline by up to a third
    bound = 0.1 if learned.resampled == 0 else 0.3
    assert np.count_nonzero(difference > 1e-9) <= 2 + learned.resampled, difference
    assert difference.max() < bound, difference
    assert report.numbers['exploration']['max_abs_difference_to_weights_file'] < bound


def set_sim_parameters(world, **values):
    assert all(r.successful for r in world.commander.set_parameters('terresoro_sim', **values))


def test_what_the_nodes_must_agree_on_is_read_only(world):
    """τ is fixed by the executor at configure and was re-read by the synthesis service on every
    request: one ``ros2 param set`` made them disagree. τ and the weights file the learner writes
    are read-only everywhere."""
    for node in ('terresoro_executor', 'terresoro_synthesis', 'terresoro_sim'):
        [result] = world.commander.set_parameters(node, tau_s=0.3)
        assert not result.successful and 'read-only' in result.reason, node
    for node in ('terresoro_executor', 'terresoro_learner', 'terresoro_synthesis'):
        [result] = world.commander.set_parameters(node, weights_file='elsewhere.csv')
        assert not result.successful and 'read-only' in result.reason, node
    assert world.commander.parameters('terresoro_synthesis', 'tau_s', 'weights_file') == [
        TAU,
        str(world.weights),
    ]


def test_a_round_count_the_rounds_parameter_refuses_is_refused_with_its_range(world):
    for rounds in (1, 1001):
        result, _ = world.goal(world.learn_client, LearnEdges.Goal(rounds=rounds, seed=7), 5.0)
        assert not result.success
        refusal = f'rounds = {rounds}: allowed range is [2, 1000] (as parameter rounds)'
        assert refusal in result.message


def test_a_weights_file_that_cannot_be_written_is_refused_before_the_robot_moves(world, tmp_path):
    """A folder given as the file was found after 62 s and 112 primitives, the samples lost
    (the hostile pass)."""
    started = time.monotonic()
    goal = LearnEdges.Goal(rounds=2, seed=1, weights_file=str(tmp_path))
    result, _ = world.goal(world.learn_client, goal, 5.0)
    assert not result.success and time.monotonic() - started < 5.0
    assert result.message == f'refused: weights_file {tmp_path}: Is a directory', result.message


def test_learning_runs_through_marker_occlusions(world, tmp_path):
    """Motion capture hides the marker for 0.6 s in every 3 s (far past the learner's
    tracking_timeout_s): the primitives beside an untracked instant are run again from state 1, and
    the run still learns the substrate."""
    set_sim_parameters(world, occlusion_s=0.6, occlusion_period_s=3.0)
    try:
        result, feedback = world.goal(
            world.learn_client,
            LearnEdges.Goal(rounds=ROUNDS, seed=11, weights_file=str(tmp_path / 'w.csv')),
            90.0,
        )
    finally:
        set_sim_parameters(world, occlusion_s=0.0)
    assert result.success, result.message
    assert result.resampled > 0 and 'spoiled by tracking gaps' in result.message
    assert feedback[-1].round > ROUNDS  # the extra walks after the rounds
    learned, truth = read_csv(tmp_path / 'w.csv'), read_csv(world.truth)
    assert np.sqrt(np.mean((learned.px_mm - truth.px_mm) ** 2)) < 0.6


def test_synthesis_service_is_the_exact_core_optimum_in_si(world):
    request = dict(
        goal='translation', alpha=[-1.0, 0.0], beta=0.0, gamma=0.0, eps=math.radians(3.0), k=2
    )
    response = world.synthesize(**request)
    assert response.success, response.message
    weights = read_csv(world.weights)
    core = GaitProblem(weights, LimbDigraph(LIMBS)).k_best(
        objective_from_si('translation', [-1.0, 0.0], 0.0, 0.0, math.radians(3.0)), 2
    )
    assert [tuple(g.vertices) for g in response.gaits] == [s.cycle for s in core]
    assert response.gaits[0].cost == pytest.approx(core[0].cost / 1000.0)  # mm -> m
    assert response.gaits[0].period_s == pytest.approx(len(response.gaits[0].vertices) * TAU)


def test_synthesis_refusals_are_one_line(world):
    tight = world.synthesize(goal='rotation', alpha=[-1.0], beta=0.0, gamma=0.0, eps=0.0, k=1)
    assert not tight.success and 'no simple cycle meets' in tight.message
    wrong = world.synthesize(goal='sideways', alpha=[1.0], beta=0.0, gamma=0.0, eps=1.0, k=1)
    assert not wrong.success and 'goal' in wrong.message and '\n' not in wrong.message
    many = world.synthesize(goal='rotation', alpha=[-1.0], beta=0.0, gamma=0.0, eps=0.1, k=200)
    assert not many.success and many.message == 'k = 200: allowed range is [1, 50]'
    rewarded = world.synthesize(goal='rotation', alpha=[-1.0], beta=-1e9, gamma=0.0, eps=0.1, k=1)
    assert (
        not rewarded.success
        and 'beta = ' in rewarded.message
        and 'must be finite and in [0, 1e+06]' in rewarded.message
    )


def test_sweep_action_is_the_core_sweep_with_progress(world):
    """Spec 5.4 on the learned weights: the same distinct gaits, hits and first α as the core's
    sweep."""
    goal = SweepGaits.Goal(
        goal='translation', beta=0.0, gamma=0.0005, eps=math.radians(3.0), samples=40, seed=4
    )
    result, feedback = world.goal(world.sweep_client, goal, 30.0)
    assert result.success, result.message
    objective = objective_from_si('translation', [0.0, 0.0], 0.0, 0.0005, math.radians(3.0))
    core = lhs_sweep(
        GaitProblem(read_csv(world.weights), LimbDigraph(LIMBS)),
        'translation',
        objective.beta,
        objective.gamma,
        objective.eps,
        samples=40,
        seed=4,
    )
    assert [tuple(g.vertices) for g in result.gaits] == [g.cycle for g in core.gaits]
    assert (
        list(result.hits) == [len(a) for a in core.alphas]
        and sum(result.hits) + result.unresolved == 40
    )
    assert list(result.alphas) == pytest.approx([a for alphas in core.alphas for a in alphas[0]])
    assert result.gaits[0].cost == pytest.approx(core.gaits[0].cost / 1000.0)  # mm -> m
    done = [f.samples_done for f in feedback]
    assert done == sorted(done) and done[-1] == 40 and {f.samples_total for f in feedback} == {40}


def test_sweep_refusals_and_cancel(world):
    too_many, _ = world.goal(
        world.sweep_client, SweepGaits.Goal(goal='rotation', eps=0.01, samples=20000), 5.0
    )
    assert (
        not too_many.success
        and too_many.message == 'samples = 20000: allowed 1 to 10000 (0 means 100)'
    )
    tight, _ = world.goal(
        world.sweep_client, SweepGaits.Goal(goal='rotation', eps=0.0, samples=10), 5.0
    )
    assert not tight.success and 'no simple cycle meets' in tight.message
    # during a long sweep ~/synthesize still answers; the sweep stops within one arc per process
    # once cancelled
    feedback = []
    sent = world.sweep_client.send_goal_async(
        SweepGaits.Goal(goal='rotation', eps=0.01, samples=10000),
        feedback_callback=lambda f: feedback.append(f.feedback),
    )
    assert poll(sent.done, 5.0) and poll(lambda: feedback, 10.0)
    result = sent.result().get_result_async()
    assert world.synthesize(
        goal='rotation', alpha=[-1.0], beta=0.0, gamma=0.0, eps=0.01, k=1
    ).success
    assert not result.done()
    sent.result().cancel_goal_async()
    assert poll(result.done, 10.0)
    assert result.result().status == GoalStatus.STATUS_CANCELED
    assert (
        result.result().result.message == 'sweep cancelled' and feedback[-1].samples_done < 10000
    )


def test_gait_runs_open_loop_and_prediction_follows_the_robot(world):
    gait = world.synthesize(
        goal='translation', alpha=[-1.0, 0.0], beta=0.0, gamma=0.0, eps=math.radians(5.0), k=1
    ).gaits[0]
    before = len(world.truth_poses)
    result, feedback = world.goal(
        world.gait_client, ExecuteGait.Goal(vertices=gait.vertices, cycles=4), 30.0
    )
    assert result.success, result.message
    body = [e for e in result.edges if not e.transition]
    assert len(body) == 4 * len(gait.vertices)
    assert all(e.transition for e in result.edges if e not in body)
    assert result.edges[-1].terminal_vertex == 1  # clean stop: all limbs uncurled
    assert [f.cycle for f in feedback if not f.edge.transition][-1] == 4
    starts = [e.start.sec + e.start.nanosec * 1e-9 for e in result.edges]
    # one primitive per τ, on the beat: the player (soro_node.sequence) keeps a step up to τ/4 late
    # on its beat, so a late one is shortened by its lateness (18 ms seen beside another worker)
    slots = np.diff(starts)
    assert np.allclose(slots[:-1], TAU, atol=0.03), slots
    # the clean stop is a sequence of its own, played once the gait's last acks are confirmed:
    # late on a busy machine (31 ms seen), never early
    assert slots[-1] > TAU - 0.005 and np.median(slots) == pytest.approx(TAU, abs=0.005), slots
    assert poll(lambda: not any(world.joints.position), 2.0)  # state 1: every limb flat again
    # the robot (ground truth) ends within 4 σ of the open-loop prediction, per axis
    truth = paper_pose(world.truth_poses[-1].pose)
    predicted = paper_pose(result.predicted_pose.pose.pose)
    cov = np.array(result.predicted_pose.pose.covariance).reshape(6, 6)
    # + tracker offset of the start pose
    sd_mm = 1000 * np.sqrt(np.diag(cov)[:2]) + 1.0
    assert np.all(np.abs(truth[:2] - predicted[:2]) < 4 * sd_mm), (truth, predicted, sd_mm)
    assert len(world.truth_poses) > before


def test_bad_gaits_are_refused_with_the_reason(world):
    repeated, _ = world.goal(
        world.gait_client, ExecuteGait.Goal(vertices=[1, 2, 1, 3], cycles=1), 5.0
    )
    assert not repeated.success and 'vertex 1 repeats' in repeated.message
    outside, _ = world.goal(world.gait_client, ExecuteGait.Goal(vertices=[1, 9], cycles=1), 5.0)
    assert not outside.success and 'vertex 9 is not in the graph' in outside.message
    none, _ = world.goal(world.gait_client, ExecuteGait.Goal(vertices=[1, 2], cycles=0), 5.0)
    assert not none.success and 'cycles = 0' in none.message


def test_a_huge_goal_is_refused_at_once_and_the_longest_one_cancels(world):
    # what a client's cycles = -1 becomes in uint32: refused before any work, the executor free for
    # the next goal
    started = time.monotonic()
    huge, _ = world.goal(
        world.gait_client, ExecuteGait.Goal(vertices=[1, 2], cycles=2**32 - 1), 5.0
    )
    assert not huge.success and f'(MAX_GOAL_PRIMITIVES = {MAX_GOAL_PRIMITIVES})' in huge.message, (
        huge.message
    )
    assert time.monotonic() - started < 2.0
    feedback = []
    sent = world.gait_client.send_goal_async(
        ExecuteGait.Goal(vertices=[1, 2], cycles=MAX_GOAL_PRIMITIVES // 2),
        feedback_callback=lambda f: feedback.append(f.feedback),
    )
    assert (
        poll(sent.done, 5.0) and sent.result().accepted and poll(lambda: len(feedback) >= 3, 5.0)
    )
    result = sent.result().get_result_async()
    asked = time.monotonic()
    sent.result().cancel_goal_async()
    assert poll(result.done, 3.0), 'no result within 3 s of the cancel'
    # the primitive under way, then the clean stop
    assert time.monotonic() - asked < 3 * TAU + 0.5
    assert result.result().status == GoalStatus.STATUS_CANCELED
    assert result.result().result.message == 'cancelled; stopped in state 1'
    again, _ = world.goal(world.gait_client, ExecuteGait.Goal(vertices=[1, 2], cycles=1), 10.0)
    assert again.success, again.message


def test_a_goal_sent_while_one_runs_is_rejected_at_once(world):
    """One goal at a time over both actions: a gait or a walk that comes while a gait runs is
    rejected when it arrives (its client has the answer at once), and the gait under way goes on
    until its client cancels it."""
    commander = world.commander
    running = commander.send_goal(world.gait_client, ExecuteGait.Goal(vertices=[1, 2], cycles=100))
    assert running.accepted and poll(lambda: running.feedback, 5.0)
    gait = commander.send_goal(world.gait_client, ExecuteGait.Goal(vertices=[1, 2], cycles=1))
    walk = commander.send_goal(commander.walk_client, ExecuteWalk.Goal(vertices=[1, 2, 1]))
    assert not gait.accepted, 'a second gait was accepted'
    assert not walk.accepted, 'a walk was accepted beside the gait'
    running.cancel()
    assert running.ended(5.0)
    assert running.status == GoalStatus.STATUS_CANCELED, running.result.message


def test_sigint_stops_the_executor_mid_goal_in_its_safe_state(world):
    sent = world.gait_client.send_goal_async(ExecuteGait.Goal(vertices=[1, 2], cycles=1000))
    assert poll(sent.done, 5.0) and poll(lambda: any(world.joints.position), 5.0)
    result = sent.result().get_result_async()
    stopping = time.monotonic()
    assert world.executor.stop() == 0
    assert time.monotonic() - stopping < 3.0
    # the goal was aborted before the node went away, so its client has the reason
    assert poll(result.done, 2.0), world.executor.log.read_text()
    assert result.result().status == GoalStatus.STATUS_ABORTED
    assert 'the bridge was deactivated' in result.result().result.message
    log = world.executor.log.read_text()
    assert 'device in its safe state (bridge stopping)' in log and 'Traceback' not in log, log
    world.restart('terresoro_executor', 'opening')


def test_sigint_stops_the_learner_mid_run_and_its_client_has_the_reason(world, tmp_path):
    """Ctrl-C while the learner waits on a walk: it cancels the walk, aborts its goal with the
    reason, writes nothing and exits 0 (before, its client waited for ever and the node had to be
    killed)."""
    weights = tmp_path / 'w.csv'
    sent = world.commander.send_goal(
        world.learn_client, LearnEdges.Goal(rounds=10, seed=3, weights_file=str(weights))
    )
    assert sent.accepted and poll(lambda: sent.feedback, 10.0)
    learner = world.robot.process('terresoro_learner')
    stopping = time.monotonic()
    assert learner.stop() == 0, learner.log.read_text()
    assert time.monotonic() - stopping < GOALS_END_S + 1.0
    assert sent.ended(2.0), learner.log.read_text()
    assert sent.status == GoalStatus.STATUS_ABORTED
    assert STOPPING in sent.result.message and not weights.exists()
    world.robot.restart('terresoro_learner', '')
    # for the tests after: the learner discovered again, its action served
    assert poll(lambda: 'terresoro_learner' in world.client.get_node_names(), 10.0)
    assert world.learn_client.wait_for_server(timeout_sec=10.0)


def test_device_vanishing_mid_gait_aborts_safely_and_recovers(world):
    sim = world.sim.popen

    # after the first primitive (a busy machine's start can take 0.5 s): port gone
    def lose_power(_feedback):
        if sim.poll() is None:
            sim.kill()

    result, _ = world.goal(
        world.gait_client, ExecuteGait.Goal(vertices=[1, 2, 4, 3], cycles=50), 10.0, lose_power
    )
    assert not result.success
    assert 'aborted in primitive' in result.message and ('safe state' in result.message)
    assert 0 < result.primitives < 50 * 4
    world.sim.stop()
    # the firmware boots safe with its limbs released; once the link is back a new gait runs
    world.restart('terresoro_sim', 'behind')
    again, _ = world.goal(world.gait_client, ExecuteGait.Goal(vertices=[1, 2], cycles=1), 10.0)
    assert again.success, again.message


def test_a_best_effort_tracker_drives_the_executor_and_the_learner(world):
    """vrpn_mocap and mocap4r2 publish best effort: the executor's trail reaches such a pose, and
    every subscriber of tracked_pose, the learner among them, is matched to such a publisher (a
    reliable subscription would not be, and would hear nothing)."""
    trail = '/terresoro_executor/trail'
    probe = Probe('terresoro_qos_probe', {trail: Path})
    far = PoseStamped()
    far.header.stamp, far.header.frame_id = world.client.get_clock().now().to_msg(), 'world'
    far.pose.position.x, far.pose.orientation.w = 2.5, 1.0
    try:
        with probe.best_effort_stream('/tracked_pose', far) as tracker:
            assert poll(
                lambda: any(
                    p.pose.position.x == 2.5 for m in probe.messages[trail] for p in m.poses
                ),
                10.0,
            )
            subscribers = probe.node.get_subscriptions_info_by_topic('/tracked_pose')
            assert 'terresoro_learner' in {s.node_name for s in subscribers}
            assert poll(lambda: tracker.get_subscription_count() == len(subscribers), 5.0), [
                (s.node_name, s.qos_profile.reliability) for s in subscribers
            ]
    finally:
        probe.close()
