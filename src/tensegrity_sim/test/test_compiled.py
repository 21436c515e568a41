"""The compiled right-hand side and RK4 loop against the numpy reference (Dynamics.rates,
step_rk4), on random states of random structures: any number of rods and cables, ground and gravity
on and off, slack cables, both damping modes, unilateral and bilateral cables. Agreement to 1e-12
of the largest value compared."""

import numpy as np
import pytest

from tensegrity_sim import compiled
from tensegrity_sim.dynamics import Dynamics, make_state
from tensegrity_sim.integrate import SimulationDiverged, run_batch, simulate
from tensegrity_sim.presets import preset
from tensegrity_sim.structure import Ground, Structure

SEEDS = range(40)


def random_structure(
    rng: np.random.Generator, n_rods: int | None = None, cables=None
) -> Structure:
    n_rods = n_rods or int(rng.integers(1, 7))
    vertices = rng.permutation(2 * n_rods)
    if cables is None:
        n_cables = int(rng.integers(0, 3 * n_rods + 1))
        pairs = [rng.choice(2 * n_rods, 2, replace=False) for _ in range(n_cables)]
        cables = np.array(pairs, dtype=int).reshape(-1, 2)
    return Structure(
        rods=vertices.reshape(n_rods, 2),
        cables=cables,
        rod_mass_kg=rng.uniform(0.3, 2.0, n_rods),
        rod_length_m=rng.uniform(0.1, 0.6, n_rods),
        inertia=str(rng.choice(['thin_rod', 'identity'])),
        cable_stiffness_n_per_m=rng.uniform(1.0, 50.0, len(cables)),
        cable_rest_length_m=rng.uniform(0.05, 0.8, len(cables)),
        cable_damping_n_s_per_m=rng.uniform(0.0, 2.0, len(cables)) * rng.integers(0, 2),
        damping_mode=str(rng.choice(['relative_full', 'relative_axial'])),
        unilateral=bool(rng.integers(0, 2)),
        rod_drag_linear_n_s_per_m=rng.uniform(0, 1),
        rod_drag_angular_n_m_s=rng.uniform(0, 1),
        gravity_m_s2=rng.normal(0, 5, 3) * rng.integers(0, 2),
        ground=Ground(height_m=rng.uniform(-0.3, 0.3), friction=rng.uniform(0, 1))
        if rng.integers(0, 2)
        else None,
    )


def random_states(
    rng: np.random.Generator, runs: int, n_rods: int, scale: float = 1.0
) -> np.ndarray:
    """(runs, n_r, 13); quaternions of any norm (the right-hand side divides it out)."""
    return make_state(
        rng.uniform(-0.5, 0.5, (runs, n_rods, 3)),
        scale * rng.normal(0, 1, (runs, n_rods, 3)),
        rng.normal(0, 1, (runs, n_rods, 4)),
        scale * rng.normal(0, 2, (runs, n_rods, 3)),
    )


def compiled_rates(structure: Structure, states: np.ndarray) -> np.ndarray:
    batch = compiled.repeat(compiled.batch_of([structure]), len(states))
    out = np.empty_like(states)
    compiled.rates_of_runs(batch.arrays(), states, out)
    return out


def close(a: np.ndarray, b: np.ndarray) -> float:
    """Largest difference over the largest magnitude compared."""
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


@pytest.mark.parametrize('seed', SEEDS)
def test_rates_equal_the_reference_on_random_structures_and_states(seed):
    rng = np.random.default_rng(seed)
    structure = random_structure(rng)
    states = random_states(rng, 8, structure.n_rods)
    assert close(compiled_rates(structure, states), Dynamics(structure).rates(states)) <= 1e-12


def test_the_random_structures_cover_what_the_reference_branches_on():
    structures = [random_structure(np.random.default_rng(seed)) for seed in SEEDS]
    assert {s.ground is None for s in structures} == {True, False}
    assert {bool(np.any(s.gravity_m_s2)) for s in structures} == {True, False}
    assert {s.unilateral for s in structures} == {True, False}
    assert {(s.damping_mode, bool(np.any(s.cable_damping_n_s_per_m))) for s in structures} >= {
        ('relative_full', True),
        ('relative_axial', True),
        ('relative_full', False),
    }
    assert {s.n_rods for s in structures} >= {1, 2, 3, 4, 5, 6} and min(
        s.n_cables for s in structures
    ) == 0
    slack = [
        np.any(
            Dynamics(s).cable_lengths(random_states(np.random.default_rng(0), 1, s.n_rods))
            < s.cable_rest_length_m
        )
        for s in structures
        if s.n_cables
    ]
    assert any(slack) and not all(slack)


@pytest.mark.parametrize('seed', SEEDS[:15])
def test_rk4_runs_equal_the_reference(seed):
    rng = np.random.default_rng(seed)
    structure = random_structure(rng)
    y0 = random_states(rng, 3, structure.n_rods, scale=0.2)
    dynamics = Dynamics(structure)
    ours = simulate(dynamics, y0, 0.1, dt_s=0.001, sample_period_s=0.01)
    reference = simulate(
        dynamics, y0, 0.1, dt_s=0.001, sample_period_s=0.01, implementation='numpy'
    )
    assert ours.states.shape == reference.states.shape == (3, 11, structure.n_rods, 13)
    assert close(ours.states, reference.states) <= 1e-12
    np.testing.assert_array_equal(ours.t, reference.t)


def test_a_batch_of_structures_is_each_structure_run_alone():
    rng = np.random.default_rng(7)
    first = random_structure(rng, n_rods=4)
    structures = [first] + [random_structure(rng, n_rods=4, cables=first.cables) for _ in range(5)]
    # one topology
    structures = [Structure(**{**vars(s), 'rods': first.rods}) for s in structures]
    y0 = random_states(rng, len(structures), 4, scale=0.2)
    batch = run_batch(structures, y0, 0.2, dt_s=0.002, sample_period_s=0.02)
    for structure, start, states in zip(structures, y0, batch.states):
        alone = simulate(
            Dynamics(structure),
            start,
            0.2,
            dt_s=0.002,
            sample_period_s=0.02,
            implementation='numpy',
        )
        assert close(states, alone.states) <= 1e-12


def test_a_batch_of_states_on_one_structure_is_the_batched_reference():
    p = preset('savin2020_reproduce')
    y0 = p.initial_state(np.linspace(30.0, 75.0, 10))
    batch = run_batch(p.structure, y0, 1.0, dt_s=0.01, sample_period_s=0.05)
    reference = simulate(
        Dynamics(p.structure), y0, 1.0, dt_s=0.01, sample_period_s=0.05, implementation='numpy'
    )
    assert close(batch.states, reference.states) <= 1e-12


def test_batches_refuse_mixed_topologies_and_mismatched_sizes():
    rng = np.random.default_rng(3)
    a, b = random_structure(rng, n_rods=3), random_structure(rng, n_rods=3)
    with pytest.raises(ValueError, match='one topology'):
        run_batch([a, b], random_states(rng, 2, 3), 0.1)
    with pytest.raises(ValueError, match='2 structures for 3 initial states'):
        run_batch([a, a], random_states(rng, 3, 3), 0.1)
    with pytest.raises(ValueError, match='4 rods per run, the structure has 3'):
        run_batch(a, random_states(rng, 2, 4), 0.1)


def test_a_diverging_run_in_a_batch_raises_with_its_time():
    p = preset('savin2020_reproduce')
    y0 = p.initial_state(np.array([36.0, 50.0]))
    # the second run starts beyond the blow-up bound's reach within one sample
    y0[1, :, 3:6] = 1e7
    with pytest.raises(SimulationDiverged, match=r'run 1 of the batch .* at t = 0.0100 s'):
        run_batch(p.structure, y0, 0.1, dt_s=0.01, sample_period_s=0.01)


def package_imports() -> dict[str, set[str]]:
    """Module -> the tensegrity_sim modules it imports anywhere in its text (inside functions
    too)."""
    import ast
    from pathlib import Path

    package = Path(compiled.__file__).parent
    graph = {}
    for path in package.glob('*.py'):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == 'tensegrity_sim':
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or '').startswith(
                'tensegrity_sim.'
            ):
                names.add(node.module.split('.')[1])
        graph[path.stem] = names
    return graph


def test_no_module_of_the_package_imports_itself_back():
    """Issue 27: compiled.warm_up imported dynamics, integrate and presets, which import
    compiled."""
    graph = package_imports()

    def reaches(start, target, seen):
        return any(
            m == target or (m not in seen and reaches(m, target, seen | {m}))
            for m in graph.get(start, ())
        )

    assert [m for m in graph if reaches(m, m, {m})] == []
