"""Bots that play any rules file through the state machine alone: no game-specific code."""

from __future__ import annotations

import random

from .runtime import CHANCE, State


class Agent:
    """Picks an action for the seat to move. Seeds belong to the agent, never to the state."""

    name = "agent"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, state: State):
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniformly random among the legal actions."""

    name = "random"

    def choose(self, state: State):
        return self.rng.choice(state.legal_actions())


def evaluate(state: State, seat: int) -> float:
    """How good a state looks for a seat: 100 x its share of a finished game, plus the lead of
    its first winner criterion over the best other player's (negated for `least`)."""
    value = 0.0
    if state.is_terminal():
        value += 100.0 * state.returns()[seat]
    if state.game.criteria:
        direction = 1 if state.game.criteria[0].kind == "most" else -1
        table = [row[0] if row[0] is not None else 0 for row in state.scores()]
        others = [v for p, v in enumerate(table) if p != seat]
        value += direction * (table[seat] - (max(others) if direction > 0 else min(others) if others else 0)) \
            if others else 0
    return value


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A copy of the state as ``seat`` might believe it to be: the pieces in zones it cannot
    see (hidden zones, other players' owner-only zones) are dealt again at random among those
    zones, each keeping its number of pieces. What the seat can see stays as it is, so a bot
    that looks ahead in such a copy does not read other hands or the order of a deck."""
    copy = state.clone(tracing=False)
    hidden = []
    for index in range(len(copy.zones)):
        zone, owner = copy.zone_of(index)
        if zone.visibility == "hidden" or (zone.visibility == "owner only" and owner != seat):
            hidden.append(index)
    pool = [p for index in hidden for p in copy.zones[index]]
    if len(pool) < 2:
        return copy
    rng.shuffle(pool)
    start = 0
    for index in hidden:
        dealt = pool[start:start + len(copy.zones[index])]
        start += len(dealt)
        column = copy.sort_columns[index]
        if column is not None:
            dealt.sort(key=copy.pieces.columns[column].__getitem__)
        copy.zones[index] = dealt
        for p in dealt:
            copy.where[p] = index
    return copy


class MonteCarloAgent(Agent):
    """Flat Monte Carlo over the rest of its own turn: each legal action is tried ``rollouts``
    times, playing on at random (chance sampled with true probabilities) until the turn passes
    to another seat, the round ends or the game ends, and scored with ``evaluate``. Each try starts from a
    ``determinize``d copy, so with hidden information the bot decides from what its seat may
    see. Works for any rules file."""

    name = "mc"

    def __init__(self, seed: int | None = None, rollouts: int = 24, max_steps: int = 400):
        super().__init__(seed)
        self.rollouts = rollouts
        self.max_steps = max_steps

    def choose(self, state: State):
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        seat = state.current_player()
        best, best_value = actions[0], float("-inf")
        for action in actions:
            total = 0.0
            for _ in range(self.rollouts):
                total += self._rollout(state, action, seat)
            if total > best_value:
                best, best_value = action, total
        return best

    def _rollout(self, state: State, action, seat: int) -> float:
        sim = determinize(state, seat, self.rng)
        sim.apply_action(action)
        turn, round_ = sim.turn_number, sim.round_number
        steps = 0
        rng = self.rng
        while (not sim.is_terminal() and sim.turn_number == turn and sim.round_number == round_
               and steps < self.max_steps):
            if sim.current_player() == CHANCE:
                sim.apply_action(sim.sample_chance(rng))
            else:
                sim.apply_action(rng.choice(sim.legal_actions()))
            steps += 1
        return evaluate(sim, seat)


AGENTS = {"random": RandomAgent, "mc": MonteCarloAgent}


def make_agent(name: str, seed: int | None = None) -> Agent:
    """An agent by name (see AGENTS); raises KeyError for an unknown name."""
    return AGENTS[name](seed)


def play_game(state: State, agents: list[Agent], rng: random.Random, on_step=None) -> State:
    """Play to the end: agents decide for their seats, chance is sampled from ``rng``."""
    while not state.is_terminal():
        player = state.current_player()
        action = state.sample_chance(rng) if player == CHANCE else agents[player].choose(state)
        if on_step is not None:
            on_step(state, action)
        state.apply_action(action)
    return state
