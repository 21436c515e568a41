"""The scene as the planner node holds it while it runs: the scene's grid and obstacles, replaced
at run time by an obstacle message or a map, and the one distance field built from them, rebuilt
only when something changed. No ROS.

A map replaces the scene file's grid and its obstacles (they described another place); obstacles
that came as a message stay, drawn on the map's grid. A map whose origin is rotated is resampled
onto a grid aligned with the map frame, so every planner and check works in that frame."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from salamander_nav.distance_field import DistanceField
from salamander_nav.scene import Scene, SceneError, scene_from_dict, scene_to_dict

# roll or pitch of a map's origin above this is not a floor plan
MAX_TILT_RAD = 1e-3
CHUNK_ROWS = 512  # rows of a turned map resampled at once (bounds the index arrays' memory)


class LiveScene:
    """Obstacles (circles, polygons) on the scene's grid, or on a map's grid once a map arrived
    (its occupied cells count too). ``version`` counts the changes, so that a path planned on one
    version can be checked again on a later one."""

    def __init__(self, scene: Scene):
        self.scene, self._map, self._field = scene, None, None
        self._obstacles_given, self.version = False, 0

    def set_obstacles(self, circles, polygons) -> None:
        """Replace the obstacles: circles (N, 3) of (x, y, r) and polygons as (M, 2) arrays, in
        m."""
        updated = scene_from_dict(
            {
                **scene_to_dict(self.scene),
                'circles': np.asarray(circles).tolist(),
                'polygons': [np.asarray(p).tolist() for p in polygons],
            }
        )
        self.scene, self._field = updated, None
        self._obstacles_given, self.version = True, self.version + 1

    def set_map(self, occupied: np.ndarray, origin, resolution: float, yaw_rad: float = 0.0):
        """Plan on an occupancy grid (rows = y) whose cell (0, 0) has its corner at ``origin`` (x,
        y in m), the grid turned ``yaw_rad`` about it (OccupancyGrid's info.origin), at
        ``resolution`` (m)."""
        if yaw_rad:
            occupied, origin = aligned_grid(occupied, origin, resolution, yaw_rad)
        rows, cols = occupied.shape
        bounds = (
            float(origin[0]),
            float(origin[1]),
            origin[0] + cols * resolution,
            origin[1] + rows * resolution,
        )
        scene = dataclasses.replace(self.scene, bounds=bounds, resolution=float(resolution))
        if not self._obstacles_given:  # the scene file's obstacles were of another place
            scene = dataclasses.replace(scene, circles=np.zeros((0, 3)), polygons=())
        if scene.shape != occupied.shape:
            raise SceneError(
                f'map of {occupied.shape} cells does not tile its own bounds {bounds}'
            )
        # refuses a map with no free cell before it is kept
        DistanceField(occupied, origin, resolution)
        self.scene, self._map, self._field = scene, occupied.copy(), None
        self.version += 1

    def snapshot(self) -> tuple:
        """What ``restore`` takes back, e.g. when a change leaves no field to plan on."""
        return self.scene, self._map, self._field, self._obstacles_given, self.version

    def restore(self, snapshot: tuple) -> None:
        """Take back the scene, map and field of a ``snapshot``."""
        self.scene, self._map, self._field, self._obstacles_given, self.version = snapshot

    def field(self) -> DistanceField:
        """The distance field of the present obstacles and map, built on first use after a change.
        Raises SceneError when they leave no free cell."""
        if self._field is None:
            self._field = DistanceField.from_scene(self.scene, self._map)
        return self._field


def map_yaw(x: float, y: float, z: float, w: float) -> float:
    """The yaw (rad) of a map origin's orientation quaternion; SceneError when it is not finite,
    zero, or tilts the map out of the plane by more than MAX_TILT_RAD."""
    q = np.array([w, x, y, z], dtype=float)
    norm = float(np.linalg.norm(q))
    if not (math.isfinite(norm) and norm > 0):
        raise SceneError(
            f'info.origin.orientation {[x, y, z, w]}: must be a finite, non-zero quaternion'
        )
    w, x, y, z = q / norm
    tilt = 2.0 * math.asin(min(1.0, math.hypot(x, y)))  # the rotation's angle away from the z axis
    if tilt > MAX_TILT_RAD:
        raise SceneError(
            f'info.origin.orientation {[x, y, z, w]}: tilts the map {math.degrees(tilt):.2f}° out '
            'of the plane; only a rotation about z is a floor plan'
        )
    return 2.0 * math.atan2(z, w)


def aligned_grid(occupied: np.ndarray, origin, resolution: float, yaw_rad: float):
    """(occupancy, origin): ``occupied`` (rows = y, its corner at ``origin``, turned ``yaw_rad``)
    resampled at the same resolution onto the smallest grid aligned with the map frame that holds
    it. A cell is occupied when a map cell that its centre's bilinear footprint touches is (so a
    wall keeps no gap); beyond the map counts as occupied, its edge being a wall."""
    rows, cols = occupied.shape
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    corners = np.array([[0, 0], [cols, 0], [0, rows], [cols, rows]]) * resolution
    turned = corners @ np.array([[c, s], [-s, c]])  # each corner turned by yaw
    low, high = turned.min(axis=0), turned.max(axis=0)
    shape = tuple(int(math.ceil((high - low)[k] / resolution - 1e-9)) for k in (1, 0))
    walled = np.pad(occupied, 1, constant_values=True)
    aligned = np.empty(shape, dtype=bool)
    xs = low[0] + (np.arange(shape[1]) + 0.5) * resolution
    for first in range(0, shape[0], CHUNK_ROWS):
        ys = low[1] + (np.arange(first, min(first + CHUNK_ROWS, shape[0])) + 0.5) * resolution
        px, py = np.meshgrid(xs, ys)
        # the centres in the map grid's own axes, as fractional (col, row) of the walled grid;
        # rounded so that a grid turned by exactly 90° lands on its cells' centres
        col = np.round((c * px + s * py) / resolution + 0.5, 9)
        row = np.round((-s * px + c * py) / resolution + 0.5, 9)
        aligned[first : first + len(ys)] = _touched(walled, col, row)
    return aligned, np.asarray(origin[:2], dtype=float) + low


def _touched(grid: np.ndarray, col: np.ndarray, row: np.ndarray) -> np.ndarray:
    """Whether one of the (up to four) cells of ``grid`` around each fractional (row, col) that
    has a weight in its bilinear interpolation is set; beyond the grid, its edge cells count."""
    col = np.clip(col, 0, grid.shape[1] - 1)
    row = np.clip(row, 0, grid.shape[0] - 1)
    c0, r0 = np.floor(col).astype(np.intp), np.floor(row).astype(np.intp)
    c1, r1 = np.minimum(c0 + 1, grid.shape[1] - 1), np.minimum(r0 + 1, grid.shape[0] - 1)
    right, up = col > c0, row > r0
    return (
        grid[r0, c0] | (grid[r0, c1] & right) | (grid[r1, c0] & up) | (grid[r1, c1] & right & up)
    )
