"""TerreSoRo limb commands on the hardware link (paper VI-A; spec 8): binary 12 V actuation, one DC
motor per limb.

A primitive from state a to state b drives every limb that curls (0 -> 1) forward at 12 V, and
gives every limb that uncurls (1 -> 0) a brief reversal pulse that slackens its tendon so the
silicone limb springs back on its own. After the pulse the reversed motors stop; limbs that stay
curled keep forward drive only with ``hold_curled_powered`` (the paper does not say, spec A20): a
stalled gear motor holds its spool either way.

The board has ``MOTORS`` channels. ``motor_of_limb[k]`` names the channel of limb digit k + 1
(digit 1 is the state's most significant bit, spec 1.4); which physical limb that is depends on the
wiring (spec A16).
"""

from __future__ import annotations

from collections.abc import Sequence

from soro_link.protocol import BodySchema
from terresoro_gait.digraph import state_bits, vertex

MOTORS = 4
FORWARD, OFF, REVERSE = 1, 0, -1

SCHEMAS = (
    # host -> device: drive of each motor channel, FORWARD/OFF/REVERSE at the supply voltage (12 V)
    BodySchema(0x30, 'set_limbs', [('drive', f'{MOTORS}b')]),
    # device -> host at 50 Hz: curl of each channel's limb (0-100 %), its drive, the settled state
    # (0: the board cannot tell), safe flag
    BodySchema(
        0x31,
        'limbs',
        [('curl_pct', f'{MOTORS}B'), ('drive', f'{MOTORS}b'), ('vertex', 'B'), ('safe', '?')],
    ),
)


def check_motor_map(motor_of_limb: Sequence[int], n_limbs: int) -> tuple[int, ...]:
    """``motor_of_limb`` as a tuple (empty: digit k on channel k - 1), or ValueError naming what is
    wrong."""
    mapping = tuple(int(m) for m in motor_of_limb) or tuple(range(n_limbs))
    if len(mapping) != n_limbs:
        raise ValueError(f'motor_of_limb {list(mapping)}: needs one channel per limb ({n_limbs})')
    if any(not 0 <= m < MOTORS for m in mapping) or len(set(mapping)) != n_limbs:
        raise ValueError(f'motor_of_limb {list(mapping)}: distinct channels in 0..{MOTORS - 1}')
    return mapping


def primitive_drives(
    initial: int,
    terminal: int,
    n_limbs: int,
    motor_of_limb: Sequence[int],
    hold_curled_powered: bool = False,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Motor drives (MOTORS,) for the primitive initial -> terminal: (during the reversal pulse,
    after it)."""
    pulse, after = [OFF] * MOTORS, [OFF] * MOTORS
    for digit, (a, b) in enumerate(
        zip(state_bits(initial, n_limbs), state_bits(terminal, n_limbs))
    ):
        motor = motor_of_limb[digit]
        if b and not a:
            pulse[motor] = after[motor] = FORWARD
        elif a and not b:
            pulse[motor] = REVERSE
        elif a and b and hold_curled_powered:
            pulse[motor] = after[motor] = FORWARD
    return tuple(pulse), tuple(after)


def curled_target(drive: Sequence[int], previous: Sequence[bool]) -> tuple[bool, ...]:
    """Which channels' limbs end curled under ``drive``: forward curls, a reversal releases, off
    keeps the last."""
    return tuple(d == FORWARD or (d == OFF and was) for d, was in zip(drive, previous))


def vertex_of_curls(curl_pct: Sequence[int], motor_of_limb: Sequence[int]) -> int:
    """The vertex whose curled limbs are those curled past half way (``limbs`` telemetry, % per
    channel): for a board that cannot tell the vertex itself (it reports 0;
    firmware/terresoro_board.c does not know the wiring)."""
    return vertex([curl_pct[m] >= 50 for m in motor_of_limb])


JOINTS_PER_LIMB = 3  # urdf/terresoro.urdf.xacro: each limb is three segments
# bend of each joint when the limb is fully curled (three make a near-ring)
CURLED_BEND_RAD = 2.0


def joint_names(n_limbs: int) -> list[str]:
    """The URDF's curl joints, limb digit 1 first: limb1_joint1 .. limb1_joint3, limb2_joint1,
    ..."""
    return [
        f'limb{k}_joint{j}' for k in range(1, n_limbs + 1) for j in range(1, JOINTS_PER_LIMB + 1)
    ]


def curl_joint_positions(curl: Sequence[float]) -> list[float]:
    """Joint angles (rad) for each limb's curl fraction (0 flat, 1 curled), in joint_names
    order."""
    return [CURLED_BEND_RAD * float(c) for c in curl for _ in range(JOINTS_PER_LIMB)]
