"""For robot packages' tests of their bridge node as a managed node: the bridge in this process on
its own executor thread, driven through its transitions, and a Probe outside it that counts what
it publishes. One check that every bridge's tests share: configured but not activated, a bridge
whose device streams telemetry publishes no data, while its diagnostics go on; once active, it
does.

The transitions are the bridge's own (``trigger_configure``, ``trigger_activate``), as its
autostart takes them, not requests to its ``~/change_state`` from the probe: in about one full
test run in two here, such a request from a node of the same process was never delivered, while
the bridge's timers and the probe's subscriptions went on (rclpy on Fast DDS, after earlier rclpy
contexts in the process; the cause is not known, the symptom is ros2/rclcpp#863's).
``~/change_state`` as ``ros2 lifecycle set`` sends it is driven across processes by the TerreSoRo
firmware test (``Probe.change_state``)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.executors import MultiThreadedExecutor
from rclpy.lifecycle import TransitionCallbackReturn

from soro_link.bridge_node import BridgeNode
from soro_link.device import DeviceModel, SimulatedDevice
from soro_node.probe_node import Probe
from soro_node.waiting import poll

DIAGNOSTICS = '/diagnostics'
# frames from the device (its telemetry among them) before an inactive silence counts
FRAMES_RECEIVED = 20


def inactive_bridge_check(
    make_bridge: Callable[[str], BridgeNode],
    model: DeviceModel,
    data: dict,
    timeout_s: float = 10.0,
) -> dict[str, str]:
    """The bridge that ``make_bridge(port)`` builds (rclpy initialised, autostart off), on
    ``model`` behind a pseudo-terminal, driven through configure, then activate, while the probe
    watches its ``data`` topics ({topic: type}). Returns what went wrong, by step; empty when the
    bridge is a well-behaved managed node. Initialises rclpy for the check (and shuts it down
    after) unless the caller already did."""
    owns_rclpy = not rclpy.ok()
    if owns_rclpy:
        rclpy.init()
    try:
        with SimulatedDevice(model) as device:
            bridge = make_bridge(str(device.port))
            try:
                return _check(bridge, data, timeout_s)
            finally:
                bridge.destroy_node()
    finally:
        if owns_rclpy:
            rclpy.try_shutdown()


def _check(bridge: BridgeNode, data: dict, timeout_s: float) -> dict[str, str]:
    name = bridge.get_name()
    executor = MultiThreadedExecutor(num_threads=2)
    executor.add_node(bridge)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    probe = Probe(f'{name}_lifecycle_probe', {**data, DIAGNOSTICS: DiagnosticArray})
    faults = {}
    try:
        # every data publisher is matched before configure, so nothing published inactive could be
        # missed
        if not poll(lambda: all(bridge.count_subscribers(topic) for topic in data), timeout_s):
            return {
                'discovery': f'the probe did not match every data topic of {name}: {sorted(data)}'
            }
        configured = bridge.trigger_configure()
        if configured != TransitionCallbackReturn.SUCCESS:
            return {'configure': f'{name} refused configure ({configured.name})'}
        received = lambda: bridge.link is not None and bridge.link.stats.frames_rx  # noqa: E731
        if not poll(lambda: received() >= FRAMES_RECEIVED, timeout_s):
            return {'telemetry': f'{name} received {received()} frames within {timeout_s} s'}
        diagnostics = len(probe.messages[DIAGNOSTICS])
        if not poll(lambda: _own_diagnostics(probe, name, diagnostics) >= 2, timeout_s):
            faults['diagnostics'] = f'{name} sent no diagnostics while inactive'
        inactive = {topic: len(probe.messages[topic]) for topic in data if probe.messages[topic]}
        if inactive:
            faults['inactive'] = f'{name} published data while inactive: {inactive}'
        activated = bridge.trigger_activate()
        if activated != TransitionCallbackReturn.SUCCESS:
            return {**faults, 'activate': f'{name} refused activate ({activated.name})'}
        if not poll(lambda: all(probe.messages[topic] for topic in data), timeout_s):
            silent = sorted(topic for topic in data if not probe.messages[topic])
            faults['active'] = f'{name} active publishes nothing on {silent}'
        return faults
    finally:
        probe.close()
        executor.shutdown()
        spinner.join(timeout=5.0)


def _own_diagnostics(probe: Probe, name: str, since: int) -> int:
    """How many of the diagnostic arrays after the first ``since`` carry ``name``'s link status."""
    return sum(
        any(status.name == f'{name}: link' for status in msg.status)
        for msg in probe.messages[DIAGNOSTICS][since:]
    )
