"""The grammar and its AST builder agree: every grammar rule that makes a tree node has a
constructor on rulelang.parser.AstBuilder, and the real games parse to RulesFiles whose spans
point into their files."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from lark import Transformer

from rulelang import nodes as n
from rulelang.parser import AstBuilder, _lark, parse, parser_cache_file
from rulelang.source import Source

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = (ROOT / "grammar" / "rulelang.lark").read_text(encoding="utf-8")
GAMES = sorted((ROOT / "games").rglob("*.rules"))

RULE_HEAD = re.compile(r"^([!?]?)([a-z_][a-z0-9_]*)\s*:", re.MULTILINE)
ALIAS = re.compile(r"->\s*([a-z_][a-z0-9_]*)")


def builder_methods() -> set[str]:
    """Names AstBuilder itself defines (not those it inherits from Lark's Transformer)."""
    names: set[str] = set()
    for cls in AstBuilder.__mro__:
        if issubclass(Transformer, cls):
            continue
        names.update(name for name, value in vars(cls).items() if callable(value))
    return names


def grammar_rules() -> dict[str, tuple[str, str]]:
    """Each rule of the grammar text: name -> (mark `?`/`!`/``, body)."""
    # Comments may quote rule syntax; drop them (no `//` occurs inside a grammar string here).
    text = re.sub(r"//[^\n]*", "", GRAMMAR)
    heads = list(RULE_HEAD.finditer(text))
    rules = {}
    for head, after in zip(heads, heads[1:] + [None], strict=True):
        body = text[head.end(): after.start() if after else len(text)]
        body = body.split("\n%", 1)[0]  # directives (%declare, %ignore) end the last rule
        rules[head.group(2)] = (head.group(1), body)
    return rules


def alternatives(body: str) -> list[str]:
    """The top-level alternatives of a rule body (`|` outside brackets, strings and regexps)."""
    parts, depth, current, quote = [], 0, [], None
    for char in body:
        if quote:
            quote = None if char == quote else quote
        elif char in "\"/":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def rules_from_text() -> set[str]:
    """Rule names that make tree nodes, read from the grammar text: every `-> alias`, and every
    rule that is neither inlined (`_name`, `?name`) nor aliased in all its alternatives."""
    names = set()
    for name, (mark, body) in grammar_rules().items():
        names.update(ALIAS.findall(body))
        if name.startswith("_") or mark == "?" or not body.strip():
            continue
        if any("->" not in alternative for alternative in alternatives(body)):
            names.add(name)
    return names


def rules_from_lark() -> set[str]:
    """The same from Lark's compiled rules, which also catches an alternative of a `?rule`
    that keeps several children (and so makes a node named after the rule)."""
    names = set()
    for rule in _lark().rules:
        if rule.alias:
            names.add(rule.alias)
            continue
        name = rule.origin.name
        if name.startswith("_"):
            continue
        if rule.options.expand1:
            kept = [s for s in rule.expansion if not getattr(s, "filter_out", False)]
            if len(kept) + len(rule.options.empty_indices or ()) <= 1:
                continue
        names.add(name)
    return names


def test_grammar_text_is_read():
    names = rules_from_text()
    assert {"start", "game_decl", "move_stmt", "compare", "name"} <= names
    assert not any(name.startswith("_") for name in names)


@pytest.mark.parametrize("source", ["text", "lark"])
def test_every_grammar_rule_has_an_ast_constructor(source):
    names = rules_from_text() if source == "text" else rules_from_lark()
    missing = sorted(names - builder_methods())
    assert missing == [], f"grammar rules without an AstBuilder method: {missing}"


def test_both_readings_agree():
    assert rules_from_text() == rules_from_lark()


def test_no_stale_constructors():
    """An AstBuilder method that no grammar rule names is dead code, or a renamed rule."""
    grammar_names = {r.origin.name for r in _lark().rules} | {r.alias for r in _lark().rules if r.alias}
    own = {m for m in builder_methods() if not m.startswith("_")}
    assert sorted(own - grammar_names) == []


# ---------------------------------------------------------------------- the real games


def children(node):
    """Child nodes of a node, through tuples (and tuples of tuples) in its fields."""
    for field in attrs.fields(type(node)):
        if field.name != "span":
            yield from _nodes_in(getattr(node, field.name))


def _nodes_in(value):
    if isinstance(value, n.Node):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _nodes_in(item)


def parsed(path: Path) -> tuple[Source, n.RulesFile]:
    source = Source(str(path), path.read_text(encoding="utf-8"))
    tree, diagnostics = parse(source)
    assert diagnostics == [], [d.message for d in diagnostics]
    assert isinstance(tree, n.RulesFile)
    return source, tree


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_game_parses_with_spans_into_the_file(path: Path):
    source, tree = parsed(path)
    assert tree.path == str(path)
    assert tree.items, "a game file declares something"
    checked = 0
    stack = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        span = node.span
        if span is not None:
            checked += 1
            assert span.source is source, f"{type(node).__name__} points into another source"
            # +1: the parser appends a final newline when the file lacks one
            assert 0 <= span.start < span.end <= len(source.text) + 1, f"{type(node).__name__} {span}"
            text = source.text[span.start:span.end]
            if parent is not None and parent.span is not None and not isinstance(parent, n.RulesFile):
                assert parent.span.start <= span.start and span.end <= parent.span.end, \
                    f"{type(node).__name__} at {span.where()} lies outside its {type(parent).__name__}"
            if isinstance(node, n.Name):
                assert text == node.id, f"{span.where()}: {text!r} is not the name {node.id!r}"
            elif isinstance(node, n.Rule):
                assert re.match(rf"rule\s+{node.name}\b", text), f"{span.where()}: {text[:40]!r}"
            elif isinstance(node, n.ZoneDecl):
                assert re.match(rf"zone\s+{node.name}\b", text), f"{span.where()}: {text[:40]!r}"
        stack.extend((child, node) for child in children(node))
    assert checked > len(tree.items)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_spans_take_no_part_in_equality(path: Path):
    """Blank lines between declarations move every span but change no node."""
    _, tree = parsed(path)
    spaced = re.sub(r"\n(?=[^\s#])", "\n\n", path.read_text(encoding="utf-8"))
    moved = parse(Source(str(path), spaced))[0]
    assert moved == tree
    assert moved.items[-1].span.start != tree.items[-1].span.start


def test_the_parser_tables_are_kept_in_a_folder_of_the_users_own(monkeypatch, tmp_path):
    """`RULELANG_PARSER_CACHE` names the folder (empty: none), else the user's cache folder;
    a folder that cannot be made means no file, never an error."""
    monkeypatch.setenv("RULELANG_PARSER_CACHE", "")
    assert parser_cache_file() is False
    monkeypatch.setenv("RULELANG_PARSER_CACHE", str(tmp_path / "tables"))
    assert Path(parser_cache_file()).parent == tmp_path / "tables" and (tmp_path / "tables").is_dir()
    monkeypatch.delenv("RULELANG_PARSER_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert Path(parser_cache_file()).parent == tmp_path / "xdg" / "rulelang"
    (tmp_path / "a_file").write_text("", encoding="utf-8")
    monkeypatch.setenv("RULELANG_PARSER_CACHE", str(tmp_path / "a_file" / "tables"))
    assert parser_cache_file() is False


def test_a_damaged_table_file_is_built_again(monkeypatch, tmp_path):
    """Lark reads the file only when its first line is the hash of the grammar, its options and
    the versions; a damaged file is replaced, and the rules parse as ever."""
    monkeypatch.setenv("RULELANG_PARSER_CACHE", str(tmp_path / "tables"))
    tables = Path(parser_cache_file())
    tables.write_bytes(b"not the tables\n\x80\x04")
    for _ in range(2):  # built afresh, then loaded from the file just written
        done = subprocess.run([sys.executable, "-m", "rulelang", "lint", str(ROOT / "games" / "pickomino.rules")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    assert not tables.read_bytes().startswith(b"not the tables")


def test_the_parser_tables_are_written_whole_then_named(monkeypatch, tmp_path):
    """A first start writes the tables under a name of its own, then renames the file: a start
    alongside finds the whole file or none."""
    monkeypatch.setenv("RULELANG_PARSER_CACHE", str(tmp_path / "tables"))
    done = subprocess.run([sys.executable, "-m", "rulelang", "lint", str(ROOT / "games" / "pickomino.rules")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in (tmp_path / "tables").iterdir()] == [Path(parser_cache_file()).name]


@pytest.mark.parametrize(("line", "low", "high"), [("players 2", 2, 2), ("players 2 to 5", 2, 5)])
def test_players_takes_one_number_or_a_range(line, low, high):
    tree, diagnostics = parse(Source("t.rules", f'game "T":\n    {line}\n'))
    assert not diagnostics
    assert (tree.items[0].min_players, tree.items[0].max_players) == (low, high)


def test_a_range_of_values_may_start_below_zero():
    """`one for each number in -1 to 3` (a penalty card of -1), as a list may hold `-1`."""
    tree, problems = parse(Source("neg.rules", 'game "Neg":\n    players 2\n\ncard c:\n    one for each number in -1 to 3\n'))
    assert not problems
    card = next(item for item in tree.items if isinstance(item, n.PieceDecl))
    assert card.generators[0].values == (-1, 0, 1, 2, 3)
