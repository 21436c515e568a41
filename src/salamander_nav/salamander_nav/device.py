"""The simulated host ESP32 and its salamander modules: the firmware's robot side behind soro_link,
and the plant.

``SalamanderFirmware`` is a soro_link ``DeviceModel`` for up to three modules (ids 1-3). Each
module drives its three cables toward the commanded lengths (Eq. 3.1) no faster than its spool
motors turn (``spool_rate_max_rad_s``: the PID of §3.1.3 with a speed limit, which is the curvature
actuation rate limit of B4.3) and its wheel motors toward the commanded speeds with a first-order
lag. A module whose commands stop for 300 ms stops its wheels (the firmware watchdog of spec B8),
and the link watchdog stops every wheel (the safe state; bends hold). Commands outside the
workspace or for a module that does not exist are refused (OUT_OF_RANGE), nothing moves.

The plant (``kinematics.Plant``) is the single-module model of §3.3.2 driven by module 1 (the front
module): v from its bottom wheel pair, with a multiplicative slip noise, and the path's curvature
that of its bend's horizontal part, or, with a ``plant_error``, lagging behind it over distance and
scaled by a steering gain (the model error the tracker must survive). Further modules are simulated
as deformation states only (their effect on the chain's motion is not modelled: D-M20).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from salamander_nav import kinematics, origami
from salamander_nav.kinematics import ModuleGeometry, Plant, PlantError
from salamander_nav.modules import (
    COMMAND_TIMEOUT_S,
    FLAG_WHEELS_TIMED_OUT,
    MAX_MODULES,
    MAX_WHEEL_RAD_S,
    SCHEMAS,
    WHEELS,
    bend_of_fields,
)
from salamander_nav.origami import Bend, WorkspaceError
from soro_link.device import DeviceModel
from soro_link.protocol import LogCode, LogLevel, NackCode

BOTTOM_WHEELS = (1, 2)  # with cable 1 on top, holders 2 and 3 are on the floor (left, right)
# m and rad: float32 rounding of a value sent at its limit (106° arrives as 106.000002)
WIRE_SLACK = 1e-5


class ModuleFirmware:
    """One module's cable and wheel loops, and its command watchdog."""

    def __init__(
        self,
        module_id: int,
        geometry: ModuleGeometry,
        spool_rate_max_rad_s: float,
        wheel_tau_s: float,
    ):
        self.module_id, self.geometry, self.wheel_tau_s = module_id, geometry, wheel_tau_s
        self.cable_speed_m_s = geometry.spool_radius_m * spool_rate_max_rad_s
        self.cables = origami.cable_lengths(
            Bend(origami.S_MAX_M, 0.0, 0.0), geometry.cable_offset_m
        )
        self.cables_target = self.cables.copy()
        self.wheels, self.wheels_target = np.zeros(WHEELS), np.zeros(WHEELS)
        self.last_command, self.timed_out = -math.inf, False

    def command(self, bend: Bend, wheel_rad_s, now: float) -> None:
        """Take a command received at ``now`` (s): cable targets of ``bend`` (Eq. 3.1) and wheel
        targets ``wheel_rad_s`` (3,) in rad/s; rearms the command watchdog."""
        self.cables_target = origami.cable_lengths(bend, self.geometry.cable_offset_m)
        self.wheels_target, self.last_command, self.timed_out = (
            np.array(wheel_rad_s, dtype=float),
            now,
            False,
        )

    def stop_wheels(self) -> None:
        """Set every wheel's target speed to 0 (the wheels slow down through their lag)."""
        self.wheels_target = np.zeros(WHEELS)

    def step(self, now: float, dt: float) -> bool:
        """Advance by ``dt``; True when the command watchdog tripped in this step."""
        tripped = (
            not self.timed_out
            and self.wheels_target.any()
            and now - self.last_command > COMMAND_TIMEOUT_S
        )
        if tripped:
            self.timed_out = True
            self.stop_wheels()
        reach = self.cable_speed_m_s * dt
        self.cables += np.clip(self.cables_target - self.cables, -reach, reach)
        self.wheels += (self.wheels_target - self.wheels) * (
            1.0 - math.exp(-dt / self.wheel_tau_s)
        )
        return tripped

    def bend(self) -> Bend:
        """The deformation of the cables' present lengths (the forward kinematics of Eq. 3.1)."""
        return origami.bend_of(self.cables, self.geometry.cable_offset_m)


class SalamanderFirmware(DeviceModel):
    """The simulated host ESP32: ``modules`` (1-3) ModuleFirmwares and the plant of module 1 (see
    the module docstring); ``kinematics`` false takes only ``module_cables``. Raises ValueError for
    a module count outside 1-MAX_MODULES."""

    device_kind = 'salamander_esp32'
    firmware_version = '1.0.0'
    schemas = SCHEMAS

    def __init__(
        self,
        modules: int = 1,
        geometry: ModuleGeometry = ModuleGeometry(),
        spool_rate_max_rad_s: float = 20.9,
        wheel_tau_s: float = 0.1,
        slip_noise: float = 0.02,
        telemetry_hz: float = 20.0,
        start_pose=(0.0, 0.0, 0.0),
        seed: int = 0,
        kinematics: bool = True,
        plant_error: PlantError | None = None,
    ):
        super().__init__()
        # False: a firmware that knows only cable lengths (module_cables)
        self.kinematics = kinematics
        if not 1 <= modules <= MAX_MODULES:
            raise ValueError(f'modules = {modules}: allowed 1-{MAX_MODULES}')
        self.geometry, self.slip_noise = geometry, slip_noise
        self.modules = {
            i: ModuleFirmware(i, geometry, spool_rate_max_rad_s, wheel_tau_s)
            for i in range(1, modules + 1)
        }
        self._lock = threading.Lock()
        self.plant = Plant(start_pose, plant_error or PlantError())
        self._rng = np.random.default_rng(seed)
        self._period, self._next = 1.0 / telemetry_hz, 0.0

    def command(self, message, now):
        """Apply a ``module_command`` or ``module_cables``: None to ack it; OUT_OF_RANGE for an
        unknown module, a bend outside the workspace or a wheel beyond MAX_WHEEL_RAD_S;
        UNKNOWN_TYPE for a ``module_command`` to a firmware without kinematics."""
        if message.name == 'module_command' and not self.kinematics:
            return NackCode.UNKNOWN_TYPE
        module = self.modules.get(message['module_id'])
        if module is None:
            return NackCode.OUT_OF_RANGE
        try:
            bend = (
                bend_of_fields(message)
                if message.name == 'module_command'
                else origami.bend_of(
                    np.array(message['cables_mm']) / 1e3, self.geometry.cable_offset_m
                )
            )
            inside, _ = origami.saturate(bend)
            if (
                abs(inside.s_m - bend.s_m) > WIRE_SLACK
                or abs(inside.theta_rad - bend.theta_rad) > WIRE_SLACK
            ):
                # the host saturates; a firmware never trusts it to
                return NackCode.OUT_OF_RANGE
            # a limit sent as float32 may land a hair beyond it
            bend = inside
        except WorkspaceError:
            return NackCode.OUT_OF_RANGE
        if any(abs(w) > MAX_WHEEL_RAD_S for w in message['wheel_rad_s']):
            return NackCode.OUT_OF_RANGE
        with self._lock:
            module.command(bend, message['wheel_rad_s'], now)
            self.safe = False
        return None

    def enter_safe_state(self):
        """The link watchdog's safe state: every module's wheels stop, the bends hold."""
        with self._lock:
            for module in self.modules.values():
                module.stop_wheels()
            self.safe = True

    def step(self, now, dt):
        """Advance the loops and the plant by ``dt`` s; a WATCHDOG log per module whose command
        watchdog tripped, and every module's ``module_state`` at ``telemetry_hz``."""
        out = []
        with self._lock:
            for module in self.modules.values():
                if module.step(now, dt):
                    out.append(
                        (
                            'log',
                            {
                                'level': LogLevel.WARN,
                                'code': LogCode.WATCHDOG,
                                'text': f'module {module.module_id}: no command for '
                                f'{COMMAND_TIMEOUT_S * 1e3:.0f} ms, '
                                'wheels stopped',
                            },
                        )
                    )
            self._drive(dt)
            if now >= self._next:
                self._next = now + self._period
                out += [('module_state', self._report(m)) for m in self.modules.values()]
        return out

    def _drive(self, dt: float) -> None:
        front = self.modules[1]
        kappa = origami.steering_curvature(front.bend())
        wheels = front.wheels[list(BOTTOM_WHEELS)]
        v = float(kinematics.forward_speed(*wheels, self.geometry.wheel_radius_m))
        v *= 1.0 + self.slip_noise * self._rng.standard_normal()
        self.plant.step(v, kappa, dt)

    def _report(self, module: ModuleFirmware) -> dict:
        bend = module.bend()
        return {
            'module_id': module.module_id,
            's_mm': bend.s_m * 1e3,
            'theta_deg': math.degrees(bend.theta_rad),
            'phi_deg': math.degrees(bend.phi_rad),
            'wheel_rad_s': tuple(float(w) for w in module.wheels),
            'flags': FLAG_WHEELS_TIMED_OUT if module.timed_out else 0,
        }

    def pose(self) -> np.ndarray:
        """(x m, y m, ψ rad) of the front wheel set: what motion capture sees."""
        with self._lock:
            return self.plant.state[:3].copy()

    def speed_and_curvature(self) -> tuple[float, float]:
        """Module 1's forward speed v (m/s, from its bottom wheels, without the slip noise) and the
        plant's curvature κ (1/m)."""
        with self._lock:
            front = self.modules[1]
            wheels = front.wheels[list(BOTTOM_WHEELS)]
            return float(kinematics.forward_speed(*wheels, self.geometry.wheel_radius_m)), float(
                self.plant.state[3]
            )
