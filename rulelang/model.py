"""The compiled game definition: immutable, holds no runtime values; the runtime executes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from .limits import DEFAULT, Limits
from .source import Span

# Instruction opcodes of the rule machine (see runtime.State._run).
OP_EXEC = 0          # a: effect(state, frame)
OP_JUMP = 1          # a: target
OP_JUMP_IF_NOT = 2   # a: condition(state, frame), b: target
OP_CHOOSE = 3        # a: ChoiceSpec
OP_BRANCH = 4        # a: BranchSpec
OP_ROLL = 5          # a: dice(state, frame) -> list of pieces
OP_CALL = 6          # a: procedure index
OP_RETURN = 7
OP_END_TURN = 8
OP_END_GAME = 9
OP_CHECK_END = 10    # a: True after a round, False after a turn
OP_TURN = 11         # a: procedure index of the turn; the seat is state.player
OP_DRAW = 12         # a: DrawSpec
OP_SHUFFLE = 13      # a: zone(state, frame)

# The procedures every game has, by number (the file's own procedures come after them)
MAIN_PROCEDURE, SETUP_PROCEDURE, ROUND_PROCEDURE, TURN_PROCEDURE = 0, 1, 2, 3

OPCODE_NAMES = {
    OP_EXEC: "exec", OP_JUMP: "jump", OP_JUMP_IF_NOT: "jump-if-not", OP_CHOOSE: "choose",
    OP_BRANCH: "branch", OP_ROLL: "roll", OP_CALL: "call", OP_RETURN: "return",
    OP_END_TURN: "end-turn", OP_END_GAME: "end-game", OP_CHECK_END: "check-end", OP_TURN: "turn",
    OP_DRAW: "draw", OP_SHUFFLE: "shuffle",
}

Evaluator = Callable[[Any, list], Any]


@attrs.frozen
class RuleDef:
    """A named rule: where it is written, and its description."""

    name: str
    path: str
    line: int
    doc: str = ""

    def where(self) -> str:
        return f"{self.path}:{self.line}"


@attrs.frozen
class OptionDef:
    """A named setting with its default and the value this definition was compiled with."""

    name: str
    default: Any
    value: Any
    doc: str = ""
    bounds: tuple[int, int] | None = None  # `in LOW to HIGH`: the values it takes


@attrs.frozen
class KindDef:
    """A kind of component. Dice have faces; other kinds have a list of generated pieces.

    ``pieces`` holds one tuple of static attribute values (indexed like GameDef.attributes) per
    piece that ``create kind`` makes without a count.
    """

    name: str
    category: str
    face_labels: tuple[Any, ...] = ()
    face_values: tuple[Any, ...] = ()
    pieces: tuple[tuple[Any, ...], ...] = ()
    span: Span | None = attrs.field(default=None, eq=False)
    limit: int | None = None  # `limit N per player`
    name_columns: tuple[int, ...] = ()  # the `one for each` attributes that name a piece
    # the `number` each face shows (its label when a number, else none), worked out once
    face_numbers: tuple[Any, ...] = attrs.field(init=False, eq=False, repr=False)

    # faces alike (the same label and value: a die with three brains and two footsteps) roll as
    # one with its weight: each face's first alike face, or None when no two faces are alike
    face_firsts: tuple[int, ...] | None = attrs.field(init=False, eq=False, repr=False)

    @face_numbers.default
    def _face_numbers(self) -> tuple[Any, ...]:
        return tuple(label if label.__class__ is int else None for label in self.face_labels)

    @face_firsts.default
    def _face_firsts(self) -> tuple[int, ...] | None:
        first: dict[tuple, int] = {}
        firsts = tuple(first.setdefault((label.__class__, label, value), i)
                       for i, (label, value) in enumerate(zip(self.face_labels, self.face_values)))
        return None if len(first) == len(firsts) else firsts

    @property
    def is_die(self) -> bool:
        return self.category == "die"


@attrs.frozen
class ZoneDef:
    """A zone: shared (one instance) or per player (one per seat), its kind and visibility."""

    name: str
    per_player: bool
    kind: str
    visibility: str
    sort_column: int | None
    # Shared zones come first: a shared zone's instance is ``ordinal``; the instance of the
    # k-th per-player zone for seat s is ``shared_count + k * players + s``.
    ordinal: int
    shows: str | None = None  # an attribute the board shows beside each piece
    # `per KIND`: one instance for each piece of these kinds, made when the piece is created.
    carried_by: tuple[int, ...] = ()

    @property
    def per_piece(self) -> bool:
        return bool(self.carried_by)


@attrs.frozen
class CounterDef:
    """A counter: shared or per player, its initial value and who sees it."""

    name: str
    per_player: bool
    initial: Evaluator
    # laid out like zones: shared first, then per player; a counter with keys takes one place
    # per key, so ordinal counts the places of the counters before it
    ordinal: int
    visibility: str = "public"  # `public`, `owner only` (its player sees it) or `hidden` (nobody)
    span: Span | None = attrs.field(default=None, eq=False)
    keys: tuple = ()  # `for each KEY in ...`: one value per key, in this order; () for one value
    holds_player: bool = False  # starts as a player or is set to one: the board writes `player N`
    holds_pieces: bool = False  # starts as pieces or is set to them: shown by name, where the viewer sees them
    secret_keys: bool = False  # an entry is set by a key some seat may not know: `changes` lines name no key
    hides_count: bool = False  # set to pieces how many of which some seat may not know: not shown where unseen
    # only ever holds numbers, true/false, text, players or none, never a piece: the turn key
    # need not look in it for the id of a piece (``rulelang.turnkey``)
    numbers_only: bool = False

    @property
    def width(self) -> int:
        """How many places the counter takes: one per key, or one."""
        return len(self.keys) or 1


@attrs.frozen
class ChoiceSpec:
    """A decision node: options, an optional filter, who chooses, and where the choice goes."""

    options: Evaluator
    where: Callable[[Any, list, list], list] | None  # (state, frame, options) -> the options the condition keeps
    slot: int            # frame slot receiving the chosen value
    chooser: Evaluator | None
    prompt: str
    describe: Callable[[Any, Any], str]
    to_json: Callable[[Any, Any], Any]
    otherwise: int       # jump target when there is no option, or -1 for a runtime fault
    of_pieces: bool = False  # the options are pieces: a seat that cannot see them sees no choice
    private: bool = False  # the options are computed from what some seat cannot see
    then: ThenSpec | None = None  # a choice with a parameter: the options are (value, parameter) pairs
    labelled: bool = False  # `labelled EXPR`: describe gives each option's label, unique per decision
    several: bool = False  # a step of a choice of several pieces: None among the options is `done`
    picked: Evaluator | None = None  # a step of a choice of several: the pieces picked before it
    element: str = "any"  # what an option is: "piece", "pieces" (a group), "int", ...
    aloud: bool = False  # `aloud`: every seat sees what was chosen (the trace never hides it)
    # made only under a condition some seat cannot see: its line shows to its chooser alone
    # (``HiddenValues.decision_in_secret``)
    in_secret: bool = False


@attrs.frozen
class ThenSpec:
    """The parameter of a choice (``then choose n from ...``): its options, evaluated with the
    first part's value in its slot, an optional filter, and the slot receiving it."""

    options: Evaluator
    where: Evaluator | None
    slot: int
    of_pieces: bool = False  # the parameters are pieces: a seat that cannot see one sees no choice


@attrs.frozen
class DrawSpec:
    """``draw``: how many pieces, from which zone, to which zone (each evaluated on arrival)."""

    count: Evaluator
    source: Evaluator
    to: Evaluator
    up_to: bool = False  # as many as the source holds, if fewer than the count (no fault R507)


@attrs.frozen
class BranchSpec:
    """``choose:`` with labelled branches: (label, condition or None, jump target, once id or
    None). A branch with a once id closes after it is chosen (``once per turn``)."""

    branches: tuple[tuple[str, Evaluator | None, int, int | None], ...]
    chooser: Evaluator | None
    prompt: str
    in_secret: bool = False  # as ``ChoiceSpec.in_secret``
    # The options when no branch has a condition: computed once, not at every visit.
    fixed: tuple[tuple[str, int, None], ...] | None = attrs.field(init=False)

    # Whether two branches share a label: then two of them open at once is a fault (R503).
    shared_labels: bool = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        fixed = None
        if all(cond is None and once is None for _, cond, _, once in self.branches):
            fixed = tuple((label, target, None) for label, _, target, _ in self.branches)
        object.__setattr__(self, "fixed", fixed)
        labels = [label for label, _, _, _ in self.branches]
        object.__setattr__(self, "shared_labels", len(set(labels)) < len(labels))


@attrs.frozen
class TriggerDef:
    """A rule triggered by a move: which moves (zone lists, None for any), a condition tested
    when the move happens, and the procedure run after the statement (or instead of the move)."""

    rule: int
    procedure: int
    sources: Evaluator | None  # -> zone indices the pieces come from
    targets: Evaluator | None  # -> zone indices the pieces go to
    cond: Evaluator | None     # sees moved, moved_from, moved_to in slots 0-2
    instead: bool
    seen_by: str = "all"       # who sees its `triggered:` line (HiddenValues.trigger_seen_by)
    # The names of the zones its `to` may name (from the zones its code names), None: any zone
    target_zones: frozenset[str] | None = None


@attrs.frozen
class Procedure:
    """Compiled statements: instructions (op, a, b, rule index), with spans for messages."""

    name: str
    code: tuple[tuple[int, Any, Any, int], ...]
    spans: tuple[Span | None, ...]
    slot_count: int
    slot_names: tuple[str, ...]
    params: int = 0  # the first slots hold the arguments of `do NAME(...)`
    # Per slot: "piece", "pieces", "for pieces" (a loop's pieces and place) or "several" (a
    # choice of several's chain) where it holds only pieces, else None (``Slots.piece_kinds``)
    piece_slots: tuple[str | None, ...] = ()
    # Per slot: whether it may hold a value (not pieces) worked out from what some seat does not
    # see (``HiddenValues.private_names``): a redeal keeps its true value (``SeatView.sample_state``)
    private_slots: tuple[int, ...] = ()  # 0: none; 1: all but the current player's seat; 2: any seat
    # Per slot: whether it only ever holds a player (or none): shown as `player N`, not a number
    player_slots: tuple[bool, ...] = ()
    # Per slot: whether every value it is given is a number, true/false, text, a player or none,
    # never a piece (the turn key need not look in it for a piece's id, ``rulelang.turnkey``)
    number_slots: tuple[bool, ...] = ()
    # The instructions (`do NAME`) that call a procedure only where something some seat cannot
    # see holds: the choices made inside show their line to their chooser alone
    secret_calls: frozenset[int] = frozenset()

    def may_hold_piece(self, slot: int) -> bool:
        """Whether slot ``slot`` may hold a piece (its id): not known to hold numbers only."""
        return slot >= len(self.number_slots) or not self.number_slots[slot]


@attrs.frozen
class Shown:
    """A `show` declaration: a value for the board, of the game (``per_player`` False: worked
    out for the player whose turn it is) or of each player's row; ``seen_by`` as a winner
    criterion's (who may see it before the end)."""

    name: str
    test: Evaluator
    per_player: bool
    slot_count: int
    kind: str = "any"  # the value's type (a piece, pieces, a player... are shown by name)
    span: Span | None = attrs.field(default=None, eq=False)
    seen_by: str = "all"


@attrs.frozen
class Check:
    """A condition of a named rule: an end condition, a winner criterion or an invariant."""

    rule: int
    test: Evaluator
    kind: str  # "end-turn", "end-round", "end-last-turns"(-all), "most", "least", "nobody", "invariant"
    slot_count: int
    span: Span | None = attrs.field(default=None, eq=False)
    # who sees a winner criterion's value in a player's row before the end: "all", "owner"
    # (the row's own player: it reads only their own secrets) or "none" (the referee)
    seen_by: str = "all"
    # a winner criterion that never reads the row's player: every player has its value (a
    # cooperative game's team score), so the bots aim at the value itself, not at a lead
    same_for_all: bool = False


@attrs.frozen(eq=False)  # compared and hashed by identity: one compiled game is one game
class GameDef:
    """A compiled game: everything the runtime needs, resolved to small integers."""

    name: str
    path: str
    min_players: int
    max_players: int
    turn_limit: int
    options: tuple[OptionDef, ...]
    attributes: tuple[str, ...]
    kinds: tuple[KindDef, ...]
    zones: tuple[ZoneDef, ...]
    counters: tuple[CounterDef, ...]
    rules: tuple[RuleDef, ...]
    procedures: tuple[Procedure, ...]
    main: int
    ends: tuple[Check, ...]
    criteria: tuple[Check, ...]
    invariants: tuple[Check, ...]
    doc: str = ""
    shown: tuple[Shown, ...] = ()  # `show` declarations, in file order
    step_limit: int = 200_000
    move_triggers: tuple[TriggerDef, ...] = ()
    # The move triggers a move into a zone may set off, by the zone's name: (those tested
    # before the move, `instead`; those after it), indices into `move_triggers` in order. A
    # zone not named here may set off `triggers_anywhere` only (those whose `to` is not known
    # from the syntax, or that have none).
    triggers_by_zone: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = attrs.field(factory=dict, repr=False)
    triggers_anywhere: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    once_scopes: tuple[str, ...] = ()  # per once id: "turn", "round" or "game"
    limits: tuple[tuple[int, int], ...] = ()  # (kind index, most a player may hold)
    limited_kinds: frozenset[int] = frozenset()
    run_limits: Limits = DEFAULT  # work, idle actions, pieces, digits: checked while playing
    no_winner: tuple[Check, ...] = ()  # `nobody wins when ...` of the winner section
    # Per counter place (shared places first, then per-player ones): the counter's index in
    # `counters` and the key's position (-1 for a counter without keys).
    counter_places: tuple[tuple[int, int], ...] = ()
    span: Span | None = None  # the `game` header: where a fault of the whole game (R504) points
    # The generated statement functions' lines, by their code's file name: (span, rule index)
    # of each line from the function's first (the source's second): see `Machine._fused_place`.
    line_tables: dict[str, tuple] = attrs.field(factory=dict, repr=False)
    # The zones whose order some rule may read (rulelang.order_reads); the others are bags.
    # None: not worked out, so every zone's order counts.
    order_read_zones: frozenset[str] | None = None
    has_secret_zones: bool = False  # a zone is `secret`: some viewer may see nothing of it (no trace line)
    # the counters a rule, an end condition or a winner rule names (not a `show` or an
    # invariant, which play does not run); None: any may be read
    counters_read: frozenset[str] | None = None
    # `teams of N`: the players play in teams of N, partners sitting apart (``team_of``); 1: alone
    team_size: int = 1
    # the `final` section's procedure: it runs once the game has ended, before the winners are
    # worked out (None: no such section)
    final: int | None = None

    def team_of(self, seat: int, players: int) -> int:
        """The team (0, 1, ...) of ``seat`` among ``players``: seat i is in team i mod the
        number of teams, so partners sit apart, as at a card table (seats 1 and 3 against 2
        and 4)."""
        return seat % (players // self.team_size)

    def team(self, seat: int, players: int) -> list[int]:
        """The seats of ``seat``'s team among ``players``, in seat order (``seat`` alone without
        teams); team t's seats are ``team(t, players)``."""
        teams = players // self.team_size
        return list(range(seat % teams, players, teams))

    def option(self, name: str) -> Any:
        for option in self.options:
            if option.name == name:
                return option.value
        raise KeyError(name)

    @property
    def shared_zone_count(self) -> int:
        return sum(not z.per_player and not z.per_piece for z in self.zones)

    @property
    def shared_counter_count(self) -> int:
        return sum(c.width for c in self.counters if not c.per_player)


    def new_initial_state(self, players: int | None = None, trace: str = "lazy"):
        """A fresh state at the start of the game (the set-up runs at once); ``trace`` "eager"
        records its trace as it plays, "lazy" rebuilds it by replay when asked."""
        from .runtime import initial_state

        return initial_state(self, self.min_players if players is None else players, trace)


def team_total(values: list) -> Any:
    """A team's value under a winner criterion, from its players': their sum (true counts 1),
    none counting nothing; none when every player's is none."""
    found = [v for v in values if v is not None]
    return sum(found) if found else None


def triggers_by_zone(triggers: tuple[TriggerDef, ...], zones: tuple[ZoneDef, ...]) -> tuple[dict, tuple]:
    """`GameDef.triggers_by_zone` and `triggers_anywhere` of these move triggers."""
    def split(indices):
        return (tuple(i for i in indices if triggers[i].instead), tuple(i for i in indices if not triggers[i].instead))

    anywhere = [i for i, t in enumerate(triggers) if t.target_zones is None]
    by_zone = {zone.name: split(sorted(anywhere + [i for i, t in enumerate(triggers)
                                                   if t.target_zones is not None and zone.name in t.target_zones]))
               for zone in zones}
    return by_zone, split(anywhere)


def counter_places(counters: tuple[CounterDef, ...]) -> tuple[tuple[int, int], ...]:
    """`GameDef.counter_places` of these counters."""
    ordered = [i for i, c in enumerate(counters) if not c.per_player] + \
        [i for i, c in enumerate(counters) if c.per_player]
    return tuple((i, k if counters[i].keys else -1) for i in ordered for k in range(counters[i].width))
