"""Batches of seeded bot games and their statistics: win shares, scores, turns, endings, faults."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable

import attrs

from . import gamelog, seeding, tui
from .diagnostics import Diagnostic, RuntimeFault
from .model import GameDef
from .runtime import State
from .source import printable


def play_bots(game: GameDef, bots: list[str], seed: int, check: bool,
              watch: Callable[[State], None] | None = None) -> State:
    """One seeded bot game, the same game ``rulelang run --seed`` plays with these seats.
    ``watch`` sees the state after every step (it must not change it)."""
    state = game.new_initial_state(len(bots))
    state.count_rules()  # what `Stats` reads, without the trace
    if check and (broken := state.check_invariants()):
        raise tui.invariant_fault(state, broken, tui.SET_UP, 0)
    if not check and all(bot == "random" for bot in bots):
        return seeding.random_playout(state, seed, watch)
    agents: dict = {}
    while not state.is_terminal():
        mover = state.current_player()
        action = gamelog.seeded_action(state, seed, bots[mover] if mover >= 0 else None, agents)
        text = state.action_to_string(action) if check else ""
        turn = state.turn_number
        state.apply_action(action)
        if watch is not None:
            watch(state)
        if check and (broken := state.check_invariants()):
            raise tui.invariant_fault(state, broken, text, turn)
    return state


@attrs.frozen
class Simulation:
    """A finished (or interrupted) batch: the totals, the faults by seed, and the wall time."""

    stats: Stats
    bots: list[str]
    seed: int  # of the first game; game i uses seed + i
    faults: list[tuple[int, Diagnostic]]
    seconds: float
    interrupted: bool  # Ctrl-C stopped it: the totals cover the games played so far
    stopped: bool = False  # too many games faulted: the rest were not played

    def report(self, path: str, options: dict) -> dict:
        """The report as plain data (what ``--format json`` prints)."""
        report = self.stats.report(self.bots, self.seed, self.seconds, self.faults, path, options)
        report["stopped_after_faults"] = len(self.faults) if self.stopped else None
        return report


def play_games(game: GameDef, bots: list[str], seed: int, games: int, check: bool,
               progress: Callable[[int], None] | None = None, max_faults: int = 5) -> Simulation:
    """Play ``games`` bot games, game i with seed ``seed + i``; a runtime fault ends only its own
    game (and is kept with its seed). When ``max_faults`` games have faulted and they are most of
    the games played, the batch stops: the rules fault in every game. Ctrl-C ends it early too.
    ``progress`` is told how many games are done."""
    stats = Stats(game, len(bots))
    faults: list[tuple[int, Diagnostic]] = []
    interrupted = stopped = False
    started = time.perf_counter()
    try:
        for i in range(games):
            try:
                stats.add(play_bots(game, bots, seed + i, check))
            except RuntimeFault as fault:
                faults.append((seed + i, fault.diagnostic))
                stopped = len(faults) >= max_faults and 2 * len(faults) > i + 1 and i + 1 < games
            if progress is not None:
                progress(i + 1)
            if stopped:
                break
    except KeyboardInterrupt:
        interrupted = True
    return Simulation(stats, bots, seed, faults, time.perf_counter() - started, interrupted, stopped)


class Stats:
    """Running totals over finished games."""

    def __init__(self, game: GameDef, players: int):
        self.game = game
        self.players = players
        self.returns: list[list[float]] = [[] for _ in range(players)]
        self.turns: list[int] = []
        self.rounds: list[int] = []
        self.score_sums: list[list[int | float]] = [[0] * len(game.criteria) for _ in range(players)]
        self.score_counts = [[0] * len(game.criteria) for _ in range(players)]
        self.endings: Counter[str] = Counter()
        # How the rules played out: times each triggered rule was set off, and each labelled
        # option (a `choose:` branch, a `may` and its decline) was chosen, over all games,
        # and in how many games at least once.
        self.triggered: Counter[str] = Counter()
        self.triggered_games: Counter[str] = Counter()
        self.chosen: Counter[tuple[str, str]] = Counter()
        self.tallies: Counter[tuple[str, object]] = Counter()  # `tally NAME by KEY`, over all games

    def _side(self, seat: int) -> int:
        """Who wins with ``seat``: its team in a game of teams, else the seat itself."""
        game = self.game
        return seat if game is None or game.team_size == 1 else game.team_of(seat, self.players)

    def add(self, state: State) -> None:
        self.turns.append(state.turn_number)
        self.rounds.append(state.round_number)
        for p, share in enumerate(state.returns()):
            self.returns[p].append(share)
        for p, row in enumerate(state.scores()):
            for k, value in enumerate(row):
                if isinstance(value, int | float) and not isinstance(value, bool):
                    self.score_sums[p][k] += value
                    self.score_counts[p][k] += 1
        rule = self.game.rules[state.end_rule].name if state.end_rule >= 0 else "(no rule)"
        self.endings[rule] += 1
        fired: Counter[str] = Counter()
        rules = self.game.rules
        if state.rule_counts is not None:  # counted as it played (``play_bots``)
            for (rule_index, *option), times in state.rule_counts.items():
                if not option:
                    fired[rules[rule_index].name] += times
                elif rule_index >= 0:
                    self.chosen[(rules[rule_index].name, _option_text((None, *option)))] += times
        else:
            for rule_index, kind, payload in state.events:
                if kind == "trigger":
                    fired[rules[rule_index].name] += 1
                elif kind == "choose" and len(payload) > 4 and payload[4] is True and rule_index >= 0:
                    self.chosen[(rules[rule_index].name, _option_text(payload))] += 1
        self.triggered.update(fired)
        self.tallies.update(state.tallies)
        self.triggered_games.update(fired.keys())

    def report(self, bots: list[str], seed: int, elapsed: float, faults: list, path: str,
               options: dict) -> dict:
        n = len(self.turns)
        criteria = [self.game.rules[c.rule].name for c in self.game.criteria]
        seats = []
        for p in range(self.players):
            wins = sum(self.returns[p])
            share, (low, high) = win_share(self.returns[p])
            averages = {name: (_average(self.score_sums[p][k], self.score_counts[p][k])
                               if self.score_counts[p][k] else None)
                        for k, name in enumerate(criteria)}
            seats.append({"seat": p + 1, "bot": bots[p], "wins": wins, "share": share,
                          "ci95": [low, high], "scores": averages})
        teams = []
        if self.game is not None and self.game.team_size > 1:
            for t in range(self.players // self.game.team_size):
                members = self.game.team(t, self.players)
                share, (low, high) = win_share([sum(games) for games in zip(*(self.returns[p] for p in members))])
                teams.append({"team": t + 1, "seats": [p + 1 for p in members], "share": share, "ci95": [low, high]})
        return {
            "game": self.game.name, "rules": path, "options": options, "players": self.players, "teams": teams,
            "seed": seed, "games": n + len(faults), "finished": n,
            "average_turns": sum(self.turns) / n if n else None,
            "min_turns": min(self.turns, default=None), "max_turns": max(self.turns, default=None),
            "average_rounds": sum(self.rounds) / n if n else None,
            "criteria": criteria, "seats": seats,
            # games won by more than one player, or in a game of teams, by more than one team
            "shared_wins": sum(1 for game in zip(*self.returns) if len({self._side(p) for p, r in enumerate(game)
                                                                        if r > 0}) > 1),
            "endings": {rule: count / n for rule, count in self.endings.most_common()} if n else {},
            "triggered": {rule: {"per_game": count / n, "games": self.triggered_games[rule] / n}
                          for rule, count in self.triggered.most_common()} if n else {},
            "choices": _choices_report(self.chosen, n),
            "tallies": _tallies_report(self.tallies, n),
            "faults": [{"seed": s, "code": d.code, "message": d.message,
                        "where": d.span.where() if d.span else None} for s, d in faults],
            "seconds": elapsed, "games_per_second": (n + len(faults)) / elapsed if elapsed else None,
        }


def _average(total: int | float, count: int) -> int | float:
    """The mean of scores summed exactly; one too large for a float stays a whole number."""
    try:
        return total / count
    except OverflowError:
        return total // count


def _number_text(value: int | float) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def win_share(returns: list[float]) -> tuple[float, tuple[float, float]]:
    """Mean win share and its 95% confidence interval: the Wilson score interval, which stays
    meaningful when a seat wins every game or none (the normal approximation shrinks to a point
    there). Shared wins count fractionally; p(1-p) bounds their variance, so the interval is
    at worst a little wide."""
    n = len(returns)
    if n == 0:
        return 0.0, (0.0, 1.0)
    mean = sum(returns) / n
    z2 = 1.96 ** 2
    centre = (mean + z2 / (2 * n)) / (1 + z2 / n)
    half = 1.96 * math.sqrt(mean * (1 - mean) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return mean, (max(0.0, centre - half), min(1.0, centre + half))


def _option_text(payload: tuple) -> str:
    """A labelled option as the trace names it: `stop`, or `throw again: decline`."""
    prompt, label = payload[1], payload[2]
    return label if prompt is None else f"{prompt}: {label}"


def _choices_report(chosen: Counter, games: int) -> dict:
    """Per rule, each labelled option and how often it was chosen per game."""
    report: dict[str, dict[str, float]] = {}
    if games:
        for (rule, option), count in sorted(chosen.items()):
            report.setdefault(rule, {})[option] = count / games
    return report


def _key_text(key) -> str:
    if isinstance(key, bool):
        return str(key).lower()
    if isinstance(key, tuple):
        return "[" + ", ".join(map(_key_text, key)) + "]"
    return "none" if key is None else str(key)


def _tallies_report(tallies: Counter, games: int) -> dict:
    """Per tally name: its total, its mean per game, and the same per key (`tally NAME by KEY`),
    keys most counted first."""
    report: dict[str, dict] = {}
    if not games:
        return report
    for (name, key), count in sorted(tallies.items(), key=lambda item: (item[0][0], -item[1])):
        entry = report.setdefault(name, {"total": 0, "per_game": 0.0, "by": {}})
        entry["total"] += count
        entry["per_game"] = entry["total"] / games
        if key is not None:
            entry["by"][_key_text(key)] = {"total": count, "per_game": count / games}
    return report


def format_report(r: dict) -> str:
    """The simulate report as text tables."""
    options = printable(", ".join(f"{k}={v}" for k, v in r["options"].items())) or "defaults"
    games = f"{r['games']} game{'s' if r['games'] != 1 else ''}"
    players = f"{r['players']} player{'s' if r['players'] != 1 else ''}"
    lines = [f"{printable(r['game'])}: {games}, {players}, seeds {r['seed']}.."
             f"{r['seed'] + r['games'] - 1}, options: {options}"]
    if r["finished"] and not r["max_turns"]:  # a game played in rounds alone has no turns
        lines.append(f"average rounds: {r['average_rounds']:.1f}")
    elif r["finished"]:
        lines.append(f"average turns: {r['average_turns']:.1f} (min {r['min_turns']}, "
                     f"max {r['max_turns']}); average rounds: {r['average_rounds']:.1f}")
    header = ["seat", "bot", "wins", "share", "95% CI"] + [f"avg {c}" for c in r["criteria"]]
    rows = []
    for s in r["seats"]:
        low, high = s["ci95"]
        rows.append([str(s["seat"]), s["bot"], f"{s['wins']:g}", f"{s['share']:.1%}",
                     f"{low:.1%} to {high:.1%}"] +
                    ["—" if v is None else _number_text(v) for v in s["scores"].values()])
    lines.append("")
    lines.extend(tui.render_table(header, rows, ["  "] * len(rows), tui.Style(False)))
    if r.get("teams"):  # every win is a team's: its partners share it
        shared = r.get("shared_wins")
        lines.append("(a team's win counts 1/k to each of its k players" +
                     (f"; {shared} of the games were won by more than one team)" if shared else ")"))
    elif r.get("shared_wins") or any(s["wins"] != int(s["wins"]) for s in r["seats"]):
        shared = r.get("shared_wins")
        lines.append("(a win shared by k players counts 1/k to each" +
                     (f"; {shared} of the games had a shared win)" if shared else ")"))
    if r.get("teams"):
        lines.append("teams (the share of games each won): " + ", ".join(
            f"team {t['team']} (seats {', '.join(map(str, t['seats']))}) {t['share']:.1%} "
            f"(95% CI {t['ci95'][0]:.1%} to {t['ci95'][1]:.1%})" for t in r["teams"]))
    if r["endings"]:
        lines.append("")
        lines.append("ended by: " + ", ".join(f"{rule} {share:.1%}" for rule, share in r["endings"].items()))
    if r.get("triggered"):
        lines.append("")
        lines.append("triggered rules (times per game, share of games where set off at least once):")
        width = max(len(rule) for rule in r["triggered"])
        for rule, seen in r["triggered"].items():
            lines.append(f"  {rule:<{width}}  {seen['per_game']:6.2f}  {seen['games']:6.1%}")
    if r.get("choices"):
        lines.append("")
        lines.append("labelled choices (times per game):")
        width = max(len(rule) for rule in r["choices"])
        for rule, options in r["choices"].items():
            text = ", ".join(f"{option} {per_game:.2f}" for option, per_game in options.items())
            lines.append(f"  {rule:<{width}}  {text}")
    if r.get("tallies"):
        lines.append("")
        lines.append("tallies (total, times per game):")
        width = max(len(printable(key)) + 2 for entry in r["tallies"].values() for key in [""] + list(entry["by"]))
        width = max([width] + [len(name) for name in r["tallies"]])
        for name, entry in r["tallies"].items():
            lines.append(f"  {name:<{width}}  {entry['total']:6}  {entry['per_game']:6.2f}")
            for key, seen in entry["by"].items():
                lines.append(f"    {printable(key):<{width - 2}}  {seen['total']:6}  {seen['per_game']:6.2f}")
    if r["faults"]:
        lines.append("")
        lines.append(f"{len(r['faults'])} of {r['games']} games faulted:")
    for f in r["faults"]:
        lines.append(printable(f"fault in the game with seed {f['seed']}: {f['code']} {f['message']}"
                               + (f" ({f['where']})" if f["where"] else "")))
    if r.get("stopped_after_faults"):
        lines.append(f"stopped after {r['stopped_after_faults']} faulted games, most of those played; "
                     "the other games were not played (raise with --max-faults N)")
    if r["faults"]:
        seats = ",".join(s["bot"] for s in r["seats"])
        opts = "".join(f" --option {k}={v}" for k, v in r["options"].items())
        lines.append(f"replay one with: rulelang run {r['rules']} --seed {r['faults'][0]['seed']} "
                     f"--seats {seats}{opts} --fast --check")
    if r["games_per_second"]:
        rate = r["games_per_second"]
        lines.append(f"{rate:.1f} games/s ({r['seconds']:.2f} s)" if rate >= 1 or not rate else
                     f"{1 / rate:.1f} s per game ({r['seconds']:.2f} s)")
    return "\n".join(lines)


# ---------------------------------------------------------------------- batches in parts (lab)
# `rulelang simulate --jobs/--cluster` plays a batch in parts, each with its own Stats, and
# adds them up in seed order (rulelang/batch.py). A part travels between processes without
# its game; merging knows each field of Stats, and refuses one it does not know.
_MERGED_BY = {"returns": "extend each", "turns": "extend", "rounds": "extend", "score_sums": "add each",
              "score_counts": "add each", "endings": "count", "triggered": "count",
              "triggered_games": "count", "chosen": "count", "tallies": "count"}


def merge_stats(total: Stats, part: Stats) -> None:
    """Add ``part`` (the games after those of ``total``) to ``total``."""
    for name, value in vars(part).items():
        if name in ("game", "players"):
            continue
        how = _MERGED_BY.get(name)
        if how is None:
            raise TypeError(f"merge_stats does not know how to merge Stats.{name}")
        mine = getattr(total, name)
        if how == "extend":
            mine.extend(value)
        elif how == "count":
            mine.update(value)
        elif how == "extend each":
            for row, more in zip(mine, value):
                row.extend(more)
        else:
            for row, more in zip(mine, value):
                row[:] = [a + b for a, b in zip(row, more)]


def without_game(stats: Stats) -> Stats:
    """``stats`` made ready to pickle: a compiled game stays in the process that compiled it."""
    stats.game = None  # type: ignore[assignment]
    return stats
