"""The designer's examples stay valid: examples/pig.rules, the steps and the error shown in
examples/README.md, and examples/play_with_bot.py."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rulelang
from rulelang.diagnostics import render_full

ROOT = Path(__file__).resolve().parent.parent
PIG = ROOT / "examples" / "pig.rules"
README = ROOT / "examples" / "README.md"


def play_random(state, rng: random.Random):
    while not state.is_terminal():
        if state.current_player() == rulelang.CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def score(state, seat: int) -> int:
    return state.observation(None)["counters"][f"score of player {seat + 1}"]


def test_pig_lints_clean():
    game, diagnostics = rulelang.analyse(str(PIG))
    assert game is not None
    assert [render_full(d) for d in diagnostics] == []
    assert (game.min_players, game.max_players) == (2, 6)
    assert game.option("target") == 100


def test_pig_random_games_end_with_a_winner_at_the_target():
    game = rulelang.load(PIG)
    rng = random.Random(2024)
    for number in range(20):
        players = 2 + number % 5
        state = play_random(game.new_initial_state(players), rng)
        scores = [score(state, p) for p in range(players)]
        assert max(scores) >= 100
        assert state.winners == [p for p in range(players) if scores[p] == max(scores)]
        assert sum(state.returns()) == pytest.approx(1.0)
        assert state.game.rules[state.end_rule].name == "reached_target"


def test_pig_rules_by_scripted_dice():
    state = rulelang.load(PIG, target=12).new_initial_state(2)

    def roll(face):
        state.apply_action(state.outcome_from_labels([face]))

    def choose(label):
        state.apply_action([state.action_to_string(a) for a in state.legal_actions()].index(label))

    roll(6), choose("roll again"), roll(5), choose("hold")  # player 1 banks 11
    assert (score(state, 0), state.player) == (11, 1)
    roll(4), choose("roll again"), roll(1)                  # player 2 pigs out: the 4 is lost
    assert (score(state, 1), state.player) == (0, 0)
    roll(1)                                                 # a 1 at once: nothing to choose
    assert (score(state, 0), state.player, state.is_terminal()) == (11, 1, False)
    roll(2), choose("hold"), roll(3), choose("hold")        # 2 for player 2; player 1 reaches 14
    assert state.is_terminal() and state.winners == [0]
    assert state.scores() == [[14], [2]]


def readme_blocks(tag: str) -> list[str]:
    return re.findall(rf"```{tag}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_steps_compile_and_play(tmp_path):
    steps = [block for block in readme_blocks("rules") if block.startswith("game ")]
    assert len(steps) == 3
    for number, text in enumerate(steps, 1):
        path = tmp_path / f"step{number}.rules"
        path.write_text(text, encoding="utf-8")
        game, diagnostics = rulelang.analyse(str(path))
        assert game is not None and diagnostics == [], [render_full(d) for d in diagnostics]
        play_random(game.new_initial_state(2), random.Random(number))


def test_readme_shows_the_typo_diagnostic_as_printed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = PIG.read_text(encoding="utf-8").replace("+= turn_total", "+= turn_totl")
    Path("pig.rules").write_text(text, encoding="utf-8")
    game, diagnostics = rulelang.analyse("pig.rules")
    assert game is None and len(diagnostics) == 1
    shown = [block for block in readme_blocks("text") if "turn_totl" in block]
    assert shown and shown[0].startswith(render_full(diagnostics[0]) + "\n")


@pytest.mark.parametrize("args", [[], ["games/pickomino.rules", "--players", "3"]])
def test_play_with_bot_runs_from_the_repo_root(args):
    result = subprocess.run([sys.executable, "examples/play_with_bot.py", *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "[roll_" in result.stdout          # trace lines name their rules
    assert "winner(s): player" in result.stdout
