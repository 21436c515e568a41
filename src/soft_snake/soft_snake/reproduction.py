"""Every cell of the thesis's speed tables 5.2-5.7 predicted by the calibrated simulator, set
against what was measured: per-gait rank correlation and the qualitative findings of §5.1 (spec
SN-13). No ROS.

The calibration (``calibration``) was fitted on half of these cells (``calibration.SPLIT``); the
other 144 are predictions, and ``evaluation`` judges the model on them alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from soft_snake import calibration, simulator, tables
from soft_snake.gaits import SIDEWINDING, UNDULATION, Gait
from soft_snake.model import CALIBRATED, SnakeModel
from soft_snake.targets import mean_bl_per_s, predicted


@dataclass(frozen=True)
class Prediction:
    """One table cell and the simulated speed (m/s along the path), forward speed (m/s, negative:
    backwards) and the simulated snake's length (m), which its speeds in BL/s are measured by."""

    cell: tables.Cell
    speed_m_s: float
    forward_m_s: float
    body_length_m: float

    @property
    def bl_per_s(self) -> float:
        """The simulated speed in body lengths per second, the tables' measure."""
        return self.speed_m_s / self.body_length_m

    @property
    def forward_bl_per_s(self) -> float:
        """The forward speed in body lengths per second (negative: backwards)."""
        return self.forward_m_s / self.body_length_m


@dataclass(frozen=True)
class RunLength:
    """How long each cell is simulated: at least ``cycles`` gait periods and ``min_duration_s``,
    after ``settle_cycles`` (``simulator.gait_speed``'s arguments)."""

    cycles: int = 6
    min_duration_s: float = 10.0
    settle_cycles: int = 1


def predict(
    cell: tables.Cell,
    model: SnakeModel = CALIBRATED,
    run: RunLength = RunLength(),
) -> Prediction:
    """One table cell's gait run head first on its surface by the simulator built from ``model``
    (default: the calibrated one), as ``simulator.gait_speed`` measures it."""
    gait = calibration.head_first(Gait(cell.gait, cell.segments, cell.frequency_hz, cell.beta_rad))
    speed = simulator.gait_speed(
        gait,
        cell.surface,
        model.body,
        run.cycles,
        run.settle_cycles,
        run.min_duration_s,
        chambers=model.chambers,
    )
    return Prediction(cell, *speed, model.body.length_m(cell.segments))


def predict_tables(
    cells: list[tables.Cell] | None = None,
    processes: int = 1,
    model: SnakeModel = CALIBRATED,
    address: str | None = None,
) -> list[Prediction]:
    """The simulator's prediction of ``cells`` (default: every cell of Tables 5.2-5.7) with
    ``model`` (default: the calibrated one), swept on an embedded Ray of ``processes`` workers or
    the Ray cluster at ``address`` (``sweep``)."""
    from soft_snake.sweep import RaySweep  # Ray is imported only by who sweeps

    cells = tables.speeds() if cells is None else cells
    with RaySweep(address, processes) as pool:
        return pool.sweep(cells, model)


def rank_correlation(predictions: list[Prediction]) -> dict[str, float]:
    """Spearman's ρ between simulated and measured BL/s over each gait's cells (NaN where it is
    undefined): ``evaluation``'s ρ, which the fit reports."""
    from soft_snake.evaluation import rho_by_gait  # it imports Prediction from here

    rho = rho_by_gait(predicted(predictions))
    return {
        gait: math.nan if rho[gait] is None else rho[gait] for gait in (UNDULATION, SIDEWINDING)
    }


def _best_beta(pairs, gait: str) -> float:
    betas = sorted({c.beta_rad for c, _ in pairs if c.gait == gait})
    return max(betas, key=lambda b: mean_bl_per_s(pairs, gait=gait, beta_rad=b))


def trends(predictions: list[Prediction]) -> dict[str, tuple[bool, str]]:
    """SN-13's findings, each (holds in the simulation, the numbers behind it), means over the
    simulated cells."""
    pairs = predicted(predictions)
    und = {s: mean_bl_per_s(pairs, gait=UNDULATION, surface=s) for s in tables.SURFACES}
    grass = [p for p in predictions if p.cell.gait == UNDULATION and p.cell.surface == 'grass']
    backward = sum(p.forward_m_s < 0 for p in grass)
    by_n = [mean_bl_per_s(pairs, gait=UNDULATION, segments=n) for n in (3, 4, 5)]
    best_und, best_side = _best_beta(pairs, UNDULATION), _best_beta(pairs, SIDEWINDING)
    side_beta = {
        round(b / math.pi * 12): mean_bl_per_s(pairs, gait=SIDEWINDING, beta_rad=b)
        for b in sorted({p.cell.beta_rad for p in predictions if p.cell.gait == SIDEWINDING})
    }
    spread = {
        g: float(
            np.std([mean_bl_per_s(pairs, gait=g, surface=s) for s in tables.SURFACES])
            / np.mean([mean_bl_per_s(pairs, gait=g, surface=s) for s in tables.SURFACES])
        )
        for g in (UNDULATION, SIDEWINDING)
    }
    fmt = lambda d: ', '.join(f'{k} {v:.3f}' for k, v in d.items())  # noqa: E731
    return {
        'undulation: rubber/paper > carpet > grass': (
            min(und['rubber'], und['paper']) > und['carpet'] > und['grass'],
            fmt(und) + ' BL/s',
        ),
        'undulation on grass slow or backward': (
            und['grass'] < 0.5 * min(und['rubber'], und['paper']) or backward > len(grass) // 2,
            f'{und["grass"]:.3f} BL/s, {backward} of {len(grass)} cells backward',
        ),
        'undulation BL/s falls from 3 to 5 segments': (
            by_n[0] > by_n[1] > by_n[2],
            ' > '.join(f'{v:.3f}' for v in by_n) + ' BL/s',
        ),
        'best undulation β in [2π/3, 3π/4]': (
            2 * math.pi / 3 - 1e-9 <= best_und <= 3 * math.pi / 4 + 1e-9,
            f'{best_und / math.pi * 12:.0f}π/12',
        ),
        'best sidewinding β in [π/3, π/2], slower at 2π/3 and 5π/6': (
            math.pi / 3 - 1e-9 <= best_side <= math.pi / 2 + 1e-9
            and max(side_beta.get(8, 0), side_beta.get(10, 0))
            < max(side_beta.get(4, 0), side_beta.get(6, 0)),
            ', '.join(f'{k}π/12 {v:.3f}' for k, v in side_beta.items()) + ' BL/s',
        ),
        'sidewinding less surface-dependent than undulation': (
            spread[SIDEWINDING] < spread[UNDULATION],
            f'spread across surfaces (std/mean): sidewinding {spread[SIDEWINDING]:.2f}, '
            f'undulation {spread[UNDULATION]:.2f}',
        ),
    }


def scatter(predictions: list[Prediction], path) -> None:
    """Simulated against measured BL/s, one panel per gait, surfaces by colour, the diagonal for
    reference."""
    from soro_analysis import plotting

    fig, axes = plotting.figure(1, 2, size=(4.5, 4.2))
    rho = rank_correlation(predictions)
    for ax, gait in zip(axes[0], (UNDULATION, SIDEWINDING)):
        for surface in tables.SURFACES:
            mine = [p for p in predictions if p.cell.gait == gait and p.cell.surface == surface]
            ax.scatter(
                [p.cell.bl_per_s for p in mine], [p.bl_per_s for p in mine], s=14, label=surface
            )
        top = max(0.4, max(p.bl_per_s for p in predictions))
        ax.plot([0, top], [0, top], 'k--', lw=0.8)
        ax.set(
            xlabel='measured (BL/s)',
            ylabel='simulated (BL/s)',
            title=f'{gait}: Spearman ρ = {rho[gait]:.2f}',
        )
        ax.legend()
    plotting.save(fig, path)
