"""The worlds a seat may be in: every game it cannot tell from the true one, with its probability.

``worlds(seen, seat, limit)`` plays the game again from ``seen.start`` (knowledge.Seen) as a
replay does, but tries every way of each step the seat did not see whole instead of drawing
one: every outcome of a roll or draw with its true probability, every option of another
player's hidden choice as equally likely. A way whose trace lines, for the seat, differ from
the ones it saw is dropped; ways that lead to the same game are merged (their probabilities
add up), so dealing five cards one by one into a sorted hand gives one world per hand, not per
order. More than ``limit`` ways alive at once gives up (None): the caller samples instead.
"""

from __future__ import annotations

from .diagnostics import RuntimeFault
from .knowledge import Seen, _new_lines
from .runtime import CHANCE, State

WORK = 16  # ways tried in all, per world allowed, before the listing gives up


def state_key(state: State) -> tuple:
    """What makes two games the same from here on: pieces and where they are, faces, counters,
    where each rule is running and with which values, whose turn, the `once per` branches used,
    the triggered rules waiting. Two games with equal keys play on alike."""
    pending = state.pending
    if pending is not None:
        pending = (pending[0], pending[1] if pending[1].__class__ is int else id(pending[1]),
                   repr(pending[2]), pending[3:])
    return (tuple(map(tuple, state.zones)), tuple(map(tuple, state.dynamic)), repr(state.counters),
            repr(state.frames), pending, state.player, state.first_player, state.round_number,
            state.turn_number, state.used_once, repr(state.fired), state.finished, len(state.where))


def _ways(replay: State, mover: int) -> list[tuple[object, float]]:
    """Every way of a step the seat did not see whole, with its probability."""
    if mover == CHANCE:
        return [(outcome, float(p)) for outcome, p in replay.chance_outcomes()]
    actions = replay.legal_actions()
    return [(a, 1.0 / len(actions)) for a in actions]


def worlds(seen: Seen, seat: int, limit: int) -> list[tuple[State, float]] | None:
    """Every game ``seat`` cannot tell from the one it has seen, each with its probability
    (they add up to 1); None when more than ``limit`` are alive at some step, more than
    WORK x ``limit`` ways would be tried in all, or none fits.
    The states have no trace, no history and no knowledge, like ``replay_sample``'s."""
    alive: dict[tuple, tuple[State, float]] = {(): (seen.start.clone(), 1.0)}
    work = WORK * limit  # ways tried in all: a roll of many dice after many worlds gives up early
    for action, lines, mover, _ in seen.steps:
        after: dict[tuple, tuple[State, float]] = {}
        for replay, weight in alive.values():
            if action is None and mover == CHANCE and replay.chance_outcome_count() > work:
                return None  # counted before listing: a roll of 48 dice has millions of ways
            ways = [(action, 1.0)] if action is not None else _ways(replay, mover)
            work -= len(ways)
            if work < 0:
                return None
            for way, p in ways:
                step = replay.clone()
                before = len(step.events)
                try:
                    step.apply_action(way)
                except RuntimeFault:  # the rules go elsewhere in this world: it does not fit
                    continue
                if _new_lines(step, before, seat) != lines:
                    continue
                key = state_key(step)
                if key in after:
                    after[key] = (after[key][0], after[key][1] + weight * p)
                else:
                    after[key] = (step, weight * p)
                    if len(after) > limit:
                        return None
        alive = after
    found = [(s, w) for s, w in alive.values() if s.observation_string(seat) == seen.observation]
    total = sum(w for _, w in found)
    if not found or total <= 0:
        return None
    for state, _ in found:
        state.tracing = False
        state.events, state.history, state.seen_lines = [], [], {}
        state.knows = state.seen_counters = None
    return [(s, w / total) for s, w in found]
