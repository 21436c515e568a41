"""Execution planning, limb drives, the simulated robot's firmware, tracking, SI conversions (pure,
no ROS)."""

import math

import numpy as np
import pytest

from soro_geometry.history import PoseHistory
from soro_link.protocol import Message, NackCode
from terresoro_gait.device import TerreSoroFirmware
from terresoro_gait.digraph import GaitError, LimbDigraph
from terresoro_gait.execution import (
    MAX_GOAL_PRIMITIVES,
    Primitive,
    entry_vertex,
    gait_primitives,
    stop_primitives,
    walk_primitives,
)
from terresoro_gait.explore import eulerian_rounds
from terresoro_gait.learning import add_samples, estimate
from terresoro_gait.limbs import FORWARD, OFF, REVERSE, check_motor_map, primitive_drives
from terresoro_gait.parameters import EXECUTOR, executor_config
from terresoro_gait.substrate import PRESETS, substrate_weights
from terresoro_gait.synthesis import GaitProblem, Objective
from terresoro_gait.units import cost_scale, objective_from_si

# the firmware loop at 40 Hz keeps the rounds quick
TAU, PULSE, SETTLE, DT = 0.55, 0.1, 0.3, 0.025


def edges_of(primitives):
    return [(p.initial, p.terminal) for p in primitives]


def test_gait_starts_where_the_robot_is_or_enters_by_the_nearest_state():
    g = LimbDigraph(3)
    # ¹L_t3 of Table III, robot already in 4
    on_cycle = gait_primitives(g, 4, [6, 4, 5, 7, 1], 2)
    assert (
        edges_of(on_cycle)[:5] == [(4, 5), (5, 7), (7, 1), (1, 6), (6, 4)] and len(on_cycle) == 10
    )
    assert [p.cycle for p in on_cycle] == [1] * 5 + [2] * 5 and not any(
        p.transition for p in on_cycle
    )
    # from 8 = 111 the nearest of 6 = 101, 4 = 011, 5 = 100, 7 = 110, 1 = 000 is 6 (one change;
    # listed first)
    assert entry_vertex(8, [6, 4, 5, 7, 1], 3) == 6
    entered = gait_primitives(g, 8, [6, 4, 5, 7, 1], 1)
    assert entered[0] == Primitive(8, 6, transition=True) and edges_of(entered[1:3]) == [
        (6, 4),
        (4, 5),
    ]
    assert stop_primitives(5) == [Primitive(5, 1, transition=True)] and stop_primitives(1) == []


def test_gaits_that_curl_a_lost_limb_or_are_not_cycles_are_refused():
    lost = LimbDigraph(4, (1,))
    # Table VIII ¹L_t3 keeps limb 1 uncurled
    assert len(gait_primitives(lost, 1, [3, 8, 1], 1)) == 3
    with pytest.raises(
        GaitError, match=r'vertex 11 is not in the graph \(it curls lost limb\(s\) \[1\]\)'
    ):
        gait_primitives(lost, 1, [11, 13, 3, 1], 1)  # Table VIII ¹L_θ4 curls limb 1
    with pytest.raises(GaitError, match='vertex 2 repeats'):
        gait_primitives(LimbDigraph(3), 1, [1, 2, 3, 2], 1)
    with pytest.raises(GaitError, match='cycles = 0'):
        gait_primitives(LimbDigraph(3), 1, [1, 2], 0)
    with pytest.raises(GaitError, match='follows itself'):
        walk_primitives(LimbDigraph(3), 1, [1, 2, 2])
    with pytest.raises(GaitError, match='state 9 is not a vertex'):
        walk_primitives(LimbDigraph(3), 1, [1, 9])


def test_goals_are_bounded_and_their_primitives_made_on_demand():
    # cycles = 2**32 - 1 is what a client's -1 becomes in ExecuteGait's uint32: refused at once,
    # naming the limit
    with pytest.raises(
        GaitError,
        match=r'cycles = 4294967295 of a 2-state gait: 8589934590 primitives, more than '
        r'one goal may run \(MAX_GOAL_PRIMITIVES = 20000\)',
    ):
        gait_primitives(LimbDigraph(3), 1, [1, 2], 2**32 - 1)
    longest = gait_primitives(LimbDigraph(3), 2, [1, 2], MAX_GOAL_PRIMITIVES // 2)
    assert len(longest) == MAX_GOAL_PRIMITIVES and longest[-1] == Primitive(
        1, 2, cycle=MAX_GOAL_PRIMITIVES // 2
    )
    assert longest[0] == Primitive(2, 1, cycle=1) and list(longest[2:4]) == [
        Primitive(2, 1, cycle=2),
        Primitive(1, 2, cycle=2),
    ]
    with pytest.raises(IndexError):
        longest[MAX_GOAL_PRIMITIVES]
    with pytest.raises(GaitError, match='a walk of 20001 states'):
        walk_primitives(LimbDigraph(3), 1, [1, 2] * 10_000 + [3])
    # a goal message may carry any number of vertices: checked in linear time, named without
    # printing them all
    with pytest.raises(
        GaitError,
        match=r'gait \[1, 2, 1, 2, 1, 2, 1, 2, 1, 2, \.\.\. \(65535 values\)\]: '
        'vertex 1 repeats',
    ):
        gait_primitives(LimbDigraph(3), 1, [1, 2] * 32767 + [1], 1)


def test_walk_is_closed_and_entered_by_one_transition():
    # Algorithm 1, n = 4, identity order (spec 9.2)
    walk = [1, 4, 2, 4, 3, 4, 1, 3, 2, 3, 1, 2]
    primitives = walk_primitives(LimbDigraph(2), 3, walk)
    assert primitives[0] == Primitive(3, 1, transition=True)
    assert sorted(edges_of(primitives[1:])) == sorted(map(tuple, LimbDigraph(2).edges.tolist()))


def test_drives_step_curling_limbs_and_pulse_uncurling_ones():
    # 101 -> 011 (Table III ¹L_t3): limb 1 uncurls (reversal pulse, then off), limb 2 curls, limb 3
    # stays curled
    pulse, after = primitive_drives(6, 4, 3, (0, 1, 2))
    assert pulse == (REVERSE, FORWARD, OFF, OFF) and after == (OFF, FORWARD, OFF, OFF)
    held = primitive_drives(6, 4, 3, (0, 1, 2), hold_curled_powered=True)
    assert held == ((REVERSE, FORWARD, FORWARD, OFF), (OFF, FORWARD, FORWARD, OFF))
    # wiring map
    assert primitive_drives(6, 4, 3, (3, 0, 2))[0] == (FORWARD, OFF, OFF, REVERSE)
    assert check_motor_map([], 4) == (0, 1, 2, 3)
    for bad in ([0, 1], [0, 0, 1], [0, 1, 4]):
        with pytest.raises(ValueError, match='motor_of_limb'):
            check_motor_map(bad, 3)


def test_executor_config_refuses_conflicting_parameters():
    values = {spec.name: spec.default for spec in EXECUTOR}
    assert executor_config(values).graph.n == 8
    with pytest.raises(
        ValueError, match='reversal_pulse_s = 0.6: must be shorter than tau_s = 0.55'
    ):
        executor_config({**values, 'reversal_pulse_s': 0.6})
    with pytest.raises(ValueError, match=r'lost_limbs = \[4\]'):
        executor_config({**values, 'lost_limbs': [4]})
    assert executor_config({**values, 'lost_limbs': [1]}).graph.vertices == (1, 2, 3, 4)


class Robot:
    """The firmware driven as the executor drives it, in simulated time (no threads, no pty)."""

    def __init__(self, truth, seed=0, failed=()):
        self.fw, self.now = (
            TerreSoroFirmware(truth, tuple(range(truth.n_limbs)), seed, SETTLE, failed),
            0.0,
        )

    def wait(self, seconds):
        for _ in range(round(seconds / DT)):
            self.now += DT
            self.fw.step(self.now, DT)

    def command(self, drive):
        return self.fw.command(Message('set_limbs', 0, {'drive': drive}), self.now)

    def primitive(self, i, j):
        pulse, after = primitive_drives(i, j, self.fw.n_limbs, tuple(range(self.fw.n_limbs)))
        self.command(pulse)
        self.wait(PULSE)
        self.command(after)
        self.wait(TAU - PULSE)


def test_firmware_curls_on_forward_releases_only_after_a_reversal_and_is_safe_released():
    robot = Robot(substrate_weights('rubber_mat', 3))
    robot.primitive(1, 8)
    assert robot.fw.vertex == 8 and np.all(robot.fw.curl[:3] == 1.0)
    # off without a reversal pulse: limbs stay curled
    robot.command((OFF, OFF, OFF, OFF))
    robot.wait(TAU)
    assert robot.fw.vertex == 8
    robot.command((REVERSE, OFF, OFF, OFF))
    robot.wait(TAU)
    assert robot.fw.vertex == 4 and robot.fw.curl[0] == 0.0  # 011
    # the watchdog: motors off, tendons released
    robot.fw.enter_safe_state()
    robot.wait(TAU)
    assert robot.fw.vertex == 1 and robot.fw.drive == (OFF,) * 4 and robot.fw.safe
    assert robot.command((2, 0, 0, 0)) == NackCode.OUT_OF_RANGE
    # channel 3 has no limb on a III
    assert robot.command((0, 0, 0, FORWARD)) == NackCode.OUT_OF_RANGE


def test_failed_limb_never_curls():
    robot = Robot(substrate_weights('rubber_mat', 4), failed=(1,))
    robot.primitive(1, 16)
    assert robot.fw.vertex == 8 and robot.fw.curl[0] == 0.0  # 1111 commanded, 0111 reached


def test_primitive_moves_the_hub_by_the_drawn_edge_motion_in_its_own_frame():
    truth = substrate_weights('whiteboard', 3, seed=2)
    quiet = type(truth)(
        3, truth.px_mm, truth.py_mm, truth.theta_deg, 0 * truth.sp_mm2, 0 * truth.stheta_deg2
    )
    robot, k = Robot(quiet), LimbDigraph(3).edge_index[(1, 5)]
    robot.primitive(1, 8)
    start = robot.fw.pose()
    robot.primitive(8, 5)
    k = LimbDigraph(3).edge_index[(8, 5)]
    phi = math.radians(start[2])
    step = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]]) @ [
        truth.px_mm[k],
        truth.py_mm[k],
    ]
    assert np.allclose(robot.fw.pose()[:2] - start[:2], step, atol=1e-9)
    assert robot.fw.pose()[2] - start[2] == pytest.approx(truth.theta_deg[k])


@pytest.mark.parametrize('substrate', sorted(PRESETS))
def test_learned_weights_converge_to_the_substrate_means_as_rounds_grow(substrate):
    """Explore with Algorithm 1 on the simulated robot, learn (eq. 14): the error of the means
    falls as 1/√R."""
    truth, graph, errors = substrate_weights(substrate, 3, seed=1), LimbDigraph(3), []
    for rounds in (2, 8, 32):
        robot = Robot(truth, seed=rounds)
        edges, poses = eulerian_rounds(graph, rounds, seed=rounds, start=1), [robot.fw.pose()]
        for i, j in edges:
            robot.primitive(i, j)
            poses.append(robot.fw.pose())
        learned = estimate(add_samples({}, edges, poses), 3)
        errors.append(
            np.sqrt(
                np.mean((learned.px_mm - truth.px_mm) ** 2 + (learned.py_mm - truth.py_mm) ** 2)
            )
        )
        assert np.mean(learned.sp_mm2) == pytest.approx(np.mean(truth.sp_mm2), rel=0.6)
    # RMS translation noise of one primitive
    noise = np.sqrt(np.mean(truth.sp_mm2))
    assert errors[0] > errors[1] > errors[2]
    for rounds, error in zip((2, 8, 32), errors):
        assert error == pytest.approx(noise / math.sqrt(rounds), rel=0.35)


def test_substrate_presets_move_like_the_papers_robots():
    mat, carpet = substrate_weights('rubber_mat', 3), substrate_weights('carpet', 3)
    # a few mm per primitive (Table IX)
    assert 1.0 < np.median(np.hypot(mat.px_mm, mat.py_mm)) < 8.0
    assert np.mean(carpet.sp_mm2) > 4 * np.mean(mat.sp_mm2)  # the carpet is the noisiest
    problem = GaitProblem(mat, LimbDigraph(3))
    best = problem.solve(Objective('translation', (-1.0, 0.0), eps=3.0))
    assert (
        problem.costs(Objective('translation', (-1.0, 0.0)))
        @ LimbDigraph(3).cycle_vector(best.cycle)
        < -3.0
    )
    with pytest.raises(ValueError, match='substrate'):
        substrate_weights('ice', 3)


def test_si_objective_is_the_paper_objective_scaled():
    weights = substrate_weights('rubber_mat', 3, seed=4)
    problem = GaitProblem(weights, LimbDigraph(3))
    for goal, alpha, beta, gamma, eps in (
        ('translation', (-1.0, 0.3), 2.0, 0.004, math.radians(4.0)),
        ('rotation', (1.0,), 0.5, 0.01, 0.006),
    ):
        paper = objective_from_si(goal, alpha, beta, gamma, eps)
        si_cost = problem.costs(paper) / cost_scale(goal)
        z = LimbDigraph(3).cycle_vector([1, 6, 3])
        p, theta = (
            np.array([weights.px_mm, weights.py_mm]) / 1000.0,
            np.radians(weights.theta_deg),
        )
        motion = np.asarray(alpha) @ p if goal == 'translation' else alpha[0] * theta
        var = (
            weights.sp_mm2 / 1e6
            if goal == 'translation'
            else weights.stheta_deg2 * (math.pi / 180) ** 2
        )
        assert si_cost @ z == pytest.approx((motion + beta * var + gamma) @ z)
    assert objective_from_si(
        'translation', (1.0, 0.0), 0, 0, math.radians(3.0)
    ).eps == pytest.approx(3.0)
    assert objective_from_si('rotation', (1.0,), 0, 0, 0.008).eps == pytest.approx(8.0)


@pytest.mark.parametrize(
    'goal, alpha, eps, refusal',
    [
        # the service says [-1, 1]: 5 was taken
        ('translation', (5.0, 0.0), 0.05, r'alpha = \[5.0, 0.0\]: each value in \[-1, 1\]'),
        ('rotation', (math.nan,), 0.01, r'alpha = \[nan\]: each value in \[-1, 1\]'),
        # named in the request's radians, not the -57.3 degrees it became
        ('translation', (1.0, 0.0), -1.0, r'eps = -1.0 rad: must be finite and >= 0'),
        ('rotation', (1.0,), -0.5, r'eps = -0.5 m: must be finite and >= 0'),
    ],
)
def test_a_request_is_refused_in_the_services_own_terms(goal, alpha, eps, refusal):
    with pytest.raises(ValueError, match=refusal):
        objective_from_si(goal, alpha, 0.0, 0.0, eps)


def test_cycle_speeds_are_per_cycle_motion_over_l_tau():
    from terresoro_gait.evaluation import cycle_speeds, gait_cycle_starts

    history = PoseHistory()
    # a 3-state gait at τ = 0.2 s run: each cycle moves 6 mm forward in its own frame and turns 3°
    # (tracked in SI)
    pose = np.zeros(3)
    for c in range(5):
        history.add(0.6 * c, pose)
        pose = pose + [0.006 * math.cos(pose[2]), 0.006 * math.sin(pose[2]), math.radians(3.0)]
    history.add(3.0, pose)
    # then the stop
    records = [(0.2 * k, 0.2 * (k + 1), False) for k in range(15)] + [(3.0, 3.2, True)]
    starts = gait_cycle_starts(records, 3)
    assert starts == pytest.approx([0.0, 0.6, 1.2, 1.8, 2.4, 3.0])
    speeds = cycle_speeds(starts, history, 3, tau_s=0.55)  # reported at the robot's τ
    assert speeds.speed_mm_s == pytest.approx([6 / 1.65] * 5)
    assert speeds.yaw_rate_deg_s == pytest.approx([3 / 1.65] * 5)
