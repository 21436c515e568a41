"""``pom-demo``: the voxel quadruped walks its tripod gait in simulation, end to end through the
real nodes, as pom.launch.py sim:=true starts them; the strokes, the predicted and the camera's
markers are recorded to a rosbag2 (MCAP) file, and the summary, numbers and figures beside it are
what ``soro-analyze`` says about that bag.

    pom-demo --out runs/demo/pom
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pom_voxel.commander import PomCommander
from softbots_bringup import runner
from soro_analysis.analyses import analyze
from soro_node import commander
from soro_node.arguments import CommandParser, add_option, output_dir
from soro_node.params import ParamSpec

TOPICS = ['/joint_states', '/mocap_markers', '/pom_controller/predicted_markers']
CYCLES = ParamSpec('cycles', 3, 'tripod cycles', 1, 100)
STEP_PERIOD_S = 0.5


def run_scenario(out: Path, cycles: int) -> Path:
    """Launch pom.launch.py sim:=true recording TOPICS, walk ``cycles`` tripod cycles through
    PomCommander and stop the processes; the bag's folder. ScenarioError if one did not stop
    cleanly."""
    logs, bag = out / 'logs', out / 'bag'
    logs.mkdir(parents=True, exist_ok=True)
    params = logs / 'demo_parameters.yaml'
    params.write_text(
        f'pom_sim:\n  ros__parameters: {{port: {out / "ttyPOM"}}}\n'
        f'pom_controller:\n  ros__parameters: {{port: {out / "ttyPOM"}}}\n'
    )
    processes = runner.start_recorded(
        'pom.launch.py', logs, bag, TOPICS, {'sim': 'true'}, extra_params=[params]
    )
    commander.init()
    try:
        robot = PomCommander()
        try:

            def progress(feedback) -> None:
                if feedback.key_pose == 1:
                    print(f'pom-demo: tripod cycle {feedback.cycle}/{cycles}', flush=True)

            result = robot.execute_gait('tripod', cycles, STEP_PERIOD_S, on_feedback=progress)
            print(f'pom-demo: {result.message}', flush=True)
        finally:
            robot.close()
    finally:
        commander.shutdown()
        codes = runner.stop_all(processes)
    if any(codes.values()):
        raise runner.ScenarioError(f'processes did not stop cleanly: {codes}; logs in {logs}')
    return bag


def main(argv: list[str] | None = None) -> int:
    """``pom-demo``: the scenario in ``--out`` and soro-analyze's summary of its bag, printed; the
    exit code (1: the scenario failed)."""
    parser = CommandParser(prog='pom-demo', description=__doc__.splitlines()[0])
    parser.add_argument(
        '--out', type=output_dir, required=True, help='folder for the results (created)'
    )
    add_option(parser, '--cycles', CYCLES)
    args = parser.parse_args(argv)
    out = args.out.resolve()
    try:
        bag = run_scenario(out, args.cycles)
    except (runner.ScenarioError, commander.CommanderError) as error:
        print(f'pom-demo: {error}', file=sys.stderr)
        return 1
    analyze(bag, out, 'pom')
    with (out / 'summary.md').open('a') as summary:
        summary.write('\n'.join(fe_lines(out)) + '\n')
    print((out / 'summary.md').read_text())
    return 0


def fe_lines(out: Path) -> list[str]:
    """The paper's finite-element experiment on its 4 x 4 x 1 layer (``fe_check``): its figure and
    JSON into ``out``, and the summary's lines."""
    from pom_voxel import fe_check
    from pom_voxel.fe_plots import fe_figure

    result = fe_check.check(fe_check.box(4, 4, 1))
    fe_figure(result, out / 'fig2_fe_vs_pom.png')
    (out / 'fe_check.json').write_text(json.dumps(result.document(), indent=1) + '\n')
    profile = ', '.join(f'{v:.3f}' for v in result.profile)
    return [
        '',
        "## The paper's finite-element check (Fig. 2: its 4 x 4 x 1 layer, centre void driven)",
        '',
        f'- up to {100 * result.displacement_lost:.1f} % of displacement lost (the paper: up to '
        f'{100 * fe_check.PAPER_LOSS:.1f} %); against distance from the actuator: {profile}',
        f'- FE = {result.scale:.3f} x POM, {100 * result.residual_share:.1f} % not captured; '
        'fig2_fe_vs_pom.png, fe_check.json',
    ]


if __name__ == '__main__':
    sys.exit(main())
