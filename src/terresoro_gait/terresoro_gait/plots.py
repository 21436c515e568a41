"""Figures of the TerreSoRo demo: learned against true edge weights, gait trajectories with their open-loop
predictions (paper Figs. 8-11 style), and predicted against simulated speeds (Fig. 18 style, ±1 SD)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use('Agg')  # files only: no display on robots or CI
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from terresoro_gait.weights import EdgeWeights  # noqa: E402


def learned_vs_true(learned: EdgeWeights, truth: EdgeWeights, path: Path) -> Path:
    fig, axes = plt.subplots(1, 3, figsize=(12, 4))
    for ax, name, unit in zip(axes, ('px_mm', 'py_mm', 'theta_deg'), ('mm', 'mm', 'deg')):
        t, est = getattr(truth, name), getattr(learned, name)
        ax.plot(t, est, '.', ms=5)
        lim = [min(t.min(), est.min()) - 0.5, max(t.max(), est.max()) + 0.5]
        ax.plot(lim, lim, 'k-', lw=0.8)
        ax.set_title(f'{name.split("_")[0]} of each primitive ({unit})')
        ax.set_xlabel('substrate model (truth)')
        ax.grid(alpha=0.3)
    axes[0].set_ylabel('learned')
    return _save(fig, path)


def trajectories(runs: list[dict], path: Path) -> Path:
    """runs: {'label', 'truth' (N, 3) mm/deg, 'predicted' (K, 3) mm/deg}; each shifted to start at the origin."""
    fig, axes = plt.subplots(1, len(runs), figsize=(6 * len(runs), 5))
    for ax, run in zip(np.atleast_1d(axes), runs):
        origin = run['truth'][0, :2]
        ax.plot(*(run['truth'][:, :2] - origin).T, label='simulated robot (ground truth)')
        ax.plot(*(run['predicted'][:, :2] - origin).T, '--', label='open-loop prediction (learned weights)')
        ax.plot(0, 0, 'ko', ms=4)
        ax.set_title(run['label'])
        ax.set_xlabel('x, mm')
        ax.set_ylabel('y, mm')
        ax.set_aspect('equal', adjustable='datalim')
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return _save(fig, path)


def speeds(rows: list[dict], path: Path) -> Path:
    """rows: {'label', 'predicted' (mm/s, deg/s), 'simulated' (mean mm/s, sd, mean deg/s, sd)}."""
    fig, ax = plt.subplots(figsize=(6, 5))
    for k, row in enumerate(rows):
        colour = f'C{k}'
        v, sv, w, sw = row['simulated']
        ax.errorbar(v, abs(w), xerr=sv, yerr=sw, fmt='o', color=colour, capsize=3,
                    label=f'{row["label"]}: simulated (mean ± SD of cycles)')
        ax.plot(row['predicted'][0], abs(row['predicted'][1]), 'x', color=colour, ms=10, mew=2,
                label=f'{row["label"]}: predicted')
    ax.set_xlabel('translation speed ‖ν‖, mm/s')
    ax.set_ylabel('rotation speed |ω|, deg/s')
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _save(fig, path)


def _save(fig, path: Path) -> Path:
    """Lay out, write at the module's resolution and release the figure (pyplot keeps every open one)."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
