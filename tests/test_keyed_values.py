"""Counters with keys, tuples and labelled options: what each seat sees of an owner-only sheet
(trace, observation, board, determinization), and that a sheet is stored flat, cheap to clone."""

from __future__ import annotations

import random
from pathlib import Path

import rulelang
from rulelang import knowledge
from rulelang.tui import Style, render_board

ROOT = Path(__file__).resolve().parent.parent
SHEET = ROOT / "tests" / "hidden_games" / "secret_sheet.rules"
CLIMB = ROOT / "tests" / "scenarios" / "language" / "climb.rules"


def _after_first_turn():
    state = rulelang.load(SHEET).new_initial_state(2)
    rng = random.Random(4)
    state.apply_action(state.sample_chance(rng))
    start = len(state.events)
    state.apply_action(state.legal_actions()[0])
    return state, start


def test_an_owner_only_sheet_is_its_owners_alone():
    state, start = _after_first_turn()
    own, other = state.event_lines(start, viewer=0), state.event_lines(start, viewer=1)
    assert any(line.startswith("player 1 chooses write: low: ") or line.startswith("player 1 chooses write: high: ")
               for line in own)
    assert any(line.startswith("player 1 chooses write: (hidden)") for line in other)
    assert any(" of player 1 = " in line and line.startswith("box[") for line in own)
    assert any(line.startswith("box of player 1 changes") for line in other)  # the box was chosen in secret
    assert not any("chooses write: low" in line or "chooses write: high" in line for line in other)
    assert "box[low] of player 1" in state.observation(0)["counters"]
    assert "box[low] of player 1" not in state.observation(1)["counters"]
    assert "box[low] of player 2" in state.observation(1)["counters"]
    board = render_board(state, ["you", "random"], 1, Style(False), 80)
    assert "box of player 1 (you): low:? high:? chance:?" in board
    assert "box of player 2 (random): low:— high:— chance:—" in board


def test_a_determinization_keeps_only_what_the_seat_saw_of_a_sheet():
    state, _ = _after_first_turn()
    sampled = knowledge.sample_state(state, 1, random.Random(1))
    written = [i for i in range(len(state.counters)) if state.counter_name(i).endswith("of player 1")
               and state.counter_name(i).startswith("box[") and state.counters[i] is not None]
    assert written
    assert all(sampled.counters[i] is None for i in written)  # seat 1 saw none of them written


def test_a_sheet_takes_one_flat_place_per_key_and_player():
    state = rulelang.load(CLIMB).new_initial_state(3)
    assert len(state.counters) == 11 + 11 + 3 * (11 + 1)
    assert state.counter_name(state.counter_base + 5 * 3 + 2) == "climbed[7] of player 3"
    copy = state.clone()
    assert copy.counters == state.counters and copy.counters is not state.counters
