"""Time integration of a Dynamics: adaptive (scipy solve_ivp), fixed-step RK4 and semi-implicit
Euler, and the authors' sequential Taylor scheme. Every integrator keeps the quaternions unit and
stops on a non-finite or blown-up state.

Fixed-step RK4 runs compiled (``compiled.rk4_runs``) unless ``implementation='numpy'`` asks for the
readable reference (``step_rk4`` on ``Dynamics.rates``) or an actuation changes the rest lengths
during the run; ``run_batch`` integrates many structures of one topology, or many initial states,
together.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from soro_geometry import quaternion
from tensegrity_sim import compiled
from tensegrity_sim.dynamics import C, Dynamics, Q, V, W
from tensegrity_sim.structure import Structure

FIXED_STEP = ('rk4', 'semi_implicit', 'savin2020_code')
INTEGRATORS = ('adaptive',) + FIXED_STEP
IMPLEMENTATIONS = ('compiled', 'numpy')
Actuation = Callable[[float], np.ndarray]  # t (s) -> cable rest lengths (m)
# An explicit step too large for the system grows the state geometrically; a rod 1000 km away or
# moving at 1000 km/s is taken as divergence before the numbers overflow.
BLOW_UP = 1.0e6


class SimulationDiverged(RuntimeError):
    """The state became non-finite; ``time_s`` is the first sample time at which it was seen."""

    def __init__(self, time_s: float, run: int | None = None):
        which = '' if run is None else f'run {run} of the batch '
        super().__init__(
            f'simulation diverged ({which}state non-finite or beyond {BLOW_UP:g}) at t = '
            f'{time_s:.4f} s; '
            'reduce dt or use the adaptive integrator'
        )
        self.time_s, self.run = time_s, run


def diverged(y: np.ndarray) -> bool:
    """The state is non-finite or has blown up (|component| >= BLOW_UP in SI units)."""
    with np.errstate(invalid='ignore'):
        return not bool(np.all(np.abs(y) < BLOW_UP))  # NaN compares False


@dataclass
class Trajectory:
    """Samples of a run: t (k,) in s, states (..., k, n_r, 13)."""

    t: np.ndarray
    states: np.ndarray


def _with_unit_quaternions(y: np.ndarray) -> np.ndarray:
    y = y.copy()
    y[..., Q] = quaternion.normalized(y[..., Q])
    return y


def step_rk4(dynamics: Dynamics, y: np.ndarray, dt: float) -> np.ndarray:
    """One classical RK4 step of ``dt`` s on ``Dynamics.rates`` (the numpy reference), quaternions
    renormalised; y and the result (..., n_r, 13)."""
    f = dynamics.rates
    k1 = f(y)
    k2 = f(y + 0.5 * dt * k1)
    k3 = f(y + 0.5 * dt * k2)
    k4 = f(y + dt * k3)
    return _with_unit_quaternions(y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4))


def _advance(y: np.ndarray, rates: np.ndarray, dt: float, *, taylor: bool) -> np.ndarray:
    """Velocities first, then positions with the new velocities (semi-implicit Euler); with
    ``taylor`` also the ½ a dt² terms, and the orientation by the exact rotation exp(½ φ) ⊗ q,
    which keeps |q| = 1 exactly."""
    out = y.copy()
    acc, alpha = rates[..., V], rates[..., W]
    out[..., V] += acc * dt
    out[..., W] += alpha * dt
    move, turn = out[..., V] * dt, out[..., W] * dt
    if taylor:
        move, turn = move + 0.5 * acc * dt * dt, turn + 0.5 * alpha * dt * dt
    out[..., C] += move
    out[..., Q] = quaternion.multiply(quaternion.from_rotation_vector(turn), y[..., Q])
    return out


def step_semi_implicit(dynamics: Dynamics, y: np.ndarray, dt: float) -> np.ndarray:
    """One semi-implicit Euler step of ``dt`` s: velocities first, then positions with the new
    velocities and the orientation by the exact rotation; y and the result (..., n_r, 13)."""
    return _advance(y, dynamics.rates(y), dt, taylor=False)


def step_savin2020(dynamics: Dynamics, y: np.ndarray, dt: float) -> np.ndarray:
    """The authors' scheme (spec B5): rod by rod, in place (Gauss-Seidel), each from the forces of
    the current state: v += a dt; c += v dt + ½ a dt²; ω += α dt; q <- Rot(ω dt + ½ α dt²) ⊗ q."""
    y = y.copy()
    for j in range(dynamics.structure.n_rods):
        y[..., j, :] = _advance(y[..., j, :], dynamics.rates(y)[..., j, :], dt, taylor=True)
    return y


def step_rk4_compiled(dynamics: Dynamics, y: np.ndarray, dt: float) -> np.ndarray:
    """``step_rk4`` by the compiled kernel, for y (..., n_r, 13); a run that diverged in the step
    comes back NaN."""
    states, diverged_at = _rk4_runs(dynamics.compiled_batch(), y, dt, 1, 1, shared=True)
    states[diverged_at >= 0, 1] = np.nan
    return states[:, 1].reshape(y.shape)


NUMPY_STEPPERS = {
    'rk4': step_rk4,
    'semi_implicit': step_semi_implicit,
    'savin2020_code': step_savin2020,
}
# what runs step by step (the live node, actuation)
STEPPERS = dict(NUMPY_STEPPERS, rk4=step_rk4_compiled)


def _check_times(duration_s: float, dt_s: float, sample_period_s: float) -> tuple[int, int]:
    for name, value in (
        ('duration_s', duration_s),
        ('dt_s', dt_s),
        ('sample_period_s', sample_period_s),
    ):
        if not np.isfinite(value) or value <= 0:
            raise ValueError(f'{name} = {value!r}: must be finite and > 0')
    per_sample = round(sample_period_s / dt_s)
    if per_sample < 1 or abs(per_sample * dt_s - sample_period_s) > 1e-9 * sample_period_s:
        raise ValueError(
            f'sample_period_s = {sample_period_s!r}: must be a whole multiple of dt_s = {dt_s!r}'
        )
    n_samples = round(duration_s / sample_period_s)
    if n_samples < 1 or abs(n_samples * sample_period_s - duration_s) > 1e-9 * duration_s:
        raise ValueError(
            f'duration_s = {duration_s!r}: must be a whole multiple of sample_period_s = '
            f'{sample_period_s!r}'
        )
    return n_samples, per_sample


def simulate(
    dynamics: Dynamics,
    y0: np.ndarray,
    duration_s: float,
    *,
    integrator: str = 'rk4',
    dt_s: float = 0.01,
    sample_period_s: float = 0.01,
    actuation: Actuation | None = None,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    implementation: str = 'compiled',
) -> Trajectory:
    """Integrate from y0 (..., n_r, 13) for ``duration_s``, sampling every ``sample_period_s`` (t =
    0 included).

    ``actuation(t)`` gives the cable rest lengths at time t; fixed-step integrators hold them over
    each step. ``implementation`` picks the compiled RK4 or the numpy reference (other integrators
    are numpy only). Raises SimulationDiverged on a non-finite or blown-up state (see
    ``diverged``).
    """
    if integrator not in INTEGRATORS:
        raise ValueError(
            f'integrator = {integrator!r}: allowed values are {", ".join(INTEGRATORS)}'
        )
    if implementation not in IMPLEMENTATIONS:
        raise ValueError(
            f'implementation = {implementation!r}: allowed values are {", ".join(IMPLEMENTATIONS)}'
        )
    if integrator == 'adaptive':
        n_samples, _ = _check_times(duration_s, sample_period_s, sample_period_s)
        return _simulate_adaptive(
            dynamics, y0, n_samples * sample_period_s, n_samples, actuation, rtol, atol
        )
    y0 = _check_initial_state(y0)
    n_samples, per_sample = _check_times(duration_s, dt_s, sample_period_s)
    if integrator == 'rk4' and implementation == 'compiled' and actuation is None:
        return _rk4_compiled(
            dynamics.compiled_batch(), y0, dt_s, per_sample, n_samples, shared=True
        )
    step = (STEPPERS if implementation == 'compiled' else NUMPY_STEPPERS)[integrator]
    y = _with_unit_quaternions(y0)
    states = np.empty(y.shape[:-2] + (n_samples + 1,) + y.shape[-2:])
    states[..., 0, :, :] = y
    for i in range(1, n_samples + 1):
        # overflow on the way to divergence is reported below, not warned
        with np.errstate(all='ignore'):
            for s in range(per_sample):
                if actuation is not None:
                    dynamics.set_rest_lengths(actuation(((i - 1) * per_sample + s) * dt_s))
                y = step(dynamics, y, dt_s)
        if diverged(y):
            raise SimulationDiverged(i * per_sample * dt_s)
        states[..., i, :, :] = y
    return Trajectory(np.arange(n_samples + 1) * per_sample * dt_s, states)


def run_batch(
    structures: Structure | list[Structure],
    states: np.ndarray,
    duration_s: float,
    *,
    dt_s: float = 0.01,
    sample_period_s: float = 0.01,
) -> Trajectory:
    """Fixed-step RK4 of B runs in one compiled call: ``structures`` one Structure for every run,
    or B structures of one topology (the same rods and cables: stiffnesses, masses, rest lengths or
    ground may differ), from ``states`` (B, n_r, 13). A Trajectory of states (B, k, n_r, 13);
    SimulationDiverged names the earliest run to diverge. 1,000 prisms for 5 s at dt = 0.1 s take
    about 0.1 s (``bench/tensegrity.py``)."""
    states = _check_initial_state(states)
    if states.ndim != 3:
        raise ValueError(f'states: expected shape (runs, n_rods, 13), got {states.shape}')
    shared = isinstance(structures, Structure)
    structures = [structures] if shared else list(structures)
    if not shared and len(structures) != states.shape[0]:
        raise ValueError(f'{len(structures)} structures for {states.shape[0]} initial states')
    if states.shape[1] != structures[0].n_rods:
        raise ValueError(
            f'states: {states.shape[1]} rods per run, the structure has {structures[0].n_rods}'
        )
    n_samples, per_sample = _check_times(duration_s, dt_s, sample_period_s)
    return _rk4_compiled(
        compiled.batch_of(structures), states, dt_s, per_sample, n_samples, shared
    )


def _rk4_compiled(
    batch: compiled.Batch,
    y0: np.ndarray,
    dt_s: float,
    per_sample: int,
    n_samples: int,
    shared: bool,
) -> Trajectory:
    """The Trajectory of y0 (..., n_r, 13) on ``batch``; raises SimulationDiverged."""
    states, diverged_at = _rk4_runs(batch, y0, dt_s, per_sample, n_samples, shared)
    if np.any(diverged_at >= 0):
        first = int(np.argmin(np.where(diverged_at >= 0, diverged_at, n_samples + 1)))
        raise SimulationDiverged(
            int(diverged_at[first]) * per_sample * dt_s, run=first if len(states) > 1 else None
        )
    shaped = states.reshape(y0.shape[:-2] + states.shape[1:])
    return Trajectory(np.arange(n_samples + 1) * per_sample * dt_s, shaped)


def _rk4_runs(
    batch: compiled.Batch,
    y0: np.ndarray,
    dt_s: float,
    per_sample: int,
    n_samples: int,
    shared: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """``compiled.rk4_runs`` of y0 (..., n_r, 13) as runs (B, n_r, 13) on ``batch`` (one structure
    for every run when ``shared``): the samples (B, n_samples + 1, n_r, 13) and each run's diverged
    sample or -1."""
    runs = np.ascontiguousarray(y0.reshape((-1,) + y0.shape[-2:]))
    if shared and runs.shape[0] > 1:
        batch = compiled.repeat(batch, runs.shape[0])
    states = np.empty((runs.shape[0], n_samples + 1) + runs.shape[1:])
    diverged_at = compiled.rk4_runs(
        batch.arrays(), runs, dt_s, per_sample, n_samples, BLOW_UP, states
    )
    return states, diverged_at


def _check_initial_state(y0) -> np.ndarray:
    y0 = np.asarray(y0, dtype=float)
    if (
        y0.shape[-1:] != (13,)
        or not np.all(np.isfinite(y0))
        or np.any(np.linalg.norm(y0[..., Q], axis=-1) == 0)
    ):
        raise ValueError(
            'y0: must be finite rod states of shape (..., n_rods, 13) with non-zero quaternions'
        )
    return y0


def _simulate_adaptive(dynamics, y0, duration_s, n_samples, actuation, rtol, atol) -> Trajectory:
    y0 = _with_unit_quaternions(_check_initial_state(y0))
    shape = y0.shape

    def rhs(t, flat):
        if actuation is not None:
            dynamics.set_rest_lengths(actuation(t))
        y = flat.reshape(shape)
        rates = dynamics.rates(_with_unit_quaternions(y))
        return rates.ravel()

    t = np.linspace(0.0, duration_s, n_samples + 1)
    # here: the live node steps with fixed-step integrators and starts 0.4 s sooner without it
    from scipy.integrate import solve_ivp

    solution = solve_ivp(
        rhs, (0.0, duration_s), y0.ravel(), method='DOP853', t_eval=t, rtol=rtol, atol=atol
    )
    if solution.status != 0 or diverged(solution.y):
        bad = ~np.all(np.abs(solution.y) < BLOW_UP, axis=0)
        raise SimulationDiverged(
            float(solution.t[np.argmax(bad)] if bad.any() else solution.t[-1])
        )
    states = np.moveaxis(solution.y.reshape(shape + (-1,)), -1, -3)
    return Trajectory(t, _with_unit_quaternions(states))
