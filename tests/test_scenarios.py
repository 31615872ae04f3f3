"""Every tests/scenarios/**/*.scenario file is one test case (see rulelang/scenario.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from rulelang.scenario import (
    HEADERS,
    SECTIONS,
    STEP_KINDS,
    ScenarioError,
    _draw_items,
    load_scenario,
    run_scenario,
)

ROOT = Path(__file__).parent
SCENARIOS = sorted((ROOT / "scenarios").rglob("*.scenario"))


def _case(path: Path):
    name = str(path.relative_to(ROOT.parent)) if path.is_relative_to(ROOT.parent) else str(path)
    try:
        reason = load_scenario(path).xfail
    except ScenarioError:
        reason = None  # a malformed file fails in the test itself, with its message
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(path, id=name, marks=marks)


@pytest.mark.parametrize("path", [_case(p) for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    result = run_scenario(os.path.relpath(path))
    if not result.passed:
        pytest.fail(result.message, pytrace=False)


def test_scenarios_exist() -> None:
    assert SCENARIOS, "no scenario files found under tests/scenarios"


# ---------------------------------------------------------------------- the runner itself

GAMES = ROOT.parent / "games"


def _write(tmp_path: Path, text: str, name: str = "case.scenario") -> Path:
    path = tmp_path / name
    path.write_text(text.replace("GAMES", str(GAMES)), encoding="utf-8")
    return path


def test_passing_scenario(tmp_path: Path) -> None:
    path = _write(tmp_path, """# ok
game: GAMES/pickomino.rules
players: 2
steps:
    roll worm worm worm worm 4 4 4 1
    choose worm
    expect options: stop | roll again
    check total == 20
""")
    result = run_scenario(path)
    assert result.passed, result.message
    assert result.steps_run == 4


def test_false_check_names_line_options_and_trace(tmp_path: Path) -> None:
    path = _write(tmp_path, """# a wrong expectation
game: GAMES/pickomino.rules
steps:
    roll worm worm worm worm 4 4 4 1
    check total == 99
""")
    result = run_scenario(path)
    assert not result.passed
    assert f"{path}:5: `total == 99` is false" in result.message
    assert "#0 set aside: 1" in result.message and "#2 set aside: worm" in result.message
    assert "trace lines:" in result.message and "roll 1 4 4 4 worm worm worm worm" in result.message


def test_ambiguous_and_unknown_choices(tmp_path: Path) -> None:
    text = """# choices
game: GAMES/pickomino.rules
steps:
    roll worm worm worm worm 4 4 4 1
    choose {}
"""
    ambiguous = run_scenario(_write(tmp_path, text.format("set aside"), "a.scenario"))
    assert "is ambiguous" in ambiguous.message
    unknown = run_scenario(_write(tmp_path, text.format("3"), "b.scenario"))
    assert "no legal action matches `3`" in unknown.message
    by_index = run_scenario(_write(tmp_path, text.format("#2"), "c.scenario"))
    assert by_index.passed, by_index.message


def test_mixed_dice_need_one_group_per_kind(tmp_path: Path) -> None:
    path = _write(tmp_path, """# mixed dice
game: GAMES/chipo-chipa.rules
steps:
    roll 3 3 5 6 3
""")
    result = run_scenario(path)
    assert "the roll is white_die: 4 dice | red_die: 1 die" in result.message


def test_malformed_file_names_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, """# bad
game: GAMES/pickomino.rules
steps:
    jump around
""")
    with pytest.raises(ScenarioError, match=r":4: unknown step `jump around`"):
        load_scenario(path)
    assert not run_scenario(path).passed


def test_forced_takes_played_or_asked(tmp_path: Path) -> None:
    path = _write(tmp_path, """# bad forced
game: GAMES/pickomino.rules
forced: skipped
steps:
    roll 1 1 1 1 1 1 1 1
""")
    with pytest.raises(ScenarioError, match=r":3: `forced:` is `played` .* not `skipped`"):
        load_scenario(path)


def test_events_as_a_viewer_name_one(tmp_path: Path) -> None:
    """`events as player N:` and `events as spectator:` check what that viewer's trace says;
    anything else after `events as` is an error naming its line, and so is a seat the game
    does not have."""
    path = _write(tmp_path, """# bad viewer
game: GAMES/pickomino.rules
events as dealer:
    roll
""")
    with pytest.raises(ScenarioError, match=r":3: `events as dealer:` names no viewer"):
        load_scenario(path)
    path = _write(tmp_path, """# no such seat
game: GAMES/pickomino.rules
players: 2
events as player 3:
    roll
""")
    result = run_scenario(path)
    assert not result.passed and "names no seat of this 2-player game" in result.message


def test_given_is_compiled_against_the_game(tmp_path: Path) -> None:
    path = _write(tmp_path, """# unknown zone
game: GAMES/pickomino.rules
given:
    move grill where number == 36 to stash of seat(1)
""")
    result = run_scenario(path)
    assert not result.passed
    assert f"{path}:4:38" in result.message and "did you mean `stack`" in result.message


def test_broken_invariant_fails_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "tiny.rules").write_text(
        'game "Tiny":\n    players 1 to 2\n'
        "token chip:\n    count 2\n"
        "zone box: shared pile, public\nzone table: shared pile, public\n"
        "invariant box_full: count(box) == 2\n"
        "setup:\n    rule fill: create chip in box\n"
        "turn:\n    rule wait:\n        choose:\n            \"pass\": pass\n"
        "winner:\n    rule nobody: most 0\n")
    path = _write(tmp_path, """# a chip off the box
game: tiny.rules
given:
    move first(box) to table
""")
    result = run_scenario(path)
    assert "invariant(s) box_full no longer hold after the set-up" in result.message


def test_events_in_order(tmp_path: Path) -> None:
    text = """# events
game: GAMES/pickomino.rules
steps:
    roll worm worm worm worm 4 4 4 1
    choose worm
events:
    {}
"""
    good = run_scenario(_write(tmp_path, text.format("roll 1 4\n    chooses set aside: worm\n    not: turned"), "a.scenario"))
    assert good.passed, good.message
    bad = run_scenario(_write(tmp_path, text.format("chooses set aside: worm\n    roll 1 4"), "b.scenario"))
    assert "it appears earlier" in bad.message


def test_expected_fault(tmp_path: Path) -> None:
    rules = tmp_path / "tiny.rules"
    rules.write_text("""game "Tiny":
    players 1 to 2
die d6:
    faces 1 to 6
zone cup: shared pool, public
setup:
    rule one_die: create 1 d6 in cup
turn:
    rule throw: roll cup
    rule pick:
        choose die from cup where face == 6 as "pick"
winner:
    rule nobody: most 0
""", encoding="utf-8")
    text = """# faults
game: tiny.rules
steps:
{}    roll 3
"""
    expected = run_scenario(_write(tmp_path, text.format("    expect fault R501\n"), "a.scenario"))
    assert expected.passed, expected.message
    unexpected = run_scenario(_write(tmp_path, text.format(""), "b.scenario"))
    assert "unexpected fault" in unexpected.message and "R501" in unexpected.message


def test_xfail_header_marks_the_case(tmp_path: Path) -> None:
    path = _write(tmp_path, """# known bug
game: GAMES/pickomino.rules
xfail: the engine gets X wrong (reported in /tmp/core-bugs/scenarios.md)
""")
    assert load_scenario(path).xfail.startswith("the engine gets X wrong")
    marks = _case(path).marks
    assert len(marks) == 1 and marks[0].name == "xfail"
    assert marks[0].kwargs == {"reason": load_scenario(path).xfail, "strict": True}


HIGH_CARD = ROOT / "scenarios" / "engine" / "high-card.rules"


def test_one_draw_line_deals_several_pieces(tmp_path: Path) -> None:
    path = _write(tmp_path, f"""# a deal in two lines
game: {HIGH_CARD}
players: 2
steps:
    draw numbered 10, 1, numbered 2    # the kind carries over
    expect draw
    draw 2 x numbered 9, 7             # `9` again is an error below
""")
    result = run_scenario(path)
    assert "no piece `numbered 9` to draw (piece 2 of 3 on the line)" in result.message
    good = _write(tmp_path, f"""# a deal in two lines
game: {HIGH_CARD}
players: 2
steps:
    draw numbered 10, 1, numbered 2
    draw numbered 9, 8, 7
expect:
    sum(played of seat(0), number) == 13
""", "good.scenario")
    assert run_scenario(good).passed, run_scenario(good).message


def test_a_roll_while_a_draw_is_pending_fails_with_a_message(tmp_path: Path) -> None:
    """A roll scripted where a draw is pending (the game draws dice from a bag) fails the
    scenario and says which step is due; it was a traceback."""
    path = _write(tmp_path, f"""# a roll while a draw is pending
game: {HIGH_CARD}
players: 2
steps:
    roll 3 4
""")
    result = run_scenario(path)
    assert not result.passed
    assert "a roll was scripted, but a draw is pending: script it with `draw ...`" in result.message


def test_a_die_is_drawn_by_its_kind_whatever_it_shows(tmp_path: Path) -> None:
    """Dice back in a cup still show their last roll (`d showing heart`); a draw step may name
    them by their kind alone, as a designer thinks of them."""
    rules = tmp_path / "cup.rules"
    rules.write_text('game "Cup":\n    players 2\n\ndie d:\n    faces heart, skull\n\n'
                     "zone cup: shared pool, hidden\nzone hand: shared pool, public\ncounter hearts: per player = 0\n\n"
                     "setup:\n    rule fill:\n        create 2 d in cup\n        roll cup\n\n"
                     "turn:\n    rule take: draw 1 from cup to hand\n    rule throw: roll hand\n"
                     "    rule count: hearts of player += count(hand, face == heart)\n"
                     "    rule back: move hand to cup\n\n"
                     "end:\n    rule two: game ends when turn_number >= 2\n\n"
                     "winner:\n    rule most: most hearts of player\n", encoding="utf-8")
    path = _write(tmp_path, """# by kind
game: cup.rules
players: 2
steps:
    roll heart skull
    draw d
    roll heart
    draw d showing heart
    roll skull
expect:
    hearts of seat(0) == 1
""")
    result = run_scenario(path)
    assert result.passed, result.message


def test_draw_items_are_read_with_counts_and_quotes(tmp_path: Path) -> None:
    assert _draw_items("f", 1, '2 x ox 5, "warning a 3, 4 or 5",7') == [
        (2, "ox 5", False), (1, "warning a 3, 4 or 5", True), (1, "7", False)]
    for bad in ("ox 1,, ox 2", "ox 1,", '"ox 1" 2', "0 x ox 1"):
        with pytest.raises(ScenarioError, match=":1: "):
            _draw_items("f", 1, bad)


def test_a_pattern_matches_whole_words(tmp_path: Path) -> None:
    path = _write(tmp_path, """# words
game: GAMES/pickomino.rules
steps:
    roll worm worm worm worm 4 4 4 1
    expect no option: wor
    choose wor
""")
    result = run_scenario(path)
    assert "no legal action matches `wor` (it is inside a word of `set aside: worm`" in result.message


def test_expect_roll_and_draw_with_a_seed(tmp_path: Path) -> None:
    path = _write(tmp_path, f"""# a roll is not a draw
game: {HIGH_CARD}
players: 2
steps:
    expect draw
    expect roll
""")
    assert f"{path}:6: a roll should be pending" in run_scenario(path).message
    seeded = _write(tmp_path, """# with a seed, expect roll leaves the roll pending
game: GAMES/pickomino.rules
seed: 3
steps:
    expect roll
    roll worm worm worm worm 4 4 4 1
    expect player: 0
""", "seeded.scenario")
    assert run_scenario(seeded).passed, run_scenario(seeded).message


def test_a_check_before_a_scripted_draw_says_the_seed_took_it(tmp_path: Path) -> None:
    """With `seed:`, chance is drawn before a `check`: a draw or roll scripted after it finds
    none pending, and the failure says why and what to move."""
    path = _write(tmp_path, f"""# a check first
game: {HIGH_CARD}
players: 2
seed: 1
steps:
    check count(deck) >= 0
    draw numbered 10, 1
""")
    assert ("no draw or shuffle is pending: `seed:` drew the pending draw before the `check` at line 6 (with "
            "`seed:`, chance is drawn before every step but `roll` and `draw`); script the draw before that line"
            ) in run_scenario(path).message
    rolled = _write(tmp_path, """# a check first
game: GAMES/pickomino.rules
seed: 3
steps:
    check count(kept) == 0
    roll 1 1 1 1 1 1 1 1
""", "rolled.scenario")
    assert "no roll is pending: `seed:` drew the pending roll before the `check` at line 5" in \
        run_scenario(rolled).message
    served = _write(tmp_path, """# the seed's roll served a decision first: no word of it
game: GAMES/pickomino.rules
seed: 3
steps:
    check count(kept) == 0
    choose 4
    roll 1 1 1 1 1 1 1 1
""", "served.scenario")
    message = run_scenario(served).message
    assert "a roll was scripted, but no roll is pending" in message and "`seed:` drew" not in message


def test_the_docs_list_every_header_section_and_step() -> None:
    doc = (ROOT.parent / "docs" / "language.md").read_text(encoding="utf-8")
    part = doc[doc.index("\n## 6. Scenario files"):]
    part = part[:part.find("\n## ", 1)] if "\n## " in part[1:] else part
    for header in HEADERS:
        assert f"`{header}: " in part, f"docs/language.md Part 6 does not describe `{header}:`"
    for section in SECTIONS:
        assert f"`{section}:`" in part, f"docs/language.md Part 6 does not describe `{section}:`"
    for step in STEP_KINDS:
        assert re.search(rf"^\| `{re.escape(step)}[` ]", part, re.M), \
            f"the table of steps in docs/language.md Part 6 has no row for `{step}`"


@pytest.mark.parametrize(("named", "says"), [("../../../../etc/passwd", "is not a `.rules` file"),
                                             ("/etc/passwd", "is not a `.rules` file")])
def test_a_game_that_is_not_a_rules_file_is_refused_unread(tmp_path: Path, named: str, says: str) -> None:
    """`game:` names a `.rules` file; any other file is E109, never opened (its first line
    would be shown as a syntax error)."""
    path = tmp_path / "s.scenario"
    path.write_text(f"game: {named}\nsteps:\n    roll 3\n")
    result = run_scenario(str(path))
    assert not result.passed and "error[E109]" in result.message and says in result.message
    assert "root:" not in result.message


@pytest.mark.parametrize("line", ["seed: " + "9" * 5000, "players: " + "9" * 5000,
                                  "steps:\n    roll " + "9" * 5000, "events as player " + "9" * 5000 + ":\n    x",
                                  "steps:\n    expect winners: a", "steps:\n    expect returns: x y"])
def test_numbers_no_scenario_can_mean_fail_in_words(tmp_path: Path, line: str) -> None:
    """Thousands of digits, or words where numbers belong, fail the scenario with a message,
    never a Python error."""
    path = _write(tmp_path, f"# big\ngame: GAMES/pickomino.rules\n{line}\n")
    try:
        result = run_scenario(path)
    except ScenarioError as error:
        assert len(str(error)) < 300
        return
    assert not result.passed and len(result.message) < 5000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no fifos here")
def test_a_fifo_named_like_a_scenario_is_refused_not_read(tmp_path: Path) -> None:
    path = tmp_path / "fifo.scenario"
    os.mkfifo(path)
    with pytest.raises(ScenarioError, match="not a regular file"):
        load_scenario(path)
