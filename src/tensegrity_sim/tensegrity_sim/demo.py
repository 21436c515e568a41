"""``tensegrity-demo``: the paper's ψ sweep and one live run of the node recorded to a rosbag2
(MCAP) file, with plots and a summary; the live run's part is what ``soro-analyze`` says about its
bag. ``make demo`` runs it inside a loopback-only network namespace.

    # the node as launch/tensegrity.launch.py starts it:
    tensegrity-demo --out runs/demo/tensegrity
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from softbots_bringup import runner
from soro_analysis.analyses import analyze
from soro_node.arguments import CommandParser, output_dir
from tensegrity_sim import cli

PRESET = 'savin2020_reproduce'
LIVE_PSI_DEG = 50.0
LIVE_SECONDS = 5.0
STATE, MARKERS, POSES = (
    '/tensegrity_sim/state',
    '/tensegrity_sim/markers',
    '/tensegrity_sim/rod_poses',
)


def live_run(out: Path) -> Path:
    """The node as tensegrity.launch.py starts it, released at LIVE_PSI_DEG in real time with its
    three topics recorded; returns the bag directory."""
    bag, logs = out / 'live_bag', out / 'logs'
    logs.mkdir(parents=True, exist_ok=True)
    # the clock starts once the recorder listens; the node exits after the run
    live = logs / 'live.yaml'
    live.write_text(
        f'tensegrity_sim:\n  ros__parameters: {{hold_for_subscribers: 1, duration_s: '
        f'{LIVE_SECONDS}}}\n'
    )
    recorder = runner.start_recorder(bag, [STATE, MARKERS, POSES], logs)
    try:
        [node] = runner.start(
            'tensegrity.launch.py',
            logs,
            {'preset': PRESET, 'psi': repr(math.radians(LIVE_PSI_DEG))},
            extra_params=[live],
        )
    except runner.ScenarioError:
        recorder.stop()
        raise
    runner.run_for(LIVE_SECONDS + 30.0, [recorder, node], until_exit=node)
    return bag


def _deg(value: float | None) -> str:
    return 'not on the grid' if value is None else f'{value:g}°'


def summarize(out: Path, sweep: dict, live: str) -> str:
    """The sweep's section, then what soro-analyze says about the live run's bag (``live``: its
    summary)."""
    lines = [
        f'# Tensegrity 3-prism ({PRESET})',
        '',
        '## ψ sweep, 30-75° at 1° (paper section 3)',
        f'- ψ_min = {_deg(sweep["psi_min_deg"])} and ψ_max = '
        f'{_deg(sweep["psi_max_deg"])} (paper: 36° and 68°)',
        f'- ψ* = {_deg(sweep["psi_star_deg"])} and ψ** = {_deg(sweep["psi_2star_deg"])} '
        '(paper: about 45° and 57°)',
        '- plots: fig3_strain_vs_time.png, fig4_psi_ranges.png; numbers: sweep.json',
        '',
        f'## Live run at ψ = {LIVE_PSI_DEG:g}°, recorded to live_bag/; soro-analyze wrote live/',
        *live.splitlines()[2:],
    ]
    text = '\n'.join(lines)
    (out / 'summary.md').write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    """``tensegrity-demo``: the preset's ψ sweep (30° to 75° in 1° steps) and the recorded live run
    in ``--out``, then the combined summary printed; the exit code (1: the sweep or the run
    failed)."""
    parser = CommandParser(prog='tensegrity-demo', description=__doc__.splitlines()[0])
    parser.add_argument(
        '--out', type=output_dir, required=True, help='folder for the results (created)'
    )
    args = parser.parse_args(argv)
    if (
        cli.main(
            [
                '--preset',
                PRESET,
                '--psi',
                '30:75:1',
                '--json',
                str(args.out / 'sweep.json'),
                '--plots',
                str(args.out),
            ]
        )
        != 0
    ):
        return 1
    try:
        bag = live_run(args.out)
    except runner.ScenarioError as error:
        print(f'tensegrity-demo: {error}', file=sys.stderr)
        return 1
    # as on any recorded run
    analyze(bag, args.out / 'live', 'tensegrity', [f'preset:={PRESET}'])
    print(
        summarize(
            args.out,
            json.loads((args.out / 'sweep.json').read_text()),
            (args.out / 'live' / 'summary.md').read_text(),
        )
    )
    return 0


if __name__ == '__main__':
    sys.exit(main())
