"""The voxel lattice of the Planes of Motion model (Tebyani et al., arXiv 2108.09442; spec A1-A3).
No ROS.

Coordinates are integers in half-pitch units: a voxel centre has three odd coordinates, a node
exactly one even one, whose index is the node's axis. A voxel is an octahedron of 6 nodes at the
centres of its cube's faces, numbered 0..5 = -x, -y, -z, +x, +y, +z (PFEA's order, which the
paper's A matrices use); neighbouring voxels share the node on their common face, so every node has
two representations: (voxel P + e_a, node a) and (voxel P - e_a, node a + 3).
"""

from __future__ import annotations

import numpy as np

# Eq. (1)'s actuation matrices, verbatim: column n is the displacement of node n of every voxel of
# an activated plane per unit control displacement; A_d rotates the square normal to axis d (spec
# A3: d is the plane normal).
A = np.array(
    [
        [[0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, -1], [0, -1, 0, 0, 1, 0]],  # A0
        [[0, 0, 1, 0, 0, -1], [0, 0, 0, 0, 0, 0], [-1, 0, 0, 1, 0, 0]],  # A1
        [[0, -1, 0, 0, 1, 0], [1, 0, 0, -1, 0, 0], [0, 0, 0, 0, 0, 0]],  # A2
    ],
    dtype=float,
)
# Unit offset of each node from its voxel's centre.
NODE_OFFSETS = np.array([[-1, 0, 0], [0, -1, 0], [0, 0, -1], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
AXES = 'xyz'


class LatticeError(ValueError):
    """A coordinate, axis or structure that the lattice does not allow; the message names it."""


def node_axis(node) -> int:
    """The axis (0, 1, 2) of a lattice node: the index of its one even coordinate."""
    p = np.asarray(node)
    if p.shape != (3,) or not np.issubdtype(p.dtype, np.integer):
        raise LatticeError(f'node {_show(node)}: a lattice node is three integers')
    even = np.flatnonzero(p % 2 == 0)
    if len(even) != 1:
        raise LatticeError(
            f'node {_show(node)}: a lattice node has exactly one even coordinate (the voxel '
            'centres '
            'have none, beam crossings two or three)'
        )
    return int(even[0])


def check_voxel(centre) -> np.ndarray:
    """``centre`` as ints (3,) if it is a voxel centre (three odd integers); else LatticeError."""
    v = np.asarray(centre)
    if v.shape != (3,) or not np.issubdtype(v.dtype, np.integer) or np.any(v % 2 == 0):
        raise LatticeError(f'voxel {_show(centre)}: a voxel centre is three odd integers')
    return v


def representation(node, plus_side: bool = False) -> tuple[np.ndarray, int]:
    """(voxel centre, node id) of ``node``: by default as the -side node of the voxel at node + e_a
    (spec A2)."""
    p = np.asarray(node)
    a = node_axis(p)
    e = np.eye(3, dtype=int)[a]
    return (p - e, a + 3) if plus_side else (p + e, a)


def voxel_nodes(centre) -> np.ndarray:
    """(6, 3) the lattice nodes of a voxel, in node-id order."""
    return check_voxel(centre) + NODE_OFFSETS


def _show(value) -> str:
    try:
        return str(tuple(int(v) for v in value))
    except (TypeError, ValueError):
        return repr(value)
