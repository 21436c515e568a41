"""The node's parameters as typed data (no rclpy): declarations with ranges, and the structure they
describe.

Physical parameters default to the chosen preset's values and take effect at start-up and at every
``~/reset``; ``real_time_factor`` applies at once; the rest are read once at start-up.
"""

from __future__ import annotations

import math
from dataclasses import replace

from soro_node.frames import BASE_FRAME, ODOM_FRAME, FrameUse, tracked_base_of
from soro_node.params import ParamSpec
from tensegrity_sim import prism, sweep
from tensegrity_sim.integrate import FIXED_STEP
from tensegrity_sim.presets import PRESETS, Preset
from tensegrity_sim.structure import DAMPING_MODES, INERTIA_MODES, Ground, Structure

PRESET = ParamSpec(
    'preset',
    'savin2020_reproduce',
    'named configuration; the defaults of the other parameters',
    choices=tuple(PRESETS),
    read_only=True,
)
RUN = (
    ParamSpec(
        'publish_rate_hz',
        100.0,
        'rate of state, poses and markers (Hz)',
        1.0,
        1000.0,
        read_only=True,
    ),
    ParamSpec('real_time_factor', 1.0, 'simulated seconds per wall second', 0.01, 100.0),
    ParamSpec(
        'frame_id',
        'world',
        'world frame (REP-105, no map) of the poses and markers',
        nonempty=True,
        read_only=True,
    ),
    ODOM_FRAME,
    BASE_FRAME,  # at the centre of mass, axes as the world's: there is no URDF
    ParamSpec(
        'duration_s',
        0.0,
        'simulate this long, then exit (s); 0 runs until stopped',
        0.0,
        1e6,
        read_only=True,
    ),
    ParamSpec(
        'hold_for_subscribers',
        0,
        'hold the structure at its release (publishing t = 0) until ~/state has this '
        'many subscribers, so that a recorder started alongside catches the '
        'release',
        0,
        100,
        read_only=True,
    ),
)


def physics_parameters(p: Preset) -> tuple[ParamSpec, ...]:
    """Physical parameters with ``p``'s values as defaults; they take effect at start-up and at
    each ~/reset."""
    s = p.structure
    ground = s.ground or Ground()  # the preset's floor, or the default one to switch on
    first = {
        name: float(getattr(s, name)[0])
        for name in (
            'rod_mass_kg',
            'rod_length_m',
            'cable_stiffness_n_per_m',
            'cable_rest_length_m',
            'cable_damping_n_s_per_m',
        )
    }
    return (
        ParamSpec('rod_mass_kg', first['rod_mass_kg'], 'mass of each rod (kg)', 1e-6, 1e6),
        ParamSpec('rod_length_m', first['rod_length_m'], 'length of each rod (m)', 1e-4, 100.0),
        ParamSpec(
            'inertia',
            s.inertia,
            "rod inertia: thin_rod (m L²/12) or identity (1 kg·m², authors' code)",
            choices=INERTIA_MODES,
        ),
        ParamSpec(
            'cable_stiffness_n_per_m',
            first['cable_stiffness_n_per_m'],
            'cable stiffness s (N/m)',
            0.0,
            1e7,
        ),
        ParamSpec(
            'cable_rest_length_m',
            first['cable_rest_length_m'],
            'cable rest length l⁰ (m)',
            1e-4,
            100.0,
        ),
        ParamSpec(
            'cable_damping_n_s_per_m',
            first['cable_damping_n_s_per_m'],
            'cable damping γ of eq. (3) (N·s/m)',
            0.0,
            1e5,
        ),
        ParamSpec(
            'damping_mode',
            s.damping_mode,
            'cable damping on the full relative velocity, or along the cable',
            choices=DAMPING_MODES,
        ),
        ParamSpec(
            'unilateral',
            bool(s.unilateral),
            'cables carry no force when shorter than their rest length',
        ),
        ParamSpec(
            'rod_drag_linear_n_s_per_m',
            s.rod_drag_linear_n_s_per_m,
            'drag on each rod centre (N·s/m)',
            0.0,
            1e5,
        ),
        ParamSpec(
            'rod_drag_angular_n_m_s',
            s.rod_drag_angular_n_m_s,
            'drag on each rod rotation (N·m·s)',
            0.0,
            1e5,
        ),
        ParamSpec(
            'gravity_m_s2',
            float(-s.gravity_m_s2[2]),
            'gravity along -z (m/s²); 0 in the paper',
            0.0,
            100.0,
        ),
        ParamSpec(
            'ground_enabled',
            s.ground is not None,
            'a floor with penalty contact and Coulomb friction',
        ),
        ParamSpec('ground_height_m', ground.height_m, 'floor height (m)', -100.0, 100.0),
        ParamSpec(
            'ground_stiffness_n_per_m',
            ground.stiffness_n_per_m,
            'floor penalty stiffness (N/m)',
            1.0,
            1e8,
        ),
        ParamSpec(
            'ground_damping_n_s_per_m',
            ground.damping_n_s_per_m,
            'floor penalty damping (N·s/m)',
            0.0,
            1e6,
        ),
        ParamSpec('ground_friction', ground.friction, 'Coulomb friction coefficient μ', 0.0, 10.0),
        ParamSpec(
            'centre_radius_m',
            p.centre_radius_m,
            'radius ρ0 of the initial rod centres (m)',
            0.0,
            10.0,
        ),
        ParamSpec(
            'psi',
            math.radians(p.psi_deg),
            'initial tilt ψ of each rod from the vertical (rad)',
            *map(math.radians, prism.PSI_OPEN_RANGE_DEG),
            open_interval=True,
        ),
        ParamSpec(
            'integrator',
            p.integrator if p.integrator in FIXED_STEP else 'rk4',
            'fixed-step integrator',
            choices=FIXED_STEP,
        ),
        replace(sweep.DT, default=p.dt_s),
    )


def structure_from_parameters(base: Structure, values: dict) -> Structure:
    """``base`` with the node's physical parameters applied (``physics_parameters`` names); raises
    StructureError."""
    ground = None
    if values['ground_enabled']:
        ground = Ground(
            height_m=values['ground_height_m'],
            stiffness_n_per_m=values['ground_stiffness_n_per_m'],
            damping_n_s_per_m=values['ground_damping_n_s_per_m'],
            friction=values['ground_friction'],
        )
    return replace(
        base,
        rod_mass_kg=values['rod_mass_kg'],
        rod_length_m=values['rod_length_m'],
        inertia=values['inertia'],
        cable_stiffness_n_per_m=values['cable_stiffness_n_per_m'],
        cable_rest_length_m=values['cable_rest_length_m'],
        cable_damping_n_s_per_m=values['cable_damping_n_s_per_m'],
        damping_mode=values['damping_mode'],
        unilateral=values['unilateral'],
        rod_drag_linear_n_s_per_m=values['rod_drag_linear_n_s_per_m'],
        rod_drag_angular_n_m_s=values['rod_drag_angular_n_m_s'],
        gravity_m_s2=(0.0, 0.0, -values['gravity_m_s2']),
        ground=ground,
    )


# what each executable stamps and broadcasts, by its parameters (softbots_bringup's frame check
# reads it)
FRAMES = {
    'tensegrity_live': (RUN, lambda p: FrameUse(frozenset({p['frame_id']}), tracked_base_of(p)))
}
