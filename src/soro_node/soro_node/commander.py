"""``Commander``: the base of the blocking client libraries that scripts and demos use to drive a
robot's nodes, in the manner of nav2_simple_commander's BasicNavigator. A commander is a node
spinning on its own thread; its calls block the caller until the service answers or the action
ends, and return the response or result, or raise CommanderError with the reason. Every call has a
timeout: a service that does not answer in time has its request withdrawn, a goal that does not end
in time is cancelled, and either raises CommanderError. Its action clients are
``soro_node.base_node.ActionClient``, which a reply cannot overtake while the caller's thread
sends; its service clients (``service_client``) queue requests as deep as the servers do.

    class MyRobot(Commander):
        def __init__(self):
            super().__init__('my_robot_commander')
            self.walk_client = ActionClient(self, Walk, '/my_robot/walk')

        def walk(self, steps: int) -> Walk.Result:
            return self.run_action(self.walk_client, Walk.Goal(steps=steps), timeout_s=60.0)
"""

from __future__ import annotations

import threading

import rclpy
from rcl_interfaces.srv import GetParameters, SetParameters
from rclpy.action import ActionClient
from rclpy.client import Client
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter, parameter_value_to_python

from soro_node.base_node import meet, request_qos, server_node, shut_down, spin_until
from soro_node.waiting import WaitTimeout, wait_for

SERVER_WAIT_S = 10.0  # discovery of a server started alongside can take seconds
CLOSE_S = 5.0  # for the spinning thread to end on close
CANCEL_WAIT_S = 2.0  # for a server to answer the cancel of a goal still running on close


class CommanderError(RuntimeError):
    """A server that is not there, a goal that was rejected or failed; the message says which and
    why."""


class Commander(Node):
    """Base of a robot's blocking client: a node spinning on its own thread, whose service
    and action calls block the caller and raise CommanderError (see the module docstring)."""

    def __init__(self, node_name: str, **kwargs):
        super().__init__(node_name, **kwargs)
        self._executor = SingleThreadedExecutor()
        self._executor.add_node(self)
        self._closing = threading.Event()
        self._met: set[str] = set()
        # (goal handle, its result's future) of every goal accepted: close() cancels the live ones
        self._goals: list = []
        self._goals_lock = threading.Lock()  # run_action and send_goal from callers' threads
        # outliving a callback that raises (a caller's ``on_feedback``, say): it is logged
        self._spinner = threading.Thread(
            target=spin_until, args=(self._executor, self._closing, self.get_logger()), daemon=True
        )
        self._spinner.start()

    def meet(self, endpoint: str, timeout_s: float = SERVER_WAIT_S) -> bool:
        """Wait (at most ``timeout_s``) until the node serving ``endpoint`` has answered a
        parameter request (``base_node.meet``: a request sent before the server sees us is
        answered into the void); once per node. False when it never answered."""
        node = server_node(endpoint)
        if not endpoint or node in self._met:
            return True
        if not meet(self, endpoint, timeout_s):
            return False
        self._met.add(node)
        return True

    def service_client(self, srv_type, name: str) -> Client:
        """A client whose requests queue as deep as the servers' (``base_node.request_qos``)."""
        return self.create_client(srv_type, name, qos_profile=request_qos())

    def call_service(self, client: Client, request, timeout_s: float, what: str):
        """The response of ``client`` to ``request``; a response with ``success`` false raises with
        its message, and so does no response within ``timeout_s`` (the request is withdrawn)."""
        response = self.answer(client, request, timeout_s, what)
        if hasattr(response, 'success') and not response.success:
            raise CommanderError(f'{what}: {response.message}')
        return response

    def answer(self, client: Client, request, timeout_s: float, what: str):
        """The response of ``client`` to ``request`` whatever it says (a refusal too); no
        response within ``timeout_s`` raises (the request is withdrawn)."""
        if not client.wait_for_service(timeout_sec=min(timeout_s, SERVER_WAIT_S)):
            raise CommanderError(f'no service {client.srv_name}')
        self.meet(client.srv_name)
        future = client.call_async(request)
        try:
            return _wait(future, timeout_s, what)
        except CommanderError:
            client.remove_pending_request(future)  # a late answer is not for anyone
            raise

    def parameters(self, node: str, *names: str, timeout_s: float = 5.0) -> list:
        """The values of parameters ``names`` of ``node`` (its full name, e.g. '/ns/name'), as
        ``ros2 param get`` reads them; CommanderError if the node lacks one of them."""
        answer = self._ask_parameters(
            GetParameters, node, 'get_parameters', GetParameters.Request(names=names), timeout_s
        )
        if len(answer.values) != len(names):  # rclpy answers nothing when one is undeclared
            raise CommanderError(f'{node} has not declared all of {", ".join(names)}')
        return [parameter_value_to_python(value) for value in answer.values]

    def set_parameters(self, node: str, timeout_s: float = 5.0, **values) -> list:
        """What ``node`` answers (one rcl_interfaces/SetParametersResult per value, in order) to
        ``values`` set as ``ros2 param set`` sets them."""
        request = SetParameters.Request(
            parameters=[Parameter(k, value=v).to_parameter_msg() for k, v in values.items()]
        )
        answer = self._ask_parameters(SetParameters, node, 'set_parameters', request, timeout_s)
        return list(answer.results)

    def _ask_parameters(self, srv_type, node: str, service: str, request, timeout_s: float):
        client = self.create_client(srv_type, f'/{node.strip("/")}/{service}')
        try:
            return self.answer(client, request, timeout_s, f'{node} {service}')
        finally:
            self.destroy_client(client)

    def run_action(self, client: ActionClient, goal, timeout_s: float, on_feedback=None):
        """Send ``goal``, pass each feedback to ``on_feedback``, and return the result once the
        goal ends; a rejected goal or a result with ``success`` false raises with its message. A
        goal that has not ended within ``timeout_s`` is cancelled and raises."""
        name = type(goal).__name__.removesuffix('_Goal')
        if not client.wait_for_server(timeout_sec=min(timeout_s, SERVER_WAIT_S)):
            raise CommanderError(f'no {name} action server')
        self.meet(getattr(client, 'action_name', ''))
        sent = client.send_goal_async(
            goal, feedback_callback=lambda f: on_feedback and on_feedback(f.feedback)
        )
        handle = _wait(sent, SERVER_WAIT_S, name)
        if not handle.accepted:
            raise CommanderError(
                f'{name} goal rejected (the server is busy with another goal or refused it; '
                'its log says why)'
            )
        ended = handle.get_result_async()
        self._track(handle, ended)
        try:
            result = _wait(ended, timeout_s, name).result
        except CommanderError:
            # the robot does not go on with a goal nobody waits for (once closed, close() did it)
            if not self._closing.is_set():
                handle.cancel_goal_async()
            raise
        if hasattr(result, 'success') and not result.success:
            raise CommanderError(f'{name}: {result.message}')
        return result

    def send_goal(self, client: ActionClient, goal, on_feedback=None) -> SentGoal:
        """``goal`` sent without waiting for its end, for callers that watch its feedback (also
        passed to ``on_feedback``), cancel it or look at a refusal (tests, mostly); returns once
        the server has accepted or rejected it."""
        name = type(goal).__name__.removesuffix('_Goal')
        if not client.wait_for_server(timeout_sec=SERVER_WAIT_S):
            raise CommanderError(f'no {name} action server')
        self.meet(getattr(client, 'action_name', ''))
        feedback = []

        def keep(message) -> None:
            feedback.append(message.feedback)
            if on_feedback is not None:
                on_feedback(message.feedback)

        sent = client.send_goal_async(goal, feedback_callback=keep)
        goal = SentGoal(_wait(sent, SERVER_WAIT_S, name), feedback)
        if goal.accepted:
            self._track(goal.handle, goal._result)
        return goal

    def _track(self, handle, ended) -> None:
        """Keep a goal's handle until its result (``ended``) is in, for close()."""
        with self._goals_lock:
            self._goals = [g for g in self._goals if not g[1].done()] + [(handle, ended)]

    def close(self) -> None:
        """Cancels the goals still running (nobody will wait for them), stops the spinning
        thread, then the executor (``spin_until``), and destroys the node with its action clients
        (rclpy itself stays up)."""
        # while still spinning: a request its client is destroyed under may never leave
        with self._goals_lock:
            live = [handle for handle, ended in self._goals if not ended.done()]
        cancels = [handle.cancel_goal_async() for handle in live]
        for cancel in cancels:
            try:
                wait_for(cancel, CANCEL_WAIT_S)
            except WaitTimeout:
                self.get_logger().warning('a goal cancelled on close was not answered')
        self._closing.set()
        self._spinner.join(timeout=CLOSE_S)
        self._executor.shutdown()
        # destroy_node leaves waitables alone, and an action client's handle keeps the node's
        # alive: its rosout registration too, so the next commander of that name was warned
        for waitable in list(self.waitables):
            if isinstance(waitable, ActionClient):
                waitable.destroy()
        self.destroy_node()


class SentGoal:
    """A goal that was sent (``Commander.send_goal``): whether it was accepted, its feedback so
    far, and its status and result once it has ended."""

    def __init__(self, handle, feedback: list):
        self.handle, self.feedback = handle, feedback
        self._ended = threading.Event()
        self._result = handle.get_result_async() if handle.accepted else None
        if self._result is not None:
            self._result.add_done_callback(lambda _future: self._ended.set())

    @property
    def accepted(self) -> bool:
        """Whether the server took the goal."""
        return self.handle.accepted

    def cancel(self) -> None:
        """Asks the server to cancel the goal; ``ended`` tells when it has."""
        self.handle.cancel_goal_async()

    def ended(self, timeout_s: float) -> bool:
        """True once the goal has ended (False for a rejected goal), False if it has not within
        ``timeout_s``."""
        return self._ended.wait(timeout_s)

    @property
    def status(self) -> int:
        """The goal's final status (action_msgs/GoalStatus), once ``ended``."""
        return self._result.result().status

    @property
    def result(self):
        """The goal's result message, once ``ended``."""
        return self._result.result().result


def _wait(future, timeout_s: float, what: str):
    try:
        return wait_for(future, timeout_s)
    except WaitTimeout as error:
        raise CommanderError(f'{what}: {error}') from None


def init() -> None:
    """rclpy.init() for scripts that use only a commander (they need not import rclpy
    themselves)."""
    if not rclpy.ok():
        rclpy.init()


def shutdown() -> None:
    """The end of a script's rclpy (``init``'s counterpart)."""
    shut_down()
