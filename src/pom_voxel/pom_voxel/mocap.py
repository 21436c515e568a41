"""Motion-capture preprocessing of the voxel quadruped's four top markers, as the authors did it
(paper §3.2; spec A8), so that recorded marker loops compare with POM's predicted ones. No ROS.

Input X (T, 4, 2): marker tracks in the lab frame, one camera view from above. Per frame the
markers' centroid is removed (the body's translation) and their common rotation (the mean of their
polar angles, unwrapped along time), less a mounting angle ``theta_align_deg`` (90° in the authors'
set-up "to match model"). Each marker's track is then centred over time and rescaled: by default
with the authors' ratio of variances (of the radius before, of the deviation after), which is a
heuristic and not dimensionally clean; ``std_ratio`` uses standard deviations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pom_voxel.lattice import LatticeError

RESCALES = ('variance_ratio', 'std_ratio', 'none')
UNITS_MM = {'mm': 1.0, 'cm': 10.0, 'm': 1000.0}


@dataclass(frozen=True)
class BodyFrameMarkers:
    """Preprocessed markers (T', 4, 2) in mm, body frame; frames dropped for a missing marker."""

    markers: np.ndarray  # (T', 4, 2) mm, body frame, each marker's track centred over time
    dropped_frames: int  # frames with a missing (NaN) marker, left out


def check_tracks(tracks) -> np.ndarray:
    """Lab-frame tracks as floats (T, 4, 2); LatticeError unless T >= 2 frames of 4 (x, y)."""
    X = np.asarray(tracks, dtype=float)
    if X.ndim != 3 or X.shape[1:] != (4, 2) or len(X) < 2:
        raise LatticeError(
            f'marker tracks of shape {X.shape}: expected (T, 4, 2), T >= 2 frames of 4 '
            'markers (x, y)'
        )
    return X


def preprocess(
    tracks,
    units: str = 'mm',
    theta_align_deg: float = 90.0,
    marker_order=(0, 1, 2, 3),
    axis_signs=(1.0, 1.0),
    rescale: str = 'variance_ratio',
) -> BodyFrameMarkers:
    """Body-frame marker loops (spec A8 steps 1-5) from lab-frame tracks; ``marker_order`` maps the
    data's markers to the model's and ``axis_signs`` flips camera axes (both depend on the set-up,
    not on physics)."""
    if units not in UNITS_MM:
        raise LatticeError(f'units = {units!r}: allowed values are {", ".join(UNITS_MM)}')
    if rescale not in RESCALES:
        raise LatticeError(f'rescale = {rescale!r}: allowed values are {", ".join(RESCALES)}')
    if sorted(marker_order) != [0, 1, 2, 3]:
        raise LatticeError(f'marker_order = {list(marker_order)}: a permutation of 0, 1, 2, 3')
    X = (
        check_tracks(tracks)[:, list(marker_order)]
        * UNITS_MM[units]
        * np.asarray(axis_signs, dtype=float)
    )
    seen = np.all(np.isfinite(X), axis=(1, 2))
    X = X[seen]
    if len(X) < 2:
        raise LatticeError(
            f'{len(seen) - len(X)} of {len(seen)} frames miss a marker: fewer than 2 frames left'
        )
    # step 1: centroid off
    relative = X - X.mean(axis=1, keepdims=True)
    # step 2: along time
    theta = np.unwrap(np.arctan2(relative[..., 1], relative[..., 0]), axis=0)
    radius = np.hypot(relative[..., 0], relative[..., 1])
    turned = theta - theta.mean(axis=1, keepdims=True) - np.radians(theta_align_deg)  # step 3
    Y = np.stack([radius * np.cos(turned), radius * np.sin(turned)], axis=-1)  # step 4
    Y -= Y.mean(axis=0)
    # an overflow is refused below, not warned about
    with np.errstate(over='ignore', invalid='ignore'):
        markers = Y * _scale(radius, Y, rescale)
    # e.g. positions of 1e200: their variances overflow to inf / inf
    if not np.all(np.isfinite(markers)):
        raise LatticeError(
            f'marker positions up to {np.abs(X).max():.3g} mm give no finite body-frame '
            'loops; '
            f'are the units ({units}) right?'
        )
    return BodyFrameMarkers(markers, int((~seen).sum()))


def _scale(radius: np.ndarray, Y: np.ndarray, rescale: str) -> float:
    """Step 5: the authors' mean over markers of var_t |X'_i| over mean var_t |Y_i| (or the
    standard deviations)."""
    if rescale == 'none':
        return 1.0
    before, after = radius.var(axis=0), np.hypot(Y[..., 0], Y[..., 1]).var(axis=0)
    if rescale == 'std_ratio':
        before, after = np.sqrt(before), np.sqrt(after)
    return float(before.mean() / after.mean()) if after.mean() > 0 else 1.0
