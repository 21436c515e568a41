"""CHOMP for the salamander (thesis §3.4.2, Algorithm 1; spec B5.2, D-M15, D-M16): a smooth path
between fixed end points that keeps clear of obstacles, bends no more than κ_max and leaves and
arrives at the requested headings. No ROS.

Each iteration (Algorithm 1): the orientation correction v_ori, virtual obstacles on over-curved
points, the obstacle and smoothness costs U = F_obs + λ F_smooth with λ growing (first clear the
obstacles, then smooth), the best path kept, and the update ξ ← ξ − (1/η) A⁻¹ ∇U + α_const A⁻¹
v_ori. Deviations, each because the thesis gives no value: η is the larger of ``eta`` and what
keeps every point's step under ``max_step_m`` (a trust region, so one setting serves every scene's
scale); A⁻¹ gives the orientation step its smooth shape, and the most corrected point moves α_const
of its correction. When U has improved by less than 0.1 % over 10 iterations and the path is still
infeasible, the search restarts from a random minor arc (Fig. 3.28). "Best" prefers a feasible path
to any infeasible one and then the lower U; the returned path passes ``paths.problems`` or is
reported as failed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields

import numpy as np
from scipy.linalg import cho_solve_banded, cholesky_banded

from salamander_nav.distance_field import DistanceField
from salamander_nav.origami import KAPPA_MAX
from salamander_nav.planning import paths
from salamander_nav.planning.chomp_costs import (
    full,
    minor_arc,
    obstacle_term,
    orientation_correction,
    smoothness,
    virtual_obstacles,
)

PLANNER, EFFORT = 'chomp', 'iterations'
STAGNANT_WINDOW, STAGNANT_GAIN = 10, 1e-3  # spec D-M15's reading of "a possible local optimum"


@dataclass(frozen=True)
class ChompSettings(paths.KeepsClearance):
    """Spec B5.2's suggested defaults. Lengths in m, curvature in 1/m."""

    n_points: int = 100  # free points between the two fixed ends
    epsilon_m: float = 0.075  # obstacle influence ε (0.5 BL)
    lambda0: float = 0.02  # smoothness weight at the first iteration
    lambda_growth: float = 1.05  # λ_k = λ0 · growth^k, non-decreasing (PL-02)
    eta: float = 1.0  # step scale 1/η (before the trust region)
    max_step_m: float = 0.03  # no point moves further in one iteration
    alpha_const: float = 0.5  # share of the orientation correction taken per iteration
    # m: free points at each end under the orientation constraint (10 % of n)
    orientation_points: int = 10
    max_iterations: int = 60  # per attempt: the thesis's experiment took 60
    max_restarts: int = 5
    # end an attempt once it is feasible and U stagnates (False: every iteration)
    converged_stop: bool = True
    seed: int = 0
    # least distance from the path to an obstacle (half the robot's width)
    clearance_m: float = paths.HALF_WIDTH_M
    kappa_max: float = KAPPA_MAX
    heading_tolerance_rad: float = paths.HEADING_TOLERANCE_RAD
    # kept beyond the half-width (paths.SAFETY_MARGIN_M)
    safety_margin_m: float = paths.SAFETY_MARGIN_M

    def __post_init__(self):
        """ValueError naming the first setting outside its allowed range."""
        limits = {
            'n_points': (5, 2000),
            'epsilon_m': (1e-4, 10.0),
            'lambda0': (0.0, 1e6),
            'lambda_growth': (1.0, 2.0),
            'eta': (1e-9, 1e9),
            'max_step_m': (1e-5, 10.0),
            'alpha_const': (0.0, 1.0),
            'orientation_points': (1, 1000),
            'max_iterations': (1, 100_000),
            'max_restarts': (0, 1000),
            'seed': (0, 2**63),
            'clearance_m': (0.0, 10.0),
            'kappa_max': (1e-3, 1e4),
            'heading_tolerance_rad': (0.0, math.pi),
            'safety_margin_m': (0.0, 1.0),
        }
        for f in fields(self):
            if f.name == 'converged_stop':
                continue
            value, (low, high) = getattr(self, f.name), limits[f.name]
            if not (math.isfinite(value) and low <= value <= high):
                raise ValueError(f'ChompSettings.{f.name} = {value}: allowed [{low}, {high}]')


# at κ_max a segment turns at most this (rad): the discrete curvature then sees the turn
TURN_PER_SEGMENT_RAD = 0.25
MIN_POINTS, MAX_POINTS = 20, 1000


def points_for(start, goal, kappa_max: float, length_m: float | None = None) -> int:
    """How many free points a path from ``start`` to ``goal`` needs (issue 28: CHOMP was fixed at
    100 whatever the distance): one every TURN_PER_SEGMENT_RAD / κ_max (20 mm at 12.52 1/m) of
    ``length_m`` (None: the straight distance), within [MIN_POINTS, MAX_POINTS]."""
    spacing = TURN_PER_SEGMENT_RAD / kappa_max
    length = math.dist(start[:2], goal[:2]) if length_m is None else length_m
    return max(MIN_POINTS, min(MAX_POINTS, math.ceil(length / spacing)))


def metric_factor(n: int) -> np.ndarray:
    """The banded Cholesky factor of the metric A Δt² = tridiag(−1, 2, −1) (n × n), for
    ``cho_solve``: O(n) (the dense factor took 4 s and each solve 33 ms at 631 points)."""
    bands = np.zeros((2, n))
    bands[0, 1:], bands[1] = -1.0, 2.0  # superdiagonal, diagonal (upper form)
    return cholesky_banded(bands)


def cho_solve(factor: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """A⁻¹ rhs (n, k) for the metric whose ``metric_factor`` is ``factor``."""
    return cho_solve_banded((factor, False), rhs)


def resampled(path, n: int) -> np.ndarray:
    """n points (n, 2) evenly spaced by arc length strictly between the ends of ``path`` (M, 2):
    a first guess for the free points from another planner's path."""
    path = np.asarray(path, dtype=float)
    along = np.r_[0.0, np.cumsum(np.hypot(*np.diff(path, axis=0).T))]
    at = along[-1] * np.arange(1, n + 1) / (n + 1)
    return np.column_stack([np.interp(at, along, path[:, k]) for k in range(2)])


def plan(
    field: DistanceField, start, goal, settings: ChompSettings = ChompSettings(), initial=None
) -> paths.Plan:
    """A path (n + 2, 2) from ``start`` to ``goal`` (x m, y m, ψ rad) by CHOMP, checked; ``effort``
    counts every iteration over all attempts. The first attempt starts from ``initial`` (a path
    (M, 2) from start to goal, e.g. lattice A*'s, resampled) when given, else the straight line."""
    began = time.perf_counter()
    start, goal = np.asarray(start, dtype=float), np.asarray(goal, dtype=float)
    refusal = _refusal(field, start, goal, settings)
    if refusal:
        return paths.Plan(
            False, refusal, np.zeros((0, 2)), PLANNER, 0, EFFORT, time.perf_counter() - began
        )
    search = _Search(field, start, goal, settings, initial)
    path, details = search.run()
    found = paths.problems(
        path,
        field,
        settings.kappa_max,
        settings.required_m,
        start,
        goal,
        heading_tolerance_rad=settings.heading_tolerance_rad,
    )
    reason = (
        '; '.join(found)
        if found
        else f'collision-free, κ ≤ {settings.kappa_max:.2f} 1/m, end headings within '
        f'{math.degrees(settings.heading_tolerance_rad):.0f}°'
    )
    return paths.Plan(
        not found,
        reason,
        path,
        PLANNER,
        search.iterations,
        EFFORT,
        time.perf_counter() - began,
        details,
    )


def _refusal(field, start, goal, settings) -> str | None:
    if (
        start.shape != (3,)
        or goal.shape != (3,)
        or not (np.all(np.isfinite(start)) and np.all(np.isfinite(goal)))
    ):
        return f'start {start.tolist()} and goal {goal.tolist()} must be finite (x, y, heading)'
    if math.dist(start[:2], goal[:2]) < 1e-6:
        return 'start and goal are the same point'
    return paths.ends_problem(field, start, goal, settings.required_m)


class _Search:
    """Algorithm 1 with restarts; keeps the best path seen."""

    def __init__(self, field, start, goal, settings: ChompSettings, initial=None):
        self.field, self.start, self.goal, self.s = field, start, goal, settings
        self.initial = initial
        n = settings.n_points
        self.q0, self.q_end = start[:2], goal[:2]
        self.metric = metric_factor(n)
        self.rng = np.random.default_rng(settings.seed)
        self.iterations, self.restarts, self.history = 0, 0, []
        self.best, self.best_key = None, (True, math.inf)

    def run(self) -> tuple[np.ndarray, dict]:
        n = self.s.n_points
        xi = self.q0 + (self.q_end - self.q0) * (np.arange(1, n + 1) / (n + 1))[:, None]
        if self.initial is not None:
            xi = resampled(self.initial, n)
        side, strata = (
            self.rng.choice([-1.0, 1.0]),
            np.linspace(0.1, 0.95, self.s.max_restarts + 1),
        )
        for attempt in range(self.s.max_restarts + 1):
            if attempt:
                # random arcs, but each restart on the other side and bulging more than the last: a
                # handful of restarts then covers both sides and every size instead of repeating
                # the flattest arcs
                self.restarts += 1
                xi = minor_arc(
                    self.q0, self.q_end, n, self.rng, strata[attempt - 1 : attempt + 1], side
                )
                side = -side
            if self._descend(xi):
                break
        path = full(self.best, self.q0, self.q_end)
        errors = paths.heading_errors(path, self.start, self.goal)
        return path, {
            'restarts': self.restarts,
            'best_cost': self.best_key[1],
            'min_clearance_m': paths.least_clearance(self.field, path)[0],
            'start_heading_error_deg': math.degrees(errors[0]),
            'goal_heading_error_deg': math.degrees(errors[1]),
        }

    def _descend(self, xi: np.ndarray) -> bool:
        """Iterate from ``xi``; True when it converged on a feasible path (no restart needed)."""
        s, costs = self.s, []
        for k in range(s.max_iterations):
            self.iterations += 1
            lam = s.lambda0 * s.lambda_growth**k
            path = full(xi, self.q0, self.q_end)
            v_ori = orientation_correction(
                xi, self.q0, self.q_end, self.start[2], self.goal[2], s.orientation_points
            )
            virtual = virtual_obstacles(path, s.kappa_max)
            f_obs, g_obs = obstacle_term(
                xi, self.q0, self.q_end, self.field, virtual, s.epsilon_m, s.required_m
            )
            f_smooth, g_smooth = smoothness(xi, self.q0, self.q_end)
            cost = f_obs + lam * f_smooth
            costs.append((f_obs, f_smooth))
            feasible = self._feasible(path)
            self._keep(xi, feasible, cost)
            step = cho_solve(self.metric, g_obs + lam * g_smooth)
            largest = float(np.hypot(*step.T).max())
            scale = 1.0 / max(s.eta, largest / s.max_step_m) if largest > 0 else 0.0
            xi = xi - scale * step + self._orientation_step(v_ori)
            stagnant = (
                len(costs) > STAGNANT_WINDOW
                and _gain(costs[-STAGNANT_WINDOW - 1], cost, lam) < STAGNANT_GAIN
            )
            if stagnant and (s.converged_stop or not feasible):
                return feasible
        return self.best_key[0] is False

    def _orientation_step(self, v_ori: np.ndarray) -> np.ndarray:
        """α_const A⁻¹ v_ori, scaled so that the most corrected point moves α_const of its
        correction: A⁻¹ gives the projection its smooth shape over the path, the correction its
        size."""
        sizes = np.hypot(*v_ori.T)
        worst = int(np.argmax(sizes))
        if sizes[worst] == 0:
            return np.zeros_like(v_ori)
        shape = cho_solve(self.metric, v_ori)
        return shape * (
            self.s.alpha_const * sizes[worst] / max(float(np.hypot(*shape[worst])), 1e-12)
        )

    def _feasible(self, path: np.ndarray) -> bool:
        """The per-iteration check: ``paths.problems``' clearance (the same check lattice A*
        makes), curvature, end headings."""
        if paths.least_clearance(self.field, path)[0] < self.s.required_m:
            return False
        if np.abs(paths.curvatures(path)).max() > self.s.kappa_max:
            return False
        errors = paths.heading_errors(path, self.start, self.goal)
        return max(errors) <= self.s.heading_tolerance_rad

    def _keep(self, xi, feasible: bool, cost: float) -> None:
        key = (not feasible, cost)
        if key < self.best_key:
            self.best, self.best_key = xi.copy(), key
        self.history.append(self.best_key)


def _gain(then: tuple[float, float], cost: float, lam: float) -> float:
    """Relative improvement of U since ``then`` (F_obs, F_smooth), both weighed with today's λ: λ's
    growth alone must not read as getting worse."""
    before = then[0] + lam * then[1]
    return (before - cost) / max(abs(cost), 1e-12)
