"""Turn flow and rankings, from small rules files in tests/language/ (see docs/language.md 2.9,
2.12, 2.16, 2.17): each file's invariants hold after its set-up and through random games, and
a file with a ``NAME.trace`` plays, as it is created, exactly that trace (``UPDATE_GOLDEN=1``
rewrites the traces from the current output: then review the diff)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import rulelang
from rulelang import CHANCE, cli
from rulelang.diagnostics import RuntimeFault
from rulelang.tui import Style, render_board

HERE = Path(__file__).resolve().parent
CASES = sorted((HERE / "language").glob("*.rules"))
TRACES = sorted((HERE / "language").glob("*.trace"))
KNOCKOUT = HERE / "scenarios" / "engine" / "knockout.rules"


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_invariants_hold(path):
    game = rulelang.load(path)
    for seed in range(3):
        state = game.new_initial_state(game.max_players)
        rng = random.Random(seed)
        assert state.check_invariants() == []
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            assert state.check_invariants() == []


@pytest.mark.parametrize("trace", TRACES, ids=[p.name for p in TRACES])
def test_trace(trace, monkeypatch):
    monkeypatch.chdir(HERE)
    game = rulelang.load(Path("language") / trace.with_suffix(".rules").name)
    state = game.new_initial_state(game.max_players)
    text = "\n".join(state.event_lines() + ["--", state.observation_string(None)]) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        trace.write_text(text, encoding="utf-8")
    assert text == trace.read_text(encoding="utf-8")


def _game(tmp_path: Path, body: str, name: str = "g.rules"):
    path = tmp_path / name
    path.write_text('game "G":\n    players 2 to 3\n\ncounter points: per player = 0\n\n' + body
                    + "\nwinner:\n    rule w: most points of player\n", encoding="utf-8")
    return rulelang.load(path)


@pytest.mark.parametrize(("statement", "named"), [
    ("eliminate player + 5", "names 5"),
    ("eliminate [player, 7]", "names 7"),
    ("eliminate first(players where false)", "names none"),
])
def test_eliminating_what_is_no_player_faults(tmp_path, statement, named):
    game = _game(tmp_path, f"turn:\n    rule knock:\n        {statement}\n")
    with pytest.raises(RuntimeFault) as caught:
        game.new_initial_state(2)
    d = caught.value.diagnostic
    assert d.code == "R503" and named in d.message and "which is not a player of this game" in d.message
    assert "(in rule `knock`, " in d.message and d.span.where().endswith(":8:9")


def test_starting_with_none_faults(tmp_path):
    game = _game(tmp_path, "round:\n    rule r: pass\n    each player takes a turn, starting with first(players where false)\n"
                 "turn:\n    rule t: pass\n")
    with pytest.raises(RuntimeFault) as caught:
        game.new_initial_state(2)
    assert "`starting with` names none" in caught.value.diagnostic.message


def test_starting_seat_wraps_around(tmp_path):
    game = _game(tmp_path, "round:\n    rule r: pass\n    each player takes a turn, starting with player_count + 1\n"
                 "turn:\n    rule t: points of player += turn_number\n"
                 "end:\n    rule e: game ends after a round when true\n")
    state = game.new_initial_state(3)
    assert [line.split("  ")[0] for line in state.event_lines() if line.startswith("turn of")] == [
        "turn of player 2", "turn of player 3", "turn of player 1"]


def _knockout_until_someone_is_out():
    state = rulelang.load(KNOCKOUT).new_initial_state(3)
    for face in (4, 4, 1):
        state.apply_action(state.outcome_from_labels([face]))
    return state


def test_clones_share_the_out_set_until_one_changes():
    state = _knockout_until_someone_is_out()
    assert state.out == {2}
    copy = state.clone()
    assert copy.out is state.out
    copy.eliminate(0, -1)
    assert state.out == {2} and copy.out == {0, 2}


def test_what_each_seat_sees_of_players_who_are_out():
    state = _knockout_until_someone_is_out()
    for viewer in (None, 0, 2, "all"):
        assert state.observation(viewer)["out"] == [2]
        assert "out: player 3" in state.observation_string(viewer).splitlines()
        assert "player 3 is out  [result, " in state.information_state_string(viewer)
    board = render_board(state, ["you", "random", "mc"], 0, Style(False))
    assert "3 mc (out)" in board and "1 you (out)" not in board
    fresh = rulelang.load(KNOCKOUT).new_initial_state(3)
    assert fresh.observation(0)["out"] == [] and "out:" not in fresh.observation_string(0)


def test_a_log_with_players_out_replays_and_resumes(tmp_path, capsys):
    log = tmp_path / "knockout.jsonl"
    assert cli.main(["run", str(KNOCKOUT), "--seats", "random,random,random", "--seed", "3", "--fast",
                     "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    assert cli.main(["replay", "--quiet", str(log)]) == 0
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    assert cli.main(["run", "--resume", str(cut), "--fast"]) == 0
    assert cut.read_text().splitlines() == lines


def _choice_private(game) -> bool:
    for proc in game.procedures:
        for op, a, _, _ in proc.code:
            if op == 3:  # OP_CHOOSE
                return a.private
    raise AssertionError("no choice")


@pytest.mark.parametrize(("key", "private"), [("0", False), ("sum(hand of it)", True)])
def test_a_tie_break_key_counts_for_what_a_choice_reveals(tmp_path, key, private):
    game = _game(tmp_path, "die d6:\n    faces 1 to 6\n\nzone hand: per player pool, owner only\n\n"
                 f"turn:\n    rule pick:\n        choose p from [highest(players, 0, {key})] as \"pick\"\n"
                 "        points of p += 1\n        end game\n")
    assert _choice_private(game) is private


SHOWING = '''
game "Showing":
    players 2 to 3
    at most 4 turns
    "Values on the board."

tile chip:
    one for each number in 1 to 6

zone bag: shared pile, hidden
zone hand: per player hand sorted by number, owner only
zone table: shared row, public

setup:
    rule deal:
        create chip in bag
        for each p in players:
            draw 2 from bag to hand of p
        draw 1 from bag to table

turn:
    rule pass:
        choose as "pass":
            "pass": pass

winner:
    rule fewest: least count(hand of player)

show on_table: sum(table, number)
show first_on_table: first(table)
show turn_player: player
show held per player: count(hand of player)
show hand_sum per player: sum(hand of player, number)
show secret_sum: sum(bag, number)
show empty_top: first(bag where number > 99).number + 1
show my_hand per player: hand of player
show every_hand: hand of players
'''


def test_show_puts_values_on_the_board_with_the_sight_of_a_score(tmp_path):
    path = tmp_path / "showing.rules"
    path.write_text(SHOWING)
    state = rulelang.load(path).new_initial_state(2)
    rng = random.Random(2)
    while state.current_player() == rulelang.CHANCE:
        state.apply_action(state.sample_chance(rng))
    table = state.zones[state.zone_index("table")]
    number = state.pieces.columns[state.game.attributes.index("number")]
    shared, rows = state.shown_values(0)
    assert shared["on_table"] == number[table[0]]
    assert shared["first_on_table"] == state.describe_piece(table[0])
    assert shared["turn_player"] == "player 1"
    assert shared["secret_sum"] == "?"           # reads the hidden bag
    assert shared["empty_top"] in ("?", "—")     # hidden, or nothing to work out
    assert [r["held"] for r in rows] == [2, 2]   # how many: everyone sees that
    assert rows[0]["hand_sum"] != "?" and rows[1]["hand_sum"] == "?"   # only your own hand
    mine = state.zones[state.zone_index("hand", 0)]
    assert rows[0]["my_hand"] == state.describe_group(mine) and rows[1]["my_hand"] == "?"  # a zone: its pieces
    assert shared["every_hand"] == "?"
    referee, referee_rows = state.shown_values("all")
    assert referee["secret_sum"] == sum(number[p] for p in state.zones[state.zone_index("bag")])
    assert referee["empty_top"] == "—"
    assert all(r["hand_sum"] != "?" for r in referee_rows)


def test_the_pickomino_board_shows_the_running_total():
    state = rulelang.load(Path(__file__).resolve().parent.parent / "games" / "pickomino.rules").new_initial_state(2)
    rng = random.Random(4)
    kept = state.zone_index("kept")
    while not state.zones[kept] and not state.is_terminal():  # roll, then set aside what comes first
        state.apply_action(state.sample_chance(rng) if state.current_player() == CHANCE else state.legal_actions()[0])
    board = render_board(state, ["you", "random"], 0, Style(False))
    total = sum(state.dynamic[1][p] for p in state.zones[kept])
    assert ["kept_total", str(total)] in [line.split() for line in board.splitlines()]
    assert "tile_worms  21-24: 1 worm" in board


def test_a_variable_that_starts_as_none_takes_the_type_it_is_given(tmp_path):
    """`let c = none`, then `c = top(bag)`: `move c` below reads a piece (it was E201)."""
    path = tmp_path / "let_types.rules"
    path.write_text("""
game "Let types":
    players 2 to 2
    at most 4 turns
    "A variable that starts as none and is given a card."

tile chip:
    one for each number in 1 to 3

zone bag: shared pile, public
zone table: shared pile, public

setup:
    rule fill: create chip in bag

turn:
    rule pick:
        let c = none
        if bag is not empty:
            c = top(bag)
        if c != none:
            move c to table

end:
    rule all_placed: game ends when bag is empty

winner:
    rule most: most count(table)
""")
    state = rulelang.load(path).new_initial_state(2)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert len(state.zones[state.zone_index("table")]) == 3


def test_a_counter_holding_a_player_reads_as_the_player_in_every_view():
    """summit.rules sets `claimed[c] = player`: the observation (and so `replay --as`) writes
    `player N`, as the trace and the board do, never the seat's number."""
    state = rulelang.load(HERE / "language" / "summit.rules").new_initial_state(2)
    rng = random.Random(1)
    def claimed() -> list[str]:
        return [line for line in state.observation_string(1).splitlines() if line.startswith("claimed[")]

    while not state.is_terminal() and all(line.endswith("= none") for line in claimed()):
        state.apply_action(state.sample_chance(rng) if state.current_player() == CHANCE
                           else rng.choice(state.legal_actions()))
    lines = claimed()
    assert any(line.endswith("= player 1") or line.endswith("= player 2") for line in lines), lines
    assert all(line.endswith(("= none", "= player 1", "= player 2")) for line in lines), lines


LABELLED_ALIKE = """game "Alike":
    players 2 to 2
token chip:
    count 3
token gem:
    count 1
zone bank: shared pile, public
zone purse: per player pile, public
setup:
    rule fill:
        create chip in bank
        create gem in bank
turn:
    rule take:
        choose c from bank as "take" labelled text("a ", c.kind)
        move c to purse of player
end:
    rule e: game ends when turn_number >= 2
winner:
    rule w: most count(purse of player)
"""


def test_a_labelled_choice_offers_identical_pieces_once(tmp_path):
    """Three identical chips share the label `a chip`: one option for them, not fault R503."""
    path = tmp_path / "alike.rules"
    path.write_text(LABELLED_ALIKE)
    state = rulelang.load(path).new_initial_state(2)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["take: a chip", "take: a gem"]


def test_text_writes_zones_players_and_their_lists_by_name():
    """text_names.rules: `text` of a zone, a list of zones, lists of players and counters that
    hold a player or a piece, as the trace names them (never the zones' or seats' numbers)."""
    state = rulelang.load(HERE / "language" / "text_names.rules").new_initial_state(3)
    index = {c.name: i for i, c in enumerate(state.game.counters)}
    assert state.counters[index["said"]] == "left / [left, right]"
    assert state.counters[index["seats"]] == "[player 2, player 3] of [player 1, player 2, player 3]"
    assert state.counters[index["named"]] == "player 1 chose"
    assert state.counters[index["held_text"]] == "card c 3"


def test_count_with_one_for_each_makes_alike_copies_of_each_piece():
    """copies.rules: `count 2` beside `one for each` makes two of every card, alike (one name,
    the same attributes)."""
    state = rulelang.load(HERE / "language" / "copies.rules").new_initial_state(2)
    names = sorted(state.describe_piece(p) for p in range(len(state.pieces.kind)))
    assert len(names) == 12 and names[:2] == ["u blue 1", "u blue 1"] and len(set(names)) == 6


def test_a_player_carried_by_a_variable_into_a_counter_reads_as_the_player():
    """seat_by_variable.rules: `let c = starter` then `leader = c` writes `leader = player 2`."""
    state = rulelang.load(HERE / "language" / "seat_by_variable.rules").new_initial_state(2, trace="eager")
    lines = [line.split("  [")[0] for line in state.event_lines() if line.startswith("leader")]
    assert lines == ["leader = player 2"], lines  # set twice to one player: a line for the change only
    assert "leader = player 2" in state.observation_string(0)


def test_a_choice_said_aloud_shows_to_every_seat(tmp_path):
    """aloud_bid.rules: a bid among the faces of the bidder's own hidden dice is private, but
    `aloud` says it at the table: the other seat's trace names it; without `aloud`, not."""
    path = HERE / "language" / "aloud_bid.rules"
    quiet = tmp_path / "quiet.rules"
    quiet.write_text(path.read_text().replace(' as "bid" aloud', ' as "bid"'))
    for rules, shown in ((path, "player 1 chooses bid: 3"), (quiet, "player 1 chooses bid: (hidden)")):
        state = rulelang.load(rules).new_initial_state(2, trace="eager")
        state.apply_action(((0, 2),))  # player 1's dice show 1 and 3
        state.apply_action(1)
        seen = [line.split("  [")[0] for line in state.event_lines(viewer=1) if "chooses" in line]
        assert seen == [shown], seen


def test_a_choice_made_secretly_shows_only_to_its_chooser(tmp_path):
    """secret_fingers.rules: a choice among public options made `secretly` is `(hidden)` to the
    other seat, and so is the counter set from it; without `secretly`, both show."""
    path = HERE.parent / "tests" / "hidden_games" / "secret_fingers.rules"
    said = tmp_path / "said.rules"
    said.write_text(path.read_text().replace(' as "fingers" secretly', ' as "fingers"'))
    for rules, shown in ((path, ["player 1 chooses fingers: (hidden)", "fingers of player 1 changes"]),
                         (said, ["player 1 chooses fingers: 3", "fingers of player 1 changes"])):
        state = rulelang.load(rules).new_initial_state(2, trace="eager")
        state.apply_action(2)  # three fingers
        seen = [line for line in (line.split("  [")[0] for line in state.event_lines(viewer=1)) if "fingers" in line]
        assert seen == shown, seen
        own = [line for line in (line.split("  [")[0] for line in state.event_lines(viewer=0)) if "fingers" in line]
        assert own == ["player 1 chooses fingers: 3", "fingers of player 1 = 3"], own


@pytest.mark.parametrize(("throws", "rolls"), [(3, 6), (0, 0)])
def test_repeat_n_times_runs_its_block_n_times(throws, rolls):
    """repeat_times.rules: `repeat throws times:` rolls `throws` times a turn, none for 0."""
    game = rulelang.load(HERE / "language" / "repeat_times.rules", throws=throws)
    state = game.new_initial_state(2, trace="eager")
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.current_player() == rulelang.CHANCE
                           else rng.choice(state.legal_actions()))
    lines = state.event_lines()
    assert sum(line.startswith("roll ") for line in lines) == rolls
    assert sum(line.startswith("score of player") and "[bonus" in line for line in lines) == 4


def test_counters_holding_lists_of_players_are_written_as_players():
    """players_in_counters.rules: `o = others` and `t = turn_order` read as players in the trace
    and on the board, and a `show` of a counter that holds a player as `player 2`."""
    state = rulelang.load(HERE / "language" / "players_in_counters.rules").new_initial_state(3, trace="eager")
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    lines = [line.split("  [")[0] for line in state.event_lines() if line[:4] in ("o = ", "t = ")]
    assert lines[0] == "o = [player 1, player 2]" and lines[-1] == "t = [player 3, player 1, player 2]", lines
    shared, _ = state.shown_values(0)
    assert shared["lead"] == "player 2"
    assert "t = [player 3, player 1, player 2]" in state.observation_string(0)


def test_an_option_that_starts_as_none_is_given_none_by_its_word(tmp_path):
    """`--option nothing=none` on an option whose default is none gives none, not the text."""
    from rulelang.parser import parse
    from rulelang.pipeline import coerce_options
    from rulelang.source import Source

    tree, _ = parse(Source("o.rules", 'game "O"\n\noption nothing = none:\n    "None."\noption word = "hold":\n'
                           '    "A word."\n'))
    values, problems = coerce_options(tree, {"nothing": "none", "word": "none"})
    assert not problems and values == {"nothing": None, "word": "none"}


def test_a_declaration_ranges_up_to_an_option():
    """option_ranges.rules: `faces 1 to sides`, `one for each number in 1 to top_card` and a
    counter's keys `1 to tokens` follow the options the game is loaded with."""
    path = Path(__file__).resolve().parent / "language" / "option_ranges.rules"
    default = rulelang.load(path)
    assert default.kinds[0].face_labels == (1, 2, 3, 4, 5, 6) and len(default.kinds[1].pieces) == 10
    assert default.counters[0].keys == (1, 2, 3, 4)
    other = rulelang.load(path, sides=12, top_card=5, tokens=2)
    assert other.kinds[0].face_labels == tuple(range(1, 13)) and len(other.kinds[1].pieces) == 5
    assert other.counters[0].keys == (1, 2)


# ---------------------------------------------------------------------- teams (docs 2.2, 2.19)
TEAMS = HERE / "language" / "teams.rules"


def _teams_state_at_choice(seed: int):
    """The team race after its first throw, at the first player's choice."""
    state = rulelang.load(TEAMS).new_initial_state(4)
    state.apply_action(state.sample_chance(random.Random(seed)))
    assert state.current_player() == 0
    return state


def test_a_team_wins_together_by_the_sum_of_its_players():
    state = _teams_state_at_choice(1)
    assert [state.game.team_of(p, 4) for p in range(4)] == [0, 1, 0, 1]
    slots = {state.counter_of(i)[1]: i for i in range(len(state.counters)) if state.counter_of(i)[0].name == "points"}
    for seat, value in enumerate([5, 6, 5, 6]):  # each of players 2 and 4 above player 1, not above the team
        state.counters[slots[seat]] = value
    assert state.team_scores() == [[10], [12]]
    assert state._winners() == [1, 3]
    state.counters[slots[2]] = 8
    assert state.team_scores() == [[13], [12]]
    assert state._winners() == [0, 2]


def test_bots_play_for_their_team():
    """Giving the throw to a partner is worth as much to a bot as taking it (a partner's lead
    is no threat), for mc's ``evaluate`` and ismcts's ``standing`` alike."""
    from rulelang.agents import evaluate
    from rulelang.ismcts import standing
    for seed in range(5):
        state = _teams_state_at_choice(seed)
        after = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            after.append((evaluate(child, 0), standing(child)))
        assert after[0] == after[1]
        assert after[0][1][0] == after[0][1][2] and after[0][1][1] == after[0][1][3]


def test_simulate_reports_each_teams_share(capsys):
    assert cli.main(["simulate", str(TEAMS), "--games", "20"]) == 0
    out = capsys.readouterr().out
    assert "team 1 (seats 1, 3)" in out and "team 2 (seats 2, 4)" in out


def test_the_analysis_values_a_turn_for_the_team():
    """`rulelang analyze` (and the solver's `gain`) values what the turn gains for the team:
    the throw given to a partner gains as much as the throw taken."""
    from rulelang import analysis
    game = rulelang.load(TEAMS)
    state = _teams_state_at_choice(2)
    result = analysis.Analysis(state, analysis.gain_objective(game))
    values = [value for _, _, value in result.nodes[result.root_key][2]]
    assert len(values) == 2 and values[0] == values[1] > 0
    assert "summed over the player's team" in analysis.gain_objective(game).text


def test_players_after_goes_round_from_any_seat_and_skips_players_out(tmp_path):
    path = tmp_path / "after.rules"
    path.write_text('game "After":\n    players 4\n\ncounter score: per player = 0\n\nturn:\n    rule pass_on:\n'
                    "        score of first(players_after(player)) += 1\n        if turn_number == 2:\n"
                    "            eliminate seat(2)\n        if turn_number >= 6:\n            end game\n\n"
                    "winner:\n    rule most: most score of player\n", encoding="utf-8")
    state = rulelang.load(path).new_initial_state(4)
    lines = [line.split("  [")[0] for line in state.event_lines() if line.startswith("score of")]
    # turns: 1 gives 2, 2 gives 3 (then 3 is out), 4 gives 1, 1 gives 2, 2 gives 4 (3 is out), 4 gives 1
    assert lines == ["score of player 2 = 1", "score of player 3 = 1", "score of player 1 = 1",
                     "score of player 2 = 2", "score of player 4 = 1", "score of player 1 = 2"]


def test_subsets_chosen_by_another_player_group_alike_cards_as_that_player_sees_them(tmp_path):
    """`choose cash from subsets(purse of seat(1)) ... by seat(1)` during player 1's turn: the
    purse is player 2's own, so its 18 alike cards of two values make groups by how many of
    each (not 262,143 groups of distinct cards, which faulted R503)."""
    path = tmp_path / "pay.rules"
    path.write_text('''game "Pay with":
    players 2

card money:
    one for each value in 0, 10
    count 9

zone bank: shared pile, hidden
zone purse: per player hand, owner only

setup:
    rule fill:
        create money in bank
        move bank to purse of seat(1)

turn:
    rule pay:
        choose cash from subsets(purse of seat(1)) where sum(it) >= 10 by seat(1) as "pay with"
        move cash to purse of player
        end game

winner:
    rule most: most count(purse of player)
''')
    state = rulelang.load(path).new_initial_state(2)
    assert state.current_player() == 1
    assert len(state.legal_actions()) == 10 * 9  # 0 to 9 zeros with 1 to 9 tens
