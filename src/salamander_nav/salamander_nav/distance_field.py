"""One signed-distance field from a scene's obstacles and occupancy grids (nav_msgs' convention),
that the planners and every collision check share. No ROS.

Grids are row-major (row = y, column = x) with the origin at the lower-left corner of cell (0, 0),
as in nav_msgs/OccupancyGrid; cell centres are at origin + (i + ½) resolution. Lengths in metres.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy import ndimage

from salamander_nav.scene import MAX_CELLS, MIN_CELLS, Scene, SceneError

# OccupancyGrid value (0-100) from which a cell is an obstacle; -1 (unknown) too
OCCUPIED_AT = 50


def cell_centres(shape: tuple[int, int], origin, resolution: float) -> np.ndarray:
    """(rows, cols, 2) x, y of every cell centre."""
    xs = origin[0] + (np.arange(shape[1]) + 0.5) * resolution
    ys = origin[1] + (np.arange(shape[0]) + 0.5) * resolution
    return np.stack(np.meshgrid(xs, ys), -1)


def rasterise(scene: Scene, circles=None, polygons=None) -> np.ndarray:
    """Occupancy (rows, cols) of bool: the cells whose centre lies in a circle or polygon of
    ``scene`` (or of the given ``circles``/``polygons``, on the scene's grid); and, so that an
    obstacle thinner than a cell is not planned through (a 4 mm wall, a 4 mm post were, when only
    centres counted), the cell of every circle's centre and each cell a polygon's edge crosses
    away from the cells that hold the polygon already (a thick polygon's outline adds nothing: its
    edges stay within a cell of its inside, and the field keeps its accuracy). Each obstacle is
    tested only on the cells of its bounding box (a cell's margin around it): 1,000 circles on a
    25 M-cell grid took 94 s when each was tested everywhere."""
    circles = scene.circles if circles is None else np.asarray(circles, dtype=float).reshape(-1, 3)
    polygons = scene.polygons if polygons is None else polygons
    # as cell_centres has them
    xs = scene.bounds[0] + (np.arange(scene.shape[1]) + 0.5) * scene.resolution
    ys = scene.bounds[1] + (np.arange(scene.shape[0]) + 0.5) * scene.resolution
    occupied = np.zeros(scene.shape, dtype=bool)
    for x, y, r in circles:
        rows, cols = _box(ys, y - r, y + r), _box(xs, x - r, x + r)
        occupied[rows, cols] |= (xs[None, cols] - x) ** 2 + (ys[rows, None] - y) ** 2 <= r * r
        occupied[_crossed_cells(scene, (x, y), (x, y))] = True
    for polygon in polygons:
        polygon = np.asarray(polygon, dtype=float)
        rows = _box(ys, polygon[:, 1].min(), polygon[:, 1].max())
        cols = _box(xs, polygon[:, 0].min(), polygon[:, 0].max())
        centres = np.stack(np.meshgrid(xs[cols], ys[rows]), -1).reshape(-1, 2)
        box = occupied[rows, cols]  # a view
        inside = inside_polygon(polygon, centres).reshape(box.shape)
        box |= inside
        near = ndimage.binary_dilation(inside, np.ones((3, 3), bool))
        for start, end in zip(polygon, np.roll(polygon, -1, axis=0)):
            r, c = _crossed_cells(scene, start, end)
            r, c = r - rows.start, c - cols.start
            keep = (r >= 0) & (r < box.shape[0]) & (c >= 0) & (c < box.shape[1])
            r, c = r[keep], c[keep]
            away = ~near[r, c]
            box[r[away], c[away]] = True
    return occupied


def _crossed_cells(scene: Scene, start, end) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the cells the segment ``start``-``end`` (m) crosses, sampled every quarter
    cell along the part of it within the grid. Clipped in exact arithmetic (Liang-Barsky on
    fractions): an edge may reach 1e300 m, where floats lose the grid's metre altogether."""
    low = [Fraction(v) for v in scene.bounds[:2]]
    high = [low[0] + Fraction(scene.shape[1]) * Fraction(scene.resolution)]
    high.append(low[1] + Fraction(scene.shape[0]) * Fraction(scene.resolution))
    start, end = [Fraction(float(v)) for v in start], [Fraction(float(v)) for v in end]
    t0, t1 = Fraction(0), Fraction(1)
    for axis in range(2):
        step = end[axis] - start[axis]
        if step == 0:
            if not low[axis] <= start[axis] <= high[axis]:
                return np.zeros(0, int), np.zeros(0, int)
            continue
        a, b = (low[axis] - start[axis]) / step, (high[axis] - start[axis]) / step
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    if t0 > t1:
        return np.zeros(0, int), np.zeros(0, int)
    first, last = (
        np.array([float(s + t * (e - s)) for s, e in zip(start, end)], dtype=float)
        for t in (t0, t1)
    )
    samples = int(math.ceil(4 * float(np.hypot(*(last - first))) / scene.resolution)) + 1
    points = np.linspace(first, last, samples)
    cells = np.floor((points - np.array(scene.bounds[:2])) / scene.resolution).astype(int)
    return np.clip(cells[:, 1], 0, scene.shape[0] - 1), np.clip(cells[:, 0], 0, scene.shape[1] - 1)


def inside_polygon(polygon: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(N,) bool: whether each of ``points`` (N, 2) lies inside ``polygon`` (M, 2), by the
    even-odd rule (a ray to +x crosses its edges an odd number of times). matplotlib's Path does
    the same, but importing it cost every salamander node 0.3-0.9 s at start."""
    x, y = points[:, 0], points[:, 1]
    inside = np.zeros(len(points), dtype=bool)
    for (x0, y0), (x1, y1) in zip(polygon, np.roll(polygon, -1, axis=0)):
        spans = (y0 > y) != (y1 > y)  # the edge crosses the ray's height (never when y0 == y1)
        with np.errstate(divide='ignore', invalid='ignore'):
            crossing_x = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= spans & (x < crossing_x)
    return inside


def _box(centres: np.ndarray, low: float, high: float) -> slice:
    """The cells whose ``centres`` (ascending) lie in [low, high], and one more on each side
    (rounding)."""
    first = max(int(np.searchsorted(centres, low, side='left')) - 1, 0)
    return slice(first, min(int(np.searchsorted(centres, high, side='right')) + 1, len(centres)))


def check_grid(width: int, height: int, resolution: float, origin, values: int) -> None:
    """SceneError naming the field when an OccupancyGrid's info cannot be planned on: a resolution
    that is not a finite positive length, an origin that is not finite, fewer than 2 × 2 cells (the
    field's gradient needs two along each axis), more than MAX_CELLS, or ``values`` data that do
    not fill width × height."""
    if not (math.isfinite(resolution) and resolution > 0):
        raise SceneError(f'info.resolution {resolution}: must be finite and > 0 (m)')
    if not all(math.isfinite(v) for v in origin):
        raise SceneError(f'info.origin {list(origin)}: must be finite (m)')
    if width < 2 or height < 2:
        raise SceneError(f'info.width × info.height {width} × {height}: at least 2 × 2 cells')
    if width * height > MAX_CELLS:
        raise SceneError(
            f'info.width × info.height {width} × {height} = {width * height} cells: at most '
            f'{MAX_CELLS}'
        )
    if values != width * height:
        raise SceneError(f'data carries {values} values for {width} × {height} cells')


def _depth_per_region(occupied: np.ndarray, cells: np.ndarray) -> None:
    """Writes into ``cells`` (zero on ``occupied``'s cells) one less the distance, in cells, from
    each occupied cell to the nearest free one, one obstacle region (8-connected) at a time: only
    each region's bounding box and a ring of one are transformed, not the whole grid again. Exact:
    a cell nearest to one inside that is not of its region has a neighbour nearer still, so of the
    region, so it is no other region's cell but a free one (or off the grid, which is wall)."""
    labels, _ = ndimage.label(occupied, structure=np.ones((3, 3), dtype=bool))
    for region, box in enumerate(ndimage.find_objects(labels), start=1):
        ring = tuple(
            slice(max(b.start - 1, 0), min(b.stop + 1, n)) for b, n in zip(box, occupied.shape)
        )
        inside = labels[ring] == region
        cells[ring][inside] = 1.0 - ndimage.distance_transform_edt(inside)[inside]


def grid_occupancy(data, width: int, height: int, unknown_is_occupied: bool = True) -> np.ndarray:
    """Occupancy (height, width) of bool from an OccupancyGrid's row-major ``data`` (0-100, -1
    unknown)."""
    values = np.asarray(data, dtype=np.int16)
    if width <= 0 or height <= 0 or values.size != width * height:
        raise SceneError(
            f'occupancy grid of {width} × {height} cells carries {values.size} values'
        )
    values = values.reshape(height, width)
    return (values >= OCCUPIED_AT) | ((values < 0) & unknown_is_occupied)


class DistanceField:
    """Signed distance (m) to the nearest obstacle, negative inside, on a grid, with its gradient;
    queried anywhere by bilinear interpolation. The grid's edge is a wall: beyond it the distance
    is negative."""

    def __init__(self, occupied: np.ndarray, origin, resolution: float):
        occupied = np.asarray(occupied, dtype=bool)
        if occupied.ndim != 2 or min(occupied.shape) < MIN_CELLS:
            raise SceneError(
                f'a grid of {" × ".join(map(str, occupied.shape))} cells: at least '
                f'{MIN_CELLS} × '
                f'{MIN_CELLS} (the distance gradient needs neighbours both ways)'
            )
        if occupied.all():
            raise SceneError('the map has no free cell')
        self.origin, self.resolution, self.shape = (
            np.array(origin[:2], dtype=float),
            float(resolution),
            occupied.shape,
        )
        self.occupied = occupied
        # a ring of obstacle around the grid (its edge is a wall); distances between cell centres,
        # moved by half a cell so that the zero level lies on the cells' boundary
        walled = np.pad(occupied, 1, constant_values=True)
        cells = ndimage.distance_transform_edt(~walled)[1:-1, 1:-1]
        _depth_per_region(occupied, cells)
        self.distance = (cells - 0.5) * self.resolution
        self._flat, self._inv_res = self.distance.ravel(), 1.0 / self.resolution
        self._gradient = None  # on the first query: only CHOMP reads it
        self.extent = self.origin + self.resolution * np.array(self.shape[::-1])

    @classmethod
    def from_scene(cls, scene: Scene, extra_occupied: np.ndarray | None = None) -> DistanceField:
        """The field of ``scene``'s circles and polygons on its grid, the cells of
        ``extra_occupied`` (rows, cols) of bool (a map's) occupied too. Raises SceneError when no
        cell is free."""
        occupied = rasterise(scene)
        if extra_occupied is not None:
            occupied |= extra_occupied
        return cls(occupied, scene.bounds[:2], scene.resolution)

    def query(self, points) -> tuple[np.ndarray, np.ndarray]:
        """Signed distance (...,) and its gradient (..., 2) at ``points`` (..., 2) in m."""
        points = np.asarray(points, dtype=float)
        inside = np.clip(points, self.origin, self.extent)
        beyond = points - inside
        out = np.hypot(beyond[..., 0], beyond[..., 1])
        # fractional (row, col) of centres
        rc = ((inside - self.origin) / self.resolution - 0.5)[..., ::-1]
        coords = np.moveaxis(rc, -1, 0).reshape(2, -1)
        d = ndimage.map_coordinates(self.distance, coords, order=1, mode='nearest').reshape(
            points.shape[:-1]
        )
        if self._gradient is None:
            self._gradient = np.gradient(self.distance, self.resolution)[::-1]  # d/dx, d/dy
        grad = np.stack(
            [
                ndimage.map_coordinates(component, coords, order=1, mode='nearest')
                for component in self._gradient
            ],
            -1,
        ).reshape(points.shape)
        outward = np.where(out[..., None] > 0, -beyond / np.maximum(out, 1e-300)[..., None], grad)
        return d - out, outward

    def clearance(self, points) -> np.ndarray:
        """Signed distance (...,) at ``points`` (..., 2): the continuous field (bilinear between
        cell centres, as ``query``), without the gradient; what every collision check reads
        (``planning.paths.clear``)."""
        points = np.asarray(points, dtype=float)
        return self.clearance_xy(points[..., 0], points[..., 1])

    def clearance_xy(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``clearance`` at the points (x, y) given as two arrays of one shape: the lattice's hot
        loop has them apart. Beyond the grid, the distance to it is subtracted (the edge is a
        wall)."""
        rows, cols = self.shape
        u = (x - self.origin[0]) * self._inv_res - 0.5  # fractional column of centres
        v = (y - self.origin[1]) * self._inv_res - 0.5
        u_in, v_in = np.clip(u, 0.0, cols - 1), np.clip(v, 0.0, rows - 1)
        c0 = np.minimum(u_in.astype(np.intp), cols - 2)
        r0 = np.minimum(v_in.astype(np.intp), rows - 2)
        fu, fv = u_in - c0, v_in - r0
        i = r0 * cols + c0
        d = self._flat
        low = d[i] + fu * (d[i + 1] - d[i])
        high = d[i + cols] + fu * (d[i + cols + 1] - d[i + cols])
        beyond = np.hypot(
            np.clip(x, self.origin[0], self.extent[0]) - x,
            np.clip(y, self.origin[1], self.extent[1]) - y,
        )
        return low + fv * (high - low) - beyond

    def contains(self, point) -> bool:
        """Whether ``point`` (x, y in m) lies on the grid."""
        x, y = (float(v) for v in np.asarray(point, dtype=float).ravel()[:2])
        return bool(
            self.origin[0] <= x <= self.extent[0] and self.origin[1] <= y <= self.extent[1]
        )
