"""The terminal: hot seat (a clean screen handed over between humans), type-ahead, --as."""

from __future__ import annotations

import io
import os
import re
import select
import sys
from pathlib import Path

import pytest

from rulelang import cli, tui
from rulelang.pipeline import load
from rulelang.runtime import CHANCE

ROOT = Path(__file__).resolve().parent.parent
SIX_NIMMT = str(ROOT / "games" / "six-nimmt.rules")
PICKOMINO = str(ROOT / "games" / "pickomino.rules")


class Screen(io.StringIO):
    """What a terminal would show: output written to a tty (so the screen is really cleared)."""

    def isatty(self) -> bool:
        return True

    def since_clear(self) -> str:
        """The text a player can see now: everything after the last clear (screen and scrollback)."""
        return self.getvalue().rpartition(tui.CLEAR_SCREEN)[2]


def pieces_in(state, zone: str, seat: int) -> list[str]:
    return [state.pieces.names[p] for p in state.zones[state.zone_index(zone, seat)]]


def mentions(text: str, piece: str) -> bool:
    return re.search(rf"\b{re.escape(piece)}\b(?! \()", text) is not None or \
        re.search(rf"\b{re.escape(piece)} \(", text) is not None


def test_hot_seat_screens_show_nothing_of_the_other_humans_hand():
    state = load(SIX_NIMMT).new_initial_state(4)
    seats = ["you", "you", "random", "random"]
    screen = Screen()
    typed: dict[int, str] = {}  # each human's last answer
    checked = {"pass": 0, "choice": 0}

    def read(prompt: str) -> str:
        seen = screen.since_clear()
        if prompt.startswith("pass to player"):
            assert seen == ""  # the hand-over screen says nothing else
            checked["pass"] += 1
            return ""
        seat = state.current_player()
        other = 1 - seat
        secrets = pieces_in(state, "hand", other) + pieces_in(state, "chosen", other)
        assert secrets and not any(mentions(seen, card) for card in secrets), (seat, secrets)
        assert other not in typed or typed[other] not in seen
        assert f"player {other + 1} (you), your choice" not in seen
        checked["choice"] += 1
        if checked["choice"] > 12:  # still in the first round: no hand card has been shown yet
            return "q"
        typed[seat] = tui.menu_texts(state)[-1]  # the whole text of an option, as a person may type it
        return typed[seat]

    terminal = tui.Terminal(out=screen, read=read, colour=False)
    assert tui.play(state, seats, 2, terminal) is False
    assert checked == {"pass": 13, "choice": 13}
    assert screen.getvalue().count(tui.CLEAR_SCREEN) == 2 * 13


def test_hot_seat_through_streams_to_the_end_of_the_game():
    state = load(SIX_NIMMT).new_initial_state(2)
    screen = Screen()
    terminal = tui.Terminal(out=screen, inp=io.StringIO("\n1\n" * 2000), colour=False)
    assert tui.play(state, ["you", "you"], 5, terminal) is True
    pages = screen.getvalue().split(tui.CLEAR_SCREEN)
    views = [page for page in pages if "your choice" in page]
    assert views and all(page.startswith("pass to player") or "your choice" not in page
                         for page in pages[1::2])
    for page in views:
        seat = int(re.search(r"player (\d) \(you\), your choice", page).group(1))
        other = 3 - seat
        assert f"player {other} (you), your choice" not in page
        assert not re.search(rf"ox \d+ from hand of player {other}", page)  # neither menu nor trace
        assert not re.search(rf"^[>* ]*{other} you\s+hand ox", page, re.M)  # nor the board
    last = pages[-1]  # the end: the screen cleared again, the last moves as anyone may see them
    assert "your choice" not in last and "hand ox" not in last


def test_one_human_is_never_handed_over_and_sees_only_their_hand():
    state = load(SIX_NIMMT).new_initial_state(3)
    screen = Screen()
    terminal = tui.Terminal(out=screen, inp=io.StringIO("1\n" * 3 + "q\n"), colour=False)
    assert tui.play(state, ["you", "random", "random"], 4, terminal) is False
    text = screen.getvalue()
    assert tui.CLEAR_SCREEN not in text and "pass to" not in text
    assert re.search(r"^> 1 you\s+hand ox", text, re.M)
    assert not re.search(r"ox \d+ from hand of player [23]", text)


def test_end_of_input_at_the_hand_over_stops_the_game():
    state = load(SIX_NIMMT).new_initial_state(2)
    terminal = tui.Terminal(out=Screen(), inp=io.StringIO("\n1\n"), colour=False)
    assert tui.play(state, ["you", "you"], 1, terminal) is False


def test_off_a_terminal_a_hand_over_is_a_form_feed(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n1\nq\n"))
    code = cli.main(["run", SIX_NIMMT, "--seats", "you,you", "--seed", "2", "--log", str(tmp_path / "g.jsonl")])
    out = capsys.readouterr().out
    assert code == 0
    assert "\f\npass to player 1, press Enter " in out and "pass to player 2, press Enter " in out
    assert tui.CLEAR_SCREEN not in out


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_type_ahead_is_discarded_on_a_terminal():
    leader, follower = os.openpty()
    with os.fdopen(follower, "r") as keyboard:
        terminal = tui.Terminal(out=io.StringIO(), inp=keyboard, colour=False)
        os.write(leader, b"3\n")  # typed while the bots played
        assert select.select([keyboard], [], [], 10)[0]
        terminal.discard_typeahead()
        assert not select.select([keyboard], [], [], 0)[0]
        os.write(leader, b"1\n")  # typed after the prompt
        assert select.select([keyboard], [], [], 10)[0]
        assert terminal.read("> ") == "1"
    os.close(leader)


def test_piped_answers_are_kept():
    terminal = tui.Terminal(out=io.StringIO(), inp=io.StringIO("2\n1\n"), colour=False)
    assert terminal.answer("> ") == "2"
    assert terminal.answer("> ") == "1"


def test_bots_alone_are_watched_as_a_spectator_or_as_one_seat(tmp_path, capsys):
    def run(*extra: str) -> str:
        assert cli.main(["run", SIX_NIMMT, "--seats", "random,random", "--seed", "6", "--fast",
                         "--log", str(tmp_path / "g.jsonl"), *extra]) == 0
        return capsys.readouterr().out

    spectator, seat_2, referee = run(), run("--as", "2"), run("--as", "all")
    assert not re.search(r"^[>* ]*\d random\s+hand ox", spectator, re.M)
    assert "ox" in spectator and not re.search(r"ox \d+ from deck to hand", spectator)
    assert re.search(r"^[>* ]*2 random\s+hand ox", seat_2, re.M)
    assert not re.search(r"^[>* ]*1 random\s+hand ox", seat_2, re.M)
    assert re.search(r"ox \d+ from deck to hand of player 2", seat_2)
    assert not re.search(r"ox \d+ from deck to hand of player 1", seat_2)
    assert re.search(r"ox \d+ from deck to hand of player 1", referee)
    assert re.search(r"^[>* ]*1 random\s+hand ox", referee, re.M)


@pytest.mark.parametrize("extra, problem", [
    (["--as", "3"], "--as takes a seat from 1 to 2"),
    (["--as", "1", "--seats", "you,random"], "--as is for games of bots alone"),
])
def test_bad_as_is_a_usage_error(extra, problem, tmp_path, capsys):
    argv = ["run", SIX_NIMMT, "--fast", "--log", str(tmp_path / "g.jsonl"), *extra]
    if "--seats" not in extra:
        argv += ["--seats", "random,random"]
    assert cli.main(argv) == cli.EXIT_USAGE
    assert problem in capsys.readouterr().err


def test_a_piece_name_cannot_drive_the_terminal():
    state = load(PICKOMINO).new_initial_state(2)
    state.pieces.names[0] = "domino\x1b[2J"
    board = tui.render_board(state, ["random", "random"], "all", tui.Style(False))
    assert "\x1b" not in board


def test_a_criterion_on_public_piles_is_shown_to_all():
    """6 qui prend's criterion reads the public penalty piles: every seat sees its values (a
    criterion reading a hand or a secret counter shows `?`, see test_views)."""
    state = load(SIX_NIMMT).new_initial_state(3)
    while state.current_player() < 0:  # the deal
        state.apply_action(state.legal_actions()[0])

    def criterion_column(viewer) -> list[str]:
        board = tui.render_board(state, ["you", "random", "random"], viewer, tui.Style(False), 100)
        blocks = re.findall(r"fewest_bullheads (\S+)", board)  # one block a player: a hand is long
        return blocks or [line.split()[-1] for line in board.splitlines() if re.match(r"^[> ] \d ", line)]

    assert criterion_column(0) == ["0", "0", "0"]
    assert criterion_column(None) == ["0", "0", "0"]
    assert criterion_column("all") == ["0", "0", "0"]


def test_a_long_menu_of_one_prompt_is_laid_out_in_columns():
    texts = [f"commit: {n}" for n in range(1, 49)]
    lines = tui.menu_lines(texts, "commit", 100)
    assert lines[0] == "  commit:" and len(lines) < 12
    assert lines[1].split()[:4] == ["1", "1", "6", "6"]
    assert tui.menu_lines(texts[:5], "commit", 100) == [f"  {n:>2}  commit: {n}" for n in range(1, 6)]
    assert len(tui.menu_lines(texts, "commit", 10)) == 48   # too narrow for columns


def test_the_six_nimmt_screen_reads_well():
    """A game played in rounds alone: no `turn 0`, the player who picks named; the face-down
    deal said once and counted; a long hand wrapped between cards, at the width given."""
    import random

    from rulelang import CHANCE

    state = load(ROOT / "games" / "six-nimmt.rules").new_initial_state(2)
    rng = random.Random(2)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    trace = tui.render_events(state, 0, ["you", "random"], tui.Style(False), viewer=0)
    assert sum("from deck to hand of player 2" in line for line in trace) == 1
    assert any("(× 10)" in line for line in trace)
    board = tui.render_board(state, ["you", "random"], 0, tui.Style(False), width=80)
    title = board.splitlines()[0]
    assert "turn" not in title and title.endswith("player 1 (you) to choose")
    assert all(len(line) <= 80 for line in board.splitlines())
    assert any("(bullheads" in line for line in board.splitlines()[1:])
    assert not any(line.rstrip().endswith("(bullheads") for line in board.splitlines())


def test_a_decision_of_the_round_section_between_turns_names_no_turn(tmp_path):
    """After the turns of a round, a choice of the `round` section is in no turn: the board's
    title says who chooses, not `turn 2 · player 2 to play`."""
    path = tmp_path / "g.rules"
    path.write_text('game "G":\n    players 2 to 2\n\ncounter bid: per player = 0\n\n'
                    "round:\n    each player takes a turn\n    rule pick:\n"
                    '        choose b from [1, 2] by seat(0) as "bid"\n        bid of seat(0) = b\n\n'
                    "turn:\n    rule t: pass\n\nend:\n    rule two: game ends after a round when round_number >= 2\n\n"
                    "winner:\n    rule w: most bid of player\n", encoding="utf-8")
    state = load(path).new_initial_state(2)
    assert state.turn_number == 2 and state.current_player() == 0
    title = tui.render_board(state, ["random", "random"], "all", tui.Style(False), 80).splitlines()[0]
    assert title == "G · round 1 · player 1 (random) to choose", title


def test_a_winner_rule_not_yet_worked_out_shows_a_dash_and_stops_nothing(tmp_path):
    """`most mark of player + 0` with marks that start as none: during play the board writes
    `—` for it (as for a `show`), and the game goes on; at the end it ranks."""
    path = tmp_path / "g.rules"
    path.write_text('game "Late score":\n    players 2 to 2\n    at most 10 turns\n\ncounter mark: per player = none\n\n'
                    'turn:\n    rule t:\n        choose:\n            "mark 1": mark of player = 1\n'
                    '            "mark 2": mark of player = 2\n\n'
                    "end:\n    rule both: game ends when all(players, mark of it != none)\n\n"
                    "winner:\n    rule w: most mark of player + 0\n", encoding="utf-8")
    state = load(path).new_initial_state(2)
    board = tui.render_board(state, ["random", "random"], "all", tui.Style(False), 80)
    assert "1 random  —     —" in board, board
    state.apply_action(1)
    state.apply_action(0)
    assert state.is_terminal() and state.winners == [0]


def test_a_die_not_rolled_yet_shows_a_dash_not_a_question_mark():
    """`?` means hidden from the viewer; a die in a public zone that has never been rolled
    has no face yet."""
    assert tui.compact_items(["d6 showing 4", "d6 showing 6", "d6"], ["d6"], pool=True) == "d6 4 6 -"


def test_hot_seat_hands_over_for_a_forced_move_too(tmp_path):
    """Player 2 has one option or two, as its hidden die says; the screen is handed over to
    player 2 either way (a skipped hand-over told player 1 the move was forced)."""
    rules = tmp_path / "forced.rules"
    rules.write_text('game "Forced":\n    players 2\n\ndie d6:\n    faces 1 to 6\n\n'
                     'zone cup: per player pool, owner only\n\nsetup:\n    rule the_die: create 1 d6 in cup of seat(1)\n\n'
                     'round:\n    rule roll_in_secret: roll cup of seat(1)\n    rule pick:\n'
                     '        choose n from [1, 2] where it == 1 or first(cup of seat(1)).value >= 4 by seat(1) as "pick"\n'
                     '    rule guess:\n        choose g from [1, 2] by seat(0) as "guess"\n        end game\n\n'
                     'winner:\n    rule w: most 0\n')
    game = load(rules)
    screens = []
    for face in (2, 5):
        state = game.new_initial_state(2)
        state.apply_action(state.outcome_from_labels([face]))
        screen = Screen()
        terminal = tui.Terminal(out=screen, inp=io.StringIO("\n1\n" * 10), colour=False)
        tui.play(state, ["you", "you"], 1, terminal)
        screens.append(screen.getvalue().count("pass to player 2"))
    assert screens[0] == screens[1] >= 1


def test_hot_seat_a_card_revealed_on_the_last_move_reaches_its_viewer(tmp_path):
    """The game ends on the move that shows player 1 player 2's card: player 1 sees it on
    their own screen before the final (spectator's) screen, and player 2 never does."""
    rules = tmp_path / "peek.rules"
    rules.write_text('game "Peek and end":\n    players 2\n\ncard letter:\n    one for each number in 1 to 4\n\n'
                     'zone deck: shared pile, hidden\nzone hand: per player hand, owner only\n\n'
                     'setup:\n    rule deal:\n        create letter in deck\n        for each p in players:\n'
                     '            draw 1 from deck to hand of p\n\n'
                     'turn:\n    rule peek:\n        choose as "peek":\n            "look": reveal hand of seat(1) to seat(0)\n'
                     '            "wait": pass\n        end game\n\nwinner:\n    rule highest: most sum(hand of player, number)\n')
    state = load(rules).new_initial_state(2)
    while state.current_player() == -1:
        state.apply_action(state.legal_actions()[0])
    card = pieces_in(state, "hand", 1)[0]
    screen = Screen()
    pages = []

    def read(prompt: str) -> str:
        pages.append((prompt, screen.since_clear()))
        return "1" if "your choice" in screen.since_clear() and not prompt.startswith("pass") else ""

    terminal = tui.Terminal(out=screen, read=read, colour=False)
    assert tui.play(state, ["you", "you"], 1, terminal) is True
    last_prompt, last_page = pages[-1]
    assert last_prompt.startswith("the game is over") and f"player 1 sees {card} in hand of player 2" in last_page
    assert not mentions(screen.since_clear(), card)  # the final screen is everyone's


def test_the_board_shows_a_seat_the_hidden_pieces_it_was_shown():
    """After `reveal hand of seat(player + 1) to player`, the looker's board names those cards
    beside the count; the other seat's board, and a spectator's, do not."""
    import random

    state = load(ROOT / "tests" / "hidden_games" / "reveal.rules").new_initial_state(2)
    rng = random.Random(1)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    shown_to = [line for line in state.event_lines(0, 0) if "player 1 sees" in line and "hand of player 2" in line]
    assert shown_to
    looker = tui.render_board(state, ["you", "random"], 0, tui.Style(False), 100)
    row = next(line for line in looker.splitlines() if line.lstrip().startswith("2 random"))
    assert "2 hidden; you know letter" in row
    for viewer in (1, None):
        assert "you know" not in tui.render_board(state, ["you", "random"], viewer, tui.Style(False), 100)


def test_the_board_shows_alike_pieces_side_by_side_as_one_and_dice_by_their_faces():
    kinds = ["card", "noble", "d6"]
    supply = ["card copper (cost 0)"] * 3 + ["card silver (cost 3)"] * 2
    assert tui.compact_items(supply, kinds, pool=True) == "card 3 x copper (cost 0), 2 x silver (cost 3)"
    assert tui.compact_items(["noble white blue", "noble red"], kinds) == "noble white blue, red"
    assert tui.compact_items(["d6 showing 3", "d6 showing 3", "d6 showing 5"], kinds, pool=True) == "d6 3 3 5"
    assert tui.compact_items(["card 7", "card 7", "card 9"], kinds) == "card 2 x 7, 9"


def test_the_board_folds_the_empty_zones_of_a_declaration_with_many_keys(tmp_path):
    path = tmp_path / "melds.rules"
    path.write_text('game "Melds":\n    players 2\n\ncard tile:\n    one for each number in 1 to 4\n\n'
                    "zone pool: shared pile, hidden\nzone meld: shared row, public, for each n in 1 to 40\n"
                    "zone rack: per player hand, owner only\n\nsetup:\n    rule deal:\n        create tile in pool\n"
                    "        move top(pool) to meld[3]\n\nturn:\n    rule stop: end game\n\n"
                    "winner:\n    rule w: most count(rack of player)\n", encoding="utf-8")
    state = load(path).new_initial_state(2)
    board = tui.render_board(state, ["random", "random"], 0, tui.Style(False))
    assert "meld[3]" in board and "meld[4]" not in board and "meld[...]  — (39 empty)" in board


def test_a_long_trace_line_keeps_its_rule_on_its_last_line_and_player_numbers_whole():
    lines = tui._wrap_keeping("move establishment wheat_field from market to city of player 1", 60)
    assert lines == ["  move establishment wheat_field from market to city of", "      player 1"]


def test_a_pool_of_dice_shows_its_faces_in_the_order_of_the_faces_line():
    """`faces 9, 10, jack, queen, king, ace`: the board shows `9 10 jack ace`, not the labels in
    alphabetical order (`9 10 ace jack`)."""
    from rulelang.tui import KindNames, compact_items

    kinds = KindNames(["card_die"])
    kinds.faces = {"card_die": {label: i for i, label in enumerate(["9", "10", "jack", "queen", "king", "ace"])}}
    items = [f"card_die showing {label}" for label in ("ace", "jack", "10", "9")]
    assert compact_items(items, kinds, pool=True) == "card_die 9 10 jack ace"
    assert compact_items(items, ["card_die"], pool=True) == "card_die 9 10 ace jack"  # (no faces given)


def test_hot_seat_a_turn_with_a_choice_made_in_secret_is_handed_over_all_the_same():
    """may_in_secret.rules at one keyboard: player 1 may lay down the jack only when holding it.
    The screen is passed to player 1 as the turn begins either way: a hand-over only when the
    choice came would tell the table that player 1 holds the jack."""
    game = load(Path(__file__).parent / "hidden_games" / "may_in_secret.rules")
    screens = []
    for first in ("jack", "king"):
        state = game.new_initial_state(2)
        for rank in (first, "queen"):
            state.apply_action(next(p for p in state.zones[state.pending[2][0]]
                                    if state.describe_piece(p).endswith(rank)))
        screen = Screen()
        terminal = tui.Terminal(out=screen, inp=io.StringIO("1\n" * 20), colour=False)
        tui.play(state, ["you", "you"], 1, terminal)
        out = screen.getvalue()
        screens.append((out.count("pass to player 1"), out.count("pass to player 2")))
    assert screens[0] == screens[1] and screens[0][0] >= 1, screens
