"""POM against finite elements (the paper's Fig. 2): on a 3 x 3 layer the frame model moves every
node of the actuated plane the way POM says, within the share it reports as not captured; the
command writes it down."""

import json

import numpy as np
import pytest

from pom_voxel import cli
from pom_voxel.fe_check import box, check
from pom_voxel.lattice import LatticeError


def test_a_small_layer_moves_as_pom_says():
    result = check(box(3, 3, 1), displacement_mm=1.0)
    # every component in the direction POM predicts
    assert result.sign_agreement == 1.0
    assert 0.85 < result.scale < 1.0  # the frame resists a little: an η below 1
    # the paper: at most 4.9 % lost
    assert result.residual_share < 0.05 and result.apex_share < 0.049
    # the actuated voxel follows best
    assert result.fe_over_pom[0] > result.fe_over_pom[-1]
    assert result.fe_mm[np.argmax(np.abs(result.pom_mm[:, 1]))][1] == pytest.approx(1.0, abs=0.05)


def test_the_command_writes_json_and_the_figure(tmp_path, capsys):
    out = tmp_path / 'fe.json'
    assert (
        cli.fe_check_main(['--voxels', '2,2,1', '--json', str(out), '--plots', str(tmp_path)]) == 0
    )
    doc = json.loads(out.read_text())
    assert (
        doc['voxels'] == [2, 2, 1]
        and doc['sign_agreement'] == 1.0
        and doc['residual_share'] < 0.05
    )
    assert (tmp_path / 'fig2_fe_vs_pom.png').read_bytes()[:4] == b'\x89PNG'
    assert 'not captured' in capsys.readouterr().err


@pytest.mark.parametrize(
    'voxels, message',
    [
        ('3,3', 'expected NX,NY,NZ'),
        ('30,30,1', 'at most 400 voxels'),
        ('0,2,1', 'each count >= 1'),
    ],
)
def test_bad_boxes_are_refused_in_one_line(voxels, message, capsys):
    assert cli.fe_check_main(['--voxels', voxels]) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and message in err


def test_the_shape_of_the_deformation_does_not_depend_on_the_material():
    """A linear frame with one enforced displacement: stiffness scales every force, not the
    displacements."""
    soft, stiff = check(box(2, 2, 1), young_pa=1e9), check(box(2, 2, 1), young_pa=2e11)
    assert stiff.fe_mm == pytest.approx(soft.fe_mm, abs=1e-9)
    # the section does
    assert check(box(2, 2, 1), strut_m=3e-3).scale != pytest.approx(soft.scale, abs=1e-6)


def test_a_zero_displacement_is_refused():
    with pytest.raises(LatticeError, match='non-zero'):
        check(box(2, 2, 1), displacement_mm=0.0)
