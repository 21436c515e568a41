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
# per solver start: a connection that exists is found within 40 evaluations on 300 random poses as
# often as within scipy's default 400 (101 of 300 each, with the Jacobian's scaling), for a quarter
# of the time
MAX_EVALUATIONS = 40


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
    curve = _Curve(kappa0, psi0)
    target = np.array([goal[0] - x0, goal[1] - y0, 0.1 * turn])
    lower = np.r_[np.full(PIECES, -limit), d]
    upper = np.r_[np.full(PIECES, limit), 4.0 * d + 1e-9]
    for guess_length in (1.1 * d, 2.0 * d):
        guess = np.r_[np.full(PIECES, max(-limit, min(limit, turn / guess_length))), guess_length]
        fit = least_squares(
            lambda u: curve.end(u) - target,
            guess,
            jac=curve.jacobian,
            bounds=(lower, upper),
            x_scale='jac',
            xtol=1e-12,
            ftol=1e-12,
            max_nfev=MAX_EVALUATIONS,
        )
        pieces = curve.pieces(fit.x, (x0, y0, psi0))
        end = pieces[-1].end()
        miss = math.hypot(end[0] - goal[0], end[1] - goal[1])
        off = abs(math.remainder(end[2] - float(goal[2]), 2 * math.pi))
        if miss <= POSITION_TOLERANCE_M and off <= HEADING_TOLERANCE_RAD:
            return pieces
    return None


class _Curve:
    """PIECES Euler-spiral pieces of one length whose curvature is linear between PIECES + 1 nodes
    evenly spaced in t = s/L: the first node ``kappa0``, the others and L the unknowns ``u``. End
    and Jacobian by one quadrature in t, cached for the last ``u`` (the solver asks for both at
    each step, hundreds of times; ``Piece.end`` is exact but slower, and finite differences cost
    four more calls each): ψ(Lt) = ψ0 + L Φ(t) @ nodes, Φ the integrals of the nodes' hat
    functions."""

    def __init__(self, kappa0: float, psi0: float):
        self.kappa0, self.psi0 = kappa0, psi0
        self._at, self._cache = None, None

    def pieces(self, u: np.ndarray, pose) -> list[Piece]:
        """The chain of ``u`` from ``pose`` (x, y, ψ)."""
        step, nodes = u[-1] / PIECES, np.r_[self.kappa0, u[:-1]]
        return chain(pose, self.kappa0, [((b - a) / step, step) for a, b in zip(nodes, nodes[1:])])

    def end(self, u: np.ndarray) -> np.ndarray:
        """(dx, dy, 0.1 Δψ) at the end of the chain ``u``."""
        return self._evaluate(u)[0]

    def jacobian(self, u: np.ndarray) -> np.ndarray:
        """(3, PIECES + 1): the end's derivatives in ``u``."""
        return self._evaluate(u)[1]

    def _evaluate(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._at is not None and np.array_equal(u, self._at):
            return self._cache
        length, nodes = u[-1], np.r_[self.kappa0, u[:-1]]
        turned = _PHI @ nodes  # (Q,) ∫κ dt up to each t
        psi = self.psi0 + length * turned
        wc, ws = _W * np.cos(psi), _W * np.sin(psi)
        heading = _PHI_END @ nodes
        end = np.array([length * wc.sum(), length * ws.sum(), 0.1 * length * heading])
        jacobian = np.empty((3, PIECES + 1))
        jacobian[0, :-1] = -length * length * (ws @ _PHI[:, 1:])
        jacobian[1, :-1] = length * length * (wc @ _PHI[:, 1:])
        jacobian[2, :-1] = 0.1 * length * _PHI_END[1:]
        jacobian[:, -1] = [
            wc.sum() - length * (ws @ turned),
            ws.sum() + length * (wc @ turned),
            0.1 * heading,
        ]
        self._at, self._cache = u.copy(), (end, jacobian)
        return self._cache


def _hat_integrals(t) -> np.ndarray:
    """(..., PIECES + 1): ∫_0^t of the hat function of each node (width 1/PIECES)."""
    width = 1.0 / PIECES
    centres = np.linspace(0.0, 1.0, PIECES + 1)

    def below(t):  # ∫_{-∞}^t of each whole hat
        u = np.clip((np.asarray(t)[..., None] - centres) / width, -1.0, 1.0)
        return width * np.where(u <= 0, 0.5 * (u + 1) ** 2, 1.0 - 0.5 * (1 - u) ** 2)

    return below(t) - below(0.0)


def _quadrature(subintervals: int = 6 * PIECES, order: int = 8):
    """(weights (Q,), Φ (Q, PIECES + 1)): Gauss-Legendre nodes on [0, 1] and, at each, the
    integral from 0 of every node's hat function."""
    nodes, weights = np.polynomial.legendre.leggauss(order)
    edges = np.linspace(0.0, 1.0, subintervals + 1)
    half = 0.5 * np.diff(edges)[:, None]
    t = ((edges[:-1, None] + edges[1:, None]) / 2 + half * nodes).ravel()
    return (half * weights).ravel(), _hat_integrals(t)


_W, _PHI = _quadrature()
_PHI_END = _hat_integrals(1.0)  # Φ(1): the heading turned is L Φ(1) @ nodes


def samples(pieces: list[Piece], spacing_m: float) -> np.ndarray:
    """(n, 2) points along ``pieces`` at most ``spacing_m`` apart, the start excluded, the end
    last."""
    return sample_pieces(pieces, spacing_m)[1:, :2]
