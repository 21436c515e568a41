"""urdf/terresoro.urdf.xacro expands for both robots, names the joints the executor publishes, is
one body length across when flat, and rolls its limbs down and in under the hub when they curl."""

import io
from pathlib import Path

import numpy as np
import pytest
import xacro
import yourdfpy

from terresoro_gait.limbs import curl_joint_positions, joint_names

XACRO = Path(__file__).resolve().parents[3] / 'urdf' / 'terresoro.urdf.xacro'
BODY_LENGTH_M = {3: 0.220, 4: 0.350}  # paper VI-A: the flat robot's largest dimension


def robot(limbs: int) -> yourdfpy.URDF:
    text = xacro.process_file(str(XACRO), mappings={'limbs': str(limbs)}).toxml()
    return yourdfpy.URDF.load(io.StringIO(text), build_scene_graph=True, load_meshes=False)


def points(
    model: yourdfpy.URDF, limbs: int, curl: float, segment: int = 3, end: bool = True
) -> np.ndarray:
    """(limbs, 3): the far end (or the start) of each limb's ``segment`` in base_link at the given
    curl."""
    model.update_cfg(dict(zip(joint_names(limbs), curl_joint_positions([curl] * limbs))))
    length = model.joint_map['limb1_joint2'].origin[0, 3]
    point = np.array([length if end else 0.0, 0.0, 0.0, 1.0])
    return np.array(
        [
            (model.get_transform(f'limb{k}_segment{segment}', 'base_link') @ point)[:3]
            for k in range(1, limbs + 1)
        ]
    )


def tips(model: yourdfpy.URDF, limbs: int, curl: float) -> np.ndarray:
    return points(model, limbs, curl)


@pytest.mark.parametrize('limbs', [3, 4])
def test_joints_match_the_executor_and_the_body_length(limbs):
    model = robot(limbs)
    assert sorted(model.actuated_joint_names) == sorted(joint_names(limbs))
    flat = tips(model, limbs, 0.0)
    reach = np.linalg.norm(flat[:, :2], axis=1)
    assert reach == pytest.approx(BODY_LENGTH_M[limbs] / 2)
    angles = np.degrees(np.arctan2(flat[:, 1], flat[:, 0])) % 360
    # limb 1 along x, then CCW
    assert angles == pytest.approx(np.arange(limbs) * 360 / limbs, abs=1e-6)


@pytest.mark.parametrize('limbs', [3, 4])
def test_curled_limbs_roll_down_and_in(limbs):
    model = robot(limbs)
    curled = tips(model, limbs, 1.0)
    assert np.all(np.linalg.norm(curled[:, :2], axis=1) < 0.5 * BODY_LENGTH_M[limbs] / 2)
    # the bend between segments 1 and 2
    middle = points(model, limbs, 1.0, segment=2, end=False)
    assert np.all(middle[:, 2] < -0.5 * model.joint_map['limb1_joint2'].origin[0, 3])
    limits = [model.joint_map[j].limit.upper for j in joint_names(limbs)]
    assert max(curl_joint_positions([1.0] * limbs)) <= min(limits)
