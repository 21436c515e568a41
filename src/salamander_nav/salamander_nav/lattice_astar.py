"""Lattice A* for the salamander (thesis §3.4.1, Figs. 3.24-3.25; spec B5.1, D-M13, D-M14). No ROS.

States (x, y, ψ, κ) are made during the search. From a state at curvature κ_i the lattice is the precomputed set of
Euler-spiral pieces of one length ℓ to every curvature level κ_j (σ = (κ_j − κ_i)/ℓ; j = i is the arc), so the
curvature is continuous at every node and |κ| ≤ κ_max along every primitive (the model of §3.3.2). Every movement
costs ℓ (the thesis: "the same cost"; D-M14: the arc length, so the Euclidean heuristic stays admissible), a
primitive that passes closer than the clearance to an obstacle is pruned (infinite cost), duplicates are caught by
a closed set on (x, y, ψ, κ) cells, and the search ends within the goal tolerance of the goal's position: the
thesis's planner gives no end-heading guarantee. Budgets on expansions and time end it with the reason and the best
partial path (the expanded state nearest the goal). The thesis gives none of ℓ, the levels, the cells or the
tolerance (D-M13); the defaults are spec B5.1's reading. ``heuristic_weight`` above 1 makes it weighted A*
(paths at most that factor longer than the lattice's shortest, for far fewer expansions among obstacles); the
default 1 is the thesis's planner.
"""
from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, fields

import numpy as np

from salamander_nav import planning
from salamander_nav.euler_spiral import Piece
from salamander_nav.maps import DistanceField
from salamander_nav.origami import KAPPA_MAX


@dataclass(frozen=True)
class LatticeSettings:
    """Lengths in m, curvature in 1/m, time in s."""
    primitive_length_m: float = 0.074   # ℓ = 0.5 BL
    curvature_levels: int = 5           # −κ_max … κ_max, evenly (0 included when odd)
    kappa_max: float = KAPPA_MAX
    cell_m: float = 0.01                # closed-set cell in x and y
    heading_bins: int = 32
    goal_tolerance_m: float = 0.037     # 0.25 BL
    clearance_m: float = 0.04           # half the robot's width
    sample_spacing_m: float = 0.005     # collision checks along a primitive
    max_expansions: int = 500_000
    max_time_s: float = 10.0
    heuristic_weight: float = 1.0       # w > 1: weighted A*, paths at most w times the shortest, far fewer expansions

    def __post_init__(self):
        limits = {'primitive_length_m': (1e-3, 10.0), 'curvature_levels': (1, 101), 'kappa_max': (1e-3, 1e4),
                  'cell_m': (1e-4, 10.0), 'heading_bins': (4, 3600), 'goal_tolerance_m': (1e-4, 100.0),
                  'clearance_m': (0.0, 10.0), 'sample_spacing_m': (1e-4, 1.0), 'max_expansions': (1, 10**9),
                  'max_time_s': (1e-3, 1e5), 'heuristic_weight': (1.0, 10.0)}
        for f in fields(self):
            value, (low, high) = getattr(self, f.name), limits[f.name]
            if not (math.isfinite(value) and low <= value <= high):
                raise ValueError(f'LatticeSettings.{f.name} = {value}: allowed [{low}, {high}]')


class PrimitiveSet:
    """For each start level i: ``ends[i]`` (L, 3) of (dx, dy, dψ) and ``samples[i]`` (L, k, 2) in the start frame,
    ``targets[i]`` (L,) end levels."""

    def __init__(self, settings: LatticeSettings):
        self.settings = s = settings
        self.kappas = np.linspace(-s.kappa_max, s.kappa_max, s.curvature_levels) if s.curvature_levels > 1 \
            else np.zeros(1)
        count = max(1, math.ceil(s.primitive_length_m / s.sample_spacing_m))
        along = np.linspace(0.0, s.primitive_length_m, count + 1)[1:]
        self.ends, self.samples, self.targets, self.pieces = [], [], [], []
        for kappa in self.kappas:
            pieces = [Piece(0.0, 0.0, 0.0, float(kappa), float((k2 - kappa) / s.primitive_length_m),
                            s.primitive_length_m) for k2 in self.kappas]
            states = np.array([p.sample(along) for p in pieces])                 # (L, k, 4)
            self.pieces.append(pieces)
            self.samples.append(states[:, :, :2])
            self.ends.append(states[:, -1, :3])
            self.targets.append(np.arange(len(self.kappas)))

    def __len__(self) -> int:
        return sum(len(t) for t in self.targets)


def plan(field: DistanceField, start, goal, settings: LatticeSettings = LatticeSettings(),
         primitives: PrimitiveSet | None = None) -> planning.Plan:
    """A path from ``start`` (x m, y m, ψ rad; it leaves at that heading, straight) toward ``goal``'s position."""
    began = time.perf_counter()
    start, goal = np.asarray(start, dtype=float), np.asarray(goal, dtype=float)
    refusal = _refusal(field, start, goal, settings)
    if refusal:
        return planning.Plan(False, refusal, np.zeros((0, 2)), 'lattice_astar', 0, 'expansions',
                             time.perf_counter() - began)
    primitives = primitives or PrimitiveSet(settings)
    search = _Search(field, start, goal, settings, primitives)
    end, why = search.run(began)
    path = search.path_to(end)
    details = {'expansions': search.expansions, 'states_stored': len(search.parent), 'peak_open': search.peak_open,
               'best_distance_m': float(math.dist(path[-1], goal[:2])), 'primitives': len(primitives),
               'final_heading_error_deg': math.degrees(abs(float(planning.heading_errors(path, start, goal)[1])))}
    if why:
        return planning.Plan(False, why + f'; best partial path ends {details["best_distance_m"] * 1e3:.0f} mm '
                             'from the goal', path, 'lattice_astar', search.expansions, 'expansions',
                             time.perf_counter() - began, details)
    found = planning.problems(path, field, settings.kappa_max, settings.clearance_m, start, goal,
                              settings.goal_tolerance_m, heading_tolerance_rad=None)
    reason = '; '.join(found) if found else f'reached the goal within {settings.goal_tolerance_m * 1e3:.0f} mm ' \
        f'({details["final_heading_error_deg"]:.0f}° off its heading: lattice A* gives no heading guarantee)'
    return planning.Plan(not found, reason, path, 'lattice_astar', search.expansions, 'expansions',
                         time.perf_counter() - began, details)


def _refusal(field, start, goal, settings) -> str | None:
    if start.shape != (3,) or goal.shape[0] < 2 or not (np.all(np.isfinite(start)) and np.all(np.isfinite(goal))):
        return f'start {start.tolist()} and goal {goal.tolist()} must be finite (x, y, heading)'
    for name, point in (('start', start[:2]), ('goal', goal[:2])):
        d = float(field.distance_at(point))
        if d < settings.clearance_m:
            where = 'inside an obstacle' if d < 0 else f'{d * 1e3:.0f} mm from an obstacle'
            return f'{name} ({point[0]:.3f}, {point[1]:.3f}) is {where} (needs {settings.clearance_m * 1e3:.0f} mm)'
    return None


class _Search:
    def __init__(self, field, start, goal, settings, primitives):
        self.field, self.goal, self.s, self.p = field, goal[:2], settings, primitives
        zero = int(np.argmin(np.abs(primitives.kappas)))
        self.states = [(float(start[0]), float(start[1]), float(start[2]), zero)]
        self.parent, self.via = [-1], [-1]
        self.expansions, self.peak_open = 0, 1
        self._bin = settings.heading_bins / (2 * math.pi)
        # cells a sample may lie in: with the margin that the path between two samples can lose (half the
        # spacing, and a cell's rounding), so the independent check along the whole path agrees
        margin = 0.5 * settings.sample_spacing_m + field.resolution
        self._free = field.distance >= settings.clearance_m + margin

    def key(self, x, y, psi, level) -> tuple:
        s = self.s
        return round(x / s.cell_m), round(y / s.cell_m), round(psi * self._bin) % s.heading_bins, level

    def heuristic(self, x, y) -> float:
        h = math.hypot(x - self.goal[0], y - self.goal[1]) - self.s.goal_tolerance_m
        return self.s.heuristic_weight * max(0.0, h)

    def run(self, began: float) -> tuple[int, str]:
        """(index of the state the path ends at, '' when at the goal or the reason it stopped)."""
        s, ell = self.s, self.s.primitive_length_m
        x, y, psi, level = self.states[0]
        open_heap = [(self.heuristic(x, y), 0.0, 0)]          # (f, −g for deeper-first ties, state)
        best_g, closed, best = {self.key(*self.states[0]): 0.0}, set(), (math.inf, 0)
        while open_heap:
            _, neg_g, index = heapq.heappop(open_heap)
            x, y, psi, level = self.states[index]
            key = self.key(x, y, psi, level)
            if key in closed:
                continue
            closed.add(key)
            self.expansions += 1
            distance = math.hypot(x - self.goal[0], y - self.goal[1])
            best = min(best, (distance, index))
            if distance <= s.goal_tolerance_m:
                return index, ''
            if self.expansions >= s.max_expansions:
                return best[1], f'budget of {s.max_expansions} expansions exhausted'
            if self.expansions % 256 == 0 and time.perf_counter() - began > s.max_time_s:
                return best[1], f'time budget of {s.max_time_s:g} s exhausted after {self.expansions} expansions'
            g = ell - neg_g
            for j, (nx, ny, npsi) in self._successors(x, y, psi, level):
                nkey = self.key(nx, ny, npsi, j)
                if nkey in closed or best_g.get(nkey, math.inf) <= g:
                    continue
                best_g[nkey] = g
                self.states.append((nx, ny, npsi, j))
                self.parent.append(index)
                self.via.append(level * len(self.p.kappas) + j)
                heapq.heappush(open_heap, (g + self.heuristic(nx, ny), -g, len(self.states) - 1))
            self.peak_open = max(self.peak_open, len(open_heap))
        return best[1], f'no path: every reachable lattice state ({self.expansions}) explored'

    def _successors(self, x, y, psi, level):
        """(end level, end pose) of each collision-free primitive from the state."""
        c, s = math.cos(psi), math.sin(psi)
        samples = self.p.samples[level]
        px = x + c * samples[..., 0] - s * samples[..., 1]
        py = y + s * samples[..., 0] + c * samples[..., 1]
        col = ((px - self.field.origin[0]) / self.field.resolution).astype(np.int64)
        row = ((py - self.field.origin[1]) / self.field.resolution).astype(np.int64)
        inside = (col >= 0) & (row >= 0) & (col < self._free.shape[1]) & (row < self._free.shape[0]) & \
            (px >= self.field.origin[0]) & (py >= self.field.origin[1])
        ok = inside.copy()
        ok[inside] = self._free[row[inside], col[inside]]
        clear = ok.all(axis=1)
        ends = self.p.ends[level]
        for j in np.flatnonzero(clear):
            dx, dy, dpsi = ends[j]
            yield int(j), (x + c * dx - s * dy, y + s * dx + c * dy, psi + dpsi)

    def path_to(self, index: int) -> np.ndarray:
        """The dense path (start, then every primitive's samples) from the start to state ``index``."""
        chain = []
        while index > 0:
            chain.append(index)
            index = self.parent[index]
        points = [np.array(self.states[0][:2])[None]]
        n = len(self.p.kappas)
        for i in reversed(chain):
            x, y, psi, _ = self.states[self.parent[i]]
            samples = self.p.samples[self.via[i] // n][self.via[i] % n]
            c, s = math.cos(psi), math.sin(psi)
            points.append(np.column_stack([x + c * samples[:, 0] - s * samples[:, 1],
                                           y + s * samples[:, 0] + c * samples[:, 1]]))
        return np.vstack(points)

