"""Physical invariants of equations (2)-(5) and the order of each integrator."""

from dataclasses import replace

import numpy as np
import pytest

from tensegrity_sim import analysis, prism
from tensegrity_sim.dynamics import Dynamics, make_state
from tensegrity_sim.integrate import simulate
from tensegrity_sim.structure import Ground, Structure

G = 9.81


def base_normals(dynamics, states):
    """Unit normals of the triangle of first rod ends (upper base) and of second rod ends (lower
    base)."""
    ends = dynamics.kinematics(states).ends
    n_r = dynamics.structure.n_rods
    normals = []
    for tri in (ends[..., :n_r, :], ends[..., n_r:, :]):
        n = np.cross(tri[..., 1, :] - tri[..., 0, :], tri[..., 2, :] - tri[..., 0, :])
        normals.append(n / np.linalg.norm(n, axis=-1, keepdims=True))
    return normals


def errors(dynamics, y0, integrator, dt, duration=2.0):
    """Deviations from the initial energy, linear and angular momentum over a run: (k,), (k, 3),
    (k, 3)."""
    trajectory = simulate(
        dynamics, y0, duration, integrator=integrator, dt_s=dt, sample_period_s=0.04
    )
    p0, l0 = dynamics.momentum(y0)
    p, angular = dynamics.momentum(trajectory.states)
    return dynamics.energy(trajectory.states) - dynamics.energy(y0), p - p0, angular - l0


def rms(x):
    return float(np.sqrt(np.mean(np.square(x))))


# --- symmetry invariants of the paper's experiment (savin2020_reproduce, Fig. 3 angles, 5 s) ---


@pytest.mark.parametrize('integrator', ['rk4', 'adaptive', 'semi_implicit'])
def test_strains_equal_within_each_triple(fig3_run, integrator):
    """Paper Fig. 3: ε0 = ε3 = ε6, ε1 = ε4 = ε7, ε2 = ε5 = ε8 at every sample (spread ≤ 1e-9)."""
    dynamics, trajectory = fig3_run(integrator)
    strain = analysis.strains(dynamics.cable_lengths(trajectory.states), dynamics.rest_length)
    for name, cables in prism.TRIPLES.items():
        assert np.ptp(strain[..., list(cables)], axis=-1).max() <= 1e-9, name


@pytest.mark.parametrize('integrator', ['rk4', 'adaptive', 'semi_implicit'])
def test_centre_of_mass_stays_fixed(fig3_run, integrator):
    """Paper Fig. 6: in zero gravity the centre of mass does not move (≤ 1e-12 m; simultaneous
    updates)."""
    dynamics, trajectory = fig3_run(integrator)
    com = dynamics.centre_of_mass(trajectory.states)
    assert np.abs(com - com[:, :1]).max() <= 1e-12


def test_authors_sequential_scheme_breaks_the_symmetry_slightly(fig3_run):
    """Spec B7: the rod-by-rod scheme moves the CoM by ~6e-5 m and spreads a triple by ~0.016 %
    (bounds 1e-4 m, 0.02 %)."""
    dynamics, trajectory = fig3_run('savin2020_code')
    com = dynamics.centre_of_mass(trajectory.states)
    strain = analysis.strains(dynamics.cable_lengths(trajectory.states), dynamics.rest_length)
    assert np.abs(com - com[:, :1]).max() <= 1e-4
    assert max(np.ptp(strain[..., list(c)], axis=-1).max() for c in prism.TRIPLES.values()) <= 2e-4


@pytest.mark.parametrize('integrator', ['rk4', 'adaptive'])
def test_bases_stay_parallel(fig3_run, integrator):
    """Paper Fig. 5: upper and lower bases stay parallel (both normals along z within 1e-9) at
    every sample."""
    dynamics, trajectory = fig3_run(integrator)
    for normal in base_normals(dynamics, trajectory.states):
        assert np.abs(normal[..., :2]).max() <= 1e-9


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit', 'savin2020_code', 'adaptive'])
def test_quaternions_stay_unit(fig3_run, integrator):
    """Eq. (5) is integrated respecting |q| = 1 (within 1e-12) by every integrator."""
    _, trajectory = fig3_run(integrator)
    assert np.abs(np.linalg.norm(trajectory.states[..., 6:10], axis=-1) - 1).max() <= 1e-12


# --- conservation without dissipation ---


def test_rk4_conserves_momentum_and_converges_at_fourth_order(free_prism):
    """No damping: RK4 keeps linear momentum to round-off; halving dt divides the angular-momentum
    error by ~16 (order 4) and the energy error by 16..32 (order 4, with a dt⁵ term that still
    dominates at these steps)."""
    dynamics, y0 = Dynamics(free_prism[0]), free_prism[1]
    runs = [errors(dynamics, y0, 'rk4', dt) for dt in (0.01, 0.005, 0.0025)]
    assert max(np.abs(r[1]).max() for r in runs) <= 1e-12
    for coarse, fine in zip(runs, runs[1:]):
        assert rms(fine[0]) > 1e-12 and rms(fine[2]) > 1e-13  # well above round-off
        assert 10 <= rms(coarse[2]) / rms(fine[2]) <= 24
        assert 12 <= rms(coarse[0]) / rms(fine[0]) <= 36


def test_semi_implicit_conserves_momenta_and_has_first_order_energy_error(free_prism):
    """No damping: semi-implicit Euler keeps linear and angular momentum to round-off (the kick is
    central, the drift exact) and its energy error is first order: halving dt halves it."""
    dynamics, y0 = Dynamics(free_prism[0]), free_prism[1]
    runs = [errors(dynamics, y0, 'semi_implicit', dt) for dt in (0.01, 0.005, 0.0025)]
    assert max(max(np.abs(r[1]).max(), np.abs(r[2]).max()) for r in runs) <= 1e-12
    for coarse, fine in zip(runs, runs[1:]):
        assert 1.8 <= rms(coarse[0]) / rms(fine[0]) <= 2.2


def test_semi_implicit_energy_error_does_not_drift(free_prism):
    """Semi-implicit Euler is a splitting of exact flows (kick; free drift, exact for isotropic
    inertia), hence symplectic: over 40 s its energy error oscillates about a constant offset, the
    mean of each 10 s within 20 % of the first 10 s (no secular drift)."""
    dynamics, y0 = Dynamics(free_prism[0]), free_prism[1]
    trajectory = simulate(
        dynamics, y0, 40.0, integrator='semi_implicit', dt_s=0.01, sample_period_s=0.05
    )
    error = dynamics.energy(trajectory.states[1:]) - dynamics.energy(y0)
    means = error.reshape(4, -1).mean(axis=1)
    np.testing.assert_allclose(means, means[0], rtol=0.2)


# --- dissipation ---


def damped(structure, mode):
    return replace(
        structure,
        rod_drag_linear_n_s_per_m=0.0,
        rod_drag_angular_n_m_s=0.0,
        cable_damping_n_s_per_m=1.0,
        damping_mode=mode,
    )


@pytest.mark.parametrize('integrator', ['rk4', 'adaptive'])
@pytest.mark.parametrize('mode', ['relative_full', 'relative_axial'])
def test_energy_never_increases_with_cable_damping(reproduce, integrator, mode):
    """Eq. (3) damping (γ = 1 N·s/m) only dissipates: E(t) never rises between 10 ms samples (1e-12
    relative)."""
    dynamics = Dynamics(damped(reproduce.structure, mode))
    trajectory = simulate(
        dynamics,
        reproduce.initial_state(np.array([36.0, 50.0, 68.0])),
        5.0,
        integrator=integrator,
        sample_period_s=0.01,
    )
    energy = dynamics.energy(trajectory.states)
    assert np.all(np.diff(energy, axis=-1) <= 1e-12 * energy[..., :-1])


@pytest.mark.parametrize('integrator', ['rk4', 'adaptive'])
def test_energy_never_increases_with_rod_drag(fig3_run, integrator):
    """The authors' rod drag (20 N·s/m, 20 N·m·s) only dissipates: E(t) never rises (1e-12
    relative)."""
    dynamics, trajectory = fig3_run(integrator)
    energy = dynamics.energy(trajectory.states)
    assert np.all(np.diff(energy, axis=-1) <= 1e-12 * energy[..., :-1])


# --- gravity, ground and friction ---


def test_prism_dropped_on_the_ground_comes_to_rest(reproduce):
    """Gravity + floor: the ψ = 50° prism (cables 1e3 N/m, the paper's S example) dropped from 0.1
    m settles, its three bottom ends each carrying one rod's weight: depth m g / k_ground; the CoM
    stops (1e-8 m over the last 0.5 s) and stays above the centre."""
    # slip velocity 5 cm/s: the default 1 mm/s makes stick a 5e3 N·s/m damper that RK4 at dt = 2 ms
    # cannot hold
    ground = Ground(friction=0.5, slip_velocity_m_s=0.05)
    dynamics = Dynamics(
        replace(
            reproduce.structure,
            cable_stiffness_n_per_m=1e3,
            gravity_m_s2=(0, 0, -G),
            ground=ground,
        )
    )
    y0 = reproduce.initial_state(50.0).copy()
    y0[:, 2] += 0.1 - dynamics.kinematics(y0).ends[:, 2].min()
    trajectory = simulate(dynamics, y0, 2.0, dt_s=0.002, sample_period_s=0.01)
    final = trajectory.states[-1]
    assert np.abs(final[:, 3:6]).max() < 1e-6 and np.abs(final[:, 10:13]).max() < 1e-6
    bottom = np.sort(dynamics.kinematics(final).ends[:, 2])[:3]
    np.testing.assert_allclose(bottom, -1.0 * G / ground.stiffness_n_per_m, rtol=1e-4)
    com = dynamics.centre_of_mass(trajectory.states)
    assert np.ptp(com[-50:, 2]) < 1e-8 and np.abs(com[:, :2]).max() < 1e-9


def test_friction_decelerates_a_sliding_rod_at_mu_g():
    """Coulomb friction: a rod sliding on the floor at 2 m/s (along or across its axis) slows at μ
    g (1 %) and stops after v0² / (2 μ g)."""
    ground = Ground(friction=0.5)
    rod = Structure(
        rods=np.array([[0, 1]]),
        cables=np.zeros((0, 2), dtype=int),
        rod_length_m=0.4,
        gravity_m_s2=(0, 0, -G),
        ground=ground,
    )
    rest_z = -G / (2 * ground.stiffness_n_per_m)  # each end carries half the weight
    y0 = make_state(
        [[[0, 0, rest_z]]] * 2,
        [[[2.0, 0, 0]], [[0, 2.0, 0]]],
        [[[1, 0, 0, 0]]] * 2,
        np.zeros((2, 1, 3)),
    )
    trajectory = simulate(Dynamics(rod), y0, 0.6, integrator='adaptive', sample_period_s=0.01)
    speed = np.linalg.norm(trajectory.states[:, :, 0, 3:6], axis=-1)
    np.testing.assert_allclose((speed[:, 10] - speed[:, 30]) / 0.2, ground.friction * G, rtol=0.01)
    np.testing.assert_allclose(
        np.linalg.norm(trajectory.states[:, -1, 0, :2], axis=-1),
        2.0**2 / (2 * ground.friction * G),
        rtol=0.01,
    )
    assert speed[:, -1].max() < 1e-6


# --- actuation ---


def test_shortening_the_side_cables_raises_the_prestress(reproduce):
    """Actuation: ramping the side rest lengths 0.2 -> 0.18 m raises every equilibrium tension (one
    self-stress mode), shortens the side cables and lengthens the bases; the last commanded rest
    lengths are in force."""
    structure = replace(damped(reproduce.structure, 'relative_full'), inertia='thin_rod')
    side = list(prism.TRIPLES['side'])

    def rest_lengths(t):
        rest = np.full(9, 0.2)
        rest[side] -= 0.02 * min(t / 2.0, 1.0)
        return rest

    finals = []
    for actuation in (None, rest_lengths):
        dynamics = Dynamics(structure)
        trajectory = simulate(
            dynamics,
            reproduce.initial_state(50.0),
            10.0,
            integrator='adaptive',
            sample_period_s=1.0,
            actuation=actuation,
        )
        lengths = dynamics.cable_lengths(trajectory.states[-1])
        finals.append((lengths, dynamics.tensions(lengths)))
    (length0, tension0), (length1, tension1) = finals
    np.testing.assert_allclose(dynamics.rest_length, rest_lengths(10.0))
    assert np.all(tension1 > tension0 * 1.05)
    assert np.all(length1[side] < length0[side]) and np.all(
        np.delete(length1, side) > np.delete(length0, side)
    )
