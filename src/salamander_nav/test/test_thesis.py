"""HW-01: the thesis's figures, and that they agree with one another where the thesis derives one
from another."""

import math

import pytest

from salamander_nav import origami, thesis


def test_body_length_and_turning_radius_agree():
    # 2.05 BL/s
    assert thesis.MAX_SPEED_GEAR_PAPER_M_S / 2.05 == pytest.approx(origami.BODY_LENGTH_M, abs=1e-3)
    assert origami.R_TURN_MIN_M / origami.BODY_LENGTH_M == pytest.approx(0.54, abs=0.005)
    # L / θ_max
    assert origami.BODY_LENGTH_M / origami.THETA_MAX_RAD == pytest.approx(0.080, abs=5e-4)
    # printed "38 %" (§3.1.1)
    assert origami.S_MIN_M / origami.S_MAX_M == pytest.approx(0.385, abs=5e-4)


def test_torsional_stiffness_in_both_units_and_the_curvature_typo():
    assert thesis.TORSIONAL_STIFFNESS_NM_PER_RAD * math.pi / 180 == pytest.approx(0.128, abs=5e-4)
    assert thesis.TABLE_4_1_CURVATURE + 2 == pytest.approx(origami.KAPPA_MAX, abs=0.01)
    assert thesis.GEAR_RATIO == pytest.approx(2.214, abs=1e-3)
