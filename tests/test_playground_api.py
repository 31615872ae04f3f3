"""The playground's engine face (rulelang.playground.api), called as the page calls it: JSON in,
JSON out, in CPython."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulelang import cli, gamelog
from rulelang.pipeline import load
from rulelang.playground import api

ROOT = Path(__file__).resolve().parent.parent
PICKOMINO = (ROOT / "games" / "pickomino.rules").read_text(encoding="utf-8")
PIG = (ROOT / "examples" / "pig.rules").read_text(encoding="utf-8")
SIX_NIMMT = (ROOT / "games" / "six-nimmt.rules").read_text(encoding="utf-8")
SCENARIO = (ROOT / "tests" / "scenarios" / "pickomino" / "cannot-take-from-own-stack.scenario").read_text()


def call(**request) -> dict:
    answer = api.handle(json.dumps(request))
    assert isinstance(answer, str)
    return json.loads(answer)


def run_cli(*argv: str) -> tuple[int, str]:
    out, error = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(error):
        code = cli.main(list(argv))
    return code, out.getvalue()


def start_pickomino(seats: list[str], seed: int = 7, **more) -> dict:
    return call(op="start", text=PICKOMINO, name="pickomino.rules", seats=seats, options={}, seed=seed, **more)


def play_out(answer: dict) -> dict:
    """Take action 0 at every decision (or advance, bots alone) until the game is over."""
    for _ in range(10_000):
        if answer["status"] == "decide":
            answer = call(op="act", game=answer["game"], action=0)
        elif answer["status"] == "watch":
            answer = call(op="advance", game=answer["game"])
        else:
            return answer
    raise AssertionError("the game does not end")


# ---------------------------------------------------------------------- lint
def lint_both(tmp_path: Path, monkeypatch, text: str, name: str) -> tuple[dict, list[dict]]:
    answer = call(op="lint", text=text, name=name)
    (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _, out = run_cli("lint", "--format", "json", name)
    return answer, json.loads(out)


@pytest.fixture(scope="module")
def catalogue() -> dict[str, dict]:
    return {entry["file"]: entry for entry in api.catalogue()}


def test_lint_of_a_good_file(tmp_path, monkeypatch, catalogue):
    answer, expected = lint_both(tmp_path, monkeypatch, PICKOMINO, "pickomino.rules")
    assert answer["errors"] == 0
    assert answer["warnings"] == len(expected) == len(answer["diagnostics"])
    game = answer["game"]
    assert (game["name"], game["min_players"], game["max_players"]) == ("Pickomino", 2, 7)
    assert game["options"] == catalogue["pickomino.rules"]["options"]


def test_lint_of_a_broken_file_matches_the_command_line(tmp_path, monkeypatch):
    broken = PICKOMINO.replace("kept_total", "kept_totl", 1) + "\nrule nonsense oops\n"
    answer, expected = lint_both(tmp_path, monkeypatch, broken, "mine.rules")
    assert answer["errors"] >= 1 and answer["game"] is None
    got = [(d["code"], d["severity"], d["message"], d["line"], d["col"], d["end_line"], d["end_col"], d["help"])
           for d in answer["diagnostics"]]
    assert got == [(d["code"], d["severity"], d["message"], d["line"], d["column"], d["end_line"],
                    d["end_column"], d["help"]) for d in expected]
    first = answer["diagnostics"][0]
    assert first["rendered"].startswith(f"error[{first['code']}]")
    assert f"--> mine.rules:{first['line']}:{first['col']}" in first["rendered"]


def test_catalogue_lists_the_bundled_games(catalogue):
    games = catalogue
    assert {"pickomino.rules", "six-nimmt.rules", "pickomino-spanish.rules"} <= set(games)
    threshold = next(o for o in games["six-nimmt.rules"]["options"] if o["name"] == "threshold")
    assert (threshold["default"], threshold["min"], threshold["max"], threshold["choices"]) == (66, 0, 1000, None)


def test_a_variant_finds_the_bundled_game_it_extends():
    text = (ROOT / "games" / "pickomino-spanish.rules").read_text(encoding="utf-8")
    assert call(op="lint", text=text, name="pickomino-spanish.rules")["errors"] == 0


# ---------------------------------------------------------------------- playing
def test_play_pickomino_against_random_to_the_end():
    answer = start_pickomino(["you", "random"])
    assert answer["status"] == "decide" and answer["seat"] == answer["viewer"] == 0
    assert not answer["hot_seat"] and answer["title"] == "player 1 (you)"
    assert answer["actions"] and answer["prompt"] and answer["board"].startswith("Pickomino")
    assert any("roll" in line for line in answer["trace"])
    assert call(op="view", game=answer["game"]) == answer
    over = play_out(answer)
    assert over["status"] == "over" and over["actions"] == [] and over["seat"] is None
    assert "the game ended by rule" in over["result"]
    assert over["viewer"] == 0
    assert "error" in call(op="act", game=over["game"], action=0)


def test_bots_alone_are_watched_as_a_spectator():
    answer = start_pickomino(["random", "random"], seed=3)
    assert answer["status"] == "watch" and answer["viewer"] is None and answer["actions"] == []
    step = call(op="advance", game=answer["game"])
    assert step["status"] in ("watch", "over") and step["trace"]
    assert "error" in call(op="act", game=answer["game"], action=0)
    assert play_out(step)["status"] == "over"


def test_the_same_seed_gives_the_same_log():
    logs = []
    for _ in range(2):
        over = play_out(start_pickomino(["you", "random"], seed=11))
        logs.append(call(op="log", game=over["game"])["log"])
    assert logs[0] == logs[1]
    other = play_out(start_pickomino(["you", "random"], seed=12))
    assert call(op="log", game=other["game"])["log"] != logs[0]


def test_the_log_replays(tmp_path):
    over = play_out(start_pickomino(["you", "mc:rollouts=2"], seed=5))
    log = call(op="log", game=over["game"])["log"]
    lines = [json.loads(line) for line in log.splitlines()]
    assert lines[0]["rules"] == "pickomino.rules" and lines[0]["seats"] == ["you", "mc:rollouts=2"]
    assert lines[-1]["end"] is True
    (tmp_path / "pickomino.rules").write_text(PICKOMINO, encoding="utf-8")
    (tmp_path / "game.jsonl").write_text(log, encoding="utf-8")
    assert run_cli("replay", "--quiet", str(tmp_path / "game.jsonl"))[0] == 0


def test_a_fault_in_the_rules_is_a_fault_step():
    text = PIG.replace("score of player += turn_total", "score of player += turn_total / (turn_total - turn_total)")
    answer = call(op="start", text=text, name="broken.rules", seats=["you", "random"], options={}, seed=1)
    answer = play_out(answer)
    assert answer["status"] == "fault" and answer["actions"] == [] and answer["result"] is None
    assert re.search(r"error\[R\d{3}\]", answer["fault"]) and "rule `bank`" in answer["fault"]
    assert "--> broken.rules:" in answer["fault"]
    assert json.loads(call(op="log", game=answer["game"])["log"].splitlines()[-1])["fault"]


def test_rules_errors_at_start_are_diagnostics():
    answer = call(op="start", text="game: nothing", name="x.rules", seats=["you", "random"], options={}, seed=1)
    assert answer["errors"] >= 1 and answer["diagnostics"][0]["rendered"]
    answer = call(op="start", text=PICKOMINO, name="pickomino.rules", seats=["you", "random"],
        options={"no_such": "1"}, seed=1)
    assert answer["diagnostics"][0]["code"] == "E108"


def test_hot_seat_shows_only_the_deciding_seat():
    """6 qui prend, two humans and a bot: each decision shows the decider's hand and the other
    human's only as a count; the referee's state is rebuilt from the log."""
    game = load(ROOT / "games" / "six-nimmt.rules", threshold=10)
    seats = ["you", "you", "random"]
    answer = call(op="start", text=SIX_NIMMT, name="six-nimmt.rules", seats=seats,
                  options={"threshold": "10"}, seed=5)
    last, steps, handed = None, 0, 0
    while answer["status"] == "decide":
        seat = answer["seat"]
        assert answer["hot_seat"] and answer["viewer"] == seat
        assert answer["hand_over"] == (seat != last)
        handed += answer["hand_over"]
        other = 1 - seat
        log = call(op="log", game=answer["game"])["log"]
        referee = _replayed(game, log)
        hands = referee.observation(other)["zones"]
        other_hand = hands[f"hand of player {other + 1}"]
        own_hand = hands.get(f"hand of player {seat + 1}")
        assert isinstance(other_hand, list) and other_hand and own_hand is not None
        board = answer["board"]
        row = next(line for line in board.splitlines() if line[2:].startswith(f"{other + 1} you"))
        assert f"hand {len(other_hand)} hidden" in row
        shown = json.dumps(answer)  # one round (threshold 10): no card of that hand was ever seen
        for card in other_hand:  # `ox 5 (bullheads 2)`: named in full, or after another card
            number = card.split()[1]
            assert f" {card.removeprefix('ox ')}" not in shown and not re.search(rf"\box {number}\b", shown), card
        for card in referee.observation(seat)["zones"][f"hand of player {seat + 1}"]:
            assert card.removeprefix("ox ") in board
        last = seat
        steps += 1
        answer = call(op="act", game=answer["game"], action=0)
    assert steps > 5 and handed > 2 and "round 1 " in answer["board"]
    while answer["status"] == "last look":  # what the last moves showed one human alone, to them
        assert answer["viewer"] == answer["seat"] in (0, 1)
        answer = call(op="advance", game=answer["game"])
    assert answer["status"] == "over" and answer["viewer"] is None and not answer["hand_over"]


def _replayed(game, log: str):
    actions = [(number, json.loads(line)) for number, line in enumerate(log.splitlines(), start=1)][1:]
    replay = gamelog.replay_log(game.new_initial_state(3), [a for a in actions if "action" in a[1]])
    assert replay.reproduced
    return replay.state


# ---------------------------------------------------------------------- simulation
def test_simulate_in_parts_sums_to_the_total():
    started = call(op="simulate_start", text=PICKOMINO, name="pickomino.rules", bots=["random", "random"],
                   options={}, seed=1, games=30)
    assert started["total"] == 30
    done = 0
    for _ in range(4):
        answer = call(op="simulate_more", sim=started["sim"], games=12)
        assert answer["done"] == min(done + 12, 30) and answer["total"] == 30
        done = answer["done"]
    report = answer["report"]
    assert len(report["win_share"]) == 2
    for row in report["win_share"]:
        assert 0 <= row["lo"] <= row["share"] <= row["hi"] <= 1
    assert sum(r["share"] for r in report["win_share"]) + report["no_winner"] == pytest.approx(1)
    assert sum(report["ended_by"].values()) + report["faults"] == 30
    assert report["length"]["min"] <= report["length"]["mean"] <= report["length"]["max"]


def test_simulate_refuses_bad_requests():
    base = dict(op="simulate_start", text=PICKOMINO, name="pickomino.rules", options={}, seed=1)
    assert "error" in call(**base, bots=["you", "random"], games=5)
    assert "unknown bot" in call(**base, bots=["randm", "random"], games=5)["error"]
    assert "error" in call(**base, bots=["random"], games=5)
    assert "error" in call(**base, bots=["random", "random"], games=api.MAX_SIM_GAMES + 1)
    started = call(**base, bots=["random", "random"], games=5)
    assert "error" in call(op="simulate_more", sim=started["sim"], games=api.MAX_GAMES_PER_CALL + 1)
    assert "diagnostics" in call(**{**base, "text": "nonsense"}, bots=["random", "random"], games=5)


# ---------------------------------------------------------------------- scenarios
def test_scenarios_pass_and_fail():
    answer = call(op="scenario", text=PICKOMINO, name="pickomino.rules", scenario=SCENARIO)
    assert answer == {"passed": True, "message": ""}
    failing = SCENARIO.replace("top(stack of seat(0)).number == 29", "top(stack of seat(0)).number == 28")
    answer = call(op="scenario", text=PICKOMINO, name="pickomino.rules", scenario=failing)
    assert not answer["passed"] and "playground.scenario:17" in answer["message"]
    without_game = "\n".join(line for line in SCENARIO.splitlines() if not line.startswith("game:"))
    assert call(op="scenario", text=PICKOMINO, name="pickomino.rules", scenario=without_game)["passed"]


# ---------------------------------------------------------------------- bad requests
@pytest.mark.parametrize("request_json", [
    "", "nonsense", "[1, 2]", "null", '{"op": 3}', '{"op": "fly"}', '{"op": "lint"}',
    '{"op": "lint", "text": 5, "name": "a.rules"}', '{"op": "lint", "text": "", "name": "../a.rules"}',
    '{"op": "lint", "text": "", "name": ""}', '{"op": "act", "game": 999999, "action": 0}',
    '{"op": "act", "game": "1", "action": 0}', '{"op": "view"}', '{"op": "log", "game": true}',
    '{"op": "advance", "game": -1}', '{"op": "simulate_more", "sim": 424242, "games": 1}',
    '{"op": "start", "text": "", "name": "a.rules", "seats": "you", "seed": 1}',
    '{"op": "start", "text": "", "name": "a.rules", "seats": ["you", "robot"], "seed": 1}',
    '{"op": "start", "text": "", "name": "a.rules", "seats": ["you"], "seed": 1.5}',
    '{"op": "scenario", "text": "", "name": "a.rules"}', "[" * 100_000,
])
def test_bad_requests_are_errors(request_json):
    answer = json.loads(api.handle(request_json))
    assert isinstance(answer.get("error"), str) and answer["error"]


def test_bad_game_requests_are_errors():
    answer = start_pickomino(["you", "random"])
    game = answer["game"]
    assert "error" in call(op="act", game=game, action=len(answer["actions"]))
    assert "error" in call(op="act", game=game, action=-1)
    assert "error" in call(op="act", game=game, action=True)
    assert "error" in call(op="advance", game=game)
    assert "error" in start_pickomino(["you"])
    assert "error" in start_pickomino(["you"] * 8)
    assert "error" in call(op="start", text=PICKOMINO, name="pickomino.rules", seats=["you", "random"],
                        options={"x": [1]}, seed=1)
    assert "error" in call(op="view", game=game + 10_000)
    assert api.handle(None) and "error" in json.loads(api.handle(None))


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
FIELDS = st.fixed_dictionaries({"op": st.sampled_from(list(api.OPS) + ["nope"])}, optional={
    "text": st.text(max_size=40) | JSON, "name": st.sampled_from(["a.rules", "", "x/y", 3]) | st.text(max_size=10),
    "seats": JSON | st.lists(st.sampled_from(["you", "random", "mc:rollouts=1", "bot"]), max_size=3),
    "bots": JSON, "options": JSON, "seed": JSON, "games": JSON, "game": JSON | st.integers(0, 5),
    "sim": JSON | st.integers(0, 5), "action": JSON, "scenario": st.text(max_size=40) | JSON})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FIELDS)
def test_arbitrary_requests_never_raise(request):
    answer = json.loads(api.handle(json.dumps(request)))
    assert isinstance(answer, dict)
    assert "internal error" not in answer.get("error", ""), answer


PEEK_AND_END = '''game "Peek and end":
    players 2

card letter:
    one for each number in 1 to 4

zone deck: shared pile, hidden
zone hand: per player hand, owner only

setup:
    rule deal:
        create letter in deck
        for each p in players:
            draw 1 from deck to hand of p

turn:
    rule peek:
        choose as "peek":
            "look": reveal hand of seat(1) to seat(0)
            "wait": pass
        end game

winner:
    rule highest: most sum(hand of player, number)
'''


def test_hot_seat_a_card_revealed_on_the_last_move_reaches_its_viewer():
    """The move that ends the game shows player 1 player 2's card: before the final view,
    player 1 gets a last look (handed over to them) that names it; the final view does not."""
    answer = call(op="start", text=PEEK_AND_END, name="peek.rules", seats=["you", "you"], options={}, seed=3)
    assert answer["status"] == "decide" and answer["seat"] == 0
    answer = call(op="act", game=answer["game"], action=0)
    assert answer["status"] == "last look" and answer["seat"] == 0 and answer["viewer"] == 0
    assert not answer["hand_over"] and not answer["actions"]  # player 1 is at the screen already
    seen = [line for line in answer["trace"] if "sees letter" in line]
    assert len(seen) == 1, answer["trace"]
    card = seen[0].split("sees ")[1].split(" in hand")[0]
    # player 2 never decided: their own card (the one player 1 saw), from the deal on, handed over
    second = call(op="advance", game=answer["game"])
    assert second["status"] == "last look" and second["seat"] == 1 and second["hand_over"]
    assert f"move {card} from deck to hand of player 2" in "\n".join(second["trace"])
    final = call(op="advance", game=answer["game"])
    assert final["status"] == "over" and final["viewer"] is None and card not in json.dumps(final)
    assert "cannot advance" in call(op="advance", game=final["game"])["error"]
