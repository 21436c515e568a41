"""urdf/soft_snake.urdf.xacro, what rviz2 draws, against the simulator's MuJoCo body: the same bend
joints, and every plate and wheel where the simulator has it for any bend, with the calibrated
sizes or a parameter file's."""

import dataclasses
import io
from pathlib import Path

import mujoco
import numpy as np
import pytest
import xacro
import yaml
import yourdfpy

from soft_snake import calibration, drawing, simulator

ROOT = Path(__file__).resolve().parents[3]
# a robot of other sizes, as a user's parameter file gives them
OTHER_SIZES = {
    'segment_length_m': 0.09,
    'plate_length_m': 0.04,
    'end_plate_length_m': 0.065,
    'wheel_radius_m': 0.015,
    'body_radius_m': 0.03,
    'axis_height_m': 0.04,
    'wheel_track_m': 0.1,
}


def urdf(segments, parameters_file=''):
    mappings = {'segments': str(segments), 'body_parameters_file': str(parameters_file)}
    text = xacro.process_file(str(ROOT / 'urdf' / 'soft_snake.urdf.xacro'), mappings=mappings)
    return yourdfpy.URDF.load(io.StringIO(text.toxml()), build_scene_graph=True, load_meshes=False)


def in_head_frame(sim, name):
    """Body ``name``'s position in the head plate's frame (the URDF's base_link)."""
    head = sim.model.body('plate0').id
    rotation = sim.data.xmat[head].reshape(3, 3)
    return rotation.T @ (sim.data.xpos[sim.model.body(name).id] - sim.data.xpos[head])


def wheel_in_plate(model, plate):
    """The left wheel's centre in its plate's frame (the URDF draws wheels as visuals)."""
    return model.link_map[f'plate{plate}'].visuals[1].origin[:3, 3]


@pytest.mark.parametrize('segments', [3, 4, 5])
@pytest.mark.parametrize('sizes', [{}, OTHER_SIZES], ids=['calibrated', 'other sizes'])
def test_the_drawn_snake_is_the_simulated_one_for_any_bend(segments, sizes, tmp_path):
    source = ''
    if sizes:
        source = tmp_path / 'params.yaml'
        source.write_text(yaml.safe_dump(sizes))
    model = urdf(segments, source)
    assert model.actuated_joint_names == drawing.joint_names(segments)
    params = dataclasses.replace(calibration.CALIBRATED, **sizes)
    sim = simulator.SnakeSim(segments, 'paper', params)
    bends = np.random.default_rng(segments).uniform(-0.6, 0.6, 6 * segments)
    sim.data.qpos[sim._bend_qpos] = bends
    mujoco.mj_kinematics(sim.model, sim.data)
    model.update_cfg(bends)
    for plate in range(segments + 1):
        drawn = model.get_transform(f'plate{plate}', 'base_link')
        assert drawn[:3, 3] == pytest.approx(in_head_frame(sim, f'plate{plate}'), abs=1e-9)
        assert wheel_in_plate(model, plate) == pytest.approx(
            sim.model.body(f'wheel{plate}_l').pos, abs=1e-9
        )
    model.update_cfg(np.zeros(6 * segments))
    tail = model.get_transform(f'plate{segments}', 'base_link')[0, 3]
    assert tail - params.end_plate_length_m == pytest.approx(-params.length_m(segments))


def test_a_parameter_file_that_is_not_there_fails_the_description_by_its_name(tmp_path):
    with pytest.raises(xacro.XacroException, match='missing.yaml'):
        urdf(4, tmp_path / 'missing.yaml')
