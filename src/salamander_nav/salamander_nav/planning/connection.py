"""Lattice A*'s analytic expansion (issue 28; Nav2's Smac planners have one): the Euler-spiral
curve from a search state to the exact goal pose, so that the path ends at the goal's position and
heading instead of anywhere within the goal tolerance at whatever heading the lattice arrived. No
ROS.

The curve is ``PIECES`` Euler-spiral pieces of one length each (``euler_spiral.chain``): its
curvature is piecewise linear in arc length, continuous, starts at the state's curvature and stays
within ±κ_max (every node of the profile does, and κ is linear between them). The heading at the
end is closed-form (the integral of κ); the position is solved for with the nodes' curvatures and
the length as unknowns (scipy's bounded least squares). A connection counts only when it lands
within ``POSITION_TOLERANCE_M`` and ``HEADING_TOLERANCE_RAD`` of the goal.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares

from salamander_nav.euler_spiral import Piece, chain, sample_pieces

PIECES = 3
POSITION_TOLERANCE_M = 1e-3
HEADING_TOLERANCE_RAD = math.radians(0.5)
# bounds a hair inside κ_max: the discrete curvature of the samples then stays under it
KAPPA_SHARE = 1.0 - 1e-3


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(8)
SUBINTERVALS = 6  # per piece, for the solver's quadrature (Gauss-Legendre, 8 nodes each)


def connect(pose, kappa0: float, goal, kappa_max: float) -> list[Piece] | None:
    """Pieces from ``pose`` (x, y, ψ) at curvature ``kappa0`` to ``goal`` (x, y, ψ) within the
    tolerances, |κ| ≤ κ_max throughout; None when the solver finds none."""
    x0, y0, psi0 = (float(v) for v in pose)
    d = math.hypot(goal[0] - x0, goal[1] - y0)
    if d < POSITION_TOLERANCE_M:
        return None
    turn = math.remainder(float(goal[2]) - psi0, 2 * math.pi)  # the shorter way round
    limit = kappa_max * KAPPA_SHARE
    kappa0 = max(-limit, min(limit, float(kappa0)))
    target = np.array([goal[0] - x0, goal[1] - y0, 0.1 * turn])
    lower = np.r_[np.full(PIECES, -limit), d]
    upper = np.r_[np.full(PIECES, limit), 4.0 * d + 1e-9]
    for guess_length in (1.1 * d, 2.0 * d):
        guess = np.r_[np.full(PIECES, max(-limit, min(limit, turn / guess_length))), guess_length]
        fit = least_squares(
            lambda u: _end(u, kappa0, psi0) - target,
            guess,
            bounds=(lower, upper),
            xtol=1e-12,
            ftol=1e-12,
        )
        pieces = _pieces(fit.x, kappa0, (x0, y0, psi0))
        end = pieces[-1].end()
        miss = math.hypot(end[0] - goal[0], end[1] - goal[1])
        off = abs(math.remainder(end[2] - float(goal[2]), 2 * math.pi))
        if miss <= POSITION_TOLERANCE_M and off <= HEADING_TOLERANCE_RAD:
            return pieces
    return None


def _pieces(u: np.ndarray, kappa0: float, pose) -> list[Piece]:
    """The chain of unknowns ``u`` (node curvatures after the first, then the length)."""
    step, nodes = u[-1] / PIECES, np.r_[kappa0, u[:-1]]
    return chain(pose, kappa0, [((b - a) / step, step) for a, b in zip(nodes, nodes[1:])])


def _end(u: np.ndarray, kappa0: float, psi0: float) -> np.ndarray:
    """(dx, dy, 0.1 Δψ) at the end of the chain ``u`` from heading ``psi0``, by one vectorised
    quadrature (the solver calls this hundreds of times; ``Piece.end`` is exact but slower)."""
    step, nodes = u[-1] / PIECES, np.r_[kappa0, u[:-1]]
    edges = np.linspace(0.0, step, SUBINTERVALS + 1)
    half = 0.5 * (edges[1] - edges[0])
    s = (0.5 * (edges[1:] + edges[:-1]))[:, None] + half * _NODES  # (sub, 8) within a piece
    sigma = np.diff(nodes) / step
    start = psi0 + np.r_[0.0, np.cumsum(0.5 * (nodes[:-1] + nodes[1:]) * step)][:-1]
    psi = start[:, None, None] + nodes[:-1, None, None] * s + 0.5 * sigma[:, None, None] * s * s
    w = half * _WEIGHTS
    heading = start[-1] + 0.5 * (nodes[-2] + nodes[-1]) * step - psi0
    return np.array([(w * np.cos(psi)).sum(), (w * np.sin(psi)).sum(), 0.1 * heading])


def samples(pieces: list[Piece], spacing_m: float) -> np.ndarray:
    """(n, 2) points along ``pieces`` at most ``spacing_m`` apart, the start excluded, the end
    last."""
    return sample_pieces(pieces, spacing_m)[1:, :2]
