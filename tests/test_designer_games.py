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
