"""Compiles numba's kernels once, or loads them from its disk cache: ``make build`` runs this
module, so that neither the first CLI run nor the node's start-up waits for the compiler.

It sits above ``compiled``, ``dynamics``, ``integrate`` and ``presets`` (dynamics imports
compiled), so none of them imports another at call time to warm up.
"""

from __future__ import annotations

import time

import numpy as np

from tensegrity_sim.compiled import batch_of, rates_of_runs
from tensegrity_sim.dynamics import Dynamics
from tensegrity_sim.integrate import simulate
from tensegrity_sim.presets import preset


def warm_up() -> float:
    """Runs every kernel on a small prism (the fixed-step RK4 loop and the batched right-hand
    side); seconds it took."""
    start = time.perf_counter()
    p = preset('savin2020_reproduce')
    y0 = p.initial_state(36.0)
    simulate(Dynamics(p.structure), y0, 0.01)
    rates_of_runs(batch_of([p.structure]).arrays(), y0[None], np.empty_like(y0[None]))
    return time.perf_counter() - start


if __name__ == '__main__':
    print(
        f'tensegrity_sim: compiled kernels ready in {warm_up():.1f} s (cached on disk for '
        'later runs)'
    )
