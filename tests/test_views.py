"""What each seat sees: every event of the trace as each viewer sees it (exact lines), the
observation and information state strings, the replay of one seat's view, and a leak test over
every game in games/ and tests/hidden_games/: a second state that differs only in what a seat
cannot see gives that seat the same observation, trace and information state."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import rulelang
from rulelang import cli, knowledge, tui
from rulelang.agents import seat_view
from rulelang.diagnostics import RuntimeFault

ROOT = Path(__file__).resolve().parent.parent
# Games by designers new to rulelang that hide something (tests/scenarios/designer-games)
DESIGNER_HIDDEN = ("blackjack", "cheat", "coloretto", "crazy-eights", "for-sale", "go-fish", "hanabi", "hearts",
                   "incan-gold", "love-letter", "no-thanks", "perudo", "skull", "sushi-go",
                   "scopa", "the-game", "mastermind", "memory",
                   "mia", "durak", "lost-cities", "oh-hell", "cluedo", "coup", "cockroach-poker",
                   "lost-cities-full", "bohnanza",
                   "uno", "exploding-kittens", "jaipur", "schotten-totten", "president", "spades",
                   "euchre", "dominoes", "pinochle", "muggins", "sheriff", "liars-poker-dice",
                   "las-vegas", "bang-dice", "llama", "flip7", "sevens", "high-society", "holdem",
                   "gin-rummy",
                   "dominion", "azul", "whist", "old-maid", "cribbage", "the-mind", "rummikub",
                   "seven-wonders",
                   "parade", "golf", "scat", "citadels", "modern-art", "ra", "schnapsen", "the-crew", "arboretum",
                   "avalon", "fists", "kuhhandel", "mascarade", "spicy", "rps-league",
                   "wizard", "skyjo", "sleeping-queens", "mille-bornes", "phase-10", "cabo", "one-night-werewolf",
                   "sheepshead", "port-royal", "beggar-my-neighbour", "tichu", "dungeon-roll", "sticheln", "haggis",
                   "category-5", "war")
# (Raj and Battleship hide choices, not chance)
GAME_FILES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "tests" / "hidden_games").glob("*.rules")) + \
    [ROOT / "tests" / "scenarios" / "designer-games" / f"{name}.rules" for name in DESIGNER_HIDDEN]

# Every visibility of zones and counters, and every kind of event.
VIEWS_GAME = '''game "Views":
    players 2 to 2
    at most 10 turns

die d6:
    faces 1 to 6

card ox:
    one for each number in 1 to 4

token chip:
    count 1

zone table: shared row, public
zone played: shared pile, public
zone deck: shared pile, hidden
zone cup: per player pool, owner only
zone box: per player pool, secret
zone hand: per player hand, owner only
zone vault: per player pile, secret

counter bid: per player = 0, owner only
counter tally: shared = 0, hidden
counter score: per player = 0

setup:
    rule make:
        create ox in deck
        create d6 in table
        for each p in players:
            create d6 in cup of p
            create d6 in box of p
        create 2 chip in vault of seat(1)

turn:
    rule throw: roll table + cup of players + box of players
    rule deal: draw 2 from deck to hand of player
    rule play:
        choose c from hand of player as "play"
        move c to played
    rule discard: move hand of player to deck
    rule secret_bid:
        choose b from [1, 2] where b <= count(vault of player) + 1 as "bid"
        bid of player = b
        tally += b
        score of player += 1
    rule stash: move vault of seat(1) to vault of seat(0)
    rule peek: move cup of player to hand of player

end:
    rule once: game ends when turn_number >= 2

winner:
    rule most_score: most score of player
'''

# The first turn of VIEWS_GAME, event by event, as each viewer sees it (rule names cut off).
REFEREE = """\
create 4 ox in deck
create 1 d6 in table
create 1 d6 in cup of player 1
create 1 d6 in box of player 1
create 1 d6 in cup of player 2
create 1 d6 in box of player 2
create 2 chip in vault of player 2
round 1
turn of player 1
roll 1 in table; 2 in cup of player 1; 3 in cup of player 2; 4 in box of player 1; 5 in box of player 2
move ox 3 from deck to hand of player 1
move ox 1 from deck to hand of player 1
player 1 chooses play: ox 3 from hand of player 1
move ox 3 from hand of player 1 to played
move ox 1 from hand of player 1 to deck
player 1 chooses bid: 1
bid of player 1 = 1
tally = 1
score of player 1 = 1
move 2 x chip from vault of player 2 to vault of player 1
move d6 showing 2 from cup of player 1 to hand of player 1
turn of player 2"""

SEEN_BY = {
    0: {  # player 1: their own cup, box, hand and vault; player 2's cup counted, box not at all
        "create 1 d6 in box of player 2": "",  # nothing at all: a line would count the creates
        "create 2 chip in vault of player 2": "",
        "roll 1 in table; 2 in cup of player 1; 3 in cup of player 2; 4 in box of player 1; 5 in box of player 2":
            "roll 1 in table; 2 in cup of player 1; 4 in box of player 1; 1 d6 in cup of player 2; dice in box of player 2",
        "tally = 1": "tally changes",
    },
    1: {  # player 2 watches player 1's turn
        "create 1 d6 in box of player 1": "",
        "roll 1 in table; 2 in cup of player 1; 3 in cup of player 2; 4 in box of player 1; 5 in box of player 2":
            "roll 1 in table; 3 in cup of player 2; 5 in box of player 2; 1 d6 in cup of player 1; dice in box of player 1",
        "move ox 3 from deck to hand of player 1": "move 1 ox from deck to hand of player 1",
        "move ox 1 from deck to hand of player 1": "move 1 ox from deck to hand of player 1",
        "player 1 chooses play: ox 3 from hand of player 1": "player 1 chooses play: (hidden)",
        "move ox 1 from hand of player 1 to deck": "move 1 ox from hand of player 1 to deck",
        "player 1 chooses bid: 1": "player 1 chooses bid: (hidden)",
        "bid of player 1 = 1": "bid of player 1 changes",
        "tally = 1": "tally changes",
        "move d6 showing 2 from cup of player 1 to hand of player 1": "move 1 d6 from cup of player 1 to hand of player 1",
    },
}
SEEN_BY[None] = {  # a spectator: public information only
    **SEEN_BY[1],
    "create 1 d6 in box of player 2": "",
    "create 2 chip in vault of player 2": "",
    "roll 1 in table; 2 in cup of player 1; 3 in cup of player 2; 4 in box of player 1; 5 in box of player 2":
        "roll 1; 1 d6 in cup of player 1; 1 d6 in cup of player 2; dice in box of player 1; "
                      "dice in box of player 2",
    "move 2 x chip from vault of player 2 to vault of player 1": "",  # sees nothing at either end
}


@pytest.fixture(scope="module")
def first_turn(tmp_path_factory):
    path = tmp_path_factory.mktemp("views") / "views.rules"
    path.write_text(VIEWS_GAME)
    state = rulelang.load(path).new_initial_state(2)
    state.apply_action(state.outcome_from_labels([1, 2, 3, 4, 5]))  # table, cups, boxes in turn
    for action in (2, 0, 0, 0):  # draw ox 3 and ox 1, play the first card, bid 1
        state.apply_action(action)
    return state


def _lines(state, viewer):
    return [line.split("  [")[0] for line in state.event_lines(0, viewer)]


def test_the_referee_sees_everything(first_turn):
    assert _lines(first_turn, "all") == REFEREE.splitlines()
    assert first_turn.event_lines() == first_turn.event_lines(0, "all")


@pytest.mark.parametrize("viewer", [0, 1, None], ids=["player 1", "player 2", "spectator"])
def test_each_event_as_each_viewer_sees_it(first_turn, viewer):
    expected = [SEEN_BY[viewer].get(line, line) for line in REFEREE.splitlines()]
    assert _lines(first_turn, viewer) == expected


def test_observation_string_shows_what_the_seat_sees(first_turn):
    assert first_turn.observation_string(1).splitlines() == [
        "round 1, turn 2, to move: chance",
        "table: d6 showing 1",
        "played: ox 3",
        "deck: 3 hidden (3 ox)",
        "cup of player 1: empty",
        "cup of player 2: d6 showing 3",
        "box of player 2: d6 showing 5",
        "hand of player 1: 1 hidden (1 d6)",
        "hand of player 2: empty",
        "vault of player 2: empty",
        "bid of player 2 = 0",
        "score of player 1 = 1",
        "score of player 2 = 0",
    ]
    seen = first_turn.observation(1)
    assert "box of player 1" not in seen["zones"] and "vault of player 1" not in seen["zones"]
    assert "tally" not in seen["counters"] and "bid of player 1" not in seen["counters"]
    assert seen["zones"]["deck"] == {"count": 3, "kinds": {"ox": 3}}
    assert first_turn.observation("all")["counters"]["tally"] == 1


def test_the_board_shows_what_the_seat_sees():
    """Secret zones, hidden counters and a winner criterion read from a secret zone show as
    `?` on another player's board (the criterion shows in the player's own row), and the
    criterion shows to everyone at the end."""
    from rulelang import tui

    game = rulelang.load(ROOT / "tests" / "hidden_games" / "secret_chips.rules")
    state = game.new_initial_state(2)
    rng = random.Random(2)
    for _ in range(5):
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    board = tui.render_board(state, ["you", "mc"], 0, tui.Style(False), 100).splitlines()
    assert "3 x chip" in board[-2] and board[-2].split()[-2:] == ["?", "3"]  # own vault; rolled, richest
    assert board[-1].split()[-4:] == ["?", "?", "?", "?"]  # vault, bid, rolled, richest of player 2
    assert not state.sees_score(0, 0) and not state.sees_score(0, 0, 1) and state.sees_score(0, 0, 0)
    assert state.sees_score(0, "all")
    while not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    assert state.sees_score(0, 1)


def test_information_state_is_the_trace_and_the_observation(first_turn):
    text = first_turn.information_state_string(0)
    assert text.splitlines()[0] == "view of player 1"
    assert text.endswith(first_turn.observation_string(0))
    assert first_turn.event_lines(0, 0)[9] in text
    assert "ox 1" not in first_turn.information_state_string(1)


def test_the_information_state_grows_with_the_trace(first_turn):
    """Each viewer's lines are kept between calls (and shared by clones): the text is the same
    as when it is built from the whole trace."""
    state = first_turn.clone()
    before = state.information_state_string(1)
    state.apply_action(state.outcome_from_labels([6, 5, 4, 3]))  # player 1 moved their cup away
    after = state.information_state_string(1)
    assert after != before and first_turn.information_state_string(1) == before
    lines = after.split("\n--\n")[0].splitlines()[1:]
    assert lines == [line for line in state.event_lines(0, 1) if line]  # (not the lines of what it saw nothing of)


def test_a_public_game_looks_the_same_to_everyone():
    state = rulelang.load(ROOT / "games" / "pickomino.rules").new_initial_state(3)
    rng = random.Random(5)
    for _ in range(60):
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    assert state.event_lines(0, 1) == state.event_lines(0, None) == state.event_lines()


TRIGGERS_GAME = '''game "Triggers":
    players 2 to 2

card ox:
    one for each number in 1 to 3

zone hand: per player hand, owner only
zone safe: per player pile, secret
zone bin: shared pile, public

counter named: shared = 0

define held = count(hand of player where number > 0)  # which cards: only their owner knows

setup:
    rule deal: create ox in hand of seat(0)

turn:
    rule name_it:
        choose x from [held, 7] as "name"
        named = x
    rule pick:
        choose y from [1, 2] as "pick"
    rule hide: move hand of player where number < 3 to safe of player
    rule dump: move hand of player to bin
    end game

rule noted:
    when move to safe of player:
        move top(safe of player) to bin

winner:
    rule w: most count(safe of player)
'''


def test_triggered_rules_and_choices_from_private_values(tmp_path):
    """A choice among values computed (through a define) from a zone the others do not see is
    hidden from them, one among plain values is not; a triggered rule's line counts the pieces
    as the move that set it off does."""
    path = tmp_path / "triggers.rules"
    path.write_text(TRIGGERS_GAME)
    state = rulelang.load(path).new_initial_state(2)
    state.apply_action(0)
    state.apply_action(1)
    assert _lines(state, 1)[3:10] == [
        "player 1 chooses name: (hidden)",
        "named = 3",
        "player 1 chooses pick: 2",
        "move 2 ox from hand of player 1 to safe of player 1",
        "triggered: 2 ox moved from hand of player 1 to safe of player 1",
        "move ox 2 from safe of player 1 to bin",
        "move ox 3 from hand of player 1 to bin",
    ]
    assert _lines(state, 0)[3:8] == [
        "player 1 chooses name: 3",
        "named = 3",
        "player 1 chooses pick: 2",
        "move ox 1 + ox 2 from hand of player 1 to safe of player 1",
        "triggered: ox 1 + ox 2 moved from hand of player 1 to safe of player 1",
    ]


BLIND_PICK = TRIGGERS_GAME.replace('        choose y from [1, 2] as "pick"\n', (
    '        choose y from hand of seat(0) by seat(1) as "pick"\n'
    '        move y to bin\n'))


def test_a_blind_pick_names_only_its_place_to_its_chooser(tmp_path):
    path = tmp_path / "blind.rules"
    path.write_text(BLIND_PICK)
    state = rulelang.load(path).new_initial_state(2)
    state.apply_action(0)
    # the chooser's menu (and a bot's labels) name places, not the cards
    assert state.action_to_string(2, 1) == "pick: a hidden ox (3) from hand of player 1"
    assert seat_view(state).labels[2] == "pick: a hidden ox (3) from hand of player 1"
    assert state.action_to_string(2, 0).startswith("pick: ox ")
    state.apply_action(2)  # player 2 picks the third card of player 1's hand, unseen
    assert [line for line in _lines(state, 1) if "pick" in line] == [
        "player 2 chooses pick: a hidden ox (3) from hand of player 1"]  # the place, as its menu said
    assert [line for line in _lines(state, 0) if "pick" in line] == ["player 2 chooses pick: ox 3 from hand of player 1"]
    assert "move ox 3 from hand of player 1 to bin" in _lines(state, 1)


# ---------------------------------------------------------------------- the leak test
def _sight(state, zone_index, seat):
    """The visibility table of docs/language.md 2.6, read here on its own (not through the
    engine's views): "pieces", "count" or "nothing"."""
    zone, owner = state.zone_of(zone_index)
    if zone.visibility in ("public", "top only"):
        return "pieces"
    if zone.visibility in ("owner only", "secret") and owner is not None and owner == seat:
        return "pieces"
    if zone.visibility == "others only" and owner is not None and seat is not None and owner != seat:
        return "pieces"
    return "count" if zone.visibility in ("hidden", "owner only", "others only") else "nothing"


def _facts(state, seat):
    """Everything the seat is entitled to know now, read from the raw state: when two states
    differ here, the rules themselves told the seat something, and the views may differ."""
    mover = state.current_player() if not state.is_terminal() else "end"
    out: list = [mover, state.round_number, state.turn_number]
    for i, pieces in enumerate(state.zones):
        sight = _sight(state, i, seat)
        if sight == "pieces":
            out.append((i, [state.describe_piece(p) for p in pieces]))
        elif sight == "count":
            out.append((i, sorted(state.game.kinds[state.pieces.kind[p]].name for p in pieces)))
    for i, value in enumerate(state.counters):
        counter, owner = state.counter_of(i)  # a counter with keys takes a place per key
        if counter.visibility == "public" or (counter.visibility == "owner only" and owner == seat):
            out.append((state.counter_name(i), owner, value))
    return out


def _event_facts(state, seat, start):
    """What the events since ``start`` told the seat, read from the raw events with the table of
    2.6: a step can show something and hide it again (cups opened, then dice rolled anew), so
    the facts of the state at the end of the step are not enough."""
    out: list = []

    def pieces_seen(pieces, origins, to):
        if _sight(state, to, seat) == "pieces" or all(_sight(state, o, seat) == "pieces" for o in origins):
            return [state.describe_piece(p) for p in pieces]
        return sorted(state.pieces.kind[p] for p in pieces)

    for _, kind, payload in state.events[start:]:
        if kind == "move":
            pieces, origins, to = payload[:3]
            out.append(("move", to, pieces_seen(pieces, origins, to)))
        elif kind == "trigger":
            moved, source, to = payload[:3]
            out.append(("trigger", to, pieces_seen(moved, [source], to)))
        elif kind == "reveal":  # the pieces, to the player they are shown to (None: every player); as
            pieces, zones, shown_to = payload[:3]  # for a move to the others
            out.append(("reveal", shown_to, [state.describe_piece(p) for p in pieces] if shown_to in (seat, None)
                        else pieces_seen(pieces, zones, zones[0])))
        elif kind == "roll":
            out.append(("roll", [label for _, label, zone in payload if _sight(state, zone, seat) == "pieces"]))
        elif kind == "choose" and payload[0] == seat:
            out.append(("choose", payload[2]))
        elif kind == "set":
            out.append(("set", payload[0], payload[1] if state.sees_counter(payload[0], seat) else None))
        else:
            out.append((kind,))
    return out


def _alike_choice(state, action, rng):
    """Another option of the pending choice when the choice is of values worked out from, or
    made with, what the other seats cannot see (``ChoiceSpec.private``, `secretly`): to them
    the two are alike. None otherwise."""
    kind, spec, options = state.pending[:3]
    # (a step of a choice of several values made in secret: no seat but its chooser reads a line of it)
    if kind != "choose" or not spec.private or spec.aloud or spec.of_pieces or spec.element == "pieces" \
            or spec.then is not None or (spec.several and not spec.in_secret):
        return None
    others = [i for i, option in enumerate(options) if option != options[action]]
    return rng.choice(others) if others else None


def _alike_outcome(state, seat, outcome, rng):
    """Another outcome of the pending chance node that the seat cannot tell from ``outcome``
    (dice it sees show the same faces; a drawn piece it does not see is of the same kind), or
    None."""
    kind, _, detail = state.pending
    if kind == "shuffle":  # a seat that does not see the order cannot tell pieces of a kind apart
        if knowledge.order_seers(state, detail[0]) >> seat & 1:
            return None
        kind_of = state.pieces.kind
        others = [q for q in state.shuffle_left() if q != outcome and kind_of[q] == kind_of[outcome]]
        return rng.choice(others) if others else None
    if kind == "draw":
        source, to, _ = detail
        seen = "pieces" in (_sight(state, source, seat), _sight(state, to, seat))
        key = state.describe_piece if seen else (lambda p: state.pieces.kind[p])
        others = [q for q in state.zones[source] if q != outcome and key(q) == key(outcome)]
        return rng.choice(others) if others else None
    if state.chance_outcome_count() > 3000:
        return None
    outcomes = state.chance_outcomes()
    dice = [p for _, group in detail for p in group]
    seen = [i for i, p in enumerate(dice) if _sight(state, state.where[p], seat) == "pieces"]

    def shown(candidate):
        faces = [f for group in candidate for f in group]
        return [faces[i] for i in seen]

    others = [o for o, _ in outcomes if o != outcome and shown(o) == shown(outcome)]
    return rng.choice(others) if others else None


def _without_result(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("game over")]


def _same_view_in_lockstep(a, b, seat, rng, start, steps=25):
    """Play a and b on with the same actions while the seat is entitled to the same facts;
    meanwhile its views of both (the trace from event ``start`` on) must be equal."""
    for _ in range(steps):
        if _facts(a, seat) != _facts(b, seat) or _event_facts(a, seat, start) != _event_facts(b, seat, start):
            break
        if a.is_terminal() or b.is_terminal():
            # who won is told to every seat, worked out from everything (a hand never shown: Cabo)
            assert _without_result(a.event_lines(start, seat)) == _without_result(b.event_lines(start, seat))
            return
        assert a.observation(seat) == b.observation(seat)
        assert a.observation_string(seat) == b.observation_string(seat)
        assert a.event_lines(start, seat) == b.event_lines(start, seat)
        if a.is_terminal() or b.is_terminal():
            break
        if not a.is_chance_node() and [a.action_to_string(x) for x in a.legal_actions()] != \
                [b.action_to_string(x) for x in b.legal_actions()]:
            break  # the mover's options differ (Go Fish: the ranks in their hand): one index is two choices
        action = a.sample_chance(rng) if a.is_chance_node() else rng.choice(a.legal_actions())
        try:
            b.apply_action(action)
        except RuntimeFault:
            break
        a.apply_action(action)
    else:
        return
    if _facts(a, seat) == _facts(b, seat) and _event_facts(a, seat, start) == _event_facts(b, seat, start):
        assert a.information_state_string(seat) == b.information_state_string(seat)


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_nothing_depends_on_what_a_seat_cannot_see(path):
    """At random chance nodes whose outcome some seat cannot fully see (a roll into a hidden
    cup, a draw into another's hand), a twin state gets another outcome that looks the same to
    that seat; the seat's observation, trace and information state are then equal in both."""
    game = rulelang.load(path)
    forks = 0
    for seed in range(4):
        rng = random.Random(seed)
        players = rng.randint(game.min_players, game.max_players)
        state = game.new_initial_state(players)
        for _ in range(400):
            if state.is_terminal():
                break
            if not state.is_chance_node():
                action = rng.choice(state.legal_actions())
                other = _alike_choice(state, action, rng) if forks < 12 and rng.random() < 0.3 else None
                if other is not None:
                    forks += 1
                    seat = rng.choice([s for s in range(players) if s != state.pending[3]])
                    a, b = state.clone(), state.clone()
                    a.apply_action(action)
                    b.apply_action(other)
                    _same_view_in_lockstep(a, b, seat, random.Random(seed * 1000 + forks), len(state.events))
                state.apply_action(action)
                continue
            outcome = state.sample_chance(rng)
            seat = rng.randrange(players)
            other = _alike_outcome(state, seat, outcome, rng) if forks < 12 and rng.random() < 0.3 else None
            if other is not None:
                forks += 1
                a, b = state.clone(), state.clone()
                a.apply_action(outcome)
                b.apply_action(other)
                _same_view_in_lockstep(a, b, seat, random.Random(seed * 1000 + forks), len(state.events))
            state.apply_action(outcome)
    if "hidden_games" in path.parts or "designer-games" in path.parts:
        assert forks, "a game with hidden information should give the test something to hide"


# ---------------------------------------------------------------------- logs and replay
@pytest.fixture(scope="module")
def chips_log(tmp_path_factory):
    log = tmp_path_factory.mktemp("chips") / "chips.jsonl"
    rules = ROOT / "tests" / "hidden_games" / "secret_chips.rules"
    code = cli.main(["run", str(rules), "--seats", "random,random", "--fast", "--seed", "3", "--log", str(log)])
    assert code == 0
    return log


def test_the_log_is_the_referees_record(chips_log):
    header = json.loads(chips_log.read_text().splitlines()[0])
    assert header["record"] == "referee"


def test_replay_as_a_seat_shows_only_its_view(chips_log, capsys, tmp_path):
    capsys.readouterr()
    assert cli.main(["replay", str(chips_log), "--as", "2"]) == 0
    out = capsys.readouterr().out
    assert "rolled of player 1 changes" in out and "rolled of player 1 =" not in out
    assert "what player 2 sees now:" in out and "vault of player 1" not in out.split("sees now:")[1]
    assert "\\n" not in out.split("sees now:")[1]  # the closing view line by line
    assert "reproduces: yes" in out
    transcript = tmp_path / "two.txt"
    assert cli.main(["replay", str(chips_log), "--as", "2", "--out", str(transcript)]) == 0
    assert out.startswith(transcript.read_text())  # the same view, without the replay's verdict
    assert cli.main(["replay", str(chips_log), "--as", "3"]) == 2
    capsys.readouterr()
    assert cli.main(["replay", str(chips_log), "--as", "spectator", "--out", str(transcript)]) == 0
    assert "a spectator's transcript written" in capsys.readouterr().out
    assert "rolled of player 1 =" not in transcript.read_text()
    assert cli.main(["replay", str(chips_log), "--out", str(transcript)]) == 2  # whose? the referee's only if asked
    assert "--as spectator" in capsys.readouterr().err


def test_a_viewer_is_a_seat_a_spectator_or_the_referee(first_turn):
    state = first_turn
    for wrong in (state.n, -1, "1", True):
        with pytest.raises(ValueError):
            state.observation(wrong)
        with pytest.raises(ValueError):
            state.information_state_string(wrong)
    with pytest.raises(ValueError):
        state.event_lines(0, state.n)


def test_no_seat_view_at_a_chance_node():
    state = rulelang.load(ROOT / "tests" / "hidden_games" / "guess_die.rules").new_initial_state(2)
    assert state.current_player() == rulelang.CHANCE
    with pytest.raises(ValueError, match="no seat decides"):
        seat_view(state)


# ---------------------------------------------------------------------- hidden values, carried zones
FLOWS_GAME = '''game "Flows":
    players 2 to 2
    at most 2 turns

die d6:
    faces 1 to 6

zone cup: per player pool, owner only
zone table: shared pile, public

procedure note:
    let k = 1
    choose z from [k, 2] as "in procedure"

setup:
    rule make:
        for each p in players:
            create d6 in cup of p
        create d6 in table

turn:
    rule throw: roll cup of player + table
    rule flows:
        let high = 0
        if first(cup of player).value >= 4:
            high = 1
        choose a from [high, 9] as "branch"
        let dice = 0
        let total = 0
        for each d in cup of player:
            dice += 1
            total += d.value
        choose b from [dice, 9] as "loop count"
        choose c from [total, 9] as "loop value"
        choose e from [first(table).value, count(cup of player)] as "public"
        if first(cup of player).value >= 4:
            do note
        end game

winner:
    rule w: most count(table)
'''


def test_a_value_is_hidden_through_conditions_loops_and_procedures(tmp_path):
    """A variable set under a condition on a hidden die, or summed over a hidden cup, is
    hidden; how many dice a cup holds (its count is public) and a public die are not. A choice
    in a procedure called under such a condition does not show at all: that it is made tells
    the condition."""
    path = tmp_path / "flows.rules"
    path.write_text(FLOWS_GAME)
    state = rulelang.load(path).new_initial_state(2)
    state.apply_action(state.outcome_from_labels([5, 5]))
    while not state.is_terminal():
        state.apply_action(0)
    assert [line for line in _lines(state, 1) if "chooses" in line] == [
        "player 1 chooses branch: (hidden)",
        "player 1 chooses loop count: 1",
        "player 1 chooses loop value: (hidden)",
        "player 1 chooses public: 5",
    ]  # the procedure's choice runs only with a high hidden die: player 2 reads no line of it
    assert "player 1 chooses in procedure: 1" in _lines(state, 0)


@pytest.fixture()
def hidden_values():
    """hidden_values.rules, player 1's first turn: a 5 in their cup, gem 3 drawn and stashed."""
    state = rulelang.load(ROOT / "tests" / "hidden_games" / "hidden_values.rules").new_initial_state(2)
    state.apply_action(state.outcome_from_labels([5]))
    state.apply_action(0)  # tell: 5
    state.apply_action(0)  # again: 5
    return state


def test_a_draw_from_a_deck_the_seat_does_not_see_names_no_card(hidden_values):
    state = hidden_values
    gem_3 = next(a for a in state.legal_actions() if state.action_to_string(a) == "draw gem 3 from deck")
    assert state.action_to_string(gem_3, 0) == "draw a hidden gem from deck"
    assert state.action_to_string(gem_3, 1) == "draw a hidden gem from deck"
    assert state.action_to_string(gem_3, None) == "draw a hidden gem from deck"


def test_values_from_defines_assignments_and_moved_pieces_are_hidden(hidden_values):
    """`define face_of(p)`, `t = face_of(player)` after `let t = 0`, and `first(moved).number`
    in a `when move from deck` rule: the values are the chooser's own."""
    state = hidden_values
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "draw gem 3 from deck"))
    state.apply_action(0)  # name it: 3
    state.apply_action(0)  # stash
    assert _lines(state, 1)[5:] == [
        "roll 1 d6 in cup of player 1",
        "player 1 chooses tell: (hidden)",
        "player 1 chooses again: (hidden)",
        "told of player 1 = 1",
        "move 1 gem from deck to hand of player 1",
        "triggered: 1 gem moved from deck to hand of player 1",
        "player 1 chooses name it: (hidden)",
        "player 1 chooses stash",
        "move 1 gem from hand of player 1 to vault of player 1",
        "bonus of player 1 changes",
        "turn of player 2",
    ]
    assert _lines(state, 0)[5:8] == ["roll 5", "player 1 chooses tell: 5", "player 1 chooses again: 5"]
    assert _lines(state, 0)[11] == "player 1 chooses name it: 3"
    # richest: a secret vault plus a hidden counter; stashed: one's own secret vault;
    # holding: how many cards a hand holds (public); talkative: a public counter
    assert [[[state.sees_score(c, viewer, row) for c in range(4)] for row in (0, 1)] for viewer in (0, 1, None)] == [
        [[False, True, True, True], [False, False, True, True]],
        [[False, False, True, True], [False, True, True, True]],
        [[False, False, True, True], [False, False, True, True]],
    ]
    assert [[state.sees_score(c, "all", row) for c in range(4)] for row in (0, 1)] == [[True] * 4] * 2


def test_a_carried_zone_names_its_carrier_only_to_who_sees_it():
    """`tag of gem 5` to the gem's holder, `tag of a hidden gem` to the others (in the line of
    the time, and in the observation, where such zones are counted together)."""
    state = rulelang.load(ROOT / "tests" / "hidden_games" / "carried_hidden.rules").new_initial_state(2)
    for gem in (5, 2, 4):
        state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == f"draw gem {gem} from deck"))
        state.apply_action(1)  # keep it in hand
    assert [line for line in _lines(state, 1) if "tag" in line] == [
        "move mark from centre to tag of a hidden gem",
        "move mark from centre to tag of gem 2",
        "move mark from centre to tag of a hidden gem",
    ]
    assert [line for line in _lines(state, 0) if "tag" in line] == [
        "move mark from centre to tag of gem 5",
        "move mark from centre to tag of a hidden gem",
        "move mark from centre to tag of gem 4",
    ]
    assert state.observation_string(1).splitlines()[4:] == [
        "hand of player 1: 2 hidden (2 gem)",
        "hand of player 2: gem 2 [tag: mark]",
        "tag of gem 2: mark",
        "tag of a hidden gem: mark, mark",
    ]
    assert "tag of gem 5" not in state.information_state_string(1)
    assert "tag of gem 5: mark" in state.observation_string("all")


TOP_ONLY_CARRIED = """game "Stacks":
    players 2 to 2
card chit:
    one for each number in 1 to 6
token spot:
    count 2
zone deck: shared pile, hidden
zone spots: shared row, public
zone pile: per spot stack, top only
counter points: per player = 0
setup:
    rule lay:
        create chit in deck
        create spot in spots
        for each s in spots:
            draw 2 from deck to pile of s
turn:
    rule t: points of player += 1
end:
    rule e: game ends when turn_number >= 2
winner:
    rule w: most points of player
"""


def test_a_top_only_zone_a_piece_carries_shows_its_count_and_top(tmp_path):
    path = tmp_path / "stacks.rules"
    path.write_text(TOP_ONLY_CARRIED)
    state = rulelang.load(path).new_initial_state(2)
    rng = random.Random(1)
    while state.current_player() == rulelang.CHANCE:
        state.apply_action(state.sample_chance(rng))
    seen, referee = state.observation(None)["zones"], state.observation("all")["zones"]
    tops = [referee[name][-1] for name in ("pile of spot", "pile of spot (2)")]  # two identical spots: two entries
    assert seen["spots"] == [f"spot [pile: 2, top {top}]" for top in tops]
    assert [seen[name] for name in ("pile of spot", "pile of spot (2)")] == [{"count": 2, "top": top} for top in tops]


def _referee_and_seat_boards(tmp_path, rules: str) -> tuple[str, str]:
    """The boards of a 2-player game's first state, as the referee and as seat 1 see it."""
    path = tmp_path / "board.rules"
    path.write_text(rules, encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2)
    return tuple(tui.render_board(state, ["random", "random"], viewer, tui.Style(False)) for viewer in ("all", 0))


def test_the_referees_board_names_a_counters_card_that_no_seat_sees(tmp_path):
    """A counter holding the bottom card of a hidden deck: every seat reads `a hidden pc`; the
    referee's board names the card, as the referee's trace does."""
    referee, seat = _referee_and_seat_boards(
        tmp_path, 'game "Bottom card":\n    players 2 to 2\n\ncard pc:\n    one for each number in 1 to 6\n\n'
        'zone deck: shared pile, hidden\ncounter lead_card: shared = none\n\n'
        'setup:\n    rule pick:\n        create pc in deck\n        lead_card = last(deck)\n\n'
        'turn:\n    rule stop: end game\n\nwinner:\n    rule nobody: most 0\n')
    assert "lead_card  pc 6" in referee and "lead_card  a hidden pc" in seat


def test_the_referees_board_shows_every_zone_no_seat_sees(tmp_path):
    """A shared `secret` zone (cards laid face down) and a shared hidden one: no seat sees their
    pieces, the referee's board names them (it showed `?` and a count); a seat's board does not."""
    referee, seat = _referee_and_seat_boards(
        tmp_path, 'game "Face down":\n    players 2 to 2\n\ncard pc:\n    one for each number in 1 to 3\n\n'
        'zone deck: shared pile, hidden\nzone down: shared pile, secret\n\n'
        'setup:\n    rule lay:\n        create pc in deck\n        move top(deck) to down\n\n'
        'turn:\n    rule pick:\n        choose n from [1, 2]\n        end game\n\n'
        'winner:\n    rule nobody: most 0\n')
    assert "down  pc 3" in referee and "deck  pc 1 2" in referee
    assert "pc 3" not in seat and "pc 1" not in seat


PEEK = """game "Peek":
    players 2 to 2

card c:
    one for each number in 1 to 2

zone down: shared pile, secret, for each s in 0 to 1
zone box: shared pile, hidden

setup:
    rule lay:
        create c in box
        move top(box) to down[0]
        move top(box) to down[1]

turn:
    rule peek:
        choose k from [0, 1] as "peek at"
        reveal top(down[k]) to player
        end game

winner:
    rule nobody: most 0
"""


def test_a_piece_revealed_in_a_secret_zone_with_keys_names_its_key_to_who_sees_it(tmp_path):
    """`reveal top(down[k]) to player`: the player sees the card where it lies, `down[1]`; the
    others never read the key (it may follow from what lies there)."""
    path = tmp_path / "peek.rules"
    path.write_text(PEEK, encoding="utf-8")
    state = rulelang.load(path).new_initial_state(2, trace="eager")
    state.apply_action(1)
    seen = {viewer: [line.split("  [")[0] for line in state.event_lines(viewer=viewer)] for viewer in (0, 1, None)}
    assert any(line.startswith("player 1 sees c ") and line.endswith(" in down[1]") for line in seen[0])
    assert not any("down[" in line for line in seen[1] + seen[None])


def test_a_piece_from_under_a_top_only_zones_top_is_named_to_no_one_else():
    """top_only_below.rules: after a shuffle, the bottom piece goes to the player's hand (the
    other seat counts it), then the top piece (everyone saw it on top: named to all)."""
    state = rulelang.load(ROOT / "tests" / "language" / "top_only_below.rules").new_initial_state(2, trace="eager")
    rng = random.Random(1)
    while state.current_player() < 0:
        state.apply_action(state.sample_chance(rng))
    first, second = [payload for _, kind, payload in state.events if kind == "move"]
    bottom, top = first[0][0], second[0][0]
    assert first[5] == frozenset({bottom}) and second[5] is None
    name = state.describe_piece
    mine = [line.split("  [")[0] for line in state.event_lines(viewer=0) if line.startswith("move")]
    theirs = [line.split("  [")[0] for line in state.event_lines(viewer=1) if line.startswith("move")]
    assert mine == [f"move {name(bottom)} from tp to hand of player 1", f"move {name(top)} from tp to hand of player 1"]
    assert theirs == ["move 1 c from tp to hand of player 1", f"move {name(top)} from tp to hand of player 1"]


def test_a_roll_of_several_kinds_names_them_as_the_trace_does(tmp_path):
    """The text of a roll outcome (the log's `text`, the screen) names each kind when the dice
    are of several kinds, as the trace's line does."""
    path = tmp_path / "two_kinds.rules"
    path.write_text('game "Two kinds":\n    players 1\n\ndie green:\n    faces brain, feet\n\n'
                    'die red:\n    faces brain, shotgun\n\nzone cup: shared pool, public\n\n'
                    'setup:\n    rule dice:\n        create 1 green in cup\n        create 1 red in cup\n\n'
                    'turn:\n    rule throw: roll cup\n    rule stop: end game\n\nwinner:\n    rule w: most 0\n')
    state = rulelang.load(path).new_initial_state(1)
    outcome = state.outcome_from_labels(["feet", "shotgun"])
    assert state.action_to_string(outcome) == "roll green feet, red shotgun"
    state.apply_action(outcome)
    assert any(line.startswith("roll green feet, red shotgun") for line in state.event_lines(0))


def test_reveal_to_a_list_of_players_shows_each_of_them(tmp_path):
    """`reveal top(deck) to others`: each other player sees the card (a line each); the player
    whose turn it is does not."""
    path = tmp_path / "reveal_all.rules"
    path.write_text('game "Reveal to all":\n    players 3\n\ncard c:\n    one for each number in 1 to 5\n\n'
                    'zone deck: shared pile, hidden\n\nsetup:\n    rule deal: create c in deck\n\n'
                    'turn:\n    rule show:\n        reveal top(deck) to others\n        end game\n\n'
                    'winner:\n    rule w: most 0\n')
    state = rulelang.load(path).new_initial_state(3)
    assert [line for line in _lines(state, 1) if "sees" in line] == [
        "player 2 sees c 5 in deck", "player 3 sees 1 c in deck"]
    assert [line for line in _lines(state, 0) if "sees" in line] == [
        "player 2 sees 1 c in deck", "player 3 sees 1 c in deck"]


def test_a_then_choose_whose_second_part_is_blind_reads_to_its_chooser_as_its_menu_did(tmp_path):
    """`choose n from [1, 2] as "bet" then choose v from hand of first(others) as "pick"`: the
    chooser reads its bet and the place it picked, not `(hidden)`."""
    path = tmp_path / "then_blind.rules"
    path.write_text('game "Then blind":\n    players 2\n\ncard c:\n    one for each number in 1 to 6\n\n'
                    'zone deck: shared pile, hidden\nzone hand: per player hand, owner only\n\n'
                    'setup:\n    rule deal:\n        create c in deck\n        for each p in players:\n'
                    '            draw 2 from deck to hand of p\n\nturn:\n    rule pick:\n'
                    '        choose n from [1, 2] as "bet" then choose v from hand of first(others) as "pick"\n'
                    '        move v to hand of player\n        end game\n\nwinner:\n    rule w: most 0\n')
    state = rulelang.load(path).new_initial_state(2)
    rng = random.Random(1)
    while state.current_player() == rulelang.CHANCE:
        state.apply_action(state.sample_chance(rng))
    menu = state.action_to_string(0, 0)
    state.apply_action(0)
    assert [line for line in _lines(state, 0) if "chooses" in line] == [f"player 1 chooses {menu}"]
    assert menu.startswith("bet: 1, pick: a hidden c (1) from hand of player 2")


GATHER_HANDS = '''\
game "Gather hands":
    players 2

card c:
    one for each number in 1 to 4

zone deck: shared pile, hidden
zone hand: per player hand, owner only

setup:
    rule deal:
        create c in deck
        for each p in players:
            draw 1 from deck to hand of p

turn:
    rule gather: move hand of players to deck
    rule stop: end game

winner:
    rule none_yet: most count(hand of player)
'''


def test_a_move_from_several_zones_says_whose_were_whose_to_every_viewer_as_it_sees_them(tmp_path):
    """Each seat reads its own card named and the other's counted, each after the hand it
    left (the counts are what the hands' sizes tell anyway)."""
    path = tmp_path / "gather.rules"
    path.write_text(GATHER_HANDS)
    state = rulelang.load(path).new_initial_state(2)
    while state.current_player() == rulelang.CHANCE:  # the deal
        state.apply_action(state.legal_actions()[0])
    gather = {viewer: _lines(state, viewer)[-2] for viewer in ("all", 0, 1, None)}
    mine_1, mine_2 = (state.describe_piece(state.history[seat]) for seat in (0, 1))
    assert gather["all"] == f"move {mine_1} from hand of player 1, {mine_2} from hand of player 2 to deck"
    assert gather[0] == f"move {mine_1} from hand of player 1, 1 c from hand of player 2 to deck"
    assert gather[1] == f"move 1 c from hand of player 1, {mine_2} from hand of player 2 to deck"
    assert gather[None] == "move 1 c from hand of player 1, 1 c from hand of player 2 to deck"


CARRIED_BY_A_VARIABLE = '''\
game "Kept through a variable":
    players 2

card chit:
    one for each number in 1 to 6

zone deck: shared pile, hidden
zone hand: per player hand, owner only

counter kept: shared = none

setup:
    rule deal:
        create chit in deck
        draw 2 from deck to hand of seat(0)

turn:
    rule keep:
        let best = START
        best = PIECES
        kept = best
        end game

winner:
    rule fewest_held: most 0 - count(hand of player)
'''


@pytest.mark.parametrize("start, pieces", [("none", "first(hand of seat(0))"),
                                           ("empty", "hand of seat(0) where number >= 1")])
def test_a_counter_set_from_a_variable_that_starts_empty_names_its_pieces_only_where_seen(tmp_path, start, pieces):
    """`let best = none` (or `empty`), then pieces, then `kept = best`: the variable reads as
    any value, yet it only ever holds pieces, so the counter shows them as pieces, hidden
    from a seat that does not see them, never as their numbers."""
    path = tmp_path / "kept.rules"
    path.write_text(CARRIED_BY_A_VARIABLE.replace("START", start).replace("PIECES", pieces))
    game = rulelang.load(path)
    assert game.counters[0].holds_pieces
    state = game.new_initial_state(2)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    mine = [line for line in _lines(state, 0) if line.startswith("kept = ")]
    theirs = [line for line in _lines(state, 1) if line.startswith("kept = ")]
    assert "chit" in mine[0] and "hidden" not in mine[0]
    assert "a hidden chit" in theirs[0] and not any(ch.isdigit() for ch in theirs[0])
    assert "a hidden chit" in state.observation_string(1) and "kept: a hidden" not in state.observation_string(0)


def test_a_counter_set_from_a_variable_holding_pieces_and_numbers_is_refused(tmp_path):
    path = tmp_path / "kept.rules"
    path.write_text(CARRIED_BY_A_VARIABLE.replace("START", "none").replace(
        "PIECES", "first(hand of seat(0))\n        best = 3 if best == none else best"))
    with pytest.raises(rulelang.RulesError) as caught:
        rulelang.load(path)
    assert [d.code for d in caught.value.diagnostics] == ["E201"]
    assert "set to pieces here and to other values" in caught.value.diagnostics[0].message


def test_a_move_from_every_players_zones_lists_them_player_by_player(tmp_path):
    """`move box of players to pile` takes player 1's boxes, then player 2's: the line lists
    the groups in that order, not key by key."""
    path = tmp_path / "boxes.rules"
    path.write_text('''game "Boxes":
    players 2

card c:
    one for each number in 1 to 6

zone box: per player row, public, for each slot in 1 to 3
zone pile: shared row, public

setup:
    rule lay:
        create c in pile
        for each p in players:
            for each s in range(1, 3):
                move first(pile) to box[s] of p

turn:
    rule gather:
        move box of players to pile
        end game

winner:
    rule w: most 0
''')
    state = rulelang.load(path).new_initial_state(2, trace="eager")
    line = next(line for line in state.event_lines() if "to pile" in line)
    assert line.startswith("move c 1 from box[1] of player 1, c 2 from box[2] of player 1, c 3 from box[3] of "
                           "player 1, c 4 from box[1] of player 2, c 5 from box[2] of player 2"), line


def test_a_counter_whose_owner_was_picked_in_secret_shows_only_to_its_owner():
    """`chips of p += 1` for players p picked in secret: whose chips changed is theirs to know;
    another seat reads no line of it, so two different picks look alike to it."""
    game = rulelang.load(ROOT / "tests" / "hidden_games" / "secret_gift.rules")
    lines = []
    for pick in ("give to: player 2", "give to: player 3"):
        state = game.new_initial_state(4)
        state.apply_action([state.action_to_string(a) for a in state.legal_actions()].index(pick))
        while state.current_player() == 0:
            state.apply_action(state.legal_actions()[-1])  # `done`, once one is picked
        lines.append(state.event_lines(0, 3))
        owner = int(pick[-1]) - 1
        assert any(line.startswith(f"chips of player {owner + 1} = 1") for line in state.event_lines(0, owner))
    assert lines[0] == lines[1]
    assert not any("chips" in line for line in lines[0])


def test_how_many_pieces_hidden_zones_of_a_keyed_declaration_hold_is_public():
    """`sum(down of player, count(it))` reads how many cards each face-down slot holds, which
    every seat sees: the choice under it shows to every seat (it read `(hidden)` once, and
    bots had to guess it)."""
    game = rulelang.load(ROOT / "tests" / "hidden_games" / "counts_of_hidden_places.rules")
    state = game.new_initial_state(2)
    rng = random.Random(1)
    while state.current_player() == rulelang.CHANCE:
        state.apply_action(state.sample_chance(rng))
    state.apply_action([state.action_to_string(a) for a in state.legal_actions()].index("turn up"))
    assert not state.pending[1].private
    state.apply_action(0)
    assert any(line.startswith("player 1 chooses turn up: 1") for line in state.event_lines(0, 1))
