"""The lazy trace: a state records no events as it plays, and ``state.events`` replays its
history on a traced copy when asked. Every ask must give what an eagerly traced state records,
for clones that go their own ways, for a state that faulted, and never a wrong trace."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulelang
from rulelang import CHANCE
from rulelang.knowledge import SeatView
from rulelang.runtime import State, TraceUnavailable, initial_state
from rulelang.simulate import Stats

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"

FAULTING = """\
game "Six faults":
    players 2 to 2
    at most 40 turns
die d6:
    faces 1 to 6
zone cup: shared pool
counter points: per player = 0
setup:
    rule make: create 1 d6 in cup
turn:
    rule throw:
        roll cup
        points of player = points of player + first(cup).face
        if first(cup).face == 6:
            points of player = 1 / 0
end:
    rule enough: game ends when any(players, points of it >= 30)
winner:
    rule most_points: most points of player
"""


def _step(state: State, rng: random.Random):
    if state.current_player() == CHANCE:
        return state.sample_chance(rng)
    return rng.choice(state.legal_actions())


def _pair(game, players: int) -> tuple[State, State]:
    return game.new_initial_state(players), game.new_initial_state(players, trace="eager")


@pytest.mark.parametrize("name, players", [("pickomino.rules", 4), ("six-nimmt.rules", 3),
                                           ("extrawurm.rules", 2), ("break-the-code.rules", 2)])
def test_a_lazy_trace_is_the_eager_one(name, players):
    """Asked now and then while the game plays, and at the end, for every viewer."""
    game = rulelang.load(GAMES / name)
    lazy, eager = _pair(game, players)
    assert (lazy.trace_mode, eager.trace_mode) == ("lazy", "eager")
    rng = random.Random(5)
    for step in range(2000):
        if lazy.is_terminal():
            break
        action = _step(lazy, rng)
        lazy.apply_action(action)
        eager.apply_action(action)
        if step % 41 == 0:
            assert lazy.events == eager.events
    assert lazy.events == eager.events
    for viewer in ["all", None, *range(players)]:
        assert lazy.event_lines(0, viewer) == eager.event_lines(0, viewer)
    assert lazy.information_state_string(0) == eager.information_state_string(0)


def test_a_finished_lazy_state_holds_no_events():
    game = rulelang.load(GAMES / "pickomino.rules")
    state, rng = game.new_initial_state(4), random.Random(2)
    while not state.is_terminal():
        state.apply_action(_step(state, rng))
    # the shared set-up only: its own shadow, or none (a finished state lets go of the set-up, where a replay starts anyway)
    assert "events" not in state.__dict__ and (state.shadow is None or state.shadow.history == [])
    assert state.events[-1][1] == "game over"


def test_clones_share_the_shadow_and_go_their_own_ways():
    game = rulelang.load(GAMES / "six-nimmt.rules")
    state, eager = _pair(game, 3)
    rng = random.Random(7)
    for _ in range(30):
        action = _step(state, rng)
        state.apply_action(action)
        eager.apply_action(action)
    assert state.events == eager.events
    copy, eager_copy = state.clone(), eager.clone()
    assert copy.shadow is state.shadow and copy.trace_mode == "lazy"
    for a, b in ((state, eager), (copy, eager_copy), (state, eager)):
        for _ in range(25):
            action = _step(a, rng)
            a.apply_action(action)
            b.apply_action(action)
        assert a.events == b.events
    assert copy.shadow is not state.shadow and copy.events != state.events


def test_trace_modes_of_copies():
    game = rulelang.load(GAMES / "pickomino.rules")
    state, rng = game.new_initial_state(2), random.Random(3)
    for _ in range(12):
        state.apply_action(_step(state, rng))
    recording = state.clone(tracing=True)
    assert recording.trace_mode == "eager" and recording.events == state.events
    assert recording.events is not state.events
    lookahead = recording.clone(tracing=False)  # keeps the trace so far, records no more
    assert lookahead.trace_mode == "off" and lookahead.events == state.events
    lookahead.apply_action(_step(lookahead, rng))
    assert lookahead.events == state.events
    assert state.clone(tracing=False).trace_mode == "lazy"
    sample = SeatView(state, 0).sample_state(rng)  # a determinized copy: no trace, no history
    assert sample.trace_mode == "off" and sample.events == [] and sample.history == []


def test_a_recording_copy_of_a_game_that_hides_nothing(tmp_path):
    # Such a game keeps no knowledge, so a lazy state has none deferred to adopt.
    path = tmp_path / "open.rules"
    path.write_text(FAULTING.replace("points of player = 1 / 0", "pass"))
    game = rulelang.load(path)
    state, rng = game.new_initial_state(2), random.Random(5)
    assert not state.keeps_knowledge
    for _ in range(3000):
        recording = state.clone(tracing=True)
        assert recording.events == state.events and not recording.keeps_knowledge
        if state.is_terminal():
            break
        state.apply_action(_step(state, rng))
    assert state.is_terminal()


def test_a_state_changed_by_hand_has_no_wrong_trace():
    """A replay cannot give what was done by hand: an error says so; an eager copy made before
    the change records it."""
    game = rulelang.load(GAMES / "six-nimmt.rules")
    state, rng = game.new_initial_state(3), random.Random(3)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    hands = [state.zone_index("hand", p) for p in range(3)]
    eager = state.clone(tracing=True)
    for changed in (state, eager):
        changed.move(changed.zones[hands[1]][:1], hands[2], False, -1)
    with pytest.raises(TraceUnavailable, match="clone\\(tracing=True\\)"):
        state.event_lines()
    assert eager.events[-1][1] == "move"
    state.tracing = True  # recording without the trace so far is refused too
    with pytest.raises(TraceUnavailable):
        state.events  # noqa: B018


def test_a_faulted_state_keeps_its_trace_up_to_the_fault(tmp_path):
    path = tmp_path / "fault.rules"
    path.write_text(FAULTING)
    game = rulelang.load(path)
    lazy, eager = _pair(game, 2)
    rng = random.Random(1)
    with pytest.raises(rulelang.RuntimeFault):
        while True:
            action = _step(lazy, rng)
            try:
                eager.apply_action(action)
            finally:
                lazy.apply_action(action)
    assert lazy.fault is not None and lazy.events == eager.events
    assert lazy.event_lines()[-1].startswith("points of player")


def test_simulate_counts_rules_without_the_trace():
    """What `rulelang simulate` reports of triggered rules and labelled options."""
    game = rulelang.load(GAMES / "extrawurm.rules")
    counted, eager = _pair(game, 3)
    counted.count_rules()
    rng = random.Random(11)
    while not counted.is_terminal():
        action = _step(counted, rng)
        counted.apply_action(action)
        eager.apply_action(action)
    by_counts, by_events = Stats(game, 3), Stats(game, 3)
    by_counts.add(counted)
    by_events.add(eager)
    assert by_counts.triggered == by_events.triggered and by_counts.chosen == by_events.chosen
    assert sum(by_counts.chosen.values()) > 0


def test_a_trace_mode_is_lazy_or_eager():
    game = rulelang.load(GAMES / "pickomino.rules")
    with pytest.raises(ValueError, match="lazy or eager"):
        initial_state(game, 2, trace="off")
