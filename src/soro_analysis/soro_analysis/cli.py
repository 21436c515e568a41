"""``soro-analyze BAG --out DIR``: a recorded experiment's numbers, figures and summary, by the
analysis of the robot whose topics the bag holds (or ``--robot``); options of that analysis as ``-p
name:=value``."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from soro_analysis.analyses import AnalysisError, analyze, registered
from soro_analysis.bag import UnreadableBag
from soro_analysis.recording import MalformedMessages, MissingTopics
from soro_node.arguments import CommandParser, ends_on_ctrl_c, output_dir, refuse

SHOW_PROGRESS_AFTER_S = 2.0


def _parser() -> CommandParser:
    robots = sorted(registered())
    parser = CommandParser(prog='soro-analyze', description=__doc__)
    parser.add_argument(
        'bag', type=Path, help='a rosbag2 directory, or a single .mcap or .db3 file'
    )
    parser.add_argument(
        '--robot',
        default='auto',
        choices=robots + ['auto'],
        help='whose analysis; auto: the one whose topics are in the bag',
    )
    parser.add_argument(
        '--out', type=output_dir, required=True, help='folder for summary.md, figures.json, PNGs'
    )
    parser.add_argument('--json', action='store_true', help='also print figures.json on stdout')
    parser.add_argument(
        '-p',
        dest='options',
        action='append',
        default=[],
        metavar='NAME:=VALUE',
        help="an option of the analysis (docs/analysis.md lists each robot's)",
    )
    return parser


class _Progress:
    """A count on stderr once reading has taken more than SHOW_PROGRESS_AFTER_S (small bags stay
    quiet)."""

    def __init__(self):
        self.started, self.shown = time.monotonic(), False

    def __call__(self, count: int) -> None:
        if time.monotonic() - self.started > SHOW_PROGRESS_AFTER_S:
            self.shown = True
            print(
                f'\rsoro-analyze: {count} messages read ({time.monotonic() - self.started:.0f} s)',
                end='',
                file=sys.stderr,
                flush=True,
            )

    def done(self) -> None:
        if self.shown:
            print(file=sys.stderr)


@ends_on_ctrl_c('soro-analyze')
def main(argv: list[str] | None = None) -> int:
    """``soro-analyze BAG --out DIR``: the report of the bag's robot written into ``out``; 0, or 2
    with one line on stderr when the bag, the robot or an option is refused."""
    args = _parser().parse_args(argv)
    progress = _Progress()
    try:
        report, warnings = analyze(args.bag, args.out, args.robot, args.options, progress)
    except (
        MissingTopics,
        MalformedMessages,
        AnalysisError,
        UnreadableBag,
        FileNotFoundError,
    ) as error:
        progress.done()
        return refuse('soro-analyze', error)
    progress.done()
    for warning in warnings:
        print(f'soro-analyze: warning: {warning}', file=sys.stderr)
    if args.json:
        print(json.dumps(report.document(), indent=1))
    print(
        f'soro-analyze: {report.title}: {args.out / "summary.md"}, '
        f'{args.out / "figures.json"} and '
        f'{len(report.figures)} figure(s) in {args.out}',
        file=sys.stderr,
    )
    return 0


if __name__ == '__main__':
    sys.exit(main())
