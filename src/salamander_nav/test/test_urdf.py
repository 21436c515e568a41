"""urdf/salamander.urdf.xacro: the joints salamander_controller publishes (body_bend_1..4, a
quarter of the 106° bend each), a body of 148 mm, and a bend that adds up to the module's: the back
wheel set turned by θ and on the arc of length 148 mm and curvature θ / 148 mm (the circle the
robot drives on) within what four straight segments allow."""

import io
import math
from pathlib import Path

import numpy as np
import pytest
import xacro
import yourdfpy

from salamander_nav import tracking
from salamander_nav.origami import THETA_MAX_RAD, Bend

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope='module')
def model():
    text = xacro.process_file(str(ROOT / 'urdf' / 'salamander.urdf.xacro')).toxml()
    return yourdfpy.URDF.load(io.StringIO(text), build_scene_graph=True, load_meshes=False)


def test_the_bend_joints_are_the_controllers(model):
    assert model.actuated_joint_names == tracking.joint_names()
    for name in model.actuated_joint_names:
        limit = model.joint_map[name].limit
        assert (limit.lower, limit.upper) == pytest.approx((-THETA_MAX_RAD / 4, THETA_MAX_RAD / 4))


def test_straight_the_back_wheels_are_a_body_length_behind(model):
    model.update_cfg(np.zeros(4))
    back = model.get_transform('back_set', 'base_link')
    assert back[:2, 3] == pytest.approx([-0.148, 0.0], abs=1e-9)


@pytest.mark.parametrize('theta_deg, phi', [(90, math.pi), (60, 0.0), (106, math.pi)])
def test_a_bend_turns_the_back_wheel_set_by_theta_and_follows_the_arc(model, theta_deg, phi):
    bend = Bend(0.148, math.radians(theta_deg), phi)
    model.update_cfg(np.array(tracking.bend_joints(bend)))
    back = model.get_transform('back_set', 'base_link')
    planar = math.radians(theta_deg) * (1 if phi else -1)
    # the back wheel set drives on the same circle, a bend θ earlier: its heading is -θ from the
    # front's
    assert math.atan2(back[1, 0], back[0, 0]) == pytest.approx(-planar, abs=1e-9)
    # the arc backwards from the front wheel set: x = -sin(θ)/κ, y = (1 - cos θ)/κ (turning left: y
    # > 0)
    kappa = planar / 0.148
    arc = np.array([-math.sin(planar) / kappa, (1 - math.cos(planar)) / kappa])
    # four chords against the arc: 1.7 mm off at 90°, 2.3 mm at the 106° limit (joints half a
    # segment in)
    assert np.hypot(*(back[:2, 3] - arc)) < 0.003
