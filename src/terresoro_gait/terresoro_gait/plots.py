"""Figures of a TerreSoRo experiment (soro_analysis's style): learned against true edge weights,
gait trajectories with their open-loop predictions (paper Figs. 8-11 style), and predicted against
measured speeds (Fig. 18 style, ±1 SD)."""

from __future__ import annotations

from pathlib import Path

from soro_analysis.plotting import figure, save
from terresoro_gait.weights import EdgeWeights


def learned_vs_true(learned: EdgeWeights, truth: EdgeWeights, path: Path) -> Path:
    """Learned against true mean motion of every primitive (p_x, p_y in mm, θ in deg), a panel each
    with the diagonal, saved to ``path``; returns ``path``."""
    fig, axes = figure(1, 3, size=(4, 4))
    for ax, name, unit in zip(axes[0], ('px_mm', 'py_mm', 'theta_deg'), ('mm', 'mm', 'deg')):
        t, est = getattr(truth, name), getattr(learned, name)
        ax.plot(t, est, '.', ms=5)
        lim = [min(t.min(), est.min()) - 0.5, max(t.max(), est.max()) + 0.5]
        ax.plot(lim, lim, 'k-', lw=0.8)
        ax.set_title(f'{name.split("_")[0]} of each primitive ({unit})')
        ax.set_xlabel('substrate model (truth)')
    axes[0, 0].set_ylabel('learned')
    return save(fig, path)


def trajectories(runs: list[dict], path: Path) -> Path:
    """runs: {'label', 'truth' (N, 3) mm/deg, 'predicted' (K, 3) mm/deg}; each shifted to start at
    the origin."""
    fig, axes = figure(1, len(runs), size=(6, 5))
    for ax, run in zip(axes[0], runs):
        origin = run['truth'][0, :2]
        ax.plot(*(run['truth'][:, :2] - origin).T, label='measured (tracked pose)')
        if len(run['predicted']):
            ax.plot(
                *(run['predicted'][:, :2] - origin).T,
                '--',
                label='open-loop prediction (learned weights)',
            )
        ax.plot(0, 0, 'ko', ms=4)
        ax.set_title(run['label'])
        ax.set_xlabel('x, mm')
        ax.set_ylabel('y, mm')
        ax.set_aspect('equal', adjustable='datalim')
        ax.legend()
    return save(fig, path)


def speeds(rows: list[dict], path: Path) -> Path:
    """rows: {'label', 'predicted' (mm/s, deg/s), 'measured' (mean mm/s, sd, mean deg/s, sd)}."""
    fig, axes = figure(size=(6, 5))
    ax = axes[0, 0]
    for k, row in enumerate(rows):
        colour = f'C{k}'
        v, sv, w, sw = row['measured']
        ax.errorbar(
            v,
            abs(w),
            xerr=sv,
            yerr=sw,
            fmt='o',
            color=colour,
            capsize=3,
            label=f'{row["label"]}: measured (mean ± SD of cycles)',
        )
        ax.plot(
            row['predicted'][0],
            abs(row['predicted'][1]),
            'x',
            color=colour,
            ms=10,
            mew=2,
            label=f'{row["label"]}: predicted',
        )
    ax.set_xlabel('translation speed ‖ν‖, mm/s')
    ax.set_ylabel('rotation speed |ω|, deg/s')
    ax.legend()
    return save(fig, path)
