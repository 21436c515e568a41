"""Euler-spiral pieces (thesis Eq. 3.2, spec B4.4, SA-05)."""

import math

import numpy as np
import pytest
from scipy.special import fresnel

from salamander_nav import euler_spiral
from salamander_nav.euler_spiral import Piece


def test_spec_values_for_rl_one():
    states = Piece(0, 0, 0, 0, 1.0, 2.0).sample([1.0, 2.0])
    np.testing.assert_allclose(states[0], [0.975288, 0.163714, 0.5, 1.0], atol=1e-6)
    np.testing.assert_allclose(states[1], [1.335194, 0.997624, 2.0, 2.0], atol=1e-6)


def test_agrees_with_fresnel_integrals():
    # x(s) = ∫ cos(u²/2) du = √π C(s/√π) for σ = 1
    s = np.linspace(0.1, 5.0, 30)
    c, f = fresnel(s / math.sqrt(math.pi))[::-1]
    states = Piece(0, 0, 0, 0, 1.0, 5.0).sample(s)
    np.testing.assert_allclose(states[:, 0], math.sqrt(math.pi) * c, atol=1e-13)
    np.testing.assert_allclose(states[:, 1], math.sqrt(math.pi) * f, atol=1e-13)


def test_arc_and_line():
    arc = Piece(0, 0, 0, 2.0, 0.0, math.pi / 2).end()
    # half a circle of radius 0.5
    np.testing.assert_allclose(arc, [0.0, 1.0, math.pi, 2.0], atol=1e-14)
    np.testing.assert_allclose(
        Piece(1, 1, math.pi / 4, 0, 0, math.sqrt(2)).end(), [2, 2, math.pi / 4, 0], atol=1e-14
    )


def test_negative_curvature_mirrors():
    left, right = Piece(0, 0, 0, 0.5, 1.5, 1.2).end(), Piece(0, 0, 0, -0.5, -1.5, 1.2).end()
    np.testing.assert_allclose(right, left * [1, -1, -1, -1], atol=1e-14)


def test_source_procedure_cuts_between_curvatures():
    piece = euler_spiral.between_curvatures((0, 0, 0), 1.0, 2.0, rl=1.0)
    full = Piece(0, 0, 0, 0, 1.0, 2.0)
    start = full.sample([1.0])[0]
    cut = euler_spiral.between_curvatures(start[:3], 1.0, 2.0, rl=1.0)
    np.testing.assert_allclose(cut.end(), full.end(), atol=1e-12)
    assert (piece.length, piece.sigma) == (1.0, 1.0)
    with pytest.raises(ValueError, match='RL'):
        euler_spiral.between_curvatures((0, 0, 0), 1.0, 2.0, rl=0.0)


def test_chained_pieces_are_continuous():
    pieces = euler_spiral.chain(
        (0.2, -0.1, 0.4), 0.0, [(30.0, 0.2), (0.0, 0.3), (-60.0, 0.15), (10.0, 0.5)]
    )
    for a, b in zip(pieces, pieces[1:]):
        end = a.end()
        assert math.hypot(end[0] - b.x0, end[1] - b.y0) <= 1e-9
        assert abs(end[2] - b.psi0) <= 1e-9 and abs(end[3] - b.kappa0) <= 1e-12
    dense = euler_spiral.sample_pieces(pieces, 0.001)
    assert np.hypot(*np.diff(dense[:, :2], axis=0).T).max() <= 0.001 + 1e-12
