"""Card tables, `shuffle`, `range` and `tally`: engine checks beside their test files
(tests/language/, tests/hidden_games/shuffled_deck.rules, tests/scenarios/language/)."""

import itertools
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

import rulelang
from rulelang import CHANCE, cli
from rulelang.diagnostics import RuntimeFault

HERE = Path(__file__).resolve().parent
TABLES = HERE / "language" / "tables.rules"
SHUFFLED = HERE / "hidden_games" / "shuffled_deck.rules"


def play(state, rng):
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def load_text(tmp_path, text: str, name: str = "game.rules"):
    path = tmp_path / name
    path.write_text(text)
    return rulelang.load(path)


# ---------------------------------------------------------------------- tables
def test_a_table_makes_one_card_per_row_named_by_its_first_column():
    state = rulelang.load(TABLES).new_initial_state(2)  # waits at the shuffle of the deck
    assert state.pieces.names == ["warning sum of 7 or more", "warning two or more 5s", "warning any 1"]


def test_plain_columns_computed_attributes_and_row_numbers():
    game = rulelang.load(TABLES)
    kind = next(k for k in game.kinds if k.name == "warning")
    column = {name: i for i, name in enumerate(game.attributes)}
    rows = [(r[column["title"]], r[column["type"]], r[column["points"]], r[column["row"]]) for r in kind.pieces]
    assert rows == [("sum of 7 or more", "bomb", 2, 1), ("two or more 5s", "explosive", 1, 2), ("any 1", "bomb", 2, 3)]


LIST_CELLS = """
game "Lists in cells":
    players 1 to 1

card question:
    table text, parameters:
        "which colour",         empty
        "where are your 1s or 2s", [1, 2]
        "where are your 3s or 4s", [3, 4]
        "where are your 3s or 4s", [3, 4]

zone face_up: shared row, public

setup:
    rule lay_out: create question in face_up

turn:
    rule ask:
        choose q from face_up as "ask" then choose n from q.parameters as "name a number"
        choose g from subsets(face_up where 3 in parameters) as "group"
        end game

winner:
    rule nobody: most 0
"""


def test_a_plain_cell_holds_a_list_of_values_and_pieces_with_lists_still_group(tmp_path):
    state = load_text(tmp_path, LIST_CELLS).new_initial_state(1)
    labels = [state.action_to_string(a) for a in state.legal_actions()]
    assert labels == ["ask: question which colour from face_up",
                      "ask: question where are your 1s or 2s from face_up, name a number: 1",
                      "ask: question where are your 1s or 2s from face_up, name a number: 2",
                      "ask: question where are your 3s or 4s from face_up, name a number: 3",
                      "ask: question where are your 3s or 4s from face_up, name a number: 4",
                      "ask: question where are your 3s or 4s from face_up, name a number: 3",
                      "ask: question where are your 3s or 4s from face_up, name a number: 4"]
    state.apply_action(state.legal_actions()[0])
    assert len(state.legal_actions()) == 3  # no crash on the lists; rows differ: 3 groups of 2 cards


def test_a_list_cell_of_expressions_is_an_error(tmp_path):
    path = tmp_path / "bad.rules"
    path.write_text(LIST_CELLS.replace("[1, 2]", "[1, count(face_up)]"))
    with pytest.raises(rulelang.RulesError) as caught:
        rulelang.load(path)
    assert "E201" in str(caught.value)


TABLE_GAME = '''
game "Cells":
    players 1 to 1

card rule_card:
    table name, bonus, gives(x, y):
        plus,  -2,   x + y + bonus
        times, 3,    x * y + count(pile)
        label, none, "n" if x > y else "m"

zone pile: shared pile, public
zone hand: per player set, public
counter total: per player = 0

setup:
    rule deal:
        create rule_card in pile

turn:
    rule use:
        choose card from pile as "use"
        total of player = card.gives(2, 5) if card.name != "label" else 0
        if any(pile, gives(1, 0) == "n"):
            total of player += 100
        end game

winner:
    rule most: most total of player
'''


@pytest.mark.parametrize("name, expected", [("plus", 105), ("times", 113), ("label", 100)])
def test_a_column_with_parameters_is_worked_out_when_called(tmp_path, name, expected):
    state = load_text(tmp_path, TABLE_GAME).new_initial_state(1)
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a).startswith(f"use: rule_card {name}")))
    assert state.is_terminal() and state.scores() == [[expected]]


def test_a_column_with_parameters_on_a_piece_of_another_kind_is_a_fault_naming_the_rule(tmp_path):
    text = TABLE_GAME.replace("zone pile", "token chip:\n    count 1\n\nzone pile").replace(
        "create rule_card in pile", "create rule_card in pile\n        create chip in pile")
    state = load_text(tmp_path, text).new_initial_state(1)
    chip = next(a for a in state.legal_actions() if state.action_to_string(a).startswith("use: chip"))
    with pytest.raises(RuntimeFault) as caught:
        state.apply_action(chip)
    assert "chip has no column `gives` with parameters" in str(caught.value) and "rule `use`" in str(caught.value)


def test_inside_a_condition_about_pieces_a_bare_column_name_is_the_items_not_the_rows(tmp_path):
    """`count(city of p, icon == "cow")` in a cell counts the cards showing a cow: there `icon`
    is each counted card's, as any attribute in such a condition; outside it, the row's own."""
    game = load_text(tmp_path, 'game "G":\n    players 2\n\ncard thing:\n    table title, icon, pays(p):\n'
                     '        cow_card, cow, 1\n        factory, factory, 3 * count(city of p, icon == "cow")\n'
                     '        mill, mill, 10 if icon == "mill" else 0\n\n'
                     "zone city: per player pool, public\ncounter coins: per player = 0\n\n"
                     "setup:\n    rule deal: create thing in city of seat(0)\n\n"
                     "turn:\n    rule earn:\n        for each c in city of player:\n"
                     "            coins of player += c.pays(player)\n        end game\n\n"
                     "winner:\n    rule most: most coins of player\n")
    state = game.new_initial_state(2)
    assert state.is_terminal() and state.scores()[0] == [1 + 3 + 10]


def test_a_column_with_parameters_reading_a_hidden_zone_makes_a_choice_private(tmp_path):
    text = TABLE_GAME.replace("zone hand: per player set, public", "zone hand: per player set, owner only") \
        .replace("x * y + count(pile)", "x * y + count(hand of player, number == 1)") \
        .replace('        choose card from pile as "use"\n',
                 '        choose card from pile as "use"\n        choose n from [card.gives(1, 1)] as "peek"\n')
    game = load_text(tmp_path, text)
    peek = next(code[1] for p in game.procedures if p for code in p.code if code[0] == 3 and code[1].prompt == "peek")
    use = next(code[1] for p in game.procedures if p for code in p.code if code[0] == 3 and code[1].prompt == "use")
    assert peek.private and not use.private


# ---------------------------------------------------------------------- shuffle
SHUFFLE_GAME = '''
game "Shuffle":
    players 1 to 1

card numbered:
    one for each number in 1 to N

zone deck: shared stack, hidden
zone line: shared row, public

setup:
    rule deal:
        create numbered in deck
        shuffle deck

turn:
    rule reveal:
        choose:
            "reveal": move deck to line
        end game

winner:
    rule top_card: most first(line).number
'''


@pytest.mark.parametrize("size", [3, 4])
def test_shuffle_gives_each_order_with_exact_equal_probability(tmp_path, size):
    game = load_text(tmp_path, SHUFFLE_GAME.replace("N", str(size)))
    orders: Counter = Counter()

    def walk(state, probability):
        if state.current_player() != CHANCE:
            deck = state.zones[state.zone_index("deck", None)][::-1]  # from the top down
            orders[tuple(state.pieces.columns[game.attributes.index("number")][p] for p in deck)] += probability
            return
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == 1
        for outcome, p in outcomes:
            child = state.clone()
            child.apply_action(outcome)
            walk(child, probability * p)

    walk(game.new_initial_state(1), Fraction(1))
    assert set(orders) == set(itertools.permutations(range(1, size + 1)))
    assert set(orders.values()) == {Fraction(1, len(orders))}


def test_shuffle_reproduces_from_its_history_and_the_first_piece_picked_ends_on_top(tmp_path):
    game = load_text(tmp_path, SHUFFLE_GAME.replace("N", "6"))
    state = game.new_initial_state(1)
    assert state.prompt() == "shuffle" and len(state.chance_outcomes()) == 6
    first = state.sample_chance(random.Random(4))
    state.apply_action(first)
    assert state.zones[state.zone_index("deck", None)][-1] == first
    play(state, random.Random(4))
    again = game.new_initial_state(1)
    for action in state.history:
        again.apply_action(action)
    assert again.zones == state.zones and again.event_lines() == state.event_lines()
    assert len(state.history) == 5 + 1  # five picks (the last piece needs none), one decision


@pytest.mark.parametrize("size", [0, 1])
def test_shuffling_an_empty_or_one_piece_zone_is_no_chance_node(tmp_path, size):
    text = SHUFFLE_GAME.replace("N", "1").replace("create numbered in deck", f"create {size} numbered in deck") \
        .replace("one for each number in 1 to 1", "count 1\n    number = 7")
    state = load_text(tmp_path, text).new_initial_state(1)
    assert state.current_player() == 0 and not state.history
    assert "shuffle deck" in "\n".join(state.event_lines())


def test_a_shuffle_of_a_hidden_zone_names_no_piece_to_any_seat(tmp_path):
    game = load_text(tmp_path, SHUFFLE_GAME.replace("N", "4").replace("players 1 to 1", "players 2 to 2"))
    state = game.new_initial_state(2)
    action = state.legal_actions()[0]
    assert state.action_to_string(action, 0) == state.action_to_string(action, None) == "shuffle deck"
    assert "numbered" in state.action_to_string(action)  # the referee sees which
    views = set()
    for outcome in state.legal_actions():
        twin = state.clone()
        twin.apply_action(outcome)
        views.add((twin.information_state_string(0), twin.information_state_string(1)))
    assert len(views) == 1


def test_a_scripted_shuffle_in_a_log_replays(tmp_path):
    log = tmp_path / "shuffled.jsonl"
    assert cli.main(["run", str(SHUFFLED), "--seats", "random,random", "--fast", "--seed", "5",
                     "--log", str(log)]) == 0
    assert cli.main(["replay", str(log)]) == 0


# ---------------------------------------------------------------------- range
RANGE_GAME = '''
game "Range":
    players 1 to 1

token chip:
    count 3

zone pool: per player pool, public

counter committed: per player = 0

setup:
    rule chips: create chip in pool of player

turn:
    rule commit:
        choose n from range(1, count(pool of player)) as "commit"
        committed of player = n
        end game

winner:
    rule most: most committed of player
'''


def test_choosing_from_a_range_is_one_decision_with_one_option_per_number(tmp_path):
    state = load_text(tmp_path, RANGE_GAME).new_initial_state(1)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["commit: 1", "commit: 2", "commit: 3"]
    assert [state.action_to_json(a)["choice"] for a in state.legal_actions()] == [1, 2, 3]
    spec = state.pending[1]
    assert not spec.private  # a count of a public zone
    state.apply_action(2)
    assert state.scores() == [[3]]


@pytest.mark.parametrize("bounds, expected", [("3, 5", [3, 4, 5]), ("2, 2", [2]), ("5, 1", []), ("-1, 1", [-1, 0, 1])])
def test_range_includes_both_ends(tmp_path, bounds, expected):
    text = RANGE_GAME.replace("range(1, count(pool of player))", f"[range({bounds})]")
    state = load_text(tmp_path, text).new_initial_state(1)
    assert state.pending[2] == [expected]


def test_a_huge_range_is_a_fault_naming_the_rule(tmp_path):
    text = RANGE_GAME.replace("range(1, count(pool of player))", "range(1, 10000000000)")
    with pytest.raises(RuntimeFault) as caught:
        load_text(tmp_path, text).new_initial_state(1)
    assert caught.value.diagnostic.code == "R509" and "rule `commit`" in str(caught.value)


# ---------------------------------------------------------------------- tally
def test_tally_counts_per_key_outside_the_trace_and_clones_share_it():
    state = rulelang.load(TABLES).new_initial_state(2)
    play(state, random.Random(8))
    assert state.tallies and all(name == "bust" for name, _ in state.tallies)
    busted = sum(len(state.zones[state.zone_index("busted", p)]) for p in range(2))
    assert sum(state.tallies.values()) == busted
    assert not any(kind == "tally" for _, kind, _ in state.events)
    copy = state.clone()
    assert copy.tallies is state.tallies
    copy.tally("bust", "again")
    assert ("bust", "again") not in state.tallies


def test_simulate_reports_tallies_per_key(capsys):
    assert cli.main(["simulate", str(TABLES), "--games", "20", "--players", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "tallies (total, times per game):" in out and "  bust " in out and "any 1" in out


# ---------------------------------------------------------------------- the new words stay names
WORDS_GAME = '''
game "Words":
    players 1 to 1

card c:
    count 2
    table = 3

zone z: shared pile, public
counter tally: shared = 0
counter shuffle: per player = 0

setup:
    rule s: create c in z

turn:
    rule t:
        tally += 1
        shuffle of player = tally + sum(z, table)
        tally turns by tally
        shuffle z
        end game

winner:
    rule w: most shuffle of player
'''


def test_tally_shuffle_and_table_are_still_names_where_a_name_is_expected(tmp_path):
    state = play(load_text(tmp_path, WORDS_GAME).new_initial_state(1), random.Random(1))
    assert state.scores() == [[7]] and state.tallies == {("turns", 1): 1}
