"""A recorded tensegrity run analysed (soro-analyze --robot tensegrity): the strain of each cable
triple against simulated time (the paper's Fig. 3 style), the final state, and optionally the
largest difference from the offline core integrating the same preset from the same ψ."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from soro_analysis.analyses import Analysis, AnalysisError, Report
from soro_analysis.recording import Recording, Series
from soro_node.params import ParamSpec
from tensegrity_sim import plots, prism
from tensegrity_sim.dynamics import Dynamics
from tensegrity_sim.integrate import simulate
from tensegrity_sim.presets import PRESETS, preset
from tensegrity_sim.sweep import DURATION

STATE = '/tensegrity_sim/state'
OPTIONS = (
    ParamSpec(
        'preset',
        '',
        'compare with the offline core on this preset (empty: no comparison)',
        choices=('',) + tuple(PRESETS),
    ),
)


def core_difference(
    preset_name: str, psi_deg: float, sim_time_s: np.ndarray, strains: np.ndarray
) -> float:
    """Largest |ε_live - ε_core| (fraction) at the recorded simulated times, the core at the
    preset's step."""
    p = preset(preset_name)
    dynamics = Dynamics(p.structure)
    duration = p.dt_s * np.ceil(sim_time_s.max() / p.dt_s + 1)
    core = dynamics.strains(
        simulate(
            dynamics, p.initial_state(psi_deg), duration, dt_s=p.dt_s, sample_period_s=p.dt_s
        ).states
    )
    index = np.clip(np.round(sim_time_s / p.dt_s).astype(int), 0, len(core) - 1)
    return float(np.max(np.abs(core[index] - strains)))


def analyze(recording: Recording, out: Path, options: dict) -> Report:
    """The run in ``recording`` analysed into ``out``: each triple's mean strain (%) against
    simulated time (strains.png), the last ψ, the final strains, normal mode and energy, and the
    publishing rate (Hz); with ``options['preset']`` also the largest strain difference from the
    offline core."""
    state = recording.series(
        STATE,
        sim_time_s=lambda m: m.sim_time_s,
        psi_rad=lambda m: m.psi_rad,
        energy=lambda m: m.energy,
        normal=lambda m: m.normal_mode,
        strains=lambda m: np.asarray(m.cable_strains),
    )
    state, dropped = _timed(state, recording.path)
    t, strains = state['sim_time_s'], state['strains']
    triples = {
        name: 100 * strains[:, list(cables)].mean(axis=1) for name, cables in prism.TRIPLES.items()
    }
    psi = float(np.degrees(state['psi_rad'][-1]))
    moving = t > 0
    rate = (moving.sum() - 1) / np.ptp(state.receive_s[moving]) if moving.sum() > 1 else 0.0
    final = {name: float(values[-1]) for name, values in triples.items()}
    report = Report(f'Tensegrity run: {recording.path}')
    report.numbers = {
        'psi_deg': psi,
        'messages': len(state),
        'rate_hz': rate,
        'sim_time_s': float(t.max()),
        'final_strain_pct': final,
        'final_normal_mode': bool(state['normal'][-1]),
        'final_energy_j': float(state['energy'][-1]),
    }
    plots.triples_vs_time(t, strains, out / 'strains.png', f'recorded run at ψ = {psi:g}°')
    report.figures['strains.png'] = {
        'sim_time_s': t,
        **{f'{name}_pct': v for name, v in triples.items()},
    }
    report.lines += [
        f'## Run at ψ = {psi:g}°: {len(state)} states over {t.max():.2f} s simulated '
        f'({rate:.1f} Hz)',
        f'- final strains upper/lower/side: {final["upper"]:.1f} / '
        f'{final["lower"]:.1f} / '
        f'{final["side"]:.1f} %; normal mode: '
        f'{"yes" if state["normal"][-1] else "no"}; '
        f'energy {state["energy"][-1]:.4g} J',
        "- strains.png: each triple's strain against simulated time (Fig. 3 style)",
    ]
    if dropped:
        report.lines.append(
            f'- {dropped} state(s) without a finite, non-negative simulated time left out'
        )
    if options['preset']:
        if not np.isfinite(psi):
            raise AnalysisError(
                f'{recording.path}: preset: the run has no ψ to start the offline core from (a '
                'reset to a given configuration records ψ as NaN)'
            )
        # the core integrates from 0 up to the last time compared: a sweep's longest run at most
        within = t <= DURATION.high
        if not within.any():
            raise AnalysisError(
                f'{recording.path}: preset: every state lies past {DURATION.high:g} s of '
                'simulated time, beyond what the offline core is run for'
            )
        difference = core_difference(options['preset'], psi, t[within], strains[within])
        report.numbers['max_difference_to_core'] = difference
        report.lines.append(
            f'- largest difference from the offline core ({options["preset"]}, same ψ, same '
            f'simulated times{"" if within.all() else f", up to {DURATION.high:g} s"}): '
            f'{difference:.1e} (strain)'
        )
    report.lines.append('')
    return report


def _timed(state: Series, path: Path) -> tuple[Series, int]:
    """The states whose simulated time is finite and >= 0, and how many were not; AnalysisError
    when none is (a live node's clock starts at 0 on each reset)."""
    keep = np.isfinite(state['sim_time_s']) & (state['sim_time_s'] >= 0)
    if not keep.any():
        raise AnalysisError(
            f'{path}: none of the {len(state)} {STATE} messages has a finite, non-negative '
            'sim_time_s'
        )
    return state.subset(keep), int(np.count_nonzero(~keep))


ANALYSIS = Analysis(
    'tensegrity',
    'a recorded tensegrity run: strains of the cable triples, final state',
    (STATE,),
    analyze,
    OPTIONS,
    {STATE: 'soro_interfaces/msg/TensegrityState'},
)
