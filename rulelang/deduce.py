"""Deduction for any game: what each action would tell a seat, and what it would be worth.

A seat's belief is a list of worlds, ``(State, probability)``: every game it cannot tell from
the true one (``SeatView.worlds``), or samples of them when there are too many. ``consider``
plays each legal action forward in every world until someone's next decision (chance drawn
on the way) and records what the seat would see then and what the game is worth to it
(``evaluate``). An action after which the seat decides again in the same turn is followed
through that decision too: having seen the same in every world (the first step of a guess
made of several choices), each next action is a line of its own; having seen worlds part (a
guess checked as it goes), each group of worlds takes its best next line. ``choose_by_gain`` then
weighs questions by expected information gain and guesses by expected value
(docs/language.md, section 4, "Bots").
"""

from __future__ import annotations

import math
import random
from bisect import bisect
from collections import Counter
from collections.abc import Callable
from itertools import accumulate
from typing import NamedTuple

from .diagnostics import RuntimeFault
from .runtime import CHANCE, State

CHAIN = 8        # own decisions in a row in one turn followed through, nothing new seen between them
EPSILON = 1e-9


class Line(NamedTuple):
    """One line of play from the decision: its actions, and in each world what the seat then
    sees (``seen``), the game's worth to it (``value``) and whether it changed anything the
    seat is scored on or ended the game, or the seat's part in it (``decisive``)."""

    actions: tuple
    seen: list
    value: list[float]
    decisive: bool


def entropy(weights: list[float]) -> float:
    """Shannon entropy (bits) of weights that need not add up to 1."""
    total = sum(weights)
    if total <= 0:
        return 0.0
    return -sum(w / total * math.log2(w / total) for w in weights if w > 0)


def gain(weights: list[float], seen: list) -> float:
    """Expected information gain of learning ``seen``: entropy before minus expected after."""
    groups: dict = {}
    for w, s in zip(weights, seen, strict=True):
        groups.setdefault(s, []).append(w)
    total = sum(weights)
    after = sum(sum(g) / total * entropy(g) for g in groups.values())
    return entropy(weights) - after


def draw_worlds(worlds: list[tuple[State, float]], k: int, rng: random.Random) -> list[tuple[State, float]]:
    """At most ``k`` of the worlds, drawn by probability with ``rng`` and merged: each weighs
    its share of the draws. A question's information gain over them estimates its gain over
    all; fewer worlds than ``k`` are all kept as they are."""
    if len(worlds) <= k:
        return worlds
    bounds = list(accumulate(w for _, w in worlds))
    last = len(worlds) - 1
    drawn = Counter(min(last, bisect(bounds, rng.random() * bounds[-1])) for _ in range(k))
    return [(worlds[i][0], n / k) for i, n in sorted(drawn.items())]


def play_on(world: State, action, seat: int, rng: random.Random,
            max_steps: int) -> tuple[tuple, State | None]:
    """``action`` played in a copy of ``world``, chance drawn with ``rng``, up to the next
    decision of anyone or the end: what ``seat`` sees on the way (its trace lines and its
    observation), and the game then (None when the rules faulted)."""
    sim = world.clone(tracing=True)
    sim.events = []
    try:
        sim.apply_action(action)
        steps = 0
        while sim.current_player() == CHANCE and steps < max_steps:
            sim.apply_action(sim.sample_chance(rng))
            steps += 1
    except RuntimeFault:
        return ("fault",), None
    lines = tuple(line for line in (sim.format_event(e, seat) for e in sim.events) if line)
    return (lines, None if sim.finished else sim.observation_string(seat)), sim


class Budget:
    """Plays forward left for one decision."""

    __slots__ = ("left",)

    def __init__(self, left: int):
        self.left = left


def consider(worlds: list[tuple[State, float]], seat: int, evaluate: Callable[[State, int], float],
             rng: random.Random, budget: Budget, max_steps: int = 200) -> list[Line]:
    """Every line of play from the decision the worlds share (see the module's docstring)."""
    base = [evaluate(w, seat) for w, _ in worlds]
    return _lines(worlds, (), [()] * len(worlds), base, seat, evaluate, rng, budget, max_steps, CHAIN)


def _lines(worlds, prefix, seen_before, base, seat, evaluate, rng, budget, max_steps, chain) -> list[Line]:
    found: list[Line] = []
    for action in worlds[0][0].legal_actions():
        budget.left -= len(worlds)
        plays = [play_on(w, action, seat, rng, max_steps) for w, _ in worlds]
        seen = [(before, key) for before, (key, _) in zip(seen_before, plays, strict=True)]
        value, decisive = [], False
        for (_, sim), b in zip(plays, base, strict=True):
            v = -100.0 if sim is None else evaluate(sim, seat)
            # A seat put out (eliminated) makes no further decision, so what the action shows it
            # is worth nothing: like one that ends the game, the action is a guess, worth its value.
            decisive = decisive or sim is None or sim.is_terminal() or seat in sim.out or abs(v - b) > EPSILON
            value.append(v)
        actions = prefix + (action,)
        again = [sim for _, sim in plays]
        groups: dict = {}  # what the seat sees: the worlds where it sees that
        for i, (key, _) in enumerate(plays):
            groups.setdefault(key, []).append(i)
        goes_on = [s is not None and s.current_player() == seat and s.turn_number == w.turn_number
                   and s.round_number == w.round_number for s, (w, _) in zip(again, worlds, strict=True)]
        if chain > 1 and not decisive and len(groups) == 1 and all(goes_on):
            # Within the budget: the next decision is tried in the likeliest worlds only, and
            # counts as changing nothing in the others.
            keep = min(len(worlds), budget.left // len(again[0].legal_actions()))
            if keep >= 1:
                chosen = sorted(sorted(range(len(worlds)), key=lambda i: -worlds[i][1])[:keep])
                for line in _lines([(again[i], worlds[i][1]) for i in chosen], actions,
                                   [seen[i] for i in chosen], [base[i] for i in chosen], seat, evaluate,
                                   rng, budget, max_steps, chain - 1):
                    found.append(_widen(line, chosen, seen, base))
                continue
        elif chain > 1 and len(groups) > 1:
            # The seat learns something and decides again in this turn: in each group of worlds
            # where it sees alike, it will take the line best there (a guess checked as it goes).
            for members in groups.values():
                if not all(goes_on[i] for i in members) or \
                        budget.left < len(members) * len(again[members[0]].legal_actions()):
                    continue
                sub = _lines([(again[i], worlds[i][1]) for i in members], actions, [seen[i] for i in members],
                             [base[i] for i in members], seat, evaluate, rng, budget, max_steps, chain - 1)
                worth = [sum(worlds[i][1] * v for i, v in zip(members, line.value, strict=True)) for line in sub]
                best = sub[worth.index(max(worth))]
                for j, i in enumerate(members):
                    seen[i], value[i] = best.seen[j], best.value[j]
                decisive = decisive or best.decisive
        found.append(Line(actions, seen, value, decisive))
    return found


def _widen(line: Line, chosen: list[int], seen: list, base: list[float]) -> Line:
    """A line found in some of the worlds (``chosen``), for all of them: in the others the seat
    sees what it saw one step before, and nothing changes."""
    seen, value = list(seen), list(base)
    for j, i in enumerate(chosen):
        seen[i], value[i] = line.seen[j], line.value[j]
    return Line(line.actions, seen, value, line.decisive)


def choose_by_gain(lines: list[Line], weights: list[float], discount: float) -> tuple[Line | None, float]:
    """The line to take, and its information gain: a question (a line that decides nothing)
    is worth what the best guess will be worth once its answer is known, discounted for the
    decision it uses, and a guess (a line that decides something) its expected value; the best
    of them, ties going to the most informative. None when no line decides anything and none
    tells the seat anything, or when the best line is one of those (a move that neither asks nor
    guesses, which ``mc`` judges better)."""
    total = sum(weights)
    p = [w / total for w in weights]
    guesses = [line for line in lines if line.decisive]
    best, best_score, best_gain = None, -math.inf, 0.0
    for line in lines:
        g = gain(p, line.seen)
        score = stay = sum(pi * v for pi, v in zip(p, line.value, strict=True))
        if not line.decisive and g > EPSILON:
            groups: dict = {}
            for i, s in enumerate(line.seen):
                groups.setdefault(s, []).append(i)
            later = 0.0
            for members in groups.values():
                options = [sum(p[i] * line.value[i] for i in members)]
                options += [sum(p[i] * guess.value[i] for i in members) for guess in guesses]
                later += max(options)
            score = stay + discount * (later - stay)
        if score > best_score + EPSILON or (abs(score - best_score) <= EPSILON and g > best_gain):
            best, best_score, best_gain = line, score, g
    if best is None or (not best.decisive and best_gain <= EPSILON):
        return None, 0.0
    return best, best_gain
