"""Edge-weight learning from tracked poses (paper III-A, VI-C2, eq. 14; spec 2.2-2.3).

World poses are (x_mm, y_mm, φ_deg); an edge sample is (px_mm, py_mm, θ_deg), the primitive's
motion in the frame of the robot at its start, the "coordinate system of the initial vertex".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from soro_geometry import se2
from soro_geometry.history import PoseHistory, TrackingLost
from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.units import pose_to_paper
from terresoro_gait.weights import EdgeWeights


def edge_sample(start_pose, end_pose) -> np.ndarray:
    """(px_mm, py_mm, θ_deg) (3,) = g_s^-1 g_e: p = R(φ_s)^T (x_e - x_s), θ = wrap(φ_e - φ_s) into
    (-180, 180]."""
    s, e = (np.array([g[0], g[1], np.radians(g[2])], dtype=float) for g in (start_pose, end_pose))
    d = se2.relative(s, e)
    return np.array([d[0], d[1], np.degrees(d[2])])


def boundary_poses(
    instants_s, history: PoseHistory, window_s: float, max_age_s: float
) -> np.ndarray:
    """The settled poses (K + 1, 3) in mm and degrees at a round's boundaries: each primitive's
    command instant and the end of the last (``instants_s``), each the mean of the tracked poses
    (m, rad) in the ``window_s`` before it (spec 2.2). With no frame in the window, the last frame
    up to ``max_age_s`` old stands in (camera jitter), but never one from before the previous
    instant: the robot moved a whole primitive since. An instant without a tracked frame (a marker
    occluded, the tracker dropping out) is a row of NaN: it spoils the primitives on either side of
    it, not the round. The live learner and the offline analysis of its bag both take them here."""
    since_previous = np.diff(np.asarray(instants_s, dtype=float), prepend=-np.inf)
    return np.array(
        [
            _settled_pose(history, t, window_s, min(max_age_s, dt))
            for t, dt in zip(instants_s, since_previous)
        ]
    ).reshape(-1, 3)


def _settled_pose(
    history: PoseHistory, t_s: float, window_s: float, max_age_s: float
) -> np.ndarray:
    try:
        return np.asarray(pose_to_paper(*history.at(t_s, window_s, max_age_s)), dtype=float)
    except TrackingLost:
        return np.full(3, np.nan)


def _checked(edges: Sequence[tuple[int, int]], poses) -> np.ndarray:
    poses = np.asarray(poses, dtype=float)
    if len(poses) != len(edges) + 1:
        raise ValueError(
            f'{len(edges)} primitives need {len(edges) + 1} boundary poses, got {len(poses)}'
        )
    return poses


def spoiled(edges: Sequence[tuple[int, int]], poses) -> list[tuple[int, int]]:
    """The primitives (K) whose start or end pose (of the K + 1) was not tracked, in the order they
    ran."""
    tracked = np.isfinite(_checked(edges, poses)).all(axis=1)
    return [
        (int(i), int(j)) for k, (i, j) in enumerate(edges) if not (tracked[k] and tracked[k + 1])
    ]


def collect(edges: Sequence[tuple[int, int]], poses) -> dict[tuple[int, int], list[np.ndarray]]:
    """Samples by edge from executed primitives (K) and the world poses at their boundaries (K + 1,
    3); a primitive with an untracked boundary (``spoiled``) gives no sample."""
    poses = _checked(edges, poses)
    samples: dict[tuple[int, int], list[np.ndarray]] = {}
    for k, (i, j) in enumerate(edges):
        if np.isfinite(poses[k : k + 2]).all():
            samples.setdefault((int(i), int(j)), []).append(edge_sample(poses[k], poses[k + 1]))
    return samples


def resampling_walk(edges: Sequence[tuple[int, int]], rest: int) -> list[int]:
    """A closed walk from ``rest`` through every edge of ``edges`` (each a primitive of the
    complete digraph), for an ExecuteWalk goal that samples again what tracking gaps spoiled: rest
    -> i -> j -> ... and back to rest (the closing edge is implicit, as in an exploration
    round)."""
    walk = [rest]
    for i, j in edges:
        walk += ([i] if walk[-1] != i else []) + [j]
    return walk[:-1] if len(walk) > 1 and walk[-1] == rest else walk


def add_samples(store: dict, edges: Sequence[tuple[int, int]], poses) -> dict:
    """``store`` (samples by edge) extended with those of ``collect(edges, poses)``; returns it."""
    for edge, samples in collect(edges, poses).items():
        store.setdefault(edge, []).extend(samples)
    return store


def estimate(
    samples_by_edge: Mapping[tuple[int, int], Sequence], n_limbs: int, ddof: int = 1
) -> EdgeWeights:
    """EdgeWeights from samples (N_e, 3) of every edge (i, j) of the complete digraph on
    ``n_limbs`` limbs (eq. 14): μ = sample mean, Σ = sample covariance normalised by N - ddof
    (default N - 1, MATLAB's ``cov``; the paper does not say, spec A17), S_p = tr Σ_pp, S_θ = Σ_θθ.
    θ is averaged arithmetically (primitive rotations are far from ±180°). Raises ValueError naming
    the first edge with fewer than 2 samples."""
    graph, rows = LimbDigraph(n_limbs), []
    unknown = sorted(set(samples_by_edge) - set(graph.edge_index))
    if unknown:
        raise ValueError(
            f'edge {unknown[0][0]}->{unknown[0][1]} is not a primitive of the '
            f'{n_limbs}-limb digraph'
        )
    for i, j in graph.edges.tolist():
        x = np.asarray(samples_by_edge.get((i, j), []), dtype=float).reshape(-1, 3)
        if len(x) < 2:
            raise ValueError(
                f'edge {i}->{j}: {len(x)} sample(s), at least 2 are needed for a covariance'
            )
        cov = np.cov(x, rowvar=False, ddof=ddof)
        rows.append([*x.mean(axis=0), cov[0, 0] + cov[1, 1], cov[2, 2]])
    return EdgeWeights(n_limbs, *np.array(rows).T)
