"""Compilation: a checked syntax tree to a GameDef, with names resolved to integers and
expressions turned into closures, so that a step of the runtime does no lookup by name."""

from __future__ import annotations

import collections
import re
import types
from collections.abc import Iterator
from typing import Any

import attrs

from . import model as m
from . import nodes as n
from . import several
from .checker import walk
from .codegen import (
    COLLECTIONS,
    SINGLE_FOR,
    CompileError,
    ExpressionCompiler,
    Scope,
    Slots,
    TableCell,
    TooDeep,
    a_kind,
    key_kind,
    keys_text,
    new_list,
    shown,
)
from .diagnostics import Diagnostic, did_you_mean, register
from .engine_values import describe_error
from .faces import function_reads as faces_read
from .hidden_values import HiddenValues
from .limits import DEFAULT, Limits
from .order_reads import zones_whose_order_is_read
from .source import Span, printable

register("E101", "unknown-name", """
A name that is not declared anywhere: not a zone, component, counter, option, define, local
variable, face label, attribute or built-in. The help line lists declared names that are
spelt alike.
""")
register("E102", "duplicate-name", """
Two declarations, or two rules, share a name. Every zone, component, counter, option,
define, procedure and rule needs its own name, so that variants and messages can refer to it.
The two parts of a choice with a parameter (`choose q from ... then choose n from ...`) need
two names too, and the branches of one `choose:` two labels: a player, a log and a scenario
tell the options apart by them. (Two branches with conditions may share a label when their
conditions never hold together; if both are open at once, the game stops with fault R503.)
""")
register("E103", "unknown-function", """
A call to a function that is neither built in (count, sum, max, min, highest, lowest, top,
bottom, first, last, distinct, subsets, any, all, seat, abs, position, runs, pairs) nor a
`define`.
""")
register("E104", "wrong-arguments", """
A function, define, table column or procedure (`do pay(player, 3)`) is given the wrong number
of arguments (a procedure with parameters needs them: `do pay` alone is an error); or a table
column with parameters is used without its call (`w.fires` instead of `w.fires(dice)`), or a
plain column is called (`w.title(1)`).
""")
register("E201", "wrong-type", """
A value of one type is used where another is needed, for instance a number where a zone is
expected (`move x to 3`), or `of` applied to something that is not a per-player zone or counter.
""")
register("E202", "needs-owner", """
A per-player zone or counter is named without saying whose: write `stack of player`,
`stack of others` or `score of seat(0)`.
""")
register("E203", "unknown-key", """
A counter with keys (`counter climbed: per player, for each column in 2 to 12 = 0`) is read or
changed at a key it does not have: `climbed[13] of player`. The help line lists the keys. A key
worked out while playing (`climbed[c] of player`) is checked when it is used: a fault (R503)
naming the rule.
""")
register("W416", "menu-shows-hidden", """
A choice's menu is worked out from what its chooser may not see: options computed from another
player's hidden pieces or counters (`choose n from (hand of first(others)).number`), a condition
that reads them (`choose c from hand of first(others) where number > 5`: a blind pick, but how
many options it has tells how many cards pass), a label, or a parameter (`then choose`) worked
out from them. The menu shows the chooser its options, their number and their order, as a
player at the table would be told them, so it tells what the rules meant to hide. Make it a
blind pick of the pieces themselves, without a condition on what the chooser cannot see, or
work the options out from what the chooser sees. (The current player is taken to see their
own things, and so is a chooser named by `by` whose things are named the same way: `choose c
from hand of p where number > 3 by p` is fine; otherwise a chooser named by `by` is taken to
see only what everyone sees.)
""")
register("W417", "no-value", """
`sum`, `max` or `min` of pieces with no attribute named reads each piece's `value`: the face
value a die shows, or an attribute a kind declares as `value`. In a game with no dice and no
kind that declares `value`, no piece has one, so `sum(hand)` is always 0 and `max(hand)` none.
Name the attribute: `sum(hand, number)`, `max(hand of player, points)`. Likewise `highest` and
`lowest` of pieces rank them by `number` (else `value`): where no piece has either, they are
always none; name the attribute to rank by, `highest(hand, strength)`.
""")
register("W419", "shadows-a-face", """
A counter, zone, option, define, variable (`let`, `for each`, `choose`) or kind of piece has
the name of a die's face label, and a rule writes that name. A name is looked up among the game's own names first, so there it always reads the
counter, never the face: with `faces 1, 2, heart, energy` and `counter energy`,
`count(cup, face == energy)` compares each face with the counter's value, and a per-player
`energy` there is E202. Rename the counter (`energy_count`). With `faces arrow, beer` and
`token arrow`, `face == arrow` compares each face with every arrow token: rename the kind
(`arrow_token`).
""")
register("W420", "kinds-seen-face-down", """
Pieces of two kinds or more are created in a `hidden` or `owner only` zone. A seat that sees
only how many pieces such a zone holds still sees how many of each kind, and the kind of each
piece drawn from it: a kind is a card's back. With `card tempura` and `card sashimi` dealt face
down, every hand shows to everyone. Make one kind, with an attribute for what tells the cards
apart: `card dish: one for each name in tempura, sashimi`.
""")
register("W422", "none-in-a-list", """
`none` is written as an item of a list (`[none] + offers`). A list leaves out the items that are
none, so it never holds it, and a choice from it never offers it. To let a player pass, give the
choice a branch of its own (`choose as "bid":` with `"pass": ...` and a branch that chooses from
the list); for a group of pieces, `[empty] + subsets(C)` offers the empty group.
""")
register("W423", "chosen-in-the-open", """
A value chosen in a choice that every seat sees (its options are worked out from what everyone
sees, and the trace shows `player 1 chooses hide: 1`) is kept in a counter that not every seat
sees (`owner only`, `hidden`): the counter hides nothing, since the trace already told the
value. The same holds for labelled branches that set such a counter to different values
(`"stay": leaving of p = false` and `"leave": leaving of p = true`): the label chosen is in
every seat's trace. To choose in secret, write `secretly` after the prompt (`choose n from
[1, 2, 3] as "fingers" secretly`; for labelled branches, choose among the labels as values):
only the chooser then sees what was chosen.
""")
register("W424", "unused-parameter", """
A parameter of a `define` is never read by its value: every call passes it for nothing, and
the value reads something else instead (`define next_in(p) = first(others where it in
remaining)` is the player after the current one, whatever `p` is). Read the parameter where
the value depends on it, or remove it.
""")
register("W425", "hides-a-variable", """
`let NAME` or `choose NAME` inside a block (an `if`, a loop, a branch of a choice) where a
variable NAME was made before the block. The block gets a new NAME of its own, gone when the
block ends, and the NAME made before keeps its value: after
`choose n from [1, 2]` then `if n == 1:` with `choose n from [5, 6]` under it, `n` is still 1
after the `if`. To change the variable made before, write `n = ...` (for a choice, choose into
another name and then `n = m`); for a variable of the block alone, give it a name of its own.
""")
register("W429", "said-in-secret", """
A `say` that runs only where something some seat cannot see holds (`if any(hand of player,
rank == ace): say "..."`). The line would tell every seat that the condition holds, so it is
the referee's line only: no seat's trace shows it. Say it where every seat may know it (before
the condition, or about what every seat sees), or show the pieces with `reveal`.
""")
register("W428", "named-alike", """
Two lines of a table give their pieces the same name (the first column) and differ in another
column (`yoko, once_around` and `yoko, sealed`). The menu, the trace and the board show both as
`painting yoko`, and a scenario's `choose painting yoko` or `draw painting yoko` takes the
first it finds. Give each line a name of its own, or put the column that tells them apart
first. Lines that differ in nothing else are copies: write a `count` column instead.
""")
register("W421", "face-label-twice", """
Two faces of a die have one label and different values (`faces star = 1, star = 5`): the trace
shows `star` for both, `face == star` holds for both, and a scenario cannot script the second.
Give each its own label (`star1 = 1, star5 = 5`). A face written twice with the same value is
fine: it is twice as likely.
""")
register("W413", "never-equal", """
`==` (or `!=`) compares with a string that the other side can never equal: a number, a player
or true/false (`count(hand) == "0"`), or an attribute that no piece has with that text (`suit ==
"heart"` where the suits are `hearts`, `clubs` and `spades`), or a die's face where every face
is a number (`face == "6"`). A list compared with one value (`cup.face == 6`) is never equal
either: `6 in cup.face` asks whether any die shows 6. The comparison is always false (`!=`
always true). Check the spelling, or compare with the value itself, without quotes.
""")
register("E301", "misplaced-statement", """
A statement stands where it has no meaning: `break` outside a loop, `game ends` outside the
`end` section, `most`/`least` outside the `winner` section, `end turn` in the set-up, or
`each player takes a turn` outside the `round` section. A rule outside any section must be a
triggered rule holding one `when` (and `when` stands nowhere else); `instead` is for `when move`
only; and a variant cannot add a rule without `when` before or after a triggered rule, since
nothing runs next to a triggered rule in order.
""")
register("E302", "missing-section", """
A game needs a `turn` section (or a `round` section that says what a round is), and a
`winner` section that says who wins.
""")
register("E304", "too-deep", """
An expression nests so deeply (hundreds of operators or brackets) that it cannot be compiled.
Split it into named parts with `define` or `let`.
""")
register("E303", "invalid-declaration", """
A declaration that cannot be used as written: a player range whose minimum exceeds its
maximum, a zone with two visibilities, a die without faces, a recursive define, a shared
counter that is `owner only` (a shared counter has no owner: make it `per player`, or `hidden`),
a table beside `one for each` or `count N` (a table makes one piece per line, or as many as its
`count` column says), a table row without one value per column, a table column that calls
itself.
""")

register("E604", "too-many-declarations", """
The game has more declarations (components, zones, counters, options, defines, procedures,
sections, rules at the top level), once its variants are merged, than the `declarations`
limit (10,000 by default). A real game that needs more raises it with `--limit declarations=N`.
""")
register("E605", "define-too-large", """
A use of a define that would become more syntax nodes, once every define in it is expanded,
than the `expansion` limit (100,000 by default). A define is copied where it is used, with its
arguments copied where its parameters stand, so a define that uses another twice doubles it:
twenty such lines make a million copies. Compute a repeated part once with `let`, or, for a
real game, raise the limit with `--limit expansion=N`.
""")


# Zones as values: held by a counter, they would be their numbers, read as numbers. (A counter
# may hold a piece, or pieces, read back as pieces: `marked = highest(cup)`, `marked.value`.)
_HOLDS_IDS = frozenset(("zone", "zones", "zonelist"))
# E201's help where a tuple is ranked as a number
_TUPLE_RANKING_HELP = ("tuples are ordered part by part by `<`, `highest`, `lowest` and `sorted`, not by a number: "
                       "rank by one number made of the parts (`rank * 100 + kicker`), or keep the part that counts")
# W423's help: how to choose in secret
_SECRET_CHOICE_HELP = ("to choose in secret, write `secretly` after the prompt: `choose NAME from [...] as \"PROMPT\" "
                       "secretly` (only the chooser sees what was chosen)")
# kinds of value that are never a piece nor hold one (a counter set only to these is `numbers_only`)
_NO_PIECE_KINDS = frozenset(("int", "bool", "str", "label", "player", "players", "none"))


# Attributes every piece has, which the rules read but cannot declare (`face`, `kind`): what each is
_BUILTIN_ATTRIBUTES = {"face": "the face a die shows (none on other pieces)",
                       "kind": "the name of its kind (`domino`, `d6`)"}

class Compiler(ExpressionCompiler):
    """Compiles one merged RulesFile (variants already applied) with given option values."""

    def __init__(self, tree: n.RulesFile, options: dict[str, Any], limits: Limits = DEFAULT):
        self._init_codegen()
        self.limits = limits
        self.option_values = options
        self.diagnostics: list[Diagnostic] = []
        # names declared twice (E102): what a use of one means is unsettled, so its uses get no
        # kind errors of their own (each would only repeat the E102)
        self.declared_twice: set[str] = set()
        self.tree = self._option_ranges_worked_out(tree)
        # the turns are followed by a test for another turn only in a game that may give one
        self.takes_another_turn = any(isinstance(node, n.AnotherTurn) for node in walk(self.tree.items))
        self.game: n.GameDecl | None = None
        self.options: dict[str, n.OptionDecl] = {}
        self.kinds: dict[str, n.DieDecl | n.PieceDecl] = {}
        self.zones: dict[str, n.ZoneDecl] = {}
        # a zone declared `for each KEY in ...`: its name -> (its keys, its zone for each key)
        self.zone_families: dict[str, tuple[tuple, tuple[m.ZoneDef, ...]]] = {}
        self.counters: dict[str, n.CounterDecl] = {}
        self.defines: dict[str, n.DefineDecl] = {}
        self.procedures: dict[str, n.ProcedureDecl] = {}
        # A procedure's parameters take the type of its arguments: the types given at each
        # `do` compiled so far, then, once it is compiled, the types of its parameters.
        self.argument_kinds: dict[str, list[tuple[tuple[str, ...], tuple[n.Node, ...]]]] = {}
        self.parameter_kinds: dict[str, tuple[str, ...]] = {}
        self.sections: dict[str, n.Section] = {}
        self.invariants: list[n.InvariantDecl] = []
        self.shows: list[n.ShowDecl] = []
        self.triggers: list[tuple[n.Rule, n.When]] = []  # rules at the top level: `when ...:`
        self.once_scopes: list[str] = []
        self.rules: list[m.RuleDef] = []
        self.rule_names: dict[str, int] = {}
        self.rule_spans: dict[str, Any] = {}  # the first rule of each name: where it is written
        self.face_labels: dict[Any, str] = {}
        self.key_labels: set[str] = set()  # the labels among counters' keys
        # A counter reads as a number, unless it starts as a player (`= seat(0)`) or as `none`
        # (`leader = none`, set to a player later): then it can be the owner in `score of leader`.
        self.counter_kinds: dict[str, str] = {}
        self.counter_starts: dict[str, str] = {}  # counter -> the type of its start value
        self.seat_counters: set[str] = set()  # counters set to a player somewhere (`leader = player`)
        self.piece_counters: set[str] = set()  # counters set to pieces somewhere (`marked = top(deck)`)
        # counters read where a player is needed (`starting with lead`): E201 if they hold pieces
        self.seat_reads: list[tuple[str, n.Node]] = []
        # Players carried by variables (`let c = starter`, then `leader = c`): variables set to a
        # player, variables set from counters, counters set from variables, by name
        self.player_variables: set[str] = set()
        self.variables_from_counters: dict[str, set[str]] = {}
        self.counters_from_variables: dict[str, set[str]] = {}
        self.counters_from_counters: dict[str, set[str]] = {}
        # Pieces carried by variables (`let best = none`, `best = first(hand)`, then `kept =
        # best`, where `best` reads as any value): the types each variable is set to, and the
        # counters set from such variables, with where (``_pieces_through_variables``)
        self.variable_kinds: dict[str, set[str]] = {}
        self.counters_set_from: dict[str, list[tuple[str, n.Node]]] = {}
        self.other_counters: set[str] = set()  # counters set to anything else but none somewhere
        self.loose_counters: set[str] = set()  # counters set somewhere to what may be or hold a piece
        self.piece_counter_sites: dict[str, Any] = {}  # counter -> where it is first set to pieces
        self.ranked_counters: list[tuple[str, n.Criterion]] = []  # winner rules ranking by a counter
        self.menus_warned: set[int] = set()  # choices given W416 (a statement may be compiled twice)
        self.param_columns: dict[str, set[int]] = {}  # table columns with parameters: their arities
        self.copies_warned: set[int] = set()  # `count` cells of tables already reported
        # The cells of each column with parameters: (column, expression, the row's plain values),
        # compiled at each call for the arguments' types, as a define is expanded where it is used.
        self.cells: dict[str, list[tuple[n.TableColumn, n.Node, dict]]] = {}
        self.cell_functions: dict[tuple, str] = {}  # (column, argument types) -> the functions' constant
        self.attributes: list[str] = ["face", "value", "number", "kind"]
        self._expanding: list[str] = []
        self._hidden: HiddenValues | None = None
        # The lines of each generated statement function, by its code's file name: the span
        # and rule of each line (`GameDef.line_tables`), for faults.
        self.line_tables: dict[str, tuple] = {}
        self._collect()
        self.has_move_triggers = any(when.event == "move" for _, when in self.triggers)

    # ------------------------------------------------------------------ what may be secret
    @property
    def hidden_values(self) -> HiddenValues:
        """Which choices' values and which winner criteria not every seat may see."""
        if self._hidden is None:
            self._hidden = HiddenValues(self)
        return self._hidden

    # ------------------------------------------------------------------ diagnostics
    def error(self, code: str, message: str, node: n.Node | None, help: str | None = None) -> None:
        if code == "E201" and node.__class__ is n.Name and node.id in self.declared_twice:
            return
        diagnostic = Diagnostic(code, message, node.span if node else None, help=help)
        if not any(d == diagnostic and d.span == diagnostic.span for d in self.diagnostics[-20:]):
            self.diagnostics.append(diagnostic)  # a table cell is compiled at each call: reported once

    # ------------------------------------------------------------------ declarations
    def _option_ranges_worked_out(self, tree: n.RulesFile) -> n.RulesFile:
        """The tree with each `A to B` of a declaration whose bound names an option (faces, `one
        for each`, a counter's keys) made into its numbers, with the game's option values."""
        declared = {i.name: i for i in tree.items if isinstance(i, n.OptionDecl)}

        def values(items: tuple, what: str, earlier: frozenset[str] = frozenset()) -> tuple:
            made: list = []
            for item in items:
                if not isinstance(item, n.OptionRange):
                    made.append(item)
                    continue
                if {item.low, item.high} & earlier:  # `each high in low to 6`: worked out for each `low`
                    made.append(attrs.evolve(item, **{side: self._option_bound(bound, item, declared) or 0
                                                      for side, bound in (("low", item.low), ("high", item.high))
                                                      if bound not in earlier}))
                    continue
                low, high = (self._option_bound(b, item, declared) for b in (item.low, item.high))
                limit = self.limits.faces if what == "faces" else self.limits.pieces
                if low is None or high is None:
                    low = high = next((b for b in (low, high) if b is not None), 0)  # (no errors after this one)
                elif high < low:
                    self.error("E303", f"the range `{item}` is empty: {low} to {high} with the options as set", item,
                               help="give the options values that make the lower number come first")
                    high = low
                elif high - low + 1 > limit:
                    self.error("E603" if what == "faces" else "E602",
                               f"`{item}` makes {high - low + 1} {what}, more than the limit of {limit}", item,
                               help="if the game really needs this many, raise the limit with "
                               f"`--limit {'faces' if what == 'faces' else 'pieces'}={high - low + 1}`")
                    high = low
                if what == "faces":
                    made.extend(n.Face(v, None, span=item.span) for v in range(low, high + 1))
                else:
                    made.extend(range(low, high + 1))
            return tuple(made)

        items = []
        for item in tree.items:
            if isinstance(item, n.DieDecl) and any(isinstance(f, n.OptionRange) for f in item.faces):
                item = attrs.evolve(item, faces=values(item.faces, "faces"))
            elif isinstance(item, n.PieceDecl) and any(isinstance(v, n.OptionRange)
                                                       for g in item.generators for v in g.values):
                item = attrs.evolve(item, generators=tuple(
                    attrs.evolve(g, values=values(g.values, "values", frozenset(e.name for e in item.generators[:k])))
                    for k, g in enumerate(item.generators)))
            elif isinstance(item, (n.CounterDecl, n.ZoneDecl)) and any(isinstance(k, n.OptionRange)
                                                                        for k in item.keys):
                item = attrs.evolve(item, keys=values(item.keys, "keys"))
            items.append(item)
        return attrs.evolve(tree, items=tuple(items))

    def _option_bound(self, bound, where: n.OptionRange, declared: dict) -> int | None:
        """A bound of `A to B` in a declaration: a number, or the value of the whole-number option it names."""
        if bound.__class__ is int:
            return bound
        if bound == "player_count":
            self.error("E201", "`player_count` is not known in a declaration", where,
                       help="declarations are made once for every number of players: declare the most, and "
                       "move those the players do not use out of play in the set-up")
            return None
        option = declared.get(bound)
        if option is None:
            self.error("E101", f"unknown option `{bound}` in `{where}`", where,
                       help=did_you_mean(bound, declared) or "a bound of a range here is a number, an option's name, "
                       "or in `one for each`, the name of an earlier `each` (`each high in low to 6`)")
            return None
        value = self.option_values.get(bound, option.default)
        if value.__class__ is not int:
            self.error("E201", f"option `{bound}` is {'true or false' if value.__class__ is bool else 'no number'}"
                       f", not a whole number: it cannot bound `{where}`", where)
            return None
        return value

    def _collect(self) -> None:
        seen: dict[str, n.Node] = {}

        def declare(name: str, node: n.Node, table: dict) -> None:
            if name in seen:
                first = seen[name].span
                self.declared_twice.add(name)
                self.diagnostics.append(Diagnostic(
                    "E102", f"`{name}` is declared twice", node.span,
                    notes=((f"first declared at {first.where()}",) if first else ()) + (
                        f"the uses of `{name}` are not checked until it names one thing",),
                    help="rename one of them"))
                return
            seen[name] = node
            table[name] = node

        for item in self.tree.items:
            if isinstance(item, n.GameDecl):
                self.game = item
            elif isinstance(item, n.OptionDecl):
                declare(item.name, item, self.options)
            elif isinstance(item, (n.DieDecl, n.PieceDecl)):
                declare(item.name, item, self.kinds)
            elif isinstance(item, n.ZoneDecl):
                declare(item.name, item, self.zones)
            elif isinstance(item, n.CounterDecl):
                declare(item.name, item, self.counters)
            elif isinstance(item, n.DefineDecl):
                declare(item.name, item, self.defines)
            elif isinstance(item, n.ProcedureDecl):
                if item.name in ("main", "setup", "round", "turn", "final"):
                    self.error("E102", f"`{item.name}` is the name of a section, not free for a procedure", item,
                               help=f"write `{item.name}:` for the section, or rename the procedure")
                else:
                    declare(item.name, item, self.procedures)
            elif isinstance(item, n.Section):
                if item.kind in self.sections:
                    self.error("E102", f"a second `{item.kind}` section", item,
                               help="put all the rules of a section under one heading")
                else:
                    self.sections[item.kind] = item
            elif isinstance(item, n.InvariantDecl):
                self.invariants.append(item)
            elif isinstance(item, n.ShowDecl):
                if any(s.name == item.name for s in self.shows):
                    self.error("E102", f"a second `show {item.name}`", item, help="give each shown value its own name")
                else:
                    self.shows.append(item)
            elif isinstance(item, n.Rule):
                self._collect_trigger(item)
        for kind in self.kinds.values():
            if isinstance(kind, n.DieDecl):
                for face in kind.faces:
                    if isinstance(face.label, str):
                        self.face_labels.setdefault(face.label, kind.name)
            else:
                for generator in kind.generators:
                    self._add_attribute(generator.name)
                if kind.table is not None:
                    self._collect_table(kind)
            for attr in kind.attrs:
                self._add_attribute(attr.name)
            self._check_builtin_attributes(kind)

    def _players_through_variables(self) -> None:
        """A counter set from a variable that holds a player (set to one, or from a counter
        that holds one), or from a counter that holds one, holds a player too: the board and
        the trace write `player 2`, not 1. Variables are matched by name, which only decides
        how a value is shown."""
        changed = True
        while changed:
            changed = False
            for variable, counters in self.variables_from_counters.items():
                if variable not in self.player_variables and counters & self.seat_counters:
                    self.player_variables.add(variable)
                    changed = True
            for counter, variables in self.counters_from_variables.items():
                if counter not in self.seat_counters and variables & self.player_variables:
                    self.seat_counters.add(counter)
                    changed = True
            for counter, sources in self.counters_from_counters.items():
                if counter not in self.seat_counters and sources & self.seat_counters:
                    self.seat_counters.add(counter)
                    changed = True

    def _pieces_through_variables(self) -> None:
        """A counter set from a variable that reads as any value holds pieces where the variable
        is only ever set to pieces or none (its trace line and the board then name them only
        where each seat sees them), and other values where it is set to anything else."""
        for counter, sites in self.counters_set_from.items():
            kinds = set().union(*(self.variable_kinds.get(name, {"any"}) for name, _ in sites)) - {"none"}
            if kinds & {"piece", "pieces"}:
                self.piece_counters.add(counter)
                self.piece_counter_sites.setdefault(counter, sites[0][1])
            if not kinds <= {"piece", "pieces"} or not kinds:
                self.other_counters.add(counter)

    def _only_tuples_into(self, counter: str, at_least_one: bool = False) -> bool:
        """Whether every value the rules set ``counter`` to is written as a tuple (and, with
        ``at_least_one``, there is one)."""
        assigned = getattr(self, "_assigned_values", None)
        if assigned is None:  # (the tree walked once, not once per counter)
            assigned = self._assigned_values = {}
            for node in walk(self.tree.items):
                if isinstance(node, n.Assign):
                    assigned.setdefault(node.target.name, []).append(node.value)
        values = assigned.get(counter, ())
        return all(isinstance(value, n.TupleExpr) for value in values) and (bool(values) or not at_least_one)

    def _note_variable(self, name: str, value_node: n.Node, kind: str) -> None:
        """What a variable is set to, for ``_players_through_variables`` and
        ``_pieces_through_variables``."""
        # (`empty` is an empty list of anything: pieces later are pieces only)
        self.variable_kinds.setdefault(name, set()).add("none" if isinstance(value_node, n.EmptyLiteral) else kind)
        if kind == "player":
            self.player_variables.add(name)
        elif isinstance(value_node, n.Name) and value_node.id in self.counters:
            self.variables_from_counters.setdefault(name, set()).add(value_node.id)

    def _check_builtin_attributes(self, kind: n.DieDecl | n.PieceDecl) -> None:
        """E303 for an attribute named like one every piece has and the rules cannot set:
        `face` (a die's face; none on other pieces) and `kind` (the kind's name). Read, it
        would give the built-in value, never the one declared."""
        named = [*getattr(kind, "generators", ()), *kind.attrs,
                 *(kind.table.columns if getattr(kind, "table", None) is not None else ())]
        for node in named:
            if node.name in _BUILTIN_ATTRIBUTES:
                self.error("E303", f"`{node.name}` is an attribute every piece has already: "
                           f"{_BUILTIN_ATTRIBUTES[node.name]}", node,
                           help=f"give this attribute of `{kind.name}` another name, such as "
                           f"`{'symbol' if node.name == 'face' else 'sort'}`")

    def _collect_table(self, kind: n.PieceDecl) -> None:
        """A table's columns become attributes, and each piece gets its `row` unless a column
        has that name; a column with parameters is remembered with its number of parameters."""
        for column in kind.table.columns:
            if column.is_copies:
                continue  # how many copies a line makes: no attribute
            self._add_attribute(column.name)
            if column.params is not None:
                self.param_columns.setdefault(column.name, set()).add(len(column.params))
        if all(column.name != "row" for column in kind.table.columns):
            self._add_attribute("row")

    def table_cells(self, name: str) -> list[tuple[tuple[str, ...], n.Node, tuple[str, ...]]]:
        """Every cell of the columns with parameters named ``name``: (its parameters, its
        expression, the names of the plain columns of its row)."""
        cells = []
        for kind in self.kinds.values():
            table = getattr(kind, "table", None)
            if table is None:
                continue
            plain = tuple(c.name for c in table.columns if c.params is None and not c.is_copies)
            for position, column in enumerate(table.columns):
                if column.name == name and column.params is not None:
                    cells.extend((column.params, row.cells[position], plain) for row in table.rows)
        return cells

    def _collect_trigger(self, rule: n.Rule) -> None:
        events = [stmt for stmt in rule.body if not isinstance(stmt, n.Doc)]
        if len(events) != 1 or not isinstance(events[0], n.When):
            self.error("E301", f"rule `{rule.name}` stands outside any section, so it must be a triggered rule "
                       "holding one `when ...:`", rule,
                       help="put rules that run in order in a section such as `turn:`; a triggered rule is "
                       "`rule NAME:` then `when move to ZONE:` or `when do PROCEDURE:`")
            return
        when = events[0]
        for other, _ in self.triggers:
            if other.name == rule.name:
                first = other.span
                self.diagnostics.append(Diagnostic(
                    "E102", f"a second rule named `{rule.name}`", rule.span,
                    notes=(f"first rule `{rule.name}` is at {first.where()}",) if first else (),
                    help=f"give each rule its own name; in a variant, write `replace rule {rule.name}:`"))
                return
        if when.instead and when.event != "move":
            self.diagnostics.append(Diagnostic(
                "E301", "`instead` applies to a move, not to a procedure", when.instead_span or when.span,
                help="write `when move ... instead:`"))
            return
        self.triggers.append((rule, when))

    def unknown_procedure_help(self, name: str, words: str) -> str | None:
        """The help line of an unknown procedure after `do` or `when do` (the words)."""
        if name in ("setup", "round", "turn", "end", "winner", "final"):
            return f"`{name}` is a section, not a procedure; `{words}` names a `procedure NAME:` of the file"
        return self.suggest(name, self.procedures)

    def player_zone_example(self) -> str:
        """A per-player zone of this game, to show in help lines (`hand` when it has none)."""
        return next((z.name for z in self.zones.values() if z.per_player), "hand")

    def zone_help(self, node: n.Node, example: str | None = None, scope=None) -> str:
        """The help line where a zone is needed and ``node`` is something else (``scope``: the
        variables in reach, for a variable that may hold anything)."""
        if isinstance(node, n.Name) and scope is not None and (found := scope.lookup(node.id)) is not None \
                and found[1] == "any":
            return (f"`{node.id}` may hold anything here: a variable that starts as `none` (or is set to "
                    f"values of several kinds) is not known to be a zone; start it as a zone, "
                    f"`let {node.id} = {example or next(iter(self.zones), 'deck')}`, then set it to another")
        if isinstance(node, n.Of) and isinstance(node.right, n.Name) and node.right.id in (
                "players", "others", "remaining") and (isinstance(node.left, n.Name) or (
                    isinstance(node.left, n.Index) and node.left.span is not None)):
            left = node.left.id if isinstance(node.left, n.Name) else \
                node.left.span.source.text[node.left.span.start:node.left.span.end]
            return (f"this needs one zone: go through the players, `for each p in {node.right.id}:`, "
                    f"then `{left} of p`")
        family = node.id if isinstance(node, n.Name) else \
            node.left.id if isinstance(node, n.Of) and isinstance(node.left, n.Name) else None
        if family in self.zone_families:
            keys, members = self.zone_families[family]
            return (f"`{family}` is a list of zones, one per key: pick one by its key, "
                    f"`{family}[{shown(keys[0])}]{' of player' if members[0].per_player else ''}`")
        if isinstance(node, n.Binary) and node.op in ("+", "-") and isinstance(node.left, n.Of) \
                and isinstance(node.left.left, n.Name) and node.left.left.id in self.zones and None not in (
                    node.left.right.span, node.right.span):
            who, step = (x.span.source.text[x.span.start:x.span.end] for x in (node.left.right, node.right))
            return (f"`of` is worked out before `{node.op}`: this is `({node.left.left.id} of {who}) {node.op} {step}`; "
                    f"for the zone of another player write `{node.left.left.id} of seat({who} {node.op} {step})`")
        indexed = node.obj if isinstance(node, n.Index) else node.left.obj if (
            isinstance(node, n.Of) and isinstance(node.left, n.Index)) else None
        if isinstance(indexed, n.Name) and indexed.id in self.zones and indexed.id not in self.zone_families:
            of = " of player" if self.zones[indexed.id].per_player else ""
            return (f"`{indexed.id}[...]` is the piece at that place in `{indexed.id}`, which has no keys: "
                    f"for the zone write `{indexed.id}{of}`; for one zone of several, declare keys "
                    f"(`for each KEY in ...`, 2.6)")
        if isinstance(node, n.Name) and node.id in self.counters:
            names = list(self.zones)
            listed = ", ".join(f"`{z}`" for z in names[:8]) + (" ..." if len(names) > 8 else "")
            return f"`{node.id}` is a counter, not a zone; the zones are {listed}" if names else \
                f"`{node.id}` is a counter, not a zone; declare zones with `zone NAME: ...`"
        return f"for a player's zone write `{example or self.player_zone_example()} of player`"

    def new_once(self, scope: str) -> int:
        """An id for a `once per SCOPE` branch: the state remembers the ids used."""
        self.once_scopes.append(scope)
        return len(self.once_scopes) - 1

    def _add_attribute(self, name: str) -> None:
        if name not in self.attributes:
            self.attributes.append(name)

    def _written_later(self, one, other) -> bool:
        """Whether span ``one`` was written after ``other``: in the variant rather than its base,
        or further down one file."""
        if one.path != other.path:
            return one.path == self.tree.path
        return one.start > other.start

    def _in_a_base(self, span) -> bool:
        return span is not None and span.path != self.tree.path

    def _new_rule(self, name: str, node: n.Node, doc: str = "") -> int:
        if name in self.rule_names:
            first = self.rules[self.rule_names[name]]
            second, other = node.span, self.rule_spans.get(name)
            if second is not None and other is not None and self._written_later(other, second):
                second, other = other, second  # (a variant's `add rule` may be placed before a rule)
            self.diagnostics.append(Diagnostic(
                "E102", f"a second rule named `{name}`", second,
                notes=(f"first rule `{name}` is at {f'{other.path}:{other.line}' if other is not None else first.where()}",),
                help="give each rule its own name" + (f"; in a variant, write `replace rule {name}:` to change "
                                                      "the base's" if self._in_a_base(other) else "")))
        span = node.span
        self.rule_spans.setdefault(name, span)
        self.rules.append(m.RuleDef(name, span.path if span else "<unknown>", span.line if span else 0, doc))
        self.rule_names.setdefault(name, len(self.rules) - 1)
        return len(self.rules) - 1

    # ------------------------------------------------------------------ entry point
    def compile(self) -> m.GameDef | None:
        game = self.game or n.GameDecl("untitled")
        min_players = game.min_players if game.min_players is not None else 1
        max_players = game.max_players if game.max_players is not None else max(min_players, 1)
        where = game if game.players_span is None else attrs.evolve(game, span=game.players_span)
        if min_players < 1:
            self.error("E303", "a game needs at least one player", where)
        elif min_players > max_players:
            self.error("E303", f"the player range {min_players} to {max_players} is empty", where,
                       help=f"write the fewest players first: `players {max_players} to {min_players}`")
        team_size = game.team_size or 1
        if game.team_size is not None:
            teams_at = game if game.teams_span is None else attrs.evolve(game, span=game.teams_span)
            odd = [count for count in range(min_players, max_players + 1) if count % team_size or count < 2 * team_size]
            if team_size < 2:
                self.error("E303", f"`teams of {team_size}` makes no teams: a team has 2 players or more", teams_at,
                           help="leave the line out for a game where each player plays alone")
            elif odd:
                fits = [count for count in range(min_players, max_players + 1) if count not in odd]
                self.error("E303", f"{odd[0]} players cannot sit in two or more teams of {team_size}", teams_at,
                           help=f"write `players {fits[0]}`" + (
                               f", and a variant (`extends`) for {', '.join(map(str, fits[1:]))}" if fits[1:] else "")
                           if fits else f"write `players {2 * team_size}`")
        if game.turn_limit == 0:
            self.error("E303", "`at most 0 turns` leaves no turn to play",
                       game if game.turns_span is None else attrs.evolve(game, span=game.turns_span),
                       help="write a limit of 1 or more, or leave the line out (the limit is then 10,000 turns)")
        options = self._compile_options()
        if not self._pieces_within_limit():
            return None
        kinds = tuple(self._compile_kind(k) for k in self.kinds.values())
        self.kind_defs = {k.name: (i, k) for i, k in enumerate(kinds)}
        zones = self._compile_zones()
        self.zone_defs = {z.name: z for z in zones}
        for name, (_, members) in self.zone_families.items():  # what they share, by the declaration's name
            self.zone_defs[name] = members[0]
        counters = self._compile_counters()
        self.counter_defs = {c.name: c for c in counters}
        trigger_names = [f"when {rule.name}" for rule, _ in self.triggers]
        self.proc_index = {name: i for i, name in enumerate(
            ["main", "setup", "round", "turn"] + list(self.procedures) + trigger_names
            + (["final"] if "final" in self.sections else []))}
        # `when do P` rules run where P is done: before it returns or ends the turn.
        self.done_triggers: dict[str, list[int]] = {}
        for (_, when), name in zip(self.triggers, trigger_names, strict=True):
            if when.event == "do":
                if when.procedure not in self.procedures:
                    self.diagnostics.append(Diagnostic(
                        "E101", f"unknown procedure `{when.procedure}`", when.procedure_span or when.span,
                        help=self.unknown_procedure_help(when.procedure, "when do")))
                else:
                    self.done_triggers.setdefault(when.procedure, []).append(self.proc_index[name])
        procedures: list[m.Procedure | None] = [None] * len(self.proc_index)
        if "turn" not in self.sections and "round" not in self.sections:
            self.error("E302", "the game has no `turn` section", self.tree,
                       help="add `turn:` with the rules of one player's turn")
        if "winner" not in self.sections:
            self.error("E302", "the game has no `winner` section", self.tree,
                       help="add `winner:` with a rule such as `most sum(hand of player, points)`")
        procedures[1] = self._compile_procedure("setup", self.sections.get("setup"), "setup")
        procedures[3] = self._compile_procedure("turn", self.sections.get("turn"), "turn")
        if "round" in self.sections:
            procedures[2] = self._compile_procedure("round", self.sections["round"], "round")
        else:
            procedures[2] = self._default_round()
        # Procedures with parameters come last, each after the rules that run it, so that their
        # parameters take the types of the arguments; so do the `when do` rules on them.
        deferred = [name for name, decl in self.procedures.items() if decl.params]
        for name, decl in self.procedures.items():
            if name not in deferred:
                procedures[self.proc_index[name]] = self._compile_procedure(name, decl, "procedure")
        move_triggers = []
        for (rule, when), name in zip(self.triggers, trigger_names, strict=True):
            if when.event == "do" and when.procedure in deferred:
                continue
            procedure, trigger = self._compile_trigger(rule, when, name)
            procedures[self.proc_index[name]] = procedure
            if trigger is not None:
                move_triggers.append(trigger)
        for procedure_name in self._callers_first(deferred):
            self.parameter_kinds[procedure_name] = self._joined(procedure_name)
            procedures[self.proc_index[procedure_name]] = self._compile_procedure(
                procedure_name, self.procedures[procedure_name], "procedure")
            for (rule, when), name in zip(self.triggers, trigger_names, strict=True):
                if when.event == "do" and when.procedure == procedure_name:
                    procedures[self.proc_index[name]] = self._compile_trigger(rule, when, name)[0]
        if "final" in self.sections:
            procedures[self.proc_index["final"]] = self._compile_procedure("final", self.sections["final"], "final")
        procedures[0] = self._main()
        ends = self._compile_checks(self.sections.get("end"), "end")
        criteria = self._compile_checks(self.sections.get("winner"), "winner")
        no_winner = tuple(c for c in criteria if c.kind == "nobody")
        criteria = tuple(c for c in criteria if c.kind != "nobody")
        invariants = tuple(self._compile_invariant(inv) for inv in self.invariants)
        shown = tuple(s for s in map(self._compile_show, self.shows) if s is not None)
        for name, cells in self.cells.items():  # a column never called: its cells are checked still
            if not any(key[0] == name for key in self.cell_functions):
                # with its parameters of each type a call could give (`fires(cup)`: pieces): what
                # the type that gets furthest through the cells finds is reported
                before, best = len(self.diagnostics), None
                for kind in ("pieces", "piece", "int", "values", "any"):
                    try:
                        self.column_functions(name, (kind,) * len(cells[0][0].params), cells[0][1])
                    except CompileError:
                        pass
                    found = self.diagnostics[before:]
                    del self.diagnostics[before:]
                    errors = [d.span.start if d.span is not None else -1 for d in found if d.is_error]
                    reach = min(errors) if errors else float("inf")
                    if best is None or reach > best[0]:
                        best = (reach, found)
                    if not errors:
                        break
                self.diagnostics.extend(best[1] if best else ())
        self._players_through_variables()
        self._pieces_through_variables()
        for name, node in self.ranked_counters:
            if name in self.piece_counters and name not in self.other_counters and name not in self.seat_counters:
                self.error("E201", f"`{node.direction}` ranks the players by a number, not a piece: counter "
                           f"`{name}` holds pieces", node.value,
                           help=f"rank by one of the piece's attributes: `{node.direction} "
                           f"({name} of player).number` (or another attribute)")
        for name in sorted(self.piece_counters & self.other_counters):
            self.error("E201", f"counter `{name}` is set to pieces here and to other values elsewhere (or starts as "
                       "one): a piece among numbers would show as a number, which tells which piece it is",
                       self.piece_counter_sites[name],
                       help=f"start it as `none` (`counter {name}: ... = none`), and keep other values in a "
                       "counter of their own")
        for name, node, what in self.seat_reads:
            if name in self.piece_counters and name not in self.other_counters and name not in self.seat_counters:
                self.error("E201", f"{what} needs a player; counter `{name}` holds pieces", node,
                           help="keep the player in a counter of its own, such as `lead_player = player`")
        if any(d.is_error for d in self.diagnostics):
            return None
        triggers_by_zone, triggers_anywhere = m.triggers_by_zone(tuple(move_triggers), zones)
        return m.GameDef(
            name=game.name, path=self.tree.path, min_players=min_players, max_players=max_players,
            turn_limit=game.turn_limit or 10_000, options=options, attributes=tuple(self.attributes),
            kinds=kinds, zones=zones, counter_places=m.counter_places(counters),
            counters=tuple(attrs.evolve(c, holds_player=c.name in self.seat_counters, holds_pieces=(
                c.name in self.piece_counters and c.name not in self.other_counters),
                secret_keys=c.name in self.hidden_values.secret_keys,
                hides_count=self.hidden_values.piece_counts.get(c.name, 0) > 0,
                numbers_only=c.name not in self.loose_counters) for c in counters),
            rules=tuple(self.rules),
            procedures=tuple(procedures), main=0, final=self.proc_index.get("final"), ends=ends, criteria=criteria, no_winner=no_winner,
            invariants=invariants, shown=shown, doc=" ".join(game.doc), move_triggers=tuple(move_triggers),
            triggers_by_zone=triggers_by_zone, triggers_anywhere=triggers_anywhere,
            once_scopes=tuple(self.once_scopes), run_limits=self.limits, span=game.span,
            line_tables=self.line_tables,
            order_read_zones=self._order_read_zones(),
            has_secret_zones=any(zone.visibility == "secret" for zone in zones),
            counters_read=frozenset(node.id for item in self.tree.items
                                    if not isinstance(item, (n.ShowDecl, n.InvariantDecl, n.CounterDecl))
                                    for node in walk(item) if isinstance(node, n.Name) and node.id in self.counters),
            limits=tuple((i, k.limit) for i, k in enumerate(kinds) if k.limit is not None),
            limited_kinds=frozenset(i for i, k in enumerate(kinds) if k.limit is not None),
            team_size=team_size)

    def _order_read_zones(self) -> frozenset[str] | None:
        """The names of the zones whose order some rule may read: a declaration with keys
        stands for each of its zones."""
        read = zones_whose_order_is_read(self.tree, self.collection_compares)
        if read is None or not self.zone_families:
            return read
        return frozenset(read).union(*(
            (member.name for member in members) for name, (_, members) in self.zone_families.items() if name in read))

    def _compile_options(self) -> tuple[m.OptionDef, ...]:
        result = []
        for decl in self.options.values():
            value = self.option_values.get(decl.name, decl.default)
            result.append(m.OptionDef(decl.name, decl.default, value, " ".join(decl.doc), decl.bounds))
        return tuple(result)

    def _pieces_within_limit(self) -> bool:
        """E602 when the kinds together would make more pieces than the limit; worked out from
        the declarations, before any piece is made."""
        total = 0
        for decl in self.kinds.values():
            if isinstance(decl, n.PieceDecl):
                made = decl.count if decl.count is not None else 1
                if decl.table is not None:
                    made = sum(self._table_copies(decl, row) for row in decl.table.rows)
                made *= _generated_count(decl.generators, self.limits.pieces + 1)
                total += made
                if total > self.limits.pieces:
                    self.error("E602", f"with `{decl.name}`, the components make more than {self.limits.pieces} "
                               "pieces, the limit", decl,
                               help="if the game really needs this many, raise the limit with "
                               f"`--limit pieces={total}`")
                    return False
        return True

    def _compile_kind(self, decl: n.DieDecl | n.PieceDecl) -> m.KindDef:
        index = {name: i for i, name in enumerate(self.attributes)}
        static_attrs = decl.attrs
        if isinstance(decl, n.DieDecl):
            if not decl.faces:
                self.error("E303", f"die `{decl.name}` has no faces", decl)
            labels = tuple(f.label for f in decl.faces)
            values = tuple(f.value if f.value is not None else (f.label if isinstance(f.label, int) else 0)
                           for f in decl.faces)
            row = self._evaluate_attrs(decl, {}, static_attrs, index)
            return m.KindDef(decl.name, "die", labels, values, (row,), span=decl.span)
        if decl.table is not None:
            return self._compile_table(decl, index)
        rows = []
        try:
            for given in _generated(decl.generators):
                rows.append(self._evaluate_attrs(decl, given, static_attrs, index))
        except _BoundNotANumber as problem:
            self.error("E201", f"`{problem.range}` needs whole numbers, and `{problem.name}` is "
                       f"{shown(problem.value)} here", problem.range,
                       help="a range may start or end at an earlier `each`'s value when its values are numbers")
        if decl.count is not None:  # N identical pieces; with `one for each`, N alike copies of each
            rows = [row for row in rows for _ in range(decl.count)]
        if decl.limit is not None and decl.limit < 1:
            self.diagnostics.append(Diagnostic(
                "E303", f"`{decl.name}` has a limit of {decl.limit} per player", decl.limit_span or decl.span,
                help="a limit is at least 1; to keep players from holding any, do not move them there"))
        return m.KindDef(decl.name, decl.category, pieces=tuple(rows), span=decl.span, limit=decl.limit,
                         name_columns=tuple(index[g.name] for g in decl.generators))

    def _compile_table(self, decl: n.PieceDecl, index: dict) -> m.KindDef:
        """One piece per row: plain columns hold values; a column with parameters holds a
        TableCell, the place of its expression among the column's (see ``column_functions``)."""
        table = decl.table
        if decl.generators or decl.count is not None:
            self.error("E303", f"`{decl.name}` has both a table and `{'count' if decl.count is not None else 'one for each'}`",
                       decl, help="a table makes one piece per line; to make several alike, give it a `count` column")
        seen: set[str] = set()
        for column in table.columns:
            if column.name in seen or column.name in ("kind", "face", "value", "number") and column.params is not None:
                self.error("E303", f"table of `{decl.name}` has a second column `{column.name}`" if column.name in seen
                           else f"`{column.name}` cannot be a column with parameters", column)
            seen.add(column.name)
        rows = []
        named: dict[Any, tuple] = {}  # a line's name (its first column) -> (the first line's attributes, its line)
        for number, row in enumerate(table.rows, start=1):
            given: dict[str, Any] = {} if "row" in seen else {"row": number}
            cells = []
            for column, cell in zip(table.columns, row.cells, strict=True):
                if column.is_copies:
                    continue
                if column.params is None:
                    given[column.name] = self._table_value(cell, column)
                else:
                    listed = self.cells.setdefault(column.name, [])
                    given[column.name] = TableCell(column.name, len(column.params), len(listed))
                    cells.append((listed, column, cell))
            plain = {k: v for k, v in given.items() if not isinstance(v, TableCell)}
            for listed, column, cell in cells:
                listed.append((column, cell, plain))
            made = self._evaluate_attrs(decl, given, decl.attrs, index)
            self._named_alike(decl, row, made, index, named)
            rows.extend([made] * self._table_copies(decl, row))  # copies of one line are alike
        if not rows and table.rows and not any(id(cell) in self.copies_warned for row in table.rows
                                               for cell in row.cells):  # (else: that cell's E303 says it)
            self.error("E303", f"`{decl.name}` makes no piece: the `count` of every line is 0", decl,
                       help="give a line a count of 1 or more, or remove the kind")
        first = next((c for c in table.columns if not c.is_copies), None)
        return m.KindDef(decl.name, decl.category, pieces=tuple(rows), span=decl.span, limit=decl.limit,
                         name_columns=() if first is None or first.params is not None else (index[first.name],))

    def _named_alike(self, decl: n.PieceDecl, row: n.TableRow, made, index: dict[str, int], named: dict) -> None:
        """W428 where two lines of a table give pieces one name (their first column) and differ
        in another column: the menu, the trace and a scenario's `choose`/`draw` by name cannot
        tell them apart."""
        first = next((c for c in decl.table.columns if not c.is_copies), None)
        if first is None or first.params is not None or first.name not in index:
            return
        name = made[index[first.name]]
        skip = {index[k] for k in ("row",) if k in index}
        if name.__class__ not in (int, str) or index[first.name] in skip:
            return
        found = named.setdefault(name, (made, row))
        if found[1] is row:
            return
        read = self._read_in_play()
        differ = [attribute for attribute, i in index.items() if i not in skip and i < len(made) and attribute in read
                  and i < len(found[0]) and made[i] != found[0][i] and not isinstance(made[i], TableCell)]
        if differ:
            self.error("W428", f"two lines of `{decl.name}`'s table name a piece `{decl.name} {name}`, and they "
                       f"differ in `{differ[0]}`: the menu, the trace and a scenario cannot tell them apart", row,
                       help=f"give each line a name of its own in the first column (`{name}_2`), or put the column "
                       "that tells them apart first")

    def _read_in_play(self) -> frozenset[str]:
        """The names the rules read outside the set-up (attributes among them): a column read
        only to choose the pieces the set-up keeps (`min_players`) tells nothing in play."""
        found = getattr(self, "_in_play_names", None)
        if found is None:
            names = set()
            for item in self.tree.items:
                if isinstance(item, n.Section) and item.kind == "setup":
                    continue
                for node in walk((item,)):
                    if isinstance(node, n.Name):
                        names.add(node.id)
                    elif isinstance(node, n.Attribute):
                        names.add(node.name)
            found = self._in_play_names = frozenset(names)
        return found

    def _table_copies(self, decl: n.PieceDecl, row: n.TableRow) -> int:
        """How many pieces a table line makes: its `count` cell (a whole number, 0 or more), or 1."""
        for column, cell in zip(decl.table.columns, row.cells):
            if column.is_copies:
                if isinstance(cell, n.Literal) and cell.value.__class__ is int:
                    return cell.value
                if id(cell) not in self.copies_warned:
                    self.copies_warned.add(id(cell))
                    self.error("E303", "a `count` cell says how many pieces its line makes: a whole "
                               "number, 0 or more", cell)
                return 0
        return 1

    def _table_value(self, cell: n.Node, column: n.TableColumn) -> Any:
        """A plain column's value: a literal, a negative number, a name (a label, as in
        `one for each`), or a list of those (`[1, 2]`, `empty`)."""
        if isinstance(cell, n.Literal):
            return cell.value
        if isinstance(cell, n.Negate) and isinstance(cell.operand, n.Literal) and type(cell.operand.value) is int:
            return -cell.operand.value
        if isinstance(cell, n.Name):
            return cell.id
        if isinstance(cell, n.EmptyLiteral):
            return []
        if isinstance(cell, n.ListExpr):
            return [self._table_value(item, column) for item in cell.items]
        self.error("E201", f"column `{column.name}` holds a value (a number, a name, a string, a list of "
                   "them), not an expression", cell,
                   help=f"to work it out when it is used, give the column parameters: `{column.name}()`")
        return None

    def _evaluate_attrs(self, decl, given: dict, attrs_: tuple, index: dict) -> tuple:
        values = dict(given)
        values["kind"] = decl.name
        for attr in attrs_:
            scope = Scope()
            names = list(values)
            for position, name in enumerate(names):
                scope.names[name] = (f"fr[{position}]", "any")
            try:
                fn, _ = self.expr(attr.value, scope, Slots())
                # No game is running yet: only the limits on work and numbers apply.
                constants = types.SimpleNamespace(work=0, work_budget=self.limits.work,
                                                  number_digits=self.limits.number_digits,
                                                  big_number=10 ** self.limits.number_digits)
                values[attr.name] = fn(constants, [values[name] for name in names])
            except CompileError:
                values[attr.name] = None
            except Exception as error:  # an attribute must compute from constants alone
                self.error("E201", f"attribute `{attr.name}` cannot be computed: {describe_error(error)}", attr)
                values[attr.name] = None
        row = [None] * len(self.attributes)
        for name, value in values.items():
            if name in index:
                row[index[name]] = value
        return tuple(row)

    def _compile_zones(self) -> tuple[m.ZoneDef, ...]:
        shared = [z for z in self.zones.values() if not z.per_player and z.per_piece is None]
        per_player = [z for z in self.zones.values() if z.per_player]
        per_piece = [z for z in self.zones.values() if z.per_piece is not None and not z.per_player]
        result = []
        for group in (shared, per_player, per_piece):
            ordinal = 0
            for z in group:
                made = self._zone_def(z, ordinal)
                if not z.keys:
                    result.append(made)
                    ordinal += 1
                    continue
                if len(result) + len(z.keys) > self.limits.declarations:  # each key a zone of its own
                    made_in_all = f", {len(result) + len(z.keys)} in all," if result else ","
                    self.error("E604", f"zone `{z.name}` makes {len(z.keys)} zones{made_in_all} more than the limit "
                               f"of {self.limits.declarations} declarations", z,
                               help="if the game really needs this many, raise the limit with "
                               f"`--limit declarations={len(result) + len(z.keys)}`")
                    z = attrs.evolve(z, keys=z.keys[:1])
                # one zone per key, named by it (`row[2]`, `expedition[red] of player 1`), side by side
                members = tuple(attrs.evolve(made, name=f"{z.name}[{printable(shown(key))}]", ordinal=ordinal + i)
                                for i, key in enumerate(z.keys))
                self.zone_families[z.name] = (z.keys, members)
                self.key_labels.update(k for k in z.keys if isinstance(k, str))
                result.extend(members)
                ordinal += len(members)
        return tuple(result)

    def _carriers(self, z: n.ZoneDecl) -> tuple[int, ...]:
        """The kinds whose pieces each carry an instance of a `per KIND` zone."""
        if z.per_piece is None:
            return ()
        kinds = list(self.kinds)
        carriers = tuple(i for i, (name, decl) in enumerate(self.kinds.items())
                         if z.per_piece == name or (isinstance(decl, n.PieceDecl) and decl.category == z.per_piece))
        if not carriers:
            self.error("E101", f"zone `{z.name}` is per `{z.per_piece}`, which is not a kind of component", z,
                       help=self.suggest(z.per_piece, kinds + ["player", "tile", "card", "token", "piece"]))
            return (-1,)  # still a zone of each piece (of none), so its uses raise no more errors
        if z.visibility in ("owner only", "others only"):
            self.error("E303", f"zone `{z.name}` belongs to pieces, not players: it cannot be `{z.visibility}`", z,
                       help="use `public`, `hidden`, `top only` or `secret`")
        return carriers

    def _keys_listed_once(self, decl: n.ZoneDecl | n.CounterDecl, what: str) -> None:
        """E303 for a key a zone or counter lists twice."""
        repeated = [k for k, times in collections.Counter(decl.keys).items() if times > 1]
        if repeated:
            self.error("E303", f"{what} `{decl.name}` has the key `{shown(repeated[0])}` more than once",
                       _second_written(decl, repeated[0]),
                       help=f"each key names one {'zone' if what == 'zone' else 'value'}: list it once")

    def _zone_def(self, z: n.ZoneDecl, ordinal: int) -> m.ZoneDef:
        column = None
        self._keys_listed_once(z, "zone")
        if z.keys and z.per_piece is not None:
            self.error("E303", f"zone `{z.name}` is per `{z.per_piece}` and has keys: a piece carries one zone "
                       "of a declaration", z, help="declare a zone per key, or drop `for each ...`")
        for problem in z.problems:
            self.error("E303", f"zone `{z.name}` {problem}", z,
                       help="a zone has one owner, one kind and one visibility: keep one of the two" + (
                           " (`secret` hides even how many pieces it holds; `owner only` shows them to "
                           "their owner)" if "secret" in problem else ""))
        if z.sort_key in ("face", "value"):
            self.error("E303", f"zone `{z.name}` cannot be sorted by `{z.sort_key}`: it changes when dice roll", z,
                       help="sort by an attribute fixed when the piece is made, such as `number`")
        elif z.sort_key is not None:
            if z.sort_key not in self.attributes:
                self.error("E101", f"zone `{z.name}` is sorted by unknown attribute `{z.sort_key}`", z,
                           help=self.suggest(z.sort_key, self.attributes))
            else:
                column = self.attributes.index(z.sort_key)
        for used in (z.sort_key, z.shows):
            if used in self.param_columns:
                self.error("E303", f"zone `{z.name}` uses `{used}`, a table column with parameters: it has no "
                           "value until it is called", z, help="sort by, or show, a plain column")
        if z.shows is not None and z.shows not in self.attributes:
            self.error("E101", f"zone `{z.name}` shows unknown attribute `{z.shows}`", z,
                       help=self.suggest(z.shows, self.attributes))
        return m.ZoneDef(z.name, z.per_player, z.kind, z.visibility, column, ordinal, z.shows,
                         carried_by=self._carriers(z))

    def _compile_counters(self) -> tuple[m.CounterDef, ...]:
        shared = [c for c in self.counters.values() if not c.per_player]
        per_player = [c for c in self.counters.values() if c.per_player]
        # A start value may name another counter: every counter's place is known first.
        placed = []
        for group in (shared, per_player):
            ordinal = 0
            for c in group:
                placed.append((c, ordinal))
                ordinal += len(c.keys) or 1
        self.counter_defs = {c.name: m.CounterDef(c.name, c.per_player, None, ordinal, keys=c.keys)
                             for c, ordinal in placed}
        for c, _ in placed:  # a label among keys is a name, as a face label is: `box[chance]`
            self.key_labels.update(k for k in c.keys if isinstance(k, str))
        result = []
        for c, ordinal in placed:
            scope, slots = Scope(), Slots()
            if c.keys:
                scope.names[c.key_name] = (f"fr[{slots.new(c.key_name)}]", key_kind(c.keys))
            try:
                fn, kind = self.expr(c.initial, scope, slots)
                self.counter_starts[c.name] = kind
                if not c.keys and kind == "none" and self._only_tuples_into(c.name, at_least_one=True):
                    self.counter_kinds[c.name] = "tuple"  # none until the rules set it, a tuple after
                elif not c.keys and kind in ("player", "none"):
                    self.counter_kinds[c.name] = "any"  # a rule may set it to anything: checked where used
                    if kind == "player":
                        self.seat_counters.add(c.name)
                elif kind == "tuple" and self._only_tuples_into(c.name):
                    # a tuple whatever the rules set it to (a hand's rank and kickers): read as one,
                    # so that ranking it as a number is found out (`max`, `most`)
                    self.counter_kinds[c.name] = "tuple"
                elif kind in ("str", "label", "tuple", "values"):
                    # text (`led = "none"`), a tuple, a list (`empty`): not read as a number
                    self.counter_kinds[c.name] = "any"
                if kind not in _NO_PIECE_KINDS:
                    self.loose_counters.add(c.name)
                if kind != "none" and not isinstance(c.initial, n.EmptyLiteral):  # (empty: a list of anything)
                    (self.piece_counters if kind in ("piece", "pieces") else self.other_counters).add(c.name)
                    if kind in ("piece", "pieces"):
                        self.piece_counter_sites.setdefault(c.name, c.initial)
            except CompileError:
                fn = self.function("0")
                self.loose_counters.add(c.name)
            if c.visibility == "owner only" and not c.per_player:
                self.error("E303", f"counter `{c.name}` is shared: it has no owner to be `owner only`", c,
                           help=f"write `counter {c.name}: per player = ..., owner only`, or `hidden` "
                           "for a value nobody sees")
            self._keys_listed_once(c, "counter")
            result.append(m.CounterDef(c.name, c.per_player, fn, ordinal, c.visibility, span=c.span, keys=c.keys))
        return tuple(result)

    def _reads_seat_counter(self, node) -> bool:
        """Whether ``node`` reads a counter that holds players (`leader`, `pick of player`)."""
        if isinstance(node, n.Of):
            node = node.left
        return isinstance(node, n.Name) and node.id in self.counters and node.id in self.seat_counters

    def _compile_show(self, show: n.ShowDecl) -> m.Shown | None:
        slots = Slots()
        try:
            fn, kind = self.expr(show.value, Scope(), slots)
            if kind == "any" and self._reads_seat_counter(show.value):
                kind = "player"  # a counter that holds a player: `player 2` on the board
        except CompileError:
            return None
        except (TooDeep, RecursionError):
            self.error("E304", "an expression is nested too deeply to compile", show,
                       help="split it with `define` or `let`")
            return None
        return m.Shown(show.name, fn, show.per_player, len(slots.names), kind, span=show.span,
                       seen_by=self.hidden_values.criterion(show.value))

    def _compile_invariant(self, inv: n.InvariantDecl) -> m.Check:
        rule = self._new_rule(inv.name, inv)
        slots = Slots()
        try:
            fn = self.truth(inv.cond, Scope(), slots)
        except CompileError:
            fn = self.function("True")
        return m.Check(rule, fn, "invariant", len(slots.names), span=inv.span)

    def _compile_checks(self, section: n.Section | None, kind: str) -> tuple[m.Check, ...]:
        checks = []
        if section is None:
            return ()
        for stmt in section.body:
            if not isinstance(stmt, n.Rule):
                self.error("E301", f"the `{kind}` section holds named rules only", stmt,
                           help="write `rule name: ...`")
                continue
            rule = self._new_rule(stmt.name, stmt, _doc_of(stmt.body))
            for inner in stmt.body:
                if isinstance(inner, n.Doc):
                    continue
                slots = Slots()
                try:
                    if kind == "end" and isinstance(inner, n.GameEnds):
                        fn = self.truth(inner.cond, Scope(), slots)
                        kind_of_end = {"round": "end-round", "last turns": "end-last-turns",
                                       "last turns all": "end-last-turns-all"}.get(inner.after, "end-turn")
                        checks.append(m.Check(rule, fn, kind_of_end, len(slots.names), span=inner.span))
                    elif kind == "winner" and isinstance(inner, n.Criterion) and inner.direction == "nobody":
                        fn = self.truth(inner.value, Scope(), slots)
                        checks.append(m.Check(rule, fn, "nobody", len(slots.names), span=inner.span))
                    elif kind == "winner" and isinstance(inner, n.Criterion):
                        fn, ranked = self.expr(inner.value, Scope(), slots)
                        same_for_all = not self.last_reads_player
                        ranked = self.text_or(ranked, inner.value, Scope())
                        counter = _counter_read(inner.value)
                        if ranked == "any" and counter in self.counters:  # known once every rule is compiled
                            self.ranked_counters.append((counter, inner))
                        if ranked in COLLECTIONS or ranked in ("piece", "str", "tuple"):
                            self.error("E201", f"`{inner.direction}` ranks the players by a number, not "
                                       f"{a_kind(ranked)}", inner.value,
                                       help=_TUPLE_RANKING_HELP if ranked == "tuple" else "count the pieces with "
                                       "`count(...)`, or add their values with `sum(...)`" if ranked != "str" else None)
                            continue
                        checks.append(m.Check(rule, fn, inner.direction, len(slots.names), span=inner.span,
                                              seen_by=self.hidden_values.criterion(inner.value),
                                              same_for_all=same_for_all))
                    else:
                        expected = ("`game ends when ...`" if kind == "end"
                                    else "`most ...`, `least ...` or `nobody wins when ...`")
                        self.error("E301", f"the `{kind}` section's rules hold {expected}", inner,
                                   help="write `rule NAME: game ends when CONDITION`; to change the game as it "
                                   "ends, give the change a rule of the `turn` or `round` section"
                                   if kind == "end" else "write `rule NAME: most EXPR` (the highest wins) or "
                                   "`least EXPR`; a winner rule changes nothing, it ranks the players")
                except CompileError:
                    pass
                except (TooDeep, RecursionError):
                    self.error("E304", "an expression is nested too deeply to compile", inner,
                               help="split it with `define` or `let`")
        return tuple(checks)

    # ------------------------------------------------------------------ procedures
    def _main(self) -> m.Procedure:
        code = _Code(self, Slots(), "main", -1)
        code.emit(m.OP_CALL, self.proc_index["setup"])
        top = code.here()

        def next_round(st, fr):
            st.round_number += 1
            if st.tracing:
                st.events.append((-1, "round", st.round_number))
            if st.used_once:
                st.reset_once(("turn", "round"))

        # for rulelang.liveness and rulelang.faces: it goes on to the next instruction, reads no zone
        next_round.zones_read = next_round.slots_used = next_round.jumps = frozenset()
        next_round.uses_counters = False
        code.emit(m.OP_EXEC, next_round)
        code.emit(m.OP_CALL, self.proc_index["round"])
        code.emit(m.OP_CHECK_END, True)
        code.emit(m.OP_JUMP, top)
        return code.finish()

    def _default_round(self) -> m.Procedure:
        code = _Code(self, Slots(), "round", -1)
        self._emit_take_turns(code)
        code.emit(m.OP_RETURN)
        return code.finish()

    def _emit_take_turns(self, code: _Code, start: Any = None) -> None:
        """The turns of a round: every player not out, in seat order from ``start`` (a
        function giving the starting seat; None: seat 0), wrapping around. The start is kept in
        ``st.first_player`` (what `turn_order` reads); a player eliminated during the round
        skips the turn they had left. When every player is out, the game ends here."""
        index = code.slots.new("(turn index)", "int")

        def reset(st, fr):
            st.first_player = 0 if start is None else st.turn_start(start(st, fr))
            fr[index] = 0

        def next_seat(st, fr):
            while fr[index] < st.n:
                seat = (st.first_player + fr[index]) % st.n
                fr[index] += 1
                if seat not in st.out and (st.last_turns is None or st.owed_turn(seat)):
                    st.player = seat
                    return True
            return False

        # for rulelang.faces: these read no zone (the start reads what its expression reads)
        for function in (reset, next_seat):
            function.zones_read, function.uses_counters, function.jumps = frozenset(), False, frozenset()
            function.slots_used = frozenset((index,))
        if start is not None:
            reset.zones_read = getattr(start, "zones_read", frozenset("*"))
            reset.uses_counters = getattr(start, "uses_counters", True)
            reset.slots_used = None if getattr(start, "slots_used", None) is None else start.slots_used | {index}
        code.emit(m.OP_EXEC, reset)
        self._emit_turns(code, next_seat, again=True)

    def _emit_one_turn(self, code: _Code, who: Any) -> None:
        """One turn for the player ``who`` (a function) names, passed over when they are out
        or, during the last turns, owed none. When every player is out, the game ends here."""
        def give(st, fr):
            seat = st.turn_start(who(st, fr), "`give a turn to`")
            if seat in st.out or (st.last_turns is not None and not st.owed_turn(seat)):
                if st.tracing:
                    st.events.append((code_rule, "no turn", (seat, seat in st.out)))
                return False
            st.player = seat
            return True

        code_rule = code.rule
        give.zones_read = getattr(who, "zones_read", frozenset("*"))
        give.uses_counters = getattr(who, "uses_counters", True)
        give.slots_used = getattr(who, "slots_used", None)
        give.jumps = frozenset()
        self._emit_turns(code, give, again=False)

    def _emit_turns(self, code: _Code, next_seat: Any, again: bool) -> None:
        """Turns while ``next_seat(st, fr)`` sets a player and says true: each runs the `turn`
        section and then the end conditions; ``again``: the next turn after it, else one only.
        When every player is out, the game ends here, and the trace says so."""
        rule = code.rule

        def everyone_out(st, fr):
            if st.tracing:
                st.events.append((rule, "everyone out", None))

        def anyone_in(st, fr):
            return len(st.out) < st.n

        def another_turn(st, fr):
            """`player takes another turn` ran in the turn just ended: the same player plays
            next, unless out by now, or the last turns are under way (one each)."""
            if not st.again:
                return False
            st.again = False
            return st.player not in st.out and st.last_turns is None

        for function in (everyone_out, anyone_in, another_turn):  # (for rulelang.faces: these read no zone)
            function.zones_read, function.uses_counters, function.jumps = frozenset(), False, frozenset()
            function.slots_used = frozenset()
        all_out, end = code.label(), code.label()
        code.emit(m.OP_JUMP_IF_NOT, anyone_in, all_out)
        top = code.here()
        code.emit(m.OP_JUMP_IF_NOT, next_seat, end)
        turn = code.here()
        code.emit(m.OP_TURN, self.proc_index["turn"])
        code.emit(m.OP_CHECK_END, False)
        if self.takes_another_turn:
            after = code.label()
            code.emit(m.OP_JUMP_IF_NOT, another_turn, after)
            code.emit(m.OP_JUMP, turn)
            code.place(after)
        code.emit(m.OP_JUMP, top if again else end)
        code.place(all_out)
        code.emit(m.OP_EXEC, everyone_out)
        code.emit(m.OP_END_GAME)
        code.place(end)

    def _compile_procedure(self, name: str, decl: n.Section | n.ProcedureDecl | None, kind: str) -> m.Procedure:
        code = _Code(self, Slots(), name, -1)
        code.section = kind
        if isinstance(decl, n.ProcedureDecl) and decl.span is not None:
            # what its statements outside a `rule` do is the procedure's: the trace names it (it is
            # no rule a variant can replace, so it takes no name among the rules')
            self.rules.append(m.RuleDef(f"procedure {name}", decl.span.path, decl.span.line))
            code.rule = len(self.rules) - 1
        if decl is not None:
            code.body = decl.body
            code.block(decl.body, self._parameters(decl, code))
        code.call_done_triggers()
        if kind == "final":  # the game is over once it is done (the rule that ended it is kept)
            code.rule = -1
            code.emit(m.OP_END_GAME)
        else:
            code.emit(m.OP_RETURN)
        return code.finish()

    def _joined(self, name: str) -> tuple[str, ...]:
        """The type of each parameter of a procedure: that of its arguments in the `do`s
        compiled so far (`none` and any value's fit every type), any value's without one. An
        argument of another type than the first `do`'s is E201 at its place."""
        params = self.procedures[name].params
        kinds = ["any"] * len(params)
        # a player given as any value somewhere (a counter that may hold one) is checked where
        # it names a player's counter or zone, so the parameter is any value's
        unsure = {position for given, _ in self.argument_kinds.get(name, ())
                  for position, kind in enumerate(given) if kind == "any"}
        for given, nodes in self.argument_kinds.get(name, ()):
            for position, (kind, node) in enumerate(zip(given, nodes, strict=True)):
                if kind in ("none", "any") or kind == "player" and position in unsure:
                    continue
                if kinds[position] == "any":
                    kinds[position] = kind
                elif kind != kinds[position]:
                    self.error("E201", f"`{params[position]}` of procedure `{name}` is given "
                               f"{a_kind(kinds[position])} elsewhere, and {a_kind(kind)} here", node,
                               help=f"give `{params[position]}` values of one type, or use a procedure of its own")
        return tuple(kinds)

    def _callers_first(self, names: list[str]) -> list[str]:
        """Procedures in an order where each comes after those of ``names`` that run it (in
        their rules or their `when do` rules); in a circle, the one declared first starts."""
        runs = {}
        for name in names:
            bodies = [self.procedures[name].body] + [
                rule.body for rule, when in self.triggers if when.event == "do" and when.procedure == name]
            runs[name] = {node.name for node in walk(tuple(bodies)) if isinstance(node, n.Do)} - {name}
        order, left = [], list(names)
        while left:
            free = next((name for name in left if not any(name in runs[other] for other in left if other != name)),
                        left[0])
            order.append(free)
            left.remove(free)
        return order

    def _parameters(self, decl: n.Node, code: _Code) -> Scope:
        """A procedure's parameters: variables in its first slots, which `do` fills with the
        arguments, typed as the arguments of the `do`s compiled before it (any value's when
        they differ)."""
        scope = Scope()
        params = getattr(decl, "params", ())
        kinds = self.parameter_kinds.get(decl.name, ("any",) * len(params)) if params else ()
        for param, kind in zip(params, kinds, strict=True):
            if param in scope.names:
                self.error("E102", f"procedure `{decl.name}` has two parameters named `{param}`", decl)
                continue
            scope.names[param] = (f"fr[{code.slots.new(param, kind)}]", kind)
        code.params = len(code.slots.names)
        return scope

    def zone_list_code(self, node: n.Node, scope: Scope, slots: Slots) -> str:
        """Source of a list of zone indices: `pool + hand of others` names several zones here,
        where elsewhere it would be their pieces."""
        if isinstance(node, n.Binary) and node.op == "+":
            return f"({self.zone_list_code(node.left, scope, slots)} + {self.zone_list_code(node.right, scope, slots)})"
        e = self.code(node, scope, slots)
        if e.kind == "zone":
            return f"[{e.code}]"
        if e.kind in ("zones", "zonelist"):
            return e.code
        self.error("E201", f"a move's `from` and `to` need zones, not {a_kind(e.kind)}", node,
                   help=f"for a player's zone write `{self.player_zone_example()} of player`; join zones with `+`")
        raise CompileError

    def _compile_trigger(self, rule_node: n.Rule, when: n.When, name: str) -> tuple[m.Procedure, m.TriggerDef | None]:
        slots = Slots()
        code = _Code(self, slots, name, -1)
        code.section = "procedure"
        code.rule = self._new_rule(rule_node.name, rule_node, _doc_of(rule_node.body))
        code._span = when.span
        scope = Scope()
        trigger = None
        if when.event == "do":
            # the rule sees the procedure's parameters, with their values when it is done
            scope = self._parameters(self.procedures.get(when.procedure), code)
            end = code.label()
            if when.cond is not None:
                try:
                    code.emit(m.OP_JUMP_IF_NOT, self.truth(when.cond, scope, slots), end)
                except CompileError:
                    pass
            code.body = when.body
            code.block(when.body, scope)
            code.place(end)
        else:
            for local, kind in (("moved", "pieces"), ("moved_from", "zone"), ("moved_to", "zone")):
                scope.names[local] = (f"fr[{slots.new(local, kind)}]", kind)
            parts = []
            target_zones = None
            for node in (when.source, when.to, when.cond):
                try:
                    if node is None:
                        parts.append(None)
                    elif node is when.cond:
                        parts.append(self.truth(node, scope, slots))
                    else:
                        self.prelude = []
                        source = self.zone_list_code(node, Scope(), slots)
                        whole = "\n".join(self.prelude + [source])
                        parts.append(self.function(source))
                        if node is when.to and not re.search(r"st\.counters|\bfr\[", whole):
                            # a zone's index comes from a zone the code names, or from a piece's
                            # zone ("*": any zone; so may a counter's or a variable's value)
                            zones_named = parts[-1].zones_read
                            target_zones = None if "*" in zones_named else zones_named
                except CompileError:
                    parts.append(None)
                except TooDeep:
                    self.error("E304", "an expression is nested too deeply to compile", node,
                               help="split it with `define` or `let`")
            code.body = when.body
            code.block(when.body, scope)
            trigger = m.TriggerDef(code.rule, self.proc_index[name], parts[0], parts[1], parts[2], when.instead,
                                   self.hidden_values.trigger_seen_by(when), target_zones if parts[1] else None)
        code.emit(m.OP_RETURN)
        return code.finish(), trigger


# Statements that run no further than the next one: generated as lines of a Python function.
_SIMPLE = (n.Doc, n.Pass, n.Tally, n.Say, n.Move, n.Create, n.Let, n.Assign, n.Eliminate, n.Reveal)
# Statements whose expressions all become lines (or Python blocks of lines): a define's value
# is kept for the rest of a statement function from them (`define_uses`).
_LINES = _SIMPLE + (n.If, n.While, n.ForEach, n.Repeat, n.Rule, n.Break)
# (one way only to split a list into its items: nested repeats that could split a long name in
# any number of ways took seconds to fail on a list that is not cheap)
_CHEAP_CODE = re.compile(r"^(?:\(*[\w.]+(?:\[\w+\])*\)*|\[(?:[\w.]+(?:\[\w+\])*(?:, [\w.]+(?:\[\w+\])*)*)?\])$")
_PY_LOOP = "python loop"  # in `loop_ends`: the loop is a Python loop, `break` is Python's
# Deeper blocks stay instructions: Python allows 100 levels of indentation and 20 loops.
_MAX_DEPTH, _MAX_LOOPS = 40, 12


class _Code:
    """Emits the instructions of one procedure; knows the enclosing rule and loops.

    Statements between two suspension points (a decision, a roll, a draw, a shuffle, a call,
    the end of a turn or game) are generated as lines of one Python function, run by a single
    instruction, across rules; an `if` or a loop whose blocks hold none is Python's `if`,
    `while` or `for` inside it. Each line remembers its statement's span and rule
    (``Compiler.line_tables``), so a fault still names its own line."""

    def __init__(self, compiler: Compiler, slots: Slots, name: str, rule: int):
        self.compiler = compiler
        self.slots = slots
        self.name = name
        self.rule = rule
        self.section = "main"
        self.body = None  # the statements compiled (``HiddenValues.private_names`` is keyed by them)
        self.public_choices: dict[int, n.Choose] = {}  # slot -> the choice, shown to all, that set it (W423)
        self.secret_calls: set[int] = set()  # (``Procedure.secret_calls``)
        # slots of variables started as `empty` and not set since: a list of any kind yet
        self.started_empty: set[int] = set()
        self.code: list[list] = []
        self.spans: list = []
        self.loop_ends: list[list] = []
        self.params = 0
        self._span = None
        self._lines: list[str] = []
        self._places: list[tuple] = []  # (span, rule) of each line
        self._lines_span = None
        self._lines_rule = rule
        self._indent = 0
        self._targets: list[list | int] = []  # the places statement functions return to

    # -- emitting
    def line(self, text: str) -> None:
        if not self._lines:
            self._lines_span, self._lines_rule = self._span, self.rule
        pad = "    " * self._indent
        for part in self.compiler.take_prelude() + [text]:
            self._lines.append(pad + part)
            self._places.append((self._span, self.rule))

    def flush(self) -> None:
        """End the statement function being written: an instruction, made into a Python
        function by ``finish`` (once every place it may jump to is known)."""
        if self._lines:
            assert self._indent == 0, "an instruction inside a Python block"
            self.code.append([m.OP_EXEC, (self._lines, self._places), None, self._lines_rule])
            self.spans.append(self._lines_span)
            self._lines, self._places = [], []

    def target(self, label: list | int) -> str:
        """Source of a jump target in a statement function (which returns it): replaced by the
        instruction's index in ``finish``."""
        self._targets.append(label)
        return f"@{len(self._targets) - 1}@"

    def jump(self, label: list | int) -> None:
        """Go on at ``label``: the statement function being written returns there, or, with
        none, a jump instruction."""
        if not self._lines:
            self.emit(m.OP_JUMP, label)
            return
        self.line(f"return {self.target(label)}")
        if self._indent == 0:
            self.flush()

    def emit(self, op: int, a: Any = None, b: Any = None) -> int:
        self.flush()
        self.code.append([op, a, b, self.rule])
        self.spans.append(self._span)
        return len(self.code) - 1

    def here(self) -> int:
        self.flush()
        return len(self.code)

    def label(self) -> list:
        return [None]  # patched by place()

    def place(self, label: list) -> None:
        self.flush()
        label[0] = len(self.code)

    def finish(self) -> m.Procedure:
        self.flush()
        assert self._indent == 0
        code = []
        for op, a, b, rule in self.code:
            if op == m.OP_EXEC and isinstance(a, tuple):
                a = self._statement_function(*a)
            a = a[0] if isinstance(a, list) and op == m.OP_JUMP else a
            b = b[0] if isinstance(b, list) else b
            if op == m.OP_CHOOSE and isinstance(a, dict):
                a = m.ChoiceSpec(**{**a, "otherwise": a["otherwise"][0] if a["otherwise"] else -1})
            if op == m.OP_BRANCH:
                a = m.BranchSpec(tuple((label, cond, target[0], once) for label, cond, target, once in a[0]),
                                 a[1], a[2], a[3])
            code.append((op, a, b, rule))
        code = _thread_jumps(code)
        pieces = self.slots.piece_kinds()
        private = self.compiler.hidden_values.private_names.get(id(self.body), {})
        return m.Procedure(self.name, tuple(code), tuple(self.spans), len(self.slots.names),
                           tuple(self.slots.names), self.params, pieces,
                           tuple(private.get(name, 0) if i >= len(pieces) or pieces[i] is None else 0
                                 for i, name in enumerate(self.slots.names)),
                           tuple(self.slots.kinds.get(i, set()) - {"none"} == {"player"}
                                 for i in range(len(self.slots.names))),
                           tuple(bool(self.slots.kinds.get(i)) and self.slots.kinds[i] <= _NO_PIECE_KINDS
                                 for i in range(len(self.slots.names))), frozenset(self.secret_calls))

    def _statement_function(self, lines: list[str], places: list[tuple]):
        """The Python function of a statement function's lines; its code's file name keys the
        span and rule of each line in ``Compiler.line_tables``."""
        def place(match):
            label = self._targets[int(match.group(1))]
            return str(_final_target(self.code, label[0] if isinstance(label, list) else label))

        lines = [re.sub(r"@(\d+)@", place, text) if "@" in text else text for text in lines]
        lines, places = self._kept_defines(lines, places)
        tables = self.compiler.line_tables
        filename = f"<rules {len(tables)}>"
        function = self.compiler.procedure_function(lines, filename=filename)
        tables[filename] = tuple(places)
        returns = re.findall(r"\breturn\b( \d+\b)?", "\n".join(lines))
        function.jumps = None if "" in returns else frozenset(int(r) for r in returns)  # for rulelang.liveness
        return function

    def _kept_defines(self, lines: list[str], places: list[tuple]) -> tuple[list[str], list[tuple]]:
        """Each use of a define without parameters (`@DN@`): its code, or, for a define used
        more than once in these lines, its value kept in a cell from the first use worked out
        to the next change of the game (`@R@`, after a move, `create`, a counter set or
        `eliminate`), since nothing else changes what a define reads."""
        codes = self.compiler.define_codes
        uses: list[str] = []

        def collect(text: str) -> None:
            for k in re.findall(r"@D(\d+)@", text):
                uses.append(codes[int(k)][0])
                collect(codes[int(k)][1])

        for text in lines:
            if "@D" in text:
                collect(text)
        counted = collections.Counter(uses)
        # (one that is a name or a list of names, constants and zones is as cheap to work out again)
        cheap = {name for name, code in codes if _CHEAP_CODE.match(code)} - \
            {name for name, code in codes if not _CHEAP_CODE.match(code)}
        cells = {name: f"_cd{i}" for i, name in enumerate(sorted(k for k, v in counted.items() if v > 1
                                                                  and k not in cheap))}

        def resolve(text: str) -> str:
            def one(match):
                name, code = codes[int(match.group(1))]
                code = resolve(code)
                cell = cells.get(name)
                return code if cell is None else f"({cell}[0] if {cell}[0] is not _U else _keep({cell}, {code}))"
            return re.sub(r"@D(\d+)@", one, text) if "@D" in text else text

        forget = " = ".join(f"{cell}[0]" for cell in cells.values()) + " = _U" if cells else "pass"
        lines = [resolve(text).replace("@R@", forget) for text in lines]
        start = [f"{cell} = [_U]" for cell in cells.values()]
        return start + lines, [places[0]] * len(start) + list(places)

    def changed(self) -> None:
        """The game changed here: a define's value kept so far is worked out again."""
        self.line("@R@")

    # -- statements
    def block(self, body: tuple, scope: Scope) -> None:
        for index, stmt in enumerate(body):
            self._rest = body[index + 1:]
            self.compiler.prelude = []
            self._span = stmt.span
            method = getattr(self, "_s_" + type(stmt).__name__, None)
            if method is None:
                self.compiler.error("E301", f"{_describe_stmt(stmt)} cannot stand here", stmt)
                continue
            outer = self.compiler.define_uses
            self.compiler.define_uses = self.compiler.define_codes if isinstance(stmt, _LINES) else None
            try:
                method(stmt, scope)
            except CompileError:
                pass
            except (TooDeep, RecursionError):
                self.error("E304", "an expression is nested too deeply to compile", stmt,
                           help="split it with `define` or `let`")
            finally:
                self.compiler.define_uses = outer

    def code_of(self, node, scope):
        return self.compiler.code(node, scope, self.slots)

    def truth(self, node, scope):
        return self.compiler.truth(node, scope, self.slots)

    def error(self, code: str, message: str, node, help: str | None = None) -> None:
        self.compiler.error(code, message, node, help=help)

    def _s_Doc(self, stmt, scope):
        pass

    def _s_Pass(self, stmt, scope):
        pass

    def _s_Rule(self, stmt, scope):
        outer = self.rule
        self.rule = self.compiler._new_rule(stmt.name, stmt, _doc_of(stmt.body))
        self.block(stmt.body, scope)
        self.rule = outer

    # -- Python blocks
    def fuses(self, body) -> bool:
        """Whether ``body`` can be lines of one Python function: no statement in it suspends
        (decides, rolls, draws, shuffles, calls, ends the turn or game), nor moves pieces in a
        game with `when move` rules (a triggered rule runs before the next statement)."""
        for stmt in body:
            if isinstance(stmt, n.Move) and self.compiler.has_move_triggers:
                return False
            if isinstance(stmt, _SIMPLE):
                continue
            if isinstance(stmt, n.Break):
                continue  # Python's `break`, or a return to the end of the loop around
            if isinstance(stmt, n.If):
                if not all(self.fuses(block) for _, block in stmt.branches) or not self.fuses(stmt.otherwise):
                    return False
            elif isinstance(stmt, (n.Repeat, n.While, n.ForEach)):
                if not self.fuses(stmt.body):
                    return False
            elif isinstance(stmt, n.Rule):
                if not self.fuses(stmt.body):
                    return False
            else:
                return False
        return True

    def _in_python_loop(self) -> bool:
        return bool(self.loop_ends) and self.loop_ends[-1] is _PY_LOOP

    def _python_block(self, body, scope) -> None:
        """``body`` as lines one level in, under the line just written (`if ...:`, `else:`)."""
        self._indent += 1
        before = len(self._lines)
        self.block(body, scope)
        if len(self._lines) == before:
            self.line("pass")
        self._indent -= 1

    def _python_loop(self, stmt, head: str, first: list[str], scope) -> None:
        """A loop as Python's: ``head`` (`while True:`, `for ...:`), the step count (R502: each
        time round counts), the ``first`` lines of each time round, then the body."""
        self.line(head)
        self._indent += 1
        self._span = stmt.span
        self.line("st.loop_budget -= 1")
        self.line("if st.loop_budget < 0: st._endless()")
        for text in first:
            self.line(text)
        self.loop_ends.append(_PY_LOOP)
        self.block(stmt.body, scope)
        self.loop_ends.pop()
        self._indent -= 1

    def _s_Roll(self, stmt, scope):
        dice = self.code_of(stmt.dice, scope)
        if dice.kind not in ("piece", "pieces", "zone", "zones", "any"):
            self.error("E201", f"`roll` needs dice, not {a_kind(dice.kind)}", stmt.dice)
            raise CompileError
        self.emit(m.OP_ROLL, self.compiler.function(self.compiler.as_list(dice)))

    def _s_Draw(self, stmt, scope):
        self.compiler.prelude = []
        source = self.code_of(stmt.source, scope)
        to = self.code_of(stmt.to, scope)
        for part, node in ((source, stmt.source), (to, stmt.to)):
            if part.kind != "zone":
                self.error("E201", f"`draw` needs a zone, not {a_kind(part.kind)}", node,
                           help=self.compiler.zone_help(node, "hand"))
                raise CompileError
        source_function = self.compiler.function(source.code)
        to_function = self.compiler.function(to.code)
        count = self.compiler.function("1")
        if stmt.count is not None:
            counted = self.code_of(stmt.count, scope)
            if counted.kind not in ("int", "any"):
                self.error("E201", f"a count needs a number, not {a_kind(counted.kind)}", stmt.count)
                raise CompileError
            count = self.compiler.function(counted.code)
        self.emit(m.OP_DRAW, m.DrawSpec(count, source_function, to_function, stmt.up_to))

    def _s_Shuffle(self, stmt, scope):
        self.compiler.prelude = []
        zone = self.code_of(stmt.zone, scope)
        if zone.kind != "zone":
            self.error("E201", f"`shuffle` needs a zone, not {a_kind(zone.kind)}", stmt.zone,
                       help=self.compiler.zone_help(stmt.zone, "deck", scope))
            raise CompileError
        self.emit(m.OP_SHUFFLE, self.compiler.function(zone.code))

    def _s_Tally(self, stmt, scope):
        if stmt.key is None:
            self.line(f"st.tally({self.compiler.constant(stmt.name)}, None)")
            return
        e = self.code_of(stmt.key, scope)
        key = self.compiler.fresh("k")
        # pieces and players by what a designer reads (`d6 showing 5`, `player 2`), not by number
        if e.kind == "piece":
            self.line(f"{key} = {e.code}")
            self.line(f"{key} = st.describe_piece({key}) if {key}.__class__ is int else {key}")
        elif e.kind in ("pieces", "zone", "zones"):
            self.line(f"{key} = st.describe_group(list({self.compiler.as_list(e)}))")
        elif e.kind == "player":
            self.line(f"{key} = {e.code}")
            self.line(f"{key} = 'player ' + str({key} + 1) if {key}.__class__ is int else {key}")
        else:
            self.line(f"{key} = {e.code}")
        self.line(f"st.tally({self.compiler.constant(stmt.name)}, {key})")

    def _s_Say(self, stmt, scope):
        """`say A, B, ...`: a trace line, as `text(A, B, ...)` writes it. Every seat reads it, so
        it may say only what every seat sees; one that runs only where something some seat
        cannot see holds is the referee's line (it would tell that seat what holds)."""
        level, culprit = self.compiler.hidden_values.said(stmt)
        if level:
            self.error("E201", "`say` writes a line every seat reads, and this part is worked out from what "
                       "some seat cannot see", culprit or stmt,
                       help="say only what every seat sees; to show pieces to a player, `reveal PIECES to PLAYER`")
            raise CompileError
        text = self.code_of(n.Call("text", stmt.parts, span=stmt.span), scope)
        secret = ""
        if self.compiler.hidden_values.decision_in_secret(stmt):
            secret = ", True"
            self.error("W429", "this `say` runs only where something some seat cannot see holds: the line "
                       "would tell them, so only the referee's trace shows it", stmt,
                       help="say it where every seat may know it, or show the pieces with `reveal`")
        self.line(f"st.say({text.code}, {self.rule}{secret})")

    def _s_Move(self, stmt, scope):
        what = self.code_of(stmt.what, scope)
        to = self.code_of(stmt.to, scope)
        if to.kind != "zone":
            self.error("E201", f"`move ... to` needs a zone, not {a_kind(to.kind)}", stmt.to,
                       help=self.compiler.zone_help(stmt.to, scope=scope))
            raise CompileError
        if what.kind not in ("piece", "pieces", "zone", "zones", "zonelist", "any"):
            self.error("E201", f"`move` needs pieces, not {a_kind(what.kind)}", stmt.what)
            raise CompileError
        moved = self.compiler.fresh("m")
        self.line(f"{moved} = {self._copied(self._pieces_source(what))}")
        self.line(f"if {moved}: st.move({moved}, {self.compiler.as_destination(to.code)}, "
                  f"{stmt.place == 'bottom'}, {self.rule})")
        self.changed()
        if self.compiler.has_move_triggers:
            self.flush()  # the rules it sets off run before the next statement

    def _s_Reveal(self, stmt, scope):
        what = self.code_of(stmt.pieces, scope)
        if what.kind not in ("piece", "pieces", "zone", "zones", "zonelist", "any"):
            self.error("E201", f"`reveal` needs pieces, not {a_kind(what.kind)}", stmt.pieces,
                       help="name the pieces, such as `reveal top(deck) to player`")
            raise CompileError
        who = self.code_of(stmt.to, scope)
        # shown to whom, or whether at all, worked out from what some seat cannot see: the line is the viewer's
        secret = ", True" if self.compiler.hidden_values.decision_in_secret(stmt) else ""
        if who.kind == "players":  # `reveal c to others`: to each of them, in order
            self.line(f"st.reveal_to_each({self._copied(self._pieces_source(what))}, {who.code}, {self.rule}{secret})")
            return
        if who.kind not in ("player", "int", "any"):
            self.error("E201", f"`reveal ... to` needs a player or a list of players, not {a_kind(who.kind)}",
                       stmt.to, help="such as `reveal c to player`, or `reveal c to others`")
            raise CompileError
        self.line(f"st.reveal({self._copied(self._pieces_source(what))}, {who.code}, {self.rule}{secret})")

    @staticmethod
    def _copied(pieces: str) -> str:
        """Source of a list of ``pieces`` of the statement's own: a new one as it is, else a copy."""
        return pieces if new_list(pieces) else f"list({pieces})"

    def _pieces_source(self, what) -> str:
        """Source of the pieces a `move` or `reveal` takes (the pieces of zones, lists of zones)."""
        pieces = self.compiler.pieces_of(what)
        if what.kind == "any":  # a number may stand for a piece anywhere: rulelang.faces
            pieces = self.compiler.any_piece(pieces)
        if what.kind == "pieces" and not what.safe:  # a group not chosen (`otherwise` ran) is none: none taken
            pieces = f"{pieces} or ()"
        return pieces

    def _s_Create(self, stmt, scope):
        if stmt.kind not in self.compiler.kinds:
            self.error("E101", f"unknown component `{stmt.kind}`", stmt,
                       help=self.compiler.suggest(stmt.kind, self.compiler.kinds))
            raise CompileError
        kind_index, kind_def = self.compiler.kind_defs[stmt.kind]
        if stmt.count is not None and not kind_def.is_die and len(kind_def.pieces) > 1:
            declared = self.compiler.kinds[stmt.kind]
            if getattr(declared, "table", None) is not None:  # (a `count` column may make them alike)
                self.error("E303", f"`{stmt.kind}` is a table of {len(kind_def.pieces)} pieces: `create` makes all of "
                           "them, and a count cannot apply", stmt,
                           help=f"write `create {stmt.kind} in ...`; to make more of a line, raise its `count` cell")
            elif len(set(kind_def.pieces)) == 1:  # `count N`: N identical pieces
                self.error("E303", f"`{stmt.kind}` is declared with `count {len(kind_def.pieces)}`: `create` makes "
                           "all of them, and a count cannot apply", stmt,
                           help=f"write `create {stmt.kind} in ...`, or declare `{stmt.kind}` without `count` "
                           f"and write `create N {stmt.kind} in ...`")
            else:
                self.error("E303", f"`{stmt.kind}` has a piece for each of its values; a count cannot apply", stmt,
                           help=f"write `create {stmt.kind} in ...` to make all of them")
            raise CompileError
        count = "None"
        limit = self.compiler.limits.pieces
        if isinstance(stmt.count, n.Literal) and isinstance(stmt.count.value, int) and stmt.count.value > limit:
            self.error("E602", f"`create {stmt.count.value}` makes more pieces than the limit of {limit}", stmt.count,
                       help=f"if the game really needs this many, raise the limit with "
                       f"`--limit pieces={stmt.count.value}`")
            raise CompileError
        if stmt.count is not None:
            counted = self.code_of(stmt.count, scope)
            if counted.kind not in ("int", "any"):
                self.error("E201", f"a count needs a number, not {a_kind(counted.kind)}", stmt.count)
                raise CompileError
            count = counted.code
        into = self.code_of(stmt.into, scope)
        if into.kind != "zone":
            self.error("E201", f"`create ... in` needs a zone, not {a_kind(into.kind)}", stmt.into)
            raise CompileError
        self.line(f"st.create({kind_index}, {count}, {into.code}, {self.rule})")
        self.changed()

    def _hides_outer(self, name: str, scope: Scope, stmt, verb: str) -> None:
        """W425: `let NAME` or `choose NAME` in a block makes a new variable where one of that
        name lives outside the block, which keeps its value after the block."""
        if name in scope.names or scope.parent is None or scope.parent.lookup(name) is None:
            return
        self.compiler.error(
            "W425", f"`{verb} {name}` in this block makes a new `{name}`, gone after the block: the `{name}` made "
            "before it keeps its value", stmt,
            help=f"to change the `{name}` made before, write `{name} = ...`" + (
                f" (choose into another name, then `{name} = ` it)" if verb == "choose" else "") +
            "; for a variable of this block only, give it a name of its own")

    def _s_Let(self, stmt, scope):
        try:
            value = self.code_of(stmt.value, scope)
        except CompileError:
            if scope.names.get(stmt.name) is None:  # the name exists still: no E101 at each later use
                scope.names[stmt.name] = (f"fr[{self.slots.new(stmt.name)}]", "any")
            raise
        self._hides_outer(stmt.name, scope, stmt, "let")
        local = scope.names.get(stmt.name)
        if local is not None:
            self._same_kind(stmt.name, local[1], value.kind, stmt.value)
        slot = int(local[0][3:-1]) if local is not None else self.slots.new(stmt.name)
        kind = value.kind
        if kind == "none" and _assigned_in(getattr(self, "_rest", ()), stmt.name):
            # `let best = none`, then `best = x` further on, maybe in a loop whose condition
            # reads `best.number` before that line: from the start it is a piece or none.
            kind = "any"
        scope.names[stmt.name] = (f"fr[{slot}]", kind)
        if isinstance(stmt.value, n.EmptyLiteral):
            self.started_empty.add(slot)
        else:
            self.started_empty.discard(slot)
        self.slots.note(slot, kind)
        self.compiler._note_variable(stmt.name, stmt.value, value.kind)
        self.line(f"fr[{slot}] = {value.code}")

    def _s_Assign(self, stmt, scope):
        target = stmt.target
        value = self.code_of(stmt.value, scope)
        local = scope.lookup(target.name)
        if local is not None and target.owner is None and target.key is not None:
            self.error("E201", f"`{target.name}[...]` cannot be set: `{target.name}` is a variable, and only a "
                       "counter with keys has entries to change", target,
                       help=f"give `{target.name}` a whole new value: `{target.name} = ...`")
            raise CompileError
        if local is not None and target.owner is None:
            where = local[0]
            slot = int(where[3:-1]) if where.startswith("fr[") else None
            if stmt.op == "=" and slot in self.started_empty and local[1] == "values" \
                    and value.kind in ("pieces", "players", "subsets", "values"):
                # `let found = empty`, then `found = found + subsets(hand, 2)`: the list it
                # starts as is of whatever it is first given
                self.started_empty.discard(slot)
                scope.retype(target.name, value.kind)
                local = (where, value.kind)
            if stmt.op == "=":
                self._same_kind(target.name, local[1], value.kind, stmt.value)
                if value.kind != local[1] and value.kind != "none":
                    # `let c = none` then `c = first(hand)`: from here on c is a piece (and a
                    # variable given two different types is read as any value)
                    scope.retype(target.name, value.kind if local[1] == "none" else "any")
                if where.startswith("fr["):
                    self.slots.note(int(where[3:-1]), value.kind)
                    self.public_choices.pop(int(where[3:-1]), None)
                self.compiler._note_variable(target.name, stmt.value, value.kind)
                self.line(f"{where} = {value.code}")
            else:
                self.line(f"{where} = {where} {stmt.op[0]} {self.compiler.as_list(value) if local[1] in ('pieces', 'values') else value.code}")
            return
        if target.name in self.compiler.options and target.name not in self.compiler.counters:
            self.error("E201", f"`{target.name}` is an option: it is set before the game starts and never "
                       "changes", target, help=f"to change a value while playing, declare a counter: "
                       f"`counter {target.name}_now: shared = {target.name}`")
            raise CompileError
        if target.name not in self.compiler.counters:
            self.error("E101", f"`{target.name}` is neither a variable nor a counter", target,
                       help=self.compiler.suggest(target.name, scope.all_names() + list(self.compiler.counters))
                       or "declare variables with `let name = value`")
            raise CompileError
        counter = self.compiler.counter_defs[target.name]
        self._announced_into_hidden(stmt, scope)
        if target.key is not None and not counter.keys:
            self.error("E201", f"`{target.name}` is a counter without keys; it holds one value", target.key,
                       help=f"declare keys with `counter {target.name}: ..., for each KEY in ... = ...`")
            raise CompileError
        if counter.keys and target.key is None:
            self.error("E202", f"`{target.name}` holds a value for each key; say which", target,
                       help=f"write `{target.name}[KEY]`; its keys are {keys_text(counter.keys)}")
            raise CompileError
        place = "0"
        if counter.keys:
            place = self.compiler.counter_key(counter, target.key, scope, self.slots)
        if counter.per_player:
            if target.owner is None:
                entry = f"{target.name}{'[...]' if counter.keys else ''}"
                self.error("E202", f"`{target.name}` is a counter of each player; say whose", target,
                           help=f"write `{entry} of player`" if self.section not in ("setup", "round", "final") else
                           f"outside a turn, name the player: `for each p in players:` then `{entry} of p`, or a "
                           f"counter that holds a player (`{entry} of leader`)")
                raise CompileError
            owner = self.code_of(target.owner, scope)
            if owner.kind not in ("player", "any"):
                self.error("E201", f"`{target.name} of ...` here needs one player, not {a_kind(owner.kind)}",
                           target.owner, help="to change every player's, use `for each p in players:`")
                raise CompileError
            whose = owner.code if owner.kind == "player" else \
                f"_whose(st, {owner.code}, {self.compiler.constant(target.name)})"
            index = f"st.counter_base + ({counter.ordinal} + {place}) * st.n + {whose}"
        else:
            if target.owner is not None and counter.keys:
                self.error("E201", f"`{target.name}` is a shared counter; it has no owner", target,
                           help=f"write just `{target.name}[...]`")
                raise CompileError
            index = f"{counter.ordinal} + {place}"
        if stmt.op != "=" and value.kind not in ("int", "any", "label"):
            self.error("E201", f"`{stmt.op}` needs a number, not {a_kind(value.kind)}", stmt.value,
                       help=f"`{stmt.op}` adds or takes away a number (`{target.name} {stmt.op} 1`); `=` sets a value")
            raise CompileError
        if value.kind in _HOLDS_IDS:  # the counter would keep ids, read as numbers
            self.error("E201", f"counter `{target.name}` holds a number, true/false, a label, a player or "
                       f"pieces, not {a_kind(value.kind)}", stmt.value,
                       help="count the pieces with `count(...)`, or add their values with `sum(...)`")
            raise CompileError
        if value.kind == "str" and self.compiler.counter_starts.get(target.name) in ("int", "bool"):
            start = self.compiler.counter_starts[target.name]
            self.error("E201", f"counter `{target.name}` starts as {a_kind(start)}, so it holds "
                       f"{'numbers' if start == 'int' else 'true or false'}, not text", stmt.value,
                       help=f"to hold text, start it as `none` (`counter {target.name}: ... = none`), or keep the "
                       "text in a counter of its own")
            raise CompileError
        i = self.compiler.fresh("i")
        self.line(f"{i} = {index}")
        new = value.code if stmt.op == "=" else f"st.counters[{i}] {stmt.op[0]} {value.code}"
        # whose counter, or whether it changes, worked out from what some seat cannot see: the line is its owner's
        secret = ", True" if self.compiler.hidden_values.decision_in_secret(stmt) else ""
        # the trace says `player 2`, not 1, and `[player 1, player 3]` for a list of players
        is_seat = stmt.op == "=" and value.kind in ("player", "players")
        if is_seat:
            self.compiler.seat_counters.add(target.name)
        # a counter set to a name that reads as any value: a variable's or another counter's
        named = stmt.value.id if stmt.op == "=" and value.kind == "any" and isinstance(stmt.value, n.Name) else None
        from_variable = named is not None and scope.lookup(named) is not None
        if named is not None and not from_variable and named in self.compiler.counters:
            # `last = next_up`: a counter set from one that holds a player holds one too
            self.compiler.counters_from_counters.setdefault(target.name, set()).add(named)
        elif stmt.op == "=" and value.kind == "any" and isinstance(stmt.value, n.Of) and \
                isinstance(stmt.value.left, n.Name) and stmt.value.left.id in self.compiler.counters:
            # `pointed of p = vote of p`: the same, from a counter of a player
            self.compiler.counters_from_counters.setdefault(target.name, set()).add(stmt.value.left.id)
        if from_variable and not is_seat:
            self.compiler.counters_from_variables.setdefault(target.name, set()).add(named)
            self.compiler.counters_set_from.setdefault(target.name, []).append((named, stmt.value))
        # (`+=` on a counter that starts as a number makes a number, whatever is added: a piece's
        # id added to a score is no piece)
        arithmetic = stmt.op != "=" and self.compiler.counter_starts.get(target.name) in ("int", "bool")
        if value.kind not in _NO_PIECE_KINDS and not arithmetic:
            self.compiler.loose_counters.add(target.name)
        if stmt.op == "=" and value.kind == "none":
            pass
        elif from_variable:  # pieces or not: as what the variable is set to says, once all is compiled
            self.line(f"st.set_counter({i}, {new}, {self.rule}, False, None{secret})")
            self.changed()
            return
        elif stmt.op != "=" or value.kind not in ("piece", "pieces"):
            self.compiler.other_counters.add(target.name)
        if stmt.op == "=" and value.kind in ("piece", "pieces"):  # the trace names them where seen
            self.compiler.piece_counters.add(target.name)
            self.compiler.piece_counter_sites.setdefault(target.name, stmt.value)
            self.line(f"st.set_counter({i}, {new}, {self.rule}, False, True{secret})")
        else:
            self.line(f"st.set_counter({i}, {new}, {self.rule}, {is_seat}, False{secret})")
        self.changed()

    def _same_kind(self, name, held, given, node):
        """A variable that holds a collection keeps holding one, and one that holds a single value
        keeps holding single values: the code that reads it was compiled for that (a loop may
        come back to it), so crossing over is E201."""
        collections = ("pieces", "values", "players", "zones")
        if "any" not in (held, given) and "none" not in (held, given) and \
                (held in collections) != (given in collections):
            self.error("E201", f"`{name}` holds {a_kind(held)}; it cannot be set to {a_kind(given)}", node,
                       help=f"use a new name: `let other_{name} = ...`")
            raise CompileError
        if given == "zone" and held in ("any", "none"):
            # a zone is kept as its number: in a variable that may hold other values, it would
            # be read as that number (`text(z)` is 1, `z == right` is false)
            self.error("E201", f"`{name}` holds values other than zones (it starts as `none`, or is set to another "
                       "kind of value), so it cannot hold a zone", node,
                       help=f"start it as a zone: `let {name} = <a zone>` (an empty zone can stand for \"no zone "
                       "yet\")")
            raise CompileError
        if (held == "zone") != (given == "zone") and "any" not in (held, given) and "none" not in (held, given):
            # a zone is read as the pieces in it: a number in its place would be read as a zone
            self.error("E201", f"`{name}` holds {a_kind(held)}; it cannot be set to {a_kind(given)}", node,
                       help=f"use a new name: `let other_{name} = ...`")
            raise CompileError
        # Pieces are shown and chosen as pieces: a list with numbers or labels in it, or players,
        # would reach code that reads them as pieces.
        if held in ("pieces", "zone", "zones") and (given in ("players", "subsets", "zonelist") or (
                isinstance(node, n.ListExpr) and any(isinstance(item, n.Literal) and item.value is not None
                                                     for item in node.items))):
            self.error("E201", f"`{name}` holds {a_kind(held)}; it cannot be set to {a_kind(given)}", node,
                       help=f"use a new name: `let other_{name} = ...`")
            raise CompileError

    def _s_Break(self, stmt, scope):
        if not self.loop_ends:
            self.error("E301", "`break` outside a loop", stmt,
                       help="`break` leaves the innermost `repeat`, `while` or `for each`")
            return
        if self._in_python_loop():
            self.line("break")
            return
        self.jump(self.loop_ends[-1])

    def _s_EndTurn(self, stmt, scope):
        if self.section in ("setup", "round", "final"):
            self.error("E301", f"`end turn` in the `{self.section}` section", stmt,
                       help=f"`end turn` ends the turn in progress, and none is under way in the `{self.section}` "
                       "section: put it in the `turn` section, or in a procedure that a turn runs")
            return
        self.call_done_triggers()
        # (a: that it ends the turn under a condition some seat cannot see: its line is the player's)
        self.emit(m.OP_END_TURN, True if self.compiler.hidden_values.decision_in_secret(stmt) else None)

    def _s_AnotherTurn(self, stmt, scope):
        if self.section in ("setup", "round", "final"):
            self.error("E301", f"`player takes another turn` in the `{self.section}` section", stmt,
                       help="it gives the player of the turn in progress the next turn too, and no turn is under "
                       f"way in the `{self.section}` section: put it in the `turn` section, or in a procedure "
                       "that a turn runs")
            return
        self.line(f"st.another_turn({self.rule})")

    def call_done_triggers(self) -> None:
        """Run the `when do THIS` rules: where this procedure is done, by its end or `end turn`."""
        triggers = self.compiler.done_triggers.get(self.name, ())
        # they see this procedure's parameters: the first slots, as they are now
        arguments = self.compiler.function(f"fr[:{self.params}]") if triggers and self.params else None
        for index in triggers:
            self.emit(m.OP_CALL, index, arguments)

    def _s_When(self, stmt, scope):
        self.error("E301", "`when` starts a triggered rule, which stands at the top level of the file", stmt,
                   help="write `rule NAME:` with no indentation, then `when ...:` inside it")

    def _s_EndGame(self, stmt, scope):
        self.emit(m.OP_END_GAME)

    def _s_Do(self, stmt, scope):
        decl = self.compiler.procedures.get(stmt.name)
        if decl is None:
            self.error("E101", f"unknown procedure `{stmt.name}`", stmt,
                       help=self.compiler.unknown_procedure_help(stmt.name, "do"))
            return
        given = stmt.args or ()
        if len(given) != len(decl.params):
            wanted = f"{len(decl.params)} argument(s)" + (f" ({', '.join(decl.params)})" if decl.params else "")
            self.error("E104", f"procedure `{stmt.name}` takes {wanted}, not {len(given)}", stmt,
                       help=f"write `do {stmt.name}({', '.join(decl.params)})` with a value for each"
                       if decl.params else f"write `do {stmt.name}`")
            raise CompileError
        arguments = None
        if given:
            # worked out once, in order, when `do` runs; the procedure gets their values
            self.compiler.prelude = []
            parts = [self.code_of(arg, scope) for arg in given]
            self._argument_kinds(decl, [part.kind for part in parts], given)
            held = self.compiler.parameter_kinds.get(decl.name) or ("any",) * len(parts)
            codes = [f"_player_argument(st, {part.code}, {self.compiler.constant(f'`{param}` of `{decl.name}`')})"
                     if want == "player" and part.kind == "any" else part.code  # (a player is checked here)
                     for part, want, param in zip(parts, held, decl.params, strict=True)]
            arguments = self.compiler.function(f"({', '.join(codes)},)")
        at = self.emit(m.OP_CALL, self.compiler.proc_index[stmt.name], arguments)
        if self.compiler.hidden_values.decision_in_secret(stmt):
            self.secret_calls.add(at)

    def _argument_kinds(self, decl, kinds, given):
        """Before its procedure is compiled, a `do` adds its arguments' types to those its
        parameters take; after, each argument must fit its parameter's type (E201)."""
        held = self.compiler.parameter_kinds.get(decl.name)
        if held is None:
            self.compiler.argument_kinds.setdefault(decl.name, []).append((tuple(kinds), tuple(given)))
            return
        for param, kind, want, node in zip(decl.params, kinds, held, given, strict=True):
            if want != "any" and kind not in (want, "any", "none"):
                self.error("E201", f"`{param}` of procedure `{decl.name}` is given {a_kind(want)} elsewhere, "
                           f"and {a_kind(kind)} here", node,
                           help=f"give `{param}` values of one type, or use a procedure of its own")
                raise CompileError

    def _s_TakeTurns(self, stmt, scope):
        if self.section != "round":
            self.error("E301", "`each player takes a turn` belongs in the `round` section", stmt,
                       help="move it to a `round:` section (the statements before and after it run once a "
                       "round); a game without one plays a turn for each player every round by itself"
                       if self.section != "procedure" else
                       "it runs in the `round` section itself, not in a procedure: move it there")
            return
        start = None
        if stmt.start is not None:
            start = self._seat_function(stmt.start, scope, "`starting with`", "`seat(round_number - 1)`")
        self.compiler._emit_take_turns(self, start)

    def _s_GiveTurn(self, stmt, scope):
        if self.section != "round":
            self.error("E301", "`give a turn to` belongs in the `round` section", stmt,
                       help="a turn cannot give another one: set a counter here (`next_player = ...`) "
                       "and let the `round` section give the turn to it" if self.section != "procedure" else
                       "it runs in the `round` section itself, not in a procedure: move the statements "
                       "that give the turns into `round:`")
            return
        who = self._seat_function(stmt.who, scope, "`give a turn to`",
                                  "`give a turn to current`, a counter that holds a player")
        self.compiler._emit_one_turn(self, who)

    def _seat_function(self, node, scope, what: str, example: str):
        """The function giving the one player ``node`` names (``what`` needs it): E201 for
        anything that cannot be one."""
        first = self.code_of(node, scope)
        if first.kind not in ("player", "int", "any"):
            self.error("E201", f"{what} needs a player, not {a_kind(first.kind)}", node,
                       help=f"name one player, such as {example}")
            raise CompileError
        if first.kind == "any" and isinstance(node, n.Name) and node.id in self.compiler.counters:
            self.compiler.seat_reads.append((node.id, node, what))
        return self.compiler.function(first.code)

    def _s_Eliminate(self, stmt, scope):
        who = self.code_of(stmt.players, scope)
        word = "bring back" if stmt.back else "eliminate"
        if who.kind not in ("player", "players", "int", "values", "any"):
            self.error("E201", f"`{word}` needs a player or players, not {a_kind(who.kind)}", stmt.players,
                       help=f"name players, such as `{word} player` or `{word} players where ...`")
            raise CompileError
        self.line(f"st.eliminate({who.code}, {self.rule}, {stmt.back})")
        self.changed()

    def _s_GameEnds(self, stmt, scope):
        self.error("E301", "`game ends when ...` belongs in the `end` section", stmt,
                   help="to end the game from here, write `end game`")

    def _s_Criterion(self, stmt, scope):
        words = "nobody wins when" if stmt.direction == "nobody" else stmt.direction
        self.error("E301", f"`{words} ...` belongs in the `winner` section", stmt)

    def _s_If(self, stmt, scope):
        if self._python(stmt):
            self._python_if(stmt, scope)
            return
        end = self.label()
        for cond_node, body in stmt.branches:
            self._span = cond_node.span
            next_branch = self.label()
            self.line(f"if not ({self._condition_code(cond_node, scope)}): return {self.target(next_branch)}")
            self.block(body, Scope(scope))
            self.jump(end)
            self.place(next_branch)
        if stmt.otherwise:
            self.block(stmt.otherwise, Scope(scope))
        self.place(end)

    def _python_if(self, stmt, scope):
        """`if`/`elif`/`else` as Python's; an `elif` whose condition needs lines of its own
        first is `else:` then `if` inside it."""
        nested = 0
        for position, (cond_node, body) in enumerate(stmt.branches):
            self._span = cond_node.span
            self.compiler.prelude = []
            try:
                cond = self.compiler.truth_code(cond_node, scope, self.slots)
            except CompileError:  # reported; read as false, so that the blocks still compile
                self.compiler.prelude, cond = [], "False"
            if position == 0:
                self.line(f"if {cond}:")
            elif self.compiler.prelude:
                first = self.compiler.take_prelude()
                self.line("else:")
                self._indent += 1
                nested += 1
                self.compiler.prelude = first
                self.line(f"if {cond}:")
            else:
                self.line(f"elif {cond}:")
            self._python_block(body, Scope(scope))
        if stmt.otherwise:
            self.line("else:")
            self._python_block(stmt.otherwise, Scope(scope))
        self._indent -= nested

    def _condition_code(self, node, scope) -> str:
        """The source of a condition, its lines first in the prelude; one in error is reported
        and read as false, as in ``_condition``."""
        self.compiler.prelude = []
        try:
            return self.compiler.truth_code(node, scope, self.slots)
        except CompileError:
            self.compiler.prelude = []
            return "False"

    def _condition(self, node, scope):
        """A condition among others (`elif`, a branch's `if`): one in error is reported and read
        as false, so that the others and the blocks still compile and their jumps are placed."""
        try:
            return self.truth(node, scope)
        except CompileError:
            return self.compiler.function("False")

    def _loop(self, body, scope, first=None) -> None:
        """A loop of instructions; each time round starts with the lines ``first(end)`` gives
        (``end``: the source of the loop's end, to return to), and its last statement function
        returns to the top."""
        top = self.here()
        end = self.label()
        for text in first(self.target(end)) if first is not None else ():
            self.line(text)
        self.loop_ends.append(end)
        self.block(body, Scope(scope))
        self.loop_ends.pop()
        self.jump(top)
        self.place(end)

    def _python(self, stmt) -> bool:
        """Whether ``stmt`` is a Python block: always inside one (its outermost statement was
        found to fuse, with all it holds); otherwise when it fuses and is not too deep."""
        if self._indent:
            return True
        return self.fuses([stmt]) and all(depth < limit for depth, limit in zip(_depth(stmt), (_MAX_DEPTH, _MAX_LOOPS)))

    def _s_Repeat(self, stmt, scope):
        if self._python(stmt):
            self._python_loop(stmt, "while True:", [], Scope(scope))
            return
        self._loop(stmt.body, scope)

    def _s_While(self, stmt, scope):
        if self._python(stmt):
            self.compiler.prelude = []
            cond = self.compiler.truth_code(stmt.cond, scope, self.slots)
            first = self.compiler.take_prelude()
            self._python_loop(stmt, "while True:", first + [f"if not ({cond}): break"], Scope(scope))
            return
        self.compiler.prelude = []
        cond = self.compiler.truth_code(stmt.cond, scope, self.slots)
        first = self.compiler.take_prelude()
        self._loop(stmt.body, scope, lambda end: first + [f"if not ({cond}): return {end}"])

    def _s_ForEach(self, stmt, scope):
        if stmt.var in ("(times)", "(deal rounds)"):  # `repeat N times:`, `deal N` (rulelang.parser): a number N
            count = self.code_of(stmt.items.args[1], scope)
            if count.kind not in ("int", "any"):
                counted = stmt.items.args[1].id if isinstance(stmt.items.args[1], n.Name) else "cup"
                what, example = ("`repeat N times`", f"`repeat count({counted}) times:`") if stmt.var == "(times)" \
                    else ("`deal N`", f"`deal (count({counted})) from ...`")
                self.error("E201", f"{what} needs a number N, not {a_kind(count.kind)}", stmt.items.args[1],
                           help=f"count what you mean, such as {example}")
                raise CompileError
        self.compiler.looping_over = (*self.compiler.looping_over, stmt.var)
        try:
            items, kind = self.compiler.collection_code(stmt.items, scope, self.slots, "`for each`")
        finally:
            self.compiler.looping_over = self.compiler.looping_over[:-1]
        # `repeat N times`, `deal N` and `range(...)` loop over numbers: their slots hold no piece
        # (the turn key need not look in them for the id of one, rulelang.turnkey)
        numbers = stmt.var in ("(times)", "(deal rounds)") or (
            isinstance(stmt.items, n.Call) and stmt.items.func == "range")
        if numbers:
            pending, var = self.slots.new("(for items)", "int"), self.slots.new(stmt.var, "int")
        else:
            pending = self.slots.new("(for items)", "for pieces" if SINGLE_FOR.get(kind) == "piece" else "any")
            var = self.slots.new(stmt.var, SINGLE_FOR.get(kind, "any"))
        if self._python(stmt):
            inner = Scope(scope)
            inner.names[stmt.var] = (f"fr[{var}]", SINGLE_FOR.get(kind, "any"))
            # the items are copied once, as the loop starts
            self._python_loop(stmt, f"for fr[{var}] in {self._copied(f'_items(st, {items})')}:", [], Scope(inner))
            return
        # The items, copied once, and the place of the next: a new pair each time, never a changed
        # one, since clones share it.
        self.line(f"fr[{pending}] = ({self._copied(f'_items(st, {items})')}, 0)")
        inner = Scope(scope)
        inner.names[stmt.var] = (f"fr[{var}]", SINGLE_FOR.get(kind, "any"))
        self._loop(stmt.body, inner, lambda end: [
            f"_l, _i = fr[{pending}]",
            f"if _i >= len(_l): return {end}",
            f"fr[{var}] = _l[_i]",
            f"fr[{pending}] = (_l, _i + 1)",
        ])

    def _chooser(self, node, scope):
        if node is None:
            return None
        e = self.code_of(node, scope)
        if e.kind not in ("player", "any"):
            self.error("E201", f"`by` needs a player, not {a_kind(e.kind)}", node)
            raise CompileError
        return self.compiler.function(e.code)

    def _choice_part(self, part, scope, as_filter: bool = False):
        """The options of `choose VAR from OPTIONS [where COND]` (or of its `then` part): their
        function ``f(st, fr)``, the kind of an option, VAR's slot, and the condition's function
        (or None): with ``as_filter``, ``f(st, fr, options)`` giving the options it keeps, the
        parts of the condition that do not depend on the option worked out once (as in a
        `where` filter); else ``f(st, fr)`` testing the option in VAR's slot."""
        try:
            options, kind = self.compiler.collection_code(part.options, scope, self.slots, "`choose ... from`")
        except CompileError:  # the name is still declared: no second error where it is used
            if part.var not in scope.names:
                scope.names[part.var] = (f"fr[{self.slots.new(part.var)}]", "any")
            raise
        # what the options hoisted goes with them, not with the condition compiled next
        options_prelude = self.compiler.take_prelude()
        element = SINGLE_FOR.get(kind, "any")
        if kind == "values":  # a list of numbers written out, or a range: numbers (never a piece's id)
            written = part.options
            if (isinstance(written, n.ListExpr) and written.items and all(
                    isinstance(i, n.Literal) and i.value.__class__ is int for i in written.items)) or \
                    (isinstance(written, n.Call) and written.func == "range"):
                element = "int"
        local = scope.names.get(part.var)
        slot = int(local[0][3:-1]) if local is not None else self.slots.new(part.var)
        scope.names[part.var] = (f"fr[{slot}]", element)
        self.slots.note(slot, element)
        where = None
        if part.where is not None and as_filter:
            # The condition sees the option under its name and, like `where`, its attributes.
            option = self.compiler.fresh("o")
            inner = Scope(scope, element=(option, element))
            inner.names[part.var] = (option, element)
            self.compiler.bound.append(option)
            try:
                test = self.compiler.truth_code(part.where, inner, self.slots)
            finally:
                self.compiler.bound.pop()
            where = self.compiler.function(f"[{option} for {option} in _options if {test}]", "st, fr, _options")
        elif part.where is not None:
            test = self.compiler.truth_code(part.where, Scope(scope, element=(f"fr[{slot}]", element)), self.slots)
            where = self.compiler.function(test)
        if part.where is not None:
            alike = self.compiler.alike_attribute(part.where, part.var) or \
                self.compiler.alike_attribute(part.where, "it")
            if alike is not None:
                self.compiler.prelude = []
                alike_options = self.compiler.alike_subsets_code(part.options, alike, scope, self.slots)
                if alike_options is not None:
                    options, options_prelude = alike_options, self.compiler.take_prelude()
        self.compiler.prelude = options_prelude
        return self.compiler.function(options), element, slot, where

    def _s_Choose(self, stmt, scope):
        if stmt.several is not None:
            self._choose_several(stmt, scope)
            return
        self._hides_outer(stmt.var, scope, stmt, "choose")
        options, element, slot, where = self._choice_part(stmt, scope, as_filter=True)
        if (stmt.aloud or stmt.secretly) and element in ("piece", "pieces"):
            self._aloud_pieces(stmt)
        chooser = self._chooser(stmt.chooser, scope)
        otherwise = self.label() if stmt.otherwise is not None else None
        describe, to_json = _describer(element), _jsoner(element)
        if stmt.label is not None:  # like the condition, the label sees the option as `it` too
            describe = self._label(stmt.label, Scope(scope, element=(f"fr[{slot}]", element)), slot)
        then = None
        if stmt.then is not None:
            then, describe, to_json = self._then_choose(stmt, scope, describe, to_json, element == "piece")
        if stmt.secretly and then is not None and then.of_pieces:
            self._aloud_pieces(stmt)
        self._menu_warning(stmt, element in ("piece", "pieces"), then is not None and then.of_pieces)
        spec = {
            "options": options, "where": where, "slot": slot,
            "chooser": chooser, "prompt": stmt.prompt or f"choose {stmt.var}",
            "describe": describe, "to_json": to_json, "otherwise": otherwise,
            "of_pieces": element == "piece", "element": element,
            "private": self.compiler.hidden_values.choice_private(stmt), "then": then,
            "labelled": stmt.label is not None, "aloud": stmt.aloud,
            "in_secret": self.compiler.hidden_values.decision_in_secret(stmt),
        }
        if element not in ("piece", "pieces") and then is None and not spec["private"] and not stmt.aloud:
            self.public_choices[slot] = stmt
        self.emit(m.OP_CHOOSE, spec)
        if otherwise is not None:
            after = self.label()
            self.emit(m.OP_JUMP, after)
            self.place(otherwise)
            self.block(stmt.otherwise, Scope(scope))
            self.place(after)

    def _announced_into_hidden(self, stmt: n.Assign, scope: Scope) -> None:
        """W423: a choice every seat sees made (its options hide nothing) kept in a counter that
        not every seat sees: the counter hides nothing, the trace showed the value."""
        visibility = self.compiler.counters[stmt.target.name].visibility
        if stmt.op != "=" or visibility == "public" or not isinstance(stmt.value, n.Name):
            return
        local = scope.lookup(stmt.value.id)
        slot = re.fullmatch(r"fr\[(\d+)\]", local[0]) if local is not None else None
        choice = self.public_choices.get(int(slot.group(1))) if slot else None
        if choice is None:
            return
        at = f" (line {choice.span.line})" if choice.span is not None else ""
        self.compiler.error(
            "W423", f"`{choice.var}` was chosen in the open{at}: every seat saw `{choice.prompt or 'choose'}: ...` "
            f"in the trace, so the `{visibility}` counter `{stmt.target.name}` hides nothing", stmt.value,
            help=_SECRET_CHOICE_HELP)

    def _menu_warning(self, stmt, of_pieces: bool, then_of_pieces: bool) -> None:
        """W416 where the menu of a choice shows what its chooser may not see (once per choice)."""
        what = self.compiler.hidden_values.menu_reveals(stmt, of_pieces, then_of_pieces)
        if what is None or id(stmt) in self.compiler.menus_warned:
            return
        self.compiler.menus_warned.add(id(stmt))
        shows = {"options": "how many options it has" if of_pieces else "its options",
                 "condition": "which options its condition keeps", "label": "its labels",
                 "parameter": "the options of its parameter"}[what]
        self.error("W416", f"this choice's menu shows its chooser {shows}, worked out from what the chooser may "
                   "not see", {"options": stmt.options, "condition": stmt.where, "label": stmt.label,
                               "parameter": stmt.then}[what] or stmt,
                   help="make it a blind pick of the pieces themselves, with no condition on what the chooser "
                   "cannot see, or work the options out from what the chooser sees")

    def _label(self, node, scope, slot):
        """`labelled EXPR`: an option's label, worked out in the choosing frame with the option
        in the choice's slot (put back after)."""
        label = self.compiler.function(self.code_of(node, scope).code)

        def describe(st, value):
            slots = st.frames[-1][2]
            before, slots[slot] = slots[slot], value
            try:
                text = label(st, slots)
            finally:
                slots[slot] = before
            return text if text.__class__ is str else shown(text)

        describe.slots_used = label.slots_used  # for rulelang.liveness: it reads what the label reads
        describe.zones_read, describe.uses_counters = label.zones_read, label.uses_counters  # rulelang.faces
        return describe

    def _choose_several(self, stmt, scope):
        """`choose NAME from PIECES, LOW to HIGH of them`: a chain of single-piece choices (one
        decision each, with `done` once LOW are picked; see several.py); NAME gets the list.
        From players or values (`others, 2 of them`) alike: each step offers one of them."""
        self._hides_outer(stmt.var, scope, stmt, "choose")
        try:
            kind = self.code_of(stmt.options, Scope(scope)).kind
        except CompileError:  # the name is still declared: no second error where it is used
            if stmt.var not in scope.names:
                scope.names[stmt.var] = (f"fr[{self.slots.new(stmt.var)}]", "pieces")
            raise
        self.compiler.prelude = []
        of_values = kind in ("players", "values")
        if (stmt.aloud or stmt.secretly) and not of_values:
            self._aloud_pieces(stmt)
        held = kind if of_values else "pieces"
        local = scope.names.get(stmt.var)
        if local is not None:
            self._same_kind(stmt.var, local[1], held, stmt)
        slot = int(local[0][3:-1]) if local is not None else self.slots.new(stmt.var)
        scope.names[stmt.var] = (f"fr[{slot}]", held)  # bound first: an error here is the only one
        self.slots.note(slot, held)
        if stmt.then is not None:
            self.error("E301", "a choice of several pieces cannot take a parameter (`then choose`)", stmt.then,
                       help="choose the pieces first, then make a second choice")
            raise CompileError
        if stmt.label is not None:
            self.error("E301", "a choice of several pieces names each piece; it takes no `labelled`", stmt.label,
                       help="remove `labelled ...`: each step offers one piece, shown by its name")
            raise CompileError
        if kind in ("subsets", "zonelist", "int", "str", "label", "bool", "player"):
            self.error("E201", f"a choice of several needs pieces, players or values, not {a_kind(kind)}",
                       stmt.options, help="choose from a zone, a list of players (`others, 2 of them`) or a list "
                       "of values (`[1, 2, 3], 1 to 2 of them`)")
            raise CompileError
        counts = []
        for node in (stmt.several.low or stmt.several.high, stmt.several.high):
            counted = self.code_of(node, scope)
            if counted.kind not in ("int", "any"):
                self.error("E201", f"a number of pieces needs a number, not {a_kind(counted.kind)}", node)
                raise CompileError
            counts.append(self.compiler.function(counted.code))
        low, high = counts
        if isinstance(stmt.several.low, n.Literal) and isinstance(stmt.several.high, n.Literal) and \
                stmt.several.low.value > stmt.several.high.value:
            self.error("E303", f"from {stmt.several.low.value} to {stmt.several.high.value} pieces is no number of "
                       "pieces", stmt.several, help="write the smaller number first")
            raise CompileError
        # the single pieces, for the condition and each step: NAME is one piece there
        options, _, pick, where = self._choice_part(stmt, Scope(scope), as_filter=True)
        # (the chain of values holds no piece a redeal would move)
        chain = self.slots.new("(several)", None if of_values else "several")

        chooser = self._chooser(stmt.chooser, scope)

        def begin(st, fr):
            pieces = options(st, fr)
            if where is not None:
                pieces = where(st, fr, pieces)
            if of_values:
                fr[chain] = several.start_values(pieces, low(st, fr), high(st, fr))
                return
            seat = st.player if chooser is None else st._seat(chooser(st, fr))
            fr[chain] = several.start(st, pieces, low(st, fr), high(st, fr), seat)

        def advance(st, fr):
            fr[chain] = several.take(fr[chain], fr[pick])

        def finish(st, fr):
            fr[slot] = list(fr[chain][2])

        def more(st, fr):
            return several.more(fr[chain])

        def options_left(st, fr):
            return several.options(fr[chain])

        def picked(st, fr):
            return list(fr[chain][2])

        def not_done(st, fr):
            return fr[pick] is not None

        # What each reads, for rulelang.faces and the analysis: the pieces offered are worked
        # out once, by `begin`; the steps after it read only the frame
        parts = [f for f in (options, where, chooser, low, high) if f is not None]
        begin.zones_read = frozenset().union(*(faces_read(f) for f in parts))
        begin.uses_counters = any(getattr(f, "uses_counters", True) for f in parts)
        for function in (advance, finish, more, options_left, picked, not_done):
            function.zones_read, function.uses_counters = frozenset(), False
        # What each reads and writes of the frame, for rulelang.liveness: the chain's state is
        # dead once the list is made, so the analysis merges states that chose alike
        used = [getattr(f, "slots_used", None) for f in parts]
        begin.slots_used = None if None in used else frozenset().union(*used)
        begin.slots_killed = frozenset((chain,))
        advance.slots_used, advance.slots_killed = frozenset((chain, pick)), frozenset()
        finish.slots_used, finish.slots_killed = frozenset((chain,)), frozenset((slot,))
        for function in (more, options_left, picked):
            function.slots_used = frozenset((chain,))
        not_done.slots_used = frozenset((pick,))
        for function in (begin, advance, finish):
            function.jumps = frozenset()  # each goes on at the next instruction

        element = SINGLE_FOR.get(kind, "any") if of_values else "piece"
        one_json = _jsoner(element)
        one_text = (lambda st, p: st.describe_piece(p)) if not of_values else _describer(element)
        otherwise = self.label() if stmt.otherwise is not None else None
        spec = {
            "options": options_left, "where": None, "slot": pick,
            "chooser": chooser, "prompt": stmt.prompt or f"choose {stmt.var}",
            "describe": lambda st, p: "done" if p is None else one_text(st, p),
            "to_json": lambda st, p: "done" if p is None else one_json(st, p), "otherwise": otherwise,
            "of_pieces": not of_values, "private": self.compiler.hidden_values.choice_private(stmt), "then": None,
            "several": True, "picked": picked, "aloud": stmt.aloud,
            "in_secret": self.compiler.hidden_values.decision_in_secret(stmt),
        }
        if of_values:
            spec["element"] = element
            if (spec["private"] or stmt.secretly) and not stmt.aloud:
                # how many were picked is part of what was chosen: the steps show to the chooser alone
                spec["in_secret"] = True
        end, done = self.label(), self.label()
        self.emit(m.OP_EXEC, begin)
        top = self.here()
        self.emit(m.OP_JUMP_IF_NOT, more, done)
        self.emit(m.OP_CHOOSE, spec)
        self.emit(m.OP_JUMP_IF_NOT, not_done, done)
        self.emit(m.OP_EXEC, advance)
        self.emit(m.OP_JUMP, top)
        self.place(done)
        self.emit(m.OP_EXEC, finish)
        if otherwise is not None:
            self.emit(m.OP_JUMP, end)
            self.place(otherwise)
            self.block(stmt.otherwise, Scope(scope))
        self.place(end)

    def _aloud_pieces(self, stmt) -> None:
        """E201: `aloud` or `secretly` on a choice that may be of pieces. What each seat knows of
        a piece follows where it lies; to show one, move it where everyone sees it."""
        if stmt.secretly:
            self.error("E201", "`secretly` is for a choice among values (numbers, labels, players); this one "
                       "may choose pieces", stmt, help="what each seat knows of a chosen piece follows where it "
                       "lies: choose from a zone only the chooser sees, or choose its number: "
                       "`choose n from market.number as \"PROMPT\" secretly`")
            raise CompileError
        self.error("E201", "`aloud` is for a choice among values (numbers, labels, players); this one "
                   "may choose pieces", stmt, help="to show a chosen piece to everyone, move it to a "
                   "public zone; or choose its number: `choose n from (hand of player).number aloud`")
        raise CompileError

    def _then_choose(self, stmt, scope, describe, to_json, first_is_piece: bool):
        """The parameter of a choice: its options are compiled with the first part's name in
        scope; the pairs are described as `first, prompt: parameter`, a piece the viewer
        cannot see by ``hidden(piece, part)`` where that is given (``State.action_to_string``)."""
        then = stmt.then
        if then.var == stmt.var:
            self.error("E102", f"`{then.var}` names both parts of the choice", then,
                       help="give the parameter a name of its own: `then choose n from ...`")
            raise CompileError
        self._hides_outer(then.var, scope, then, "choose")
        options, element, slot, where = self._choice_part(then, scope)
        second, second_json = _describer(element), _jsoner(element)
        about = f"{then.prompt}: " if then.prompt else ""

        second_is_piece = element == "piece"

        def describe_pair(st, pair, hidden=None):
            first = (hidden is not None and first_is_piece and hidden(pair[0], 0)) or describe(st, pair[0])
            if pair[1] is None:
                return first
            return f"{first}, {about}" + (
                (hidden is not None and second_is_piece and hidden(pair[1], 1)) or second(st, pair[1]))

        def pair_json(st, pair):
            return [to_json(st, pair[0]), None if pair[1] is None else second_json(st, pair[1])]

        return (m.ThenSpec(options, where, slot, second_is_piece),
                describe_pair, pair_json)

    def _s_ChooseBranch(self, stmt, scope):
        chooser = self._chooser(stmt.chooser, scope)
        end = self.label()
        branches = []
        index = self.emit(m.OP_BRANCH, None)
        always: dict[str, n.Node] = {}  # the labels of branches that are always open
        for branch in stmt.branches:
            if branch.cond is None and branch.once is None:
                if branch.label in always:
                    self.error("E102", f"two branches of this choice are labelled `{branch.label}`", branch,
                               help="give each branch a label of its own: the player, the log and scenarios "
                               "tell the options apart by them")
                always[branch.label] = branch
            cond = self._condition(branch.cond, scope) if branch.cond is not None else None
            target = self.label()
            once = self.compiler.new_once(branch.once) if branch.once is not None else None
            branches.append((branch.label, cond, target, once))
            self.place(target)
            self._span = branch.span
            self.block(branch.body, Scope(scope))
            self.jump(end)
        self.place(end)
        self.code[index][1] = (branches, chooser, stmt.prompt or "choose",
                               self.compiler.hidden_values.decision_in_secret(stmt))
        self._branches_into_hidden(stmt)

    def _branches_into_hidden(self, stmt) -> None:
        """W423: branches that set one counter not every seat sees to different values
        (`"stay": leaving of p = false`, `"leave": leaving of p = true`): every seat saw the
        label chosen, so the counter hides nothing."""
        set_to: dict[str, dict] = {}  # counter -> {value: the assignment}
        for branch in stmt.branches:
            for line in branch.body:
                if isinstance(line, n.Assign) and line.op == "=" and isinstance(line.value, n.Literal) \
                        and line.target.name in self.compiler.counters and line.target.key is None \
                        and self.compiler.counters[line.target.name].visibility != "public":
                    set_to.setdefault(line.target.name, {}).setdefault(
                        (line.value.value.__class__, line.value.value), (branch, line))
        for name, values in set_to.items():
            if len(values) < 2:
                continue
            visibility = self.compiler.counters[name].visibility
            (branch, line), *_ = values.values()
            labels = " or ".join(f"`{b.label}`" for b, _ in values.values())
            self.compiler.error(
                "W423", f"the branches {labels} set `{name}` apart, and they are chosen in the open: every seat "
                f"saw `{stmt.prompt or 'choose'}: {branch.label}` (or another label) in the trace, so the "
                f"`{visibility}` counter `{name}` hides nothing", line.value,
                help="to choose in secret, choose among the labels as values, then set the counter from the value: "
                f"`choose answer from [{', '.join(repr(b.label).replace(chr(39), chr(34)) for b, _ in values.values())}] "
                f"{'by ... ' if stmt.chooser is not None else ''}as \"{stmt.prompt or 'choose'}\" secretly`")

    def _s_May(self, stmt, scope):
        chooser = self._chooser(stmt.chooser, scope)
        end = self.label()
        once = self.compiler.new_once(stmt.once) if stmt.once is not None else None
        if once is not None:
            # A power already used is not offered at all: no decision to decline it.
            if chooser is None:
                def is_open(st, fr):
                    return st.once_open(once, st.player)
            else:
                def is_open(st, fr):
                    return st.once_open(once, chooser(st, fr))
            # what it reads, for rulelang.liveness and rulelang.faces: what the chooser reads
            for mark, nothing, unknown in (("slots_used", frozenset(), None), ("zones_read", frozenset(), None),
                                           ("uses_counters", False, True)):
                setattr(is_open, mark, nothing if chooser is None else getattr(chooser, mark, unknown))
            self.emit(m.OP_JUMP_IF_NOT, is_open, end)
        index = self.emit(m.OP_BRANCH, None)
        take = self.label()
        self.place(take)
        self.block(stmt.body, Scope(scope))
        self.place(end)
        self.code[index][1] = ([(stmt.label, None, take, once), ("decline", None, end, None)], chooser, stmt.label,
                               self.compiler.hidden_values.decision_in_secret(stmt))


# ---------------------------------------------------------------------- helpers


def _counter_read(node) -> str | None:
    """The counter a winner rule reads whole (`marked of player`, `marked`), or None."""
    if isinstance(node, n.Of):
        node = node.left
    return node.id if isinstance(node, n.Name) else None


def _doc_of(body: tuple) -> str:
    return body[0].text if body and isinstance(body[0], n.Doc) else ""


def _assigned_in(body, name: str) -> bool:
    """Whether a statement of ``body`` (or a block inside one) gives the variable ``name`` a
    value with `=`."""
    return any(isinstance(node, n.Assign) and node.op == "=" and node.target.name == name and
               node.target.owner is None and not (isinstance(node.value, n.Literal) and node.value.value is None)
               for node in walk(tuple(body)))


def _depth(stmt) -> tuple[int, int]:
    """How deep the Python blocks of ``stmt`` would nest: in all (an `elif` may nest one more),
    and in loops."""
    if isinstance(stmt, n.If):
        blocks = [body for _, body in stmt.branches] + [stmt.otherwise]
        inner = [_depth(s) for body in blocks for s in body] or [(0, 0)]
        return len(stmt.branches) + max(d for d, _ in inner), max(loops for _, loops in inner)
    if isinstance(stmt, (n.Repeat, n.While, n.ForEach, n.Rule)):
        inner = [_depth(s) for s in stmt.body] or [(0, 0)]
        loop = not isinstance(stmt, n.Rule)
        return loop + max(d for d, _ in inner), loop + max(loops for _, loops in inner)
    return 0, 0


def _describe_stmt(stmt) -> str:
    return {"Extends": "`extends`", "GameDecl": "`game`"}.get(type(stmt).__name__, type(stmt).__name__)


def compile_game(tree: n.RulesFile, options: dict[str, Any] | None = None,
                 limits: Limits = DEFAULT) -> tuple[m.GameDef | None, list[Diagnostic]]:
    """Compile a merged syntax tree; returns the definition (None on errors) and diagnostics."""
    too_many = declarations_problem(tree, limits)
    if too_many is not None:
        return None, [too_many]
    compiler = Compiler(tree, options or {}, limits)
    try:
        game = compiler.compile()
    except (TooDeep, RecursionError):
        return None, compiler.diagnostics + [Diagnostic(
            "E304", "an expression is nested too deeply to compile", tree.span,
            help="split it with `define` or `let`")]
    return game, compiler.diagnostics


def declarations_problem(tree: n.RulesFile, limits: Limits = DEFAULT) -> Diagnostic | None:
    """E604 when a file, variants merged, has more declarations than the limit."""
    if len(tree.items) <= limits.declarations:
        return None
    return Diagnostic("E604", f"the game has {len(tree.items)} declarations, more than the limit of "
                      f"{limits.declarations}", tree.items[limits.declarations].span,
                      help="if the game really needs this many, raise the limit with "
                      f"`--limit declarations={len(tree.items)}`")


def _describer(element: str):
    if element == "piece":
        return lambda st, p: st.describe_piece(p, where=True)
    if element == "pieces":
        return lambda st, ps: st.describe_group(ps)
    if element == "player":
        return lambda st, p: f"player {p + 1}"
    if element == "zone":
        return lambda st, z: st.zone_name(z)
    return lambda st, v: shown(v) if v.__class__ is tuple or v is None else str(v)


def _jsoner(element: str):
    if element == "piece":
        return lambda st, p: st.piece_json(p)
    if element == "pieces":
        return lambda st, ps: [st.piece_json(p) for p in ps]
    if element == "player":
        return lambda st, p: {"seat": p}
    if element == "zone":
        return lambda st, z: {"zone": st.zone_name(z)}
    return lambda st, v: v


def _final_target(code: list, target: int) -> int:
    """Where a jump to ``target`` ends, past jumps to jumps."""
    seen = set()
    while target < len(code) and code[target][0] == m.OP_JUMP and target not in seen:
        seen.add(target)
        target = code[target][1]
        target = target[0] if isinstance(target, list) else target
    return target


def _thread_jumps(code: list[tuple]) -> list[tuple]:
    """Point every jump straight at its final target, past jumps to jumps."""

    def final(target: int) -> int:
        return _final_target(code, target)

    threaded = []
    for op, a, b, rule in code:
        if op == m.OP_JUMP:
            a = final(a)
        elif op == m.OP_JUMP_IF_NOT:
            b = final(b)
        elif op == m.OP_BRANCH:
            a = m.BranchSpec(tuple((label, cond, final(t), once) for label, cond, t, once in a.branches),
                             a.chooser, a.prompt, a.in_secret)
        threaded.append((op, a, b, rule))
    return threaded


def _second_written(decl: n.Node, key) -> n.Node:
    """Where ``decl``'s list of keys writes ``key`` a second time, or once where a range
    lists it too (the caret of E303); else the whole declaration."""
    span = decl.span
    if span is None:
        return decl
    text = re.sub(r'#.*|"[^"]*"', lambda m: m.group() if m.group()[0] == '"' else " " * len(m.group()),
                  span.source.text[span.start:span.end])  # (comments blanked, strings kept)
    listed = re.search(r"\bfor\s+each\s+\w+\s+in\b", text)
    if listed is None:
        return decl
    word = re.escape(str(key).strip('"'))
    found = [m for m in re.finditer(rf'(?<![\w"]){word}(?![\w"])|"{word}"', text[listed.end():])]
    if not found:
        return decl
    again = found[min(1, len(found) - 1)]  # written once: a range lists it too
    at = span.start + listed.end() + again.start()
    return n.Pass(span=Span(span.source, at, at + len(again.group())))


class _BoundNotANumber(Exception):
    def __init__(self, range_: n.OptionRange, name: str, value):
        self.range, self.name, self.value = range_, name, value


def _generator_values(generator: n.Generator, given: dict, most: int | None = None) -> list:
    """The values of `each NAME in ...`, its ranges that start or end at an earlier `each`'s
    value (``given``) worked out for that value; at most ``most`` of them from one range (a
    count past the pieces limit only needs to go past it)."""
    if not any(isinstance(v, n.OptionRange) for v in generator.values):
        return list(generator.values)
    made: list = []
    for item in generator.values:
        if not isinstance(item, n.OptionRange):
            made.append(item)
            continue
        bounds = []
        for bound in (item.low, item.high):
            value = given.get(bound, bound) if bound.__class__ is str else bound
            if value.__class__ is not int:
                raise _BoundNotANumber(item, bound, value)
            bounds.append(value)
        high = bounds[1] if most is None else min(bounds[1], bounds[0] + most - 1)
        made.extend(range(bounds[0], high + 1))
    return made


def _generated(generators: tuple, most: int | None = None) -> Iterator[dict]:
    """Each piece's values of `one for each A in ... and each B in ...`, in order (the last
    `each` changing fastest), a range of a later `each` worked out for the earlier values
    (``most``: see ``_generator_values``)."""
    if not generators:
        yield {}
        return

    def deeper(k: int, given: dict) -> Iterator[dict]:
        if k == len(generators):
            yield dict(given)
            return
        for value in _generator_values(generators[k], given, most):
            given[generators[k].name] = value
            yield from deeper(k + 1, given)
        given.pop(generators[k].name, None)

    yield from deeper(0, {})


def _generated_count(generators: tuple, most: int) -> int:
    """How many pieces the generators make, counted up to ``most``."""
    if all(not isinstance(v, n.OptionRange) for g in generators for v in g.values):
        made = 1
        for generator in generators:
            made *= len(generator.values)
        return made
    made = 0
    try:
        for _ in _generated(generators, most):
            made += 1
            if made >= most:
                break
    except _BoundNotANumber:
        pass  # (reported when the pieces are made)
    return made
