"""``tensegrity-sweep``: the paper's ψ sweep from the command line, with JSON and the Fig. 3/4 plots."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tensegrity_sim import plots
from tensegrity_sim.integrate import INTEGRATORS, SimulationDiverged
from tensegrity_sim.presets import PRESETS, preset
from tensegrity_sim.sweep import GridError, parse_grid, run_sweep


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog='tensegrity-sweep', description=__doc__)
    parser.add_argument('--preset', default='savin2020_reproduce', choices=sorted(PRESETS))
    parser.add_argument('--psi', default='30:75:1', help='START:STOP:STEP in degrees, inside (0, 90)')
    parser.add_argument('--integrator', choices=INTEGRATORS, help='default: the preset\'s')
    parser.add_argument('--dt', type=float, help='fixed step in s (default: the preset\'s)')
    parser.add_argument('--duration', type=float, help='simulated time per ψ in s (default: the preset\'s)')
    parser.add_argument('--json', type=Path, help='write the report here ("-" for stdout)')
    parser.add_argument('--plots', type=Path, help='write fig3_strain_vs_time.png and fig4_psi_ranges.png here')
    parser.add_argument('--quiet', action='store_true', help='no progress on stderr')
    return parser


def _progress(done: int, total: int, psi: float) -> None:
    width = 30
    filled = width * done // total
    print(f'\rsweep [{"#" * filled}{"." * (width - filled)}] {done}/{total} (ψ = {psi:g}°)',
          end='\n' if done == total else '', file=sys.stderr, flush=True)


def _write(report: dict, result, name: str, json_path: Path | None, plots_dir: Path | None) -> None:
    """The JSON report ('-': stdout) and the Fig. 3/4 plots; OSError when a path cannot be written."""
    text = json.dumps(report, indent=1)
    if json_path == Path('-'):
        print(text)
    elif json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(text + '\n')
    if plots_dir:
        plots_dir.mkdir(parents=True, exist_ok=True)
        plots.strain_vs_time(result, plots_dir / 'fig3_strain_vs_time.png', f'{name}: strain during the transient')
        plots.psi_ranges(result, plots_dir / 'fig4_psi_ranges.png', f'{name}: strain against ψ')


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    chosen = preset(args.preset)
    try:
        grid = parse_grid(args.psi)
        result = run_sweep(chosen, grid, integrator=args.integrator, dt_s=args.dt, duration_s=args.duration,
                           progress=None if args.quiet else _progress)
    except (GridError, ValueError, SimulationDiverged) as error:
        print(f'tensegrity-sweep: {error}', file=sys.stderr)
        return 2
    report = result.report(chosen, args.integrator or chosen.integrator, args.dt or chosen.dt_s)
    try:
        _write(report, result, chosen.name, args.json, args.plots)
    except OSError as error:
        print(f'tensegrity-sweep: cannot write {error.filename}: {error.strerror}', file=sys.stderr)
        return 2
    found = ', '.join(f'{name[:-4]} = ' + (f'{value:g}°' if value is not None else 'not on this grid')
                      for name, value in result.thresholds.items())
    print(f'{chosen.name}, {len(grid)} runs: {found}', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
