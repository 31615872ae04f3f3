"""What makes states of a turn play on alike (rulelang.turnkey), and the two facts it rests on:
which zones' order the rules read (rulelang.order_reads, checked on the files of
tests/order_reads, each saying what it expects in its first line) and which variables may
still be read (rulelang.liveness). Merging states never changes a value: each analysis below
gives exactly the value of one that merges nothing."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from test_analysis import TWO_ROLLS, _pickomino_after_four_fives

import rulelang
from rulelang import analysis, model, turnkey
from rulelang.faces import instruction_functions
from rulelang.liveness import GameLiveness

ROOT = Path(__file__).resolve().parent.parent
ORDER_READS = sorted((ROOT / "tests" / "order_reads").glob("*.rules"))


def _expected_order_reads(path: Path) -> set[str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# ordered: "), f"{path.name} must say what it expects in its first line"
    names = first.removeprefix("# ordered: ").split(" (")[0]
    return set() if names == "none" else {name.strip() for name in names.split(",")}


@pytest.mark.parametrize("path", ORDER_READS, ids=lambda p: p.stem)
def test_order_reads(path):
    assert set(rulelang.load(path).order_read_zones) == _expected_order_reads(path)


def test_pickomino_reads_the_order_of_grill_and_stacks_only():
    game = rulelang.load(ROOT / "games" / "pickomino.rules")
    assert game.order_read_zones == {"grill", "stack"}  # cup and kept are bags


def _turn_procedure(game):
    return next(i for i, p in enumerate(game.procedures) if p.name == "turn")


def test_a_chosen_symbol_is_dead_once_moved():
    """Pickomino's `symbol` is written by the choice, read by the move after it, and dead at the
    stop-or-roll decision and at the next roll (which the choice writes it again after)."""
    game = rulelang.load(ROOT / "games" / "pickomino.rules")
    index = _turn_procedure(game)
    procedure = game.procedures[index]
    live = GameLiveness(game).of(index)
    symbol = procedure.slot_names.index("symbol")
    ops = [op for op, *_ in procedure.code]
    roll, choose, branch = ops.index(model.OP_ROLL), ops.index(model.OP_CHOOSE), ops.index(model.OP_BRANCH)
    assert symbol not in live.live(roll, "roll")
    assert symbol not in live.live(choose, "choose")
    assert symbol in live.live(choose + 1)
    assert symbol not in live.live(branch, "branch")


# files with the language's hand-written pieces of code: choices of several, powers used once
_MARKED = sorted(p for p in [*(ROOT / "games").glob("*.rules"), *(ROOT / "tests" / "language").glob("*.rules"),
                             *(ROOT / "tests" / "scenarios" / "designer-games").glob("*.rules")]
                 if " of them" in p.read_text(encoding="utf-8") or " once per " in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", _MARKED, ids=lambda p: p.stem)
def test_every_function_says_what_it_reads(path):
    """Liveness and dead faces take a function without its marks to read every variable and
    every zone and to go anywhere: one such function keeps every variable of its procedure in
    every key (a choice of several once did: Generala's turn had hundreds of thousands of states)."""
    game = rulelang.load(path)
    for procedure in game.procedures:
        for op, a, b, _ in procedure.code:
            for function in instruction_functions(op, a, b):
                if function is None:
                    continue
                missing = [mark for mark in ("slots_used", "zones_read", "uses_counters")
                           if getattr(function, mark, None) is None]
                if op == model.OP_EXEC and getattr(function, "jumps", None) is None:
                    missing.append("jumps")
                assert not missing, f"{procedure.name}: {function.__qualname__} lacks {missing}"


class _NothingMerged(turnkey.TurnKeys):
    """Every state its own: pieces by id, zones in order, every variable."""

    def key(self, state):
        pending = state.pending
        return (turnkey._freeze(state.zones), turnkey._freeze(state.dynamic[0]), turnkey._freeze(state.frames),
                None if pending is None else (pending[0], id(pending[1]), turnkey._freeze(pending[2:])),
                turnkey._freeze(state.counters), state.player, state.turn_number, state.finished)


def _chipo_after_a_first_set_aside():
    game = rulelang.load(ROOT / "games" / "chipo-chipa.rules")
    state = game.new_initial_state(2)
    state.apply_action(state.outcome_from_labels([2, 2, 5, 6, 2]))  # four white dice, then the red one
    labels = [state.action_to_string(a) for a in state.legal_actions()]
    state.apply_action(labels.index(next(label for label in labels if "red_die" in label)))
    return game, state


@pytest.mark.parametrize("position", ["two rolls", "pickomino", "chipo-chipa"])
def test_merging_never_changes_a_value(position, monkeypatch):
    if position == "two rolls":
        game = rulelang.load(TWO_ROLLS)
        state = game.new_initial_state(2)
    elif position == "pickomino":
        game, state = _pickomino_after_four_fives()
    else:
        game, state = _chipo_after_a_first_set_aside()
    objective = analysis.gain_objective(game)
    merged = analysis.Analysis(state, objective, exact=True)
    monkeypatch.setattr(analysis, "TurnKeys", _NothingMerged)
    alone = analysis.Analysis(state, objective, exact=True)
    assert isinstance(merged.value, (int, Fraction)) and merged.value == alone.value
    assert merged.states < alone.states or position == "two rolls"


def test_names_too_deep_to_follow_leave_every_zone_ordered(tmp_path):
    """Thousands of variables each made from the last: the order reads give up (every zone
    keeps its order in the key) instead of failing."""
    lets = "\n".join(f"        let v{i} = v{i - 1}" for i in range(1, 3000))
    path = tmp_path / "deep.rules"
    path.write_text(f"""game "deep":
    players 2 to 2

die d6:
    faces 1 to 6

zone cup: shared pool, public
zone kept: shared pool, public

setup:
    rule dice: create 3 d6 in cup

turn:
    rule throw: roll cup
    rule chain:
        let v0 = cup
{lets}
        move first(v2999) to kept

end:
    rule soon: game ends when turn_number >= 6

winner:
    rule most: most sum(kept)
""", encoding="utf-8")
    game = rulelang.load(path)
    assert game.order_read_zones is None
    assert analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game), exact=True).value == \
        Fraction(49, 24)  # a roll's faces go to the dice in order, lowest first: the least of 3d6


def test_a_kind_of_alike_pieces_keeps_its_number_when_pieces_are_made(tmp_path):
    """A piece made during the turn can make two pieces alike that were not: the kinds of alike
    pieces known before keep their numbers to the key, so a key made before still means what
    it meant (numbering them afresh would give the dice's number to the marks)."""
    path = tmp_path / "marks.rules"
    path.write_text("""game "marks":
    players 2 to 2

token mark:
    one for each number in 1

die d6:
    faces 1 to 6

zone cup: shared pool, public
zone board: shared pool, public

setup:
    rule a_mark: create mark in board
    rule dice: create 2 d6 in cup

turn:
    rule throw: roll cup
    rule another_mark: create mark in board

end:
    rule soon: game ends when turn_number >= 4

winner:
    rule most: most sum(cup)
""", encoding="utf-8")
    game = rulelang.load(path)
    state = game.new_initial_state(2)
    keys = turnkey.TurnKeys()
    keys.key(state)
    dice = sorted(state.zones[state.zone_index("cup")])
    before = [keys.canon[p] for p in dice]
    state.apply_action(state.outcome_from_labels([3, 5]))  # the second mark is made
    keys.key(state)
    marks = state.zones[state.zone_index("board")]
    assert len(marks) == 2 and all(p in keys.alike for p in marks)
    assert [keys.canon[p] for p in dice] == before and keys.canon[marks[0]] not in before


def test_a_counter_added_to_holds_numbers():
    """`climbed[c] of player += runner[c]` (Can't Stop): a counter that starts as a number and is
    only added to holds numbers, whatever the value added reads as, so the key never looks in it
    for a die's id (an id there keeps every die apart by its id)."""
    game = rulelang.load(ROOT / "tests" / "scenarios" / "designer-games" / "cantstop.rules")
    assert all(counter.numbers_only for counter in game.counters)


def test_a_loops_variable_is_dead_before_its_loop():
    """Can't Stop's `for each p in pairings` and `for each c in ...` run inside the turn's
    `repeat`: what a loop's variable held from the last time round is never read (the loop
    sets it first, and no line after the loop names it), so at "stop or roll" no variable of
    the turn is live."""
    game = rulelang.load(ROOT / "tests" / "scenarios" / "designer-games" / "cantstop.rules")
    index = _turn_procedure(game)
    procedure = game.procedures[index]
    branch = [op for op, *_ in procedure.code].index(model.OP_BRANCH)
    assert not GameLiveness(game).of(index).live(branch, "branch")
