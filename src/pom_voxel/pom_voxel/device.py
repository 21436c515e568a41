"""The simulated actuator board of the voxel quadruped: its firmware's robot side behind soro_link.

``PomBoardFirmware`` is a soro_link ``DeviceModel``: ``set_strokes`` sets each linear actuator's
target, which it approaches at ``speed_mm_s`` (a lead-screw actuator's rate limit) and never beyond
``stroke_limit_mm`` (a target past it is refused with OUT_OF_RANGE, nothing moves). It reports
``strokes`` at ``telemetry_hz``. Its safe state holds every actuator where it is: a lattice under
load must not spring back. The link's firmware watchdog enters it and reports it (the WATCHDOG
log).

The board's real firmware is ``firmware/pom_board.c`` (tested in qemu-system-avr); this stand-in
runs the same link and actuator rules without the emulator, for the simulated launches and the
demo.
"""

from __future__ import annotations

import threading

import numpy as np

from pom_voxel.actuators import ACTUATORS, SCHEMAS, UM_PER_MM
from pom_voxel.planes_of_motion import STROKE_LIMIT_MM
from soro_link.device import DeviceModel
from soro_link.protocol import NackCode


class PomBoardFirmware(DeviceModel):
    """The actuator board's firmware as a soro_link DeviceModel: four rate-limited linear
    actuators, positions and targets in µm of control-node displacement."""

    device_kind = 'pom_quadruped'
    firmware_version = '1.0.0'
    schemas = SCHEMAS

    def __init__(
        self,
        speed_mm_s: float = 20.0,
        stroke_limit_mm: float = STROKE_LIMIT_MM,
        telemetry_hz: float = 50.0,
    ):
        super().__init__()
        self.speed_mm_s, self.limit_um = speed_mm_s, stroke_limit_mm * UM_PER_MM
        self._lock = threading.Lock()
        self.position_um = np.zeros(ACTUATORS)
        self.target_um = np.zeros(ACTUATORS)
        self._period, self._next = 1.0 / telemetry_hz, 0.0

    def command(self, message, now):
        """``set_strokes``: new targets (µm); OUT_OF_RANGE, nothing moved, if one is past the
        stroke limit."""
        target = np.array(message['target_um'], dtype=float)
        if np.any(np.abs(target) > self.limit_um):
            return NackCode.OUT_OF_RANGE
        with self._lock:
            self.target_um, self.safe = target, False
        return None

    def enter_safe_state(self):
        """Hold every actuator where it is: its target becomes its present position."""
        with self._lock:
            self.target_um, self.safe = self.position_um.copy(), True

    def step(self, now, dt):
        """Move each actuator towards its target by at most ``speed_mm_s`` dt; a ``strokes``
        message (positions, targets in µm, holding) when one is due at ``telemetry_hz``."""
        with self._lock:
            reach = self.speed_mm_s * UM_PER_MM * dt
            self.position_um += np.clip(self.target_um - self.position_um, -reach, reach)
            if now < self._next:
                return []
            self._next = now + self._period
            return [
                (
                    'strokes',
                    {
                        'position_um': tuple(int(round(p)) for p in self.position_um),
                        'target_um': tuple(int(round(t)) for t in self.target_um),
                        'holding': self.safe,
                    },
                )
            ]

    def positions_mm(self) -> np.ndarray:
        """The actuators' present strokes (ACTUATORS,) in mm."""
        with self._lock:
            return self.position_um / UM_PER_MM
