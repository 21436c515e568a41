"""``tensegrity-sweep``: the paper's ψ sweep from the command line, with JSON and the Fig. 3/4
plots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from soro_node.arguments import (
    STDOUT,
    CommandParser,
    add_option,
    ends_on_ctrl_c,
    output_dir,
    output_file,
    refuse,
)
from tensegrity_sim import plots
from tensegrity_sim.integrate import INTEGRATORS, SimulationDiverged
from tensegrity_sim.presets import PRESETS, preset
from tensegrity_sim.sweep import DT, DURATION, MAX_RUNS, GridError, parse_grid, run_sweep


def _parser() -> CommandParser:
    parser = CommandParser(prog='tensegrity-sweep', description=__doc__)
    parser.add_argument('--preset', default='savin2020_reproduce', choices=sorted(PRESETS))
    parser.add_argument(
        '--psi',
        default='30:75:1',
        help=f'START:STOP:STEP in degrees, inside (0, 90); at most {MAX_RUNS} values',
    )
    parser.add_argument('--integrator', choices=INTEGRATORS, help="default: the preset's")
    add_option(
        parser,
        '--dt',
        DT,
        default=None,
        help=f"fixed step in s, {DT.allowed_range}; default the preset's",
    )
    add_option(
        parser,
        '--duration',
        DURATION,
        default=None,
        help=f"simulated time per ψ in s, {DURATION.allowed_range}; default the preset's",
    )
    parser.add_argument('--json', type=output_file, help='write the report here ("-" for stdout)')
    parser.add_argument(
        '--plots',
        type=output_dir,
        help='write fig3_strain_vs_time.png and fig4_psi_ranges.png here',
    )
    parser.add_argument('--quiet', action='store_true', help='no progress on stderr')
    return parser


def _progress(done: int, total: int, psi: float) -> None:
    width = 30
    filled = width * done // total
    print(
        f'\rsweep [{"#" * filled}{"." * (width - filled)}] {done}/{total} (ψ = {psi:g}°)',
        end='\n' if done == total else '',
        file=sys.stderr,
        flush=True,
    )


def _write(
    report: dict, result, name: str, json_path: Path | None, plots_dir: Path | None
) -> None:
    """The JSON report ('-': stdout) and the Fig. 3/4 plots; OSError when a path cannot be
    written."""
    text = json.dumps(report, indent=1)
    if json_path == STDOUT:
        print(text)
    elif json_path:
        json_path.write_text(text + '\n')
    if plots_dir:
        plots.strain_vs_time(
            result, plots_dir / 'fig3_strain_vs_time.png', f'{name}: strain during the transient'
        )
        plots.psi_ranges(result, plots_dir / 'fig4_psi_ranges.png', f'{name}: strain against ψ')


@ends_on_ctrl_c('tensegrity-sweep')
def main(argv: list[str] | None = None) -> int:
    """``tensegrity-sweep``: a preset's ψ sweep over the ``--psi`` grid, its report as JSON and,
    with ``--plots``, Figs. 3 and 4; the ψ thresholds found go to stderr. Returns the exit code (2:
    a bad grid or value, a diverged run, an output that cannot be written)."""
    args = _parser().parse_args(argv)
    chosen = preset(args.preset)
    try:
        grid = parse_grid(args.psi)
        result = run_sweep(
            chosen,
            grid,
            integrator=args.integrator,
            dt_s=args.dt,
            duration_s=args.duration,
            progress=None if args.quiet else _progress,
        )
    except (GridError, ValueError, SimulationDiverged) as error:
        return refuse('tensegrity-sweep', error)
    report = result.report(
        chosen, args.integrator or chosen.integrator, chosen.dt_s if args.dt is None else args.dt
    )
    try:
        _write(report, result, chosen.name, args.json, args.plots)
    except OSError as error:
        print(
            f'tensegrity-sweep: cannot write {error.filename}: {error.strerror}', file=sys.stderr
        )
        return 2
    found = ', '.join(
        f'{name[:-4]} = ' + (f'{value:g}°' if value is not None else 'not on this grid')
        for name, value in result.thresholds.items()
    )
    print(f'{chosen.name}, {len(grid)} runs: {found}', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
