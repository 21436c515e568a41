"""Strains, the paper's normal-mode criteria, transient shapes and the ψ thresholds (pure numpy).

Strain is ε = (ℓ - l⁰)/l⁰, a fraction here and in ROS messages; the paper and the sweep report give
it in %.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

OVER_STRAIN = 1.0  # the paper's 100 % limit on relative deformation
# A rise or fall counts when it exceeds 0.05 percentage point: what shows on the paper's Fig. 3
# (0-100 % axes). With a strict 0.001 pp the side triple's early dip of 0.027 pp at 58° and 0.003
# pp at 59° would count too, and ψ** would come out 59° instead of the paper's ≈ 57°.
SHAPE_TOLERANCE = 5e-4


def strains(lengths_m: np.ndarray, rest_length_m: np.ndarray) -> np.ndarray:
    """ε = (ℓ - l⁰)/l⁰ per cable as a fraction (negative: slack), shape (..., n_c), of cable
    lengths ``lengths_m`` (..., n_c) against rest lengths ``rest_length_m`` broadcast to them, both
    in m."""
    return (lengths_m - rest_length_m) / rest_length_m


def cable_status(strain: np.ndarray) -> np.ndarray:
    """0 slack (ε < 0), 1 normal, 2 over-strained (ε > 100 %), per cable."""
    return np.where(strain < 0, 0, np.where(strain > OVER_STRAIN, 2, 1)).astype(np.uint8)


def transient_shape(curve: np.ndarray, tol: float = SHAPE_TOLERANCE) -> str:
    """How a strain curve (k,) moves over the transient, in the words of the paper's section 3.

    'increasing' / 'decreasing' (monotone within tol), 'decrease_then_increase' (an interior
    minimum below both ends), 'increase_then_decrease' (an interior maximum above both ends),
    'constant', else 'mixed'.
    """
    first, last = curve[0], curve[-1]
    dips = curve.min() < min(first, last) - tol
    peaks = curve.max() > max(first, last) + tol
    if dips and not peaks:
        return 'decrease_then_increase'
    if peaks and not dips:
        return 'increase_then_decrease'
    if dips or peaks:
        return 'mixed'
    if last > first + tol:
        return 'increasing'
    if last < first - tol:
        return 'decreasing'
    return 'constant'


@dataclass(frozen=True)
class TripleSummary:
    """One cable group over a run; strains in %."""

    min_pct: float
    max_pct: float
    final_pct: float
    spread_pct: float  # largest difference between cables of the group at any instant
    slack: bool
    over_strain: bool
    shape: str


def summarize_group(strain: np.ndarray) -> TripleSummary:
    """strain: (k, n) fractions of the n cables of one group over k samples."""
    mean = strain.mean(axis=1)
    return TripleSummary(
        min_pct=float(100 * strain.min()),
        max_pct=float(100 * strain.max()),
        final_pct=float(100 * mean[-1]),
        spread_pct=float(100 * np.ptp(strain, axis=1).max()),
        slack=bool(strain.min() < 0),
        over_strain=bool(strain.max() > OVER_STRAIN),
        shape=transient_shape(mean),
    )


def summarize_run(strain: np.ndarray, groups: Mapping[str, Sequence[int]]) -> dict:
    """Per-group summaries and the paper's normal-mode flag (no cable slack, none above 100 %) for
    strain (k, n_c)."""
    summary = {
        name: asdict(summarize_group(strain[:, list(cables)])) for name, cables in groups.items()
    }
    summary['normal_mode'] = bool(strain.min() >= 0 and strain.max() <= OVER_STRAIN)
    return summary


def thresholds(psi_deg: Sequence[float], runs: Sequence[dict]) -> dict:
    """The paper's thresholds on the swept grid (criteria of spec B6).

    ψ_min: the smallest ψ from which the upper triple never goes slack; ψ_max: the largest ψ up to
    which the lower triple never exceeds 100 %; ψ*, ψ**: first and last ψ where the side triple
    first falls, then rises. A threshold the grid does not resolve (its range touches the edge of
    the grid, or is empty) is None.
    """
    psi = list(psi_deg)
    psi_min, _ = _range_ends(psi, [not r['upper']['slack'] for r in runs])
    _, psi_max = _range_ends(psi, [not r['lower']['over_strain'] for r in runs])
    psi_star, psi_2star = _range_ends(
        psi, [r['side']['shape'] == 'decrease_then_increase' for r in runs]
    )
    return {
        'psi_min_deg': psi_min,
        'psi_max_deg': psi_max,
        'psi_star_deg': psi_star,
        'psi_2star_deg': psi_2star,
    }


def _range_ends(psi: list[float], inside: list[bool]) -> tuple[float | None, float | None]:
    """First and last ψ of the first run of True in ``inside``; an end at the edge of the grid is
    None."""
    if not any(inside):
        return None, None
    first = inside.index(True)
    last = first
    while last + 1 < len(inside) and inside[last + 1]:
        last += 1
    return (float(psi[first]) if first > 0 else None), (
        float(psi[last]) if last < len(psi) - 1 else None
    )
