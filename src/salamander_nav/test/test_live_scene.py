"""The planner's scene at run time (live_scene.py), without ROS: a map replaces the scene file's
obstacles, a turned map is planned on in the map frame, and a tilted or broken origin is
refused."""

import math

import numpy as np
import pytest

from salamander_nav.live_scene import LiveScene, aligned_grid, map_yaw
from salamander_nav.scene import SceneError, scene_from_dict

# the scene file's obstacle: a circle in the middle of a 1 m square
SCENE = scene_from_dict({'bounds': [0, 0, 1, 1], 'resolution': 0.01, 'circles': [[0.5, 0.5, 0.1]]})


def test_a_map_replaces_the_scene_files_obstacles():
    """Issue 28: after a map, the default scene's circle stayed in the field (2,926 occupied cells
    on an all-free map)."""
    world = LiveScene(SCENE)
    world.set_map(np.zeros((100, 200), bool), (-1.0, 0.0), 0.01)
    field = world.field()
    assert field.shape == (100, 200) and np.count_nonzero(field.occupied) == 0
    assert field.clearance([0.5, 0.5]) > 0.4  # where the scene file's circle was: free
    assert world.scene.circles.shape == (0, 3) and world.scene.polygons == ()


def test_obstacles_given_as_a_message_stay_on_a_later_map():
    world = LiveScene(SCENE)
    world.set_obstacles(np.array([[0.2, 0.2, 0.05]]), [])
    world.set_map(np.zeros((100, 100), bool), (0.0, 0.0), 0.01)
    field = world.field()
    assert field.clearance([0.2, 0.2]) < 0 and field.clearance([0.5, 0.5]) > 0


def test_each_change_counts_and_a_restored_snapshot_takes_its_count_back():
    world = LiveScene(SCENE)
    before = world.snapshot()
    world.set_obstacles(np.zeros((0, 3)), [])
    world.set_map(np.zeros((50, 50), bool), (0.0, 0.0), 0.02)
    assert world.version == 2
    world.restore(before)
    assert world.version == 0 and world.field().clearance([0.5, 0.5]) < 0


@pytest.mark.parametrize(
    ('yaw_deg', 'wall'),
    [(90, 'row 5'), (180, 'col 14'), (-90, 'row 14'), (0, 'col 5')],
)
def test_a_map_turned_by_right_angles_lands_on_whole_cells(yaw_deg, wall):
    """A 10 × 20 map with a wall at column 5, turned about its corner (1, 2): the wall lies where
    the turn puts it, as whole cells, and nothing else is occupied."""
    occupied = np.zeros((10, 20), bool)
    occupied[:, 5] = True
    aligned, origin = aligned_grid(occupied, (1.0, 2.0), 0.1, math.radians(yaw_deg))
    axis, index = wall.split()
    expected = np.zeros_like(aligned)
    if axis == 'row':
        expected[int(index), :] = True
    else:
        expected[:, int(index)] = True
    assert np.array_equal(aligned, expected), aligned.astype(int)
    # the map's corner (1, 2) is a corner of the aligned grid's bounding box
    corner_of = {90: (0.0, 2.0), 180: (-1.0, 1.0), -90: (1.0, 0.0), 0: (1.0, 2.0)}
    assert origin == pytest.approx(corner_of[yaw_deg])


def test_a_turned_map_puts_its_obstacle_where_the_origin_says():
    """A disc drawn in the map's own cells at (0.6, 0.3) m, the map turned 30° about its corner
    (2, 1): the planner's field has it at corner + R(30°)·(0.6, 0.3), in the map frame."""
    resolution, yaw = 0.01, math.radians(30.0)
    rows, cols = np.mgrid[0:60, 0:120]
    local = np.stack([(cols + 0.5) * resolution, (rows + 0.5) * resolution], -1)
    occupied = np.hypot(*np.moveaxis(local - (0.6, 0.3), -1, 0)) <= 0.08
    world = LiveScene(SCENE)
    world.set_map(occupied, (2.0, 1.0), resolution, yaw)
    c, s = math.cos(yaw), math.sin(yaw)
    centre = np.array([2.0 + c * 0.6 - s * 0.3, 1.0 + s * 0.6 + c * 0.3])
    field = world.field()
    assert field.clearance(centre) < -0.06
    # its edge within a cell of 8 cm from the centre, every way round
    for angle in np.linspace(0, 2 * math.pi, 16, endpoint=False):
        direction = np.array([math.cos(angle), math.sin(angle)])
        assert field.clearance(centre + 0.1 * direction) == pytest.approx(0.02, abs=0.015)


def test_a_map_origin_yaw_is_read_from_its_quaternion():
    half = math.radians(25.0)
    assert map_yaw(0.0, 0.0, math.sin(half), math.cos(half)) == pytest.approx(math.radians(50.0))
    assert map_yaw(0.0, 0.0, 0.0, 2.0) == 0.0  # not normalised: still no turn


@pytest.mark.parametrize(
    ('quaternion', 'words'),
    [
        ((0.0, 0.0, 0.0, 0.0), 'non-zero quaternion'),
        ((math.nan, 0.0, 0.0, 1.0), 'finite'),
        ((math.sin(0.05), 0.0, 0.0, math.cos(0.05)), 'out of the plane'),
    ],
)
def test_a_map_origin_that_is_not_a_floor_plans_turn_is_refused(quaternion, words):
    with pytest.raises(SceneError, match=words):
        map_yaw(*quaternion)
