"""Worlds by local moves, where there are too many to list: a few games that each fit all a seat
has seen, carried from one decision to the next and moved about between them.

A *path* is the game played again from ``seen.start`` (knowledge.Seen): the steps the seat saw
as they were, and a way for each step it did not see whole (which piece a hidden draw took, a
roll's faces, another player's hidden choice). A path *fits* when every trace line the seat
saw comes out the same and its observation at the end too. ``Chains`` holds a few paths; at
each decision each is carried on over the steps since (new unseen steps drawn afresh) and then
moved: a move changes one unseen step (a draw takes another piece of its zone, and the step
that took that piece takes this one instead; a roll or a hidden choice is drawn afresh) and is
kept when the path fits as well as before (a Metropolis step: from a path that fits, only to
one that fits). Draws from one zone are alike in chance, and a roll or choice drawn afresh is
drawn with its own chance, so the paths that fit are sampled as chance weighs them. A path that
does not fit yet (new answers came in) is moved toward fewer lines that differ, which is how
it comes to fit: the lines are a measure, not only a test. Everything here comes from what the
seat saw and the caller's rng: two games the seat cannot tell apart give the same worlds.
"""

from __future__ import annotations

import random

from .belief import state_key
from .diagnostics import RuntimeFault
from .knowledge import RUN, Seen, _new_lines, at_step, hidden_run, seen_choice
from .runtime import CHANCE, State

UNFIT = 1 << 30  # a path the rules cannot play: worse than any count of lines that differ
RUN_LIMIT = 10_000  # chance steps of one run the seat saw nothing of, at most (``knowledge.RUN``)


class Chains:
    """The paths of one seat's game, kept by a bot from one decision to its next."""

    __slots__ = ("start", "steps", "paths", "misfits")

    def __init__(self):
        self.start, self.steps, self.paths, self.misfits = None, [], [], []

    def continues(self, seen: Seen) -> bool:
        """Whether ``seen`` is the game these paths follow, with more steps."""
        return self.start is not None and len(seen.steps) >= len(self.steps) \
            and self.start == state_key(seen.start) and seen.steps[:len(self.steps)] == self.steps


def _fresh(replay: State, mover: int, rng: random.Random):
    """A way of a step drawn afresh: chance with its own probabilities, a choice uniformly."""
    if mover == CHANCE:
        return replay.sample_chance(rng)
    return rng.choice(replay.legal_actions())


def _differ(got: tuple, want: tuple) -> int:
    """How many lines differ between two steps' lines (a missing line counts)."""
    return sum(a != b for a, b in zip(got, want, strict=False)) + abs(len(got) - len(want))


def play(seen: Seen, path: list, seat: int, rng: random.Random, bound: int = UNFIT):
    """The path played from ``seen.start``: (lines that differ from what the seat saw, the game
    at the end, the path with every way filled in, each unseen draw's pieces to draw from).
    A way that is None, missing or not possible there is drawn afresh. More than ``bound``
    lines differing stops the play: (UNFIT, None, None, None), as for a path the rules cannot play."""
    replay = seen.start.clone()
    replay.events, replay.history, replay.seen_lines = [], [], {}
    filled, sources, misses = [], {}, 0
    for i, (action, lines, mover, is_draw) in enumerate(seen.steps):
        if mover == RUN:  # chance steps the seat saw nothing of, as many as this path has
            replay = hidden_run(replay, seat, rng, set(), RUN_LIMIT)
            if replay is None:
                return UNFIT, None, None, None
            replay.events, replay.history, replay.seen_lines = [], [], {}
            filled.append(None)
            continue
        if mover != CHANCE and not replay.finished and replay.current_player() == CHANCE:
            # chance steps the seat would see nothing of, on this path and not in the game
            replay = hidden_run(replay, seat, rng, set(), RUN_LIMIT) or replay
            replay.events, replay.history, replay.seen_lines = [], [], {}
        if not at_step(replay, mover, is_draw):  # another step than the one seen: this path does not fit
            return UNFIT, None, None, None
        way = action
        if way is not None and mover != CHANCE and mover != seat:  # its menu may differ here
            found = seen_choice(replay, way, lines, seat)
            way = way if found is None else found[1]
        if way is None:
            way = path[i] if i < len(path) else None
            if is_draw:
                sources[i] = list(replay.zones[replay.pending[2][0]])
                if way not in sources[i]:
                    way = None
            if way is None:
                way = _fresh(replay, mover, rng)
        try:
            replay.apply_action(way)
        except (RuntimeFault, ValueError):  # the rules cannot play this path on
            return UNFIT, None, None, None
        misses += _differ(_new_lines(replay, 0, seat), lines)
        if misses > bound:
            return UNFIT, None, None, None
        replay.events, replay.history, replay.seen_lines = [], [], {}
        filled.append(way)
    if not replay.finished and replay.current_player() == CHANCE:
        replay = hidden_run(replay, seat, rng, set(), RUN_LIMIT) or replay
    if replay.observation_string(seat) != seen.observation:
        misses += 1
    return misses, replay, filled, sources


def _move(path: list, seen: Seen, sources: dict, rng: random.Random) -> list:
    """One unseen step changed: a draw takes another piece of its zone (swapped with the step
    that took it, if one did), any other step is drawn afresh (None)."""
    unseen = [i for i, step in enumerate(seen.steps) if step[0] is None]
    i = rng.choice(unseen)
    moved = list(path)
    if i in sources and len(sources[i]) > 1:
        piece = rng.choice([p for p in sources[i] if p != path[i]])
        for j in unseen:
            if j != i and moved[j] == piece and seen.steps[j][3]:
                moved[j] = path[i]
                break
        moved[i] = piece
    else:
        moved[i] = None
    return moved


def _step(chain: list, seen: Seen, seat: int, rng: random.Random) -> None:
    """One move of a chain ``[misses, game, path, sources]``, kept when it fits as well."""
    misses, game, path, sources = chain
    if game is None:  # a path the rules cannot play: start it again from nothing
        chain[:] = play(seen, [], seat, rng)
        return
    tried = play(seen, _move(path, seen, sources, rng), seat, rng, misses)
    if tried[0] <= misses:
        chain[:] = tried


def worlds(seen: Seen, seat: int, kept: Chains, count: int, budget: int,
           rng: random.Random, closest: bool = False) -> list[tuple[State, float]] | None:
    """``count`` games that fit what ``seat`` has seen (merged, each weighing its share), after
    as many moves as ``budget`` steps played allow (a move plays the game again: the longer
    the game, the fewer moves); None when no path can be played or none fits.
    While no path fits, the moves go to the path that fits best (fewest lines differ); once
    one fits, the paths that do not are replaced by copies of those that do, and the moves go
    round all of them, so that the copies part again. ``closest``: when none fits, the game of
    a path that fits best (it too comes from what the seat saw only, never from the true game)."""
    if not any(step[0] is None for step in seen.steps):
        return None
    if not kept.continues(seen):
        kept.start, kept.paths = state_key(seen.start), [[] for _ in range(count)]
    kept.steps = list(seen.steps)
    chains = [list(play(seen, path, seat, rng)) for path in kept.paths]
    turn = 0
    for _ in range(budget // max(1, len(seen.steps))):
        fit = [c for c in chains if c[0] == 0]
        if not fit:
            best = min(c[0] for c in chains)
            _step(rng.choice([c for c in chains if c[0] == best]), seen, seat, rng)
            continue
        if len(fit) < len(chains):
            chains = [c if c[0] == 0 else list(rng.choice(fit)) for c in chains]
        turn = (turn + 1) % len(chains)
        _step(chains[turn], seen, seat, rng)
    kept.paths = [c[2] or [] for c in chains]
    kept.misfits = [c[0] for c in chains]
    games = [c[1] for c in chains if c[0] == 0]
    if not games:
        played = [c for c in chains if c[1] is not None and c[0] < UNFIT]
        if not closest or not played:
            return None
        return [(min(played, key=lambda c: c[0])[1], 1.0)]
    merged: dict = {}
    for game in games:
        key = state_key(game)
        merged[key] = (game, merged[key][1] + 1) if key in merged else (game, 1)
    return [(game, n / len(games)) for game, n in merged.values()]
