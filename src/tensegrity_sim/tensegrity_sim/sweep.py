"""The ψ sweep of the paper's section 3: release the prism from each ψ and summarise the cable
triples."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from soro_node.params import ParamSpec
from tensegrity_sim import analysis, prism
from tensegrity_sim.dynamics import Dynamics
from tensegrity_sim.integrate import simulate
from tensegrity_sim.presets import Preset

Progress = Callable[[int, int, float], None]  # (runs done, runs in total, last ψ done in degrees)

# One sweep's bounds, so that a typo (a step of 1e-7°, a duration of 1e9 s) is refused before any
# work instead of running for hours or asking for terabytes: the default sweep is 46 runs of 500
# steps.
MAX_RUNS = 10_000  # ψ values
# runs × fixed integration steps: seconds compiled
MAX_RUN_STEPS = 2_000_000
# runs × samples kept: ≤ 150 MB of strains (nine float64 a sample); bounds the adaptive integrator,
# whose steps no dt sets
MAX_RUN_SAMPLES = 2_000_000
DT = ParamSpec('dt_s', 0.01, 'fixed integration step (s)', 1e-5, 0.1)
DURATION = ParamSpec('duration_s', 5.0, 'simulated time per ψ (s)', 0.01, 600.0)


class GridError(ValueError):
    """A ψ grid specification that is malformed or leaves (0°, 90°)."""


class SweepTooLarge(ValueError):
    """A sweep past MAX_RUNS, MAX_RUN_STEPS or MAX_RUN_SAMPLES; the message says by how much."""


def psi_grid(start: float, stop: float, step: float) -> np.ndarray:
    """ψ from ``start`` to ``stop`` (included when on the grid) every ``step`` degrees, each inside
    (0°, 90°)."""
    if not (np.isfinite([start, stop, step]).all() and step > 0 and stop >= start):
        raise GridError(
            f'ψ grid {start:g}:{stop:g}:{step:g}: '
            f'expected finite START:STOP:STEP with STOP >= START and STEP > 0'
        )
    # in floating point first: a step of 1e-310 makes the count overflow an int
    count = (stop - start) / step + 1e-9
    if not count < MAX_RUNS:
        runs = f'{int(count) + 1}' if count < 1e15 else f'{count:.3g}'
        raise SweepTooLarge(
            f'ψ grid {start:g}:{stop:g}:{step:g}: {runs} runs, more than one sweep may do '
            f'(MAX_RUNS = {MAX_RUNS}); use a larger step'
        )
    runs = int(np.floor(count)) + 1
    grid = start + step * np.arange(runs)
    for psi in grid:
        try:
            prism.check_psi(psi)
        except prism.PsiError as error:
            raise GridError(f'ψ grid {start:g}:{stop:g}:{step:g}: {error}') from None
    return grid


def parse_grid(text: str) -> np.ndarray:
    """'start:stop:step' in degrees (stop included when on the grid), or a single value: the CLI's
    ``--psi``."""
    try:
        numbers = [float(x) for x in text.split(':')]
    except ValueError:
        raise GridError(
            f'--psi {text!r}: expected START:STOP:STEP in degrees, e.g. 30:75:1'
        ) from None
    if len(numbers) == 1:
        numbers = [numbers[0], numbers[0], 1.0]
    if len(numbers) != 3:
        raise GridError(
            f'--psi {text!r}: expected START:STOP:STEP with STOP >= START and STEP > 0'
        )
    try:
        return psi_grid(*numbers)
    except GridError as error:
        raise GridError(f'--psi {text!r}: {str(error).split(": ", 1)[1]}') from None


def check_size(
    runs: int,
    dt_s: float,
    duration_s: float,
    sample_period_s: float = 0.01,
    integrator: str = 'rk4',
) -> None:
    """ValueError naming the value when dt or the duration is out of range or the sweep is too
    large: its fixed steps (none for the adaptive integrator) or the samples it keeps."""
    for spec, value in ((DT, dt_s), (DURATION, duration_s)):
        problem = spec.problem(value)
        if problem:
            raise ValueError(f'{spec.name} = {value!r}: {problem}')
    samples = runs * round(duration_s / sample_period_s)
    if samples > MAX_RUN_SAMPLES:
        raise SweepTooLarge(
            f'{runs} runs × {round(duration_s / sample_period_s)} samples (duration_s = '
            f'{duration_s:g}, one every {sample_period_s:g} s) = {samples} run-samples, more than '
            f'one sweep may keep (MAX_RUN_SAMPLES = {MAX_RUN_SAMPLES}); use fewer ψ or a shorter '
            'duration'
        )
    steps = runs * round(duration_s / dt_s)
    if integrator != 'adaptive' and steps > MAX_RUN_STEPS:
        raise SweepTooLarge(
            f'{runs} runs × {round(duration_s / dt_s)} steps (duration_s = {duration_s:g}, '
            'dt_s = '
            f'{dt_s:g}) = {steps} run-steps, more than one sweep may do '
            '(MAX_RUN_STEPS = '
            f'{MAX_RUN_STEPS}); use fewer ψ, a larger dt or a shorter duration'
        )


@dataclass
class PsiSweepResult:
    """A ψ sweep: each run's cable strains at the sample times, its triple summaries, and the
    paper's thresholds over the grid."""

    psi_deg: np.ndarray  # (P,)
    t: np.ndarray  # (k,) s
    strain: np.ndarray  # (P, k, n_c) fractions
    runs: list[dict]  # per ψ: triple summaries and normal_mode
    thresholds: dict

    def report(self, preset: Preset, integrator: str, dt_s: float) -> dict:
        """The JSON document of ``tensegrity-sweep``: thresholds at the top, one entry per ψ."""
        return {
            'preset': preset.name,
            'source': preset.source,
            'integrator': integrator,
            'dt_s': dt_s,
            'duration_s': float(self.t[-1]),
            'shape_tolerance_pct': 100 * analysis.SHAPE_TOLERANCE,
            **self.thresholds,
            'psi': [{'psi_deg': float(p), **run} for p, run in zip(self.psi_deg, self.runs)],
        }


def run_sweep(
    preset: Preset,
    psi_deg: Sequence[float],
    *,
    integrator: str | None = None,
    dt_s: float | None = None,
    duration_s: float | None = None,
    sample_period_s: float = 0.01,
    batch: int = 8,
    progress: Progress | None = None,
) -> PsiSweepResult:
    """Simulate every ψ (in batches of ``batch`` runs integrated together) and summarise each run.
    ``dt_s`` and ``duration_s`` default to the preset's (None); DT and DURATION bound them,
    MAX_RUN_STEPS and MAX_RUN_SAMPLES the whole sweep."""
    integrator = integrator or preset.integrator
    dt_s = preset.dt_s if dt_s is None else dt_s
    duration_s = preset.duration_s if duration_s is None else duration_s
    if integrator != 'adaptive':  # a whole number of steps per sample
        sample_period_s = dt_s * max(1, round(sample_period_s / dt_s))
    check_size(len(psi_deg), dt_s, duration_s, sample_period_s, integrator)
    psi = np.asarray(psi_deg, dtype=float)
    dynamics = Dynamics(preset.structure)
    chunks = []
    for start in range(0, len(psi), batch):
        part = psi[start : start + batch]
        trajectory = simulate(
            dynamics,
            preset.initial_state(part),
            duration_s,
            integrator=integrator,
            dt_s=dt_s,
            sample_period_s=sample_period_s,
        )
        chunks.append(dynamics.strains(trajectory.states))
        if progress:
            progress(start + len(part), len(psi), float(part[-1]))
    strain = np.concatenate(chunks)
    runs = [analysis.summarize_run(run, prism.TRIPLES) for run in strain]
    return PsiSweepResult(psi, trajectory.t, strain, runs, analysis.thresholds(psi, runs))
