"""Seconds per decision of the bots: seat 1 is the bot measured, the other seats play at random.

    python benchmarks/bench_bots.py                 # mc, 2 games of each game below
    python benchmarks/bench_bots.py --games 5 --bot random

Each call of the bot's ``choose`` is timed (building the seat's view included); the table gives
the mean and the max per game. Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

import rulelang
from rulelang import agents

ROOT = Path(__file__).resolve().parent.parent
CASES = [("pickomino.rules", 3), ("six-nimmt.rules", 3), ("chipo-chipa.rules", 2)]


def decide(bot, state):
    """The bot's choice through whatever API this checkout has (a seat's view, or the state)."""
    view = getattr(agents, "seat_view", None)
    return bot.choose(view(state) if view else state)


def time_game(game, players: int, bot_name: str, seed: int) -> list[float]:
    """The seconds of each decision of seat 1's bot in one game."""
    state = game.new_initial_state(players)
    bots = [agents.make_agent(bot_name if seat == 0 else "random", seed + seat) for seat in range(players)]
    dice = random.Random(seed)
    times = []
    while not state.is_terminal():
        player = state.current_player()
        if player == rulelang.CHANCE:
            state.apply_action(state.sample_chance(dice))
            continue
        started = time.perf_counter()
        action = decide(bots[player], state)
        if player == 0:
            times.append(time.perf_counter() - started)
        state.apply_action(action)
    return times


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="mc")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"bot {args.bot} in seat 1, {args.games} game(s) each, seed {args.seed}\n")
    print(f"{'game':<24} {'players':>7} {'decisions':>9} {'mean s':>9} {'max s':>9}")
    for name, players in CASES:
        game = rulelang.load(ROOT / "games" / name)
        times = []
        for i in range(args.games):
            times += time_game(game, players, args.bot, args.seed + 1000 * i)
        mean = statistics.fmean(times) if times else 0.0
        print(f"{name:<24} {players:>7} {len(times):>9} {mean:>9.4f} {max(times, default=0.0):>9.4f}")


if __name__ == "__main__":
    main()
