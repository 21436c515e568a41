"""Edge weights W(E) = {P, Θ, S_p, S_θ} of a substrate (paper section III-A, eq. 14; spec 1.7) and
the weights file.

Weights are kept in the paper's units, millimetres and degrees, because the synthesis
hyperparameters (ε_t, ε_θ, β, γ) are stated in them; ROS messages carry SI and convert at the node.
The file is a CSV with the header ``from,to,px_mm,py_mm,theta_deg,sp_mm2,stheta_deg2`` and one row
per edge of the complete digraph (1-based vertices), in any order.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from soro_node.arguments import read_input
from terresoro_gait.digraph import LimbDigraph

HEADER = ('from', 'to', 'px_mm', 'py_mm', 'theta_deg', 'sp_mm2', 'stheta_deg2')


# the largest |value| of each column: a primitive moves a soft robot by millimetres to centimetres
# and turns it by degrees; past these a weight is a unit slip or a corrupt file, and the BILP's
# sums of them leave what its solvers resolve
LIMITS = {
    'px_mm': 1e5,
    'py_mm': 1e5,
    'theta_deg': 360.0,
    'sp_mm2': 1e10,
    'stheta_deg2': 360.0**2,
}


class WeightsError(ValueError):
    """A weights file or table that is not complete, finite, non-negative where it must be and
    within LIMITS."""


def _problem(name: str, value: float) -> str | None:
    """Why ``value`` cannot be column ``name``'s, or None."""
    if not math.isfinite(value):
        return f'{name} = {value} is not finite'
    if name.startswith('s') and value < 0:
        return f'{name} = {value} is a negative variance'
    if abs(value) > LIMITS[name]:
        return f'{name} = {value:g} is beyond ±{LIMITS[name]:g}'
    return None


@dataclass(frozen=True)
class EdgeWeights:
    """Mean motion and noise of every primitive of the complete digraph on ``n_limbs`` limbs, in
    its edge order.

    px_mm, py_mm: mean translation p_i in the frame of the initial state (mm); theta_deg: mean
    rotation θ_i (deg); sp_mm2: S_p = tr Σ_pp (mm²); stheta_deg2: S_θ = Σ_θθ (deg²). Each (m,).
    """

    n_limbs: int
    px_mm: np.ndarray
    py_mm: np.ndarray
    theta_deg: np.ndarray
    sp_mm2: np.ndarray
    stheta_deg2: np.ndarray

    def __post_init__(self):
        m = LimbDigraph(self.n_limbs).m
        for name in HEADER[2:]:
            values = np.asarray(getattr(self, name), dtype=float)
            if values.shape != (m,):
                raise WeightsError(
                    f'{name}: expected {m} values (one per edge), got {values.size}'
                )
            for k, value in enumerate(values):
                problem = _problem(name, value)
                if problem:
                    raise WeightsError(f'{problem} at edge {self._edge_name(k)}')
            object.__setattr__(self, name, values)

    def _edge_name(self, k: int) -> str:
        i, j = LimbDigraph(self.n_limbs).edges[k]
        return f'{i}->{j}'

    def on(self, graph: LimbDigraph) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(P (2, m'), Θ (m',), S_p (m',), S_θ (m',)) for the edges of ``graph`` (the full graph or
        a pruned one)."""
        full = LimbDigraph(self.n_limbs)
        if graph.n_limbs != self.n_limbs:
            raise WeightsError(
                f'weights are for {self.n_limbs} limbs, the graph has {graph.n_limbs}'
            )
        cols = [full.edge_index[(int(i), int(j))] for i, j in graph.edges]
        return (
            np.vstack([self.px_mm[cols], self.py_mm[cols]]),
            self.theta_deg[cols],
            self.sp_mm2[cols],
            self.stheta_deg2[cols],
        )


def n_limbs_for_vertices(largest_vertex: int) -> int:
    """The fewest limbs whose states include vertex ``largest_vertex`` (n = 2^limbs)."""
    limbs = max(1, (largest_vertex - 1).bit_length())
    if limbs > 8:
        raise WeightsError(f'vertex {largest_vertex} needs {limbs} limbs; at most 8 are supported')
    return limbs


def read_csv(path: str | Path) -> EdgeWeights:
    """Read and check a weights file; every problem is a one-line WeightsError naming the file,
    line and field."""
    # the launch's default is ~/.ros/softbots/..., expanded where it is used
    path = Path(path).expanduser()
    try:  # bounded (/dev/zero), UTF-8 named, a spreadsheet's byte-order mark dropped
        rows = list(csv.reader(io.StringIO(read_input(path), newline='')))
    except ValueError as error:
        raise WeightsError(str(error)) from None
    except csv.Error as error:  # a quote left open takes the rest of the file into one field
        raise WeightsError(f'{path}: {error}') from None
    if not rows or tuple(h.strip() for h in rows[0]) != HEADER:
        raise WeightsError(
            f'{path}: header must be {",".join(HEADER)}, got '
            f'{",".join(rows[0]) if rows else "nothing"}'
        )
    records = {}
    for line, row in enumerate(rows[1:], start=2):
        if not row or not ''.join(row).strip():
            continue
        edge, values = _parse_row(path, line, row)
        if edge in records:
            raise WeightsError(f'{path}:{line}: edge {edge[0]}->{edge[1]} appears twice')
        records[edge] = values
    if not records:
        raise WeightsError(f'{path}: no edges')
    graph = LimbDigraph(n_limbs_for_vertices(max(max(edge) for edge in records)))
    missing = [f'{i}->{j}' for i, j in graph.edges if (int(i), int(j)) not in records]
    if missing:
        raise WeightsError(
            f'{path}: {len(missing)} edge(s) missing for {graph.n_limbs} limbs, e.g. {missing[0]}'
        )
    table = np.array([records[(int(i), int(j))] for i, j in graph.edges])
    try:
        return EdgeWeights(graph.n_limbs, *table.T)
    except WeightsError as error:
        raise WeightsError(f'{path}: {error}') from None


def _parse_row(path: Path, line: int, row: list[str]) -> tuple[tuple[int, int], list[float]]:
    if len(row) != len(HEADER):
        raise WeightsError(f'{path}:{line}: expected {len(HEADER)} fields, got {len(row)}')
    try:
        edge = (int(row[0]), int(row[1]))
        values = [float(x) for x in row[2:]]
    except ValueError:
        raise WeightsError(f'{path}:{line}: not a number in {",".join(row)}') from None
    if edge[0] == edge[1] or min(edge) < 1:
        raise WeightsError(
            f'{path}:{line}: {edge[0]}->{edge[1]} is not an edge (vertices are 1-based, no loops)'
        )
    for name, value in zip(HEADER[2:], values):
        problem = _problem(name, value)
        if problem:
            raise WeightsError(f'{path}:{line}: {problem}')
    return edge, values


def write_csv(weights: EdgeWeights, path: str | Path) -> Path:
    """Write ``weights`` to ``path`` (~ expanded), making its folder (the launch's ~/.ros/softbots/
    at first)."""
    path = Path(path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    graph = LimbDigraph(weights.n_limbs)
    with path.open('w', newline='') as f:
        writer = csv.writer(f)
        writer.writerow(HEADER)
        for k, (i, j) in enumerate(graph.edges):
            writer.writerow(
                [int(i), int(j)] + [repr(float(getattr(weights, name)[k])) for name in HEADER[2:]]
            )
    return path


def read_for_robot(path, n_limbs: int) -> EdgeWeights:
    """``read_csv(path)`` for a robot of ``n_limbs`` limbs; WeightsError when the file is missing,
    bad or another robot's."""
    if not path:
        raise WeightsError(
            'no weights_file: learn the substrate first (terresoro_learner ~/learn_edges)'
        )
    weights = read_csv(path)
    if weights.n_limbs != n_limbs:
        raise WeightsError(f'{path} is for {weights.n_limbs} limbs, the robot has {n_limbs}')
    return weights
