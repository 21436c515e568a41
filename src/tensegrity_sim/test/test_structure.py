"""Bad input is refused with an error naming the field and the allowed range; a diverging run stops
and says when."""

from dataclasses import replace

import numpy as np
import pytest

from tensegrity_sim import prism
from tensegrity_sim.dynamics import Dynamics
from tensegrity_sim.integrate import INTEGRATORS, SimulationDiverged, simulate
from tensegrity_sim.presets import PRESETS, preset
from tensegrity_sim.structure import Ground, Structure, StructureError

RODS = prism.R_PAPER - 1
CABLES = prism.E_PAPER - 1
# spec B1: the paper's example stiffness matrix (every element 10³ N/m), rows = paper vertices 1..6
S_PAPER = 1e3 * np.array(
    [
        [0, 1, 1, 0, 0, 1],
        [1, 0, 1, 0, 1, 0],
        [1, 1, 0, 1, 0, 0],
        [0, 0, 1, 0, 1, 1],
        [0, 1, 0, 1, 0, 1],
        [1, 0, 0, 1, 1, 0],
    ]
)
E_PAPER_ROWS = np.array([[1, 1, 1, 2, 2, 3, 4, 4, 5], [2, 3, 6, 3, 5, 4, 5, 6, 6]]).T


def prism_structure(**fields):
    return Structure(rods=RODS, cables=CABLES, **fields)


# --- physical parameters ---


@pytest.mark.parametrize(
    'field, value, bound',
    [
        ('rod_mass_kg', -1.0, '> 0'),
        ('rod_mass_kg', 0.0, '> 0'),
        ('rod_mass_kg', [1, 1, np.nan], '> 0'),
        ('rod_length_m', 0.0, '> 0'),
        ('rod_length_m', -0.3, '> 0'),
        ('rod_length_m', np.inf, '> 0'),
        ('cable_stiffness_n_per_m', -10.0, '>= 0'),
        ('cable_stiffness_n_per_m', np.nan, '>= 0'),
        ('cable_rest_length_m', 0.0, '> 0'),
        ('cable_rest_length_m', -0.2, '> 0'),
        ('cable_rest_length_m', np.nan, '> 0'),
        ('cable_damping_n_s_per_m', -1.0, '>= 0'),
        ('rod_drag_linear_n_s_per_m', -20.0, '>= 0'),
        ('rod_drag_angular_n_m_s', np.nan, '>= 0'),
    ],
)
def test_bad_physical_parameter_is_refused(field, value, bound):
    """Non-finite or negative (or zero where it must be positive) parameters: StructureError naming
    field and bound."""
    with pytest.raises(StructureError, match=rf'{field}\[\d\] = .*must be finite and {bound}'):
        prism_structure(**{field: value})


@pytest.mark.parametrize('gravity', [(0, 0, np.inf), (0, np.nan, 0), (0, 0)])
def test_bad_gravity_is_refused(gravity):
    with pytest.raises(StructureError, match='gravity_m_s2 .*must be 3 finite numbers'):
        prism_structure(gravity_m_s2=gravity)


@pytest.mark.parametrize(
    'field, value',
    [
        ('stiffness_n_per_m', 0.0),
        ('stiffness_n_per_m', -1e4),
        ('friction', -0.5),
        ('damping_n_s_per_m', np.nan),
        ('slip_velocity_m_s', 0.0),
        ('height_m', np.inf),
    ],
)
def test_bad_ground_is_refused(field, value):
    with pytest.raises(StructureError, match=rf'ground\.{field}.*must be finite'):
        Ground(**{field: value})


@pytest.mark.parametrize('field, value', [('inertia', 'sphere'), ('damping_mode', 'radial')])
def test_unknown_mode_lists_the_allowed_values(field, value):
    with pytest.raises(StructureError, match=rf"{field} = '{value}': allowed values are "):
        prism_structure(**{field: value})


@pytest.mark.parametrize(
    'field, value, count', [('rod_mass_kg', [1.0, 1.0], 3), ('cable_rest_length_m', [0.2] * 8, 9)]
)
def test_per_element_array_of_the_wrong_length_names_the_field(field, value, count):
    """A per-rod or per-cable sequence of the wrong length: StructureError naming the field and the
    length."""
    with pytest.raises(
        StructureError, match=rf'{field} = .*must be one number or {count} numbers'
    ):
        prism_structure(**{field: value})


def test_replace_revalidates():
    """Structure is frozen; dataclasses.replace builds a new one and validates it again."""
    with pytest.raises(StructureError, match='rod_length_m'):
        replace(prism_structure(), rod_length_m=-1.0)


# --- connectivity ---


@pytest.mark.parametrize('cables', [[[0, 6]], [[-1, 2]], [[0, 1], [2, 9]]])
def test_cable_naming_a_missing_vertex_is_refused(cables):
    with pytest.raises(
        StructureError,
        match=r'cables\[\d\] = .*names a missing vertex; allowed vertices are 0\.\.5',
    ):
        Structure(rods=RODS, cables=np.array(cables))


@pytest.mark.parametrize('rods', [[[0, 1], [2, 3], [4, 7]], [[-1, 1], [2, 3], [4, 5]]])
def test_rod_naming_a_missing_vertex_is_refused(rods):
    """n rods have the vertices 0..2n-1: a rod end outside them names the allowed range."""
    with pytest.raises(
        StructureError, match=r'rods\[\d\] = .*names a missing vertex; allowed vertices are 0\.\.5'
    ):
        Structure(rods=np.array(rods), cables=CABLES)


def test_vertex_on_two_rods_is_refused():
    with pytest.raises(
        StructureError, match=r'rods: every vertex 0\.\.5 must be the end of exactly one rod'
    ):
        Structure(rods=np.array([[0, 1], [1, 2], [3, 4]]), cables=CABLES)


@pytest.mark.parametrize(
    'field, pairs, message',
    [
        ('cables', [[2, 2]], 'joins a vertex to itself'),
        ('rods', [[0, 0], [1, 2], [3, 4]], 'joins a vertex to itself'),
        ('cables', [[0.0, 1.0]], r'must be an integer array of shape \(k, 2\)'),
        ('cables', [0, 1, 2], r'must be an integer array of shape \(k, 2\)'),
    ],
)
def test_malformed_connectivity_is_refused(field, pairs, message):
    arrays = {'rods': RODS, 'cables': CABLES, field: np.array(pairs)}
    with pytest.raises(StructureError, match=rf'{field}.*{message}'):
        Structure(**arrays)


def test_paper_stiffness_matrix_gives_the_paper_cables():
    """Spec B1: from_matrices on the paper's S example yields its 9 elements, the rows of E
    (0-based = paper − 1), each with s = 10³ N/m and the rest length of P."""
    pattern = S_PAPER > 0
    structure = Structure.from_matrices(RODS, S_PAPER, np.zeros((6, 6)), 0.2 * pattern)
    assert structure.n_cables == 9
    assert {frozenset(p) for p in structure.cables.tolist()} == {
        frozenset(p) for p in (E_PAPER_ROWS - 1).tolist()
    }
    assert np.all(structure.cable_stiffness_n_per_m == 1e3) and np.all(
        structure.cable_rest_length_m == 0.2
    )


def test_asymmetric_matrix_is_refused():
    asymmetric = S_PAPER.copy()
    asymmetric[0, 1] = 5.0
    with pytest.raises(StructureError, match='S: must be a symmetric square matrix'):
        Structure.from_matrices(RODS, asymmetric, np.zeros((6, 6)), 0.2 * (S_PAPER > 0))


def test_from_paper_takes_one_based_matrices():
    """Fig. 1: R = [1 2 3; 4 6 5]ᵀ, E of spec B2 in 1-based labels give the 0-based structure."""
    structure = Structure.from_paper(np.array([[1, 2, 3], [4, 6, 5]]).T, prism.E_PAPER)
    assert (
        structure.rods.tolist() == RODS.tolist() and structure.cables.tolist() == CABLES.tolist()
    )


# --- ψ, presets, actuation ---


@pytest.mark.parametrize('psi', [0.0, 90.0, -5.0, 120.0, np.nan, np.inf])
def test_psi_outside_the_open_quarter_turn_is_refused(psi):
    """ψ must lie in (0°, 90°): PsiError naming psi_deg and the range, alone or inside a batch."""
    for value in (psi, np.array([50.0, psi])):
        with pytest.raises(prism.PsiError, match=r'psi_deg = .*allowed range is \(0°, 90°\)'):
            preset('savin2020_reproduce').initial_state(value)


def test_unknown_preset_lists_the_allowed_names():
    with pytest.raises(KeyError, match='allowed values are ' + ', '.join(PRESETS)):
        preset('savin2021')


@pytest.mark.parametrize(
    'rest, message',
    [
        (-0.2, 'must be finite and > 0'),
        (0.0, 'must be finite and > 0'),
        (np.nan, 'must be finite and > 0'),
        ([0.2] * 8 + [-0.1], r'\[8\] = '),
        ([0.2] * 8, 'must be one number or 9 numbers'),
    ],
)
def test_set_rest_lengths_refuses_bad_values(rest, message):
    """Actuation is validated like the structure; a refused command leaves the rest lengths
    unchanged."""
    dynamics = Dynamics(preset('savin2020_reproduce').structure)
    with pytest.raises(StructureError, match=rf'cable_rest_length_m.*{message}'):
        dynamics.set_rest_lengths(rest)
    np.testing.assert_array_equal(dynamics.rest_length, 0.2)


# --- integration settings and divergence ---


def test_unknown_integrator_lists_the_allowed_ones():
    dynamics = Dynamics(preset('savin2020_reproduce').structure)
    with pytest.raises(
        ValueError, match="integrator = 'euler': allowed values are " + ', '.join(INTEGRATORS)
    ):
        simulate(dynamics, preset('savin2020_reproduce').initial_state(), 1.0, integrator='euler')


@pytest.mark.parametrize(
    'dt, sample, message',
    [
        (0.003, 0.01, 'sample_period_s = 0.01: must be a whole multiple of dt_s = 0.003'),
        (0.02, 0.01, 'sample_period_s = 0.01: must be a whole multiple of dt_s = 0.02'),
        (0.0, 0.01, 'dt_s = 0.0: must be finite and > 0'),
        (np.nan, 0.01, 'dt_s = nan: must be finite and > 0'),
        (0.01, -1.0, r'sample_period_s = -1\.0: must be finite and > 0'),
    ],
)
def test_bad_step_or_sample_period_is_refused(dt, sample, message):
    dynamics = Dynamics(preset('savin2020_reproduce').structure)
    with pytest.raises(ValueError, match=message):
        simulate(
            dynamics,
            preset('savin2020_reproduce').initial_state(),
            1.0,
            dt_s=dt,
            sample_period_s=sample,
        )


@pytest.mark.parametrize('duration', [0.004, 0.015])
def test_duration_not_a_whole_number_of_samples_is_refused(duration):
    dynamics = Dynamics(preset('savin2020_reproduce').structure)
    with pytest.raises(
        ValueError, match=rf'duration_s = {duration}: must be a whole multiple of sample_period_s'
    ):
        simulate(
            dynamics,
            preset('savin2020_reproduce').initial_state(),
            duration,
            dt_s=0.001,
            sample_period_s=0.01,
        )


@pytest.mark.filterwarnings('ignore:(overflow|invalid value):RuntimeWarning')
@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit', 'savin2020_code'])
def test_diverging_run_raises_with_the_time(integrator):
    """Stiffness 10⁹ N/m with dt = 0.1 s is far beyond explicit stability: SimulationDiverged at a
    sample time inside the run, never a trajectory holding NaN."""
    reproduce = preset('savin2020_reproduce')
    dynamics = Dynamics(replace(reproduce.structure, cable_stiffness_n_per_m=1e9))
    with pytest.raises(SimulationDiverged, match=r'diverged .* at t = \d+\.\d{4} s') as caught:
        simulate(
            dynamics,
            reproduce.initial_state(np.array([40.0, 50.0])),
            5.0,
            integrator=integrator,
            dt_s=0.1,
            sample_period_s=0.1,
        )
    assert 0.1 <= caught.value.time_s <= 5.0
    assert caught.value.time_s / 0.1 == pytest.approx(round(caught.value.time_s / 0.1), abs=1e-9)


@pytest.mark.parametrize('bad', [np.nan, np.inf])
def test_non_finite_initial_state_names_y0(bad):
    """A NaN or infinite initial state is bad input, not a divergence: ValueError naming y0, for
    every integrator."""
    reproduce = preset('savin2020_reproduce')
    y0 = reproduce.initial_state(40.0)
    y0[1, 4] = bad
    for integrator in INTEGRATORS:
        with pytest.raises(ValueError, match='y0: must be finite'):
            simulate(Dynamics(reproduce.structure), y0, 1.0, integrator=integrator)
