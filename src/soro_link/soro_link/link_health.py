"""What a bridge reports about its link: one consistent snapshot of a ``LinkSupervisor``'s state
and counters, and the diagnostic level and summary line it reads as. No rclpy.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from soro_link.supervisor import LinkState, LinkSupervisor


class DiagnosticLevel(enum.IntEnum):  # values match diagnostic_msgs/DiagnosticStatus
    """Severity of a link's diagnostic status (an unconfigured bridge is diagnostic_msgs'
    STALE)."""

    OK = 0
    WARN = 1
    ERROR = 2


@dataclass(frozen=True)
class LinkSnapshot:
    """Everything a bridge reports about its link at one instant."""

    state: LinkState
    port: str
    identity: dict | None
    device_safe: bool
    last_error: str
    last_rx_age_s: float
    rtt_last_s: float
    rtt_p50_s: float
    rtt_p99_s: float
    frames_rx: int
    frames_tx: int
    crc_errors: int
    format_errors: int
    nacks: int
    reconnects: int
    # crc, format, overflow, refused: as the device counts
    device_rx_errors: dict = field(default_factory=dict)
    resent: int = 0

    @property
    def level(self) -> DiagnosticLevel:
        """OK when connected; WARN while a device boots and answers; ERROR when lost, stale or
        refused."""
        if self.state == LinkState.CONNECTED:
            return DiagnosticLevel.OK
        if self.state == LinkState.HANDSHAKING and 'refused' not in self.last_error:
            return DiagnosticLevel.WARN
        return DiagnosticLevel.ERROR

    @property
    def summary(self) -> str:
        """The status message: the state, the device kind and firmware once identified, and the
        last error unless the level is OK."""
        text = self.state.name.lower()
        if self.identity:
            text += f' to {self.identity["device_kind"]} {self.identity["firmware_version"]}'
        return text + (
            f'; {self.last_error}' if self.last_error and self.level != DiagnosticLevel.OK else ''
        )


def snapshot(link: LinkSupervisor) -> LinkSnapshot:
    """A consistent copy of ``link``'s state and counters."""
    with link._lock:
        s = link.stats
        return LinkSnapshot(
            link.state,
            link.config.port,
            dict(link.identity) if link.identity else None,
            link.device_safe,
            link.last_error,
            link.last_rx_age_s,
            s.rtts_s[-1] if s.rtts_s else math.nan,
            s.rtt_p50_s,
            s.rtt_percentile(0.99),
            s.frames_rx,
            s.frames_tx,
            s.crc_errors,
            s.format_errors,
            s.nacks,
            s.reconnects,
            dict(link.device_rx_errors),
            s.resent,
        )
