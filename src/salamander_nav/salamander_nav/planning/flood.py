"""Lattice A*'s obstacle-aware heuristic (issue 28; Nav2's Smac planners have one): the length of
the shortest 16-connected chain of free cells from each cell to the goal's, one Dijkstra over a
coarse grid per plan, so that the search is drawn round obstacles instead of filling the pockets
in front of them as the Euclidean distance lets it. No ROS.

Why it stays a lower bound (admissible, so A* keeps its optimal path):
- free is relaxed: a coarse cell is free when any of its fine centres has at least the required
  clearance less one cell. Every point a planner accepts has the required clearance on the
  bilinear field, which changes at most √2 per metre, so the centre of its own fine cell (at most
  h/√2 away) has the required clearance less h: every point of an accepted path lies in a free
  coarse cell, and relaxing free can only shorten chains;
- the chain is 16-connected (sides 1, diagonals √2, knight's moves √5): it exceeds the straight
  distance it stands for by at most CHAIN_OVER_EUCLID = 1/cos(13.3°) ≈ 1.028 (half way between a
  side and a knight's move), and is divided by that (8-connected, the factor was 1.082);
- the path's ends are anywhere in their coarse cells: a coarse cell's diagonal is taken off at each
  end (``SLACK_CELLS``).
The lattice path itself is smooth (radius ≥ 80 mm, several coarse cells), so the cells it crosses
chain as a straight line's do; ``test_lattice_astar`` checks that the heuristic never makes the
paths longer than the Euclidean one finds. Cells no chain joins to the goal's are infinitely far:
the search drops states there (the passage check has already refused goals with no passage).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from salamander_nav.distance_field import DistanceField

# the most a chain of 16-connected moves exceeds the straight distance it stands for: between the
# side (0°) and the knight's move (26.6°), 1/cos(13.3°)
CHAIN_OVER_EUCLID = 1.0 / math.cos(0.5 * math.atan2(1.0, 2.0))
SLACK_CELLS = 2.0 * math.sqrt(2.0)  # a coarse diagonal at each end
# coarse cells in the flood at most: ~20 ms of Dijkstra whatever the map's size
MAX_FLOOD_CELLS = 40_000


class FloodHeuristic:
    """Lower bound (m) on the length of any accepted path from a point to ``goal`` (x, y in m) on
    ``field`` with ``required_m`` of clearance: ``at(x, y)``; inf where none can lead."""

    def __init__(self, field: DistanceField, goal, required_m: float, max_cells=MAX_FLOOD_CELLS):
        rows, cols = field.shape
        self.k = max(1, math.ceil(math.sqrt(rows * cols / max_cells)))  # fine cells per side
        self.cell_m = self.k * field.resolution
        free = field.distance >= required_m - field.resolution
        coarse = _blocks_any(free, self.k)
        self.rows, self.cols = coarse.shape
        self.origin = (float(field.origin[0]), float(field.origin[1]))
        self.inv_cell = 1.0 / self.cell_m
        goal_cell = self.index(float(goal[0]), float(goal[1]))
        if not coarse.ravel()[goal_cell]:
            self.lower = [math.inf] * coarse.size
            return
        chain = dijkstra(_graph(coarse), directed=False, indices=goal_cell) * self.cell_m
        lower = np.maximum(chain / CHAIN_OVER_EUCLID - SLACK_CELLS * self.cell_m, 0.0)
        self.lower = lower.tolist()  # Python floats: the search reads one per state

    def index(self, x: float, y: float) -> int:
        """Flat index of the coarse cell holding (x, y) m, the nearest one off the grid."""
        col = min(max(int((x - self.origin[0]) * self.inv_cell), 0), self.cols - 1)
        row = min(max(int((y - self.origin[1]) * self.inv_cell), 0), self.rows - 1)
        return row * self.cols + col

    def at(self, x: float, y: float) -> float:
        """The lower bound (m) from (x, y) m to the goal; inf where no chain of free cells
        leads."""
        return self.lower[self.index(x, y)]


def _blocks_any(free: np.ndarray, k: int) -> np.ndarray:
    """(ceil(rows/k), ceil(cols/k)) bool: blocks of k × k cells with any cell free."""
    rows, cols = free.shape
    padded = np.pad(free, ((0, -rows % k), (0, -cols % k)), constant_values=False)
    return padded.reshape(padded.shape[0] // k, k, padded.shape[1] // k, k).any(axis=(1, 3))


def _graph(free: np.ndarray):
    """The 16-connected graph of ``free``'s cells (CSR, undirected), in cells: sides, diagonals
    and knight's moves (√5; both cells they pass between free too, so that no wall a cell thick
    is jumped)."""
    cols, parts = free.shape[1], []
    for dr, dc in MOVES:
        ok = _shifted(free, 0, 0, dr, dc) & _shifted(free, dr, dc, dr, dc)
        for pr, pc in _passed(dr, dc):
            ok &= _shifted(free, pr, pc, dr, dc)
        a = _shifted(np.arange(free.size).reshape(free.shape), 0, 0, dr, dc)[ok]
        parts.append((a, a + dr * cols + dc, np.full(len(a), math.hypot(dr, dc))))
    i, j, w = (np.concatenate(p) for p in zip(*parts))
    return coo_matrix((w, (i, j)), shape=(free.size, free.size)).tocsr()


# one of each pair of opposite moves (the graph is undirected), dr ≥ 0
MOVES = ((0, 1), (1, 0), (1, 1), (1, -1), (1, 2), (2, 1), (1, -2), (2, -1))


def _passed(dr: int, dc: int) -> tuple:
    """The cells a knight's move passes between (offsets from its start); none for the others."""
    if abs(dc) == 2:
        return ((0, dc // 2), (1, dc // 2))
    if dr == 2:
        return ((1, 0), (1, dc))
    return ()


def _shifted(grid: np.ndarray, pr: int, pc: int, dr: int, dc: int) -> np.ndarray:
    """``grid`` at offset (pr, pc) from every cell from which the move (dr, dc) stays on the
    grid, as one array over those cells."""
    rows, cols = grid.shape
    c0 = max(0, -dc)  # start columns so that c + dc stays on the grid
    c1 = cols - max(0, dc)
    return grid[pr : rows - dr + pr, c0 + pc : c1 + pc]
