"""urdf/pom.urdf.xacro agrees with config/pom.yaml: an actuator joint per actuator, named as
pom_controller's joint_states names them, at its control node with its stroke limits; a link per
top marker at its rest node."""

import io
from pathlib import Path

import numpy as np
import pytest
import xacro
import yourdfpy

from pom_voxel import structure
from pom_voxel.planes_of_motion import STROKE_LIMIT_MM

ROOT = Path(__file__).resolve().parents[3]


def test_the_urdf_is_the_structure_files_quadruped():
    quadruped = structure.load(ROOT / 'config' / 'pom.yaml')
    text = xacro.process_file(str(ROOT / 'urdf' / 'pom.urdf.xacro')).toxml()
    model = yourdfpy.URDF.load(io.StringIO(text), build_scene_graph=True, load_meshes=False)
    half = quadruped.pitch_m / 2
    assert sorted(model.actuated_joint_names) == sorted(a.name for a in quadruped.actuators)
    for actuator in quadruped.actuators:
        joint = model.joint_map[actuator.name]
        assert joint.origin[:3, 3] == pytest.approx(np.array(actuator.node) * half)
        limit = STROKE_LIMIT_MM / 1000
        assert (joint.limit.lower, joint.limit.upper) == pytest.approx((-limit, limit))
    for name in ('marker_yr', 'marker_gr', 'marker_yb', 'marker_gb'):
        at = model.get_transform(name, 'base_link')[:3, 3]
        assert at == pytest.approx(np.array(quadruped.effectors[name]) * half)
