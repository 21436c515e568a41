"""``soft-snake-gait``: the chamber pattern K (segments × chambers, the top chamber included) of a
gait at given times, as JSON. ``soft-snake-tables``: the calibrated simulator's prediction of every
cell of the thesis's Tables 5.2-5.7 beside the measured value, the rank correlations and SN-13's
trends, as JSON and a scatter plot. Every refusal one line, exit code 2.

    soft-snake-gait --gait undulation --segments 4 --freq 2.0 --beta 2.0944 \\
        --times 0.05,0.1,0.2 --json
    soft-snake-tables --json tables.json --plot tables.png --processes 2
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from soft_snake.gaits import GAITS, Gait, GaitError, chamber_states
from soro_node.arguments import CommandParser, add_option, output_file, worker_count, write_output
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
        '--beta', type=_number, required=True, help='phase difference β between segments (rad)'
    )
    parser.add_argument(
        '--phi', type=_number, default=0.0, help='offset ϕ of the travelling wave (default 0)'
    )
    parser.add_argument(
        '--times', type=_times, required=True, help='comma-separated times since the start (s)'
    )
    parser.add_argument(
        '--json', action='store_true', help='JSON (the only output form; kept for clarity)'
    )
    args = parser.parse_args(argv)
    try:
        gait = Gait(args.gait, args.segments, args.freq, args.beta, args.phi)
    except GaitError as error:
        print(f'soft-snake-gait: {error}', file=sys.stderr)
        return 2
    document = {
        'gait': gait.kind,
        'segments': gait.segments,
        'frequency_hz': gait.frequency_hz,
        'beta_rad': gait.beta_rad,
        'phi': gait.phi,
        'chambers': ['bottom_left', 'bottom_right', 'top'],
        'states': [{'t_s': t, 'K': chamber_states(gait, t).tolist()} for t in args.times],
    }
    print(json.dumps(document))
    return 0


PROCESSES = ParamSpec(
    'processes', 1, 'worker processes, at most one per core (default 1)', 1, 1_000_000
)


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
    args = parser.parse_args(argv)
    processes = worker_count(args.processes, parser.prog, '--processes')
    from soft_snake import reproduction

    predictions = reproduction.predict_tables(processes=processes)
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


if __name__ == '__main__':
    sys.exit(main())
