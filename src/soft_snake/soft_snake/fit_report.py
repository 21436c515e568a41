"""What ``soft-snake-fit`` writes beside the parameter file: the held-out figures beside the
baselines and each factor's effect, measured and simulated (``report.json``, and a side-by-side
table printed), per table the predicted and measured speeds over frequency × phase offset, and
the scatter of predicted against measured with the friction-table baseline. Every file written to
a temporary name and renamed, so a failed fit leaves none half-written. No ROS."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from soft_snake import evaluation, tables
from soft_snake.reproduction import Prediction
from soro_node.arguments import write_output


def held_out_figures(training, held_out, predictions: list[Prediction]) -> dict:
    """The simulator's metrics on the held-out cells beside baselines (a), (b) and (c) on the
    same (``evaluation``)."""
    return {
        'simulator': evaluation.metrics(predictions),
        'friction_rank': evaluation.friction_rank(held_out),
        'friction_table': evaluation.metrics(evaluation.friction_table(training, held_out)),
        'factor_model': evaluation.metrics(evaluation.factor_model(training, held_out)),
    }


def main_effects(predictions: list[Prediction]) -> dict:
    """Each factor's effect on ln BL/s (``evaluation.main_effects``), measured and simulated, over
    ``predictions``' cells."""
    return {
        'measured': evaluation.main_effects([(p.cell, p.cell.bl_per_s) for p in predictions]),
        'simulator': evaluation.main_effects([(p.cell, p.bl_per_s) for p in predictions]),
    }


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return '-'
    return f'{value:.3f}' if isinstance(value, float) else str(value)


def side_by_side(figures: dict) -> str:
    """The held-out figures as a text table, one column per model."""
    models = list(figures)
    rows = [('rho ' + g, lambda f, g=g: f['rho'].get(g)) for g in figures['simulator']['rho']]
    rows += [
        (name, lambda f, name=name: f.get(name))
        for name in ('median_relative_error', 'within_20_percent', 'backwards', 'cells')
    ]
    lines = [f'{"held out":24}' + ''.join(f'{m:>16}' for m in models)]
    for label, get in rows:
        lines.append(f'{label:24}' + ''.join(f'{_cell(get(figures[m])):>16}' for m in models))
    return '\n'.join(lines)


def write_json(path: Path, document: dict) -> None:
    """``document`` as JSON (NaN as null), whole or not at all."""
    write_output(path, json.dumps(no_nan(document), indent=1, ensure_ascii=False))


def no_nan(value):
    """``value`` with every non-finite float in it (dicts, lists) as None: JSON's null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [no_nan(v) for v in value]
    return value


def _save(fig, path: Path) -> None:
    """The figure to ``path`` through a temporary name in its folder."""
    from soro_analysis import plotting

    temporary = path.with_name(f'.{path.stem}.part{path.suffix}')
    try:
        plotting.save(fig, temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def table_plots(predictions: list[Prediction], out: Path) -> list[Path]:
    """Per thesis table (gait and module count) with measured cells: one panel per surface,
    speed over β, a line per frequency, measured solid and predicted dashed."""
    written = []
    for (gait, n), name in tables.TABLE_OF.items():
        mine = [p for p in predictions if (p.cell.gait, p.cell.segments) == (gait, n)]
        if mine:
            path = out / f'table_{name}.png'
            _save(
                _table_figure(mine, f'Table {name.replace("_", ".")}: {gait}, {n} modules'), path
            )
            written.append(path)
    return written


def _table_figure(mine: list[Prediction], title: str):
    from soro_analysis import plotting

    surfaces = [s for s in tables.SURFACES if any(p.cell.surface == s for p in mine)]
    fig, axes = plotting.figure(1, len(surfaces), size=(3.6, 3.2))
    for ax, surface in zip(axes[0], surfaces):
        cells = [p for p in mine if p.cell.surface == surface]
        for k, f in enumerate(sorted({p.cell.frequency_hz for p in cells})):
            line = sorted(
                (p for p in cells if p.cell.frequency_hz == f), key=lambda p: p.cell.beta_rad
            )
            betas = [p.cell.beta_rad for p in line]
            color = f'C{k}'
            ax.plot(
                betas,
                [p.cell.bl_per_s for p in line],
                '-o',
                color=color,
                label=f'{f:g} Hz measured',
            )
            ax.plot(
                betas, [p.bl_per_s for p in line], '--x', color=color, label=f'{f:g} Hz predicted'
            )
        ax.set(xlabel='phase offset β (rad)', ylabel='speed (BL/s)', title=f'{surface}')
    axes[0][0].legend(fontsize='x-small')
    fig.suptitle(title)
    return fig


FACTOR_LABELS = {
    'surface': 'surface',
    'segments': 'modules',
    'frequency_hz': 'frequency (Hz)',
    'beta_text': 'phase offset β',
}


def effects_plot(effects: dict, path: Path) -> None:
    """``effects`` (``main_effects``: each factor's effect on ln BL/s, measured and simulated), a
    panel per gait and factor: measured solid, simulated dashed."""
    from soro_analysis import plotting

    gaits = list(effects['measured'])
    # one scale per gait: which factor moves the speed most reads across the row
    fig, axes = plotting.figure(len(gaits), len(evaluation.FACTORS), size=(2.8, 2.6), sharey='row')
    for row, gait in zip(axes, gaits):
        for ax, factor in zip(row, evaluation.FACTORS):
            for source, style in (('measured', '-o'), ('simulator', '--x')):
                levels = effects[source][gait][factor]
                ax.plot(list(levels), list(levels.values()), style, label=source)
            ax.axhline(0.0, color='gray', lw=0.5)
            ax.set(title=f'{gait}: {FACTOR_LABELS[factor]}')
        row[0].set_ylabel('effect on ln BL/s')
    axes[0][0].legend(fontsize='small')
    _save(fig, path)


def scatter(predictions: list[Prediction], baseline: list[Prediction], path: Path) -> None:
    """Held-out cells: predicted against measured BL/s, the simulator by gait and the friction
    table beside it, the diagonal for reference."""
    from soro_analysis import plotting

    fig, axes = plotting.figure(1, 1, size=(5.0, 4.6))
    ax = axes[0][0]
    for gait in evaluation.GAITS:
        mine = [p for p in predictions if p.cell.gait == gait]
        ax.scatter(
            [p.cell.bl_per_s for p in mine],
            [p.bl_per_s for p in mine],
            s=16,
            label=f'simulator, {gait}',
        )
    ax.scatter(
        [p.cell.bl_per_s for p in baseline],
        [p.bl_per_s for p in baseline],
        s=16,
        marker='x',
        color='gray',
        label='friction table (baseline b)',
    )
    top = max(
        [0.1]
        + [p.bl_per_s for p in predictions + baseline]
        + [p.cell.bl_per_s for p in predictions]
    )
    ax.plot([0, top], [0, top], 'k--', lw=0.8)
    ax.set(xlabel='measured (BL/s)', ylabel='predicted (BL/s)', title='held-out cells')
    ax.legend(fontsize='small')
    _save(fig, path)
