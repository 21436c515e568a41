"""POM against finite elements, the paper's own route to the model (its Fig. 2): a box of voxels as
a 3D frame of rigid-jointed struts (PyNiteFEA), one control node displaced by its actuator, and how
the frame's node displacements compare with the Planes of Motion prediction. No ROS.

Each voxel is an octahedron of 12 struts of length pitch/√2 (spec A1); neighbours share the node on
their common face. Section and material default to FERVOR's (1.27 mm square Ultem struts, E = 6.89
GPa). POM rotates every voxel of the actuated plane rigidly about its own axis (through its two
apex nodes, which stay put), neighbours counter-rotating; so the minimal support that leaves that
motion free and the frame still held pins the apexes of two voxels of the plane in translation (the
actuated one and the farthest), nothing else. Reported:
- ``scale``: the least-squares factor s of FE ≈ s · POM over the plane's nodes (the ideality η the
  model needs);
- ``residual_share``: |FE - s · POM| / |FE| there, the part of the motion POM does not capture;
- ``apex_share``: the motion of the nodes POM keeps still, as a share of all motion (the paper: at
  most 4.9 % lost to node rotation and beam bending);
- ``sign_agreement``: the share of the plane's displacement components whose sign POM predicts;
- the mean displacement magnitude, FE over POM, against the voxel distance from the actuator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pom_voxel import drawing
from pom_voxel.lattice import AXES, LatticeError
from pom_voxel.planes_of_motion import PlanesOfMotion
from pom_voxel.structure import Actuator, Structure

STRUT_M = 1.27e-3  # FERVOR's square Ultem struts (spec A1)
YOUNG_PA = 6.89e9
POISSON = 0.35
DENSITY = 1420.0
MAX_VOXELS = 400  # a dense frame solve grows fast: 20 x 20 x 1 takes seconds


@dataclass(frozen=True)
class FECheck:
    """The outcome of ``check``, POM against the FE strut frame (the module docstring defines it).

    ``voxels`` counts the box's voxels along x, y, z; the arrays hold the plane's nodes."""

    voxels: tuple[int, int, int]
    scale: float
    residual_share: float
    apex_share: float
    sign_agreement: float
    # (K,) voxel distances from the actuated voxel present in the plane
    distance: np.ndarray
    # (K,) mean |FE| / mean |POM| of the plane's nodes at that distance
    fe_over_pom: np.ndarray
    plane_nodes_m: np.ndarray  # (P, 3) rest positions of the plane's nodes
    fe_mm: np.ndarray  # (P, 3) their FE displacement
    pom_mm: np.ndarray  # (P, 3) and POM's

    def document(self) -> dict:
        """The figures as a JSON-ready dict (FE over POM keyed by distance), without the arrays."""
        return {
            'voxels': list(self.voxels),
            'scale': self.scale,
            'residual_share': self.residual_share,
            'apex_share': self.apex_share,
            'sign_agreement': self.sign_agreement,
            'fe_over_pom_by_distance': dict(
                zip(map(int, self.distance), map(float, self.fe_over_pom))
            ),
        }


def box(nx: int, ny: int, nz: int) -> Structure:
    """A filled box of voxels with one actuator: the node on the -x face of the corner voxel pushed
    along +y, which drives the bottom layer's plane (normal z)."""
    if min(nx, ny, nz) < 1 or nx * ny * nz > MAX_VOXELS:
        raise LatticeError(
            f'voxels {nx},{ny},{nz}: each count >= 1, at most {MAX_VOXELS} voxels in all'
        )
    centres = np.argwhere(np.ones((nx, ny, nz))) * 2 + 1
    return Structure(
        centres.astype(int),
        np.zeros(len(centres), bool),
        (Actuator('probe', (0, 1, 1), 1, None),),
        {},
    )


def check(
    structure: Structure,
    displacement_mm: float = 1.0,
    strut_m: float = STRUT_M,
    young_pa: float = YOUNG_PA,
) -> FECheck:
    """Displace the first actuator's control node by ``displacement_mm`` along its stroke in the
    frame model and compare with POM (η = 1)."""
    from Pynite import FEModel3D  # only this command needs the FE package

    if (
        not all(np.isfinite([displacement_mm, strut_m, young_pa]))
        or min(strut_m, young_pa) <= 0
        or displacement_mm == 0
    ):
        raise LatticeError(
            f'displacement {displacement_mm} mm, strut {strut_m} m, E {young_pa} Pa: '
            'finite, '
            'non-zero, the section and modulus > 0'
        )
    pom = PlanesOfMotion(structure)
    actuator, plane = structure.actuators[0], pom.planes[0]
    rest = pom.rest_m
    frame = FEModel3D()
    for k, p in enumerate(rest):
        frame.add_node(f'n{k}', *p)
    frame.add_material('strut', young_pa, young_pa / (2 * (1 + POISSON)), POISSON, DENSITY)
    frame.add_section('square', strut_m**2, strut_m**4 / 12, strut_m**4 / 12, 0.1406 * strut_m**4)
    for k, (i, j) in enumerate(drawing.beam_pairs(pom)):
        frame.add_member(f'm{k}', f'n{i}', f'n{j}', 'strut', 'square')
    for voxel in _pinned_voxels(plane, actuator):
        for side in (-1, 1):
            apex = tuple(c + side * (axis == plane.normal) for axis, c in enumerate(voxel))
            frame.def_support(f'n{pom.index[apex]}', True, True, True, False, False, False)
    frame.def_node_disp(
        f'n{pom.index[actuator.node]}', 'D' + AXES[actuator.stroke].upper(), displacement_mm / 1000
    )
    frame.analyze_linear(check_stability=False)
    fe = 1000 * np.array(
        [
            [getattr(frame.nodes[f'n{k}'], f'D{a}')['Combo 1'] for a in 'XYZ']
            for k in range(len(rest))
        ]
    )
    return _compare(
        pom,
        plane,
        actuator,
        fe,
        pom.forward([displacement_mm]),
        rest,
        tuple(int(n) for n in np.ptp(structure.voxels, axis=0) // 2 + 1),
    )


def _pinned_voxels(plane, actuator: Actuator) -> list[tuple]:
    voxels = sorted(plane.voxels)
    near = min(voxels, key=lambda v: np.abs(np.subtract(v, actuator.node)).sum())
    far = max(voxels, key=lambda v: np.abs(np.subtract(v, near)).sum())
    return [near, far]


def _compare(pom, plane, actuator, fe, predicted, rest, voxels) -> FECheck:
    nodes = np.array(pom.nodes)
    in_plane = nodes[:, plane.normal] == plane.layer
    F, P = fe[in_plane], predicted[in_plane]
    scale = float((F * P).sum() / (P * P).sum())
    moving = np.abs(P) > 1e-9
    near = min(plane.voxels, key=lambda v: np.abs(np.subtract(v, actuator.node)).sum())
    distance = np.abs(nodes[in_plane] - np.array(near)).sum(axis=1) // 2
    levels = np.unique(distance)
    ratio = np.array(
        [
            np.linalg.norm(F[distance == d], axis=1).mean()
            / np.linalg.norm(P[distance == d], axis=1).mean()
            for d in levels
        ]
    )
    return FECheck(
        voxels,
        scale,
        float(np.linalg.norm(F - scale * P) / np.linalg.norm(F)),
        float(np.linalg.norm(fe[~in_plane]) / np.linalg.norm(fe)),
        float(np.mean(np.sign(F[moving]) == np.sign(P[moving]))),
        levels,
        ratio,
        rest[in_plane],
        F,
        P,
    )
