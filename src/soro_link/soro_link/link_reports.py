"""What a bridge reports of its link, as ROS takes it (no rclpy): the ``/diagnostics`` status it
publishes at 1 Hz and on each link state change, the same as a soro_interfaces/LinkStatus for
``~/link_status``, and the link's and the device's log lines in the node's ROS log."""

from __future__ import annotations

import logging

from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from soro_interfaces.msg import LinkStatus
from std_msgs.msg import Header

from soro_link.protocol import LogCode, LogLevel, Message


class RosLogHandler(logging.Handler):
    """The link supervisor's Python log records into a node's ROS log (rosout, the launch
    screen)."""

    def __init__(self, logger):
        super().__init__()
        self.ros_logger = logger

    def emit(self, record: logging.LogRecord) -> None:
        """Pass ``record`` on to the ROS log at its severity."""
        log_at(self.ros_logger, record.levelno, record.getMessage())


def log_at(ros_logger, level: int, text: str) -> None:
    """``text`` in a ROS log at a Python logging ``level``, one call site per severity, as rclpy
    requires (it refuses a call site whose severity changes between calls)."""
    if level >= logging.ERROR:
        ros_logger.error(text)
    elif level >= logging.WARNING:
        ros_logger.warning(text)
    else:
        ros_logger.info(text)


def log_device_report(ros_logger, message: Message) -> None:
    """A device's LOG report in the ROS log, at its level, with the name of its code."""
    code = message['code']
    text = (
        f'device: {message["text"]} '
        f'({LogCode(code).name if code in set(LogCode) else f"code {code}"})'
    )
    level = {LogLevel.INFO: logging.INFO, LogLevel.WARN: logging.WARNING}.get(
        message['level'], logging.ERROR
    )
    log_at(ros_logger, level, text)


def link_diagnostic(name: str, snap, commands_enabled: bool) -> DiagnosticStatus:
    """The status named ``name`` for a link's ``link_health.snapshot`` (None: the bridge is not
    configured)."""
    if snap is None:
        return DiagnosticStatus(
            level=DiagnosticStatus.STALE, name=name, message='not configured', hardware_id=''
        )
    values = {
        'port': snap.port,
        'state': snap.state.name,
        'device_safe': snap.device_safe,
        'commands_enabled': commands_enabled,
        'rtt_p50_ms': snap.rtt_p50_s * 1e3,
        'rtt_p99_ms': snap.rtt_p99_s * 1e3,
        'last_rx_age_s': snap.last_rx_age_s,
        'frames_rx': snap.frames_rx,
        'frames_tx': snap.frames_tx,
        'crc_errors': snap.crc_errors,
        'format_errors': snap.format_errors,
        'nacks': snap.nacks,
        'resent': snap.resent,
        'reconnects': snap.reconnects,
    }
    if snap.identity:
        values.update(snap.identity)
    values.update(
        {f'device_{kind}_errors': count for kind, count in snap.device_rx_errors.items()}
    )
    return DiagnosticStatus(
        level=bytes([snap.level]),
        name=name,
        message=snap.summary,
        hardware_id=snap.port,
        values=[KeyValue(key=k, value=str(v)) for k, v in values.items()],
    )


def link_status(snap, commands_enabled: bool, header: Header) -> LinkStatus:
    """The LinkStatus message for a link's ``link_health.snapshot``."""
    msg = LinkStatus(
        header=header,
        state=int(snap.state),
        device_safe=snap.device_safe,
        commands_enabled=commands_enabled,
        rtt_last_s=snap.rtt_last_s,
        rtt_p50_s=snap.rtt_p50_s,
        rtt_p99_s=snap.rtt_p99_s,
        last_rx_age_s=snap.last_rx_age_s,
        frames_rx=snap.frames_rx,
        frames_tx=snap.frames_tx,
        crc_errors=snap.crc_errors,
        format_errors=snap.format_errors,
        nacks=snap.nacks,
        reconnects=snap.reconnects,
    )
    msg.device.port = snap.port
    if snap.identity:
        msg.device.device_kind = snap.identity['device_kind']
        msg.device.firmware_version = snap.identity['firmware_version']
        msg.device.protocol_version = snap.identity['protocol_version']
    return msg
