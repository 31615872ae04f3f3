"""Information-set Monte Carlo tree search: the ``ismcts`` bot (single observer).

One tree of the deciding seat's information sets (Cowling, Powley and Whitehouse 2012, SO-ISMCTS).
Each iteration takes a determinization of what the seat has seen (``SeatView.sample_state``),
walks down the tree choosing by UCB among the actions available in that determinization
(counting how often each was available), adds one node, plays on at random to its horizon
(the end of the turn by default) and backs up the result: at every node, the value for the
seat that moved there. Chance outcomes are drawn with their true probabilities and branch
the tree (a roll seen is a different position). The bot never sees the true State: only the
view's legal actions and its determinizations. Importing rulelang.agents registers the bot
in ``AGENTS`` (this module builds on its ``Agent``).
"""

from __future__ import annotations

import math
import numbers
import time

from .agents import AGENTS, TIE_BREAK_WEIGHT, Agent
from .diagnostics import RuntimeFault
from .knowledge import SeatView
from .runtime import CHANCE, State

__all__ = ["IsmctsAgent", "standing"]


class _Node:
    """A node of the tree: its children by action (decisions) or outcome (chance), and the
    statistics of the edge into it: visits, total value for the seat that moved, and how often
    that move was available."""

    __slots__ = ("children", "visits", "total", "available")

    def __init__(self) -> None:
        self.children: dict = {}
        self.visits = 0
        self.total = 0.0
        self.available = 1


def standing(state: State) -> list[float]:
    """Each seat's value of a state, from 0 to 1: ``returns()`` at the end; before it, from its
    lead by the first winner criterion over the best other seat (negated for `least`), scaled
    by the two values: 1/2 + lead / (2 (|mine| + |best other| + 1)); where the criterion gives
    every player the same value (a team score), that value v the same way: 1/2 + v / (2 (|v| + 1)).
    Each tie-break criterion adds its own (less 1/2), weighted ``TIE_BREAK_WEIGHT`` times the one
    before. Where the rules give no criterion or the first's values are not numbers, an even share.
    In a game of teams, each seat has its team's value, worked out the same way among the teams."""
    n = state.n
    if state.is_terminal():
        return state.returns()
    even = [1.0 / n] * n
    criteria = state.game.criteria
    if not criteria or n < 2:
        return even
    try:
        scores = state.team_scores()  # (by team in a game of teams: a partner is no rival)
    except RuntimeFault:
        return even
    if len(scores) < 2:
        return even
    values = _scaled([row[0] for row in scores], criteria[0])
    if values is None:
        return even
    weight = TIE_BREAK_WEIGHT
    for k in range(1, len(criteria)):
        more = _scaled([row[k] for row in scores], criteria[k])
        if more is not None:
            values = [v + weight * (m - 0.5) for v, m in zip(values, more)]
        weight *= TIE_BREAK_WEIGHT
    if len(values) < n:  # each seat has its team's value
        values = [values[state.game.team_of(p, n)] for p in range(n)]
    return values


def _scaled(table: list, criterion) -> list[float] | None:
    """``standing``'s value of one criterion for each seat, or None where a value is no number."""
    if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in table):
        return None
    direction = 1 if criterion.kind == "most" else -1
    if criterion.same_for_all:  # a team score (every player's value alike): the value itself counts
        return [0.5 + direction * v / (2 * (abs(v) + 1)) for v in table]
    values = []
    for p, mine in enumerate(table):
        others = [direction * v for q, v in enumerate(table) if q != p]
        best = direction * max(others)
        values.append(0.5 + direction * (mine - best) / (2 * (abs(mine) + abs(best) + 1)))
    return values


class IsmctsAgent(Agent):
    """Information-set MCTS over ``iterations`` iterations (or until ``seconds`` of wall time,
    if given, have passed: then the decision depends on the machine's speed, not only on the
    seed). ``c``: UCB exploration constant. ``horizon``: an iteration stops at the end of the
    deciding seat's ``turn`` (as ``mc`` does), of the ``round`` or of the ``game``, or after
    ``max_steps`` steps (tree and playout together); cut short, it scores by ``standing``.
    ``determinizations``: how many are drawn, used in turn (drawing one replays the game)."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, iterations: int = 800, seconds: float = 0.0,
                 c: float = 0.7, max_steps: int = 100, determinizations: int = 32,
                 horizon: str = "turn"):
        super().__init__(seed)
        if horizon not in ("turn", "round", "game"):
            raise ValueError(f"a horizon is `turn`, `round` or `game`, not {horizon!r}")
        if iterations < 1 or determinizations < 1 or max_steps < 1:
            raise ValueError("iterations, determinizations and max_steps are at least 1")
        if seconds < 0 or c < 0:
            raise ValueError("seconds and c are not negative")
        self.iterations, self.seconds, self.c = iterations, seconds, c
        self.max_steps, self.determinizations, self.horizon = max_steps, determinizations, horizon
        self.searched = 0  # iterations run in the last decision that searched

    def choose(self, view: SeatView):
        actions = view.legal_actions
        if len(actions) == 1:
            return actions[0]
        root = _Node()
        samples: list[State] = []
        deadline = time.monotonic() + self.seconds if self.seconds else None
        self.searched = 0
        for i in range(self.iterations):
            if deadline is not None and i and time.monotonic() > deadline:
                break
            self.searched += 1
            if len(samples) < self.determinizations:
                samples.append(view.sample_state(self.rng))
            sim = samples[i % len(samples)].clone(tracing=False)
            if sim.is_terminal() or sim.current_player() != view.seat:
                continue  # a determinization the rules cannot decide at: none to learn from
            self._iterate(root, sim)
        best, most = [actions[0]], -1
        for action in actions:  # the most visited, one of them at random on a tie
            child = root.children.get(action)
            if child is not None and child.visits > most:
                best, most = [action], child.visits
            elif child is not None and child.visits == most:
                best.append(action)
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _iterate(self, root: _Node, sim: State) -> None:
        rng, c = self.rng, self.c
        node, path, steps, grown = root, [], 0, False
        # A number that never changes keeps the iteration going past the turn or the round.
        turn = sim.turn_number if self.horizon == "turn" else None
        round_ = sim.round_number if self.horizon != "game" else None
        try:
            while (not sim.is_terminal() and steps < self.max_steps and (turn is None or sim.turn_number == turn)
                   and (round_ is None or sim.round_number == round_)):
                mover = sim.current_player()
                if mover == CHANCE:
                    action = sim.sample_chance(rng)
                    if not grown:  # keyed apart from the options, which are numbers too
                        node = node.children.setdefault((CHANCE, action), _Node())
                elif grown:  # the playout: random moves
                    legal = sim.legal_actions()
                    action = legal[int(rng.random() * len(legal))]
                else:
                    legal = sim.legal_actions()
                    children = node.children
                    untried = [a for a in legal if a not in children]
                    for a in legal:
                        if a in children:
                            children[a].available += 1
                    if untried:
                        action = untried[int(rng.random() * len(untried))]
                        node = children[action] = _Node()
                        grown = True
                    else:
                        action, node = _select(children, legal, c, rng)
                    path.append((node, mover))
                sim.apply_action(action)
                steps += 1
            values = standing(sim)
        except RuntimeFault:  # a line of play the rules fault in: worth nothing to anyone
            values = [0.0] * sim.n
        for node, mover in path:
            node.visits += 1
            node.total += values[mover]


def _select(children: dict, legal: list, c: float, rng):
    """The action (and its node) of highest UCB among the available ones, one of them at random
    on a tie (the first every time would favour the first option while values are alike)."""
    best, best_score = [], -math.inf
    for action in legal:
        child = children[action]
        score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits) \
            if child.visits else math.inf
        if score > best_score:
            best, best_score = [action], score
        elif score == best_score:
            best.append(action)
    action = best[0] if len(best) == 1 else best[int(rng.random() * len(best))]
    return action, children[action]


AGENTS[IsmctsAgent.name] = IsmctsAgent
