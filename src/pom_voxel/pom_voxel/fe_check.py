"""POM against finite elements, the paper's own route to the model (its Figs. 1-2): a layer of
voxels as a 3D frame of rigid-jointed struts (PyNiteFEA), driven as the paper drove it, and how
much of the displacement POM predicts the frame loses. No ROS.

Each voxel is an octahedron of 12 struts of length pitch/√2 (spec A1); neighbours share the node on
their common face. Section and material default to FERVOR's (1.27 mm square Ultem struts, E = 6.89
GPa). Two drives (``DRIVES``):
- ``void`` (the paper's, the default): a linear actuator sits in a void between four voxels of the
  layer and pushes its two opposite nodes apart, "inhibiting the rotational degrees of freedom" of
  those nodes. As the FERVOR PFEA scripts hold it: one actuator node fixed (translations and
  rotations), the other with its rotations fixed, driven along the actuator by a force or by a
  displacement (one linear frame: the same shape). The fixed node's rigid motion is then removed
  (the layer translated by half the extension e back along the actuator), so both ends move
  q = e/2 apart, as POM's actuator with stroke q moves them.
- ``corner_push`` (what this check ran before issue 30): the node on the outer face of a corner
  voxel displaced along the layer, the apexes of that voxel and the farthest one pinned. The force
  then passes axially through one octahedron (20 % of the strain energy axial, against 2.8 % for
  the void drive), which the paper's experiment avoids.
Reported, the paper's quantity first:
- ``displacement_lost``: 1 − min |u_i| / |POM_i| over the nodes POM moves (the paper: "only up to
  4.9 % of displacement is lost to other modes");
- ``profile``: mean |u| / mean |POM| against the distance from the actuator (Fig. 2's
  displacement dissipation: "this pattern does not decay with distance");
- ``scale``: the least-squares factor s of FE ≈ s · POM over the layer's nodes, the ideality η a
  POM model of a structure this size can take (``ideality``);
- ``residual_share``, ``apex_share``, ``sign_agreement``: what POM's direction misses, the
  motion of the nodes POM keeps still, the share of components whose sign POM predicts.
The loss is strut stretching: with axially rigid struts (``axial_rigidity``) it vanishes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from pom_voxel import drawing
from pom_voxel.lattice import AXES, LatticeError, voxel_nodes
from pom_voxel.planes_of_motion import PlanesOfMotion
from pom_voxel.structure import Actuator, Structure

STRUT_M = 1.27e-3  # FERVOR's square Ultem struts (spec A1)
YOUNG_PA = 6.89e9
POISSON = 0.35
DENSITY = 1420.0
MAX_VOXELS = 400  # a dense frame solve grows fast: 20 x 20 x 1 takes seconds
DRIVES = ('void', 'corner_push')
DRIVEN = ('force', 'displacement')
PAPER_LOSS = 0.049  # "only up to 4.9 % of displacement is lost to other modes" (4 x 4 x 1)
# above this residual share POM's direction is wrong, not just its size: no η fits
PATTERN_HOLDS = 0.1


@dataclass(frozen=True)
class FECheck:
    """The outcome of ``check`` (the module docstring defines each figure). ``voxels`` counts the
    box's voxels along x, y, z; the arrays hold the actuated layer's nodes."""

    voxels: tuple[int, int, int]
    drive: str
    displacement_lost: float
    # (K,) distances from the actuator (half-pitches, Manhattan) of the nodes POM moves
    distance: np.ndarray
    profile: np.ndarray  # (K,) mean |FE| / mean |POM| at that distance
    scale: float
    residual_share: float
    apex_share: float
    sign_agreement: float
    plane_nodes_m: np.ndarray  # (P, 3) rest positions of the layer's nodes
    fe_mm: np.ndarray  # (P, 3) their FE displacement
    pom_mm: np.ndarray  # (P, 3) and POM's
    node_distance: np.ndarray  # (P,) their distance from the actuator (as ``distance``)
    actuator_m: np.ndarray  # (2, 3) rest positions of its control node and its other end

    def document(self) -> dict:
        """The figures as a JSON-ready dict (the profile keyed by distance), without the arrays."""
        return {
            'voxels': list(self.voxels),
            'drive': self.drive,
            'displacement_lost': self.displacement_lost,
            'profile_by_distance': dict(zip(map(int, self.distance), map(float, self.profile))),
            'scale': self.scale,
            'residual_share': self.residual_share,
            'apex_share': self.apex_share,
            'sign_agreement': self.sign_agreement,
        }


def box(nx: int, ny: int, nz: int, drive: str = 'void', void=None) -> Structure:
    """A filled box of voxels driving its bottom layer (plane normal z) with one actuator: across
    the void at ``void`` (x, y in half-pitches, both even and inside the layer; default the one at
    the centre, or next to it for an odd count) pushing its two y-neighbours apart, or, for
    ``corner_push``, at the node on the -x face of the corner voxel along +y."""
    if min(nx, ny, nz) < 1 or nx * ny * nz > MAX_VOXELS:
        raise LatticeError(
            f'voxels {nx},{ny},{nz}: each count >= 1, at most {MAX_VOXELS} voxels in all'
        )
    if drive not in DRIVES:
        raise LatticeError(f'drive {drive!r}: allowed {", ".join(DRIVES)}')
    centres = (np.argwhere(np.ones((nx, ny, nz))) * 2 + 1).astype(int)
    if drive == 'corner_push':
        actuator = Actuator('corner_push', (0, 1, 1), 1, None)
    else:
        x, y = _void(nx, ny, void)
        actuator = Actuator('void', (x, y + 1, 1), 1, (x, y - 1, 1))
    return Structure(centres, np.zeros(len(centres), bool), (actuator,), {})


def with_actuator(structure: Structure, name: str | None = None) -> Structure:
    """``structure`` with only its actuator ``name`` (None: the first), for ``check``."""
    chosen = [a for a in structure.actuators if name in (None, a.name)][:1]
    if not chosen:
        names = ', '.join(a.name for a in structure.actuators) or 'none'
        raise LatticeError(f'actuator {name!r}: the structure has {names}')
    return replace(structure, actuators=tuple(chosen))


def _void(nx: int, ny: int, void) -> tuple[int, int]:
    """The void's (x, y) in half-pitches: ``void`` checked, or the central one."""
    if void is None:
        if min(nx, ny) < 2:
            raise LatticeError(
                f'voxels {nx},{ny}: a void needs at least 2 x 2 voxels in the layer'
            )
        return 2 * (nx // 2), 2 * (ny // 2)
    x, y = (int(v) for v in void)
    if x % 2 or y % 2 or not (2 <= x <= 2 * nx - 2 and 2 <= y <= 2 * ny - 2):
        raise LatticeError(
            f'void {x},{y}: even half-pitch coordinates between four voxels, x in [2, '
            f'{2 * nx - 2}], y in [2, {2 * ny - 2}]'
        )
    return x, y


def check(
    structure: Structure,
    displacement_mm: float = 1.0,
    strut_m: float = STRUT_M,
    young_pa: float = YOUNG_PA,
    driven: str = 'force',
    axial_rigidity: float = 1.0,
) -> FECheck:
    """Drive the first actuator in the frame model (across its void when it has a partner
    node, else ``corner_push``) so that POM's stroke is ``displacement_mm``, and compare with POM
    (η = 1). ``axial_rigidity`` multiplies the struts' EA alone (100: practically
    inextensible)."""
    _check_inputs(displacement_mm, strut_m, young_pa, driven, axial_rigidity)
    pom = PlanesOfMotion(structure)
    actuator = structure.actuators[0]
    _one_piece(pom, actuator)
    frame = _frame(pom, strut_m, young_pa, axial_rigidity)
    if actuator.partner is None:
        _corner_push(frame, pom, actuator, displacement_mm)
    else:
        _across_void(frame, pom, actuator, displacement_mm, driven)
    frame.analyze_linear(check_stability=False)
    fe = _displacements_mm(frame, len(pom.nodes))
    if actuator.partner is not None:  # the fixed end's rigid motion out: both ends move q apart
        fe = fe * (2 * displacement_mm / fe[pom.index[actuator.node], actuator.stroke])
        fe[:, actuator.stroke] -= displacement_mm
    voxels = tuple(int(n) for n in np.ptp(structure.voxels, axis=0) // 2 + 1)
    return _compare(pom, actuator, fe, pom.forward([displacement_mm]), voxels)


def _displacements_mm(frame, count: int) -> np.ndarray:
    """(count, 3) the solved translations of nodes n0 … in mm."""
    nodes = [frame.nodes[f'n{k}'] for k in range(count)]
    return 1000 * np.array([[getattr(n, f'D{a}')['Combo 1'] for a in 'XYZ'] for n in nodes])


def ideality(result: FECheck) -> float | None:
    """The η a POM model of a structure this size can take instead of assuming one: the frame's
    least-squares scale against POM (0.971 on the paper's 4 x 4 x 1 layer); None where POM's
    pattern itself misses more than PATTERN_HOLDS of the motion."""
    return result.scale if result.residual_share <= PATTERN_HOLDS else None


def _check_inputs(displacement_mm, strut_m, young_pa, driven, axial_rigidity) -> None:
    if (
        not all(np.isfinite([displacement_mm, strut_m, young_pa, axial_rigidity]))
        or min(strut_m, young_pa, axial_rigidity) <= 0
        or displacement_mm == 0
    ):
        raise LatticeError(
            f'displacement {displacement_mm} mm, strut {strut_m} m, E {young_pa} Pa, axial '
            f'rigidity {axial_rigidity}: finite, non-zero, the others > 0'
        )
    if driven not in DRIVEN:
        raise LatticeError(f'driven {driven!r}: allowed {", ".join(DRIVEN)}')


def _one_piece(pom: PlanesOfMotion, actuator: Actuator) -> None:
    """LatticeError naming the voxels whose struts do not join the actuated one's: a piece that
    nothing holds has no static solution (its stiffness matrix is singular)."""
    pairs = drawing.beam_pairs(pom)
    joined = coo_matrix((np.ones(len(pairs)), pairs.T), shape=(len(pom.nodes),) * 2)
    count, piece = connected_components(joined, directed=False)
    if count == 1:
        return
    ours = piece[pom.index[actuator.node]]
    apart = [
        [int(c) for c in centre]
        for centre in pom.structure.voxels
        if piece[pom.index[tuple(voxel_nodes(centre)[0].tolist())]] != ours
    ]
    raise LatticeError(
        f'the struts form {count} pieces: voxel(s) at {apart} share no node with the one '
        f'{actuator.name} drives, and a frame the supports do not hold has no solution'
    )


def _frame(pom: PlanesOfMotion, strut_m: float, young_pa: float, axial_rigidity: float):
    """The struts as a PyNite frame, node k named 'n{k}' at ``pom.rest_m[k]``."""
    from Pynite import FEModel3D  # only this command needs the FE package

    frame = FEModel3D()
    for k, p in enumerate(pom.rest_m):
        frame.add_node(f'n{k}', *p)
    frame.add_material('strut', young_pa, young_pa / (2 * (1 + POISSON)), POISSON, DENSITY)
    inertia = strut_m**4 / 12
    area = axial_rigidity * strut_m**2
    frame.add_section('square', area, inertia, inertia, 0.1406 * strut_m**4)
    for k, (i, j) in enumerate(drawing.beam_pairs(pom)):
        frame.add_member(f'm{k}', f'n{i}', f'n{j}', 'strut', 'square')
    return frame


def _across_void(frame, pom, actuator: Actuator, displacement_mm: float, driven: str) -> None:
    """The paper's actuator: its partner node held, its control node's rotations held and driven
    along the stroke (by 1 N, scaled after the solve, or by the extension 2q)."""
    if actuator.partner not in pom.index or actuator.partner == actuator.node:
        raise LatticeError(
            f'actuator {actuator.name}: partner {actuator.partner} must be another node of the '
            f'lattice than its node {actuator.node}'
        )
    frame.def_support(f'n{pom.index[actuator.partner]}', *(True,) * 6)
    control = f'n{pom.index[actuator.node]}'
    frame.def_support(control, False, False, False, True, True, True)
    direction = AXES[actuator.stroke].upper()
    if driven == 'force':
        frame.add_node_load(control, f'F{direction}', 1.0)
    else:
        frame.def_node_disp(control, f'D{direction}', 2 * displacement_mm / 1000)


def _corner_push(frame, pom, actuator: Actuator, displacement_mm: float) -> None:
    """The control node displaced along its stroke; the apexes of the actuated voxel and of the
    farthest voxel of its plane pinned (the minimal support that leaves POM's rotation free)."""
    plane = pom.planes[0]
    voxels = sorted(plane.voxels)
    near = min(voxels, key=lambda v: np.abs(np.subtract(v, actuator.node)).sum())
    far = max(voxels, key=lambda v: np.abs(np.subtract(v, near)).sum())
    for voxel in (near, far):
        for side in (-1, 1):
            apex = tuple(c + side * (axis == plane.normal) for axis, c in enumerate(voxel))
            frame.def_support(f'n{pom.index[apex]}', True, True, True, False, False, False)
    direction = AXES[actuator.stroke].upper()
    frame.def_node_disp(f'n{pom.index[actuator.node]}', f'D{direction}', displacement_mm / 1000)


def _compare(pom, actuator: Actuator, fe, predicted, voxels) -> FECheck:
    plane = pom.planes[0]
    nodes = np.array(pom.nodes)
    in_plane = nodes[:, plane.normal] == plane.layer
    F, P = fe[in_plane], predicted[in_plane]
    moving = np.linalg.norm(P, axis=1) > 1e-9
    kept = np.linalg.norm(F[moving], axis=1) / np.linalg.norm(P[moving], axis=1)
    centre = np.mean([actuator.node, actuator.partner or actuator.node], axis=0)
    node_distance = np.abs(nodes[in_plane] - centre).sum(axis=1).round().astype(int)
    levels = np.unique(node_distance[moving])
    profile = [
        np.linalg.norm(F[moving & (node_distance == d)], axis=1).mean()
        / np.linalg.norm(P[moving & (node_distance == d)], axis=1).mean()
        for d in levels
    ]
    scale = float((F * P).sum() / (P * P).sum())
    signs = np.abs(P) > 1e-9
    return FECheck(
        voxels,
        'corner_push' if actuator.partner is None else 'void',
        float(1.0 - kept.min()),
        levels,
        np.array(profile),
        scale,
        float(np.linalg.norm(F - scale * P) / np.linalg.norm(F)),
        float(np.linalg.norm(fe[~in_plane]) / np.linalg.norm(fe)),
        float(np.mean(np.sign(F[signs]) == np.sign(P[signs]))),
        pom.rest_m[in_plane],
        F,
        P,
        node_distance,
        pom.rest_m[[pom.index[actuator.node], pom.index[actuator.partner or actuator.node]]],
    )
