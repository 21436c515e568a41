"""The soft snake's node parameters as typed data (no rclpy), in SI (duties as fractions, pressures
in Pa)."""

from __future__ import annotations

import math

from soft_snake import tables
from soft_snake.gaits import MAX_BETA_RAD, MAX_FREQUENCY_HZ, MAX_PHI, MAX_SEGMENTS, MIN_SEGMENTS
from softbots_bringup.description import default_sim_port
from soro_node.frames import BASE_FRAME, ODOM_FRAME, FrameUse, tracked_base_of
from soro_node.params import ParamSpec

GAIT = (
    ParamSpec(
        'frequency_hz', 2.0, 'gait frequency ω (Hz) when a goal gives none', 0.05, MAX_FREQUENCY_HZ
    ),
    ParamSpec(
        'beta_rad',
        2 * math.pi / 3,
        'phase difference β between adjacent segments (rad) when a goal gives none',
        -MAX_BETA_RAD,
        MAX_BETA_RAD,
    ),
    ParamSpec(
        'phi',
        0.0,
        'offset ϕ of the travelling wave (0: each chamber inflated half the period)',
        -MAX_PHI,
        MAX_PHI,
    ),
    ParamSpec(
        'wave_direction',
        -1,
        'multiplies β: -1 runs the curvature wave head to tail, so the snake goes '
        'head first with segment 0 at the head (D-S6, checked in the simulator)',
        # 0 was taken, and every gait then ran with β = 0: all segments alike
        choices=(-1, 1),
    ),
    ParamSpec(
        'inflate_duty',
        1.0,
        'valve duty of an inflated chamber (1: the full 17 psi supply)',
        0.01,
        1.0,
    ),
)
# no map: motion capture's frame is the root, world -> odom -> base_link (the head, plate0's
# origin)
FRAMES_OF_MOCAP = (
    ParamSpec(
        'frame_id',
        'world',
        'world frame (REP-105, no map) of motion capture',
        nonempty=True,
        read_only=True,
    ),
    ODOM_FRAME,
    BASE_FRAME,
)
SEGMENTS = ParamSpec(
    'segments', 4, 'modules of the snake', MIN_SEGMENTS, MAX_SEGMENTS, read_only=True
)
# the snake's parameter file: the simulator runs it, the driver draws its bends and sizes
BODY_PARAMETERS = ParamSpec(
    'body_parameters_file',
    '',
    "the snake's parameter file, body and chambers (soft-snake-fit's params.yaml; empty: the "
    'calibrated ones)',
    read_only=True,
)
DRIVER = (
    GAIT
    + (
        SEGMENTS,
        ParamSpec('tick_hz', 100.0, 'valve commands per second', 20.0, 500.0, read_only=True),
        ParamSpec(
            'step_climb_row_s',
            0.0,
            'advance the step-climb table every this many seconds (0: only on '
            '~/step_climb_advance)',
            0.0,
            600.0,
        ),
        BODY_PARAMETERS,
    )
    + FRAMES_OF_MOCAP
)
SIMULATOR = (
    GAIT
    + (
        SEGMENTS,
        ParamSpec(
            'port',
            default_sim_port('soft_snake'),
            'path of the pseudo-terminal the driver '
            'opens (empty: no valve board, the simulator runs ``gait`` itself)',
            read_only=True,
        ),
        ParamSpec(
            'gait',
            'undulation',
            'the gait run without a valve board (undulation, sidewinding)',
            choices=('undulation', 'sidewinding'),
        ),
        ParamSpec(
            'surface', 'paper', 'ground, Table 5.1', choices=tables.SURFACES, read_only=True
        ),
        ParamSpec(
            'step_ahead_m',
            0.0,
            'a 7 cm step this far ahead of the head (m; 0: none); as each wheel lands on it, '
            "the simulator calls the driver's ~/step_climb_advance, as an operator "
            'would',
            0.0,
            5.0,
            read_only=True,
        ),
        ParamSpec(
            'driver',
            'soft_snake_driver',
            'the driver whose step climb the simulator advances',
            read_only=True,
        ),
        ParamSpec(
            'watchdog_ms',
            500,
            "the head controller's link watchdog (ms)",
            10,
            60_000,
            read_only=True,
        ),
        ParamSpec(
            'tau_s',
            0.0,
            "chambers' time constant (s), inflating and venting alike (measured 0.23-0.44; 0: "
            "as the chambers are, offline's or the parameter file's)",
            0.0,
            2.0,
            read_only=True,
        ),
        ParamSpec(
            'mocap_rate_hz', 50.0, 'motion-capture frame rate (Hz)', 1.0, 1000.0, read_only=True
        ),
        ParamSpec(
            'mocap_noise_m', 5e-4, 'position noise, standard deviation per axis (m)', 0.0, 0.01
        ),
        ParamSpec('seed', 0, 'noise seed', 0, 2**31 - 1, read_only=True),
        ParamSpec(
            'start_seed',
            -1,
            'before the step: the start jittered with this seed as offline '
            '(climbing.Start.jittered, ±20 mm along and across, ±5°); -1: the nominal start',
            -1,
            2**31 - 1,
            read_only=True,
        ),
        BODY_PARAMETERS,
    )
    + FRAMES_OF_MOCAP
)


def _driver_frames(p: dict) -> FrameUse:
    chambers = {f'segment{i}a' for i in range(p['segments'])}  # drawing.chamber_markers
    return FrameUse(frozenset({p['frame_id']}) | chambers, tracked_base_of(p))


# what each executable stamps and broadcasts, by its parameters (softbots_bringup's frame check
# reads it)
FRAMES = {
    'soft_snake_sim': (
        SIMULATOR,
        lambda p: FrameUse(frozenset({p['frame_id']}), () if p['port'] else tracked_base_of(p)),
    ),
    'soft_snake_driver': (DRIVER, _driver_frames),
}
