"""Bots that play any rules file through a seat's view alone: no game-specific code.

A bot decides from a ``SeatView`` (rulelang.knowledge): the seat, its legal actions and their
labels, its information state and observation, and ``sample_state(rng)``, a determinized
State consistent with what the seat has seen. Bots never get the true State: a bot that
reaches it through the view's private attributes is a defect.
"""

from __future__ import annotations

import numbers
import random
from typing import Any

from . import belief, deduce
from .chains import Chains
from .diagnostics import RuntimeFault
from .faces import objective_reads
from .knowledge import SeatView
from .runtime import CHANCE, State

__all__ = ["AGENTS", "Agent", "DeduceAgent", "MonteCarloAgent", "RandomAgent", "RoundMonteCarloAgent", "SeatView", "SolverAgent",
           "check_bot", "evaluate", "make_agent", "parse_bot", "play_game", "seat_view"]


def seat_view(state: State, seat: int | None = None) -> SeatView:
    """The view a bot gets of ``state`` for ``seat`` (default: the seat to decide)."""
    chosen = state.current_player() if seat is None else seat
    if chosen.__class__ is not int or not 0 <= chosen < state.n:
        raise ValueError(f"a seat view is of a seat 0..{state.n - 1}, not {chosen!r}: at a chance "
                         "node or the end of the game, no seat decides (give `seat`)")
    return SeatView(state, chosen)


class Agent:
    """Picks an action for the seat to move. Seeds belong to the agent, never to the state."""

    name = "agent"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        """The options its constructor takes (``make_agent(name, seed, **options)``), each with
        its default, whose type a value given must have."""
        import inspect

        return {p.name: p.default for p in list(inspect.signature(cls.__init__).parameters.values())[2:]
                if p.kind is p.POSITIONAL_OR_KEYWORD or p.kind is p.KEYWORD_ONLY}

    def reseed(self, seed: int | None) -> None:
        """Decide from now on as a new agent of this seed would, but for what it keeps on
        purpose: a seeded game (``rulelang simulate``, ``run``) keeps one agent per seat and
        reseeds it at each step, so that ``deduce`` keeps its listed worlds (the same as listed
        afresh) and its chains (which a new agent would have to build again). Both come from
        what the seat saw alone, and a seeded game plays the same in simulate and run."""
        self.rng = random.Random(seed)

    def choose(self, view: SeatView):
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniformly random among the legal actions."""

    name = "random"

    def choose(self, view: SeatView):
        return self.rng.choice(view.legal_actions)


def _number(value) -> float | None:
    """A criterion's value as a number, or None when it is not one (a list, a label)."""
    if isinstance(value, numbers.Real):
        return float(value)
    return None


# Each tie-break criterion counts this much less than the one before: it decides between tries
# that the criteria before it value alike (everyone still standing: then the most points).
TIE_BREAK_WEIGHT = 1e-3


def evaluate(state: State, seat: int) -> float:
    """How good a state looks for a seat: 100 x its share of a finished game, plus the lead of
    its first winner criterion over the best other player's (negated for `least`; in a game of
    teams, its team's over the best other team's, ``State.team_scores``), plus those
    of the tie-break criteria, each weighted TIE_BREAK_WEIGHT times the one before; alone in
    the game, or where a criterion gives every player the same value (a cooperative game's
    team score), the criterion's value itself: the score is what counts. A criterion whose
    values are not numbers (none, a list) adds no lead."""
    value = 0.0
    if state.is_terminal():
        value += 100.0 * state.returns()[seat]
    criteria = state.game.criteria
    if not criteria:
        return value
    scores = state.team_scores()  # (by player, or by team: a partner is no rival)
    mine = seat if len(scores) == state.n else state.game.team_of(seat, state.n)
    weight = 1.0
    for k, criterion in enumerate(criteria):
        direction = 1 if criterion.kind == "most" else -1
        table = [_number(row[k]) for row in scores]
        if len(table) == 1 or criterion.same_for_all:
            if table[mine] is not None:
                value += weight * direction * table[mine]
        else:
            others = [v for p, v in enumerate(table) if p != mine and v is not None]
            if table[mine] is not None and others:
                best = max(others) if direction > 0 else min(others)
                value += weight * direction * (table[mine] - best)
        weight *= TIE_BREAK_WEIGHT
    return value


_TIE = 1e-9  # totals of rollouts this close score alike


class MonteCarloAgent(Agent):
    """Flat Monte Carlo over the rest of its own turn: each legal action is tried ``rollouts``
    times (fewer when there are many actions: ``budget`` rollouts in all, each at most
    ``max_steps`` steps), playing on at random (chance sampled with true probabilities) until the turn passes
    to another seat, the round ends or the game ends, and scored with ``evaluate``. With
    ``horizon="round"`` (the bot ``mc_round``), the other seats' turns are played out at random
    too, to the end of the round: for games where a round's result, settled after everyone's
    turn, is what changes the score. Try k of
    every action starts from the same ``view.sample_state``, the k-th: what the seat cannot see
    is drawn again, so the bot decides from what its seat has seen. Works for any rules file."""

    name = "mc"

    def __init__(self, seed: int | None = None, rollouts: int = 24, max_steps: int = 400,
                 budget: int = 600, horizon: str = "turn"):
        super().__init__(seed)
        if horizon not in ("turn", "round"):
            raise ValueError(f"a horizon is `turn` or `round`, not {horizon!r}")
        self.horizon = horizon
        self.rollouts = rollouts
        self.max_steps = max_steps
        self.budget = budget  # rollouts in one decision, all actions together

    def choose(self, view: SeatView):
        actions = view.legal_actions
        if len(actions) == 1:
            return actions[0]
        # Within the budget: fewer tries per action when there are many, and with more actions
        # than the budget, a random choice of them is tried (a game of 2,000 options stays quick).
        if len(actions) > self.budget:
            actions = sorted(self.rng.sample(actions, self.budget))
        tries = max(1, min(self.rollouts, self.budget // len(actions)))
        # One sample per rollout, shared by every action (common random numbers): the actions
        # are compared on the same guesses of what the seat cannot see, and sampling is paid once.
        samples = [view.sample_state(self.rng) for _ in range(tries)]
        best, best_value = [actions[0]], float("-inf")
        for action in actions:
            total = 0.0
            for sample in samples:
                total += self._rollout(sample.clone(tracing=False), view.seat, action)
            if total > best_value + _TIE:
                best, best_value = [action], total
            elif total >= best_value - _TIE:
                best.append(action)
        # Options that score alike (nothing they do shows by the horizon) are taken at random:
        # the first of them would be the lowest card of a sorted hand, every time.
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _rollout(self, sim: State, seat: int, action) -> float:
        rng = self.rng
        # A turn number that never changes keeps the rollout going to the end of the round.
        turn = sim.turn_number if self.horizon == "turn" else None
        round_ = sim.round_number
        steps = 0
        try:
            sim.apply_action(action)
            while (not sim.is_terminal() and (turn is None or sim.turn_number == turn)
                   and sim.round_number == round_ and steps < self.max_steps):
                if sim.current_player() == CHANCE:
                    sim.apply_action(sim.sample_chance(rng))
                else:
                    sim.apply_action(rng.choice(sim.legal_actions()))
                steps += 1
        except RuntimeFault:
            # A look-ahead that faults (rules that fault in this line of play, or a sample the
            # rules cannot continue) scores as the worst outcome of this try.
            return -100.0
        return evaluate(sim, seat)


class _FallsBackToMc(Agent):
    """A bot that plays as ``mc`` (its ``fallback``) where its own method has nothing to say:
    it takes mc's options too."""

    fallback: MonteCarloAgent

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        return {**MonteCarloAgent.option_defaults(), **super().option_defaults()}  # the rest: its fallback's

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        self.fallback.reseed(self.rng.randrange(1 << 30))


class DeduceAgent(_FallsBackToMc):
    """Deduction without knowing the game: keeps the worlds its seat cannot tell from the true
    one and asks the question whose answer splits them best (expected information gain, over
    at most ``considered`` worlds drawn by probability), guessing when that is worth more than
    asking (rulelang.deduce). Its worlds: all of them while there are at most ``max_worlds``
    (``view.worlds``); else ``chains`` games that fit everything the seat saw, moved about by
    local moves, ``chain_steps`` steps played in one decision (``view.chain_worlds``); else
    ``samples`` of ``view.sample_state``. Both the list and the chains are carried from one
    decision to the next. Where no action tells it anything nor decides anything, it plays as
    ``mc``. ``budget``: actions played forward, in all worlds together, in one decision."""

    name = "deduce"

    def __init__(self, seed: int | None = None, max_worlds: int = 4096, chains: int = 16, chain_steps: int = 24000,
                 samples: int = 48, considered: int = 256, budget: int = 20000, discount: float = 0.95,
                 **mc_options):
        super().__init__(seed)
        self.max_worlds, self.chains, self.chain_steps, self.samples = max_worlds, chains, chain_steps, samples
        self.considered, self.budget, self.discount = considered, budget, discount
        self.fallback = MonteCarloAgent(self.rng.randrange(1 << 30), **mc_options)
        self.kept = belief.Belief()  # listed worlds: the same as listing afresh, only quicker
        self.paths = Chains()  # worlds by local moves, carried on (rulelang.chains)

    def beliefs(self, view: SeatView) -> list[tuple[State, float]]:
        """The worlds the seat may be in, each with its probability."""
        found = view.worlds(self.max_worlds, self.kept)
        if found is None and self.chains > 0:
            found = view.chain_worlds(self.paths, self.chains, self.chain_steps, self.rng)
        if found is not None:
            return found
        merged: dict = {}
        for _ in range(self.samples):
            sample = view.sample_state(self.rng)
            key = belief.state_key(sample)
            merged[key] = (sample, merged[key][1] + 1.0) if key in merged else (sample, 1.0)
        return [(s, w / self.samples) for s, w in merged.values()]

    def choose(self, view: SeatView):
        if len(view.legal_actions) == 1:
            return view.legal_actions[0]
        worlds = deduce.draw_worlds(self.beliefs(view), self.considered, self.rng)
        keep = max(1, self.budget // len(view.legal_actions))
        if len(worlds) > keep:  # within the budget: the likeliest worlds, their weights as they were
            worlds = sorted(worlds, key=lambda world: -world[1])[:keep]
        try:
            lines = deduce.consider(worlds, view.seat, evaluate, self.rng, deduce.Budget(self.budget))
        except RuntimeFault:  # a world the rules cannot play on from: decide as mc does
            lines = []
        line, _ = deduce.choose_by_gain(lines, [w for _, w in worlds], self.discount)
        if line is None:
            return self.fallback.choose(view)
        return line.actions[0]


class RoundMonteCarloAgent(MonteCarloAgent):
    """``mc`` looking ahead to the end of the round (``horizon="round"``)."""

    name = "mc_round"

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        return {**MonteCarloAgent.option_defaults(), "horizon": "round", "max_steps": 2000}

    def __init__(self, seed: int | None = None, **options):
        options.setdefault("horizon", "round")
        options.setdefault("max_steps", 2000)
        super().__init__(seed, **options)


class SolverAgent(_FallsBackToMc):
    """Plays each decision of its own turn by the exact analysis of the rest of the turn
    (rulelang.analysis), on ``view.sample_state``: a determinized state, so it never sees what
    its seat cannot. Its objective: ``lead`` (default: how much the turn changes ``evaluate``,
    the seat's lead under the first winner criterion, plus 100 x its share of a game that
    ends), ``gain`` or ``success`` (as ``rulelang analyze`` defines them). ``budget``: states
    valued in one decision; past it, or on a turn that need not end, it plays as ``mc``. The
    analysis is kept for the next decision of the same turn, where the state is among those
    already valued."""

    name = "solver"

    def __init__(self, seed: int | None = None, budget: int = 5000, objective: str = "lead", max_steps: int = 400,
                 **mc_options):
        super().__init__(seed)
        if objective not in ("lead", "gain", "success"):
            raise ValueError(f"an objective is `lead`, `gain` or `success`, not {objective!r}")
        self.budget, self.objective, self.max_steps = budget, objective, max_steps
        self.fallback = MonteCarloAgent(self.rng.randrange(1 << 30), **mc_options)
        self.kept = None  # the last analysis, for the next decision of the same turn

    def choose(self, view: SeatView):
        from . import analysis

        if len(view.legal_actions) == 1:
            return view.legal_actions[0]
        sample = view.sample_state(self.rng)
        kept = self.kept
        if kept is not None and kept.seat == view.seat and kept.turn == sample.turn_number:
            found = kept.best_at(sample, self.rng)
            if found is not None:
                return found
        try:
            result = analysis.Analysis(sample, self._objective(sample.game), max_states=self.budget,
                                       max_steps=self.max_steps)
        except (analysis.AnalysisRefused, RuntimeFault):  # a line of play the rules cannot go on with
            self.kept = None
            return self.fallback.choose(view)
        self.kept = result
        best = result.best_action(self.rng)
        return best if best is not None else self.fallback.choose(view)

    def _objective(self, game):
        from . import analysis

        if self.objective == "gain":
            return analysis.gain_objective(game)
        if self.objective == "success":
            return analysis.success_objective(game)
        reads = frozenset().union(*(objective_reads(check.test) for check in game.criteria + game.no_winner))
        return analysis.Objective("lead", "the change of the seat's lead (agents.evaluate)",
                                  lambda state, seat, start: evaluate(state, seat) - start, evaluate, reads)


AGENTS = {"random": RandomAgent, "mc": MonteCarloAgent, "mc_round": RoundMonteCarloAgent, "deduce": DeduceAgent,
          "solver": SolverAgent}


def make_agent(name: str, seed: int | None = None, **options) -> Agent:
    """An agent by name (see AGENTS) or by a bot spec (``parse_bot``); raises KeyError for an
    unknown name, TypeError for an unknown option. ``options`` go to its constructor (e.g.
    ``rollouts=4`` for mc) after the spec's own."""
    name, spec_options = parse_bot(name)
    return AGENTS[name](seed, **{**spec_options, **options})


def parse_bot(spec: str) -> tuple[str, dict]:
    """A bot spec as `NAME` or `NAME:OPTION=VALUE:...` (``deduce:max_worlds=8192``): the name
    and the options, each value read as a number, true/false or else text. ValueError names a
    piece that is not `OPTION=VALUE`."""
    name, *parts = spec.split(":")
    options: dict = {}
    for part in parts:
        key, sep, text = part.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"`{part}` is not OPTION=VALUE")
        options[key.strip()] = _option_value(text.strip())
    return name.strip(), options


def _option_value(text: str):
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if len(text) > 30:  # no budget has that many digits: kept as text, refused as such
        return text[:30] + "..."
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def check_bot(spec: str) -> str | None:
    """Why a bot spec cannot make a bot (an unknown name, a malformed or unknown option), or None."""
    try:
        name, options = parse_bot(spec)
        if name not in AGENTS:
            return f"unknown bot `{name}`"
        known = AGENTS[name].option_defaults()
        for option, value in options.items():
            if option not in known:
                return f"bot `{name}` has no option `{option}` (its options: {', '.join(known)})"
            wrong = _wrong_value(value, known[option])
            if wrong:
                shown = str(value).lower() if value.__class__ is bool else value
                return f"bot `{name}`: option `{option}` takes {wrong}, not `{shown}`"
        make_agent(spec, 0)
    except (TypeError, ValueError) as error:
        return f"bot `{spec}`: {error}"
    return None


def _wrong_value(value: Any, default: Any) -> str | None:
    """What an option whose default is ``default`` takes, when ``value`` is not that; else None."""
    if default.__class__ is bool:
        return None if value.__class__ is bool else "true or false"
    if default.__class__ is int:
        return None if value.__class__ is int and value >= 0 else "a whole number, 0 or more"
    if default.__class__ is float:
        return None if value.__class__ in (int, float) and value >= 0 else "a number, 0 or more"
    if default.__class__ is str:
        return None if value.__class__ is str else "a word"
    return None


def play_game(state: State, agents: list[Agent], rng: random.Random, on_step=None) -> State:
    """Play to the end: agents decide for their seats from their views, chance is sampled from
    ``rng``."""
    while not state.is_terminal():
        player = state.current_player()
        action = state.sample_chance(rng) if player == CHANCE else agents[player].choose(seat_view(state))
        if on_step is not None:
            on_step(state, action)
        state.apply_action(action)
    return state


from . import ismcts  # noqa: E402, F401  (adds the bot `ismcts` to AGENTS; it builds on Agent)
