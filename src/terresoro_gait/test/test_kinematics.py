"""Graph encoding (spec 9.1), SE(2) helpers and the section IV kinematics on synthetic weights
(spec 4.4, 5.1, 9.3)."""

from math import pi

import numpy as np
import pytest

from soro_geometry import se2
from terresoro_gait import kinematics as kin
from terresoro_gait.digraph import (
    GaitError,
    LimbDigraph,
    simple_cycle_count_formula,
    state_bits,
    vertex,
)

# spec 6.6, Tables II-VIII: (n_limbs, V(L), states column)
GAIT_TABLES = [
    (3, [1, 8], '000 111'),
    (3, [2, 3, 5], '001 010 100'),
    (3, [5, 8, 4, 1], '100 111 011 000'),
    (3, [6, 3], '101 010'),
    (3, [8, 2, 1], '111 001 000'),
    (3, [6, 4, 5, 7, 1], '101 011 100 110 000'),
    (3, [4, 2, 1], '011 001 000'),
    (3, [3, 4, 2, 6, 7, 1], '010 011 001 101 110 000'),
    (3, [7, 5, 6, 2, 4, 1], '110 100 101 001 011 000'),
    (3, [6, 4, 5, 2], '101 011 100 001'),
    (3, [4, 7, 5, 1], '011 110 100 000'),
    (3, [5, 3], '100 010'),
    (3, [5, 1], '100 000'),
    (3, [1, 4, 2, 6], '000 011 001 101'),
    (3, [5, 7, 6, 2], '100 110 101 001'),
    (3, [7, 3], '110 010'),
    (3, [7, 4, 3], '110 011 010'),
    (3, [4, 5, 3, 2], '011 100 010 001'),
    (3, [2, 6, 5, 3, 8, 4], '001 101 100 010 111 011'),
    (3, [3, 8, 7, 6, 4, 5, 2], '010 111 110 101 011 100 001'),
    (3, [7, 4, 2, 6, 5, 3, 1], '110 011 001 101 100 010 000'),
    (4, [16, 1], '1111 0000'),
    (4, [9, 5, 3, 2], '1000 0100 0010 0001'),
    (4, [13, 16, 4, 1], '1100 1111 0011 0000'),
    (4, [3, 15, 1], '0010 1110 0000'),
    (4, [5, 15, 1], '0100 1110 0000'),
    (4, [6, 16, 2], '0101 1111 0001'),
    (4, [13, 8, 10, 7, 11, 2], '1100 0111 1001 0110 1010 0001'),
    (4, [12, 13, 8, 10, 7], '1011 1100 0111 1001 0110'),
    (4, [16, 8, 10, 7, 12, 6, 1], '1111 0111 1001 0110 1011 0101 0000'),
    (4, [3, 8, 1], '0010 0111 0000'),
    (4, [5, 3, 8, 1], '0100 0010 0111 0000'),
    (4, [4, 5, 6, 3, 2], '0011 0100 0101 0010 0001'),
    (4, [11, 13, 3, 1], '1010 1100 0010 0000'),
]
B_N4 = [
    [1, 1, 1, -1, 0, 0, -1, 0, 0, -1, 0, 0],
    [-1, 0, 0, 1, 1, 1, 0, -1, 0, 0, -1, 0],
    [0, -1, 0, 0, -1, 0, 1, 1, 1, 0, 0, -1],
    [0, 0, -1, 0, 0, -1, 0, 0, -1, 1, 1, 1],
]


def test_graph_sizes_are_n_2_to_the_limbs_and_m_n_n_minus_1():
    """Spec 9.1 item 1 and 9.4 item 14: (n, m) = (4, 12), (8, 56), (16, 240); IV without limb 1 is
    8/56."""
    assert [(LimbDigraph(k).n, LimbDigraph(k).m) for k in (2, 3, 4)] == [
        (4, 12),
        (8, 56),
        (16, 240),
    ]
    assert (LimbDigraph(4, (1,)).n, LimbDigraph(4, (1,)).m) == (8, 56)


@pytest.mark.parametrize('n_limbs, cycle, states', GAIT_TABLES)
def test_table_gaits_decode_to_the_spec_states(n_limbs, cycle, states):
    """Spec 9.1 item 2: each Table II-VIII vertex list is a simple cycle whose states read as in
    spec 6.6."""
    LimbDigraph(n_limbs).check_cycle(cycle)
    assert ' '.join(''.join(map(str, state_bits(v, n_limbs))) for v in cycle) == states
    assert [vertex(int(c) for c in s) for s in states.split()] == cycle


def test_two_limb_vertices_are_00_01_10_11():
    """Spec 1.4: v1..v4 = 00, 01, 10, 11, and vertex() inverts state_bits() for 3 and 4 limbs."""
    assert [state_bits(v, 2) for v in (1, 2, 3, 4)] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert all(vertex(state_bits(v, k)) == v for k in (3, 4) for v in range(1, 2**k + 1))


def test_n4_edge_order_and_incidence_are_the_papers():
    """Spec 9.1 item 3: lexicographic edges, B and B^i as printed in spec 1.5, B^t = B^i - B."""
    g = LimbDigraph(2)
    assert g.edges.tolist() == [[i, j] for i in range(1, 5) for j in range(1, 5) if i != j]
    assert g.incidence.tolist() == B_N4
    assert g.initial_matrix.tolist() == [
        [int(3 * r <= k < 3 * r + 3) for k in range(12)] for r in range(4)
    ]
    assert np.array_equal(g.terminal_matrix, g.initial_matrix - np.array(B_N4))


def test_crawl_and_inch_cycle_vectors():
    """Spec 9.1 item 4: z_crawl (16) from [1,2,3] and z_inch (17) from [1,2,4,3]."""
    g = LimbDigraph(2)
    assert g.cycle_vector([1, 2, 3]).tolist() == [1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0]
    assert g.cycle_vector([1, 2, 4, 3]).tolist() == [1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1]


def test_cycle_counts_formula_and_johnson():
    """Spec 9.1 item 6: n_z formula 24 / 16 072 / 3 809 950 977 008; Johnson finds 20 (6+8+6) and
    16 064 cycles, and refuses the intractable n = 16."""
    assert [simple_cycle_count_formula(n) for n in (4, 8, 16)] == [24, 16072, 3809950977008]
    four = kin.simple_cycles(LimbDigraph(2))
    assert [sum(len(c) == k for c in four) for k in (2, 3, 4)] == [6, 8, 6]
    eight = kin.simple_cycles(LimbDigraph(3))
    assert len(eight) == len(set(eight)) == 16064
    assert all(c[0] == min(c) for c in eight) and LimbDigraph(3).check_cycle(eight[-1])
    with pytest.raises(ValueError, match='16 vertices'):
        kin.simple_cycles(LimbDigraph(4))


def test_se2_wrap_compose_inverse_relative():
    """wrap lands in (-π, π] (π stays, -π becomes π); g g^-1 = identity; relative(g, g d) = d;
    rotate = R v."""
    assert np.allclose(se2.wrap([pi, -pi, 3 * pi, -1.5 * pi, 0.25]), [pi, pi, pi, 0.5 * pi, 0.25])
    rng = np.random.default_rng(1)
    g, d = rng.normal(size=(50, 3)), rng.normal(size=(50, 3))
    assert np.allclose(se2.compose(g, se2.inverse(g)), 0)
    assert np.allclose(se2.relative(g, se2.compose(g, d)), d)
    assert np.allclose(
        se2.rotate(g[:, 2], d[:, :2]), np.einsum('nij,nj->ni', se2.rot(g[:, 2]), d[:, :2])
    )


def test_test_a_translation_cycle_is_start_invariant(test_a):
    """Spec 4.4: (1,2,3) composes to p = (23.977679, 0.348559), Θ = 0, ‖p‖ = 23.980213 from every
    start."""
    p, theta = kin.cycle_motion(test_a, (1, 2, 3))
    assert np.allclose(p, (23.977679, 0.348559), atol=1e-6) and theta == 0
    for start in (2, 3):
        assert np.linalg.norm(kin.cycle_motion(test_a, (1, 2, 3), start)[0]) == pytest.approx(
            23.980213, abs=1e-6
        )


def test_test_a_minus_one_degree_cycle_depends_on_start(test_a):
    """Spec 4.4 / 9.3 item 12: (1,2,4,3) gives p = (26.981733, -0.476880), Θ = -1°, and ‖p‖ per
    start vertex 1, 2, 4, 3 = 26.985947, 26.988072, 26.992602, 27.000071."""
    p, theta = kin.cycle_motion(test_a, (1, 2, 4, 3))
    assert np.allclose(p, (26.981733, -0.476880), atol=1e-6) and theta == -1
    norms = [np.linalg.norm(kin.cycle_motion(test_a, (1, 2, 4, 3), s)[0]) for s in (1, 2, 4, 3)]
    assert np.allclose(norms, (26.985947, 26.988072, 26.992602, 27.000071), atol=1e-6)
    with pytest.raises(GaitError, match='start vertex 5'):
        kin.cycle_motion(test_a, (1, 2, 4, 3), start=5)


def test_rotation_example_icr_and_repeats(test_a):
    """Spec 4.4: (1,3,4) Θ = 27°, p = (1.298353, 1.339401), ICR (-2.1403, 3.3737) of radius 3.9954;
    after 5 cycles 135° and p = (-1.2682, 7.2727)."""
    p, theta = kin.cycle_motion(test_a, (1, 3, 4))
    assert theta == 27 and np.allclose(p, (1.298353, 1.339401), atol=1e-6)
    c = kin.icr(p, theta)
    assert np.allclose(c, (-2.1403, 3.3737), atol=1e-4) and np.linalg.norm(c) == pytest.approx(
        3.9954, abs=1e-4
    )
    p5, theta5 = kin.repeat(p, theta, 5)
    assert theta5 == 135 and np.allclose(p5, (-1.2682, 7.2727), atol=1e-4)


@pytest.mark.parametrize('theta', [27.0, -1.0, 0.0, 360.0, 179.0])
def test_repeat_equals_composing_k_times(theta):
    """p_k of spec 4.4 (closed form, or k p when Θ ≡ 0) equals g(L) composed with itself k
    times."""
    p = np.array([3.0, -1.5])
    g = np.zeros(3)
    for k in range(1, 8):
        g = se2.compose(g, [*p, np.radians(theta)])
        p_k, theta_k = kin.repeat(p, theta, k)
        assert np.allclose(p_k, g[:2], atol=1e-9) and theta_k == pytest.approx(np.degrees(g[2]))
    assert (kin.icr(p, theta) is None) == (theta % 360 == 0)


def test_proposition_1_on_random_cycles(random_weights):
    """Eq. (26): for 200 random cycles of a random 3-limb graph and every pair of start positions
    (i, j), p^i from p^j matches the direct composition from start i to 1e-9; Θ_L is the same from
    every start."""
    w, graph = random_weights(3, 26), LimbDigraph(3)
    cycles = kin.simple_cycles(graph)
    rng = np.random.default_rng(26)
    for r in rng.choice(len(cycles), 200, replace=False):
        cycle = cycles[r]
        p, theta = kin.edge_motion(w, graph, cycle)
        direct = [kin.cycle_motion(w, cycle, start=v) for v in cycle]
        assert np.allclose([t for _, t in direct], theta.sum(), atol=1e-9)
        for i in range(len(cycle)):
            for j in range(len(cycle)):
                assert np.allclose(
                    kin.start_change(direct[j][0], p, theta, i, j), direct[i][0], atol=1e-9, rtol=0
                )


def test_edge_motion_on_a_pruned_graph_uses_the_full_weights(random_weights):
    """A pruned graph (IV without limb 4) indexes the same learned weights as the full one."""
    w = random_weights(4, 3)
    p, theta = kin.edge_motion(w, LimbDigraph(4, (4,)), [11, 13, 3, 1])
    full_p, full_theta = kin.edge_motion(w, LimbDigraph(4), [11, 13, 3, 1])
    assert np.array_equal(p, full_p) and np.array_equal(theta, full_theta) and p.shape == (4, 2)


def test_predicted_speeds_and_the_120_primitive_test(test_a):
    """ν = ‖p‖/(lτ), ω = Θ/(lτ); over the paper's 120-primitive test (66 s at τ = 0.55 s) a Θ = 0
    gait travels 120/l cycles' worth of ‖p‖."""
    p, theta = kin.cycle_motion(test_a, (1, 3, 4))
    assert kin.predicted_speeds(p, theta, 3, 0.55) == pytest.approx(
        (np.linalg.norm(p) / 1.65, 27 / 1.65)
    )
    p, theta = kin.cycle_motion(test_a, (1, 2, 3))
    nu, omega = kin.predicted_speeds(p, theta, 3, 0.55)
    assert nu * 66.0 == pytest.approx(40 * 23.980213, abs=1e-4) and omega == 0


def test_rotation_variance_is_s_theta_z_and_translation_variance_is_s_p_z_without_rotation(test_a):
    """Spec 5.1: s_θ = S_θ z exactly ((1,3,2): 0.1 + 2.0 + 0.1); without rotation noise s_p is S_p
    z whatever the rotations, and rotation noise only adds to it."""
    assert kin.cycle_variances(test_a, (1, 3, 2))[1] == pytest.approx(2.2)
    p, theta, sp = (
        np.array([[3.0, 1.0], [-2.0, 4.0], [0.5, -6.0]]),
        np.array([40.0, -90, 10]),
        np.array([1.0, 4, 1]),
    )
    assert kin.translation_variance(p, theta, sp, np.zeros(3)) == pytest.approx(6)
    assert kin.translation_variance(p, theta, sp, np.full(3, 5.0)) > 6.01
    # 27° of noisy rotation adds to S_p z = 3
    assert kin.cycle_variances(test_a, (1, 3, 4))[0] > 3.0


def test_translation_variance_matches_monte_carlo():
    """First-order s_p (spec 5.1) with Σ_pθ agrees within 1 % with sampled compositions of small
    noise; leaving out the correlated Σ_pθ term is more than 3 % off."""
    rng = np.random.default_rng(51)
    p, theta = rng.normal(0, 8, (5, 2)), rng.normal(0, 20, 5)
    cov = np.tile(np.diag([0.3, 0.3, 0.5]), (5, 1, 1))
    # strongly correlated p and θ noise
    cov[:, :2, 2] = cov[:, 2, :2] = rng.choice([-0.2, 0.2], (5, 2))
    noise = np.einsum('kij,nkj->nki', np.linalg.cholesky(cov), rng.normal(size=(100_000, 5, 3)))
    g = kin.chain(p + noise[..., :2], theta + noise[..., 2])[:, -1, :2]
    sampled = np.trace(np.cov(g, rowvar=False))
    sp, stheta = cov[:, 0, 0] + cov[:, 1, 1], cov[:, 2, 2]
    full = kin.translation_variance(p, theta, sp, stheta, cov[:, :2, 2])
    assert full == pytest.approx(sampled, rel=0.01)
    assert kin.translation_variance(p, theta, sp, stheta) != pytest.approx(sampled, rel=0.03)


def test_nonlinear_costs_sign_of_lambda(test_a):
    """Eq. (27): λ = 0 gives ‖p‖/l and |Θ|/l; the default is λ = -1 (spec A9); λ = +1 (paper) adds
    2 s/l more."""
    assert kin.nonlinear_costs(test_a, (1, 2, 3), 0, 0) == pytest.approx(
        (23.980213 / 3, 0), abs=1e-6
    )
    s_p, s_theta = kin.cycle_variances(test_a, (1, 3, 4))
    default, paper = (
        kin.nonlinear_costs(test_a, (1, 3, 4)),
        kin.nonlinear_costs(test_a, (1, 3, 4), 1, 1),
    )
    assert default[1] == pytest.approx((27 - s_theta) / 3)
    assert np.allclose(np.subtract(paper, default), (2 * s_p / 3, 2 * s_theta / 3))


@pytest.mark.parametrize('n_limbs', [2, 3])
def test_exhaustive_table_matches_per_cycle_evaluation(n_limbs, random_weights, test_a):
    """evaluate_all (padded, vectorised) gives, row by row, what
    cycle_motion/cycle_variances/nonlinear_costs give."""
    w, graph = (test_a, LimbDigraph(2)) if n_limbs == 2 else (random_weights(3, 7), LimbDigraph(3))
    table = kin.evaluate_all(w, graph, lam_t=0.5, lam_theta=-2)
    assert (
        len(table.cycles)
        == table.j_t.shape[0]
        == table.p_mm.shape[0]
        == (20 if n_limbs == 2 else 16064)
    )
    for r in np.random.default_rng(0).choice(len(table.cycles), 20, replace=False):
        cycle = table.cycles[r]
        p, theta = kin.cycle_motion(w, cycle)
        assert np.allclose(table.p_mm[r], p) and table.theta_deg[r] == pytest.approx(theta)
        assert np.allclose([table.sp_mm2[r], table.stheta_deg2[r]], kin.cycle_variances(w, cycle))
        assert np.allclose(
            [table.j_t[r], table.j_theta[r]], kin.nonlinear_costs(w, cycle, 0.5, -2)
        )
        assert table.length[r] == len(cycle)


def test_odometry_ends_where_the_cycle_goes(test_a):
    """Spec 8: odometry over the edges of (1,2,4,3) ends at g^1(L), with tr Σ_xy = s_p and Σ_φφ =
    s_θ; from a non-zero start pose it is that pose composed with the cycle."""
    edges = [(1, 2), (2, 4), (4, 3), (3, 1)]
    poses, covs = kin.odometry(test_a, edges)
    p, theta = kin.cycle_motion(test_a, (1, 2, 4, 3))
    s_p, s_theta = kin.cycle_variances(test_a, (1, 2, 4, 3))
    assert poses.shape == (4, 3) and covs.shape == (4, 3, 3)
    assert np.allclose(poses[-1], [*p, theta]) and np.allclose(poses[0], [10, 0, 2])
    assert np.trace(covs[-1][:2, :2]) == pytest.approx(s_p) and covs[-1][2, 2] == pytest.approx(
        s_theta
    )
    moved, _ = kin.odometry(test_a, edges, start_pose=(100, -50, 90))
    expected = se2.compose([100, -50, pi / 2], [*p, np.radians(theta)])
    assert np.allclose(moved[-1], [*expected[:2], np.degrees(expected[2])])
    with pytest.raises(GaitError, match='2->2'):
        kin.odometry(test_a, [(1, 2), (2, 2)])


def test_odometry_covariance_matches_monte_carlo(test_a):
    """The 3x3 first-order covariance after 8 primitives matches sampled noisy compositions (Σ_pp =
    S_p/2 I)."""
    edges = [(1, 3), (3, 4), (4, 1), (1, 2), (2, 4), (4, 2), (2, 3), (3, 1)]
    _, covs = kin.odometry(test_a, edges)
    k = [LimbDigraph(2).edge_index[e] for e in edges]
    w = test_a
    rng = np.random.default_rng(8)
    sd = np.sqrt(np.stack([w.sp_mm2[k] / 2, w.sp_mm2[k] / 2, w.stheta_deg2[k]], -1))
    noise = rng.normal(size=(100_000, 8, 3)) * sd
    g = kin.chain(
        np.stack([w.px_mm[k], w.py_mm[k]], -1) + noise[..., :2], w.theta_deg[k] + noise[..., 2]
    )[:, -1]
    assert np.allclose(np.cov(g, rowvar=False), covs[-1], rtol=0.05, atol=0.05)
