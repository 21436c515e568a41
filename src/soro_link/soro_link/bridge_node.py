"""The lifecycle bridge node every robot's hardware bridge derives from, and the generic-outputs bridge.

configure opens the port (the supervisor keeps retrying with backoff), activate enables commands and data,
deactivate puts the device in its safe state and stops the data, cleanup closes the port. Diagnostics
(``/diagnostics``) go out at 1 Hz and at once on every link state change; ``~/link_status`` carries the same as a
soro_interfaces/LinkStatus; ``~/safe_state`` (std_srvs/Trigger) forces the safe state in any lifecycle state.

Data and diagnostics: a bridge's data topics (telemetry, joint_states, trails, predicted poses, executed edges)
are lifecycle publishers, made with ``create_lifecycle_publisher``: they publish only while the node is active, so
a configured bridge that is not yet (or no longer) active says nothing a consumer could take for the robot's
state. Diagnostics and ``~/link_status`` are plain publishers, on in every state: they are how an operator sees
the link before deciding to activate.

Configure without a device: configure succeeds when the port is not there (yet). It checks the parameters and
starts the link supervisor, which opens the port in the background and retries with backoff until the device
appears, as it does after an unplug. A bridge launched before the board is plugged in, or with the board still
booting, thus comes up by itself instead of needing a second configure; a wrong port is not a failed transition
but an ERROR in the diagnostics (status ``<node>: link``, message ``disconnected; <why the port did not open>``),
at 1 Hz until the device answers (WARN while it identifies itself), then OK. A parameter out of range fails
configure.
"""
from __future__ import annotations

import logging
import math
import sys
import time
from collections.abc import Callable

import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.lifecycle import LifecycleNode, State, TransitionCallbackReturn
from soro_interfaces.msg import LinkStatus
from std_msgs.msg import Float64MultiArray, Header
from std_srvs.srv import Trigger

from soro_link.device import GenericOutputs
from soro_link.protocol import BodyError, BodySchema, LogCode, LogLevel, Message, link_protocol
from soro_link.supervisor import CommandRefused, LinkConfig, LinkDown, LinkSupervisor, snapshot
from soro_link.supervisor import log as supervisor_log
from soro_node.base_node import (EXIT_REFUSED, StartRefused, answering_service, declare_parameters, init_ros,
                                 refuse_start, shut_down, spin_once)
from soro_node.params import ParameterError, ParamSpec
from soro_node.stop import StopRequest

LINK_PARAMS = (
    ParamSpec('port', '/dev/ttyUSB0', 'pyserial URL of the device (a path, or e.g. socket://host:port)',
              nonempty=True),
    ParamSpec('baud', 115200, 'serial baud rate', 1200, 4_000_000),
    ParamSpec('heartbeat_period_s', 0.1, 'host heartbeat period (s); keep well under the firmware watchdog', 0.01, 1.0),
    ParamSpec('stale_timeout_s', 0.3, 'link is stale after this long without a frame (s)', 0.05, 5.0),
    ParamSpec('autostart', False, 'configure and activate at start-up instead of waiting for lifecycle transitions'),
)
GOALS_END_S = 3.0       # on SIGINT, how long running goals get to abort and answer their clients
RESULTS_SENT_S = 0.3    # spinning on after the last goal ended, for its result to reach the client


class _ToRosLog(logging.Handler):
    """The link supervisor's Python log records into the node's ROS log (rosout, the launch screen)."""

    def __init__(self, logger):
        super().__init__()
        self.ros_logger = logger

    def emit(self, record: logging.LogRecord) -> None:
        log_at(self.ros_logger, record.levelno, record.getMessage())


def log_at(ros_logger, level: int, text: str) -> None:
    """``text`` in a ROS log at a Python logging ``level``, one call site per severity, as rclpy requires (it
    refuses a call site whose severity changes between calls)."""
    if level >= logging.ERROR:
        ros_logger.error(text)
    elif level >= logging.WARNING:
        ros_logger.warning(text)
    else:
        ros_logger.info(text)


class BridgeNode(LifecycleNode):
    """Base of every hardware bridge. Subclasses pass their body schemas and override ``on_device_message``."""

    def __init__(self, node_name: str, robot_schemas: tuple[BodySchema, ...] = (),
                 extra_params: tuple[ParamSpec, ...] = (), **kwargs):
        super().__init__(node_name, **kwargs)
        self.param_specs = LINK_PARAMS + extra_params
        # current values; ``params`` holds them as configure found them
        self.settings = declare_parameters(self, self.param_specs)
        self.protocol = link_protocol(*robot_schemas)
        self.link: LinkSupervisor | None = None
        self.commands_enabled = False
        self.diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.status_pub = self.create_publisher(LinkStatus, '~/link_status', 10)
        answering_service(self, Trigger, '~/safe_state', self._safe_state_service)
        self.create_timer(1.0, self.publish_diagnostics)
        self._link_log = _ToRosLog(self.get_logger())
        supervisor_log.addHandler(self._link_log)

    # --- lifecycle ---------------------------------------------------------------------------------------------
    def on_configure(self, state: State) -> TransitionCallbackReturn:
        try:
            self.params = self.settings.checked()
        except ParameterError as exc:
            self.get_logger().error(str(exc))
            return TransitionCallbackReturn.FAILURE
        p = self.params
        self.link = LinkSupervisor(
            LinkConfig(p['port'], p['baud'], p['heartbeat_period_s'], p['stale_timeout_s']), self.protocol,
            on_message=self._device_message, on_state=lambda _state: self.publish_diagnostics())
        self.link.start()
        self.get_logger().info(f'opening {p["port"]} at {p["baud"]} baud')
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: State) -> TransitionCallbackReturn:
        self.commands_enabled = True
        self.publish_diagnostics()
        return super().on_activate(state)

    def on_deactivate(self, state: State) -> TransitionCallbackReturn:
        self.commands_enabled = False
        self.force_safe_state('bridge deactivated')
        return super().on_deactivate(state)

    def on_cleanup(self, state: State) -> TransitionCallbackReturn:
        self._close_link()
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: State) -> TransitionCallbackReturn:
        self.commands_enabled = False
        if self.link:
            self.force_safe_state('bridge shutting down')
        self._close_link()
        return TransitionCallbackReturn.SUCCESS

    def destroy_node(self) -> None:
        self.commands_enabled = False
        self._stop_link()  # its thread calls back into this node: stop it first
        supervisor_log.removeHandler(self._link_log)
        super().destroy_node()

    def _stop_link(self) -> None:
        if self.link:
            self.link.stop()
            self.link = None

    def _close_link(self) -> None:
        self._stop_link()
        self.publish_diagnostics()

    # --- commands ----------------------------------------------------------------------------------------------
    def send_command(self, name: str, **fields: object) -> bool:
        """Send a robot command if the bridge is active; False (and a log line) when it is refused."""
        if not self.commands_enabled or self.link is None:
            self.get_logger().warning(f'{name} refused: bridge is not active', throttle_duration_sec=2.0)
            return False
        try:
            self.link.send(name, **fields)
        except BodyError as exc:
            self.get_logger().error(f'{name} refused: {exc}; device put in its safe state')
            self.force_safe_state('invalid command')
            return False
        except LinkDown as exc:
            self.get_logger().warning(f'{name} not sent: {exc}', throttle_duration_sec=2.0)
            return False
        return True

    def goals_running(self) -> bool:
        """Whether an action goal is under way; bridges with actions override it (``spin_bridge`` waits for it)."""
        return False

    def force_safe_state(self, reason: str) -> bool:
        try:
            self.link.safe_state()
        except (LinkDown, CommandRefused, AttributeError) as exc:
            # the firmware watchdog still brings the device to its safe state without us
            self.get_logger().warning(f'safe state ({reason}) not confirmed: {exc}')
            return False
        self.get_logger().info(f'device in its safe state ({reason})')
        return True

    def _safe_state_service(self, request, response):
        response.success = self.force_safe_state('service request')
        response.message = 'device confirmed its safe state' if response.success else \
            'device did not confirm (link down?); its watchdog will vent/stop it'
        return response

    # --- device to ROS -----------------------------------------------------------------------------------------
    def _device_message(self, message: Message) -> None:
        if message.name == 'log':
            self._device_log(message)
        else:
            self.on_device_message(message)

    def on_device_message(self, message: Message) -> None:
        """A robot telemetry message from the device (called on the link thread). Subclasses publish it."""

    def _device_log(self, message: Message) -> None:
        code = message['code']
        text = f'device: {message["text"]} ({LogCode(code).name if code in set(LogCode) else f"code {code}"})'
        level = {LogLevel.INFO: logging.INFO, LogLevel.WARN: logging.WARNING}.get(message['level'], logging.ERROR)
        log_at(self.get_logger(), level, text)

    def publish_diagnostics(self) -> None:
        if self.link is None:
            status = DiagnosticStatus(level=DiagnosticStatus.STALE, name=f'{self.get_name()}: link',
                                      message='not configured', hardware_id='')
            self.diagnostics_pub.publish(DiagnosticArray(header=self._header(), status=[status]))
            return
        snap = snapshot(self.link)
        values = {'port': snap.port, 'state': snap.state.name, 'device_safe': snap.device_safe,
                  'commands_enabled': self.commands_enabled, 'rtt_p50_ms': snap.rtt_p50_s * 1e3,
                  'rtt_p99_ms': snap.rtt_p99_s * 1e3, 'last_rx_age_s': snap.last_rx_age_s,
                  'frames_rx': snap.frames_rx, 'frames_tx': snap.frames_tx, 'crc_errors': snap.crc_errors,
                  'format_errors': snap.format_errors, 'nacks': snap.nacks, 'resent': snap.resent,
                  'reconnects': snap.reconnects}
        if snap.identity:
            values.update(snap.identity)
        values.update({f'device_{kind}_errors': count for kind, count in snap.device_rx_errors.items()})
        status = DiagnosticStatus(level=bytes([snap.level]), name=f'{self.get_name()}: link', message=snap.summary,
                                  hardware_id=snap.port, values=[KeyValue(key=k, value=str(v)) for k, v in values.items()])
        self.diagnostics_pub.publish(DiagnosticArray(header=self._header(), status=[status]))
        self.status_pub.publish(self._link_status(snap))

    def _link_status(self, snap) -> LinkStatus:
        msg = LinkStatus(header=self._header(), state=int(snap.state), device_safe=snap.device_safe,
                         commands_enabled=self.commands_enabled, rtt_last_s=snap.rtt_last_s,
                         rtt_p50_s=snap.rtt_p50_s, rtt_p99_s=snap.rtt_p99_s, last_rx_age_s=snap.last_rx_age_s,
                         frames_rx=snap.frames_rx, frames_tx=snap.frames_tx, crc_errors=snap.crc_errors,
                         format_errors=snap.format_errors, nacks=snap.nacks, reconnects=snap.reconnects)
        msg.device.port = snap.port
        if snap.identity:
            msg.device.device_kind = snap.identity['device_kind']
            msg.device.firmware_version = snap.identity['firmware_version']
            msg.device.protocol_version = snap.identity['protocol_version']
        return msg

    def _header(self) -> Header:
        return Header(stamp=self.get_clock().now().to_msg())


class GenericOutputsBridge(BridgeNode):
    """Bridge to a generic four-output board: ``~/duty`` in (fractions 0-1), ``~/outputs`` out."""

    def __init__(self, **kwargs):
        super().__init__('soro_link_bridge', GenericOutputs.schemas, **kwargs)
        self.outputs_pub = self.create_lifecycle_publisher(Float64MultiArray, '~/outputs', 10)
        self.create_subscription(Float64MultiArray, '~/duty', self._on_duty, 10)

    def _on_duty(self, msg: Float64MultiArray) -> None:
        duty = list(msg.data)
        if len(duty) != 4 or not all(math.isfinite(d) and 0.0 <= d <= 1.0 for d in duty):
            self.get_logger().error(f'~/duty {duty} refused: needs 4 finite fractions in [0, 1]; safe state')
            if self.link:
                self.force_safe_state('invalid duty command')
            return
        self.send_command('set_outputs', duty_pct=tuple(round(d * 100) for d in duty))

    def on_device_message(self, message: Message) -> None:
        if message.name == 'outputs':
            self.outputs_pub.publish(Float64MultiArray(data=[d / 100.0 for d in message['duty_pct']]))


def run_bridge(make_node: Callable[[], BridgeNode], name: str, make_executor=None, args=None) -> int:
    """A bridge's whole main(): init with a flag for SIGINT/SIGTERM instead of rclpy's handlers (so the context
    stays alive until the device is safe and the goals have answered), build the node, spin it. Returns the exit
    code; a start-up refusal is its last line."""
    stop = StopRequest()
    try:
        init_ros(args, stop)
    except StartRefused as error:
        return refuse_start(name, error)
    node = make_node()
    return spin_bridge(node, make_executor() if make_executor else rclpy.executors.SingleThreadedExecutor(), stop)


def spin_bridge(node: BridgeNode, executor: rclpy.executors.Executor, stop: StopRequest) -> int:
    """Spin ``node`` on ``executor`` until ``stop`` is requested; with ``autostart`` configure and activate it
    first. Always ends safe: commands off, the device's safe state, running goals left to end (they abort, their
    clients get the result), then the node destroyed. Returns the exit code: 0, or EXIT_REFUSED when autostart was
    refused (the refusal, logged by the transition, is the last line)."""
    executor.add_node(node)
    try:
        if node.settings.autostart and not _autostart(node):
            return EXIT_REFUSED
        while rclpy.ok() and not stop.requested:
            spin_once(executor, node.get_logger(), 0.1)    # a callback that raises is logged; the bridge goes on
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        node.commands_enabled = False
        if node.link:
            node.force_safe_state('bridge stopping')
        _let_goals_end(node, executor, stop)
        node.destroy_node()  # stops the link
        shut_down()
    return 0


def _autostart(node: BridgeNode) -> bool:
    """configure, then activate; False (each failure already logged with its reason) when either is refused."""
    return node.trigger_configure() == TransitionCallbackReturn.SUCCESS and \
        node.trigger_activate() == TransitionCallbackReturn.SUCCESS


def _let_goals_end(node: BridgeNode, executor: rclpy.executors.Executor, stop: StopRequest) -> None:
    """Spin until the node's goals have ended (with commands off they abort at their next command) and their
    results have gone out to the clients, at most GOALS_END_S; a second Ctrl-C cuts it short."""
    if not node.goals_running():
        return
    deadline, answered = time.monotonic() + GOALS_END_S, None     # a result goes out after its callback returns
    while rclpy.ok() and stop.count < 2 and time.monotonic() < min(deadline, (answered or deadline) + RESULTS_SENT_S):
        spin_once(executor, node.get_logger(), 0.02)
        if answered is None and not node.goals_running():
            answered = time.monotonic()


def main(args=None) -> int:
    return run_bridge(GenericOutputsBridge, 'soro_link_bridge', args=args)


if __name__ == '__main__':
    sys.exit(main())
