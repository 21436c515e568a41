"""Issue 29's targets on Tables 5.2-5.7 for one simulator model, each beside the robot's own figure
and the baselines (soft_snake.targets, soft_snake.evaluation).

Every cell swept on an embedded Ray of two workers with the calibrated model, or with the model
a fit wrote (``--params params.yaml``). Held out: the calibration's and the fit's default split
(0.5 of each gait's cells, seed 0) or ``--split``/``--seed``; the calibrated model was fitted on
the other half (calibration.py), a fitted one must be scored on its own fit's split. Prints JSON:
``held_out`` (ρ per gait and pooled, median relative error, cells within ±20 %: simulator,
friction rank, friction table, factor model), ``all_cells`` (the simulator's on all 288),
``tables`` (each target of ``targets.table_targets``, simulated and the robot's),
``main_effects`` (each factor's effect on ln BL/s over all 288, measured and simulated) and
``sn13`` (the trends that hold, of six). The other targets have their own benches: real time and
the sweep on Ray (snake.py, soft_snake_fit.py), the step (snake_step.py).
"""

import argparse
import json

from soft_snake import evaluation, fit_report, model_file, reproduction, tables, targets

# issue 29 on the cells not used in the fit: (figure, limit, whether higher is better)
HELD_OUT_TARGETS = {
    'rho_undulation': (lambda f: f['rho']['undulation'], 0.90, True),
    'rho_sidewinding': (lambda f: f['rho']['sidewinding'], 0.75, True),
    'median_relative_error': (lambda f: f['median_relative_error'], 0.25, False),
}


def held_out_targets(figures: dict) -> dict:
    """Issue 29's held-out targets against the simulator's ``figures`` (evaluation.metrics)."""
    out = {}
    for name, (get, limit, higher) in HELD_OUT_TARGETS.items():
        value = get(figures)
        met = value is not None and (value >= limit if higher else value <= limit)
        out[name] = {'value': value, 'target': f'{">=" if higher else "<="} {limit}', 'met': met}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--params', help='a parameter file (default: the calibrated model)')
    parser.add_argument('--split', default='0.5')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()
    try:
        snake = model_file.load_or_calibrated(args.params)
        cells = tables.speeds()
        training, held_out = evaluation.split(cells, args.split, args.seed)
    except ValueError as error:
        parser.error(str(error))
    predictions = reproduction.predict_tables(cells, processes=2, model=snake)
    tested = [p for p in predictions if p.cell in held_out]
    report = {
        'model': args.params or 'calibrated',
        'split': {'rule': args.split, 'seed': args.seed, 'held_out_cells': len(tested)},
        'held_out': fit_report.held_out_figures(training, held_out, tested),
        'all_cells': evaluation.metrics(predictions),
        'tables': targets.beside_the_robot(predictions),
        'main_effects': fit_report.main_effects(predictions),
        'sn13': sum(holds for holds, _ in reproduction.trends(predictions).values()),
    }
    report['held_out_targets'] = held_out_targets(report['held_out']['simulator'])
    print(json.dumps(fit_report.no_nan(report), indent=1, default=str))


if __name__ == '__main__':
    main()
