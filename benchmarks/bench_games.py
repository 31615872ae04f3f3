"""Random-bot games per second for every games/*.rules file and for the hand-written Pickomino.

One run measures everything. Every engine is driven by the same loop (``play_games``), and the
engines of one game are interleaved: round after round each plays the same N games (same seed
every round), the order of the engines alternating, and the best round of each engine counts.
So a burst of machine load hits both engines alike, and the compiled/hand-written ratio of
Pickomino is measured on equal terms. Timings are printed, never asserted.

    python benchmarks/bench_games.py            # about a second per round, 5 rounds
    python benchmarks/bench_games.py --quick    # CI smoke test: a few seconds in all
    python benchmarks/bench_games.py --games 200 --players 4

See benchmarks/README.md for what the numbers mean.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import platform
import random
import sys
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import rulelang

ROOT = Path(__file__).resolve().parent.parent
GAMES_DIR = ROOT / "games"
HANDWRITTEN_PATH = ROOT / "benchmarks" / "handwritten_pickomino.py"
GOAL_RATIO = 1.0  # the project goal for compiled / lean hand-written speed: parity
CHANCE = rulelang.CHANCE


def load_handwritten() -> Any:
    """benchmarks/handwritten_pickomino.py, imported by path (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("handwritten_pickomino", HANDWRITTEN_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.CHANCE != CHANCE:  # the one driver loop below compares with rulelang's CHANCE
        raise SystemExit(f"{HANDWRITTEN_PATH.name}: CHANCE is {module.CHANCE}, rulelang's is {CHANCE}")
    return module


# ---------------------------------------------------------------------- the one driver loop


def play_games(new_state, games: int, rng: random.Random) -> None:
    """The driver every engine is timed with: random decisions, chance sampled by the state."""
    for _ in range(games):
        play_one(new_state, rng)


def play_one(new_state, rng: random.Random):
    """One game with random decisions and chance sampled by the state; the final state."""
    state = new_state()
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def handwritten_turns(new_state, rng: random.Random) -> tuple[int, str]:
    """Turns of one hand-written game (it keeps no turn counter): every turn starts with a
    roll of all eight dice, and only then. Same loop and same random draws as play_games."""
    state = new_state()
    turns = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            turns += state.kept_dice == 0
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return turns, "grill empty"


def compiled_turns(new_state, rng: random.Random) -> tuple[int, str]:
    state = play_one(new_state, rng)
    return state.turn_number, state.game.rules[state.end_rule].name if state.end_rule >= 0 else "?"


def lockstep(game, handwritten, players: int, games: int, seed: int) -> str:
    """Do both Pickominos implement the same rules? Plays ``games`` random games on both at once:
    the compiled engine rolls, the hand-written one is given the same dice; at every decision
    both must offer the same number of options (their orders match: symbols by face, stop before
    roll, grill tile before stolen tile before the lower tile) and the same index is played; at
    the end both must agree on the winners. Returns "" or the first disagreement."""
    rng = random.Random(seed)
    for number in range(games):
        a, b = game.new_initial_state(players=players), handwritten.PickominoState(players)
        step = 0
        while not (a.is_terminal() or b.is_terminal()):
            where = f"game {number + 1}, step {step}"
            if a.current_player() != b.current_player():
                return f"{where}: player to move {a.current_player()} vs {b.current_player()}"
            if a.current_player() == CHANCE:
                outcome = a.sample_chance(rng)
                faces = a.action_to_json(outcome)["roll"]
                a.apply_action(outcome)
                b.apply_action(tuple(sorted(faces, key=handwritten.FACE_ORDER.__getitem__)))
            else:
                options, expected = a.legal_actions(), b.legal_actions()
                if len(options) != len(expected):
                    shown = [a.action_to_string(x) for x in options]
                    return f"{where}: compiled offers {shown}, hand-written {expected}"
                index = rng.randrange(len(options))
                a.apply_action(options[index])
                b.apply_action(expected[index])
            step += 1
        if a.is_terminal() != b.is_terminal() or a.returns() != b.returns():
            return (f"game {number + 1}: at the end, terminal {a.is_terminal()} vs {b.is_terminal()}, "
                    f"returns {a.returns()} vs {b.returns()}")
    return ""


# ---------------------------------------------------------------------- what is measured


@dataclass
class Engine:
    label: str                       # "compiled" or "hand-written"
    new_state: Any                   # () -> a fresh state
    turns_of: Any                    # (new_state, rng) -> (turns, how it ended, returns)
    times: list[float] = field(default_factory=list)      # wall-clock seconds of each round
    cpu_times: list[float] = field(default_factory=list)  # this process's CPU seconds of each
    turns: float = 0.0
    ended_by: str = ""
    error: str = ""
    games: int = 0

    @property
    def rate(self) -> float:
        return self.games / min(self.times) if self.times else 0.0

    @property
    def cpu_rate(self) -> float:
        """Games per CPU second: what other processes on a busy machine disturb least."""
        return self.games / min(self.cpu_times) if self.cpu_times else 0.0


@dataclass
class Case:
    game: str
    players: int
    engines: list[Engine]
    games: int = 0


def calibrate(engine: Engine, seconds: float) -> float:
    """Games per second, roughly, from games played for about ``seconds`` (also a warm-up)."""
    rng = random.Random(12345)
    played, start = 0, time.perf_counter()
    while True:
        play_games(engine.new_state, 1, rng)
        played += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds or played >= 1000:
            return played / elapsed


def run_case(case: Case, games: int | None, rounds: int, round_seconds: float, seed: int) -> None:
    live = [e for e in case.engines if not e.error]
    if games is None:
        rates = []
        for engine in live:
            try:
                rates.append(calibrate(engine, round_seconds / 5))
            except rulelang.RuntimeFault as fault:
                engine.error = str(fault)
        live = [e for e in live if not e.error]
        games = max(1, round(round_seconds * min(rates))) if rates else 1
    case.games = games
    for r in range(rounds):
        order = live if r % 2 == 0 else live[::-1]  # A B, B A, ...: no engine always goes first
        for engine in order:
            if engine.error:
                continue
            gc.collect()
            rng = random.Random(seed)  # the same games every round
            start, cpu_start = time.perf_counter(), time.process_time()
            try:
                play_games(engine.new_state, games, rng)
            except rulelang.RuntimeFault as fault:
                engine.error = str(fault)
                continue
            engine.times.append(time.perf_counter() - start)
            engine.cpu_times.append(time.process_time() - cpu_start)
    for engine in live:
        engine.games = games
        if engine.error:
            continue
        rng = random.Random(seed)  # replays exactly the timed games, untimed
        results = [engine.turns_of(engine.new_state, rng) for _ in range(games)]
        engine.turns = sum(t for t, _ in results) / games
        endings = Counter(how for _, how in results)
        engine.ended_by = ", ".join(f"{how} {100 * k // games}%" for how, k in endings.most_common())


def state_memory(new_state, seed: int) -> tuple[int, int, int]:
    """(bytes held by a fresh state, peak bytes while that state plays one random game, bytes
    the finished state holds: the issue's measure; the generator is let go first)."""
    gc.collect()
    tracemalloc.start()
    try:
        state = new_state()
        fresh = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        peak = tracemalloc.get_traced_memory()[1]
        del rng
        gc.collect()
        finished = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return fresh, peak, finished


# ---------------------------------------------------------------------- the run


def build_cases(players: list[int], handwritten) -> tuple[list[Case], list[str]]:
    cases, problems = [], []
    for path in sorted(GAMES_DIR.glob("*.rules")):
        name = path.relative_to(ROOT).as_posix()
        try:
            game = rulelang.load(path)
        except rulelang.RulesError as error:
            problems.append(f"{name}: does not load:\n  " + str(error).replace("\n", "\n  "))
            continue
        for n in players:
            if not game.min_players <= n <= game.max_players:
                continue
            engines = [Engine("compiled", partial(game.new_initial_state, players=n), compiled_turns)]
            if path.name == "pickomino.rules":
                engines.append(Engine("hand-written", partial(handwritten.PickominoState, n),
                                      handwritten_turns))
            cases.append(Case(name, n, engines))
    return cases, problems


def print_table(cases: list[Case]) -> None:
    header = ("game", "players", "engine", "games/round", "games/s", "turns/game", "ended by", "compiled/hand")
    rows = []
    for case in cases:
        rates = {e.label: e.rate for e in case.engines}
        for engine in case.engines:
            ratio = ""
            if engine.label == "compiled" and rates.get("hand-written") and rates["compiled"]:
                ratio = f"{rates['compiled'] / rates['hand-written']:.2f}"
            if engine.error:
                rows.append((case.game, str(case.players), engine.label, "", "FAULT", "", engine.error, ""))
                continue
            rows.append((case.game, str(case.players), engine.label, str(case.games),
                         f"{engine.rate:,.1f}", f"{engine.turns:.1f}", engine.ended_by, ratio))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    right = {1, 3, 4, 5, 7}

    def line(row):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()

    print(line(header))
    print(line(tuple("-" * w for w in widths)))
    for row in rows:
        print(line(row))


MEMORY_GAMES = 20  # games (seeds) each memory figure is the mean of: one game's length varies


def print_memory(players: int, game, handwritten, seed: int) -> None:
    seeds = range(seed, seed + MEMORY_GAMES)
    compiled = [state_memory(partial(game.new_initial_state, players=players), s) for s in seeds]
    plain = [state_memory(partial(handwritten.PickominoState, players), s) for s in seeds]
    print(f"\nMemory of one Pickomino state, {players} players (tracemalloc, mean of {MEMORY_GAMES} games; "
          "the GameDef is loaded beforehand and shared, not counted):")
    print(f"  {'':30}{'compiled':>12}{'hand-written':>14}{'ratio':>8}")
    for i, label in enumerate(("fresh state", "peak over one random game", "finished state")):
        c = sum(row[i] for row in compiled) / MEMORY_GAMES
        h = sum(row[i] for row in plain) / MEMORY_GAMES
        print(f"  {label:30}{c / 1024:>10.2f}KB{h / 1024:>12.2f}KB{c / h:>8.2f}")


def simulate_against_loop(cases: list[Case], rounds: int, seed: int) -> None:
    """`rulelang simulate`'s way of playing (seeded per step, so that a seed replays its game in
    `rulelang run`) against the benchmark loop, interleaved; best round of each. The two play
    different games (their random numbers differ), and games differ in length, so the measure
    is actions (decisions and chance outcomes) per second."""
    from rulelang import simulate

    print("\nrulelang simulate against the benchmark loop (random bots, actions/s, wall; CPU in brackets):")
    seen = set()
    for case in cases:
        if case.game in seen or case.engines[0].error or not case.engines[0].rate:
            continue
        seen.add(case.game)
        game = rulelang.load(ROOT / case.game)
        games = max(1, case.games // 2)
        walls, cpus = {"loop": [], "simulate": []}, {"loop": [], "simulate": []}
        actions = {"loop": 0, "simulate": 0}
        for r in range(rounds):
            for way in (("loop", "simulate") if r % 2 == 0 else ("simulate", "loop")):
                gc.collect()
                start, cpu_start = time.perf_counter(), time.process_time()
                if way == "loop":
                    rng, new_state = random.Random(seed), partial(game.new_initial_state, players=case.players)
                    played = sum(len(play_one(new_state, rng).history) for _ in range(games))
                else:
                    played = sum(len(simulate.play_bots(game, ["random"] * case.players, seed + i, False).history)
                                 for i in range(games))
                walls[way].append(time.perf_counter() - start)
                cpus[way].append(time.process_time() - cpu_start)
                actions[way] = played
        loop, sim = actions["loop"] / min(walls["loop"]), actions["simulate"] / min(walls["simulate"])
        print(f"  {case.game}, {case.players} players: loop {loop:,.0f} ({actions['loop'] / min(cpus['loop']):,.0f}), "
              f"simulate {sim:,.0f} ({actions['simulate'] / min(cpus['simulate']):,.0f}): {sim / loop:.2f} of the loop "
              f"({actions['simulate'] / min(cpus['simulate']) / (actions['loop'] / min(cpus['loop'])):.2f} in CPU time)")


def parse_players(text: str) -> list[int]:
    try:
        players = sorted({int(p) for p in text.replace(" ", "").split(",") if p})
    except ValueError:
        raise argparse.ArgumentTypeError(f"player counts like 2,3,4, not {text!r}") from None
    if not players or min(players) < 1:
        raise argparse.ArgumentTypeError("at least one player count, each at least 1")
    return players


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, metavar="N",
                        help="games per round for every game and engine (default: as many as fit in "
                             "--seconds for the slower engine of each game)")
    parser.add_argument("--players", type=parse_players, default=[2, 3, 4], metavar="2,3,4",
                        help="player counts to measure, where the game allows them (default 2,3,4)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per engine; the best counts (default 5)")
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="target length of a round when --games is not given (default 1.0)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games of every round (default 1)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: 3 short rounds (a few seconds in all)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds = min(args.rounds, 3)
        args.seconds = min(args.seconds, 0.05)
        if args.games is not None:
            args.games = min(args.games, 5)
    if args.games is not None and args.games < 1:
        parser.error("--games must be at least 1")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    handwritten = load_handwritten()
    cases, problems = build_cases(args.players, handwritten)
    per_round = f"{args.games} games" if args.games else f"~{args.seconds:g}s of games"
    print(f"rulelang {rulelang.__version__}, Python {platform.python_version()} "
          f"({platform.python_implementation()}), {platform.machine()}")
    print(f"random bots, best of {args.rounds} interleaved rounds of {per_round} per engine, seed {args.seed}\n")
    started = time.perf_counter()
    for case in cases:
        run_case(case, args.games, args.rounds, args.seconds, args.seed)
    print_table(cases)

    pickomino = [c for c in cases if c.game.endswith("pickomino.rules")]
    if pickomino:
        print()
    for case in pickomino:
        compiled, plain = case.engines
        if compiled.rate and plain.rate:
            ratio = compiled.rate / plain.rate
            verdict = "meets" if ratio >= GOAL_RATIO else "below"
            cpu_ratio = compiled.cpu_rate / plain.cpu_rate if plain.cpu_rate else 0.0
            print(f"Pickomino, {case.players} players: compiled/hand-written = {ratio:.2f} "
                  f"({verdict} the goal of {GOAL_RATIO}; 1.00 is parity), {cpu_ratio:.2f} "
                  f"in CPU time")
    if pickomino:
        game = rulelang.load(GAMES_DIR / "pickomino.rules")
        checked, disagree = 10 if args.quick else 100, []
        for case in pickomino:
            disagreement = lockstep(game, handwritten, case.players, checked, args.seed)
            if disagreement:
                disagree.append(f"Pickomino, {case.players} players: the engines play different "
                                f"rules: {disagreement}")
        print(f"Same rules? {checked} games per player count played on both engines in lockstep "
              f"(same dice, same choices): {'NO, see the errors below' if disagree else 'yes'}")
        problems += disagree
        players = max(c.players for c in pickomino)
        print_memory(players, game, handwritten, args.seed)

    simulate_against_loop(cases, args.rounds, args.seed)

    print(f"\n{time.perf_counter() - started:.1f}s in all")
    faults = [f"{c.game}, {c.players} players, {e.label}: {e.error}"
              for c in cases for e in c.engines if e.error]
    for problem in problems + faults:
        print("error:", problem, file=sys.stderr)
    return 1 if problems or faults else 0


if __name__ == "__main__":
    sys.exit(main())
