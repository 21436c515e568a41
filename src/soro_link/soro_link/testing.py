"""For robot packages' tests of their simulated firmware: the device behind a real pseudo-terminal and the host's
link supervisor connected to it, as a bridge would be. No ROS."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from soro_link.device import DeviceModel, SimulatedDevice
from soro_link.protocol import link_protocol
from soro_link.supervisor import LinkConfig, LinkState, LinkSupervisor
from soro_node.waiting import time_until


class NotConnected(RuntimeError):
    """The link did not reach CONNECTED in time."""


@contextmanager
def linked(model: DeviceModel, telemetry: str, watchdog_ms: int = 300,
           connect_s: float = 3.0) -> Iterator[tuple[SimulatedDevice, LinkSupervisor, list]]:
    """(device, link, messages): ``model`` behind a pseudo-terminal with a firmware watchdog of ``watchdog_ms``,
    a supervisor connected to it speaking the model's schemas, and the list its ``telemetry`` messages arrive in.
    Both are stopped on exit."""
    messages: list = []
    device = SimulatedDevice(model, watchdog_ms=watchdog_ms).start()
    link = LinkSupervisor(LinkConfig(device.port), link_protocol(*model.schemas),
                          on_message=lambda m: m.name == telemetry and messages.append(m))
    link.start()
    try:
        if time_until(lambda: link.state == LinkState.CONNECTED, connect_s) is None:
            raise NotConnected(f'no connection to the simulated {model.device_kind} within {connect_s} s')
        yield device, link, messages
    finally:
        link.stop()
        device.stop()


def unplug_and_replug(device: SimulatedDevice, link: LinkSupervisor, timeout_s: float = 3.0) -> bool:
    """Pull the device's cable and plug it back in: True when the link saw it go and then come back."""
    device.unplug()
    gone = time_until(lambda: link.state == LinkState.DISCONNECTED, timeout_s) is not None
    device.replug()
    return gone and time_until(lambda: link.state == LinkState.CONNECTED, timeout_s) is not None
