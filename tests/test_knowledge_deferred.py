"""A lazy state keeps no knowledge as it plays, and rebuilds it when asked
(``runtime._DeferredKnowledge``): what it gives must be what a state that kept it all along
holds, at every step, and the state keeps it from then on. Random games of every file in
games/ and tests/hidden_games/, a lazy and an eager state in lockstep.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulelang
from rulelang.runtime import CHANCE, TraceUnavailable

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "tests" / "hidden_games").glob("*.rules"))
MAX_STEPS = 300


def _knowledge(state) -> tuple:
    return state.knows, state.zone_knows, state.seen_counters


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_deferred_knowledge_is_the_kept_knowledge(path: Path):
    game = rulelang.load(path)
    rng = random.Random(11)
    players = max(game.min_players, min(3, game.max_players))
    lazy = game.new_initial_state(players)
    eager = game.new_initial_state(players, trace="eager")
    if eager.knows is None:
        assert lazy.knows is None and not lazy.keeps_knowledge
        pytest.skip("a game that hides nothing keeps no knowledge")
    assert not lazy.keeps_knowledge and "knows" not in vars(lazy)
    asked = None  # a copy of the lazy state asked once, then played on, keeping its own
    for step in range(MAX_STEPS):
        if step % 7 == 3:  # ask a copy: the lazy state itself goes on deferring
            copy = lazy.clone()
            assert _knowledge(copy) == _knowledge(eager), (path.name, step)
            assert copy.keeps_knowledge and not lazy.keeps_knowledge
            if asked is None:
                asked = copy
        if asked is not None:
            assert _knowledge(asked) == _knowledge(eager), (path.name, step)
        if eager.is_terminal():
            break
        if eager.current_player() == CHANCE:
            action = eager.sample_chance(rng)
        else:
            action = rng.choice(eager.legal_actions())
        for state in (lazy, eager) + ((asked,) if asked is not None else ()):
            state.apply_action(action)
    assert _knowledge(lazy) == _knowledge(eager)
    assert lazy.keeps_knowledge


def test_a_lazy_state_changed_by_hand_cannot_tell_what_seats_know():
    game = rulelang.load(ROOT / "games" / "six-nimmt.rules")
    state = game.new_initial_state(3)
    rng = random.Random(3)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    hands = [state.zone_index("hand", p) for p in range(3)]
    state.move(state.zones[hands[1]][:1], hands[2], False, -1)
    with pytest.raises(TraceUnavailable, match="what each seat knows"):
        _knowledge(state)
