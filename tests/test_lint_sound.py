"""The lint warnings that reason about what can run (W407, W409-W411) raise no false alarm on
any working rules file of the repository: the games, examples, scenario and test games."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulelang.pipeline import analyse

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("games", "examples", "tests/scenarios", "tests/language", "tests/hidden_games")
FILES = sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.rules"))
REASONING = {"W407", "W409", "W410", "W411"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_false_alarm(path: Path, monkeypatch):
    monkeypatch.chdir(path.parent)
    _, diagnostics = analyse(path.name)
    assert [d for d in diagnostics if d.code in REASONING] == []
