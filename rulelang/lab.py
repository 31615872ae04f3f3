"""The balance lab: metrics with 95% confidence intervals, per-game results as CSV or JSON
lines, plots, paired comparison of a variant with its base, and the batch progress bar."""

from __future__ import annotations

import csv
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from .batch import GameResult, LabMissing
from .simulate import win_share
from .source import printable

Z95 = 1.96


def mean_ci(values: Sequence[float]) -> tuple[float, tuple[float, float]]:
    """The mean and its 95% confidence interval (normal approximation)."""
    n = len(values)
    if n == 0:
        return 0.0, (0.0, 0.0)
    mean = sum(values) / n
    if n == 1:
        return mean, (mean, mean)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return mean, (mean - half, mean + half)


def _counted_ci(values: Sequence[float], may_happen: bool = False) -> tuple[float, tuple[float, float]]:
    """``mean_ci`` of a count, which cannot be below 0: nor can its interval. With
    ``may_happen`` (an event that can happen in any game, as a lead change, unlike a turn in a
    game of rounds alone), a count 0 in every game still may not always be: its interval
    reaches the exact Poisson bound of a total of 0 over the games, -ln(0.025) / n, not 0
    (3 games of no lead change do not show that the lead never changes)."""
    mean, (low, high) = mean_ci(values)
    if may_happen and values and not any(values):
        return 0.0, (0.0, -math.log(0.025) / len(values))
    return mean, (max(0.0, low), high)


def _entry(value: float, ci: tuple[float, float]) -> dict:
    return {"value": value, "ci95": [ci[0], ci[1]]}


# ---------------------------------------------------------------------- balance metrics
def balance(results: list[GameResult], players: int) -> dict:
    """First-player advantage, lead changes, game length, endings and each bot's win share,
    over the finished games; each with a 95% CI."""
    done = [r for r in results if r.fault is None]
    if not done:
        return {}
    # seat 1's share of the wins, over the games someone won (in a game nobody wins, as a
    # cooperative game lost, no seat has an advantage to show)
    won = [r for r in done if any(r.returns(players))]
    report = {}
    if players > 1:  # alone, a player is always first and always leads: nothing to measure
        if won:
            first, (low, high) = win_share([r.returns(players)[0] for r in won])
            report["first_player_advantage"] = _entry(first - 1 / players, (low - 1 / players, high - 1 / players))
            # seat 1 played by another bot than some other seat: the figure holds the bots' strength too
            report["first_player_advantage"]["bots_differ"] = any(len(set(r.bots)) > 1 for r in won)
            if len(won) < len(done):
                report["first_player_advantage"]["games"] = len(won)  # (the games with a winner)
        if any(r.turns or r.rounds for r in done):  # (the lead is looked at after each turn and round)
            report["lead_changes"] = _entry(*_counted_ci([r.lead_changes for r in done], may_happen=True))
        else:
            report["lead_changes"] = None  # played in the set-up alone: no turn or round to change hands in
    report |= {
        "turns": _entry(*_counted_ci([r.turns for r in done])),
        "rounds": _entry(*_counted_ci([r.rounds for r in done])),
        "endings": {rule: _entry(*win_share([float(r.ended_by == rule) for r in done]))
                    for rule in sorted({r.ended_by for r in done})},
    }
    names = sorted({bot for r in done for bot in r.bots})
    if len(names) > 1:
        report["bots"] = {}
        for name in names:
            # per game: the bot's wins over the seats it played; a fair share is 1/players. A
            # share lies in [0, 1]: Wilson's interval, as for a seat (a normal one can leave it)
            values = [sum(share for share, bot in zip(r.returns(players), r.bots) if bot == name)
                      / r.bots.count(name) for r in done if name in r.bots]
            report["bots"][name] = {**_entry(*win_share(values)), "games": len(values)}
    return report


def format_balance(b: dict, players: int) -> list[str]:
    """The balance metrics as lines of text."""
    if not b:
        return []

    def ci(entry: dict, percent: bool = False) -> str:
        low, high = entry["ci95"]
        if percent:
            return f"{entry['value']:+.1%} (95% CI {low:+.1%} to {high:+.1%})"
        return f"{entry['value']:.2f} (95% CI {low:.2f} to {high:.2f})"

    lines = ["", "balance (95% confidence intervals):"]
    if "lead_changes" in b:
        advantage = b.get("first_player_advantage")
        if advantage is None:
            lines.append("  first-player advantage  none to measure: no game had a winner")
        else:
            differ = "; the seats' bots differ, so this mixes seat and bot" if advantage.get("bots_differ") else ""
            among = f", over the {advantage['games']} games with a winner" if "games" in advantage else ""
            lines.append(f"  first-player advantage  {ci(advantage, True)}  "
                         f"(seat 1's win share minus 1/{players}{differ}{among})")
        lines.append(f"  lead changes per game   {ci(b['lead_changes'])}" if b["lead_changes"] is not None else
                     "  lead changes per game   none to measure: every game was played in the set-up, with no "
                     "turn or round")
    if b["turns"]["ci95"][1]:  # (a game played in rounds alone has no turns)
        lines.append(f"  turns per game          {ci(b['turns'])}")
    lines.append(f"  rounds per game         {ci(b['rounds'])}")
    for rule, entry in b["endings"].items():
        low, high = entry["ci95"]
        lines.append(f"  ended by {printable(rule)}: {entry['value']:.1%} (95% CI {low:.1%} to {high:.1%})")
    for bot, entry in b.get("bots", {}).items():
        low, high = entry["ci95"]
        lines.append(f"  {printable(bot)} wins {entry['value']:.1%} per seat (95% CI {low:.1%} to "
                     f"{high:.1%}; fair share {1 / players:.1%}) over {entry['games']} games")
    return lines


# ---------------------------------------------------------------------- per-game results
OUT_FORMATS = (".csv", ".jsonl")


def write_results(path: str, results: list[GameResult], criteria: list[str], players: int) -> None:
    """Each game's seed, bots, winners (seats from 1), scores, turns, ending rule and fault,
    as CSV or JSON lines by the file's extension. Raises OSError, ValueError (the extension)."""
    suffix = Path(path).suffix.lower()
    if suffix not in OUT_FORMATS:
        raise ValueError(f"--out writes .csv or .jsonl files, not `{printable(Path(path).name)}`")
    with open(path, "w", encoding="utf-8", newline="") as out:
        if suffix == ".jsonl":
            for r in results:
                out.write(json.dumps(_as_json(r, criteria)) + "\n")
            return
        writer = csv.writer(out)
        writer.writerow(["seed", "bots", "winners", "turns", "rounds", "ended_by", "lead_changes", "fault"]
                        + [f"seat{p + 1}_{name}" for p in range(players) for name in criteria])
        for r in results:
            scores = [v for row in r.scores for v in row] if r.scores else [""] * (players * len(criteria))
            writer.writerow([r.seed, " ".join(r.bots), " ".join(str(w + 1) for w in r.winners), r.turns,
                             r.rounds, r.ended_by, r.lead_changes, f"{r.fault[0]} {r.fault[1]}" if r.fault else "",
                             *["" if v is None else v for v in scores]])


def _as_json(r: GameResult, criteria: list[str]) -> dict:
    return {"seed": r.seed, "bots": list(r.bots), "winners": [w + 1 for w in r.winners],
            "scores": [dict(zip(criteria, row)) for row in r.scores] if r.scores else None,
            "turns": r.turns, "rounds": r.rounds, "ended_by": r.ended_by or None, "lead_changes": r.lead_changes,
            "fault": {"code": r.fault[0], "message": r.fault[1]} if r.fault else None}


# ---------------------------------------------------------------------- plots
def require_pyplot() -> Any:
    """matplotlib's pyplot drawing into files (Agg), or LabMissing saying what to install."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise LabMissing("--plot needs matplotlib: python -m pip install 'rulelang[lab]'") from None
    return pyplot


def plot(folder: str, results: list[GameResult], criteria: list[str], players: int, title: str,
         fmt: str = "png") -> list[Path]:
    """Score distribution per seat (one plot per criterion), win share by seat with 95% CIs,
    and a histogram of game length; returns the files written."""
    pyplot = require_pyplot()
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    done = [r for r in results if r.fault is None]
    written = []

    def save(figure: Any, name: str) -> None:
        path = out / f"{name}.{fmt}"
        figure.tight_layout()
        figure.savefig(path)
        pyplot.close(figure)
        written.append(path)

    for k, name in enumerate(criteria):
        figure, axes = pyplot.subplots(figsize=(7, 4))
        for p in range(players):
            values = [r.scores[p][k] for r in done if isinstance(r.scores[p][k], int | float)]
            if values:
                axes.hist(values, bins=min(40, max(5, len(set(values)))), histtype="step",
                          label=f"seat {p + 1}")
        axes.set(title=f"{title}: {name} per seat", xlabel=name, ylabel="games")
        axes.legend()
        save(figure, f"scores-{_file_name(name)}")

    figure, axes = pyplot.subplots(figsize=(7, 4))
    shares = [win_share([r.returns(players)[p] for r in done]) for p in range(players)]
    axes.bar([str(p + 1) for p in range(players)], [s for s, _ in shares],
             yerr=[[s - low for s, (low, _) in shares], [high - s for s, (_, high) in shares]], capsize=4)
    axes.axhline(1 / players, color="grey", linestyle="--", label=f"fair share 1/{players}")
    axes.set(title=f"{title}: win share by seat (95% CI)", xlabel="seat", ylabel="win share")
    axes.legend()
    save(figure, "win-share")

    figure, axes = pyplot.subplots(figsize=(7, 4))
    unit = "turns" if any(r.turns for r in done) else "rounds"  # a game played in rounds alone has no turns
    lengths = [r.turns if unit == "turns" else r.rounds for r in done]
    axes.hist(lengths, bins=min(50, max(5, len(set(lengths)))))
    axes.set(title=f"{title}: game length", xlabel=unit, ylabel="games")
    save(figure, "turns")
    return written


def _file_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:60] or "score"


# ---------------------------------------------------------------------- compare
def compare(base: list[GameResult], variant: list[GameResult], players: int,
            base_criteria: list[str], variant_criteria: list[str]) -> dict:
    """Paired differences (variant minus base) over the seeds both finished: win share and
    mean score per seat, turns, lead changes; each with a 95% CI."""
    by_seed = {r.seed: r for r in variant if r.fault is None}
    pairs = [(b, by_seed[b.seed]) for b in base if b.fault is None and b.seed in by_seed]
    rows: dict[str, dict] = {}

    def add(name: str, of: Any) -> None:
        values = [(of(b, base_criteria), of(v, variant_criteria)) for b, v in pairs]
        values = [(x, y) for x, y in values if _is_number(x) and _is_number(y)]
        if not values:
            return
        difference, ci = mean_ci([y - x for x, y in values])
        rows[name] = {"base": sum(x for x, _ in values) / len(values),
                      "variant": sum(y for _, y in values) / len(values),
                      "difference": difference, "ci95": [ci[0], ci[1]], "pairs": len(values)}

    for p in range(players):
        add(f"win share seat {p + 1}", lambda r, _, p=p: r.returns(players)[p])
    for name in [c for c in base_criteria if c in variant_criteria]:
        for p in range(players):
            add(f"{name} seat {p + 1}", lambda r, crit, p=p, name=name: r.scores[p][crit.index(name)])
    add("turns", lambda r, _: r.turns)
    add("rounds", lambda r, _: r.rounds)
    add("lead changes", lambda r, _: r.lead_changes)
    for rule in sorted({r.ended_by for pair in pairs for r in pair}):
        add(f"ended by {rule}", lambda r, _, rule=rule: float(r.ended_by == rule))
    return {"pairs": len(pairs), "base_faults": sum(r.fault is not None for r in base),
            "variant_faults": sum(r.fault is not None for r in variant), "statistics": rows}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def format_compare(c: dict, base: str, variant: str, header: str) -> str:
    """The paired differences as a table; a difference whose CI excludes 0 is marked `*`."""
    lines = [header, f"{c['pairs']} paired games (same seeds, same dice for the same steps); "
             f"differences are {printable(variant)} minus {printable(base)}", ""]
    rows = c["statistics"]
    width = max([9] + [len(printable(name)) for name in rows])
    lines.append(f"  {'statistic':<{width}}  {'base':>9}  {'variant':>9}  {'difference':>10}  "
                 f"{'95% CI':<17}  games")
    for name, row in rows.items():
        low, high = row["ci95"]
        interval = f"{low:+.3f} to {high:+.3f}"
        mark = " *" if low > 0 or high < 0 else "  "
        lines.append(f"  {printable(name):<{width}}  {row['base']:9.3f}  {row['variant']:9.3f}  "
                     f"{row['difference']:+10.3f}  {interval:<17}{mark} {row['pairs']}")
    lines.append("")
    lines.append("* the 95% CI excludes 0; games: the pairs where both games have the statistic")
    if c["base_faults"] or c["variant_faults"]:
        lines.append(f"faulted games left out: {c['base_faults']} of the base, {c['variant_faults']} "
                     "of the variant")
    return "\n".join(lines)


# ---------------------------------------------------------------------- progress
class PlainProgress:
    """One line on a terminal, rewritten: games done, rate and time left."""

    def __init__(self, total: int, stream: IO[str] | None = None, every: float = 0.2):
        self.total, self.stream, self.every = total, stream or sys.stderr, every
        self.done = 0
        self.began = self.shown = time.monotonic()

    def __enter__(self) -> PlainProgress:
        return self

    def __call__(self, games: int) -> None:
        self.done += games
        now = time.monotonic()
        if now - self.shown >= self.every or self.done == self.total:
            self.shown = now
            rate = self.done / (now - self.began) if now > self.began else 0.0
            left = f", {(self.total - self.done) / rate:.0f} s left" if rate else ""
            print(f"\r{self.done}/{self.total} games, {rate:.1f} games/s{left}   ", end="",
                  file=self.stream, flush=True)

    def __exit__(self, *_: object) -> None:
        print("\r" + " " * 60 + "\r", end="", file=self.stream, flush=True)


def progress_bar(total: int) -> Any:
    """A progress bar on stderr with rate and time left: rich's when it is installed."""
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text
    except ImportError:
        return PlainProgress(total)

    class Rate(ProgressColumn):
        def render(self, task: Any) -> Text:
            return Text(f"{task.speed:.1f} games/s" if task.speed else "")

    class Bar:
        def __enter__(self) -> Bar:
            self.progress = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(), Rate(),
                                     TimeRemainingColumn(), console=Console(stderr=True), transient=True)
            self.progress.start()
            self.task = self.progress.add_task("games", total=total)
            return self

        def __call__(self, games: int) -> None:
            self.progress.advance(self.task, games)

        def __exit__(self, *_: object) -> None:
            self.progress.stop()

    return Bar()
