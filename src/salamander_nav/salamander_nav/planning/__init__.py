"""The salamander's path planners (thesis §3.4), no ROS: ``chomp`` with its cost terms
(``chomp_costs``), ``lattice_astar`` on its Euler-spiral motion primitives
(``lattice_primitives``), and ``paths``: what both return and the independent check every returned
path passes.

Here, one entry to both, for the node and the command line: CHOMP (the thesis's default, §3.4.3)
or lattice A*, with the options a user sets.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, fields

import numpy as np

from salamander_nav.distance_field import DistanceField
from salamander_nav.origami import KAPPA_MAX
from salamander_nav.planning import chomp, lattice_astar, paths
from salamander_nav.planning.passage import passage_problem
from salamander_nav.planning.paths import Plan
from salamander_nav.scene import Scene, SceneError, load_scene

# planner -> what its effort counts; CHOMP first, the thesis's default (§3.4.3, PL-07)
EFFORT_NAMES = {module.PLANNER: module.EFFORT for module in (chomp, lattice_astar)}
PLANNERS = tuple(EFFORT_NAMES)


@dataclass(frozen=True)
class PlannerOptions(paths.KeepsClearance):
    """What a user tunes: clearance (m, the robot's half-width), curvature limit (1/m), CHOMP's
    iterations, A*'s budgets, the restarts' random seed, A*'s heuristic weight, the safety margin
    (m) kept beyond the clearance, A*'s memory bound in states, CHOMP's points (0: as many as the
    distance asks), whether it starts from lattice A*'s path (always, or when the line's attempt
    failed), and A*'s turn penalty.
    Paths keep ``required_m``, the half-width and the margin summed, from every obstacle.

    The defaults are for maps beyond the thesis's (``THESIS`` holds the thesis's planners): on the
    seeded random fields of bench/salamander_field_scale.py (5-20 m), lattice A* at weight 1.2
    with a turn penalty of 2 solves every one in under 2 s, and turns the thesis path 1.75x its
    net heading change, where the thesis's (weight 1, equal costs) takes up to its 10 s budget
    and turns it 6.9x; CHOMP from the line alone, a local method, solves 11/20 at 5 m and 0/5 at
    20 m, so a failed attempt tries again from A*'s path."""

    clearance_m: float = paths.HALF_WIDTH_M
    kappa_max: float = KAPPA_MAX
    chomp_iterations: int = 60
    astar_max_expansions: int = 500_000
    max_planning_s: float = 10.0
    seed: int = 0
    astar_heuristic_weight: float = 1.2
    safety_margin_m: float = paths.SAFETY_MARGIN_M
    astar_max_states: int = 2_000_000
    chomp_points: int = 0  # 0: as the distance asks (chomp.points_for)
    chomp_from_lattice: bool = False  # CHOMP's first guess: lattice A*'s path, not the line
    # when CHOMP from the line fails, once more from lattice A*'s path
    chomp_lattice_fallback: bool = True
    astar_turn_penalty: float = 2.0  # extra primitives per rad turned (0: the thesis's costs)

    @classmethod
    def of(cls, values: Mapping) -> PlannerOptions:
        """The options ``values`` names (the planner node's parameters and salamander-plan's
        arguments carry the fields' names), the defaults for the rest."""
        return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})


# the thesis's planners (§3.4): lattice A*'s primitives cost the same, its heuristic unweighted;
# CHOMP starts from the line only
THESIS = PlannerOptions(
    astar_heuristic_weight=1.0, astar_turn_penalty=0.0, chomp_lattice_fallback=False
)


def planning_scene(path) -> tuple[Scene, DistanceField]:
    """The scene at ``path`` and its field, ready to plan on; SceneError when it cannot be read,
    has no start and goal, or one lies off the map or inside an obstacle (bad input: too near one
    is the plan's failure, not the scene's)."""
    scene = load_scene(path)
    if scene.start is None or scene.goal is None:
        raise SceneError(f'{path} has no start and goal: add start: [x, y, heading_deg] and goal')
    field = DistanceField.from_scene(scene)
    misplaced = paths.ends_problem(field, scene.start, scene.goal, 0.0)
    if misplaced:
        raise SceneError(f'{path}: {misplaced}')
    return scene, field


def plan(
    planner: str, field: DistanceField, start, goal, options: PlannerOptions = PlannerOptions()
) -> Plan:
    """A path from ``start`` to ``goal`` (x m, y m, ψ rad) by ``planner`` ('chomp' or
    'lattice_astar'). A goal no passage leads to is refused before either searches."""
    if planner not in PLANNERS:
        raise ValueError(f'planner {planner!r}: allowed {", ".join(PLANNERS)}')
    began = time.perf_counter()
    unreachable = passage_problem(field, start, goal, options.required_m)
    if unreachable:
        elapsed = time.perf_counter() - began
        return Plan(
            False, unreachable, np.zeros((0, 2)), planner, 0, EFFORT_NAMES[planner], elapsed
        )
    if planner == 'chomp':
        return _chomp(field, start, goal, options)
    return lattice_astar.plan(field, start, goal, _lattice_settings(options))


def _lattice_settings(options: PlannerOptions) -> lattice_astar.LatticeSettings:
    """Lattice A*'s settings from the user's options."""
    return lattice_astar.LatticeSettings(
        clearance_m=options.clearance_m,
        safety_margin_m=options.safety_margin_m,
        kappa_max=options.kappa_max,
        max_expansions=options.astar_max_expansions,
        max_states=options.astar_max_states,
        max_time_s=options.max_planning_s,
        heuristic_weight=options.astar_heuristic_weight,
        turn_penalty=options.astar_turn_penalty,
    )


def _chomp(field: DistanceField, start, goal, options: PlannerOptions) -> Plan:
    """CHOMP from the straight line (the thesis's), or from lattice A*'s path when
    ``chomp_from_lattice``, or when the line's attempt failed and ``chomp_lattice_fallback``
    (CHOMP is a local method: on a field the line crosses many obstacles); the time and effort of
    every attempt and of A* counted in."""
    first = None
    if not options.chomp_from_lattice:
        first = _chomp_from(field, start, goal, options, None)
        if first.success or not options.chomp_lattice_fallback:
            return first
    seed = lattice_astar.plan(field, start, goal, _lattice_settings(options))
    if seed.success or first is None:
        plan = _chomp_from(field, start, goal, options, seed if seed.success else None)
    else:  # from the line again would repeat the first attempt
        plan, first = first, None
    plan.planning_s += seed.planning_s
    plan.details.update(
        lattice_seed=seed.success, lattice_expansions=seed.effort, lattice_reason=seed.reason
    )
    if first is not None:
        plan.planning_s += first.planning_s
        plan.effort += first.effort
        plan.details['line_attempt'] = first.reason
    return plan


def _chomp_from(field: DistanceField, start, goal, options: PlannerOptions, seed) -> Plan:
    """CHOMP with as many points as the path's length asks, from ``seed``'s path (a Plan) or the
    straight line (None)."""
    length = seed.length_m if seed is not None else None
    n = options.chomp_points or chomp.points_for(start, goal, options.kappa_max, length)
    settings = chomp.ChompSettings(
        n_points=n,
        orientation_points=max(1, n // 10),
        clearance_m=options.clearance_m,
        safety_margin_m=options.safety_margin_m,
        kappa_max=options.kappa_max,
        max_iterations=options.chomp_iterations,
        seed=options.seed,
    )
    return chomp.plan(field, start, goal, settings, None if seed is None else seed.path)
