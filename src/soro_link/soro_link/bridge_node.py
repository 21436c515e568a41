"""The lifecycle bridge node every robot's hardware bridge derives from.

configure opens the port (the supervisor keeps retrying with backoff), activate enables commands
and data, deactivate puts the device in its safe state and stops the data, cleanup closes the port.
Diagnostics (``/diagnostics``) go out at 1 Hz and at once on every link state change;
``~/link_status`` carries the same as a soro_interfaces/LinkStatus; ``~/safe_state``
(std_srvs/Trigger) forces the safe state in any lifecycle state.

Data and diagnostics: a bridge's data topics (telemetry, joint_states, trails, predicted poses,
executed edges) are lifecycle publishers, made with ``create_lifecycle_publisher``: they publish
only while the node is active, so a configured bridge that is not yet (or no longer) active says
nothing a consumer could take for the robot's state. Diagnostics and ``~/link_status`` are plain
publishers, on in every state: they are how an operator sees the link before deciding to activate.

Configure without a device: configure succeeds when the port is not there (yet). It checks the
parameters and starts the link supervisor, which opens the port in the background and retries with
backoff until the device appears, as it does after an unplug. A bridge launched before the board is
plugged in, or with the board still booting, thus comes up by itself instead of needing a second
configure; a wrong port is not a failed transition but an ERROR in the diagnostics (status
``<node>: link``, message ``disconnected; <why the port did not open>``), at 1 Hz until the device
answers (WARN while it identifies itself), then OK. A parameter out of range fails configure.

Threads: the link's reader thread also answers the device's heartbeats, and publishing may wait on
DDS, so it publishes nothing: a device message (and a link state change's diagnostics) is handed to
the executor (``hand_over``), which calls ``on_device_message``. A goal's timed beat hands its
publishing over the same way. The executor takes what waited when it began, then lets the other
callbacks of the node's group run (``~/change_state`` among them) before the rest: a device that
streams faster than the node publishes cannot hold its lifecycle.

Transitions: an exception raised in a lifecycle callback (``on_configure`` and the rest, a
subclass's too) is logged with its traceback, and the transition ends in ERROR (then
unconfigured); rclpy alone would end it so without a word.

Goals: ``goal_server`` sets up each of a bridge's actions, one goal at a time across all of them (a
goal sent while one runs is rejected at once), cancel accepted. A goal's commands go through
``goal_command``: when commands are off or the link fails, the device is put in its safe state and
the goal aborts with the reason and what the robot was left in (``LEFT_IN``); nothing is commanded
after that. ``play_goal`` plays a goal's timed steps until they are done or its client cancels; the
goal then commands the robot's rest, and ends cancelled if its client asked. The process around a
bridge (start, spin, the safe end on Ctrl-C) is ``bridge_main_node``.
"""

from __future__ import annotations

import functools
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from typing import TypeVar

from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.srv import ChangeState
from rclpy._rclpy_pybind11 import RCLError
from rclpy.lifecycle import LifecycleNode, State, TransitionCallbackReturn
from soro_interfaces.msg import LinkStatus
from std_msgs.msg import Header
from std_srvs.srv import Trigger

from soro_link.link_health import snapshot
from soro_link.link_reports import RosLogHandler, link_diagnostic, link_status, log_device_report
from soro_link.protocol import BodyError, BodySchema, Message, link_protocol
from soro_link.supervisor import CommandRefused, LinkConfig, LinkDown, LinkSupervisor
from soro_link.supervisor import log as supervisor_log
from soro_node.base_node import (
    GoalCancelled,
    GoalRefused,
    OneGoal,
    action_server,
    answering_service,
    declare_parameters,
    failure_reason,
    run_goal,
)
from soro_node.params import FieldRefused, ParameterError, ParamSpec
from soro_node.sequence import PlayReport, SequencePlayer

LINK_PARAMS = (
    ParamSpec(
        'port',
        '/dev/ttyUSB0',
        'pyserial URL of the device (a path, or e.g. socket://host:port)',
        nonempty=True,
    ),
    ParamSpec('baud', 115200, 'serial baud rate', 1200, 4_000_000),
    # at most half the firmware's 500 ms watchdog (soro_board.h): 1.0 was taken, and the board
    # went to its safe state between two heartbeats
    ParamSpec(
        'heartbeat_period_s',
        0.1,
        'host heartbeat period (s); at most half the firmware watchdog (500 ms)',
        0.01,
        0.25,
    ),
    # the board's heartbeat comes every 100 ms (soro_board.h): less would call a live link stale
    ParamSpec(
        'stale_timeout_s',
        0.3,
        'link is stale after this long without a frame (s); above the board heartbeat (0.1 s)',
        0.15,
        5.0,
    ),
    ParamSpec(
        'autostart',
        False,
        'configure and activate at start-up instead of waiting for lifecycle transitions',
    ),
)
HANDED_OVER = 1000  # work waiting for the executor; beyond it the oldest goes (newer follows)
# the lifecycle callbacks rclpy calls; an exception raised in one it turns into ERROR unlogged
TRANSITION_CALLBACKS = (
    'on_configure',
    'on_activate',
    'on_deactivate',
    'on_cleanup',
    'on_shutdown',
    'on_error',
)
LINK_NAMES = frozenset(spec.name for spec in LINK_PARAMS)
COMMANDS_OFF = 'commands are off: the bridge was deactivated or is stopping'
NO_LINK = 'the bridge is not configured: it has no link to the device'
Sent = TypeVar('Sent')


class BridgeNode(LifecycleNode):
    """Base of every hardware bridge. Subclasses pass their body schemas, override
    ``on_device_message`` and set up their actions with ``goal_server``."""

    # what a goal aborted on the safety path leaves the robot in: (safe state confirmed, or not)
    LEFT_IN = ('device in its safe state', 'device left to its firmware watchdog (safe state)')

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _log_transition_errors(cls)

    def __init__(
        self,
        node_name: str,
        robot_schemas: tuple[BodySchema, ...] = (),
        extra_params: tuple[ParamSpec, ...] = (),
        **kwargs,
    ):
        super().__init__(node_name, **kwargs)
        self.param_specs = LINK_PARAMS + extra_params
        # current values; ``params`` holds them as configure found them
        self.settings = declare_parameters(self, self.param_specs)
        self.protocol = link_protocol(*robot_schemas)
        self.link: LinkSupervisor | None = None
        self.commands_enabled = False
        self.goals = OneGoal()  # one goal at a time over all of the bridge's actions
        self._handed_over: deque[Callable[[], None]] = deque(maxlen=HANDED_OVER)
        self._hand_over_ready = self.create_guard_condition(self._run_handed_over)
        self.diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.status_pub = self.create_publisher(LinkStatus, '~/link_status', 10)
        answering_service(self, Trigger, '~/safe_state', self._safe_state_service)
        self.create_timer(1.0, self.publish_diagnostics)
        self._link_log = RosLogHandler(self.get_logger())
        supervisor_log.addHandler(self._link_log)
        _answer_unavailable_transitions(self)
        self.add_post_set_parameters_callback(self._say_when_link_changes)

    def _say_when_link_changes(self, changed) -> None:
        """The link's parameters are read at configure: one changed while the link runs is said
        to wait for it (a new port was accepted, and nothing said the old one was still used)."""
        names = [p.name for p in changed if p.name in LINK_NAMES and p.name != 'autostart']
        if names and self.link is not None:
            self.get_logger().info(
                f'{", ".join(names)} changed: the link takes it at the next configure '
                '(deactivate, cleanup, configure)'
            )

    # --- lifecycle -------------------------------------------------------------------------------
    def on_configure(self, state: State) -> TransitionCallbackReturn:
        """Check the parameters and start the link supervisor, which opens the port in the
        background and retries; FAILURE, logged, when a parameter is refused."""
        try:
            self.params = self.settings.checked()
        except ParameterError as exc:
            self.get_logger().error(str(exc))
            return TransitionCallbackReturn.FAILURE
        p = self.params
        self.link = LinkSupervisor(
            LinkConfig(p['port'], p['baud'], p['heartbeat_period_s'], p['stale_timeout_s']),
            self.protocol,
            on_message=self._device_message,
            on_state=lambda _state: self.hand_over(self.publish_diagnostics),
        )
        self.link.start()
        self.get_logger().info(f'opening {p["port"]} at {p["baud"]} baud')
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: State) -> TransitionCallbackReturn:
        """Enable commands (the lifecycle publishers go on) and publish the diagnostics at once."""
        self.commands_enabled = True
        self.publish_diagnostics()
        return super().on_activate(state)

    def on_deactivate(self, state: State) -> TransitionCallbackReturn:
        """Disable commands and put the device in its safe state; the data publishers stop."""
        self.commands_enabled = False
        self.force_safe_state('bridge deactivated')
        return super().on_deactivate(state)

    def on_cleanup(self, state: State) -> TransitionCallbackReturn:
        """Stop the link supervisor (the port closes) and publish the diagnostics."""
        self._close_link()
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: State) -> TransitionCallbackReturn:
        """Disable commands, command the safe state if configured, and close the link."""
        self.commands_enabled = False
        if self.link:
            self.force_safe_state('bridge shutting down')
        self._close_link()
        return TransitionCallbackReturn.SUCCESS

    def destroy_node(self) -> None:
        """Disable commands, stop the link's thread (it calls back into this node) and detach
        the link's log from this node's, then destroy the node."""
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

    # --- commands --------------------------------------------------------------------------------
    def send_command(self, name: str, **fields: object) -> bool:
        """Send a robot command if the bridge is active; False (and a log line) when it is
        refused."""
        if not self.commands_enabled or self.link is None:
            self.get_logger().warning(
                f'{name} refused: bridge is not active', throttle_duration_sec=2.0
            )
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
        """Whether an action goal is under way."""
        return self.goals.running()

    def force_safe_state(self, reason: str) -> bool:
        """Command the device's safe state; whether it confirmed (the reason goes to the log)."""
        try:
            if self.link is None:
                raise LinkDown(NO_LINK)
            self.link.safe_state()
        except (LinkDown, CommandRefused) as exc:
            # the firmware watchdog still brings the device to its safe state without us
            self.get_logger().warning(f'safe state ({reason}) not confirmed: {exc}')
            return False
        self.get_logger().info(f'device in its safe state ({reason})')
        return True

    def _safe_state_service(self, request, response):
        if self.link is None:
            response.success, response.message = False, NO_LINK
            return response
        response.success = self.force_safe_state('service request')
        response.message = (
            'device confirmed its safe state'
            if response.success
            else 'device did not confirm (link down?); its watchdog will vent/stop it'
        )
        return response

    # --- goals -----------------------------------------------------------------------------------
    def goal_server(
        self,
        action_type,
        name: str,
        work: Callable[[object, object], str],
        cancelled: str,
        refused: tuple[type[Exception], ...] = (),
        make_result=None,
        **kwargs,
    ):
        """An action server for one of the bridge's goals (one at a time over all of them, cancel
        accepted). ``work(goal_handle, result)`` fills ``result`` and returns its success message;
        the goal ends succeeded, cancelled with message ``cancelled`` when its client asked, or
        aborted with the reason of a GoalRefused (or one of ``refused``). Any other failure puts
        the device in its safe state first."""

        def execute(goal_handle):
            result = make_result() if make_result else action_type.Result()
            return run_goal(
                goal_handle,
                result,
                lambda: self._goal_work(work, goal_handle, result, refused),
                refused,
                self.get_logger(),
                cancelled,
            )

        return action_server(self, action_type, name, execute, one_at_a_time=self.goals, **kwargs)

    def _goal_work(self, work, goal_handle, result, refused: tuple[type[Exception], ...]) -> str:
        try:
            message = work(goal_handle, result)
        except (GoalRefused, FieldRefused, *refused):
            raise
        except Exception as error:  # noqa: BLE001 - a faulty goal must not leave the robot moving
            raise self.goal_aborted(failure_reason(error)) from error
        if goal_handle.is_cancel_requested:
            raise GoalCancelled
        self.get_logger().info(message)
        return message

    def require_active(self, role: str) -> None:
        """Refuse a goal (GoalRefused) unless the bridge is configured and active."""
        if not self.commands_enabled or self.link is None:
            raise GoalRefused(
                f'refused: the {role} is not active (lifecycle: configure, then activate)'
            )

    def goal_command(self, send: Callable[[LinkSupervisor], Sent], where: str = '') -> Sent:
        """``send(link)`` for a running goal. With commands off, the link down or the command
        refused, the goal aborts: GoalRefused with the reason, the device put in its safe state."""
        link = self.link
        try:
            if not self.commands_enabled or link is None:
                raise LinkDown(COMMANDS_OFF)
            return send(link)
        except (LinkDown, CommandRefused) as error:
            raise self.goal_aborted(error, where) from None

    def goal_aborted(self, error: object, where: str = '') -> GoalRefused:
        """The safety path of a goal that cannot go on: the device to its safe state, and the
        goal's reason, which says what the robot was left in (``LEFT_IN``)."""
        safe = self.force_safe_state('goal aborted') if self.link else False
        return GoalRefused(f'aborted{where}: {error}; {self.LEFT_IN[0 if safe else 1]}')

    def play_goal(
        self,
        goal_handle,
        period_s: float,
        steps: Iterable,
        act: Callable,
        until: Callable[[], bool] | None = None,
    ) -> PlayReport:
        """Play ``steps`` one per ``period_s`` with ``act(slot, step)`` until they are done,
        ``until()`` holds or the goal's client cancels (``soro_node.sequence``); without a
        ``goal_handle``, a clean stop that no client cancels."""

        def stop() -> bool:
            cancelled = goal_handle is not None and goal_handle.is_cancel_requested
            return cancelled or (until is not None and until())

        return SequencePlayer(period_s).play(steps, act, stop=stop)

    # --- device to ROS ---------------------------------------------------------------------------
    def hand_over(self, work: Callable[[], None]) -> None:
        """Have the executor run ``work`` (publishing, mostly) instead of the link's reader thread
        or a goal's beat, which must not wait on DDS; thread-safe."""
        self._handed_over.append(work)
        self._hand_over_ready.trigger()

    def _run_handed_over(self) -> None:
        # only what waits now: work handed over meanwhile waits for the next call, so a device
        # that streams faster than the node publishes cannot hold the lifecycle services (they
        # share this callback group) for good
        for _ in range(len(self._handed_over)):
            work = self._handed_over.popleft()
            try:
                work()
            except Exception as error:  # noqa: BLE001 - one bad message must not stop the rest
                self.get_logger().error(f'device message not handled: {failure_reason(error)}')
        if self._handed_over:
            self._hand_over_ready.trigger()

    def _device_message(self, message: Message) -> None:
        """On the link's reader thread: a device log is logged at once, the rest handed over."""
        if message.name == 'log':
            log_device_report(self.get_logger(), message)
        else:
            self.hand_over(lambda: self.on_device_message(message))

    def on_device_message(self, message: Message) -> None:
        """A robot telemetry message from the device, on the executor. Subclasses publish it."""

    def publish_diagnostics(self) -> None:
        """The link's state on ``/diagnostics`` and, once configured, on ``~/link_status``."""
        link, header = self.link, Header(stamp=self.get_clock().now().to_msg())
        snap = snapshot(link) if link is not None else None
        # /diagnostics is one topic for every robot in the domain: the namespace tells them apart
        name = self.get_fully_qualified_name().lstrip('/')
        status = link_diagnostic(f'{name}: link', snap, self.commands_enabled)
        self.diagnostics_pub.publish(DiagnosticArray(header=header, status=[status]))
        if snap is not None:
            self.status_pub.publish(link_status(snap, self.commands_enabled, header))


def _answer_unavailable_transitions(node: LifecycleNode) -> None:
    """Make ``node``'s change_state service answer success = False to a transition its current
    state does not have (activate while active), as rclcpp's does: rclpy 7.1 raises inside the
    service callback instead, and the client (``ros2 lifecycle set``) waits for ever."""
    service = next(s for s in node.services if s.srv_type is ChangeState)
    change_state = service.callback

    def answered(request, response):
        try:
            return change_state(request, response)
        except RCLError:
            label = request.transition.label or f'transition {request.transition.id}'
            node.get_logger().warning(f'{label} refused: the current state has no such transition')
            response.success = False
            return response

    service.callback = answered


def _log_transition_errors(cls: type) -> None:
    """Wraps each lifecycle callback ``cls`` defines so that an exception it raises is logged with
    its traceback before the transition ends in ERROR, which rclpy does without a word."""
    for name in TRANSITION_CALLBACKS:
        if name in vars(cls):
            setattr(cls, name, _logged_transition(vars(cls)[name]))


def _logged_transition(callback):
    @functools.wraps(callback)
    def transition(node, state):
        try:
            return callback(node, state)
        except Exception:  # noqa: BLE001 - rclpy would swallow it: say what it was, then ERROR
            node.get_logger().error(f'{callback.__name__} raised:\n{traceback.format_exc()}')
            return TransitionCallbackReturn.ERROR

    return transition


_log_transition_errors(BridgeNode)
