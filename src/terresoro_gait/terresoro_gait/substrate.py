"""Ground-truth substrates for the simulated TerreSoRo: the mean motion and noise of every
primitive (eq. 14).

The paper publishes no edge weights, so the presets are synthetic, built so that they behave like
the paper's robots: a limb that curls drags the hub towards itself, more so the more limbs stay
flat to anchor it; a limb that uncurls pushes the hub away, half as far; tendon routing gives each
curl a twist. Those rules are not symmetric between curling and uncurling, so closed sequences of
states make net progress, as the real robots do. A seeded random term per primitive stands in for
what the rules miss (manufacturing asymmetry, the tether), and the noise per primitive varies
around the preset's level. Units are the weights file's: mm, degrees, mm², deg².

Preset magnitudes follow Table IX (TerreSoRo-III, τ = 0.55 s): translation of a few mm and rotation
of a few degrees per primitive, the whiteboard slippery (more rotation, less grip), the carpet the
noisiest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from terresoro_gait.digraph import LimbDigraph, state_bits
from terresoro_gait.weights import EdgeWeights


@dataclass(frozen=True)
class SubstratePreset:
    """A substrate's rules: a curl's stride and twist, the random per-primitive offsets and the
    noise per primitive (mm, deg)."""

    stride_mm: float  # hub displacement when one limb curls against fully anchored others
    twist_deg: float  # rotation of one curl (an uncurl turns back 60 % of it)
    asymmetry_mm: float  # standard deviation of the per-primitive random mean offset
    asymmetry_deg: float
    noise_mm: float  # typical standard deviation of one primitive's translation, per axis
    noise_deg: float  # and of its rotation


PRESETS = {
    'rubber_mat': SubstratePreset(4.0, 1.5, 1.0, 1.0, 0.4, 0.4),
    'whiteboard': SubstratePreset(3.0, 3.0, 1.5, 1.5, 0.5, 0.6),
    'carpet': SubstratePreset(2.5, 1.0, 2.0, 2.0, 1.5, 1.5),
}


def substrate_weights(name: str, n_limbs: int, seed: int = 0) -> EdgeWeights:
    """The true EdgeWeights of preset ``name`` for a robot with ``n_limbs`` limbs spaced evenly
    round the hub, limb 1 along the body x axis. S_p and S_θ are the variances the simulated robot
    draws its noise from."""
    if name not in PRESETS:
        raise ValueError(f'substrate {name!r}: allowed values are {", ".join(PRESETS)}')
    preset, graph = PRESETS[name], LimbDigraph(n_limbs)
    rng = np.random.default_rng(seed)
    angles = 2 * np.pi * np.arange(n_limbs) / n_limbs
    # (n_limbs, 2) hub -> limb k
    toward = np.stack([np.cos(angles), np.sin(angles)], -1)
    rows = []
    for i, j in graph.edges.tolist():
        a, b = np.array(state_bits(i, n_limbs)), np.array(state_bits(j, n_limbs))
        p, theta = _structured_motion(preset, a, b, toward)
        noise = rng.uniform(0.6, 1.4, 2) * [preset.noise_mm, preset.noise_deg]
        rows.append(
            [
                *(p + rng.normal(0, preset.asymmetry_mm, 2)),
                theta + rng.normal(0, preset.asymmetry_deg),
                2 * noise[0] ** 2,
                noise[1] ** 2,
            ]
        )
    return EdgeWeights(n_limbs, *np.array(rows).T)


def _structured_motion(
    preset: SubstratePreset, a: np.ndarray, b: np.ndarray, toward: np.ndarray
) -> tuple[np.ndarray, float]:
    """Mean (p (2,) mm, θ deg) of the primitive from limb states a to b by the preset's rules
    (module doc)."""
    curls, uncurls = (b > a), (a > b)
    # share of limbs flat on the ground at the start
    anchors = 1.0 - a.mean()
    p = preset.stride_mm * anchors * toward[curls].sum(0)
    p -= 0.5 * preset.stride_mm * (1.0 - b.mean()) * toward[uncurls].sum(0)
    theta = preset.twist_deg * (curls.sum() - 0.6 * uncurls.sum())
    return p, float(theta)
