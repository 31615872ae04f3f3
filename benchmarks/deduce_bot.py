"""The deduction bot measured: its win share against another bot, the questions asked until
the first right guess, and its seconds per decision, with 95% CIs. Nothing is asserted.

    python benchmarks/deduce_bot.py games/break-the-code.rules --players 2 --against random --games 60
    python benchmarks/deduce_bot.py games/break-the-code.rules --players 3 --against deduce --games 20
    python benchmarks/deduce_bot.py games/break-the-code.rules --bot deduce:max_worlds=512 --games 4

Seat 1 is `--bot`, the other seats `--against` (a bot spec, NAME:OPTION=VALUE...). Games are
seeded as `rulelang simulate --seed` seeds them, with one bot per seat kept through the game.
The questions are the game's `tally questions_asked` (0 when it has none), counted in games
where someone guessed right (`tally right_guesses`, or a winner). One line per game as it ends,
then the totals.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import rulelang
from rulelang import gamelog
from rulelang.runtime import CHANCE


def wilson(wins: float, games: int, z: float = 1.96) -> str:
    """The 95% Wilson interval of a share, as the simulator prints it."""
    p = wins / games
    d = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / d
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / d
    return f"{100 * (centre - half):.1f}% to {100 * (centre + half):.1f}%"


def mean_ci(values: list[float]) -> str:
    if not values:
        return "none"
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:.2f}"
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:.2f} (95% CI {mean - half:.2f} to {mean + half:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--bot", default="deduce")
    parser.add_argument("--against", default="random")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = rulelang.load(args.rules)
    bots = [args.bot] + [args.against] * (args.players - 1)
    wins, nobody, questions, seconds, first_seconds = 0.0, 0, [], [], []
    for g in range(args.games):
        seed = args.seed + g
        state, agents, asked_first = game.new_initial_state(args.players), {}, True
        started = time.perf_counter()
        while not state.is_terminal():
            mover = state.current_player()
            clock = time.perf_counter()
            action = gamelog.seeded_action(state, seed, None if mover == CHANCE else bots[mover], agents)
            if mover == 0 and len(state.legal_actions()) > 1:
                (first_seconds if asked_first else seconds).append(time.perf_counter() - clock)
                asked_first = False
            state.apply_action(action)
        wins += state.returns()[0]
        nobody += not state.winners
        tallies = {name: count for (name, _), count in state.tallies.items()}
        if tallies.get("right_guesses", 0) or state.winners:
            questions.append(tallies.get("questions_asked", 0))
        print(f"game {g + 1} (seed {seed}): winners {[p + 1 for p in state.winners]}, "
              f"{tallies.get('questions_asked', 0)} questions, {state.turn_number} turns, "
              f"{time.perf_counter() - started:.0f} s", flush=True)
    print(f"{args.bot} won {wins:g} of {args.games} ({wilson(wins, args.games)}); "
          f"{args.against} {args.games - wins - nobody:g}; no winner in {nobody}")
    print(f"questions until the first right guess: {mean_ci(questions)} in {len(questions)} games with one")
    print(f"seconds per decision of seat 1: first of a game {mean_ci(first_seconds)}, "
          f"later {mean_ci(seconds)}, max {max(seconds, default=0):.2f}")


if __name__ == "__main__":
    main()
