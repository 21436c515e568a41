"""The one collision check of both planners and of paths.problems (issue 28, item 1): the
continuous clearance field, its error against the exact geometry, what it can lose between samples,
and the gaps it lets through with and without the safety margin."""

import math

import numpy as np
import pytest

from salamander_nav import planning
from salamander_nav.distance_field import DistanceField, inside_polygon
from salamander_nav.planning import paths
from salamander_nav.scene import scene_from_dict

SIDE = 2.0


def segment_distance(points, a, b):
    ab = b - a
    t = np.clip(((points - a) @ ab) / (ab @ ab), 0.0, 1.0)
    return np.hypot(*(points - a - t[:, None] * ab).T)


def exact_distance(points, circles=(), polygons=(), size=(SIDE, SIDE)):
    """Signed distance (m) to the circles, polygons and the edge of a map of ``size`` (m) from
    (0, 0), from the geometry."""
    x, y = points.T
    d = np.minimum.reduce([x, y, size[0] - x, size[1] - y])
    for cx, cy, r in circles:
        d = np.minimum(d, np.hypot(x - cx, y - cy) - r)
    for polygon in polygons:
        polygon = np.asarray(polygon)
        edge = np.min(
            [segment_distance(points, a, b) for a, b in zip(polygon, np.roll(polygon, -1, 0))], 0
        )
        d = np.minimum(d, np.where(inside_polygon(polygon, points), -edge, edge))
    return d


def random_scene(seed, resolution, circles=6, rectangles=0):
    rng = np.random.default_rng(seed)
    round_ones = [
        [rng.uniform(0.2, 1.8), rng.uniform(0.2, 1.8), rng.uniform(0.03, 0.2)]
        for _ in range(circles)
    ]
    boxes = []
    for _ in range(rectangles):
        centre, angle, (w, length) = (
            rng.uniform(0.3, 1.7, 2),
            rng.uniform(0, math.pi),
            rng.uniform(0.03, 0.3, 2),
        )
        turn = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        boxes.append(
            (
                centre
                + np.array([[-w, -length], [w, -length], [w, length], [-w, length]]) @ turn.T
            ).tolist()
        )
    scene = {'bounds': [0, 0, SIDE, SIDE], 'resolution': resolution}
    field = DistanceField.from_scene(
        scene_from_dict({**scene, 'circles': round_ones, 'polygons': boxes})
    )
    return field, round_ones, boxes, rng


@pytest.mark.parametrize('resolution', [0.005, 0.01, 0.02])
def test_the_field_overestimates_the_exact_clearance_by_at_most_half_a_cell_off_corners(
    resolution,
):
    """A free cell centre on an obstacle's edge reads half a cell (the field puts the edge half way
    to the nearest occupied centre): up to h/2 too far, plus the bilinear's bend on round edges.
    Convex corners (here of rotated rectangles) can lose a corner cell: up to √2 h − h/2."""
    worst = {}
    for rectangles in (0, 4):
        for seed in range(4):
            field, circles, boxes, rng = random_scene(seed, resolution, rectangles=rectangles)
            points = rng.uniform(0, SIDE, (100_000, 2))
            exact = exact_distance(points, circles, boxes)
            near = (exact >= 0) & (exact <= 0.3)
            over = float((field.clearance(points) - exact)[near].max()) / resolution
            worst[rectangles] = max(worst.get(rectangles, -1.0), over)
    assert 0.3 < worst[0] <= 0.55
    assert 0.3 < worst[4] <= math.sqrt(2) - 0.5


def test_clearance_is_querys_bilinear_value_everywhere_and_the_wall_beyond_the_grid():
    field = random_scene(1, 0.01, rectangles=2)[0]
    points = np.random.default_rng(2).uniform(-0.3, SIDE + 0.3, (50_000, 2))
    np.testing.assert_allclose(field.clearance(points), field.query(points)[0], atol=1e-12)
    assert (
        field.clearance([-0.2, 1.0]) < -0.19
        and field.contains([0, 2])
        and not field.contains([-1e-9, 1])
    )


def test_the_sampling_loss_bounds_the_field_between_two_samples():
    field, _, _, rng = random_scene(3, 0.01, rectangles=3)
    spacing = paths.check_spacing(field)
    a = rng.uniform(0.1, SIDE - 0.1, (20_000, 2))
    angle = rng.uniform(0, 2 * math.pi, 20_000)
    b = a + spacing * np.column_stack([np.cos(angle), np.sin(angle)])
    t = np.linspace(0, 1, 41)[:, None, None]
    between = field.clearance(a + t * (b - a)).min(axis=0)
    ends = np.minimum(field.clearance(a), field.clearance(b))
    loss = float((ends - between).max())
    assert 0 < loss <= paths.sampling_loss(spacing) <= 0.5 * field.resolution
    # the check passes a sample only with that loss to spare, and its fast form agrees
    x, y = np.random.default_rng(4).uniform(-0.1, SIDE + 0.1, (2, 200_000))
    verdicts = paths.clear(field, x, y, 0.05, spacing)
    np.testing.assert_array_equal(
        verdicts, field.clearance_xy(x, y) >= 0.05 + paths.sampling_loss(spacing)
    )
    np.testing.assert_array_equal(paths.Check(field, 0.05, spacing)(x, y), verdicts)
    assert 0.2 < verdicts.mean() < 0.95


def test_each_sample_of_a_path_loses_only_what_its_own_segments_allow():
    """A path checked part by part at different spacings (lattice A*'s primitives, then its
    analytic expansion) reads as each part was checked: a planner-accepted path was refused
    "60.0 mm from an obstacle (needs ≥ 60.0 mm)" when the coarsest spacing's loss was taken off
    every sample."""
    field = DistanceField.from_scene(scene_from_dict({'bounds': [0, 0, 1, 1], 'resolution': 0.01}))
    fine = np.column_stack([np.linspace(0.06, 0.3, 241), np.full(241, 0.5)])  # 1 mm, by the wall
    coarse = np.column_stack([np.linspace(0.305, 0.5, 40), np.full(40, 0.5)])  # 5 mm, mid-map
    least, spacing = paths.least_clearance(field, np.vstack([fine, coarse]))
    assert spacing == pytest.approx(0.005)
    near_wall = float(field.clearance(fine[0])) - paths.sampling_loss(0.001)
    assert least == pytest.approx(near_wall, abs=1e-12)


def wall_with_gap(low, high, resolution=0.01):
    """A 4 cm wall across a 2 m × 1 m scene at x = 1 m, open from y = ``low`` to ``high``."""
    return DistanceField.from_scene(
        scene_from_dict(
            {
                'bounds': [0, 0, 2, 1],
                'resolution': resolution,
                'polygons': [
                    [[0.98, -0.1], [1.02, -0.1], [1.02, low], [0.98, low]],
                    [[0.98, high], [1.02, high], [1.02, 1.1], [0.98, 1.1]],
                ],
            }
        )
    )


@pytest.mark.parametrize('planner', planning.PLANNERS)
@pytest.mark.parametrize(
    'low, high',
    # 9 cm with its edges on cell edges, where the field is exact, the robot on its centre line:
    # 5 mm to spare a side, which the field's ±h/2 elsewhere would eat; 10 and 12 cm anywhere
    [(0.45, 0.54), (0.45, 0.55), (0.44, 0.56), (0.443, 0.563)],
)
def test_both_planners_pass_a_gap_a_little_wider_than_the_robot_with_no_safety_margin(
    planner, low, high
):
    """Lattice A* refused gaps up to 12 cm (its boolean grid added 16.6 mm a side, issue 28)."""
    field, y = wall_with_gap(low, high), 0.5 * (low + high)
    options = planning.PlannerOptions(safety_margin_m=0.0)
    plan = planning.plan(planner, field, (0.3, y, 0.0), (1.7, y, 0.0), options)
    assert plan.success, plan.reason
    assert paths.problems(plan.path, field, options.kappa_max, paths.HALF_WIDTH_M) == []
    crossing = plan.path[np.abs(plan.path[:, 0] - 1.0) <= 0.02, 1]
    assert np.all((crossing > low + 0.035) & (crossing < high - 0.035))


@pytest.mark.parametrize('planner', planning.PLANNERS)
def test_the_default_safety_margin_refuses_a_9_cm_gap_and_keeps_the_half_width_exactly(planner):
    field = wall_with_gap(0.455, 0.545)
    plan = planning.plan(planner, field, (0.3, 0.5, 0.0), (1.7, 0.5, 0.0))
    assert not plan.success and plan.effort == 0
    assert plan.reason.startswith('no passage at least 120 mm wide'), plan.reason
    # a 16 cm gap: passed, and the path's exact distance to the walls (not the field's) keeps the
    # half-width and the margin less the field's error (issue 28: a lattice path came within 36 mm)
    low, high = 0.42, 0.58
    field = wall_with_gap(low, high)
    plan = planning.plan(planner, field, (0.3, 0.45, 0.0), (1.7, 0.55, 0.0))
    assert plan.success, plan.reason
    walls = [
        [[0.98, -0.1], [1.02, -0.1], [1.02, low], [0.98, low]],
        [[0.98, high], [1.02, high], [1.02, 1.1], [0.98, 1.1]],
    ]
    along = np.r_[0, np.cumsum(np.hypot(*np.diff(plan.path, axis=0).T))]
    every_mm = np.arange(0, along[-1], 0.001)
    dense = np.column_stack([np.interp(every_mm, along, plan.path[:, k]) for k in range(2)])
    exact = exact_distance(dense, polygons=walls, size=(2, 1))
    assert exact.min() >= paths.HALF_WIDTH_M + paths.SAFETY_MARGIN_M - 0.5 * field.resolution
