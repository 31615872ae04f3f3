"""Games per second of two checkouts of rulelang, interleaved: the speed-up of an engine change.

bench_games.py compares engines inside one checkout; this compares the same games on two
checkouts (for example main, exported with ``git archive main | tar -x -C /tmp/base``, and a
working tree). Each measurement runs in a fresh process with PYTHONPATH set to its checkout,
the two checkouts alternating (A B, B A, ...); inside a process the same games (same seed) are
played ``--rounds`` times and the best CPU time counts. On a shared machine compare the ratio,
and run it more than once.

    python benchmarks/compare_checkouts.py /tmp/base . --players 3
    python benchmarks/compare_checkouts.py /tmp/base . --players 2,3,4 --repeats 3

A player count that a game does not allow is left out of its rows.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
from pathlib import Path

GAMES_PER_ROUND = {"break-the-code": 100, "chipo-chipa": 1, "extrawurm": 20, "gang-of-dice": 20,
                   "pickomino-spanish": 50, "pickomino": 50, "six-nimmt-logic": 5, "six-nimmt-professional": 5,
                   "six-nimmt-tactics": 5, "six-nimmt": 6}

ONE = """
import gc, random, sys, time
# an editable install would map the checkout's data (rulelang.grammar) to the installed one
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
import rulelang
path, players, games, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
game = rulelang.load(path)
if not game.min_players <= players <= game.max_players:
    print("nan")  # a player count the game does not allow
    raise SystemExit
best = 0.0
for _ in range(rounds):
    rng = random.Random(1)
    gc.collect()
    start = time.process_time()
    for _ in range(games):
        state = game.new_initial_state(players=players)
        while not state.is_terminal():
            if state.current_player() == rulelang.CHANCE:
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    best = max(best, games / max(time.process_time() - start, 1e-9))
print(best)
"""


def games_per_second(root: Path, name: str, players: int, games: int, rounds: int) -> float:
    """Best games/s (CPU time) of one fresh process running ``root``'s rulelang."""
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, "-c", ONE, f"games/{name}.rules", str(players), str(games), str(rounds)],
                         cwd=root, env=env, capture_output=True, text=True, check=True).stdout
    return float(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the checkout to compare against")
    parser.add_argument("after", type=Path, help="the checkout with the change")
    parser.add_argument("--players", default="3", help="player counts, comma-separated (default 3)")
    parser.add_argument("--repeats", type=int, default=2, help="processes per checkout and game (default 2)")
    parser.add_argument("--rounds", type=int, default=15, help="rounds per process; the best counts (default 15)")
    parser.add_argument("--games", default=",".join(GAMES_PER_ROUND), help="comma-separated game names")
    args = parser.parse_args()
    roots = {"before": args.before.resolve(), "after": args.after.resolve()}
    print(f"{'game':<24} {'players':>7} {'before':>9} {'after':>9} {'after/before':>12}", flush=True)
    for name in args.games.split(","):
        games = GAMES_PER_ROUND.get(name, 10)
        for players in map(int, args.players.split(",")):
            runs: dict[str, list[float]] = {label: [] for label in roots}
            for repeat in range(args.repeats):
                for label in ("before", "after") if repeat % 2 == 0 else ("after", "before"):
                    runs[label].append(games_per_second(roots[label], name, players, games, args.rounds))
            if math.isnan(runs["before"][0]) or math.isnan(runs["after"][0]):  # a count not allowed
                continue
            best = {label: max(values) for label, values in runs.items()}
            print(f"{name:<24} {players:>7} {best['before']:>9.1f} {best['after']:>9.1f} "
                  f"{best['after'] / best['before']:>12.2f}", flush=True)


if __name__ == "__main__":
    main()
