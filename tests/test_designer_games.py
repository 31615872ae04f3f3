"""What a designer trying the toolbox on new games ran into (tests/language/summit.rules,
five_dice.rules, tests/hidden_games/pass_left.rules), pinned down."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulelang
from rulelang.diagnostics import RuntimeFault

ROOT = Path(__file__).resolve().parent.parent


def _load(tmp_path: Path, counters: str, turn: str):
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2 to 2\n\nzone won: per player pile, public\n'
                    f"counter points: per player = 0\n{counters}\n\nturn:\n    rule give:\n{turn}\n"
                    "end:\n    rule two_turns: game ends when turn_number >= 2\n\n"
                    "winner:\n    rule w: most points of player\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("start", ["none", "seat(1)"])
def test_a_counter_starting_as_none_or_a_player_names_whose(tmp_path, start):
    path = _load(tmp_path, f"counter leader: shared = {start}",
                 "        leader = first(others)\n        points of leader += 1\n        move won of leader to won of player\n")
    state = rulelang.load(path).new_initial_state(2)
    assert "points of player 2 = 1" in "\n".join(state.event_lines())


def test_a_counter_read_as_an_owner_while_none_faults(tmp_path):
    path = _load(tmp_path, "counter leader: shared = none", "        points of leader += 1\n")
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(path).new_initial_state(2)
    d = caught.value.diagnostic
    assert d.code == "R503" and "(in rule `give`, " in d.message
    assert d.message.startswith("`points of ...` names none, which is not a player of this game")


def test_a_counter_holding_a_number_that_is_no_seat_faults_rather_than_read_another_place(tmp_path):
    path = _load(tmp_path, "counter leader: shared = seat(0)", "        leader += 1\n        leader += 1\n"
                 "        points of leader += 1\n")
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(path).new_initial_state(2)
    assert caught.value.diagnostic.message.startswith("`points of ...` names 2, which is not a player")


def test_a_counter_starting_as_a_number_is_no_player(tmp_path):
    path = _load(tmp_path, "counter best: shared = 0", "        points of best += 1\n")
    with pytest.raises(rulelang.RulesError) as caught:
        rulelang.load(path)
    assert [d.code for d in caught.value.diagnostics] == ["E201"]
    assert "needs one player, not a number" in caught.value.diagnostics[0].message


def test_the_turn_limit_fault_points_at_the_game_header(tmp_path):
    path = tmp_path / "forever.rules"
    path.write_text('game "Forever":\n    players 2 to 2\n    at most 5 turns\n\ncounter points: per player = 0\n\n'
                    "turn:\n    rule give: points of player += 1\n\nwinner:\n    rule w: most points of player\n",
                    encoding="utf-8")
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(path).new_initial_state(2)
    d = caught.value.diagnostic
    assert d.code == "R504" and d.message == "the game went past its limit of 5 turns"
    assert d.span.where().endswith("forever.rules:1:1") and "`end:`" in d.help


def test_a_step_of_a_choice_of_several_knows_the_pieces_picked_before_it():
    state = rulelang.load(ROOT / "tests" / "language" / "five_dice.rules").new_initial_state(2)
    state.apply_action(state.sample_chance(random.Random(1)))  # whatever the dice show
    assert state.picked_so_far() == []
    first = state.legal_actions()[0]
    name = state.action_to_string(first).removeprefix("keep: ")
    state.apply_action(first)
    assert state.picked_so_far() == [name]
    done = state.legal_actions()[-1]
    assert state.action_to_string(done) == "keep: done"
    state.apply_action(done)
    assert state.picked_so_far() == []


def test_the_board_writes_a_counter_that_holds_a_player_as_the_trace_does(tmp_path):
    from rulelang.tui import Style, render_board
    path = _load(tmp_path, "counter leader: shared = none\ncounter best: shared = 0",
                 "        leader = first(others)\n        best = 1\n")
    state = rulelang.load(path).new_initial_state(2)
    board = render_board(state, ["random", "random"], "all", Style(False))
    assert "leader  player 1" in board and "best    1" in board  # seat 0, set in the last turn


def test_run_and_simulate_leave_a_blank_line_between_errors_as_lint_does(tmp_path, capsys):
    from rulelang import cli
    path = _load(tmp_path, "", "        points of 3 += 1\n        points of 4 += 1\n")
    assert cli.main(["simulate", str(path), "--games", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("error[E201]") == 2 and "`for each p in players:`\n\nerror[E201]" in err


# ---------------------------------------------------------------------- a second round of new games
# (Farkle, Yahtzee, trick-taking, Lost Cities, Perudo, Can't Stop: what their designers ran into)

def _game(tmp_path: Path, body: str, name: str = "g.rules") -> Path:
    path = tmp_path / name
    path.write_text('game "G":\n    players 2 to 2\n\n' + body, encoding="utf-8")
    return path


_CARDS = """card c:
    one for each rank in 1 to 4 and each style in plain, joker
    number = none if style == "joker" else rank
    word = style if style == "joker" else rank

zone deck: shared pile, hidden
zone line: shared row sorted by number, public
zone words: shared row sorted by word, public

setup:
    rule make: create c in deck
    rule lay: draw 8 from deck to line

turn:
    rule look:
        choose:
            "go on": pass
    rule move_all:
        move line to words
        end game

winner:
    rule w: most 0
"""


def test_a_zone_sorted_by_an_attribute_some_pieces_lack_puts_those_last(tmp_path):
    state = rulelang.load(_game(tmp_path, _CARDS)).new_initial_state(2)
    rng = random.Random(3)
    while state.current_player() == rulelang.CHANCE:  # the deal
        state.apply_action(state.sample_chance(rng))
    numbers = [state.dynamic[2][p] for p in state.zones[state.zone_index("line", None)]]
    assert numbers == sorted(n for n in numbers if n is not None) + [None] * numbers.count(None)
    assert numbers.count(None) == 4  # every card was dealt: the jokers, which have no number, last
    state.apply_action(0)
    words = [state.pieces.columns[state.game.attributes.index("word")][p]
             for p in state.zones[state.zone_index("words", None)]]
    assert words == [1, 2, 3, 4, "joker", "joker", "joker", "joker"]  # numbers first, then text


def test_max_and_min_skip_labels_as_sum_does(tmp_path):
    body = ('die d:\n    faces worm, star\n\nzone cup: shared pool, public\ncounter best: shared = 0\n\n'
            'setup:\n    rule s: create 2 d in cup\n\nturn:\n    rule r:\n        roll cup\n'
            '        best = max(cup, face)\n        end game\n\nwinner:\n    rule w: most 0\n')
    state = rulelang.load(_game(tmp_path, body)).new_initial_state(2)
    state.apply_action(state.sample_chance(random.Random(1)))
    assert state.is_terminal() and state.counters[0] is None


@pytest.mark.parametrize(("statement", "message"), [
    ("draw (0 - 1) from deck to line", "`draw` needs a count of 0 or more, not -1"),
    ("create (0 - 2) d6 in deck", "`create` needs a count of 0 or more, not -2"),
])
def test_a_negative_count_is_a_fault_at_its_statement(tmp_path, statement, message):
    body = "die d6:\n    faces 1 to 6\n\n" + _CARDS.replace("    rule lay: draw 8 from deck to line\n",
                                                         f"    rule lay: {statement}\n")
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(_game(tmp_path, body)).new_initial_state(2)
    assert caught.value.diagnostic.message.startswith(message)
    assert "(in rule `lay`, " in caught.value.diagnostic.message


def test_two_options_with_one_label_are_named_by_their_pieces(tmp_path):
    body = ('die d:\n    faces 1 to 6\n\nzone cup: shared pool, public\n\nsetup:\n    rule s: create 3 d in cup\n\n'
            'turn:\n    rule r:\n        roll cup\n'
            '        choose g from subsets(cup) as "keep" labelled text(count(g), " dice")\n        end game\n\n'
            'winner:\n    rule w: most 0\n')
    state = rulelang.load(_game(tmp_path, body)).new_initial_state(2)
    with pytest.raises(RuntimeFault) as caught:
        state.apply_action(state.outcome_from_labels([1, 2, 3]))
    assert "has two options labelled `1 dice`: [d showing 3] and [d showing 2]" in caught.value.diagnostic.message


def test_a_counter_set_through_a_variable_to_a_player_is_traced_as_a_player(tmp_path):
    path = _load(tmp_path, "counter starter: shared = seat(0)\ncounter bidder: shared = none",
                 "        bidder = player\n        let x = player\n        x = bidder\n        starter = x\n")
    lines = rulelang.load(path).new_initial_state(2).event_lines()
    assert "starter = player 2" in "\n".join(lines) and "starter = 1" not in "\n".join(lines)


def test_the_board_writes_true_and_false_as_the_language_does(tmp_path):
    from rulelang.tui import Style, render_board
    path = _load(tmp_path, "", "        pass\n").read_text(encoding="utf-8").replace(
        "most points of player", "most player == seat(0)")
    state = rulelang.load(_game(tmp_path, path.split("\n\n", 1)[1], "b.rules")).new_initial_state(2)
    board = render_board(state, ["random", "random"], "all", Style(False))
    assert "true" in board and "True" not in board


def test_a_game_that_faults_is_replayed_as_reproduced_and_is_not_resumed(tmp_path, capsys):
    from rulelang import cli
    path = tmp_path / "g.rules"
    _game(tmp_path, _CARDS.replace("    rule lay: draw 8 from deck to line\n",
                                   "    rule lay: draw 8 from deck to line\n    rule bad: draw (0 - 1) from deck to line\n"))
    log = tmp_path / "g.jsonl"
    assert cli.main(["run", str(path), "--seats", "random,random", "--seed", "1", "--fast", "--log", str(log)]) == 1
    out, err = capsys.readouterr()
    assert "line" in out and "error[R503]" in err  # the set-up's trace up to the fault, then the fault
    assert cli.main(["replay", str(log), "--quiet"]) == 0
    assert "reproduces: yes (the game stops on fault R503, as the log says)" in capsys.readouterr().out
    assert cli.main(["run", "--resume", str(log)]) == 1
    assert "cannot go on" in capsys.readouterr().err
    assert cli.main(["run", "--resume", str(log), "--log", str(tmp_path / "other.jsonl")]) == 2
    assert "--log cannot be used with --resume" in capsys.readouterr().err
    capsys.readouterr()
    assert cli.main(["replay", str(log), "--as", "spectator", "--quiet"]) == 0
    assert "actions replayed" not in capsys.readouterr().out  # how many steps there were is the referee's
    assert cli.main(["replay", str(log), "--as", "all", "--quiet"]) == 0
    assert "actions replayed" in capsys.readouterr().out


def test_a_one_player_game_reports_no_first_player_advantage(tmp_path, capsys):
    from rulelang import cli
    path = tmp_path / "solo.rules"
    path.write_text('game "Solo":\n    players 1 to 1\n\ncounter points: per player = 0\n\nturn:\n'
                    '    rule give: points of player += 1\n\nend:\n    rule two: game ends when turn_number >= 2\n\n'
                    'winner:\n    rule w: most points of player\n', encoding="utf-8")
    assert cli.main(["simulate", str(path), "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "turns per game" in out and "first-player advantage" not in out and "lead changes" not in out


def test_a_game_played_in_rounds_alone_reports_rounds_not_turns(capsys):
    from rulelang import cli
    assert cli.main(["simulate", str(ROOT / "games" / "six-nimmt.rules"), "--games", "2", "--bot", "random"]) == 0
    out = capsys.readouterr().out
    assert "average rounds:" in out and "rounds per game" in out
    assert "average turns" not in out and "turns per game" not in out


def test_two_open_branches_with_one_label_are_a_fault(tmp_path):
    path = _load(tmp_path, "", '        choose:\n            "bank" if points of player >= 0: pass\n'
                 '            "bank" if turn_number > 0: points of player += 1\n')
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(path).new_initial_state(2)
    assert caught.value.diagnostic.code == "R503"
    assert "`choose` has two open branches labelled alike: bank, bank" in caught.value.diagnostic.message


def test_tally_keys_name_pieces_and_players(tmp_path):
    body = ('die d6:\n    faces 1 to 6\n\nzone cup: shared pool, public\n\nsetup:\n    rule s: create 2 d6 in cup\n\n'
            'turn:\n    rule r:\n        roll cup\n        tally high by highest(cup)\n        tally both by cup\n'
            '        tally who by player\n        end game\n\nwinner:\n    rule w: most 0\n')
    state = rulelang.load(_game(tmp_path, body)).new_initial_state(2)
    state.apply_action(state.outcome_from_labels([5, 2]))
    assert state.tallies == {("high", "d6 showing 5"): 1, ("both", "d6 showing 2 + d6 showing 5"): 1,
                             ("who", "player 1"): 1}


def test_alone_in_a_game_a_bot_counts_its_score(tmp_path):
    """A solo game is always won: mc and solver weigh the winner criterion's value itself."""
    from rulelang.agents import evaluate
    path = tmp_path / "solo.rules"
    path.write_text('game "Solo":\n    players 1 to 1\n\ncounter points: per player = 0\n\nturn:\n'
                    '    rule give:\n        choose n from [1, 5] as "take"\n        points of player += n\n\n'
                    'end:\n    rule two: game ends when turn_number >= 2\n\nwinner:\n    rule w: most points of player\n',
                    encoding="utf-8")
    state = rulelang.load(path).new_initial_state(1)
    low, high = state.clone(), state.clone()
    low.apply_action(0)
    high.apply_action(1)
    assert evaluate(high, 0) - evaluate(low, 0) == 4


DESIGNER_GAMES = sorted((ROOT / "tests" / "scenarios" / "designer-games").glob("*.rules"))


@pytest.mark.parametrize("path", DESIGNER_GAMES, ids=lambda p: p.name)
def test_games_written_by_designers_new_to_rulelang_lint_clean_and_play_to_the_end(path):
    """Games written from the docs alone, by designers who had never seen the shipped ones
    (their scenarios are beside them): each lints clean and plays random games to the end at
    its smallest and largest player counts, keeping its invariants."""
    game, diagnostics = rulelang.analyse(str(path))
    assert game is not None and [d.code for d in diagnostics] == []
    rng = random.Random(7)
    for players in sorted({game.min_players, max(game.min_players, min(game.max_players, 4))}):
        state = game.new_initial_state(players)
        while not state.is_terminal():
            if state.current_player() == rulelang.CHANCE:
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert state.check_invariants() == []
        assert sum(state.returns()) == pytest.approx(1.0) or state.winners == []


def test_an_option_cannot_be_set_while_playing(tmp_path):
    path = _load(tmp_path, 'option target = 3:\n    "Points to win."', "        target = 4\n")
    with pytest.raises(rulelang.RulesError) as caught:
        rulelang.load(path)
    d = caught.value.diagnostics[0]
    assert d.code == "E201" and d.message.startswith("`target` is an option") and "counter target_now" in d.help


def test_compare_names_the_faulted_games_and_exits_1(tmp_path, capsys):
    from rulelang import cli
    base = _load(tmp_path, "", "        points of player += 1\n")
    variant = tmp_path / "variant.rules"
    variant.write_text(base.read_text(encoding="utf-8").replace("points of player += 1", "points of player += 1 / 0"),
                       encoding="utf-8")
    assert cli.main(["compare", str(base), str(variant), "--games", "3", "--seed", "5"]) == 1
    err = capsys.readouterr().err
    assert "fault in the variant" in err and "game with seed 5: R503" in err


def test_explain_lists_and_shows_procedures(capsys):
    from rulelang import cli
    assert cli.main(["explain", str(ROOT / "games" / "pickomino.rules")]) == 0
    assert "\nprocedures:\n  fail_turn  " in capsys.readouterr().out
    assert cli.main(["explain", "fail_turn", "--file", str(ROOT / "games" / "pickomino.rules")]) == 0
    assert "procedure `fail_turn`: run by `do fail_turn`" in capsys.readouterr().out


def test_a_variant_that_gives_an_option_a_new_default_keeps_its_range(tmp_path):
    (tmp_path / "base.rules").write_text(
        'game "Base":\n    players 2 to 2\n\noption rounds = 5 in 1 to 50:\n    "Rounds to play."\n\n'
        'counter points: per player = 0\n\nturn:\n    rule give: points of player += 1\n\n'
        'end:\n    rule enough: game ends after a round when round_number >= rounds\n\n'
        'winner:\n    rule w: most points of player\n', encoding="utf-8")
    variant = tmp_path / "variant.rules"
    variant.write_text('extends "base.rules"\n\noption rounds = 12\n', encoding="utf-8")
    assert rulelang.load(variant).new_initial_state(2) is not None
    with pytest.raises(rulelang.RulesError) as caught:
        rulelang.load(variant, rounds=100)
    assert caught.value.diagnostics[0].code == "E110"


def test_a_scenario_error_points_at_the_scenario_as_written(tmp_path, capsys):
    from rulelang import cli
    _load(tmp_path, "", "        points of player += 1\n")
    scenario = tmp_path / "bad.scenario"
    scenario.write_text("# a misspelt counter in a check\ngame: g.rules\nplayers: 2\nsteps:\n"
                        "    check pionts of seat(0) == 1\n", encoding="utf-8")
    assert cli.main(["test", str(scenario)]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert "bad.scenario:5:11" in text and "5 |     check pionts of seat(0) == 1" in text
    assert "did you mean `points`?" in text and "invariant scenario_check" not in text


def test_a_give_turn_loop_that_never_reaches_a_player_owed_a_last_turn_says_who(tmp_path):
    """The last turns under way, a loop of `give a turn to` that names only players who have
    had theirs gives no turn: R502 names who is still owed one."""
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 3 to 3\n\ncounter score: per player = 0\ncounter current: shared = seat(0)\n\n'
                    "round:\n    rule loop:\n        repeat:\n            give a turn to current\n"
                    "            current = seat(1) if current == seat(0) else seat(0)\n\n"
                    "turn:\n    rule t: score of player += 1\n\n"
                    "end:\n    rule reached: game ends after a last turn for the others when score of player >= 2\n\n"
                    "winner:\n    rule w: most score of player\n", encoding="utf-8")
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(path).new_initial_state(3)
    message = caught.value.diagnostic.message
    assert message.startswith("no decision or roll after") and "still owed a last turn: player 3" in message


def test_invariants_wait_for_the_end_of_the_set_up(tmp_path):
    """A set-up that draws waits with what it makes afterwards not made yet: the invariants
    about it are not checked until the set-up is over."""
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2\n\ncard letter:\n    one for each number in 1 to 3\n'
                    "token chip:\n    count 4\n\nzone deck: shared pile, hidden\n"
                    "zone hand: per player hand, owner only\nzone pot: shared pile, public\n\n"
                    "invariant four_chips: count(pot) == 4\n\nsetup:\n    rule deal:\n"
                    "        create letter in deck\n        for each p in players:\n"
                    "            draw 1 from deck to hand of p\n    rule chips: create chip in pot\n\n"
                    "turn:\n    rule take_one:\n        move top(pot) to hand of player\n        end game\n\n"
                    "winner:\n    rule most: most count(hand of player)\n", encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2)
    assert state.current_player() == rulelang.CHANCE and state.check_invariants() == []
    while state.current_player() == rulelang.CHANCE:
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.check_invariants() == ["four_chips"]  # checked once set up


def test_a_failing_events_as_section_shows_the_lines_it_searched(tmp_path):
    """The report of a failing `events as player 2:` shows player 2's lines, not the referee's."""
    (tmp_path / "g.rules").write_text(
        'game "G":\n    players 2\n\ncard c:\n    one for each number in 1 to 4\n\n'
        "zone deck: shared pile, hidden\nzone hand: per player hand, owner only\n\n"
        "setup:\n    rule deal:\n        create c in deck\n        for each p in players:\n"
        "            draw 1 from deck to hand of p\n\nturn:\n    rule gather: move hand of players to deck\n"
        "    rule stop: end game\n\nwinner:\n    rule w: most count(hand of player)\n", encoding="utf-8")
    scenario = tmp_path / "g.scenario"
    scenario.write_text("game: g.rules\nplayers: 2\nsteps:\n    draw c 1\n    draw c 2\n    expect game over\n"
                        "events as player 2:\n    move c 3 from hand of player 2\n", encoding="utf-8")
    from rulelang.scenario import run_scenario
    result = run_scenario(scenario)
    assert not result.passed and "trace lines seen by player 2:" in result.message
    assert "move 1 c from deck to hand of player 1" in result.message and "c 1" not in result.message


def test_invariants_and_comparisons_hold_in_a_finished_game(tmp_path):
    """A finished game keeps its zones as tuples (they never change again): `+` and `==` of
    collections read them as the lists they were."""
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2\n\ncard chip:\n    one for each number in 1 to 3\n\n'
                    "zone hand: per player hand, public\nzone pot: shared pile, public\n\n"
                    "invariant three_chips: count(hand of players + pot) == 3\n"
                    "invariant pot_or_nothing: pot + empty == pot and hand of seat(1) == empty\n\n"
                    "setup:\n    rule deal: create chip in hand of seat(0)\n\n"
                    "round:\n    rule give:\n        choose c from hand of seat(0) by seat(0) as \"give\"\n"
                    "        move c to pot\n        end game\n\n"
                    "winner:\n    rule most: most count(hand of player)\n", encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2)
    state.apply_action(0)
    assert state.is_terminal() and state.zones[state.zone_index("pot")].__class__ is tuple
    assert state.check_invariants() == []


def test_a_variable_started_as_empty_takes_the_kind_of_list_it_is_first_given(tmp_path):
    """`let found = empty`, then `found = found + subsets(hand, 2)`: a list of groups from
    then on, not a list of values that cannot hold them."""
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2\n\ncard chip:\n    one for each number in 1 to 4\n\n'
                    "zone hand: per player hand, public\ncounter best: per player = 0\n\n"
                    "define worth(cards) = sum(cards, number)\n\n"
                    "setup:\n    rule deal: create chip in hand of seat(0)\n\n"
                    "turn:\n    rule groups:\n        let found = empty\n        for each size in [2, 3]:\n"
                    "            found = found + subsets(hand of seat(0), size)\n"
                    "        for each g in found:\n            if worth(g) > best of player:\n"
                    "                best of player = worth(g)\n        end game\n\n"
                    "winner:\n    rule most: most best of player\n", encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2)
    assert state.is_terminal() and state.scores()[0] == [2 + 3 + 4]


def test_a_player_parameter_given_a_counter_that_holds_a_number_faults_rather_than_read_another_place(tmp_path):
    """`do hurt(p, 1)` with a player, and `do hurt(holder, 1)` with a counter that may hold
    anything: the parameter is checked where it names a player's counter (found by the fuzzer:
    a negative number read another counter, and the trace failed)."""
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2\n\ncounter health: per player = 3\ncounter holder: shared = none\n\n'
                    "procedure hurt(victim, damage):\n    rule lose: health of victim -= damage\n\n"
                    "turn:\n    rule hit:\n        do hurt(player, 1)\n        holder = 1 - 7\n"
                    "        let who = holder\n        do hurt(who, 1)\n\n"
                    "winner:\n    rule w: most health of player\n", encoding="utf-8")
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(path).new_initial_state(2)
    d = caught.value.diagnostic
    assert d.code == "R503" and "names -6, which is not a player" in d.message and "rule `lose`" in d.message


SETTLED_AFTER_THE_ROUND = '''game "Settled after the round":
    players 2
    at most 100 turns

counter pending: per player = 0
counter banked: per player = 0

round:
    each player takes a turn
    rule settle:
        for each p in players:
            banked of p += pending of p

turn:
    rule pick:
        choose as "this round":
            "waste it": pending of player = 0
            "save a point": pending of player = 1

end:
    rule ten_rounds: game ends after a round when round_number >= 10

winner:
    rule most_banked: most banked of player
'''


def test_mc_takes_options_that_score_alike_at_random(tmp_path):
    """Nothing shows by the end of the turn, so every option scores alike for `mc`: it takes
    them at random (it took the first every time, and lost every game to random bots)."""
    from rulelang.agents import make_agent, seat_view
    path = tmp_path / "settled.rules"
    path.write_text(SETTLED_AFTER_THE_ROUND, encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2)
    picks = {make_agent("mc", seed).choose(seat_view(state, 0)) for seed in range(12)}
    assert picks == {0, 1}


def test_a_counter_set_from_a_counter_that_holds_a_player_reads_as_a_player(tmp_path):
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2\n\ncounter next_up: shared = seat(0)\ncounter last: shared = none\n'
                    "counter plays: per player = 0\n\nround:\n    rule one_turn:\n        give a turn to next_up\n"
                    "        last = next_up\n        next_up = seat(next_up + 1)\n\n"
                    "turn:\n    rule play: plays of player += 1\n\n"
                    "end:\n    rule enough: game ends when turn_number >= 2\n\n"
                    "winner:\n    rule most: most plays of player\n", encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2)
    assert [line.split("  [")[0] for line in state.event_lines() if line.startswith("last =")] == ["last = player 1"]


def test_a_counter_that_starts_as_empty_holds_a_growing_list_of_pieces(tmp_path):
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2\n\ncard c:\n    one for each number in 1 to 6\n\n'
                    "zone deck: shared pile, public\nzone mine: per player pile, public\n\n"
                    "counter seen: shared = empty\n\nsetup:\n    rule make: create c in deck\n\n"
                    'turn:\n    rule take:\n        choose x from deck as "take"\n        move x to mine of player\n'
                    "        seen = seen + [x]\n        if count(seen) >= 3:\n            end game\n\n"
                    "winner:\n    rule most: most count(mine of player)\n", encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2)
    for _ in range(3):
        state.apply_action(0)
    assert state.is_terminal()
    assert [line.split("  [")[0] for line in state.event_lines() if line.startswith("seen =")][-1] == \
        "seen = [c 1, c 2, c 3]"


def test_a_let_whose_value_is_an_error_still_names_its_variable(tmp_path):
    path = _load(tmp_path, "", '        let n = count(3)\n        if n > 3:\n            points of player += n\n')
    with pytest.raises(rulelang.RulesError) as caught:
        rulelang.load(path)
    assert [d.code for d in caught.value.diagnostics] == ["E201"]  # no E101 for `n` at each use
