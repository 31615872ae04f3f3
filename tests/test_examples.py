"""The designer's examples stay valid: examples/pig.rules, the steps and the error shown in
examples/README.md, and examples/play_with_bot.py."""

from __future__ import annotations

import os
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


# ---------------------------------------------------------------------- output quoted in the README
# Every ```text block of examples/README.md is the output of a command the README gives; each
# case below runs that command in a folder laid out as the README's reader has it, and finds
# the block in the output, line for line. Only the log's time stamp and the speed of
# `simulate` are normalised. A line `...` in a block ends what is compared.

MISTAKES = {"typo": ("+= turn_total", "+= turn_totl"),
            "whose": ("score of player += turn_total", "score += turn_total"),
            "colon": ("    rule bank:", "    rule bank")}
STEP_1 = ["run", "pig.rules", "--seats", "mc,mc", "--seed", "1", "--fast"]
BOARD = ["run", "examples/pig.rules", "--seats", "mc,random", "--seed", "7", "--fast"]
SIMULATE = ["simulate", "examples/pig.rules", "--games", "500", "--players", "3", "--seed", "1"]
QUOTED = {  # a line of the block that names it: (the pig.rules of the folder, the command)
    "[one_die, pig.rules:10]": ("step 1", STEP_1),
    "to play": ("examples", BOARD),
    "options: defaults": ("examples", SIMULATE),
    "options: target=50": ("examples", [*SIMULATE, "--option", "target=50"]),
    "turn_totl": ("typo", ["lint", "pig.rules"]),
    "say whose": ("whose", ["lint", "pig.rules"]),
    "error[E001]": ("colon", ["lint", "pig.rules"]),
}


def lay_out(folder: Path, what: str) -> None:
    """The reader's folder: their own pig.rules (a step, or pig.rules with a mistake), or a
    copy of examples/pig.rules where the README runs it from the root of the checkout."""
    if what == "examples":
        (folder / "examples").mkdir()
        (folder / "examples" / "pig.rules").write_text(PIG.read_text(encoding="utf-8"), encoding="utf-8")
    elif what == "step 1":
        (folder / "pig.rules").write_text(readme_blocks("rules")[0], encoding="utf-8")
    else:
        right, wrong = MISTAKES[what]
        text = PIG.read_text(encoding="utf-8")
        assert text.count(right) == 1
        (folder / "pig.rules").write_text(text.replace(right, wrong), encoding="utf-8")


def run_quietly(command: list[str], folder: Path) -> str:
    """Stdout and stderr in the order written, as a reader's terminal shows them."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    result = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=600, env=env)
    return result.stdout


def normalised(text: str) -> list[str]:
    text = re.sub(r"(logs/[\w.-]+?)-\d{8}-\d{6}[\w-]*\.jsonl", r"\1-....jsonl", text)
    text = re.sub(r"^[\d.]+ (?:games/s|s per game) \([\d.]+ s\)$", "N games/s (N s)", text, flags=re.M)
    return [line.rstrip() for line in text.splitlines()]


def assert_quoted(block: str, output: str) -> None:
    wanted = normalised(block)
    if "..." in wanted:
        wanted = wanted[:wanted.index("...")]
    got = normalised(output)
    starts = [i for i in range(len(got) - len(wanted) + 1) if got[i:i + len(wanted)] == wanted]
    assert starts, "the README quotes:\n" + "\n".join(wanted) + "\n\nbut the command prints:\n" \
        + "\n".join(got[:60])


def test_every_quoted_output_is_checked():
    for block in readme_blocks("text"):
        assert sum(marker in block for marker in QUOTED) == 1, f"no case of QUOTED runs this block:\n{block}"
    readme = README.read_text(encoding="utf-8")
    for marker, (_, command) in QUOTED.items():
        if command[0] != "lint":
            assert "rulelang " + " ".join(command) in readme, f"the README does not give the command of `{marker}`"


@pytest.mark.parametrize("marker", list(QUOTED))
def test_readme_output_is_what_the_command_prints(marker, tmp_path):
    what, command = QUOTED[marker]
    lay_out(tmp_path, what)
    block = next(b for b in readme_blocks("text") if marker in b)
    assert_quoted(block, run_quietly([sys.executable, "-m", "rulelang", *command], tmp_path))


def test_readme_python_prints_the_first_report(tmp_path):
    lay_out(tmp_path, "typo")
    code = next(b for b in readme_blocks("sh") if b.startswith('python -c "'))
    program = code[len('python -c "'):code.rindex('"')]
    report = next(b for b in readme_blocks("text") if "turn_totl" in b)
    printed = run_quietly([sys.executable, "-c", program], tmp_path)
    assert printed.rstrip("\n") == report.split("\n\n")[0]


def test_readme_lint_says_clean(tmp_path):
    """`rulelang lint pig.rules   # 0 errors, 0 warnings` at step 1 and for the finished game."""
    lay_out(tmp_path, "step 1")
    lay_out(tmp_path, "examples")
    for rules in ("pig.rules", "examples/pig.rules"):
        assert run_quietly([sys.executable, "-m", "rulelang", "lint", rules], tmp_path) == "0 errors, 0 warnings\n"


@pytest.mark.parametrize("args", [[], ["games/pickomino.rules", "--players", "3"]])
def test_play_with_bot_runs_from_the_repo_root(args):
    result = subprocess.run([sys.executable, "examples/play_with_bot.py", *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "[roll_" in result.stdout          # trace lines name their rules
    assert "winner(s): player" in result.stdout
