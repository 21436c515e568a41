"""The salamander's modules on the hardware link (soro_link): the host ESP32 relays each command to
the module it names over ESP-NOW (thesis §3.1.3, Fig. 3.11; spec B8, D-M18/D-M19: USB serial to the
host ESP32). No ROS.

A command carries one module's deformation (s mm, θ deg, ϕ deg: the module PCB maps it to motor
angles and runs its PID) and its three wheel-holder motor speeds (rad/s, wheel side), or, for a
firmware that knows no kinematics, the three cable lengths of Eq. 3.1 instead of (s, θ, ϕ). Modules
report their measured state back. The wire uses the thesis's units (mm, degrees) as B8 proposes;
everything above this module is SI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from salamander_nav.origami import Bend, cable_lengths
from soro_link.protocol import BodySchema

MAX_MODULES = 3  # three modules were chained in §3.2.6; ids 1 (front) to 3
# one motor per wheel holder, one holder per face of the triangle (§3.1.2)
WHEELS = 3
# wheel side of an N20 behind the 31:14 gear; commands beyond are refused, by host and firmware
MAX_WHEEL_RAD_S = 60.0
# a module stops its wheels when commands stop for this long (spec B8)
COMMAND_TIMEOUT_S = 0.3
FLAG_WHEELS_TIMED_OUT = 0x01  # module_state.flags: wheels stopped by the command watchdog
FLAG_OVERCURRENT = 0x02  # a motor's current sensor tripped (§3.1.1): the module aborted

SCHEMAS = (
    # host -> ESP32: one module's deformation and wheel speeds
    BodySchema(
        0x50,
        'module_command',
        [
            ('module_id', 'B'),
            ('s_mm', 'f'),
            ('theta_deg', 'f'),
            ('phi_deg', 'f'),
            ('wheel_rad_s', f'{WHEELS}f'),
        ],
    ),
    # host -> ESP32: the same with Eq. 3.1's cable lengths, for a firmware that only runs the cable
    # PIDs
    BodySchema(
        0x51,
        'module_cables',
        [('module_id', 'B'), ('cables_mm', '3f'), ('wheel_rad_s', f'{WHEELS}f')],
    ),
    # ESP32 -> host, per module at the telemetry rate: encoder-derived deformation and wheel
    # speeds, flags
    BodySchema(
        0x52,
        'module_state',
        [
            ('module_id', 'B'),
            ('s_mm', 'f'),
            ('theta_deg', 'f'),
            ('phi_deg', 'f'),
            ('wheel_rad_s', f'{WHEELS}f'),
            ('flags', 'B'),
        ],
    ),
)


@dataclass(frozen=True)
class ModuleCommand:
    """One module's command in SI: its id (1-3), its deformation, its wheel-holder speeds
    (rad/s)."""

    module_id: int
    bend: Bend
    wheel_rad_s: tuple[float, float, float]

    def fields(self) -> dict:
        """The ``module_command`` body."""
        return {
            'module_id': self.module_id,
            's_mm': self.bend.s_m * 1e3,
            'theta_deg': math.degrees(self.bend.theta_rad),
            'phi_deg': math.degrees(self.bend.phi_rad),
            'wheel_rad_s': tuple(float(w) for w in self.wheel_rad_s),
        }

    def cable_fields(self, cable_offset_m: float) -> dict:
        """The ``module_cables`` body: the same command as Eq. 3.1's cable lengths (mm), for a
        firmware that only runs the cable PIDs."""
        lengths = cable_lengths(self.bend, cable_offset_m) * 1e3
        return {
            'module_id': self.module_id,
            'cables_mm': tuple(float(v) for v in lengths),
            'wheel_rad_s': tuple(float(w) for w in self.wheel_rad_s),
        }


def bend_of_fields(fields) -> Bend:
    """The deformation (SI) of a ``module_command`` or ``module_state`` body."""
    return Bend(
        fields['s_mm'] / 1e3, math.radians(fields['theta_deg']), math.radians(fields['phi_deg'])
    )


def wheel_speeds_problem(speeds) -> str | None:
    """Why ``speeds`` (rad/s, wheel side) cannot be commanded, or None."""
    if not all(math.isfinite(w) for w in speeds):
        return f'wheel speeds {list(speeds)} not finite'
    if any(abs(w) > MAX_WHEEL_RAD_S for w in speeds):
        return f'wheel speeds {[f"{w:g}" for w in speeds]} beyond ±{MAX_WHEEL_RAD_S:g} rad/s'
    return None


def module_id_problem(module_id: int, modules: int) -> str | None:
    """Why ``module_id`` cannot be addressed on a robot of ``modules`` modules, or None."""
    if not 1 <= module_id <= modules:
        return f'module id {module_id} does not exist: this robot has modules 1-{modules}'
    return None
