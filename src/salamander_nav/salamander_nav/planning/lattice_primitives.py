"""The lattice of lattice A*: Euler-spiral motion primitives precomputed once (thesis §3.4.1 with
the model of §3.3.2; spec B4.4, B5.1, D-M13). No ROS.

From a state at curvature level κ_i every primitive is the Euler-spiral piece of the same length ℓ
that ends at a level κ_j, sharpness σ = (κ_j − κ_i)/ℓ (j = i: the constant-κ arc, a line at κ = 0).
Each child therefore starts at its parent's end curvature (continuous κ at every node), and κ,
linear along a piece between two levels in [−κ_max, κ_max], stays within them. Everything is stored
in the start frame (start at the origin, heading 0), so an expansion only rotates and translates:
``ends`` (dx, dy, dψ) and ``samples`` (k points along each piece).
"""

from __future__ import annotations

import math

import numpy as np

from salamander_nav.euler_spiral import Piece


def curvature_levels(kappa_max: float, count: int) -> np.ndarray:
    """``count`` (odd) levels evenly from −κ_max to κ_max (1/m), 0 among them; (count,)."""
    if count == 1:
        return np.zeros(1)
    return np.linspace(-kappa_max, kappa_max, count)


class PrimitiveSet:
    """Primitives for every start level, from a ``LatticeSettings`` (read: primitive_length_m,
    kappa_max, curvature_levels, sample_spacing_m, max_sharpness).

    For start level i (``kappas[i]``, 1/m):
    - ``targets[i]`` (L_i,) int: the end level of each primitive;
    - ``sigmas[i]`` (L_i,) 1/m²: its sharpness;
    - ``ends[i]`` (L_i, 3): end (dx m, dy m, dψ rad) in the start frame;
    - ``samples[i]`` (L_i, k, 2) m: points every ℓ/k (``spacing``) ≤ sample spacing along it,
      its start excluded, its end last;
    - ``turning[i]`` (L_i,) rad: how much it turns either way, ∫|κ| ds;
    - ``samples_z[i]`` (L_i·k,) complex: the same points as x + iy, flat, for one rotation per
      expansion.
    A transition sharper than ``max_sharpness`` is left out (the arc, σ = 0, never is).
    """

    def __init__(self, settings):
        """Sample every primitive of every start level once, from ``settings`` (see the class)."""
        self.length = float(settings.primitive_length_m)
        self.kappas = curvature_levels(float(settings.kappa_max), int(settings.curvature_levels))
        self.steps = max(1, math.ceil(self.length / settings.sample_spacing_m - 1e-9))
        # along the piece; the chord between two samples is shorter still
        self.spacing = self.length / self.steps
        along = np.linspace(0.0, self.length, self.steps + 1)[1:]
        self.targets, self.sigmas, self.ends, self.samples, self.samples_z = [], [], [], [], []
        self.turning = []
        for kappa in self.kappas:
            sigma = (self.kappas - kappa) / self.length
            keep = np.flatnonzero(np.abs(sigma) <= settings.max_sharpness * (1 + 1e-12))
            # (L, k, 4)
            states = np.array([self.piece(kappa, sigma[j]).sample(along) for j in keep])
            self.targets.append(keep)
            self.sigmas.append(sigma[keep])
            self.ends.append(states[:, -1, :3].copy())
            self.samples.append(states[:, :, :2].copy())
            self.samples_z.append((states[:, :, 0] + 1j * states[:, :, 1]).ravel())
            self.turning.append(np.array([self.piece(kappa, s).turning() for s in sigma[keep]]))

    def piece(self, kappa0: float, sigma: float, pose=(0.0, 0.0, 0.0)) -> Piece:
        """The Euler-spiral piece of length ℓ from ``pose`` (x m, y m, ψ rad) at ``kappa0`` with
        ``sigma``."""
        return Piece(
            float(pose[0]),
            float(pose[1]),
            float(pose[2]),
            float(kappa0),
            float(sigma),
            self.length,
        )

    def __len__(self) -> int:
        """The number of primitives over all start levels."""
        return sum(len(t) for t in self.targets)

    def placed(self, level: int, index: int, x: float, y: float, psi: float) -> np.ndarray:
        """(k, 2) samples of primitive ``index`` of start level ``level`` from the pose (x, y m, ψ
        rad)."""
        c, s = math.cos(psi), math.sin(psi)
        local = self.samples[level][index]
        return np.column_stack(
            [x + c * local[:, 0] - s * local[:, 1], y + s * local[:, 0] + c * local[:, 1]]
        )
