"""The figure of ``pom-fe-check``: the actuated layer's node displacements, POM's and the frame's,
and the paper's Fig. 2 displacement dissipation plot (each node's share of POM's displacement
against its distance from the actuator). matplotlib is imported only when a figure is drawn."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pom_voxel.fe_check import PAPER_LOSS, FECheck


def fe_figure(result: FECheck, path: Path) -> None:
    """Both panels into ``path`` (PNG)."""
    from soro_analysis.plotting import figure, save

    fig, axes = figure(1, 2, size=(5.5, 5))
    _arrows(axes[0, 0], result)
    _dissipation(axes[0, 1], result)
    save(fig, path)


def _arrows(ax, result: FECheck) -> None:
    xy = 1000 * result.plane_nodes_m[:, :2]
    scale = 0.12 * np.ptp(xy) / max(np.abs(result.pom_mm).max(), 1e-9)  # arrows drawn enlarged
    for field, colour, label in ((result.pom_mm, 'C0', 'POM'), (result.fe_mm, 'C3', 'frame')):
        ax.quiver(
            xy[:, 0],
            xy[:, 1],
            field[:, 0] * scale,
            field[:, 1] * scale,
            color=colour,
            angles='xy',
            scale_units='xy',
            scale=1,
            width=0.004,
            label=label,
        )
    ends = 1000 * result.actuator_m[:, :2]
    ax.plot(ends[:, 0], ends[:, 1], 'k-', lw=3, alpha=0.6, label='actuator')
    voxels = ','.join(map(str, result.voxels))
    ax.set(
        title=f'actuated layer, {voxels} voxels, {result.drive} drive',
        xlabel='x, mm',
        ylabel='y, mm (arrows enlarged)',
        aspect='equal',
    )
    ax.margins(0.15)
    ax.legend()


def _dissipation(ax, result: FECheck) -> None:
    """Fig. 2's plot: |FE| / |POM| of every node POM moves against its distance."""
    moving = np.linalg.norm(result.pom_mm, axis=1) > 1e-9
    kept = np.linalg.norm(result.fe_mm[moving], axis=1) / np.linalg.norm(
        result.pom_mm[moving], axis=1
    )
    ax.plot(result.node_distance[moving], kept, '.', color='0.6', label='each node')
    ax.plot(result.distance, result.profile, 'o-', color='C3', label='mean at that distance')
    ax.axhline(1 - PAPER_LOSS, color='k', lw=0.8, ls=':', label='the paper: up to 4.9 % lost')
    ax.axhline(
        result.scale, color='k', lw=0.8, ls='--', label=f'least-squares η {result.scale:.3f}'
    )
    ax.set(
        xlabel='distance from the actuator (half-pitches)',
        ylabel='displacement kept, |FE| / |POM|',
        ylim=(min(0.75, float(kept.min()) - 0.02), 1.02),
        title=f'up to {100 * result.displacement_lost:.1f} % of displacement lost',
    )
    ax.legend(loc='lower left')
