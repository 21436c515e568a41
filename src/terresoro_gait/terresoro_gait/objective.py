"""What a synthesized gait minimises (paper eqs. 28-29), checked on construction. Kept apart from
the solvers so that the nodes converting units (``terresoro_gait.units``) start without scipy's
optimisers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GOALS = ('translation', 'rotation')
# |α|, β and γ beyond this only rescale a cost whose coefficients the solvers no longer resolve
# (HiGHS takes 1e20 for infinity and stops "status unknown" far below it)
MAX_COEFFICIENT = 1e6


@dataclass(frozen=True)
class Objective:
    """What to minimise, in the weights' units: alpha (2,) for translation (mm⁻¹) or (1,) for
    rotation (deg⁻¹); beta penalises variance, gamma length (per primitive); eps is ε_θ (deg) or
    ε_t (mm)."""

    goal: str
    alpha: tuple[float, ...]
    beta: float = 0.0
    gamma: float = 0.0
    eps: float = 1.0

    def __post_init__(self):
        if self.goal not in GOALS:
            raise ValueError(f'goal = {self.goal!r}: allowed values are {", ".join(GOALS)}')
        size = 2 if self.goal == 'translation' else 1
        if len(self.alpha) != size:
            raise ValueError(
                f'alpha: a {self.goal} goal takes {size} value(s), got {len(self.alpha)}'
            )
        if not np.isfinite(self.alpha).all():
            raise ValueError(f'alpha = {list(self.alpha)}: must be finite')
        if np.max(np.abs(self.alpha)) > MAX_COEFFICIENT:
            raise ValueError(f'alpha = {list(self.alpha)}: each within ±{MAX_COEFFICIENT:g}')
        # penalties: a negative one rewards
        for name, value in (('beta', self.beta), ('gamma', self.gamma)):
            if not (np.isfinite(value) and 0 <= value <= MAX_COEFFICIENT):
                raise ValueError(
                    f'{name} = {value!r}: must be finite and in [0, {MAX_COEFFICIENT:g}]'
                )
        if not (np.isfinite(self.eps) and self.eps >= 0):
            raise ValueError(f'eps = {self.eps!r}: must be finite and >= 0')
