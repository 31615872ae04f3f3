"""The state machine: runs a compiled game until a decision or a chance node (OpenSpiel's API)."""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import random
import re
import weakref
from fractions import Fraction
from typing import Any

from . import knowledge
from . import model as m
from .codegen import _freeze, _items
from .diagnostics import Diagnostic, RuntimeFault, register
from .limits import LimitExceeded
from .source import printable

CHANCE = -1
TERMINAL = -4

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
dice. (Moving `none` does nothing: it is not a fault.) The message names the rule and its line.
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
register("R506", "invalid-action", """
An action was applied that is not among the legal actions of the state (a bad log or a bad
scripted move).
""")


def _multiset_count(faces: int, dice: int) -> int:
    """How many different multisets of faces ``dice`` alike dice can show."""
    return math.comb(dice + faces - 1, faces - 1) if faces else 0


def _multiset_outcomes(faces: int, dice: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The outcomes of rolling ``dice`` alike dice of ``faces`` faces: each multiset of face
    indices (sorted) with its exact probability, multinomial / faces ** dice. Small rolls are
    remembered; a big one (40 dice have hundreds of thousands of outcomes) is listed anew."""
    if _multiset_count(faces, dice) <= 20_000:
        return _small_multiset_outcomes(faces, dice)
    return _list_multiset_outcomes(faces, dice)


@functools.cache
def _small_multiset_outcomes(faces: int, dice: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    return _list_multiset_outcomes(faces, dice)


def _list_multiset_outcomes(faces: int, dice: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    outcomes = []
    denominator = faces ** dice
    for combo in itertools.combinations_with_replacement(range(faces), dice):
        ways = math.factorial(dice)
        for _, run in itertools.groupby(combo):
            ways //= math.factorial(len(list(run)))
        outcomes.append((combo, Fraction(ways, denominator)))
    return tuple(outcomes)


@functools.cache
def _face_numbers(labels: tuple) -> tuple:
    """The `number` a die shows on each face: its label when that is a number, else none."""
    return tuple(label if label.__class__ is int else None for label in labels)


_CHANCE_KINDS = ("roll", "draw", "shuffle")


@functools.cache
def _number_bound(digits: int) -> int:
    return 10 ** digits


def describe_error(error: BaseException) -> str:
    """A Python error raised by the rules, in the words of the language (never empty)."""
    if isinstance(error, LimitExceeded):
        return error.message
    if isinstance(error, MemoryError):
        return "out of memory"
    if isinstance(error, RecursionError):
        return "nested too deeply"
    if isinstance(error, ZeroDivisionError):
        return "division by zero"
    message = str(error)
    if "integer string conversion" in message or "exceeds the limit" in message.lower():
        return "a number too large to show"
    if "`" in message:  # raised by rulelang in the language's words
        return message
    if "NoneType" in message:
        return "a value is none here (the top of an empty zone, or a piece that is not there)"
    compared = re.search(r"'(.+?)' not supported between instances of '(\w+)' and '(\w+)'", message)
    if compared:
        return (f"`{compared[1]}` cannot compare {_TYPE_WORDS.get(compared[2], 'a value')} with "
                f"{_TYPE_WORDS.get(compared[3], 'a value')}")
    if isinstance(error, TypeError | ValueError | IndexError | KeyError | AttributeError):
        found = [word for name, word in _TYPE_WORDS.items() if f"'{name}'" in message or message.endswith(f" {name}")]
        return "a value of the wrong kind here" + (f" ({' and '.join(found)})" if found else "")
    return message or f"invalid operation ({error.__class__.__name__})"


# Python's names of the values rules compute, in the words of the language.
_TYPE_WORDS = {"str": "a label", "int": "a number", "bool": "true or false", "list": "a list",
               "NoneType": "none", "tuple": "a list"}


def _hashable(value: Any) -> Any:
    return tuple(map(_hashable, value)) if value.__class__ is list else value


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, list):
        return "a list"
    return "a label" if isinstance(value, str) else f"a {type(value).__name__}"


def _named(value: Any) -> str:
    return "none" if value is None else str(value) if value.__class__ is int else _kind_of(value)


def _code_of(error: BaseException) -> str:
    return error.code if isinstance(error, LimitExceeded) else "R503"
SEE_NOTHING, SEE_COUNT, SEE_PIECES = 0, 1, 2  # what a viewer sees of a zone: State.sight


def _value_text(value: Any) -> str:
    """A counter's value as the language writes it."""
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


_INITIAL_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def initial_state(game: m.GameDef, players: int) -> State:
    """A new game's state. The set-up is deterministic for a number of players (chance waits
    for the driver), so it runs once per game and players, and later games start from a copy."""
    by_players = _INITIAL_STATES.setdefault(game, {})
    if players not in by_players:
        by_players[players] = State(game, players)
    return by_players[players].clone()


class PieceTable:
    """The pieces that exist: their kind and static attribute columns. Replaced, never changed,
    when pieces are created, so clones can share it."""

    __slots__ = ("kind", "columns", "by_kind", "names")

    def __init__(self, kind: list[int], columns: list[list], by_kind: list[list[int]], names: list[str]):
        self.kind = kind
        self.columns = columns
        self.by_kind = by_kind
        self.names = names


class State:
    """A game in progress. Decisions and chance outcomes go in through ``apply_action``."""

    def __init__(self, game: m.GameDef, players: int):
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
        self.counters: list[Any] = []
        self.player = 0
        self.first_player = 0  # who started the latest `each player takes a turn` (`turn_order`)
        self.out: frozenset[int] = frozenset()  # players eliminated; replaced, never changed
        self.round_number = 0
        self.turn_number = 0
        self.frames: list[list] = []
        self.pending: tuple | None = None
        self.history: list = []
        self.events: list[tuple] = []
        self.finished = False
        self.fault: RuntimeFault | None = None  # set when the rules faulted: the state is dead
        self.tracing = True  # record the trace of events; bots' look-ahead copies turn it off
        self.winners: list[int] = []
        self.end_rule = -1
        # `once per ...` branches chosen: (once id, seat), since each player has their own.
        self.used_once: frozenset[tuple[int, int]] = frozenset()
        # Triggered rules waiting to run, in order: (depth of the frame whose statement set
        # them off, trigger index, the rule's frame slots). They run when that frame is on top.
        self.fired: list[tuple] = []
        # `tally NAME by KEY`: counts for statistics, per (name, key); replaced on each tally,
        # never changed, so clones share it. Not an event: play and views do not change.
        self.tallies: dict[tuple[str, Any], int] = {}
        self.limit_rule = -1  # the rule that last moved a piece of a kind with a limit
        limits = game.run_limits
        # Work done in the current step (items gone through), checked against the budget by
        # the generated code; decisions and rolls since a turn last began (R510).
        self.work = 0
        self.work_budget = limits.work
        self.number_digits = limits.number_digits
        self.big_number = _number_bound(limits.number_digits)
        self.idle = 0
        # Each viewer's trace lines so far, for information states: viewer -> (events done,
        # lines). Replaced, never changed (clones share it), and valid for any state whose
        # events start with the same ones, since events are only ever appended.
        self.seen_lines: dict[Any, tuple[int, tuple[str, ...]]] = {}
        self._init_counters()
        # What each seat knows (see knowledge.py): kept only when the game hides something.
        self.knows: list[int] | None = None
        self.seen_counters: dict[int, tuple] | None = None
        if knowledge.tracks_knowledge(game):
            knowledge.start(self)
        main = game.procedures[game.main]
        self.frames.append([game.main, 0, [None] * main.slot_count, False])
        self._advance()

    def _init_counters(self) -> None:
        shared = [c for c in self.game.counters if not c.per_player]
        per_player = [c for c in self.game.counters if c.per_player]
        values: list = []
        self.counters = values  # filled as it goes: a start value may read an earlier counter
        for c in shared + [c for c in per_player for _ in range(self.n)]:
            try:
                values.append(self._checked_number(c.initial(self, []), "the number"))
            except Exception as error:  # a fault in a start value: name the counter
                raise RuntimeFault(Diagnostic(
                    _code_of(error), f"the start value of counter `{c.name}` cannot be worked out: "
                    f"{describe_error(error)}", c.span)) from None

    def _checked_number(self, value: Any, what: str) -> Any:
        if value.__class__ is int and not -self.big_number < value < self.big_number:
            raise LimitExceeded("R511", f"{what} has more than {self.number_digits} digits")
        return value

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
        return math.prod(_multiset_count(len(self.game.kinds[kind_index].face_labels), len(dice))
                         for kind_index, dice in self.pending[2])

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
        per_group = [_multiset_outcomes(len(self.game.kinds[kind_index].face_labels), len(dice))
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
            faces = len(self.game.kinds[kind_index].face_labels)
            return (tuple(sorted([int(draw() * faces) for _ in dice])),)
        self._need_roll(_CHANCE_KINDS)
        if self.pending[0] == "draw":
            pieces = self.zones[self.pending[2][0]]
            return pieces[int(draw() * len(pieces))]
        if self.pending[0] == "shuffle":
            pieces = self.shuffle_left()
            return pieces[int(draw() * len(pieces))]
        kinds = self.game.kinds
        return tuple(tuple(sorted([int(draw() * len(kinds[kind_index].face_labels)) for _ in dice]))
                     for kind_index, dice in self.pending[2])

    def apply_action(self, action) -> None:
        """Apply a decision (an index from legal_actions) or a chance outcome."""
        if self.finished:
            raise RuntimeFault(Diagnostic("R506", "the game is over; no action can be applied"))
        pending = self.pending
        if pending is None:
            self._raise_fault()
        frame = self.frames[-1]
        if pending[0] == "roll":
            self._apply_roll(pending, action)
            frame[1] += 1
        elif pending[0] == "draw":
            if self._apply_draw(pending, action):
                self.history.append(action)
                return
            frame[1] += 1
        elif pending[0] == "shuffle":
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
            if pending[0] == "choose":
                spec = pending[1]
                if self.tracing:
                    rule = self.game.procedures[frame[0]].code[frame[1]][3]
                    # who may see the value chosen: pieces where they lie; options computed
                    # from what not every seat sees (`private`), -1: the chooser only
                    first = value if spec.then is None else value[0]
                    seen_in = self.where[first] if spec.of_pieces else -1 if spec.private else None
                    if spec.then is not None and spec.private:
                        seen_in = -1  # a parameter from what not every seat sees: the chooser's own
                    if spec.of_pieces and seen_in >= self.piece_zone_base and \
                            self.zone_of(seen_in)[0].visibility in ("public", "top only"):
                        seen_in = self.where[self.carried[seen_in - self.piece_zone_base][1]]  # names its carrier
                    self.events.append((rule, "choose", (pending[3], spec.prompt, spec.describe(self, value), seen_in)))
                if spec.then is None:
                    frame[2][spec.slot] = value
                else:
                    frame[2][spec.slot], frame[2][spec.then.slot] = value
                frame[1] += 1
            else:
                label, target, once = value
                if self.tracing:  # a prompt the rules wrote says what was chosen about (`may`)
                    rule = self.game.procedures[frame[0]].code[frame[1]][3]
                    prompt = pending[1].prompt if pending[1].prompt not in ("choose", label) else None
                    self.events.append((rule, "choose", (pending[3], prompt, label, None, True)))
                frame[1] = target
                if once is not None:
                    self.used_once = self.used_once | {(once, pending[3])}
        self.history.append(action)
        self.pending = None
        turn, round_ = self.turn_number, self.round_number
        try:
            self._run()
            if self.game.limits:
                self._check_limits()
            if self.turn_number != turn or self.round_number != round_ or self.finished:
                self.idle = 0
            else:
                self.idle += 1
                if self.idle > self.game.run_limits.idle_actions:
                    self.pending = None
                    raise RuntimeFault(self._diagnostic(
                        "R510", f"{self.idle} decisions and rolls in a row without a turn or round beginning, "
                        f"more than the limit of {self.game.run_limits.idle_actions}: a loop with no way out"))
        except RuntimeFault as fault:
            self.fault = fault
            raise

    def _advance(self) -> None:
        self._run()
        if self.game.limits:
            self._check_limits()

    def _check_limits(self) -> None:
        """`limit N per player`: checked whenever the game waits, after every triggered rule."""
        kinds = self.game.kinds
        for kind_index, limit in self.game.limits:
            held: dict[int, list[int]] = {}
            for p in self.pieces.by_kind[kind_index]:
                owner = self.zone_of(self.where[p])[1]
                if owner is not None:
                    held.setdefault(owner, []).append(p)
            for owner, pieces in held.items():
                if len(pieces) > limit:
                    names = ", ".join(self.pieces.names[p] for p in pieces)
                    rule = self.game.rules[self.limit_rule] if self.limit_rule >= 0 else None
                    where = f" (last moved by rule `{rule.name}`, {rule.where()})" if rule else ""
                    self.pending = None
                    self.fault = RuntimeFault(Diagnostic(
                        "R508", f"player {owner + 1} holds {len(pieces)} {kinds[kind_index].name} ({names}), "
                        f"more than the limit of {limit}{where}", kinds[kind_index].span,
                        help="move the extra one away in a triggered rule: `when move to ZONE of players "
                        "if count(moved_to) > N:`"))
                    raise self.fault

    def reset_once(self, scopes: tuple[str, ...]) -> None:
        """Open again the `once per ...` branches of these scopes (a new turn or round)."""
        once_scopes = self.game.once_scopes
        self.used_once = frozenset(key for key in self.used_once if once_scopes[key[0]] not in scopes)

    def once_open(self, once: int, seat: int) -> bool:
        """Whether a `once per ...` branch is still open for this seat."""
        return (once, seat) not in self.used_once

    def _apply_draw(self, pending: tuple, piece) -> bool:
        """Move the drawn piece; True when more pieces of the same `draw` are to come."""
        source, to, remaining = pending[2]
        if piece.__class__ is not int or piece not in self.zones[source]:
            raise RuntimeFault(self._diagnostic("R506", f"{piece!r} is not a piece in {self.zone_name(source)}"))
        self.move([piece], to, False, pending[1])
        if remaining <= 1:
            return False
        if not self.zones[source]:
            self.pending = None
            self.fault = RuntimeFault(self._diagnostic(
                "R507", f"nothing left to draw in {self.zone_name(source)} ({remaining - 1} more wanted)"))
            raise self.fault
        self.pending = ("draw", pending[1], (source, to, remaining - 1))
        return True

    def tally(self, name: str, key: Any) -> None:
        """`tally NAME by KEY`: one more of this outcome, for statistics."""
        if key.__class__ is list:
            key = tuple(map(_hashable, key))
        tallies = dict(self.tallies)
        tallies[(name, key)] = tallies.get((name, key), 0) + 1
        self.tallies = tallies

    def shuffle_left(self) -> list[int]:
        """The pieces a pending shuffle has not placed yet: one of them goes next, below those placed."""
        zone, left = self.pending[2]
        return self.zones[zone][:left]

    def _apply_shuffle(self, pending: tuple, piece) -> bool:
        """Place the piece picked next: it goes under the pieces already placed, so the first
        picked ends on top. True when more picks are to come (the last piece left needs none)."""
        zone, left = pending[2]
        pieces = self.zones[zone]
        if piece.__class__ is not int or piece not in pieces[:left]:
            raise RuntimeFault(self._diagnostic("R506", f"{piece!r} is not a piece left to shuffle in "
                                                f"{self.zone_name(zone)}"))
        pieces.remove(piece)
        pieces.insert(left - 1, piece)
        if left - 1 <= 1:
            return False
        self.pending = ("shuffle", pending[1], (zone, left - 1))
        return True

    def returns(self) -> list[float]:
        """1/k for each of the k winners at the end, 0 otherwise; all 0 before the end."""
        if not self.finished or not self.winners:
            return [0.0] * self.n
        share = 1.0 / len(self.winners)
        return [share if p in self.winners else 0.0 for p in range(self.n)]

    def clone(self, tracing: bool | None = None) -> State:
        """An independent copy; ``tracing=False`` makes a copy that records no events (faster)."""
        other = State.__new__(State)
        other.__dict__.update(self.__dict__)
        other.zones = [list(z) for z in self.zones]
        other.where = list(self.where)
        other.dynamic = [list(d) for d in self.dynamic]
        other.counters = list(self.counters)
        other.frames = [[f[0], f[1], list(f[2]), f[3]] for f in self.frames]
        other.history = list(self.history)
        other.events = list(self.events)
        if tracing is not None:
            other.tracing = tracing
        other.winners = list(self.winners)
        other.fired = list(self.fired)
        if self.knows is not None:
            other.knows = list(self.knows)
            other.seen_counters = dict(self.seen_counters)
        return other

    def history_str(self) -> str:
        return " ".join(str(a) for a in self.history)

    # ------------------------------------------------------------------ describing actions
    def prompt(self) -> str:
        if self.finished:
            return ""
        if self.pending[0] in _CHANCE_KINDS:
            return self.pending[0]
        return self.pending[1].prompt

    def _with_parameters(self, spec: m.ChoiceSpec, slots: list, options: list) -> list:
        """The options of a choice with a parameter: each option with each of its parameter's
        options, in order, or alone (with none) when it has none."""
        then, before = spec.then, (slots[spec.slot], slots[spec.then.slot])
        pairs = []
        for option in options:
            slots[spec.slot] = option
            values = _items(self, then.options(self, slots))
            if then.where is not None:
                kept = []
                for value in values:
                    slots[then.slot] = value
                    if then.where(self, slots):
                        kept.append(value)
                values = kept
            distinct: dict = {}
            for value in values:  # repeated values are offered once, as for `choose`
                distinct.setdefault(_freeze(value), value)
            values = list(distinct.values())
            pairs.extend([(option, v) for v in values] or [(option, None)])
        slots[spec.slot], slots[spec.then.slot] = before
        return pairs

    def action_to_string(self, action, viewer: int | None | str = "all") -> str:
        """A readable name of an action of the current node, as ``viewer`` may read it (the
        referee's by default): a piece in a zone the viewer cannot see (a blind pick from
        another's hand) is named by its place only, `a hidden card (2) from hand of player 2`."""
        if self.pending is None:
            return str(action)
        if viewer != "all" and self.pending[0] == "choose" and self.pending[1].of_pieces:
            piece = self.pending[2][action]
            if self.pending[1].then is not None:
                piece = piece[0]  # hidden, it hides its parameter too
            if self.sight(self.where[piece], viewer) != SEE_PIECES:
                kind = self.game.kinds[self.pieces.kind[piece]].name
                return f"{self.pending[1].prompt}: a hidden {kind} ({action + 1}) from " \
                    f"{self.zone_name(self.where[piece], viewer)}"
        if self.pending[0] == "shuffle":
            zone = self.pending[2][0]
            if viewer != "all" and (self.sight(zone, viewer) != SEE_PIECES
                                    or self.zone_of(zone)[0].visibility == "top only"):
                return f"shuffle {self.zone_name(zone, viewer)}"
            return f"shuffle {self.zone_name(zone, viewer)}: {self.describe_piece(action)} next"
        if self.pending[0] == "draw":
            source = self.where[action]
            sight = self.sight(source, viewer)
            if sight != SEE_PIECES:  # the card drawn from a deck the viewer does not see
                kind = self.game.kinds[self.pieces.kind[action]].name if sight == SEE_COUNT else "piece"
                return f"draw a hidden {kind} from {self.zone_name(source, viewer)}"
            return f"draw {self.describe_piece(action)} from {self.zone_name(source, viewer)}"
        if self.pending[0] == "roll":
            return "roll " + " ".join(str(label) for label in self._outcome_labels(action))
        value = self.pending[2][action]
        if self.pending[0] == "choose":
            spec = self.pending[1]
            return f"{spec.prompt}: {spec.describe(self, value)}"
        return value[0]

    def action_to_json(self, action) -> Any:
        """A JSON form of an action of the current node."""
        if self.pending[0] == "draw":
            return {"draw": self.piece_json(action)}
        if self.pending[0] == "shuffle":
            return {"shuffle": self.piece_json(action)}
        if self.pending[0] == "roll":
            return {"roll": self._outcome_labels(action)}
        value = self.pending[2][action]
        if self.pending[0] == "choose":
            return {"index": action, "choice": self.pending[1].to_json(self, value)}
        return {"index": action, "choice": value[0]}

    def _outcome_labels(self, outcome) -> list:
        labels = []
        for (kind_index, _), faces in zip(self.pending[2], outcome, strict=True):
            kind = self.game.kinds[kind_index]
            labels.extend(kind.face_labels[f] for f in faces)
        return labels

    def outcome_from_labels(self, labels: list) -> tuple:
        """The chance outcome that shows these face labels (for scripted dice)."""
        self._need_roll()
        remaining = list(labels)
        outcome = []
        for kind_index, dice in self.pending[2]:
            kind = self.game.kinds[kind_index]
            taken = remaining[: len(dice)]
            remaining = remaining[len(dice):]
            try:
                outcome.append(tuple(sorted(kind.face_labels.index(label) for label in taken)))
            except ValueError as error:
                raise RuntimeFault(self._diagnostic("R506", f"no face {error} on {kind.name}")) from None
            if len(taken) != len(dice):
                raise RuntimeFault(self._diagnostic("R506", f"{len(labels)} faces given for a roll of "
                                                    f"{sum(len(d) for _, d in self.pending[2])} dice"))
        if remaining:
            raise RuntimeFault(self._diagnostic("R506", f"{len(labels)} faces given for a roll of "
                                                f"{sum(len(d) for _, d in self.pending[2])} dice"))
        return tuple(outcome)

    def describe_piece(self, p: int, where: bool = False, label: Any = ...) -> str:
        text = self.pieces.names[p]
        if label is ...:
            label = self.dynamic[0][p]
        if label is not None:
            text += f" showing {label}"
        if where:
            text += f" from {self.zone_name(self.where[p])}"
        return text

    def describe_group(self, pieces: list[int], labels: tuple | None = None) -> str:
        """Pieces as one text: `2 x d6 showing 5 + d6 showing 1`; `nothing` for none."""
        if not pieces:
            return "nothing"
        counts: dict[str, int] = {}
        for i, p in enumerate(pieces):
            name = self.describe_piece(p, label=labels[i] if labels is not None else ...)
            counts[name] = counts.get(name, 0) + 1
        return " + ".join(name if c == 1 else f"{c} x {name}" for name, c in counts.items())

    def piece_json(self, p: int) -> dict:
        data = {"id": p, "kind": self.game.kinds[self.pieces.kind[p]].name}
        if self.dynamic[2][p] is not None:
            data["number"] = self.dynamic[2][p]
        if self.dynamic[0][p] is not None:
            data["face"] = self.dynamic[0][p]
        return data

    def counter_name(self, index: int) -> str:
        """`score of player 2`, `pot`: a counter slot by name."""
        shared = [c for c in self.game.counters if not c.per_player]
        if index < self.counter_base:
            return shared[index].name
        ordinal, owner = divmod(index - self.counter_base, self.n)
        per_player = [c for c in self.game.counters if c.per_player]
        return f"{per_player[ordinal].name} of player {owner + 1}"

    def zone_name(self, index: int, viewer: int | None | str = "all", places: dict | None = None) -> str:
        """`hand of player 2`, `deck`, `tag of gem 5`: a zone by name, as ``viewer`` may read
        it. A zone a piece carries names its carrier only to a viewer who sees the carrier where
        it lies (now, or where ``places`` says it lay when an event happened; not there: not
        seen): `tag of a hidden gem` to the others."""
        if index >= self.piece_zone_base:
            zone_index, piece = self.carried[index - self.piece_zone_base]
            zone = self.game.zones[zone_index]
            if viewer != "all":
                place = self.where[piece] if places is None else places.get(index)
                if place is None or self.sight(place, viewer) != SEE_PIECES:
                    carriers = {self.game.kinds[k].name for k in zone.carried_by}
                    return f"{zone.name} of a hidden {carriers.pop() if len(carriers) == 1 else 'piece'}"
            return f"{zone.name} of {self.pieces.names[piece]}"
        zone, owner = self.zone_of(index)
        return zone.name if owner is None else f"{zone.name} of player {owner + 1}"

    def _places(self, zones, to: int = -1) -> dict | None:
        """Where the carriers of the carried zones among ``zones`` and ``to`` lie now, for an
        event's line (``zone_name``); None when there is none."""
        base = self.piece_zone_base
        if len(self.zones) == base:
            return None
        found = {z: self.where[self.carried[z - base][1]] for z in (*zones, to) if z >= base}
        return found or None

    def zone_of(self, index: int) -> tuple[m.ZoneDef, int | None]:
        """The zone definition of a zone instance, and its owner's seat (None when shared, or
        carried by a piece)."""
        if index < self.zone_base:
            return self.game.zones[index], None
        if index >= self.piece_zone_base:
            return self.game.zones[self.carried[index - self.piece_zone_base][0]], None
        ordinal, owner = divmod(index - self.zone_base, self.n)
        return self.game.zones[self.zone_base + ordinal], owner

    def zone_index(self, name: str, owner: int | None = None) -> int:
        for zone in self.game.zones:
            if zone.name == name and not zone.per_piece:
                if zone.per_player:
                    return self.zone_base + zone.ordinal * self.n + (owner or 0)
                return zone.ordinal
        raise KeyError(name)

    # ------------------------------------------------------------------ effects (called by rules)
    def move(self, pieces: list[int], to: int, at_bottom: bool, rule: int) -> None:
        game = self.game
        if game.move_triggers:
            pieces = self._match_triggers(pieces, [self.where[p] for p in pieces], to, True)
            if not pieces:
                return
        if game.limits and self.zone_of(to)[1] is not None:
            limited, kind_of = game.limited_kinds, self.pieces.kind
            if any(kind_of[p] in limited for p in pieces):
                self.limit_rule = rule
        self.work += len(pieces)
        if self.work > self.work_budget:
            raise LimitExceeded("R509", f"more work in one step than the limit of {self.work_budget} "
                                f"(moving {len(pieces)} pieces)")
        zones, where = self.zones, self.where
        origins = list(map(where.__getitem__, pieces))
        source = zones[origins[0]] if origins else None
        if source is not None and len(source) == len(pieces) and source == pieces and source is not pieces:
            source.clear()  # a whole zone, in its order
        elif len(pieces) > 8:  # many pieces: one pass over each zone they leave, not one per piece
            gone = set(pieces)
            for origin in set(origins):
                zones[origin][:] = [p for p in zones[origin] if p not in gone]
        else:
            for p, origin in zip(pieces, origins):
                zones[origin].remove(p)
        target = zones[to]
        sort_column = self.sort_columns[to]
        if sort_column is not None:
            # A sorted zone stays sorted (create sorts it too): each piece goes after its equals.
            key = self.pieces.columns[sort_column].__getitem__
            for p in pieces:
                bisect.insort_right(target, p, key=key)
                where[p] = to
        else:
            for p in pieces:
                where[p] = to
            if at_bottom:
                target[0:0] = pieces
            else:
                target.extend(pieces)
        if self.tracing:
            # `pieces` is the caller's fresh list, never changed afterwards: kept as it is.
            self.events.append((rule, "move", (pieces, origins, to, list(map(self.dynamic[0].__getitem__, pieces)),
                                               self._places(origins, to))))
        if self.knows is not None:
            knowledge.moved(self, pieces, origins, to)
        if game.move_triggers:
            self._match_triggers(pieces, origins, to, False)

    def _match_triggers(self, pieces: list[int], origins: list[int], to: int, instead: bool) -> list[int]:
        """Queue the triggered rules this move sets off. Before the move (``instead``), the
        pieces that `instead` rules take are removed from it; returns the pieces still to move."""
        running = {frame[0] for frame in self.frames}
        procedures = self.game.procedures
        for index, trigger in enumerate(self.game.move_triggers):
            if trigger.instead != instead or trigger.procedure in running:
                continue  # a rule never triggers itself
            if trigger.targets is not None and to not in trigger.targets(self, []):
                continue
            if trigger.sources is not None:
                sources = trigger.sources(self, [])
                matched = [p for p, o in zip(pieces, origins) if o in sources]
            else:
                matched = list(pieces)
            if not matched:
                continue
            first_origin = origins[pieces.index(matched[0])]
            frame = [matched, first_origin, to] + [None] * (procedures[trigger.procedure].slot_count - 3)
            if trigger.cond is not None and not trigger.cond(self, frame):
                continue
            self.fired.append((len(self.frames) - 1, index, frame))
            if instead:
                pieces = [p for p in pieces if p not in matched]
                origins = [self.where[p] for p in pieces]
        return pieces

    def create(self, kind_index: int, count: int | None, into: int, rule: int) -> None:
        kind = self.game.kinds[kind_index]
        room = self.game.run_limits.pieces - len(self.pieces.kind)
        wanted = len(kind.pieces) if count is None else count
        if wanted.__class__ is not int:
            raise TypeError(f"`create` needs a whole number of pieces, not {type(wanted).__name__}")
        if wanted > room:
            raise LimitExceeded("R512", f"`create` of {wanted} {kind.name} would make more than the "
                                f"limit of {self.game.run_limits.pieces} pieces in a game")
        rows = kind.pieces if count is None else (kind.pieces[0],) * count if kind.pieces else ()
        old = self.pieces
        start, added = len(old.kind), len(rows)
        new = list(range(start, start + added))
        number_column = self.game.attributes.index("number")
        value_column = self.game.attributes.index("value")
        by_kind = list(old.by_kind)
        by_kind[kind_index] = old.by_kind[kind_index] + new
        names = [kind.name if kind.is_die or not kind.name_columns or any(row[c] is None for c in kind.name_columns)
                 else " ".join([kind.name] + [str(row[c]) for c in kind.name_columns]) for row in rows]
        # A new table, never a changed one: clones made before still share the old.
        self.pieces = table = PieceTable(
            old.kind + [kind_index] * added,
            [column + [row[i] for row in rows] for i, column in enumerate(old.columns)],
            by_kind, old.names + names)
        self.where.extend([into] * added)
        self.dynamic[0].extend([None] * added)
        if kind.is_die:
            self.dynamic[1].extend([None] * added)
            self.dynamic[2].extend([None] * added)
        else:
            self.dynamic[1].extend(row[value_column] for row in rows)
            self.dynamic[2].extend(row[number_column] for row in rows)
        sort_column = self.sort_columns[into]
        if sort_column is not None:
            column = table.columns[sort_column]
            self.zones[into] = sorted(self.zones[into] + new, key=lambda p: column[p])
        else:
            self.zones[into].extend(new)
        carriers = [(i, z) for i, z in enumerate(self.game.zones) if z.per_piece]
        if carriers:
            self._make_carried_zones(carriers, kind_index, new)
        self.events.append((rule, "create", (tuple(new), into, self._places((into,)))))
        if self.knows is not None:
            knowledge.created(self, new, into)

    def _make_carried_zones(self, carriers: list, kind_index: int, new: list[int]) -> None:
        piece_zone, carried = [list(table) for table in self.piece_zone], list(self.carried)
        sort_columns = list(self.sort_columns)
        for ordinal, (zone_index, zone) in enumerate(carriers):
            for p in new:
                if kind_index in zone.carried_by:
                    piece_zone[ordinal].append(len(self.zones))
                    carried.append((zone_index, p))
                    self.zones.append([])
                    sort_columns.append(zone.sort_column)
                else:
                    piece_zone[ordinal].append(None)
        self.piece_zone, self.carried, self.sort_columns = piece_zone, carried, sort_columns

    def set_counter(self, index: int, value: Any, rule: int, is_seat: bool = False) -> None:
        if value.__class__ is int and not -self.big_number < value < self.big_number:
            raise LimitExceeded("R511", f"{self.counter_name(index)} would get a number of more "
                                f"than {self.number_digits} digits")
        self.counters[index] = value
        if self.seen_counters:
            knowledge.counter_set(self, index, value)
        if self.tracing:
            self.events.append((rule, "set", (index, value, is_seat)))

    def eliminate(self, who: Any, rule: int) -> None:
        """`eliminate`: a player, or a list of players, is out for the rest of the game;
        one already out stays out, silently."""
        for seat in who if isinstance(who, list) else [who]:
            if seat.__class__ is not int or not 0 <= seat < self.n:
                raise ValueError(f"`eliminate` names {_named(seat)}, which is not a player of this game")
            if seat not in self.out:
                self.out = self.out | {seat}
                if self.tracing:
                    self.events.append((rule, "out", seat))

    def turn_start(self, seat: Any) -> int:
        """The seat a `starting with` names (a number wraps around, as `seat(i)` does)."""
        if seat.__class__ is not int:
            raise ValueError(f"`starting with` names {_named(seat)}, which is not a player of this game")
        return seat % self.n

    def _apply_roll(self, pending: tuple, outcome) -> None:
        groups = pending[2]
        if len(groups) == 1 and outcome.__class__ is tuple and len(outcome) == 1:  # one kind of dice
            kind_index, dice = groups[0]
            faces = outcome[0]
            kind = self.game.kinds[kind_index]
            labels = kind.face_labels
            if faces.__class__ is tuple and len(faces) == len(dice) and list(faces) == sorted(faces) \
                    and (not faces or (0 <= faces[0] and faces[-1] < len(labels))):
                labels_out, values_out, numbers_out = self.dynamic
                values, numbers = kind.face_values, _face_numbers(labels)
                for p, f in zip(dice, faces):
                    labels_out[p] = labels[f]
                    values_out[p] = values[f]
                    numbers_out[p] = numbers[f]
                if self.tracing:
                    self.events.append((pending[1], "roll", list(zip(
                        dice, map(labels_out.__getitem__, dice), map(self.where.__getitem__, dice)))))
                if self.knows is not None:
                    knowledge.rolled(self, dice)
                return
        if outcome.__class__ is not tuple or len(outcome) != len(groups):
            raise RuntimeFault(self._diagnostic("R506", f"{outcome!r} is not an outcome of this roll"))
        labels_out, values_out, numbers_out = self.dynamic
        kinds = self.game.kinds
        for (kind_index, dice), faces in zip(groups, outcome):
            count = len(kinds[kind_index].face_labels)
            if faces.__class__ is not tuple or len(faces) != len(dice) or list(faces) != sorted(faces) \
                    or (faces and not (0 <= faces[0] and faces[-1] < count)):
                raise RuntimeFault(self._diagnostic("R506", f"{outcome!r} is not an outcome of this roll"))
        for (kind_index, dice), faces in zip(groups, outcome):
            kind = kinds[kind_index]
            labels, values = kind.face_labels, kind.face_values
            numbers = _face_numbers(labels)
            for p, f in zip(dice, faces):
                labels_out[p] = labels[f]
                values_out[p] = values[f]
                numbers_out[p] = numbers[f]
        if self.tracing:
            where = self.where
            self.events.append((pending[1], "roll", [(p, labels_out[p], where[p]) for _, dice in groups for p in dice]))
        if self.knows is not None:
            knowledge.rolled(self, [p for _, dice in groups for p in dice])

    # ------------------------------------------------------------------ the rule machine
    def _rule_at(self) -> int:
        proc, pc = self.frames[-1][0], self.frames[-1][1]
        code = self.game.procedures[proc].code
        return code[pc][3] if pc < len(code) else -1

    def _seat(self, value: Any) -> int:
        """The seat a `by` names; anything else (none, a number that is no seat) is a fault."""
        if value.__class__ is int and 0 <= value < self.n:
            return value
        shown = "none" if value is None else _value_text(value)
        raise RuntimeFault(self._diagnostic(
            "R503", f"`by` names {shown}, which is not a player of this game"))

    def _diagnostic(self, code: str, message: str) -> Diagnostic:
        span = None
        rule_text = ""
        if self.frames:
            proc = self.game.procedures[self.frames[-1][0]]
            pc = min(self.frames[-1][1], len(proc.code) - 1)
            span = proc.spans[pc]
            rule = proc.code[pc][3]
            if rule >= 0:
                r = self.game.rules[rule]
                rule_text = f" (in rule `{r.name}`, {r.where()})"
        return Diagnostic(code, message + rule_text, span)

    def _past_limit(self, what: str) -> str:
        """The R504 message: the file's own `at most N` or, when lower, the `turns` limit."""
        if self.game.run_limits.turns < self.game.turn_limit:
            return (f"the game went past the limit of {self.game.run_limits.turns} {what} in one game "
                    f"(raise it with `--limit turns=N`)")
        return f"the game went past its limit of {self.game.turn_limit} {what}"

    def _run(self) -> None:
        """Run instructions until a decision, a chance node or the end of the game."""
        procedures = self.game.procedures
        frame = self.frames[-1]
        code = procedures[frame[0]].code
        slots = frame[2]
        pc = frame[1]
        steps = 0
        limit = self.game.step_limit
        fired = self.fired
        self.work = 0
        try:
            while True:
                if fired:  # triggered rules run after the statement that set them off, each to its end
                    depth = len(self.frames) - 1
                    waiting = next((k for k, entry in enumerate(fired) if entry[0] == depth), -1)
                    if waiting >= 0:
                        frame[1] = pc
                        _, index, slots = fired.pop(waiting)
                        trigger = self.game.move_triggers[index]
                        if self.tracing:
                            labels = self.dynamic[0]
                            self.events.append((trigger.rule, "trigger", (
                                slots[0], slots[1], slots[2], trigger.instead, [labels[p] for p in slots[0]],
                                self._places((slots[1], slots[2])))))
                        frame = [trigger.procedure, 0, slots, False]
                        self.frames.append(frame)
                        code, pc = procedures[trigger.procedure].code, 0
                steps += 1
                if steps > limit:
                    frame[1] = pc
                    raise RuntimeFault(self._diagnostic("R502", f"no decision or roll after {limit} steps: "
                                                        "an endless loop"))
                op, a, b, rule = code[pc]
                if op == 0:  # OP_EXEC
                    a(self, slots)
                    pc += 1
                elif op == 2:  # OP_JUMP_IF_NOT
                    pc = pc + 1 if a(self, slots) else b
                elif op == 1:  # OP_JUMP
                    pc = a
                elif op == 3:  # OP_CHOOSE
                    frame[1] = pc
                    options = a.options(self, slots)
                    if a.where is not None:
                        where, slot = a.where, a.slot
                        before = slots[slot]  # the variable keeps its value until something is chosen
                        kept = []
                        for option in options:
                            slots[slot] = option
                            if where(self, slots):
                                kept.append(option)
                        slots[slot] = before
                        options = kept
                    if options and not isinstance(options[0], list):
                        options = list(dict.fromkeys(options))
                    if a.of_pieces and any(o.__class__ is not int for o in options):
                        raise RuntimeFault(self._diagnostic(
                            "R503", f"`{a.prompt}` is a choice of pieces, and one of its options is not a piece"))
                    if a.then is not None:
                        options = self._with_parameters(a, slots, options)
                    if not options:
                        if a.otherwise < 0:
                            raise RuntimeFault(self._diagnostic("R501", f"`{a.prompt}` has no options"))
                        pc = a.otherwise
                        if self.tracing:
                            self.events.append((rule, "otherwise", a.prompt))
                        continue
                    chooser = self.player if a.chooser is None else self._seat(a.chooser(self, slots))
                    self.pending = ("choose", a, options, chooser)
                    return
                elif op == 4:  # OP_BRANCH
                    frame[1] = pc
                    chooser = self.player if a.chooser is None else self._seat(a.chooser(self, slots))
                    options = a.fixed or [(label, target, once) for label, cond, target, once in a.branches
                                          if (cond is None or cond(self, slots))
                                          and (once is None or self.once_open(once, chooser))]
                    if not options:
                        raise RuntimeFault(self._diagnostic("R501", f"`{a.prompt}` has no open branch"))
                    self.pending = ("branch", a, options, chooser)
                    return
                elif op == 5:  # OP_ROLL
                    frame[1] = pc
                    dice = a(self, slots)
                    if not dice:
                        pc += 1
                        continue
                    kind_of = self.pieces.kind
                    kinds = set(map(kind_of.__getitem__, dice))
                    if len(kinds) == 1:
                        groups = [(kinds.pop(), list(dice))]
                    else:
                        by_kind: dict[int, list[int]] = {}
                        for p in dice:
                            by_kind.setdefault(kind_of[p], []).append(p)
                        groups = sorted(by_kind.items())
                    for kind_index, _ in groups:
                        if self.game.kinds[kind_index].category != "die":  # not is_die
                            raise RuntimeFault(self._diagnostic(
                                "R503", f"`roll` needs dice; {self.game.kinds[kind_index].name} is not a die"))
                    self.pending = ("roll", rule, groups)
                    return
                elif op == 12:  # OP_DRAW
                    frame[1] = pc
                    count = a.count(self, slots)
                    if count <= 0:
                        pc += 1
                        continue
                    source = a.source(self, slots)
                    if not self.zones[source]:
                        raise RuntimeFault(self._diagnostic(
                            "R507", f"nothing to draw: {self.zone_name(source)} is empty"))
                    self.pending = ("draw", rule, (source, a.to(self, slots), count))
                    return
                elif op == 13:  # OP_SHUFFLE
                    frame[1] = pc
                    zone = a(self, slots)
                    if self.tracing:
                        self.events.append((rule, "shuffle", zone))
                    if len(self.zones[zone]) < 2 or self.sort_columns[zone] is not None:
                        pc += 1  # nothing to put in order, or a zone that keeps its own
                        continue
                    if self.knows is not None:
                        knowledge.shuffled(self, zone)
                    self.pending = ("shuffle", rule, (zone, len(self.zones[zone])))
                    return
                elif op == 6 or op == 11:  # OP_CALL, OP_TURN
                    frame[1] = pc + 1
                    if op == 11:
                        self.turn_number += 1
                        if self.turn_number > self.game.turn_limit or self.turn_number > self.game.run_limits.turns:
                            frame[1] = pc
                            raise RuntimeFault(self._diagnostic("R504", self._past_limit("turns")))
                        self.events.append((rule, "turn", self.player))
                        if self.used_once:
                            self.reset_once(("turn",))
                    proc = procedures[a]
                    frame = [a, 0, [None] * proc.slot_count, op == 11]
                    self.frames.append(frame)
                    code, slots, pc = proc.code, frame[2], 0
                elif op == 7 or op == 8:  # OP_RETURN, OP_END_TURN
                    if op == 8:
                        self.events.append((rule, "end turn", self.player))
                        while not self.frames[-1][3]:
                            self.frames.pop()
                    self.frames.pop()
                    if fired:  # rules set off in the frames just left are not run
                        fired[:] = [entry for entry in fired if entry[0] < len(self.frames)]
                    frame = self.frames[-1]
                    code, slots, pc = procedures[frame[0]].code, frame[2], frame[1]
                elif op == 10:  # OP_CHECK_END
                    frame[1] = pc
                    if a and (self.round_number > self.game.turn_limit or self.round_number > self.game.run_limits.turns):
                        raise RuntimeFault(self._diagnostic("R504", self._past_limit("rounds")))
                    if self._game_ends(a):
                        return
                    pc += 1
                elif op == 9:  # OP_END_GAME
                    frame[1] = pc
                    self._finish(rule)
                    return
        except RuntimeFault:
            raise
        except Exception as error:  # a fault in the rules: name the rule, never a bare traceback
            frame[1] = pc
            raise RuntimeFault(self._diagnostic(_code_of(error), describe_error(error))) from None

    def _game_ends(self, after_round: bool) -> bool:
        for check in self.game.ends:
            if check.kind == "end-round" and not after_round:
                continue
            if check.test(self, [None] * check.slot_count):
                self._finish(check.rule)
                return True
        return False

    def _finish(self, rule: int) -> None:
        self.finished = True
        self.fired.clear()
        self.pending = None
        self.end_rule = rule
        self.winners = self._winners()
        self.events.append((rule, "game over", tuple(self.winners)))

    def scores(self) -> list[list]:
        """The winner criteria's values for each player, in criteria order; a criterion that
        fails or is not a number is a RuntimeFault naming its rule."""
        saved = self.player
        table = []
        try:
            for p in range(self.n):
                self.player = p
                row = []
                for c in self.game.criteria:
                    value = self._evaluate(c, f"winner rule `{self.game.rules[c.rule].name}`")
                    if value is not None and value.__class__ not in (int, float, bool):
                        raise RuntimeFault(Diagnostic(
                            "R503", f"the winner rule `{self.game.rules[c.rule].name}` ranks players by "
                            f"{_kind_of(value)}, not a number", c.span,
                            help="rank by a number, such as a counter or `count(...)`"))
                    row.append(value)
                table.append(row)
        finally:
            self.player = saved
        return table

    def _evaluate(self, check: m.Check, what: str) -> Any:
        """A check's value; a Python error in it becomes a RuntimeFault naming ``what``."""
        self.work = 0
        try:
            return check.test(self, [None] * check.slot_count)
        except Exception as error:
            raise RuntimeFault(Diagnostic(_code_of(error), f"{what} cannot be worked out: "
                                          f"{describe_error(error)}", check.span)) from None

    def _winners(self) -> list[int]:
        for check in self.game.no_winner:
            if self._evaluate(check, f"winner rule `{self.game.rules[check.rule].name}`"):
                return []
        table = self.scores()
        keys = []
        for p in range(self.n):
            key = []
            for check, value in zip(self.game.criteria, table[p], strict=True):
                # none (nothing to count) ranks last under both `most` and `least`
                key.append(-math.inf if value is None else value if check.kind == "most" else -value)
            keys.append(tuple(key))
        best = max(keys) if keys else None
        return [p for p in range(self.n) if keys[p] == best]

    def check_invariants(self) -> list[str]:
        """Names of declared invariants that do not hold now."""
        return [self.game.rules[c.rule].name for c in self.game.invariants
                if not self._evaluate(c, f"invariant `{self.game.rules[c.rule].name}`")]

    # ------------------------------------------------------------------ what a seat may see
    # A viewer is a seat (0..n-1), None (a spectator: public information only) or "all" (the
    # referee: everything). docs/language.md, "What each seat sees", is the model in words.
    def sight(self, zone_index: int, viewer: int | None | str) -> int:
        """What ``viewer`` sees of a zone: SEE_PIECES (the pieces, and what dice show; also
        `top only` zones, whose pieces everyone saw arrive), SEE_COUNT (how many of each kind)
        or SEE_NOTHING (another player's `secret` zone, or a shared or carried one)."""
        if viewer == "all":
            return SEE_PIECES
        zone, owner = self.zone_of(zone_index)
        visibility = zone.visibility
        if visibility == "public" or visibility == "top only":
            return SEE_PIECES
        if visibility == "hidden":
            return SEE_COUNT
        if owner is not None and owner == viewer:
            return SEE_PIECES
        return SEE_COUNT if visibility == "owner only" else SEE_NOTHING

    def _sees(self, zone_index: int, viewer) -> bool:
        return self.sight(zone_index, viewer) == SEE_PIECES

    def counter_of(self, index: int) -> tuple[m.CounterDef, int | None]:
        """The definition of a counter slot, and its owner's seat (None when shared)."""
        if index < self.counter_base:
            return self.game.counters[index], None
        ordinal, owner = divmod(index - self.counter_base, self.n)
        return self.game.counters[self.counter_base + ordinal], owner

    def sees_counter(self, index: int, viewer: int | None | str) -> bool:
        """Whether ``viewer`` sees a counter's value: `public` ones, its own `owner only` ones."""
        if viewer == "all":
            return True
        counter, owner = self.counter_of(index)
        return counter.visibility == "public" or (
            counter.visibility == "owner only" and owner is not None and owner == viewer)

    def observation(self, player: int | None | str) -> dict:
        """What a seat may see now (None: a spectator, "all": the referee): every zone it sees
        (pieces, or ``{"count", "kinds"}``, or ``{"count", "top"}``; another's `secret` zone
        is left out) and every counter whose value it sees."""
        self.check_viewer(player)
        zones: dict[str, Any] = {}
        unnamed: dict[str, list[int]] = {}  # carried zones whose carriers the seat does not see
        for index, pieces in enumerate(self.zones):
            sight = self.sight(index, player)
            if sight == SEE_NOTHING:
                continue
            zone = self.zone_of(index)[0]
            name = self.zone_name(index, player)
            if index >= self.piece_zone_base and player != "all" and " of a hidden " in name:
                if pieces:  # all such zones of a kind as one: which holds what would tell them apart
                    unnamed.setdefault(name, []).extend(pieces)
                continue
            if zone.visibility == "top only" and player != "all":
                zones[name] = {"count": len(pieces), "top": self._shown(pieces[-1], zone, player) if pieces else None}
            elif sight == SEE_PIECES:
                zones[name] = [self._shown(p, zone, player) for p in pieces]
            else:
                zones[name] = {"count": len(pieces), "kinds": self._kind_counts(pieces)}
        for name in sorted(unnamed):
            pieces = unnamed[name]
            zone = self.zone_of(self.where[pieces[0]])[0]
            if self.sight(self.where[pieces[0]], player) == SEE_PIECES:
                zones[name] = sorted(self._shown(p, zone, player) for p in pieces)
            else:
                zones[name] = {"count": len(pieces), "kinds": self._kind_counts(sorted(pieces))}
        counters = {}
        for index in range(len(self.counters)):
            if self.sees_counter(index, player):
                counters[self.counter_name(index)] = self.counters[index]
        return {
            "current_player": self.current_player(),
            "round": self.round_number,
            "turn": self.turn_number,
            "zones": zones,
            "counters": counters,
            "out": sorted(self.out),
        }

    def sees_score(self, criterion: int, viewer: int | None | str, row: int | None = None) -> bool:
        """Whether ``viewer`` may see a winner criterion's value in player ``row``'s row now (of
        every row when ``row`` is None): always at the end; before it, unless the criterion reads
        something not every seat sees, and then in its own row if it reads only its own secrets."""
        seen_by = self.game.criteria[criterion].seen_by
        return viewer == "all" or self.finished or seen_by == "all" or (
            seen_by == "owner" and row is not None and viewer == row)

    def observation_string(self, seat: int | None | str) -> str:
        """``observation(seat)`` as canonical text: equal for two states that look the same
        to the seat now; no piece ids, nothing it cannot see."""
        seen = self.observation(seat)
        mover = seen["current_player"]
        who = "game over" if mover == TERMINAL else "chance" if mover == CHANCE else f"player {mover + 1}"
        lines = [f"round {seen['round']}, turn {seen['turn']}, to move: {who}"]
        for name, zone in seen["zones"].items():
            if isinstance(zone, list):
                lines.append(f"{name}: " + (", ".join(zone) or "empty"))
            elif "top" in zone:
                lines.append(f"{name}: {zone['count']}, top {zone['top'] or 'none'}")
            else:
                kinds = ", ".join(f"{count} {kind}" for kind, count in zone["kinds"].items())
                lines.append(f"{name}: {zone['count']} hidden" + (f" ({kinds})" if kinds else ""))
        lines.extend(f"{name} = {_value_text(value)}" for name, value in seen["counters"].items())
        if seen["out"]:
            lines.append("out: " + ", ".join(f"player {p + 1}" for p in seen["out"]))
        return "\n".join(lines)

    def information_state_string(self, seat: int | None | str) -> str:
        """Everything a seat has seen so far, as canonical text: its view of the trace from the
        start, then its observation now. Two states with the same string are the same to the
        seat. Needs the trace (a ``clone(tracing=False)`` has none)."""
        self.check_viewer(seat)
        label = "referee" if seat == "all" else "spectator" if seat is None else f"player {seat + 1}"
        done, lines = self.seen_lines.get(seat, (0, ()))
        if done != len(self.events):
            lines += tuple(self.format_event(e, seat) for e in self.events[done:])
            self.seen_lines = {**self.seen_lines, seat: (len(self.events), lines)}
        return "\n".join([f"view of {label}", *lines, "--", self.observation_string(seat)])

    def _kind_counts(self, pieces: list[int]) -> dict[str, int]:
        """How many pieces of each kind, in the order kinds are declared."""
        kind_of = self.pieces.kind
        counts = [0] * len(self.game.kinds)
        for p in pieces:
            counts[kind_of[p]] += 1
        return {k.name: c for k, c in zip(self.game.kinds, counts, strict=True) if c}

    def _counted(self, pieces: list[int]) -> str:
        """Pieces a viewer only counts, as `create` lines count them: ``2 ox``, ``1 d6 + 3 chip``."""
        return " + ".join(f"{count} {kind}" for kind, count in self._kind_counts(pieces).items())

    def _shown(self, piece: int, zone: m.ZoneDef, viewer: int | None | str = None) -> str:
        """A piece as a board shows it: its name, and the attribute its zone is `showing`."""
        text = self.describe_piece(piece)
        if zone.shows is not None:
            column = self.game.attributes.index(zone.shows)
            text += f" ({zone.shows} {self.pieces.columns[column][piece]})"
        for table in self.piece_zone:
            carried = table[piece] if piece < len(table) else None
            if carried is not None and self.zones[carried]:
                carried_zone = self.zone_of(carried)[0]
                sight = self.sight(carried, viewer)
                if sight == SEE_NOTHING:
                    continue
                if carried_zone.visibility == "public" or viewer == "all":
                    what = self.describe_group(self.zones[carried])
                else:
                    what = f"{len(self.zones[carried])} hidden"
                text += f" [{carried_zone.name}: {what}]"
        return text

    def event_lines(self, start: int = 0, viewer: int | None | str = "all") -> list[str]:
        """The trace from event ``start`` on, one line per event, each with the rule (file:line)
        that caused it, as ``viewer`` may see it (a seat; None: a spectator; "all": the referee,
        who sees everything): what it cannot see is counted, or left out (see ``format_event``).
        Control characters from the rules file are shown escaped."""
        self.check_viewer(viewer)
        return [printable(self.format_event(e, viewer)) for e in self.events[start:]]

    def check_viewer(self, viewer: Any) -> None:
        """A viewer is a seat of this game, None (a spectator) or "all" (the referee); anything
        else is a ValueError, never silently a spectator."""
        if viewer is not None and viewer != "all" and (viewer.__class__ is not int or not 0 <= viewer < self.n):
            raise ValueError(f"a viewer is a seat 0..{self.n - 1}, None (a spectator) or \"all\", not {viewer!r}")

    def _moved_text(self, pieces, origins, to: int, labels, viewer) -> str:
        """Moving pieces as a viewer sees them: named where it sees them at either end, counted
        by kind where it sees only how many, `pieces` (no count) where it sees neither end."""
        if viewer == "all":
            return self.describe_group(list(pieces), labels)
        sight_to = self.sight(to, viewer)
        named, counted, unseen = [], [], False
        for i, (p, origin) in enumerate(zip(pieces, origins, strict=True)):
            sight = sight_to if sight_to == SEE_PIECES else max(sight_to, self.sight(origin, viewer))
            if sight == SEE_PIECES:
                named.append(i)
            elif sight == SEE_COUNT:
                counted.append(p)
            else:
                unseen = True
        parts = []
        if named:
            parts.append(self.describe_group([pieces[i] for i in named], [labels[i] for i in named]))
        if counted:
            parts.append(self._counted(counted))
        if unseen or not parts:
            parts.append("pieces")
        return " + ".join(parts)

    def _roll_text(self, payload: list, viewer) -> str:
        """A roll: the faces of the dice the viewer sees; of the others, how many dice rolled in
        each zone it only counts, and only the zone for another's `secret` zone."""
        seen: list[tuple[int, Any]] = []
        unseen: dict[int, list[int]] = {}
        for p, label, zone in payload:
            if self._sees(zone, viewer):
                seen.append((p, label))
            else:
                unseen.setdefault(zone, []).append(p)
        parts = []
        if seen or not unseen:
            by_kind: dict[str, list[str]] = {}
            for p, label in seen:
                by_kind.setdefault(self.game.kinds[self.pieces.kind[p]].name, []).append(str(label))
            if len(by_kind) == 1:
                parts.append(" ".join(next(iter(by_kind.values()))))
            else:
                parts.append(", ".join(f"{name} {' '.join(labels)}" for name, labels in by_kind.items()))
        for zone, dice in unseen.items():
            counted = self._counted(dice) if self.sight(zone, viewer) == SEE_COUNT else "dice"
            parts.append(f"{counted} in {self.zone_name(zone, viewer, {})}")
        return "roll " + "; ".join(parts)

    def format_event(self, event: tuple, viewer: int | None | str = "all") -> str:
        """One event as a line of the trace, as ``viewer`` may see it (``event_lines``)."""
        rule, kind, payload = event
        if kind == "move":
            pieces, origins, to, labels = payload[:4]
            places = payload[4] or {} if len(payload) > 4 else {}
            sources = sorted({self.zone_name(o, viewer, places) for o in origins})
            what = self._moved_text(pieces, origins, to, labels, viewer)
            text = f"move {what} from {', '.join(sources)} to {self.zone_name(to, viewer, places)}"
        elif kind == "trigger":
            moved, source, to, instead, labels = payload[:5]
            places = payload[5] or {} if len(payload) > 5 else {}
            what = self._moved_text(moved, [source] * len(moved), to, labels, viewer)
            route = f"from {self.zone_name(source, viewer, places)} to {self.zone_name(to, viewer, places)}"
            text = f"instead: {what} does not move {route}" if instead else f"triggered: {what} moved {route}"
        elif kind == "roll":
            text = self._roll_text(payload, viewer)
        elif kind == "choose":
            player, prompt, choice, seen_in = payload[:4]  # a fifth: True for a labelled branch
            # a piece shows to whoever sees where it was chosen (a blind pick, not even to its
            # chooser); a value computed from hidden things (-1) to its chooser only
            if seen_in is not None and viewer != "all" and (
                    viewer != player if seen_in < 0 else not self._sees(seen_in, viewer)):
                choice = "(hidden)"
            text = f"player {player + 1} chooses {choice}" if prompt is None else \
                f"player {player + 1} chooses {prompt}: {choice}"
        elif kind == "create":
            pieces, into = payload[:2]
            into_name = self.zone_name(into, viewer, payload[2] or {} if len(payload) > 2 else {})
            kinds = ", ".join(dict.fromkeys(self.game.kinds[self.pieces.kind[p]].name for p in pieces)) or "pieces"
            if self.sight(into, viewer) == SEE_NOTHING:
                text = f"create {kinds} in {into_name}"  # how many is secret
            else:
                text = f"create {len(pieces)} {kinds} in {into_name}"
        elif kind == "turn":
            text = f"turn of player {payload + 1}"
        elif kind == "end turn":
            text = f"player {payload + 1}'s turn ends"
        elif kind == "round":
            text = f"round {payload}"
        elif kind == "out":
            text = f"player {payload + 1} is out"
        elif kind == "everyone out":
            text = "every player is out"
        elif kind == "game over":
            names = ", ".join(f"player {p + 1}" for p in payload)
            text = f"game over; winner(s): {names}" if payload else "game over; no winner"
        elif kind == "set" and not self.sees_counter(payload[0], viewer):
            text = f"{self.counter_name(payload[0])} changes"
        elif kind == "set":
            index, value, is_seat = payload
            shown = "none" if value is None else f"player {value + 1}" if is_seat else \
                str(value).lower() if isinstance(value, bool) else value
            text = f"{self.counter_name(index)} = {shown}"
        elif kind == "otherwise":
            text = f"no option for `{payload}`: otherwise"
        elif kind == "shuffle":
            text = f"shuffle {self.zone_name(payload, viewer)}"
        else:
            text = f"{kind} {payload}"
        if rule >= 0:
            r = self.game.rules[rule]
            return f"{text}  [{r.name}, {r.where()}]"
        return text
