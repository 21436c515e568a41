"""Gait performance as the paper reports it (section VII, Table IX): speeds in mm/s, BL/s and
deg/s, improvements."""

from __future__ import annotations

# BL: the largest dimension of the robot, flat and unactuated (Table IX note)
BODY_LENGTH_MM = {3: 220.0, 4: 350.0}


def body_lengths_per_s(speed_mm_s: float, n_limbs: int) -> float:
    """Speed in mm/s as body lengths per second (Table IX); KeyError unless 3 or 4 limbs."""
    return speed_mm_s / BODY_LENGTH_MM[n_limbs]


def improvement_pct(intuitive: float, synthesized: float) -> float:
    """Table IX's % improvement of the fastest synthesized gait over the fastest intuitive one."""
    return 100.0 * (synthesized - intuitive) / intuitive
