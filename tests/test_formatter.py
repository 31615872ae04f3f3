"""`rulelang fmt`: over every rules file of the repository the layout is idempotent and the
formatted text parses to the same tree; the shipped games are formatted; --check, --diff and
rewriting in place, and a file with syntax errors is never rewritten."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulelang import cli
from rulelang.formatter import format_source
from rulelang.parser import parse
from rulelang.source import Source

ROOT = Path(__file__).resolve().parent.parent
# The project's own files: not the copies an install or a build leaves in the checkout
# (CI's .ci-venv, build/), nor anything under a hidden folder.
ALL_RULES = sorted(p for p in ROOT.rglob("*.rules")
                   if not any(part.startswith(".") or part == "build" for part in p.relative_to(ROOT).parts))


def _parsed(path: Path) -> tuple[str, object] | None:
    text = path.read_text(encoding="utf-8")
    tree, _ = parse(Source(str(path), text))
    return (text, tree) if tree is not None else None


CORPUS = [p for p in ALL_RULES if _parsed(p) is not None]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, error = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(error):
        code = cli.main(list(argv))
    return code, out.getvalue(), error.getvalue()


def test_the_corpus_is_large():
    assert len(CORPUS) > 100


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_formatting_keeps_the_tree_and_is_idempotent(path: Path):
    text, tree = _parsed(path)
    formatted = format_source(text)
    again, _ = parse(Source(str(path), formatted))
    assert again == tree
    assert format_source(formatted) == formatted
    assert formatted.endswith("\n") and not formatted.endswith("\n\n")
    assert all(line == line.rstrip() for line in formatted.splitlines())
    # Only whitespace changes.
    assert "".join(formatted.split()) == "".join(text.split())


@given(st.sampled_from(CORPUS), st.data())
def test_extra_spaces_between_tokens_change_nothing(path: Path, data):
    """A second space where the author put one (not after a comma, where columns may be lined
    up, nor before a comment, which keeps its column) formats to the same text."""
    text = path.read_text(encoding="utf-8")
    spots = [i for i, _ in _single_spaces(text)]
    if not spots:
        return
    spot = data.draw(st.sampled_from(spots))
    assert format_source(text[:spot] + " " + text[spot:]) == format_source(text)


def _single_spaces(text: str):
    """Offsets of single spaces between two tokens of code: outside strings and comments, not
    after a comma, not at the start of a line, not on a line with a comment (which keeps its
    column), not before a line end."""
    offset = 0
    for line in text.splitlines(keepends=True):
        in_string = escaped = False
        spots = []
        for i, char in enumerate(line):
            if in_string:
                escaped = not escaped and char == "\\"
                in_string = escaped or char != '"'
                continue
            if char == "#":
                spots = []
                break
            if char == '"':
                in_string = True
            elif (char == " " and 0 < i and line[i - 1] not in " ,\t" and line[:i].strip()
                  and line[i + 1] not in " \n#\r\\"):
                spots.append((offset + i, offset))
        yield from spots
        offset += len(line)


def test_formatting_a_messy_file():
    messy = ('# header\n\n\ngame "Messy":\n   players 2 to 4\noption x=3 in -5 to 10 # why\n'
             'define f( a,b )=a-b+ -  a*count( bag )\nturn:\n   roll d\n   if x>-1 :\n'
             '        let y = [ 1,\n              2 ]\n   x  +=  - 1  \n\n\n')
    assert format_source(messy) == (
        '# header\n\ngame "Messy":\n    players 2 to 4\n\noption x = 3 in -5 to 10  # why\n'
        'define f(a, b) = a - b + -a * count(bag)\n\nturn:\n    roll d\n    if x > -1:\n'
        '        let y = [1,\n              2]\n    x += -1\n')


def test_shipped_games_and_test_games_are_formatted():
    """The games, the examples and the test games a designer may copy; not the diagnostics'
    cases, whose carets point into the text as it is."""
    folders = ("games", "examples", "tests/language", "tests/scenarios", "tests/hidden_games")
    files = sorted(str(p) for folder in folders for p in (ROOT / folder).rglob("*.rules"))
    code, out, _ = run_cli("fmt", "--check", *files)
    assert (code, out) == (0, "")


def test_check_lists_the_files_that_would_change_and_changes_nothing(tmp_path: Path):
    clean = tmp_path / "clean.rules"
    clean.write_text(format_source((ROOT / "examples" / "pig.rules").read_text()))
    messy = tmp_path / "messy.rules"
    two_spaces = re.sub(r"(?m)^((?:    )+)", lambda m: "  " * (len(m.group(1)) // 4), clean.read_text())
    messy.write_text(two_spaces)
    assert run_cli("fmt", "--check", str(clean))[0] == 0
    code, out, _ = run_cli("fmt", "--check", str(clean), str(messy))
    assert (code, out) == (1, f"would reformat {messy}\n")
    assert messy.read_text() == two_spaces
    code, out, _ = run_cli("fmt", "--diff", str(messy))
    assert code == 1 and out.startswith(f"--- {messy}\n+++ {messy}\n") and "\n-  " in out
    code, out, _ = run_cli("fmt", str(messy))
    assert (code, out) == (0, f"reformatted {messy}\n")
    assert messy.read_text() == clean.read_text()


def test_a_file_with_syntax_errors_is_refused(tmp_path: Path):
    broken = tmp_path / "broken.rules"
    broken.write_text('game "B"\nturn:\n  roll (\n')
    code, out, error = run_cli("fmt", str(broken))
    assert code == 1 and out == "" and "error[E007]" in error and "broken.rules:3:8" in error  # the `(` never closed
    assert broken.read_text() == 'game "B"\nturn:\n  roll (\n'
    assert run_cli("fmt", str(tmp_path / "missing.rules"))[0] == 2


def test_a_continued_line_less_indented_than_its_statement_goes_one_level_deeper():
    """A line continued inside brackets keeps its place relative to its statement; one written
    left of it (column 1) goes one level deeper than the statement, and stays there."""
    messy = ("game \"G\":\n    players 2\n\ncounter s: per player = 0\n\nturn:\n  rule r:\n"
             "      if (s of player >= 0\n and s of player < 5):\n          s of player += 1\n")
    once = format_source(messy)
    assert "        if (s of player >= 0\n            and s of player < 5):\n" in once
    assert format_source(once) == once
