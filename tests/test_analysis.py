"""The exact analysis of one turn (rulelang.analysis, `rulelang analyze`) and the solver bot.

Values are checked against answers worked out by hand (tests/language/two_rolls.rules) and, for
Pickomino, against a hand-written solution of the same turn that knows nothing of the engine.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from test_cli import run_cli

import rulelang
from rulelang import analysis
from rulelang.agents import make_agent, seat_view

ROOT = Path(__file__).resolve().parent.parent
TWO_ROLLS = str(ROOT / "tests" / "language" / "two_rolls.rules")
PICKOMINO = str(ROOT / "games" / "pickomino.rules")




# By hand: the first roll is 1 (lost), 2 or 3, each 1/3. From a total t, rolling again is worth
# (0 + (t + 2) + (t + 3)) / 3, more than holding t when t < 5: so roll again on 2 and on 3.
# Gain: (0 + 3 + 11/3) / 3 = 20/9. Success (the turn gains something): hold, 2/3.
# `score of player >= 4`: reached only by rolling again from 2 or 3, 2/3 each time: 4/9.
@pytest.mark.parametrize("objective, expected", [("gain", Fraction(20, 9)), ("success", Fraction(2, 3)),
                                                 ("score of player >= 4", Fraction(4, 9))])
def test_two_rolls_values_by_hand(objective, expected):
    if objective in ("gain", "success"):
        game = rulelang.load(TWO_ROLLS)
        chosen = (analysis.gain_objective if objective == "gain" else analysis.success_objective)(game)
    else:
        game, chosen = analysis.compile_objective(TWO_ROLLS, objective)
    result = analysis.Analysis(game.new_initial_state(2), chosen, exact=True)
    assert result.value == expected
    floats = analysis.Analysis(game.new_initial_state(2), chosen)
    assert floats.value == pytest.approx(float(expected))


def test_two_rolls_policy():
    game = rulelang.load(TWO_ROLLS)
    lines = analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game), exact=True).policy()
    assert [(line.probability, line.best, line.value, line.runner_up, line.runner_up_value) for line in lines] == [
        (Fraction(1, 3), "roll again", 3, "hold", 2),
        (Fraction(1, 3), "roll again", Fraction(11, 3), "hold", 3)]
    assert lines[0].situation == "table: 1 die; turn_total: 2; rolls: 1"  # its face is read no more


def _pickomino_success(kept: tuple[int, ...], dice: int) -> Fraction:
    """The chance of ending a Pickomino turn with a tile, all 16 on the grill, by best play:
    ``kept`` counts the dice set aside per face (1-5, worm), ``dice`` are left to roll."""
    @functools.cache
    def stop(kept):
        return Fraction(int(kept[5] > 0 and sum(c * v for c, v in zip(kept, (1, 2, 3, 4, 5, 5))) >= 21))

    @functools.cache
    def roll(kept, dice):
        total = Fraction(0)
        for faces in itertools.combinations_with_replacement(range(6), dice):
            counts = [faces.count(f) for f in range(6)]
            ways = math.factorial(dice)
            for c in counts:
                ways //= math.factorial(c)
            best = Fraction(0)  # no new symbol: the turn fails
            for face in range(6):
                if counts[face] and not kept[face]:
                    after = tuple(k + (counts[face] if f == face else 0) for f, k in enumerate(kept))
                    left = dice - counts[face]
                    value = stop(after) if left == 0 or all(after) else max(stop(after), roll(after, left))
                    best = max(best, value)
            total += ways * best
        return total / 6 ** dice

    return roll(kept, dice)


def _pickomino_after_four_fives():
    game = rulelang.load(PICKOMINO)
    state = game.new_initial_state(3)
    state.apply_action(state.outcome_from_labels([5, 5, 5, 5, 1, 2, 3, 4]))
    state.apply_action([state.action_to_string(a) for a in state.legal_actions()].index("set aside: 5"))
    state.apply_action([state.action_to_string(a) for a in state.legal_actions()].index("roll again"))
    return game, state


def test_pickomino_success_matches_a_hand_written_solution():
    """Four 5s set aside, four dice to roll: the engine's exact value is the hand-written one."""
    game, state = _pickomino_after_four_fives()
    result = analysis.Analysis(state, analysis.success_objective(game), exact=True)
    assert result.value == _pickomino_success((0, 0, 0, 0, 4, 0), 4)
    unordered = analysis.Analysis(state, analysis.success_objective(game), exact=True,
                                  unordered=frozenset({state.zone_index("cup", None), state.zone_index("kept", None)}))
    assert unordered.value == result.value and unordered.states <= result.states


def test_a_turn_that_need_not_end_is_refused():
    game = rulelang.load(ROOT / "examples" / "pig.rules")
    with pytest.raises(analysis.AnalysisRefused, match="does not end within 30 steps"):
        analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game), max_steps=30)
    game, state = _pickomino_after_four_fives()
    with pytest.raises(analysis.AnalysisRefused, match="more than 50 states"):
        analysis.Analysis(state, analysis.gain_objective(game), max_states=50)


FORCED_LOOP = """game "Forced loop":
    players 2 to 2

counter score: per player = 0

turn:
    rule go_on:
        repeat:
            rule only_way:
                choose:
                    "again": pass

winner:
    rule highest_score: most score of player
"""


def test_decisions_with_one_option_are_played_through(tmp_path):
    """A decision with one option is no state of its own: not valued, not in the policy; a
    turn made of such decisions alone is still refused at the step limit."""
    game, state = _pickomino_after_four_fives()
    result = analysis.Analysis(state, analysis.success_objective(game), exact=True)
    assert all(len(node[2]) > 1 for node in result.nodes.values() if node[1] in ("max", "min"))
    assert all(line.runner_up is not None for line in result.policy(top=None))
    path = tmp_path / "forced_loop.rules"
    path.write_text(FORCED_LOOP, encoding="utf-8")
    game = rulelang.load(path)
    with pytest.raises(analysis.AnalysisRefused, match="does not end within 50 steps"):
        analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game), max_steps=50)


FORCED_FIRST = """game "One option":
    players 2

die d6:
    faces 1 to 6

zone cup: shared pool, public
counter score: per player = 0

setup:
    rule one_die: create d6 in cup

turn:
    rule only_one:
        choose n from [1] as "forced"
        score of player += n
    rule throw: roll cup
    rule keep_or_not:
        choose as "keep":
            "keep": score of player += first(cup).value
            "drop": pass

end:
    rule enough: game ends when turn_number >= 4

winner:
    rule most: most score of player
"""


def test_a_decision_with_one_option_at_the_turns_start_is_not_in_the_policy(tmp_path):
    path = tmp_path / "forced_first.rules"
    path.write_text(FORCED_FIRST, encoding="utf-8")
    game = rulelang.load(path)
    result = analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game))
    assert result.value == 4.5
    lines = result.policy(top=None)
    assert len(lines) == 6 and all(line.runner_up is not None for line in lines)


BACK_AND_FORTH = """game "Back and forth":
    players 2 to 2

counter score: per player = 0

turn:
    rule wander:
        repeat:
            rule stay_or_stop:
                choose:
                    "stay": pass
                    "stop": break
    rule score_one:
        score of player += 1

winner:
    rule highest_score: most score of player
"""


def test_a_turn_that_can_come_back_to_a_state_is_refused(tmp_path):
    """"stay" leads back to the very decision it was chosen at: the state is met again on its
    own path (a node not valued yet), so the turn need not end."""
    path = tmp_path / "back_and_forth.rules"
    path.write_text(BACK_AND_FORTH, encoding="utf-8")
    game = rulelang.load(path)
    with pytest.raises(analysis.AnalysisRefused, match="can come back to a state it was in"):
        analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game))


def test_cli_text_and_json():
    code, out, _ = run_cli("analyze", TWO_ROLLS, "--exact")
    assert code == 0
    assert "value of best play: 20/9 (~2.2222)" in out
    assert "1/3 (~0.3333)  table: 1 die; turn_total: 2; rolls: 1: roll again = 3; hold = 2" in out
    code, out, _ = run_cli("analyze", TWO_ROLLS, "--objective", "success", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["value"] == pytest.approx(2 / 3) and report["policy"][0]["best"] == "hold"


def test_a_turn_whose_rules_read_what_a_seat_cannot_see_says_so():
    # Guess the die: player 1 names the face of a die hidden from them. Seeing it, the analysis
    # is always right (value 1, not 1/6): the report says the value sees what the player cannot.
    code, out, _ = run_cli("analyze", str(ROOT / "tests" / "hidden_games" / "guess_die.rules"))
    assert code == 0 and "value of best play: 1.0000" in out
    assert "note: the rules may read what some seat does not see (`cup`)" in out
    assert "for the player, an upper bound on best play" in out  # the player alone decides
    code, out, _ = run_cli("analyze", str(ROOT / "tests" / "hidden_games" / "guess_die.rules"), "--format", "json")
    assert json.loads(out)["reads_unseen"] == ["cup"]
    code, out, _ = run_cli("analyze", TWO_ROLLS, "--format", "json")
    assert json.loads(out)["reads_unseen"] == []
    game = rulelang.load(PICKOMINO)  # its hidden zone, the tiles turned face down, is never read
    assert analysis.reads_unseen(game, analysis.gain_objective(game)) == ()


def test_a_turn_where_another_player_reads_the_hidden_says_the_value_is_no_bound():
    # Player 2 guesses the card player 1 hid: seeing it too, player 2 is always right, so the
    # value (0) is below honest play's (player 2 guesses wrong half the time): no upper bound.
    code, out, _ = run_cli("analyze", str(ROOT / "tests" / "language" / "analyze_hide_and_guess.rules"))
    assert code == 0 and "value of best play: 0" in out
    assert "no bound on best play either way" in out and "an upper bound" not in out


def test_a_hidden_counter_no_rule_reads_hides_nothing_from_the_analysis(tmp_path):
    """A `hidden` counter that no rule reads (only a `show` does) is not read by play: no
    note, and the policy still shows the turn's variables (`rolls = 1`)."""
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2 to 2\n\ndie d6:\n    faces 1 to 6\n\nzone cup: shared pool, public\n'
                    "counter score: per player = 0\ncounter secret: shared = 0, hidden\n\n"
                    "setup:\n    rule dice: create d6 in cup\n\nturn:\n    rule outer:\n        let rolls = 0\n"
                    "        while rolls < 2:\n            roll cup\n            rolls += 1\n"
                    '            choose:\n                "stop": break\n                "go on": pass\n'
                    "        score of player += sum(cup)\n        secret = 1\n\n"
                    "end:\n    rule enough: game ends when turn_number >= 4\n\n"
                    "winner:\n    rule best: most score of player\n\nshow hint: secret\n", encoding="utf-8")
    game = rulelang.load(path)
    assert analysis.reads_unseen(game, analysis.gain_objective(game)) == ()
    code, out, _ = run_cli("analyze", str(path))
    assert code == 0 and "note:" not in out and "cup: 1; rolls = 1: go on = 3.5000" in out


@pytest.mark.parametrize(("objective", "expected"), [("sum(cup)", Fraction(17, 4)), ("6 in cup.face", Fraction(11, 36))])
def test_an_objective_reads_the_faces_of_dice_the_next_turn_rolls_first(tmp_path, objective, expected):
    """The turn ends where the next one is about to roll the cup: the key leaves those faces
    out, the objective reads them, so ends are not merged by the key alone. Roll a die, roll
    it again if you like: best play keeps a 4, 5 or 6 (17/4); a six at the end is 11/36."""
    path = tmp_path / "g.rules"
    path.write_text('game "One die":\n    players 1 to 1\n    at most 10 turns\n\ndie d6:\n    faces 1 to 6\n\n'
                    "zone cup: shared pool, public\ncounter score: per player = 0\n\n"
                    "setup:\n    rule one_die: create d6 in cup\n\nturn:\n    rule throw: roll cup\n"
                    '    rule again:\n        may "roll again":\n            roll cup\n\n'
                    "winner:\n    rule most: most score of player\n", encoding="utf-8")
    game, found = analysis.compile_objective(str(path), objective)
    assert found.__class__ is analysis.Objective, found
    assert analysis.Analysis(game.new_initial_state(1), found, exact=True).value == expected


def test_a_draw_the_turn_makes_is_analysed_not_dealt(tmp_path):
    """A turn that starts by drawing a die from a cup (one always scores 1, one 0): the draw is
    the turn's play, valued over both dice (1/2), not dealt from the seed (0 or 1)."""
    path = tmp_path / "g.rules"
    path.write_text('game "Draw then roll":\n    players 1 to 1\n    at most 5 turns\n\n'
                    "die good_die:\n    faces 1, 1\n\ndie bad_die:\n    faces 0, 0\n\n"
                    "zone cup: shared pool, hidden\nzone hand: shared pool, public\ncounter score: per player = 0\n\n"
                    "setup:\n    rule fill:\n        create good_die in cup\n        create bad_die in cup\n\n"
                    "turn:\n    rule back: move hand to cup\n    rule pick: draw 1 from cup to hand\n"
                    "    rule throw: roll hand\n    rule gain: score of player += sum(hand)\n\n"
                    "winner:\n    rule most: most score of player\n", encoding="utf-8")
    code, out, _ = run_cli("analyze", str(path), "--exact")
    assert code == 0 and "value of best play: 1/2" in out and "dealt" not in out


def test_alike_pieces_drawn_merge_though_a_counter_or_the_turn_loop_holds_their_ids(tmp_path):
    """Twenty alike pearls (pieces 0 to 19), four drawn: the score counter and the round's turn
    index hold small numbers that are also the pearls' ids, but they hold numbers only, so the
    drawn pearls still merge: 5 states (one per pearl drawn), not 123,521 (every order)."""
    path = tmp_path / "g.rules"
    path.write_text('game "Draw pearls":\n    players 2\n\ntoken pearl:\n    count 20\n\n'
                    "zone bag: shared pool, public\nzone hand: shared pool, public\n"
                    "counter score: per player = 0\n\nsetup:\n    rule fill: create pearl in bag\n\n"
                    "turn:\n    rule take: draw 4 from bag to hand\n    rule keep: score of player += count(hand)\n\n"
                    "end:\n    rule once: game ends when turn_number >= 2\n\n"
                    "winner:\n    rule most: most score of player\n", encoding="utf-8")
    game = rulelang.load(path)
    result = analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game))
    assert result.value == pytest.approx(4) and result.states == 5


def test_cli_refuses_with_exit_2_and_reports_objective_errors():
    code, _, error = run_cli("analyze", str(ROOT / "examples" / "pig.rules"), "--max-steps", "30")
    assert code == 2 and "does not end within 30 steps" in error
    code, _, error = run_cli("analyze", TWO_ROLLS, "--objective", "score of nobody")
    assert code == 1 and "error[E" in error


def test_a_deal_at_the_start_is_dealt_from_the_seed_and_the_turn_analysed():
    tables = str(ROOT / "tests" / "language" / "tables.rules")  # it starts by shuffling its deck
    code, out, _ = run_cli("analyze", tables, "--seed", "3", "--format", "json")
    report = json.loads(out)
    # the shuffle of the set-up is dealt (2 steps for 3 cards); the turn's own draw is analysed
    assert code == 0 and report["dealt"] == {"steps": 2, "seed": 3} and report["states"] > 1
    code, out, _ = run_cli("analyze", tables)
    assert code == 0 and "dealt with seed 0; `--seed N` deals another" in out
    code, _, error = run_cli("analyze", TWO_ROLLS, "--seed", "3")  # a roll is analysed, never dealt
    assert code == 2 and "this start has none" in error


def test_cli_from_a_log(tmp_path):
    log = tmp_path / "game.jsonl"
    code, _, _ = run_cli("run", TWO_ROLLS, "--seed", "3", "--fast", "--log", str(log), "--seats", "random,random")
    assert code == 0
    code, out, _ = run_cli("analyze", "--log", str(log), "--at", "0", "--exact")
    assert code == 0 and "value of best play: 20/9" in out
    code, out, _ = run_cli("analyze", "--log", str(log), "--at", "1", "--exact")  # after the first roll
    assert code == 0 and "value of best play: " in out


def test_solver_plays_best_and_does_not_peek():
    game = rulelang.load(TWO_ROLLS)
    state = game.new_initial_state(2)
    state.apply_action(state.outcome_from_labels([2]))
    bot = make_agent("solver:objective=gain", 1)
    assert state.action_to_string(bot.choose(seat_view(state))) == "roll again"
    # Another seat's hidden die cannot change the solver's choice (tests/test_no_peeking.py does
    # the same for every game).
    hidden = rulelang.load(ROOT / "tests" / "hidden_games" / "guess_die.rules")
    chosen = set()
    for face in range(6):
        state = hidden.new_initial_state(2)
        state.apply_action(((face,),))
        chosen.add(make_agent("solver", 7, budget=300).choose(seat_view(state)))
    assert len(chosen) == 1


SETUP_ROLL = """game "Setup roll":
    players 2 to 2
    at most 2 turns
die d6:
    faces 1 to 6
zone cup: shared pool, public
counter points: per player = 0
setup:
    rule the_die:
        create 1 d6 in cup
        roll cup
turn:
    rule keep_or_take:
        choose:
            "take the face": points of player += first(cup).value
            "take three": points of player += 3
        end game
winner:
    rule most: most points of player
"""


def test_a_roll_of_the_set_up_is_dealt_and_the_first_turn_analysed(tmp_path):
    path = tmp_path / "setup_roll.rules"
    path.write_text(SETUP_ROLL)
    code, out, _ = run_cli("analyze", str(path), "--seed", "1", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["dealt"] == {"steps": 1, "seed": 1} and report["at"] == "round 1, turn 1"
    assert report["policy"] and report["value"] >= 3  # the first turn's choice, on the face dealt


BET_THEN_TURN = """game "Bet then deal":
    players 1
card c:
    one for each number in 1 to 10
zone deck: shared pile, hidden
zone hand: per player row, public
counter bet: per player = 0
setup:
    rule the_deck: create c in deck
round:
    rule place_bet:
        choose b from [1, 2] as "bet"
        bet of player = b
    rule deal: draw 2 from deck to hand of player
    each player takes a turn
turn:
    rule hit_or_stand:
        choose as "hit or stand":
            "hit": draw 1 from deck to hand of player
            "stand": pass
        end game
winner:
    rule best: most sum(hand of player, number)
"""


def test_decisions_of_the_round_before_the_first_turn_are_played_and_the_turn_analysed(tmp_path):
    """The round takes a bet and deals before the turn: both are played from the seed (the
    bet at random), and the analysis is of the turn's hit or stand, as documented."""
    path = tmp_path / "bet.rules"
    path.write_text(BET_THEN_TURN)
    code, out, _ = run_cli("analyze", str(path), "--seed", "3", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["at"] == "round 1, turn 1" and report["played_before"] in (["bet: 1"], ["bet: 2"])
    assert [line["decision"] for line in report["policy"]] == ["rule `hit_or_stand` (hit or stand)"]
    assert report["dealt"] == {"steps": 2, "seed": 3}
    code, out, _ = run_cli("analyze", str(path))
    assert code == 0 and "before the first turn, the round's decisions were played at random with seed 0" in out
    # the round rolls first, then asks for the bet: the roll is dealt, the bet played, the turn analysed
    path.write_text(BET_THEN_TURN.replace(
        "zone deck: shared pile, hidden", "die d6:\n    faces 1 to 6\nzone cup: shared pool, public\n"
        "zone deck: shared pile, hidden").replace(
        "    rule the_deck: create c in deck", "    rule the_deck:\n        create c in deck\n        create 1 d6 in cup").replace(
        "round:\n", "round:\n    rule omen: roll cup\n"))
    code, out, _ = run_cli("analyze", str(path), "--seed", "3", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["at"] == "round 1, turn 1" and len(report["played_before"]) == 1
    assert [line["decision"] for line in report["policy"]] == ["rule `hit_or_stand` (hit or stand)"]


def test_objective_errors_point_into_the_objective_as_typed():
    """A diagnostic of `--objective` shows the expression the user typed, at the right column,
    not the winner rule it is compiled in."""
    pig = str(ROOT / "examples" / "pig.rules")
    code, _, error = run_cli("analyze", pig, "--objective", "table")
    assert code == 1 and "the objective must be a number (or true/false), not a zone" in error
    assert "--objective:1:1" in error and "most (" not in error
    code, _, error = run_cli("analyze", pig, "--objective", "2 +")
    assert code == 1 and "the objective ends too early" in error and "--objective:1:4" in error


@pytest.mark.parametrize(("objective", "expected"), [(None, 3.5), ("pot", 3.5)])
def test_a_turn_is_valued_where_it_ends_not_after_the_next_turns_first_statements(objective, expected):
    """The next turn first gives everyone a point and empties the pot: neither is the turn's."""
    path = str(Path(__file__).parent / "language" / "analyze_turn_end.rules")
    if objective is None:
        game = rulelang.load(path)
        chosen = analysis.gain_objective(game)
    else:
        game, chosen = analysis.compile_objective(path, objective)
    assert analysis.Analysis(game.new_initial_state(2), chosen).value == pytest.approx(expected)


def test_a_turn_is_valued_before_the_rounds_statements_after_it():
    """The round sets x back to 0 once the turn is over: the turn itself gains the die's value."""
    path = str(Path(__file__).parent / "language" / "analyze_round_after_turn.rules")
    game, chosen = analysis.compile_objective(path, "x of player")
    assert analysis.Analysis(game.new_initial_state(1), chosen, exact=True).value == Fraction(7, 2)


def test_a_situation_names_dice_of_two_kinds_and_a_player_held_in_a_variable():
    path = str(Path(__file__).parent / "language" / "analyze_situation_labels.rules")
    game = rulelang.load(path)
    result = analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game))
    situations = [line.situation for line in result.policy()]
    assert "dice: white 1 red_die 2; who = player 1" in situations


def test_with_no_turn_under_way_the_seat_deciding_now_is_analysed():
    """Rounds alone, player 2 bids first: the analysis is player 2's (a bid of 1 gains 1/2)."""
    path = str(Path(__file__).parent / "language" / "analyze_rounds_only.rules")
    game = rulelang.load(path)
    state = game.new_initial_state(2)
    result = analysis.Analysis(state, analysis.gain_objective(game), exact=True)
    assert result.seat == 1 and result.value == Fraction(1, 2)
    code, out, _ = run_cli("analyze", path)
    assert code == 0 and "player 2's decision" in out


ROUND_READS_HIDDEN = """game "Refill":
    players 2

die d6:
    faces 1 to 6

card bill:
    one for each number in 1 to 6

zone bank: shared pile, hidden
zone prize: shared pile, public
zone cup: per player pool, public
zone won: per player pile, public

setup:
    rule make:
        create bill in bank
        for each p in players:
            create 2 d6 in cup of p

round:
    rule refill: move first(bank) to prize
    rule turns:
        for each p in players:
            give a turn to p

turn:
    rule throw: roll cup of player
    rule take:
        if sum(cup of player) >= 7:
            move prize to won of player

end:
    rule three: game ends when round_number >= 3

winner:
    rule most: most sum(won of player, number)
"""


def test_what_only_the_round_reads_is_no_hidden_read_of_the_turn(tmp_path):
    """The note that the analysis sees what a seat does not is about the rules a turn runs:
    a hidden bank that only the round's refill reads is not among them."""
    path = tmp_path / "refill.rules"
    path.write_text(ROUND_READS_HIDDEN, encoding="utf-8")
    game = rulelang.load(path)
    assert analysis.reads_unseen(game, analysis.gain_objective(game)) == ()
    turn_reads = ROUND_READS_HIDDEN.replace("if sum(cup of player) >= 7:", "if sum(cup of player) >= count(bank):")
    path.write_text(turn_reads, encoding="utf-8")
    game = rulelang.load(path)
    assert analysis.reads_unseen(game, analysis.gain_objective(game)) == ("bank",)


PIECE_LISTS = """game "Pieces in analyze":
    players 2

card chip:
    one for each number in 1 to 3

zone supply: shared pile, public
zone kept: per player row, public

setup:
    rule lay: create chip in supply

turn:
    rule take_two:
        repeat 2 times:
            choose c from supply as "take"
            move c to kept of player

end:
    rule gone: game ends when supply is empty

winner:
    rule most: most sum(kept of player, number)
"""


def test_the_policy_names_pieces_apart_and_dice_by_their_faces(tmp_path):
    path = tmp_path / "pieces.rules"
    path.write_text(PIECE_LISTS, encoding="utf-8")
    game = rulelang.load(path)
    result = analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game))
    situations = [line.situation for line in result.policy(top=None)]
    assert any("supply: chip 1, chip 3" in s for s in situations)


def test_a_choice_of_several_pieces_reads_only_where_its_pieces_are_offered_from(tmp_path):
    """`choose x from hand of player, 2 of them`: its steps read the frame, so the hidden-read
    note does not name every zone (a hidden deck only the round reads is not read)."""
    path = tmp_path / "several.rules"
    path.write_text('game "G":\n    players 2\n\ncard c:\n    one for each number in 1 to 6\n\n'
                    "zone deck: shared pile, hidden\nzone hand: per player hand, public\nzone out: shared pile, public\n\n"
                    "counter score: per player = 0\n\nsetup:\n    rule make: create c in deck\n\n"
                    "round:\n    rule deal:\n        for each p in players:\n            draw 3 from deck to hand of p\n"
                    "    each player takes a turn\n    rule back:\n        move out to deck\n"
                    "        move hand of players to deck\n\n"
                    'turn:\n    rule discard:\n        choose x from hand of player, 2 of them as "discard"\n'
                    "        move x to out\n        score of player += 1\n\n"
                    "end:\n    rule three: game ends after a round when round_number >= 3\n\n"
                    "winner:\n    rule most: most score of player\n", encoding="utf-8")
    game = rulelang.load(path)
    assert analysis.reads_unseen(game, analysis.gain_objective(game)) == ()


def test_the_policy_of_a_choice_of_several_says_what_was_picked_so_far(tmp_path):
    """Each step of a choice of several is a situation of its own: its line says what the
    chain holds, or two steps with one cup would read alike with different best options."""
    path = tmp_path / "reroll.rules"
    path.write_text('''game "Reroll once":
    players 1

die d6:
    faces 1 to 6

zone cup: shared pool, public

setup:
    rule three_dice: create 3 d6 in cup

turn:
    rule throw: roll cup
    rule reroll_some:
        choose as "stand or throw":
            "stand": pass
            "throw again":
                choose rethrown from cup, 1 to 3 of them as "reroll"
                roll rethrown
    rule done: end game

winner:
    rule high: most sum(cup)
''')
    code, out, _ = run_cli("analyze", str(path), "--objective", "sum(cup)", "--top", "40")
    assert code == 0
    assert "  0.0278  cup: 3 5 6: reroll: d6 showing 3 = 14.5000" in out
    assert "  0.0278  cup: 3 5 6; picked so far: 3: reroll: done = 14.5000" in out


def test_an_objective_the_turn_never_changes_gets_a_note_before_the_search(tmp_path):
    """A winner rule scored only in `round:` gains nothing within a turn: the analysis says so
    before it searches, and suggests an objective."""
    path = tmp_path / "round_scored.rules"
    path.write_text('''game "Scored in the round":
    players 2

die d6:
    faces 1 to 6

zone cup: per player pool, public
counter chips: per player = 0

setup:
    rule dice:
        for each p in players:
            create 2 d6 in cup of p

turn:
    rule throw:
        roll cup of player
        may "throw again":
            roll cup of player

round:
    rule turns: each player takes a turn
    rule best_takes_a_chip:
        chips of highest(players, sum(cup of it)) += 1

end:
    rule three: game ends when round_number >= 3

winner:
    rule most_chips: most chips of player
''')
    code, _, err = run_cli("analyze", str(path))
    assert code == 0 and "note: in 24 random plays of this turn the objective never changed" in err
    code, _, err = run_cli("analyze", str(path), "--objective", "sum(cup of player)")
    assert code == 0 and "never changed" not in err


def test_a_choice_of_several_dice_leaves_nothing_behind_in_the_key():
    """Generala: throw five dice, then twice choose which to throw again (a choice of several:
    a chain of picks) and score a box. Once the dice are chosen, the chain's own state is read
    no more, and the box's value (a number made from the cup) holds no die, so states merge:
    the whole turn is a few thousand states (hundreds of thousands before). Its gain under the
    first winner rule, a generala in the first throw, is 6 in 6^5."""
    game = rulelang.load(ROOT / "tests" / "scenarios" / "designer-games" / "generala.rules")
    result = analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game), exact=True)
    assert result.value == Fraction(6, 6 ** 5)
    assert result.states < 10_000


def test_a_loops_numbers_and_a_rounds_turn_index_hold_no_die():
    """Balut: `repeat 2 times` keeps its loop's numbers in the frame (a list, not hashable as it
    is), and the round its turn index; none is a die's id, so the dice are keyed as a bag, not
    one by one (58,726 states before, 6,319 now), and the value is the same."""
    game = rulelang.load(ROOT / "tests" / "scenarios" / "designer-games" / "balut.rules")
    result = analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game), exact=True)
    assert result.value == Fraction(347897, 3779136)
    assert result.states < 10_000
