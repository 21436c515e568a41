"""Euler-spiral (clothoid) pieces: the salamander's motion primitives (thesis §3.3.2, Eq. 3.2, Fig.
3.23).

With constant wheel speed v and constant curvature rate κ̇ the curvature is linear in arc length,
κ(s) = κ0 + σ s with sharpness σ = κ̇ / v (the thesis's 1/RL); σ = 0 is an arc, and a line when κ0
= 0 too. A piece starting at pose (x0 m, y0 m, ψ0 rad) has heading ψ(s) = ψ0 + κ0 s + σ s²/2 and
position the integral of (cos ψ, sin ψ), evaluated here by Gauss-Legendre quadrature on
sub-intervals over which the heading turns by at most 0.25 rad (exact to rounding). Pieces chain by
starting each where the previous ends, which gives the C⁰ position, C¹ heading and continuous
curvature the thesis's T(Δθ) attachment aims at (D-M12). No ROS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(8)
MAX_TURN_PER_INTERVAL_RAD = 0.25


@dataclass(frozen=True)
class Piece:
    """A clothoid piece: start pose (x0, y0 m; psi0 rad), start curvature kappa0 (1/m), sharpness
    sigma (1/m²), length (m)."""

    x0: float
    y0: float
    psi0: float
    kappa0: float
    sigma: float
    length: float

    def heading(self, s):
        """ψ(s) (rad) at arc lengths s (m) from the piece's start."""
        s = np.asarray(s, dtype=float)
        return self.psi0 + self.kappa0 * s + 0.5 * self.sigma * s * s

    def curvature(self, s):
        """κ(s) = κ0 + σ s (1/m) at arc lengths s (m) from the piece's start."""
        return self.kappa0 + self.sigma * np.asarray(s, dtype=float)

    def sample(self, s) -> np.ndarray:
        """States (x, y, ψ, κ) at the increasing arc lengths ``s`` (m, shape (n,), s[0] ≥ 0); shape
        (n, 4)."""
        s = np.asarray(s, dtype=float)
        bounds = np.concatenate([[0.0], s])
        steps = []
        for a, b in zip(bounds[:-1], bounds[1:]):
            steps.append(self._displacement(a, b))
        xy = np.cumsum(np.array(steps).reshape(-1, 2), 0) + [self.x0, self.y0]
        return np.column_stack([xy, self.heading(s), self.curvature(s)])

    def end(self) -> np.ndarray:
        """(x, y, ψ, κ) at the end of the piece."""
        return self.sample([self.length])[0]

    def turning(self) -> float:
        """How much it turns either way (rad): ∫|κ| ds."""
        kappa1 = self.kappa0 + self.sigma * self.length
        if self.kappa0 * kappa1 >= 0:
            return 0.5 * abs(self.kappa0 + kappa1) * self.length
        return 0.5 * (self.kappa0 * self.kappa0 + kappa1 * kappa1) / abs(self.sigma)  # via κ = 0

    def _displacement(self, a: float, b: float) -> np.ndarray:
        """∫_a^b (cos ψ, sin ψ) ds, on sub-intervals short enough in turning for 8-point
        Gauss-Legendre."""
        turn = (b - a) * max(abs(self.kappa0 + self.sigma * a), abs(self.kappa0 + self.sigma * b))
        parts = max(1, math.ceil(turn / MAX_TURN_PER_INTERVAL_RAD))
        edges = np.linspace(a, b, parts + 1)
        half = 0.5 * (edges[1:] - edges[:-1])
        nodes = (0.5 * (edges[1:] + edges[:-1]))[:, None] + half[:, None] * _NODES
        psi = self.heading(nodes)
        w = half[:, None] * _WEIGHTS
        return np.array([(w * np.cos(psi)).sum(), (w * np.sin(psi)).sum()])


def chain(start, kappa0: float, segments) -> list[Piece]:
    """Pieces that follow each other from ``start`` (x, y, ψ) at curvature ``kappa0``: each of
    ``segments`` is (sigma 1/m², length m) and starts where the previous one ended (Fig. 3.23's
    piecewise curve)."""
    pieces, state = [], np.array([*start, kappa0], dtype=float)
    for sigma, length in segments:
        piece = Piece(*(float(v) for v in state), float(sigma), float(length))
        pieces.append(piece)
        state = piece.end()
    return pieces


def between_curvatures(start, kappa_from: float, kappa_to: float, rl: float) -> Piece:
    """The piece of the Euler spiral with constant ``rl`` = ds/dκ = v/κ̇ (m², Table 3.5's RL) cut
    between two curvatures (§3.3.2, step 2): length rl |κ_to − κ_from|, sharpness ±1/rl."""
    if not rl > 0:
        raise ValueError(f'RL = {rl}: must be > 0 (m²)')
    delta = kappa_to - kappa_from
    return Piece(
        *(float(v) for v in start),
        float(kappa_from),
        math.copysign(1.0 / rl, delta),
        abs(delta) * rl,
    )


def sample_pieces(pieces, spacing_m: float) -> np.ndarray:
    """States (x, y, ψ, κ) along ``pieces`` about every ``spacing_m``, each piece's start and end
    included once."""
    out = [np.array([[p.x0, p.y0, p.psi0, p.kappa0] for p in pieces[:1]])]
    for p in pieces:
        n = max(1, math.ceil(p.length / spacing_m))
        out.append(p.sample(np.linspace(0.0, p.length, n + 1)[1:]))
    return np.concatenate(out)
