"""A tensegrity structure as typed, validated data: rods (connectivity R), cables (E with S, Γ, P),
environment.

Vertices are numbered 0..n_v-1 here; ``Structure.from_paper`` takes the paper's 1-based R and E.
Every vertex is the end of exactly one rod: rods are rigid bodies and cables are massless, so a
vertex without a rod would have no mass. Units are SI throughout (m, kg, N/m, N·s/m, s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

INERTIA_MODES = ('thin_rod', 'identity')
DAMPING_MODES = ('relative_full', 'relative_axial')


# m: a cable's rest length beyond is a typo, not a structure (1e300 was taken)
MAX_CABLE_M = 1e3


class StructureError(ValueError):
    """A structure field that is not allowed; the message names the field and the allowed range."""


def _check_array(
    name: str, value, count: int, *, positive: bool = False, high: float = math.inf
) -> np.ndarray:
    """``value`` (scalar or sequence) as a float array of ``count``, finite and >= 0 (> 0 with
    ``positive``), at most ``high``."""
    try:
        array = np.broadcast_to(np.asarray(value, dtype=float), (count,)).copy()
    except (ValueError, TypeError):
        raise StructureError(
            f'{name} = {value!r}: must be one number or {count} numbers (one per element)'
        ) from None
    bound = ('> 0' if positive else '>= 0') + (f' and <= {high:g}' if high < math.inf else '')
    for i, x in enumerate(array):
        if not math.isfinite(x) or x < 0 or (positive and x == 0) or x > high:
            raise StructureError(f'{name}[{i}] = {float(x)!r}: must be finite and {bound}')
    return array


def _check_scalar(name: str, value: float, *, positive: bool = False) -> float:
    return float(_check_array(name, value, 1, positive=positive)[0])


def _check_connectivity(name: str, pairs, n_vertices: int | None = None) -> np.ndarray:
    """Vertex pairs (k, 2); ``n_vertices`` defaults to two per pair (the rods' own vertices)."""
    array = np.asarray(pairs)
    if array.ndim != 2 or array.shape[1] != 2 or not np.issubdtype(array.dtype, np.integer):
        raise StructureError(
            f'{name}: must be an integer array of shape (k, 2), got {array.tolist()!r}'
        )
    top = (2 * len(array) if n_vertices is None else n_vertices) - 1
    for row, (a, b) in enumerate(array):
        if min(a, b) < 0 or max(a, b) > top:
            raise StructureError(
                f'{name}[{row}] = ({a}, {b}) names a missing vertex; allowed vertices are 0..{top}'
            )
        if a == b:
            raise StructureError(f'{name}[{row}] = ({a}, {b}) joins a vertex to itself')
    return array.astype(np.intp)


@dataclass(frozen=True)
class Ground:
    """A flat floor z = height with penalty contact and regularised Coulomb friction at the rod
    ends."""

    height_m: float = 0.0
    stiffness_n_per_m: float = 1.0e4
    damping_n_s_per_m: float = 50.0
    friction: float = 0.8  # Coulomb coefficient μ
    # Below this slip speed friction ramps linearly (regularised stick): a viscous μN/v_s that an
    # explicit step must resolve, dt < 2 m v_s/(μ N); 1 cm/s keeps a 1 kg rod stable at dt = 2 ms.
    slip_velocity_m_s: float = 1.0e-2

    def __post_init__(self):
        if not math.isfinite(self.height_m):
            raise StructureError(f'ground.height_m = {self.height_m!r}: must be finite')
        for name in ('stiffness_n_per_m', 'slip_velocity_m_s'):
            _check_scalar(f'ground.{name}', getattr(self, name), positive=True)
        for name in ('damping_n_s_per_m', 'friction'):
            _check_scalar(f'ground.{name}', getattr(self, name))


@dataclass(frozen=True)
class Structure:
    """Rods, cables and environment. Per-rod and per-cable fields accept a scalar (same for all) or
    a sequence.

    rods: (n_r, 2) vertex pairs; the rod axis (body x) points from the first vertex to the second.
    cables: (n_c, 2) vertex pairs, in the order the cables are reported (strains, tensions).
    inertia: 'thin_rod' (isotropic m L²/12: exact for rods loaded only at their ends, see
    ``rod_inertia``) or 'identity' (1 kg·m², what the authors' package uses).
    """

    rods: np.ndarray
    cables: np.ndarray
    rod_mass_kg: np.ndarray = 1.0
    rod_length_m: np.ndarray = 0.3
    inertia: str = 'thin_rod'
    cable_stiffness_n_per_m: np.ndarray = 10.0
    cable_rest_length_m: np.ndarray = 0.2
    cable_damping_n_s_per_m: np.ndarray = 0.0
    damping_mode: str = 'relative_full'
    unilateral: bool = True
    rod_drag_linear_n_s_per_m: float = 0.0
    rod_drag_angular_n_m_s: float = 0.0
    gravity_m_s2: np.ndarray = field(default_factory=lambda: np.zeros(3))
    ground: Ground | None = None

    def __post_init__(self):
        rods = _check_connectivity('rods', self.rods)
        n_vertices = 2 * len(rods)
        counts = np.bincount(rods.ravel(), minlength=n_vertices)
        if len(counts) != n_vertices or np.any(counts != 1):
            raise StructureError(
                f'rods: every vertex 0..{n_vertices - 1} must be the end of exactly one '
                'rod, '
                f'got {rods.tolist()!r}'
            )
        cables = _check_connectivity('cables', self.cables, n_vertices)
        n_r, n_c = len(rods), len(cables)
        set_ = object.__setattr__  # frozen dataclass: normalise the fields once, here
        set_(self, 'rods', rods)
        set_(self, 'cables', cables)
        set_(
            self, 'rod_mass_kg', _check_array('rod_mass_kg', self.rod_mass_kg, n_r, positive=True)
        )
        set_(
            self,
            'rod_length_m',
            _check_array('rod_length_m', self.rod_length_m, n_r, positive=True),
        )
        for name in ('cable_stiffness_n_per_m', 'cable_damping_n_s_per_m'):
            set_(self, name, _check_array(name, getattr(self, name), n_c))
        rest = _check_array(
            'cable_rest_length_m', self.cable_rest_length_m, n_c, positive=True, high=MAX_CABLE_M
        )
        set_(self, 'cable_rest_length_m', rest)
        for name in ('rod_drag_linear_n_s_per_m', 'rod_drag_angular_n_m_s'):
            set_(self, name, _check_scalar(name, getattr(self, name)))
        gravity = np.asarray(self.gravity_m_s2, dtype=float)
        if gravity.shape != (3,) or not np.all(np.isfinite(gravity)):
            raise StructureError(
                f'gravity_m_s2 = {gravity.tolist()!r}: must be 3 finite numbers (m/s², '
                'world frame)'
            )
        set_(self, 'gravity_m_s2', gravity)
        if self.inertia not in INERTIA_MODES:
            raise StructureError(
                f'inertia = {self.inertia!r}: allowed values are {", ".join(INERTIA_MODES)}'
            )
        if self.damping_mode not in DAMPING_MODES:
            raise StructureError(
                f'damping_mode = {self.damping_mode!r}: allowed values are '
                f'{", ".join(DAMPING_MODES)}'
            )

    @classmethod
    def from_paper(cls, R, E, **fields) -> Structure:
        """From the paper's 1-based connectivity matrices R (links) and E (elastic elements)."""
        return cls(rods=np.asarray(R) - 1, cables=np.asarray(E) - 1, **fields)

    @classmethod
    def from_matrices(cls, rods, S, Gamma, P, **fields) -> Structure:
        """From 0-based rods and the paper's symmetric vertex matrices S (N/m), Γ (N·s/m) and P
        (m).

        A cable joins i < j wherever S[i, j] > 0; the cables are numbered in row-major order of the
        upper triangle.
        """
        S, Gamma, P = (np.asarray(x, dtype=float) for x in (S, Gamma, P))
        for name, matrix in (('S', S), ('Gamma', Gamma), ('P', P)):
            if (
                matrix.ndim != 2
                or matrix.shape[0] != matrix.shape[1]
                or not np.allclose(matrix, matrix.T)
            ):
                raise StructureError(
                    f'{name}: must be a symmetric square matrix (vertex by vertex)'
                )
        i, j = np.nonzero(np.triu(S, 1))
        return cls(
            rods=rods,
            cables=np.column_stack([i, j]),
            cable_stiffness_n_per_m=S[i, j],
            cable_damping_n_s_per_m=Gamma[i, j],
            cable_rest_length_m=P[i, j],
            **fields,
        )

    @property
    def n_rods(self) -> int:
        """n_r, the rods (rows of ``rods``)."""
        return len(self.rods)

    @property
    def n_cables(self) -> int:
        """n_c, the cables (rows of ``cables``), in the order strains and tensions are reported."""
        return len(self.cables)

    @property
    def n_vertices(self) -> int:
        """n_v = 2 n_r: every vertex is the end of exactly one rod."""
        return 2 * len(self.rods)

    def rod_inertia(self) -> np.ndarray:
        """Isotropic moment of inertia per rod (kg·m²), shape (n_r,).

        The paper gives none (spec B4). Every force acts at a rod end, on the rod's axis, so no
        torque ever has an axial component: with zero initial axial spin an isotropic I = m L²/12
        gives exactly the thin-rod dynamics.
        """
        if self.inertia == 'identity':
            return np.ones(self.n_rods)
        return self.rod_mass_kg * self.rod_length_m**2 / 12.0

    def with_rest_lengths(self, rest_length_m) -> Structure:
        """The same structure with new cable rest lengths (actuation); validated like the
        original."""
        return replace(self, cable_rest_length_m=rest_length_m)
