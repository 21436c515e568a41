"""Shared runs and helpers of the tensegrity core tests (pure numpy, no ROS).

The expensive runs (the paper's five ψ over 5 s, the 30..75° sweep) are computed once per session
and shared. Test modules cannot import each other (importlib mode), so the helpers are fixtures
returning functions.
"""

from dataclasses import replace

import numpy as np
import pytest

from soro_geometry import quaternion
from tensegrity_sim import analysis, prism
from tensegrity_sim.dynamics import Dynamics
from tensegrity_sim.integrate import simulate
from tensegrity_sim.presets import preset
from tensegrity_sim.sweep import run_sweep

# the paper's Fig. 3 angles = the rows of the spec B7 table
FIG3_PSI = (36.0, 40.0, 50.0, 60.0, 68.0)
SWEEP_PSI = np.arange(30.0, 76.0)  # the integer grid 30..75°


@pytest.fixture(scope='session')
def reproduce():
    return preset('savin2020_reproduce')


@pytest.fixture(scope='session')
def fig3_run(reproduce):
    """run(integrator) -> (dynamics, trajectory): savin2020_reproduce released from the Fig. 3
    angles, 5 s, sampled every 10 ms; integrators other than 'savin2020_code' (dt = 5 ms, the
    authors') use the preset's dt = 10 ms."""
    cache = {}

    def run(integrator):
        if integrator not in cache:
            dynamics = Dynamics(reproduce.structure)
            dt = (
                preset('savin2020_code').dt_s if integrator == 'savin2020_code' else reproduce.dt_s
            )
            cache[integrator] = (
                dynamics,
                simulate(
                    dynamics,
                    reproduce.initial_state(np.array(FIG3_PSI)),
                    reproduce.duration_s,
                    integrator=integrator,
                    dt_s=dt,
                    sample_period_s=0.01,
                ),
            )
        return cache[integrator]

    return run


@pytest.fixture(scope='session')
def reproduce_sweep(reproduce):
    """The paper's sweep on the integer grid 30..75° with savin2020_reproduce as the preset defines
    it."""
    return run_sweep(reproduce, SWEEP_PSI)


@pytest.fixture(scope='session')
def triple_pct():
    """triple_pct(dynamics, states) -> (..., 3): mean strain in % of the upper, lower and side
    triples."""

    def compute(dynamics, states):
        strain = 100 * analysis.strains(dynamics.cable_lengths(states), dynamics.rest_length)
        return np.stack(
            [strain[..., list(cables)].mean(-1) for cables in prism.TRIPLES.values()], -1
        )

    return compute


@pytest.fixture(scope='session')
def vertices():
    """vertices(dynamics, states) -> (..., n_v, 3): the rod ends indexed by vertex number
    (0-based)."""

    def compute(dynamics, states):
        ends = dynamics.kinematics(states).ends
        rods = dynamics.structure.rods
        out = np.empty_like(ends)
        out[..., rods[:, 0], :] = ends[..., : len(rods), :]
        out[..., rods[:, 1], :] = ends[..., len(rods) :, :]
        return out

    return compute


@pytest.fixture(scope='session')
def free_prism(reproduce):
    """(structure, y0) without any dissipation: no rod drag, no cable damping, bilateral (smooth)
    springs, released from ψ = 50° with random velocities and spins (fixed seed; no axial spin), so
    nothing is symmetric."""
    structure = replace(
        reproduce.structure,
        rod_drag_linear_n_s_per_m=0.0,
        rod_drag_angular_n_m_s=0.0,
        unilateral=False,
    )
    y0 = reproduce.initial_state(50.0).copy()
    rng = np.random.default_rng(20200)
    y0[:, 3:6] = rng.normal(0.0, 0.05, (3, 3))
    spin = rng.normal(0.0, 0.5, (3, 3))
    axis = quaternion.body_x(y0[:, 6:10])
    y0[:, 10:13] = spin - np.sum(spin * axis, -1, keepdims=True) * axis
    return structure, y0
