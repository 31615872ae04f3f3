"""The ismcts bot: full games with hidden information, the same decisions from the same seed,
its iteration budget, and no peeking. Small budgets keep it quick."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulelang
from rulelang import seeding
from rulelang.agents import AGENTS, check_bot, make_agent, seat_view
from rulelang.ismcts import IsmctsAgent, standing
from rulelang.runtime import CHANCE

ROOT = Path(__file__).resolve().parent.parent
SPEC = "ismcts:iterations=16:max_steps=40:determinizations=4"
GAMES = [("games/six-nimmt.rules", 2, {"threshold": 20}), ("tests/hidden_games/secret_chips.rules", 2, {}),
         ("games/pickomino.rules", 2, {})]


def seeded_game(path: str, players: int, options: dict, bots: list[str], seed: int):
    """A game played as `rulelang simulate` plays it: bots kept per seat, reseeded per step."""
    state = rulelang.load(ROOT / path, **options).new_initial_state(players)
    kept: dict = {}
    while not state.is_terminal():
        mover = state.current_player()
        state.apply_action(seeding.seeded_action(state, seed, bots[mover] if mover != CHANCE else None, kept))
    return state


@pytest.mark.parametrize("path,players,options", GAMES[:2], ids=lambda v: str(v).split("/")[-1])
def test_plays_full_games_the_same_from_the_same_seed(path, players, options):
    first = seeded_game(path, players, options, [SPEC, "random"], 7)
    again = seeded_game(path, players, options, [SPEC, "random"], 7)
    assert first.is_terminal()
    assert first.history == again.history
    assert first.winners == again.winners


def test_is_a_bot_with_options_from_a_spec():
    assert "ismcts" in AGENTS
    assert check_bot("ismcts:iterations=200:c=1.2:seconds=0.5") is None
    assert "no option `depth`" in check_bot("ismcts:depth=3")
    assert "at least 1" in check_bot("ismcts:iterations=0")


def _decision_point(path: str, players: int, seed: int):
    """A state some random steps in, at a decision of more than one option."""
    rng = random.Random(seed)
    state = rulelang.load(ROOT / path).new_initial_state(players)
    for _ in range(200):
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        elif len(state.legal_actions()) > 1 and rng.random() < 0.3:
            return state
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    pytest.fail("no decision point")


def test_respects_its_budget():
    state = _decision_point("games/pickomino.rules", 2, 3)
    bot = IsmctsAgent(1, iterations=9, max_steps=40)
    assert bot.choose(seat_view(state)) in state.legal_actions()
    assert bot.searched == 9
    # a wall budget already spent: one iteration, then the most visited action
    bot = IsmctsAgent(1, iterations=10**9, seconds=1e-9, max_steps=40)
    assert bot.choose(seat_view(state)) in state.legal_actions()
    assert bot.searched == 1


def test_decides_alike_where_its_seat_cannot_tell_states_apart():
    from test_no_peeking import sampled_twin  # the determinization with the trace put back

    compared = 0
    for seed in range(4):
        state = _decision_point("tests/hidden_games/secret_chips.rules", 3, seed)
        seat = state.current_player()
        twin = sampled_twin(state, seat, random.Random(seed))
        if twin.current_player() != seat or twin.is_terminal():
            continue
        assert make_agent(SPEC, seed).choose(seat_view(twin)) == make_agent(SPEC, seed).choose(seat_view(state))
        compared += 1
    assert compared


def test_standing_is_returns_at_the_end_and_its_lead_before():
    state = rulelang.load(ROOT / "games/pickomino.rules").new_initial_state(3)
    assert standing(state) == [0.5] * 3  # all tied at the start: no lead
    end = seeded_game("games/six-nimmt.rules", 2, {"threshold": 20}, ["random", "random"], 1)
    assert standing(end) == end.returns()


def test_a_team_score_is_what_bots_aim_at():
    """A cooperative game's winner criterion gives every player the same value: there is no
    lead to win, so the bots aim at the value itself. mc adds three each time ("add three" is
    listed second: with no lead it took the first); ismcts's standing grows with the score."""
    game = rulelang.load(ROOT / "tests/language/team_tally.rules")
    assert game.criteria[0].same_for_all
    assert not rulelang.load(ROOT / "games/pickomino.rules").criteria[0].same_for_all
    end = seeded_game("tests/language/team_tally.rules", 2, {}, ["mc", "mc"], 3)
    assert end.counters[0] == 18 and end.winners == [0, 1]
    state = game.new_initial_state(2)
    low = standing(state)
    state.apply_action(1)  # add three
    assert low == [0.5, 0.5] and standing(state)[0] == standing(state)[1] > 0.5


def test_bots_play_for_the_tie_break_while_the_first_winner_rule_ties():
    """tie_break_points.rules: every player stands (the first rule ties them all), and the
    points decide. mc gains 2 each turn (it took "gain: 0", the first option, when it looked at
    the first rule alone); ismcts's standing ranks the seat with more points higher."""
    end = seeded_game("tests/language/tie_break_points.rules", 2, {}, ["mc", "random"], 5)
    assert end.scores()[0][1] == 6
    game = rulelang.load(ROOT / "tests/language/tie_break_points.rules")
    state = game.new_initial_state(2)
    state.apply_action(2)  # gain 2
    ahead, behind = standing(state)
    assert ahead > 0.5 > behind and abs(ahead - 0.5) < 0.01


def test_a_criterion_reading_player_through_a_table_cell_is_no_team_score(tmp_path):
    """`player` read inside a column's cell (a function of its own) still makes the values
    each player's: the bots play for a lead there."""
    path = tmp_path / "cell.rules"
    path.write_text('game "Own hand through a cell":\n    players 2\n    at most 4 turns\n\n'
                    'card goal:\n    table name, points(x):\n        gems, x * count(hand of player)\n\n'
                    'card chip:\n    count 6\n\nzone goals: shared pile, public\nzone pot: shared pool, public\n'
                    'zone hand: per player pool, public\n\nsetup:\n    rule s:\n        create goal in goals\n'
                    '        create chip in pot\n\nturn:\n    rule take:\n        choose:\n'
                    '            "take one": draw 1 from pot to hand of player\n            "pass": pass\n\n'
                    'winner:\n    rule best: most sum(goals, points(1))\n')
    assert not rulelang.load(path).criteria[0].same_for_all
