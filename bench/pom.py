"""Planes of Motion kinematics on a large lattice (pom_voxel): how long J takes to build and one
kinematic step.

A 20 x 20 x 20 lattice (8,000 voxels, 75,600 node DOFs) with 40 actuators, each on its own plane:
vertical strokes on bottom nodes, 20 in planes of normal y and 20 of normal x.
``jacobian_build_ms``: the sparse J from the structure (target < 200 ms). ``fk_step_us``: every
node's displacement for one stroke vector, and ``ik_step_us``: strokes for one target per plane
with ``PlanesOfMotion.solver`` (the DOFs checked and factorised once: a controller's per-tick
work), each the median of 2,000 (target < 50 µs: a 1 kHz controller with room to spare).
``fk_step_quadruped_us``: the same on the quadruped. ``pom_vs_fe_speedup``: one finite-element
frame solve of a 6 x 6 x 1 layer (pom-fe-check, the paper's route to POM) over one POM forward step
of the same layer, in the same run.
"""

import json
import statistics
import time
from pathlib import Path

import numpy as np

from pom_voxel.planes_of_motion import PlanesOfMotion
from pom_voxel.structure import Actuator, Structure, load

SIDE, REPEATS = 20, 2000
CONFIG = Path(__file__).resolve().parents[1] / 'config' / 'pom.yaml'


def lattice() -> tuple[Structure, list]:
    """The lattice and one IK DOF per actuator's plane: a bottom-layer z-node of that plane, which
    the rotating squares move across it (x for planes of normal y, y for normal x)."""
    voxels = np.argwhere(np.ones((SIDE, SIDE, SIDE))) * 2 + 1
    actuators, dofs = [], []
    for k in range(SIDE):
        actuators += [
            Actuator(f'y{k}', (2, 2 * k + 1, 1), 2, None),
            Actuator(f'x{k}', (2 * k + 1, 2, 1), 2, None),
        ]
        dofs += [((3, 2 * k + 1, 2), 'x'), ((2 * k + 1, 3, 2), 'y')]
    return Structure(voxels.astype(int), np.zeros(len(voxels), bool), tuple(actuators), {}), dofs


def median_us(step) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return 1e6 * statistics.median(times)


def fe_speedup() -> dict:
    """One frame solve of a 6 x 6 x 1 layer (pom-fe-check) against one POM forward step of the same
    layer."""
    import Pynite  # noqa: F401  (imported before the clock starts)

    from pom_voxel.fe_check import box, check

    layer = box(6, 6, 1)
    started = time.perf_counter()
    check(layer)
    fe_s = time.perf_counter() - started
    pom = PlanesOfMotion(layer)
    pom_s = median_us(lambda: pom.forward([1.0])) * 1e-6
    return {
        'fe_solve_6x6x1_ms': round(1e3 * fe_s, 1),
        'pom_fk_6x6x1_us': round(1e6 * pom_s, 1),
        'pom_vs_fe_speedup': round(fe_s / pom_s),
    }


def main() -> None:
    structure, dofs = lattice()
    builds = []
    for _ in range(5):
        started = time.perf_counter()
        pom = PlanesOfMotion(structure)
        builds.append(time.perf_counter() - started)
    q = np.linspace(-5, 5, len(structure.actuators))
    # checked and factorised once: the DOFs stay, the targets stream
    solve = pom.solver(dofs)
    target = np.array([pom.forward(q)[pom.index[node], 'xyz'.index(axis)] for node, axis in dofs])
    assert np.allclose(solve(target).q, q)
    quadruped = PlanesOfMotion(load(CONFIG))
    fk, ik = median_us(lambda: pom.forward(q)), median_us(lambda: solve(target))
    build = 1e3 * statistics.median(builds)
    print(
        json.dumps(
            {
                'voxels': len(structure.voxels),
                'actuators': len(structure.actuators),
                'node_dofs': pom.J.shape[0],
                'jacobian_nonzeros': int(pom.J.nnz),
                'jacobian_build_ms': round(build, 1),
                'fk_step_us': round(fk, 1),
                'ik_step_us': round(ik, 1),
                'fk_step_quadruped_us': round(median_us(lambda: quadruped.forward(np.ones(4))), 1),
                'targets': 'jacobian_build_ms < 200, fk_step_us and ik_step_us < 50',
                'met': build < 200 and fk < 50 and ik < 50,
                **fe_speedup(),
            },
            indent=1,
        )
    )


if __name__ == '__main__':
    main()
