"""The salamander's obstacle scenes: circles and polygons on a bounded grid, with optional start
and goal poses, read from YAML and written back. ``distance_field`` turns a scene (or a map) into
what the planners query. No ROS.

Lengths in metres, headings in radians (a scene file gives them in degrees, converted on load).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from soro_node.arguments import read_input, yaml_document

MAX_CELLS = 25_000_000  # 5 m × 5 m at 1 mm; beyond that a grid is a mistake, not a map
# each way: a distance field's gradient needs two cells along both axes
MIN_CELLS = 2


class SceneError(ValueError):
    """A scene or map that cannot be planned on; the message names the field and what is
    allowed."""


@dataclass(frozen=True)
class Scene:
    """An obstacle scene: ``bounds`` (xmin, ymin, xmax, ymax), ``resolution`` of its grid,
    ``circles`` (N, 3) of (x, y, r), ``polygons`` as (M, 2) vertex arrays, and optional
    ``start``/``goal`` poses (x, y, ψ rad)."""

    bounds: tuple[float, float, float, float]
    resolution: float
    circles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    polygons: tuple[np.ndarray, ...] = ()
    start: np.ndarray | None = None
    goal: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the scene's grid."""
        xmin, ymin, xmax, ymax = self.bounds
        return math.ceil((ymax - ymin) / self.resolution - 1e-9), math.ceil(
            (xmax - xmin) / self.resolution - 1e-9
        )


def _holds_a_bool(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_a_bool(v) for v in value)
    return isinstance(value, bool)


def _numbers(value, name: str, shape: tuple) -> np.ndarray:
    if _holds_a_bool(value):  # float(True) is 1.0: `resolution: true` would be 1 m
        raise SceneError(f'{name}: {value!r} is not a list of numbers (true/false are not)')
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise SceneError(f'{name}: {value!r} is not a list of numbers') from None
    if array.ndim != len(shape) or any(
        n is not None and n != m for n, m in zip(shape, array.shape)
    ):
        raise SceneError(
            f'{name}: {value!r} must have shape {tuple("N" if n is None else n for n in shape)}'
        )
    if not np.all(np.isfinite(array)):
        raise SceneError(f'{name}: {value!r} is not finite')
    return array


def _pose(value, name: str) -> np.ndarray | None:
    if value is None:
        return None
    x, y, heading_deg = _numbers(value, name, (3,))
    # a turn's worth of degrees (1e300 keeps no precision in its angle, whatever its remainder)
    if abs(heading_deg) > 360:
        raise SceneError(f'{name} heading {heading_deg:g}°: allowed -360 to 360')
    return np.array([x, y, math.radians(heading_deg)])


def scene_from_dict(data: dict) -> Scene:
    """A Scene from the YAML form ``{bounds: [xmin, ymin, xmax, ymax], resolution: R, circles: [[x,
    y, r], ...], polygons: [[[x, y], ...], ...], start: [x, y, heading_deg], goal: [x, y,
    heading_deg]}`` (metres, degrees)."""
    if not isinstance(data, dict):
        raise SceneError(
            'a scene is a mapping with bounds, resolution, circles, polygons, start, goal; '
            f'got {data!r}'
        )
    unknown = set(data) - {'bounds', 'resolution', 'circles', 'polygons', 'start', 'goal'}
    if unknown:
        raise SceneError(
            f'unknown scene field(s) {", ".join(sorted(map(repr, unknown)))}; allowed: bounds, '
            'resolution, circles, polygons, start, goal'
        )
    if 'bounds' not in data or 'resolution' not in data:
        raise SceneError('a scene needs bounds: [xmin, ymin, xmax, ymax] and resolution (m)')
    bounds = _numbers(data['bounds'], 'bounds', (4,))
    if not (bounds[0] < bounds[2] and bounds[1] < bounds[3]):
        raise SceneError(f'bounds {bounds.tolist()}: need xmin < xmax and ymin < ymax')
    resolution = float(_numbers(data['resolution'], 'resolution', ()))
    if not resolution > 0:
        raise SceneError(f'resolution {resolution}: must be > 0 (m)')
    circles = _numbers(data.get('circles') or np.zeros((0, 3)), 'circles', (None, 3))
    if np.any(circles[:, 2] <= 0):
        raise SceneError(f'circles: every radius must be > 0 (m); got {circles[:, 2].tolist()}')
    listed = data.get('polygons') or []
    if not isinstance(listed, list):
        raise SceneError(
            f'polygons: {listed!r} must be a list of polygons, each [[x, y], ...] (m)'
        )
    polygons = tuple(_numbers(p, f'polygons[{i}]', (None, 2)) for i, p in enumerate(listed))
    for i, polygon in enumerate(polygons):
        if len(polygon) < 3:
            raise SceneError(f'polygons[{i}]: needs at least 3 vertices, got {len(polygon)}')
    # counted in floats first: bounds of 1e300 m make a count that no integer arithmetic should be
    # asked for
    with np.errstate(over='ignore'):
        rows, cols = (bounds[3] - bounds[1]) / resolution, (bounds[2] - bounds[0]) / resolution
    if not rows * cols <= MAX_CELLS:
        raise SceneError(
            f'bounds {bounds.tolist()} at resolution {resolution} m give {rows:.3g} × '
            f'{cols:.3g} '
            f'cells; at most {MAX_CELLS} (coarsen the resolution or narrow '
            'the bounds)'
        )
    scene = Scene(
        tuple(bounds.tolist()),
        resolution,
        circles,
        polygons,
        _pose(data.get('start'), 'start'),
        _pose(data.get('goal'), 'goal'),
    )
    if min(scene.shape) < MIN_CELLS:
        raise SceneError(
            f'bounds {bounds.tolist()} at resolution {resolution} m give {scene.shape[0]} × '
            f'{scene.shape[1]} cells; at least {MIN_CELLS} each way '
            '(refine the resolution)'
        )
    return scene


def load_scene(path) -> Scene:
    """The Scene of the YAML file at ``path`` (``scene_from_dict``). Raises SceneError when the
    file is unreadable, not YAML or not a scene."""
    try:
        text = read_input(path)
    except ValueError as error:  # unreadable, too large (/dev/zero), not text
        raise SceneError(f'scene {error}') from None
    try:
        return scene_from_dict(yaml_document(text))
    except yaml.YAMLError as error:
        raise SceneError(f'scene {path}: not YAML ({str(error).splitlines()[0]})') from None


def scene_to_dict(scene: Scene) -> dict:
    """The YAML form of ``scene`` (the inverse of ``scene_from_dict``)."""

    def pose(p):
        return None if p is None else [float(p[0]), float(p[1]), math.degrees(float(p[2]))]

    data = {
        'bounds': list(scene.bounds),
        'resolution': scene.resolution,
        'circles': scene.circles.tolist(),
        'polygons': [p.tolist() for p in scene.polygons],
    }
    data.update(
        {k: pose(v) for k, v in (('start', scene.start), ('goal', scene.goal)) if v is not None}
    )
    return data


def resolve_scene(path: str | Path) -> Path:
    """``path``, or when empty the scene the workspace ships (config/salamander_scene.yaml, the
    thesis's experiment)."""
    if path:
        return Path(path)
    # only when the default is asked for
    from softbots_bringup.share import NotInstalled, installed

    try:
        return installed('config/salamander_scene.yaml')
    except NotInstalled as error:
        raise SceneError(f'no scene file given and {error}') from None
