"""The rclpy side of every softbots node that is not a hardware bridge: typed parameters, main(),
action goals.

- ``declare_parameters`` turns ``params.ParamSpec`` tuples into declared parameters whose
  descriptors carry the range, refuses a bad value on every later ``ros2 param set``, and hands
  back the node's ``params.Settings``, kept current (``settings.checked()`` refuses a bad start-up
  value): the one way a node reads its parameters.
- ``init_ros`` is rclpy.init that refuses malformed ROS arguments (``-p port:=``) in one line.
- ``run_node`` is a node's whole main(): init, build, spin until SIGINT, clean up, one line for a
  start-up refusal; ``shut_down`` ends rclpy whoever else is ending it. ``spin_once`` is the spin
  of every node's loop: a callback that raises is logged as an error naming it, and the node spins
  on (one bad message must not end a node).
- ``answering_service`` and ``action_server`` create services and action servers that answer every
  request: a handler that raises answers failure with the reason, request queues are
  ``REQUEST_DEPTH`` deep, cancel requests are accepted, and a busy action server (``OneGoal``)
  rejects a new goal at once.
- ``run_goal`` ends an action goal by what its work did: succeeded, cancelled (``GoalCancelled``
  from a ``progress_reporter``) or aborted with the refusal's one-line reason (``GoalRefused`` or
  the node's own).
- ``ActionClient`` is rclpy's, safe to send from one thread while an executor spins on another.
- ``meet`` proves a server's node has seen this one before the first request to it: a client sees
  a server before the server sees the client, and a request sent in between is answered into the
  void (Fast DDS; a goal accepted that way runs with nobody told). A parameter request that comes
  back proves the way both ways. Commanders meet each server's node once; a node whose server can
  restart (the TerreSoro learner's executor) meets it before each goal.
- ``sensor_data_qos`` is the profile every motion-capture / tracked-pose subscription uses.
"""

from __future__ import annotations

import faulthandler
import math
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable

import rclpy
import rclpy.action
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rcl_interfaces.srv import GetParameters
from rclpy.action import CancelResponse, GoalResponse
from rclpy.qos import (
    DurabilityPolicy,
    HistoryPolicy,
    QoSProfile,
    ReliabilityPolicy,
    qos_profile_sensor_data,
)
from rclpy.signals import SignalHandlerOptions

from soro_node.answering_node import AnsweringActionServer, spin_until_answered
from soro_node.params import FieldRefused, ParamSpec, Settings
from soro_node.stop import StopRequest
from soro_node.waiting import WaitTimeout, wait_for


def declare_parameters(node: rclpy.node.Node, specs: tuple[ParamSpec, ...]) -> Settings:
    """Declare ``specs`` with descriptors and refuse any later change that a spec does not allow;
    the node's ``Settings`` of ``specs``, refreshed after every change rclpy accepts."""
    for spec in specs:
        limits = (
            spec.allowed_range
            if (spec.low, spec.high) != (None, None)
            else ', '.join(map(str, spec.choices))
        )
        node.declare_parameter(
            spec.name,
            spec.default,
            ParameterDescriptor(
                description=spec.description,
                additional_constraints=limits,
                read_only=spec.read_only,
                # our own check types the value, so `-p rate:=10` is accepted for a double
                dynamic_typing=True,
            ),
        )

    by_name = {spec.name: spec for spec in specs}

    def on_set(parameters):
        for parameter in parameters:
            spec = by_name.get(parameter.name)
            problem = spec.check(parameter.value) if spec else None
            if problem:
                return SetParametersResult(successful=False, reason=problem)
        return SetParametersResult(successful=True)

    node.add_on_set_parameters_callback(on_set)
    # the values given at start-up (-p, a params file) are the declared ones: checked() refuses
    # bad ones, so a bridge can refuse at configure rather than at construction
    settings = Settings(specs, {spec.name: node.get_parameter(spec.name).value for spec in specs})
    node.add_post_set_parameters_callback(
        lambda changed: settings.refresh({change.name: change.value for change in changed})
    )
    return settings


def sensor_data_qos(depth: int) -> QoSProfile:
    """rclpy's sensor-data profile (best effort, volatile, keep last) with the history ``depth``
    the subscriber needs. The mocap drivers packaged for Jazzy (vrpn_mocap, mocap4r2) publish best
    effort, and a best-effort publisher never connects to a reliable subscription; a best-effort
    one takes best-effort and reliable publishers alike."""
    return QoSProfile(
        history=qos_profile_sensor_data.history,
        depth=depth,
        reliability=qos_profile_sensor_data.reliability,
        durability=qos_profile_sensor_data.durability,
    )


# Requests a service or an action server's goal, result and cancel services keep until the executor
# takes them. rclpy's default, 10, drops the rest of a burst unanswered (100 goals/s to a server
# with one thread at work lost a fifth of them); a request is a few hundred bytes, so a thousand
# cost little.
REQUEST_DEPTH = 1000


def request_qos(depth: int = REQUEST_DEPTH) -> QoSProfile:
    """rclpy's services profile (reliable, volatile, keep last) ``depth`` deep, for servers and
    their clients."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST,
        depth=depth,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.VOLATILE,
    )


def failure_reason(error: BaseException) -> str:
    """One line for an exception a callback raised: its type, message and the callback it came from
    (the outermost frame outside rclpy and this toolkit, i.e. the node's own callback), e.g.
    ``ValueError: need at least one array to concatenate (in
    PomController._inverse_kinematics)``."""
    where = [
        frame.f_code.co_qualname
        for frame, _line in traceback.walk_tb(error.__traceback__)
        if '/rclpy/' not in frame.f_code.co_filename and frame.f_code.co_filename != __file__
    ]
    text = str(error).splitlines()[0] if str(error) else ''
    return f'{type(error).__name__}: {text}' + (f' (in {where[0]})' if where else '')


def spin_once(executor: rclpy.executors.Executor, logger, timeout_sec: float) -> None:
    """``executor.spin_once``, except that an exception raised by a callback (a subscription's, a
    timer's, a service's, an action's) is logged as an error with the callback's name and the node
    goes on: rclpy raises it out of spin_once, which would end the node's main() on one malformed
    message."""
    try:
        executor.spin_once(timeout_sec=timeout_sec)
    except (rclpy.executors.ExternalShutdownException, rclpy.executors.ShutdownException):
        raise
    except Exception as error:  # noqa: BLE001 - whatever a callback raises, the node outlives it
        logger.error(f'callback failed, node goes on: {failure_reason(error)}')


def spin_until(
    executor: rclpy.executors.Executor, stop: threading.Event, logger, timeout_sec: float = 0.1
) -> None:
    """A spinning thread's target: ``spin_once`` (callbacks' exceptions logged) until ``stop`` is
    set or rclpy ends. Shut the executor down only after the thread has ended: shut down under a
    running spin, a task finishing triggers its destroyed guard condition (InvalidHandle)."""
    try:
        while not stop.is_set() and executor.context.ok():
            spin_once(executor, logger, timeout_sec)
    except (rclpy.executors.ExternalShutdownException, rclpy.executors.ShutdownException):
        pass  # rclpy ended under us: nothing left to spin


def answering_service(
    node: rclpy.node.Node, srv_type, name: str, handler, depth: int = REQUEST_DEPTH, **kwargs
):
    """``node.create_service`` whose every request is answered: when ``handler`` raises, the client
    gets a fresh response with ``success`` false and ``message`` the reason (a raising service
    otherwise sends nothing and leaves its client waiting forever), and the node logs it. Requests
    queue ``depth`` deep."""
    logger = node.get_logger()

    def answer(request, response):
        try:
            return handler(request, response)
        except Exception as error:  # noqa: BLE001 - the client gets the reason instead of silence
            reason = failure_reason(error)
            logger.error(f'{name}: request failed: {reason}')
            failed = srv_type.Response()
            if hasattr(failed, 'success'):
                failed.success = False
            if hasattr(failed, 'message'):
                failed.message = f'failed: {reason}'
            return failed

    return node.create_service(srv_type, name, answer, qos_profile=request_qos(depth), **kwargs)


# an accepted goal holds its claim this long for its execution to start (rclpy may drop an accepted
# goal whose answer could not be sent: its claim must not last)
ACCEPTED_TO_RUNNING_S = 1.0


class OneGoal:
    """One goal at a time over the action servers that share it (a bridge's gait and walk servers
    drive one robot), decided when a goal arrives: a goal is accepted only while no goal runs and
    none was just accepted (rclpy starts an accepted goal's execution a little later, on any
    executor thread)."""

    def __init__(self):
        self._running = threading.Lock()
        self._deciding = threading.Lock()
        self._accepted_at: float | None = None

    def running(self) -> bool:
        """Whether a goal is under way (a node's ``goals_running``)."""
        return self._running.locked()

    def accept(self) -> bool:
        """Whether a goal that arrives now may run; it then holds its claim until it starts."""
        with self._deciding:
            since = time.monotonic() - (self._accepted_at or -math.inf)
            if self.running() or since < ACCEPTED_TO_RUNNING_S:
                return False
            self._accepted_at = time.monotonic()
            return True

    def start(self) -> bool:
        """True, with the goal marked running, when this goal may run (then call ``end``)."""
        if not self._running.acquire(blocking=False):
            return False
        with self._deciding:
            self._accepted_at = None
        return True

    def end(self) -> None:
        """The goal that ``start`` let run has ended."""
        self._running.release()


def action_server(
    node: rclpy.node.Node,
    action_type,
    name: str,
    execute,
    one_at_a_time: OneGoal | None = None,
    cancellable: bool = True,
    depth: int = REQUEST_DEPTH,
    **kwargs,
) -> AnsweringActionServer:
    """An ActionServer that knows when it has answered its clients, whose goal, result and cancel
    requests queue ``depth`` deep and whose cancel requests are accepted (the work sees
    ``is_cancel_requested``; ``cancellable=False`` refuses them, for work that cannot stop
    part-way). With ``one_at_a_time`` (shared by the
    servers that drive one thing), a goal that arrives while another runs or has just been accepted
    is rejected at once in the goal callback, so its client has its answer immediately instead of
    an accepted goal aborted later."""
    logger = node.get_logger()

    def on_goal(_request) -> GoalResponse:
        if one_at_a_time is not None and not one_at_a_time.accept():
            logger.warning(
                f'{name}: goal rejected: busy with another goal', throttle_duration_sec=1.0
            )
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def run(goal_handle):
        if one_at_a_time is None:
            return execute(goal_handle)
        if not one_at_a_time.start():  # not reached while goals are decided on arrival; a guard
            goal_handle.abort()
            result = action_type.Result()
            result.message = 'refused: running another goal'
            return result
        try:
            return execute(goal_handle)
        finally:
            one_at_a_time.end()

    queue = request_qos(depth)
    if cancellable:
        kwargs.setdefault('cancel_callback', lambda _goal: CancelResponse.ACCEPT)
    return AnsweringActionServer(
        node,
        action_type,
        name,
        run,
        goal_callback=on_goal,
        goal_service_qos_profile=queue,
        result_service_qos_profile=queue,
        cancel_service_qos_profile=queue,
        **kwargs,
    )


EXIT_REFUSED = 2  # a start-up refusal: bad arguments or parameters, said in one line


class StartRefused(Exception):
    """A node that cannot start; the message is the one-line reason."""


SWITCH_INTERVAL_S = 0.0005


def init_ros(args=None, stop: StopRequest | None = None) -> None:
    """rclpy.init; StartRefused with rcl's reason on one line when the ROS arguments do not parse.

    With ``stop``, rclpy installs no signal handlers and ``stop`` takes SIGINT and SIGTERM (the
    caller polls it and ends safely); without, rclpy's handlers shut the context down. Either way
    an inherited SIG_IGN is replaced: a process started without job control (a script's ``cmd &``)
    inherits SIGINT ignored, and nodes must stop on Ctrl-C whoever started them.

    The interpreter also hands over between threads every ``SWITCH_INTERVAL_S`` instead of every 5
    ms: a node's serial reader and its firmware stand-in give the interpreter up at every read and
    write and must get it back quickly while executor threads compute (at 5 ms a driver streaming
    100 commands/s starved its own link's reader until the board's watchdog fired)."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    # a node that hangs instead of stopping can be asked where: kill -USR1 <pid> prints every
    # thread's stack (the test runner does, before it kills one)
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    if stop is not None:
        stop.install()
    elif signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL):
        # for rclpy's handler: what it chains to
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        rclpy.init(
            args=args,
            signal_handler_options=SignalHandlerOptions.NO if stop else SignalHandlerOptions.ALL,
        )
    # rcl's RCLError, e.g. "Couldn't parse parameter override rule: '-p port:='"
    except RuntimeError as error:
        reason = (
            str(error)
            .removeprefix('failed to initialize rcl: ')
            .split('. Error:')[0]
            .split(', at ')[0]
        )
        raise StartRefused(
            f'invalid ROS arguments: {reason} (an empty string is written "name:=\'\'")'
        ) from None


def refuse_start(name: str, reason: object) -> int:
    """Log a start-up refusal as the last line, under the node's ``name``; the exit code to
    return."""
    rclpy.logging.get_logger(name).fatal(str(reason))
    shut_down()
    return EXIT_REFUSED


def shut_down() -> None:
    """rclpy.try_shutdown, which may race rclpy's own SIGINT handler: both see the context up, both
    shut it down, and the later one raises "rcl_shutdown already called" (a planner stopped at once
    exited 1 so). Down is down."""
    try:
        rclpy.try_shutdown()
    except RuntimeError:  # rclpy's RCLError
        if rclpy.ok():
            raise


# on SIGINT, how long a plain node's running goals get to end and answer their clients
GOALS_END_S = 3.0
STOPPING = 'aborted: the node is stopping'  # a goal's end when its node stops under it
# set when a plain node (``run_node``) stops: its goals' progress callbacks end them
_node_stopping = threading.Event()


def node_stopping() -> bool:
    """Whether this process's plain node (``run_node``) is stopping: a goal that waits on other
    nodes instead of reporting progress checks it and ends (``progress_reporter`` does so)."""
    return _node_stopping.is_set()


def run_node(
    make_node: Callable[[], rclpy.node.Node],
    name: str,
    make_executor=None,
    args=None,
    refused: tuple[type[Exception], ...] = (ValueError,),
    until: Callable[[rclpy.node.Node], bool] | None = None,
) -> int:
    """The main() of a plain node: init, build it with ``make_node()``, spin it (on
    ``make_executor()``, made after init; default single-threaded) until SIGINT/SIGTERM or until
    ``until(node)`` holds, then let its running goals end (``progress_reporter`` aborts them) and
    answer their clients (at most GOALS_END_S; a second Ctrl-C cuts it short), clean up. A
    start-up refusal (bad ROS arguments, or one of ``refused``, e.g. a ParameterError) is logged
    as fatal under ``name``: EXIT_REFUSED."""
    stop = StopRequest()
    _node_stopping.clear()
    try:
        init_ros(args, stop)
        node = make_node()
    except (StartRefused, *refused) as error:
        return refuse_start(name, error)  # the node never came to be
    except KeyboardInterrupt:  # Ctrl-C while it was being built: nothing to stop yet
        shut_down()
        return 0
    executor = None
    try:
        executor = make_executor() if make_executor else rclpy.executors.SingleThreadedExecutor()
        executor.add_node(node)
        while rclpy.ok() and not stop.requested and not (until and until(node)):
            spin_once(executor, node.get_logger(), 0.1)
        _node_stopping.set()
        spin_until_answered(
            node,
            lambda timeout_s: spin_once(executor, node.get_logger(), timeout_s),
            GOALS_END_S,
            lambda: stop.count >= 2,
        )
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        if executor is not None:
            _let_callbacks_finish(executor, CALLBACKS_END_S)
            # its guard conditions released now, while the context is up, not by the garbage
            # collector at exit (a learner once hung there, "Garbage-collecting", until killed);
            # 0: no wait, the goals had their GOALS_END_S
            executor.shutdown(timeout_sec=0)
        node.destroy_node()
        shut_down()
        _node_stopping.clear()  # a test may run run_node in its own process
    return 0


# how long a stopping node waits for the callbacks a MultiThreadedExecutor still runs
CALLBACKS_END_S = 1.0


def _let_callbacks_finish(executor, timeout_s: float) -> None:
    """Wait (at most ``timeout_s``) for the callbacks ``executor``'s threads still run, before
    its ``shutdown`` destroys the guard condition each one triggers as it ends (rclpy 7.1's
    ``shutdown`` skips its own wait): one still running failed, printed at exit as "The following
    exception was never retrieved: cannot use Destroyable" (tensegrity_live on every Ctrl-C). Only
    a MultiThreadedExecutor has them, in its private ``_futures``; a single-threaded one runs its
    callbacks in ``spin_once``."""
    deadline = time.monotonic() + timeout_s
    for handler in list(getattr(executor, '_futures', ())):
        while not handler.done() and time.monotonic() < deadline:
            time.sleep(0.005)


class GoalCancelled(Exception):
    """Raised inside an action's work when its client asked to cancel; ``run_goal`` ends the goal
    as cancelled."""


class GoalRefused(RuntimeError):
    """A goal that cannot run or could not go on; the message is the result's reason (``run_goal``
    aborts it)."""


def progress_reporter(goal_handle, make_feedback: Callable[..., object]) -> Callable[..., None]:
    """A progress callback for long work: publishes ``make_feedback(*args)`` as the goal's
    feedback, and raises GoalCancelled instead once the client asked to cancel (so cancelling takes
    effect at the next progress), GoalRefused once the node (``run_node``) is stopping."""

    def report(*args) -> None:
        if goal_handle.is_cancel_requested:
            raise GoalCancelled
        if node_stopping():
            raise GoalRefused(STOPPING)
        goal_handle.publish_feedback(make_feedback(*args))

    return report


def run_goal(
    goal_handle,
    result,
    work: Callable[[], str],
    refused: tuple[type[Exception], ...],
    logger,
    cancelled: str,
    refusal_prefix: str = '',
):
    """Run ``work()``, which fills ``result`` and returns its success message, and end the goal by
    the outcome: succeeded; cancelled with message ``cancelled`` when work raised GoalCancelled;
    aborted with ``refusal_prefix`` + the one-line reason when it raised GoalRefused or one of
    ``refused``. Sets ``result.message`` (and ``result.success`` where the result has one); returns
    it."""
    try:
        message = work()
    except GoalCancelled:
        goal_handle.canceled()
        result.message = cancelled
        return result
    except (GoalRefused, FieldRefused, *refused) as error:
        goal_handle.abort()
        result.message = f'{refusal_prefix}{error}'
        logger.warning(result.message)
        return result
    if hasattr(result, 'success'):
        result.success = True
    result.message = message
    goal_handle.succeed()
    return result


class ActionClient(rclpy.action.ActionClient):
    """rclpy's action client, for goals sent from one thread while an executor spins on another
    (every commander).

    rclpy (Jazzy) sends a goal, cancel or result request first and files its future after; a reply
    the executor takes in between is dropped as "unexpected" and the future never completes
    (ros2/rclpy#1123), so a goal that is answered at once can hang its sender. Here
    sending-and-filing and taking exclude each other."""

    def __init__(self, *args, **kwargs):
        # before rclpy registers the client with a spinning executor
        self._filing = threading.RLock()
        # as deep as the server's queues: a burst is not dropped
        for service in ('goal', 'result', 'cancel'):
            kwargs.setdefault(f'{service}_service_qos_profile', request_qos())
        super().__init__(*args, **kwargs)
        self.action_name = args[2] if len(args) > 2 else kwargs['action_name']

    def send_goal_async(self, *args, **kwargs):
        """rclpy's ``send_goal_async``, its future filed before the executor can take the reply."""
        with self._filing:
            return super().send_goal_async(*args, **kwargs)

    def _cancel_goal_async(self, goal_handle):
        with self._filing:
            return super()._cancel_goal_async(goal_handle)

    def _get_result_async(self, goal_handle):
        with self._filing:
            return super()._get_result_async(goal_handle)

    def take_data(self):
        """rclpy's ``take_data``, never between a request's sending and its future's filing."""
        with self._filing:
            return super().take_data()


MEET_TRY_S = 1.0  # one try of meet's round trip


def meet(node: rclpy.node.Node, endpoint: str, timeout_s: float, callback_group=None) -> bool:
    """Whether the node serving ``endpoint`` (an action or service name, its node being the part
    before the last '/') answered a parameter request of ``node``'s within ``timeout_s`` (tries of
    ``MEET_TRY_S``). A fully qualified name whose node serves no parameters within one try gets
    that try only: the server may be a node of another name. ``callback_group``: the request's,
    for a caller that waits on an executor thread of ``node``."""
    server = server_node(endpoint)
    client = node.create_client(
        GetParameters, f'{server}/get_parameters', callback_group=callback_group
    )
    try:
        # the service, not the graph's node list: a node's name can reach the graph after its
        # endpoints do, and one try alone is lost when the server has not matched us yet
        if server.startswith('/') and not client.wait_for_service(timeout_sec=MEET_TRY_S):
            return False
        request = GetParameters.Request(names=['use_sim_time'])
        return answered(client, request, timeout_s) is not None
    finally:
        node.destroy_client(client)


def server_node(endpoint: str) -> str:
    """The node an action or service name ``endpoint`` belongs to: the part before its last '/'."""
    return endpoint.rsplit('/', 1)[0] or '/'


def answered(client, request, timeout_s: float):
    """The first answer to ``request`` on service ``client``, asked again every ``MEET_TRY_S``
    until ``timeout_s``; None if none came. Fast DDS drops the replies a server sends before it has
    matched the client's reply reader, which it can do after the client has seen the server (all
    ``wait_for_service`` waits for): a request sent at once can go unanswered for good."""
    for _ in range(max(1, round(timeout_s / MEET_TRY_S))):
        if not client.wait_for_service(timeout_sec=MEET_TRY_S):
            continue
        future = client.call_async(request)
        try:
            return wait_for(future, MEET_TRY_S)
        except WaitTimeout:
            client.remove_pending_request(future)
    return None
