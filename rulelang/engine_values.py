"""Values and helpers the engine's parts share: constants, outcomes of rolls, the words for
values and errors. Imports nothing of the engine, so every part may import it."""

from __future__ import annotations

import functools
import itertools
import math
import re
from fractions import Fraction
from typing import Any

from .limits import LimitExceeded

CHANCE = -1


TERMINAL = -4

# A choice's trace event seen in nowhere (``State._choice_seen_in``): made only under a
# condition some seat cannot see, so only its chooser learns that it was made at all
IN_SECRET = -2


def _multiset_count(faces: int, dice: int) -> int:
    """How many different multisets of faces ``dice`` alike dice can show."""
    return math.comb(dice + faces - 1, faces - 1) if faces else 0


def _face_kinds(firsts: tuple[int, ...] | None, faces: int) -> int:
    """How many faces of a die differ (``firsts``: each face's first alike face, or None)."""
    return faces if firsts is None else len(set(firsts))


@functools.cache
def _weighted_outcomes(firsts: tuple[int, ...], dice: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The outcomes of rolling ``dice`` alike dice whose alike faces roll as one (``firsts``:
    each face's first alike face): each multiset of first faces, with its exact probability,
    multinomial x product of (alike faces / faces) per face shown."""
    weights: dict[int, int] = {}
    for f in firsts:
        weights[f] = weights.get(f, 0) + 1
    classes, faces = sorted(weights), len(firsts)
    outcomes = []
    for combo in itertools.combinations_with_replacement(classes, dice):
        ways = math.factorial(dice)
        probability = Fraction(1)
        for face, run in itertools.groupby(combo):
            k = len(list(run))
            ways //= math.factorial(k)
            probability *= Fraction(weights[face], faces) ** k
        outcomes.append((combo, ways * probability))
    return tuple(outcomes)


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
@functools.cache  # a die kind's faces: worked out at every roll otherwise
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
        return "a value is none here (the top of an empty zone, an index past the end of a list, or a piece that is not there)"
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
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else shown(value)


def seats_text(value) -> str:
    """A value a counter that holds players keeps, as the trace and the board write players:
    `player 2`, `[player 1, player 3]`; anything else as ``shown`` writes it."""
    if value.__class__ is int:
        return f"player {value + 1}"
    if value.__class__ in (list, tuple) and value and all(v.__class__ is int for v in value):
        return "[" + ", ".join(f"player {v + 1}" for v in value) + "]"
    return shown(value)


def shown(value) -> str:
    """A value as the trace and the screen write it: `none`, `true`, `(7, 8)`, `chance`."""
    if value is None:
        return "none"
    if value.__class__ is bool:
        return "true" if value else "false"
    if value.__class__ is tuple:
        return "(" + ", ".join(map(shown, value)) + ")"
    if value.__class__ is list:
        return "[" + ", ".join(map(shown, value)) + "]"
    return str(value)


class PieceTable:
    """The pieces that exist: their kind and static attribute columns. Replaced, never changed,
    when pieces are created, so clones can share it."""

    __slots__ = ("kind", "columns", "by_kind", "names", "sort_keys")

    def __init__(self, kind: list[int], columns: list[list], by_kind: list[list[int]], names: list[str]):
        self.kind = kind
        self.columns = columns
        self.by_kind = by_kind
        self.names = names
        self.sort_keys: dict[int, list] = {}  # column -> ``sort_key_column``'s answer, once asked

    def sort_key_column(self, column: int) -> list:
        """What a zone `sorted by` the attribute of ``column`` sorts each piece by: the column
        itself when it holds numbers only; else numbers first, then text, then other values
        (by their text), and pieces without the attribute (none) last."""
        found = self.sort_keys.get(column)
        if found is None:
            values = self.columns[column]
            found = values if all(v.__class__ is int for v in values) else list(map(_zone_sort_key, values))
            self.sort_keys[column] = found
        return found


def _zone_sort_key(value) -> tuple:
    if value.__class__ is int or value.__class__ is bool:
        return (0, value)
    if value.__class__ is str:
        return (1, value)
    if value is None:
        return (3, "")
    return (2, shown(value))


def keys_text(keys: tuple) -> str:
    """A counter's keys in a message: `2 to 12`, or the first of them, listed."""
    if len(keys) > 2 and all(k.__class__ is int for k in keys) and list(keys) == list(range(keys[0], keys[-1] + 1)):
        return f"{keys[0]} to {keys[-1]}"
    if len(keys) <= 13:  # "and 1 more" would hide no more than the key itself
        return ", ".join(map(shown, keys))
    return ", ".join(map(shown, keys[:12])) + f" and {len(keys) - 12} more"
