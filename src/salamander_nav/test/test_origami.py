"""Eq. 3.1 and its forward kinematics (spec C2, SA-01 and SA-02)."""

import math

import numpy as np
import pytest

from salamander_nav import origami
from salamander_nav.origami import Bend, WorkspaceError

D = 0.02  # the spec's illustrative cable offset


def test_spec_example_lengths():
    lengths = origami.cable_lengths(Bend(0.148, math.radians(90), 0.0), D)
    np.testing.assert_allclose(lengths * 1e3, [133.247, 157.742, 108.752], atol=5e-4)


@pytest.mark.parametrize('theta', [0.0, 1e-12, 1e-7])
def test_straight_limit_gives_equal_cables(theta):
    np.testing.assert_allclose(
        origami.cable_lengths(Bend(0.12, theta, 0.7), D), 0.12, rtol=1e-6, atol=0
    )


@pytest.mark.parametrize(
    's, theta_deg, phi_deg',
    [(0.148, 90, 0), (0.148, 106, 180), (0.12, 45, 90), (0.1, 30, -40), (0.057, 5, 123)],
)
def test_invariants_and_round_trip(s, theta_deg, phi_deg):
    bend = Bend(s, math.radians(theta_deg), math.radians(phi_deg))
    lengths = origami.cable_lengths(bend, D)
    assert lengths.sum() == pytest.approx(6 * math.sin(bend.kappa * s / 2) / bend.kappa, rel=1e-12)
    back = origami.bend_of(lengths, D)
    assert back.s_m == pytest.approx(s, rel=1e-9)
    assert back.theta_rad == pytest.approx(bend.theta_rad, rel=1e-9)
    assert math.cos(back.phi_rad - bend.phi_rad) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize('phi', [0.0, math.pi])
def test_planar_bends_keep_cable_one_the_mean(phi):
    l1, l2, l3 = origami.cable_lengths(Bend(0.14, 1.2, phi), D)
    assert 2 * l1 == pytest.approx(l2 + l3, abs=1e-15)


@pytest.mark.parametrize('phi_deg, shortest', [(90, 0), (0, 2), (210, 1), (330, 2)])
def test_shortest_cable_is_nearest_the_bending_direction(phi_deg, shortest):
    assert np.argmin(origami.cable_lengths(Bend(0.148, 1.0, math.radians(phi_deg)), D)) == shortest


def test_phi_180_shortens_cable_two_against_three():
    _, l2, l3 = origami.cable_lengths(Bend(0.148, 1.0, math.pi), D)
    assert l2 < l3


def test_workspace_limits_and_kappa_max():
    assert origami.KAPPA_MAX == pytest.approx(12.52, abs=0.005)
    # R_min = 0.54 BL
    assert 1 / origami.KAPPA_MAX / origami.BODY_LENGTH_M == pytest.approx(0.54, abs=0.005)
    bend, notes = origami.saturate(Bend(0.2, math.radians(120), 0.0))
    assert (bend.s_m, bend.theta_rad) == (0.148, origami.THETA_MAX_RAD) and len(notes) == 2
    assert '148.0 mm' in notes[0] and '106.0°' in notes[1]
    bend, notes = origami.saturate(Bend(0.03, -0.1, 0.0))
    assert (bend.s_m, bend.theta_rad, notes[0][:12]) == (0.057, 0.0, 's = 30.0 mm ')
    assert origami.saturate(Bend(0.1, 0.5, 1.0)) == (Bend(0.1, 0.5, 1.0), [])


def test_bad_input_is_refused():
    with pytest.raises(WorkspaceError, match='not finite'):
        origami.saturate(Bend(float('nan'), 0.1, 0.0))
    with pytest.raises(WorkspaceError, match='three finite positive'):
        origami.bend_of([0.1, 0.1, float('inf')], D)
    with pytest.raises(WorkspaceError, match='differ by more'):
        origami.bend_of([0.1, 0.2, 0.05], D)


@pytest.mark.parametrize('kappa', [5.0, -5.0, 0.0])
def test_steering_bend_round_trips_the_signed_curvature(kappa):
    bend = origami.steering_bend(kappa, 0.148)
    assert origami.steering_curvature(bend) == pytest.approx(kappa)
    assert bend.phi_rad in (0.0, math.pi)
