"""``TerreSoroCommander``: blocking calls to the TerreSoRo nodes for scripts and the demo (in the
manner of nav2_simple_commander): learn a substrate, synthesize gaits (for one α, or the paper's
sweep of α), execute one. Each call returns the action result or service response, or raises
CommanderError with the reason.

    from soro_node import commander
    commander.init()
    robot = TerreSoroCommander()
    robot.learn_edges(rounds=5, seed=1)
    gait = robot.synthesize('translation', alpha=[-1.0, 0.0], eps=0.05).gaits[0]
    robot.execute_gait(gait.vertices, cycles=20)
"""

from __future__ import annotations

from soro_interfaces.action import ExecuteGait, ExecuteWalk, LearnEdges, SweepGaits
from soro_interfaces.srv import SynthesizeGait

from soro_node.base_node import ActionClient
from soro_node.commander import Commander


class TerreSoroCommander(Commander):
    """Blocking calls to the actions and services of the ``executor``, ``learner`` and
    ``synthesis`` nodes (their names)."""

    def __init__(
        self,
        executor: str = '/terresoro_executor',
        learner: str = '/terresoro_learner',
        synthesis: str = '/terresoro_synthesis',
        **kwargs,
    ):
        super().__init__('terresoro_commander', **kwargs)
        self.learn_client = ActionClient(self, LearnEdges, f'{learner}/learn_edges')
        self.gait_client = ActionClient(self, ExecuteGait, f'{executor}/execute_gait')
        self.walk_client = ActionClient(self, ExecuteWalk, f'{executor}/execute_walk')
        self.synthesis_client = self.service_client(SynthesizeGait, f'{synthesis}/synthesize')
        self.sweep_client = ActionClient(self, SweepGaits, f'{synthesis}/sweep')

    def learn_edges(
        self,
        rounds: int = 5,
        seed: int = -1,
        weights_file: str = '',
        timeout_s: float = 3600.0,
        on_feedback=None,
    ) -> LearnEdges.Result:
        """Learn the substrate's edge weights in ``rounds`` Eulerian rounds (``seed`` -1: a fresh
        one), written to ``weights_file`` (empty: the learner's parameter); the action's result,
        feedback passed to ``on_feedback``."""
        goal = LearnEdges.Goal(rounds=rounds, seed=seed, weights_file=weights_file)
        return self.run_action(self.learn_client, goal, timeout_s, on_feedback)

    def execute_gait(
        self, vertices, cycles: int, timeout_s: float = 3600.0, on_feedback=None
    ) -> ExecuteGait.Result:
        """Run the simple cycle of states ``vertices`` ``cycles`` times; the action's result,
        feedback passed to ``on_feedback``."""
        goal = ExecuteGait.Goal(vertices=[int(v) for v in vertices], cycles=cycles)
        return self.run_action(self.gait_client, goal, timeout_s, on_feedback)

    def synthesize(
        self,
        goal: str,
        alpha,
        beta: float = 0.0,
        gamma: float = 0.0,
        eps: float = 0.05,
        lost_limbs=(),
        k: int = 1,
        timeout_s: float = 60.0,
    ) -> SynthesizeGait.Response:
        """The ``k`` best gaits for ``goal`` ('translation' or 'rotation') by BILP (28)/(29): α (2
        values or 1), β, γ and the tolerance ε in SI units (m, rad), the states of ``lost_limbs``
        pruned; the service's response."""
        request = SynthesizeGait.Request(
            goal=goal,
            alpha=[float(a) for a in alpha],
            beta=float(beta),
            gamma=float(gamma),
            eps=float(eps),
            lost_limbs=list(lost_limbs),
            k=k,
        )
        return self.call_service(self.synthesis_client, request, timeout_s, 'synthesis')

    def sweep_gaits(
        self,
        goal: str,
        beta: float = 0.0,
        gamma: float = 0.0,
        eps: float = 0.05,
        lost_limbs=(),
        samples: int = 0,
        seed: int = 0,
        timeout_s: float = 600.0,
        on_feedback=None,
    ) -> SweepGaits.Result:
        """The paper's Latin-hypercube sweep of α for ``goal`` (``samples`` 0: the paper's 100), β,
        γ and ε in SI units; the action's result, feedback passed to ``on_feedback``."""
        request = SweepGaits.Goal(
            goal=goal,
            beta=float(beta),
            gamma=float(gamma),
            eps=float(eps),
            lost_limbs=list(lost_limbs),
            samples=samples,
            seed=seed,
        )
        return self.run_action(self.sweep_client, request, timeout_s, on_feedback)
