"""What a gait executor runs (paper VI-C, VII; spec 8): the primitive sequence of a gait or an
exploration walk, entered from the robot's current state, and the clean stop. Vertices are the
paper's 1-based states.

A gait V(L) = [v1, ..., vl] is a fixed periodic sequence with no timing of its own: one primitive
per τ. By transformation invariance (section IV) it may start at any of its states, so the executor
starts at the current state when it is on the cycle; otherwise it first runs one transition
primitive to the cycle state nearest in limb changes (the complete digraph has that edge and its
weight). The stop returns to state 1, all limbs uncurled.

A goal's primitives are computed one at a time as the executor reaches them
(``PrimitiveSequence``), and a goal is bounded by ``MAX_GOAL_PRIMITIVES``: a client that sends
cycles = 2³² - 1 (a -1 gone through uint32) gets a refusal at once instead of an executor that
spends minutes and gigabytes building a list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from terresoro_gait.digraph import GaitError, LimbDigraph, state_bits

REST_VERTEX = 1  # all limbs uncurled: the safe, powered-down state
# one goal: about 3 h at τ = 0.55 s; its result keeps one ExecutedEdge per primitive
MAX_GOAL_PRIMITIVES = 20_000


@dataclass(frozen=True)
class Primitive:
    """A motion primitive ``initial`` -> ``terminal`` (1-based states) as the executor runs it."""

    initial: int
    terminal: int
    transition: bool = False  # lead-in or stop: not part of the requested gait or walk
    # 1-based repetition of the gait it belongs to (0: transitions and walks)
    cycle: int = 0


@dataclass(frozen=True)
class PrimitiveSequence(Sequence):
    """``lead_in`` then ``repeats`` passes of the closed walk ``walk`` (read cyclically), each
    primitive made when it is asked for. With ``numbered`` the passes are the gait's cycles 1, 2,
    ... (else cycle 0: a walk)."""

    lead_in: tuple[Primitive, ...]
    walk: tuple[int, ...]
    repeats: int = 1
    numbered: bool = False

    def __len__(self) -> int:
        return len(self.lead_in) + self.repeats * len(self.walk)

    @overload
    def __getitem__(self, index: int) -> Primitive: ...
    @overload
    def __getitem__(self, index: slice) -> list[Primitive]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[k] for k in range(len(self))[index]]
        k = range(len(self))[index]  # IndexError past either end, as a list would
        if k < len(self.lead_in):
            return self.lead_in[k]
        repeat, at = divmod(k - len(self.lead_in), len(self.walk))
        return Primitive(
            self.walk[at],
            self.walk[(at + 1) % len(self.walk)],
            cycle=repeat + 1 if self.numbered else 0,
        )


def check_goal_size(primitives: int, what: str) -> None:
    """GaitError when a goal of ``primitives`` exceeds MAX_GOAL_PRIMITIVES; ``what`` names the
    request."""
    if primitives > MAX_GOAL_PRIMITIVES:
        raise GaitError(
            f'{what}: {primitives} primitives, more than one goal may run '
            f'(MAX_GOAL_PRIMITIVES = {MAX_GOAL_PRIMITIVES}); send shorter '
            'goals one after another'
        )


def entry_vertex(current: int, states: Sequence[int], n_limbs: int) -> int:
    """The state of ``states`` fewest limb changes away from ``current`` (the earliest listed on a
    tie)."""
    bits = state_bits(current, n_limbs)
    return min(states, key=lambda v: sum(a != b for a, b in zip(bits, state_bits(v, n_limbs))))


def lead_in(current: int, start: int) -> list[Primitive]:
    """The transition primitive from ``current`` to ``start``; none when already there."""
    return [] if current == start else [Primitive(current, start, transition=True)]


def gait_primitives(
    graph: LimbDigraph, current: int, gait: Sequence[int], cycles: int
) -> PrimitiveSequence:
    """The primitives of ``cycles`` repetitions of ``gait`` (a simple cycle of ``graph``; its lost
    limbs may not curl) from state ``current``: a lead-in if needed, then the cycle rotated to
    start at the entry state."""
    cycle = list(graph.check_cycle(gait))
    if cycles < 1:
        raise GaitError(f'cycles = {cycles}: must be >= 1')
    check_goal_size(cycles * len(cycle), f'cycles = {cycles} of a {len(cycle)}-state gait')
    start = entry_vertex(current, cycle, graph.n_limbs)
    at = cycle.index(start)
    return PrimitiveSequence(
        tuple(lead_in(current, start)), tuple(cycle[at:] + cycle[:at]), cycles, numbered=True
    )


def walk_primitives(graph: LimbDigraph, current: int, walk: Sequence[int]) -> PrimitiveSequence:
    """The primitives of the closed walk ``walk`` (read cyclically, back to walk[0]) from state
    ``current``."""
    check_goal_size(len(walk), f'a walk of {len(walk)} states')
    walk = [int(v) for v in walk]
    if len(walk) < 2:
        raise GaitError(f'walk {walk}: needs at least 2 states')
    for v in walk:
        if v not in graph.vertices:
            raise GaitError(
                f'walk: state {v} is not a vertex of the {graph.n_limbs}-limb graph'
                + (f' without limb(s) {list(graph.lost_limbs)}' if graph.lost_limbs else '')
            )
    repeat = next((a for a, b in zip(walk, walk[1:] + walk[:1]) if a == b), None)
    if repeat is not None:
        raise GaitError(f'walk: state {repeat} follows itself; consecutive states must differ')
    return PrimitiveSequence(tuple(lead_in(current, walk[0])), tuple(walk))


def stop_primitives(current: int) -> list[Primitive]:
    """The clean stop: one primitive to state 1 (every curled limb reversed and released)."""
    return lead_in(current, REST_VERTEX)
