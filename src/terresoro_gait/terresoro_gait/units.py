"""SI at the ROS edge, the paper's units inside (DESIGN: SI on every topic; the weights file and
the synthesis hyperparameters are in mm and degrees, issue 5). Poses: (x m, y m, yaw rad) <-> (x
mm, y mm, φ deg)."""

from __future__ import annotations

import math

import numpy as np

from terresoro_gait.objective import Objective

MM_PER_M = 1000.0
DEG_PER_RAD = 180.0 / math.pi


def pose_to_paper(x_m: float, y_m: float, yaw_rad: float) -> np.ndarray:
    """(x mm, y mm, φ deg) (3,) of an SI pose (x m, y m, yaw rad)."""
    return np.array([x_m * MM_PER_M, y_m * MM_PER_M, yaw_rad * DEG_PER_RAD])


def pose_to_si(pose) -> tuple[float, float, float]:
    """(x m, y m, yaw rad) of a paper-units pose (x mm, y mm, φ deg)."""
    return pose[0] / MM_PER_M, pose[1] / MM_PER_M, math.radians(pose[2])


def covariance_to_si(cov) -> np.ndarray:
    """A (3, 3) pose covariance in mm², mm·deg, deg² as m², m·rad, rad²."""
    scale = np.array([1 / MM_PER_M, 1 / MM_PER_M, 1 / DEG_PER_RAD])
    return np.asarray(cov) * np.outer(scale, scale)


def cost_scale(goal: str) -> float:
    """Paper-units cost per SI cost: mm per m (translation goals), degrees per radian (rotation
    goals)."""
    return MM_PER_M if goal == 'translation' else DEG_PER_RAD


def objective_from_si(goal: str, alpha, beta: float, gamma: float, eps: float) -> Objective:
    """The Objective in paper units whose cost is cost_scale(goal) times the SI one, J = α·(Pz) + β
    Sz + γ 1ᵀz: motion and γ scale by k, variances by k², so β by 1/k; ε is ε_θ (rad -> deg) or ε_t
    (m -> mm)."""
    # checked here in the service's own terms: past this point they are the paper's (deg, mm)
    if not all(-1.0 <= a <= 1.0 for a in alpha):
        raise ValueError(f'alpha = {[float(a) for a in alpha]}: each value in [-1, 1]')
    if not (math.isfinite(eps) and eps >= 0):
        unit = 'rad' if goal == 'translation' else 'm'
        raise ValueError(f'eps = {eps!r} {unit}: must be finite and >= 0')
    k = cost_scale(goal)
    eps_paper = eps * (DEG_PER_RAD if goal == 'translation' else MM_PER_M)
    return Objective(goal, tuple(float(a) for a in alpha), beta / k, gamma * k, eps_paper)
