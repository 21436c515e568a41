"""Lattice A* for the salamander (thesis §3.4.1, Figs. 3.24-3.25; spec B5.1, PL-06, D-M13, D-M14).
No ROS.

States (x, y, ψ, κ-level) are created during the search: from a state the lattice is the
precomputed set of Euler-spiral primitives of one length ℓ (``lattice_primitives``), so curvature
is continuous at every node and |κ| ≤ κ_max everywhere. Every movement costs the same, ℓ (the
thesis; D-M14 reads it as the arc length so that the Euclidean heuristic stays admissible); a
primitive any sample of which comes closer than the clearance to an obstacle is pruned (the
thesis's infinite cost); duplicates are caught by a closed set on (x, y, ψ, κ) cells; the search
ends when a state lies within the goal tolerance of the goal's position (the thesis's A* gives no
end-heading guarantee; here, for a goal with a heading, an Euler-spiral connection from one of the
last states reaches the exact goal pose when one is clear, ``connection``, and the error is
reported otherwise). The thesis gives none of ℓ, the levels, the
cells or the tolerance (D-M13): the defaults are spec B5.1's reading.

What it does not guarantee: the shortest path. States are continuous and the closed set merges
those that fall in one (x, y, ψ, κ) cell, keeping the first one reached, so A* is exact only on the
graph that merging leaves, and the path can be longer than the lattice's shortest (which is itself
not the shortest drivable path). Deviations from the thesis:
- costs are counted in primitives (g integer, cost g·ℓ); the heuristic is a lower bound on the
  distance left beyond the goal tolerance in whole primitives, ceil((d − tol)/ℓ), with d the larger
  of the Euclidean distance and the flood distance round obstacles (``flood``, issue 28: the
  Euclidean one alone let A* fill every pocket facing the goal; ``obstacle_heuristic`` False keeps
  the thesis's); a primitive moves at most ℓ, so it stays admissible;
- ties in f go to the deeper state, then to the one nearer the goal; the goal test is made when a
  state is generated;
- collisions are ``paths.clear``, the check CHOMP and ``paths.problems`` make: every sample of a
  primitive (at most half a cell apart) keeps the required clearance (half-width and safety margin)
  on the continuous field, plus what the field can lose between samples (under 0.36 cell), so a
  9 cm gap on a 1 cm grid is a passage with no safety margin (the former boolean grid added 16.6 mm
  a side and refused gaps up to 12 cm).
``heuristic_weight`` above 1 makes it weighted A* (paths at most that factor longer); 1, the
default, is the thesis's.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, fields, replace

import numpy as np

from salamander_nav.distance_field import DistanceField
from salamander_nav.origami import BODY_LENGTH_M, KAPPA_MAX
from salamander_nav.planning import connection, paths
from salamander_nav.planning.flood import FloodHeuristic
from salamander_nav.planning.lattice_primitives import PrimitiveSet, curvature_levels

__all__ = ['LatticeSettings', 'PrimitiveSet', 'curvature_levels', 'plan']

PLANNER, EFFORT = 'lattice_astar', 'expansions'
STATE_BYTES = 320  # a stored state with its closed-set and heap entries (tracemalloc: 310-320)
COST_UNIT = 64  # g counts 1/64 primitive, the resolution of the turn penalty
ANALYTIC_TRIES = 8  # states back from the goal the connection may leave from (~10 ms each)


@dataclass(frozen=True)
class LatticeSettings(paths.KeepsClearance):
    """Lengths in m, curvature in 1/m, sharpness in 1/m², time in s. Defaults: spec B5.1's reading
    of D-M13."""

    primitive_length_m: float = 0.5 * BODY_LENGTH_M  # ℓ = 0.5 BL = 74 mm
    # odd count, evenly −κ_max … κ_max (0 included)
    curvature_levels: int = 5
    kappa_max: float = KAPPA_MAX  # 12.52 1/m (origami.py, D-M9)
    # |σ| above this: primitive dropped (inf: keep all)
    max_sharpness: float = math.inf
    cell_m: float = 0.01  # closed-set key: x and y cell
    # closed-set key: ψ bins over 2π (and the κ level)
    heading_bins: int = 32
    goal_tolerance_m: float = 0.25 * BODY_LENGTH_M  # 37 mm: "close enough to the goal"
    # half the robot's width, for every sample of a primitive
    clearance_m: float = paths.HALF_WIDTH_M
    # kept beyond the half-width (paths.SAFETY_MARGIN_M)
    safety_margin_m: float = paths.SAFETY_MARGIN_M
    # at most this between collision samples along a primitive
    sample_spacing_m: float = 0.005
    max_expansions: int = 500_000
    # states kept (each ~STATE_BYTES with its closed-set and heap entries): the memory bound
    max_states: int = 2_000_000
    max_time_s: float = 10.0
    heuristic_weight: float = 1.0  # w > 1: weighted A*
    # the flood distance round obstacles (planning/flood.py); False: the thesis's Euclidean one
    obstacle_heuristic: bool = True
    # connect to the exact goal pose (an Euler spiral, ``connection``) when the goal has a heading
    analytic_expansion: bool = True
    # extra cost, in primitives per radian turned (∫|κ| ds): 0 is the thesis's uniform cost; 1
    # straightens the thesis scene's path (10.8 → 2.2 rad turned for 1.6 net) for 4x the expansions
    turn_penalty: float = 0.0

    def __post_init__(self):
        """ValueError naming the first setting of the wrong type or outside its allowed range."""
        for f in fields(self):
            allowed, ok = _LIMITS[f.name]
            value = getattr(self, f.name)
            integer = f.type in ('int', int)
            if (
                integer
                and (isinstance(value, bool) or not isinstance(value, (int, np.integer)))
                or not integer
                and not isinstance(value, (int, float, np.number))
                or not ok(value)
            ):
                raise ValueError(f'LatticeSettings.{f.name} = {value!r}: allowed {allowed}')


_LIMITS = {
    'primitive_length_m': ('(0, 1] m', lambda v: 0 < v <= 1),
    'curvature_levels': ('an odd integer in [1, 41]', lambda v: 1 <= v <= 41 and v % 2 == 1),
    'kappa_max': ('(0, 1000] 1/m', lambda v: 0 < v <= 1000),
    'max_sharpness': ('(0, inf] 1/m²', lambda v: v > 0),
    'cell_m': ('[0.001, 1] m', lambda v: 1e-3 <= v <= 1),
    'heading_bins': ('an integer in [4, 720]', lambda v: 4 <= v <= 720),
    'goal_tolerance_m': ('(0, 10] m', lambda v: 0 < v <= 10),
    'clearance_m': ('[0, 10] m', lambda v: 0 <= v <= 10),
    'safety_margin_m': ('[0, 1] m', lambda v: 0 <= v <= 1),
    'sample_spacing_m': ('[0.0001, 0.005] m', lambda v: 1e-4 <= v <= 0.005),
    'max_expansions': ('an integer in [1, 100000000]', lambda v: 1 <= v <= 10**8),
    'max_states': ('an integer in [1000, 100000000]', lambda v: 1000 <= v <= 10**8),
    'max_time_s': ('(0, 100000] s', lambda v: 0 < v <= 1e5),
    'heuristic_weight': ('[1, 10]', lambda v: 1 <= v <= 10),
    'obstacle_heuristic': ('True or False', lambda v: isinstance(v, bool)),
    'analytic_expansion': ('True or False', lambda v: isinstance(v, bool)),
    'turn_penalty': ('[0, 100] primitives per rad', lambda v: 0 <= v <= 100),
}


def plan(
    field: DistanceField,
    start,
    goal,
    settings: LatticeSettings = LatticeSettings(),
    primitives: PrimitiveSet | None = None,
) -> paths.Plan:
    """A path from ``start`` (x m, y m, ψ rad; it leaves at that heading, straight: κ = 0) to
    ``goal`` (x, y[, ψ]): to its exact pose when the analytic expansion connects (a goal with a
    heading), else to within the goal tolerance of its position; ``path`` (N, 2) is the dense
    trajectory, start included. ``primitives`` (built from ``settings`` when None) may be shared
    between plans with the same settings."""
    began = time.perf_counter()
    start, goal = np.asarray(start, dtype=float).ravel(), np.asarray(goal, dtype=float).ravel()
    refusal = _refusal(field, start, goal, settings)
    if refusal:
        return _answer(False, refusal, np.zeros((0, 2)), 0, began, {'expansions': 0})
    search = _Search(field, start, goal, settings, _fine_enough(primitives, settings, field))
    end, why = search.run(began)
    path, nodes = search.trajectory(end)
    expanded = None
    if not why and len(goal) == 3 and settings.analytic_expansion:
        expanded = _expand_to_goal(search, end, goal)
        if expanded:
            path, nodes = expanded[:2]
    if len(path) == 1 and not why:  # the start is already within the tolerance
        path = np.vstack([path, path])
    details = _details(search, path, nodes, goal, expanded)
    if why:
        distance = details['best_distance_m']
        found = [f'{why}; best partial path ends {distance * 1e3:.0f} mm from the goal']
    else:
        found = paths.problems(
            path,
            field,
            settings.kappa_max,
            settings.required_m,
            start,
            goal,
            settings.goal_tolerance_m,
            heading_tolerance_rad=None,
        )
    reason = '; '.join(found) or _reached(settings, details)
    return _answer(not found, reason, path, search.expansions, began, details)


def _answer(
    success: bool, reason: str, path, expansions: int, began: float, details
) -> paths.Plan:
    """The Plan, timed from ``began``."""
    return paths.Plan(
        success, reason, path, PLANNER, expansions, EFFORT, time.perf_counter() - began, details
    )


def _details(search, path, nodes, goal, expanded) -> dict:
    """What the plan's JSON reports beyond the path."""
    # the end's true heading (the last node's ψ), against the goal's when it has one
    heading_error = abs(
        math.remainder(nodes[-1][2] - (goal[2] if len(goal) == 3 else nodes[-1][2]), 2 * math.pi)
    )
    return {
        'expansions': search.expansions,
        'generated': len(search.states) - 1,
        'states_stored': len(search.states),
        'peak_open': search.peak_open,
        'best_distance_m': math.dist(path[-1], goal[:2]),
        'primitives': len(search.p),
        'primitives_used': len(nodes) - 1 - bool(expanded),
        'final_heading_error_deg': math.degrees(heading_error),
        'analytic_expansion_m': expanded[2] if expanded else None,
        'nodes': nodes,
    }


def _reached(settings: LatticeSettings, details: dict) -> str:
    """The success line: the exact goal pose, or within the tolerance at some heading."""
    used = details['primitives_used']
    if details['analytic_expansion_m'] is not None:
        return (
            f'reached the goal pose with {used} primitives and an Euler-spiral connection of '
            f'{details["analytic_expansion_m"] * 1e3:.0f} mm '
            f'({details["final_heading_error_deg"]:.1f}° off its heading)'
        )
    return (
        f'reached the goal within {settings.goal_tolerance_m * 1e3:.0f} mm with {used} '
        f'primitives ({details["final_heading_error_deg"]:.0f}° off its heading: no analytic '
        'expansion connected, so no heading guarantee)'
    )


def _expand_to_goal(search, end: int, goal: np.ndarray):
    """(path, nodes, connection length m) that leave the search's path at one of the last
    ANALYTIC_TRIES states before ``end`` (the nearest first, ``end`` itself last) on a clear
    Euler-spiral connection to the exact goal pose (``connection``); None when none is clear."""
    chain = [end]
    while len(chain) <= ANALYTIC_TRIES and search.states[chain[-1]][5] >= 0:
        chain.append(search.states[chain[-1]][5])
    for index in chain[1:] + chain[:1]:
        x, y, psi, level = search.states[index][:4]
        pieces = connection.connect((x, y, psi), search.p.kappas[level], goal, search.s.kappa_max)
        if pieces is None:
            continue
        tail = connection.samples(pieces, search.p.spacing)  # checked as a primitive is
        if search.check(tail[:, 0], tail[:, 1]).all():
            path, nodes = search.trajectory(index)
            end_state = pieces[-1].end()
            nodes.append([float(v) for v in end_state])
            return np.vstack([path, tail]), nodes, sum(p.length for p in pieces)
    return None


def _fine_enough(
    primitives: PrimitiveSet | None, settings: LatticeSettings, field: DistanceField
) -> PrimitiveSet:
    """``primitives`` (built from ``settings`` when None), sampled again when their samples lie
    further apart than the collision check allows on ``field`` (half a cell)."""
    spacing = paths.check_spacing(field)
    if primitives is not None and primitives.spacing <= spacing * (1 + 1e-9):
        return primitives
    return PrimitiveSet(
        replace(settings, sample_spacing_m=max(1e-4, min(settings.sample_spacing_m, spacing)))
    )


def _refusal(
    field: DistanceField, start: np.ndarray, goal: np.ndarray, settings: LatticeSettings
) -> str | None:
    """Why the search cannot start (ends not finite poses, off the map, or closer than the
    required clearance to an obstacle), or None."""
    if (
        start.shape != (3,)
        or goal.shape not in ((2,), (3,))
        or not np.all(np.isfinite(np.r_[start, goal]))
    ):
        return (
            f'start {start.tolist()} and goal {goal.tolist()} must be finite poses (x m, y '
            'm, heading rad)'
        )
    return paths.ends_problem(field, start, goal, settings.required_m)


class _Search:
    """One A* search. ``states[i]`` = (x, y, ψ, level, g in primitives, parent, primitive index,
    key)."""

    G_SPAN, D_SPAN, INDEX_BITS = 1 << 20, 1 << 24, 32

    def __init__(
        self,
        field: DistanceField,
        start,
        goal,
        settings: LatticeSettings,
        primitives: PrimitiveSet,
    ):
        self.s, self.p, self.goal = settings, primitives, (float(goal[0]), float(goal[1]))
        self.field, self.required = field, settings.required_m
        self.check = paths.Check(field, settings.required_m, primitives.spacing)
        # the turn penalty's lower bound, when the path is to end at the goal's heading
        aimed = len(goal) == 3 and settings.analytic_expansion and settings.turn_penalty > 0
        self.goal_psi = float(goal[2]) if aimed else None
        self.flood = (
            FloodHeuristic(field, goal, settings.required_m)
            if settings.obstacle_heuristic
            else None
        )
        self.expansions, self.peak_open = 0, 1
        self._keys(field)
        # per start level, Python scalars for the per-child loop (numpy scalars are slower there)
        # a primitive costs COST_UNIT, and the turn penalty per radian it turns (∫|κ| ds)
        self.children = [
            list(
                zip(
                    t.tolist(),
                    (e[:, 0] + 1j * e[:, 1]).tolist(),
                    e[:, 2].tolist(),
                    np.rint(COST_UNIT * (1.0 + settings.turn_penalty * turning))
                    .astype(int)
                    .tolist(),
                )
            )
            for t, e, turning in zip(primitives.targets, primitives.ends, primitives.turning)
        ]
        self.counts = [len(t) for t in primitives.targets]
        level = int(np.argmin(np.abs(primitives.kappas)))
        x, y, psi = (float(v) for v in start[:3])
        self.states = [(x, y, psi, level, 0, -1, -1, self.key(x, y, psi, level))]

    def _keys(self, field: DistanceField):
        """Packing of the closed-set key (x cell, y cell, ψ bin, level) into one int."""
        self.origin = (float(field.origin[0]), float(field.origin[1]))
        self.inv_cell = 1.0 / self.s.cell_m
        self.rows = math.ceil((field.extent[1] - field.origin[1]) * self.inv_cell) + 1
        self.per_rad = self.s.heading_bins / (2.0 * math.pi)

    def key(self, x: float, y: float, psi: float, level: int) -> int:
        ix = int((x - self.origin[0]) * self.inv_cell)
        iy = int((y - self.origin[1]) * self.inv_cell)
        ib = int(psi % (2.0 * math.pi) * self.per_rad) % self.s.heading_bins
        return ((ix * self.rows + iy) * self.s.heading_bins + ib) * len(self.p.kappas) + level

    def lower_bound(self, d: float, x: float, y: float) -> float:
        """The least distance (m) left from (x, y), ``d`` (m) from the goal: the flood's bound when
        larger (inf: no chain of free cells leads to the goal)."""
        return d if self.flood is None else max(d, self.flood.at(x, y))

    def steps_left(self, d: float) -> int:
        """Admissible heuristic in primitives for a state ``d`` (m, a lower bound) from the goal:
        each primitive moves at most ℓ, the goal counts from d ≤ tol."""
        return max(0, math.ceil((d - self.s.goal_tolerance_m) / self.p.length - 1e-6))

    def entry(self, g: int, d: float, index: int) -> int | None:
        """Heap entry packed in one int: f (×1024, weighted), then deeper first, then nearer by the
        lower bound (10 µm; the Euclidean distance drew ties into pockets), then the index; None
        for a state from which the goal cannot be reached."""
        x, y, psi = self.states[index][:3]
        d = self.lower_bound(d, x, y)
        if d == math.inf:
            return None
        left = self.steps_left(d)
        if self.goal_psi is not None:  # it turns at least to the goal's heading
            left += self.s.turn_penalty * abs(math.remainder(self.goal_psi - psi, 2 * math.pi))
        f = int(round((g / COST_UNIT + self.s.heuristic_weight * left) * 1024))
        rank = (f * self.G_SPAN + self.G_SPAN - 1 - g) * self.D_SPAN + min(
            int(d * 1e5), self.D_SPAN - 1
        )
        return (rank << self.INDEX_BITS) | index

    def clear(self, x: float, y: float, psi: float, level: int) -> np.ndarray:
        """(L,) bool: which primitives from the state keep the required clearance along them
        (``paths.clear``, as ``paths.Check``, on all their samples at once)."""
        z = (x + 1j * y) + complex(math.cos(psi), math.sin(psi)) * self.p.samples_z[level]
        ok = self.check(z.real, z.imag)
        return ok.reshape(self.counts[level], -1).all(axis=1)

    def over_budget(self, began: float) -> str:
        """Which budget the search has used up (expansions, states stored, time from ``began``),
        or ''."""
        s = self.s
        if self.expansions >= s.max_expansions:
            return f'budget of {s.max_expansions} expansions exhausted'
        if len(self.states) >= s.max_states:
            return (
                f'memory budget of {s.max_states} states (about '
                f'{s.max_states * STATE_BYTES / 1e6:.0f} MB) exhausted after {self.expansions} '
                'expansions'
            )
        if self.expansions % 128 == 0 and time.perf_counter() - began > s.max_time_s:
            return (
                f'time budget of {s.max_time_s:g} s exhausted after {self.expansions} expansions'
            )
        return ''

    def run(self, began: float) -> tuple[int, str]:
        """(index of the state the path ends at, '' when within the goal tolerance or why the
        search stopped)."""
        s, gx, gy, mask = self.s, self.goal[0], self.goal[1], (1 << self.INDEX_BITS) - 1
        states, push, pop = self.states, heapq.heappush, heapq.heappop
        d0 = math.hypot(states[0][0] - gx, states[0][1] - gy)
        if d0 <= s.goal_tolerance_m:
            return 0, ''
        first = self.entry(0, d0, 0)
        best_g, heap, best = {states[0][7]: 0}, [] if first is None else [first], (d0, 0)
        while heap:
            index = pop(heap) & mask
            x, y, psi, level, g, _, _, key = states[index]
            # stale: the key is closed, or was reached again more cheaply
            if best_g[key] != g:
                continue
            over = self.over_budget(began)
            if over:
                return best[1], over
            best_g[key], self.expansions = -1, self.expansions + 1
            d = math.hypot(x - gx, y - gy)
            if d < best[0]:
                best = (d, index)
            rotation = complex(math.cos(psi), math.sin(psi))
            children = self.children[level]
            for i in np.flatnonzero(self.clear(x, y, psi, level)).tolist():
                target, offset, turn, cost = children[i]
                child_g = g + cost
                z = complex(x, y) + rotation * offset
                cx, cy, cpsi = z.real, z.imag, psi + turn
                ckey = self.key(cx, cy, cpsi, target)
                known = best_g.get(ckey)
                if known is not None and (known < 0 or known <= child_g):
                    continue
                best_g[ckey] = child_g
                states.append((cx, cy, cpsi, target, child_g, index, i, ckey))
                cd = math.hypot(cx - gx, cy - gy)
                if cd <= s.goal_tolerance_m:
                    return len(states) - 1, ''
                child = self.entry(child_g, cd, len(states) - 1)
                if child is not None:
                    push(heap, child)
            if len(heap) > self.peak_open:
                self.peak_open = len(heap)
        return best[1], f'no path: every reachable lattice state ({self.expansions}) explored'

    def trajectory(self, index: int) -> tuple[np.ndarray, list]:
        """The dense path (N, 2) m from the start to state ``index`` (the start, then each
        primitive's samples) and its nodes as lists [x, y, ψ, κ]."""
        chain = []
        while index >= 0:
            chain.append(index)
            index = self.states[index][5]
        chain.reverse()
        first = self.states[chain[0]]
        points = [np.array([first[:2]])]
        for i in chain[1:]:
            child = self.states[i]
            x, y, psi, level = self.states[child[5]][:4]
            points.append(self.p.placed(level, child[6], x, y, psi))
        nodes = [[*self.states[i][:3], float(self.p.kappas[self.states[i][3]])] for i in chain]
        return np.vstack(points), nodes
