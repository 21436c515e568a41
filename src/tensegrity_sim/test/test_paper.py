"""The simulator against Savin, Vorochaeva, Kurenkov (2020) and spec part B: geometry, strain
tables, thresholds."""

from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import brentq

from tensegrity_sim import analysis, prism
from tensegrity_sim.dynamics import Dynamics
from tensegrity_sim.integrate import simulate
from tensegrity_sim.presets import preset, savin2020_structure
from tensegrity_sim.sweep import run_sweep

# spec B6: vertices for ψ = 36°, L = 0.45 m, by paper vertex label (1-based)
B6_VERTICES = {
    1: (-0.113502, 0.032476, 0.182029),
    2: (0.028626, -0.114533, 0.182029),
    3: (0.084876, 0.082057, 0.182029),
    4: (0.151002, 0.032476, -0.182029),
    6: (-0.103626, 0.114533, -0.182029),
    5: (-0.047376, -0.147009, -0.182029),
}
B6_QUATERNIONS = [
    (0.891007, 0, 0.453990, 0),
    (0.445503, -0.393167, 0.226995, 0.771634),
    (-0.445503, -0.393167, -0.226995, 0.771634),
]
# spec B7: pure-geometry t = 0 strains in % (upper, lower, side)
B7_T0 = [
    (0.45, 36, (2.2399, 33.7615, 86.6607)),
    (0.45, 45, (24.7574, 56.5686, 67.9900)),
    (0.45, 57, (49.8449, 81.8459, 40.2372)),
    (0.45, 68, (66.8171, 98.9035, 14.7683)),
    (0.3, 36, (-33.6288, -3.2293, 23.4698)),
    (0.3, 68, (7.9354, 39.5463, -28.3327)),
]
# spec B7 regression table for savin2020_reproduce: ε in % (upper/lower/side) at these times, rows
# = Fig. 3 ψ
B7_TIMES = (0.0, 0.5, 1.0, 2.0, 5.0)
B7_TABLE = {
    36: '2.2/33.8/86.7 17.5/22.0/84.6 20.7/21.2/83.8 22.4/22.4/82.8 24.7/24.7/80.9',
    40: '12.6/44.3/78.7 27.1/31.6/77.0 29.7/30.1/76.5 30.4/30.4/76.1 30.9/30.9/75.6',
    50: '36.0/67.9/56.7 49.1/53.9/56.2 50.7/51.2/56.7 49.8/49.8/57.9 46.6/46.6/61.1',
    60: '55.1/87.1/33.1 67.2/72.5/34.8 68.5/69.1/36.5 67.1/67.1/38.8 62.2/62.2/44.4',
    68: '66.8/98.9/14.8 78.3/84.2/19.7 79.9/80.6/22.4 78.7/78.8/24.8 74.2/74.2/30.3',
}
TABLE_PP = 0.1  # the tolerance on the table (printed to 0.1 %), in percentage points


def b7_table() -> np.ndarray:
    """(5 ψ, 5 times, 3 triples) in %."""
    return np.array(
        [
            [[float(x) for x in cell.split('/')] for cell in row.split()]
            for row in B7_TABLE.values()
        ]
    )


def t0_strains_pct(rod_length_m, psi_deg, centre_radius_m=0.0375):
    """Per-cable strain in % of the released prism (pure geometry), shape (len(psi), 9)."""
    dynamics = Dynamics(savin2020_structure(rod_length_m))
    state = prism.initial_state(np.asarray(psi_deg, dtype=float), centre_radius_m)
    return 100 * analysis.strains(dynamics.cable_lengths(state), dynamics.rest_length)


def runs_by_psi(sweep):
    return dict(zip(sweep.psi_deg.tolist(), sweep.runs))


# --- topology (spec B1, B2) ---


def test_cable_numbering_is_the_spec_b2_table():
    """Cable k joins the paper vertices of spec B2 (Fig. 2 numbering), and the set of cables is the
    paper's E."""
    spec = [(1, 3), (4, 6), (1, 6), (2, 1), (6, 5), (2, 5), (3, 2), (5, 4), (3, 4)]
    assert prism.E_PAPER.tolist() == [list(pair) for pair in spec]
    paper_e = np.array([[1, 1, 1, 2, 2, 3, 4, 4, 5], [2, 3, 6, 3, 5, 4, 5, 6, 6]]).T
    assert {frozenset(p) for p in prism.E_PAPER.tolist()} == {
        frozenset(p) for p in paper_e.tolist()
    }


def test_triples_are_the_two_bases_and_the_sides():
    """Upper triple = triangle {1,2,3}, lower = {4,5,6}, side cables join the bases; each vertex
    has 1 rod, 2 base cables and 1 side cable."""
    vertices_of = {
        name: {v for c in cables for v in prism.E_PAPER[c]}
        for name, cables in prism.TRIPLES.items()
    }
    assert vertices_of['upper'] == {1, 2, 3} and vertices_of['lower'] == {4, 5, 6}
    assert all(len(set(prism.E_PAPER[c]) & {1, 2, 3}) == 1 for c in prism.TRIPLES['side'])
    assert np.bincount(prism.E_PAPER.ravel(), minlength=7)[1:].tolist() == [3] * 6
    assert np.bincount(prism.R_PAPER.ravel(), minlength=7)[1:].tolist() == [1] * 6


# --- initial geometry (spec B6) ---


def test_initial_vertices_match_spec_b6(reproduce, vertices):
    """ψ = 36°, L = 0.45 m: the six vertices of the spec B6 table to 1e-6 m."""
    positions = vertices(Dynamics(reproduce.structure), reproduce.initial_state(36.0))
    for label, expected in B6_VERTICES.items():
        np.testing.assert_allclose(
            positions[label - 1], expected, atol=1e-6, err_msg=f'vertex {label}'
        )


def test_initial_quaternions_match_spec_b6(reproduce):
    """q_k = q_z(120° k) ⊗ q_y(90° − ψ) at ψ = 36°: the spec's three quaternions to 1e-6."""
    np.testing.assert_allclose(reproduce.initial_state(36.0)[:, 6:10], B6_QUATERNIONS, atol=1e-6)


@pytest.mark.parametrize('rod_length_m, psi_deg, expected', B7_T0)
def test_initial_strains_match_spec_geometry_table(rod_length_m, psi_deg, expected):
    """Pure-geometry t = 0 strains of spec B7 to 1e-4 %, equal within each triple."""
    strain = t0_strains_pct(rod_length_m, [psi_deg])[0]
    for (name, cables), value in zip(prism.TRIPLES.items(), expected):
        np.testing.assert_allclose(strain[list(cables)], value, atol=1e-4, err_msg=name)


def test_exact_thresholds_are_decided_by_geometry():
    """Spec B7: with L = 0.45 m the t = 0 strains cross 0 % (upper) at ψ = 35.16° and 100 % (lower)
    at 68.88°."""
    upper, lower = prism.TRIPLES['upper'][0], prism.TRIPLES['lower'][0]
    psi_min = brentq(lambda p: t0_strains_pct(0.45, [p])[0, upper], 30, 40, xtol=1e-6)
    psi_max = brentq(lambda p: t0_strains_pct(0.45, [p])[0, lower] - 100, 60, 75, xtol=1e-6)
    assert psi_min == pytest.approx(35.16, abs=0.01)
    assert psi_max == pytest.approx(68.88, abs=0.01)


def test_stated_and_triple_length_rods_do_not_give_the_paper_thresholds():
    """Spec B7.1 at t = 0: L = 0.3 m is slack up to ψ ≈ 59.7° and reaches only 48.1 % (84°); L =
    0.9 m gives ψ_min ≈ 16.7°, ψ_max ≈ 27.8°."""
    upper, lower = prism.TRIPLES['upper'][0], prism.TRIPLES['lower'][0]
    assert brentq(lambda p: t0_strains_pct(0.3, [p])[0, upper], 40, 80) == pytest.approx(
        59.7, abs=0.05
    )
    assert t0_strains_pct(0.3, [84.0])[0, lower] == pytest.approx(48.1, abs=0.05)
    assert brentq(lambda p: t0_strains_pct(0.9, [p])[0, upper], 5, 25) == pytest.approx(
        16.7, abs=0.05
    )
    assert brentq(lambda p: t0_strains_pct(0.9, [p])[0, lower] - 100, 20, 35) == pytest.approx(
        27.8, abs=0.05
    )


# --- the transient (spec B7 regression table) ---


@pytest.mark.parametrize('integrator', ['rk4', 'adaptive', 'savin2020_code'])
def test_regression_table(fig3_run, triple_pct, integrator):
    """Spec B7 table (5 ψ × 5 times × 3 triples) within 0.1 pp: the preset's RK4, the adaptive
    DOP853 and the authors' sequential dt = 5 ms scheme (preset savin2020_code)."""
    dynamics, trajectory = fig3_run(integrator)
    index = [int(np.argmin(np.abs(trajectory.t - t))) for t in B7_TIMES]
    np.testing.assert_allclose(trajectory.t[index], B7_TIMES, atol=1e-12)
    np.testing.assert_allclose(
        triple_pct(dynamics, trajectory.states[:, index]), b7_table(), atol=TABLE_PP
    )


def test_authors_scheme_converges_to_the_continuous_time_run(reproduce, triple_pct):
    """Spec B5: the sequential Taylor scheme is a first-order discretisation of the same equations:
    its distance to the adaptive (continuous-time) run halves with dt; at dt = 5 ms it is 0.3 pp
    early in the transient (t ≈ 0.1 s)."""
    dynamics, y0 = Dynamics(reproduce.structure), reproduce.initial_state(36.0)
    reference = triple_pct(
        dynamics, simulate(dynamics, y0, 0.5, integrator='adaptive', sample_period_s=0.01).states
    )
    error = [
        np.abs(
            triple_pct(
                dynamics,
                simulate(
                    dynamics, y0, 0.5, integrator='savin2020_code', dt_s=dt, sample_period_s=0.01
                ).states,
            )
            - reference
        ).max()
        for dt in (0.005, 0.0025)
    ]
    assert error[0] < 0.35
    assert 1.8 < error[0] / error[1] < 2.2


def test_authors_scheme_agrees_at_the_end_of_the_transient(fig3_run, triple_pct):
    """Spec B7: at t = 5 s the sequential dt = 5 ms scheme agrees with the continuous-time run to
    about 0.01 pp."""
    (dyn_code, code), (dyn_ref, ref) = fig3_run('savin2020_code'), fig3_run('adaptive')
    difference = np.abs(
        triple_pct(dyn_code, code.states[:, -1]) - triple_pct(dyn_ref, ref.states[:, -1])
    )
    assert difference.max() < 0.02


# --- the ψ sweep: thresholds and the shapes of the transient ---


def test_paper_thresholds_on_the_integer_grid(reproduce_sweep):
    """Paper: ψ_min = 36°, ψ_max = 68°; spec B7: ψ* = 42°, ψ** = 57° (tolerance:
    analysis.SHAPE_TOLERANCE)."""
    assert reproduce_sweep.thresholds == {
        'psi_min_deg': 36.0,
        'psi_max_deg': 68.0,
        'psi_star_deg': 42.0,
        'psi_2star_deg': 57.0,
    }


@pytest.mark.parametrize(
    'psi, triple, key, expected',
    [
        (35, 'upper', 'min_pct', -0.42),
        (36, 'upper', 'min_pct', 2.24),
        (68, 'lower', 'max_pct', 98.90),
        (69, 'lower', 'max_pct', 100.14),
    ],
)
def test_threshold_edge_strains(reproduce_sweep, psi, triple, key, expected):
    """Spec B7: the extreme strains on either side of ψ_min and ψ_max, within 0.01 pp."""
    assert runs_by_psi(reproduce_sweep)[psi][triple][key] == pytest.approx(expected, abs=0.01)


def test_normal_mode_exactly_between_the_thresholds(reproduce_sweep):
    """Paper: normal mode (no slack, nothing above 100 %) holds for ψ_min ≤ ψ ≤ ψ_max and nowhere
    else on 30..75°."""
    normal = [p for p, run in runs_by_psi(reproduce_sweep).items() if run['normal_mode']]
    assert normal == list(np.arange(36.0, 69.0))


def test_lower_triple_shapes(reproduce_sweep):
    """Paper/spec B7: the lower triple first falls then rises for ψ ≤ 41°, falls throughout for ψ ≥
    42°."""
    for psi, run in runs_by_psi(reproduce_sweep).items():
        assert run['lower']['shape'] == (
            'decrease_then_increase' if psi <= 41 else 'decreasing'
        ), psi


def test_side_triple_shapes(reproduce_sweep):
    """Paper/spec B7: side triple falls (ψ ≤ 41°), falls then rises (42..57°), rises (ψ ≥ 58°)."""
    for psi, run in runs_by_psi(reproduce_sweep).items():
        expected = (
            'decreasing' if psi <= 41 else 'decrease_then_increase' if psi <= 57 else 'increasing'
        )
        assert run['side']['shape'] == expected, psi


def test_upper_triple_shapes(reproduce_sweep):
    """Spec B7 'one mismatch': the upper triple rises for ψ ≤ 41° and rises then falls for ψ ≥ 42°
    (the paper's text says the reverse; the spec records this reading)."""
    for psi, run in runs_by_psi(reproduce_sweep).items():
        assert run['upper']['shape'] == (
            'increasing' if psi <= 41 else 'increase_then_decrease'
        ), psi


def test_final_upper_equals_final_lower(reproduce_sweep):
    """Paper: at the end of the transient ε0 = ε3 = ε6 = ε1 = ε4 = ε7 for every ψ (within 0.001
    pp)."""
    final = reproduce_sweep.strain[:, -1]
    bases = list(prism.TRIPLES['upper'] + prism.TRIPLES['lower'])
    assert 100 * np.ptp(final[:, bases], axis=1).max() < 1e-3


def test_final_strains_grow_with_psi_and_side_strains_fall(reproduce_sweep):
    """Spec B7 / paper: final upper and lower strains grow with ψ and side strains fall; over the
    normal range the largest upper/lower and smallest side strains are at ψ_max."""
    final = {
        name: np.array([run[name]['final_pct'] for run in reproduce_sweep.runs])
        for name in prism.TRIPLES
    }
    assert np.all(np.diff(final['upper']) > 0) and np.all(np.diff(final['lower']) > 0)
    assert np.all(np.diff(final['side']) < 0)
    normal = [run for run in reproduce_sweep.runs if run['normal_mode']]
    assert max(normal, key=lambda r: r['upper']['max_pct']) is normal[-1]
    assert max(normal, key=lambda r: r['lower']['max_pct']) is normal[-1]
    assert min(normal, key=lambda r: r['side']['min_pct']) is normal[-1]


def test_stated_parameters_do_not_reproduce():
    """Spec B7.1/D1: with L = 0.3 m the upper slack ends only at ψ = 60° (≈ 59.7°) and the lower
    triple never reaches 100 % (below 50 % up to 89°), so ψ_max does not exist."""
    sweep = run_sweep(preset('savin2020_stated'), np.arange(55.0, 90.0))
    assert sweep.thresholds['psi_min_deg'] == 60.0
    assert sweep.thresholds['psi_max_deg'] is None
    assert max(run['lower']['max_pct'] for run in sweep.runs) < 50.0


# --- the paper's eq. (3) damping (spec B5/B7 robustness) ---


@pytest.mark.parametrize(
    'rod_length_m, psi_deg, expected',
    [(0.45, (36.0, 50.0, 68.0), (32.6, 32.6, 74.1)), (0.3, (50.0,), (1.6, 1.6, 2.8))],
)
def test_cable_damping_drives_every_psi_to_one_equilibrium(
    triple_pct, rod_length_m, psi_deg, expected
):
    """Spec B7: with eq. (3) cable damping instead of rod drag the prism settles to a ψ-independent
    equilibrium, ε_up = ε_low = 32.6 %, ε_side = 74.1 % for L = 0.45 m (1.6 % / 2.8 % for L = 0.3
    m); thin-rod inertia, γ = 1."""
    structure = replace(
        savin2020_structure(rod_length_m),
        rod_drag_linear_n_s_per_m=0.0,
        rod_drag_angular_n_m_s=0.0,
        cable_damping_n_s_per_m=1.0,
        inertia='thin_rod',
    )
    dynamics = Dynamics(structure)
    trajectory = simulate(
        dynamics,
        prism.initial_state(np.array(psi_deg), 0.0375),
        10.0,
        integrator='adaptive',
        sample_period_s=1.0,
    )
    final = triple_pct(dynamics, trajectory.states[:, -1])
    np.testing.assert_allclose(final, np.broadcast_to(expected, final.shape), atol=0.05)
