"""The scene as the planner node holds it while it runs: the scene's grid and obstacles, replaced
at run time by an obstacle message or a map, and the one distance field built from them, rebuilt
only when something changed. No ROS."""

from __future__ import annotations

import dataclasses

import numpy as np

from salamander_nav.distance_field import DistanceField
from salamander_nav.scene import Scene, SceneError, scene_from_dict, scene_to_dict


class LiveScene:
    """Obstacles (circles, polygons) on the scene's grid, or on a map's grid once a map arrived
    (its occupied cells count too)."""

    def __init__(self, scene: Scene):
        self.scene, self._map, self._field = scene, None, None

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

    def set_map(self, occupied: np.ndarray, origin, resolution: float) -> None:
        """Plan on an occupancy grid (rows = y) from ``origin`` (x, y of its corner, m) at
        ``resolution`` (m)."""
        rows, cols = occupied.shape
        bounds = (
            float(origin[0]),
            float(origin[1]),
            origin[0] + cols * resolution,
            origin[1] + rows * resolution,
        )
        scene = dataclasses.replace(self.scene, bounds=bounds, resolution=float(resolution))
        if scene.shape != occupied.shape:
            raise SceneError(
                f'map of {occupied.shape} cells does not tile its own bounds {bounds}'
            )
        # refuses a map with no free cell before it is kept
        DistanceField(occupied, origin, resolution)
        self.scene, self._map, self._field = scene, occupied.copy(), None

    def snapshot(self) -> tuple:
        """What ``restore`` takes back, e.g. when a change leaves no field to plan on."""
        return self.scene, self._map, self._field

    def restore(self, snapshot: tuple) -> None:
        """Take back the scene, map and field of a ``snapshot``."""
        self.scene, self._map, self._field = snapshot

    def field(self) -> DistanceField:
        """The distance field of the present obstacles and map, built on first use after a change.
        Raises SceneError when they leave no free cell."""
        if self._field is None:
            self._field = DistanceField.from_scene(self.scene, self._map)
        return self._field
