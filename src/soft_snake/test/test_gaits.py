"""Eqs. 2.1 and 2.2 and their properties (spec A2, C1: SN-01..SN-09, SN-12)."""

import math

import numpy as np
import pytest

from soft_snake import gaits
from soft_snake.gaits import SIDEWINDING, UNDULATION, Gait, GaitError

UND = Gait(UNDULATION, 4, 2.0, 2 * math.pi / 3)
SIDE = Gait(SIDEWINDING, 4, 0.875, math.pi / 2)


@pytest.mark.parametrize(
    't, expected',
    [
        (0.05, [[1, -1], [1, -1], [-1, 1], [1, -1]]),
        (0.10, [[1, -1], [-1, 1], [-1, 1], [1, -1]]),
        (0.20, [[1, -1], [-1, 1], [1, -1], [1, -1]]),
        (0.30, [[-1, 1], [-1, 1], [1, -1], [-1, 1]]),
        (0.45, [[-1, 1], [1, -1], [-1, 1], [-1, 1]]),
    ],
)
def test_sn01_undulation_matches_the_spec_vectors(t, expected):
    k = gaits.chamber_states(UND, t)
    # SN-03: top vented
    assert k[:, :2].tolist() == expected and k[:, 2].tolist() == [-1] * 4


def test_sn01_undulation_with_phi():
    k = gaits.chamber_states(Gait(UNDULATION, 4, 2.0, 2 * math.pi / 3, phi=0.5), 0.05)
    assert k[:, :2].tolist() == [[1, -1], [1, 1], [-1, 1], [1, -1]]


@pytest.mark.parametrize(
    't, expected',
    [
        (0.05, [[1, 1, -1], [1, -1, -1], [-1, -1, 1], [-1, 1, 1]]),
        (0.25, [[1, -1, -1], [1, -1, 1], [-1, 1, 1], [-1, 1, -1]]),
        (0.50, [[1, -1, 1], [-1, 1, 1], [-1, 1, -1], [1, -1, -1]]),
        (0.75, [[-1, -1, 1], [-1, 1, -1], [1, 1, -1], [1, -1, 1]]),
        (1.00, [[-1, 1, -1], [1, 1, -1], [1, -1, 1], [-1, -1, 1]]),
    ],
)
def test_sn02_sidewinding_matches_the_spec_vectors(t, expected):
    assert gaits.chamber_states(SIDE, t).tolist() == expected


def test_sn03_sn04_top_idle_and_bottom_chambers_complementary():
    t = np.linspace(0.001, 3.0, 3001)
    k = gaits.chamber_states(UND, t)
    assert np.all(k[..., 2] == -1)
    away = np.abs(np.sin(gaits.phases(UND, t)[..., 0])) > 1e-9  # off the switching instants
    assert away.mean() > 0.99
    assert np.all(k[..., 1][away] == -k[..., 0][away])


def test_sn05_sidewinding_is_the_hexagonal_gait():
    dt = 1e-4
    # one period, off the switching instants
    t = np.arange(0, SIDE.period_s, dt) + dt / 2
    k = gaits.chamber_states(SIDE, t)[:, 0, :]  # segment 0
    inflated = [tuple(np.flatnonzero(row > 0)) for row in k]
    changes = [inflated[0]] + [s for a, s in zip(inflated, inflated[1:]) if s != a]
    assert changes == [(0, 1), (0,), (0, 2), (2,), (1, 2), (1,)]
    counts = np.array([len(s) for s in inflated])
    assert counts.min() == 1 and counts.max() == 2
    for state in changes:
        assert sum(s == state for s in inflated) * dt == pytest.approx(
            SIDE.period_s / 6, abs=2 * dt
        )
    np.testing.assert_allclose((k > 0).mean(axis=0), 0.5, atol=2e-3)


def test_sn06_each_segment_is_segment_zero_advanced():
    t = np.linspace(0, 2, 2001)
    for gait in (UND, SIDE):
        k = gaits.chamber_states(gait, t)
        for i in range(1, gait.segments):
            shift = i * gait.beta_rad / (2 * math.pi * gait.frequency_hz)
            np.testing.assert_array_equal(k[:, i], gaits.chamber_states(gait, t + shift)[:, 0])
    mirrored = Gait(UNDULATION, 4, 2.0, 2 * math.pi / 3, wave_direction=-1)
    np.testing.assert_array_equal(
        gaits.chamber_states(mirrored, t)[:, 1],
        gaits.chamber_states(UND, t - 2 * (2 * math.pi / 3) / (4 * math.pi))[:, 1],
    )


@pytest.mark.parametrize('phi', [0.0, 0.5, -0.5, 0.9, 1.2, -1.5])
def test_sn07_inflate_fraction_follows_arcsin(phi):
    gait = Gait(SIDEWINDING, 3, 1.0, math.pi / 2, phi=phi)
    t = np.arange(0, 10.0, 0.01)  # ten periods at a 100 Hz tick
    measured = (gaits.chamber_states(gait, t)[:, 0, 0] > 0).mean()
    assert measured == pytest.approx(gaits.inflate_fraction(phi), abs=0.011)
    assert gaits.inflate_fraction(0.5) == pytest.approx(2 / 3)


def test_sn08_switches_happen_at_the_predicted_instants():
    dt = 0.01
    # a 100 Hz tick, none on a switching instant
    t = np.arange(dt / 2, 2.0, dt)
    for gait in (UND, SIDE):
        k = gaits.chamber_states(gait, t)
        for i in range(gait.segments):
            for j in range(gaits.DRIVEN_CHAMBERS[gait.kind]):
                seen = t[1:][np.diff(k[:, i, j]) != 0]
                predicted = gaits.switch_times(gait, i, j, t[-1])
                predicted = predicted[predicted > t[0]]
                assert len(seen) == len(predicted)
                assert np.abs(seen - predicted).max() <= dt + 1e-9


@pytest.mark.parametrize(
    'kwargs, message',
    [
        (dict(frequency_hz=2.5), 'frequency = 2.5 Hz: allowed (0, 2.0] Hz'),
        (dict(segments=6), 'segments = 6: allowed 3-5'),
        (dict(segments=2), 'segments = 2'),
        (dict(beta_rad=math.nan), 'beta = nan: must be finite'),
        (dict(phi=math.inf), 'phi = inf'),
        (dict(kind='slither'), "gait 'slither': allowed undulation, sidewinding"),
    ],
)
def test_sn09_out_of_range_parameters_are_refused_in_one_line(kwargs, message):
    with pytest.raises(
        GaitError,
        match=message.replace('(', r'\(')
        .replace(')', r'\)')
        .replace('[', r'\[')
        .replace(']', r'\]'),
    ):
        Gait(**{**dict(kind=UNDULATION, segments=4, frequency_hz=1.0, beta_rad=1.0), **kwargs})


def test_valve_duty_holds_on_zero_and_maps_inflate():
    valves = gaits.ValveCommander(1, inflate_duty=0.8)
    assert valves.duty(np.array([[1, -1, 0]])).tolist() == [[0.8, 0.0, 0.0]]
    assert valves.duty(np.array([[0, 1, -1]])).tolist() == [[0.8, 0.8, 0.0]]


def test_sn12_presets_and_body_lengths():
    assert [gaits.body_length_m(n) for n in (3, 4, 5)] == pytest.approx([0.404, 0.510, 0.616])
    gait, speed = gaits.PRESETS['undulation_default']
    assert (gait.segments, gait.frequency_hz, gait.beta_rad) == (
        4,
        2.0,
        pytest.approx(2 * math.pi / 3),
    )
    assert speed / gaits.body_length_m(4) == pytest.approx(0.275, abs=5e-4)
    gait, speed = gaits.PRESETS['sidewinding_default']
    assert speed / gaits.body_length_m(4) == pytest.approx(0.150, abs=5e-4)
    assert len(gaits.PRESETS) == 8
