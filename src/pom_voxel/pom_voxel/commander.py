"""``PomCommander``: blocking calls to ``pom_controller`` for scripts and the demo (in the manner
of nav2_simple_commander). Each call returns the action result or service response, or raises
CommanderError.

    from soro_node import commander
    commander.init()
    robot = PomCommander()
    robot.execute_gait('tripod', cycles=3, step_period_s=1.0)
"""

from __future__ import annotations

from soro_interfaces.action import ExecuteVoxelGait
from soro_interfaces.srv import ComputeVoxelIK

from soro_node.base_node import ActionClient
from soro_node.commander import Commander


class PomCommander(Commander):
    """Blocking calls to the gait action and IK service of ``controller`` (the node's name)."""

    def __init__(self, controller: str = '/pom_controller', **kwargs):
        super().__init__('pom_commander', **kwargs)
        self.gait_client = ActionClient(self, ExecuteVoxelGait, f'{controller}/execute_gait')
        self.ik_client = self.service_client(ComputeVoxelIK, f'{controller}/inverse_kinematics')

    def execute_gait(
        self,
        gait: str = 'tripod',
        cycles: int = 1,
        step_period_s: float = 0.0,
        reverse: bool = False,
        timeout_s: float = 3600.0,
        on_feedback=None,
    ) -> ExecuteVoxelGait.Result:
        """Walk ``cycles`` cycles of ``gait``, ``step_period_s`` between key poses (0: the
        controller's parameter), backwards if ``reverse``; the action's result, each key pose's
        feedback passed to ``on_feedback``."""
        goal = ExecuteVoxelGait.Goal(
            gait=gait, cycles=cycles, step_period_s=float(step_period_s), reverse=reverse
        )
        return self.run_action(self.gait_client, goal, timeout_s, on_feedback)

    def inverse_kinematics(
        self, effectors, axes, targets_m, timeout_s: float = 10.0
    ) -> ComputeVoxelIK.Response:
        """POM inverse kinematics: one DOF per effector name in ``effectors``, along ``axes`` ('x',
        'y' or 'z') to ``targets_m`` (displacement from rest, m); the response with the strokes
        (m), their saturation and every node's predicted displacement."""
        request = ComputeVoxelIK.Request(
            effectors=list(effectors), axes=list(axes), targets_m=[float(t) for t in targets_m]
        )
        return self.call_service(self.ik_client, request, timeout_s, 'inverse kinematics')
