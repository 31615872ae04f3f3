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


DECK_GAME = '''game "High card":
    players 2 to 3
card numbered:
    one for each number in 1 to 10
zone deck: shared pile, hidden
zone hand: per player hand, owner only
zone played: per player pile, public
setup:
    rule shuffle_in: create numbered in deck
    rule deal:
        for each p in players:
            draw 3 from deck to hand of p
turn:
    rule play_a_card:
        choose card from hand of player as "play"
        move card to played of player
end:
    rule hands_empty: game ends when hand of players is empty
winner:
    rule best_card: most sum(played of player, number)
'''


def test_draw_is_a_chance_node_with_uniform_exact_outcomes(tmp_path):
    rules = tmp_path / "deck.rules"
    rules.write_text(DECK_GAME)
    game = rulelang.load(rules)
    state = game.new_initial_state(2)
    assert state.current_player() == CHANCE and state.prompt() == "draw"
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 10 and {p for _, p in outcomes} == {Fraction(1, 10)}
    rng = random.Random(2)
    for _ in range(3):
        state.apply_action(state.sample_chance(rng))
    assert len(state.zones[state.zone_index("hand", 0)]) == 3
    assert len(state.chance_outcomes()) == 7
    finished = play(state, rng)
    assert finished.is_terminal()
    assert finished.observation(1)["zones"]["hand of player 1"] == {"count": 0}
    seen_by_two = "\n".join(finished.event_lines(viewer=1))
    assert "from deck to hand of player 1" in seen_by_two
    assert "move 1 piece(s) from deck to hand of player 1" in seen_by_two


def test_drawing_from_an_empty_zone_names_the_rule(tmp_path):
    rules = tmp_path / "empty-deck.rules"
    rules.write_text(DECK_GAME.replace("draw 3 from deck", "draw 6 from deck"))
    state = rulelang.load(rules).new_initial_state(2)
    rng = random.Random(1)
    with pytest.raises(RuntimeFault) as caught:
        for _ in range(12):
            state.apply_action(state.sample_chance(rng))
    assert caught.value.diagnostic.code == "R507" and "rule `deal`" in str(caught.value)


def test_determinized_copies_keep_what_the_seat_sees(tmp_path):
    from rulelang.agents import determinize

    rules = tmp_path / "deck.rules"
    rules.write_text(DECK_GAME)
    state = rulelang.load(rules).new_initial_state(2)
    rng = random.Random(4)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    mine, theirs, deck = (state.zone_index("hand", 0), state.zone_index("hand", 1), state.zone_index("deck"))
    seen_differently = False
    for _ in range(20):
        copy = determinize(state, 0, rng)
        assert copy.zones[mine] == state.zones[mine]
        assert len(copy.zones[theirs]) == 3 and len(copy.zones[deck]) == 4
        assert sorted(copy.zones[theirs] + copy.zones[deck]) == sorted(state.zones[theirs] + state.zones[deck])
        assert all(copy.where[p] == theirs for p in copy.zones[theirs])
        seen_differently |= copy.zones[theirs] != state.zones[theirs]
    assert seen_differently
