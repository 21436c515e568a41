"""The snake's body for the MuJoCo simulator: geometry, masses, surfaces and the MJCF that puts
them together. No ROS.

The thesis simulated its snake in NVidia Flex, particles and tetrahedra on a GPU (§2.3; spec A5),
and gives none of that model's parameters. We keep what the locomotion depends on and make it cheap
enough for one CPU core:
- each module's soft segment (70 mm, Table 2.1; the sizes are ``BodyParameters``', so that a fit
  can take another robot's) is two rigid links on three yaw-pitch joint pairs that share its
  bend 1/4, 1/2, 1/4 (a circular arc in three chords); the bend each pair is driven to follows the
  chamber pressures (``bend``);
- a plate between modules (36 mm, 61 mm at the head and the tail: 86 + 106 N mm in all, Table 2.1)
  carries two passive Ø 20 mm wheels on free hinges: they roll with the surface's rolling friction
  and slide sideways with its sliding friction, the anisotropy undulation needs (§2.1.5);
- gravity against the bottom chambers' bend (§2.2.2, spec A1.2): a bottom chamber bends its segment
  sideways and up, and the thesis says the body's weight cancels the upward part, so undulation
  stays in the plane ("the lateral undulation will stay on the same plane"). The weight a segment
  carries holds it down until the chambers' upward moment exceeds ``lift_threshold`` (a share of
  one chamber's full-pressure moment): one bottom chamber's upward half stays on the ground, both
  (state 3, sidewinding's {0, 1}) lift the body;
- friction per surface and per pair, set explicitly (MuJoCo <pair> elements; no geom-to-geom
  combination, whose maximum gave μ 1.0 to every body contact): Table 5.1's factors, printed
  without units, become coefficients: the sliding column times ``friction_scale`` (0.1: paper's
  5.83 → μ 0.58), the rolling column times ``rolling_scale`` (0.1: paper's 0.58 → 0.058). The two
  columns are two measurements (dragging sideways, rolling along), so each has its own conversion
  for a fit to find (equal by default; calibrated, 0.18 and 0.014). A wheel rolls along on its
  hinge against the rolling coefficient and slides across with the sliding one (the anisotropy of
  §2.1.5, finite both ways); the body's surface (its sheath) slides with the sliding coefficient
  times ``sheath_over_sliding`` (the thesis gives no figure: 1 by default, Table 5.1's sliding
  factor, measured dragging the robot sideways, as the sheath's too; calibrated, 2);
- two readings a fit can turn on, off by default: a rolling resistance that grows with the wheel's
  speed (``rolling_drag_scale``, Table 5.1's rolling factor as a drag, a damper on the wheel's
  hinge; the calibration turns it on) and a bend that reaches ``bend_rad`` before the full supply
  (``bend_saturation``).

Frame: x forward (the head leads at +x), y left, z up (REP-103); lengths in m, masses in kg, angles
in rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from soft_snake import tables

JOINT_SHARE = (0.25, 0.5, 0.25)  # three chords of a constant-curvature arc
# Where each chamber sits in the cross-section (y left, z up): 0 bottom left, 1 bottom right, 2 top
# (Table 2.2). A pressurised chamber extends and bends the segment away from itself (§2.1.1).
CHAMBER_YZ = np.array(
    [[math.cos(math.radians(a)), math.sin(math.radians(a))] for a in (-30.0, 210.0, 90.0)]
)
STEP_HEIGHT_M = 0.07  # the step of §2.2.2
ON_STEP_MARGIN_M = 0.01  # a wheel this close below the step's top counts as up there
# The wave-spring sheath "increased the snake's step-climbing performance three-fold" (abstract;
# spec A1.5): our reading, it multiplies the upward bend a segment keeps beyond its weight's share;
# tuned in the simulator as the thesis tuned its climb (§2.2.2; bench/snake_step.py): with the
# bend calibrated before (1.05 rad) 3.7 lifts wheel 2 to 55 mm only, 4 gets it over (at 1.2 rad,
# 3.5 did); kept with today's (0.92 rad), the climb's rows tuned again with it
SHEATH_LIFT_GAIN = 4.0


def up_on_step(wheel_heights_m) -> np.ndarray:
    """Which wheels (bottoms' heights in m) are at the step's height."""
    return np.asarray(wheel_heights_m) > STEP_HEIGHT_M - ON_STEP_MARGIN_M


def on_step(wheel_heights_m, past_edge_m) -> np.ndarray:
    """Which axles stand on the step: their bottoms on its top (within ``ON_STEP_MARGIN_M``) and
    their (rear) wheels' centres past its edge (m, head first). One at the step's height behind
    the edge overhangs it; one well above it is in the air, or the snake is on its back."""
    heights = np.asarray(wheel_heights_m)
    resting = np.abs(heights - STEP_HEIGHT_M) < ON_STEP_MARGIN_M
    return resting & (np.asarray(past_edge_m) > 0.0)


@dataclass(frozen=True)
class BodyParameters:
    """What the thesis does not give, with our reading (masses and sizes are estimates from Table
    2.1's sizes). The calibrated values are ``calibration.CALIBRATED`` (fitted on half of the
    speed tables); the defaults here are only a starting point."""

    # a segment's bend with one chamber at full supply pressure
    bend_rad: float = 1.0
    # Table 5.1's factors → coefficients: sliding (wheels across, sheath), rolling (wheels along)
    friction_scale: float = 0.1
    rolling_scale: float = 0.1
    # the sheath's sliding coefficient over the wheels' sideways one (the same surface)
    sheath_over_sliding: float = 1.0
    # share of one chamber's full-pressure upward moment the body's weight absorbs (§2.2.2)
    lift_threshold: float = 0.5
    # the upward bend beyond lift_threshold times this: 1 bare, as Tables 5.2-5.7's runs;
    # SHEATH_LIFT_GAIN with the step climb's sheath (§2.2.2)
    sheath_lift_gain: float = 1.0
    # sizes: a module's soft segment (Table 2.1), the plates between modules and at the ends (86 +
    # 106 N mm overall, spec A1.1: the split is ours) and the Ø 20 mm passive wheels (Table 2.1)
    segment_length_m: float = 0.070
    plate_length_m: float = 0.036
    end_plate_length_m: float = 0.061
    wheel_radius_m: float = 0.010
    segment_mass_kg: float = 0.12  # silicone segment with its sheath
    plate_mass_kg: float = 0.03  # plate, spacer, wheels, PCB
    # a 2-cell LiPo at each end (§2.1.5) and the head's Arduino
    end_plate_mass_kg: float = 0.09
    body_radius_m: float = 0.022
    axis_height_m: float = 0.032  # body axis above the ground with every wheel down
    wheel_track_m: float = 0.08
    joint_stiffness_nm_per_rad: float = 1.0  # sideways (yaw)
    # up/down over sideways: the module is 100 mm tall (Table 2.1)
    pitch_stiffness_ratio: float = 3.0
    joint_damping_nms_per_rad: float = 0.005
    timestep_s: float = 0.002
    # Off by default, for a fit to try (the calibration has it at 0.44):
    # a rolling resistance that grows with the wheel's speed, N s/m at the rim per unit of Table
    # 5.1's rolling factor (beside the Coulomb part, ``rolling_scale``)
    rolling_drag_scale: float = 0.0
    # the share of the supply at which a chamber's bend stops growing: the segment's "maximum
    # bending angle" (§5.1.1), ``bend_rad``, reached before the full supply (1: linear up to it)
    bend_saturation: float = 1.0

    def __post_init__(self):
        for name, value in vars(self).items():
            off = name == 'rolling_drag_scale'  # 0: no drag
            if not (math.isfinite(value) and (value >= 0 if off else value > 0)):
                raise ValueError(
                    f'{name} = {value}: must be finite and {">= 0" if off else "> 0"}'
                )
        if self.bend_saturation > 1:
            raise ValueError(f'bend_saturation = {self.bend_saturation}: must be <= 1')

    def length_m(self, segments: int) -> float:
        """The snake's length head to tail (m) with ``segments`` modules: the body length its
        speeds in BL/s are measured by (Table 2.1's 404, 510, 616 mm by default)."""
        return sum(plate_lengths(segments, self)) + segments * self.segment_length_m


def friction_factors(surface: str) -> tuple[float, float]:
    """Table 5.1's (sliding, rolling) factors of ``surface``; ValueError naming the surfaces."""
    factors = tables.friction()
    if surface not in factors:
        raise ValueError(f'surface {surface!r}: allowed {", ".join(sorted(factors))}')
    return factors[surface]


def surface_friction(surface: str, params: BodyParameters) -> tuple[float, float]:
    """(sliding, rolling) coefficients of ``surface``: Table 5.1's factors times ``friction_scale``
    and ``rolling_scale``."""
    sliding, rolling = friction_factors(surface)
    return sliding * params.friction_scale, rolling * params.rolling_scale


def bend(pressure_pa: np.ndarray, supply_pa: float, params: BodyParameters) -> np.ndarray:
    """Each segment's bend (N, 2): (yaw, pitch) in rad from chamber pressures (N, 3) in Pa. A
    positive yaw bends the segment to the right (its tail end swings to −y), a positive pitch bends
    it up (both its ends rise). The chambers' moment bends the stiffer up/down direction
    ``pitch_stiffness_ratio`` times less, and bends it up only by what exceeds the weight's share
    ``lift_threshold`` (the ground holds the rest; pressing down, the ground pushes back in MuJoCo
    itself), times ``sheath_lift_gain``. A chamber's share of the supply counts in full from
    ``bend_saturation`` on."""
    share = pressure_pa / supply_pa
    if params.bend_saturation < 1:
        share = np.minimum(share / params.bend_saturation, 1.0)
    # the chambers' moment (y, z) per segment, in full-pressure chamber moments
    away = -share @ CHAMBER_YZ
    lifted = np.maximum(away[:, 1] - params.lift_threshold, 0.0) * params.sheath_lift_gain
    up = np.where(away[:, 1] > 0, lifted, away[:, 1])
    return np.column_stack([-away[:, 0], up / params.pitch_stiffness_ratio]) * params.bend_rad


def plate_lengths(segments: int, p: BodyParameters) -> list[float]:
    """Plate lengths (N + 1) in m, head to tail: an end plate at each end, plates between."""
    return [p.end_plate_length_m] + [p.plate_length_m] * (segments - 1) + [p.end_plate_length_m]


def mjcf(
    segments: int, surface: str, params: BodyParameters, step_at_m: float | None = None
) -> str:
    """The MJCF of an N-segment snake with its head at the origin facing +x on ``surface``; with
    ``step_at_m`` a 7 cm step whose edge is that far ahead of the head."""
    p = params
    # the ground collides only through the explicit pairs below
    floor = '<geom name="floor" type="plane" size="0 0 1" contype="0" conaffinity="0"/>'
    grounds = ['floor']
    if step_at_m is not None:
        floor += (
            f'<geom name="step" type="box" pos="{step_at_m + 1.0} 0 {STEP_HEIGHT_M / 2}" '
            f'size="1 1 {STEP_HEIGHT_M / 2}" contype="0" conaffinity="0"/>'
        )
        grounds.append('step')
    body = _plate(
        0, plate_lengths(segments, p), segments, p, wheel_damping(surface, p), first=True
    )
    stiffness = {
        'y': p.joint_stiffness_nm_per_rad,
        'p': p.joint_stiffness_nm_per_rad * p.pitch_stiffness_ratio,
    }
    actuators = ''.join(
        f'<position joint="{axis}{i}_{k}" kp="{stiffness[axis] / share}" ctrlrange="-3 3"/>'
        for i in range(segments)
        for k, share in enumerate(JOINT_SHARE)
        for axis in 'yp'
    )
    return (
        f'<mujoco model="soft_snake"><compiler angle="radian"/>'
        # sparse Jacobians: the same solution, about 20 % less solver time with every wheel down
        f'<option timestep="{p.timestep_s}" integrator="implicitfast" cone="pyramidal" '
        f'jacobian="sparse"/>'
        f'<default><joint damping="{p.joint_damping_nms_per_rad}" armature="2e-5"/>'
        f'<geom contype="2" conaffinity="1" condim="3" solref="0.004 1"/></default>'
        f'<worldbody>{floor}{body}</worldbody>'
        f'<contact>{contact_pairs(segments, surface, p, grounds)}</contact>'
        f'<actuator>{actuators}</actuator></mujoco>'
    )


def contact_pairs(segments: int, surface: str, params: BodyParameters, grounds=('floor',)) -> str:
    """Every body geom against each of ``grounds`` with its friction set explicitly: a wheel
    (condim 6) slides with Table 5.1's sliding coefficient and rolls against its rolling one (a
    torque μ_r N R), a plate or segment slides as the sheath does."""
    sliding, rolling = surface_friction(surface, params)
    sheath = sliding * params.sheath_over_sliding
    roll = rolling * params.wheel_radius_m
    wheels = [f'wheel{a}_{s}' for a in range(segments + 1) for s in 'lr']
    shell = [f'plate{a}' for a in range(segments + 1)] + [
        f'segment{i}{half}' for i in range(segments) for half in 'ab'
    ]
    pairs = [
        f'<pair geom1="{ground}" geom2="{w}" condim="6" solref="0.004 1" '
        f'friction="{sliding} {sliding} 0.001 {roll} {roll}"/>'
        for ground in grounds
        for w in wheels
    ]
    pairs += [
        f'<pair geom1="{ground}" geom2="{g}" condim="3" solref="0.004 1" '
        f'friction="{sheath} {sheath} 0.005 0 0"/>'
        for ground in grounds
        for g in shell
    ]
    return ''.join(pairs)


def wheel_damping(surface: str, params: BodyParameters) -> float:
    """Each wheel's hinge damping (N m s/rad) on ``surface``: a bearing's 1e-6, plus the rolling
    drag (``rolling_drag_scale`` times Table 5.1's rolling factor, N s/m at the rim) times R²."""
    rolling_factor = friction_factors(surface)[1]
    return 1e-6 + params.rolling_drag_scale * rolling_factor * params.wheel_radius_m**2


def _plate(
    index: int,
    lengths: list[float],
    segments: int,
    p: BodyParameters,
    damping: float,
    first: bool = False,
) -> str:
    """Plate ``index`` (0 = head) at the rear end of what precedes it, its wheels (hinge
    ``damping``), and the rest of the chain."""
    length = lengths[index]
    mass = p.end_plate_mass_kg if index in (0, segments) else p.plate_mass_kg
    wheel_z = p.wheel_radius_m - p.axis_height_m
    wheels = ''.join(
        f'<body name="wheel{index}_{side}" pos="{-length / 2} '
        f'{sign * p.wheel_track_m / 2} {wheel_z}">'
        f'<joint name="wheel{index}_{side}" type="hinge" axis="0 1 0" damping="{damping}" '
        'armature="1e-7"/>'
        f'<geom name="wheel{index}_{side}" type="sphere" size="{p.wheel_radius_m}" '
        'mass="0.005" condim="6"/></body>'
        for side, sign in (('l', 1), ('r', -1))
    )
    joints = '' if first else _bend_joints(index - 1, 2)
    pos = f'0 0 {p.axis_height_m}' if first else f'{-p.segment_length_m / 2} 0 0'
    free = '<freejoint name="root"/>' if first else ''
    rest = '' if index == segments else _segment(index, lengths, segments, p, damping, -length)
    return (
        f'<body name="plate{index}" pos="{pos}">{free}{joints}'
        f'<geom name="plate{index}" type="box" pos="{-length / 2} 0 0" '
        f'size="{length / 2} {p.body_radius_m} '
        f'{p.body_radius_m}" mass="{mass}"/>{wheels}{rest}</body>'
    )


def _segment(
    i: int, lengths: list[float], segments: int, p: BodyParameters, damping: float, x: float
) -> str:
    half = p.segment_length_m / 2
    link = lambda name: (  # noqa: E731
        f'<geom name="{name}" type="capsule" fromto="0 0 0 {-half} 0 0" '
        f'size="{p.body_radius_m}" mass="{p.segment_mass_kg / 2}"/>'
    )
    return (
        f'<body name="segment{i}a" pos="{x} 0 0">{_bend_joints(i, 0)}{link(f"segment{i}a")}'
        f'<body name="segment{i}b" pos="{-half} 0 0">{_bend_joints(i, 1)}{link(f"segment{i}b")}'
        f'{_plate(i + 1, lengths, segments, p, damping)}</body></body>'
    )


def _bend_joints(i: int, k: int) -> str:
    return (
        f'<joint name="y{i}_{k}" type="hinge" axis="0 0 1"/>'
        f'<joint name="p{i}_{k}" type="hinge" axis="0 1 0"/>'
    )
