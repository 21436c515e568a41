"""The MuJoCo snake: contact sanity, friction per surface, the chambers' bends against gravity, the
calibration on chapter 2's headline speeds (SN-12), the travelling wave's direction (D-S6), and the
step climb's bookkeeping."""

import dataclasses
import math

import mujoco
import numpy as np
import pytest

from soft_snake import (
    body,
    calibration,
    climbing,
    model,
    pneumatics,
    reproduction,
    simulator,
    tables,
)
from soft_snake.gaits import PRESETS, Gait

G = 9.81


# the body's defaults: Coulomb friction only (no rolling drag), Table 5.1's columns scaled alike
COULOMB = body.BodyParameters()


def vented(segments):
    return lambda t: -np.ones((segments, 3), np.int8)


def test_a_straight_snake_at_rest_stays_at_rest_on_its_wheels():
    sim = simulator.SnakeSim(4, 'paper', calibration.CALIBRATED)
    trajectory = sim.run(vented(4), 2.0)
    assert np.max(np.abs(trajectory.com_m[-1, :2] - trajectory.com_m[0, :2])) < 1e-4
    assert np.all(np.abs(trajectory.wheel_z_m[-1]) < 1e-3)  # all five axles down
    # straight but for the calibrated joints (0.52 N m/rad) sagging 0.6° under the body's weight
    assert np.all(np.abs(sim.joint_angles()) < 0.015)


def test_a_robot_of_other_sizes_is_built_and_measured_in_its_own_body_lengths():
    """The sizes are body parameters (another robot's come in a parameter file): by default Table
    2.1's 404, 510, 616 mm; another's chain is as long as it says, stands on its own wheels, and
    a prediction gives its speed in its own body lengths."""
    assert [calibration.CALIBRATED.length_m(n) for n in (3, 4, 5)] == pytest.approx(
        [0.404, 0.510, 0.616]
    )
    sizes = dict(segment_length_m=0.1, plate_length_m=0.05, end_plate_length_m=0.07)
    other = dataclasses.replace(calibration.CALIBRATED, wheel_radius_m=0.015, **sizes)
    assert other.length_m(4) == pytest.approx(2 * 0.07 + 3 * 0.05 + 4 * 0.1)
    sim = simulator.SnakeSim(4, 'paper', other)
    trajectory = sim.run(vented(4), 1.0)
    points = sim.body_points()
    assert np.linalg.norm(points[0] - points[-1]) == pytest.approx(other.length_m(4), rel=1e-3)
    assert np.all(np.abs(trajectory.wheel_z_m[-1]) < 1e-3)
    cell = tables.speeds()[0]
    run = reproduction.RunLength(cycles=2, min_duration_s=1.0)
    p = reproduction.predict(cell, model.SnakeModel(other), run)
    assert p.body_length_m == pytest.approx(other.length_m(cell.segments))
    assert p.speed_m_s > 0.05 and p.bl_per_s == pytest.approx(p.speed_m_s / p.body_length_m)


@pytest.mark.parametrize('axis, coefficient', [(0, 'rolling'), (1, 'sliding')])
def test_wheels_roll_freely_and_slide_sideways_with_coulomb_friction(axis, coefficient):
    """Pushed at 0.3 m/s with every chamber vented, the snake (the body's defaults: no rolling
    drag, both of Table 5.1's columns scaled by 0.1) coasts v²/(2 μ g) on Table 5.1's paper:
    about 79 mm along its wheels (rolling, μ 0.058) and 8 mm across them (sliding, μ 0.583)."""
    sim = simulator.SnakeSim(4, 'paper', COULOMB)
    sim.run(vented(4), 0.3)
    sim.data.qvel[axis] = 0.3
    mujoco.mj_forward(sim.model, sim.data)
    moved = np.ptp(sim.run(vented(4), 1.0).com_m[:, axis])
    mu = dict(zip(('sliding', 'rolling'), body.surface_friction('paper', COULOMB)))[coefficient]
    expected = 0.3**2 / (2 * mu * G)
    assert moved == pytest.approx(expected, rel=0.35)


def test_a_rolling_drag_slows_a_coasting_snake_by_its_speed_per_surface():
    """``rolling_drag_scale`` (off by default) damps every wheel's hinge by Table 5.1's rolling
    factor times it, times R²: 0 leaves the bearing's 1e-6; pushed along at 0.3 m/s the snake
    coasts less far with it, and less on grass (factor 8.33) than on paper (0.58)."""
    plain = COULOMB
    assert plain.rolling_drag_scale == 0
    dragged = dataclasses.replace(plain, rolling_drag_scale=0.35)
    for surface, factor in (('paper', 0.58), ('grass', 8.33)):
        sim = simulator.SnakeSim(4, surface, dragged)
        hinge = sim.model.jnt_dofadr[sim.model.joint('wheel0_l').id]
        expected = 1e-6 + 0.35 * factor * dragged.wheel_radius_m**2
        assert sim.model.dof_damping[hinge] == pytest.approx(expected)
    assert simulator.SnakeSim(4, 'paper', plain).model.dof_damping[hinge] == pytest.approx(1e-6)

    def coasted(params, surface):
        sim = simulator.SnakeSim(4, surface, params)
        sim.run(vented(4), 0.3)
        sim.data.qvel[0] = 0.3
        mujoco.mj_forward(sim.model, sim.data)
        return np.ptp(sim.run(vented(4), 1.0).com_m[:, 0])

    free, on_paper = coasted(plain, 'paper'), coasted(dragged, 'paper')
    assert on_paper < 0.8 * free
    assert coasted(dragged, 'grass') < coasted(plain, 'grass')


def test_a_saturating_bend_reaches_its_maximum_before_the_full_supply():
    """``bend_saturation`` 0.5: a chamber at half the supply bends its segment as far as one at the
    full supply does, and a quarter of it half as far; 1 (the default) is linear."""
    pressure = np.zeros((1, 3))
    linear = calibration.CALIBRATED
    saturating = dataclasses.replace(linear, bend_saturation=0.5)
    yaw = {}
    for share in (0.25, 0.5, 1.0):
        pressure[0, 0] = share * pneumatics.SUPPLY_PA
        yaw[share] = [
            body.bend(pressure, pneumatics.SUPPLY_PA, p)[0, 0] for p in (linear, saturating)
        ]
    assert yaw[0.5][0] == pytest.approx(0.5 * yaw[1.0][0])
    assert yaw[0.5][1] == pytest.approx(yaw[1.0][1]) == pytest.approx(yaw[1.0][0])
    assert yaw[0.25][1] == pytest.approx(0.5 * yaw[1.0][1])
    for bad, reason in ((1.5, 'bend_saturation = 1.5: must be <= 1'), (0.0, 'must be finite')):
        with pytest.raises(ValueError, match=reason):
            dataclasses.replace(linear, bend_saturation=bad)
    with pytest.raises(ValueError, match=r'rolling_drag_scale = -1.0: must be finite and >= 0'):
        dataclasses.replace(linear, rolling_drag_scale=-1.0)


def test_chambers_bend_the_segment_away_from_themselves():
    sim = simulator.SnakeSim(3, 'paper', calibration.CALIBRATED)
    k = -np.ones((3, 3), np.int8)
    # bottom left: bends right (positive yaw); its upward half stays on the ground (§2.2.2)
    k[1, 0] = 1
    sim.run(lambda t: k, 1.5)
    yaw, pitch = sim.joint_angles()[1].sum(axis=0)
    assert yaw > 0.3 and abs(pitch) < 0.05
    assert np.all(sim.wheel_heights() < 0.002)
    raised = simulator.SnakeSim(5, 'paper', calibration.CALIBRATED)
    k = -np.ones((5, 3), np.int8)
    # state 3 on the head segment: the head lifts, by what of the two chambers' upward moment
    # exceeds the weight's share (lift_threshold)
    k[0, :2] = 1
    raised.run(lambda t: k, 1.5)
    assert raised.wheel_heights()[0] > 0.003 and np.all(raised.wheel_heights()[2:] < 0.002)


def test_gravity_keeps_undulation_on_the_ground():
    """§2.2.2: every axle is down at least 95 % of the time undulating (wheel bottom under 2 mm),
    and no segment is bent up."""
    for segments in (3, 5):
        gait = calibration.head_first(Gait('undulation', segments, 2.0, 2 * math.pi / 3))
        run = simulator.run_gait(gait, 'paper', 6.0, calibration.CALIBRATED)
        down = np.mean(run.wheel_z_m[100:] < 0.002, axis=0)
        assert down.min() >= 0.95, (segments, down)
        assert upward_bend_rad(run).max() == 0.0


def upward_bend_rad(run: simulator.Trajectory) -> np.ndarray:
    """Each sample's segments' upward bend (T, N) in rad, as the calibrated body bends for the
    chambers' pressures."""
    supply = pneumatics.SUPPLY_PA
    return np.array([body.bend(p, supply, calibration.CALIBRATED)[:, 1] for p in run.pressure_pa])


@pytest.mark.xfail(
    strict=True,
    reason='the thesis: sidewinding lifts the body (§2.2.2); with the calibrated chambers no '
    "chamber gets above 0.73 of the supply and the two bottom chambers' upward moment above "
    "0.52 of one full chamber, just over the weight's share 0.5 (lift_threshold): the simulated "
    'sidewinding bends a segment up by 0.015 rad at most (docs/soft_snake.md)',
)
def test_sidewinding_bends_its_segments_up():
    """The chambers of sidewinding's state 3 bend a segment up against its weight, as they lift
    the head in test_chambers_bend_the_segment_away_from_themselves: at least 0.05 rad."""
    gait = calibration.head_first(PRESETS['sidewinding_default'][0])
    run = simulator.run_gait(gait, 'paper', 4.0, calibration.CALIBRATED)
    assert run.wheel_z_m.max() > 0.004  # an axle off the ground: the body rolls on its yaw bends
    assert upward_bend_rad(run).max() >= 0.05


@pytest.mark.parametrize('surface', ['rubber', 'paper', 'carpet', 'grass'])
def test_the_compiled_model_sets_each_contact_s_friction_from_table_5_1(surface):
    """Wheels slide and roll with Table 5.1's pair of values, the sheath slides; every contact
    MuJoCo makes, on the floor and on the step, is one of those pairs (none at the default μ 1).
    Each of Table 5.1's columns has its own scale (a rolling scale unlike the sliding one here)."""
    params = dataclasses.replace(calibration.CALIBRATED, rolling_scale=0.07)
    sim = simulator.SnakeSim(3, surface, params, step_at_m=0.05)
    sliding, rolling = tables.friction()[surface]
    sliding, rolling = sliding * params.friction_scale, rolling * params.rolling_scale
    wheel = [
        sliding,
        sliding,
        0.001,
        rolling * params.wheel_radius_m,
        rolling * params.wheel_radius_m,
    ]
    sheath = [sliding * params.sheath_over_sliding] * 2 + [0.005, 0, 0]
    name = lambda g: mujoco.mj_id2name(sim.model, mujoco.mjtObj.mjOBJ_GEOM, g)  # noqa: E731
    # floor and step: 8 wheels, 4 plates, 6 half-segments
    assert sim.model.npair == 2 * (8 + 4 + 6)
    for g1, g2, friction in zip(
        sim.model.pair_geom1, sim.model.pair_geom2, sim.model.pair_friction
    ):
        assert name(g1) in ('floor', 'step')
        expected = wheel if name(g2).startswith('wheel') else sheath
        assert friction.tolist() == pytest.approx(expected), (surface, name(g2))
    sim.run(vented(3), 0.2)
    contacts = sim.data.contact[: sim.data.ncon]
    assert len(contacts) >= 4
    for c in contacts:
        assert c.friction.tolist() in (pytest.approx(wheel), pytest.approx(sheath))


def test_the_table_calibrated_model_s_headline_speeds():
    """Chapter 2's headline speeds, not fitted on their own any more (calibration.py): undulation
    (140.25 mm/s) within 15 % (148 mm/s); sidewinding (76.50 mm/s) about half as fast (37 mm/s,
    the body calibrated before 127: it rolled forward along its heading on its wheels), held
    between 0.4x and 0.65x so that a change that moves it is seen."""
    (_, undulation, measured_u), (_, sidewinding, measured_s) = calibration.headline_speeds(
        calibration.CALIBRATED
    )
    assert undulation == pytest.approx(measured_u, rel=0.15)
    assert 0.4 * measured_s < sidewinding < 0.65 * measured_s


def test_eq_2_1_literal_backs_up_and_the_head_first_direction_goes_forward():
    gait, _ = PRESETS['undulation_default']
    assert gait.wave_direction == 1
    _, literal = simulator.gait_speed(gait, 'paper', calibration.CALIBRATED)
    _, head_first = simulator.gait_speed(
        calibration.head_first(gait), 'paper', calibration.CALIBRATED
    )
    assert literal < 0 < head_first


def test_undulating_on_grass_is_far_slower_than_on_paper():
    gait = calibration.head_first(PRESETS['undulation_default'][0])
    grass, _ = simulator.gait_speed(gait, 'grass', calibration.CALIBRATED)
    paper, _ = simulator.gait_speed(gait, 'paper', calibration.CALIBRATED)
    assert grass < 0.5 * paper


def test_unknown_surface_and_bad_parameters_are_refused_by_name():
    with pytest.raises(ValueError, match=r"surface 'ice': allowed carpet, grass, paper, rubber"):
        simulator.SnakeSim(4, 'ice')
    with pytest.raises(ValueError, match='bend_rad = nan'):
        body.BodyParameters(bend_rad=math.nan)


def test_the_step_climb_records_each_wheel_and_stops_at_its_timeout():
    result = climbing.climb_step(frequency_hz=2.0, timeout_s=3.0, settle_s=0.0)
    assert result.trajectory.t_s[-1] == pytest.approx(3.0)
    assert result.peak_height_m.shape == (6,) and result.landed_at_s.shape == (6,)
    # row 1 raises the head (state 3 on segment 1, sheathed) above every other axle and above
    # the step's 7 cm, the pushing segments at partial pressure leaving the supply to it
    assert result.peak_height_m[0] > max(body.STEP_HEIGHT_M, result.peak_height_m[1:].max())
    # 3 s is too short for the head to reach the step: see docs/soft_snake.md
    assert result.rows_done == 0 and not result.on_step_at_end.any()


def test_all_six_wheels_get_over_the_step_from_a_fixed_start():
    start = climbing.Start.jittered(1)
    result = climbing.climb_step(timeout_s=60.0, start=start)
    # the trigger: each wheel over the step (centre past the edge, bottom at the step's height),
    # which a head held up by state 3 is without touching the top (the old contact trigger never
    # fired); from here, each row at its own ω and share: 3.6, 16.3, 21.5, 24.3, 27.8 and 35.0 s
    assert result.rows_done == 6 and np.all(np.diff(result.landed_at_s) > 0)
    assert result.landed_at_s[-1] < 60.0
    assert np.all(result.past_edge_m > 0.0)
    assert np.isnan(result.past_edge_m[result.rows_done :]).all()
    assert np.all(result.peak_height_m > body.STEP_HEIGHT_M)
    # the finishing row pulls the whole snake on (the tail's rear wheel 66 mm past the edge), and
    # vented it settles with every wheel on the step (docs/soft_snake.md)
    assert np.all(body.up_on_step(result.end_height_m)) and result.on_step_at_end.all()


def test_a_wheel_on_the_step_rests_on_its_top_past_its_edge():
    """On it; overhanging (at its height behind the edge); in the air or the snake on its back
    (34 mm above the top); on the floor."""
    on = body.on_step([0.070, 0.068, 0.104, 0.0], [0.05, -0.04, 0.05, -0.2])
    assert on.tolist() == [True, False, False, False]


def test_row_wheel1_at_its_share_of_the_supply_gets_the_head_over_sooner():
    """The four segments behind the reared head push it over the edge at 3.6 s at row wheel1's
    0.7 of the supply, at 3.9 s at 0.5 (every row's share; 7.9 s on the body calibrated
    before)."""
    start = climbing.Start.jittered(1)
    shared = climbing.climb_step(
        timeout_s=9.0, start=start, row_undulation_duties=None, settle_s=0.0
    )
    per_row = climbing.climb_step(timeout_s=9.0, start=start, settle_s=0.0)
    assert per_row.landed_at_s[0] == pytest.approx(3.6, abs=0.2)
    assert shared.landed_at_s[0] == pytest.approx(3.9, abs=0.2)
    assert per_row.landed_at_s[0] < shared.landed_at_s[0]


def test_a_start_is_jittered_within_its_bounds_and_placed_on_the_root():
    starts = [climbing.Start.jittered(seed) for seed in range(10)]
    assert len(set(starts)) == 10 and starts[3] == climbing.Start.jittered(3)
    assert all(
        abs(s.along_m) <= 0.02 and abs(s.across_m) <= 0.02 and abs(s.heading_rad) <= 0.0873
        for s in starts
    )
    sim = simulator.SnakeSim(5, 'paper', calibration.CALIBRATED, step_at_m=0.15)
    climbing.place(sim, climbing.Start(0.01, -0.02, math.pi / 2))
    head, quaternion = sim.head_pose()
    assert head[:2] == pytest.approx([0.01, -0.02], abs=1e-9)
    assert quaternion == pytest.approx([math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)])


def test_gaits_run_from_the_gait_functions_through_the_valve_commander():
    gait = Gait('sidewinding', 3, 1.0, math.pi / 3)
    trajectory = simulator.run_gait(gait, 'rubber', 1.0, calibration.CALIBRATED)
    assert trajectory.pressure_pa.shape == (100, 3, 3)
    # the shared supply sags with two of three chambers filling in every segment (pneumatics)
    assert (
        trajectory.pressure_pa[-1].max() > 0.4 * 117e3
        and trajectory.pressure_pa[:, :, 2].max() > 0
    )


def _undulation_forward(beta_rad, module_delay_s=None):
    gait = calibration.head_first(Gait('undulation', 4, 2.0, beta_rad))
    chambers = pneumatics.DEFAULT_CHAMBERS
    if module_delay_s is not None:
        chambers = dataclasses.replace(chambers, module_delay_s=module_delay_s)
    return simulator.gait_speed(gait, 'paper', calibration.CALIBRATED, chambers=chambers)[1]


def test_undulation_thrust_is_the_travelling_wave_s_at_the_phase_the_modules_have():
    """The measured cause of the phase-offset spread (docs/soft_snake.md): the simulated snake is
    pushed by the curvature wave travelling along its plates' wheels. With every module following
    its valves at once its forward speed falls from β = 2π/3 towards the standing wave at π, where
    it stops, and reverses beyond; with the module delay d the modules' phase difference is
    β − 2πfd (2 Hz, 0.034 s: 0.43 rad): the snake is slow below π/2, fastest near 2π/3 (the
    robot: "around 2/3π to 3/4π", §5.1.1), keeps more than half that speed to 11π/12 (26, 148, 92
    mm/s at π/3, 2π/3, 11π/12) and stops only near π + 0.43 rad (between 13π/12 and 15π/12)."""
    ahead, near, standing, beyond = (
        _undulation_forward(k * math.pi / 12, module_delay_s=0.0) for k in (8, 11, 12, 13)
    )
    assert ahead > 1.5 * near > 0
    assert abs(standing) < 0.3 * near
    assert beyond < 0
    slow, ahead, fastest, near, before, after = (
        _undulation_forward(k * math.pi / 12) for k in (4, 8, 9, 11, 13, 15)
    )
    assert slow < 0.5 * ahead and near > 0.5 * ahead and min(ahead, fastest) > near
    assert before > 0 > after


@pytest.mark.xfail(
    strict=True,
    reason='issue 29 target not met: the robot keeps its undulation speed up to β = 11π/12; '
    'with the module delay the simulator loses 1.6x by then (docs/soft_snake.md)',
)
def test_undulation_keeps_its_speed_across_phase_offsets_as_the_robot_does():
    """Table 5.3 (4 modules, paper, 2 Hz): 0.275 BL/s at 2π/3, 0.243 at 11π/12; target ≤ 1.3x."""
    assert _undulation_forward(2 * math.pi / 3) < 1.3 * _undulation_forward(11 * math.pi / 12)


def test_sidewinding_on_grass_runs_as_on_carpet_as_the_robot_does():
    """Tables 5.5-5.7: the robot sidewinds at 0.052 BL/s on grass and 0.050 on carpet (mean of
    each table's cells), alike where only the rolling friction differs (§5.1.2: sidewinding "does
    not depend on the rolling friction"). 4 modules, 0.875 Hz, β = π/2: 30.7 and 28.8 mm/s (the
    body calibrated before rolled along its heading on its wheels: 85 and 48)."""
    gait = calibration.head_first(PRESETS['sidewinding_default'][0])
    grass, carpet = (
        simulator.gait_speed(gait, s, calibration.CALIBRATED)[0] for s in ('grass', 'carpet')
    )
    assert grass == pytest.approx(carpet, rel=0.2)
