"""Fuzzing the pipeline: whatever the text, ``analyse`` returns diagnostics or a game, and never
raises. Inputs are token soup (the language's keywords, names, punctuation, newlines and
indentation) and mutations of the real games (lines deleted, duplicated or swapped, a character
deleted, a keyword inserted). A game that still compiles is played a little: a fault while
playing must be a RuntimeFault, never a bare exception."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rulelang.diagnostics import CODES, RuntimeFault, render_concise, render_full, render_json
from rulelang.pipeline import analyse

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").rglob("*.rules"))
GRAMMAR = (ROOT / "grammar" / "rulelang.lark").read_text(encoding="utf-8")

KEYWORDS = sorted(set(re.findall(r'"([^"\s]+)"', GRAMMAR)))
NAMES = ["cup", "kept", "grill", "stack", "player", "others", "players", "d6", "worm", "domino",
         "total", "number", "face", "throw", "fail_turn", "x", "it", "count", "sum", "top"]
LAYOUT = ["\n", "\n", "\n    ", "\n        ", "\n    ", "    ", "\t", "\\\n", "# note\n"]
ODD = ["'", ";", "{", "\"", "\"text\"", "\"unterminated", "1", "36", "-", "é", "\r\n", "\x00"]
TOKENS = KEYWORDS + NAMES + LAYOUT + ODD

FUZZ = settings(max_examples=min(2 * settings.default.max_examples, 100),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
PLAY_STEPS = 60


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A folder holding copies of the games, so that mutated variants still find their base."""
    folder = tmp_path_factory.mktemp("fuzz")
    for game in GAMES:
        target = folder / game.relative_to(ROOT / "games")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(game, target)
    return folder


def check_analysis(folder: Path, text: str, name: str = "fuzzed.rules") -> None:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    game, diagnostics = analyse(str(path))
    lines = path.read_text(encoding="utf-8").count("\n") + 1
    for d in diagnostics:
        assert d.code in CODES, f"unregistered code {d.code}: {d.message}"
        assert d.message, d.code
        if d.span is not None:
            # +1: the parser appends a final newline that the source lacks (reported, minor)
            assert 0 <= d.span.start <= d.span.end <= len(d.span.source.text) + 1, render_concise(d)
            assert 1 <= d.span.line <= lines, render_concise(d)
        render_full(d)
    render_json(diagnostics)
    errors = [d for d in diagnostics if d.is_error]
    if game is None:
        assert errors, "no game, and no error saying why"
    else:
        assert not errors, "a game despite errors"
        play_a_little(game)


def play_a_little(game) -> None:
    rng = random.Random(0)
    try:
        state = game.new_initial_state(game.min_players)
        for _ in range(PLAY_STEPS):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    except RuntimeFault as fault:
        assert fault.diagnostic.code in CODES


# ---------------------------------------------------------------------- token soup


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=80).map(" ".join))
@example("")
@example("\n\n\n")
@example("turn:")
@example("game \"x\":\n    players 2 to 1\n")
@example("define f(a) = f(a)\n")
@example("turn:\n    rule a: pass")  # no final newline
def test_token_soup(workdir, text):
    check_analysis(workdir, text)


# ---------------------------------------------------------------------- mutated games


def _delete_line(lines, data):
    if lines:
        del lines[data.draw(st.integers(0, len(lines) - 1))]


def _duplicate_line(lines, data):
    if lines:
        i = data.draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i])


def _swap_lines(lines, data):
    if len(lines) > 1:
        i, j = (data.draw(st.integers(0, len(lines) - 1)) for _ in range(2))
        lines[i], lines[j] = lines[j], lines[i]


def _delete_character(lines, data):
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    if candidates:
        i = data.draw(st.sampled_from(candidates))
        at = data.draw(st.integers(0, len(lines[i]) - 1))
        lines[i] = lines[i][:at] + lines[i][at + 1:]


def _insert_word(lines, data):
    if lines:
        i = data.draw(st.integers(0, len(lines) - 1))
        at = data.draw(st.integers(0, len(lines[i])))
        word = data.draw(st.sampled_from(KEYWORDS + NAMES + ODD))
        lines[i] = f"{lines[i][:at]} {word} {lines[i][at:]}"


MUTATIONS = [_delete_line, _duplicate_line, _swap_lines, _delete_character, _insert_word]


@FUZZ
@given(game=st.sampled_from(GAMES), data=st.data())
def test_mutated_games(workdir, game, data):
    lines = game.read_text(encoding="utf-8").split("\n")
    for mutate in data.draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=4), label="mutations"):
        mutate(lines, data)
    # Written beside the copied games, under another name, so that `extends` still resolves.
    name = f"{game.stem}-mutated.rules"
    check_analysis(workdir / game.relative_to(ROOT / "games").parent, "\n".join(lines), name)


@pytest.mark.parametrize("game", GAMES, ids=lambda p: p.stem)
def test_every_line_deleted(workdir, game):
    """Deleting any single line of a real game: a systematic sweep next to the random one."""
    lines = game.read_text(encoding="utf-8").split("\n")
    folder = workdir / game.relative_to(ROOT / "games").parent
    for i in range(len(lines)):
        check_analysis(folder, "\n".join(lines[:i] + lines[i + 1:]), f"{game.stem}-without-line.rules")


# ---------------------------------------------------------------------- deep nesting

LONG = """game "Long":
    players 2 to 4

die d6:
    faces 1 to 6

zone cup: shared pool, public
counter score: per player = 0

define deep = {expression}

setup:
    rule dice: create 2 d6 in cup

turn:
    rule throw:
        roll cup
        score of player += deep

winner:
    rule best: most score of player
"""


@pytest.mark.parametrize("terms", [50, 300, 1000])
def test_long_expression_is_not_a_crash(workdir, terms):
    """A long chain of operators is a left-deep tree: it must compile, or be a diagnostic."""
    check_analysis(workdir, LONG.format(expression=" + ".join(["1"] * terms)))
    check_analysis(workdir, LONG.format(expression="(" * (terms // 5) + "1" + ")" * (terms // 5)))
