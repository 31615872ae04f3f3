"""The syntax tree: one frozen class per grammar rule; spans never take part in equality."""

from __future__ import annotations

from typing import Any

import attrs

from .source import Span


def _span() -> Any:
    return attrs.field(default=None, eq=False, repr=False, kw_only=True)


@attrs.frozen
class Node:
    """Base of every syntax node; ``span`` says where in which file it was written."""

    span: Span | None = _span()


# ---------------------------------------------------------------- expressions


@attrs.frozen
class Literal(Node):
    """A number, string, true/false, none, or ``empty`` (the empty collection)."""

    value: Any


@attrs.frozen
class EmptyLiteral(Node):
    """``empty``: the empty collection, as in ``cup is empty``."""


@attrs.frozen
class Name(Node):
    """A bare name: a zone, kind, option, counter, variable, face label or built-in."""

    id: str


@attrs.frozen
class Attribute(Node):
    """``obj.name``: an attribute of a piece, or of each piece of a collection."""

    obj: Node
    name: str


@attrs.frozen
class MethodCall(Node):
    """``obj.name(args)``: a table column with parameters, worked out for a piece."""

    obj: Node
    name: str
    args: tuple[Node, ...]


@attrs.frozen
class Call(Node):
    """``func(args...)``: a built-in function or a ``define``."""

    func: str
    args: tuple[Node, ...]


@attrs.frozen
class Index(Node):
    """``obj[i]``: the i-th item (0-based) of a collection."""

    obj: Node
    index: Node


@attrs.frozen
class Of(Node):
    """``left of right``: a per-player zone or counter of a player (or of each of several)."""

    left: Node
    right: Node


@attrs.frozen
class Filter(Node):
    """``source where cond``: the items of source for which cond holds (cond sees their attributes)."""

    source: Node
    cond: Node


@attrs.frozen
class Conditional(Node):
    """``then if cond else otherwise``."""

    then: Node
    cond: Node
    otherwise: Node


@attrs.frozen
class BoolOp(Node):
    """``left and right`` / ``left or right``."""

    op: str
    left: Node
    right: Node


@attrs.frozen
class Not(Node):
    operand: Node


@attrs.frozen
class Negate(Node):
    operand: Node


@attrs.frozen
class Compare(Node):
    """A comparison: ``== != < <= > >= in, not in, is, is not``."""

    op: str
    left: Node
    right: Node


@attrs.frozen
class Binary(Node):
    """Arithmetic (``+ - * / %``); ``+`` also joins collections."""

    op: str
    left: Node
    right: Node


@attrs.frozen
class ListExpr(Node):
    items: tuple[Node, ...]


@attrs.frozen
class TupleExpr(Node):
    """``(a, b)``: a tuple, one value made of several, compared and shown as a whole."""

    items: tuple[Node, ...]


# ---------------------------------------------------------------- statements


@attrs.frozen
class Rule(Node):
    """``rule name: ...``: a named rule; every event its statements cause carries its name."""

    name: str
    body: tuple[Node, ...]


@attrs.frozen
class Roll(Node):
    """``roll dice``: a chance node rolling every die of a zone or collection."""

    dice: Node


@attrs.frozen
class Draw(Node):
    """``draw [up to] [count] from zone to zone``: chance nodes, each moving one piece of the
    source, picked at random (every piece there equally likely), to the target."""

    count: Node | None
    source: Node
    to: Node
    up_to: bool = False  # `draw up to N`: as many as the source holds, if fewer


@attrs.frozen
class Shuffle(Node):
    """``shuffle zone``: the zone's pieces in a uniformly random order (chance nodes)."""

    zone: Node


@attrs.frozen
class Say(Node):
    """``say A, B, ...``: a line of the trace, its parts written one after the other as
    ``text(A, B, ...)`` writes them."""

    parts: tuple[Node, ...]


@attrs.frozen
class Tally(Node):
    """``tally name [by key]``: count an outcome for statistics; play does not change."""

    name: str
    key: Node | None = None


@attrs.frozen
class Move(Node):
    """``move what to zone [at bottom|at top]``."""

    what: Node
    to: Node
    place: str | None = None


@attrs.frozen
class Create(Node):
    """``create [count] kind in zone``: new pieces (all of a kind's generated pieces without count)."""

    count: Node | None
    kind: str
    into: Node


@attrs.frozen
class Let(Node):
    """``let name = value``: a new variable of the section being run."""

    name: str
    value: Node


@attrs.frozen
class Target(Node):
    """What an assignment changes: a variable or counter, optionally ``of`` a player."""

    name: str
    owner: Node | None = None
    key: Node | None = None  # `climbed[c] of player`: one entry of a counter with keys


@attrs.frozen
class Assign(Node):
    """``target = value``, ``target += value``, ``target -= value``."""

    target: Target
    op: str
    value: Node


@attrs.frozen
class Break(Node):
    """``break``: leave the innermost ``repeat``, ``while`` or ``for each``."""


@attrs.frozen
class Pass(Node):
    """``pass``: do nothing."""


@attrs.frozen
class EndTurn(Node):
    """``end turn``: the current turn ends at once."""


@attrs.frozen
class AnotherTurn(Node):
    """``player takes another turn``: when this turn ends, its player takes the next one too."""


@attrs.frozen
class EndGame(Node):
    """``end game``: the game ends at once; the winner rules decide."""


@attrs.frozen
class Do(Node):
    """``do procedure`` or ``do procedure(arguments)``; ``args`` is None without brackets."""

    name: str
    args: tuple[Node, ...] | None = None


@attrs.frozen
class TakeTurns(Node):
    """``each player takes a turn[, starting with START]``: every player who is not out, in
    seat order from ``start`` (None: seat 0) on, runs the ``turn`` section."""

    start: Node | None = None


@attrs.frozen
class Reveal(Node):
    """``reveal pieces to player``: one player sees pieces wherever they lie; the others see that
    they did."""

    pieces: Node
    to: Node


@attrs.frozen
class GiveTurn(Node):
    """``give a turn to WHO``: one turn for one player, who runs the ``turn`` section (none if
    they are out)."""

    who: Node


@attrs.frozen
class Eliminate(Node):
    """``eliminate players``: a player, or a collection of players, is out for the rest of the
    game, until ``bring back players`` (``back``) puts them in again."""

    players: Node
    back: bool = False


@attrs.frozen
class Doc(Node):
    """A string on its own line: the rule's description."""

    text: str


@attrs.frozen
class GameEnds(Node):
    """``game ends [after a round | after a last turn for the others | ... for everyone] when
    cond`` (in the ``end`` section); ``after`` is None, "round", "last turns" or "last turns all"."""

    cond: Node
    after: str | None = None

    @property
    def after_round(self) -> bool:
        return self.after == "round"


@attrs.frozen
class Criterion(Node):
    """``most expr`` / ``least expr`` (in the ``winner`` section), evaluated for each ``player``;
    direction ``nobody`` for ``nobody wins when cond``, evaluated once."""

    direction: str
    value: Node


@attrs.frozen
class If(Node):
    """``if``/``elif``/``else``: ``branches`` holds (condition, body) pairs."""

    branches: tuple[tuple[Node, tuple[Node, ...]], ...]
    otherwise: tuple[Node, ...] = ()


@attrs.frozen
class Repeat(Node):
    """``repeat:``: run the body again and again until ``break``."""

    body: tuple[Node, ...]


@attrs.frozen
class While(Node):
    cond: Node
    body: tuple[Node, ...]


# The variable of a `deal`'s loop over the players (rulelang.parser): a name no rule can write.
DEALT_TO = "(dealt to)"


@attrs.frozen
class ForEach(Node):
    """``for each name in items:``."""

    var: str
    items: Node
    body: tuple[Node, ...]


@attrs.frozen
class Choose(Node):
    """``choose name from options [where cond] [by player] [as "prompt"] [then choose ...]``
    + ``otherwise:``."""

    var: str
    options: Node
    where: Node | None = None
    chooser: Node | None = None
    prompt: str | None = None
    otherwise: tuple[Node, ...] | None = None
    then: ThenChoose | None = None  # a choice with a parameter: one decision over the pairs
    label: Node | None = None  # `labelled EXPR`: what each option shows, worked out with the option named
    several: Several | None = None  # a choice of several pieces, one decision per piece
    aloud: bool = False  # `aloud`: every seat sees what was chosen
    secretly: bool = False  # `secretly`: only the chooser sees what was chosen


@attrs.frozen
class Several(Node):
    """``, N of them``, ``, LOW to HIGH of them`` or ``, up to HIGH of them`` after ``choose
    name from pieces``: how many pieces the choice takes (``low`` None: as many as ``high``)."""

    high: Node
    low: Node | None = None
    up_to: bool = False


@attrs.frozen
class ThenChoose(Node):
    """``then choose name from options [where cond] [as "prompt"]``: the parameter of a choice,
    its options worked out for each option of the first part."""

    var: str
    options: Node
    where: Node | None = None
    prompt: str | None = None


@attrs.frozen
class Branch(Node):
    """One labelled option of ``choose:``, offered only when its condition holds."""

    label: str
    cond: Node | None
    body: tuple[Node, ...]
    once: str | None = None  # "turn", "round" or "game": closed after it is chosen, until the next


@attrs.frozen
class ChooseBranch(Node):
    """``choose [by player] [as "prompt"]:`` with labelled branches."""

    branches: tuple[Branch, ...]
    chooser: Node | None = None
    prompt: str | None = None


@attrs.frozen
class May(Node):
    """``may "LABEL" [once per turn] [by player]:``: an optional action, taken or declined."""

    label: str
    body: tuple[Node, ...]
    once: str | None = None
    chooser: Node | None = None


@attrs.frozen
class When(Node):
    """``when move [from Z] [to Z] [if C] [instead]:`` or ``when do PROCEDURE [if C]:``:
    the event of a triggered rule and what happens then."""

    event: str  # "move" or "do"
    body: tuple[Node, ...]
    source: Node | None = None
    to: Node | None = None
    procedure: str | None = None
    cond: Node | None = None
    instead: bool = False
    procedure_span: Span | None = _span()  # the procedure's name in `when do NAME`
    instead_span: Span | None = _span()  # the word `instead`


# ---------------------------------------------------------------- declarations


@attrs.frozen
class Extends(Node):
    """``extends "base.rules"``: this file is a variant of another."""

    path: str


@attrs.frozen
class GameDecl(Node):
    """``game "Name":`` with the player range, turn limit and description."""

    name: str
    min_players: int | None = None
    max_players: int | None = None
    turn_limit: int | None = None
    doc: tuple[str, ...] = ()
    players_span: Span | None = _span()  # the `players` line, where a diagnostic of the range points
    turns_span: Span | None = _span()  # the `at most N turns` line
    team_size: int | None = None  # `teams of N`: players in teams of N, partners sitting apart
    teams_span: Span | None = _span()  # the `teams of N` line


@attrs.frozen
class OptionDecl(Node):
    """``option name = default [in LOW to HIGH]`` with a description: a setting the command
    line can change, a number option within its range when it has one."""

    name: str
    default: Any
    doc: tuple[str, ...] = ()
    bounds: tuple[int, int] | None = None


@attrs.frozen
class Face(Node):
    """One face of a die: its label and value (a number label is its own value)."""

    label: Any
    value: int | None = None


@attrs.frozen
class OptionRange(Node):
    """``A to B`` in a declaration where a bound names an option (``1 to tokens``): worked out
    when the game is compiled with its option values (``rulelang.compiler``)."""

    low: int | str
    high: int | str
    what: str  # "faces" (a die's), or "values" (a `one for each`, a counter's keys)

    def __str__(self) -> str:
        return f"{self.low} to {self.high}"


@attrs.frozen
class AttrDecl(Node):
    """``name = expr``: an attribute of a component, computed from its other attributes."""

    name: str
    value: Node


@attrs.frozen
class DieDecl(Node):
    """``die name:``: a kind of die with its faces and attributes."""

    name: str
    faces: tuple[Face, ...]
    attrs: tuple[AttrDecl, ...] = ()


@attrs.frozen
class Generator(Node):
    """``each name in values``: one dimension of a piece kind's set of pieces."""

    name: str
    values: tuple[Any, ...]


@attrs.frozen
class TableColumn(Node):
    """A column of a table: a plain one holds a value, one with ``params`` an expression."""

    name: str
    params: tuple[str, ...] | None = None

    @property
    def is_copies(self) -> bool:
        """A plain column named `count`: how many alike pieces each line makes, not an attribute."""
        return self.name == "count" and self.params is None


@attrs.frozen
class TableRow(Node):
    """One line of a table: one cell per column; it makes one piece."""

    cells: tuple[Node, ...]


@attrs.frozen
class Table(Node):
    """``table col, col(params), ...:`` and its rows, one piece each."""

    columns: tuple[TableColumn, ...]
    rows: tuple[TableRow, ...]


@attrs.frozen
class PieceDecl(Node):
    """``tile|card|token|piece name:``: a kind of piece, its pieces and attributes."""

    category: str
    name: str
    generators: tuple[Generator, ...] = ()
    count: int | None = None
    attrs: tuple[AttrDecl, ...] = ()
    limit: int | None = None  # `limit N per player`: no player holds more than N of them
    limit_span: Span | None = _span()
    table: Table | None = None  # `table ...:`: one piece per row


@attrs.frozen
class ZoneDecl(Node):
    """``zone name: owner kind [sorted by attr] visibility``."""

    name: str
    per_player: bool
    kind: str
    visibility: str
    sort_key: str | None = None
    shows: str | None = None  # an attribute shown beside each piece on the board
    per_piece: str | None = None  # `per KIND`: one zone for each piece of a kind or category
    keys: tuple = ()  # `for each KEY in ...`: one zone per key (numbers or labels), in order
    problems: tuple[str, ...] = ()  # contradictions found while reading it (two kinds...)


@attrs.frozen
class CounterDecl(Node):
    """``counter name: shared|per player = initial[, visibility]``."""

    name: str
    per_player: bool
    initial: Node
    visibility: str = "public"  # `public`, `owner only` (per player) or `hidden`
    keys: tuple = ()  # `for each KEY in ...`: one value per key (numbers or labels), in order
    key_name: str | None = None  # the key's name, which the initial value may read


@attrs.frozen
class DefineDecl(Node):
    """``define name(params) = expr``: a named expression."""

    name: str
    params: tuple[str, ...] | None
    value: Node


@attrs.frozen
class Section(Node):
    """``setup:``, ``round:``, ``turn:``, ``end:`` or ``winner:``, holding rules."""

    kind: str
    body: tuple[Node, ...]


@attrs.frozen
class ProcedureDecl(Node):
    """``procedure name[(params)]:``: statements run by ``do name`` or ``do name(args)``."""

    name: str
    body: tuple[Node, ...]
    params: tuple[str, ...] = ()


@attrs.frozen
class InvariantDecl(Node):
    """``invariant name: cond``: must hold after every step; checked by tests and ``--check``."""

    name: str
    cond: Node


@attrs.frozen
class ShowDecl(Node):
    """``show name: value`` (or ``show name per player: value``): a value worked out for the
    board, shown to whoever may see everything it reads."""

    name: str
    value: Node
    per_player: bool = False


@attrs.frozen
class ReplaceRule(Node):
    """``replace rule name:`` (in a variant): a new body for a base rule."""

    name: str
    body: tuple[Node, ...]


@attrs.frozen
class RemoveRule(Node):
    """``remove rule name`` (in a variant)."""

    name: str


@attrs.frozen
class AddRule(Node):
    """``add rule name before|after anchor:`` (in a variant)."""

    name: str
    place: str
    anchor: str
    body: tuple[Node, ...]


@attrs.frozen
class RulesFile(Node):
    """A parsed ``.rules`` file: its declarations in order."""

    path: str
    items: tuple[Node, ...]
