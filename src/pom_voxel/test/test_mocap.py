"""Mocap preprocessing (spec A8) on synthetic markers: body-frame loops rotated, translated and
noised in the lab are recovered; frames with a missing marker are dropped and counted; wrong shapes
are one line."""

import numpy as np
import pytest

from pom_voxel.lattice import LatticeError
from pom_voxel.mocap import preprocess

T = 400


def body_loops():
    """(T, 4, 2) mm: markers on a 152 mm square, each tracing its own 5 mm loop over a gait
    cycle."""
    phase = np.linspace(0, 4 * np.pi, T)[:, None]
    corners = np.array([[-76.2, 76.2], [76.2, 76.2], [-76.2, -76.2], [76.2, -76.2]])
    lag = np.array([0, np.pi / 2, np.pi, 3 * np.pi / 2])
    loops = 5 * np.stack(
        [np.cos(phase + lag), np.sin(phase + lag) * np.array([1, -1, 1, -1])], axis=-1
    )
    return corners + loops, loops


def to_lab(body, turn_rad, shift_mm, noise_mm, rng):
    c, s = np.cos(turn_rad)[:, None], np.sin(turn_rad)[:, None]
    x, y = body[..., 0], body[..., 1]
    lab = np.stack([c * x - s * y, s * x + c * y], axis=-1) + shift_mm[:, None, :]
    return lab + rng.normal(0, noise_mm, lab.shape)


def test_rotated_translated_noised_markers_give_back_the_body_loops():
    rng = np.random.default_rng(4)
    body, loops = body_loops()
    # the body turns 69° and drifts 300 mm meanwhile
    turn = np.linspace(0, 1.2, T)
    # recorded in cm
    lab = to_lab(body, turn, np.linspace([0, 0], [300, -120], T), 0.2, rng) / 10.0
    out = preprocess(lab, units='cm', theta_align_deg=0.0, rescale='none')
    assert out.dropped_frames == 0 and out.markers.shape == (T, 4, 2)
    # the mean polar angle taken as the body's turn absorbs part of the loops themselves: about 2
    # mm of 5 here
    assert np.abs(out.markers - loops).max() < 2.5
    for m in range(4):
        for k in range(2):
            assert np.corrcoef(out.markers[:, m, k], loops[:, m, k])[0, 1] > 0.93
    # the authors' variance-ratio rescale keeps the shape, only the scale changes
    scaled = preprocess(lab, units='cm', theta_align_deg=0.0).markers
    ratio = scaled[..., 0].std() / out.markers[..., 0].std()
    assert np.abs(scaled - ratio * out.markers).max() < 1e-9
    aligned = preprocess(lab, units='cm', theta_align_deg=90.0, rescale='none').markers
    assert aligned[..., 0] == pytest.approx(out.markers[..., 1], abs=1e-9)  # turned by -90°


def test_frames_with_a_missing_marker_are_dropped_and_counted():
    body, _ = body_loops()
    body[[10, 20, 30], 2, 0] = np.nan
    out = preprocess(body, theta_align_deg=0.0)
    assert out.dropped_frames == 3 and len(out.markers) == T - 3


@pytest.mark.parametrize(
    'tracks, options, message',
    [
        (np.zeros((10, 3, 2)), {}, r'shape \(10, 3, 2\): expected \(T, 4, 2\)'),
        (np.zeros((10, 4, 2)), {'units': 'in'}, "units = 'in': allowed values are mm, cm, m"),
        (np.zeros((10, 4, 2)), {'marker_order': (0, 0, 1, 2)}, r'marker_order = \[0, 0, 1, 2\]'),
        (np.full((10, 4, 2), np.nan), {}, '10 of 10 frames miss a marker'),
        (np.zeros((10, 4, 2)), {'rescale': 'max'}, "rescale = 'max'"),
    ],
)
def test_bad_tracks_are_refused_in_one_line(tracks, options, message):
    with pytest.raises(LatticeError, match=message):
        preprocess(tracks, **options)
