"""What a gait executor runs (paper VI-C, VII; spec 8): the primitive sequence of a gait or an exploration walk,
entered from the robot's current state, and the clean stop. Vertices are the paper's 1-based states.

A gait V(L) = [v1, ..., vl] is a fixed periodic sequence with no timing of its own: one primitive per τ. By
transformation invariance (section IV) it may start at any of its states, so the executor starts at the current
state when it is on the cycle; otherwise it first runs one transition primitive to the cycle state nearest in
limb changes (the complete digraph has that edge and its weight). The stop returns to state 1, all limbs uncurled.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from terresoro_gait.digraph import GaitError, LimbDigraph, state_bits

REST_VERTEX = 1          # all limbs uncurled: the safe, powered-down state


@dataclass(frozen=True)
class Primitive:
    initial: int
    terminal: int
    transition: bool = False     # lead-in or stop: not part of the requested gait or walk
    cycle: int = 0               # 1-based repetition of the gait it belongs to (0: transitions and walks)


def entry_vertex(current: int, states: Sequence[int], n_limbs: int) -> int:
    """The state of ``states`` fewest limb changes away from ``current`` (the earliest listed on a tie)."""
    bits = state_bits(current, n_limbs)
    return min(states, key=lambda v: sum(a != b for a, b in zip(bits, state_bits(v, n_limbs))))


def lead_in(current: int, start: int) -> list[Primitive]:
    return [] if current == start else [Primitive(current, start, transition=True)]


def gait_primitives(graph: LimbDigraph, current: int, gait: Sequence[int], cycles: int) -> list[Primitive]:
    """The primitives of ``cycles`` repetitions of ``gait`` (a simple cycle of ``graph``; its lost limbs may not
    curl) from state ``current``: a lead-in if needed, then the cycle rotated to start at the entry state."""
    cycle = list(graph.check_cycle(gait))
    if cycles < 1:
        raise GaitError(f'cycles = {cycles}: must be >= 1')
    start = entry_vertex(current, cycle, graph.n_limbs)
    at = cycle.index(start)
    cycle = cycle[at:] + cycle[:at]
    steps = [Primitive(a, b, cycle=r) for r in range(1, cycles + 1) for a, b in zip(cycle, cycle[1:] + cycle[:1])]
    return lead_in(current, start) + steps


def walk_primitives(graph: LimbDigraph, current: int, walk: Sequence[int]) -> list[Primitive]:
    """The primitives of the closed walk ``walk`` (read cyclically, back to walk[0]) from state ``current``."""
    walk = [int(v) for v in walk]
    if len(walk) < 2:
        raise GaitError(f'walk {walk}: needs at least 2 states')
    for v in walk:
        if v not in graph.vertices:
            raise GaitError(f'walk: state {v} is not a vertex of the {graph.n_limbs}-limb graph'
                            + (f' without limb(s) {list(graph.lost_limbs)}' if graph.lost_limbs else ''))
    steps = [Primitive(a, b) for a, b in zip(walk, walk[1:] + walk[:1])]
    repeat = next((p for p in steps if p.initial == p.terminal), None)
    if repeat:
        raise GaitError(f'walk: state {repeat.initial} follows itself; consecutive states must differ')
    return lead_in(current, walk[0]) + steps


def stop_primitives(current: int) -> list[Primitive]:
    """The clean stop: one primitive to state 1 (every curled limb reversed and released)."""
    return lead_in(current, REST_VERTEX)
