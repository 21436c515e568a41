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
