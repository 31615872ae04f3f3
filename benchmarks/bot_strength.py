"""How strong the bots are: for every game in games/, a bot's win share against a field.

    python benchmarks/bot_strength.py                        # the default pairs, 6 games each
    python benchmarks/bot_strength.py --games 40 --jobs 4
    python benchmarks/bot_strength.py --bots ismcts:iterations=400/mc mc/random --games-per-game six-nimmt=6

One seat plays the bot, every other seat the field's bot; game i moves the seats on by i
(``--rotate``), so the bot plays each seat equally often. Games are seeded as
``rulelang simulate`` seeds them (game i: seed + i) and played by the batch machinery
(``--jobs`` processes): the numbers are the same for any ``--jobs``. The win share counts a
shared win fractionally; with n players the fair share is 1/n; ``nobody`` is the share of
games nobody won (then no seat gets its fair share). The interval is the 95% Wilson interval
of ``rulelang simulate``. Seconds are wall time, printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import rulelang
from rulelang import batch
from rulelang.agents import AGENTS, check_bot
from rulelang.limits import DEFAULT
from rulelang.simulate import win_share

ROOT = Path(__file__).resolve().parent.parent
PER_GAME = {"chipo-chipa": 2}  # its games last over a thousand decisions: fewer by default


def default_pairs() -> list[str]:
    """The bot against its field: ismcts and solver (where this checkout has it) against mc,
    and mc against random."""
    return [f"{bot}/mc" for bot in ("ismcts", "solver") if bot in AGENTS] + ["mc/random"]


def measure(path: Path, players: int, bot: str, field: str, games: int, jobs: int, seed: int) -> dict:
    """The bot's win share against ``field`` in ``games`` games of ``path``, seats rotated."""
    game = rulelang.load(path)
    job = batch.Job(str(path), (), DEFAULT, tuple([bot] + [field] * (players - 1)), seed, rotate=True)
    started = time.perf_counter()
    result = batch.run(job, game, games, jobs=jobs, max_faults=games + 1)
    seconds = time.perf_counter() - started
    done = [r for r in result.results if r.fault is None]
    shares = [sum(share for share, who in zip(r.returns(players), r.bots) if who == bot) for r in done]
    share, (low, high) = win_share(shares)
    return {"games": len(shares), "faults": len(result.results) - len(shares), "share": share,
            "low": low, "high": high, "seconds": seconds,
            "nobody": sum(not r.winners for r in done) / len(done) if done else 0.0}


def _per_game(items: list[str]) -> dict[str, int]:
    counts = {}
    for item in items:
        name, sep, count = item.partition("=")
        if not sep or not count.strip().isdigit():
            raise SystemExit(f"bot_strength: `{item}` is not NAME=N")
        counts[name.strip().removesuffix(".rules")] = int(count)
    return counts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", nargs="+", default=None, metavar="BOT/FIELD",
                        help=f"pairs of bot specs (default: {' '.join(default_pairs())})")
    parser.add_argument("--games", type=int, default=6, help="games per game file and pair (default 6)")
    parser.add_argument("--games-per-game", nargs="+", default=[], metavar="NAME=N",
                        help="games for one file, by its name without .rules (default chipo-chipa=2)")
    parser.add_argument("--players", type=int, default=2, help="players, or the nearest the game allows (default 2)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", nargs="+", default=None, metavar="NAME", help="only these game files")
    args = parser.parse_args(argv)
    pairs = []
    for text in args.bots or default_pairs():
        bot, sep, field = text.partition("/")
        for spec in (bot, field):
            problem = check_bot(spec) if sep else f"`{text}` is not BOT/FIELD"
            if problem:
                raise SystemExit(f"bot_strength: {problem}")
        if bot == field:
            raise SystemExit(f"bot_strength: `{text}`: a bot against itself has nothing to measure")
        pairs.append((bot, field))
    counts = {**PER_GAME, **_per_game(args.games_per_game)}
    paths = sorted((ROOT / "games").glob("*.rules"))
    if args.only:
        paths = [p for p in paths if p.stem in {n.removesuffix(".rules") for n in args.only}]
    print(f"win share of BOT against FIELD, seats rotated, seed {args.seed}, jobs {args.jobs}\n")
    header = f"{'game':<24} {'pl':>2} {'bot':<20} {'field':<8} {'games':>5} {'share':>6} {'95% CI':>13} {'fair':>5} {'nobody':>6} {'s':>6}"
    print(header)
    print("-" * len(header))
    for path in paths:
        game = rulelang.load(path)
        players = min(max(args.players, game.min_players), game.max_players)
        games = counts.get(path.stem, args.games)
        for bot, field in pairs:
            m = measure(path, players, bot, field, games, args.jobs, args.seed)
            faults = f"  ({m['faults']} faulted)" if m["faults"] else ""
            print(f"{path.stem:<24} {players:>2} {bot:<20} {field:<8} {m['games']:>5} {m['share']:>6.2f} "
                  f"{m['low']:>6.2f}-{m['high']:<6.2f} {1 / players:>5.2f} {m['nobody']:>6.2f} {m['seconds']:>6.0f}{faults}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
