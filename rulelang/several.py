"""A choice of several pieces (`choose NAME from PIECES, 1 to 3 of them`) as a chain of
single-piece decisions: the pieces on offer, and what each pick leaves to choose.

The pieces to choose from are put in the collection's order with identical pieces side by side
(at the place of the first of them). Each step offers, after the previous pick, the first
piece of each run of identical pieces, so every group of pieces is reached by exactly one
chain of picks; a piece is offered only if enough pieces follow it to reach the minimum, and
`done` (None) only once the minimum is reached, so every step can be completed. Where a seat
does not see every piece on offer, the chain ends with `done` even when no piece is left after
the last pick: a chain that stopped by itself would tell that seat the last pick was the last
piece in the collection's order."""

from __future__ import annotations

from typing import Any

from .codegen import _items, piece_key
from .engine_values import SEE_PIECES, _value_text

HIDDEN = "hidden"  # the key of a piece the chooser does not see: never alike to another


def _check_counts(low: Any, high: Any) -> None:
    for bound in (low, high):
        if bound.__class__ is not int:
            raise ValueError(f"`... of them` needs whole numbers of pieces, not {_value_text(bound)}")
    if not 0 <= low <= high:
        raise ValueError(f"`{low} to {high} of them` is no number of pieces to choose: the least must be 0 "
                         "or more, and no more than the most" if low != high else
                         f"`{low} of them` is no number of pieces to choose: it must be 0 or more")


def start(st, pieces: list, low: Any, high: Any, chooser: int | None = None) -> tuple:
    """The chain's state: (pieces in offering order, their keys, picked, position, low, high,
    whether a seat or the spectator does not see every piece). A piece ``chooser`` does not
    see is keyed by itself, (HIDDEN, piece): how many options a blind pick offers must not tell
    whether the cards are alike."""
    _check_counts(low, high)
    runs: dict[Any, list[int]] = {}
    for p in _items(st, pieces):
        if p.__class__ is not int:
            raise ValueError("`choose ... of them` needs pieces; one of its options is not a piece")
        seen = chooser is None or st.sight(st.where[p], chooser) == SEE_PIECES
        runs.setdefault(piece_key(st, p) if seen else (HIDDEN, p), []).append(p)
    pool = [p for run in runs.values() for p in run]
    keys = [key for key, run in runs.items() for _ in run]
    zones = {st.where[p] for p in pool}
    blind = any(st.sight(zone, seat) != SEE_PIECES for zone in zones for seat in [*range(st.n), None])
    return pool, keys, (), -1, low, high, blind


def start_values(values: list, low: Any, high: Any) -> tuple:
    """The chain's state for a choice of several players or values (``start``): equal values
    side by side, each value its own key; nothing is hidden (a value is what every seat reads
    in the rules)."""
    _check_counts(low, high)
    runs: dict[Any, list] = {}
    for v in values:
        if v is None:
            raise ValueError("`choose ... of them` chooses among values, and `none` is none")
        runs.setdefault(v, []).append(v)
    pool = [v for run in runs.values() for v in run]
    return pool, pool, (), -1, low, high, False


def more(state: tuple) -> bool:
    """Whether another step comes: fewer than the most picked, and a piece left to pick (or
    fewer than the least, where the step finds no option: the choice's `otherwise`; or a seat
    that does not see the pieces, where the step offers `done` alone)."""
    pool, _, picked, position, low, high, blind = state
    return len(picked) < high and (position + 1 < len(pool) or len(picked) < low or blind)


def options(state: tuple) -> list:
    """The pieces offered at this step (then None, `done`, once enough are picked)."""
    pool, keys, picked, position, low, _, _ = state
    end = len(pool) - max(low - len(picked) - 1, 0)
    offered, previous = [], None
    for i in range(position + 1, end):
        if i == position + 1 or keys[i] != previous:
            offered.append(pool[i])
        previous = keys[i]
    if len(picked) >= low:
        offered.append(None)
    return offered


def take(state: tuple, piece: int) -> tuple:
    """The state after ``piece`` is picked."""
    pool, keys, picked, position, low, high, blind = state
    # (a value's first place after the last pick: equal values stand side by side)
    return pool, keys, picked + (piece,), pool.index(piece, position + 1), low, high, blind
