"""The simulated head controller of the snake: its firmware's robot side behind soro_link, with the
chambers' pneumatics behind it.

``SnakeHeadFirmware`` is a soro_link ``DeviceModel``: ``set_valves`` sets every chamber's valve
duty (refused with OUT_OF_RANGE, nothing changed, when the module count is not the snake's or a
duty exceeds 100 %); the chambers follow with the response of ``pneumatics.Chambers`` (Eqs.
2.6-2.8, on the tethered supply that sags as they fill, exactly as offline); ``chambers`` reports
duties and pressures at ``telemetry_hz``. Its safe state vents every chamber. It enters it through
the link's watchdog (no heartbeat) and through its own when duties stop arriving for 500 ms while
the link is up (the host stopped streaming), and says so.

The head's real firmware is ``firmware/snake_head.c`` (tested in qemu-system-avr); this stand-in
stays for what the emulator cannot give: the chambers' pressures behind the valves.
"""

from __future__ import annotations

import threading

import numpy as np

from soft_snake import pneumatics
from soft_snake.gaits import MAX_SEGMENTS, MIN_SEGMENTS
from soft_snake.valves import COMMAND_TIMEOUT_S, SCHEMAS, SLOTS, duties_of
from soro_link.device import DeviceModel
from soro_link.protocol import LogCode, LogLevel, NackCode


class SnakeHeadFirmware(DeviceModel):
    """The head controller's robot side (see the module docstring) for ``modules`` (3-5,
    else ValueError) segments: its chambers and their supply per ``chambers`` (the simulator's
    defaults unless given), a ``chambers`` report at ``telemetry_hz``."""

    device_kind = 'soft_snake_head'
    firmware_version = '1.0.0'
    schemas = SCHEMAS

    def __init__(
        self,
        modules: int = 4,
        chambers: pneumatics.ChamberParameters = pneumatics.DEFAULT_CHAMBERS,
        telemetry_hz: float = 20.0,
    ):
        super().__init__()
        if not MIN_SEGMENTS <= modules <= MAX_SEGMENTS:
            raise ValueError(f'modules = {modules}: allowed {MIN_SEGMENTS}-{MAX_SEGMENTS}')
        self.modules = modules
        self.chambers = pneumatics.Chambers(modules, chambers)
        self.duty = np.zeros((modules, 3))
        self._lock = threading.Lock()
        self._last_command = None
        self._period, self._next = 1.0 / telemetry_hz, 0.0

    def command(self, message, now):
        """Take a ``set_valves`` message's duties (N, 3); OUT_OF_RANGE, nothing changed, when its
        module count is not the snake's or a duty exceeds 100 %."""
        if message['modules'] != self.modules or any(d > 100 for d in message['duty_pct']):
            return NackCode.OUT_OF_RANGE
        with self._lock:
            self.duty, self.safe, self._last_command = duties_of(message), False, now
        return None

    def enter_safe_state(self):
        """Vent every chamber (every duty 0)."""
        with self._lock:
            self.duty, self.safe = np.zeros((self.modules, 3)), True

    def step(self, now, dt):
        """Advance the chambers by ``dt`` s: vent them with a WATCHDOG log report when no duties
        came for ``COMMAND_TIMEOUT_S`` while not safe, and a ``chambers`` report each telemetry
        period."""
        out = []
        if (
            not self.safe
            and self._last_command is not None
            and now - self._last_command > COMMAND_TIMEOUT_S
        ):
            self.enter_safe_state()
            out.append(
                (
                    'log',
                    {
                        'level': LogLevel.ERROR,
                        'code': LogCode.WATCHDOG,
                        'text': f'no valve duties for {COMMAND_TIMEOUT_S * 1e3:.0f} ms: '
                        'every chamber vented',
                    },
                )
            )
        with self._lock:
            pressure = self.chambers.step(self.duty, dt)
            if now >= self._next:
                self._next = now + self._period
                out.append(('chambers', self._report(pressure)))
        return out

    def _report(self, pressure: np.ndarray) -> dict:
        duty, hpa = np.zeros(SLOTS, dtype=int), np.zeros(SLOTS, dtype=int)
        duty[: self.duty.size] = np.round(self.duty * 100).astype(int).ravel()
        hpa[: pressure.size] = np.round(np.clip(pressure, 0, None) / 100.0).astype(int).ravel()
        return {
            'modules': self.modules,
            'duty_pct': tuple(int(v) for v in duty),
            'pressure_hpa': tuple(int(v) for v in hpa),
            'vented': self.safe,
        }

    def pressures_pa(self) -> np.ndarray:
        """A copy of the chambers' gauge pressures (N, 3) in Pa."""
        with self._lock:
            return self.chambers.pressure_pa.copy()
