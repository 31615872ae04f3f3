"""Batches of bot games played in parts, here, on a process pool (``--jobs``) or on a Dask
cluster (``--cluster``), and added up in seed order: the report is the same whichever plays."""

from __future__ import annotations

import math
import multiprocessing
import signal
import time
from collections.abc import Callable
from typing import Any

import attrs

from .diagnostics import Diagnostic, RuntimeFault
from .limits import Limits
from .model import GameDef
from .pipeline import analyse
from .runtime import State
from .simulate import Simulation, Stats, merge_stats, play_bots, without_game

Progress = Callable[[int], None]  # told how many more games are done


class LabMissing(Exception):
    """An optional package of the `lab` extra is not installed."""


@attrs.frozen
class GameResult:
    """One game of a batch, as ``--out`` writes it. Seats count from 0 here."""

    seed: int
    bots: tuple[str, ...]
    winners: tuple[int, ...]
    scores: tuple[tuple, ...]  # per seat, the winner criteria's values; () when it faulted
    turns: int
    ended_by: str
    lead_changes: int
    fault: tuple[str, str] | None = None  # code and message
    rounds: int = 0  # (a game without turns plays rounds only)

    def returns(self, players: int) -> list[float]:
        share = 1 / len(self.winners) if self.winners else 0.0
        return [share if p in self.winners else 0.0 for p in range(players)]


@attrs.frozen
class Job:
    """What every part of a batch plays: the rules (a path, read again where no copy of the
    compiled game is at hand), the seats and the seeds. Game i has seed ``seed + i``."""

    path: str
    options: tuple[tuple[str, Any], ...]
    limits: Limits
    bots: tuple[str, ...]
    seed: int
    check: bool = False
    rotate: bool = False  # game i moves every bot i seats on, so each bot plays each seat equally

    def seats(self, index: int) -> list[str]:
        n = len(self.bots)
        if not self.rotate:
            return list(self.bots)
        return [self.bots[(p - index) % n] for p in range(n)]

    def game(self) -> GameDef:
        key = (self.path, self.options, self.limits)
        if key not in _GAMES:
            game, diagnostics = analyse(self.path, dict(self.options), warnings=False, limits=self.limits)
            if game is None:
                raise RuntimeError(f"{self.path} does not compile on this worker: "
                                   + "; ".join(d.message for d in diagnostics if d.is_error))
            _GAMES[key] = game
        return _GAMES[key]

    def keep(self, game: GameDef) -> None:
        """Use this compiled game in this process (and in processes forked from it)."""
        _GAMES[(self.path, self.options, self.limits)] = game


_GAMES: dict[tuple, GameDef] = {}
CLUSTER_TIMEOUT = "10s"  # to reach the scheduler


class LeadWatch:
    """Watches a game step by step and counts how often the lead changes hands: after each
    turn (and each round: a game may have no turns), the leader is the one player (or team)
    ranked first by the winner criteria (a tie leads nobody), and a change is a leader other
    than the last one."""

    def __init__(self) -> None:
        self.turn = (0, 0)
        self.leader: int | None = None
        self.changes = 0

    def __call__(self, state: State) -> None:
        if (state.turn_number, state.round_number) == self.turn and not state.finished:
            return
        self.turn = (state.turn_number, state.round_number)
        leader = leader_of(state)
        if leader is not None:
            if self.leader is not None and leader != self.leader:
                self.changes += 1
            self.leader = leader


def leader_of(state: State) -> int | None:
    """The one player ranked first by the winner criteria now, or None (a tie, or none can say);
    in a game of teams, the one team (0, 1, ...)."""
    criteria = state.game.criteria
    if not criteria:
        return None
    table = state.team_scores(lenient=True)  # one that cannot be worked out yet ranks last
    keys = [tuple(-math.inf if v is None else v if c.kind == "most" else -v
                  for c, v in zip(criteria, row)) for row in table]
    best = max(keys)
    return keys.index(best) if keys.count(best) == 1 else None


class Part:
    """The games of one part of a batch: their totals, results and faults."""

    def __init__(self, game: GameDef | None, players: int, first: int):
        self.first = first  # index of its first game in the batch
        self.stats = Stats(game, players)
        self.results: list[GameResult] = []
        self.faults: list[tuple[int, Diagnostic]] = []


def play_part(job: Job, game: GameDef, first: int, count: int, part: Part | None = None,
              progress: Progress | None = None) -> Part:
    """Play games ``first`` to ``first + count - 1`` of the batch into ``part``."""
    part = part or Part(game, len(job.bots), first)
    for index in range(first, first + count):
        seed, bots = job.seed + index, job.seats(index)
        watch = LeadWatch()
        try:
            state = play_bots(game, bots, seed, job.check, watch)
            scores = tuple(tuple(row) for row in state.scores())
            part.stats.add(state)
        except RuntimeFault as fault:
            part.faults.append((seed, fault.diagnostic))
            part.results.append(GameResult(seed, tuple(bots), (), (), 0, "", 0,
                                           (fault.diagnostic.code, fault.diagnostic.message)))
        else:
            ended = game.rules[state.end_rule].name if state.end_rule >= 0 else "(no rule)"
            part.results.append(GameResult(seed, tuple(bots), tuple(state.winners), scores,
                                           state.turn_number, ended, watch.changes, rounds=state.round_number))
        if progress is not None:
            progress(1)
    return part


def _play_elsewhere(job: Job, first: int, count: int) -> Part:
    """A part played in a worker process or on a cluster, ready to travel back."""
    part = play_part(job, job.game(), first, count)
    without_game(part.stats)
    return part


def _play_elsewhere_packed(args: tuple) -> Part:
    return _play_elsewhere(*args)


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent process handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # and stops its workers with SIGTERM (not the parent's handler)


def part_size(games: int) -> int:
    """Games per part: from the number of games alone, so parts and sums are the same for any
    number of jobs; small enough for a fair share per worker and a lively progress bar."""
    return max(1, min(100, games // 50))


@attrs.frozen
class Batch:
    """A finished (or interrupted, or stopped) batch: the totals as ``simulate`` reports them,
    and each game's result in seed order."""

    simulation: Simulation
    results: list[GameResult]


class _Merger:
    """Adds parts to the totals in seed order, and stops the batch after too many faults."""

    def __init__(self, job: Job, game: GameDef, games: int, max_faults: int):
        self.job, self.game, self.games, self.max_faults = job, game, games, max_faults
        self.total = Part(game, len(job.bots), 0)
        self.waiting: dict[int, Part] = {}
        self.next = 0  # index of the next game to add
        self.stopped = False
        self.current: Part | None = None  # a part being played here (kept on Ctrl-C)

    def add(self, part: Part) -> None:
        self.waiting[part.first] = part
        while self.next in self.waiting and not self.stopped:
            self._merge(self.waiting.pop(self.next))

    def _merge(self, part: Part) -> None:
        faults = len(self.total.faults)
        for offset, result in enumerate(part.results):
            faults += result.fault is not None
            index = part.first + offset
            if faults >= self.max_faults and 2 * faults > index + 1 and index + 1 < self.games:
                self.stopped = True
                if offset + 1 < len(part.results):  # stop at that very game, as one process would
                    part = play_part(self.job, self.game, part.first, offset + 1)
                break
        merge_stats(self.total.stats, part.stats)
        self.total.results += part.results
        self.total.faults += part.faults
        self.next = part.first + len(part.results)

    def interrupted(self) -> None:
        """Ctrl-C: add the games finished so far, in seed order, with gaps where parts were
        still being played."""
        if self.current is not None:
            self.waiting[self.current.first] = self.current
        for first in sorted(self.waiting):
            self._merge(self.waiting.pop(first))


def run(job: Job, game: GameDef, games: int, jobs: int = 1, cluster: str | None = None,
        progress: Progress | None = None, max_faults: int = 5,
        started: Callable[[], None] | None = None) -> Batch:
    """Play ``games`` games of ``job``: here (``jobs`` 1), on ``jobs`` processes, or on the Dask
    cluster at ``cluster``. A runtime fault ends only its own game. Ctrl-C keeps the games
    finished so far. ``started`` is called once the workers are ready."""
    job.keep(game)
    merger = _Merger(job, game, games, max_faults)
    size = part_size(games)
    parts = [(first, min(size, games - first)) for first in range(0, games, size)]
    interrupted = False
    began = time.perf_counter()
    try:
        if cluster is not None:
            _on_cluster(job, parts, cluster, merger, progress, started)
        elif jobs > 1:
            _on_pool(job, parts, jobs, merger, progress, started)
        else:
            if started is not None:
                started()
            for first, count in parts:
                merger.current = Part(game, len(job.bots), first)
                play_part(job, game, first, count, merger.current, progress)
                part, merger.current = merger.current, None
                merger.add(part)
                if merger.stopped:
                    break
    except KeyboardInterrupt:
        interrupted = True
        merger.interrupted()
    total = merger.total
    simulation = Simulation(total.stats, list(job.bots), job.seed, total.faults,
                            time.perf_counter() - began, interrupted, merger.stopped)
    return Batch(simulation, total.results)


def _on_pool(job: Job, parts: list[tuple[int, int]], jobs: int, merger: _Merger,
             progress: Progress | None, started: Callable[[], None] | None) -> None:
    # fork: the workers start with the compiled game (compiling it again takes a second or two)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = context.Pool(jobs, initializer=_ignore_ctrl_c)
    try:
        if started is not None:
            started()
        _gather(pool.imap_unordered(_play_elsewhere_packed, [(job, f, c) for f, c in parts]), merger, progress)
    finally:
        pool.terminate()
        pool.join()


def _gather(finished, merger: _Merger, progress: Progress | None) -> None:
    """Add parts to the totals as they finish, until all are in or the batch stops."""
    for part in finished:
        merger.add(part)
        if progress is not None:
            progress(len(part.results))
        if merger.stopped:
            break


def _worker_result(future):
    try:
        return future.result()
    except (KeyboardInterrupt, RuntimeFault):
        raise
    except Exception as error:  # whatever failed on a worker, said without a traceback
        raise ClusterProblem(f"a Dask worker failed: {type(error).__name__}: {error}") from None


def _on_cluster(job: Job, parts: list[tuple[int, int]], address: str, merger: _Merger,
                progress: Progress | None, started: Callable[[], None] | None) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise LabMissing("--cluster needs the `distributed` package: "
                         "python -m pip install 'rulelang[lab]'") from None
    try:
        client = Client(address, timeout=CLUSTER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterProblem(f"cannot reach the Dask scheduler at {address}: {error}") from None
    futures: list = []
    try:
        if started is not None:
            started()
        futures = [client.submit(_play_elsewhere, job, f, c, pure=False) for f, c in parts]
        _gather((_worker_result(future) for future in as_completed(futures)), merger, progress)
    finally:
        client.cancel(futures)
        client.close()


class ClusterProblem(Exception):
    """``--cluster`` names a scheduler that does not answer, or a worker failed (for instance,
    it cannot read the rules file at the path given)."""
