"""Statements between two suspension points run as one generated Python function, with `if`
and loops inside it (compiler.py, `_Code`): a fault still names its own line and rule, an
endless loop is still R502, and a rule set off by a move still runs before the next statement."""

from __future__ import annotations

import pytest

import rulelang
from rulelang import RuntimeFault

HEAD = 'game "Lines":\n    players 1 to 2\nzone pool: shared pile, public\nzone box: shared pile, public\n' \
       "counter c: shared = 0\npiece chip:\n    count 3\nsetup:\n    rule make: create chip in pool\n"
TAIL = "winner:\n    rule w: most c\n"


def _fault(tmp_path, turn: str) -> RuntimeFault:
    rules = tmp_path / "lines.rules"
    rules.write_text(HEAD + turn + TAIL)
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(rules).new_initial_state(1)
    return caught.value


def _line(fault: RuntimeFault) -> int:
    return fault.diagnostic.span.line


def test_a_fault_in_an_if_names_its_line_and_rule(tmp_path):
    fault = _fault(tmp_path, "turn:\n    rule first:\n        c = 1\n        if c == 1:\n            c = 2\n"
                   "    rule second:\n        if c == 2:\n            c = 3\n        else:\n            c = 4\n"
                   "        c = c / 0\n")
    assert fault.diagnostic.code == "R503" and _line(fault) == 20
    assert "(in rule `second`, " in fault.diagnostic.message


def test_a_fault_in_a_condition_names_the_condition(tmp_path):
    fault = _fault(tmp_path, "turn:\n    rule first:\n        c = 1\n    rule second:\n        if c == 2:\n"
                   "            c = 3\n        elif c / 0 == 1:\n            c = 4\n")
    assert _line(fault) == 16 and "(in rule `second`, " in fault.diagnostic.message


def test_a_fault_in_a_loop_names_its_line(tmp_path):
    fault = _fault(tmp_path, "turn:\n    rule count_them:\n        for each p in pool:\n            c = c + 1\n"
                   "            while c > 2:\n                c = c - 1\n                c = c / (c - 2)\n")
    assert _line(fault) == 16 and "(in rule `count_them`, " in fault.diagnostic.message


def test_an_endless_loop_inside_a_loop_is_stopped(tmp_path):
    fault = _fault(tmp_path, "turn:\n    rule spin:\n        for each p in pool:\n            while c >= 0:\n"
                   "                c = c + 1\n")
    assert fault.diagnostic.code == "R502" and "(in rule `spin`, " in fault.diagnostic.message
    assert _line(fault) == 13  # the loop that goes round


def test_the_instructions_are_fewer():
    """Pickomino's `fail_turn` is one statement function and `end turn`; its `if`s are Python's."""
    game = rulelang.load("games/pickomino.rules")
    fail_turn = next(p for p in game.procedures if p.name == "fail_turn")
    assert [op for op, *_ in fail_turn.code][:2] == [0, 8]


TRIGGERED = """game "Triggered":
    players 1 to 1
zone pool: shared pile, public
zone box: shared pile, public
counter c: shared = 0
counter seen: shared = 0
piece chip:
    count 2
setup:
    rule make: create chip in pool
turn:
    rule fill:
        for each p in pool:
            move p to box
            seen = seen * 10 + c
        end game
rule mark:
    when move to box:
        c = c + 1
winner:
    rule w: most c
"""


def test_a_triggered_rule_runs_before_the_next_statement(tmp_path):
    rules = tmp_path / "triggered.rules"
    rules.write_text(TRIGGERED)
    state = rulelang.load(rules).new_initial_state(1)
    assert state.is_terminal() and state.counters[1] == 12


@pytest.mark.parametrize("numbers", [[], [3], [1, 2, 2, 5, 5, 5], [4, 4], [None], [1, 1, 2]])
def test_the_highest_of_a_sorted_zone_is_found_from_its_end(numbers):
    """`highest(ZONE)` of a zone sorted by `number` looks at its last pieces only, and picks
    what looking at every piece picks (the first on ties)."""
    from types import SimpleNamespace

    from rulelang.codegen import _extreme_piece, _extreme_sorted
    st = SimpleNamespace(dynamic=[[None] * len(numbers), [None] * len(numbers), numbers])
    pieces = list(range(len(numbers)))
    for best in (True, False):
        assert _extreme_sorted(best, st, pieces) == _extreme_piece(best, st, pieces)


KEPT = """game "Kept":
    players 1 to 1
zone pool: shared pile, public
zone box: shared pile, public
counter a: shared = 0
counter b: shared = 0
counter c: shared = 0
piece chip:
    count 3
define boxed = count(box)
setup:
    rule make: create chip in pool
turn:
    rule fill:
        a = boxed * 10 + boxed
        move first(pool) to box
        b = boxed
        for each p in pool:
            move p to box
            c = c * 10 + boxed
        end game
winner:
    rule w: most a
"""


def test_a_define_used_twice_is_worked_out_again_after_a_change(tmp_path):
    """A define kept for the rest of a statement function is worked out again after each
    move or counter set: `boxed` reads 0 twice, then 1, then 2 and 3."""
    rules = tmp_path / "kept.rules"
    rules.write_text(KEPT)
    state = rulelang.load(rules).new_initial_state(1)
    assert state.counters[:3] == [0, 1, 23]


def test_a_fault_in_a_kept_define_names_its_first_use(tmp_path):
    rules = tmp_path / "kept.rules"
    rules.write_text(KEPT.replace("define boxed = count(box)", "define boxed = 1 / count(box)"))
    with pytest.raises(RuntimeFault) as caught:
        rulelang.load(rules).new_initial_state(1)
    assert caught.value.diagnostic.span.line == 15 and "(in rule `fill`, " in caught.value.diagnostic.message


def test_deep_blocks_compile(tmp_path):
    """Blocks deeper than Python allows stay instructions, inside and around Python blocks."""
    ifs = "".join("    " * (2 + k) + "if c >= 0:\n" for k in range(45)) + "    " * 47 + "c = c + 1\n"
    loops = "".join("    " * (2 + k) + "for each p in [1]:\n" for k in range(25)) + "    " * 27 + "c = c + 1\n"
    rules = tmp_path / "deep.rules"
    rules.write_text(HEAD + "turn:\n    rule deep:\n" + ifs + loops + "        end game\n" + TAIL)
    state = rulelang.load(rules).new_initial_state(1)
    assert state.is_terminal() and state.counters[0] == 2
