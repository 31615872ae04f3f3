"""A choice of several pieces (docs 2.13) reaches every group of LOW to HIGH pieces by exactly
one chain of single picks, never offers a step that cannot be completed, and offers
identical pieces once."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

import rulelang
from rulelang.runtime import CHANCE

GAME = Path(__file__).resolve().parent / "language" / "several_groups.rules"


def _ready(low: int, high: int):
    state = rulelang.load(str(GAME), low=low, high=high).new_initial_state(1)
    while state.current_player() == CHANCE:  # the dice show 1, 1, 3
        state.apply_action(state.outcome_from_labels([1, 1, 3]))
    return state


def _groups(state, seen: list, picked: tuple = ()) -> None:
    if state.is_terminal():
        seen.append(tuple(sorted(picked)))
        return
    texts = [state.action_to_string(a).removeprefix("pick: ") for a in state.legal_actions()]
    assert texts and len(set(texts)) == len(texts)  # every step can be completed; alike pieces once
    for action, text in zip(state.legal_actions(), texts, strict=True):
        after = state.clone()
        after.apply_action(action)
        _groups(after, seen, picked if text == "done" else picked + (text,))


@pytest.mark.parametrize(("low", "high"), [(1, 3), (0, 2), (3, 3), (2, 6), (6, 6), (0, 0)])
def test_every_group_once(low: int, high: int) -> None:
    pool = ["calf"] * 3 + ["ox 1", "ox 3", "d4 showing 1", "d4 showing 1", "d4 showing 3"]
    expected = {tuple(sorted(group)) for size in range(low, high + 1)
                for group in itertools.combinations(pool, size)}
    seen: list = []
    _groups(_ready(low, high), seen)
    assert Counter(seen) == Counter(expected)  # each group reached, and by one chain only


@pytest.mark.parametrize(("low", "high", "said"), [
    (3, 2, "`3 to 2 of them` is no number of pieces to choose: the least must be 0 or more, and no more than "
           "the most"),
    (6, 0, "`6 to 0 of them` is no number of pieces to choose"),
])
def test_a_number_of_pieces_that_is_no_range_says_which(low: int, high: int, said: str) -> None:
    with pytest.raises(rulelang.RuntimeFault) as fault:
        _ready(low, high)
    assert said in fault.value.diagnostic.message and fault.value.diagnostic.code == "R503"
