"""Golden diagnostics: broken rules files with the expected code written on the offending line.

Each ``tests/diagnostics/*.rules`` marks its expected diagnostics with a comment on the line the
diagnostic points at: ``# error: E101`` or ``# warning: W401`` (several codes: ``# warning:
W401, W404``). A file without marks must analyse cleanly. Files in subfolders (``bases/``) are
not cases: they are the base files that the variant cases extend.

For some cases, ``NAME.expected`` holds the full rendering (rustc style: title, place, source
line, caret, notes, help) of every diagnostic: those reports are the product. Run with
``UPDATE_GOLDEN=1`` to rewrite the ``.expected`` files from the current output (then review the
diff).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from rulelang.diagnostics import CODES, Severity, render_full
from rulelang.parser import _MISTAKES, parse
from rulelang.pipeline import analyse
from rulelang.source import Source

HERE = Path(__file__).resolve().parent
CASE_DIR = HERE / "diagnostics"
CASES = sorted(CASE_DIR.glob("*.rules"))
RENDERED = sorted(CASE_DIR.glob("*.expected"))
MARK = re.compile(r"#\s*(error|warning):\s*([A-Z]\d{3}(?:\s*,\s*[A-Z]\d{3})*)")

# Cases that fail because of a known core bug (reported in /tmp/core-bugs/tests.md).
KNOWN_BUGS = {
    # Reported in /tmp/core-bugs/diagnostics.md.
}
KNOWN_RENDERING_BUGS: dict[str, str] = {}
# Codes that no rules file can produce, each tested by hand below.
NOT_FROM_FILES = {"E107", "E108", "E601", "E604", "E701", "E702", "E703"}  # tests/test_hostile_front.py, test_hostile_runtime.py


def _with_bugs(paths: list[Path], bugs: dict[str, str]) -> list:
    return [pytest.param(p, id=p.name, marks=pytest.mark.xfail(reason=bugs[p.name], strict=False))
            if p.name in bugs else pytest.param(p, id=p.name) for p in paths]


def marks(path: Path) -> set[tuple[int, str, str]]:
    """(line, code, "error"/"warning") for every mark in a case file."""
    found = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for kind, codes in MARK.findall(line):
            found.update((number, code.strip(), kind) for code in codes.split(","))
    return found


def diagnose(path: Path, monkeypatch) -> list:
    """The diagnostics of a case, analysed from its folder so that reports name `case.rules`."""
    monkeypatch.chdir(path.parent)
    _, diagnostics = analyse(path.name)
    return diagnostics


@pytest.mark.parametrize("path", _with_bugs(CASES, KNOWN_BUGS))
def test_marked_diagnostics(path: Path, monkeypatch):
    diagnostics = diagnose(path, monkeypatch)
    for d in diagnostics:
        assert d.span is not None, f"{d.code} {d.message}: a diagnostic of a file must say where"
        assert d.span.path == path.name, f"{d.code} points into {d.span.path}"
    found = {(d.span.line, d.code) for d in diagnostics}
    expected = {(line, code) for line, code, _ in marks(path)}
    assert found == expected, "\n\n".join(render_full(d) for d in diagnostics) or "no diagnostic"


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_marks_name_registered_codes_of_their_severity(path: Path):
    for line, code, kind in marks(path):
        assert code in CODES, f"line {line}: {code} is not a registered code"
        assert CODES[code].severity.value == kind, f"line {line}: {code} is not an {kind}"


@pytest.mark.parametrize("path", _with_bugs(RENDERED, KNOWN_RENDERING_BUGS))
def test_full_rendering(path: Path, monkeypatch):
    case = path.with_suffix(".rules")
    rendered = "\n\n".join(render_full(d) for d in diagnose(case, monkeypatch)) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(rendered, encoding="utf-8")
    assert rendered == path.read_text(encoding="utf-8")


# The suggestion the help line of a misspelt name must make.
SUGGESTIONS = {
    "unknown_zone.rules": ("E101", "stack"),
    "unknown_component.rules": ("E101", "d6"),
    "unknown_attribute.rules": ("E101", "face"),
    "unknown_sort_key.rules": ("E101", "number"),
    "unknown_name_in_filter.rules": ("E101", "number"),
    "unknown_procedure.rules": ("E101", "fail_turn"),
    "unknown_counter.rules": ("E101", "score"),
    "unknown_function.rules": ("E103", "count"),
    "variant_unknown_rule.rules": ("E105", "throw"),
    "trigger_unknown_procedure.rules": ("E101", "fail_turn"),
    "zone_per_unknown_kind.rules": ("E101", "plate"),
    "variant_unknown_trigger.rules": ("E105", "six_scores"),
    "syntax_once_per_turns.rules": ("E001", "turn"),
}


@pytest.mark.parametrize("name", sorted(SUGGESTIONS))
def test_did_you_mean(name: str, monkeypatch):
    code, suggestion = SUGGESTIONS[name]
    helps = [d.help or "" for d in diagnose(CASE_DIR / name, monkeypatch) if d.code == code]
    assert helps and all(h.startswith("did you mean") for h in helps), helps
    assert f"`{suggestion}`" in helps[0]


def test_enough_cases_and_clean_ones():
    assert len([p for p in CASES if marks(p)]) >= 25
    assert any(not marks(p) for p in CASES), "a clean case guards against false alarms"
    assert all(p.with_suffix(".rules").is_file() for p in RENDERED)


def test_every_code_is_explained():
    assert CODES
    for code, entry in CODES.items():
        assert re.fullmatch(r"[EWR]\d{3}", code), code
        assert entry.code == code
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", entry.name), f"{code}: name {entry.name!r} is not kebab-case"
        assert entry.explanation.strip(), f"{code} has no explanation"
        assert (entry.severity is Severity.WARNING) == code.startswith("W"), code


def test_every_file_code_has_a_golden_case():
    """Each code that a rules file can produce (E0xx-E3xx, W4xx) is shown by some case."""
    covered = {code for path in CASES for _, code, _ in marks(path)}
    from_files = {c for c in CODES if c[0] in "EW" and c not in NOT_FROM_FILES}
    assert from_files - covered == set(), "codes without a golden case"


def test_bases_load_cleanly(monkeypatch):
    for base in sorted((CASE_DIR / "bases").glob("*.rules")):
        assert diagnose(base, monkeypatch) == [], base.name


def test_unreadable_file(tmp_path):
    game, diagnostics = analyse(str(tmp_path / "missing.rules"))
    assert game is None
    assert [d.code for d in diagnostics] == ["E107"]
    (tmp_path / "latin1.rules").write_bytes(b'game "Caf\xe9"\n')
    assert [d.code for d in analyse(str(tmp_path / "latin1.rules"))[1]] == ["E107"]
    assert [d.code for d in analyse(str(tmp_path))[1]] == ["E107"]


def test_unknown_option_and_bad_option_value(monkeypatch):
    clean = CASE_DIR / "bases" / "mini.rules"
    monkeypatch.chdir(clean.parent)
    game, diagnostics = analyse(clean.name, {"targte": "10"})
    assert game is None and [d.code for d in diagnostics] == ["E108"]
    assert "target" in (diagnostics[0].help or "")
    game, diagnostics = analyse(clean.name, {"target": "ten"})
    assert game is None and [d.code for d in diagnostics] == ["E108"]
    game, diagnostics = analyse(clean.name, {"target": "10"})
    assert game is not None and diagnostics == []
    assert {o.name: o.value for o in game.options}["target"] == 10


def test_messages_follow_the_house_style(monkeypatch):
    """Messages are lowercase without a final period; "invalid", never "illegal"."""
    for path in CASES:
        try:
            diagnostics = diagnose(path, monkeypatch)
        except Exception:
            if path.name in KNOWN_BUGS:
                continue  # a known crash, xfailed in test_marked_diagnostics
            raise
        for d in diagnostics:
            where = f"{path.name}: {d.code} {d.message!r}"
            assert d.message and not d.message[0].isupper(), where
            assert d.message.endswith("...") or not d.message.endswith("."), where
            assert "illegal" not in f"{d.message} {d.help or ''}".lower(), where
    for code, entry in CODES.items():
        assert "illegal" not in entry.explanation.lower(), code


def test_every_labelled_mistake_gets_its_label():
    """Each example of the parser's table of mistakes still stops where its label applies."""
    for label, examples in _MISTAKES.items():
        for example in examples:
            _, diagnostics = parse(Source("example.rules", example))
            assert [(d.code, d.help) for d in diagnostics] == [("E001", label)], example


# Every kind of item that a `when` written at the top level can follow.
TOP_LEVEL_ITEMS = [
    "", "# a comment\n", 'extends "base.rules"\n', 'game "g"\n', 'game "g":\n  "doc"\n',
    'game "g":\n  at most 3 turns\n', "option o = -1\n", 'option o = "s":\n  "doc"\n',
    "die d:\n  faces a = 1, b, 3\n", "die d:\n  faces 1 to 6\n  v = 1\n",
    "card c:\n  one for each n in 1 to 3\n", "piece p:\n  count 3\n  limit 1 per player\n",
    "zone z: per player set sorted by x, public\n", "counter c: per player = 0\n",
    "define f(x) = x + 1\n", "define d = count(cup) where x\n", "invariant i: count(x) == 3\n",
    "setup:\n  rule r: pass\n", "round:\n  each player takes a turn\n", "turn:\n  end turn\n",
    "turn:\n  choose x from y by p as \"k\"\n  otherwise:\n    pass\n",
    "turn:\n  if x:\n    pass\n  else:\n    pass\n", "procedure p:\n  for each x in y:\n    pass\n",
    "winner:\n  rule w: most 0\n", "rule r:\n  when do p:\n    if x:\n      pass\n",
    "replace rule r:\n  when do p:\n    pass\n", "remove rule r\n", "add rule r after s: pass\n",
]


@pytest.mark.parametrize("before", TOP_LEVEL_ITEMS)
def test_when_at_the_top_level_after_any_item(before: str):
    _, diagnostics = parse(Source("example.rules", before + "when move to z:\n    pass\n"))
    assert [d.code for d in diagnostics] == ["E001"]
    assert "`rule NAME:`" in (diagnostics[0].help or ""), diagnostics[0]
