"""Command-line entry points for offline work: ``terresoro-synthesize``, ``terresoro-sweep``,
``terresoro-explore``.

Units as in the weights file and the paper: mm, degrees; α, β, γ and ε in those units. Every
refusal is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from soro_node.arguments import (
    CommandParser,
    add_option,
    checked,
    cores,
    ends_on_ctrl_c,
    interruptible,
    refuse,
    worker_count,
)
from soro_node.params import ParamSpec, named
from terresoro_gait.digraph import GaitError, LimbDigraph
from terresoro_gait.explore import eulerian_rounds
from terresoro_gait.kinematics import cycle_motion, predicted_speeds
from terresoro_gait.objective import MAX_COEFFICIENT
from terresoro_gait.parameters import PAPER_TAU_S, ROBOT
from terresoro_gait.sweep import LHS_SAMPLES, MAX_SAMPLES, lhs_sweep
from terresoro_gait.synthesis import (
    AUTO_CPSAT_STATES,
    BACKENDS,
    MAX_ITERATIONS,
    MAX_K_BEST,
    GaitProblem,
    Objective,
    SynthesisInfeasible,
)
from terresoro_gait.weights import EdgeWeights, WeightsError, read_csv


def _numbers(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(','))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a comma-separated list of numbers'
        ) from None


def _limbs(text: str) -> tuple[int, ...]:
    try:
        limbs = tuple(int(x) for x in text.split(',') if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a comma-separated list of limb numbers'
        ) from None
    if len(set(limbs)) != len(limbs):
        raise argparse.ArgumentTypeError(f'{text}: a limb is named twice')
    return limbs


# What each command accepts, refused in one line before any work (soro_node.arguments)
BETA = ParamSpec('beta', 0.0, 'variance penalty β', 0.0, MAX_COEFFICIENT)
GAMMA = ParamSpec('gamma', 0.0, 'length penalty γ, per primitive', 0.0, MAX_COEFFICIENT)
EPS = ParamSpec('eps', 5.0, 'ε_θ (deg) for translation, ε_t (mm) for rotation', 0.0)
K = ParamSpec('k', 1, 'the k best gaits, best first', 1, MAX_K_BEST)
SAMPLES = ParamSpec('samples', LHS_SAMPLES, 'N, α samples', 1, MAX_SAMPLES)
SEED = ParamSpec('seed', 0, 'seed of the random draws', 0, 2**31 - 1)
ITERATIONS = ParamSpec('iterations', MAX_ITERATIONS, 'L, cut-loop iterations per α', 1, 1000)
WORKERS = ParamSpec('workers', cores(), 'processes; default: one per core', 1, 256)
LIMBS = ParamSpec('limbs', 3, '3 (TerreSoRo-III) or 4 (TerreSoRo-IV)', 1, 8)
ROUNDS = ParamSpec('rounds', 5, 'Eulerian circuits; the paper uses 5', 1, 1000)
TAU = named(ROBOT, 'tau_s')


def _problem_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        '--weights', required=True, help='weights CSV (from,to,px_mm,py_mm,theta_deg,sp_mm2,...)'
    )
    parser.add_argument('--goal', required=True, choices=('translation', 'rotation'))
    add_option(parser, '--beta', BETA)
    add_option(parser, '--gamma', GAMMA)
    add_option(parser, '--eps', EPS, required=True, default=None)
    parser.add_argument(
        '--lost-limbs', type=_limbs, default=(), help='failed limbs, e.g. 1,4 (stay uncurled)'
    )


def gait_record(weights: EdgeWeights, cycle: tuple[int, ...], cost: float) -> dict:
    """A gait as the commands print it: its net motion composed in SE(2) from its first (smallest)
    vertex."""
    p, theta = cycle_motion(weights, cycle)
    return {
        'vertices': list(cycle),
        'cost': cost,
        'px_mm': float(p[0]),
        'py_mm': float(p[1]),
        'theta_deg': float(theta),
    }


def _run(main, argv, prog: str) -> int:
    if argv is None:
        # what CommandParser does for a command line; argv is read here instead
        interruptible()
    argv = list(sys.argv[1:] if argv is None else argv)
    # argparse takes '-1,0' for an option; '--alpha=-1,0' is what it understands
    for i, token in enumerate(argv[:-1]):
        if token == '--alpha' and argv[i + 1].startswith('-'):
            argv[i : i + 2] = [f'--alpha={argv[i + 1]}']
            break
    try:
        return ends_on_ctrl_c(prog)(main)(argv)
    except (WeightsError, SynthesisInfeasible, GaitError, ValueError) as error:
        return refuse(prog, error)


def _progress(found: int, k: int) -> None:
    print(
        f'\rterresoro-synthesize: {found}/{k} gaits',
        end='\n' if found == k else '',
        file=sys.stderr,
        flush=True,
    )


def _synthesize(argv) -> int:
    parser = CommandParser(
        prog='terresoro-synthesize', description='exact gait synthesis, BILP (28)/(29)'
    )
    _problem_arguments(parser)
    parser.add_argument(
        '--alpha', type=_numbers, required=True, help='α: AX,AY for translation, A for rotation'
    )
    add_option(parser, '--k', K)
    parser.add_argument(
        '--backend',
        choices=BACKENDS,
        default='auto',
        help='exact solver: HiGHS BILP with cuts, CP-SAT circuit, or auto '
        '(CP-SAT from '
        f'{AUTO_CPSAT_STATES} states up)',
    )
    parser.add_argument('--json', action='store_true', help='print JSON (the default output)')
    args = parser.parse_args(argv)
    weights = read_csv(args.weights)
    problem = GaitProblem(weights, LimbDigraph(weights.n_limbs, args.lost_limbs), args.backend)
    objective = Objective(args.goal, args.alpha, args.beta, args.gamma, args.eps)
    solutions = problem.k_best(objective, args.k, progress=_progress if args.k > 1 else None)
    gaits = [dict(gait_record(weights, s.cycle, s.cost), solver=s.backend) for s in solutions]
    print(json.dumps({'gaits': gaits}))
    return 0


def _sweep(argv) -> int:
    parser = CommandParser(
        prog='terresoro-sweep', description='Latin-hypercube sweep of α (paper V-B)'
    )
    _problem_arguments(parser)
    add_option(parser, '--samples', SAMPLES)
    add_option(parser, '--iterations', ITERATIONS)
    add_option(parser, '--seed', SEED)
    add_option(parser, '--workers', WORKERS)
    parser.add_argument(
        '--tau',
        type=checked(TAU),
        default=None,
        help='primitive duration τ (s) for speeds, '
        f"{TAU.allowed_range}; default the paper's: 0.55 s for 3 "
        'limbs, 0.45 s for 4',
    )
    args = parser.parse_args(argv)
    weights = read_csv(args.weights)
    tau = PAPER_TAU_S.get(weights.n_limbs, PAPER_TAU_S[3]) if args.tau is None else args.tau
    problem = GaitProblem(weights, LimbDigraph(weights.n_limbs, args.lost_limbs))
    result = lhs_sweep(
        problem,
        args.goal,
        args.beta,
        args.gamma,
        args.eps,
        args.samples,
        args.iterations,
        args.seed,
        worker_count(args.workers, parser.prog, '--workers'),
    )
    print(
        f'{"gait":<40} {"hits":>4} {"px_mm":>8} {"py_mm":>8} {"theta_deg":>9} {"mm/s":>7} '
        f'{"deg/s":>7}'
    )
    for gait, alphas in zip(result.gaits, result.alphas):
        g = gait_record(weights, gait.cycle, gait.cost)
        speed, yaw_rate = predicted_speeds(
            (g['px_mm'], g['py_mm']), g['theta_deg'], len(gait.cycle), tau
        )
        print(
            f'{str(g["vertices"]):<40} {len(alphas):>4} {g["px_mm"]:>8.2f} {g["py_mm"]:>8.2f} '
            f'{g["theta_deg"]:>9.2f} {speed:>7.2f} {yaw_rate:>7.2f}'
        )
    print(
        f'{len(result.gaits)} distinct gaits from {args.samples} α samples; '
        f'{result.unresolved} without a single '
        f'cycle within {args.iterations} iterations',
        file=sys.stderr,
    )
    return 0


# 50 rounds of 8 limbs' 65,280 moves; 1,000 of them would be 65 million (gigabytes)
MAX_EXPLORED_MOVES = 5_000_000


def _explore(argv) -> int:
    parser = CommandParser(
        prog='terresoro-explore', description='randomized Eulerian exploration (Alg. 1)'
    )
    add_option(parser, '--limbs', LIMBS, required=True, default=None)
    add_option(parser, '--rounds', ROUNDS)
    add_option(
        parser,
        '--seed',
        SEED,
        default=None,
        help=f'seed of the rounds ({SEED.allowed_range}; default: a fresh one)',
    )
    parser.add_argument('--lost-limbs', type=_limbs, default=())
    args = parser.parse_args(argv)
    graph = LimbDigraph(args.limbs, args.lost_limbs)
    if graph.m * args.rounds > MAX_EXPLORED_MOVES:
        raise ValueError(
            f'{args.rounds} rounds of {graph.m} moves: {graph.m * args.rounds:,} is more than '
            f'the {MAX_EXPLORED_MOVES:,} an exploration prints (fewer rounds or limbs)'
        )
    edges = eulerian_rounds(graph, args.rounds, args.seed)
    states = [edges[0][0]] + [j for _, j in edges] if edges else []
    print(' '.join(map(str, states)))
    print(f'{len(edges)} primitives ({args.rounds} rounds)', file=sys.stderr)
    return 0


def synthesize_main(argv: list[str] | None = None) -> int:
    """``terresoro-synthesize``: exact gait synthesis, BILP (28)/(29); the exit code (2: a
    refusal)."""
    return _run(_synthesize, argv, 'terresoro-synthesize')


def sweep_main(argv: list[str] | None = None) -> int:
    """``terresoro-sweep``: the Latin-hypercube sweep of α (paper V-B); the exit code (2: a
    refusal)."""
    return _run(_sweep, argv, 'terresoro-sweep')


def explore_main(argv: list[str] | None = None) -> int:
    """``terresoro-explore``: the states of randomized Eulerian rounds (Alg. 1) on stdout; the exit
    code (2: a refusal)."""
    return _run(_explore, argv, 'terresoro-explore')
