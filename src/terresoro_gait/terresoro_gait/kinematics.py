"""Kinematics of gaits on the weighted limb-state digraph (paper section IV, costs of V-A; spec 4,
5.1, 5.2, 8).

Units at this API are the paper's: mm, degrees, S_p in mm², S_θ in deg² (as EdgeWeights). A pose is
(x_mm, y_mm, φ_deg), φ not wrapped. Arrays along a cycle follow it: edge k goes from cycle[k] to
cycle[k + 1], the last one closes it; positions are 0-based. Helpers on p (..., l, 2) and θ (...,
l) broadcast over leading axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from soro_geometry import se2
from terresoro_gait.digraph import GaitError, LimbDigraph, canonical
from terresoro_gait.weights import EdgeWeights

DEG = np.pi / 180


def _along(weights: EdgeWeights, cycle: Sequence[int], start: int | None) -> list[np.ndarray]:
    """[p (l, 2), θ (l,), S_p (l,), S_θ (l,)] along ``cycle`` begun at vertex ``start`` (None: its
    first vertex)."""
    cycle = list(cycle)
    if start is not None and start not in cycle:
        raise GaitError(f'gait {cycle}: start vertex {start} is not on it')
    at = 0 if start is None else cycle.index(start)
    k = LimbDigraph(weights.n_limbs).cycle_edges(cycle[at:] + cycle[:at])
    w = weights
    return [np.stack([w.px_mm[k], w.py_mm[k]], -1), w.theta_deg[k], w.sp_mm2[k], w.stheta_deg2[k]]


def edge_motion(
    weights: EdgeWeights, graph: LimbDigraph, cycle: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """(p (l, 2) mm, θ (l,) deg): mean motion w_k of each edge of ``cycle``, a simple cycle of
    ``graph``, in the frame of its initial vertex (eq. 14)."""
    P, theta, _, _ = weights.on(graph)
    cols = graph.cycle_edges(cycle)
    return P[:, cols].T, theta[cols]


def chain(p: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Poses g_{1,k} after each edge k = 1..l, (..., l, 3) (x mm, y mm, φ deg), in the frame of the
    first vertex: R_{1,k} = R(Σ_{i<=k} θ_i), p_{1,k} = Σ_{i<=k} R_{1,(i-1)} p_i (22)."""
    g = se2.chain(np.concatenate([p, np.radians(theta)[..., None]], -1))
    # degrees summed as given: exact
    return np.concatenate([g[..., :2], np.cumsum(theta, -1)[..., None]], -1)


def cycle_motion(
    weights: EdgeWeights, cycle: Sequence[int], start: int | None = None
) -> tuple[np.ndarray, float]:
    """g^1(L) = g_1 ⋯ g_l as (p_{1,l} (2,) mm, Θ_L deg) for ``cycle`` begun at ``start`` (default:
    its first vertex). Θ_L = Θ z does not depend on the start; p_{1,l} does unless Θ_L ≡ 0
    (Proposition 2)."""
    g = chain(*_along(weights, cycle, start)[:2])[-1]
    return g[:2], float(g[2])


def start_change(p_j: np.ndarray, p: np.ndarray, theta: np.ndarray, i: int, j: int) -> np.ndarray:
    """Proposition 1: p^i (2,) of the cycle begun at edge position i from p^j, the one begun at j;
    p (l, 2) mm and θ (l,) deg along the cycle. The segment i..j-1 wraps around when i > j (spec
    A8)."""
    seg = [(i + t) % len(theta) for t in range((j - i) % len(theta))]
    g = chain(p[seg], theta[seg])[-1] if seg else np.zeros(3)
    # (26)
    return (
        se2.rotate(np.radians(g[2]), p_j)
        + (np.eye(2) - se2.rot(np.radians(np.sum(theta)))) @ g[:2]
    )


def icr(p: np.ndarray, theta: float) -> np.ndarray | None:
    """Instantaneous centre of rotation c = (I - R(Θ))^-1 p (2,) mm in the start frame; None when Θ
    ≡ 0 (mod 360)."""
    if abs(np.sin(np.radians(theta) / 2)) < 1e-12:
        return None
    return np.linalg.solve(np.eye(2) - se2.rot(np.radians(theta)), p)


def repeat(p: np.ndarray, theta: float, k: int) -> tuple[np.ndarray, float]:
    """g(L)^k as (p_k (2,) mm, kΘ deg) for a cycle moving (p, Θ) per pass (spec 4.4):
    p_k = (I - R(Θ))^-1 (I - R(kΘ)) p = c - R(kΘ) c with c = icr(p, Θ), or k p when Θ ≡ 0."""
    c = icr(p, theta)
    p_k = k * np.asarray(p, dtype=float) if c is None else c - se2.rotate(np.radians(k * theta), c)
    return p_k, k * theta


def predicted_speeds(p, theta, length: int, tau_s: float):
    """(ν, ω) = (‖p‖, Θ) / T with period T = l τ (spec 4.4, 8), l the gait's ``length`` in
    primitives: p (..., 2) and Θ (...,) of one cycle, in mm and deg (mm/s, deg/s) or m and rad
    (m/s, rad/s); broadcasts over leading axes, e.g. over measured cycles."""
    period = length * tau_s
    return np.linalg.norm(p, axis=-1)[()] / period, np.asarray(theta, dtype=float)[()] / period


def translation_variance(p, theta, sp, stheta, sp_theta=None) -> np.ndarray:
    """s_p(z) (...,) mm² by first-order propagation of independent edge noise (spec 5.1), with q_k
    = p_{1,l} - p_{1,k}: Σ_k tr Σ_pp,k + 2 (J q_k)^T R(φ_{k-1}) Σ_pθ,k + ‖q_k‖² Σ_θθ,k. p (..., l,
    2) mm, θ (..., l) deg, sp (..., l) mm², stheta (..., l) deg², sp_theta: Σ_pθ (..., l, 2)
    mm·deg, or None for 0 (all that S_p and S_θ tell)."""
    g = chain(p, theta)
    q = g[..., -1:, :2] - g[..., :2]
    s = sp + np.sum(q**2, -1) * stheta * DEG**2
    if sp_theta is not None:
        jq = np.stack([-q[..., 1], q[..., 0]], -1)
        s = s + 2 * DEG * np.sum(jq * se2.rotate(np.radians(g[..., 2] - theta), sp_theta), -1)
    return np.sum(s, -1)


def cycle_variances(
    weights: EdgeWeights, cycle: Sequence[int], start: int | None = None
) -> tuple[float, float]:
    """(s_p mm², s_θ deg²) of one pass of ``cycle`` with Σ_pθ = 0; s_θ = S_θ z is exact as
    rotations add."""
    p, theta, sp, stheta = _along(weights, cycle, start)
    return float(translation_variance(p, theta, sp, stheta)), float(np.sum(stheta))


def nonlinear_costs(
    weights: EdgeWeights,
    cycle: Sequence[int],
    lam_t: float = -1.0,
    lam_theta: float = -1.0,
    start: int | None = None,
) -> tuple[float, float]:
    """(J_t,nl, J_θ,nl) of eq. (27), to be maximised. The paper's λ = 1 rewards variance; spec A9
    reads the term as a penalty, hence λ = -1 by default. Units mix as in the paper: mm with mm²,
    deg with deg²."""
    p, theta = cycle_motion(weights, cycle, start)
    s_p, s_theta = cycle_variances(weights, cycle, start)
    length = len(cycle)  # the paper's l
    # (27)
    return (
        float(np.linalg.norm(p) + lam_t * s_p) / length,
        (abs(theta) + lam_theta * s_theta) / length,
    )


def simple_cycles(graph: LimbDigraph) -> list[tuple[int, ...]]:
    """Every simple cycle of ``graph`` (Johnson's algorithm [43] in networkx), canonical, sorted by
    (length, vertices): 20 for n = 4, 16 064 for n = 8 (the paper's n_z formula also counts n
    self-loops, spec A11). Refuses n > 8: n = 16 has about 3.8e12 cycles (spec 5.2)."""
    if graph.n > 8:
        raise ValueError(
            f'{graph.n} vertices: exhaustive cycle enumeration is intractable above 8 (spec 5.2)'
        )
    import networkx as nx  # here: the nodes that only predict motion start 0.2 s sooner

    g = nx.DiGraph([tuple(e) for e in graph.edges.tolist()])
    return sorted((canonical(c) for c in nx.simple_cycles(g)), key=lambda c: (len(c), c))


@dataclass(frozen=True)
class CycleTable:
    """Every simple cycle of a graph (N rows), its motion from its listed (smallest) vertex and its
    eq. (27) costs."""

    cycles: list[tuple[int, ...]]
    length: np.ndarray  # (N,) l = z^T z
    p_mm: np.ndarray  # (N, 2) p_{1,l}
    theta_deg: np.ndarray  # (N,) Θ z
    sp_mm2: np.ndarray  # (N,) s_p(z)
    stheta_deg2: np.ndarray  # (N,) s_θ(z)
    j_t: np.ndarray  # (N,) J_t,nl
    j_theta: np.ndarray  # (N,) J_θ,nl


def evaluate_all(
    weights: EdgeWeights, graph: LimbDigraph, lam_t: float = -1.0, lam_theta: float = -1.0
) -> CycleTable:
    """Exhaustive evaluation of (27) over all simple cycles of ``graph`` (VII-A5), e.g. for Pareto
    plots of J_t,nl vs 1/J_θ,nl and J_θ,nl vs 1/J_t,nl. Cycles are padded to n edges with a
    motionless, noiseless column m."""
    cycles = simple_cycles(graph)
    cols = np.full((len(cycles), graph.n), graph.m)
    for r, c in enumerate(cycles):
        cols[r, : len(c)] = [graph.edge_index[e] for e in zip(c, c[1:] + c[:1])]
    P, theta, sp, stheta = (
        np.concatenate([a, np.zeros(a.shape[:-1] + (1,))], -1) for a in weights.on(graph)
    )
    p, theta, sp, stheta = P.T[cols], theta[cols], sp[cols], stheta[cols]
    g, length = chain(p, theta)[:, -1], np.array([len(c) for c in cycles])
    s_p, s_theta = translation_variance(p, theta, sp, stheta), np.sum(stheta, -1)
    return CycleTable(
        cycles,
        length,
        g[:, :2],
        g[:, 2],
        s_p,
        s_theta,
        (np.linalg.norm(g[:, :2], axis=1) + lam_t * s_p) / length,  # (27)
        (np.abs(g[:, 2]) + lam_theta * s_theta) / length,
    )


def odometry(
    weights: EdgeWeights,
    edges: Sequence[tuple[int, int]],
    start_pose=(0.0, 0.0, 0.0),
    start_cov=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Open-loop odometry (spec 8): poses (K, 3) and covariances (K, 3, 3) (mm, deg) after each
    executed primitive (i, j), composing its mean g_k onto ``start_pose`` (x mm, y mm, φ deg;
    covariance ``start_cov``, default 0). First order (spec 5.1); the edge's Σ_pp is taken as S_p/2
    I (only its trace is learned) and Σ_pθ = 0. An executor steps it one primitive at a time by
    passing back the last pose and covariance."""
    index, w = LimbDigraph(weights.n_limbs).edge_index, weights
    pose = np.asarray(start_pose, dtype=float)
    cov = np.zeros((3, 3)) if start_cov is None else np.asarray(start_cov, dtype=float)
    poses, covs = [], []
    for i, j in edges:
        k = index.get((int(i), int(j)))
        if k is None:
            raise GaitError(f'{i}->{j} is not a primitive of the {w.n_limbs}-limb digraph')
        step = se2.rotate(np.radians(pose[2]), (w.px_mm[k], w.py_mm[k]))
        f, g = np.eye(3), np.eye(3)
        f[:2, 2] = DEG * np.array([-step[1], step[0]])  # ∂(x, y)/∂φ in mm/deg
        g[:2, :2] = se2.rot(np.radians(pose[2]))
        # g_{k} = g_{k-1} (R(θ_k), p_k)
        pose = np.append(pose[:2] + step, pose[2] + w.theta_deg[k])
        cov = (
            f @ cov @ f.T + g @ np.diag([w.sp_mm2[k] / 2, w.sp_mm2[k] / 2, w.stheta_deg2[k]]) @ g.T
        )
        poses.append(pose)
        covs.append(cov)
    return np.array(poses).reshape(-1, 3), np.array(covs).reshape(-1, 3, 3)
