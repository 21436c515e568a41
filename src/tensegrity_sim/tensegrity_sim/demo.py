"""``tensegrity-demo``: the paper's ψ sweep and one live run of the node recorded to a rosbag2 (MCAP) file, with
plots and a summary. ``make demo`` runs it inside a loopback-only network namespace.

    tensegrity-demo --out runs/demo/tensegrity          # the node as launch/tensegrity.launch.py starts it
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from softbots_bringup import runner
from soro_node.arguments import CommandParser, output_dir
from soro_link.bag import read_messages
from tensegrity_sim import cli, plots, prism
from tensegrity_sim.dynamics import Dynamics
from tensegrity_sim.integrate import simulate
from tensegrity_sim.presets import preset

PRESET = 'savin2020_reproduce'
LIVE_PSI_DEG = 50.0
LIVE_SECONDS = 5.0
STATE, MARKERS, POSES = '/tensegrity_sim/state', '/tensegrity_sim/markers', '/tensegrity_sim/rod_poses'


def live_run(out: Path) -> Path:
    """The node as tensegrity.launch.py starts it, released at LIVE_PSI_DEG in real time with its three topics
    recorded; returns the bag directory."""
    bag, logs = out / 'live_bag', out / 'logs'
    logs.mkdir(parents=True, exist_ok=True)
    live = logs / 'live.yaml'      # the clock starts once the recorder listens; the node exits after the run
    live.write_text(f'tensegrity_sim:\n  ros__parameters: {{hold_for_subscribers: 1, duration_s: {LIVE_SECONDS}}}\n')
    recorder = runner.start_recorder(bag, [STATE, MARKERS, POSES], logs)
    try:
        [node] = runner.start('tensegrity.launch.py', logs, {'preset': PRESET, 'psi_deg': str(LIVE_PSI_DEG)},
                              extra_params=[live])
    except runner.ScenarioError:
        recorder.stop()
        raise
    runner.run_for(LIVE_SECONDS + 30.0, [recorder, node], until_exit=node)
    return bag


def read_live(bag: Path) -> dict:
    """Counts per topic, and the state stream as arrays (sim time, strains) from the recorded bag."""
    counts, times, strains, stamps = {STATE: 0, MARKERS: 0, POSES: 0}, [], [], []
    for topic, stamp_ns, message in read_messages(bag):
        counts[topic] += 1
        if topic == STATE:
            times.append(message.sim_time_s)
            strains.append(np.asarray(message.cable_strains))
            stamps.append(stamp_ns * 1e-9)
    return {'counts': counts, 'sim_time_s': np.array(times), 'strains': np.array(strains), 'stamps': np.array(stamps)}


def compare_with_core(live: dict) -> float:
    """Largest difference (strain, fraction) between the recorded stream and the offline core at the same times."""
    p = preset(PRESET)
    dynamics = Dynamics(p.structure)
    trajectory = simulate(dynamics, p.initial_state(LIVE_PSI_DEG), LIVE_SECONDS + 1.0, dt_s=p.dt_s,
                          sample_period_s=p.dt_s)
    core = dynamics.strains(trajectory.states)
    index = np.clip(np.round(live['sim_time_s'] / p.dt_s).astype(int), 0, len(core) - 1)
    return float(np.max(np.abs(core[index] - live['strains'])))


def _deg(value: float | None) -> str:
    return 'not on the grid' if value is None else f'{value:g}°'


def summarize(out: Path, sweep: dict, live: dict, core_diff: float) -> str:
    moving = live['sim_time_s'] > 0
    rate = (moving.sum() - 1) / np.ptp(live['stamps'][moving]) if moving.sum() > 1 else 0.0
    final = 100 * live['strains'][-1]
    lines = [
        f'# Tensegrity 3-prism ({PRESET})', '',
        '## ψ sweep, 30-75° at 1° (paper section 3)',
        f'- ψ_min = {_deg(sweep["psi_min_deg"])} and ψ_max = {_deg(sweep["psi_max_deg"])} (paper: 36° and 68°)',
        f'- ψ* = {_deg(sweep["psi_star_deg"])} and ψ** = {_deg(sweep["psi_2star_deg"])} (paper: about 45° and 57°)',
        '- plots: fig3_strain_vs_time.png, fig4_psi_ranges.png; numbers: sweep.json', '',
        f'## Live run at ψ = {LIVE_PSI_DEG:g}°, recorded to live_bag/ (rosbag2, MCAP)',
        f'- messages: {", ".join(f"{t} {n}" for t, n in live["counts"].items())}',
        f'- state rate while running: {rate:.1f} Hz; simulated time covered: {live["sim_time_s"].max():.2f} s',
        f'- final strains upper/lower/side: {final[0]:.1f} / {final[1]:.1f} / {final[2]:.1f} %',
        f'- largest difference from the offline core at the same simulated times: {core_diff:.1e} (strain)',
        '- plot: live_strains.png', '']
    text = '\n'.join(lines)
    (out / 'summary.md').write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog='tensegrity-demo', description=__doc__.splitlines()[0])
    parser.add_argument('--out', type=output_dir, required=True, help='folder for the results (created)')
    args = parser.parse_args(argv)
    if cli.main(['--preset', PRESET, '--psi', '30:75:1', '--json', str(args.out / 'sweep.json'),
                 '--plots', str(args.out)]) != 0:
        return 1
    try:
        live = read_live(live_run(args.out))
    except runner.ScenarioError as error:
        print(f'tensegrity-demo: {error}', file=sys.stderr)
        return 1
    plots.triples_vs_time(live['sim_time_s'], live['strains'], args.out / 'live_strains.png',
                          f'live run at ψ = {LIVE_PSI_DEG:g}°, read back from the bag')
    print(summarize(args.out, json.loads((args.out / 'sweep.json').read_text()), live, compare_with_core(live)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
