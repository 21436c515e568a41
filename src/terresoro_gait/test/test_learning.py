"""Edge samples from tracked poses and weight estimation (spec 2.2-2.3, 9.3 item 11)."""

import numpy as np
import pytest

from soro_geometry import se2
from soro_geometry.history import PoseHistory
from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.explore import eulerian_rounds
from terresoro_gait.learning import (
    boundary_poses,
    collect,
    edge_sample,
    estimate,
    resampling_walk,
    spoiled,
)


def test_worked_edge_sample():
    """Spec 2.2 / 9.3 item 11: (100, 50, 30°) -> (110, 60, 45°) is p = (13.660254, 3.660254), θ =
    15°; a heading from 170° to -170° is +20°, and -170° to 170° is -20°."""
    assert np.allclose(
        edge_sample((100, 50, 30), (110, 60, 45)), (13.660254, 3.660254, 15), atol=1e-6
    )
    assert edge_sample((0, 0, 170), (0, 0, -170))[2] == pytest.approx(20)
    assert edge_sample((0, 0, -170), (0, 0, 170))[2] == pytest.approx(-20)


def test_edge_sample_inverts_composition():
    """A motion (p, θ) applied in the start frame of random world poses is recovered exactly (θ in
    (-180, 180])."""
    rng = np.random.default_rng(22)
    for _ in range(50):
        start, motion = (
            rng.uniform(-500, 500, 3),
            np.append(rng.normal(0, 20, 2), rng.uniform(-179, 180)),
        )
        end = se2.compose([*start[:2], np.radians(start[2])], [*motion[:2], np.radians(motion[2])])
        assert np.allclose(edge_sample(start, [*end[:2], np.degrees(end[2])]), motion)


def test_estimate_uses_n_minus_1_by_default():
    """Spec 2.3 / A17: p_x samples 1..5 give variance 2.5 (N - 1) or 2.0 (ddof = 0); S_p = var x +
    var y."""
    samples = {tuple(e): np.zeros((5, 3)) for e in LimbDigraph(1).edges.tolist()}
    samples[(1, 2)] = np.array([[1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0.0]])
    samples[(2, 1)] = np.array([[0, 1, 2], [0, 3, 4.0]])
    w = estimate(samples, 1)
    assert (
        w.px_mm.tolist() == [3, 0]
        and w.sp_mm2.tolist() == [2.5, 2]
        and w.stheta_deg2.tolist() == [0, 2]
    )
    assert estimate(samples, 1, ddof=0).sp_mm2.tolist() == [2.0, 1]


def test_estimate_refuses_edges_without_two_samples():
    """An edge with one sample, a missing edge or an unknown edge is refused with the edge
    named."""
    samples = {tuple(e): np.zeros((2, 3)) for e in LimbDigraph(2).edges.tolist()}
    with pytest.raises(ValueError, match='edge 3->2: 1 sample'):
        estimate({**samples, (3, 2): [[0, 0, 0]]}, 2)
    with pytest.raises(ValueError, match='edge 4->1: 0 sample'):
        estimate({k: v for k, v in samples.items() if k != (4, 1)}, 2)
    with pytest.raises(ValueError, match='edge 5->1 is not a primitive'):
        estimate({**samples, (5, 1): np.zeros((2, 3))}, 2)


def test_estimate_recovers_known_weights(test_a):
    """With known means and full covariances (correlated p, θ), the estimated means converge as
    samples grow (worst error at 20 000 samples below a tenth of that at 5), and S_p, S_θ are
    within 5 % at 20 000."""
    rng = np.random.default_rng(23)
    mean = np.stack([test_a.px_mm, test_a.py_mm, test_a.theta_deg], -1)
    a = rng.normal(0, 0.6, (12, 3, 3))
    cov = a @ a.transpose(0, 2, 1) + 0.2 * np.eye(3)
    draws = mean[:, None] + np.einsum(
        'kij,knj->kni', np.linalg.cholesky(cov), rng.normal(size=(12, 20_000, 3))
    )
    edges = [tuple(e) for e in LimbDigraph(2).edges.tolist()]
    errors = []
    for n in (5, 20_000):
        w = estimate({e: draws[k, :n] for k, e in enumerate(edges)}, 2)
        errors.append(np.abs(np.stack([w.px_mm, w.py_mm, w.theta_deg], -1) - mean).max())
    assert errors[1] < errors[0] / 10
    assert np.allclose(w.sp_mm2, cov[:, 0, 0] + cov[:, 1, 1], rtol=0.05)
    assert np.allclose(w.stheta_deg2, cov[:, 2, 2], rtol=0.05)


def test_learning_from_simulated_eulerian_rounds(test_a):
    """End to end: 200 random Eulerian rounds on Test-A weights with noise, tracked as world poses
    (starting at a heading near ±180° so wrapping matters), collected by edge and estimated, give
    the means within 0.2 mm / 0.2° and S_θ near the simulated 0.25 deg²."""
    rng = np.random.default_rng(24)
    edges = eulerian_rounds(LimbDigraph(2), 200, seed=24)
    index = LimbDigraph(2).edge_index
    poses = [np.array([0.0, 0.0, np.radians(178)])]
    for e in edges:
        k = index[e]
        noise = rng.normal(0, 1, 3) * (0.5, 0.5, np.radians(0.5))  # mm, mm, rad
        motion = (
            np.array([test_a.px_mm[k], test_a.py_mm[k], np.radians(test_a.theta_deg[k])]) + noise
        )
        poses.append(se2.compose(poses[-1], motion))
    world = [(x, y, np.degrees(se2.wrap(phi))) for x, y, phi in poses]
    samples = collect(edges, world)
    assert all(len(s) == 200 for s in samples.values()) and len(samples) == 12
    w = estimate(samples, 2)
    assert np.allclose(w.px_mm, test_a.px_mm, atol=0.2) and np.allclose(
        w.py_mm, test_a.py_mm, atol=0.2
    )
    assert np.allclose(w.theta_deg, test_a.theta_deg, atol=0.2) and np.allclose(
        w.stheta_deg2, 0.25, rtol=0.3
    )
    with pytest.raises(ValueError, match='3 primitives need 4'):
        collect(edges[:3], world[:3])


def test_a_tracking_gap_spoils_the_primitives_beside_it_not_the_round():
    """An occluded marker for 0.5 s (no frame around t = 2 s): that boundary is NaN, the two
    primitives that share it give no sample and are named as spoiled, the others are sampled as
    usual."""
    history = PoseHistory()
    for t in np.arange(0.0, 4.0, 1 / 30):
        if not 1.7 < t < 2.2:
            history.add(t, (t / 1000, 0.0, 0.0))  # 1 mm/s along x
    edges, instants = [(1, 2), (2, 4), (4, 3), (3, 1)], [0.5, 1.5, 2.05, 2.5, 3.5]
    poses = boundary_poses(instants, history, window_s=0.1, max_age_s=0.3)
    assert np.isnan(poses[2]).all() and np.isfinite(np.delete(poses, 2, axis=0)).all()
    assert spoiled(edges, poses) == [(2, 4), (4, 3)]
    samples = collect(edges, poses)
    assert set(samples) == {(1, 2), (3, 1)}
    assert samples[(1, 2)][0][0] == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize(
    'edges, walk',
    [
        ([(2, 4), (4, 3)], [1, 2, 4, 3]),  # consecutive spoiled primitives run as they ran
        ([(1, 2), (3, 1)], [1, 2, 3]),  # from and back to rest, the closing edge implicit
        ([(2, 1), (2, 1)], [1, 2, 1, 2]),  # a primitive spoiled twice is run twice
    ],
)
def test_the_resampling_walk_runs_every_spoiled_primitive_from_rest(edges, walk):
    assert resampling_walk(edges, rest=1) == walk
    closed = list(zip(walk, walk[1:] + walk[:1]))
    assert all(i != j for i, j in closed)
    for edge in set(edges):
        assert closed.count(edge) >= edges.count(edge)


def test_a_stand_in_frame_never_comes_from_before_the_previous_instant():
    """With the window empty, the last frame may stand in up to max_age_s old, but not across a
    primitive: at t = 1.2 s the last frame (t = 0.9 s) predates the command at 0.95 s, so the robot
    has moved since."""
    history = PoseHistory()
    for t in np.linspace(0.0, 0.9, 10):
        history.add(t, (0.0, 0.0, 0.0))
    poses = boundary_poses([0.9, 0.95, 1.2], history, window_s=0.1, max_age_s=0.5)
    assert np.isfinite(poses[:2]).all() and np.isnan(poses[2]).all()
