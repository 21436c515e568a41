"""The lifecycle bridge node with a simulated device on a pseudo-terminal, through real rclpy."""

import math
import threading
import time

import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState
from rclpy.executors import SingleThreadedExecutor
from rclpy.lifecycle import TransitionCallbackReturn
from rclpy.parameter import Parameter
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

from soro_link.bridge_probe_node import inactive_bridge_check
from soro_link.device import GenericOutputs, SimulatedDevice
from soro_link.outputs_bridge_node import GenericOutputsBridge
from soro_link.protocol import PROTOCOL_VERSION
from soro_node.base_node import answered
from soro_node.waiting import time_until

pytestmark = pytest.mark.ros
OK, ERROR = ord(DiagnosticStatus.OK), ord(DiagnosticStatus.ERROR)  # byte constants in rclpy


class Harness:
    """A bridge and a probe node spun by one executor thread; the probe records diagnostics as they
    arrive."""

    def __init__(self, port, bridge=GenericOutputsBridge, **params):
        overrides = [Parameter('port', value=str(port))] + [
            Parameter(k, value=v) for k, v in params.items()
        ]
        self.bridge = bridge(parameter_overrides=overrides)
        self.probe = rclpy.create_node('probe')
        self.levels = []  # (arrival time, level)
        self.probe.create_subscription(DiagnosticArray, '/diagnostics', self._on_diag, 50)
        self.duty_pub = self.probe.create_publisher(
            Float64MultiArray, '/soro_link_bridge/duty', 10
        )
        self.executor = SingleThreadedExecutor()
        for node in (self.bridge, self.probe):
            self.executor.add_node(node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def _on_diag(self, msg):
        for status in msg.status:
            if status.name == 'soro_link_bridge: link':
                self.levels.append((time.monotonic(), status.level[0]))

    def level_since(self, t, level):
        return any(when >= t and lvl == level for when, lvl in self.levels)

    def publish_duty(self, duty):
        time_until(lambda: self.duty_pub.get_subscription_count() > 0, 2.0)
        self.duty_pub.publish(Float64MultiArray(data=duty))

    def close(self):
        self.executor.shutdown()
        self.thread.join(timeout=5.0)  # the spin must end before its nodes go
        self.bridge.destroy_node()
        self.probe.destroy_node()


@pytest.fixture
def ros():
    rclpy.init()
    yield
    rclpy.try_shutdown()


@pytest.fixture
def rig(ros):
    device = SimulatedDevice(GenericOutputs()).start()
    harness = Harness(device.port)
    yield harness, device
    harness.close()
    device.stop()


def test_lifecycle_gates_commands_and_deactivate_makes_safe(rig):
    bridge, device = rig[0].bridge, rig[1]
    assert not bridge.send_command('set_outputs', duty_pct=(1, 1, 1, 1)), (
        'unconfigured bridge must refuse'
    )
    assert bridge.trigger_configure() == TransitionCallbackReturn.SUCCESS
    assert time_until(lambda: bridge.link.identity is not None, 2.0) is not None
    rig[0].publish_duty([0.5, 0.5, 0.5, 0.5])
    time.sleep(0.3)
    assert device.received == [] and device.model.safe, (
        'configured but inactive bridge must refuse commands'
    )

    assert bridge.trigger_activate() == TransitionCallbackReturn.SUCCESS
    rig[0].publish_duty([0.5, 0.25, 0.0, 1.0])
    assert time_until(lambda: device.model.duty_pct == (50, 25, 0, 100), 1.0) is not None

    assert bridge.trigger_deactivate() == TransitionCallbackReturn.SUCCESS
    assert device.model.safe and device.model.duty_pct == (0, 0, 0, 0)
    rig[0].publish_duty([0.5, 0.5, 0.5, 0.5])
    time.sleep(0.3)
    assert device.model.duty_pct == (0, 0, 0, 0)
    assert bridge.trigger_cleanup() == TransitionCallbackReturn.SUCCESS and bridge.link is None


def test_configured_but_inactive_bridge_publishes_no_data_but_its_diagnostics(ros):
    """A managed node: ~/outputs (the device's telemetry) only once active; /diagnostics in every
    state."""
    bridge = lambda port: GenericOutputsBridge(parameter_overrides=[Parameter('port', value=port)])
    assert (
        inactive_bridge_check(
            bridge, GenericOutputs(), {'/soro_link_bridge/outputs': Float64MultiArray}
        )
        == {}
    )


class ActivateRaises(GenericOutputsBridge):
    def on_activate(self, state):
        raise RuntimeError('the wiring is wrong')


def test_an_exception_in_a_transition_is_logged(ros, capfd):
    """rclpy turns an exception raised in a lifecycle callback into ERROR without a word: a bridge
    logs it with its traceback."""
    bridge = lambda port: ActivateRaises(parameter_overrides=[Parameter('port', value=port)])
    outputs = {'/soro_link_bridge/outputs': Float64MultiArray}
    assert inactive_bridge_check(bridge, GenericOutputs(), outputs) == {
        'activate': 'soro_link_bridge refused activate (ERROR)'
    }
    log = capfd.readouterr().err
    assert 'on_activate raised' in log and 'RuntimeError: the wiring is wrong' in log


def test_a_device_that_never_pauses_does_not_hold_the_bridges_other_callbacks(rig):
    """Handed-over work shares its callback group with the lifecycle services and the diagnostics'
    timer: each piece here hands the next over, a stream the node never catches up with, and a
    timer of that group still fires."""
    bridge, streaming, ticks = rig[0].bridge, threading.Event(), []

    def stream():
        if streaming.is_set():
            bridge.hand_over(stream)

    streaming.set()
    bridge.hand_over(stream)
    timer = bridge.create_timer(0.05, lambda: ticks.append(time.monotonic()))
    try:
        assert time_until(lambda: len(ticks) >= 3, 5.0) is not None
    finally:
        streaming.clear()
        bridge.destroy_timer(timer)


def test_unplug_error_within_half_a_second_and_ok_within_two_after_replug(rig):
    harness, device = rig
    harness.bridge.trigger_configure()
    harness.bridge.trigger_activate()
    assert time_until(lambda: harness.level_since(0, OK), 2.0) is not None, harness.levels
    for _ in range(2):
        pulled = time.monotonic()
        device.unplug()
        assert time_until(lambda: harness.level_since(pulled, ERROR), 0.5) is not None
        time.sleep(1.0)
        back = time.monotonic()
        device.replug()
        assert time_until(lambda: harness.level_since(back, OK), 2.0) is not None
    assert harness.bridge.link.stats.reconnects == 2


def test_a_device_identifying_as_another_protocol_mid_session_is_refused(rig):
    harness, device = rig
    harness.bridge.trigger_configure()
    harness.bridge.trigger_activate()
    assert time_until(lambda: harness.level_since(0, OK), 2.0) is not None
    harness.publish_duty([0.5] * 4)
    assert time_until(lambda: device.model.duty_pct == (50, 50, 50, 50), 1.0) is not None
    forged = time.monotonic()
    device.protocol_version = 9  # it came back as another firmware and says so, unasked
    device.announce()
    assert time_until(lambda: harness.level_since(forged, ERROR), 1.0) is not None, harness.levels
    commands = len(device.received)
    assert not harness.bridge.send_command('set_outputs', duty_pct=(10, 10, 10, 10))
    harness.publish_duty([0.1] * 4)
    # a diagnostics period: still an error, nothing reached the device
    time.sleep(1.2)
    assert harness.levels[-1][1] == ERROR and len(device.received) == commands
    assert (
        f'protocol version 9, this bridge speaks version {PROTOCOL_VERSION}: refused'
        in harness.bridge.link.last_error
    )
    # the right firmware again: it answers the next hello and is ours
    back = time.monotonic()
    device.protocol_version = PROTOCOL_VERSION
    assert time_until(lambda: harness.level_since(back, OK), 2.0) is not None


def test_safe_state_service_and_invalid_commands(rig):
    harness, device = rig
    harness.bridge.trigger_configure()
    harness.bridge.trigger_activate()
    assert time_until(lambda: harness.bridge.link.identity is not None, 2.0) is not None
    harness.publish_duty([0.3, 0.3, 0.3, 0.3])
    assert time_until(lambda: not device.model.safe, 1.0) is not None

    client = harness.probe.create_client(Trigger, '/soro_link_bridge/safe_state')
    answer = answered(client, Trigger.Request(), 3.0)
    assert answer is not None and answer.success and device.model.safe

    for bad in (
        ([0.3, 0.3, 0.3, 0.3], [math.nan, 0.1, 0.1, 0.1]),
        ([0.3] * 4, [1.5, 0, 0, 0]),
        ([0.3] * 4, [0.1]),
    ):
        harness.publish_duty(bad[0])
        assert time_until(lambda: not device.model.safe, 1.0) is not None
        harness.publish_duty(bad[1])
        assert time_until(lambda: device.model.safe, 1.0) is not None, (
            f'{bad[1]} must put the device in its safe state'
        )


def test_invalid_parameters_are_refused_by_name(ros):
    with SimulatedDevice(GenericOutputs()) as device:
        harness = Harness(device.port, heartbeat_period_s=-0.5)
        try:
            assert harness.bridge.trigger_configure() == TransitionCallbackReturn.FAILURE
            result = harness.bridge.set_parameters([Parameter('heartbeat_period_s', value=0.05)])[
                0
            ]
            assert result.successful
            result = harness.bridge.set_parameters([Parameter('baud', value=12)])[0]
            assert (
                not result.successful
                and result.reason == 'parameter baud = 12: allowed range is [1200, 4000000]'
            )
            result = harness.bridge.set_parameters([Parameter('stale_timeout_s', value=math.inf)])[
                0
            ]
            assert (
                not result.successful
                and 'stale_timeout_s' in result.reason
                and 'finite' in result.reason
            )
            assert harness.bridge.trigger_configure() == TransitionCallbackReturn.SUCCESS
        finally:
            harness.close()


class ThreadNotingBridge(GenericOutputsBridge):
    """The generic bridge, noting the thread that handles (and publishes) each device message."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.threads = []

    def on_device_message(self, message):
        self.threads.append(threading.get_ident())
        super().on_device_message(message)


def test_telemetry_is_published_from_the_executor_not_the_links_reader_thread(ros):
    """The link's reader also answers the device's heartbeats: publishing (which may wait on DDS)
    is the executor's, for every bridge (issue 27: the snake stalled at 100 Hz)."""
    with SimulatedDevice(GenericOutputs()) as device:
        harness = Harness(device.port, bridge=ThreadNotingBridge)
        try:
            assert harness.bridge.trigger_configure() == TransitionCallbackReturn.SUCCESS
            assert harness.bridge.trigger_activate() == TransitionCallbackReturn.SUCCESS
            assert time_until(lambda: len(harness.bridge.threads) >= 10, 5.0) is not None
            threads = set(harness.bridge.threads)
            assert threads == {harness.thread.ident}, 'telemetry handled off the executor'
        finally:
            harness.close()


def test_a_bridge_in_a_namespace_names_it_in_its_diagnostics(ros):
    """/diagnostics is one topic for the whole domain: two robots' pom_controller once both said
    'pom_controller: link', told apart only by the port in its values (the real Jazzy launch)."""
    for namespace, name in (('r1', 'r1/soro_link_bridge: link'), ('', 'soro_link_bridge: link')):
        bridge = GenericOutputsBridge(
            namespace=namespace, parameter_overrides=[Parameter('port', value='/dev/ttyUSB9')]
        )
        sent = []
        bridge.diagnostics_pub.publish = sent.append
        bridge.publish_diagnostics()
        bridge.destroy_node()
        assert [status.name for status in sent[0].status] == [name]


def test_a_transition_the_state_does_not_have_is_answered_false(rig):
    """activate while active, configure twice: rclpy raised inside the change_state service, and
    its client (ros2 lifecycle set) waited for ever (the hostile pass: 15 s without an answer)."""
    harness, _ = rig
    client = harness.probe.create_client(ChangeState, '/soro_link_bridge/change_state')
    assert client.wait_for_service(timeout_sec=5.0)

    def change(transition_id):
        request = ChangeState.Request()
        request.transition.id = transition_id
        future = client.call_async(request)
        assert time_until(future.done, 5.0) is not None, transition_id
        return future.result().success

    assert change(Transition.TRANSITION_ACTIVATE) is False  # unconfigured
    assert change(Transition.TRANSITION_CONFIGURE) is True
    assert change(Transition.TRANSITION_CONFIGURE) is False
    assert change(Transition.TRANSITION_ACTIVATE) is True
    assert change(Transition.TRANSITION_ACTIVATE) is False
    assert change(Transition.TRANSITION_DEACTIVATE) is True


def test_a_flood_of_invalid_duties_keeps_the_board_safe_without_a_command_each(rig):
    """886 invalid ~/duty in 3 s gave 886 ERROR lines and as many safe-state commands on the link
    (the hostile pass): the board is put safe once, and the line is throttled."""
    harness, device = rig
    bridge = harness.bridge
    assert bridge.trigger_configure() == TransitionCallbackReturn.SUCCESS
    assert time_until(lambda: bridge.link.identity is not None, 5.0) is not None
    assert bridge.trigger_activate() == TransitionCallbackReturn.SUCCESS
    harness.publish_duty([0.5, 0.25, 0.0, 1.0])
    assert time_until(lambda: device.model.duty_pct == (50, 25, 0, 100), 2.0) is not None
    forced, force = [], bridge.force_safe_state
    bridge.force_safe_state = lambda reason: forced.append(reason) or force(reason)
    for k in range(300):
        harness.duty_pub.publish(Float64MultiArray(data=[2.0, 0.0, 0.0, float(k)]))
        time.sleep(0.003)
    time.sleep(0.5)
    # once, or again when an ack was slow under load (before: one for each of the 300)
    assert 1 <= len(forced) <= 5 and set(forced) == {'invalid duty command'}, len(forced)
    assert device.model.safe and device.model.duty_pct == (0, 0, 0, 0)


def test_the_safe_state_service_of_an_unconfigured_bridge_says_why(rig):
    """It logged "'NoneType' object has no attribute 'safe_state'" (the hostile pass)."""
    harness, _ = rig
    client = harness.probe.create_client(Trigger, '/soro_link_bridge/safe_state')
    answer = answered(client, Trigger.Request(), 3.0)
    assert answer is not None and not answer.success
    assert answer.message == 'the bridge is not configured: it has no link to the device'
    assert harness.bridge.force_safe_state('test') is False
