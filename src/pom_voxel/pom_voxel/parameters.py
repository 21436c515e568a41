"""The POM nodes' parameters as typed data (no rclpy), in SI where they are physical."""

from __future__ import annotations

from softbots_bringup.description import default_sim_port
from soro_node.frames import BASE_FRAME, ODOM_FRAME, FrameUse, tracked_base_of
from soro_node.params import ParamSpec

STRUCTURE = ParamSpec(
    'structure_file',
    '',
    "voxel structure YAML (empty: the installed config/pom.yaml, the paper's quadruped)",
    read_only=True,
)
# no map and no odometry (POM does not model contact): world -> odom -> base_link are static
# identities, held by the controller, and the camera reports in world
WORLD_FRAME = ParamSpec(
    'frame_id',
    'world',
    "world frame (REP-105, no map) of the camera's markers",
    nonempty=True,
    read_only=True,
)
MARKERS = ParamSpec(
    'markers',
    ['marker_yr', 'marker_gr', 'marker_yb', 'marker_gb'],
    'the effectors a camera sees from above, in the order it reports them',
    read_only=True,
)
CONTROLLER = (
    STRUCTURE,
    MARKERS,
    ParamSpec(
        'ideality',
        1.0,
        "η: share of a plane's motion reaching nodes off the actuator (0.8: the authors' robot; "
        "pom-fe-check --structure gives the frame's for a structure)",
        0.01,
        1.0,
        read_only=True,
    ),
    ParamSpec(
        'step_period_s',
        1.0,
        "time between a gait's key poses (s); the paper gives none",
        0.05,
        60.0,
    ),
    ParamSpec(
        'command_rate_hz',
        20.0,
        'stroke commands per second during a gait',
        1.0,
        200.0,
        read_only=True,
    ),
    # base_frame: the structure's (lattice origin, metres)
    WORLD_FRAME,
    ODOM_FRAME,
    BASE_FRAME,
)
SIMULATOR = (
    STRUCTURE,
    MARKERS,
    ParamSpec(
        'port',
        default_sim_port('pom'),
        'path of the pseudo-terminal the bridge opens (pom.launch.py gives both the same)',
        read_only=True,
    ),
    ParamSpec('watchdog_ms', 500, 'firmware watchdog (ms)', 10, 60_000, read_only=True),
    ParamSpec('speed_mm_s', 20.0, 'actuator speed (mm/s)', 0.1, 1000.0, read_only=True),
    ParamSpec(
        'camera_rate_hz', 30.0, 'motion-capture frame rate (Hz)', 1.0, 1000.0, read_only=True
    ),
    ParamSpec(
        'camera_noise_m', 2e-4, 'marker position noise, standard deviation per axis (m)', 0.0, 0.01
    ),
    ParamSpec(
        'drift_m_s',
        5e-4,
        'invented body drift along (+x, +y) (m/s): POM does not model contact',
        0.0,
        0.1,
    ),
    ParamSpec('turn_rad_s', 0.002, 'invented body turn (rad/s)', -1.0, 1.0),
    ParamSpec('seed', 0, 'noise seed', 0, 2**31 - 1, read_only=True),
    WORLD_FRAME,
)


# what each executable stamps and broadcasts, by its parameters (softbots_bringup's frame check
# reads it)
FRAMES = {
    'pom_sim': (SIMULATOR, lambda p: FrameUse(frozenset({p['frame_id']}))),
    'pom_controller': (
        CONTROLLER,
        lambda p: FrameUse(frozenset({p['base_frame']}), tracked_base_of(p)),
    ),
}
