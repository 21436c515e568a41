"""The Planes of Motion kinematics (Tebyani et al., eq. 1; spec A4-A5): node displacements as a
sparse, signed linear map of the actuator strokes. No ROS.

A control node pushed along its stroke axis rotates its voxel's square normal to the third axis
d; every voxel of that layer connected to it rotates too, neighbours counter-rotating like gears
(the checkerboard). So

    x_j = Σ_i η_ij c_ij a_{d_i, n_j} q_i                                         (eq. 1)

with c_ij = σ_i π_ij: σ_i makes q_i the control node's displacement along +stroke,
π_ij = (-1)^(voxel distance) the checkerboard, 0 outside the plane. J (3N, M), sparse, holds it for
every node of the structure; rows are (node, axis) and columns actuators; lengths in the caller's
unit (mm for the paper's ±5 mm strokes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from pom_voxel.lattice import (
    AXES,
    NODE_OFFSETS,
    A,
    LatticeError,
    node_axis,
    representation,
    voxel_nodes,
)
from pom_voxel.structure import Actuator, Structure
from soro_node.params import shown

STROKE_LIMIT_MM = 5.0  # each actuator changes length by ±10 mm: ±5 mm per node (spec A5)


@dataclass(frozen=True)
class Plane:
    """The plane an actuator drives: normal axis d, layer coordinate h and the voxels that rotate
    with it."""

    normal: int
    layer: int
    voxels: frozenset  # centres as tuples
    # σ_i = A_d[stroke, n_i] of the control node's reference representation
    sign: float


@dataclass(frozen=True)
class Strokes:
    """An IK result: q (M,) after clipping, which actuators saturated, and the residual of the
    chosen DOFs."""

    q: np.ndarray
    saturated: np.ndarray  # (M,) bool
    residual: float  # max |J_sel q - x| before clipping

    def report(self, names) -> str:
        """One line naming the actuators (``names``, q's order) clipped at the stroke limit."""
        hit = [n for n, s in zip(names, self.saturated) if s]
        return (
            f'saturated at ±{STROKE_LIMIT_MM:g} mm: {", ".join(hit)}'
            if hit
            else 'within the stroke limits'
        )


class PlanesOfMotion:
    """The POM model of one structure: J for every node, forward, inverse and lateral kinematics.

    Args:
        structure: voxels, actuators and named effectors.
        ideality: η of eq. (1)'s matrix form (spec A5): the share of a plane's motion that
            reaches nodes other than an actuator's own two (1: ideal; the authors' robot: 0.8).
    """

    def __init__(self, structure: Structure, ideality: float = 1.0):
        """Build the planes and J of eq. (1); LatticeError on η outside (0, 1], a bad structure."""
        if not (np.isfinite(ideality) and 0 < ideality <= 1):
            raise LatticeError(f'ideality = {ideality!r}: allowed range is (0, 1]')
        self.structure, self.ideality = structure, ideality
        core = {
            tuple(v) for v, ext in zip(structure.voxels.tolist(), structure.extension) if not ext
        }
        self.nodes, self._rigid_to = _nodes_and_attachments(structure, core)
        self.index = {node: k for k, node in enumerate(self.nodes)}
        # (N, 3) nodes at rest, m
        self.rest_m = np.array(self.nodes, dtype=float) * structure.pitch_m / 2
        self.planes = [self._plane(a, core) for a in structure.actuators]
        _refuse_shared_planes(structure.actuators, self.planes)
        self.J = self._jacobian()

    # --- eq. (1) ---------------------------------------------------------------------------------
    def _plane(self, actuator: Actuator, core: set) -> Plane:
        axis = node_axis(actuator.node)
        normal = ({0, 1, 2} - {axis, actuator.stroke}).pop()
        voxel, nid = representation(actuator.node)
        if tuple(voxel) not in core and tuple(voxel - 2 * np.eye(3, dtype=int)[axis]) not in core:
            raise LatticeError(
                f'actuator {actuator.name}: node {actuator.node} is not a node of a '
                '(non-extension) '
                'voxel of the structure'
            )
        start = (
            tuple(voxel) if tuple(voxel) in core else tuple(voxel - 2 * np.eye(3, dtype=int)[axis])
        )
        return Plane(
            normal,
            actuator.node[normal],
            _layer_component(core, start, normal),
            float(A[normal][actuator.stroke, nid]),
        )

    def _jacobian(self) -> sparse.csr_matrix:
        rows, cols, values = [], [], []
        for i, (actuator, plane) in enumerate(zip(self.structure.actuators, self.planes)):
            nodes = _in_plane_nodes(plane)
            voxel_i, _ = representation(actuator.node)
            # each node's one even axis
            axes = np.argmax(nodes % 2 == 0, axis=1)
            # representation (P + e_a, a)
            voxel_j = nodes + np.eye(3, dtype=int)[axes]
            # π_ij: the checkerboard
            parity = (-1.0) ** (np.abs(voxel_j - voxel_i).sum(axis=1) // 2)
            # a_{d_i, n_j}, (K, 3)
            columns = A[plane.normal][:, axes].T
            own = {actuator.node, actuator.partner}
            eta = np.array([1.0 if tuple(n) in own else self.ideality for n in nodes])
            # η_ij c_ij a_{d_i, n_j}
            block = (eta * plane.sign * parity)[:, None] * columns
            index = np.array([self.index[tuple(n)] for n in nodes])
            for k in range(3):
                nonzero = block[:, k] != 0
                rows.append(3 * index[nonzero] + k)
                cols.append(np.full(nonzero.sum(), i))
                values.append(block[nonzero, k])
        J = sparse.csr_matrix(
            (
                np.concatenate(values or [[]]),
                (
                    np.concatenate(rows or [[]]).astype(int),
                    np.concatenate(cols or [[]]).astype(int),
                ),
            ),
            shape=(3 * len(self.nodes), len(self.structure.actuators)),
        )
        return _with_rigid_extensions(J, self._rigid_to)

    # --- kinematics ------------------------------------------------------------------------------
    def rows(self, node) -> np.ndarray:
        """(3, M): the displacement of ``node`` per unit stroke of each actuator."""
        key = tuple(int(c) for c in node)
        if key not in self.index:
            node_axis(key)
            raise LatticeError(f'node {key}: not a node of the structure')
        k = self.index[key]
        return self.J[3 * k : 3 * k + 3].toarray()

    def forward(self, q) -> np.ndarray:
        """(N, 3) displacement of every node (``self.nodes`` order) for strokes q (M,)."""
        return (self.J @ _finite(q, 'q', len(self.structure.actuators))).reshape(-1, 3)

    def forward_many(self, q) -> np.ndarray:
        """(T, N, 3) every node's displacement for strokes q (T, M), e.g. a logged or planned
        sequence."""
        q = np.asarray(q, dtype=float).reshape(-1, len(self.structure.actuators))
        if not np.all(np.isfinite(q)):
            raise LatticeError('strokes: a non-finite value in the sequence')
        return (self.J @ q.T).T.reshape(len(q), -1, 3)

    def effectors(self, q) -> dict[str, np.ndarray]:
        """The named effectors' displacements (3,) for strokes q (M,)."""
        x = self.forward(q)
        return {name: x[self.index[node]] for name, node in self.structure.effectors.items()}

    def inverse(self, dofs, targets) -> Strokes:
        """Strokes q that put the chosen effector DOFs at ``targets``: ``dofs`` is a list of (node,
        axis) with axis 0, 1, 2 or 'x', 'y', 'z'; every actuator's plane must hold one. q = J_sel⁺
        x (spec A5), then clipped at ±STROKE_LIMIT_MM with the saturation reported."""
        return self.solver(dofs)(targets)

    def solver(self, dofs):
        """``inverse`` for fixed ``dofs``, checked and factorised once: a function of the targets
        (M',) that a controller calls every tick."""
        J_sel = np.vstack([self.rows(node)[_axis(axis)] for node, axis in dofs]).reshape(
            len(dofs), -1
        )
        unpinned = [a.name for a, col in zip(self.structure.actuators, J_sel.T) if not np.any(col)]
        if unpinned or np.linalg.matrix_rank(J_sel) < J_sel.shape[1]:
            planes = ', '.join(unpinned) or 'some actuators'
            raise LatticeError(
                f'IK DOFs {_show_dofs(dofs)} leave the plane(s) of {planes} unpinned: '
                'choose one DOF '
                "in every actuator's plane"
            )
        pseudo_inverse = np.linalg.pinv(J_sel)

        def solve(targets) -> Strokes:
            x = _finite(targets, 'targets', len(dofs))
            q = pseudo_inverse @ x
            residual = float(np.max(np.abs(J_sel @ q - x))) if len(x) else 0.0
            if residual > 1e-9 * max(1.0, float(np.max(np.abs(x)))):
                raise LatticeError(
                    f'IK targets {shown(x.tolist())} for DOFs {_show_dofs(dofs)} cannot all be '
                    f'met (residual {residual:.3g}): two DOFs in one plane ask for different '
                    'strokes'
                )
            return Strokes(
                np.clip(q, -STROKE_LIMIT_MM, STROKE_LIMIT_MM),
                np.abs(q) > STROKE_LIMIT_MM + 1e-12,
                residual,
            )

        return solve

    def lateral(self, dofs, targets) -> dict[str, np.ndarray]:
        """The paper's lateral kinematics: every named effector's displacement under the IK of
        ``dofs``."""
        return self.effectors(self.inverse(dofs, targets).q)


def _axis(axis) -> int:
    if axis in (0, 1, 2):
        return int(axis)
    if isinstance(axis, str) and axis in AXES and len(axis) == 1:
        return AXES.index(axis)
    raise LatticeError(f'axis {axis!r}: expected 0, 1, 2 or x, y, z')


def _finite(values, what: str, size: int) -> np.ndarray:
    v = np.asarray(values, dtype=float).reshape(-1)
    if v.shape != (size,) or not np.all(np.isfinite(v)):
        raise LatticeError(
            f'{what} = {shown(np.asarray(values).reshape(-1).tolist())}: expected {size} finite '
            'values'
        )
    return v


def _show_dofs(dofs, limit: int = 8) -> str:
    """The DOFs for a message, elided after ``limit`` (a request may name thousands)."""
    named = [f'{tuple(int(c) for c in node)} {AXES[_axis(axis)]}' for node, axis in dofs[:limit]]
    return ', '.join(named) + (f', ... ({len(dofs)} DOFs)' if len(dofs) > limit else '')


def _layer_component(core: set, start: tuple, normal: int) -> frozenset:
    """The voxels of the layer through ``start`` (same coordinate along ``normal``) 4-connected to
    it through shared in-plane nodes (spec A4 item 12)."""
    steps = [
        tuple(2 * s * np.eye(3, dtype=int)[k]) for k in range(3) if k != normal for s in (1, -1)
    ]
    seen, todo = {start}, [start]
    while todo:
        v = todo.pop()
        for step in steps:
            w = (v[0] + step[0], v[1] + step[1], v[2] + step[2])
            if w in core and w not in seen:
                seen.add(w)
                todo.append(w)
    return frozenset(seen)


def _in_plane_nodes(plane: Plane) -> np.ndarray:
    """(K, 3) the distinct nodes of the plane's voxels that lie in the plane (axis ≠ normal)."""
    nodes = {
        (v[0] + s * (k == 0), v[1] + s * (k == 1), v[2] + s * (k == 2))
        for v in plane.voxels
        for k in range(3)
        if k != plane.normal
        for s in (-1, 1)
    }
    return np.array(sorted(nodes), dtype=int).reshape(-1, 3)


def _nodes_and_attachments(structure: Structure, core: set) -> tuple[list[tuple], dict[int, int]]:
    """Every node of every voxel, and for the nodes of extension voxels only, the index of the node
    through which their voxel is attached: they move rigidly with it ("independent geometric
    extensions", spec A4)."""
    centres = np.array(sorted(core), dtype=int).reshape(-1, 3)
    core_nodes = [
        tuple(n)
        for n in np.unique((centres[:, None, :] + NODE_OFFSETS).reshape(-1, 3), axis=0).tolist()
    ]
    index = {n: k for k, n in enumerate(core_nodes)}
    nodes, rigid = list(core_nodes), {}
    for v, ext in zip(structure.voxels.tolist(), structure.extension):
        if not ext:
            continue
        own = [tuple(n) for n in voxel_nodes(v).tolist()]
        attached = [n for n in own if n in index]
        if len(attached) != 1:
            raise LatticeError(
                f'extension voxel {tuple(v)}: shares {len(attached)} nodes with the rest; '
                'an extension '
                'hangs from exactly one node'
            )
        for n in own:
            if n not in index:
                index[n] = len(nodes)
                nodes.append(n)
                rigid[index[n]] = index[attached[0]]
    return nodes, rigid


def _with_rigid_extensions(J: sparse.csr_matrix, rigid: dict[int, int]) -> sparse.csr_matrix:
    if not rigid:
        return J
    J = J.tolil()
    for node, parent in rigid.items():
        for k in range(3):
            J[3 * node + k] = J[3 * parent + k]
    return J.tocsr()


def _refuse_shared_planes(actuators, planes) -> None:
    for i in range(len(planes)):
        for j in range(i):
            same = planes[i].normal == planes[j].normal and planes[i].layer == planes[j].layer
            if same and planes[i].voxels & planes[j].voxels:
                raise LatticeError(
                    f'actuators {actuators[j].name} and {actuators[i].name} drive the same '
                    'plane '
                    f'({AXES[planes[i].normal]} = {planes[i].layer}): '
                    'the system is overdetermined'
                )
