"""``terresoro_synthesis``: exact gait synthesis as a service (paper V-B; spec 5.3-5.8).

``~/synthesize`` (SynthesizeGait) solves BILP (28) or (29) on the weights in ``weights_file``, read
at every request so a fresh learning run is picked up, pruned for ``lost_limbs`` without
re-learning (spec 5.8). The request is SI and converted to the file's mm and degrees
(units.objective_from_si); gaits come back best first with their predicted motion per cycle. The
action ``~/sweep`` (SweepGaits) runs the paper's Latin-hypercube sweep of α on one process per
core, with feedback after every arc of α and cancellation between arcs. Every refusal is ``success
= false`` with a one-line reason.
"""

from __future__ import annotations

import os
import sys

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from soro_interfaces.action import SweepGaits
from soro_interfaces.srv import SynthesizeGait

from soro_node.base_node import (
    action_server,
    answering_service,
    declare_parameters,
    progress_reporter,
    run_goal,
    run_node,
)
from terresoro_gait import messages
from terresoro_gait.digraph import GaitError, LimbDigraph
from terresoro_gait.kinematics import cycle_motion
from terresoro_gait.parameters import SYNTHESIS
from terresoro_gait.sweep import LHS_SAMPLES, MAX_SAMPLES, lhs_sweep
from terresoro_gait.synthesis import GaitProblem, SynthesisInfeasible
from terresoro_gait.units import cost_scale, objective_from_si
from terresoro_gait.weights import EdgeWeights, WeightsError, read_for_robot

REFUSED = (WeightsError, SynthesisInfeasible, GaitError, ValueError)


class TerreSoroSynthesis(Node):
    """``terresoro_synthesis``: the ``~/synthesize`` service and the ``~/sweep`` action on the
    learned weights."""

    def __init__(self, **kwargs):
        super().__init__('terresoro_synthesis', **kwargs)
        self.settings = declare_parameters(self, SYNTHESIS)
        self.settings.checked()  # a bad value refuses the start
        answering_service(self, SynthesizeGait, '~/synthesize', self._synthesize)
        self.sweep_server = action_server(
            self,
            SweepGaits,
            '~/sweep',
            self._sweep,
            callback_group=ReentrantCallbackGroup(),  # a sweep runs beside ~/synthesize
        )

    def _synthesize(self, request, response):
        try:
            response.gaits = self._gaits(request)
            response.success = True
            response.message = f'{len(response.gaits)} gait(s)'
        except REFUSED as error:
            response.success, response.message = False, str(error)
            self.get_logger().warning(f'synthesis refused: {error}')
        return response

    def _gaits(self, request) -> list:
        weights = self._weights()
        objective = objective_from_si(
            request.goal, request.alpha, request.beta, request.gamma, request.eps
        )
        problem = self._problem(weights, request.lost_limbs)
        return [
            self._gait_msg(weights, request.goal, s)
            for s in problem.k_best(objective, max(1, request.k))
        ]

    def _sweep(self, goal_handle) -> SweepGaits.Result:
        request, result = goal_handle.request, SweepGaits.Result()
        progress = progress_reporter(
            goal_handle,
            lambda done, total: SweepGaits.Feedback(samples_done=done, samples_total=total),
        )

        def work() -> str:
            weights = self._weights()
            sweep = self._run_sweep(weights, request, progress)
            result.gaits = [self._gait_msg(weights, request.goal, s) for s in sweep.gaits]
            result.hits = [len(alphas) for alphas in sweep.alphas]
            result.alphas = [a for alphas in sweep.alphas for a in alphas[0]]
            result.unresolved = sweep.unresolved
            return f'{len(sweep.gaits)} distinct gait(s) from {sum(result.hits)} samples'

        return run_goal(
            goal_handle, result, work, REFUSED, self.get_logger(), cancelled='sweep cancelled'
        )

    def _run_sweep(self, weights: EdgeWeights, request, progress):
        samples = request.samples or LHS_SAMPLES
        if samples > MAX_SAMPLES:
            raise ValueError(
                f'samples = {samples}: allowed 1 to {MAX_SAMPLES} (0 means {LHS_SAMPLES})'
            )
        size = 2 if request.goal == 'translation' else 1
        objective = objective_from_si(
            request.goal, [0.0] * size, request.beta, request.gamma, request.eps
        )
        problem = self._problem(weights, request.lost_limbs)
        return lhs_sweep(
            problem,
            objective.goal,
            objective.beta,
            objective.gamma,
            objective.eps,
            samples,
            seed=request.seed,
            workers=os.cpu_count() or 1,
            progress=progress,
        )

    def _weights(self) -> EdgeWeights:
        return read_for_robot(self.settings.weights_file, self.settings.n_limbs)

    def _problem(self, weights: EdgeWeights, lost_limbs) -> GaitProblem:
        return GaitProblem(
            weights, LimbDigraph(weights.n_limbs, tuple(int(k) for k in lost_limbs))
        )

    def _gait_msg(self, weights: EdgeWeights, goal: str, solution):
        tau = self.settings.tau_s  # read-only: the executor's τ, fixed at its configure
        return messages.gait_msg(
            solution.cycle,
            solution.cost / cost_scale(goal),
            cycle_motion(weights, solution.cycle),
            tau,
        )


def main(args=None) -> int:
    """Run ``terresoro_synthesis`` until Ctrl-C (two threads: the sweep beside the service); the
    exit code."""
    return run_node(
        TerreSoroSynthesis, 'terresoro_synthesis', lambda: MultiThreadedExecutor(2), args=args
    )


if __name__ == '__main__':
    sys.exit(main())
