"""Shared weights of the terresoro_gait kinematics/exploration/learning tests (pure numpy, no ROS).

Test modules cannot import each other (importlib mode), so shared tables are fixtures.
"""

import numpy as np
import pytest

from terresoro_gait.weights import EdgeWeights

# spec 9.3 Test A (n = 4, paper edge order 1->2, 1->3, 1->4, 2->1, ..., 4->3): p_x, p_y (mm), θ
# (deg), S_p, S_θ
TEST_A = [
    (10, 0, 2, 1, 0.1),
    (0, 3, 10, 1, 0.1),
    (-2, 0, 0, 1, 0.1),
    (-4, 0, -2, 1, 0.1),
    (6, 1, -1, 4, 0.1),
    (5, 0, 3, 1, 0.1),
    (8, -1, -1, 1, 0.1),
    (0, 0, 12, 1, 2.0),
    (0, -2, 8, 1, 0.1),
    (1, 0, 9, 1, 0.1),
    (0, 0, -4, 1, 0.1),
    (4, 0, -5, 1, 0.1),
]


@pytest.fixture(scope='session')
def test_a():
    """The spec 9.3 Test-A weights for the 2-limb robot."""
    return EdgeWeights(2, *np.array(TEST_A, dtype=float).T)


@pytest.fixture(scope='session')
def random_weights():
    """random_weights(n_limbs, seed) -> EdgeWeights with p ~ N(0, 5 mm), θ ~ N(0, 15°), variances
    in [0.1, 2]."""

    def make(n_limbs, seed):
        m = 2**n_limbs * (2**n_limbs - 1)
        rng = np.random.default_rng(seed)
        return EdgeWeights(
            n_limbs, *rng.normal(0, 5, (2, m)), rng.normal(0, 15, m), *rng.uniform(0.1, 2, (2, m))
        )

    return make
