"""For robot packages' tests of their bridge node as a managed node: the bridge in this process on
its own executor thread, a Probe outside it that drives its lifecycle through ``~/change_state``
(as ``ros2 lifecycle set`` does) and counts what it publishes. One check that every bridge's tests
share: configured but not activated, a bridge whose device streams telemetry publishes no data,
while its diagnostics go on; once active, it does."""

from __future__ import annotations

import faulthandler
import threading
from collections.abc import Callable

import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import State, Transition
from rclpy.executors import MultiThreadedExecutor

from soro_link.bridge_node import BridgeNode
from soro_link.device import DeviceModel, SimulatedDevice
from soro_node.probe_node import Probe
from soro_node.waiting import poll

DIAGNOSTICS = '/diagnostics'
STATE_LABELS = {
    State.PRIMARY_STATE_UNCONFIGURED: 'unconfigured',
    State.PRIMARY_STATE_INACTIVE: 'inactive',
    State.PRIMARY_STATE_ACTIVE: 'active',
    State.PRIMARY_STATE_FINALIZED: 'finalized',
}
# how long the state a refused transition left is asked for
REFUSED_STATE_WAIT_S = 2.0
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
        before = len(probe.messages[DIAGNOSTICS])
        if not probe.change_state(name, Transition.TRANSITION_CONFIGURE, timeout_s):
            return {'configure': _refused(probe, name, 'configure', before)}
        received = lambda: bridge.link is not None and bridge.link.stats.frames_rx  # noqa: E731
        if not poll(lambda: received() >= FRAMES_RECEIVED, timeout_s):
            return {'telemetry': f'{name} received {received()} frames within {timeout_s} s'}
        diagnostics = len(probe.messages[DIAGNOSTICS])
        if not poll(lambda: _own_diagnostics(probe, name, diagnostics) >= 2, timeout_s):
            faults['diagnostics'] = f'{name} sent no diagnostics while inactive'
        inactive = {topic: len(probe.messages[topic]) for topic in data if probe.messages[topic]}
        if inactive:
            faults['inactive'] = f'{name} published data while inactive: {inactive}'
        before = len(probe.messages[DIAGNOSTICS])
        if not probe.change_state(name, Transition.TRANSITION_ACTIVATE, timeout_s):
            return {**faults, 'activate': _refused(probe, name, 'activate', before)}
        if not poll(lambda: all(probe.messages[topic] for topic in data), timeout_s):
            silent = sorted(topic for topic in data if not probe.messages[topic])
            faults['active'] = f'{name} active publishes nothing on {silent}'
        return faults
    finally:
        probe.close()
        executor.shutdown()
        spinner.join(timeout=5.0)


def _refused(probe: Probe, name: str, transition: str, diagnostics: int) -> str:
    """What a refused ``transition`` left ``name`` in: inactive (FAILURE), unconfigured (an
    exception, which the bridge logs), or no answer at all; then also whether its 1 Hz diagnostics
    went on since the request (the first ``diagnostics`` arrays came before it)."""
    state = probe.lifecycle_state(name, REFUSED_STATE_WAIT_S)
    if state is not None:
        return f'{name} refused {transition} (now {STATE_LABELS.get(state, state)})'
    # the bridge answers nothing: where each of this process's threads is, for the test's log
    faulthandler.dump_traceback(all_threads=True)
    since = _own_diagnostics(probe, name, diagnostics)
    return (
        f'{name} refused {transition} (no answer to get_state; {since} diagnostics of its own '
        'since the request)'
    )


def _own_diagnostics(probe: Probe, name: str, since: int) -> int:
    """How many of the diagnostic arrays after the first ``since`` carry ``name``'s link status."""
    return sum(
        any(status.name == f'{name}: link' for status in msg.status)
        for msg in probe.messages[DIAGNOSTICS][since:]
    )
