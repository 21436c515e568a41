"""The Planes of Motion model against the spec's test vectors (A4, A6, A7): the quadruped's markers
under the eight reference strokes (η = 1 and 0.8), the connectivity rows, both worked examples, the
tripod gait's IK (the paper's Fig. 6 "POM output"), FK∘IK, representation independence, the uniform
e_d × p_n convention, rigid extensions, and every refusal in one line."""

from pathlib import Path

import numpy as np
import pytest

from pom_voxel import gaits
from pom_voxel.lattice import NODE_OFFSETS, A, LatticeError, node_axis, representation
from pom_voxel.planes_of_motion import PlanesOfMotion, _in_plane_nodes
from pom_voxel.structure import from_dict, load

CONFIG = Path(__file__).resolve().parents[3] / 'config' / 'pom.yaml'
MARKERS = ('marker_yr', 'marker_gr', 'marker_yb', 'marker_gb')
# spec A6: q = (blue, yellow, red, green) -> markers (1,3,4), (3,3,4), (1,1,4), (3,1,4), each (x,
# y, z) mm
VECTORS = [
    ((5, -5, 0, 0), [(0, 5, 0), (0, 0, 0), (5, -5, 0), (-5, 0, 0)]),
    ((5, -5, 5, -5), [(5, 5, 0), (-5, 5, 0), (5, -5, 0), (-5, -5, 0)]),
    ((0, 0, 5, -5), [(5, 0, 0), (-5, 5, 0), (0, 0, 0), (0, -5, 0)]),
    ((-5, 5, 5, -5), [(5, -5, 0), (-5, 5, 0), (-5, 5, 0), (5, -5, 0)]),
    ((-5, 5, 0, 0), [(0, -5, 0), (0, 0, 0), (-5, 5, 0), (5, 0, 0)]),
    ((-5, 5, -5, 5), [(-5, -5, 0), (5, -5, 0), (-5, 5, 0), (5, 5, 0)]),
    ((0, 0, -5, 5), [(-5, 0, 0), (5, -5, 0), (0, 0, 0), (0, 5, 0)]),
    ((5, -5, -5, 5), [(-5, 5, 0), (5, -5, 0), (5, -5, 0), (-5, 5, 0)]),
]


@pytest.fixture(scope='module')
def quadruped():
    return load(CONFIG)


@pytest.mark.parametrize('ideality', [1.0, 0.8])
@pytest.mark.parametrize('q, expected', VECTORS)
def test_the_quadrupeds_markers_follow_the_spec_vectors(quadruped, q, expected, ideality):
    markers = PlanesOfMotion(quadruped, ideality).effectors(q)
    assert np.array([markers[m] for m in MARKERS]) == pytest.approx(
        ideality * np.array(expected, dtype=float)
    )


def test_connectivity_rows_and_signs(quadruped):
    pom = PlanesOfMotion(quadruped)
    # σ_i in the canonical representation (spec A6)
    assert [p.sign for p in pom.planes] == [-1.0] * 4
    assert [(p.normal, p.layer) for p in pom.planes] == [(1, 1), (0, 1), (1, 3), (0, 3)]
    # c_i· against the markers: the non-zero component of each marker's row, divided by its A
    # column
    rows = {
        'blue': (0, 0, 1, -1),
        'yellow': (-1, 0, 1, 0),
        'red': (1, -1, 0, 0),
        'green': (0, -1, 0, 1),
    }
    for i, (actuator, plane) in enumerate(zip(quadruped.actuators, pom.planes)):
        c = []
        for name in MARKERS:
            node = quadruped.effectors[name]
            column = A[plane.normal][:, node_axis(node)]
            row = pom.rows(node)[:, i]
            c.append(0 if not np.any(row) else int(round(row @ column / (column @ column))))
        assert tuple(c) == rows[actuator.name]


def test_the_worked_examples_and_single_actuator_checks(quadruped):
    pom = PlanesOfMotion(quadruped)
    red, green = 2, 3
    # example 1: red up -> marker +x
    assert pom.rows((1, 3, 4))[:, red] == pytest.approx([1, 0, 0])
    # example 2: green up -> front-left down
    assert pom.rows((3, 4, 1))[:, green] == pytest.approx([0, 0, -1])
    assert pom.rows((2, 1, 3))[:, 0] == pytest.approx([0, 0, -1])  # the top partner moves -q
    x = dict(zip(map(tuple, pom.nodes), pom.forward((-5, 5, 0, 0))))
    assert x[(1, 3, 0)] == pytest.approx([0, -5, 0]) and x[(1, 1, 0)] == pytest.approx([-5, 5, 0])
    assert x[(3, 1, 0)] == pytest.approx([5, 0, 0]) and x[(3, 3, 0)] == pytest.approx([0, 0, 0])
    single = from_dict(
        {
            'voxels': [{'centre': v} for v in (np.argwhere(np.ones((2, 2, 2))) * 2 + 1).tolist()],
            'actuators': [{'name': 'top', 'node': [2, 1, 3], 'stroke': 'z'}],
        }
    )
    down = dict(
        zip(map(tuple, PlanesOfMotion(single).nodes), PlanesOfMotion(single).forward([-5]))
    )
    assert down[(0, 1, 3)] == pytest.approx([0, 0, 5]) and down[(1, 1, 4)] == pytest.approx(
        [5, 0, 0]
    )
    up = dict(zip(map(tuple, PlanesOfMotion(single).nodes), PlanesOfMotion(single).forward([5])))
    assert up[(4, 1, 3)] == pytest.approx([0, 0, -5]) and up[(1, 1, 2)] == pytest.approx([5, 0, 0])


def test_the_tripod_gaits_ik_is_the_papers_pom_output(quadruped):
    pom = PlanesOfMotion(quadruped)
    keys, solved = gaits.key_strokes(pom, gaits.TRIPOD)
    blue = [0, 5, 5, 0, -5, -5, -5, 0, 5]
    red = [0, 0, 5, 5, 5, 0, -5, -5, -5]
    expected = np.array([blue, [-v for v in blue], red, [-v for v in red]], dtype=float).T
    assert keys == pytest.approx(expected) and not any(s.saturated.any() for s in solved)
    lateral = gaits.trajectories(pom, keys)
    # spec A7: back-left x = +red
    assert lateral['back_left'][:, 0] == pytest.approx(red)
    # back-right y = +green
    assert lateral['back_right'][:, 1] == pytest.approx([-v for v in red])
    assert lateral['marker_yr'][:, 1] == pytest.approx(blue)
    # the front feet: z as designed, the toes of the extension voxels rigidly with them
    assert lateral['front_left'][1:, 2] == pytest.approx([g[0] for g in gaits.TRIPOD.cycle])
    assert lateral['front_left_toe'] == pytest.approx(lateral['front_left'])
    backwards, _ = gaits.key_strokes(pom, gaits.TRIPOD, reverse=True)
    assert backwards[1:] == pytest.approx(keys[:0:-1])


def test_forward_after_inverse_is_the_identity_on_the_chosen_dofs(quadruped):
    pom = PlanesOfMotion(quadruped, ideality=0.8)
    rng = np.random.default_rng(1)
    dofs = [(quadruped.effectors[n], a) for n, a in gaits.TRIPOD.dofs]
    for _ in range(20):
        target = rng.uniform(-3, 3, 4)
        q = pom.inverse(dofs, target).q
        x = pom.forward(q)
        assert [x[pom.index[node], 'xyz'.index(axis)] for node, axis in dofs] == pytest.approx(
            target
        )
    # beyond ±5 mm: clipped, reported
    strokes = pom.inverse(dofs, [0, 0, 8, 0])
    assert strokes.saturated.tolist() == [False, True, False, False] and strokes.q[1] == -5.0
    assert strokes.report([a.name for a in quadruped.actuators]) == 'saturated at ±5 mm: yellow'


def test_representation_and_sign_convention_do_not_change_the_physics(quadruped):
    """Eq. (1) evaluated with the other representation of every node (effector and control node
    alike, spec A4 items 7 and 10), and with the uniform matrices e_d × p_n, gives the
    displacements J holds."""
    pom = PlanesOfMotion(quadruped)
    uniform = np.array([np.cross(np.eye(3)[d], NODE_OFFSETS).T for d in range(3)])
    assert uniform[0] == pytest.approx(A[0]) and uniform[1] == pytest.approx(-A[1])
    assert uniform[2] == pytest.approx(-A[2])
    for i, (actuator, plane) in enumerate(zip(quadruped.actuators, pom.planes)):
        for matrices in (A, uniform):
            for control_side in (False, True):
                v_i, n_i = representation(actuator.node, plus_side=control_side)
                sigma = matrices[plane.normal][actuator.stroke, n_i]
                for node in _in_plane_nodes(plane).tolist():
                    for side in (False, True):
                        v_j, n_j = representation(node, plus_side=side)
                        parity = (-1) ** (np.abs(v_j - v_i).sum() // 2)
                        assert sigma * parity * matrices[plane.normal][:, n_j] == pytest.approx(
                            pom.rows(node)[:, i]
                        )


def test_plane_extent_follows_connectivity_and_skips_extensions(quadruped):
    pom = PlanesOfMotion(quadruped)
    red = pom.planes[2]
    # not the extension (5, 3, 1)
    assert red.voxels == {(1, 3, 1), (3, 3, 1), (1, 3, 3), (3, 3, 3)}
    assert all(n[red.normal] == red.layer for n in _in_plane_nodes(red).tolist())
    # two layers apart with a gap: an actuator in one does not move the other
    split = from_dict(
        {
            'voxels': [{'centre': [1, 1, 1]}, {'centre': [5, 1, 1]}],
            'actuators': [
                {'name': 'a', 'node': [2, 1, 1], 'stroke': 'z'},
                {'name': 'b', 'node': [6, 1, 1], 'stroke': 'z'},
            ],
        }
    )
    model = PlanesOfMotion(split)
    assert (
        model.rows((4, 1, 1))[:, 0] == pytest.approx([0, 0, 0])
        and model.rows((4, 1, 1))[:, 1].any()
    )


@pytest.mark.parametrize(
    'change, message',
    [
        (
            lambda d: d['actuators'].append({'name': 'x', 'node': [2, 3, 3], 'stroke': 'z'}),
            'actuators red and x drive the same plane (y = 3): the system is overdetermined',
        ),
        (
            lambda d: d['actuators'][0].update(stroke='x'),
            'stroke x is the axis of its node (2, 1, 1)',
        ),
        (
            lambda d: d['actuators'][0].update(node=[2, 2, 1]),
            'node (2, 2, 1): a lattice node has exactly one even',
        ),
        (
            lambda d: d['actuators'][0].update(node=[2, 1.5, 1]),
            'expected [x, y, z], three integers',
        ),
        (
            lambda d: d['voxels'].append({'centre': [2, 1, 1]}),
            'voxel (2, 1, 1): a voxel centre is three odd integers',
        ),
        (
            lambda d: d['actuators'][0].update(node=[8, 1, 1]),
            'node (8, 1, 1) is not a node of a (non-extension) voxel',
        ),
        (lambda d: d['actuators'][0].update(stroke='w'), "stroke = 'w': expected one of x, y, z"),
    ],
)
def test_bad_structures_are_refused_in_one_line(change, message):
    import yaml

    data = yaml.safe_load(CONFIG.read_text())
    change(data)
    with pytest.raises(LatticeError, match=__import__('re').escape(message)):
        PlanesOfMotion(from_dict(data))


def test_bad_kinematic_requests_are_refused_in_one_line(quadruped):
    pom = PlanesOfMotion(quadruped)
    feet = [(quadruped.effectors['front_left'], 'z'), (quadruped.effectors['back_left'], 'y')]
    with pytest.raises(LatticeError, match=r'leave the plane\(s\) of blue, red unpinned'):
        pom.inverse(feet, [1, 1])
    # two DOFs in green's plane asking different strokes
    both = feet + [((3, 4, 3), 'z')]
    with pytest.raises(LatticeError, match='cannot all be met'):
        pom.inverse(
            both
            + [
                (quadruped.effectors['back_right'], 'x'),
                (quadruped.effectors['front_right'], 'z'),
            ],
            [1, 1, 1, 0, 0],
        )
    # a list as written, not numpy's [np.float64(1.0), ...]
    with pytest.raises(
        LatticeError, match=r'^q = \[1.0, 2.0, nan, 0.0\]: expected 4 finite values'
    ):
        pom.forward([1, 2, np.nan, 0])
    many = [(quadruped.effectors['front_left'], 'z')] * 10_000
    with pytest.raises(LatticeError) as refused:
        pom.inverse(many, np.zeros(10_000))
    assert len(str(refused.value)) < 600 and '... (10000 DOFs)' in str(refused.value)
    with pytest.raises(LatticeError, match=r'node \(9, 9, 8\): not a node of the structure'):
        pom.rows((9, 9, 8))
    with pytest.raises(LatticeError, match='ideality = 0: allowed range is'):
        PlanesOfMotion(quadruped, 0)
    with pytest.raises(LatticeError, match="axis 'w'"):
        pom.inverse([(quadruped.effectors['front_left'], 'w')], [1])
