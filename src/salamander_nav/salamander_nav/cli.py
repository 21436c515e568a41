"""Command-line entry points of salamander_nav, every refusal one line and exit code 2:

- ``salamander-plan``: plan on a scene file with CHOMP or lattice A*, as the thesis's Matlab did
  offline (§3.4): the path, its headings, maximum curvature, planning time and effort as JSON,
  optionally a Fig. 3.30-style plot. A failed plan is written too (with its reason and any partial
  path) and exits 1.
"""

from __future__ import annotations

import json
import math
import resource
import sys

from salamander_nav import planning, plots
from salamander_nav.parameters import PLANNER
from salamander_nav.planning import paths
from salamander_nav.scene import SceneError
from soro_analysis.plotting import save
from soro_node.arguments import (
    STDOUT,
    CommandParser,
    add_option,
    ends_on_ctrl_c,
    output_dir,
    output_file,
    refuse,
    write_output,
)
from soro_node.params import ParamSpec, named

EXIT_NO_PLAN = 1
SEED = ParamSpec('seed', 0, "seed of CHOMP's restarts", 0, 2**63 - 1)


def _parser() -> CommandParser:
    parser = CommandParser(
        prog='salamander-plan', description='plan a salamander path on a scene file'
    )
    parser.add_argument(
        '--scene',
        required=True,
        help='scene YAML: bounds, resolution, circles, polygons, start, '
        'goal (m, degrees), e.g. '
        'config/salamander_scene.yaml',
    )
    add_option(parser, '--planner', named(PLANNER, 'planner'), help='chomp or lattice_astar')
    add_option(parser, '--clearance', named(PLANNER, 'clearance_m'), dest='clearance_m')
    add_option(
        parser, '--safety-margin', named(PLANNER, 'safety_margin_m'), dest='safety_margin_m'
    )
    add_option(parser, '--kappa-max', named(PLANNER, 'kappa_max'), dest='kappa_max')
    _search_options(parser)
    parser.add_argument(
        '--json', type=output_file, default=STDOUT, help='write here ("-": stdout, the default)'
    )
    parser.add_argument('--plots', type=output_dir, help='folder for plan.png')
    return parser


def _search_options(parser: CommandParser) -> None:
    """The planners' own options: CHOMP's iterations and first guess, lattice A*'s budgets,
    weight and turn penalty, the restarts' seed."""
    add_option(parser, '--iterations', named(PLANNER, 'chomp_iterations'), dest='chomp_iterations')
    add_option(
        parser,
        '--max-expansions',
        named(PLANNER, 'astar_max_expansions'),
        dest='astar_max_expansions',
    )
    add_option(parser, '--max-states', named(PLANNER, 'astar_max_states'), dest='astar_max_states')
    add_option(parser, '--max-time', named(PLANNER, 'max_planning_s'), dest='max_planning_s')
    add_option(
        parser,
        '--astar-weight',
        named(PLANNER, 'astar_heuristic_weight'),
        dest='astar_heuristic_weight',
    )
    add_option(
        parser, '--turn-penalty', named(PLANNER, 'astar_turn_penalty'), dest='astar_turn_penalty'
    )
    add_option(parser, '--seed', SEED)
    parser.add_argument(
        '--chomp-from-lattice',
        action='store_true',
        help=named(PLANNER, 'chomp_from_lattice').description,
    )
    parser.add_argument(
        '--no-lattice-fallback',
        dest='chomp_lattice_fallback',
        action='store_false',
        help="CHOMP from the straight line only, as the thesis's (by default a failed attempt "
        "tries once more from lattice A*'s path)",
    )


@ends_on_ctrl_c('salamander-plan')
def main(argv: list[str] | None = None) -> int:
    """``salamander-plan`` on ``argv`` (default: the command line): 0 when the plan passes its
    check, EXIT_NO_PLAN (1) when it fails (its JSON is written all the same), 2 when the scene is
    refused."""
    args = _parser().parse_args(argv)
    try:
        scene, field = planning.planning_scene(args.scene)
    except SceneError as error:
        return refuse('salamander-plan', error)
    options = planning.PlannerOptions.of(vars(args))
    plan = planning.plan(args.planner, field, scene.start, scene.goal, options)
    document = {**plan.to_json(), **_measures(plan, field, scene.start, scene.goal)}
    write_output(args.json, json.dumps(document, indent=1))
    if args.plots and len(plan.path) > 1:
        title = (
            f'{args.planner}: {"planned" if plan.success else "failed"}, '
            f'{document["planning_ms"]:.0f} ms'
        )
        save(
            plots.plans_figure(scene, {args.planner: plan.path}, scene.start, scene.goal, title),
            args.plots / 'plan.png',
        )
    verdict = (
        f'{plan.length_m:.3f} m, κ ≤ {plan.max_curvature:.2f} 1/m' if plan.success else 'no plan'
    )
    print(
        f'salamander-plan: {args.planner}: {verdict}: {plan.reason} '
        f'({document["planning_ms"]:.0f} ms, '
        f'{plan.effort} {plan.effort_name})',
        file=sys.stderr,
    )
    return 0 if plan.success else EXIT_NO_PLAN


def _peak_rss_mb() -> float:
    """This process's peak resident memory (MB; Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _measures(plan, field, start, goal) -> dict:
    """What issue 28 asks of every plan beside the planner's own figures: the least clearance
    (m, the planners' check), the end headings' errors (°) and the peak memory (MB)."""
    out = {'peak_rss_mb': round(_peak_rss_mb(), 1)}  # one plan a process: the plan's and field's
    if len(plan.path) > 1:
        start_error, goal_error = paths.heading_errors(plan.path, start, goal)
        out['min_clearance_m'] = paths.least_clearance(field, plan.path)[0]
        out['start_heading_error_deg'] = math.degrees(start_error)
        out['goal_heading_error_deg'] = math.degrees(goal_error)
    return out
