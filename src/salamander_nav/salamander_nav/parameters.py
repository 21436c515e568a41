"""The salamander nodes' parameters as typed data (no rclpy), SI throughout; defaults from spec
D-M17 where the thesis gives none."""

from __future__ import annotations

import math

from salamander_nav.los import LosSettings
from salamander_nav.modules import MAX_MODULES
from salamander_nav.origami import KAPPA_MAX, S_MAX_M, S_MIN_M
from salamander_nav.planning import PLANNERS
from softbots_bringup.description import default_sim_port
from soro_node.frames import BASE_FRAME, ODOM_FRAME, FrameUse, tracked_base_of
from soro_node.params import ParamSpec

MODULES = ParamSpec(
    'modules', 1, 'modules in the chain, ids 1 (front) to N', 1, MAX_MODULES, read_only=True
)
FRAME = ParamSpec(
    'frame_id',
    'map',
    'map frame (REP-105) of motion capture, maps, obstacles and paths',
    nonempty=True,
    read_only=True,
)

CONTROLLER = (
    MODULES,
    FRAME,
    ODOM_FRAME,
    BASE_FRAME,
    ParamSpec(
        'speed_m_s',
        0.08,
        'forward speed while following a path (m/s; D-M17: 50-100 mm/s)',
        0.005,
        0.3,
    ),
    ParamSpec(
        'command_rate_hz',
        20.0,
        'LOS/PD steps and module commands per second',
        1.0,
        200.0,
        read_only=True,
    ),
    ParamSpec('lookahead_m', LosSettings.lookahead_m, 'LOS lookahead Δ (m; 1 BL)', 0.005, 2.0),
    ParamSpec(
        'switch_radius_m',
        LosSettings.switch_radius_m,
        'waypoint switch radius R_switch (m; 0.5 BL)',
        0.001,
        1.0,
    ),
    ParamSpec(
        'goal_tolerance_m',
        LosSettings.goal_tolerance_m,
        'stop this close to the last waypoint (m)',
        0.005,
        1.0,
    ),
    ParamSpec('kp', LosSettings.kp, 'PD gain: rad of bend per rad of heading error', 0.0, 20.0),
    ParamSpec('kd_s', LosSettings.kd_s, 'PD derivative gain (s)', 0.0, 10.0),
    ParamSpec(
        'stale_after_s',
        LosSettings.stale_after_s,
        'wheels stop when the tracked pose is older (s)',
        0.02,
        5.0,
    ),
    ParamSpec(
        'tracking_lost_s',
        3.0,
        'a path is abandoned after the pose has been stale this long (s)',
        0.1,
        60.0,
    ),
    ParamSpec('s_nominal_m', S_MAX_M, 'central-axis length while steering (m)', S_MIN_M, S_MAX_M),
    ParamSpec(
        'curvature_preview_m',
        LosSettings.curvature_preview_m,
        "the steering feed-forward reads the path's curvature this far ahead (m): about half "
        "the distance by which the robot's path turns later than its bend (0: the model's robot)",
        0.0,
        1.0,
    ),
    ParamSpec(
        'cable_offset_m',
        0.02,
        'd of Eq. 3.1 (m): not in the thesis, measure it (D-M1)',
        0.001,
        0.1,
        read_only=True,
    ),
    ParamSpec(
        'wheel_radius_m',
        0.02,
        'wheel radius r1 (m): not in the thesis (D-M1)',
        0.001,
        0.2,
        read_only=True,
    ),
    ParamSpec(
        'send_cable_lengths',
        False,
        "send Eq. 3.1's cable lengths instead of (s, θ, ϕ), for a module firmware "
        'without the kinematics',
        read_only=True,
    ),
    # the follower's goal and progress checks (los.py, tracking.ProgressChecker)
    ParamSpec(
        'goal_heading_tolerance_rad',
        LosSettings.goal_heading_tolerance_rad,
        "the goal is reached only this close to the path's end heading (rad), when it has one",
        0.01,
        math.pi,
    ),
    ParamSpec(
        'progress_required_m',
        0.02,
        'a path is abandoned when the distance left along it falls by less than this (m) in '
        'progress_window_s',
        0.001,
        1.0,
    ),
    ParamSpec(
        'progress_window_s',
        8.0,
        'time allowed for progress_required_m along the path (s): a blocked or circling robot '
        'stops within it',
        0.5,
        600.0,
    ),
)
PLANNER = (
    FRAME,
    BASE_FRAME,  # the start from tf (frame_id -> base_frame) where no motion capture publishes
    ParamSpec(
        'planner', 'chomp', 'default planner of a request that names none', choices=PLANNERS
    ),
    ParamSpec(
        'scene_file',
        '',
        'scene YAML: bounds, resolution and obstacles (empty: the installed '
        'config/salamander_scene.yaml)',
        read_only=True,
    ),
    ParamSpec(
        'clearance_m',
        0.04,
        "least distance from a path to an obstacle (m): half the robot's width",
        0.0,
        1.0,
    ),
    ParamSpec(
        'safety_margin_m',
        0.02,
        'kept beyond clearance_m (m): covers the distance field (exact to half a cell) and '
        'tracking; 0 lets the robot graze a gap its width',
        0.0,
        1.0,
    ),
    ParamSpec(
        'kappa_max',
        KAPPA_MAX,
        "largest path curvature (1/m; 12.52 = the module's 79.9 mm turning radius, D-M9)",
        0.1,
        KAPPA_MAX,
    ),
    ParamSpec(
        'chomp_iterations', 60, 'CHOMP iterations per restart (the thesis used 60)', 1, 10_000
    ),
    ParamSpec('astar_max_expansions', 500_000, 'lattice A* expansion budget', 1, 50_000_000),
    ParamSpec(
        'astar_max_states',
        2_000_000,
        'lattice A* memory budget: states stored (about 320 bytes each)',
        1000,
        100_000_000,
    ),
    ParamSpec('max_planning_s', 10.0, 'lattice A* time budget (s)', 0.01, 600.0),
    ParamSpec(
        'chomp_from_lattice',
        False,
        "CHOMP starts from lattice A*'s path (planned first) instead of the straight line",
    ),
    ParamSpec(
        'chomp_lattice_fallback',
        True,
        "when CHOMP from the straight line fails, it tries once more from lattice A*'s path "
        "(false: the thesis's CHOMP, which solves few fields beyond its scene)",
    ),
    ParamSpec(
        'astar_heuristic_weight',
        1.2,
        "lattice A* heuristic weight: 1 is the thesis's A*; above 1 weighted A* (paths at most "
        'that factor longer, far fewer expansions: 1.2 solves 5-20 m random fields in < 2 s)',
        1.0,
        10.0,
    ),
    ParamSpec(
        'astar_turn_penalty',
        2.0,
        "lattice A* cost of turning, in primitives per rad (0: the thesis's equal costs; 2 turns "
        'the thesis path 1.75x its net heading change, where equal costs turn it 6.9x)',
        0.0,
        100.0,
    ),
)
SIMULATOR = (
    MODULES,
    FRAME,
    ParamSpec(
        'port',
        default_sim_port('salamander'),
        'path of the pseudo-terminal the bridge opens (salamander.launch.py gives both the same)',
        nonempty=True,
        read_only=True,
    ),
    ParamSpec(
        'watchdog_ms',
        300,
        'host ESP32 link watchdog (ms; spec B8: 300)',
        10,
        60_000,
        read_only=True,
    ),
    ParamSpec(
        'start_pose',
        [0.35, 0.3, math.pi / 2],
        'front wheel set at start: x m, y m, heading rad',
        read_only=True,
    ),
    ParamSpec(
        'mocap_rate_hz', 100.0, 'motion-capture frame rate (Hz)', 1.0, 1000.0, read_only=True
    ),
    ParamSpec(
        'mocap_noise_m',
        0.001,
        'tracked position noise, standard deviation per axis (m); heading noise is '
        'this over half a body length (rad)',
        0.0,
        0.05,
    ),
    ParamSpec(
        'spool_rate_max_rad_s',
        20.9,
        'origami motor speed limit (rad/s; N20 1:150, about 200 rpm)',
        0.1,
        200.0,
        read_only=True,
    ),
    ParamSpec('wheel_tau_s', 0.1, 'wheel motor lag (s)', 0.001, 5.0, read_only=True),
    ParamSpec(
        'slip_noise',
        0.02,
        'wheel slip, relative standard deviation of the speed',
        0.0,
        0.5,
        read_only=True,
    ),
    ParamSpec('cable_offset_m', 0.02, 'd of Eq. 3.1 (m)', 0.001, 0.1, read_only=True),
    ParamSpec('wheel_radius_m', 0.02, 'wheel radius r1 (m)', 0.001, 0.2, read_only=True),
    ParamSpec(
        'firmware_kinematics',
        True,
        'the module firmware maps (s, θ, ϕ) to cables itself; false: it takes '
        'only cable lengths (set send_cable_lengths on the controller)',
        read_only=True,
    ),
    ParamSpec('seed', 0, 'noise seed', 0, 2**31 - 1, read_only=True),
    # the plant's model error (kinematics.Plant): defaults are the planner's own model
    ParamSpec(
        'curvature_lag_m',
        0.0,
        "path curvature's first-order lag behind the bend's, in m travelled (0: none, the "
        "thesis's §3.3.2 assumption; 0.148: one body length)",
        0.0,
        1.0,
        read_only=True,
    ),
    ParamSpec(
        'bend_gain',
        1.0,
        "steering gain error: the path's curvature is this times the bend's (1: none)",
        0.1,
        3.0,
        read_only=True,
    ),
)


def _frames_of(p: dict, broadcasts: tuple = ()) -> FrameUse:
    return FrameUse(frozenset({p['frame_id']}), broadcasts)


# what each executable stamps and broadcasts, by its parameters (softbots_bringup's frame check
# reads it)
FRAMES = {
    'salamander_sim': (SIMULATOR, _frames_of),
    'salamander_controller': (CONTROLLER, lambda p: _frames_of(p, tracked_base_of(p))),
    'salamander_planner': (PLANNER, _frames_of),
}
