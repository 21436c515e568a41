"""Scenes, occupancy grids and the one signed-distance field (issue 15, item 2)."""

import math
import re

import numpy as np
import pytest
import yaml
from matplotlib.path import Path as Polygon

from salamander_nav import planning
from salamander_nav.distance_field import (
    DistanceField,
    cell_centres,
    check_grid,
    grid_occupancy,
    inside_polygon,
    rasterise,
)
from salamander_nav.scene import SceneError, load_scene, scene_from_dict, scene_to_dict

SCENE = {
    'bounds': [0, 0, 2, 1],
    'resolution': 0.01,
    'circles': [[1.0, 0.5, 0.2]],
    'polygons': [[[0.2, 0.2], [0.4, 0.2], [0.3, 0.4]]],
    'start': [0.1, 0.5, 90],
    'goal': [1.9, 0.5, 0],
}


def test_scene_round_trip_and_units(tmp_path):
    path = tmp_path / 'scene.yaml'
    path.write_text(yaml.safe_dump(SCENE))
    scene = load_scene(path)
    assert scene.shape == (100, 200) and scene.start[2] == pytest.approx(math.pi / 2)
    again = scene_from_dict(scene_to_dict(scene))
    assert again.bounds == scene.bounds and again.resolution == scene.resolution
    np.testing.assert_allclose(again.circles, scene.circles)
    np.testing.assert_allclose(again.polygons[0], scene.polygons[0])
    np.testing.assert_allclose([again.start, again.goal], [scene.start, scene.goal])


def test_signed_distance_to_a_circle_and_its_gradient():
    field = DistanceField.from_scene(scene_from_dict({**SCENE, 'polygons': []}))
    points = np.array([[1.5, 0.5], [1.0, 0.78], [1.25, 0.5], [1.05, 0.5]])
    d, grad = field.query(points)
    exact = np.hypot(*(points - [1.0, 0.5]).T) - 0.2
    np.testing.assert_allclose(d[:3], exact[:3], atol=0.6 * field.resolution)
    assert d[3] < 0  # inside
    np.testing.assert_allclose(grad[:2], [[1, 0], [0, 1]], atol=0.05)  # away from the obstacle


def test_the_map_edge_is_a_wall():
    field = DistanceField.from_scene(scene_from_dict({'bounds': [0, 0, 1, 1], 'resolution': 0.01}))
    d, grad = field.query([[0.5, 0.5], [0.02, 0.5], [-0.1, 0.5]])
    assert d[0] == pytest.approx(0.495, abs=0.006) and d[1] == pytest.approx(0.015, abs=0.006)
    assert d[2] < -0.09 and grad[2] == pytest.approx([1, 0])


def test_the_depth_inside_obstacles_is_the_whole_grids_transform_region_by_region():
    """The field transforms each obstacle region apart; it must equal one transform of the whole
    walled grid: regions that touch diagonally, touch the edge, nest in another's box or are one
    cell."""
    from scipy import ndimage

    rng = np.random.default_rng(3)
    occupied = ndimage.binary_dilation(rng.random((60, 80)) < 0.02, iterations=2)
    occupied[0:5, 10:14] = occupied[30, 40] = True  # on the edge; a lone cell
    occupied[20:26, 60:66], occupied[26:30, 66:70] = True, True  # corner to corner
    occupied[40:55, 5:20], occupied[45:50, 10:15] = True, False  # a ring round a free hole
    occupied[47, 12] = True  # an island in the hole
    walled = np.pad(occupied, 1, constant_values=True)
    inside = ndimage.distance_transform_edt(walled)[1:-1, 1:-1]
    outside = ndimage.distance_transform_edt(~walled)[1:-1, 1:-1]
    whole = np.where(occupied, 0.5 - inside, outside - 0.5) * 0.01
    np.testing.assert_array_equal(DistanceField(occupied, (0, 0), 0.01).distance, whole)


def test_polygon_and_grid_give_the_same_field():
    scene = scene_from_dict(SCENE)
    occupied = rasterise(scene)
    data = np.where(occupied, 100, 0).ravel().tolist()
    from_grid = DistanceField(grid_occupancy(data, 200, 100), scene.bounds[:2], scene.resolution)
    np.testing.assert_array_equal(from_grid.distance, DistanceField.from_scene(scene).distance)
    assert (
        occupied[int(0.25 / 0.01), int(0.3 / 0.01)]
        and not occupied[int(0.45 / 0.01), int(0.3 / 0.01)]
    )


def test_unknown_cells_count_as_occupied_unless_told():
    grid = grid_occupancy([0, -1, 49, 50], 2, 2)
    assert grid.tolist() == [[False, True], [False, True]]
    assert grid_occupancy([0, -1, 49, 50], 2, 2, unknown_is_occupied=False).tolist() == [
        [False, False],
        [False, True],
    ]


@pytest.mark.parametrize(
    'change, message',
    [
        ({'bounds': [0, 0, -1, 1]}, 'xmin < xmax'),
        ({'resolution': 0}, 'resolution'),
        ({'circles': [[0, 0, -1]]}, 'radius'),
        ({'circles': [[0, 0]]}, 'shape'),
        ({'polygons': [[[0, 0], [1, 1]]]}, 'at least 3'),
        ({'start': [0, float('nan'), 0]}, 'not finite'),
        ({'walls': []}, 'unknown scene field'),
        ({'bounds': [0, 0, 100, 100], 'resolution': 0.001}, 'cells'),
        ({'goal': 'north'}, 'goal'),
        ({'start': [0.1, 0.5, 1e300]}, re.escape('start heading 1e+300°: allowed -360 to 360')),
        ({1: 2}, re.escape('unknown scene field(s) 1; allowed')),
        ({'resolution': True}, 'true/false are not'),
        ({'circles': [[1, 0.5, True]]}, 'true/false are not'),
    ],
)
def test_bad_scenes_are_refused(change, message):
    with pytest.raises(SceneError, match=message):
        scene_from_dict({**SCENE, **change})


def test_an_obstacle_thinner_than_a_cell_is_never_planned_through():
    """A 4 mm wall across the map and a 4 mm post on 1 cm cells: no cell centre lies in either,
    yet every column of the wall's row and the post's cell are occupied, and the planner finds no
    way across the wall."""
    wall = [[-1, 1], [3.5, 1], [3.5, 1.004], [-1, 1.004]]
    scene = scene_from_dict(
        {
            'bounds': [-1, -1, 3.5, 3],
            'resolution': 0.01,
            'polygons': [wall],
            'circles': [[1, 0.5, 0.004]],
            'start': [0, 0, 0],
            'goal': [2, 2, 0],
        }
    )
    occupied = rasterise(scene)
    assert occupied[200].all() and occupied[150, 200]
    assert occupied.sum() == scene.shape[1] + 1
    field = DistanceField.from_scene(scene)
    plan = planning.plan('lattice_astar', field, scene.start, scene.goal)
    assert not plan.success, 'planned through a 4 mm wall'
    # the same wall reaching 1e300 m each way: floats alone lose the grid's metre in its edges
    far = [[-1e300, 1], [1e300, 1], [1e300, 1.004], [-1e300, 1.004]]
    assert rasterise(scene, circles=[], polygons=[far])[200].all()


def test_a_map_with_no_free_cell_is_refused(tmp_path):
    with pytest.raises(SceneError, match='no free cell'):
        DistanceField(np.ones((3, 3), bool), (0, 0), 0.1)
    with pytest.raises(SceneError, match='carries'):
        grid_occupancy([0, 0, 0], 2, 2)
    (tmp_path / 'bad.yaml').write_text('bounds: [0, 0\n')
    with pytest.raises(SceneError, match='not YAML'):
        load_scene(tmp_path / 'bad.yaml')
    (tmp_path / 'twice.yaml').write_text('goal: [1, 1]\nstart: [0, 0]\ngoal: [2, 2]\n')
    with pytest.raises(SceneError, match=re.escape("not YAML ('goal' given twice (line 3))")):
        load_scene(tmp_path / 'twice.yaml')
    with pytest.raises(SceneError, match='No such file'):
        load_scene(tmp_path / 'missing.yaml')


def test_the_even_odd_rule_agrees_with_matplotlibs_path_on_concave_polygons():
    """inside_polygon against matplotlib's Path on random star-shaped (concave) polygons and
    20,000 random points each."""
    rng = np.random.default_rng(7)
    for vertices in (3, 5, 12, 40):
        angles = np.sort(rng.uniform(0, 2 * math.pi, vertices))
        radii = rng.uniform(0.2, 1.0, vertices)
        polygon = np.column_stack([radii * np.cos(angles), radii * np.sin(angles)])
        points = rng.uniform(-1.1, 1.1, (20000, 2))
        ours = inside_polygon(polygon, points)
        theirs = Polygon(polygon).contains_points(points)
        assert np.array_equal(ours, theirs), (vertices, np.count_nonzero(ours != theirs))
        assert 0 < np.count_nonzero(ours) < len(points)


def test_rasterising_each_obstacle_over_its_box_gives_the_full_grid_result():
    """Issue 26 item 12: the per-box rasterisation equals testing every cell against every
    obstacle, obstacles crossing the grid's edge and lying wholly outside it included."""
    rng = np.random.default_rng(26)
    circles = np.column_stack(
        [rng.uniform(-0.3, 2.3, 60), rng.uniform(-0.3, 1.3, 60), rng.uniform(0.003, 0.3, 60)]
    )
    polygons = [
        np.array([[-0.2, -0.1], [0.5, 0.3], [0.1, 0.6]]),
        np.array([[1.5, 0.5], [2.4, 0.4], [2.1, 1.3]]),
        np.array([[3.0, 3.0], [3.5, 3.0], [3.2, 3.4]]),
    ]
    scene = scene_from_dict(
        {
            'bounds': [0, 0, 2, 1],
            'resolution': 0.013,
            'circles': circles.tolist(),
            'polygons': [p.tolist() for p in polygons],
        }
    )
    centres = cell_centres(scene.shape, scene.bounds[:2], scene.resolution)
    everywhere = np.zeros(scene.shape, bool)
    for x, y, r in circles:
        everywhere |= (centres[..., 0] - x) ** 2 + (centres[..., 1] - y) ** 2 <= r * r
    for polygon in polygons:
        everywhere |= Polygon(polygon).contains_points(centres.reshape(-1, 2)).reshape(scene.shape)
    assert everywhere.any() and not everywhere.all()
    np.testing.assert_array_equal(rasterise(scene), everywhere)


@pytest.mark.parametrize(
    'info, field',
    [
        ((10, 10, 0.0, (0, 0), 100), 'info.resolution'),
        ((10, 10, float('nan'), (0, 0), 100), 'info.resolution'),
        ((10, 10, -0.05, (0, 0), 100), 'info.resolution'),
        ((10, 10, 0.05, (float('inf'), 0), 100), 'info.origin'),
        ((10, 1, 0.05, (0, 0), 10), 'info.width × info.height'),
        ((0, 0, 0.05, (0, 0), 0), 'info.width × info.height'),
        ((6000, 6000, 0.001, (0, 0), 36_000_000), 'at most'),
        ((10, 10, 0.05, (0, 0), 99), 'data carries'),
    ],
)
def test_occupancy_grid_infos_that_cannot_be_planned_on_are_refused(info, field):
    with pytest.raises(SceneError, match=field):
        check_grid(*info)
    check_grid(10, 10, 0.05, (0, 0), 100)
