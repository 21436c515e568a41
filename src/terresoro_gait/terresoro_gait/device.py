"""The simulated TerreSoRo: its Arduino firmware's robot side behind soro_link, and the robot on a
substrate.

``TerreSoroFirmware`` is a soro_link ``DeviceModel``: it takes ``set_limbs`` motor drives, moves
each limb's curl the way a tendon motor does, and reports ``limbs`` telemetry at 50 Hz. A limb
curls only under forward drive and uncurls only once a reversal pulse has slackened its tendon;
with the motor off it keeps what it had. The firmware's safe state is every motor off and every
tendon released, so the limbs relax to state 1.

Whenever the limbs head for a new state, the robot runs the primitive from its current state: it
draws the motion from the substrate's edge weights, w ~ N(μ_e, Σ_e) with Σ_e = diag(S_p/2, S_p/2,
S_θ) (eq. 14), and moves the hub along it over ``settle_s`` (quasi-static, spec 8). A new state
commanded before the last primitive settled finishes that one at once. The hub pose (x_mm, y_mm,
φ_deg) in the world is what an overhead tracker sees.

The board's real firmware is ``firmware/terresoro_board.c`` (tested in qemu-system-avr); this
stand-in stays for what the emulator cannot give: the robot and its substrate behind the motors,
and the settled vertex.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from soro_geometry import se2
from soro_link.device import DeviceModel
from soro_link.protocol import NackCode
from terresoro_gait.digraph import LimbDigraph, vertex
from terresoro_gait.limbs import MOTORS, OFF, SCHEMAS, curled_target
from terresoro_gait.weights import EdgeWeights


class TerreSoroFirmware(DeviceModel):
    """The board's firmware as a soro_link DeviceModel, with the robot on ``substrate`` (the edge
    weights primitives are drawn from); ``motor_of_limb`` is each limb's channel, ``failed_limbs``
    (1-based) the limbs with a snapped tendon."""

    device_kind = 'terresoro'
    firmware_version = '1.0.0'
    schemas = SCHEMAS

    def __init__(
        self,
        substrate: EdgeWeights,
        motor_of_limb: Sequence[int],
        seed: int | None = None,
        settle_s: float = 0.3,
        failed_limbs: Sequence[int] = (),
        telemetry_hz: float = 50.0,
    ):
        super().__init__()
        self.n_limbs, self.substrate = substrate.n_limbs, substrate
        self.motor_of_limb, self.failed_limbs = tuple(motor_of_limb), tuple(failed_limbs)
        # snapped tendons
        self._broken_motors = {self.motor_of_limb[k - 1] for k in self.failed_limbs}
        self.settle_s, self._rng = settle_s, np.random.default_rng(seed)
        self._edge_index = LimbDigraph(self.n_limbs).edge_index
        self._lock = threading.Lock()
        self.drive = (OFF,) * MOTORS
        self.curled = (False,) * MOTORS  # where each channel's limb is heading
        self.curl = np.zeros(MOTORS)  # 0 flat .. 1 fully curled
        self.vertex = 1  # the state the robot settled in (or is leaving)
        self._pose = np.zeros(3)  # hub in the world: x mm, y mm, φ rad
        # (start pose, motion w, start time, terminal vertex)
        self._primitive = None
        self._period, self._next_telemetry = 1.0 / telemetry_hz, 0.0

    # --- link side -------------------------------------------------------------------------------
    def command(self, message, now):
        """``set_limbs``: one drive per motor channel (-1, 0 or 1); OUT_OF_RANGE if one is not, or
        if it drives a channel no limb is wired to."""
        drive = tuple(int(d) for d in message['drive'])
        wired = set(self.motor_of_limb)
        if any(d not in (-1, 0, 1) for d in drive) or any(
            d and m not in wired for m, d in enumerate(drive)
        ):
            return NackCode.OUT_OF_RANGE
        with self._lock:
            self.drive, self.safe = drive, False
            self.curled = curled_target(drive, self.curled)
        return None

    def enter_safe_state(self):
        """Every motor off and every tendon released: the limbs relax to state 1."""
        with self._lock:
            self.drive, self.curled, self.safe = (OFF,) * MOTORS, (False,) * MOTORS, True

    def step(self, now, dt):
        """Move the limbs' curl and the hub by ``dt`` s; a ``limbs`` message (curl %, drive,
        settled vertex, safe) when one is due at ``telemetry_hz``."""
        with self._lock:
            self._move_limbs(dt)
            self._move_hub(now)
            if now < self._next_telemetry:
                return []
            self._next_telemetry = now + self._period
            return [
                (
                    'limbs',
                    {
                        'curl_pct': tuple(int(round(100 * c)) for c in self.curl),
                        'drive': self.drive,
                        'vertex': self.vertex,
                        'safe': self.safe,
                    },
                )
            ]

    # --- the robot -------------------------------------------------------------------------------
    def pose(self) -> np.ndarray:
        """Hub pose in the world (3,): x mm, y mm, φ deg (not wrapped)."""
        with self._lock:
            return np.array([self._pose[0], self._pose[1], np.degrees(self._pose[2])])

    def target_vertex(self) -> int:
        """The state the limbs are heading for; a limb with a snapped tendon stays flat."""
        bits = [self.curled[m] and m not in self._broken_motors for m in self.motor_of_limb]
        return vertex(bits)

    def _move_limbs(self, dt: float) -> None:
        for m, limb_curled in enumerate(self.curled):
            goal = 1.0 if limb_curled and m not in self._broken_motors else 0.0
            self.curl[m] += np.clip(goal - self.curl[m], -dt / self.settle_s, dt / self.settle_s)

    def _move_hub(self, now: float) -> None:
        target = self.target_vertex()
        heading = self._primitive[3] if self._primitive else self.vertex
        if target != heading:
            self._finish_primitive()
            self._start_primitive(target, now)
        if self._primitive:
            start, w, t0, _ = self._primitive
            s = min(1.0, (now - t0) / self.settle_s)
            # smooth start and stop
            self._pose = se2.compose(start, w * (3 * s**2 - 2 * s**3))
            if s >= 1.0:
                self._finish_primitive()

    def _start_primitive(self, terminal: int, now: float) -> None:
        k, w = self._edge_index[(self.vertex, terminal)], self.substrate
        sd = np.sqrt([w.sp_mm2[k] / 2, w.sp_mm2[k] / 2, w.stheta_deg2[k]])
        motion = self._rng.normal([w.px_mm[k], w.py_mm[k], w.theta_deg[k]], sd)
        self._primitive = (
            self._pose.copy(),
            np.append(motion[:2], np.radians(motion[2])),
            now,
            terminal,
        )

    def _finish_primitive(self) -> None:
        if self._primitive:
            start, w, _, terminal = self._primitive
            self._pose, self.vertex, self._primitive = se2.compose(start, w), terminal, None
