"""The tensegrity 3-prism of the paper (Fig. 1-2): topology, cable triples and the initial geometry
as a function of ψ.

Numbering (spec B2). Paper vertices 1..6; rods I, II, III = (1,4), (2,6), (3,5), listed here top
end first, so each rod's axis points down. Cables are numbered as in Fig. 2: for rod k, 3k is the
upper cable (a_k, a_{k-1}), 3k+1 the lower cable (b_k, b_{k+1}) and 3k+2 the side cable (a_k,
b_{k+1}), with top ends a = (1, 2, 3) and bottom ends b = (4, 6, 5). Triples: upper 0, 3, 6; lower
1, 4, 7; side 2, 5, 8.
"""

from __future__ import annotations

import numpy as np

from soro_geometry import quaternion
from tensegrity_sim.dynamics import make_state

TOP = (1, 2, 3)
BOTTOM = (4, 6, 5)
R_PAPER = np.array([[1, 4], [2, 6], [3, 5]])
E_PAPER = np.array(
    [
        [a, b]
        for k in range(3)
        for a, b in (
            (TOP[k], TOP[k - 1]),  # 3k:   upper
            (BOTTOM[k], BOTTOM[(k + 1) % 3]),  # 3k+1: lower
            (TOP[k], BOTTOM[(k + 1) % 3]),  # 3k+2: side
        )
    ]
)
TRIPLES = {'upper': (0, 3, 6), 'lower': (1, 4, 7), 'side': (2, 5, 8)}
PSI_OPEN_RANGE_DEG = (0.0, 90.0)


class PsiError(ValueError):
    """ψ outside the open interval (0°, 90°)."""


def check_psi(psi_deg: float) -> float:
    """``psi_deg`` as a float; PsiError naming it when it is not finite or outside (0°, 90°)."""
    lo, hi = PSI_OPEN_RANGE_DEG
    if not np.isfinite(psi_deg) or not lo < psi_deg < hi:
        raise PsiError(
            f'psi_deg = {float(psi_deg)!r}: allowed range is ({lo:g}°, {hi:g}°), exclusive'
        )
    return float(psi_deg)


def initial_state(psi_deg, centre_radius_m: float) -> np.ndarray:
    """The released prism: bases parallel, each rod tilted by ψ from the vertical (spec B6), at
    rest.

    psi_deg: scalar or (B,) array; returns the state (3, 13), or (B, 3, 13) for an array of ψ. Rod
    k: centre ρ0 (cos(60° + 120°k), sin(60° + 120°k), 0), orientation q_z(120°k) ⊗ q_y(90° - ψ).
    """
    psi = np.array([check_psi(p) for p in np.atleast_1d(psi_deg)])
    k = np.arange(3)
    yaw = np.deg2rad(120.0 * k)
    centres = centre_radius_m * np.stack(
        [np.cos(np.pi / 3 + yaw), np.sin(np.pi / 3 + yaw), 0 * yaw], -1
    )
    q_yaw = quaternion.from_axis_angle([0, 0, 1], yaw)  # (3, 4)
    q_tilt = quaternion.from_axis_angle([0, 1, 0], np.deg2rad(90.0 - psi))  # (B, 4)
    q = quaternion.multiply(q_yaw[None, :, :], q_tilt[:, None, :])  # (B, 3, 4)
    zeros = np.zeros((len(psi), 3, 3))
    state = make_state(np.broadcast_to(centres, zeros.shape), zeros, q, zeros)
    return state[0] if np.ndim(psi_deg) == 0 else state
