"""``soft-snake-demo``: chapter 2's experiments in simulation, end to end. Through the real nodes,
as soft_snake.launch.py sim:=true starts them, each run recorded to a rosbag2 (MCAP) file and
analysed by ``soro-analyze``: undulation (2 Hz, β = 2π/3) and sidewinding (0.875 Hz, β = π/2) on
paper with four modules, the thesis's headline settings, undulation on grass, and the step climb of
Table 2.3 (five sheathed modules before the 7 cm step, each wheel over it advancing the row).
Then every cell of Tables 5.2-5.7 predicted against what was measured, and an animation of the
undulating snake.

    soft-snake-demo --out runs/demo/soft_snake
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from soft_snake import animation, calibration, climbing, fit_report, reproduction, targets
from soft_snake.bag_analysis import PAST_EDGE, WHEELS
from soft_snake.commander import SoftSnakeCommander
from soft_snake.gaits import PRESETS
from soft_snake.step_climb import ROW_FREQUENCIES_HZ
from softbots_bringup import runner
from soro_analysis.analyses import analyze
from soro_node import commander
from soro_node.arguments import CommandParser, output_dir

TOPICS = [
    '/mocap/soft_snake/com',
    '/mocap/soft_snake/head',
    '/soft_snake_driver/valve_duty',
    '/soft_snake_driver/chamber_pressure',
    '/joint_states',
]
CLIMB_TOPICS = TOPICS + [WHEELS, PAST_EDGE]
# the step climb as bench/snake_step.py runs it offline (each row at its ω and share of the supply,
# ROW_FREQUENCIES_HZ and ROW_UNDULATION_DUTIES; the goal's 1 Hz sets the feedback's period): the
# issue's 60 s for every wheel to get over, and the finishing row's 20 s after it
CLIMB_HZ, CLIMB_S = 1.0, 80.0
# the climb starts where bench/snake_step.py's first run does (the simulator's start_seed): from
# the exact nominal pose, straight at the step, the snake slews off it in row 3 offline
# (docs/soft_snake.md), a start no robot set down by hand has
CLIMB_START_SEED = 0
# (name, surface, gait, frequency Hz, β rad, duration s, what the thesis measured in mm/s or None)
RUNS = (
    ('undulation_paper', 'paper', 'undulation', 2.0, 2 * math.pi / 3, 10.0, 140.25),
    ('sidewinding_paper', 'paper', 'sidewinding', 0.875, math.pi / 2, 12.0, 76.50),
    ('undulation_grass', 'grass', 'undulation', 2.0, 2 * math.pi / 3, 10.0, None),
)


def live_run(
    name: str,
    surface: str,
    gait: str,
    frequency: float,
    beta: float,
    duration: float,
    out: Path,
    arguments: dict | None = None,
    topics: list[str] = TOPICS,
    sim_params: dict | None = None,
) -> dict:
    """One gait through the nodes, recorded and analysed (``sim_params`` laid over the
    simulator's parameters); the analysis's numbers."""
    logs, bag = out / name / 'logs', out / name / 'bag'
    logs.mkdir(parents=True, exist_ok=True)
    extra = (
        [runner.write_params(logs / 'sim.yaml', {'soft_snake_sim': sim_params})]
        if sim_params
        else []
    )
    processes = runner.start_recorded(
        'soft_snake.launch.py',
        logs,
        bag,
        topics,
        {'sim': 'true', 'surface': surface, **(arguments or {})},
        extra,
    )
    commander.init()
    try:
        snake = SoftSnakeCommander()
        try:
            if not snake.wait_connected():
                raise runner.ScenarioError(
                    f'{name}: the driver never reached the head; logs in {logs}'
                )
            result = snake.run_gait(gait, frequency, beta, duration_s=duration)
            print(f'soft-snake-demo: {name}: {result.message}', flush=True)
        finally:
            snake.close()
    finally:
        codes = runner.stop_all(processes)
    if any(codes.values()):
        raise runner.ScenarioError(f'processes did not stop cleanly: {codes}; logs in {logs}')
    report, _ = analyze(bag, out / name / 'analysis', 'soft_snake')
    return report.numbers


def tables(out: Path) -> list[str]:
    """The summary's Tables 5.2-5.7 section (Markdown lines): every cell predicted, the rank
    correlations and SN-13's trends; writes ``tables_scatter.png``, the tables' plots and
    ``main_effects.png`` into ``out``."""
    predictions = reproduction.predict_tables(processes=2)
    reproduction.scatter(predictions, out / 'tables_scatter.png')
    fit_report.table_plots(predictions, out)
    fit_report.effects_plot(fit_report.main_effects(predictions), out / 'main_effects.png')
    rho = reproduction.rank_correlation(predictions)
    lines = [
        '## Tables 5.2-5.7 predicted (calibrated on half of the cells: split 0.5, seed 0)',
        '',
        '- Spearman rank correlation, simulated against measured: undulation '
        f'{rho["undulation"]:.2f}, '
        f'sidewinding {rho["sidewinding"]:.2f} ({len(predictions)} cells); '
        'tables_scatter.png, per table table_5_N.png (speed over β, measured solid, '
        "predicted dashed) and main_effects.png (each factor's effect on ln BL/s)",
        '',
        '| SN-13 trend | holds | the numbers |',
        '|---|---|---|',
    ]
    lines += [
        f'| {name} | {"yes" if holds else "no"} | {detail} |'
        for name, (holds, detail) in reproduction.trends(predictions).items()
    ]
    return lines + [''] + target_lines(predictions)


def target_lines(predictions) -> list[str]:
    """Issue 29's table targets (``targets``): simulated beside the robot's own, as Markdown."""
    both = targets.beside_the_robot(predictions)
    lines = ['| target | simulated | the robot | met |', '|---|---|---|---|']
    for name, mine in both['simulator'].items():
        lines.append(
            f'| {name.replace("_", " ")} {mine["target"]} | {_figure(mine)} | '
            f'{_figure(both["robot"][name])} | {"yes" if mine["met"] else "no"} |'
        )
    return lines + ['']


def _figure(target: dict) -> str:
    value = target['value']
    if isinstance(value, dict):
        return ', '.join(f'{k} {v}' for k, v in value.items())
    return f'{value:.2f} ({target["groups"]} groups)'


def start_text() -> str:
    """The climb's start against the nominal pose, in words."""
    start = climbing.Start.jittered(CLIMB_START_SEED)
    return (
        f'{start.along_m * 1e3:+.0f} mm toward the step, {start.across_m * 1e3:+.0f} mm to the '
        f'left, turned {math.degrees(start.heading_rad):+.1f}°'
    )


def main(argv: list[str] | None = None) -> int:
    """``soft-snake-demo``: the runs of ``RUNS`` and the step climb through the nodes, the
    tables and the animation, into ``--out`` with a ``summary.md``; returns 0, or 1 when a
    run fails."""
    parser = CommandParser(prog='soft-snake-demo', description=__doc__.splitlines()[0])
    parser.add_argument(
        '--out', type=output_dir, required=True, help='folder for the results (created)'
    )
    out = parser.parse_args(argv).out.resolve()
    lines = [
        '# Pneumatic soft snake: chapter 2 in simulation',
        '',
        '## Runs through the nodes (4 modules)',
        '',
        '| run | speed (mm/s) | BL/s | along the body (mm/s) | path curvature '
        '(1/m) | thesis (mm/s) |',
        '|---|---|---|---|---|---|',
    ]
    try:
        for name, surface, gait, frequency, beta, duration, measured in RUNS:
            n = live_run(name, surface, gait, frequency, beta, duration, out)
            lines.append(
                f'| {name} | {n["speed_mm_s"]:.1f} | {n["speed_bl_s"]:.3f} | '
                f'{n["forward_speed_mm_s"]:+.1f} '
                f'| {n["path_curvature_per_m"]:.2f} | '
                f'{"" if measured is None else measured} |'
            )
        climb = live_run(
            'step_climb',
            'paper',
            'step_climb',
            CLIMB_HZ,
            2 * math.pi / 3,
            CLIMB_S,
            out,
            {'segments': '5', 'step_ahead_m': str(climbing.STEP_AHEAD_M)},
            CLIMB_TOPICS,
            {'start_seed': CLIMB_START_SEED},
        )
    except (runner.ScenarioError, commander.CommanderError) as error:
        print(f'soft-snake-demo: {error}', file=sys.stderr)
        return 1
    on_step = climb['wheels_on_step_at_end']
    on_step = 'not recorded' if on_step is None else f'{on_step} of 6'
    lines += [
        '',
        "Each run's bag is in <run>/bag and what soro-analyze says about it in <run>/analysis.",
        '',
        '## Step climb (5 modules, the 7 cm step '
        f'{climbing.STEP_AHEAD_M * 1e3:.0f} mm ahead, Table 2.3 at '
        f'{", ".join(f"{f:g}" for f in ROW_FREQUENCIES_HZ)} Hz row by row, for {CLIMB_S:.0f} s; '
        'each wheel over the step advances the row)',
        '',
        f"- the start: bench/snake_step.py's seed {CLIMB_START_SEED} ({start_text()})",
        f'- highest each wheel got (mm, head to tail): '
        f'{", ".join(f"{h * 1e3:.0f}" for h in climb["wheel_peak_height_m"])}',
        "- wheels at the step's height at the end: "
        f'{climb["wheels_at_step_height_at_end"]} of 6; on the step (past its edge too): '
        f'{on_step}; step_climb/analysis/step_climb.png',
        '',
    ]
    lines += tables(out)
    gait = calibration.head_first(PRESETS['undulation_default'][0])
    frames, com = animation.record(gait, 'paper', 6.0, calibration.CALIBRATED)
    animation.write_gif(frames, com, out / 'undulation.gif', 'Undulation on paper, 2 Hz, β = 2π/3')
    lines += [
        'undulation.gif: six simulated seconds of undulation on paper (undulation.png: the '
        'last frame).',
        '',
    ]
    (out / 'summary.md').write_text('\n'.join(lines))
    print('\n'.join(lines))
    return 0


if __name__ == '__main__':
    sys.exit(main())
