"""README.md stays true: its commands exist, its Python runs, its excerpt is the game's text,
and every install command has one style. (The tutorial's output: tests/test_examples.py.)"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rulelang.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = [ROOT / "README.md", ROOT / "examples" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(tag: str) -> list[str]:
    """The fenced blocks with this tag (`` for a bare fence)."""
    return [body for fence, body in re.findall(r"^```(\w*)\n(.*?)^```", README, re.S | re.M) if fence == tag]


def commands() -> list[str]:
    """Every `rulelang ...` command of the README's shell blocks, without its comment."""
    found = []
    for block in blocks("sh"):
        for line in block.splitlines():
            for part in line.split("#", 1)[0].split("&&"):
                if part.strip().startswith("rulelang "):
                    found.append(part.strip())
    return found


def test_one_install_style_everywhere():
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"pip3? install", text):
            assert text[:match.start()].endswith("python -m "), \
                f"{path.name}: `{text[max(0, match.start() - 20):match.end()]}`: write `python -m pip install`"
    assert "python -m pip install . && rulelang run" in README
    assert "python -m pip install '.[test]' && python -m pytest" in README


def test_the_python_version_is_the_projects():
    required = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    version = re.fullmatch(r">=(\d+\.\d+)", required).group(1)
    assert f"Python {version} or newer" in README


@pytest.mark.parametrize("command", commands())
def test_every_command_parses(command):
    """The subcommand and its options exist; the files it names (not logs) exist."""
    words = shlex.split(command)[1:]
    try:
        build_parser().parse_args(words)
    except SystemExit as error:
        pytest.fail(f"`{command}` does not parse (exit {error.code})")
    for word in words:
        if re.fullmatch(r"(games|tests|examples)/\S*", word) and "*" not in word:
            assert (ROOT / word).exists(), f"`{command}` names `{word}`, which is not there"


def test_the_excerpt_is_the_games_text():
    excerpt = next(b for b in blocks("") if "rule throw:" in b)
    game = (ROOT / "games" / "pickomino.rules").read_text(encoding="utf-8").splitlines()
    position = 0
    for line in excerpt.splitlines():
        while position < len(game) and game[position].rstrip() != line.rstrip():
            position += 1
        assert position < len(game), f"`{line.strip()}` is not in games/pickomino.rules (in this order)"
        position += 1


def test_the_python_example_runs():
    code = blocks("python")[0]
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    returns, _, last_event = result.stdout.partition("] ")
    assert returns.startswith("[") and last_event.strip(), result.stdout
