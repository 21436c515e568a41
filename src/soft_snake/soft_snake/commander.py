"""``SoftSnakeCommander``: blocking calls to ``soft_snake_driver`` for scripts and the demo (in the
manner of nav2_simple_commander's BasicNavigator). Each call returns the action result or the
service's message, or raises CommanderError with the reason.

    from soro_node import commander
    commander.init()
    snake = SoftSnakeCommander()
    snake.run_gait('undulation', frequency_hz=2.0, beta_rad=2.0944, duration_s=10.0)
"""

from __future__ import annotations

import threading

from soro_interfaces.action import RunGait
from soro_interfaces.msg import LinkStatus
from std_srvs.srv import Trigger

from soro_node.base_node import ActionClient
from soro_node.commander import Commander


class SoftSnakeCommander(Commander):
    """Blocking client of ``soft_snake_driver`` (``driver``: its node name): gaits through
    ``~/run_gait``, the step climb's next wheel through ``~/step_climb_advance``."""

    def __init__(self, driver: str = '/soft_snake_driver', **kwargs):
        super().__init__('soft_snake_commander', **kwargs)
        self.driver = driver
        self.gait_client = ActionClient(self, RunGait, f'{driver}/run_gait')
        self.advance_client = self.service_client(Trigger, f'{driver}/step_climb_advance')

    def run_gait(
        self,
        gait: str,
        frequency_hz: float = 0.0,
        beta_rad: float = 0.0,
        phi: float = 0.0,
        segments: int = 0,
        duration_s: float = 0.0,
        cycles: int = 0,
        timeout_s: float | None = None,
        on_feedback=None,
    ) -> RunGait.Result:
        """Run ``gait`` for ``duration_s`` or ``cycles`` periods; zeros take the driver's
        parameters."""
        goal = RunGait.Goal(
            gait=gait,
            frequency_hz=float(frequency_hz),
            beta_rad=float(beta_rad),
            phi=float(phi),
            segments=segments,
            duration_s=float(duration_s),
            cycles=cycles,
        )
        timeout = timeout_s if timeout_s is not None else 30.0 + duration_s + 2 * cycles
        return self.run_action(self.gait_client, goal, timeout, on_feedback)

    def wait_connected(self, timeout_s: float = 20.0) -> bool:
        """Whether the driver's link to the head reports CONNECTED (its ``~/link_status``, once a
        second) within ``timeout_s``: a gait sent while it still shakes hands is aborted, and a
        simulated head with a step to compile takes seconds to answer."""
        connected = threading.Event()

        def seen(status: LinkStatus) -> None:
            if status.state == LinkStatus.CONNECTED:
                connected.set()

        subscription = self.create_subscription(LinkStatus, f'{self.driver}/link_status', seen, 10)
        try:
            return connected.wait(timeout_s)
        finally:
            self.destroy_subscription(subscription)

    def advance_row(self, timeout_s: float = 5.0) -> str:
        """The step climb on to the next wheel; the driver's answer."""
        return self.call_service(
            self.advance_client, Trigger.Request(), timeout_s, 'step_climb_advance'
        ).message
