"""``TerreSoroCommander``: blocking calls to the TerreSoRo nodes for scripts and the demo (in the manner of
nav2_simple_commander): learn a substrate, synthesize gaits (for one α, or the paper's sweep of α), execute one.
Each call returns the action result or service response, or raises CommanderError with the reason.

    rclpy.init()
    robot = TerreSoroCommander()
    robot.learn_edges(rounds=5, seed=1)
    gait = robot.synthesize('translation', alpha=[-1.0, 0.0], eps=0.05).gaits[0]
    robot.execute_gait(gait.vertices, cycles=20)
"""
from __future__ import annotations

import threading

import rclpy
from rclpy.action import ActionClient
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from soro_interfaces.action import ExecuteGait, LearnEdges, SweepGaits
from soro_interfaces.srv import SynthesizeGait

from terresoro_gait.waiting import WaitTimeout, wait_for


class CommanderError(RuntimeError):
    """A server that is not there, a goal that was rejected or failed; the message says which and why."""


class TerreSoroCommander(Node):
    def __init__(self, executor: str = '/terresoro_executor', learner: str = '/terresoro_learner',
                 synthesis: str = '/terresoro_synthesis', **kwargs):
        super().__init__('terresoro_commander', **kwargs)
        self.learn_client = ActionClient(self, LearnEdges, f'{learner}/learn_edges')
        self.gait_client = ActionClient(self, ExecuteGait, f'{executor}/execute_gait')
        self.synthesis_client = self.create_client(SynthesizeGait, f'{synthesis}/synthesize')
        self.sweep_client = ActionClient(self, SweepGaits, f'{synthesis}/sweep')
        self._executor = SingleThreadedExecutor()
        self._executor.add_node(self)
        self._spinner = threading.Thread(target=self._executor.spin, daemon=True)
        self._spinner.start()

    def learn_edges(self, rounds: int = 5, seed: int = -1, weights_file: str = '', timeout_s: float = 3600.0,
                    on_feedback=None) -> LearnEdges.Result:
        goal = LearnEdges.Goal(rounds=rounds, seed=seed, weights_file=weights_file)
        return self._action(self.learn_client, goal, timeout_s, on_feedback)

    def execute_gait(self, vertices, cycles: int, timeout_s: float = 3600.0, on_feedback=None) -> ExecuteGait.Result:
        goal = ExecuteGait.Goal(vertices=[int(v) for v in vertices], cycles=cycles)
        return self._action(self.gait_client, goal, timeout_s, on_feedback)

    def synthesize(self, goal: str, alpha, beta: float = 0.0, gamma: float = 0.0, eps: float = 0.05,
                   lost_limbs=(), k: int = 1, timeout_s: float = 60.0) -> SynthesizeGait.Response:
        if not self.synthesis_client.wait_for_service(timeout_sec=min(timeout_s, 10.0)):
            raise CommanderError(f'no service {self.synthesis_client.srv_name}')
        request = SynthesizeGait.Request(goal=goal, alpha=[float(a) for a in alpha], beta=float(beta),
                                         gamma=float(gamma), eps=float(eps), lost_limbs=list(lost_limbs), k=k)
        response = _wait(self.synthesis_client.call_async(request), timeout_s, 'synthesis')
        if not response.success:
            raise CommanderError(f'synthesis: {response.message}')
        return response

    def sweep_gaits(self, goal: str, beta: float = 0.0, gamma: float = 0.0, eps: float = 0.05, lost_limbs=(),
                    samples: int = 0, seed: int = 0, timeout_s: float = 600.0, on_feedback=None) -> SweepGaits.Result:
        request = SweepGaits.Goal(goal=goal, beta=float(beta), gamma=float(gamma), eps=float(eps),
                                  lost_limbs=list(lost_limbs), samples=samples, seed=seed)
        return self._action(self.sweep_client, request, timeout_s, on_feedback)

    def close(self) -> None:
        self._executor.shutdown()
        self._spinner.join(timeout=5.0)
        self.destroy_node()

    def _action(self, client: ActionClient, goal, timeout_s: float, on_feedback):
        name = type(goal).__name__.removesuffix('_Goal')
        if not client.wait_for_server(timeout_sec=min(timeout_s, 10.0)):
            raise CommanderError(f'no {name} action server')
        handle = _wait(client.send_goal_async(goal, feedback_callback=lambda f: on_feedback and on_feedback(
            f.feedback)), 10.0, name)
        if not handle.accepted:
            raise CommanderError(f'{name} goal rejected')
        result = _wait(handle.get_result_async(), timeout_s, name).result
        if not result.success:
            raise CommanderError(f'{name}: {result.message}')
        return result


def _wait(future, timeout_s: float, what: str):
    try:
        return wait_for(future, timeout_s)
    except WaitTimeout as error:
        raise CommanderError(f'{what}: {error}') from None


def init() -> None:
    """rclpy.init() for scripts that use only the commander (they need not import rclpy themselves)."""
    if not rclpy.ok():
        rclpy.init()


def shutdown() -> None:
    rclpy.try_shutdown()
