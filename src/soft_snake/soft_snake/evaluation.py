"""How well predicted speeds match measured ones, and the two baselines a simulator must beat, and
the train/test split of the measured cells. No ROS, no simulator.

Metrics over (cell, predicted) pairs: Spearman's ρ per gait and pooled over both, the median
relative error, the cells within ±20 % and the cells run backwards. Baselines: (a)
``friction_rank``, no parameters: each cell ranked by Table 5.1's rolling friction of its surface
(lower friction, faster; ρ only, it predicts no speed); (b) ``friction_table``: each held-out
cell predicted by the mean measured speed of the training cells of the same gait and surface, a
friction table fitted on the training cells. A simulator that loses to (b) is not yet a model of
the robot.
"""

from __future__ import annotations

import math
import re

import numpy as np
from scipy.stats import spearmanr

from soft_snake import tables
from soft_snake.gaits import GAITS, body_length_m
from soft_snake.reproduction import Prediction
from soft_snake.targets import predicted

WITHIN = 0.20  # "within ±20 %" of the measured speed
POOLED = 'pooled'


def _rho(predicted, measured) -> float | None:
    """Spearman's ρ, or None where it is undefined (fewer than 3 cells, or constant values)."""
    if len(predicted) < 3 or len(set(predicted)) < 2 or len(set(measured)) < 2:
        return None
    return float(spearmanr(predicted, measured).statistic)


def rho_by_gait(pairs: list[tuple[tables.Cell, float]]) -> dict[str, float | None]:
    """Spearman's ρ of predicted against measured BL/s per gait and pooled (None: undefined)."""
    out = {}
    for gait in (*GAITS, POOLED):
        mine = [(c, v) for c, v in pairs if gait in (POOLED, c.gait)]
        out[gait] = _rho([v for _, v in mine], [c.bl_per_s for c, _ in mine])
    return out


def metrics(predictions: list[Prediction]) -> dict:
    """ρ per gait and pooled, median relative error, cells within ±20 % and cells run backwards."""
    pairs = predicted(predictions)
    errors = [abs(v - c.bl_per_s) / c.bl_per_s for c, v in pairs if c.bl_per_s > 0]
    return {
        'rho': rho_by_gait(pairs),
        'median_relative_error': float(np.median(errors)) if errors else None,
        'within_20_percent': sum(e <= WITHIN for e in errors),
        'backwards': sum(p.forward_m_s < 0 for p in predictions),
        'cells': len(predictions),
    }


def as_prediction(cell: tables.Cell, bl_per_s: float) -> Prediction:
    """A baseline's speed for ``cell`` as a Prediction (forward: baselines never run backwards)."""
    speed = bl_per_s * body_length_m(cell.segments)
    return Prediction(cell, speed, speed)


def friction_rank(cells: list[tables.Cell]) -> dict:
    """Baseline (a): ρ of ranking ``cells`` by their surface's rolling friction (Table 5.1)."""
    rolling = {s: r for s, (_, r) in tables.friction().items()}
    return {'rho': rho_by_gait([(c, -rolling[c.surface]) for c in cells])}


def friction_table(training: list[tables.Cell], held_out: list[tables.Cell]) -> list[Prediction]:
    """Baseline (b): each held-out cell at the mean measured speed of the training cells of its
    gait and surface (of its gait alone where none shares the surface)."""
    out = []
    for cell in held_out:
        same = [c.bl_per_s for c in training if (c.gait, c.surface) == (cell.gait, cell.surface)]
        same = same or [c.bl_per_s for c in training if c.gait == cell.gait]
        out.append(as_prediction(cell, float(np.mean(same)) if same else 0.0))
    return out


def split(cells: list[tables.Cell], rule: str, seed: int) -> tuple[list, list]:
    """(training, held-out) cells by ``rule``: a fraction (``0.7``: that share of each gait's
    cells, drawn with ``seed``, trains) or ``field=value`` (the cells with that value are held
    out, e.g. ``segments=5``, ``surface=grass``). ValueError (one line) for any other rule."""
    held = _held_out_by_rule(cells, rule) if '=' in rule else _held_out_by_share(cells, rule, seed)
    return [c for i, c in enumerate(cells) if i not in held], [cells[i] for i in sorted(held)]


def _held_out_by_share(cells, rule: str, seed: int) -> set[int]:
    """Indices held out when a ``rule`` share of each gait's cells trains (stratified by gait)."""
    try:
        share = float(rule)
    except ValueError:
        raise ValueError(f'--split {rule!r}: a training fraction or field=value') from None
    if not 0 < share < 1:
        raise ValueError(f'--split {rule}: the training fraction must be in (0, 1)')
    rng, held = np.random.default_rng(seed), set()
    for gait in GAITS:
        mine = [i for i, c in enumerate(cells) if c.gait == gait]
        order = rng.permutation(mine) if mine else []
        held |= {int(i) for i in order[round(share * len(mine)) :]}
    return held


FIELDS = ('gait', 'segments', 'frequency_hz', 'beta_text', 'surface')


def _held_out_by_rule(cells, rule: str) -> set[int]:
    """Indices of the cells whose ``field`` equals ``value`` (text, or numbers as numbers)."""
    field, value = (part.strip() for part in rule.split('=', 1))
    if field not in FIELDS:
        raise ValueError(f'--split {rule}: the field must be one of {", ".join(FIELDS)}')
    return {i for i, c in enumerate(cells) if _same(getattr(c, field), value)}


def _same(actual, text: str) -> bool:
    if isinstance(actual, str):
        return actual == text
    return re.fullmatch(r'[-+0-9.eE]+', text) is not None and math.isclose(actual, float(text))
