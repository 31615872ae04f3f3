"""Engine-level checks that do not fit the data-driven suites."""

import random
from fractions import Fraction
from pathlib import Path

import pytest

import rulelang
from rulelang import CHANCE
from rulelang.diagnostics import RuntimeFault

GAMES = Path(__file__).resolve().parent.parent / "games"


def play(state, rng):
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_pickomino_plays_to_the_end_and_traces_rules():
    game = rulelang.load(GAMES / "pickomino.rules")
    state = play(game.new_initial_state(3), random.Random(5))
    assert abs(sum(state.returns()) - 1.0) < 1e-9
    assert any("[take_tile, " in line or "[flip_highest, " in line for line in state.event_lines())
    assert "pickomino.rules:" in state.event_lines()[-1]


def test_chance_outcomes_are_multisets_with_exact_probabilities():
    game = rulelang.load(GAMES / "pickomino.rules")
    state = game.new_initial_state(2)
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 1287  # multisets of 8 dice over 6 faces
    assert sum(p for _, p in outcomes) == Fraction(1)


def test_seed_and_history_reproduce_a_game():
    game = rulelang.load(GAMES / "pickomino.rules")
    first = play(game.new_initial_state(4), random.Random(11))
    again = game.new_initial_state(4)
    for action in first.history:
        again.apply_action(action)
    assert again.is_terminal()
    assert again.zones == first.zones
    assert again.event_lines() == first.event_lines()


def test_clone_is_independent():
    game = rulelang.load(GAMES / "chipo-chipa.rules")
    state = game.new_initial_state(2)
    rng = random.Random(3)
    for _ in range(30):
        if state.is_terminal():
            break
        copy = state.clone()
        assert copy.zones == state.zones and copy.legal_actions() == state.legal_actions()
        action = state.sample_chance(rng) if state.current_player() == CHANCE else rng.choice(state.legal_actions())
        copy.apply_action(action)
        state.apply_action(action)
        assert copy.zones == state.zones and copy.history == state.history


def test_a_choice_without_options_names_its_rule(tmp_path):
    rules = tmp_path / "empty.rules"
    rules.write_text(
        'game "Empty":\n    players 1 to 2\n'
        "zone nowhere: shared pile, public\n"
        "turn:\n    rule pick:\n        choose x from nowhere\n"
        "winner:\n    rule nobody: most 0\n")
    game = rulelang.load(rules)
    with pytest.raises(RuntimeFault) as caught:
        game.new_initial_state(1)
    assert caught.value.diagnostic.code == "R501"
    assert "rule `pick`" in str(caught.value) and "empty.rules:5" in str(caught.value)


def test_an_endless_loop_is_stopped(tmp_path):
    rules = tmp_path / "loop.rules"
    rules.write_text(
        'game "Loop":\n    players 1 to 2\n'
        "turn:\n    rule spin:\n        repeat:\n            pass\n"
        "winner:\n    rule nobody: most 0\n")
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(rules).new_initial_state(1)
    assert caught.value.diagnostic.code == "R502" and "rule `spin`" in str(caught.value)


def test_options_change_the_compiled_game():
    game = rulelang.load(GAMES / "pickomino.rules", shorter_game="true")
    assert game.option("shorter_game") is True
    with pytest.raises(rulelang.RulesError) as caught:
        rulelang.load(GAMES / "pickomino.rules", shorter_gmae=True)
    assert "shorter_game" in str(caught.value.diagnostics[0].help)
