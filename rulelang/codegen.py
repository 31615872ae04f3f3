"""Expressions to Python source: each rules expression becomes one Python expression over the
state ``st`` and the frame ``fr``, so that evaluating it is a single call with no tree walking.

Nothing from the rules text reaches the generated source as text: names are resolved to
integers, and every constant that is not a plain int, bool or None goes through the constant
table ``K`` (Jinja2's discipline)."""

from __future__ import annotations

import itertools
import operator
import re
from typing import Any

import attrs

from . import nodes as n
from .diagnostics import did_you_mean, similar_names
from .engine_values import SEE_PIECES, _named, _value_text, keys_text, seats_text, shown
from .limits import LimitExceeded

NUMERIC = {"int", "bool"}
# "zones" is the pieces of several zones (`stack of players`); "zonelist" is a list of zones
# themselves (`[row_1, row_2]`), whose items are zones.
COLLECTIONS = {"pieces", "zone", "zones", "values", "players", "subsets", "zonelist"}
SINGLE_FOR = {"pieces": "piece", "zone": "piece", "zones": "piece", "values": "any",
              "players": "player", "subsets": "pieces", "zonelist": "zone"}
BUILTIN_NAMES = ("player", "players", "others", "remaining", "turn_order", "round_number", "turn_number",
                 "player_count", "it")
FUNCTIONS = ("count", "sum", "max", "min", "highest", "lowest", "top", "bottom", "first", "last",
             "distinct", "subsets", "any", "all", "seat", "abs", "sorted", "owner", "position", "runs", "pairs",
             "range", "keys", "product", "text", "team", "partners", "players_after", "starting_with")
DYNAMIC = ("face", "value", "number")
MAX_SUBSETS = 50_000


@attrs.frozen
class _Keyed:
    """What ``counter_key`` reads of a declaration with keys."""

    name: str
    keys: tuple


class CompileError(Exception):
    """Raised to abandon one expression after its diagnostic was recorded."""


class TooDeep(Exception):
    """An expression nested deeper than Python can compile."""


@attrs.frozen
class Expr:
    """Generated Python source of an expression, its rules type, and whether it is never None."""

    code: str
    kind: str
    safe: bool = False


class Scope:
    """Local names: name -> (code, type); and the item a filter is testing, as (code, type)."""

    def __init__(self, parent: Scope | None = None, element: tuple[str, str] | None = None):
        self.parent = parent
        self.names: dict[str, tuple[str, str]] = {}
        self.element = element if element is not None else (parent.element if parent else None)
        # a table cell's own row, its plain columns by name: read where no variable has the
        # name and, inside a condition about pieces, no attribute of the item either
        self.row: dict[str, tuple[str, str]] = parent.row if parent else {}

    def lookup(self, name: str) -> tuple[str, str] | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def retype(self, name: str, kind: str) -> None:
        """A variable's type from now on, in the scope that declares it."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                scope.names[name] = (scope.names[name][0], kind)
                return
            scope = scope.parent

    def all_names(self) -> list[str]:
        names, scope = [], self
        while scope is not None:
            names.extend(scope.names)
            scope = scope.parent
        return names


class Slots:
    """Allocates frame slots for one procedure."""

    def __init__(self):
        self.names: list[str] = []
        self.kinds: dict[int, set[str]] = {}  # slot: the types of the values it is given

    def new(self, name: str, kind: str | None = None) -> int:
        self.names.append(name)
        if kind is not None:
            self.note(len(self.names) - 1, kind)
        return len(self.names) - 1

    def note(self, slot: int, kind: str) -> None:
        """Record that ``slot`` is given a value of type ``kind``."""
        self.kinds.setdefault(slot, set()).add(kind)

    def piece_kinds(self) -> tuple[str | None, ...]:
        """For each slot: "piece" or "pieces" where it only ever holds pieces (or none), the
        holders of a loop's or a choice of several's pieces as noted, else None. A
        determinization redeals hidden pieces, and what such a slot holds goes with them."""
        kinds = []
        for slot in range(len(self.names)):
            given = self.kinds.get(slot, set()) - {"none"}
            kinds.append(next(iter(given)) if len(given) == 1 and given <= _PIECE_HOLDERS else None)
        return tuple(kinds)


_PIECE_HOLDERS = frozenset(("piece", "pieces", "for pieces", "several"))


class TableCell:
    """A cell of a table column with parameters, held in its piece's attribute column: ``index``
    is its place among the column's cells, in the functions each call compiles for them."""

    __slots__ = ("column", "arity", "index")

    def __init__(self, column: str, arity: int, index: int):
        self.column, self.arity, self.index = column, arity, index

    def __repr__(self) -> str:
        return f"<{self.column}({self.arity})>"


# ---------------------------------------------------------------------- runtime helpers
# Generated code calls these; they are the only functions it can see besides builtins.

def _lt(a, b):
    return a is not None and b is not None and a < b


def _le(a, b):
    return a is not None and b is not None and a <= b


def _gt(a, b):
    return a is not None and b is not None and a > b


def _ge(a, b):
    return a is not None and b is not None and a >= b


_ONLY_INT = frozenset({int})


def _total(values) -> int:
    if _ONLY_INT.issuperset(map(type, values)):  # the usual case, summed without a Python loop
        return sum(values)
    _no_groups("sum", values)
    return sum(v for v in values if v.__class__ is int)


def _no_groups(name: str, values) -> None:
    """A list or a pair among the items of `sum`, `max` or `min` is a fault, not nothing: it is
    skipped only where it is none, a label or true/false (a list of groups was meant to be added)."""
    for v in values:
        if v.__class__ is list or v.__class__ is tuple:
            raise TypeError(f"`{name}` works on numbers, and one of its items is a list or a pair; "
                            f"name the number to take from each item: `{name}(C, X)`")


def _is_number(value) -> bool:
    return value.__class__ is int


def _extreme(pick, values):
    """The greatest or least number of ``values``; as `sum` does, it skips `none`, labels and
    true/false (none when no number is left)."""
    if not _ONLY_INT.issuperset(map(type, values)):
        _no_groups(pick.__name__, values)
        values = list(filter(_is_number, values))
    return pick(values) if values else None


def _extreme_item(best, pairs):
    """The item with the greatest (or least) key among (key, item) pairs; the first on ties."""
    keys = list(map(_first_of_pair, pairs))
    if None not in keys:
        if not keys:
            return None
        try:
            return pairs[keys.index(max(keys) if best else min(keys))][1]
        except TypeError:  # labels among numbers: their items count as having no key
            pass
    mixed = not all(_is_number(key) for key in keys if key is not None)
    found, found_key = None, None
    for key, item in pairs:
        if key is None or (mixed and key.__class__ is not int):
            continue
        if found_key is None or (key > found_key if best else key < found_key):
            found, found_key = item, key
    return found


def _extreme_piece(best, st, pieces):
    """The highest (or lowest) piece by its number, or by the value it shows when it has none;
    the first on ties."""
    keys = list(map(st.dynamic[2].__getitem__, pieces))
    if None in keys:
        values = st.dynamic[1]
        keys = [values[p] if key is None else key for key, p in zip(keys, pieces)]
        if None in keys:
            return _extreme_item(best, list(zip(keys, pieces)))
    if not keys:
        return None
    return pieces[keys.index(max(keys) if best else min(keys))]


def _extreme_sorted(best, st, pieces):
    """``_extreme_piece`` of pieces in the order of their numbers (a zone sorted by `number`, or
    some of its pieces in its order): the highest is the first of those at the end with the last
    one's number, the lowest the first piece."""
    if not pieces:
        return None
    numbers = st.dynamic[2]
    if not best:  # (numbers sort before text and none: a first piece that has none has no number)
        return pieces[0] if numbers[pieces[0]].__class__ is int else _extreme_piece(best, st, pieces)
    k = len(pieces) - 1
    last = numbers[pieces[k]]
    if last.__class__ is not int:
        return _extreme_piece(best, st, pieces)
    while k and numbers[pieces[k - 1]] == last:
        k -= 1
    return pieces[k]


def _keep(cell: list, value):
    """A define's value, kept for the rest of a statement function (``cell[0]``)."""
    cell[0] = value
    return value


def _top(items):
    return items[-1] if items else None


def _bottom(items):
    return items[0] if items else None


def _owner(st, piece):
    return None if piece is None else st.zone_of(st.where[piece])[1]


def _sorted(pairs):
    """Items of (key, item) pairs by key, smallest first; items without a key last; stable. Among
    numbers, an item whose key is a label counts as having no key."""
    if _ONLY_INT.issuperset(map(type, map(_first_of_pair, pairs))):  # the usual case: numbers only
        return [item for key, item in sorted(pairs, key=_first_of_pair)]
    try:
        return [item for key, item in sorted(pairs, key=lambda pair: (pair[0] is None, pair[0] or 0))]
    except TypeError:
        return [item for key, item in sorted(pairs, key=lambda pair: (pair[0].__class__ is not int,
                                                                       pair[0] if pair[0].__class__ is int else 0))]


def _sorted_column(column, pieces):
    """``_sorted`` of the pieces keyed by their place in ``column`` (`sorted(C, number)`),
    without making the pairs when every key is a number."""
    keys = list(map(column.__getitem__, pieces))
    if _ONLY_INT.issuperset(map(type, keys)):
        return sorted(pieces, key=column.__getitem__)
    return _sorted(list(zip(keys, pieces)))


def _remaining(st):
    """The players not out, in seat order."""
    out = st.out
    return [p for p in range(st.n) if p not in out] if out else list(range(st.n))


def _turn_order(st):
    """The players not out, in the order of the latest `each player takes a turn`."""
    out, first, n = st.out, st.first_player, st.n
    return [(first + i) % n for i in range(n) if (first + i) % n not in out]


def _usable(keys):
    """Which keys of one column rank: not none and, where numbers are among them, numbers
    only (a label among numbers counts as no key, as `sum` skips it)."""
    present = [k for k in keys if k is not None]
    numbers = sum(1 for k in present if k.__class__ is int)
    if numbers and numbers < len(present):
        return [k.__class__ is int for k in keys]
    try:
        sorted(present)
    except TypeError:  # labels and true/false: neither ranks
        return [k.__class__ is int for k in keys]
    return [k is not None for k in keys]


def _ranked_item(best, rows):
    """The item with the greatest (or least) first key among (keys, item) rows, ties broken by
    the next key, and so on; the first in order when still tied. Items whose first key does not
    rank are left out (none when no item is left); at a later key, a tied item whose key does not
    rank loses to one whose key does, and when none of them has one, they stay tied."""
    candidates = rows
    for column in range(len(rows[0][0]) if rows else 0):
        usable = _usable([keys[column] for keys, _ in candidates])
        kept = [row for row, ranks in zip(candidates, usable) if ranks]
        if not kept:
            if column == 0:
                return None
            continue
        target = (max if best else min)(keys[column] for keys, _ in kept)
        candidates = [row for row in kept if row[0][column] == target]
        if len(candidates) == 1:
            break
    return candidates[0][1] if candidates else None


def _sorted_keys(rows):
    """Items of (keys, item) rows ordered by the first key, then the next...; smallest first,
    an item whose key does not rank (none; a label among numbers) after those whose key does;
    equal keys keep their order."""
    if not rows:
        return []
    columns = [_usable([keys[c] for keys, _ in rows]) for c in range(len(rows[0][0]))]
    order = sorted(range(len(rows)), key=lambda r: tuple(
        (False, rows[r][0][c]) if columns[c][r] else (True, 0) for c in range(len(columns))))
    return [rows[r][1] for r in order]


def _get(column, piece):
    return None if piece is None else column[piece]


def _compact(*values):
    return [v for v in values if v is not None]


def _at(items, index):
    if index.__class__ is not int:
        raise ValueError(f"an index in `[...]` needs a number, not {_named(index)}")
    return items[index] if -len(items) <= index < len(items) else None


def _team(st, seat, others: bool) -> list[int]:
    """`team(p)`: the players of p's team (`teams of N`), in seat order, p among them; without
    teams, p alone. ``others`` (`partners(p)`): without p."""
    if seat.__class__ is not int or not 0 <= seat < st.n:
        raise ValueError(f"`{'partners' if others else 'team'}` needs a player, not {_value_text(seat)}")
    return [p for p in st.game.team(seat, st.n) if not (others and p == seat)]


def _players_after(st, seat) -> list[int]:
    """`players_after(p)`: the players still in (not out) in seat order from the one after p
    round to the one before it; p is not among them."""
    if seat.__class__ is not int or not 0 <= seat < st.n:
        raise ValueError(f"`players_after` needs a player, not {_value_text(seat)}")
    out, n = st.out, st.n
    return [q for q in ((seat + i) % n for i in range(1, n)) if q not in out]


def _starting_with(st, items, seat) -> list[int]:
    """`starting_with(C, p)`: the players of C in seat order round the table from p (p first
    when it is one of them), each once."""
    if seat.__class__ is not int or not 0 <= seat < st.n:
        raise ValueError(f"`starting with` needs a player, not {_value_text(seat)}")
    members = set()
    for q in items:
        if q.__class__ is not int or not 0 <= q < st.n:
            raise ValueError(f"`starting with` puts players in seat order; {_value_text(q)} is not a player")
        members.add(q)
    n = st.n
    return [q for q in ((seat + i) % n for i in range(n)) if q in members]


def _take(items, count, from_end: bool) -> list:
    """`first(C, N)` / `last(C, N)`: at most N items from one end, in C's order."""
    if count.__class__ is not int:
        raise ValueError(f"`first` and `last` take a number of items, not {count!r}")
    if count <= 0:
        return []
    return list(items[-count:] if from_end else items[:count])


UNSET = object()  # a define's value not worked out yet in this statement function
_SIMPLE_CODE = re.compile(r"^\(*[\w.]+(\[\w+\])*\)*$")  # a name, a constant, a slot: as cheap to repeat as to pass


_HOISTED = re.compile(r"^_h\d+$")  # a name `_hoist` gave a value
# The names that generated code binds inside itself (comprehensions' items, lambdas' parameters).
_BOUND_NAME = re.compile(r"\b_[dexopz]\d+\b")


def _renamed(code: str) -> str:
    """``code`` with the names it binds itself renamed in order: two parts that differ only in
    those names compute the same."""
    names: dict[str, str] = {}
    return _BOUND_NAME.sub(lambda match: names.setdefault(match.group(0), f"_v{len(names)}"), code)


_ZONE = r"st\.zones\[\(?(?:\w+|fr\[\d+\])\)?\]"  # the pieces of a zone, by number or slot: always a list
_ZONE_CODE = re.compile(rf"^{_ZONE}$")
# `first` or `last` of a zone, as _x_Call writes it: its attribute is read the same way
_ZONE_END_CODE = re.compile(rf"^\(({_ZONE})\[(0|-1)\] if \1 else None\)$")


_NEW_LIST_CALLS = ("list(", "_concat(", "_take(", "_compact(", "_distinct(", "_sorted(", "_sorted_keys(", "_sorted_column(", "_range(")


def _closes_last(code: str, opening: int) -> bool:
    """Whether the bracket at ``opening`` closes at the end of ``code`` (generated code holds no
    text with brackets in it: constants are in ``K``)."""
    depth = 0
    for i in range(opening, len(code)):
        if code[i] in "([{":
            depth += 1
        elif code[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i == len(code) - 1
    return False


def new_list(code: str) -> bool:
    """Whether ``code`` makes a new list each time it runs (a comprehension or a list of items,
    or a helper's that builds one): a statement may take it as it is, without a copy."""
    if code.startswith("_items(st, "):  # (gives back what it is given)
        return _closes_last(code, len("_items")) and new_list(code[len("_items(st, "):-1])
    if code.startswith("["):
        return _closes_last(code, 0)
    return code.startswith(_NEW_LIST_CALLS) and _closes_last(code, code.index("("))


def _listify(value):
    return value if value.__class__ is list or value.__class__ is tuple else [] if value is None else [value]


def _key(st, positions: dict, key, name: str) -> int:
    """The place of a key among a counter's keys (computed keys are checked here)."""
    position = None if key.__class__ in (bool, list) else positions.get(key)
    if position is None:
        raise ValueError(f"`{name}` has no key `{shown(key)}` (its keys: {keys_text(tuple(positions))})")
    return position


def _product(st, *lists):
    """`product(A, B, ...)`: every tuple of one item of A, one of B...; its length counts as work."""
    size = 1
    for items in lists:
        size *= len(items)
    _items(st, range(size))
    return list(itertools.product(*lists))


def _text(*parts) -> str:
    return "".join(parts)


def _counter_text(st, name: str, value) -> str:
    """A counter's value in `text(...)`: players as `player 2` and pieces by name where the
    counter holds them, as the board writes it."""
    counter = next(c for c in st.game.counters if c.name == name)
    if counter.holds_player:
        return seats_text(value)
    if counter.holds_pieces and value is not None:
        return st.describe_piece(value) if value.__class__ is int else f"[{st.describe_group(value)}]"
    return shown(value)


def _seat_text(seat) -> str:
    return f"player {seat + 1}"


def _named_by(way, value) -> str:
    return "none" if value is None else way(value)


def key_kind(keys: tuple) -> str:
    """The type of a counter's keys: numbers, labels, or both."""
    kinds = {"int" if k.__class__ is int else "label" for k in keys}
    return kinds.pop() if len(kinds) == 1 else "any"


def _truthy(value):
    return bool(value) if isinstance(value, (list, bool)) else value is not None


def piece_key(st, p: int) -> tuple:
    """What makes pieces alike: a die's kind and face; another piece's kind and attributes."""
    kind = st.pieces.kind[p]
    if st.game.kinds[kind].is_die:
        return (kind, st.dynamic[0][p])
    return (kind, tuple(_freeze(column[p]) for column in st.pieces.columns))


def _subsets(st, pieces: list, alike: list | None = None, size=None) -> list[list[int]]:
    """Every distinct non-empty group of pieces. Pieces alike in everything (dice of one kind
    showing one face, the identical pieces of a `count`) give one group per number of them;
    pieces that differ (the cards of a `one for each`) give every combination. With ``alike``
    (a column), only the groups whose pieces all have one value in it, in the same order as
    among all the groups: the choice's condition rejects the others anyway. With ``size``
    (`subsets(C, K)`), only the groups of that many pieces, in the same order again. Pieces the
    player choosing (`by`; else the current player) does not see are never alike to them
    (``_unseen_apart``)."""
    if size is not None and (size.__class__ is not int):
        raise ValueError(f"`subsets(C, K)` takes a number of pieces K, not {size!r}")
    if size is not None and (size <= 0 or size > len(pieces)):
        return []
    kind_of, kinds, faces, columns = st.pieces.kind, st.game.kinds, st.dynamic[0], st.pieces.columns
    groups: dict[tuple, list[int]] = {}
    for p in pieces:  # piece_key, with the lookups hoisted
        kind = kind_of[p]
        key = (kind, faces[p]) if kinds[kind].is_die else (kind, tuple(_freeze(column[p]) for column in columns))
        members = groups.get(key)
        if members is None:
            groups[key] = [p]
        else:
            members.append(p)
    lists = list(groups.values())
    if len(lists) < len(pieces):  # alike pieces: are they alike to the player?
        where = st.where
        zone = where[pieces[0]]
        if any(where[p] != zone for p in pieces):
            lists = _unseen_apart(st, lists)
        elif st.sight(zone, st.player if st.deciding is None else st.deciding) != SEE_PIECES:  # (one zone, the usual case)
            lists = [[p] for p in pieces]
    if alike is None:
        classes = [range(len(lists))]
    else:  # the keys of each value of the column: a group takes from one class only
        by_value: dict = {}
        for k, members in enumerate(lists):
            by_value.setdefault(_freeze(alike[members[0]]), []).append(k)
        classes = list(by_value.values())
    many = 1 + sum(_groups_counted(lists, members, size) for members in classes)
    if many > MAX_SUBSETS:
        made = f"{many - 1:,}" if many < 10 ** 15 else f"about 10^{len(str(many - 1)) - 1}"
        called = "subsets" if size is None else f"subsets(C, {size})"
        raise ValueError(f"`{called}` of {len(pieces)} pieces makes {made} groups, more than the "
                         f"{MAX_SUBSETS:,} it may make; " + (
                             "take groups of one size, `subsets(C, 2)`, or choose in smaller steps" if size is None
                             else "choose in smaller steps"))
    # The groups hold many * len(pieces) / 2 pieces in all: that is the work, paid before it is done.
    _items(st, range(many + many * (len(pieces) if size is None else 2 * size) // 2))
    if size is not None:
        return _groups_of_size(lists, classes, size)
    if all(len(members) == 1 for members in classes):  # dice: each value shown by one kind only
        return _groups_of_one_key(lists, [members[0] for members in classes])
    return _groups_by_counts(lists, classes)


def _groups_counted(lists: list[list[int]], members: list[int], size: int | None) -> int:
    """How many non-empty groups take pieces of the keys ``members`` (of ``lists``) only, of
    ``size`` pieces when it is given (the coefficient of x^size in the product of (1 + x + ... +
    x^len) over the keys)."""
    if size is None:
        product = 1
        for k in members:
            product *= len(lists[k]) + 1
        return product - 1
    ways = [1] + [0] * size  # ways[j]: the groups of j pieces from the keys so far
    for k in members:
        most = len(lists[k])
        below = list(itertools.accumulate(ways, initial=0))  # below[j]: ways[0] + ... + ways[j - 1]
        # (capped past the limit: only whether there are too many counts, and big numbers cost)
        ways = [min(below[j + 1] - below[max(0, j - most)], MAX_SUBSETS + 1) for j in range(size + 1)]
    return ways[size]


def _groups_of_size(lists: list[list[int]], classes: list, size: int) -> list[list[int]]:
    """``_groups_by_counts``'s groups of ``size`` pieces, in its order (the counts per key in
    itertools.product's order, class after class), made without the others."""
    found: list[list[int]] = []
    for members in classes:
        keyed = [lists[k] for k in members]
        room = [0] * (len(keyed) + 1)  # the pieces the keys from i on hold
        for i in range(len(keyed) - 1, -1, -1):
            room[i] = room[i + 1] + len(keyed[i])
        _take_groups(keyed, room, 0, size, [], found)
    if len(classes) > 1:  # one order over the classes: by the counts of every key, as _groups_by_counts
        position = {p: (k, i) for k, members in enumerate(lists) for i, p in enumerate(members)}
        found.sort(key=lambda group: _counts_key(group, position, len(lists)))
    return found


def _take_groups(keyed: list[list[int]], room: list[int], i: int, left: int, chosen: list[int],
                 found: list[list[int]]) -> None:
    """Adds to ``found`` each group of ``left`` more pieces from the keys ``keyed[i:]`` after
    ``chosen``, the first key's count rising slowest (itertools.product's order)."""
    if left == 0:
        found.append(list(chosen))
        return
    if i == len(keyed) or room[i] < left:
        return
    pieces = keyed[i]
    for c in range(min(len(pieces), left) + 1):
        chosen.extend(pieces[:c])
        _take_groups(keyed, room, i + 1, left - c, chosen, found)
        del chosen[len(chosen) - c:]


def _counts_key(group: list[int], position: dict, keys: int) -> tuple:
    every = [0] * keys
    for p in group:
        every[position[p][0]] += 1
    return tuple(every)


def _unseen_apart(st, lists: list[list[int]]) -> list[list[int]]:
    """Alike pieces (``lists``) as the player choosing (else the current one) can tell them: one that lies where they do
    not see its face or card is its own key. Else how many groups there are would tell them
    which hidden dice show one face, and a bot's samples would offer other options."""
    where, sight, player = st.where, st.sight, st.player if st.deciding is None else st.deciding
    seen: dict[int, bool] = {}
    kept = []
    for members in lists:
        if len(members) == 1:
            kept.append(members)
            continue
        visible = []
        for p in members:
            zone = where[p]
            sees = seen.get(zone)
            if sees is None:
                sees = seen[zone] = sight(zone, player) == SEE_PIECES
            if sees:
                visible.append(p)
            else:
                kept.append([p])
        if visible:
            kept.append(visible)
    return kept


def _groups_of_one_key(lists: list[list[int]], keys: list[int]) -> list[list[int]]:
    """``_groups_by_counts`` where each class holds one key (a group is the first c pieces of
    one key's list), without its counting: the same groups in the same order, by size, and of
    one size, the later key first (its counts sort lower)."""
    longest = max((len(lists[k]) for k in keys), default=0)
    keys = sorted(keys, reverse=True)
    return [lists[k][:c] for c in range(1, longest + 1) for k in keys if len(lists[k]) >= c]


def _groups_by_counts(lists: list[list[int]], classes: list) -> list[list[int]]:
    """Every group that takes some pieces of the keys (``lists``) of one class: each group as
    counts per key, in the order of their counts (itertools.product's), then by size."""
    found = []
    for members in classes:
        # The counts of each key in the class; the first of itertools.product's is all zeros.
        counts_of = itertools.islice(itertools.product(*(range(len(lists[k]) + 1) for k in members)), 1, None)
        if len(classes) == 1:
            found.extend([(sum(counts), counts) for counts in counts_of])
            continue
        for counts in counts_of:
            every = [0] * len(lists)
            for k, c in zip(members, counts, strict=True):
                every[k] = c
            found.append((sum(counts), tuple(every)))
    # All the groups come in the order of their counts (itertools.product's), then by size.
    found.sort()
    result = []
    for _, every in found:
        chosen = []
        for members, c in zip(lists, every):
            if c:
                chosen += members[:c]
        result.append(chosen)
    return result


def _items(st, items):
    """The items a filter or a function goes through, counted against the work of the step."""
    work = st.work + len(items)
    st.work = work
    if work > st.work_budget:
        raise LimitExceeded("R509", f"more work in one step than the limit of {st.work_budget} "
                            "(items gone through by filters, sums, sorts, `+`, `in`, `==` and moves)")
    return items


def _concat(st, a, b):
    """`a + b` of collections; both sizes count as work, so doubling a list meets the limit."""
    st.work += len(a) + len(b)
    if st.work > st.work_budget:
        _items(st, ())
    if a.__class__ is list and b.__class__ is list:
        return a + b
    return [*a, *b]  # (a finished game keeps its zones as tuples: a list all the same)


def _equal(st, a, b):
    """`==` that counts the items of two lists it compares (lists of unequal size differ at once);
    a zone of a finished game, kept as a tuple, compares as the list it was."""
    if a.__class__ is tuple and b.__class__ is list or a.__class__ is list and b.__class__ is tuple:
        a, b = list(a), list(b)
    if a.__class__ is list and b.__class__ is list and len(a) == len(b):
        _items(st, a)
    return a == b


_ZONE_MARK = re.compile(r"_Z([RW])(\d+)_")  # see ``ExpressionCompiler.zone_mark``
_ZONE_MARK_READ = re.compile(r"_ZR(\d+)_")
_MOVE_LINE = re.compile(r"st\.move\(_m\d+, (.*), (?:True|False), \d+\)$")  # its destination (``moves_into``)
_ANY_PIECE = "_ZANY_"  # see ``ExpressionCompiler.any_piece``
_WHOLE_ZONE = re.compile(r"^st\.zones\[_ZR(\d+)_\]$")
_USES_COUNTERS = re.compile(r"\bst\.(?:counters\b|set_counter\b|counter_base\b)")  # reads or sets a counter
_FRAME_USE = re.compile(r"\bfr\b(?:\[(\d+)\])?")


def slots_used(source: str) -> frozenset[int] | None:
    """The frame slots that generated source reads or writes (``fr[N]``), or None when it
    uses the frame in another way (the liveness of ``rulelang.liveness`` then keeps them all)."""
    found = set()
    for match in _FRAME_USE.finditer(source):
        if match.group(1) is None:
            return None
        found.add(int(match.group(1)))
    return frozenset(found)


_TOP_ASSIGN = re.compile(r"fr\[(\d+)\] = (?!=)")
_TOP_FOR = re.compile(r"for fr\[(\d+)\] in ")
_EXITS = re.compile(r"\b(?:return|yield)\b")


def slots_killed(lines: list[str]) -> frozenset[int]:
    """The frame slots a statement function surely writes before it reads them and before it
    can return (``fr[0] = ...`` at the top of its body, ahead of any `return`, or a loop's
    variable, ``for fr[0] in ...:``): what they held before is never read (rulelang.liveness)."""
    killed: set[int] = set()
    read: set[int] = set()
    for line in lines:
        # a loop's variable is written by the loop before its body reads it, and no line after
        # the loop names it (its scope is the body): what it held before is never read
        assign = _TOP_ASSIGN.match(line) or _TOP_FOR.match(line)
        rest = line[assign.end():] if assign else line
        for match in _FRAME_USE.finditer(rest):
            if match.group(1) is None:
                return frozenset()  # the frame used another way: nothing is known
            read.add(int(match.group(1)))
        if assign and int(assign.group(1)) not in read:
            killed.add(int(assign.group(1)))
        elif not assign and line.startswith("fr["):
            return frozenset(killed)  # (another kind of write at the top: stop being clever)
        if _EXITS.search(line):
            break
    return frozenset(killed)


def _freeze(value):
    return tuple(map(_freeze, value)) if value.__class__ is list else value


def _distinct(st, items):
    """The items without repeats, first of each kept; groups (lists) among them compare by content."""
    st.work += len(items)  # (``_items``, inline)
    if st.work > st.work_budget:
        _items(st, ())
    try:  # no group among them: each item is its own key
        return list(dict.fromkeys(items))
    except TypeError:  # a group (a list), which compares by content
        pass
    kept: dict = {}
    for item in items:
        kept.setdefault(_freeze(item), item)
    return list(kept.values())


def _count_distinct(st, items) -> int:
    """``len(_distinct(st, items))`` (`count(distinct(...))`), without making the list."""
    st.work += len(items)  # (``_items``, inline)
    if st.work > st.work_budget:
        _items(st, ())
    try:
        return len(set(items))
    except TypeError:  # a group (a list), which compares by content
        return len({_freeze(item) for item in items})


def _items_each(st, items, inner):
    """``_items(st, items)`` for a filter whose condition goes through ``inner`` (never none,
    and the same for every item) once for each item: all that work counted at once."""
    st.work += len(items) * (len(inner) + 1)
    if st.work > st.work_budget:
        _items(st, ())
    return items


def _position(st, items, x, single: bool = False):
    """Where x lies in items, counting from 0 (none if absent); when x is a list (and not
    ``single``: one group among groups), the positions of the items that are in it, in order."""
    _items(st, items)
    if single or x.__class__ is not list:
        return items.index(x) if x in items else None
    _items(st, x)
    try:
        wanted = set(x)
        return [i for i, item in enumerate(items) if item in wanted]
    except TypeError:  # groups among the items: compared by content, each with each
        _items(st, range(len(items) * len(x)))
        return [i for i, item in enumerate(items) if item in x]


def _runs(st, keys, step, stepped: bool = False):
    """The maximal runs of two or more neighbours whose keys are equal (not ``stepped``) or go
    up by step, each a list of positions; a key that is none (or a label, with a step) breaks a run."""
    _items(st, keys)
    if stepped and step.__class__ is not int:
        raise TypeError(f"the step of `runs` needs a number, not {'none' if step is None else 'a label'}")
    if not stepped:
        step = None
    runs, run = [], [0]
    for i in range(1, len(keys) + 1):
        if i < len(keys) and _follows(keys[i - 1], keys[i], step):
            run.append(i)
            continue
        if len(run) >= 2:
            runs.append(run)
        run = [i]
    return runs


def _follows(before, after, step) -> bool:
    if before is None or after is None:
        return False
    if step is None:
        return before == after
    return before.__class__ is int and after.__class__ is int and after == before + step


def _pairs(st, keys) -> int:
    """How many pairs the keys make: two items with the same key are a pair, and an item is in
    one pair at most (three alike make one pair, four make two); none is no key."""
    _items(st, keys)
    alike: dict = {}
    for key in keys:
        if key is not None:
            key = _freeze(key)
            alike[key] = alike.get(key, 0) + 1
    return sum(c // 2 for c in alike.values())


def _mul(st, a, b):
    if a.__class__ is not int or b.__class__ is not int:
        if isinstance(a, (list, str)) or isinstance(b, (list, str)):
            raise TypeError("`*` needs numbers")
    result = a * b
    if result.__class__ is int and not -st.big_number < result < st.big_number:
        raise LimitExceeded("R511", f"a number of more than {st.number_digits} digits, the limit")
    return result


def _range(st, low, high):
    """`range(A, B)`: the whole numbers A to B, both included; its length counts as work."""
    if low.__class__ is not int or high.__class__ is not int:
        raise TypeError("`range` needs two whole numbers")
    numbers = range(low, high + 1)
    _items(st, numbers)  # paid before the list is made: a huge range is R509, not a hang
    return list(numbers)


def _cell(st, column, piece, name, functions, args):
    """`piece.name(args)`: the piece's cell of a table column with parameters, worked out now."""
    if piece is None:
        raise TypeError(f"`.{name}(...)` of none (the top of an empty zone, or a piece that is not there)")
    if piece.__class__ is not int:
        raise TypeError(f"`.{name}(...)` needs a piece")
    cell = column[piece]
    if cell.__class__ is not TableCell:
        raise TypeError(f"{st.pieces.names[piece]} has no column `{name}` with parameters")
    if cell.arity != len(args):
        raise TypeError(f"`{name}` of {st.pieces.names[piece]} takes {cell.arity} argument(s), not {len(args)}")
    return functions[cell.index](st, None, args)


_first_of_pair = operator.itemgetter(0)


def _whose(st, seat, name: str) -> int:
    """The seat that `NAME of X` names, where X could not be told a player before the game
    (a counter or a variable that holds one): anything else is a fault, not another's place."""
    if seat.__class__ is int and 0 <= seat < st.n:
        return seat
    raise ValueError(f"`{name} of ...` names {_named(seat)}, which is not a player of this game")

def _source(node) -> str:
    """A node's text as written (one line), for a help line; `...` where it has no span."""
    span = getattr(node, "span", None)
    return "..." if span is None else " ".join(span.source.text[span.start:span.end].split())


def _player_argument(st, seat, what: str) -> int:
    """A procedure's parameter that holds a player, given a value that may be anything (a
    counter that holds one): anything but a seat is a fault here, not another's place later."""
    if seat.__class__ is int and 0 <= seat < st.n:
        return seat
    raise ValueError(f"{what} needs a player, and is given {_named(seat)}")


HELPERS = {name: value for name, value in globals().items()
           if name.startswith("_") and callable(value) and not name.startswith("__")}
HELPERS["_shown"] = shown


def _children(node: n.Node):
    """The syntax nodes directly under an expression node."""
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        if isinstance(value, n.Node):
            yield value
        elif isinstance(value, tuple):
            yield from (item for item in value if isinstance(item, n.Node))


def a_kind(kind: str) -> str:
    """The type's name in words, for messages."""
    words = {"int": "a number", "bool": "a true/false value", "str": "a string", "label": "a face label",
             "none": "none", "piece": "a piece", "pieces": "a collection of pieces", "zone": "a zone",
             "zones": "the pieces of several zones", "zonelist": "a list of zones",
             "values": "a list of values", "player": "a player",
             "players": "a list of players", "subsets": "a list of groups", "any": "a value",
             "tuple": "a tuple"}
    return words.get(kind, kind)


def collection_type(kind: str) -> str:
    if kind == "tuple":
        return "values"
    if kind in ("zone", "zones", "piece"):
        return "pieces"
    if kind == "player":
        return "players"
    if kind in COLLECTIONS:
        return kind
    return "values"


class ExpressionCompiler:
    """Mixin of the Compiler: expressions to Python source. Needs the Compiler's tables."""

    def _init_codegen(self) -> None:
        self.constants: list[Any] = []
        self._constant_index: dict[tuple, int] = {}
        self._fresh = itertools.count()
        # attribute (None: any) -> the texts the pieces take there, once the kinds are compiled:
        # the checks ask at every comparison, and a file may declare many pieces
        self._texts: dict[str | None, set[str]] = {}
        # Comprehension variables in scope while generating, and the lines that compute, once
        # before the expression, the parts of a filter's condition that do not depend on them.
        self.bound: list[str] = []
        self.define_params: list[str] = []  # a define's arguments, passed to its lambda: never hoisted
        self.prelude: list[str] = []
        # the names written as items of a list (`[red, blue]`), by node id: E101's help for a label
        self._list_items: set[int] = set()
        self.namespace: dict[str, Any] = dict(HELPERS)
        self.looping_over: tuple[str, ...] = ()  # the variables of the `for each`s whose items are compiled
        self.namespace["K"] = self.constants
        self.namespace["_U"] = UNSET
        # While compiling statements that become lines of a statement function: each use of a
        # define without parameters, (name, code), stood for by `@DN@` (see `_Code`), so that
        # one used more than once there is worked out once. None elsewhere.
        self.define_uses: list[tuple[str, str]] | None = None
        self.define_codes: list[tuple[str, str]] = []  # what `define_uses` is while it is on
        self._define_sizes: dict[str, tuple[int, list[int]]] = {}
        self._suggestions_left = 100
        self._columns_compiling: list[str] = []
        self.collection_compares: set[n.Node] = set()  # `==`/`!=` between collections
        # `(X in _items(st, C))` with C hoisted: (the test without counting, C), by its source
        self._memberships: dict[str, tuple[str, str]] = {}
        self.zone_marks: list[Any] = []  # ZoneDefs by the number of their marks (``zone_mark``)
        self._zone_mark_index: dict[str, int] = {}

    # -- plumbing
    def suggest(self, name: str, candidates) -> str | None:
        """The `did you mean` help for the first unknown names of a game only: a file with
        thousands of typos among thousands of names gets its errors without the quadratic cost."""
        if self._suggestions_left <= 0:
            return None
        self._suggestions_left -= 1
        return did_you_mean(name, candidates() if callable(candidates) else candidates)

    def fresh(self, stem: str) -> str:
        return f"_{stem}{next(self._fresh)}"

    def constant(self, value: Any) -> str:
        if value is None or isinstance(value, bool) or (isinstance(value, int) and not isinstance(value, bool)):
            return repr(value)
        key = (type(value).__name__, repr(value))
        if key not in self._constant_index:
            self._constant_index[key] = len(self.constants)
            self.constants.append(value)
        return f"K[{self._constant_index[key]}]"

    def function(self, code: str, params: str = "st, fr"):
        """A Python function from generated expression source (and the pending prelude)."""
        if self.prelude:
            return self.procedure_function(self.take_prelude() + [f"return {code}"], params)
        rolled = _WHOLE_ZONE.match(code)
        code, zones_read = self.unmarked(code)
        try:
            function = eval(f"lambda {params}: {code}", self.namespace)  # noqa: S307 - source is generated
        except (SyntaxError, RecursionError, MemoryError):
            raise TooDeep from None
        function.slots_used = slots_used(code)
        function.zones_read = zones_read
        function.uses_counters = bool(_USES_COUNTERS.search(code))
        # the whole of one shared zone (what `roll cup` rolls): rulelang.faces
        function.whole_zone = self.zone_marks[int(rolled.group(1))].name if rolled else None
        return function

    def zone_mark(self, zone, read: bool = True) -> str:
        """Source standing for a zone's ordinal that also says the code reads that zone's pieces
        (``_ZR<n>_``) or only puts pieces into it (``_ZW<n>_``): ``unmarked`` turns it into the
        ordinal and notes the zones read, for rulelang.faces."""
        index = self._zone_mark_index.get(zone.name)
        if index is None:
            index = self._zone_mark_index[zone.name] = len(self.zone_marks)
            self.zone_marks.append(zone)
        return f"_Z{'R' if read else 'W'}{index}_"

    def as_destination(self, code: str) -> str:
        """Zone source where pieces are put, not read: its marks say so, except for a zone kept
        sorted (putting a piece in its place reads the others)."""
        def one(match):
            zone = self.zone_marks[int(match.group(1))]
            return match.group(0) if zone.sort_column is not None else f"_ZW{match.group(1)}_"
        if len(set(_ZONE_MARK.findall(code))) > 1:  # (`pile of first(players where sum(cup) > 3)` reads cup)
            return code
        return _ZONE_MARK_READ.sub(one, code)

    def unmarked(self, code: str) -> tuple[str, frozenset[str]]:
        """``code`` with its zone marks turned into ordinals, and the names of the zones whose
        pieces it may read: every zone ("*") where it reaches pieces by kind (a zone a piece
        carries is read by its name, which all such zones share)."""
        read: set[str] = set()

        def one(match):
            zone = self.zone_marks[int(match.group(2))]
            if match.group(1) == "R":
                read.add(zone.name)
            return str(zone.ordinal)

        if "_Z" in code:
            if _ANY_PIECE in code:
                code = code.replace(_ANY_PIECE, "")
                read.add("*")
            code = _ZONE_MARK.sub(one, code)
        if "st.pieces.by_kind" in code:
            read.add("*")
        return code, frozenset(read)

    def moves_into(self, body: list[str]) -> frozenset[str] | None:
        """The names of the zones the moves of statement lines may put pieces into (``EVERY``
        where a destination names no zone, or a piece's zone: any zone), None when no line
        moves: which triggered rules a statement may set off, for rulelang.faces."""
        names: set[str] = set()
        moves = False
        for text in body:
            if "st.move(" not in text:
                continue
            moves = True
            found = _MOVE_LINE.search(text)
            marks = _ZONE_MARK.findall(found.group(1)) if found else ()
            if not marks or "st.where" in found.group(1):
                return frozenset("*")
            names.update(self.zone_marks[int(index)].name for _, index in marks)
        return frozenset(names) if moves else None

    def any_piece(self, code: str) -> str:
        """``code``, a value of any type used as a piece, marked for ``unmarked``: a number may
        stand for any piece, in any zone."""
        return _ANY_PIECE + code

    def take_prelude(self) -> list[str]:
        lines, self.prelude = self.prelude, []
        return lines

    def _hoist(self, e: Expr) -> Expr:
        """Inside a filter or an aggregate, compute a part that does not depend on the item
        once, before the loop, instead of once per item."""
        if not self.bound or _HOISTED.match(e.code) or \
                any(re.search(rf"\b{v}\b", e.code) for v in self.bound + self.define_params):
            return e
        # the same part met again before the same expression (`x in H and y in H`): worked out once
        same = _renamed(e.code)
        for line in self.prelude:
            name, _, code = line.partition(" = ")
            if _HOISTED.match(name) and _renamed(code) == same:
                return Expr(name, e.kind, e.safe)
        name = self.fresh("h")
        self.prelude.append(f"{name} = {e.code}")
        return Expr(name, e.kind, e.safe)

    def procedure_function(self, body: list[str], params: str = "st, fr", filename: str = "<string>"):
        """A Python function from generated statement lines; ``filename`` names its code (a
        fault's traceback finds the function's lines by it)."""
        source = f"def _f({params}):\n" + "\n".join("    " + line for line in body) + "\n"
        source, zones_read = self.unmarked(source)
        local: dict[str, Any] = {}
        try:
            exec(compile(source, filename, "exec"), self.namespace, local)  # noqa: S102 - source is generated
        except (SyntaxError, RecursionError, MemoryError):
            raise TooDeep from None
        function = local["_f"]
        function.slots_used = slots_used("\n".join(body))
        function.slots_killed = slots_killed(body)
        function.zones_read = zones_read
        function.moves_into = self.moves_into(body)
        function.uses_counters = bool(_USES_COUNTERS.search(source))
        return function

    def expr(self, node: n.Node, scope: Scope, slots: Slots):
        """Compile an expression to (function(state, frame), type)."""
        self.prelude = []
        e = self.code(node, scope, slots)
        # (a table column's cell is a function of its own: a call to one may read `player` too)
        self.last_reads_player = any("st.player" in line or "_cell(" in line for line in [*self.prelude, e.code])
        return self.function(e.code), e.kind

    def truth(self, node: n.Node, scope: Scope, slots: Slots):
        self.prelude = []
        return self.function(self.truth_code(node, scope, slots))

    def code(self, node: n.Node, scope: Scope, slots: Slots) -> Expr:
        method = getattr(self, "_x_" + type(node).__name__, None)
        if method is None:
            self.error("E201", f"{type(node).__name__} is not an expression", node)
            raise CompileError
        e = method(node, scope, slots)
        if self.bound and isinstance(node, (n.Attribute, n.Call, n.Filter)) and \
                e.kind in ("values", "pieces", "players", "int", "zones"):
            e = self._hoist(e)
        return e

    def truth_code(self, node: n.Node, scope: Scope, slots: Slots) -> str:
        return self.as_truth(self.code(node, scope, slots))

    def as_truth(self, e: Expr) -> str:
        if e.kind == "bool":
            return e.code
        if e.kind in ("piece", "player", "label", "none", "str"):
            return f"({e.code} is not None)"
        if e.kind == "int":
            return f"bool({e.code})"
        if e.kind == "zone":
            return f"bool(st.zones[{e.code}])"
        if e.kind == "zones":
            return f"any(st.zones[_z] for _z in {e.code})"
        if e.kind in COLLECTIONS:
            return f"bool({e.code})"
        return f"_truthy({e.code})"

    def as_list(self, e: Expr) -> str:
        """Source of a list of the expression's items (a zone's pieces, a single piece...)."""
        if e.kind == "zone":
            return f"st.zones[{e.code}]"
        if e.kind == "zones":
            z, x = self.fresh("z"), self.fresh("x")
            return f"_items(st, [{x} for {z} in {e.code} for {x} in st.zones[{z}]])"
        if e.kind in ("pieces", "values", "players", "subsets", "zonelist", "tuple"):
            return e.code
        return f"_listify({e.code})"

    def pieces_of(self, e: Expr) -> str:
        """Source of the pieces an expression stands for (a list of zones gives their pieces)."""
        if e.kind == "zonelist":
            z, x = self.fresh("z"), self.fresh("x")
            return f"[{x} for {z} in {e.code} for {x} in st.zones[{z}]]"
        return self.as_list(e)

    def _a_number_attribute(self) -> str:
        """An attribute some piece has a number for, to name in a help line (else `ATTRIBUTE`)."""
        kinds = getattr(self, "kind_defs", None) or {}
        for column, name in enumerate(self.attributes):
            if name not in ("value", "number") and any(
                    column < len(piece) and piece[column].__class__ is int for _, k in kinds.values()
                    for piece in k.pieces):
                return name
        return "ATTRIBUTE"

    def _valueless(self, also: str | None = None) -> bool:
        """Whether no piece of the game ever has a `value` (nor, with ``also``, that attribute):
        no dice, and no kind declaring it."""
        kinds = getattr(self, "kind_defs", None)
        columns = [1] + ([self.attributes.index(also)] if also in self.attributes else [])
        return bool(kinds) and not any(k.category == "die" or any(
            piece[c] is not None for piece in k.pieces for c in columns if c < len(piece)) for _, k in kinds.values())

    def collection_code(self, node, scope, slots, what: str | None = None) -> tuple[str, str]:
        """Source of the items of a collection, and their collection type; with ``what`` (the
        statement, for the message), a number, a string or true/false there is E201."""
        e = self.code(node, scope, slots)
        if what is not None and e.kind in ("int", "str", "bool"):
            self.error("E201", f"{what} needs a collection, not {a_kind(e.kind)}", node,
                       help="the numbers from A to B are `range(A, B)`" if e.kind == "int" else None)
            raise CompileError
        return self.as_list(e), collection_type(e.kind)

    def alike_attribute(self, cond: n.Node, var: str, depth: int = 0) -> str | None:
        """An attribute that ``cond`` needs to be one value among the pieces of ``var``: a
        conjunct (through `and` and defines given ``var`` itself) that reads
        ``count(distinct(VAR.ATTR)) == 1``. Then `subsets` need offer only such groups."""
        if depth > 50:
            return None
        if isinstance(cond, n.BoolOp):
            return None if cond.op != "and" else \
                self.alike_attribute(cond.left, var, depth + 1) or self.alike_attribute(cond.right, var, depth + 1)
        if isinstance(cond, n.Call) and cond.func in self.defines:
            decl = self.defines[cond.func]
            for param, arg in zip(decl.params or (), cond.args):
                if isinstance(arg, n.Name) and arg.id == var:
                    found = self.alike_attribute(decl.value, param, depth + 1)
                    if found is not None:
                        return found
            return None
        if isinstance(cond, n.Compare) and cond.op == "==":
            for one, counted in ((cond.left, cond.right), (cond.right, cond.left)):
                if isinstance(one, n.Literal) and one.value == 1 and one.value is not True and \
                        isinstance(counted, n.Call) and counted.func == "count" and len(counted.args) == 1:
                    inner = counted.args[0]
                    if isinstance(inner, n.Call) and inner.func == "distinct" and len(inner.args) == 1 and \
                            isinstance(attr := inner.args[0], n.Attribute) and \
                            isinstance(attr.obj, n.Name) and attr.obj.id == var and attr.name in self.attributes:
                        return attr.name
        return None

    def alike_subsets_code(self, options: n.Node, attribute: str, scope, slots) -> str | None:
        """The code of `subsets(C)` offering only groups alike in ``attribute``, or None when
        ``options`` is not such a call."""
        if not (isinstance(options, n.Call) and options.func == "subsets" and len(options.args) in (1, 2)
                and "subsets" not in self.defines):
            return None
        items = self.as_list(self.code(options.args[0], scope, slots))
        column = self.attribute_code(attribute, "")[:-2]  # the column, without its `[piece]`
        if len(options.args) == 2:
            size = self.code(options.args[1], scope, slots)
            return f"_subsets(st, {items}, {column}, {size.code})" if size.kind in ("int", "any") else None
        return f"_subsets(st, {items}, {column})"

    def _sorted_by_number(self, node: n.Node, scope: Scope) -> bool:
        """Whether ``node`` gives pieces in the order of their numbers: a zone sorted by
        `number` (a shared one, or the player's), or a `where` of one (which keeps its order)."""
        if isinstance(node, n.Filter):
            return self._sorted_by_number(node.source, scope)
        if isinstance(node, n.Of) and isinstance(node.right, n.Name) and node.right.id == "player" and \
                scope.lookup("player") is None:
            node = node.left
        if isinstance(node, n.Index) and isinstance(node.obj, n.Name) and node.obj.id in self.zone_families:
            node = node.obj  # one zone of a declaration with keys
        elif isinstance(node, n.Name) and node.id in self.zone_families:
            return False  # a list of zones
        return isinstance(node, n.Name) and scope.lookup(node.id) is None and node.id in self.zones and \
            self.zones[node.id].sort_key == "number"

    def attribute_code(self, name: str, piece: str) -> str:
        if name in DYNAMIC:
            return f"st.dynamic[{DYNAMIC.index(name)}][{piece}]"
        return f"st.pieces.columns[{self.attributes.index(name)}][{piece}]"

    @staticmethod
    def attribute_type(name: str) -> str:
        return {"face": "label", "value": "int", "number": "int", "kind": "str"}.get(name, "any")

    # -- expressions
    def _x_Literal(self, node, scope, slots):
        value = node.value
        kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else \
            "none" if value is None else "str"
        return Expr(self.constant(value), kind, value is not None)

    def _x_EmptyLiteral(self, node, scope, slots):
        return Expr("[]", "values", True)

    def _x_ListExpr(self, node, scope, slots):
        # (the tree lives while it compiles: the ids of its nodes stay theirs)
        self._list_items.update(id(i) for i in node.items if isinstance(i, n.Name))
        parts = [self.code(item, scope, slots) for item in node.items]
        kinds = {p.kind for p in parts} - {"none"}  # (a `none` item is left out)
        if "piece" in kinds and kinds - {"piece", "any"}:
            item = next(i for i, p in zip(node.items, parts) if p.kind not in ("piece", "any", "none"))
            self.error("E201", f"a list holds pieces or other values, not both: this one has pieces and "
                       f"{a_kind(next(p.kind for p in parts if p.kind not in ('piece', 'any', 'none')))}", item,
                       help="keep the pieces in a list of their own: as values, a piece would show as a number, "
                       "which tells which piece it is")
            raise CompileError
        kind = {frozenset({"piece"}): "pieces", frozenset({"player"}): "players",
                frozenset({"zone"}): "zonelist"}.get(frozenset(kinds), "values")
        if all(p.safe for p in parts):  # no item can be none: nothing to leave out
            return Expr(f"[{', '.join(p.code for p in parts)}]", kind, True)
        return Expr(f"_compact({', '.join(p.code for p in parts)})", kind, True)

    def _x_TupleExpr(self, node, scope, slots):
        parts = [self.code(item, scope, slots) for item in node.items]
        for item, part in zip(node.items, parts):
            self._no_pieces_in_tuples(part.kind, item)
        return Expr(f"({', '.join(p.code for p in parts)},)", "tuple", True)

    def _no_pieces_in_tuples(self, kind: str, node) -> None:
        """E201 for a piece in a tuple: a tuple shows its parts as numbers, so a hidden card
        would show as its id, in the trace, on the board and to bots."""
        if kind in ("piece", "pieces"):
            self.error("E201", "a tuple cannot hold a piece: it would show as a number, which tells which piece "
                       "it is even to a player who may not see it", node,
                       help="choose the piece with a parameter (`choose c from hand of player, then choose t from "
                       "...`), or keep it in a variable or counter of its own")
            raise CompileError

    def _x_Name(self, node, scope, slots):
        name = node.id
        local = scope.lookup(name)
        if local is not None:
            return Expr(local[0], local[1])
        if scope.element is not None:
            code, element_kind = scope.element
            if name == "it":
                return Expr(code, element_kind, True)
            if name in self.attributes and element_kind in ("piece", "any"):
                if name in self.param_columns:
                    self._uncalled_column(name, node)
                if element_kind == "any" and name in DYNAMIC:
                    code = self.any_piece(code)
                return Expr(self.attribute_code(name, code), self.attribute_type(name))
        if name in scope.row:
            return Expr(*scope.row[name])
        simple = {
            "player": Expr("st.player", "player", True),
            "players": Expr("list(range(st.n))", "players", True),
            "others": Expr("[(st.player + _i) % st.n for _i in range(1, st.n)]", "players", True),
            "remaining": Expr("_remaining(st)", "players", True),
            "turn_order": Expr("_turn_order(st)", "players", True),
            "round_number": Expr("st.round_number", "int", True),
            "turn_number": Expr("st.turn_number", "int", True),
            "player_count": Expr("st.n", "int", True),
        }
        if name in simple:
            return simple[name]
        if name in self.options:
            value = self.option_values.get(name, self.options[name].default)
            kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "str"
            return Expr(self.constant(value), kind, True)
        if name in self.defines:
            if self.define_uses is None:
                return self._expand_define(self.defines[name], (), node, scope, slots)
            # its whole value is kept (see `_Code._kept_defines`): worked out once where a
            # filter around it goes through items, not part by part
            outer, self.bound = self.bound, []
            try:
                e = self._expand_define(self.defines[name], (), node, scope, slots)
            finally:
                self.bound = outer
            self.define_uses.append((name, e.code))
            e = Expr(f"@D{len(self.define_uses) - 1}@", e.kind, e.safe)
            return self._hoist(e) if self.bound and e.kind in ("values", "pieces", "players", "int", "zones") else e
        if name in self.zone_families:
            keys, members = self.zone_families[name]
            if members[0].per_player:
                self.error("E202", f"`{name}` is a zone of each player, one per key; say whose", node,
                           help=f"write `{name}[{shown(keys[0])}] of player` for one, or `{name} of player` "
                           "for the list of them")
                raise CompileError
            return Expr(f"[{', '.join(map(self.zone_mark, members))}]", "zonelist", True)
        if name in self.zones:
            zone = self.zone_defs[name]
            if zone.per_piece:
                self.error("E202", f"`{name}` is a zone of each piece; say whose", node,
                           help=f"write `{name} of` a piece, such as `{name} of first(...)`")
                raise CompileError
            if zone.per_player:
                self.error("E202", f"`{name}` is a zone of each player; say whose", node,
                           help=f"write `{name} of player` or `{name} of others`")
                raise CompileError
            return Expr(self.zone_mark(zone), "zone", True)
        if name in self.kinds:
            return Expr(f"st.pieces.by_kind[{self.kind_defs[name][0]}]", "pieces", True)
        if name in self.counters:
            counter = self.counter_defs[name]
            if counter.per_player:
                face = self.face_labels.get(name)
                self.error("E202", f"`{name}` is a counter of each player; say whose", node,
                           help=f"write `{name} of player`" if face is None else
                           f"`{name}` is also a face of `{face}`, but the counter's name comes first: rename the "
                           f"counter (`{name}_count`), or write `{name} of player` for it")
                raise CompileError
            if counter.keys:  # the values, in the keys' order
                return Expr(f"st.counters[{counter.ordinal}:{counter.ordinal + counter.width}]", "values", True)
            return Expr(f"st.counters[{counter.ordinal}]", self.counter_kinds.get(name, "int"))
        if name in self.face_labels or name in self.key_labels:
            return Expr(self.constant(name), "label", True)
        if name == "it":
            self.error("E101", "`it` is used outside a `where` filter", node,
                       help="`it` names the item being tested in `items where ...`")
            raise CompileError
        if name in ("moved", "moved_from", "moved_to"):
            self.error("E101", f"unknown name `{name}`", node,
                       help=f"`{name}` exists only inside a `when move` rule")
            raise CompileError
        if name in self._texts_of_pieces():
            self.error("E101", f"unknown name `{name}`", node,
                       help=f'to compare with the text of an attribute, write it in quotes: `"{name}"`')
            raise CompileError
        if self._expanding and slots is not None and name in slots.names:  # a define reading a rule's variable
            self.error("E101", f"unknown name `{name}`: define `{self._expanding[-1]}` does not see the variables "
                       "of the rules that use it", node,
                       help=f"pass it as a parameter: `define {self._expanding[-1]}({name}) = ...`, used as "
                       f"`{self._expanding[-1]}({name})`")
            raise CompileError
        if slots is not None and name in slots.names:  # set in a block that has ended
            self.error("E101", f"unknown name `{name}`: it was set inside a block that has ended", node,
                       help=f"a variable lasts to the end of the block it is set in; to use `{name}` after it, set "
                       f"it before the block (`let {name} = none`) and change it inside (`{name} = ...`)")
            raise CompileError
        if name in self.attributes:  # an attribute, where no piece is named: a list of zones, of values
            element = scope.lookup("it") if scope is not None else None
            self.error("E101", f"unknown name `{name}`: it is an attribute of pieces, and the items here "
                       f"are not pieces{f' but {a_kind(element[1])}' if element and element[1] != 'any' else ''}",
                       node, help=f"name the piece whose `{name}` it is (`it.{name}`, `c.{name}`); over a list "
                       f"of zones, go through each zone: `sum(ZONES, sum(it, {name}))`")
            raise CompileError
        if name in self.looping_over and scope is not None and scope.element is not None:
            self.error("E101", f"unknown name `{name}`: the loop's variable is made from these items, after "
                       "they are worked out", node, help="in the items' `where`, each item is `it`: "
                       "`for each p in players where score of it == 0:`")
            raise CompileError
        close = self.suggest(name, lambda: [known for known in self._known_names(scope) if known != name])
        if close is None and id(node) in self._list_items:
            # `[red, blue]`: bare words are labels in declarations only
            close = (f'for a label, write it in quotes: `"{name}"` (a bare word is a label only in `faces`, '
                     "`one for each` and tables)")
        self.error("E101", f"unknown name `{name}`", node, help=close)
        raise CompileError

    def _texts_of_pieces(self) -> set[str]:
        """The text values the pieces' attributes take (`colour = red` or a table's column)."""
        return self._texts_found(None, lambda kinds: {value for kind in kinds for row in kind.pieces for value in row
                                                      if value.__class__ is str})

    def _texts_found(self, attribute: str | None, find) -> set[str]:
        """``find(kinds)``, kept by ``attribute`` once the kinds are compiled (empty before)."""
        kinds = getattr(self, "kind_defs", None)
        if not kinds:
            return set()
        found = self._texts.get(attribute)
        if found is None:
            found = self._texts[attribute] = find([kind for _, kind in kinds.values()])
        return found

    def _is_declared(self, name: str, scope: Scope) -> bool:
        return name in self._known_names(scope) or name in self.attributes

    def _known_names(self, scope: Scope) -> list[str]:
        names = list(scope.all_names()) + list(BUILTIN_NAMES)
        for table in (self.options, self.defines, self.zones, self.kinds, self.counters, self.face_labels,
                      self.key_labels):
            names.extend(table)
        if scope.element is not None:
            names.extend(self.attributes)
        return names

    def _expand_define(self, decl: n.DefineDecl, args: tuple, node, scope, slots):
        params = decl.params or ()
        if len(args) != len(params):
            self.error("E104", f"`{decl.name}` takes {len(params)} argument(s), not {len(args)}", node)
            raise CompileError
        if decl.name in self._expanding:
            self.error("E303", f"define `{decl.name}` refers to itself", node)
            raise CompileError
        if not self._expanding:  # the outermost use: measure all it expands to, before expanding
            if self._call_size(decl, args) > self.limits.expansion:
                self.error("E605", f"`{decl.name}` expands to more than {self.limits.expansion} syntax nodes here, "
                           "the limit", node,
                           help="a define used twice in another is copied twice: compute a part once with `let`, "
                           "or, if the game really needs it, raise the limit with `--limit expansion=N`")
                raise CompileError
        # A define sees its parameters and the game's names, not the caller's locals. Each
        # argument is worked out once per use of the define: one that is more than a name is
        # passed to a lambda of the define's body, not copied into it.
        inner = Scope(None, element=None)
        passed: list[tuple[str, str]] = []
        for param, arg in zip(params, args, strict=True):
            e = self.code(arg, scope, slots)
            if _SIMPLE_CODE.match(e.code):
                inner.names[param] = (f"({e.code})", e.kind)
            else:
                name = self.fresh("d")
                inner.names[param] = (name, e.kind)
                passed.append((name, e.code))
        self._expanding.append(decl.name)
        self.define_params.extend(name for name, _ in passed)
        before = len(self.diagnostics)
        try:
            body = self.code(decl.value, inner, slots)
        finally:
            self._expanding.pop()
            del self.define_params[len(self.define_params) - len(passed):]
            self._note_use(before, decl, node)
        if not passed:
            return body
        names, codes = ", ".join(name for name, _ in passed), ", ".join(code for _, code in passed)
        return Expr(f"(lambda {names}: {body.code})({codes})", body.kind, body.safe)

    def _note_use(self, since: int, decl: n.DefineDecl, node) -> None:
        """The diagnostics found in a define's body while expanding one use of it say which use
        (the body is right for some arguments, and the mistake may be the use's)."""
        use, body = getattr(node, "span", None), decl.span
        if use is None or body is None:
            return
        note = f"in the use of `{decl.name}` at {use.where()}"
        for i in range(since, len(self.diagnostics)):
            d = self.diagnostics[i]
            if d.span is not None and d.span.path == body.path and body.start <= d.span.start <= body.end \
                    and not any(existing.startswith("in the use of ") for existing in d.notes):
                self.diagnostics[i] = attrs.evolve(d, notes=(*d.notes, note))

    def _call_size(self, decl: n.DefineDecl, args: tuple) -> int:
        """The syntax nodes a use of a define becomes once every define in it is expanded, worked
        out without expanding (each define's size once, as a linear form of its arguments' sizes)."""
        const, coefficients = self._define_size(decl)
        total = const
        for coefficient, arg in zip(coefficients, args, strict=False):
            total += coefficient * self._size_form(arg, ())[0]
        return total

    def _define_size(self, decl: n.DefineDecl) -> tuple[int, list[int]]:
        """(constant, coefficient of each parameter): the expanded size of a define's body."""
        sizes = self._define_sizes
        if decl.name not in sizes:
            sizes[decl.name] = (1, [0] * len(decl.params or ()))  # a define that uses itself: E303 elsewhere
            sizes[decl.name] = self._size_form(decl.value, tuple(decl.params or ()))
        return sizes[decl.name]

    def _size_form(self, node: n.Node, params: tuple[str, ...]) -> tuple[int, list[int]]:
        cap = self.limits.expansion + 1  # sizes saturate just over the limit: they stay small numbers
        coefficients = [0] * len(params)
        if isinstance(node, n.Name) and node.id in params:
            coefficients[params.index(node.id)] = 1  # replaced by the argument
            return 0, coefficients
        callee = self.defines.get(node.func if isinstance(node, n.Call) else
                                  node.id if isinstance(node, n.Name) else None)
        const = 1
        if callee is not None:
            callee_const, callee_coefficients = self._define_size(callee)
            const += callee_const
            args = node.args if isinstance(node, n.Call) else ()
            for coefficient, arg in zip(callee_coefficients, args, strict=False):
                arg_const, arg_coefficients = self._size_form(arg, params)
                const += coefficient * arg_const
                for i, c in enumerate(arg_coefficients):
                    coefficients[i] = min(cap, coefficients[i] + coefficient * c)
            return min(cap, const), coefficients
        for child in _children(node):
            child_const, child_coefficients = self._size_form(child, params)
            const += child_const
            for i, c in enumerate(child_coefficients):
                coefficients[i] = min(cap, coefficients[i] + c)
        return min(cap, const), coefficients

    def _uncalled_column(self, name: str, node) -> None:
        arity = " or ".join(str(a) for a in sorted(self.param_columns[name]))
        self.error("E104", f"`{name}` is a table column with parameters: it needs {arity} argument(s)", node,
                   help=f"call it on a piece: `card.{name}(...)`")
        raise CompileError

    def _x_MethodCall(self, node, scope, slots):
        return self._column_call(self.code(node.obj, scope, slots), node, scope, slots)

    def _column_call(self, obj: Expr, node, scope, slots) -> Expr:
        name = node.name if isinstance(node, n.MethodCall) else node.func
        if name not in self.param_columns:
            if name in self.attributes:
                self.error("E104", f"`{name}` is an attribute without parameters", node,
                           help=f"write `.{name}`, without brackets")
            else:
                self.error("E101", f"unknown table column `{name}`", node,
                           help=self.suggest(name, list(self.param_columns)))
            raise CompileError
        if len(node.args) not in self.param_columns[name]:
            arity = " or ".join(str(a) for a in sorted(self.param_columns[name]))
            self.error("E104", f"`{name}` takes {arity} argument(s), not {len(node.args)}", node)
            raise CompileError
        if obj.kind not in ("piece", "any"):
            self.error("E201", f"`.{name}(...)` needs a piece, not {a_kind(obj.kind)}", node)
            raise CompileError
        args = [self.code(arg, scope, slots) for arg in node.args]
        functions = self.column_functions(name, tuple(a.kind for a in args), node)
        column = self.attribute_code(name, "")[:-2]
        return Expr(f"_cell(st, {column}, {obj.code}, {self.constant(name)}, {functions}, "
                    f"[{', '.join(a.code for a in args)}])", "any")

    def column_functions(self, name: str, kinds: tuple[str, ...], node) -> str:
        """The constant holding, for each cell of column ``name``, its function (state, frame,
        arguments) compiled for arguments of these types; once per column and types."""
        key = (name, kinds)
        if key not in self.cell_functions:
            if name in self._columns_compiling:
                self.error("E303", f"column `{name}` refers to itself", node)
                raise CompileError
            self._columns_compiling.append(name)
            try:
                functions = tuple(self._cell_function(column, cell, plain, kinds)
                                  for column, cell, plain in self.cells[name])
            finally:
                self._columns_compiling.pop()
            self.cell_functions[key] = self.constant(functions)
        return self.cell_functions[key]

    def _cell_function(self, column, cell, plain: dict, kinds: tuple[str, ...]):
        """One cell: its parameters are the arguments ``_a``, its row's plain columns constants."""
        scope = Scope()
        for i, (param, kind) in enumerate(zip(column.params, kinds, strict=True)):
            scope.names[param] = (f"_a[{i}]", kind)
        for name, value in plain.items():
            if name not in scope.names:
                scope.row[name] = (self.constant(value), self._x_Literal(n.Literal(value), scope, None).kind)
        saved, self.bound, self.prelude = (self.bound, self.prelude, self.define_uses), [], []
        self.define_uses = None  # a function of its own: nothing kept from the statement's
        try:
            e = self.code(cell, scope, Slots())
            body = self.take_prelude() + [f"return {e.code}"]
        finally:
            self.bound, self.prelude, self.define_uses = saved
        return self.procedure_function(body, "st, fr, _a")

    def _x_Attribute(self, node, scope, slots):
        obj = self.code(node.obj, scope, slots)
        name = node.name
        if name not in self.attributes:
            self.error("E101", f"unknown attribute `{name}`", node, help=self.suggest(name, self.attributes))
            raise CompileError
        if name in self.param_columns:
            self._uncalled_column(name, node)
        if obj.kind == "any" and name in DYNAMIC:  # a number may stand for a die anywhere
            obj = Expr(self.any_piece(obj.code), obj.kind, obj.safe)
        if obj.kind in ("piece", "any"):
            if obj.safe:
                return Expr(self.attribute_code(name, obj.code), self.attribute_type(name))
            column = self.attribute_code(name, "")[:-2]  # the column, without its `[piece]`
            end = _ZONE_END_CODE.match(obj.code)
            if end is not None:  # `last(row).number`: the zone read twice rather than calling `_get`
                zone, index = end.groups()
                return Expr(f"({column}[{zone}[{index}]] if {zone} else None)", self.attribute_type(name))
            return Expr(f"_get({column}, {obj.code})", self.attribute_type(name))
        if obj.kind in ("pieces", "zone", "zones"):
            column = self.attribute_code(name, "")[:-2]  # the column, without its `[piece]`
            return Expr(f"list(map({column}.__getitem__, {self.as_list(obj)}))", "values", True)
        self.error("E201", f"`.{name}` needs a piece or a collection of pieces, not {a_kind(obj.kind)}", node)
        raise CompileError

    def _x_Of(self, node, scope, slots):
        left = node.left
        if self.keyed_counter(left, scope) is not None:
            return self._counter_entry_expr(left, node.right, scope, slots)
        if self.zone_family(left, scope) is not None:
            return self._zone_of_key(left, node.right, scope, slots)
        if isinstance(left, n.Name) and left.id in self.zone_families and scope.lookup(left.id) is None:
            return self._zones_of_player(left, node.right, scope, slots)
        if isinstance(left, n.Name) and left.id not in self.zones and left.id not in self.counters \
                and not self._is_declared(left.id, scope):
            self.error("E101", f"unknown name `{left.id}`", left,
                       help=self.suggest(left.id, [z for z in self.zones if self.zone_defs[z].per_player]
                                         + [c for c in self.counters if self.counter_defs[c].per_player]))
            raise CompileError
        if not isinstance(left, n.Name) or (left.id not in self.zones and left.id not in self.counters):
            self.error("E201", "`of` follows the name of a per-player zone or counter", node.left,
                       help=self.suggest(getattr(left, "id", ""), list(self.zones) + list(self.counters)))
            raise CompileError
        owner = self.code(node.right, scope, slots)
        name = left.id
        if name in self.zones and self.zone_defs[name].per_piece:
            return self._carried_zone(self.zone_defs[name], owner, node)
        if owner.kind not in ("player", "players", "any"):
            self.error("E201", f"`{name} of ...` needs a player or players, not {a_kind(owner.kind)}", node.right)
            raise CompileError
        if owner.kind == "any":
            owner = Expr(f"_whose(st, {owner.code}, {self.constant(name)})", "player")
        is_zone = name in self.zones
        declared = self.zone_defs[name] if is_zone else self.counter_defs[name]
        what = "zone" if is_zone else "counter"
        if not declared.per_player:
            if isinstance(node.right, n.Name) and node.right.id == n.DEALT_TO:  # `deal ... to ZONE of each player`
                self.error("E201", f"`deal` gives to a zone of each player; `{name}` is a shared {what}", node,
                           help=f"to put pieces in `{name}`, `draw N from ... to {name}`")
            else:
                self.error("E201", f"`{name}` is a shared {what}; it has no owner", node, help=f"write just `{name}`")
            raise CompileError
        # A per-player zone or counter of seat s is laid out at base + ordinal * players + s.
        base = f"st.{what}_base + {self.zone_mark(declared) if is_zone else declared.ordinal} * st.n"
        if not is_zone and declared.keys:  # one player's values, in the keys' order: every n-th place
            o = self.fresh("o")
            end = f"st.counter_base + {declared.ordinal + declared.width} * st.n"
            if owner.kind == "players":
                return Expr(f"[st.counters[{base} + {o}:{end} + {o}:st.n] for {o} in {owner.code}]", "values", True)
            return Expr(f"(lambda {o}: st.counters[{base} + {o}:{end} + {o}:st.n])({owner.code})", "values", True)
        if owner.kind == "players":
            p = self.fresh("p")
            if is_zone:
                return Expr(f"[{base} + {p} for {p} in {owner.code}]", "zones", True)
            return Expr(f"[st.counters[{base} + {p}] for {p} in {owner.code}]", "values", True)
        if is_zone:
            return Expr(f"({base} + {owner.code})", "zone", True)
        return Expr(f"st.counters[{base} + {owner.code}]", self.counter_kinds.get(name, "int"))

    def zone_family(self, node, scope):
        """The name of the zone declaration with keys that `NAME[KEY]` picks a zone of, or None."""
        if isinstance(node, n.Index) and isinstance(node.obj, n.Name) and scope.lookup(node.obj.id) is None \
                and node.obj.id in self.zone_families:
            return node.obj.id
        return None

    def _family_owner(self, name: str, owner_node, scope, slots) -> Expr | None:
        """The player or players of `NAME[KEY] of OWNER`, `NAME of OWNER` (None: no owner written)."""
        if owner_node is None:
            return None
        if not self.zone_families[name][1][0].per_player:
            self.error("E201", f"`{name}` is a shared zone, one per key; it has no owner", owner_node,
                       help=f"write just `{name}[...]`")
            raise CompileError
        owner = self.code(owner_node, scope, slots)
        if owner.kind == "any":
            return Expr(f"_whose(st, {owner.code}, {self.constant(name)})", "player")
        if owner.kind not in ("player", "players"):
            self.error("E201", f"`{name}... of ...` needs a player or players, not {a_kind(owner.kind)}", owner_node)
            raise CompileError
        return owner

    def _zone_of_key(self, node: n.Index, owner_node, scope, slots) -> Expr:
        """`row[2]`, `expedition[c.colour] of player`: the zone of a declaration with keys for one key."""
        name = node.obj.id
        keys, members = self.zone_families[name]
        if owner_node is None and members[0].per_player:
            self.error("E202", f"`{name}` is a zone of each player, one per key; say whose", node,
                       help=f"write `{name}[...] of player`")
            raise CompileError
        owner = self._family_owner(name, owner_node, scope, slots)
        position = self.counter_key(_Keyed(name, keys), node.index, scope, slots)
        marks = [self.zone_mark(z) for z in members]
        ordinal = marks[int(position)] if position.isdigit() else f"({', '.join(marks)},)[{position}]"
        if owner is None:
            return Expr(f"({ordinal})", "zone", True)
        base = f"st.zone_base + {ordinal} * st.n"
        if owner.kind == "players":
            p = self.fresh("p")
            return Expr(f"[{base} + {p} for {p} in {owner.code}]", "zones", True)
        return Expr(f"({base} + {owner.code})", "zone", True)

    def _zones_of_player(self, node: n.Name, owner_node, scope, slots) -> Expr:
        """`expedition of player`: a player's zones of a declaration with keys, as a list of zones."""
        owner = self._family_owner(node.id, owner_node, scope, slots)
        marks = ", ".join(self.zone_mark(z) for z in self.zone_families[node.id][1])
        k = self.fresh("k")
        if owner.kind == "players":
            p = self.fresh("p")
            return Expr(f"[st.zone_base + {k} * st.n + {p} for {p} in {owner.code} for {k} in ({marks},)]",
                        "zonelist", True)
        o = self.fresh("o")
        return Expr(f"(lambda {o}: [st.zone_base + {k} * st.n + {o} for {k} in ({marks},)])({owner.code})",
                    "zonelist", True)

    def _sheets_of_players(self, node, scope, slots) -> bool:
        """Whether ``node`` is `S of PLAYERS`, S a counter with keys: a list of each player's list."""
        if not (isinstance(node, n.Of) and isinstance(node.left, n.Name) and node.left.id in self.counters
                and self.counter_defs[node.left.id].keys and self.counter_defs[node.left.id].per_player):
            return False
        prelude = len(self.prelude)
        kind = self.code(node.right, scope, slots).kind  # (compiled once already: no new error)
        del self.prelude[prelude:]
        return kind == "players"

    def keyed_counter(self, node, scope):
        """The counter with keys that `NAME[KEY]` reads, or None when it reads something else."""
        if isinstance(node, n.Index) and isinstance(node.obj, n.Name) and scope.lookup(node.obj.id) is None \
                and node.obj.id in self.counters and self.counter_defs[node.obj.id].keys:
            return self.counter_defs[node.obj.id]
        return None

    def counter_key(self, counter, key: n.Node, scope, slots) -> str:
        """Source of the place of a key among the counter's keys: a literal key is checked here
        (E203), a computed one when it is used (a fault naming the rule)."""
        literal = key.value if isinstance(key, n.Literal) else \
            -key.operand.value if isinstance(key, n.Negate) and isinstance(key.operand, n.Literal) \
            and key.operand.value.__class__ is int else \
            key.id if isinstance(key, n.Name) and scope.lookup(key.id) is None and (
                key.id in counter.keys or not self._is_declared(key.id, scope)) else key
        if literal is not key:
            if literal.__class__ is not bool and literal in counter.keys:
                return str(counter.keys.index(literal))
            # a bare name that is no key may be a misspelt key or a variable that is not in scope
            close = did_you_mean(key.id, [str(k) for k in counter.keys] + self._known_names(scope)) \
                if isinstance(key, n.Name) else None
            word = {True: "true", False: "false"}.get(literal) if literal.__class__ is bool else \
                "none" if literal is None else None
            if word in counter.keys:  # declared as the word: a rule reads the word as a value
                close = f'the key is the word: write it in quotes, `{counter.name}["{word}"]`;'
            self.error("E203", f"`{counter.name}` has no key `{shown(literal)}`", key,
                       help=f"{close + ' ' if close else ''}its keys are {keys_text(counter.keys)}")
            raise CompileError
        value = self.code(key, scope, slots)
        positions = self.constant({k: i for i, k in enumerate(counter.keys)})
        return f"_key(st, {positions}, {value.code}, {self.constant(counter.name)})"

    def _counter_entry_expr(self, node: n.Index, owner_node, scope, slots) -> Expr:
        """`climbed[7] of player`, `claimed[c]`: one entry of a counter with keys."""
        counter = self.keyed_counter(node, scope)
        if counter.per_player and owner_node is None:
            self.error("E202", f"`{counter.name}` is a counter of each player; say whose", node,
                       help=f"write `{counter.name}[...] of player`")
            raise CompileError
        if not counter.per_player and owner_node is not None:
            self.error("E201", f"`{counter.name}` is a shared counter; it has no owner", node,
                       help=f"write just `{counter.name}[...]`")
            raise CompileError
        position = self.counter_key(counter, node.index, scope, slots)
        if owner_node is None:
            return Expr(f"st.counters[{counter.ordinal} + {position}]", "any")
        owner = self.code(owner_node, scope, slots)
        base = f"st.counter_base + ({counter.ordinal} + {position}) * st.n"
        if owner.kind == "players":
            p = self.fresh("p")
            return Expr(f"[st.counters[{base} + {p}] for {p} in {owner.code}]", "values", True)
        if owner.kind not in ("player", "any"):
            self.error("E201", f"`{counter.name}[...] of ...` needs a player or players, not {a_kind(owner.kind)}",
                       owner_node)
            raise CompileError
        if owner.kind == "any":
            return Expr(f"st.counters[{base} + _whose(st, {owner.code}, {self.constant(counter.name)})]", "any")
        return Expr(f"st.counters[{base} + {owner.code}]", "any")

    def _carried_zone(self, zone, carrier: Expr, node) -> Expr:
        """`perch of t`: the zone a piece carries; of several pieces, their zones."""
        table = f"st.piece_zone[{self.zone_mark(zone)}]"
        if carrier.kind in ("piece", "any"):
            return Expr(f"{table}[{carrier.code}]", "zone", True)
        if carrier.kind in ("pieces", "zone", "zones"):
            p = self.fresh("p")
            return Expr(f"[{table}[{p}] for {p} in {self.as_list(carrier)} if {table}[{p}] is not None]", "zones", True)
        self.error("E201", f"`{zone.name}` is a zone of each piece; `{zone.name} of ...` needs a piece, "
                   f"not {a_kind(carrier.kind)}", node.right,
                   help=f"write `{zone.name} of` a piece, such as `{zone.name} of first(...)`")
        raise CompileError

    def _x_Filter(self, node, scope, slots):
        found = self.code(node.source, scope, slots)
        if found.kind in ("int", "str", "bool"):
            self.error("E201", f"`where` filters a list, and what comes before it here is {a_kind(found.kind)}",
                       node.source, help="`where` takes all that comes before it as the list (`a and b where c` is "
                       "`(a and b) where c`): put the filtered list in brackets, `((hand of player).number "
                       "where it > 3)`")
            raise CompileError
        source, kind = self.as_list(found), collection_type(found.kind)
        e = self.fresh("e")
        inner = Scope(scope, element=(e, SINGLE_FOR.get(kind, "any")))
        self.bound.append(e)
        try:
            cond = self.truth_code(node.cond, inner, slots)
        finally:
            self.bound.pop()
        generator, cond = self._each_item(e, source, cond)
        return Expr(f"[{e} {generator} if {cond}]", kind, True)

    def _each_item(self, e: str, source: str, cond: str) -> tuple[str, str]:
        """``for E in _items(st, SOURCE)`` and the condition of a filter (or a count), which
        runs once for each item: where it is all one `X in C` with C the same for every item
        and never none, C's items are counted with the source's, once, not at each item."""
        membership = self._memberships.get(cond)
        if membership is None:
            return f"for {e} in _items(st, {source})", cond
        test, inner = membership
        return f"for {e} in _items_each(st, {source}, {inner})", test

    def _x_Conditional(self, node, scope, slots):
        cond = self.truth_code(node.cond, scope, slots)
        then = self.code(node.then, scope, slots)
        other = self.code(node.otherwise, scope, slots)
        if {then.kind, other.kind} & {"bool"} and {then.kind, other.kind} & COLLECTIONS:
            self.error("E201", f"`A if C else B` gives {a_kind(then.kind)} on one side and {a_kind(other.kind)} on "
                       "the other", node, help="`where` takes all that follows it as its condition: to choose "
                       "between two filtered lists, put each in brackets, `(players where it == player) if flag "
                       "else (players where it != player)`")
            raise CompileError
        kind = then.kind if then.kind == other.kind or other.kind == "none" else \
            other.kind if then.kind == "none" else "any"
        return Expr(f"({then.code} if {cond} else {other.code})", kind, then.safe and other.safe)

    def _x_BoolOp(self, node, scope, slots):
        left = self.truth_code(node.left, scope, slots)
        right = self.truth_code(node.right, scope, slots)
        return Expr(f"({left} {node.op} {right})", "bool", True)

    def _x_Not(self, node, scope, slots):
        return Expr(f"(not {self.truth_code(node.operand, scope, slots)})", "bool", True)

    def _x_Negate(self, node, scope, slots):
        operand = self.code(node.operand, scope, slots)
        self._need_number(operand.kind, node.operand, "`-`")
        return Expr(f"(-{operand.code})", "int", operand.safe)

    def _need_number(self, kind: str, node: n.Node, what: str) -> None:
        # Seats are numbers too: `seat(player + 1)` is the next player.
        if kind not in NUMERIC and kind not in ("any", "label", "player"):
            self.error("E201", f"{what} needs a number, not {a_kind(kind)}", node, help={
                "str": "text compares only with `==` and `!=`; for a number, write it without quotes",
                "piece": "name the number the piece has, such as `.value` or `.number`",
                "pieces": "count them with `count(...)`, or add their values with `sum(...)`",
                "zone": "count its pieces with `count(...)`, or add their values with `sum(...)`",
                "none": "none is no number: give a number, or test `x != none` first"}.get(kind))
            raise CompileError
        if isinstance(node, n.BoolOp):  # `(best or 0) + 1` is `true + 1`: a slip for a default
            self.error("E201", f"{what} needs a number, and `{node.op}` gives true or false", node,
                       help="for a value or a default, write `X if X != none else 0`")
            raise CompileError

    def _x_Compare(self, node, scope, slots):
        op = node.op
        if op in ("in", "not in"):
            left = self.code(node.left, scope, slots)
            right = self.code(node.right, scope, slots)
            if right.kind not in COLLECTIONS and right.kind not in ("any", "tuple"):
                self.error("E201", f"`{op}` needs a collection on its right, not {a_kind(right.kind)}", node.right)
                raise CompileError
            code = f"({left.code} {op} _items(st, {self.as_list(right)}))"
            if self.bound and right.safe and _HOISTED.match(right.code) and \
                    right.kind in ("values", "pieces", "players", "tuple"):
                # worked out once before the filter around: see `_each_item`
                self._memberships[code] = (f"({left.code} {op} {right.code})", right.code)
            return Expr(code, "bool", True)
        if op in ("is", "is not") and isinstance(node.right, n.EmptyLiteral):
            items, _ = self.collection_code(node.left, scope, slots)
            return Expr(f"(not {items})" if op == "is" else f"bool({items})", "bool", True)
        left = self._comparand(node.left, node.right, scope, slots)
        right = self._comparand(node.right, node.left, scope, slots)
        if op in ("==", "is", "!=", "is not"):
            self._never_equal(node, scope, left, right)
        a, b = left.code, right.code
        if left.kind == right.kind == "zone" and op in ("==", "is", "!=", "is not"):
            # two places: the same zone or not (`z == discard` after `choose z from [deck, discard]`)
            return Expr(f"({a} {'==' if op in ('==', 'is') else '!='} {b})", "bool", True)
        if "none" in (left.kind, right.kind):
            pass  # `x is none` asks whether there is a value at all, whatever its type
        elif left.kind in ("zone", "zones") or right.kind in ("zone", "zones"):
            a, b = self.as_list(left), self.as_list(right)
        if op in ("==", "is", "!=", "is not") and (
                left.kind in COLLECTIONS or right.kind in COLLECTIONS or left.kind == right.kind == "any"):
            self.collection_compares.add(node)  # reads the order of both sides (rulelang.order_reads)
            return Expr(f"({'' if op in ('==', 'is') else 'not '}_equal(st, {a}, {b}))", "bool", True)
        if op in ("==", "is"):
            return Expr(f"({a} == {b})", "bool", True)
        if op in ("!=", "is not"):
            return Expr(f"({a} != {b})", "bool", True)
        if "tuple" in (left.kind, right.kind):  # tuples are ordered part by part, as words are
            for side, side_node in ((left, node.left), (right, node.right)):
                if side.kind not in ("tuple", "any"):
                    self.error("E201", f"`{op}` orders a tuple against another tuple, not {a_kind(side.kind)}",
                               side_node, help="compare one part with a number: `bid[0] > 3`")
                    raise CompileError
        else:
            self._need_number(left.kind, node.left, f"`{op}`")
            self._need_number(right.kind, node.right, f"`{op}`")
        if left.safe and right.safe:
            return Expr(f"({a} {op} {b})", "bool", True)
        helper = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}[op]
        return Expr(f"{helper}({a}, {b})", "bool", True)

    def _never_equal(self, node, scope, left: Expr, right: Expr) -> None:
        """W413 where `==` (or `!=`) compares with a string it can never equal: a number, a
        player or true/false, or an attribute that no piece has with that text (`suit ==
        "heart"` where the suits are `hearts`, ...); and a list compared with one value."""
        for side, other, side_node in ((left, right, node.left), (right, left, node.right)):
            if side.kind in ("values", "pieces", "players", "zone") and other.kind in ("int", "str", "bool", "label"):
                hidden_face = isinstance(side_node, n.Name) and side_node.id in self.face_labels \
                    and side_node.id in self.kinds
                self.error("W413", f"this compares {a_kind(side.kind)} with {a_kind(other.kind)}: they are "
                           "never equal", node, help=f"`{side_node.id}` here is every piece of the kind "
                           f"`{side_node.id}`, not the face of `{self.face_labels[side_node.id]}`: rename the kind"
                           if hidden_face else "`X in LIST` asks whether the list holds X; `all(LIST, it == X)` "
                           "whether every item is X")
                return
        for literal, other_node, other in ((node.left, node.right, right), (node.right, node.left, left)):
            if not (isinstance(literal, n.Literal) and literal.value.__class__ is str):
                continue
            text = literal.value
            # (a counter may be set to text later in the file though it starts as a number)
            if other.kind in ("int", "bool", "player") and not self._reads_a_counter(other_node):
                self.error("W413", f"this compares {a_kind(other.kind)} with the string \"{text}\": they are never "
                           "equal", node, help=f"did you mean a name, without quotes: `{text}`?"
                           if text.isidentifier() else None)
                return
            attribute = self._fixed_attribute(other_node, scope)
            if attribute is None and (isinstance(other_node, n.Attribute) and other_node.name == "face" or isinstance(
                    other_node, n.Name) and other_node.id == "face" and scope.element is not None
                    and scope.lookup("face") is None):
                attribute = "face"
            if attribute is None:
                continue
            texts = self._texts_of(attribute)
            if texts and text not in texts:
                close = similar_names(text, texts)  # written as the literal is: in quotes
                close = "did you mean " + " or ".join(f'`"{c}"`' for c in close) + "?" if close else None
                self.error("W413", f"no piece has `{attribute}` \"{text}\": this is never equal", literal,
                           help=close or f"its values are {', '.join(sorted(texts)[:12])}")
            elif not texts and attribute == "face" and self._faces_are_numbers():
                self.error("W413", f"every face is a number, never the text \"{text}\": this is never equal",
                           literal, help=f"write the number without quotes: `{text}`" if text.lstrip("-").isdigit()
                           else None)
            return
        for literal, other_node in ((node.left, node.right), (node.right, node.left)):
            # `face == 7` where no die has a face 7 (a number: text is looked at above)
            if isinstance(literal, n.Literal) and literal.value.__class__ is int and (
                    isinstance(other_node, n.Attribute) and other_node.name == "face" or isinstance(other_node, n.Name)
                    and other_node.id == "face" and scope.element is not None and scope.lookup("face") is None):
                labels = {label for _, kind in (getattr(self, "kind_defs", None) or {}).values()
                          if kind.category == "die" for label in kind.face_labels}
                if labels and literal.value not in labels:
                    numbers = sorted(label for label in labels if label.__class__ is int)
                    self.error("W413", f"no die has a face {literal.value}: this is never equal", literal,
                               help=f"the faces that are numbers are {', '.join(map(str, numbers[:12]))}"
                               if numbers else "no face is a number: compare with a face's name, such as `face == "
                               f"{sorted(map(str, labels))[0]}`")
                    return
        for side, other_node, other in ((node.left, node.right, right), (node.right, node.left, left)):
            attribute = self._fixed_attribute(side, scope)
            if attribute is None or other.kind not in ("int", "bool") or self._reads_a_counter(other_node) \
                    or not self._texts_of(attribute):
                continue
            named = f"`{other_node.id}`" if isinstance(other_node, n.Name) else "the other side"
            self.error("W413", f"`{attribute}` is a text and {named} is {a_kind(other.kind)}: they are never "
                       "equal", node,
                       help=f'to compare with the text, write it in quotes: `"{other_node.id}"`'
                       if isinstance(other_node, n.Name) else None)
            return

    def _faces_are_numbers(self) -> bool:
        """Whether the game has dice, and every face of every die is a number."""
        labels = [label for _, kind in (getattr(self, "kind_defs", None) or {}).values() if kind.category == "die"
                  for label in kind.face_labels]
        return bool(labels) and all(label.__class__ is int for label in labels)

    def _fixed_attribute(self, node, scope) -> str | None:
        """The attribute ``node`` reads (`card.suit`, or `suit` about the item of a `where`), when
        it is one fixed as the piece is made (not `value`, `number` or `kind`); else None."""
        attribute = node.name if isinstance(node, n.Attribute) else node.id if isinstance(node, n.Name) \
            and scope.element is not None and scope.lookup(node.id) is None else None
        return attribute if attribute in self.attributes and attribute not in ("value", "number", "kind") else None

    def _reads_a_counter(self, node) -> bool:
        """Whether ``node`` reads a counter (`points`, `points of player`, `sheet[k]`)."""
        while isinstance(node, (n.Of, n.Index)):
            node = node.left if isinstance(node, n.Of) else node.obj
        return isinstance(node, n.Name) and node.id in self.counters

    def _texts_of(self, attribute: str) -> set[str]:
        """The texts an attribute takes: a face label (`face`) or a column of the pieces; empty
        where it also takes numbers (with numbers among the faces, a number may equal a face)."""
        def find(kinds) -> set[str]:
            if attribute == "face":
                values = {label for kind in kinds for label in kind.face_labels}
            else:
                column = self.attributes.index(attribute)
                found = [row[column] for kind in kinds for row in kind.pieces if column < len(row)]
                if not all(v is None or v.__class__ is str for v in found):  # (a list is no text, nor hashable)
                    return set()
                values = set(found) - {None}
            return values if values and all(v.__class__ is str for v in values) else set()

        return self._texts_found(attribute, find)

    def _comparand(self, node, other, scope, slots) -> Expr:
        # `kind == red_die` compares with the kind's name, not with its pieces.
        if isinstance(node, n.Name) and node.id in self.kinds and scope.lookup(node.id) is None:
            if (isinstance(other, n.Name) and other.id == "kind") or \
                    (isinstance(other, n.Attribute) and other.name == "kind"):
                return Expr(self.constant(node.id), "str", True)
        return self.code(node, scope, slots)

    def _x_Binary(self, node, scope, slots):
        left = self.code(node.left, scope, slots)
        right = self.code(node.right, scope, slots)
        if node.op == "+" and {left.kind, right.kind} & {"piece", "pieces"} and \
                (self._only_collections(left, slots) or self._only_collections(right, slots)):
            # a variable that has only ever held collections, of two kinds (so its kind is any):
            # `let group = empty`, then `group = [top(deck)]`: `group + bottom(deck)` joins them
            return Expr(f"_concat(st, {self.as_list(left)}, {self.as_list(right)})", "any", True)
        if node.op == "+" and (left.kind in COLLECTIONS or right.kind in COLLECTIONS):
            kinds = {collection_type(left.kind), collection_type(right.kind)} - {"values"}
            kind = kinds.pop() if len(kinds) == 1 else "values"
            return Expr(f"_concat(st, {self.as_list(left)}, {self.as_list(right)})", kind, True)
        piece_node, other_node = (node.left, node.right) if left.kind == "piece" else (node.right, node.left)
        if node.op == "+" and {left.kind, right.kind} == {"piece", "any"} and isinstance(other_node, n.Name) \
                and self.counter_starts.get(other_node.id) == "values":  # a counter that starts as a list
            self.error("E201", "`+` needs two numbers or two collections, not a piece", piece_node,
                       help=f"to add the piece to a list, make it a list of one: `{_source(other_node)} + "
                       f"[{_source(piece_node)}]`; for a number, name one it has, such as `.value`")
            raise CompileError
        self._need_number(left.kind, node.left, f"`{node.op}`")
        self._need_number(right.kind, node.right, f"`{node.op}`")
        if node.op == "*":  # the one operator that makes numbers grow fast: checked
            return Expr(f"_mul(st, {left.code}, {right.code})", "int", left.safe and right.safe)
        op = "//" if node.op == "/" else node.op
        return Expr(f"({left.code} {op} {right.code})", "int", left.safe and right.safe)

    @staticmethod
    def _only_collections(e: Expr, slots) -> bool:
        """Whether ``e``, of any kind, is a variable that has only ever been given collections."""
        slot = re.fullmatch(r"fr\[(\d+)\]", e.code) if e.kind == "any" and slots is not None else None
        given = slots.kinds.get(int(slot.group(1)), set()) - {"none"} if slot else set()
        return bool(given) and given <= {"pieces", "values", "players"}

    def _x_Index(self, node, scope, slots):
        if self.keyed_counter(node, scope) is not None:
            return self._counter_entry_expr(node, None, scope, slots)
        if self.zone_family(node, scope) is not None:
            return self._zone_of_key(node, None, scope, slots)
        items, kind = self.collection_code(node.obj, scope, slots)
        index = self.code(node.index, scope, slots)
        return Expr(f"_at({items}, {index.code})", SINGLE_FOR.get(kind, "any"))

    def _value_call(self, name: str, node, scope, slots) -> Expr:
        """`keys(COUNTER)`, `product(A, B, ...)` and `text(...)`: tuples and labels."""
        args = node.args
        if name == "keys":
            named = args[0].id if len(args) == 1 and isinstance(args[0], n.Name) \
                and scope.lookup(args[0].id) is None else None
            if named in self.zone_families:
                return Expr(f"list({self.constant(self.zone_families[named][0])})", "values", True)
            counter = self.counter_defs.get(named)
            if counter is None or not counter.keys:
                self.error("E201" if len(args) == 1 else "E104",
                           "`keys` takes the name of a counter or zone with keys", args[0] if len(args) == 1 else node,
                           help="declare one with `counter NAME: per player, for each KEY in ... = 0`, or "
                           "`zone NAME: shared row, for each KEY in ...`")
                raise CompileError
            return Expr(f"list({self.constant(counter.keys)})", "values", True)
        if name == "product":
            if len(args) < 2:
                self.error("E104", f"`product` takes 2 or more argument(s), not {len(args)}", node)
                raise CompileError
            lists = []
            for arg in args:
                e = self.code(arg, scope, slots)
                if e.kind not in COLLECTIONS and e.kind not in ("any", "tuple"):
                    self.error("E201", f"`product` needs collections, not {a_kind(e.kind)}", arg)
                    raise CompileError
                self._no_pieces_in_tuples(e.kind, arg)
                lists.append(self.as_list(e))
            return Expr(f"_product(st, {', '.join(lists)})", "values", True)
        parts = []
        for arg in args:  # each part as the trace shows it: pieces and players by name
            e = self.code(arg, scope, slots)
            way = {"piece": "st.describe_piece", "pieces": "st.describe_group", "zone": "st.zone_name",
                   "player": "_seat_text",
                   "zones": "(lambda _v: '[' + ', '.join(map(st.zone_name, _v)) + ']')",
                   "zonelist": "(lambda _v: '[' + ', '.join(map(st.zone_name, _v)) + ']')",
                   "players": "(lambda _v: '[' + ', '.join(map(_seat_text, _v)) + ']')"}.get(e.kind)
            counter = arg.left if isinstance(arg, n.Of) else arg
            if way is None and e.kind == "any" and isinstance(counter, n.Name) and counter.id in self.counters \
                    and scope.lookup(counter.id) is None:
                # whether it holds players is known once every rule is compiled: asked when it runs
                parts.append(f"_counter_text(st, {counter.id!r}, {e.code})")
                continue
            parts.append(f"_shown({e.code})" if way is None else f"_named_by({way}, {e.code})")
        return Expr(f"_text({', '.join(parts)})", "str", True)

    def text_or(self, kind: str, node, scope) -> str:
        """``kind``, or "str" where it is "any" and ``node`` reads an attribute that every piece
        has as a text (a table's `name` column): so that `sum(hand, name)` is found out."""
        if kind != "any":
            return kind
        attribute = self._fixed_attribute(node, scope)
        return "str" if attribute is not None and self._texts_of(attribute) else kind

    def _need_ranking_value(self, name: str, kind: str, node) -> None:
        """E201 where what `sum`, `max`, `highest` and the like work out for each item can never
        be ranked: a zone or a piece would be read as its id; `sum`, `max` and `min` skip what
        is not a number, so a string or true/false would count as nothing."""
        if kind in COLLECTIONS or kind == "piece" or (
                kind in ("str", "bool", "tuple") and name not in ("highest", "lowest", "sorted")):
            hint = {"zone": "count the pieces with `count(...)`, or add their values with `sum(...)`",
                    "piece": "name a number the piece has, such as `.value` or `.number`",
                    "bool": "`count(C, CONDITION)` counts the items for which a condition holds",
                    "tuple": "tuples are ordered part by part: `highest(C, X)` (or `lowest`) gives the item whose "
                    "tuple is greatest" if name in ("max", "min") else None}
            self.error("E201", f"`{name}(C, X)` needs a number X for each item, not {a_kind(kind)}", node,
                       help=hint.get(kind))
            raise CompileError

    def _x_Call(self, node, scope, slots):
        name = node.func
        if name in self.defines:
            return self._expand_define(self.defines[name], node.args, node, scope, slots)
        if name in self.param_columns and name not in FUNCTIONS:
            if scope.element is None or scope.element[1] not in ("piece", "any"):
                self.error("E103", f"`{name}` is a table column: call it on a piece", node,
                           help=f"write `card.{name}(...)`, or `{name}(...)` in a condition about each card")
                raise CompileError
            return self._column_call(Expr(*scope.element), node, scope, slots)
        if name not in FUNCTIONS:
            self.error("E103", f"unknown function `{name}`", node,
                       help=self.suggest(name, list(FUNCTIONS) + list(self.defines)))
            raise CompileError
        args = node.args
        if name in ("keys", "product", "text"):
            return self._value_call(name, node, scope, slots)
        arity = {"seat": (1, 1), "abs": (1, 1), "top": (1, 1), "bottom": (1, 1), "distinct": (1, 1),
                 "subsets": (1, 2), "any": (2, 2), "all": (2, 2), "owner": (1, 1), "highest": (1, None),
                 "lowest": (1, None), "sorted": (1, None), "position": (2, 2), "runs": (2, 3),
                 "range": (2, 2), "team": (1, 1), "partners": (1, 1),
                 "players_after": (1, 1), "starting_with": (2, 2)}.get(name, (1, 2))
        if not arity[0] <= len(args) <= (arity[1] or len(args)):
            expected = str(arity[0]) if arity[0] == arity[1] else \
                f"{arity[0]} or {arity[1]}" if arity[1] else f"{arity[0]} or more"
            self.error("E104", f"`{name}` takes {expected} argument(s), not {len(args)}", node)
            raise CompileError
        if name == "seat":
            return Expr(f"({self.code(args[0], scope, slots).code} % st.n)", "player", True)
        if name in ("team", "partners", "players_after"):
            who = self.code(args[0], scope, slots)
            if who.kind not in ("player", "any"):
                self.error("E201", f"`{name}` needs a player, not {a_kind(who.kind)}", args[0],
                           help=f"`{name}(player)`, `{name}(owner(c))`")
                raise CompileError
            if name == "players_after":
                return Expr(f"_players_after(st, {who.code})", "players", True)
            return Expr(f"_team(st, {who.code}, {name == 'partners'})", "players", True)
        if name == "starting_with":
            items = self.code(args[0], scope, slots)
            if items.kind not in ("players", "any"):
                self.error("E201", f"`starting with` puts players in seat order; this is {a_kind(items.kind)}",
                           args[0], help="`for each p in players starting with dealer:`; to order other "
                           "things, `sorted by`")
                raise CompileError
            who = self.code(args[1], scope, slots)
            if who.kind not in ("player", "any"):
                self.error("E201", f"`starting with` needs a player, not {a_kind(who.kind)}", args[1],
                           help="`starting with first(others)`, `starting with seat(0)`")
                raise CompileError
            return Expr(f"_starting_with(st, {items.code}, {who.code})", "players", True)
        if name == "owner":
            piece = self.code(args[0], scope, slots)
            if piece.kind == "zone":
                return Expr(f"st.zone_of({piece.code})[1]", "player")
            if piece.kind not in ("piece", "any"):
                self.error("E201", f"`owner` needs a piece or a zone, not {a_kind(piece.kind)}", args[0])
                raise CompileError
            return Expr(f"_owner(st, {piece.code})", "player")
        if name == "range":
            low, high = (self.code(arg, scope, slots) for arg in args)
            for bound, arg in ((low, args[0]), (high, args[1])):
                self._need_number(bound.kind, arg, "`range`")
            return Expr(f"_range(st, {low.code}, {high.code})", "values", True)
        if name == "abs":
            value = self.code(args[0], scope, slots)
            return Expr(f"abs({value.code})", "int", value.safe)
        if name in ("top", "bottom"):
            zone = self.code(args[0], scope, slots)
            position = -1 if name == "top" else 0
            if zone.kind == "zone":
                return Expr(f"_{name}(st.zones[{zone.code}])", "piece")
            if zone.kind == "zones":
                z = self.fresh("z")
                return Expr(f"[st.zones[{z}][{position}] for {z} in {zone.code} if st.zones[{z}]]", "pieces", True)
            self.error("E201", f"`{name}` needs a zone, not {a_kind(zone.kind)}", args[0])
            raise CompileError
        first = self.code(args[0], scope, slots)
        if first.kind not in COLLECTIONS and first.kind not in ("piece", "any"):
            two_numbers = name in ("max", "min", "sum") and len(args) == 2 and first.kind in NUMERIC
            self.error("E201", f"`{name}` needs a collection, not {a_kind(first.kind)}", args[0],
                       help=f"for the {'greater' if name == 'max' else 'less' if name == 'min' else 'sum'} of "
                       f"numbers, make them a list: `{name}([a, b])`" if two_numbers else None)
            raise CompileError
        if name in ("sum", "max", "min") and len(args) == 1 and self._sheets_of_players(args[0], scope, slots):
            sheet = args[0].left.id
            self.error("E201", f"`{name}` works on numbers, and `{sheet} of` several players is a list of lists "
                       "(each player's values, in the keys' order)", args[0],
                       help=f"name the number to take from each player: `{name}(players, {name}({sheet} of it))`")
            raise CompileError
        if name in ("sum", "max", "min", "highest", "lowest", "sorted") and len(args) == 1 and first.kind == "zonelist":
            self.error("E201", f"`{name}` of a list of zones: a zone is no number", args[0],
                       help=f"name what to take from each zone: `{name}(..., count(it))`, or for the pieces in "
                       f"them, `{name}(..., sum(it))`")
            raise CompileError
        items, kind = self.as_list(first), collection_type(first.kind)
        element = SINGLE_FOR.get(kind, "any")
        if name in ("first", "last") and len(args) == 2:
            count = self.code(args[1], scope, slots)
            if count.kind not in ("int", "any"):
                self.error("E201", f"`{name}(C, N)` needs a number N, not {a_kind(count.kind)}", args[1])
                raise CompileError
            return Expr(f"_take({items}, {count.code}, {name == 'last'})", kind, True)
        if name in ("first", "last"):
            end = 0 if name == 'first' else -1
            if _ZONE_CODE.match(items):  # a zone's list, read twice rather than calling `_at`
                return Expr(f"({items}[{end}] if {items} else None)", element)
            return Expr(f"_at({items}, {end})", element)
        if name == "distinct":
            return Expr(f"_distinct(st, {items})", kind, True)
        if name == "subsets" and len(args) == 2:
            size = self.code(args[1], scope, slots)
            if size.kind not in ("int", "any"):
                self.error("E201", f"`subsets(C, K)` needs a number K, not {a_kind(size.kind)}", args[1])
                raise CompileError
            return Expr(f"_subsets(st, {items}, None, {size.code})", "subsets", True)
        if name == "subsets":
            return Expr(f"_subsets(st, {items})", "subsets", True)
        if name == "position":
            x = self.code(args[1], scope, slots)
            if kind == "subsets" and x.kind == "pieces":  # one group among groups
                return Expr(f"_position(st, {items}, {x.code}, True)", "int")
            if kind == "zonelist" and x.kind == "zone":  # one zone among zones, not its pieces
                return Expr(f"_position(st, {items}, {x.code}, True)", "int")
            if x.kind in COLLECTIONS:
                return Expr(f"_position(st, {items}, {self.as_list(x)})", "values", True)
            return Expr(f"_position(st, {items}, {x.code})", "any" if x.kind == "any" else "int")
        step = None
        if name == "runs" and len(args) == 3:
            step = self.code(args[2], scope, slots)
            if step.kind not in ("int", "any", "player"):
                self.error("E201", f"the step of `runs` needs a number, not {a_kind(step.kind)}", args[2],
                           help="`runs(C, ATTR, 1)` finds runs going up by one")
                raise CompileError
        e = self.fresh("e")
        if len(args) > 2 and name in ("highest", "lowest", "sorted"):  # ranking keys: the first, then tie-breaks
            inner = Scope(scope, element=(e, element))
            self.bound.append(e)
            try:
                keyed = [self.code(key, inner, slots) for key in args[1:]]
            finally:
                self.bound.pop()
            for key_expr, key in zip(keyed, args[1:]):
                self._need_ranking_value(name, key_expr.kind, key)
            keys = ", ".join(k.code for k in keyed)
            rows = f"[(({keys}), {e}) for {e} in _items(st, {items})]"
            if name == "sorted":
                return Expr(f"_sorted_keys({rows})", kind, True)
            return Expr(f"_ranked_item({name == 'highest'}, {rows})", element)
        if len(args) >= 2:
            inner = Scope(scope, element=(e, element))
            self.bound.append(e)
            try:
                if name in ("any", "all", "count"):
                    per_item = self.truth_code(args[1], inner, slots)
                else:
                    per_expr = self.code(args[1], inner, slots)
                    per_item = per_expr.code
            finally:
                self.bound.pop()
            if name in ("sum", "max", "min", "highest", "lowest", "sorted"):
                self._need_ranking_value(name, self.text_or(per_expr.kind, args[1], inner), args[1])
        elif element == "piece":
            if name in ("highest", "lowest", "sorted", "pairs"):
                # Pieces rank by their number; dice (no number) by the value they show.
                per_item = f"({self.attribute_code('number', e)} if {self.attribute_code('number', e)} " \
                           f"is not None else {self.attribute_code('value', e)})"
            else:
                per_item = self.attribute_code("value", e)
        else:
            per_item = e
        generator = f"for {e} in _items(st, {items})"
        if len(args) == 1 and element == "piece" and name in ("highest", "lowest") and self._valueless("number"):
            self.error("W417", f"`{name}` of pieces ranks them by `number` (or `value`), and no piece of this game "
                       "has either: it is always none", args[0],
                       help=f"name the attribute to rank by: `{name}(..., {self._a_number_attribute()})`")
        if len(args) == 1 and element == "piece" and name in ("sum", "max", "min") and self._valueless():
            self.error("W417", f"`{name}` of pieces reads each piece's `value`, and no piece of this game has one "
                       f"(only dice, and kinds that declare `value`): it is always {0 if name == 'sum' else 'none'}",
                       args[0], help=f"name the attribute to {'add' if name == 'sum' else 'rank by'}: "
                       f"`{name}(..., number)`")
        if len(args) == 1 and element == "piece" and name in ("sum", "max", "min"):
            # the values the pieces show, gathered without a Python loop
            column = self.attribute_code("value", "")[:-2]
            values = f"list(map({column}.__getitem__, _items(st, {items})))"
            if name == "sum":
                return Expr(f"_total({values})", "int", True)
            return Expr(f"_extreme({name}, {values})", "int")
        if len(args) == 1 and element == "piece" and name in ("highest", "lowest"):
            if self._sorted_by_number(args[0], scope):  # no need to look at them all
                return Expr(f"_extreme_sorted({name == 'highest'}, st, {items})", element)
            return Expr(f"_extreme_piece({name == 'highest'}, st, _items(st, {items}))", element)
        if name == "count":
            if len(args) == 1:
                if isinstance(args[0], n.Call) and args[0].func == "distinct" and "distinct" not in self.defines \
                        and items.startswith("_distinct(st, "):  # (not hoisted): the groups need not be made
                    return Expr(f"_count_distinct{items[len('_distinct'):]}", "int", True)
                return Expr(f"len({items})", "int", True)
            counted, per_item = self._each_item(e, items, per_item)
            return Expr(f"sum(1 {counted} if {per_item})", "int", True)
        if name == "any":
            return Expr(f"any({per_item} {generator})", "bool", True)
        if name == "all":
            return Expr(f"all({per_item} {generator})", "bool", True)
        if name == "sum":
            return Expr(f"_total([{per_item} {generator}])", "int", True)
        if name in ("max", "min"):
            return Expr(f"_extreme({name}, [{per_item} {generator}])", "int")
        if name == "sorted":
            column = re.match(rf"^(st\.dynamic\[\d\]|st\.pieces\.columns\[\d+\])\[{e}\]$", per_item)
            if column is not None and element == "piece":  # a piece's attribute: no pairs made
                return Expr(f"_sorted_column({column.group(1)}, _items(st, {items}))", kind, True)
            return Expr(f"_sorted([({per_item}, {e}) {generator}])", kind, True)
        if name == "pairs":
            return Expr(f"_pairs(st, [{per_item} {generator}])", "int", True)
        if name == "runs":
            stepped = f"{step.code}, True" if step else "None"
            return Expr(f"_runs(st, [{per_item} {generator}], {stepped})", "values", True)
        return Expr(f"_extreme_item({name == 'highest'}, [({per_item}, {e}) {generator}])", element)
