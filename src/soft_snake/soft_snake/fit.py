"""Fitting the simulator's parameters (``model.SnakeModel``: body and chambers) to a robot's
measured speeds (``soft-snake-fit``). No ROS.

``FITTED`` names the parameters fitted and their bounds, in one place: any name
``model.SnakeModel.replaced`` takes (a field of the body or the chambers, or the chambers' measured
time constants) joins the fit by a line there. A fit scores each parameter set on the
training cells only (``score``) with scipy's differential evolution, whose populations go to the
Ray sweep as one batch each (its ``workers=`` map); every evaluated set and its score is appended
to ``evaluations.jsonl`` in the output folder as it completes. Differential evolution with the same
seed proposes the same sets when given the same scores, so a cut fit run again reads the stored
sets' scores instead of simulating them and continues where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import differential_evolution

from soft_snake import evaluation, model, pneumatics, tables
from soft_snake.gaits import SIDEWINDING
from soft_snake.model import SnakeModel
from soft_snake.reproduction import Prediction, RunLength
from soft_snake.sweep import RaySweep

# name → (low, high) (model.SnakeModel.replaced's names); the calibrated values lie within. The
# body's masses and sizes are measured (Table 2.1) and the lift threshold is geometry (sin 30°), so
# they stay; the chambers' time constants stay within what the thesis measured (§2.2.1). The
# wheels' rolling resistance as a drag beside a small Coulomb part is the reading that scored best
# on the training half (0.72-0.80 against the calibrated 0.98, docs/soft_snake_experiments.md); the
# joints' stiffness it replaced only slowed both gaits (1.0 to 0.5 N m/rad: 0.80 to 0.87)
FITTED = {
    'bend_rad': (0.6, 2.0),
    'supply_drop_per_chamber': (0.0, 0.6),
    'tau_inflate_s': pneumatics.TAU_RANGE_S,
    'tau_vent_s': pneumatics.TAU_RANGE_S,
    'friction_scale': (0.03, 0.3),
    'rolling_scale': (0.002, 0.3),
    'rolling_drag_scale': (0.0, 0.6),
    'module_delay_s': (0.0, 0.2),
}
STORE = 'evaluations.jsonl'
# differential evolution's population: this many sets per fitted parameter
POPULATION_PER_PARAMETER = 5
# BL/s added to both sides of the log ratio: a cell measured or predicted at 0 stays finite
SPEED_FLOOR_BL_S = 0.01
# weight of the order (1 − ρ per gait) against the scale (mean |ln ratio|) in ``score``: issue 29
# judges a simulator by its ρ first; without it a fit traded ρ 0.63 for scale (0.45 held out)
RANK_WEIGHT = 1.0
# how ``score`` scores, in the stores' fingerprint: 2 takes sidewinding along its path
SCORE_VERSION = 2


def start_x(base: SnakeModel = model.CALIBRATED) -> list[float]:
    """``base``'s values of ``FITTED``'s parameters, in its order (the chambers' time constants as
    their step response has them): where a fit from ``base`` starts."""
    taus = pneumatics.step_time_constants(base.chambers)
    values = {**base.values(), **dict(zip(model.TIME_CONSTANTS, taus))}
    return [values[name] for name in FITTED]


def model_of(x, base: SnakeModel = model.CALIBRATED) -> SnakeModel:
    """``base`` with ``FITTED``'s parameters set to ``x`` (in ``FITTED``'s order)."""
    return base.replaced(dict(zip(FITTED, map(float, x))))


def check_base(base: SnakeModel, source: str) -> None:
    """ValueError (one line, naming ``source``) when ``base`` puts a fitted parameter outside its
    bounds: differential evolution starts from ``base``, within them."""
    for name, value in zip(FITTED, start_x(base)):
        low, high = FITTED[name]
        if not low <= value <= high:
            raise ValueError(
                f"{source}: {name} = {value:g} is outside the fit's bounds {low:g}-{high:g}"
            )


def score(predictions: list[Prediction]) -> float:
    """Scale and order together: the mean |ln(predicted / measured)| of ``scored_bl_per_s``
    (scale errors count alike up and down) plus ``RANK_WEIGHT`` times the mean over the gaits of
    1 − Spearman's ρ of the same speeds (1 where ρ is undefined: a set that predicts one speed
    everywhere orders nothing); infinite when a cell got no speed (a run too short to measure, a
    diverged body): the worst, never the best."""
    speeds = [scored_bl_per_s(p) + SPEED_FLOOR_BL_S for p in predictions]
    if not all(math.isfinite(v) for v in speeds):
        return math.inf
    errors = [
        abs(math.log(v / (p.cell.bl_per_s + SPEED_FLOOR_BL_S)))
        for p, v in zip(predictions, speeds)
    ]
    rho = evaluation.rho_by_gait([(p.cell, v) for p, v in zip(predictions, speeds)])
    gaits = sorted({p.cell.gait for p in predictions})
    disorder = np.mean([1.0 - (rho[g] if rho[g] is not None else 0.0) for g in gaits])
    return float(np.mean(errors) + RANK_WEIGHT * disorder)


def scored_bl_per_s(prediction: Prediction) -> float:
    """The simulated speed the score compares with the table's, in BL/s: sidewinding's along its
    path, as the tables measure it (a sidewinding snake travels across its heading, §2.2.2's
    "diagonal direction"), undulation's along the body's heading, a run backwards counting as
    standing still (the robot undulated head first)."""
    if prediction.cell.gait == SIDEWINDING:
        return prediction.bl_per_s
    return max(prediction.forward_bl_per_s, 0.0)


def fingerprint(
    training: list[tables.Cell], run: RunLength, base: SnakeModel = model.CALIBRATED
) -> str:
    """What a stored score depends on besides the set: the training cells, the run length, the
    fitted names, how ``score`` scores and the model the fit starts from. A store written otherwise
    is not reused."""
    text = json.dumps(
        [[vars(c) for c in training], vars(run), list(FITTED), SCORE_VERSION, base.values()],
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Store:
    """The evaluated sets of one fit, appended one JSON line each to ``path`` as each completes."""

    def __init__(self, path: Path, key: str):
        self.path, self.key = Path(path), key
        self.scores: dict[tuple, float] = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                self._read(line)

    def _read(self, line: str) -> None:
        try:
            entry = json.loads(line)
        except ValueError:  # a line cut by a kill mid-write: that set is simulated again
            return
        if isinstance(entry, dict) and entry.get('fingerprint') == self.key:
            self.scores[tuple(entry['x'][name] for name in FITTED)] = entry['score']

    def add(self, x: tuple, value: float) -> None:
        """Append one evaluated set (flushed at once: a kill loses at most the line being
        written)."""
        entry = {'fingerprint': self.key, 'x': dict(zip(FITTED, x)), 'score': value}
        with self.path.open('a') as out:
            out.write(json.dumps(entry) + '\n')
        self.scores[x] = value

    def best(self) -> tuple[tuple, float]:
        """The stored set with the lowest score, and the score."""
        return min(self.scores.items(), key=lambda item: item[1])


class FitFailed(RuntimeError):
    """No evaluated set could be scored: nothing worth writing as params.yaml."""


class BudgetSpent(Exception):
    """The fit's evaluations are all done (how a population map stops differential evolution)."""


class Evaluator:
    """Differential evolution's ``workers=`` map: a population's sets scored on the training
    cells, the stored ones read back, the others swept on Ray and stored as they complete."""

    def __init__(
        self,
        pool: RaySweep,
        store: Store,
        training,
        run: RunLength,
        budget: int,
        base: SnakeModel = model.CALIBRATED,
    ):
        self.pool, self.store, self.training, self.run = pool, store, training, run
        self.budget, self.done, self.simulated, self.base = budget, 0, 0, base

    def __call__(self, _objective, population) -> list[float]:
        """Scores of ``population`` (the objective is ``score`` of the training sweep, here);
        BudgetSpent once ``budget`` sets are evaluated, after storing the last of them."""
        keys = [tuple(float(v) for v in x) for x in population]
        spent = len(keys) >= self.budget - self.done
        keys = keys[: self.budget - self.done]
        new = list(dict.fromkeys(k for k in keys if k not in self.store.scores))
        self.pool.sweep_many(
            [model_of(k, self.base) for k in new],
            self.training,
            self.run,
            lambda i, p: self._store(new[i], p),
        )
        for k in keys:
            if k not in new:
                self._progress(k, 'stored')
        if spent:
            raise BudgetSpent
        return [self.store.scores[k] for k in keys]

    def _store(self, key: tuple, predictions: list[Prediction]) -> None:
        self.store.add(key, score(predictions))
        self.simulated += 1
        self._progress(key, 'simulated')

    def _progress(self, key: tuple, how: str) -> None:
        self.done += 1
        best = self.store.best()[1]
        print(
            f'soft-snake-fit: evaluation {self.done}/{self.budget} ({how}): score '
            f'{self.store.scores[key]:.4f}, best {best:.4f}',
            file=sys.stderr,
            flush=True,
        )


def fit(evaluator: Evaluator, seed: int) -> SnakeModel:
    """The best parameter set after ``evaluator.budget`` evaluations of differential evolution."""
    try:
        _evolve(evaluator, seed)
    except BudgetSpent:
        pass
    return model_of(evaluator.store.best()[0], evaluator.base)


def _evolve(evaluator: Evaluator, seed: int) -> None:
    differential_evolution(
        lambda x: math.nan,  # never called: the evaluator maps populations itself
        list(FITTED.values()),
        rng=np.random.default_rng(seed),
        maxiter=1_000_000,
        popsize=POPULATION_PER_PARAMETER,
        # the model it starts from is in the first population: a fit ends no worse than it
        x0=start_x(evaluator.base),
        tol=0.0,
        polish=False,
        updating='deferred',
        workers=evaluator,
    )


def check_enough(training: list, held_out: list, source: str) -> None:
    """ValueError (one line) unless the training cells outnumber the fitted parameters and some
    cells are held out."""
    if len(training) <= len(FITTED):
        raise ValueError(
            f'{source}: {len(training)} training cells for {len(FITTED)} fitted parameters: '
            f'at least {len(FITTED) + 1} needed (more measured cells, or a larger --split)'
        )
    if not held_out:
        raise ValueError(f'{source}: no cell held out by the split: nothing to report on')


def run(
    args, pool: RaySweep, training: list, held_out: list, base: SnakeModel = model.CALIBRATED
) -> dict:
    """A whole fit from ``base`` into ``args.out``: the evaluations (resumed from its store), the
    best set's predictions of every cell, plots, params.yaml and report.json (written last); the
    report."""
    from soft_snake import fit_report, model_file, targets

    length = RunLength(args.cycles, args.min_duration)
    store = Store(args.out / STORE, fingerprint(training, length, base))
    evaluator = Evaluator(pool, store, training, length, args.evaluations, base)
    best = fit(evaluator, args.seed)
    if not math.isfinite(store.best()[1]):
        raise FitFailed(
            f'no parameter set of {len(store.scores)} gave every training cell a speed '
            f'(runs of {length.cycles} periods and {length.min_duration_s:g} s too short?)'
        )
    predictions = pool.sweep(training + held_out, best, length)
    tested = predictions[len(training) :]
    figures = fit_report.held_out_figures(training, held_out, tested)
    fit_report.table_plots(predictions, args.out)
    effects = fit_report.main_effects(predictions)
    fit_report.effects_plot(effects, args.out / 'main_effects.png')
    fit_report.scatter(
        tested, evaluation.friction_table(training, held_out), args.out / 'scatter.png'
    )
    model_file.write(args.out / 'params.yaml', best)
    report = {
        'held_out': figures,
        'tables': targets.beside_the_robot(predictions),
        'main_effects': effects,
        'training': {'simulator': evaluation.metrics(predictions[: len(training)])},
        'split': {
            'rule': args.split,
            'seed': args.seed,
            'training_cells': len(training),
            'held_out_cells': [vars(c) for c in held_out],
        },
        'evaluations': {
            'asked': args.evaluations,
            'stored': len(store.scores),
            'simulated_this_run': evaluator.simulated,
            'best_score': store.best()[1],
            'score': 'mean |ln(predicted / measured)| of BL/s (sidewinding along its path, '
            'undulation along its heading) on the training cells '
            f'+ {RANK_WEIGHT} x mean over gaits of (1 - Spearman rho)',
        },
        'fitted': {name: list(bounds) for name, bounds in FITTED.items()},
        'base': str(args.base) if args.base else 'calibrated',
        'best': dict(zip(FITTED, store.best()[0])),  # the fitted names' values, taus included
        'parameters': best.values(),
        'run_length': vars(length),
    }
    fit_report.write_json(args.out / 'report.json', report)
    return report
