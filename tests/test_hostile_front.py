"""Hostile and broken input to the front end (reading text to a compiled game): every file gets
diagnostics, never a traceback, in bounded time and memory. The small cases are golden files in
tests/diagnostics/; the big ones (thousands of names, deep nesting) are generated here."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelang import cli
from rulelang.diagnostics import Diagnostic, render_concise, render_full, render_json
from rulelang.limits import Limits
from rulelang.parser import MAX_DEPTH, parse
from rulelang.pipeline import analyse, load
from rulelang.source import Source

HERE = Path(__file__).resolve().parent
CASES = HERE / "diagnostics"

WINNER = "winner:\n    rule w: most n\n"


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def codes(text: str, limits: Limits | None = None) -> list[str]:
    tree, diagnostics = parse(Source("case.rules", text), limits or Limits())
    return [d.code for d in diagnostics]


def write(tmp_path: Path, text: str, name: str = "case.rules") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------- strings and lines
def test_string_escapes_decode_in_one_pass():
    text = 'game "C:\\\\new \\"q\\" a\\tb\\nc"\n'
    tree, diagnostics = parse(Source("case.rules", text))
    assert diagnostics == []
    assert tree.items[0].name == 'C:\\new "q" a\tb\nc'


def test_branch_label_with_a_backslash(monkeypatch):
    monkeypatch.chdir(CASES)
    game = load("string_escape_decoding.rules")
    state = game.new_initial_state(players=2)
    assert [state.action_to_string(a) for a in state.legal_actions()][0].endswith("C:\\new")


def test_a_byte_order_mark_is_read_as_nothing():
    tree, diagnostics = parse(Source("case.rules", '\ufeffgame "g"\n'))
    assert diagnostics == [] and tree.items[0].name == "g"


@pytest.mark.parametrize("indent", [" \t", "\t ", "  \t  "])
def test_tabs_and_spaces_on_one_line(indent):
    text = f"turn:\n    rule r:\n{indent}pass\n"
    tree, diagnostics = parse(Source("case.rules", text))
    assert [d.code for d in diagnostics] == ["E006"]
    assert diagnostics[0].span.line == 3


def test_tabs_in_one_block_and_spaces_in_another_are_fine():
    text = 'counter n: shared = 0\nturn:\n\trule r:\n\t\tn = 1\n\t\tend game\n' + WINNER
    assert codes(text) == []


def test_an_unclosed_bracket_after_other_lines_is_not_blamed_when_closed_later():
    text = "turn:\n    rule r:\n        let x = [1,\n            2 3]\n"
    assert codes(text) == ["E001"]


def test_control_characters_anywhere_in_the_file():
    for text in ('game "a\x1b[2Jb"\n', "# \x07 bell\n", 'game "\u202egnp.exe"\n', "game \"a\rb\"\n"):
        assert codes(text) == ["E009"], repr(text)
    assert codes('game "a"\r\n') == []


# ---------------------------------------------------------------------- rendering
def test_rendering_escapes_control_characters_and_json_keeps_them():
    source = Source("evil\x1b.rules", 'game "\x1b[31mred"\n')
    d = Diagnostic("E101", "unknown name `\x1b[2J`", source.span(6, 11), notes=("\x07",), help="`\x9b`")
    for text in (render_full(d), render_concise(d)):
        assert not any(ord(c) < 0x20 and c != "\n" or 0x7F <= ord(c) < 0xA0 for c in text), text
    full = render_full(d)
    assert '1 | game "\\e[31mred"' in full
    assert "  |       ^^^^^^" in full  # the caret under the five characters, six columns once escaped
    assert json.loads(render_json([d]))[0]["message"] == "unknown name `\x1b[2J`"


# ---------------------------------------------------------------------- limits
def test_limits_name_the_limit_and_how_to_raise_it(tmp_path):
    path = write(tmp_path, 'card c:\n    one for each number in 1 to 300\nturn:\n    rule r: end game\n'
                 'winner:\n    rule w: most 1\n')
    _, diagnostics = analyse(path, limits=Limits(pieces=200))
    assert [d.code for d in diagnostics] == ["E602"]
    assert "200" in diagnostics[0].message and "--limit pieces=300" in diagnostics[0].help
    game, diagnostics = analyse(path, limits=Limits(pieces=300))
    assert game is not None and game.run_limits == Limits(pieces=300)


def test_pieces_of_all_kinds_together(tmp_path):
    kinds = "".join(f"token t{i}:\n    count 60\n" for i in range(4))
    path = write(tmp_path, kinds + "turn:\n    rule r: end game\nwinner:\n    rule w: most 1\n")
    _, diagnostics = analyse(path, warnings=False, limits=Limits(pieces=200))
    assert [(d.code, d.span.line) for d in diagnostics] == [("E602", 7)]
    # Ranges count for the whole file as they are read.
    kinds = "".join(f"card c{i}:\n    one for each number in 1 to 60\n" for i in range(4))
    path = write(tmp_path, kinds + "turn:\n    rule r: end game\nwinner:\n    rule w: most 1\n")
    _, diagnostics = analyse(path, limits=Limits(pieces=200))
    assert [(d.code, d.span.line) for d in diagnostics] == [("E602", 8)]


def test_faces_of_one_die_in_several_ranges():
    text = "die d:\n    faces 1 to 600\n    faces 601 to 1200\n"
    assert codes(text) == ["E603"]
    assert codes(text, Limits(faces=1200)) == []


def test_a_literal_create_over_the_limit(monkeypatch):
    monkeypatch.chdir("/")
    text = ('game "g"\ndie d:\n    faces 1 to 6\nzone z: shared pool, public\nsetup:\n'
            '    rule s: create 1000 d in z\nturn:\n    rule r: end game\nwinner:\n    rule w: most 1\n')
    tree, _ = parse(Source("case.rules", text))
    from rulelang.compiler import compile_game
    _, diagnostics = compile_game(tree, limits=Limits(pieces=999))
    assert [d.code for d in diagnostics] == ["E602"]


def test_numbers_over_the_digit_limit():
    assert codes("counter c: shared = " + "9" * 20 + "\n", Limits(number_digits=19)) == ["E606"]
    assert codes("counter c: shared = " + "9" * 20 + "\n", Limits(number_digits=20)) == []


def test_declarations_counted_before_parsing(tmp_path):
    lines = "".join(f"option o{i} = {i}\n" for i in range(120))
    _, diagnostics = analyse(write(tmp_path, lines), limits=Limits(declarations=100))
    assert [(d.code, d.span.line) for d in diagnostics] == [("E604", 101)]
    assert "--limit declarations=120" in diagnostics[0].help


def test_defines_that_double_are_measured_not_expanded(monkeypatch):
    monkeypatch.chdir(CASES)
    _, diagnostics = analyse("dos_define_expansion.rules")
    assert [d.code for d in diagnostics] == ["E605"]
    # Twenty doublings are a million nodes; raised far enough, the same file compiles.
    lines = ['game "g"', "counter c: shared = 0", "define d0 = turn_number + 1"]
    lines += [f"define d{i} = d{i - 1} + d{i - 1}" for i in range(1, 8)]
    lines += ["turn:", "    rule r:", "        c = d7", "        end game", "winner:", "    rule w: most c", ""]
    tree, _ = parse(Source("case.rules", "\n".join(lines)))
    from rulelang.compiler import compile_game
    assert [d.code for d in compile_game(tree, limits=Limits(expansion=300))[1]] == ["E605"]
    assert compile_game(tree, limits=Limits(expansion=2000))[1] == []


def test_lint_takes_limits(tmp_path):
    path = tmp_path / "faces.rules"
    path.write_text(Path(CASES / "dos_faces_range.rules").read_text().replace("10000000", "2000"))
    code, out, err = run_cli("lint", str(path))
    assert code == 1 and "E603" in out + err
    code, out, err = run_cli("lint", str(path), "--limit", "faces=3000")
    assert code == 0, out + err
    code, out, err = run_cli("lint", str(path), "--limit", "face=3")
    assert code == 2 and "unknown limit" in err


# ---------------------------------------------------------------------- many names
def test_thousands_of_typos_among_thousands_of_names(tmp_path):
    options = "".join(f'option opt_{i:05d} = {i}:\n    "o"\n' for i in range(2000))
    typos = "".join(f"        c = opt_{i:05d}x\n" for i in range(400))
    text = f'game "D"\n{options}counter c: shared = 0\nturn:\n    rule r:\n{typos}        end game\n' \
           "winner:\n    rule w: most c\n"
    _, diagnostics = analyse(write(tmp_path, text), warnings=False)
    errors = [d for d in diagnostics if d.code == "E101"]
    assert len(errors) == 400
    assert errors[0].help.startswith("did you mean `opt_00000`")
    assert sum(d.help is not None for d in errors) <= 100


# ---------------------------------------------------------------------- nesting
def _nested_ifs(depth: int) -> str:
    lines = ['game "Deep":', "    players 2 to 2", "counter n: shared = 0", "turn:", "    rule r:"]
    lines += ["    " * (2 + i) + "if n == 0:" for i in range(depth)]
    lines += ["    " * (2 + depth) + "n = 1", "        end game", WINNER]
    return "\n".join(lines)


def test_nesting_past_the_limit_is_refused_at_its_line_by_every_command(tmp_path):
    path = write(tmp_path, _nested_ifs(150))
    _, diagnostics = analyse(path)
    assert [d.code for d in diagnostics] == ["E005"]
    assert 50 < diagnostics[0].span.line < 60
    assert str(MAX_DEPTH) in diagnostics[0].message
    for argv in (["lint", path], ["diff", path, path], ["explain", "r", "--file", path]):
        code, out, err = run_cli(*argv)
        assert code == 1 and "E005" in out + err and "Traceback" not in out + err, argv


def test_nesting_within_the_limit_works_in_every_command(tmp_path):
    path = write(tmp_path, _nested_ifs(40))
    other = write(tmp_path, _nested_ifs(39), "other.rules")
    game = load(path)
    state = game.new_initial_state(players=2)
    assert state.is_terminal()
    for argv in (["lint", path], ["diff", path, other], ["explain", "r", "--file", path]):
        code, out, err = run_cli(*argv)
        assert code == 0 and "Traceback" not in out + err, argv


# ---------------------------------------------------------------------- subsets
SUBSETS = """game "Subsets":
    players 2 to 2
{decl}
zone hand: shared set, public
zone kept: shared set, public
setup:
    rule make: create {create} in hand
turn:
    rule pick:
        choose group from subsets(hand) as "keep"
        move group to kept
        end game
winner:
    rule w: most count(kept)
"""


@pytest.mark.parametrize("decl, create, groups", [
    ("card c:\n    one for each number in 1 to 3", "c", 7),     # distinct cards: every group
    ("token t:\n    count 3", "t", 3),                             # identical tokens: 1, 2 or 3 of them
    ("die d:\n    faces 6", "3 d", 3),                             # dice showing one face: alike
])
def test_subsets_offer_each_distinct_group_once(tmp_path, decl, create, groups):
    game = load(write(tmp_path, SUBSETS.format(decl=decl, create=create)))
    state = game.new_initial_state(players=2)
    labels = [state.action_to_string(a) for a in state.legal_actions()]
    assert len(labels) == groups and len(set(labels)) == groups, labels


def test_explain_lists_every_limit():
    from rulelang.limits import LIMIT_NAMES
    code, out, _ = run_cli("explain", "limits")
    assert code == 0
    assert all(name in out for name in LIMIT_NAMES) and "E605" in out


ALIKE = """game "Alike groups":
    players 2 to 2
die d:
    faces 1 to 3
card c:
    one for each number in 1 to 3 and each suit in red, blue
zone cup: shared pool, public
zone hand: shared set, public
zone kept: shared set, public
define one_value(g, ...) = count(distinct(g.face)) == 1
setup:
    rule make:
        create 5 d in cup
        create c in hand
turn:
    rule throw: roll cup
    rule pick:
        choose group from subsets({zone}) where {cond} as "keep"
        move group to kept
        end game
winner:
    rule w: most count(kept)
"""


@pytest.mark.parametrize("zone, attribute", [("cup", "face"), ("hand", "suit"), ("hand", "number")])
def test_subsets_of_alike_groups_are_those_the_condition_keeps(tmp_path, zone, attribute):
    """`where count(distinct(G.ATTR)) == 1 and ...` makes only the groups alike in ATTR; the
    options are those of the same condition written so that it is not seen (under `or`)."""
    def options(cond: str) -> list[list[str]]:
        text = ALIKE.replace("define one_value(g, ...) = count(distinct(g.face)) == 1",
                             f"define one_value(g) = count(distinct(g.{attribute})) == 1")
        game = load(write(tmp_path, text.format(zone=zone, cond=cond)))
        rng, seen = random.Random(5), []
        for _ in range(12):
            state = game.new_initial_state(players=2)
            state.apply_action(state.sample_chance(rng))
            seen.append([state.action_to_string(a) for a in state.legal_actions()])
        return seen

    found = options("count(group) < 4 and one_value(group)")
    assert found == options("count(group) < 4 and (one_value(group) or false)")
    assert all(found) and any(len(labels) > 3 for labels in found)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_groups_of_one_key_are_the_counted_groups(sizes, rng):
    """The quick way to list the groups of keys alone in their class gives the same groups in
    the same order as counting them."""
    from rulelang.codegen import _groups_by_counts, _groups_of_one_key
    ids = iter(range(100))
    lists = [[next(ids) for _ in range(size)] for size in sizes]
    keys = list(range(len(lists)))
    rng.shuffle(keys)  # classes come in the order their values first appear, not by key
    assert _groups_of_one_key(lists, keys) == _groups_by_counts(lists, [[k] for k in keys])
    if len(lists) == 1:
        assert _groups_of_one_key(lists, [0]) == _groups_by_counts(lists, [range(1)])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=6), st.integers(1, 3), st.randoms(use_true_random=False))
def test_groups_of_one_size_are_those_among_all_groups(sizes, parts, rng):
    """`subsets(C, K)` makes, without the others, the groups of K pieces among all the groups,
    in their order, and counts them as it makes them, for any classes of keys."""
    from rulelang.codegen import _groups_by_counts, _groups_counted, _groups_of_size
    ids = iter(range(100))
    lists = [[next(ids) for _ in range(size)] for size in sizes]
    keys = list(range(len(lists)))
    rng.shuffle(keys)
    # (a class lists its keys in order; the classes come in the order their values first appear)
    classes = [sorted(keys[i::parts]) for i in range(parts) if keys[i::parts]]
    every = _groups_by_counts(lists, classes)
    for size in range(1, sum(sizes) + 1):
        groups = _groups_of_size(lists, classes, size)
        assert groups == [g for g in every if len(g) == size]
        assert len(groups) == sum(_groups_counted(lists, members, size) for members in classes)
