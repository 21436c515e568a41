"""``soft-snake-gait``: the chamber pattern K (segments × chambers, the top chamber included) of a
gait at given times, as JSON. ``soft-snake-tables``: the calibrated simulator's prediction of every
cell of the thesis's Tables 5.2-5.7 beside the measured value, the rank correlations and SN-13's
trends, as JSON and a scatter plot. Every refusal one line, exit code 2.

    soft-snake-gait --gait undulation --segments 4 --freq 2.0 --beta 2.0944 \\
        --times 0.05,0.1,0.2 --json
    soft-snake-tables --json tables.json --plot tables.png --processes 2 [--params params.yaml]
    soft-snake-fit measured.csv --out fit/ --split 0.7 --seed 0 --evaluations 200 --workers 2

``soft-snake-fit``: the simulator's parameters (body and chambers) fitted to a robot's measured
speeds (``fit``), with the held-out figures beside two baselines (``fit_report``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from soft_snake.calibration import HEAD_FIRST
from soft_snake.gaits import GAITS, Gait, GaitError, chamber_states
from soro_node.arguments import (
    CommandParser,
    add_option,
    ends_on_ctrl_c,
    output_dir,
    output_file,
    read_input,
    refuse,
    remove_made_folders,
    worker_count,
    write_output,
)
from soro_node.params import ParamSpec

GAIT_HELP = (
    'the chamber pattern K (segments × chambers, the top chamber included) of a gait at given '
    'times'
)
TABLES_HELP = (
    "the calibrated simulator's prediction of every cell of the thesis's Tables 5.2-5.7 beside "
    "the measured value, the rank correlations and SN-13's trends"
)


def _times(text: str) -> list[float]:
    try:
        times = [float(t) for t in text.split(',')]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a comma-separated list of times (s)'
        ) from None
    if not all(math.isfinite(t) and t >= 0 for t in times):
        raise argparse.ArgumentTypeError(f'{text}: times must be finite and >= 0 (s)')
    return times


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not a number') from None


def main(argv: list[str] | None = None) -> int:
    """``soft-snake-gait``: the chamber states K (N, 3) of a gait (Eq. 2.1 or 2.2) at each of
    ``--times`` (s), printed as JSON; returns 0, or 2 when the gait is refused."""
    parser = CommandParser(prog='soft-snake-gait', description=GAIT_HELP)
    parser.add_argument('--gait', required=True, choices=GAITS)
    parser.add_argument('--segments', type=int, default=4, help='modules, 3-5')
    parser.add_argument(
        '--freq', type=_number, required=True, help='gait frequency ω (Hz), at most 2'
    )
    parser.add_argument(
        '--beta',
        type=_number,
        required=True,
        help="phase difference β between segments (rad, within ±2π; a RunGait goal's 0 takes the "
        "driver's beta_rad instead)",
    )
    parser.add_argument(
        '--phi', type=_number, default=0.0, help='offset ϕ of the travelling wave (default 0)'
    )
    parser.add_argument(
        '--times', type=_times, required=True, help='comma-separated times since the start (s)'
    )
    parser.add_argument(
        '--wave-direction',
        type=int,
        choices=(1, -1),
        default=HEAD_FIRST,
        help='the travelling wave as Eq. 2.1 reads (1) or reversed (-1, head first: the default '
        'of config/soft_snake.yaml, what the driver sends)',
    )
    parser.add_argument(
        '--json', action='store_true', help='JSON (the only output form; kept for clarity)'
    )
    args = parser.parse_args(argv)
    try:
        gait = Gait(args.gait, args.segments, args.freq, args.beta, args.phi, args.wave_direction)
    except GaitError as error:
        return refuse('soft-snake-gait', error)
    document = {
        'gait': gait.kind,
        'segments': gait.segments,
        'frequency_hz': gait.frequency_hz,
        'beta_rad': gait.beta_rad,
        'phi': gait.phi,
        'wave_direction': gait.wave_direction,
        'chambers': ['bottom_left', 'bottom_right', 'top'],
        'states': [{'t_s': t, 'K': chamber_states(gait, t).tolist()} for t in args.times],
    }
    print(json.dumps(document))
    return 0


PROCESSES = ParamSpec(
    'processes', 1, 'local Ray workers, at most one per core (default 1)', 1, 1_000_000
)
PARAMS_HELP = (
    "a parameter file of the simulator's body and chambers (soft-snake-fit's params.yaml; "
    'default: the calibrated ones)'
)
ADDRESS_HELP = (
    'host:port of an existing Ray cluster to sweep on (default: an embedded local Ray, '
    '--processes workers)'
)


def _address(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError('an empty address (host:port of a Ray head)')
    return text.strip()


def _model_file(text: str):
    from soft_snake import model_file

    try:
        return model_file.load(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


@ends_on_ctrl_c('soft-snake-tables')
def tables_main(argv: list[str] | None = None) -> int:
    """``soft-snake-tables``: the calibrated simulator's prediction of every cell of Tables
    5.2-5.7 with the rank correlations and SN-13's trends, written to ``--json`` (and a
    scatter plot to ``--plot``); prints the correlations and trends; returns 0."""
    parser = CommandParser(prog='soft-snake-tables', description=TABLES_HELP)
    parser.add_argument(
        '--json', type=output_file, required=True, help='where to write the predictions (JSON)'
    )
    parser.add_argument('--plot', type=output_file, help='where to write the scatter plot (PNG)')
    add_option(parser, '--processes', PROCESSES)
    parser.add_argument('--params', type=_model_file, help=PARAMS_HELP)
    parser.add_argument('--address', type=_address, help=ADDRESS_HELP)
    args = parser.parse_args(argv)
    # a cluster's workers are its own: nothing local to cap
    processes = (
        args.processes
        if args.address
        else worker_count(args.processes, parser.prog, '--processes')
    )
    from soft_snake import model, reproduction
    from soft_snake.sweep import SweepError

    try:
        predictions = reproduction.predict_tables(
            processes=processes, model=args.params or model.CALIBRATED, address=args.address
        )
    except SweepError as error:
        return refuse(parser.prog, error)
    document = {
        'rank_correlation': reproduction.rank_correlation(predictions),
        'trends': {
            name: {'holds': holds, 'detail': detail}
            for name, (holds, detail) in reproduction.trends(predictions).items()
        },
        'cells': [
            {**vars(p.cell), 'simulated_bl_per_s': p.bl_per_s, 'forward_m_s': p.forward_m_s}
            for p in predictions
        ],
    }
    write_output(args.json, json.dumps(document, indent=1))
    if args.plot:
        reproduction.scatter(predictions, args.plot)
    print(json.dumps({k: document[k] for k in ('rank_correlation', 'trends')}))
    return 0


FIT_HELP = (
    "the simulator's parameters (body and chambers) fitted to a robot's measured speeds on a "
    'training share of them, reported on the held-out rest beside three baselines; resumable'
)
MEASURED_HELP = (
    'CSV with columns gait, segments, frequency_hz (Hz), phase_offset_rad (β, rad, or kπ/m), '
    "surface (Table 5.1's), speed_bl_per_s (the centre of mass's speed in body lengths per "
    "second, the thesis tables' unit); the package's data/measured_tables.csv is Tables 5.2-5.7"
)
WORKERS = ParamSpec('workers', 1, 'local Ray workers, at most one per core', 1, 1_000_000)
EVALUATIONS = ParamSpec('evaluations', 200, 'parameter sets evaluated in all', 1, 1_000_000)
SEED = ParamSpec('seed', 0, "the split's and the optimiser's seed", 0, 2**31 - 1)
MIN_DURATION = ParamSpec(
    'min_duration_s', 10.0, 'simulated seconds per cell, at least', 0.5, 600.0
)
# two periods: a speed is measured between cycle-averaged positions
CYCLES = ParamSpec('cycles', 6, 'gait periods per cell, at least', 2, 1000)


def _fit_parser() -> CommandParser:
    parser = CommandParser(prog='soft-snake-fit', description=FIT_HELP)
    parser.add_argument('measured', help=MEASURED_HELP)
    parser.add_argument('--out', type=output_dir, required=True, help='folder of the results')
    parser.add_argument(
        '--base',
        help="your robot's parameter file (masses, sizes, any name params.yaml holds): the fit "
        'starts from it and keeps what it does not fit (default: the calibrated model)',
    )
    parser.add_argument(
        '--split',
        default='0.7',
        help="the training share of each gait's cells (0.7), or field=value: those cells held "
        'out (segments=5, surface=grass); the held-out figures are the ones reported',
    )
    add_option(parser, '--seed', SEED)
    parser.add_argument(
        '--address', type=_address, help=ADDRESS_HELP.replace('--processes', '--workers')
    )
    add_option(parser, '--workers', WORKERS)
    add_option(parser, '--evaluations', EVALUATIONS)
    add_option(parser, '--min-duration', MIN_DURATION)
    add_option(parser, '--cycles', CYCLES)
    return parser


def fit_main(argv: list[str] | None = None) -> int:
    """``soft-snake-fit``: fits ``fit.FITTED`` from ``--base`` (default: the calibrated model) on
    the training cells of MEASURED.csv, writes params.yaml, report.json and plots into ``--out``,
    prints the held-out figures beside the baselines; returns 0, 1 when no set could be scored,
    2 on bad input or an unreachable ``--address``, 130 when interrupted (evaluated sets kept)."""
    parser = _fit_parser()
    args = parser.parse_args(argv)
    from soft_snake import evaluation, fit, measurements, model_file
    from soft_snake.sweep import RaySweep, SweepError

    try:
        cells = measurements.parse(read_input(args.measured), args.measured)
        training, held_out = evaluation.split(cells, args.split, args.seed)
        fit.check_enough(training, held_out, args.measured)
        base = model_file.load_or_calibrated(args.base)
        fit.check_base(base, args.base or 'the calibrated model')
    except ValueError as error:
        return refuse(parser.prog, error)
    workers = (
        args.workers if args.address else worker_count(args.workers, parser.prog, '--workers')
    )
    try:
        with RaySweep(args.address, workers) as pool:
            report = fit.run(args, pool, training, held_out, base)
    except SweepError as error:
        return refuse(parser.prog, error)
    except fit.FitFailed as error:
        print(f'{parser.prog}: {error}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        remove_made_folders()  # a fit stopped before its first set leaves nothing
        print(
            f'{parser.prog}: interrupted; every set evaluated is kept in {args.out}, and the same '
            'command continues the fit',
            file=sys.stderr,
        )
        return 130
    from soft_snake import fit_report

    print(fit_report.side_by_side(report['held_out']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
