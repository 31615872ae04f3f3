"""Exact analysis of one turn: expectimax over the engine's own chance outcomes and legal actions.

From a state (the start of a turn, or any state within one) the analysis plays every way the
turn can go: every outcome of each roll, draw or shuffle with its exact probability, and every
option of each decision, until the turn ends (a new turn or round begins, or the game ends).
The player whose turn it is takes the option of highest value; another seat deciding within
that turn takes the lowest (a cautious value). States that play on alike are merged
(``rulelang.turnkey``), so each is valued once. The value is that of an ``Objective`` at the
turn's end. A decision with one option is played at once: it is no state of its own.

``Analysis.policy(top)`` lists the decisions reached under best play, decision by decision and
the most probable situations of each first, each described from what the player sees (``describe``), with the best option's value and the
runner-up's. A turn that does not end within ``max_steps`` steps, can come back to a state it
was in, or has more than ``max_states`` states is refused (``AnalysisRefused``).
"""

from __future__ import annotations

import contextlib
import gc
import random
import re
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import attrs

from . import knowledge
from .diagnostics import RuntimeFault
from .engine_values import _CHANCE_KINDS, _value_text
from .faces import COUNTERS, EVERY, objective_reads, reads_in_turn
from .model import team_total
from .runtime import CHANCE, State
from .turnkey import TurnKeys

MAX_STATES = 2_000_000  # states valued in one analysis
MAX_STEPS = 400  # steps (decisions and outcomes) from the start of the analysis to the turn's end
PROGRESS_EVERY = 4096  # states valued between two calls of an analysis's ``progress``
TURN_END = "(the turn's end)"  # an end's key: (TURN_END, its value)
TIE = 1e-9  # values this close score alike (``best_action`` with a random tie-break)


class AnalysisRefused(Exception):
    """The turn cannot be analysed exactly: the message says why, in the language's words."""


# what a designer can do about a turn that need not end (a variant that caps it)
UNBOUNDED_HELP = ("; to analyse it, write a variant that caps the turn (`extends` the file, count the throws "
                  "with a `let` and `break` after a few: tests/scenarios/designer-games/zombie-dice-capped.rules)")


@attrs.frozen
class Objective:
    """What a turn is worth at its end: ``value(state, seat, start)`` with ``start`` what
    ``baseline(state, seat)`` gave at the start of the analysis; ``text`` says it in words."""

    name: str
    text: str
    value: Callable[[State, int, Any], Any]
    baseline: Callable[[State, int], Any] = lambda state, seat: None
    # The zones (names) ``value`` may read, for rulelang.faces; None: any zone.
    reads: frozenset[str] | None = None


def _criterion(state: State, seat: int, check) -> Any:
    """A winner criterion's value for ``seat`` (as ``State.scores`` works it out)."""
    saved = state.player
    state.player = seat
    try:
        return state._evaluate(check, f"winner rule `{state.game.rules[check.rule].name}`")
    finally:
        state.player = saved


def _number(value, what: str) -> Any:
    if value.__class__ is bool:
        return int(value)
    if value.__class__ not in (int, float, Fraction):
        raise AnalysisRefused(f"{what} is {_value_text(value)} here, not a number")
    return value


def _team_criterion(state: State, seat: int, check) -> Any:
    """``_criterion`` for ``seat``, or, in a game of teams, the sum over its team (as teams are
    ranked, ``State.team_scores``)."""
    if state.game.team_size == 1:
        return _criterion(state, seat, check)
    values = [_criterion(state, p, check) for p in state.game.team(seat, state.n)]
    odd = next((v for v in values if v is not None and v.__class__ not in (int, float, bool, Fraction)), None)
    return odd if odd is not None else team_total(values)  # (what is no number: `_number` says so)


def gain_objective(game) -> Objective:
    """What the turn gains under the first winner criterion: its value for the player at the
    turn's end minus at the start (for a `least` criterion, the start minus the end); in a
    game of teams, its team's value."""
    if not game.criteria:
        raise AnalysisRefused("the game has no winner criterion to measure a turn's gain; "
                              "give an objective: --objective EXPR")
    check = game.criteria[0]
    sign = 1 if check.kind == "most" else -1
    what = f"the winner rule `{game.rules[check.rule].name}`"

    def baseline(state: State, seat: int):
        return _number(_team_criterion(state, seat, check), what)

    def value(state: State, seat: int, start):
        return sign * (_number(_team_criterion(state, seat, check), what) - start)

    return Objective("gain", f"what the turn gains under the winner rule `{game.rules[check.rule].name}` "
                     f"({'its value at the end minus at the start' if sign > 0 else 'lower is better: start minus end'}"
                     + (", summed over the player's team" if game.team_size > 1 else "") + ")",
                     value, baseline, objective_reads(check.test))


def success_objective(game) -> Objective:
    """1 when the turn gains something under the first winner criterion (``gain_objective``
    above zero), else 0: a turn that leaves the player's score as it was, or lowers it, fails."""
    gain = gain_objective(game)
    rule = game.rules[game.criteria[0].rule].name
    return Objective("success", f"the chance that the turn gains something under the winner rule `{rule}`",
                     lambda state, seat, start: int(gain.value(state, seat, start) > 0), gain.baseline, gain.reads)


def expression_objective(check, text: str) -> Objective:
    """The value of a rules expression for the player at the turn's end (true counts 1, false
    0); ``check`` is the expression compiled as a winner criterion (``compile_objective``)."""
    def value(state: State, seat: int, start):
        return _number(_criterion(state, seat, check), f"`{text}`")

    return Objective(text, f"`{text}` for the player at the turn's end", value, reads=objective_reads(check.test))


# ---------------------------------------------------------------------- the analysis


@attrs.frozen
class PolicyLine:
    """A decision reached under best play: how likely it is to be reached, what the player sees,
    the best option and its value, the runner-up and its value (None when there is one option)."""

    probability: Any
    situation: str
    best: str
    value: Any
    runner_up: str | None
    runner_up_value: Any
    decision: str = ""  # the decision's rule (and prompt): the policy is listed decision by decision


class Analysis:
    """The exact value of best play for the rest of a turn (see the module's docstring)."""

    def __init__(self, state: State, objective: Objective, exact: bool = False,
                 max_states: int = MAX_STATES, max_steps: int = MAX_STEPS, unordered: frozenset[int] = frozenset(),
                 progress=None):
        if state.is_terminal():
            raise AnalysisRefused("the game is over before any decision is left to make: there is no turn to "
                                  "analyse" + (" (it plays itself out: no rule asks a player to choose before the end)"
                                               if not state.history or state.turn_number == 0 else ""))
        root = state.clone(tracing=False)
        root.stop_at_turn_end = True  # a turn's end is valued there, before the round's statements after it
        root.events, root.history, root.seen_lines = [], [], {}
        knowledge.forget(root)  # what seats know does not change play
        self.start = state
        # whose turn it is; with no turn under way (a game played in rounds alone, a decision of
        # the round between turns), the seat that decides now
        mover = root.current_player()
        in_turn = root.turn_number and any(frame[3] for frame in root.frames)
        self.seat = root.player if in_turn or not 0 <= mover < root.n else mover
        self.objective = objective
        self.exact = exact
        self.max_states, self.max_steps = max_states, max_steps
        # ``progress(states)`` is told the states valued so far, every PROGRESS_EVERY of them
        self._progress = progress
        self._ends = 0  # the turn's ends reached (they share a node per value)
        self._next_report = max_states if progress is None else min(max_states, PROGRESS_EVERY)
        self.turn, self.round = root.turn_number, root.round_number
        self.baseline = objective.baseline(root, self.seat)
        self._keys = TurnKeys(unordered, objective.reads)
        # The analysis sees everything: where a rule or the objective reads what a seat may not
        # see, best play may use it, and the value is that of play that sees it.
        self.sees_hidden = reads_unseen(state.game, objective)  # the names of what it reads
        # key -> [value, kind, children, parent key, (action from the parent, options with no
        # alternative played after it), the key itself]; kind: "end",
        # "chance" (children: (probability, key)), "max"/"min" (children: (action, key, value)).
        self.nodes: dict[tuple, list] = {}
        self._order: list[list] = []  # nodes as their values were found: children before parents
        self._rolls: dict[tuple, list] = {}  # the kinds and counts of a roll's dice -> its outcomes
        self.root_key = self._keys.key(root)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * max_steps + 200))
        try:  # a RuntimeFault in a line of play goes to the caller: it names the rule
            with _no_collection():
                self.value = self._value(root, self.root_key, 0, None, None)
        finally:
            sys.setrecursionlimit(limit)

    @property
    def states(self) -> int:
        """States valued (each once)."""
        return len(self.nodes)

    def _probability(self, p: Fraction):
        return p if self.exact else float(p)

    def _value(self, state: State, key: tuple, depth: int, parent, action):
        if key[0] is TURN_END:
            value = key[1]  # (worked out in ``_step``, which keys a turn's end by it)
            if self.exact and value.__class__ is float:
                value = Fraction(value)
            node = self.nodes[key] = [value, "end", (), parent, action, key]
            self._order.append(node)
            return value
        if depth >= self.max_steps:
            raise self._too_long()
        nodes = self.nodes
        valued = len(nodes) + self._ends
        if valued >= self._next_report:
            if valued >= self.max_states:
                raise AnalysisRefused(f"the turn has more than {self.max_states:,} states to value")
            self._next_report = min(self.max_states, valued + PROGRESS_EVERY)
            self._progress(valued)
        node = [None, None, None, parent, action, key]  # no value yet: on the path being played
        nodes[key] = node
        step = self._step
        player = state.current_player()
        if player == CHANCE:
            # id of a child's key (the memo's own: one object per state) -> [key, probability]
            merged: dict[int, list] = {}
            outcomes = self._outcomes(state)
            last = len(outcomes) - 1
            total = 0
            for i, (outcome, p) in enumerate(outcomes):
                child, child_key, forced = step(state, outcome, i == last, depth)
                found = nodes.get(child_key)
                if found is None:
                    merged[id(child_key)] = [child_key, p]
                    total += p * self._value(child, child_key, depth + 1 + len(forced), key, (outcome, forced))
                    continue
                child_key = found[5]  # the key kept: equal ones made since are dropped
                seen = merged.get(id(child_key))
                if seen is not None:
                    seen[1] += p
                    total += p * found[0]
                    continue
                merged[id(child_key)] = [child_key, p]
                total += p * self._found(found)
            node[1], node[2] = "chance", tuple((p, k) for k, p in merged.values())
            value = total
        else:
            actions = state.legal_actions()
            last = len(actions) - 1
            children = []
            for i, a in enumerate(actions):
                child, child_key, forced = step(state, a, i == last, depth)
                found = nodes.get(child_key)
                if found is None:
                    children.append((a, child_key, self._value(child, child_key, depth + 1 + len(forced), key,
                                                               (a, forced))))
                else:
                    value = found[0]
                    children.append((a, found[5], value if value is not None else self._found(found)))
            mine = player == self.seat
            value = (max if mine else min)([v for _, _, v in children])
            node[1], node[2] = ("max" if mine else "min"), tuple(children)
        node[0] = value
        self._order.append(node)
        return value

    def _outcomes(self, state: State) -> list:
        """``state.chance_outcomes()`` with probabilities as floats unless exact; a roll's are
        kept by the kinds and counts of its dice, which are all they depend on."""
        pending = state.pending
        if pending[0] != "roll":
            return [(outcome, self._probability(p)) for outcome, p in state.chance_outcomes()]
        dice = tuple((kind, len(pieces)) for kind, pieces in pending[2])
        found = self._rolls.get(dice)
        if found is None:
            found = self._rolls[dice] = [(outcome, self._probability(p)) for outcome, p in state.chance_outcomes()]
        return found

    def _step(self, state: State, action, in_place: bool, depth: int) -> tuple:
        """The state after ``action`` (played in ``state`` itself when ``in_place``), played on
        through decisions with one option (``_forced``): (that state, its key, the options
        played). A turn's end is keyed by its value alone, (TURN_END, value): all that counts of
        it (each end reached counts towards ``max_states``, which bounds the work)."""
        # (a copy of a state that records nothing and knows nothing: ``clone`` without its checks)
        child = state if in_place else state._copy()
        child.apply_action(action)
        pending = child.pending
        forced = self._forced(child, depth) if (
            pending is not None and len(pending[2]) == 1 and pending[0] not in _CHANCE_KINDS) else ()
        if self._over(child):
            self._ends += 1
            return child, (TURN_END, self.objective.value(child, self.seat, self.baseline)), forced
        return child, self._keys.key(child), forced

    def _over(self, state: State) -> bool:
        """Whether the turn valued is over in ``state``: stopped where it ended, or where a turn
        would begin (``State.turn_over``), the game over, or another turn or round under way."""
        return state.turn_over or state.finished or state.turn_number != self.turn or state.round_number != self.round

    def _forced(self, state: State, depth: int) -> tuple:
        """Plays on, in place, the decisions of ``state`` that have one option (nothing to
        value: they are not nodes, and not in the policy) while the turn goes on; returns
        the options played."""
        played = []
        pending = state.pending
        while (pending is not None and len(pending[2]) == 1 and pending[0] not in _CHANCE_KINDS
               and not self._over(state)):
            if depth + len(played) >= self.max_steps:
                raise self._too_long()
            state.apply_action(0)
            played.append(0)
            pending = state.pending
        return tuple(played)

    def _too_long(self) -> AnalysisRefused:
        return AnalysisRefused(f"the turn does not end within {self.max_steps} steps (decisions and "
                               "outcomes): it may not end in a bounded number of steps" + UNBOUNDED_HELP)

    def _found(self, found: list):
        """The value of a state already met: refused when it is on the path to itself (a
        state is valued, its value set, once all of its children are)."""
        if found[0] is None:
            raise AnalysisRefused("the turn can come back to a state it was in, so it need not end "
                                  "in a bounded number of steps" + UNBOUNDED_HELP)
        return found[0]

    # ------------------------------------------------------------------ the policy

    def reach(self) -> dict[tuple, Any]:
        """How likely each state is to be reached from the start under best play (the player's
        best option, another seat's worst for the player), the states in the order first
        reached."""
        # A node's key is one object (the memo's own), so its id stands for it: no key is hashed
        reached: dict[int, list] = {id(self.root_key): [self.root_key, 1 if self.exact else 1.0]}
        for node in reversed(self._order):  # parents before children
            entry = reached.get(id(node[5]))
            if entry is None:
                continue
            p, kind, children = entry[1], node[1], node[2]
            if kind == "chance":
                for q, child in children:
                    found = reached.get(id(child))
                    if found is None:
                        reached[id(child)] = [child, p * q]
                    else:
                        found[1] += p * q
            elif kind in ("max", "min"):
                child = (max if kind == "max" else min)(children, key=_value_of)[1]  # the first best
                found = reached.get(id(child))
                if found is None:
                    reached[id(child)] = [child, p]
                else:
                    found[1] += p
        return {key: p for key, p in reached.values()}

    def policy(self, top: int | None = 20) -> list[PolicyLine]:
        """The player's decisions reached under best play, decision by decision (the one most
        likely reached first), each decision's situations most probable first (``top`` of them
        per decision): a turn's later decisions (stop or roll again) are listed too, not only
        the many situations of its first."""
        with _no_collection():
            reach = self.reach()
        by_decision: dict[tuple, list[tuple]] = {}
        for key, p in reach.items():
            # (a decision with one option is played, not listed: one at the turn's start too)
            if p and self.nodes[key][1] == "max" and len(self.nodes[key][2]) > 1:
                by_decision.setdefault(key[1][:2], []).append(key)
        groups = sorted(by_decision.values(), key=lambda keys: -sum(reach[k] for k in keys))
        lines = []
        for keys in groups:
            keys.sort(key=lambda k: -reach[k])
            for key in keys[:top]:
                state = self._replay(key)
                ranked = _ranked(self.nodes[key][2], "max")
                best, second = ranked[0], ranked[1] if len(ranked) > 1 else None
                rolled = frozenset(self._keys.dead_zones(state))
                lines.append(PolicyLine(
                    reach[key], describe(state, self.start, self.seat, rolled, self._live_variables(state)),
                    state.action_to_string(best[0]), best[2],
                    None if second is None else state.action_to_string(second[0]),
                    None if second is None else second[2], _decision(state)))
        return lines

    def _live_variables(self, state: State) -> list[str]:
        """`NAME = VALUE` for the variables of the turn that rules still read (a turn's running
        points): two situations that differ only in them are told apart. Numbers, labels and
        true/false only, and only where no rule reads what a seat may not see (a variable may
        be worked out from it): a hidden counter that nothing reads hides nothing."""
        if self.sees_hidden:
            return []
        shown = []
        waiting = state.pending[0] if state.pending is not None else None
        for _, frame, live in self._keys._frames_live(waiting, state.frames):
            procedure = state.game.procedures[frame[0]]
            kinds = procedure.piece_slots
            for slot in live:
                if slot >= len(procedure.slot_names) or (slot < len(kinds) and kinds[slot] is not None):
                    continue
                name, value = procedure.slot_names[slot], frame[2][slot]
                if name.startswith("(") or value is None or value.__class__ not in (int, bool, str):
                    continue
                is_player = slot < len(procedure.player_slots) and procedure.player_slots[slot]
                shown.append(f"{name} = {f'player {value + 1}' if is_player else _value_text(value)}")
        return shown

    def _replay(self, key: tuple) -> State:
        """The state of ``key``, played again from the start along the path that found it."""
        path = []
        while key != self.root_key:
            _, _, _, parent, (action, forced), _ = self.nodes[key]
            path.append((action, forced))
            key = parent
        state = self.start.clone()
        for action, forced in reversed(path):
            state.apply_action(action)
            for option in forced:
                state.apply_action(option)
        return state

    def best_at(self, state: State, rng=None):
        """The player's best option at ``state`` when it is a decision of theirs already valued
        (a later state of the analysed turn), else None. The valued state may list its options
        in another order (it is only alike), so the option is the one leading where the best
        option led there. With ``rng``, one of the options that score alike is taken at random."""
        node = self.nodes.get(self._keys.key(state))
        if node is None or node[1] != "max":
            return None
        best, best_key, _ = _best(node[2], rng)
        return self._leading_to(state, best_key, best)

    def _leading_to(self, state: State, key: tuple, guess):
        """The legal action of ``state`` whose next state has ``key`` (``guess`` tried first)."""
        actions = state.legal_actions()
        base = state.clone(tracing=False)
        base.stop_at_turn_end = True  # (an end is valued where the turn stops, as in the analysis)
        for action in ([guess] if guess in actions else []) + actions:
            if self._step(base, action, False, 0)[1] == key:
                return action
        return None

    def best_action(self, rng=None):
        """The player's best option at the start (the first of equal ones, or with ``rng`` one
        of them at random); None at a chance node or another seat's decision."""
        node = self.nodes[self.root_key]
        if node[1] != "max":
            return None
        return _best(node[2], rng)[0]


def flat_objective(state: State, objective: Objective, plays: int = 24, seed: int = 0, steps: int = 2000) -> bool:
    """Whether ``objective`` ends the turn of ``state`` with one value in each of ``plays``
    random plays of it (a winner rule scored only in `round:` gains nothing within a turn):
    a search would value every line alike. False when a play faults or does not end."""
    rng = random.Random(seed)
    root = state.clone(tracing=False)
    root.stop_at_turn_end = True
    root.events, root.history, root.seen_lines = [], [], {}
    knowledge.forget(root)
    mover = root.current_player()
    in_turn = root.turn_number and any(frame[3] for frame in root.frames)
    seat = root.player if in_turn or not 0 <= mover < root.n else mover
    turn, round_ = root.turn_number, root.round_number
    baseline = objective.baseline(root, seat)
    values = set()
    for _ in range(plays):
        play = root.clone(tracing=False)
        try:
            for _ in range(steps):
                if play.turn_over or play.finished or play.turn_number != turn or play.round_number != round_:
                    break
                play.apply_action(play.sample_chance(rng) if play.current_player() == CHANCE
                                  else rng.choice(play.legal_actions()))
            else:
                return False
            values.add(objective.value(play, seat, baseline))
        except (RuntimeFault, TypeError, ValueError):
            return False
        if len(values) > 1:
            return False
    return True


def _decision(state: State) -> str:
    """A decision as the rules name it: its rule, and its prompt when the rules gave one."""
    frame = state.frames[-1]
    rule = state.game.rules[state.game.procedures[frame[0]].code[frame[1]][3]].name
    prompt = state.prompt()
    return f"rule `{rule}`" + (f" ({prompt})" if prompt and prompt != "choose" else "")


def reads_unseen(game, objective: Objective) -> tuple[str, ...]:
    """The zones and counters that some seat does not see and that a rule a turn runs, or the
    objective, may read (a `top only` zone, whose pieces everyone saw arrive, counts as seen)."""
    reads = reads_in_turn(game) | (objective.reads if objective.reads is not None else {EVERY})
    unseen = [zone.name for zone in game.zones if zone.visibility not in ("public", "top only")]
    found = [name for name in unseen if EVERY in reads or name in reads]
    if COUNTERS in reads:
        found += [counter.name for counter in game.counters if counter.visibility != "public"
                  and (game.counters_read is None or counter.name in game.counters_read)]
    return tuple(found)


@contextlib.contextmanager
def _no_collection():
    """The memo is many small tuples that live to the end: collecting them is wasted time.

    On the way out the objects made meanwhile are frozen (``gc.freeze``): without that, the
    next allocation would start a full collection over a million memo objects (seconds, for
    a large turn). Frozen objects are still freed when their last reference goes (the
    memo holds no cycles, nor does a state); only cyclic garbage among them would stay."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.freeze()
            gc.enable()


def _value_of(child: tuple):
    return child[2]


def _ranked(children, kind: str) -> list:
    """Options best first for ``kind`` ("max": highest value), ties in the options' order."""
    sign = -1 if kind == "max" else 1
    return sorted(children, key=lambda child: sign * child[2])


def _best(children, rng=None) -> tuple:
    """The child of highest value: the first of those that score alike (within ``TIE``), or
    with ``rng`` one of them at random (a bot that always takes the first of equal options
    plays the same card every time, whatever the round does with it later)."""
    ranked = _ranked(children, "max")
    if rng is None:
        return ranked[0]
    top = ranked[0][2]
    tied = [child for child in ranked if top - child[2] <= TIE]
    return tied[0] if len(tied) == 1 else rng.choice(tied)


_SHOWING = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]* showing ")


def describe(state: State, start: State, seat: int, rolled: frozenset[int] = frozenset(),
             variables: list[str] | None = None) -> str:
    """A decision's situation as the player sees it: the zones and the shared `show` values
    that differ from the start of the analysis (dice by the face they show), then
    ``variables`` (`NAME = VALUE`). ``rolled``: zones whose dice will be rolled before any
    rule reads them (rulelang.faces), so the situation is the same whatever they show: a zone
    of such dice only is told by how many it holds."""
    now, before = state.observation(seat)["zones"], start.observation(seat)["zones"]
    dice_only = {state.zone_name(i, seat): len(state.zones[i]) for i in rolled
                 if state.zones[i] and all(state.game.kinds[state.pieces.kind[p]].is_die for p in state.zones[i])}
    parts = []
    for name, pieces in now.items():
        if before.get(name) == pieces:
            continue
        if name in dice_only:
            text = f"{dice_only[name]} {'die' if dice_only[name] == 1 else 'dice'}"
        elif isinstance(pieces, list):
            kinds = {match.group(0) for piece in pieces for match in [_SHOWING.match(piece)] if match}
            # dice of one kind by their faces alone; of several kinds, each named (`white 1 red_die 2`)
            # dice by their faces, `1 3 6`; other pieces apart, `card 1, card 3`
            apart = ", " if any(not _SHOWING.match(piece) for piece in pieces) else " "
            text = apart.join(_SHOWING.sub("" if len(kinds) < 2 else lambda m: m.group(0)[:-len("showing ")], piece)
                              for piece in pieces) or "empty"
        elif "top" in pieces:
            text = f"{pieces['count']}, top {pieces['top'] if pieces['top'] is not None else 'none'}"
        else:
            text = f"{pieces['count']} hidden" if pieces["count"] else "empty"
        parts.append(f"{name}: {text}")
    counters, counters_before = state.observation(seat)["counters"], start.observation(seat)["counters"]
    for name, value in counters.items():
        if counters_before.get(name) != value:
            parts.append(f"{name}: {_value_text(value)}")
    shown_now, _ = state.shown_values(seat)
    shown_before, _ = start.shown_values(seat)
    for name, value in shown_now.items():
        if shown_before.get(name) != value:
            parts.append(f"{name}: {_value_text(value) if value is not None else 'none'}")
    parts.extend(variables or ())
    picked = state.picked_so_far(seat)  # a step of a choice of several: what it holds so far
    if picked:
        parts.append("picked so far: " + ", ".join(_SHOWING.sub("", piece) if len(
            {m.group(0) for m in map(_SHOWING.match, picked) if m}) < 2 else piece for piece in picked))
    return "; ".join(parts) or "as at the start"


def compile_objective(path: str, text: str, options: dict | None = None, limits=None, root: str | None = None):
    """The game of ``path`` and ``text``, a rules expression, compiled with it as an objective:
    (game, Objective), or (None, diagnostics). The expression is worked out as a winner
    criterion is, for each player (`player` is the one whose turn is analysed); the game
    played is the file's own (the expression is not among its criteria)."""
    from . import nodes as n
    from .compiler import compile_game
    from .limits import DEFAULT
    from .parser import parse
    from .pipeline import coerce_options, parse_file
    from .source import Source
    from .variants import resolve

    limits = limits or DEFAULT
    tree, diagnostics = parse_file(path, limits)
    if tree is None:
        return None, diagnostics
    tree, more = resolve(tree, lambda base: parse_file(base, limits), root=root)
    diagnostics = diagnostics + more
    if tree is None or any(d.is_error for d in diagnostics):
        return None, diagnostics
    prefix = "winner:\n    rule objective: most ("
    wrapper = Source("--objective", f"{prefix}{text})\n")
    extra, syntax = parse(wrapper, limits)
    if extra is None:
        return None, _as_typed(syntax, wrapper, text, len(prefix))
    rule = extra.items[0].body[0]
    items = list(tree.items)
    at = next((i for i, item in enumerate(items) if isinstance(item, n.Section) and item.kind == "winner"), None)
    if at is None:
        items.append(extra.items[0])
    else:
        items[at] = attrs.evolve(items[at], body=items[at].body + (rule,))
    values, problems = coerce_options(tree, options or {}, limits.number_digits)
    if problems:
        return None, problems
    game, diagnostics = compile_game(attrs.evolve(tree, items=tuple(items)), values, limits)
    errors = [d for d in diagnostics if d.is_error]
    if game is None or errors:
        return None, _as_typed(errors, wrapper, text, len(prefix))
    check = game.criteria[-1]
    game = attrs.evolve(game, criteria=game.criteria[:-1])
    if limits != DEFAULT:
        game = attrs.evolve(game, run_limits=limits)
    return game, expression_objective(check, text)


def _as_typed(diagnostics: list, wrapper, text: str, shift: int) -> list:
    """Diagnostics of the `--objective` expression shown on the text as typed, not on the
    winner rule it is compiled in (``compile_objective``)."""
    from .source import Source, Span

    typed = Source("--objective", text)
    shown = []
    for d in diagnostics:
        span = d.span
        if span is not None and span.source is wrapper:
            start = min(max(span.start - shift, 0), len(text))
            span = Span(typed, start, min(max(span.end - shift, start), len(text)))
            message = d.message.replace("`most` ranks the players by a number", "the objective must be a number "
                                        "(or true/false)")
            if span.start >= len(text):  # the wrapper's closing `)`: the expression stopped short
                message = message.replace("unexpected `)`", "the objective ends too early", 1)
            d = attrs.evolve(d, span=span, message=message)
        shown.append(d)
    return shown
