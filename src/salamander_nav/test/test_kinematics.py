"""The single-module model of §3.3.2 (spec B4, C2: SA-03, SA-04, SA-05)."""

import math

import numpy as np
import pytest

from salamander_nav import euler_spiral, kinematics
from salamander_nav.kinematics import ModuleGeometry


def test_curvature_is_linear_in_motor_angle():
    g = ModuleGeometry(cable_offset_m=0.02, spool_radius_m=0.004, length_m=0.148)
    alphas = np.linspace(0, 3, 7)
    kappas = kinematics.curvature_of_retraction(g.spool_radius_m * alphas, g)
    np.testing.assert_allclose(np.diff(kappas, 2), 0, atol=1e-12)
    assert kinematics.curvature_rate(1.0, g) == pytest.approx(
        2 * 0.004 / (math.sqrt(3) * 0.02 * 0.148)
    )


def test_speed_is_the_mean_wheel_speed_times_radius():
    assert kinematics.forward_speed(10.0, 6.0, 0.02) == pytest.approx(0.16)


def test_constant_speed_and_curvature_rate_trace_a_clothoid():
    v, rate, dt = 0.1, 2.0, 0.01
    state, states = np.zeros(4), []
    for _ in range(100):
        state = kinematics.advance(state, v, rate, dt)
        states.append(state)
    states = np.array(states)
    s = v * dt * np.arange(1, 101)
    assert np.allclose(np.diff(states[:, 3]) / np.diff(s), rate / v)  # dκ/ds = κ̇/v
    exact = euler_spiral.Piece(0, 0, 0, 0, rate / v, s[-1]).end()
    np.testing.assert_allclose(states[-1], exact, atol=1e-12)


def test_constant_curvature_drives_a_circle():
    state, kappa = np.array([0, 0, 0, 5.0]), 5.0
    points = [kinematics.advance(state, 0.1, 0.0, t)[:2] for t in np.linspace(0.1, 6, 20)]
    radii = np.hypot(*(np.array(points) - [0, 1 / kappa]).T)
    np.testing.assert_allclose(radii, 1 / kappa, atol=1e-12)


def test_curvature_saturates_at_kappa_max():
    state = kinematics.advance([0, 0, 0, 12.0], 0.1, 100.0, 0.05, kappa_max=12.52)
    assert state[3] == 12.52
    ramp = euler_spiral.Piece(0, 0, 0, 12.0, 100.0 / 0.1, 0.1 * 0.0052).end()
    arc = euler_spiral.Piece(*ramp[:3], 12.52, 0.0, 0.1 * (0.05 - 0.0052)).end()
    np.testing.assert_allclose(state[:3], arc[:3], atol=1e-12)


def test_standing_still_only_bends():
    state = kinematics.advance([1, 2, 0.3, 0.0], 0.0, 4.0, 0.5)
    np.testing.assert_allclose(state, [1, 2, 0.3, 2.0])


def test_path_curvature_lags_the_bend_over_distance_not_time():
    # the step response: 1 - e^-1 of the way after one lag length, whatever the speed
    lag = 0.148
    for v, dt in ((0.05, 0.01), (0.25, 0.002)):
        plant = kinematics.Plant((0, 0, 0), kinematics.PlantError(curvature_lag_m=lag))
        for _ in range(round(lag / (v * dt))):
            plant.step(v, 5.0, dt)
        assert plant.state[3] == pytest.approx(5.0 * (1 - math.exp(-1)), rel=1e-9)
    assert kinematics.lagged_curvature(1.0, 5.0, 3 * lag, lag) == pytest.approx(
        5.0 - 4.0 * math.exp(-3)
    )
    # standing still, the path keeps its curvature
    assert kinematics.lagged_curvature(1.0, 5.0, 0.0, lag) == 1.0


def test_steering_gain_scales_the_circle_the_bend_drives():
    plant = kinematics.Plant((0, 0, 0), kinematics.PlantError(bend_gain=0.8))
    start = plant.step(0.1, 5.0, 0.05).copy()  # the curvature's ramp from straight
    assert start[3] == pytest.approx(4.0)  # 0.8 × 5 1/m
    points = [plant.step(0.1, 5.0, 0.05).copy() for _ in range(100)]
    # then an arc of radius 1/4 m: the heading turns 4 rad per metre
    assert points[-1][2] - start[2] == pytest.approx(4.0 * 0.1 * 0.05 * 100)
    centre = start[:2] + 0.25 * np.array([-math.sin(start[2]), math.cos(start[2])])
    radii = np.hypot(*(np.array(points)[:, :2] - centre).T)
    np.testing.assert_allclose(radii, 0.25, atol=1e-9)


def test_the_default_plant_is_the_planners_model():
    plant, state = kinematics.Plant((1, 2, 0.3)), np.array([1, 2, 0.3, 0.0])
    for kappa in (2.0, 2.0, -3.0, 0.5):
        state = kinematics.advance(state, 0.1, (kappa - state[3]) / 0.02, 0.02, math.inf)
        np.testing.assert_array_equal(plant.step(0.1, kappa, 0.02), state)
    assert state[3] == 0.5


@pytest.mark.parametrize('error', [{'curvature_lag_m': -0.1}, {'bend_gain': 0.0}])
def test_a_plant_error_out_of_range_is_refused(error):
    with pytest.raises(ValueError, match=next(iter(error))):
        kinematics.PlantError(**error)
