"""Lattice A* for the salamander (thesis §3.4.1, Figs. 3.24-3.25; spec B5.1, PL-06, D-M13, D-M14).
No ROS.

States (x, y, ψ, κ-level) are created during the search: from a state the lattice is the
precomputed set of Euler-spiral primitives of one length ℓ (``lattice_primitives``), so curvature
is continuous at every node and |κ| ≤ κ_max everywhere. Every movement costs the same, ℓ (the
thesis; D-M14 reads it as the arc length so that the Euclidean heuristic stays admissible); a
primitive any sample of which comes closer than the clearance to an obstacle is pruned (the
thesis's infinite cost); duplicates are caught by a closed set on (x, y, ψ, κ) cells; the search
ends when a state lies within the goal tolerance of the goal's position, with no end-heading
guarantee (the thesis says so; the error is reported). The thesis gives none of ℓ, the levels, the
cells or the tolerance (D-M13): the defaults are spec B5.1's reading.

Deviations, none of which changes which path is optimal:
- costs are counted in primitives (g integer, cost g·ℓ) and the heuristic is the Euclidean distance
  left beyond the goal tolerance in whole primitives, ceil((d − tol)/ℓ): a primitive moves at most
  ℓ, so it is still admissible and consistent, but it no longer leaves a slack of up to one
  primitive that would make A* expand a wide ellipse;
- ties in f go to the deeper state, then to the one nearer the goal; the goal test is made when a
  state is generated (with a consistent heuristic and unit costs, the first goal state generated is
  an optimal one);
- collisions are read from a boolean grid, ``distance ≥ clearance + margin`` computed once per
  plan, the margin being what the path between two samples and the nearest-cell lookup can lose (so
  the independent check ``paths.problems`` along the dense path agrees).
``heuristic_weight`` above 1 makes it weighted A* (paths at most that factor longer); 1, the
default, is the thesis's.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, fields

import numpy as np

from salamander_nav.distance_field import DistanceField
from salamander_nav.origami import BODY_LENGTH_M, KAPPA_MAX
from salamander_nav.planning import paths
from salamander_nav.planning.lattice_primitives import PrimitiveSet, curvature_levels

__all__ = ['LatticeSettings', 'PrimitiveSet', 'curvature_levels', 'plan']

PLANNER, EFFORT = 'lattice_astar', 'expansions'


@dataclass(frozen=True)
class LatticeSettings:
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
    clearance_m: float = 0.04
    # at most this between collision samples along a primitive
    sample_spacing_m: float = 0.005
    max_expansions: int = 500_000
    max_time_s: float = 10.0
    heuristic_weight: float = 1.0  # w > 1: weighted A*

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
    'sample_spacing_m': ('[0.0001, 0.005] m', lambda v: 1e-4 <= v <= 0.005),
    'max_expansions': ('an integer in [1, 100000000]', lambda v: 1 <= v <= 10**8),
    'max_time_s': ('(0, 100000] s', lambda v: 0 < v <= 1e5),
    'heuristic_weight': ('[1, 10]', lambda v: 1 <= v <= 10),
}


def plan(
    field: DistanceField,
    start,
    goal,
    settings: LatticeSettings = LatticeSettings(),
    primitives: PrimitiveSet | None = None,
) -> paths.Plan:
    """A path from ``start`` (x m, y m, ψ rad; it leaves at that heading, straight: κ = 0) to
    within the goal tolerance of ``goal``'s position (x, y[, ψ]); ``path`` (N, 2) is the dense
    trajectory, start included. ``primitives`` (built from ``settings`` when None) may be shared
    between plans with the same settings."""
    began = time.perf_counter()
    start, goal = np.asarray(start, dtype=float).ravel(), np.asarray(goal, dtype=float).ravel()
    refusal = _refusal(field, start, goal, settings)
    if refusal:
        return paths.Plan(
            False,
            refusal,
            np.zeros((0, 2)),
            PLANNER,
            0,
            EFFORT,
            time.perf_counter() - began,
            {'expansions': 0},
        )
    search = _Search(field, start, goal, settings, primitives or PrimitiveSet(settings))
    end, why = search.run(began)
    path, nodes = search.trajectory(end)
    if len(path) == 1 and not why:  # the start is already within the tolerance
        path = np.vstack([path, path])
    # the end's true heading (the node's ψ), against the goal's when it has one
    heading_error = abs(
        math.remainder(nodes[-1][2] - (goal[2] if len(goal) == 3 else nodes[-1][2]), 2 * math.pi)
    )
    details = {
        'expansions': search.expansions,
        'generated': len(search.states) - 1,
        'states_stored': len(search.states),
        'peak_open': search.peak_open,
        'best_distance_m': math.dist(path[-1], goal[:2]),
        'primitives': len(search.p),
        'primitives_used': len(nodes) - 1,
        'final_heading_error_deg': math.degrees(heading_error),
        'nodes': nodes,
    }
    if why:
        reason = (
            f'{why}; best partial path ends {details["best_distance_m"] * 1e3:.0f} mm from '
            'the goal'
        )
        return paths.Plan(
            False,
            reason,
            path,
            PLANNER,
            search.expansions,
            EFFORT,
            time.perf_counter() - began,
            details,
        )
    found = paths.problems(
        path,
        field,
        settings.kappa_max,
        settings.clearance_m,
        start,
        goal,
        settings.goal_tolerance_m,
        heading_tolerance_rad=None,
    )
    reason = (
        '; '.join(found)
        if found
        else (
            f'reached the goal within {settings.goal_tolerance_m * 1e3:.0f} mm with '
            f'{len(nodes) - 1} primitives '
            f'({details["final_heading_error_deg"]:.0f}° off its heading: lattice A* gives '
            'no heading guarantee)'
        )
    )
    return paths.Plan(
        not found,
        reason,
        path,
        PLANNER,
        search.expansions,
        EFFORT,
        time.perf_counter() - began,
        details,
    )


def _refusal(
    field: DistanceField, start: np.ndarray, goal: np.ndarray, settings: LatticeSettings
) -> str | None:
    """Why the search cannot start (ends not finite poses, or closer than the clearance to an
    obstacle), or None."""
    if (
        start.shape != (3,)
        or goal.shape not in ((2,), (3,))
        or not np.all(np.isfinite(np.r_[start, goal]))
    ):
        return (
            f'start {start.tolist()} and goal {goal.tolist()} must be finite poses (x m, y '
            'm, heading rad)'
        )
    for name, point in (('start', start[:2]), ('goal', goal[:2])):
        d = float(field.distance_at(point))
        if d < settings.clearance_m:
            where = (
                'inside an obstacle or off the map'
                if d < 0
                else f'{d * 1e3:.0f} mm from an obstacle'
            )
            return (
                f'{name} ({point[0]:.3f}, {point[1]:.3f}) is {where} (needs '
                f'{settings.clearance_m * 1e3:.0f} mm)'
            )
    return None


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
        self.expansions, self.peak_open = 0, 1
        self._grid(field)
        self._keys(field)
        # per start level, Python scalars for the per-child loop (numpy scalars are slower there)
        self.children = [
            list(zip(t.tolist(), (e[:, 0] + 1j * e[:, 1]).tolist(), e[:, 2].tolist()))
            for t, e in zip(primitives.targets, primitives.ends)
        ]
        self.counts = [len(t) for t in primitives.targets]
        level = int(np.argmin(np.abs(primitives.kappas)))
        x, y, psi = (float(v) for v in start[:3])
        self.states = [(x, y, psi, level, 0, -1, -1, self.key(x, y, psi, level))]

    def _grid(self, field: DistanceField):
        """The padded boolean grid of cells a sample may lie in, flat; padding covers one primitive
        beyond the map. Margin: the path between two samples can come spacing/2 closer, and the
        nearest-cell values of two points differ by at most their distance plus a cell diagonal
        (both lookups round to a cell centre)."""
        res = field.resolution
        margin = 0.5 * self.p.length / self.p.steps + math.sqrt(2.0) * res
        pad = math.ceil(self.p.length / res) + 2
        free = np.pad(field.distance >= self.s.clearance_m + margin, pad, constant_values=False)
        self.free, self.width, self.inv_res = free.ravel(), free.shape[1], 1.0 / res
        # cell index = floor((x − origin)/res) + pad, all non-negative so that truncation floors
        self.col0 = pad - field.origin[0] * self.inv_res
        self.row0 = pad - field.origin[1] * self.inv_res

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

    def steps_left(self, d: float) -> int:
        """Admissible, consistent heuristic in primitives: each moves at most ℓ, the goal counts
        from d ≤ tol."""
        return max(0, math.ceil((d - self.s.goal_tolerance_m) / self.p.length - 1e-6))

    def entry(self, g: int, d: float, index: int) -> int:
        """Heap entry packed in one int: f (×1024, weighted), then deeper first, then nearer (10
        µm), then the index."""
        f = int(round((g + self.s.heuristic_weight * self.steps_left(d)) * 1024))
        rank = (f * self.G_SPAN + self.G_SPAN - 1 - g) * self.D_SPAN + min(
            int(d * 1e5), self.D_SPAN - 1
        )
        return (rank << self.INDEX_BITS) | index

    def clear(self, x: float, y: float, psi: float, level: int) -> np.ndarray:
        """(L,) bool: which primitives from the state keep every sample on a free cell (one
        vectorised lookup)."""
        z = (x + 1j * y) + complex(math.cos(psi), math.sin(psi)) * self.p.samples_z[level]
        cols = (z.real * self.inv_res + self.col0).astype(np.intp)
        rows = (z.imag * self.inv_res + self.row0).astype(np.intp)
        return self.free[rows * self.width + cols].reshape(self.counts[level], -1).all(axis=1)

    def run(self, began: float) -> tuple[int, str]:
        """(index of the state the path ends at, '' when within the goal tolerance or why the
        search stopped)."""
        s, gx, gy, mask = self.s, self.goal[0], self.goal[1], (1 << self.INDEX_BITS) - 1
        states, push, pop = self.states, heapq.heappush, heapq.heappop
        d0 = math.hypot(states[0][0] - gx, states[0][1] - gy)
        if d0 <= s.goal_tolerance_m:
            return 0, ''
        best_g, heap, best = {states[0][7]: 0}, [self.entry(0, d0, 0)], (d0, 0)
        while heap:
            index = pop(heap) & mask
            x, y, psi, level, g, _, _, key = states[index]
            # stale: the key is closed, or was reached again more cheaply
            if best_g[key] != g:
                continue
            if self.expansions >= s.max_expansions:
                return best[1], f'budget of {s.max_expansions} expansions exhausted'
            if self.expansions % 128 == 0 and time.perf_counter() - began > s.max_time_s:
                return best[1], (
                    f'time budget of {s.max_time_s:g} s exhausted after {self.expansions} '
                    'expansions'
                )
            best_g[key], self.expansions = -1, self.expansions + 1
            d = math.hypot(x - gx, y - gy)
            if d < best[0]:
                best = (d, index)
            rotation, child_g = complex(math.cos(psi), math.sin(psi)), g + 1
            children = self.children[level]
            for i in np.flatnonzero(self.clear(x, y, psi, level)).tolist():
                target, offset, turn = children[i]
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
                push(heap, self.entry(child_g, cd, len(states) - 1))
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
