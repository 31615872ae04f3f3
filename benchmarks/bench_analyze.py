"""How fast `rulelang analyze` values a whole turn, against the goal of issue 13 (2 s for an
8-dice Pickomino turn).

    python benchmarks/bench_analyze.py              # Pickomino and Chipo-chipa, first turn
    python benchmarks/bench_analyze.py --merge-less # also with only alike pieces merged (slow)

For each game: the states valued, wall and CPU seconds, and the ratio to the goal. With
``--merge-less`` it values the turn again keying every die's face (no dead faces), and once
more keying states as before bags and live variables (zones in order, every variable), to show
what those merges save; the values must be equal. Seconds are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import rulelang
from rulelang import analysis, turnkey

ROOT = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 2.0


class _FacesKept(turnkey.TurnKeys):
    """Keys that count every die's face (no dead faces, rulelang.faces)."""

    def __init__(self, unordered=frozenset(), leaf_reads=None):
        super().__init__(unordered, None)


class _AlikePiecesOnly(_FacesKept):
    """Keys that merge alike pieces only: every zone in order, every variable and face kept."""

    def _refresh(self, state):
        super()._refresh(state)
        self.unordered = frozenset()
        self.bags = [False] * len(state.zones)
        self.keyed_zones = turnkey.zones_keyer(self.bags)
        self.dead_keyers = {}
        self.plans = {}

    def _live_slots(self, place):
        return None  # every variable


def value_turn(path: Path, keys=None) -> tuple[float, int, float, float]:
    game = rulelang.load(path)
    state = game.new_initial_state(game.min_players)
    saved = analysis.TurnKeys
    if keys is not None:
        analysis.TurnKeys = keys
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        result = analysis.Analysis(state, analysis.gain_objective(game))
        return result.value, result.states, time.perf_counter() - wall, time.process_time() - cpu
    finally:
        analysis.TurnKeys = saved


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--merge-less", action="store_true", help="also value each turn merging alike pieces only")
    parser.add_argument("--games", nargs="+", default=["pickomino", "chipo-chipa"], metavar="NAME")
    args = parser.parse_args(argv)
    print(f"{'game':<14} {'keys':<18} {'value':>8} {'states':>10} {'wall s':>7} {'CPU s':>7} {'wall/goal':>9}")
    for name in args.games:
        path = ROOT / "games" / f"{name}.rules"
        runs = [("all merges", None)] + ([("faces kept", _FacesKept), ("alike pieces only", _AlikePiecesOnly)]
                                         if args.merge_less else [])
        for label, keys in runs:
            value, states, wall, cpu = value_turn(path, keys)
            print(f"{name:<14} {label:<18} {value:>8.4f} {states:>10,} {wall:>7.2f} {cpu:>7.2f} "
                  f"{wall / GOAL_SECONDS:>9.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
