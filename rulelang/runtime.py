"""The state machine: runs a compiled game until a decision or a chance node (OpenSpiel's API).

``State`` is the public face: the OpenSpiel calls (``current_player``, ``legal_actions``,
``chance_outcomes``, ``apply_action``, ``clone``...) over three parts, each a module of its own
(docs/architecture.md): ``board.Board`` (pieces, zones, counters and the effects on them),
``machine.Machine`` (the loop that runs the compiled rules) and ``views.Views`` (what each
seat sees, and the trace). ``engine_values`` holds what they share.
"""

from __future__ import annotations

import itertools
import math
import random
import weakref
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from . import knowledge
from .board import Board
from .diagnostics import Diagnostic, RuntimeFault, register
from .engine_values import (  # noqa: F401 - CHANCE, TERMINAL, SEE_PIECES: callers import them from here
    _CHANCE_KINDS,
    CHANCE,
    IN_SECRET,
    SEE_PIECES,
    TERMINAL,
    PieceTable,
    _face_kinds,
    _multiset_count,
    _multiset_outcomes,
    _number_bound,
    _weighted_outcomes,
)
from .machine import Machine
from .views import Views

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from . import model as m

register("R501", "choice-without-options", """
A `choose` found nothing to choose from, and has no `otherwise:` block saying what happens
then. Add `otherwise:` (for instance `otherwise: do fail_turn`) or make sure the options
cannot be empty.
""")
register("R502", "endless-loop", """
The rules ran for a very long time without any decision or roll: a loop that never reaches
`break`, or a `while` whose condition never becomes false. The message names the rule where
the game was when the step limit was reached.
""")
register("R503", "invalid-operation", """
A statement could not be carried out while playing: for instance adding a number to a label,
using an attribute of the top of an empty zone in arithmetic, or rolling pieces that are not
dice. (Moving `none` does nothing: it is not a fault.) The message names the rule and its line,
and, where a value was none, the variables of the statement that are none (`t` is none).
""")
register("R504", "turn-limit", """
The game went on past the number of turns (or rounds) its header allows (`at most N turns`),
or past the `turns` limit (10,000 by default), which caps the header's number. Either the
rules cannot end, or the limit is too low for this game: raise the header's number, or the
limit with `--limit turns=N`.
""")
register("R505", "invariant-violated", """
A declared `invariant` did not hold after a step: the rules broke a property the designer
said is always true.
""")
register("R507", "draw-from-empty-zone", """
A `draw` found its source zone empty: there is nothing left to draw. Check the zone first
(`if deck is not empty:`), or refill it before drawing.
""")
register("R508", "limit-broken", """
A player holds more pieces of a kind than its `limit N per player` allows, when the game
next waits for a decision or a roll. The rules that move such pieces must also say what
happens to the extra one, usually with a triggered rule (`when move to ...`). The message
names the rule that made the last such move.
""")
register("R509", "work-limit", """
One step of the game (everything between two decisions or rolls) went through more items
than the work limit allows (1,000,000 by default): filters, counts, sums and sorts over
collections, `+`, `in`, `==` and `distinct` on them, `for each` and moves of pieces, nested in
each other, add up. The message names the rule. Simplify the rule, or
raise the limit with `--limit work=N` if a real game needs it.
""")
register("R510", "no-progress", """
The game asked for more decisions or rolls in a row than the limit (10,000 by default)
without a turn or round beginning: a loop that rolls or asks each time and has no way out.
The message names the rule where the game waits. Give the loop a way out (`break`, a `while` condition
that can become false), or raise the limit with `--limit idle_actions=N`.
""")
register("R511", "number-too-large", """
A number computed while playing has more digits than the limit (1,000 by default): for
instance a value multiplied by itself again and again. The message names the rule. Raise the
limit with `--limit number_digits=N` if a real game needs it.
""")
register("R512", "too-many-pieces", """
A `create` would make more pieces than the limit for one game (100,000 by default, all kinds
together). The message names the rule. Raise the limit with `--limit pieces=N` if a real game
needs it.
""")
register("R513", "procedures-too-deep", """
Procedures ran inside each other more deeply than the limit (1,000 by default): a procedure
that runs itself (`do` inside its own rules, or through another procedure) with no way to
stop. The message names the rule of the `do` that went too deep. Give the repetition a way
out (`if ...:` around the `do`), or raise the limit with `--limit call_depth=N`.
""")
register("R506", "invalid-action", """
An action was applied that is not among the legal actions of the state (a bad log or a bad
scripted move).
""")


_INITIAL_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
TRACE_MODES = ("lazy", "eager")


def _traced_start(game: m.GameDef, players: int) -> State:
    """The game's state after the set-up, traced (shared: never changed, only copied)."""
    by_players = _INITIAL_STATES.setdefault(game, {})
    if players not in by_players:
        by_players[players] = _specialised(State(game, players, trace="eager"))
    return by_players[players]


# What is the same for every state of a game and number of players: the game, the player
# count, where each family of zones and counters starts, the limits.
_PER_GAME = ("game", "n", "zone_base", "piece_zone_base", "counter_base", "work_budget", "number_digits",
             "big_number")
# What only the creation of pieces replaces (never changes in place): its value after the set-up.
_AFTER_SETUP = ("pieces", "sort_columns", "piece_zone", "carried")


def _specialised(start: State) -> State:
    """``start``, a game's state after its set-up, made an instance of a subclass of State of
    its own, which holds what is the same for every state of its game and player count
    (``_PER_GAME``, ``_AFTER_SETUP``) as class attributes. The states copied from it hold only
    what their moves change, in a dict of fewer entries: smaller, quicker to copy."""
    own = start.__dict__
    names = _PER_GAME + _AFTER_SETUP + (() if start.keeps_knowledge else _KNOWLEDGE)
    shared = {name: own.pop(name) for name in names}
    start.__class__ = type("State", (State,), {"__module__": __name__, "__doc__": State.__doc__, **shared})
    return start


def initial_state(game: m.GameDef, players: int, trace: str = "lazy") -> State:
    """A new game's state. The set-up is deterministic for a number of players (chance waits
    for the driver), so it runs once per game and players, and later games start from a copy.
    ``trace``: "lazy" (the default: the trace is rebuilt by replay when asked for) or "eager"
    (recorded as the game plays: for a state to be changed by hand)."""
    if trace not in TRACE_MODES:
        raise ValueError(f"a trace is {' or '.join(TRACE_MODES)}, not {trace!r}")
    start = _traced_start(game, players)
    return start.clone() if trace == "eager" else start._lazy_copy()


# Sampled roll outcomes, one object per outcome, shared by every state and game: a history
# holds references, not copies (most of a finished game's memory was its rolls). Bounded.
_OUTCOMES: dict[tuple, tuple] = {}
_OUTCOMES_KEPT = 1 << 16


def _interned(outcome: tuple) -> tuple:
    if len(_OUTCOMES) >= _OUTCOMES_KEPT:
        _OUTCOMES.clear()
    _OUTCOMES[outcome] = outcome
    return outcome


class TraceUnavailable(RuntimeError):
    """The trace of a lazily traced state cannot be rebuilt: replaying its history from the
    start does not give this state (it was changed by hand, not through ``apply_action``)."""


class _LazyEvents:
    """``State.events`` of a state that records none as it plays (``trace_mode`` "lazy"): the
    trace rebuilt by replaying the history on a traced copy, its shadow, kept and extended on
    later asks. A state that records (or keeps) its own list has it in its ``__dict__``, which
    Python reads first: then this is never called."""

    def __get__(self, state, owner=None):
        if state is None:
            return self
        return state._replayed_events()


class _DeferredKnowledge:
    """``State.knows``, ``zone_knows`` and ``seen_counters`` of a lazy state that keeps no
    knowledge while it plays (a game that hides something, started by ``initial_state``): read
    once, they are rebuilt from the shadow that the lazy trace replays (which keeps knowledge
    as it plays), and the state keeps them from then on. A state with its own (or with None,
    in a game that hides nothing) has them in its ``__dict__``: then this is never called."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, state, owner=None):
        if state is None:
            return self
        state._replayed_events()  # the shadow brought up to the history, and checked
        knowledge.adopt(state, state.shadow)
        return state.__dict__[self.name]


_KNOWLEDGE = ("knows", "zone_knows", "seen_counters")
_RUNNING = ("frames", "pending", "work", "loop_budget", "idle", "fired")  # what `_settle` drops
_ABSENT = object()
_UNTRACED = ("events", "tracing", "shadow_own", "keeps_knowledge")  # what a lazy copy leaves to its class
_BY_HAND = ("a state changed by hand needs its trace and what each seat knows recorded as it plays: "
            "make it with trace=\"eager\" or "
            "copy it with clone(tracing=True) before changing it")


def _rows(table) -> list[list]:
    return list(map(list, table))  # a finished state's are tuples, a copy's lists


def _same_game(a: State, b: State) -> bool:
    """Whether two states hold the same game (pieces, counters, turn): a replay check."""
    return (_rows(a.zones) == _rows(b.zones) and a.counters == b.counters and _rows(a.dynamic) == _rows(b.dynamic)
            and a.turn_number == b.turn_number and a.round_number == b.round_number
            and a.finished == b.finished and a.player == b.player and a.out == b.out)


class _RebuiltWhere:
    """``State.where`` of a finished state, which drops it (``_settle``): each piece's zone,
    rebuilt from the zones when read, and kept from then on."""

    def __get__(self, state, owner=None):
        if state is None:
            return self
        where = [0] * len(state.pieces.kind)
        for index, zone in enumerate(state.zones):
            for p in zone:
                where[p] = index
        state.where = where
        return where


def _sampled_faces(kind, dice: int, draw) -> tuple[int, ...]:
    """The faces ``dice`` dice of ``kind`` show, drawn with ``draw``, sorted; an alike face as
    its first (``KindDef.face_firsts``), as ``chance_outcomes`` lists it."""
    faces, firsts = len(kind.face_labels), kind.face_firsts
    if firsts is None:
        return tuple(sorted([int(draw() * faces) for _ in range(dice)]))
    return tuple(sorted([firsts[int(draw() * faces)] for _ in range(dice)]))


class State(Board, Machine, Views):
    """A game in progress. Decisions and chance outcomes go in through ``apply_action``."""

    events = _LazyEvents()
    where = _RebuiltWhere()
    knows = _DeferredKnowledge("knows")
    zone_knows = _DeferredKnowledge("zone_knows")
    seen_counters = _DeferredKnowledge("seen_counters")

    # What most games never change, held by the class until a state sets its own. Each is
    # replaced, never changed in place, so the class's value is shared safely; a state's own
    # dict holds only what its moves changed, which keeps it small and its copy quick.
    out: frozenset[int] = frozenset()  # players eliminated
    # `game ends after a last turn for the others`: the seats still owed their last turn
    # (None until such a condition holds) and that rule
    last_turns: frozenset[int] | None = None
    last_turns_rule = -1
    last_turn_last = -1  # `a last turn for everyone`: the player who set it off, owed the last of them
    first_player = 0  # who started the latest `each player takes a turn` (`turn_order`)
    again = False  # `player takes another turn` ran in the turn in progress
    finished = False
    in_final = False  # the game has ended and its `final` section is running (the winners come after)
    # ``rulelang.analysis``: stop where the turn ends (its frame returns) or a turn would begin
    stop_at_turn_end = False
    turn_over = False  # set where it stopped so (the state is then a leaf: it plays no further)
    fault: RuntimeFault | None = None  # set when the rules faulted: the state is dead
    winners: Sequence[int] = ()  # a list once the game is over
    end_rule = -1
    # `once per ...` branches chosen: (once id, seat), since each player has their own.
    used_once: frozenset[tuple[int, int]] = frozenset()
    # `tally NAME by KEY`: counts for statistics, per (name, key). Not an event: play and
    # views do not change.
    tallies: Mapping[tuple[str, Any], int] = MappingProxyType({})
    limit_rule = -1  # the rule that last moved a piece of a kind with a limit
    limits_unchecked = False  # a piece of a kind with a limit went to a player since the last check
    idle = 0  # decisions and rolls since a turn last began (R510)
    # `count_rules()`: how often each triggered rule ran and each labelled option was
    # chosen, kept only when a driver asks (statistics without the trace)
    rule_counts: dict[tuple, int] | None = None
    # Each viewer's trace lines so far, for information states: viewer -> (events done,
    # lines). Valid for any state whose events start with the same ones, since events are
    # only ever appended.
    seen_lines: Mapping[Any, tuple[int, tuple[str, ...]]] = MappingProxyType({})
    # The trace (docs/architecture.md, "The trace"): `tracing` records the events as it plays,
    # in the state's own `events` list; else `events` replays the history on a traced copy,
    # the shadow (None: start from the traced set-up), shared with clones until one of them
    # extends it (`shadow_own` says who may).
    tracing = False
    shadow: State | None = None
    shadow_own = False
    keeps_knowledge = False  # what each seat knows is kept as it plays (knowledge.py)
    # Lists of the state's own in a game with counters, or with triggered rules: triggered
    # rules waiting to run, in order, as (depth of the frame whose statement set them off,
    # trigger index, the rule's frame slots). They run when that frame is on top.
    counters: Sequence[Any] = ()
    fired: Sequence[tuple] = ()
    # What only a running game needs (``_settle`` gives a finished state these back): the
    # call stack, the decision or roll waiting, and the work done in the current step.
    frames: Sequence[list] = ()
    pending: tuple | None = None
    work = 0
    loop_budget = 0
    # Whether ``dynamic`` may be another state's too: a copy shares it until one of them
    # changes a face or makes pieces (``own_dynamic``), as most steps change neither.
    dynamic_shared = False

    def __init__(self, game: m.GameDef, players: int, trace: str = "lazy"):
        if trace not in TRACE_MODES:
            raise ValueError(f"a trace is {' or '.join(TRACE_MODES)}, not {trace!r}")
        if not game.min_players <= players <= game.max_players:
            raise ValueError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {players}")
        self.game = game
        self.n = players
        self.zone_base = game.shared_zone_count
        per_player_zones = sum(z.per_player for z in game.zones)
        self.zones: list[list[int]] = [[] for _ in range(self.zone_base + per_player_zones * players)]
        # Zones of each piece (`per KIND`) come last, made as their pieces are created:
        # piece_zone[ordinal][piece] is the instance (None for pieces that carry none), and
        # carried[i - piece_zone_base] is (zone definition index, piece). Replaced, never changed.
        self.piece_zone_base = len(self.zones)
        self.piece_zone: list[list[int | None]] = [[] for z in game.zones if z.per_piece]
        self.carried: list[tuple[int, int]] = []
        self.sort_columns = [self.zone_of(i)[0].sort_column for i in range(len(self.zones))]
        self.where: list[int] = []
        self.dynamic: list[list] = [[], [], []]  # face label, value, number of each piece
        self.pieces = PieceTable([], [[] for _ in game.attributes], [[] for _ in game.kinds], [])
        self.counter_base = game.shared_counter_count
        self.player = 0
        self.round_number = 0
        self.turn_number = 0
        self.frames: list[list] = []
        self.pending: tuple | None = None
        self.history: list = []
        if trace == "eager":
            self.tracing = True
            self.events: list[tuple] = []
        if game.move_triggers:
            self.fired = []
        limits = game.run_limits
        # Work done in the current step (items gone through), checked against the budget by
        # the generated code.
        self.work = 0
        self.work_budget = limits.work
        self.number_digits = limits.number_digits
        self.big_number = _number_bound(limits.number_digits)
        self._init_counters()
        # What each seat knows (see knowledge.py): kept only when the game hides something,
        # and in a lazy copy only once asked for (`_DeferredKnowledge`).
        if knowledge.tracks_knowledge(game):
            knowledge.start(self)
        else:
            self.knows = self.zone_knows = self.seen_counters = None
        main = game.procedures[game.main]
        self.frames.append([game.main, 0, [None] * main.slot_count, False])
        try:
            self._advance()
        except RuntimeFault as fault:
            fault.partial = self  # the set-up as far as it went: its trace shows what led to the fault
            raise


    # ------------------------------------------------------------------ OpenSpiel's API
    def current_player(self) -> int:
        """The seat to decide, CHANCE when dice must be rolled, TERMINAL at the end."""
        if self.finished:
            return TERMINAL
        if self.pending is None:
            self._raise_fault()
        if self.pending[0] in _CHANCE_KINDS:
            return CHANCE
        return self.pending[3]

    def is_terminal(self) -> bool:
        return self.finished

    def is_chance_node(self) -> bool:
        return not self.finished and self.current_player() == CHANCE

    def _raise_fault(self):
        raise self.fault if self.fault is not None else RuntimeFault(
            Diagnostic("R506", "the state is not at a decision or a roll"))

    def _need_roll(self, kinds: tuple[str, ...] = ("roll",)) -> None:
        if self.finished or self.pending is None or self.pending[0] not in kinds:
            if self.pending is None and not self.finished:
                self._raise_fault()
            raise RuntimeFault(Diagnostic("R506", "no roll is pending here: the state is "
                                          + ("over" if self.finished else "at a decision")))

    def legal_actions(self, player: int | None = None) -> list:
        """Stable list of actions: option indices at a decision, outcomes at a chance node."""
        if self.finished:
            return []
        if self.pending is None:
            self._raise_fault()
        if self.pending[0] in _CHANCE_KINDS:
            return [outcome for outcome, _ in self.chance_outcomes()]
        if player is not None and player != self.pending[3]:
            return []
        return list(range(len(self.pending[2])))

    def chance_outcome_count(self) -> int:
        """How many outcomes ``chance_outcomes()`` lists, worked out without listing them
        (0 at a decision or the end)."""
        if self.finished or self.pending is None or self.pending[0] not in _CHANCE_KINDS:
            return 0
        if self.pending[0] == "draw":
            return len(self.zones[self.pending[2][0]])
        if self.pending[0] == "shuffle":
            return len(self.shuffle_left())
        kinds = self.game.kinds
        return math.prod(_multiset_count(_face_kinds(kinds[kind_index].face_firsts, len(kinds[kind_index].face_labels)),
                                         len(dice)) for kind_index, dice in self.pending[2])

    def chance_outcomes(self) -> list[tuple[tuple, Fraction]]:
        """Every outcome of the pending roll with its exact probability. Dice of one kind are
        alike, so an outcome is a multiset of faces per kind (sorted face indices). A roll with
        more outcomes than the `work` limit is fault R509: sample it (``sample_chance``)."""
        if self.finished:
            return []
        self._need_roll(_CHANCE_KINDS)
        count = self.chance_outcome_count()
        if count > self.game.run_limits.work:
            raise RuntimeFault(self._diagnostic(
                "R509", f"this roll has {count:,} outcomes, more than the work limit of "
                f"{self.game.run_limits.work:,} to list them; sample it instead, or raise the limit "
                f"with `--limit work=N`"))
        if self.pending[0] == "draw":
            pieces = self.zones[self.pending[2][0]]
            return [(p, Fraction(1, len(pieces))) for p in pieces]
        if self.pending[0] == "shuffle":
            pieces = self.shuffle_left()
            return [(p, Fraction(1, len(pieces))) for p in pieces]
        groups = self.pending[2]
        kinds = self.game.kinds
        per_group = [_multiset_outcomes(len(kinds[kind_index].face_labels), len(dice))
                     if kinds[kind_index].face_firsts is None else _weighted_outcomes(kinds[kind_index].face_firsts,
                                                                                       len(dice))
                     for kind_index, dice in groups]
        if len(per_group) == 1:
            return [((combo,), p) for combo, p in per_group[0]]
        result = []
        for parts in itertools.product(*per_group):
            probability = Fraction(1)
            for _, p in parts:
                probability *= p
            result.append((tuple(combo for combo, _ in parts), probability))
        return result

    def sample_chance(self, rng: random.Random) -> tuple:
        """One outcome of the pending roll or draw, drawn with its true probability."""
        pending = self.pending
        draw = rng.random
        if pending is not None and pending[0] == "roll" and len(pending[2]) == 1:  # one kind of dice
            kind_index, dice = pending[2][0]
            kind = self.game.kinds[kind_index]
            if kind.face_firsts is None:  # (the usual roll, inline: the step's hot path)
                faces = len(kind.face_labels)
                outcome = (tuple(sorted([int(draw() * faces) for _ in dice])),)
            else:
                outcome = (_sampled_faces(kind, len(dice), draw),)
            return _OUTCOMES.get(outcome) or _interned(outcome)
        self._need_roll(_CHANCE_KINDS)
        if self.pending[0] == "draw":
            pieces = self.zones[self.pending[2][0]]
            return pieces[int(draw() * len(pieces))]
        if self.pending[0] == "shuffle":
            pieces = self.shuffle_left()
            return pieces[int(draw() * len(pieces))]
        kinds = self.game.kinds
        outcome = tuple(_sampled_faces(kinds[kind_index], len(dice), draw) for kind_index, dice in self.pending[2])
        return _OUTCOMES.get(outcome) or _interned(outcome)

    def apply_action(self, action) -> None:
        """Apply a decision (an index from legal_actions) or a chance outcome."""
        if self.finished:
            raise RuntimeFault(Diagnostic("R506", "the game is over; no action can be applied"))
        pending = self.pending
        if pending is None:
            self._raise_fault()
        frame = self.frames[-1]
        kind = pending[0]
        if kind == "roll":
            self._apply_roll(pending, action)
            frame[1] += 1
        elif kind == "draw":
            try:
                more = self._apply_draw(pending, action)
            except RuntimeFault:
                if self.fault is not None:  # the piece was drawn, then the zone had no more (R507)
                    self.history.append(action)
                raise
            if more:
                self.history.append(action)
                return
            frame[1] += 1
        elif kind == "shuffle":
            if self._apply_shuffle(pending, action):
                self.history.append(action)
                return
            frame[1] += 1
        else:
            options = pending[2]
            if (action.__class__ is not int and (not isinstance(action, int) or isinstance(action, bool))) \
                    or not 0 <= action < len(options):
                raise RuntimeFault(self._diagnostic("R506", f"action {action!r} is not one of the "
                                                    f"{len(options)} legal actions"))
            value = options[action]
            if kind == "choose":
                spec = pending[1]
                if self.tracing:
                    rule = self.game.procedures[frame[0]].code[frame[1]][3]
                    seen_in = self._choice_seen_in(spec, value)
                    # a blind pick: its chooser reads what it picked as its menu named it (the place)
                    place = None
                    if seen_in is not None and not self.choice_shown(pending[3], seen_in, pending[3]):
                        place = self.action_to_string(action, pending[3]).removeprefix(f"{spec.prompt}: ")
                    self.events.append((rule, "choose", (pending[3], spec.prompt, spec.describe(self, value),
                                                         seen_in) if place is None else
                                        (pending[3], spec.prompt, spec.describe(self, value), seen_in, False, place)))
                if spec.then is None:
                    frame[2][spec.slot] = value
                else:
                    frame[2][spec.slot], frame[2][spec.then.slot] = value
                frame[1] += 1
            else:
                label, target, once = value
                if self.tracing or self.rule_counts is not None:
                    # a prompt the rules wrote says what was chosen about (`may`)
                    rule = self.game.procedures[frame[0]].code[frame[1]][3]
                    prompt = pending[1].prompt if pending[1].prompt not in ("choose", label) else None
                    if self.tracing:
                        self.events.append((rule, "choose", (pending[3], prompt, label, IN_SECRET if (
                            pending[1].in_secret or self.called_in_secret()) else None, True)))
                    if self.rule_counts is not None:
                        self.count_rule(rule, prompt, label)
                frame[1] = target
                if once is not None:
                    self.used_once = self.used_once | {(once, pending[3])}
        self.history.append(action)
        self.pending = None
        turn, round_ = self.turn_number, self.round_number
        try:
            self._run()
            game = self.game
            if game.limits:
                self._check_limits()
            if self.finished:
                self._settle()
            elif self.turn_number != turn or self.round_number != round_:
                self.idle = 0
            else:
                idle = self.idle = self.idle + 1
                if idle > game.run_limits.idle_actions:
                    self.pending = None
                    raise RuntimeFault(self._diagnostic(
                        "R510", f"{self.idle} decisions and rolls in a row without a turn or round beginning, "
                        f"more than the limit of {self.game.run_limits.idle_actions}: a loop with no way out"))
        except RuntimeFault as fault:
            self.fault = fault
            raise

    def _choice_seen_in(self, spec, value):
        """Who may see a choice in the trace (``State.choice_shown``): None, everyone; a zone,
        whoever sees its pieces (a piece chosen there: a blind pick shows not even to its
        chooser); -1, the chooser only (options computed from what not every seat sees); or a
        tuple of those, all of which must hold (a choice with a parameter)."""
        if spec.aloud:  # said at the table
            return None
        if spec.in_secret or self.called_in_secret():  # that there was a choice at all is the chooser's alone
            return IN_SECRET
        if spec.then is None:
            if spec.element == "pieces" and value:  # a group (`subsets`): every piece's zone
                seen = tuple(dict.fromkeys(self._piece_seen_in(p) for p in value if p.__class__ is int))
                return seen + (-1,) if spec.private else seen
            if not spec.of_pieces:
                return -1 if spec.private else None
            return None if value is None else self._piece_seen_in(value)  # None: `done`, of several
        seen = [self._piece_seen_in(part) for part, is_piece in ((value[0], spec.of_pieces),
                                                                  (value[1], spec.then.of_pieces))
                if is_piece and part is not None]
        if spec.private:
            seen.append(-1)  # a part from what not every seat sees: the chooser's own
        return None if not seen else seen[0] if len(seen) == 1 else tuple(seen)

    def called_in_secret(self) -> bool:
        """Whether a running procedure was called only where something some seat cannot see
        holds (``Procedure.secret_calls``): a choice made inside shows to its chooser alone."""
        frames = self.frames
        if len(frames) < 2:
            return False
        procedures = self.game.procedures
        return any(frame[1] - 1 in procedures[frame[0]].secret_calls for frame in frames[:-1]
                   if procedures[frame[0]].secret_calls)

    def choice_in_secret(self) -> bool:
        """Whether the pending choice is made only where something some seat cannot see holds."""
        pending = self.pending
        return pending is not None and pending[0] in ("choose", "branch") and (
            pending[1].in_secret or self.called_in_secret())

    def _piece_seen_in(self, piece: int) -> int:
        """The zone whose viewers see a chosen piece: where it lies, or, in a zone a piece
        carries that shows its pieces, where its carrier lies (the trace names the carrier)."""
        zone = self.where[piece]
        if zone >= self.piece_zone_base and self.zone_of(zone)[0].visibility in ("public", "top only"):
            return self.where[self.carried[zone - self.piece_zone_base][1]]
        return zone

    def _settle(self) -> None:
        """A finished state never changes again (a balance run or a search holds many): its
        dict keeps the position and the result, and what only a running game needs, or what
        equals its class's value, goes back to the class."""
        own = self.__dict__
        cls = self.__class__
        if not self.shadow_own and own.get("shadow") is _INITIAL_STATES.get(self.game, {}).get(self.n):
            own.pop("shadow", None)  # the traced set-up, where a lazy trace starts anyway (None)
        self.__dict__ = {name: value for name, value in own.items()
                         if name not in _RUNNING and value is not getattr(cls, name, _ABSENT)}
        # No room kept for more actions; `where` is rebuilt from the zones if asked, and the
        # zones and the faces shown, which nothing changes now, are tuples (an empty one costs
        # nothing; a copy gets lists again).
        self.history = self.history[:]
        self.zones = list(map(tuple, self.zones))
        self.dynamic = tuple(map(tuple, self.dynamic))
        del self.where

    def returns(self) -> list[float]:
        """1/k for each of the k winners at the end, 0 otherwise; all 0 before the end."""
        if not self.finished or not self.winners:
            return [0.0] * self.n
        share = 1.0 / len(self.winners)
        return [share if p in self.winners else 0.0 for p in range(self.n)]

    def clone(self, tracing: bool | None = None) -> State:
        """An independent copy, with the same trace mode. ``tracing=True``: a copy that records
        its events from now on, with the trace so far (rebuilt first if this state is lazy);
        ``tracing=False``: a copy that records none (bots' look-ahead), keeping the trace so far
        if this state has one of its own, or rebuilding it by replay when asked, if lazy."""
        own = self.__dict__.get("events")
        if tracing and own is None:  # the trace so far, rebuilt by replay, then recorded
            events = list(self.events)
            other = self._copy()
            other.events, other.shadow = events, None
            if self.shadow.keeps_knowledge and "knows" not in self.__dict__:
                # knowledge deferred (a game that hides nothing keeps none): the copy will have no shadow
                knowledge.adopt(other, self.shadow)
            self.shadow_own = True  # the copy does not share the shadow
        else:
            other = self._copy()
            if own is not None:
                other.events = list(own)
        if tracing is not None:
            other.tracing = tracing
        return other

    def _copy(self) -> State:
        """A copy sharing the trace, own list or shadow: ``clone`` finishes it."""
        other = State.__new__(self.__class__)
        other.__dict__ = self.__dict__.copy()  # (faster than updating the new, empty one)
        self._copy_parts(other)
        if self.shadow_own:  # the shadow is shared now: copied before extended
            self.shadow_own = other.shadow_own = False
        if self.keeps_knowledge:
            other.knows = list(self.knows)
            other.zone_knows = dict(self.zone_knows)
            other.seen_counters = dict(self.seen_counters)
        return other

    def _copy_parts(self, other: State) -> None:
        """Give ``other``, a copy of this state's dict, its own copy of what moves change in place."""
        other.zones = list(map(list, self.zones))
        other.where = list(self.where)
        self.dynamic_shared = other.dynamic_shared = True  # (``own_dynamic`` copies it before a change)
        if self.counters:
            other.counters = list(self.counters)
        # The frames below the top one change only once it returns to them, which copies them first
        # (``Machine._run``): a copy shares them.
        frames = other.frames = list(self.frames)
        if frames:
            top = frames[-1]
            frames[-1] = [top[0], top[1], top[2].copy(), top[3]]
        other.history = list(self.history)
        if self.fired.__class__ is list:
            other.fired = list(self.fired)
        if self.rule_counts is not None:
            other.rule_counts = dict(self.rule_counts)

    def own_dynamic(self) -> list[list]:
        """``dynamic``, this state's own to change (copied first where a copy shares it)."""
        if self.dynamic_shared:
            self.dynamic = list(map(list, self.dynamic))
            self.dynamic_shared = False
        return self.dynamic

    # ------------------------------------------------------------------ the trace
    @property
    def trace_mode(self) -> str:
        """"eager": records its events as it plays; "lazy": records none, and rebuilds its
        trace by replaying its history when asked; "off": records none and keeps only the
        trace it had (a look-ahead copy of a traced state, a determinized sample: its history
        is not the game's)."""
        if "events" not in self.__dict__:
            return "lazy"
        return "eager" if self.tracing else "off"

    def _lazy_copy(self) -> State:
        """A copy of this traced state that records nothing, its trace replayed from this one."""
        # Not its trace, nor what each seat knows (rebuilt from the shadow when asked, not
        # kept while playing): the class's defaults, or `_DeferredKnowledge`, answer for them.
        left = _UNTRACED + _KNOWLEDGE if self.keeps_knowledge else _UNTRACED
        other = State.__new__(self.__class__)
        other.__dict__ = {name: value for name, value in self.__dict__.items() if name not in left}
        self._copy_parts(other)
        other.shadow = self
        return other

    def _replayed_events(self) -> list[tuple]:
        """The events of a lazy state: its shadow brought up to its history (copied first when
        another state shares it), then checked against it."""
        if self.tracing:  # recording from now on needs the trace so far: clone(tracing=True)
            raise TraceUnavailable("a lazily traced state was set to record events by hand; "
                                   "use clone(tracing=True) for a state that records them")
        history, shadow, own = self.history, self.shadow, self.shadow_own
        # A shadow this state owns has followed its history; a shared one may have gone
        # along another line of play: then start over.
        if shadow is None or len(shadow.history) > len(history) or \
                (not own and shadow.history != history[:len(shadow.history)]):
            shadow, own = _traced_start(self.game, self.n), False
        done = len(shadow.history)
        if not own:  # shared with other states (or the cached set-up): its list is handed out
            shadow = shadow.clone()
        for step, action in enumerate(history[done:], done):
            try:
                shadow.apply_action(action)
            except RuntimeFault:
                if step == len(history) - 1 and self.fault is not None:
                    break  # the fault that ended this state: the trace stops where it did
                raise TraceUnavailable(f"the history of this state does not replay: action {step} "
                                       f"({action!r}) faults; {_BY_HAND}") from None
        if not _same_game(shadow, self):  # checked at every ask: a change by hand can come at any time
            raise TraceUnavailable(f"replaying the history of this state gives another state; {_BY_HAND}")
        self.shadow, self.shadow_own = shadow, True
        return shadow.events

    def count_rules(self) -> None:
        """Count from now on how often each triggered rule runs and each labelled option is
        chosen (``rule_counts``): statistics for a driver, without the trace."""
        if self.rule_counts is None:
            self.rule_counts = {}

    def count_rule(self, rule: int, *option) -> None:
        """One more run of triggered rule ``rule``, or choice of ``option`` (prompt, label) in it."""
        key = (rule, *option)
        self.rule_counts[key] = self.rule_counts.get(key, 0) + 1

    def history_str(self) -> str:
        return " ".join(str(a) for a in self.history)
