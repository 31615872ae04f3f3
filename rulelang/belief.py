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

from . import knowledge
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
            state.turn_number, state.used_once, repr(state.fired), state.finished, len(state.where),
            state.last_turns, state.last_turn_last, state.again)


def _ways(replay: State, mover: int) -> list[tuple[object, float]]:
    """Every way of a step the seat did not see whole, with its probability."""
    if mover == CHANCE:
        return [(outcome, float(p)) for outcome, p in replay.chance_outcomes()]
    actions = replay.legal_actions()
    return [(a, 1.0 / len(actions)) for a in actions]


class Belief:
    """The worlds listed for one seat so far, kept by a bot from one decision to its next: the
    next listing plays only the steps seen since (``worlds(..., kept=...)``) and gives the
    worlds a listing from the start would give. It holds only what the seat has seen."""

    __slots__ = ("start", "steps", "alive", "limit", "gave_up")

    def __init__(self):
        self.start, self.steps, self.alive, self.limit, self.gave_up = None, [], {}, 0, False

    def continues(self, seen: Seen, limit: int) -> bool:
        """Whether ``seen`` is the game listed so far with more steps, for the same limit."""
        return self.start is not None and limit == self.limit and len(seen.steps) >= len(self.steps) \
            and self.start == state_key(seen.start) and seen.steps[:len(self.steps)] == self.steps


def worlds(seen: Seen, seat: int, limit: int, kept: Belief | None = None) -> list[tuple[State, float]] | None:
    """Every game ``seat`` cannot tell from the one it has seen, each with its probability
    (they add up to 1); None when more than ``limit`` are alive at some step, more than
    WORK x ``limit`` ways would be tried in one call, or none fits. ``kept``: the listing of an
    earlier decision of the same seat, carried on and updated (see ``Belief``).
    The states have no trace, no history and no knowledge, like ``replay_sample``'s; they are
    the caller's to read, not to change."""
    if kept is not None and kept.continues(seen, limit):
        if kept.gave_up:
            return None
        alive, done = kept.alive, len(kept.steps)
    else:
        alive, done = {(): (_bare(seen.start.clone()), 1.0)}, 0
        if kept is not None:
            kept.start, kept.steps, kept.alive, kept.limit, kept.gave_up = state_key(seen.start), [], alive, limit, False
    alive = _play(alive, seen.steps[done:], seat, limit)
    if kept is not None:
        kept.steps = list(seen.steps)
        kept.alive, kept.gave_up = alive or {}, alive is None
    if alive is None:
        return None
    found = [(s, w) for s, w in alive.values() if s.observation_string(seat) == seen.observation]
    total = sum(w for _, w in found)
    if not found or total <= 0:
        return None
    return [(s, w / total) for s, w in found]


def _bare(state: State) -> State:
    """A replay keeps no knowledge, and its trace and history only for the step being played."""
    state.events, state.history, state.seen_lines = [], [], {}
    knowledge.forget(state)
    return state


def _play(alive: dict, steps: list, seat: int, limit: int) -> dict | None:
    """The worlds after ``steps``, from ``alive`` (which it uses up); None past the limits."""
    work = WORK * limit  # ways tried in all: a roll of many dice after many worlds gives up early
    for action, lines, mover, is_draw in steps:
        if mover == knowledge.RUN:  # chance steps the seat saw nothing of, not even how many: not listed
            return None
        after: dict[tuple, tuple[State, float]] = {}
        for replay, weight in alive.values():
            if not knowledge.at_step(replay, mover, is_draw):
                if not replay.finished and replay.current_player() == CHANCE and mover != CHANCE \
                        and not knowledge._sees_chance(replay, seat):
                    return None  # a step here the seat may not know of (``knowledge.RUN``): not listed
                continue  # this world went elsewhere: it does not fit
            if action is None and mover == CHANCE and replay.chance_outcome_count() > work:
                return None  # counted before listing: a roll of 48 dice has millions of ways
            if action is not None and mover != CHANCE and mover != seat:  # its menu may differ here
                found = knowledge.seen_choice(replay, action, lines, seat)
                if found is None:
                    continue
                ways = [(found[1], 1.0)]
            else:
                ways = [(action, 1.0)] if action is not None else _ways(replay, mover)
            work -= len(ways)
            if work < 0:
                return None
            last = len(ways) - 1
            for i, (way, p) in enumerate(ways):
                step = replay if i == last else replay.clone()  # the last way needs no copy
                try:
                    step.apply_action(way)
                except RuntimeFault:  # the rules go elsewhere in this world: it does not fit
                    continue
                if _new_lines(step, 0, seat) != lines:
                    continue
                step.events, step.history, step.seen_lines = [], [], {}
                key = state_key(step)
                if key in after:
                    after[key] = (after[key][0], after[key][1] + weight * p)
                else:
                    after[key] = (step, weight * p)
                    if len(after) > limit:
                        return None
        alive = after
    return alive
