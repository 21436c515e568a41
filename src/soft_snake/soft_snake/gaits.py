"""The snake's gait functions (thesis §2.2.2, Table 2.2, Eqs. 2.1 and 2.2; spec A2). No ROS.

Every chamber is binary: K = +1 inflate (to the 17 psi supply), −1 deflate (vent), 0 "stay still",
which only happens at an exact zero crossing and means "hold the last command" (D-S2). Segment i =
0 is the first segment; chamber j = 0 is bottom left, 1 bottom right, 2 top. Undulation drives the
two bottom chambers in anti-phase and keeps the top one vented (D-S3); sidewinding drives all three
120° apart, the hexagonal gait of Fig. 2.5. ω is a frequency in Hz (the phase is 2π ω t, D-S4).
``wave_direction = −1`` runs the travelling wave the other way (β → −β, D-S6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

UNDULATION, SIDEWINDING, STEP_CLIMB = 'undulation', 'sidewinding', 'step_climb'
GAITS = (UNDULATION, SIDEWINDING)
CHAMBERS = 3
# τ of 0.23-0.44 s: a chamber fully fills or empties in 2τ (§2.2.1)
MAX_FREQUENCY_HZ = 2.0
MIN_SEGMENTS, MAX_SEGMENTS = 3, 5
# |β| beyond a turn is a unit mistake (degrees for radians); |ϕ| beyond 1 already holds a chamber
# inflated (or vented) all period, 2 is the nodes' bound
MAX_BETA_RAD, MAX_PHI = 2 * math.pi, 2.0
# jπ in Eq. 2.1, j·2π/3 in Eq. 2.2
CHAMBER_OFFSET_RAD = {UNDULATION: math.pi, SIDEWINDING: 2 * math.pi / 3}
DRIVEN_CHAMBERS = {UNDULATION: 2, SIDEWINDING: 3}


class GaitError(ValueError):
    """A gait parameter outside what the snake can run; the message names it and the allowed
    range."""


@dataclass(frozen=True)
class Gait:
    """One gait: ``kind`` (undulation or sidewinding), N ``segments``, ω ``frequency_hz``, β
    ``beta_rad`` between adjacent segments, ϕ ``phi`` the travelling wave's offset (unitless),
    ``wave_direction`` ±1."""

    kind: str
    segments: int
    frequency_hz: float
    beta_rad: float
    phi: float = 0.0
    wave_direction: int = 1

    def __post_init__(self):
        problem = gait_problem(self)
        if problem:
            raise GaitError(problem)

    @property
    def period_s(self) -> float:
        """One gait period 1/ω in s."""
        return 1.0 / self.frequency_hz

    @cached_property
    def offsets_rad(self) -> np.ndarray:
        """i β + j Δ (N, 3): each chamber's phase offset, computed once (a valve tick needs only
        the time term)."""
        i = np.arange(self.segments)[:, None]
        j = np.arange(CHAMBERS)[None, :]
        return self.wave_direction * i * self.beta_rad + j * CHAMBER_OFFSET_RAD[self.kind]


def gait_problem(gait: Gait) -> str | None:
    """Why ``gait`` cannot run, naming the parameter and the allowed range; None if it can."""
    if gait.kind not in GAITS:
        return f'gait {gait.kind!r}: allowed {", ".join(GAITS)}'
    if (
        isinstance(gait.segments, bool)
        or not isinstance(gait.segments, (int, np.integer))
        or not MIN_SEGMENTS <= gait.segments <= MAX_SEGMENTS
    ):
        return f'segments = {gait.segments}: allowed {MIN_SEGMENTS}-{MAX_SEGMENTS}'
    if not (math.isfinite(gait.frequency_hz) and 0 < gait.frequency_hz <= MAX_FREQUENCY_HZ):
        return (
            f'frequency = {gait.frequency_hz} Hz: allowed (0, {MAX_FREQUENCY_HZ}] Hz '
            '(chambers need 2τ to fill)'
        )
    for name, value, bound in (('beta', gait.beta_rad, MAX_BETA_RAD), ('phi', gait.phi, MAX_PHI)):
        if not math.isfinite(value):
            return f'{name} = {value}: must be finite'
        if abs(value) > bound:
            unit = ' (rad, not degrees)' if name == 'beta' else ''
            return f'{name} = {value:g}: allowed -{bound:.4g} to {bound:.4g}{unit}'
    if gait.wave_direction not in (1, -1):
        return f'wave_direction = {gait.wave_direction}: allowed 1 or -1'
    return None


def phases(gait: Gait, t_s) -> np.ndarray:
    """The argument of the sine, 2π ω t + i β + j Δ (rad), shape (..., N, 3) for times ``t_s``
    (...,)."""
    t = np.asarray(t_s, dtype=float)[..., None, None]
    return 2 * math.pi * gait.frequency_hz * t + gait.offsets_rad


def chamber_states(gait: Gait, t_s) -> np.ndarray:
    """K (..., N, 3) of int8 at times ``t_s`` (...,): Eq. 2.1 (undulation, top chamber vented) or
    Eq. 2.2."""
    k = np.sign(np.sin(phases(gait, t_s)) + gait.phi).astype(np.int8)
    if gait.kind == UNDULATION:
        k[..., 2] = -1
    return k


def inflate_fraction(phi: float) -> float:
    """The share of a period a chamber is inflated, 1/2 + arcsin(ϕ)/π, 1 beyond ϕ = 1 and 0 below
    −1 (spec A2.4)."""
    return 1.0 if phi >= 1 else 0.0 if phi <= -1 else 0.5 + math.asin(phi) / math.pi


def switch_times(gait: Gait, segment: int, chamber: int, until_s: float) -> np.ndarray:
    """With ϕ = 0, the instants in [0, until_s] at which chamber (i, j) switches: 2π ω t + i β + j
    Δ = k π."""
    offset = (
        gait.wave_direction * segment * gait.beta_rad + chamber * CHAMBER_OFFSET_RAD[gait.kind]
    )
    k = np.arange(
        math.ceil(offset / math.pi),
        math.floor((2 * math.pi * gait.frequency_hz * until_s + offset) / math.pi) + 1,
    )
    t = (k * math.pi - offset) / (2 * math.pi * gait.frequency_hz)
    return t[t >= 0]


class ValveCommander:
    """K to valve duty (D-S1): +1 the inflate duty mapped from the target pressure, −1 zero (vent),
    0 the last command held. ``duty(K)`` returns (N, 3) fractions in [0, 1]."""

    def __init__(self, segments: int, inflate_duty: float = 1.0):
        if not 0 < inflate_duty <= 1:
            raise GaitError(f'inflate_duty = {inflate_duty}: allowed (0, 1]')
        self.inflate_duty = inflate_duty
        self.last = np.zeros((segments, CHAMBERS))

    def duty(self, k: np.ndarray) -> np.ndarray:
        """Valve duties (N, 3) in [0, 1] for chamber states ``k`` (N, 3); a 0 holds the last."""
        self.last = np.where(k > 0, self.inflate_duty, np.where(k < 0, 0.0, self.last))
        return self.last.copy()


def body_length_m(segments: int) -> float:
    """Total length (m) of an N-module snake: 86 + 106 N mm fits the thesis's 404, 510 and 616 mm
    (spec A1.1)."""
    return (86 + 106 * segments) / 1000.0


# The thesis's settings (SN-12): chapter 2's headline runs on paper, and the best per module count
# (Figs. 5.1, 5.4), each with the speed it measured (m/s).
PRESETS = {
    'undulation_default': (Gait(UNDULATION, 4, 2.0, 2 * math.pi / 3), 0.14025),
    'sidewinding_default': (Gait(SIDEWINDING, 4, 0.875, math.pi / 2), 0.0765),
    'undulation_best_3': (Gait(UNDULATION, 3, 1.75, 2 * math.pi / 3), 0.333 * 0.404),  # rubber
    'undulation_best_4': (Gait(UNDULATION, 4, 1.5, 2 * math.pi / 3), 0.308 * 0.510),  # rubber
    'undulation_best_5': (Gait(UNDULATION, 5, 2.0, 3 * math.pi / 4), 0.269 * 0.616),  # paper
    'sidewinding_best_3': (Gait(SIDEWINDING, 3, 0.875, math.pi / 3), 0.210 * 0.404),  # rubber
    'sidewinding_best_4': (Gait(SIDEWINDING, 4, 1.0, math.pi / 2), 0.158 * 0.510),  # rubber
    'sidewinding_best_5': (Gait(SIDEWINDING, 5, 0.875, math.pi / 2), 0.106 * 0.616),  # rubber
}
