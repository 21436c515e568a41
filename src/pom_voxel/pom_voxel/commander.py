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
        goal = ExecuteVoxelGait.Goal(
            gait=gait, cycles=cycles, step_period_s=float(step_period_s), reverse=reverse
        )
        return self.run_action(self.gait_client, goal, timeout_s, on_feedback)

    def inverse_kinematics(
        self, effectors, axes, targets_m, timeout_s: float = 10.0
    ) -> ComputeVoxelIK.Response:
        request = ComputeVoxelIK.Request(
            effectors=list(effectors), axes=list(axes), targets_m=[float(t) for t in targets_m]
        )
        return self.call_service(self.ik_client, request, timeout_s, 'inverse kinematics')
