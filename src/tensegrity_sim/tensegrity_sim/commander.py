"""``TensegrityCommander``: blocking calls to ``tensegrity_sim`` (the live simulator) for scripts,
in the manner of nav2_simple_commander. Each call returns the service response or action result,
or raises CommanderError with the node's reason.

    from soro_node import commander
    commander.init()
    sim = TensegrityCommander()
    sim.reset(psi_rad=math.radians(60.0))
    result = sim.sweep(math.radians(30.0), math.radians(75.0), math.radians(1.0))
"""

from __future__ import annotations

import math

from geometry_msgs.msg import Pose
from soro_interfaces.action import PsiSweep
from soro_interfaces.srv import ResetTensegrity, SetRestLengths

from soro_node.base_node import ActionClient
from soro_node.commander import Commander


class TensegrityCommander(Commander):
    """Blocking calls to the reset and rest-length services and the ψ sweep of ``sim`` (the
    node's name)."""

    def __init__(self, sim: str = '/tensegrity_sim', **kwargs):
        super().__init__('tensegrity_commander', **kwargs)
        self.reset_client = self.service_client(ResetTensegrity, f'{sim}/reset')
        self.rest_client = self.service_client(SetRestLengths, f'{sim}/set_rest_lengths')
        self.sweep_client = ActionClient(self, PsiSweep, f'{sim}/sweep')

    def reset(
        self, psi_rad: float = math.nan, rod_poses: list[Pose] = (), timeout_s: float = 10.0
    ) -> ResetTensegrity.Response:
        """The structure at rest again, its rods tilted ``psi_rad`` in (0, π/2) from the vertical,
        or at the three ``rod_poses`` (world frame) when given; the simulated clock restarts at
        0."""
        request = ResetTensegrity.Request(psi=float(psi_rad), rod_poses=list(rod_poses))
        return self.call_service(self.reset_client, request, timeout_s, 'reset')

    def set_rest_lengths(self, rest_lengths_m, timeout_s: float = 10.0) -> SetRestLengths.Response:
        """The nine cables' rest lengths (m) set on the running structure."""
        request = SetRestLengths.Request(rest_lengths=[float(v) for v in rest_lengths_m])
        return self.call_service(self.rest_client, request, timeout_s, 'set rest lengths')

    def sweep(
        self,
        psi_start_rad: float,
        psi_stop_rad: float,
        psi_step_rad: float,
        timeout_s: float = 600.0,
        on_feedback=None,
    ) -> PsiSweep.Result:
        """Section III's release sweep over ψ from ``psi_start_rad`` to ``psi_stop_rad`` in steps
        of ``psi_step_rad``: the ψ thresholds and each angle's mode."""
        goal = PsiSweep.Goal(
            psi_start=float(psi_start_rad),
            psi_stop=float(psi_stop_rad),
            psi_step=float(psi_step_rad),
        )
        return self.run_action(self.sweep_client, goal, timeout_s, on_feedback)
