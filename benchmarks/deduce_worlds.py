"""Win rates of `deduce` with a chosen `max_worlds`, seat 1 against another bot, with 95% CIs.

    python benchmarks/deduce_worlds.py games/break-the-code.rules --max-worlds 4096 --games 4
    python benchmarks/deduce_worlds.py games/break-the-code.rules --against mc --games 6

`rulelang simulate --bots deduce,...` uses the default (512); this sets it, to see whether a
game's worlds need more. One line per game as it ends, then the totals. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import rulelang
from rulelang.agents import make_agent, play_game


def wilson(wins: float, games: int, z: float = 1.96) -> str:
    """The 95% Wilson interval of a share, as the simulator prints it."""
    p = wins / games
    d = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / d
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / d
    return f"{100 * (centre - half):.1f}% to {100 * (centre + half):.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--max-worlds", type=int, default=512)
    parser.add_argument("--against", default="random")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = rulelang.load(args.rules)
    wins = [0.0] * args.players
    nobody = 0
    for g in range(args.games):
        start = time.perf_counter()
        state = game.new_initial_state(args.players)
        bots = [make_agent("deduce", seed=args.seed + g, max_worlds=args.max_worlds)]
        bots += [make_agent(args.against, seed=args.seed + 1000 * p + g) for p in range(1, args.players)]
        play_game(state, bots, random.Random(args.seed + g))
        wins = [w + r for w, r in zip(wins, state.returns(), strict=True)]
        nobody += not state.winners
        print(f"game {g + 1}: winners {[p + 1 for p in state.winners]}, {state.turn_number} turns, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    print(f"deduce (max_worlds={args.max_worlds}) won {wins[0]:g} of {args.games} ({wilson(wins[0], args.games)}); "
          f"{args.against} {sum(wins[1:]):g} ({wilson(sum(wins[1:]), args.games)}); no winner in {nobody}")


if __name__ == "__main__":
    main()
