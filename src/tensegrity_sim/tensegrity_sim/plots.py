"""Figures in the style of the paper's Fig. 3 (strain against time per triple) and Fig. 4 (the ψ
ranges)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from soro_analysis.plotting import figure, save
from tensegrity_sim import prism
from tensegrity_sim.sweep import PsiSweepResult

PAPER_FIG3_PSI = (36.0, 40.0, 50.0, 60.0, 68.0)
TRIPLE_TITLES = {
    'upper': 'a) upper triple (0, 3, 6)',
    'lower': 'b) lower triple (1, 4, 7)',
    'side': 'c) side triple (2, 5, 8)',
}


def fig3_psi(psi_deg: np.ndarray) -> list[float]:
    """The paper's five ψ where the grid has them, otherwise five spread over the grid."""
    chosen = [p for p in PAPER_FIG3_PSI if np.any(np.isclose(psi_deg, p))]
    if len(chosen) < 3:
        chosen = list(psi_deg[np.unique(np.linspace(0, len(psi_deg) - 1, 5).round().astype(int))])
    return chosen


def strain_vs_time(result: PsiSweepResult, path: Path, title: str) -> Path:
    """Fig. 3: ε(t) in % of each triple (mean of its three cables, which are equal) for several
    ψ."""
    fig, axes = figure(1, 3, size=(4.3, 4), sharex=True)
    axes = axes[0]
    for psi in fig3_psi(result.psi_deg):
        index = int(np.argmin(np.abs(result.psi_deg - psi)))
        for ax, cables in zip(axes, prism.TRIPLES.values()):
            ax.plot(
                result.t,
                100 * result.strain[index][:, list(cables)].mean(axis=1),
                label=f'ψ = {psi:g}°',
            )
    for ax, name in zip(axes, prism.TRIPLES):
        ax.set_title(TRIPLE_TITLES[name])
        ax.set_xlabel('t, s')
    axes[0].set_ylabel('ε, %')
    axes[-1].legend()
    fig.suptitle(title)
    return save(fig, path)


def psi_ranges(result: PsiSweepResult, path: Path, title: str) -> Path:
    """Fig. 4: min, max and final strain of each triple against ψ, with the 0 % and 100 % limits
    and the normal-mode range [ψ_min, ψ_max] shaded."""
    fig, axes = figure(size=(9, 5))
    ax = axes[0, 0]
    for (name, _), colour in zip(prism.TRIPLES.items(), ('tab:blue', 'tab:orange', 'tab:green')):
        low = [run[name]['min_pct'] for run in result.runs]
        high = [run[name]['max_pct'] for run in result.runs]
        final = [run[name]['final_pct'] for run in result.runs]
        ax.fill_between(result.psi_deg, low, high, color=colour, alpha=0.2)
        ax.plot(result.psi_deg, final, color=colour, label=f'{name}: final (band: min to max)')
    ax.axhline(0, color='k', lw=0.8)
    ax.axhline(100, color='r', lw=0.8, ls='--', label='100 % limit')
    lo, hi = result.thresholds['psi_min_deg'], result.thresholds['psi_max_deg']
    if lo is not None or hi is not None:
        resolved = lo is not None and hi is not None
        label = (
            f'ψ_min = {lo:g}° to ψ_max = {hi:g}°'
            if resolved
            else 'range reaching the edge of the grid'
        )
        ax.axvspan(
            lo if lo is not None else result.psi_deg[0],
            hi if hi is not None else result.psi_deg[-1],
            color='grey',
            alpha=0.12,
            label=f'no slack upper, no lower above 100 %: {label}',
        )
    ax.set_xlabel('ψ, deg')
    ax.set_ylabel('ε, %')
    ax.set_title(title)
    ax.legend()
    return save(fig, path)


def triples_vs_time(t: np.ndarray, strain: np.ndarray, path: Path, title: str) -> Path:
    """One run: the mean strain (%) of each triple against time; t (k,) s, strain (k, 9)
    fractions."""
    fig, axes = figure(size=(8, 4))
    ax = axes[0, 0]
    for name, cables in prism.TRIPLES.items():
        ax.plot(t, 100 * strain[:, list(cables)].mean(axis=1), label=name)
    ax.set(xlabel='simulated t, s', ylabel='ε, %', title=title)
    ax.legend()
    return save(fig, path)
