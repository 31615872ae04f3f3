"""Engine-level checks that do not fit the data-driven suites."""

import random
import tempfile
from fractions import Fraction
from pathlib import Path

import attrs
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


def _snapshot(state):
    """What a copy could change in place in the state it was made from."""
    return (repr(state.frames), repr(state.dynamic), repr(state.zones), repr(state.counters), state.pending)


@pytest.mark.parametrize("path", sorted(GAMES.glob("*.rules")), ids=lambda p: p.stem)
def test_a_copy_played_on_leaves_its_original_as_it_was(path):
    """Copies share the faces shown and the frames below the top one until they change them
    (``State.own_dynamic``, a return copies its frame): a copy played on through returns, rolls
    and new turns changes nothing of the state it was made from, which then plays on as it would have."""
    game = rulelang.load(path)
    rng = random.Random(7)
    state = game.new_initial_state(game.min_players)
    for i in range(40):
        if state.is_terminal():
            break
        before = _snapshot(state)
        copy = state._copy() if i % 2 else state.clone(tracing=False)  # (the analysis's copy, a bot's)
        for _ in range(60):
            if copy.is_terminal():
                break
            copy.apply_action(copy.sample_chance(rng) if copy.current_player() == CHANCE
                              else rng.choice(copy.legal_actions()))
        assert _snapshot(state) == before
        state.apply_action(state.sample_chance(rng) if state.current_player() == CHANCE
                           else rng.choice(state.legal_actions()))
    replayed = game.new_initial_state(game.min_players)
    for action in state.history:
        replayed.apply_action(action)
    assert _snapshot(replayed) == _snapshot(state)


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
    assert finished.observation(1)["zones"]["hand of player 1"] == {"count": 0, "kinds": {}}
    seen_by_two = "\n".join(finished.event_lines(viewer=1))
    assert "from deck to hand of player 1" in seen_by_two
    assert "move 1 numbered from deck to hand of player 1" in seen_by_two


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
    from rulelang.agents import seat_view

    rules = tmp_path / "deck.rules"
    rules.write_text(DECK_GAME)
    state = rulelang.load(rules).new_initial_state(2)
    rng = random.Random(4)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    mine, theirs, deck = (state.zone_index("hand", 0), state.zone_index("hand", 1), state.zone_index("deck"))
    seen_differently = False
    for _ in range(20):
        copy = seat_view(state, 0).sample_state(rng)
        assert copy.zones[mine] == state.zones[mine]
        assert len(copy.zones[theirs]) == 3 and len(copy.zones[deck]) == 4
        assert sorted(copy.zones[theirs] + copy.zones[deck]) == sorted(state.zones[theirs] + state.zones[deck])
        assert all(copy.where[p] == theirs for p in copy.zones[theirs])
        seen_differently |= copy.zones[theirs] != state.zones[theirs]
    assert seen_differently


# ---------------------------------------------------------------------- triggered rules, limits
ENGINE_GAMES = sorted((Path(__file__).resolve().parent / "scenarios" / "engine").glob("*.rules"))


@pytest.mark.parametrize("path", ENGINE_GAMES, ids=lambda p: p.name)
def test_engine_scenario_games_play_to_the_end_and_clone(path):
    """Random games of the engine's scenario games: invariants hold after every step, and a
    clone taken at any point plays on exactly like the original (queued triggered rules and
    `once` branches are copied). Crowns may stop at R508: two of its branches break the limit."""
    game = rulelang.load(path)
    for seed in range(8):
        rng = random.Random(seed)
        state = game.new_initial_state(2)
        assert state.check_invariants() == []
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                action = state.sample_chance(rng)
            else:
                action = rng.choice(state.legal_actions())
            copy = state.clone()
            try:
                state.apply_action(action)
            except RuntimeFault as fault:
                assert path.name == "crowns.rules" and fault.diagnostic.code == "R508", str(fault)
                break
            copy.apply_action(action)
            assert copy.zones == state.zones and copy.counters == state.counters
            assert copy.event_lines() == state.event_lines()
            assert state.check_invariants() == []


LIMIT_GAME = '''game "Crowns":
    players 2 to 2
token crown:
    one for each number in 1 to 3
    limit 1 per player
token pebble:
    count 2
zone pool: shared pile, public
zone quarry: shared pile, public
zone crowns: per player set, public
zone pebbles: per player pile, public
setup:
    rule fill:
        create crown in pool
        create pebble in quarry
turn:
    rule grab: move pool where number <= 2 to crowns of player
    rule dig: move quarry to pebbles of player
    rule wait:
        choose as "wait":
            "pass": pass
winner:
    rule most: most count(crowns of player)
'''


def broken_limit(tmp_path, game: str = LIMIT_GAME) -> RuntimeFault:
    rules = tmp_path / "crowns.rules"
    rules.write_text(game)
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(rules).new_initial_state(2)
    return caught.value


def test_a_broken_limit_is_a_fault_when_the_game_waits(tmp_path):
    fault = broken_limit(tmp_path, LIMIT_GAME.replace("    rule dig: move quarry to pebbles of player\n", ""))
    assert fault.diagnostic.code == "R508"
    assert "player 1 holds 2 crown (crown 1, crown 2), more than the limit of 1" in str(fault)
    assert "rule `grab`, " in str(fault) and "crowns.rules:17" in str(fault)


def test_a_limit_kept_by_the_time_the_game_waits_is_no_fault(tmp_path):
    rules = tmp_path / "crowns.rules"
    rules.write_text(LIMIT_GAME.replace("    rule dig: move quarry to pebbles of player\n",
                                        "    rule give_back: move crowns of player where number == 2 to pool\n"))
    state = rulelang.load(rules).new_initial_state(2)
    assert state.prompt() == "wait"
    assert len(state.zones[state.zone_index("crowns", 0)]) == 1


def test_a_broken_limit_names_the_rule_that_moved_the_limited_piece(tmp_path):
    """`dig` moves pebbles (no limit) into a player's zone after `grab` moved the crowns."""
    fault = broken_limit(tmp_path)
    assert "rule `grab`" in str(fault)


def test_a_broken_limit_says_where(tmp_path):
    """Like every runtime fault, R508 has a place: the file, with a line and a caret."""
    fault = broken_limit(tmp_path, LIMIT_GAME.replace("    rule dig: move quarry to pebbles of player\n", ""))
    assert fault.diagnostic.span is not None
    assert fault.diagnostic.span.path.endswith("crowns.rules")
    assert "<unknown>" not in str(fault)


def test_a_limit_is_checked_after_a_whole_draw_and_its_triggered_rules(tmp_path):
    """The game waits for each drawn piece, but the limit is checked only once the `draw` and
    the rules it set off are done: `one_crown` sends the extra crown back first."""
    rules = tmp_path / "crown-draw.rules"
    rules.write_text('''game "Crown draw":
    players 2 to 2
token crown:
    one for each number in 1 to 3
    limit 1 per player
zone deck: shared pile, hidden
zone hand: per player hand, public
setup:
    rule fill: create crown in deck
turn:
    rule deal: draw 2 from deck to hand of player
    rule wait:
        choose as "wait":
            "pass": pass
rule one_crown:
    when move to hand of players if count(moved_to) > 1:
        move first(moved_to) to deck
winner:
    rule most: most count(hand of player)
''')
    state = rulelang.load(rules).new_initial_state(2)
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == CHANCE
    state.apply_action(state.legal_actions()[0])
    assert state.prompt() == "wait"
    assert len(state.zones[state.zone_index("hand", 0)]) == 1


OTHERWISE_KEEPS = """game "Old value":
    players 1 to 1
    at most 30 turns

card ox:
    one for each number in 1 to 5

zone pile: shared pile, public
zone mine: shared pile, public

setup:
    rule the_deck: create ox in pile

turn:
    rule steal:
        choose c from pile where number == 1 as "pick"
        otherwise:
            pass
        move c to mine

winner:
    rule most: most count(mine)

end:
    rule e: game ends when turn_number >= 3
"""


def test_a_variable_is_not_the_last_option_a_where_tried(tmp_path):
    """After `otherwise`, the choice's variable holds what it held before (here none), never
    the last option the `where` filter looked at."""
    path = tmp_path / "old.rules"
    path.write_text(OTHERWISE_KEEPS)
    state = rulelang.load(path).new_initial_state(1)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    mine = state.zones[state.zone_index("mine")]
    assert [state.describe_piece(p) for p in mine] == ["ox 1"]


def test_first_and_last_with_a_count_take_items_from_one_end(tmp_path):
    rules = tmp_path / "take.rules"
    rules.write_text(
        'game "Take":\n    players 2 to 2\n'
        "card c:\n    one for each number in 1 to 5\n"
        "zone deck: shared pile, public\nzone hand: per player hand, public\n"
        "setup:\n    rule deal:\n        create c in deck\n"
        "        move last(deck, 2) to hand of seat(0)\n"
        "        move first(deck, 10) to hand of seat(1)\n"
        "        move first(hand of seat(1), 0) + last(hand of seat(1), -1) to deck\n"
        "turn:\n    rule t: end game\n"
        "winner:\n    rule w: most count(hand of player)\n")
    state = rulelang.load(rules).new_initial_state(2)
    names = [[state.describe_piece(p) for p in state.zones[state.zone_index("hand", seat)]] for seat in (0, 1)]
    assert names == [["c 4", "c 5"], ["c 1", "c 2", "c 3"]]


def test_a_big_roll_is_counted_and_sampled_but_never_listed(tmp_path):
    rules = tmp_path / "big.rules"
    rules.write_text(
        'game "Big":\n    players 1 to 1\n'
        "die d6:\n    faces 1 to 6\n"
        "zone cup: shared pool, public\n"
        "setup:\n    rule dice: create 48 d6 in cup\n"
        "turn:\n    rule throw: roll cup\n"
        "winner:\n    rule w: most sum(cup)\n")
    state = rulelang.load(rules).new_initial_state(1)
    assert state.chance_outcome_count() == 2_869_685          # multisets of 48 dice, 6 faces
    state.apply_action(state.sample_chance(random.Random(1)))
    assert state.chance_outcome_count() == 0 or state.is_chance_node()
    again = rulelang.load(rules).new_initial_state(1)
    with pytest.raises(RuntimeFault) as caught:
        again.chance_outcomes()
    assert caught.value.diagnostic.code == "R509" and "rule `throw`" in str(caught.value)
    assert "2,869,685 outcomes" in str(caught.value)


NOBODY = """
game "Nobody":
    players 2 to 3

counter found: per player = false
counter nobody: shared = 0          # still a name where a name is expected

turn:
    rule try_once:
        nobody = 1
        choose:
            "find": found of player = true
            "miss": pass
        end game

winner:
    rule no_one_found: nobody wins when not any(players, found of it)
    rule finder: most 1 if found of player else 0
"""


@pytest.mark.parametrize(("action", "winners", "line"), [(0, [0], "winner(s): player 1"), (1, [], "no winner")])
def test_nobody_wins_when_its_condition_holds_at_the_end(tmp_path, action, winners, line):
    path = tmp_path / "nobody.rules"
    path.write_text(NOBODY)
    state = rulelang.load(path).new_initial_state(2)
    state.apply_action(state.legal_actions()[action])
    assert state.winners == winners
    assert state.returns() == [1.0 if p in winners else 0.0 for p in range(2)]
    assert line in state.event_lines()[-1]


def test_alike_faces_roll_as_one_with_their_weight(tmp_path):
    """A face written three times is three times as likely, and listed once: two dice of
    `brain, brain, brain, feet, feet, shotgun` have 6 outcomes, their probabilities exact and
    summing to 1; a sampled roll shows the first of alike faces, as the list does."""
    path = tmp_path / "g.rules"
    path.write_text('game "Zombie":\n    players 1 to 1\n\ndie green:\n    faces brain, brain, brain, feet, feet, shotgun\n\n'
                    "zone cup: shared pool, public\ncounter score: per player = 0\n\n"
                    "setup:\n    rule s: create 2 green in cup\n\nturn:\n    rule r:\n        roll cup\n"
                    "        score of player += count(cup, face == brain)\n\n"
                    "end:\n    rule e: game ends when turn_number >= 3\n\nwinner:\n    rule w: most score of player\n",
                    encoding="utf-8")
    state = rulelang.load(path).new_initial_state(1)
    outcomes = dict(state.chance_outcomes())
    assert state.chance_outcome_count() == len(outcomes) == 6
    assert sum(outcomes.values()) == 1
    assert outcomes[((0, 0),)] == Fraction(1, 4) and outcomes[((0, 3),)] == Fraction(1, 3)
    assert outcomes[((5, 5),)] == Fraction(1, 36)
    rng = random.Random(1)
    assert all(state.sample_chance(rng) in outcomes for _ in range(200))


def test_one_roll_of_several_cups_rolls_each_cup_on_its_own(tmp_path):
    """`roll cup of players`: dice are alike only within one zone, so each cup has its own
    outcome (two cups of one die: 36 outcomes, not the 21 multisets of two dice), and player 1's
    die is not always the lower one."""
    path = tmp_path / "g.rules"
    path.write_text('game "Cups":\n    players 2 to 2\n\ndie d6:\n    faces 1 to 6\n\n'
                    "zone cup: per player pool, owner only\n\n"
                    "setup:\n    rule s:\n        for each p in players:\n            create 1 d6 in cup of p\n\n"
                    "round:\n    rule shake: roll cup of players\n    rule done: end game\n\n"
                    "winner:\n    rule w: most sum(cup of player)\n", encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2)
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 36 and sum(outcomes.values()) == 1
    assert outcomes[((5,), (0,))] == Fraction(1, 36)
    state.apply_action(((5,), (0,)))
    cups = [state.zone_index("cup", seat) for seat in range(2)]
    assert [state.dynamic[1][state.zones[cup][0]] for cup in cups] == [6, 1]
    assert state.winners == [0]


TRIGGER_GAMES = sorted(path for folder in ("games", "tests/language", "tests/scenarios", "examples")
                       for path in (GAMES.parent / folder).rglob("*.rules") if "when move" in path.read_text())


@pytest.mark.parametrize("path", TRIGGER_GAMES, ids=lambda p: p.name)
def test_move_triggers_by_zone_play_as_testing_every_trigger(path):
    """`GameDef.triggers_by_zone` only skips triggers that cannot match: with every trigger
    tested at every move, the same random games play alike, step for step."""
    try:
        game = rulelang.load(path)
    except rulelang.RulesError:
        pytest.skip("a file that does not load (a diagnostics test)")
    every = tuple(range(len(game.move_triggers)))
    split = (tuple(i for i in every if game.move_triggers[i].instead),
             tuple(i for i in every if not game.move_triggers[i].instead))
    plain = attrs.evolve(game, triggers_by_zone={}, triggers_anywhere=split)
    assert game.triggers_by_zone, "a game with move triggers indexes them by zone"
    for seed in range(3):
        states = []
        for each in (game, plain):
            try:
                states.append(play(each.new_initial_state(each.min_players), random.Random(seed)))
            except RuntimeFault as fault:
                states.append(str(fault))
        if isinstance(states[0], str) or isinstance(states[1], str):
            assert states[0] == states[1]
        else:
            assert states[0].history == states[1].history and states[0].returns() == states[1].returns()


def test_draw_up_to_takes_what_the_source_holds():
    """`draw up to N` draws N, or every piece left when fewer; `draw N` from too few is R507."""
    game = rulelang.load(GAMES.parent / "tests" / "language" / "draw_up_to.rules")
    state = game.new_initial_state(2)
    rng = random.Random(3)
    drawn_late = []
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        deck = len(state.zones[state.zone_index("deck")])
        state.apply_action(rng.choice(state.legal_actions()))
        while state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        if deck < 1:
            drawn_late.append(len(state.zones[state.zone_index("deck")]))
    assert state.returns() and drawn_late  # turns with the deck empty drew nothing, and no fault
    plain = GAMES.parent / "tests" / "language" / "draw_up_to.rules"
    text = plain.read_text().replace("draw up to (3 - count(hand of player))", "draw (3 - count(hand of player))")
    path = Path(tempfile.mkdtemp()) / "draw_exactly.rules"
    path.write_text(text)
    state = rulelang.load(path).new_initial_state(2)
    with pytest.raises(RuntimeFault) as fault:
        play(state, random.Random(3))
    assert fault.value.diagnostic.code == "R507"


def test_draw_up_to_below_zero_draws_nothing():
    """`draw up to (3 - count(hand))` with a hand of more than 3 draws nothing; `draw (N)` with N
    below zero stays fault R503."""
    plain = (GAMES.parent / "tests" / "language" / "draw_up_to.rules").read_text()
    folder = Path(tempfile.mkdtemp())
    for up_to, expected in ((True, None), (False, "R503")):
        text = plain.replace("draw up to (3 - count(hand of player))",
                             "draw up to (1 - count(hand of player))" if up_to else "draw (1 - count(hand of player))")
        path = folder / f"draw_below_zero_{up_to}.rules"
        path.write_text(text)
        state = rulelang.load(path).new_initial_state(2)
        if expected is None:
            play(state, random.Random(3))
            assert state.is_terminal()
        else:
            with pytest.raises(RuntimeFault) as fault:
                play(state, random.Random(3))
            assert fault.value.diagnostic.code == expected


def test_weighted_faces_roll_with_their_weights():
    """`65 x sider, 22 x razorback = 5, ...` is each face written that many times: exact odds."""
    game = rulelang.load(GAMES.parent / "tests" / "language" / "weighted_faces.rules")
    outcomes = game.new_initial_state(2).chance_outcomes()
    assert sorted(p for _, p in outcomes) == [Fraction(1, 100), Fraction(3, 100), Fraction(9, 100),
                                              Fraction(22, 100), Fraction(65, 100)]


def test_the_trace_names_the_procedure_whose_statements_outside_a_rule_made_a_line():
    path = GAMES.parent / "tests" / "language" / "procedure_trace.rules"
    state = rulelang.load(path).new_initial_state(2)
    play(state, random.Random(1))
    moves = [line for line in state.event_lines(0) if line.lstrip().startswith("move chip")]
    assert moves and all("[procedure bump, " in line and "procedure_trace.rules:17]" in line for line in moves)


def test_a_rule_set_off_by_a_move_into_a_zone_a_piece_carries(tmp_path):
    """`when move to slot of board` names a zone each tile carries: the rule is kept under that
    zone's name (``TriggerDef.target_zones``) and is set off by a move into any tile's slot."""
    path = tmp_path / "carried.rules"
    path.write_text(CARRIED, encoding="utf-8")
    game = rulelang.load(path)
    assert game.move_triggers[0].target_zones == frozenset({"slot", "board"})
    state = game.new_initial_state(2)
    state.apply_action(0)
    assert state.counters == [1] and state.is_terminal()


CARRIED = """game "Carried":
    players 2 to 2

card tile:
    one for each number in 1 to 3

card marker:
    one for each number in 1 to 4

zone board: shared row, public
zone slot: per tile pile, public
zone box: shared pile, public
counter landed: shared = 0

setup:
    rule lay: create tile in board
    rule markers: create marker in box

turn:
    rule place:
        choose t from board as "place on"
        move top(box) to slot of t
    rule stop: end game

rule count_landing:
    when move to slot of board:
        landed += 1

winner:
    rule most: most landed
"""
