"""The per-zone mask of what seats know (``State.zone_knows``) bounds every piece's mask.

A move skips the walk of a zone it leaves when no seat it hides from may know a piece there
(knowledge.moved); that is sound only while each zone's mask holds every bit of its pieces'
masks. Random games of every file in games/ and tests/hidden_games/ check it after each step.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulelang
from rulelang.runtime import CHANCE

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "tests" / "hidden_games").glob("*.rules"))
GAMES, MAX_STEPS = 2, 400


def _unbounded(state) -> list[str]:
    """Zones holding a piece known to a seat that the zone's mask leaves out."""
    bad = []
    for index, pieces in enumerate(state.zones):
        known = 0
        for p in pieces:
            known |= state.knows[p]
        if known & ~state.zone_knows.get(index, 0):
            bad.append(f"{state.zone_name(index)}: pieces known to {known:b}, mask {state.zone_knows.get(index, 0):b}")
    return bad


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_zone_masks_bound_piece_masks(path: Path):
    game = rulelang.load(path)
    rng = random.Random(5)
    players = max(game.min_players, min(3, game.max_players))
    for _ in range(GAMES):
        state = game.new_initial_state(players=players)
        if state.knows is None:
            pytest.skip("a game that hides nothing keeps no knowledge")
        for _ in range(MAX_STEPS):
            assert not _unbounded(state), (state.history, _unbounded(state))
            if state.is_terminal():
                break
            if state.current_player() == CHANCE:
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
