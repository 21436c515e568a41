"""The deformed lattice for rviz2, as plain arrays (no ROS): node positions, the voxels' beams, the
actuators. The nodes at rest are ``PlanesOfMotion.rest_m``, computed once with the model."""

from __future__ import annotations

import numpy as np

from pom_voxel.lattice import voxel_nodes
from pom_voxel.planes_of_motion import PlanesOfMotion

# the 12 beams of an octahedral voxel: every node pair but the three antipodal ones (0-3, 1-4,
# 2-5), spec A1
BEAMS = [(a, b) for a in range(6) for b in range(a + 1, 6) if b - a != 3]


def beam_pairs(pom: PlanesOfMotion) -> np.ndarray:
    """(B, 2) node indices of every beam of every voxel."""
    pairs = set()
    for centre in pom.structure.voxels:
        nodes = [pom.index[tuple(n)] for n in voxel_nodes(centre).tolist()]
        pairs.update(tuple(sorted((nodes[a], nodes[b]))) for a, b in BEAMS)
    return np.array(sorted(pairs), dtype=int).reshape(-1, 2)


def actuator_pairs(pom: PlanesOfMotion) -> list[tuple[int, int | None]]:
    """Per actuator, the indices of its control node and its partner (None when it has none)."""
    return [
        (pom.index[a.node], pom.index.get(a.partner) if a.partner else None)
        for a in pom.structure.actuators
    ]


def deformed_m(pom: PlanesOfMotion, q_mm) -> np.ndarray:
    """(N, 3) every node under strokes q (mm), m."""
    return pom.rest_m + pom.forward(q_mm) / 1000.0
