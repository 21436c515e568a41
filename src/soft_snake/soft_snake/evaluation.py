"""How well predicted speeds match measured ones, and the two baselines a simulator must beat, and
the train/test split of the measured cells. No ROS, no simulator.

Metrics over (cell, predicted) pairs: Spearman's ρ per gait and pooled over both, the median
relative error, the cells within ±20 % and the undulation cells run backwards. Baselines: (a)
``friction_rank``, no parameters: each cell ranked by Table 5.1's rolling friction of its surface
(lower friction, faster; ρ only, it predicts no speed); (b) ``friction_table``: each held-out
cell predicted by the mean measured speed of the training cells of the same gait and surface, a
friction table fitted on the training cells. A simulator that loses to (b) is not yet a model of
the robot. (c) ``factor_model``: a log-linear regression of the training cells on the cells'
factors, the reference for what the tables themselves let a fitted model predict. ``main_effects``
says, factor by factor, where a model's speeds depart from the measured ones.
"""

from __future__ import annotations

import math
import re

import numpy as np
from scipy.stats import spearmanr

from soft_snake import tables
from soft_snake.gaits import GAITS, UNDULATION, body_length_m
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
    """ρ per gait and pooled, median relative error, cells within ±20 % and undulation cells run
    backwards (tail first; a sidewinding snake travels across its heading, so which way along
    it says nothing)."""
    pairs = predicted(predictions)
    errors = [abs(v - c.bl_per_s) / c.bl_per_s for c, v in pairs if c.bl_per_s > 0]
    return {
        'rho': rho_by_gait(pairs),
        'median_relative_error': float(np.median(errors)) if errors else None,
        'within_20_percent': sum(e <= WITHIN for e in errors),
        'backwards': sum(p.cell.gait == UNDULATION and p.forward_m_s < 0 for p in predictions),
        'cells': len(predictions),
    }


def as_prediction(cell: tables.Cell, bl_per_s: float) -> Prediction:
    """A baseline's speed for ``cell`` as a Prediction (forward: baselines never run backwards),
    in m/s of the thesis's snake (a baseline is read in BL/s, whatever the robot's length)."""
    length = body_length_m(cell.segments)
    return Prediction(cell, bl_per_s * length, bl_per_s * length, length)


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


# the factors of a table cell besides its gait, and the interaction baseline (c) adds to them
FACTORS = ('surface', 'segments', 'frequency_hz', 'beta_text')
INTERACTION = ('surface', 'segments')
# the slowest speed a logarithm takes: a cell at 0 (or run backwards) counts as this
SLOWEST_BL_S = 1e-3


def factor_model(training: list[tables.Cell], held_out: list[tables.Cell]) -> list[Prediction]:
    """Baseline (c): each held-out cell predicted by a log-linear model of the training cells of
    its gait, ln BL/s = a constant + an effect per level of each of ``FACTORS`` + one per
    ``INTERACTION`` pair (least squares; a level no training cell has counts as the first one).
    No physics and about 17 numbers per gait: how far the tables' own regularity carries a
    prediction to cells it has not seen, a reference a simulator should approach rather than a
    floor it must clear."""
    speeds = {}
    for gait in GAITS:
        asked = [i for i, c in enumerate(held_out) if c.gait == gait]
        mine = [c for c in training if c.gait == gait]
        predicted = _log_linear(mine, [held_out[i] for i in asked]) if mine else [0.0] * len(asked)
        speeds.update(zip(asked, predicted))
    return [as_prediction(c, speeds[i]) for i, c in enumerate(held_out)]


def _log_linear(training: list[tables.Cell], asked: list[tables.Cell]) -> list[float]:
    """BL/s of ``asked`` by least squares of ln BL/s on ``training``'s factor levels."""
    terms = [(f,) for f in FACTORS] + [INTERACTION]
    levels = {t: sorted({_level(c, t) for c in training}, key=str) for t in terms}
    measured = np.log([max(c.bl_per_s, SLOWEST_BL_S) for c in training])
    weights, *_ = np.linalg.lstsq(_design(training, levels), measured, rcond=None)
    return [float(v) for v in np.exp(_design(asked, levels) @ weights)]


def _level(cell: tables.Cell, term: tuple) -> tuple:
    return tuple(getattr(cell, f) for f in term)


def _design(cells: list[tables.Cell], levels: dict) -> np.ndarray:
    """One-hot columns (the first level of each term is the constant's) and the constant."""
    columns = [np.ones(len(cells))]
    for term, values in levels.items():
        columns += [[float(_level(c, term) == v) for c in cells] for v in values[1:]]
    return np.column_stack(columns)


def main_effects(pairs: list[tuple[tables.Cell, float]]) -> dict:
    """{gait: {factor: {level: effect}}}: the mean ln BL/s of a gait's cells at each level of
    each of ``FACTORS`` less the gait's mean ln BL/s, of the speeds in ``pairs`` ((cell, BL/s);
    a speed under ``SLOWEST_BL_S`` counts as that). Measured (``(c, c.bl_per_s)``) beside
    simulated, it says which factor a model gets wrong: +0.1 is 10 % faster than the gait's
    geometric mean."""
    out = {}
    for gait in GAITS:
        mine = [(c, math.log(max(v, SLOWEST_BL_S))) for c, v in pairs if c.gait == gait]
        if not mine:
            continue
        mean = np.mean([v for _, v in mine])
        out[gait] = {
            factor: {
                str(level): round(
                    float(np.mean([v for c, v in mine if getattr(c, factor) == level]) - mean), 3
                )
                for level in sorted({getattr(c, factor) for c, _ in mine}, key=_order(factor))
            }
            for factor in FACTORS
        }
    return out


def _order(factor: str):
    """How a factor's levels sort: β by its value in rad ('π/3' before '11π/12'), others as they
    are."""
    return tables.beta_of if factor == 'beta_text' else None


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


# the measured CSV's columns a split can hold out by, and the Cell field each is
FIELDS = {
    'gait': 'gait',
    'segments': 'segments',
    'frequency_hz': 'frequency_hz',
    'phase_offset_rad': 'beta_rad',
    'surface': 'surface',
}


def _held_out_by_rule(cells, rule: str) -> set[int]:
    """Indices of the cells whose ``field`` equals ``value`` (text, or numbers as numbers; β as
    the CSV writes it, ``2π/3`` or rad)."""
    field, value = (part.strip() for part in rule.split('=', 1))
    if field not in FIELDS:
        raise ValueError(f'--split {rule}: the field must be one of {", ".join(FIELDS)}')
    if field == 'phase_offset_rad':
        try:
            value = repr(tables.beta_of(value))
        except ValueError:
            raise ValueError(f'--split {rule}: not a number of radians (or kπ/m)') from None
    return {i for i, c in enumerate(cells) if _same(getattr(c, FIELDS[field]), value)}


def _same(actual, text: str) -> bool:
    if isinstance(actual, str):
        return actual == text
    return re.fullmatch(r'[-+0-9.eE]+', text) is not None and math.isclose(actual, float(text))
