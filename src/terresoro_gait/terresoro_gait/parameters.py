"""The TerreSoRo nodes' parameters as typed data (no rclpy), in SI, with the paper's values as
defaults.

Shared by several nodes: ``n_limbs`` and ``tau_s`` must agree between the executor, the learner,
the synthesis service and the simulated robot (terresoro.launch.py passes one config file to all of
them), and ``weights_file`` is the file the learner writes and the executor and the synthesis
service read. All three are read-only: the executor fixes τ at configure, so a ``ros2 param set``
on one node would make them disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from softbots_bringup.description import default_sim_port
from soro_node.frames import BASE_FRAME, ODOM_FRAME, FrameUse, tracked_base_of
from soro_node.params import ParamSpec
from terresoro_gait.digraph import LimbDigraph
from terresoro_gait.limbs import check_motor_map
from terresoro_gait.substrate import PRESETS

# τ of TerreSoRo-III and -IV by limb count (paper VI-A); config/ agrees
PAPER_TAU_S = {3: 0.55, 4: 0.45}
ROBOT = (
    ParamSpec(
        'n_limbs',
        3,
        "limbs: 3 (TerreSoRo-III) or 4 (TerreSoRo-IV); 2 is the paper's caterpillar",
        2,
        4,
        read_only=True,
    ),
    ParamSpec(
        'tau_s',
        PAPER_TAU_S[3],
        'time constant τ of one primitive (s): 0.55 III, 0.45 IV (paper VI-A)',
        0.01,
        10.0,
        read_only=True,
    ),
)
WEIGHTS_FILE = ParamSpec(
    'weights_file',
    '',
    'learned edge weights, CSV in mm and degrees (empty: none yet)',
    read_only=True,
)
MOTOR_MAP = ParamSpec(
    'motor_of_limb',
    [],
    "motor channel (0-3) of limb digit 1, 2, ...; digit 1 is the state's "
    'most significant bit (spec A16); empty: digit k on channel k - 1',
    read_only=True,
    item=int,
)
FRAME = ParamSpec(
    'frame_id',
    'map',
    'map frame (REP-105) of the tracker and of the predicted poses',
    nonempty=True,
    read_only=True,
)

EXECUTOR = ROBOT + (
    MOTOR_MAP,
    WEIGHTS_FILE,
    FRAME,
    ParamSpec(
        'reversal_pulse_s',
        0.1,
        "reverse drive that slackens an uncurling limb's tendon (s); must be < "
        'tau_s (the paper gives no value)',
        0.0,
        5.0,
    ),
    ParamSpec(
        'hold_curled_powered', False, 'keep forward drive on limbs that stay curled (spec A20)'
    ),
    ParamSpec(
        'lost_limbs',
        [],
        'limb digits (1-based) that no longer curl: gaits that curl them are refused',
        item=int,
    ),
    ODOM_FRAME,
    BASE_FRAME,
    ParamSpec('trail_length', 3000, 'tracked poses kept in ~/trail', 1, 1_000_000),
)
SIMULATOR = ROBOT + (
    MOTOR_MAP,
    FRAME,
    ParamSpec(
        'port',
        default_sim_port('terresoro'),
        'path of the pseudo-terminal the bridge opens (terresoro.launch.py gives both the same)',
        read_only=True,
    ),
    ParamSpec(
        'substrate',
        'rubber_mat',
        'ground-truth substrate preset',
        choices=tuple(PRESETS),
        read_only=True,
    ),
    ParamSpec(
        'seed',
        0,
        'seed of the substrate preset; the motion noise is seeded with seed + 1',
        0,
        2**31 - 1,
        read_only=True,
    ),
    ParamSpec(
        'settle_s',
        0.3,
        'time for a limb to curl or relax fully, and for the hub to finish a primitive (s)',
        0.001,
        10.0,
        read_only=True,
    ),
    ParamSpec(
        'failed_limbs',
        [],
        'limb digits (1-based) whose tendon is broken: they never curl',
        read_only=True,
        item=int,
    ),
    ParamSpec('watchdog_ms', 500, 'firmware watchdog (ms)', 10, 60_000, read_only=True),
    ParamSpec(
        'boot_delay_s',
        0.0,
        'bootloader time after the port opens (s); an Arduino Nano takes ~2',
        0.0,
        10.0,
        read_only=True,
    ),
    ParamSpec(
        'tracker_rate_hz', 30.0, 'overhead camera frame rate (Hz)', 1.0, 1000.0, read_only=True
    ),
    ParamSpec(
        'tracker_noise_m',
        3e-4,
        'tracker position noise, standard deviation per axis (m)',
        0.0,
        0.1,
    ),
    ParamSpec(
        'tracker_noise_rad', 3.5e-3, 'tracker heading noise, standard deviation (rad)', 0.0, 1.0
    ),
    ParamSpec(
        'occlusion_s',
        0.0,
        'the marker is hidden this long in every occlusion_period_s: no frames (s)',
        0.0,
        60.0,
    ),
    ParamSpec('occlusion_period_s', 5.0, 'one occlusion starts every this long (s)', 0.1, 3600.0),
    ParamSpec(
        'truth_file',
        '',
        "write the substrate's true edge weights here at start-up (CSV; empty: no)",
        read_only=True,
    ),
)
LEARNER = ROBOT[:1] + (
    WEIGHTS_FILE,
    ParamSpec('rounds', 5, 'Eulerian rounds per learning run (paper VI-C2: 5)', 2, 1000),
    ParamSpec(
        'pose_window_s',
        0.1,
        'average the tracked frames this long before each command instant (s)',
        0.0,
        5.0,
    ),
    ParamSpec(
        'tracking_timeout_s',
        0.3,
        'with no frame in the window, accept the last one up to this old (s)',
        0.0,
        5.0,
    ),
    ParamSpec(
        'executor',
        'terresoro_executor',
        'the gait executor whose ~/execute_walk runs rounds (relative: the one '
        "in this node's namespace)",
    ),
)
SYNTHESIS = ROBOT + (WEIGHTS_FILE,)


@dataclass(frozen=True)
class ExecutorConfig:
    """The executor's robot description: its digraph, τ and the reversal pulse (s), whether limbs
    that stay curled keep forward drive, and each limb's motor channel."""

    graph: LimbDigraph  # the digraph without the lost limbs' curled states
    tau_s: float
    reversal_pulse_s: float
    hold_curled_powered: bool
    motor_of_limb: tuple[int, ...]


def executor_config(values: dict) -> ExecutorConfig:
    """The executor's robot description from its checked parameter values; ValueError naming what
    conflicts."""
    n = values['n_limbs']
    motors = check_motor_map(values['motor_of_limb'], n)
    if values['reversal_pulse_s'] >= values['tau_s']:
        raise ValueError(
            f'parameter reversal_pulse_s = {values["reversal_pulse_s"]}: must be shorter '
            'than '
            f'tau_s = {values["tau_s"]}'
        )
    lost = tuple(int(k) for k in values['lost_limbs'])
    try:
        graph = LimbDigraph(n, lost)
    except ValueError as error:
        raise ValueError(f'parameter lost_limbs = {list(lost)}: {error}') from None
    return ExecutorConfig(
        graph, values['tau_s'], values['reversal_pulse_s'], values['hold_curled_powered'], motors
    )


# what each executable stamps and broadcasts, by its parameters (softbots_bringup's frame check
# reads it)
FRAMES = {
    'terresoro_sim': (SIMULATOR, lambda p: FrameUse(frozenset({p['frame_id']}))),
    'terresoro_executor': (
        EXECUTOR,
        lambda p: FrameUse(frozenset({p['frame_id']}), tracked_base_of(p)),
    ),
    'terresoro_learner': (LEARNER, lambda p: FrameUse()),
    'terresoro_synthesis': (SYNTHESIS, lambda p: FrameUse()),
}
