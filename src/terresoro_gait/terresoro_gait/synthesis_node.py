"""``terresoro_synthesis``: exact gait synthesis as a service (paper V-B; spec 5.3-5.8).

``~/synthesize`` (SynthesizeGait) solves BILP (28) or (29) on the weights in ``weights_file``, read at every
request so a fresh learning run is picked up, pruned for ``lost_limbs`` without re-learning (spec 5.8). The request
is SI and converted to the file's mm and degrees (units.objective_from_si); gaits come back best first with their
predicted motion per cycle. Every refusal is ``success = false`` with a one-line reason.
"""
from __future__ import annotations

import sys

from rclpy.node import Node
from soro_interfaces.srv import SynthesizeGait

from soro_link.bridge_node import declare_parameters, read_parameters, run_node
from terresoro_gait import messages
from terresoro_gait.digraph import GaitError, LimbDigraph
from terresoro_gait.kinematics import cycle_motion
from terresoro_gait.parameters import SYNTHESIS
from terresoro_gait.synthesis import GaitProblem, SynthesisInfeasible
from terresoro_gait.units import cost_scale, objective_from_si
from terresoro_gait.weights import WeightsError, read_csv


class TerreSoroSynthesis(Node):
    def __init__(self, **kwargs):
        super().__init__('terresoro_synthesis', **kwargs)
        declare_parameters(self, SYNTHESIS)
        self.params = read_parameters(self, SYNTHESIS)
        self.create_service(SynthesizeGait, '~/synthesize', self._synthesize)

    def _synthesize(self, request, response):
        try:
            response.gaits = self._gaits(request)
            response.success = True
            response.message = f'{len(response.gaits)} gait(s)'
        except (WeightsError, SynthesisInfeasible, GaitError, ValueError) as error:
            response.success, response.message = False, str(error)
            self.get_logger().warning(f'synthesis refused: {error}')
        return response

    def _gaits(self, request) -> list:
        path = self.get_parameter('weights_file').value
        if not path:
            raise ValueError('no weights_file: learn the substrate first (terresoro_learner ~/learn_edges)')
        weights = read_csv(path)
        if weights.n_limbs != self.params['n_limbs']:
            raise ValueError(f'{path} is for {weights.n_limbs} limbs, the robot has {self.params["n_limbs"]}')
        objective = objective_from_si(request.goal, request.alpha, request.beta, request.gamma, request.eps)
        problem = GaitProblem(weights, LimbDigraph(weights.n_limbs, tuple(int(k) for k in request.lost_limbs)))
        tau = self.get_parameter('tau_s').value
        return [messages.gait_msg(s.cycle, s.cost / cost_scale(request.goal), cycle_motion(weights, s.cycle), tau)
                for s in problem.k_best(objective, max(1, request.k))]


def main(args=None) -> int:
    return run_node(TerreSoroSynthesis, 'terresoro_synthesis', args=args)


if __name__ == '__main__':
    sys.exit(main())
