"""Fitting the simulator's two unknowns on chapter 2's headline speeds, and nothing else (spec
A4.1). No ROS.

The thesis measured 140.25 mm/s undulating (4 modules, paper, 2 Hz, β = 2π/3) and 76.50 mm/s
sidewinding (4 modules, paper, 0.875 Hz, β = π/2). Those two numbers fix a segment's bend at full
pressure (``bend_rad``, as if nothing resisted it: the ground, gravity and the pressure's lag at 2
Hz keep the real bend smaller) and how much stiffer it is up and down than sideways
(``pitch_stiffness_ratio``): undulation mostly feels the first, sidewinding, which lifts the body,
also the second. Every other cell of Tables 5.2-5.7 is then a prediction (``reproduction``).

Eq. 2.1 taken literally runs the curvature wave from the last segment to the first; with segment 0
at the head the snake then backs up (D-S6). The simulator confirms it, so the snake's gaits run
with ``wave_direction = −1``.
"""

from __future__ import annotations

import dataclasses
import itertools

from soft_snake import body
from soft_snake.gaits import PRESETS, Gait

# wave_direction that moves the head first (D-S6, checked in simulation)
HEAD_FIRST = -1
HEADLINES = ('undulation_default', 'sidewinding_default')
SURFACE = 'paper'
# The result of ``calibrate()`` (fit once, kept here so that every run starts from the same snake)
CALIBRATED = body.BodyParameters(bend_rad=1.2, pitch_stiffness_ratio=2.0)
GRID = {'bend_rad': (1.0, 1.1, 1.2, 1.3, 1.4), 'pitch_stiffness_ratio': (1.5, 2.0, 2.5, 3.0, 4.0)}


def head_first(gait: Gait) -> Gait:
    """``gait`` with its travelling wave reversed (``wave_direction = HEAD_FIRST``): head first."""
    return dataclasses.replace(gait, wave_direction=HEAD_FIRST)


def headline_speeds(params: body.BodyParameters) -> list[tuple[str, float, float]]:
    """(preset, simulated, measured) speeds in m/s of the two headline runs."""
    # here: the driver reads CALIBRATED only, and starts without MuJoCo (0.2 s)
    from soft_snake import simulator

    out = []
    for name in HEADLINES:
        gait, measured = PRESETS[name]
        out.append((name, simulator.gait_speed(head_first(gait), SURFACE, params)[0], measured))
    return out


def calibrate(
    grid: dict = GRID, base: body.BodyParameters = CALIBRATED
) -> tuple[body.BodyParameters, float]:
    """The grid point of (bend_rad, pitch_stiffness_ratio) with the smallest worst relative error
    on the headline speeds, and that error. A grid, not a local optimiser: the speeds are not
    smooth in the parameters (a snake that lifts its head a little more can lose a wheel's grip),
    so a descent stops in the first dip."""
    best, best_error = base, float('inf')
    for bend_rad, ratio in itertools.product(grid['bend_rad'], grid['pitch_stiffness_ratio']):
        params = dataclasses.replace(base, bend_rad=bend_rad, pitch_stiffness_ratio=ratio)
        error = max(abs(sim / measured - 1) for _, sim, measured in headline_speeds(params))
        if error < best_error:
            best, best_error = params, error
    return best, best_error
