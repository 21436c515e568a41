"""tensegrity_sim benchmark: speed of the 3-prism (savin2020_reproduce, psi = 36 deg, 5 s), also
against MuJoCo. JSON on stdout.

realtime_factor
    simulated s per wall s of one 5 s run (best of REPEATS, one core): fixed-step rk4, compiled, at
    the largest dt of DT_LADDER whose final cable strains match the adaptive (DOP853) run within
    STRAIN_TOLERANCE. The run ends near equilibrium, so also reported: the error along the run at
    that dt, and the largest dt (and its realtime factor) that stays within the tolerance over the
    whole run. realtime_factor_numpy: the same run by the numpy reference (Dynamics.rates,
    step_rk4)
sweep_wall_s
    wall time of run_sweep over psi = 30..75 deg at 1 deg (46 runs), the preset's integrator and
    dt, batched and compiled
mujoco_ratio
    realtime_factor / MuJoCo's for the same prism, dt and RK4, mj_step in a Python loop, same
    process; mujoco_ratio_nstep against MuJoCo stepping in its own C loop (mj_step with nstep)
mujoco_final_strain_diff
    max |strain ours - strain MuJoCo| at 5 s: that MuJoCo runs the same physics
batch_realtime_factor
    BATCH prisms released from psi spread over 30..75 deg, integrated together (run_batch) for 5 s
    at dt: simulated seconds times prisms per wall second
jit_first_start_s / jit_cached_start_s
    a fresh process importing the simulator and running 10 ms of the prism, with an empty numba
    cache (compiling) and again with the cache it left
The MuJoCo prism: free bodies with the rods' mass and isotropic inertia; free-joint damping 20 (N
s/m on the three translational dofs, N m s on the three rotational ones) for the rod drag; spatial
tendons of stiffness 10 N/m with springlength "0 0.2", a dead band below 0.2 m, so a slack cable
pulls nothing; no gravity, no contacts.
"""

import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import mujoco
import numba
import numpy as np

from tensegrity_sim.dynamics import C, Dynamics, Q
from tensegrity_sim.integrate import run_batch, simulate
from tensegrity_sim.presets import preset
from tensegrity_sim.sweep import run_sweep

TARGETS = {'realtime_factor': 200.0, 'sweep_wall_s': 10.0, 'mujoco_ratio': 1.0}
BATCH = 1000
START_SCRIPT = (
    'from tensegrity_sim.dynamics import Dynamics; from tensegrity_sim.integrate import '
    'simulate; '
    'from tensegrity_sim.presets import preset; p = preset("savin2020_reproduce"); '
    'simulate(Dynamics(p.structure), p.initial_state(36.0), 0.01)'
)
PRESET, PSI_DEG, DURATION_S = 'savin2020_reproduce', 36.0, 5.0
DT_LADDER = (0.1, 0.05, 0.025, 0.01, 0.005)  # coarsest first; each divides 5 s and 0.005 s
STRAIN_TOLERANCE = 1e-4  # fraction
REPEATS = 7


def best_wall_s(run, repeats: int = REPEATS) -> float:
    run()  # warm-up
    return min(timed(run) for _ in range(repeats))


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def rk4(dynamics, y0, dt, implementation='compiled'):
    return simulate(
        dynamics,
        y0,
        DURATION_S,
        integrator='rk4',
        dt_s=dt,
        sample_period_s=dt,
        implementation=implementation,
    )


def batch_realtime_factor(p, dt) -> float:
    y0 = p.initial_state(np.linspace(30.0, 75.0, BATCH))
    wall = best_wall_s(
        lambda: run_batch(p.structure, y0, DURATION_S, dt_s=dt, sample_period_s=0.1), repeats=3
    )
    return DURATION_S * BATCH / wall


def start_up_s() -> tuple[float, float]:
    """Seconds for a fresh process to import the simulator and run 10 ms: with an empty numba
    cache, then cached."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        return tuple(
            timed(
                lambda: subprocess.run([sys.executable, '-c', START_SCRIPT], env=env, check=True)
            )
            for _ in range(2)
        )


def ladder_errors(dynamics, y0) -> dict:
    """Per dt of the ladder, the rk4 strain error against the adaptive run: at 5 s, and the largest
    along the run."""
    fine = min(DT_LADDER)
    ref = dynamics.strains(
        simulate(dynamics, y0, DURATION_S, integrator='adaptive', sample_period_s=fine).states
    )
    errors = {}
    for dt in DT_LADDER:
        error = np.abs(dynamics.strains(rk4(dynamics, y0, dt).states) - ref[:: round(dt / fine)])
        errors[dt] = {'final': float(error[-1].max()), 'along_run': float(error.max())}
    return errors


def largest_dt(errors: dict, key: str) -> float:
    passing = [dt for dt, error in errors.items() if error[key] <= STRAIN_TOLERANCE]
    if not passing:
        raise RuntimeError(
            f'no dt in {DT_LADDER} matches the adaptive run within {STRAIN_TOLERANCE} ({key})'
        )
    return max(passing)


def fmt(*values) -> str:
    return ' '.join(repr(float(x)) for x in values)


def mujoco_xml(p, dynamics, y0, dt) -> str:
    """The prism as MJCF: rod i's body at its centre and quaternion, its vertices as sites at body
    x = -+L/2."""
    s = p.structure
    bodies = []
    for i, ((first, second), inertia) in enumerate(zip(s.rods, s.rod_inertia())):
        half = s.rod_length_m[i] / 2
        bodies.append(
            f'<body name="rod{i}" pos="{fmt(*y0[i, C])}" quat="{fmt(*y0[i, Q])}">'
            f'<joint type="free" damping="{fmt(s.rod_drag_linear_n_s_per_m)}"/>'
            f'<inertial pos="0 0 0" mass="{fmt(s.rod_mass_kg[i])}" '
            f'diaginertia="{fmt(inertia, inertia, inertia)}"/>'
            f'<geom type="capsule" fromto="{-half} 0 0 {half} 0 0" size="0.01" '
            'contype="0" conaffinity="0"/>'
            f'<site name="v{first}" pos="{-half} 0 0"/><site name="v{second}" '
            f'pos="{half} 0 0"/></body>'
        )
    tendons = ''.join(  # springlength "0 rest": no force below the rest length (unilateral)
        f'<spatial stiffness="{fmt(stiffness)}" springlength="0 {fmt(rest)}"><site '
        f'site="v{a}"/><site site="v{b}"/>'
        f'</spatial>'
        for (a, b), stiffness, rest in zip(
            s.cables, s.cable_stiffness_n_per_m, dynamics.rest_length
        )
    )
    return (
        f'<mujoco><option integrator="RK4" timestep="{fmt(dt)}" gravity="0 0 0"/>'
        f'<worldbody>{"".join(bodies)}</worldbody><tendon>{tendons}</tendon></mujoco>'
    )


def mujoco_strains(model, data, n_steps: int) -> np.ndarray:
    """Cable strains at every step, (n_steps + 1, n_c); mj_forward first, as mj_step leaves
    ten_length one step old."""
    mujoco.mj_resetData(model, data)
    out = []
    for i in range(n_steps + 1):
        if i:
            mujoco.mj_step(model, data)
        mujoco.mj_forward(model, data)
        out.append(data.ten_length.copy())
    return np.array(out) / model.tendon_lengthspring[:, 1] - 1


def mujoco_figures(p, dynamics, y0, dt, ours: np.ndarray) -> dict:
    """MuJoCo's speed (mj_step in a Python loop, and with nstep) and its strains against ours (rk4
    at dt)."""
    # one damping for 6 dofs
    assert p.structure.rod_drag_linear_n_s_per_m == p.structure.rod_drag_angular_n_m_s
    model = mujoco.MjModel.from_xml_string(mujoco_xml(p, dynamics, y0, dt))
    data = mujoco.MjData(model)
    n_steps = round(DURATION_S / dt)
    mujoco.mj_forward(model, data)
    # rows of Kinematics.ends
    end_vertices = np.concatenate([p.structure.rods[:, 0], p.structure.rods[:, 1]])
    sites = [model.site(f'v{v}').id for v in end_vertices]
    site_error = float(np.abs(data.site_xpos[sites] - dynamics.kinematics(y0).ends).max())
    diff = np.abs(mujoco_strains(model, data, n_steps) - ours)

    def loop():
        mujoco.mj_resetData(model, data)
        for _ in range(n_steps):
            mujoco.mj_step(model, data)

    def nstep():
        mujoco.mj_resetData(model, data)
        mujoco.mj_step(model, data, n_steps)

    return {
        'mujoco_realtime_factor': DURATION_S / best_wall_s(loop, repeats=50),
        'mujoco_realtime_factor_nstep': DURATION_S / best_wall_s(nstep, repeats=50),
        'mujoco_final_strain_diff': float(diff[-1].max()),
        'mujoco_max_strain_diff_along_run': float(diff.max()),
        'mujoco_initial_site_error_m': site_error,
    }


def main() -> None:
    p = preset(PRESET)
    dynamics = Dynamics(p.structure)
    y0 = p.initial_state(PSI_DEG)
    errors = ladder_errors(dynamics, y0)
    dt, dt_whole_run = largest_dt(errors, 'final'), largest_dt(errors, 'along_run')
    rtf = {
        step: DURATION_S
        / best_wall_s(lambda: rk4(dynamics, y0, step), repeats=REPEATS if step == dt else 5)
        for step in sorted({dt, dt_whole_run, 0.01}, reverse=True)
    }
    rtf_numpy = DURATION_S / best_wall_s(lambda: rk4(dynamics, y0, dt, 'numpy'))
    first_start_s, cached_start_s = start_up_s()
    ours = dynamics.strains(rk4(dynamics, y0, dt).states)
    mj = mujoco_figures(p, dynamics, y0, dt, ours)
    psi = np.arange(30, 76)
    start = time.perf_counter()
    sweep = run_sweep(p, psi)
    sweep_wall_s = time.perf_counter() - start
    result = {
        'realtime_factor': round(rtf[dt], 1),
        'sweep_wall_s': round(sweep_wall_s, 3),
        'mujoco_ratio': round(rtf[dt] / mj['mujoco_realtime_factor'], 4),
        'mujoco_ratio_nstep': round(rtf[dt] / mj['mujoco_realtime_factor_nstep'], 4),
        'realtime_factor_numpy': round(rtf_numpy, 1),
        'compiled_over_numpy': round(rtf[dt] / rtf_numpy, 1),
        'batch_realtime_factor': round(batch_realtime_factor(p, dt), 1),
        'batch_prisms': BATCH,
        'jit_first_start_s': round(first_start_s, 2),
        'jit_cached_start_s': round(cached_start_s, 2),
        'mujoco_final_strain_diff': mj['mujoco_final_strain_diff'],
        'dt_s': dt,
        'final_strain_error_vs_adaptive': errors[dt]['final'],
        'max_strain_error_along_run_vs_adaptive': errors[dt]['along_run'],
        'strain_tolerance': STRAIN_TOLERANCE,
        'dt_s_whole_run_within_tolerance': dt_whole_run,
        'realtime_factor_whole_run_within_tolerance': round(rtf[dt_whole_run], 1),
        'realtime_factor_dt_0.01': round(rtf[0.01], 1),
        **{key: round(value, 1) if 'realtime' in key else value for key, value in mj.items()},
        'final_strains': [round(float(x), 6) for x in ours[-1]],
        'sweep_psi_deg': [int(psi[0]), int(psi[-1]), len(psi)],
        'sweep_integrator': p.integrator,
        'sweep_dt_s': p.dt_s,
        'sweep_thresholds': sweep.thresholds,
        'cpu_count': os.cpu_count(),
        'python': platform.python_version(),
        'numpy': np.__version__,
        'mujoco': mujoco.__version__,
        'numba': numba.__version__,
    }
    result['targets'] = TARGETS
    result['met'] = {
        'realtime_factor': result['realtime_factor'] >= TARGETS['realtime_factor'],
        'sweep_wall_s': result['sweep_wall_s'] <= TARGETS['sweep_wall_s'],
        'mujoco_ratio': result['mujoco_ratio'] >= TARGETS['mujoco_ratio'],
    }
    print(json.dumps(result))


if __name__ == '__main__':
    main()
