"""One figure style for every robot's plots: files only (no display on robots or CI), one size of
type, light grids, one resolution. Robot packages draw with ``figure`` and write with ``save``."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

DPI = 120
STYLE = {
    'axes.grid': True,
    'grid.alpha': 0.3,
    'font.size': 9,
    'legend.fontsize': 8,
    'axes.titlesize': 10,
    'figure.titlesize': 11,
    'savefig.dpi': DPI,
}


plt.rcParams.update(STYLE)  # a process that plots, plots in the house style


def figure(rows: int = 1, columns: int = 1, size: tuple[float, float] = (6.0, 4.5), **kwargs):
    """(figure, axes (rows, columns)) in the house style; ``size`` is per panel, in inches."""
    return plt.subplots(
        rows, columns, figsize=(size[0] * columns, size[1] * rows), squeeze=False, **kwargs
    )


def save(fig, path: Path) -> Path:
    """Lay out, write and release the figure (pyplot keeps every open one)."""
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return Path(path)
