"""The engine's face to the playground page: one JSON request in, one JSON answer out.

It runs inside Pyodide: one thread, no processes, no terminal. The rules text comes from the
page's editor; it is written, under the name the page gives it, into a working folder that also
holds the bundled games (a variant `extends` one of them), and read by the normal file pipeline,
so diagnostics name ``NAME:LINE:COL`` as ``rulelang lint`` does. Games and simulations live
between requests in module-level tables, keyed by increasing numbers.

A game is played as ``rulelang.tui.play`` plays it: bots and chance act at once, a human's
forced move is taken for them, and every answer holds one viewer's view only: the one human's,
a spectator's when bots play alone, and in a hot-seat game the deciding human's (a spectator's
once the game is over).
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs

from .. import gamelog, tui
from ..agents import AGENTS, check_bot
from ..diagnostics import Diagnostic, RuntimeFault, did_you_mean, render_full, to_json_object
from ..files import bundled_games
from ..model import GameDef, OptionDef
from ..pipeline import analyse
from ..runtime import CHANCE, State
from ..scenario import SECTIONS, run_scenario
from ..simulate import Stats, play_bots, win_share
from ..source import printable

MAX_REQUEST = 2_000_000       # characters of one request (a rules file is at most 100,000 bytes)
MAX_NAME = 200                # characters of a file name
MAX_SEED = 2 ** 63
MAX_SIM_GAMES = 5_000         # games of one simulation
MAX_GAMES_PER_CALL = 500      # games played by one `simulate_more`
MAX_FAULTS = 5                # a simulation stops once this many games faulted, most of those played
MAX_KEPT = 64                 # games (and simulations) kept; the oldest go first
WIDTH = 100                   # of the board and the trace
SCENARIO_FILE = "playground.scenario"
HUMAN_WORDS = ("you", "human", "me")
PLAIN = tui.Style(False)


class BadRequest(Exception):
    """A request that cannot be answered: the page gets ``{"error": message}``."""


# ---------------------------------------------------------------------- the entry point
def handle(request_json: str) -> str:
    """Answer one request (a JSON object with an ``op``) with a JSON text; never raises."""
    try:
        answer = _answer(request_json)
    except BadRequest as bad:
        answer = {"error": str(bad)}
    except Exception as error:  # a bug here: said plainly, never a traceback in the page
        answer = {"error": f"internal error: {type(error).__name__}: {printable(str(error))[:500]}"}
    try:
        return json.dumps(answer, allow_nan=False)
    except (TypeError, ValueError) as error:
        return json.dumps({"error": f"internal error: the answer is not JSON: {error}"})


def _answer(request_json: Any) -> dict:
    if not isinstance(request_json, str):
        raise BadRequest("a request is the text of a JSON object")
    if len(request_json) > MAX_REQUEST:
        raise BadRequest(f"the request is larger than the limit of {MAX_REQUEST} characters")
    try:
        request = json.loads(request_json)
    except (ValueError, RecursionError):
        raise BadRequest("the request is not JSON") from None
    if not isinstance(request, dict):
        raise BadRequest("a request is a JSON object with an `op`")
    op = request.get("op")
    if not isinstance(op, str) or op not in OPS:
        shown = f"`{printable(op)[:40]}`" if isinstance(op, str) else "missing"
        raise BadRequest(f"unknown op {shown}; ops: {', '.join(OPS)}")
    return OPS[op](request)


# ---------------------------------------------------------------------- the request's fields
def _field(request: dict, key: str) -> Any:
    if key not in request:
        raise BadRequest(f"the request has no `{key}`")
    return request[key]


def _text(request: dict, key: str) -> str:
    value = _field(request, key)
    if not isinstance(value, str):
        raise BadRequest(f"`{key}` must be text")
    return value


def _whole(request: dict, key: str, low: int, high: int) -> int:
    value = _field(request, key)
    if type(value) is not int:
        raise BadRequest(f"`{key}` must be a whole number")
    if not low <= value <= high:
        raise BadRequest(f"`{key}` must be from {low} to {high}, not {value}")
    return value


def _name(request: dict) -> str:
    """The rules file's name: a plain file name, shown in diagnostics."""
    name = _text(request, "name")
    if not name or len(name) > MAX_NAME or name in (".", "..", SCENARIO_FILE) or name != name.strip() \
            or any(c in name for c in "/\\#") or any(not c.isprintable() for c in name):
        raise BadRequest(f"`name` must be a plain file name such as `game.rules`, not `{printable(name)[:80]}`")
    return name


def _options(request: dict) -> dict[str, Any]:
    options = request.get("options", {})
    if options is None:
        return {}
    if not isinstance(options, dict) or len(options) > 1_000:
        raise BadRequest("`options` must be an object of option names and values")
    for name, value in options.items():
        if not isinstance(value, str | int):
            raise BadRequest(f"option `{printable(name)[:80]}` must be text, a whole number, true or false")
    return options


def _bot(text: Any) -> str:
    """A bot spec, `NAME` or `NAME:OPTION=VALUE:...`, checked as the command line checks it,
    its name in lower case."""
    if not isinstance(text, str) or len(text) > 200:
        raise BadRequest("a bot is a name such as `random`, with options as NAME:OPTION=VALUE")
    name, _, options = text.strip().partition(":")
    name = name.strip().lower()
    spec = name + (":" + options if options else "")
    problem = check_bot(spec)
    if problem is None:
        return spec
    if name not in AGENTS:
        hint = did_you_mean(name, AGENTS)
        raise BadRequest(printable(f"unknown bot `{name}`; bots: {', '.join(AGENTS)}" + (f"; {hint}" if hint else "")))
    raise BadRequest(printable(f"{problem}; a bot's options are NAME:OPTION=VALUE, e.g. mc:rollouts=8"))


def _seats(request: dict, key: str, humans: bool) -> list[str]:
    seats = _field(request, key)
    if not isinstance(seats, list) or not seats or len(seats) > 1_000:
        raise BadRequest(f"`{key}` must be a list with one entry a seat")
    resolved = []
    for seat in seats:
        if isinstance(seat, str) and seat.strip().lower() in HUMAN_WORDS:
            if not humans:
                raise BadRequest("a simulation is played by bots alone: no seat is `you`")
            resolved.append(tui.HUMAN)
        else:
            resolved.append(_bot(seat))
    return resolved


def _check_players(game: GameDef, players: int) -> None:
    if not game.min_players <= players <= game.max_players:
        raise BadRequest(printable(f"{game.name} is for {game.min_players} to {game.max_players} players, "
                                   f"not {players}"))


# ---------------------------------------------------------------------- the working folder
_folder: Path | None = None
_bundled: dict[str, bytes] = {}   # the games shipped with rulelang, by file name
_written: set[str] = set()        # files of the folder that differ from the shipped ones


def _workspace(name: str, text: str) -> Path:
    """The working folder with ``text`` as the file ``name``, beside the bundled games as
    shipped (a file written for an earlier request is put back or removed)."""
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="rulelang-playground-"))
        for path in bundled_games():
            _bundled[path.name] = path.read_bytes()
            (_folder / path.name).write_bytes(_bundled[path.name])
    for old in _written - {name}:
        if old in _bundled:
            (_folder / old).write_bytes(_bundled[old])
        else:
            (_folder / old).unlink(missing_ok=True)
    _written.clear()
    try:
        (_folder / name).write_bytes(text.encode("utf-8", "surrogatepass"))
    except OSError as error:
        raise BadRequest(printable(f"cannot write `{name}`: {error.strerror or error}")) from None
    _written.add(name)
    return _folder


def _load(request: dict, options: dict[str, Any] | None, warnings: bool
          ) -> tuple[GameDef | None, list[Diagnostic], str, Path]:
    """Analyse the request's rules text as the file its `name` says."""
    name, text = _name(request), _text(request, "text")
    folder = _workspace(name, text)
    with contextlib.chdir(folder):
        game, diagnostics = analyse(name, options, warnings=warnings)
    return game, diagnostics, name, folder


def _diagnostic(d: Diagnostic, name: str) -> dict:
    data = to_json_object(d)
    return {"code": d.code, "severity": data["severity"], "message": d.message,
            "line": data["line"], "col": data["column"],
            "end_line": data["end_line"], "end_col": data["end_column"], "help": d.help,
            # as `rulelang lint` prints it: a diagnostic without a place names the file
            "rendered": render_full(d) if d.span else render_full(d) + f"\n  --> {name}"}


def _rules_errors(diagnostics: list[Diagnostic], name: str) -> dict:
    errors = [d for d in diagnostics if d.is_error]
    return {"diagnostics": [_diagnostic(d, name) for d in errors], "errors": len(errors), "warnings": 0}


def _option(option: OptionDef) -> dict:
    low, high = option.bounds if option.bounds is not None else (None, None)
    return {"name": option.name, "default": option.default,
            "choices": [False, True] if isinstance(option.default, bool) else None,
            "min": low, "max": high}


def game_info(game: GameDef) -> dict:
    """A game's name, player counts and options, as the page offers them."""
    return {"name": game.name, "min_players": game.min_players, "max_players": game.max_players,
            "options": [_option(o) for o in game.options]}


def catalogue() -> list[dict]:
    """Every bundled game that loads: its file name, name, player counts and options."""
    entries = []
    for path in bundled_games():
        game, _ = analyse(str(path), warnings=False)
        if game is not None:
            entries.append({"file": path.name, **game_info(game)})
    return entries


# ---------------------------------------------------------------------- kept sessions
@attrs.define(eq=False)
class Play:
    """A game played from the page: its state and log, and how far each viewer has seen its trace."""

    number: int
    state: State | None  # None: the set-up faulted
    seats: list[str]
    seed: int
    log: io.StringIO
    agents: dict = attrs.Factory(dict)  # the bots, kept from step to step (gamelog.seeded_action)
    shown: int = 0                      # the trace sent so far (one human, or bots alone)
    seen: dict[int, int] = attrs.Factory(dict)  # hot seat: each human's trace, sent in their view, up to here
    on_screen: int | None = None        # hot seat: the human whose view was sent last
    looked: set[int] = attrs.Factory(set)  # hot seat, at the end: the humans given their last look
    fault: str | None = None            # the rendered diagnostic of a fault in the rules
    ended: bool = False                 # the end line is logged
    last: dict = attrs.Factory(dict)    # the step answer sent last

    @property
    def humans(self) -> list[int]:
        return [p for p, s in enumerate(self.seats) if s == tui.HUMAN]


@attrs.define(eq=False)
class Batch:
    """A simulation played a part at a time: game i has seed ``seed + i``."""

    game: GameDef
    bots: list[str]
    seed: int
    total: int
    stats: Stats
    done: int = 0
    faults: int = 0
    no_winner: int = 0
    seconds: float = 0.0
    first_fault: str | None = None
    stopped: bool = False


_games: dict[int, Play] = {}
_sims: dict[int, Batch] = {}
_numbers = iter(range(1, 2 ** 62))


def _keep(table: dict, number: int, item: Any) -> None:
    table[number] = item
    while len(table) > MAX_KEPT:
        del table[min(table)]


def _kept(table: dict, request: dict, key: str, what: str) -> Any:
    number = _field(request, key)
    if type(number) is not int or number not in table:
        raise BadRequest(f"there is no {what} {printable(json.dumps(number))[:40]} (a page reloaded, "
                         "or too many started since: start again)")
    return table[number]


# ---------------------------------------------------------------------- ops
def op_lint(request: dict) -> dict:
    """Every diagnostic `rulelang lint` gives, and the game's name, players and options."""
    game, diagnostics, name, _ = _load(request, None, warnings=True)
    errors = sum(d.is_error for d in diagnostics)
    return {"diagnostics": [_diagnostic(d, name) for d in diagnostics], "errors": errors,
            "warnings": len(diagnostics) - errors, "game": game_info(game) if game is not None else None}


def op_start(request: dict) -> dict:
    """A new game; the answer is its first step (or the rules' errors)."""
    seats = _seats(request, "seats", humans=True)
    options = _options(request)
    seed = _whole(request, "seed", -MAX_SEED, MAX_SEED)
    game, diagnostics, name, folder = _load(request, options, warnings=False)
    if game is None:
        return _rules_errors(diagnostics, name)
    _check_players(game, len(seats))
    log = io.StringIO()
    with contextlib.chdir(folder):  # the header's digest reads the file
        gamelog.write_header(log, name, len(seats), seats, {o.name: o.value for o in game.options},
                             seed, game.name)
    number = next(_numbers)
    play = Play(number, None, seats, seed, log)
    play.seen = dict.fromkeys(play.humans, 0)
    _keep(_games, number, play)

    def set_up() -> None:
        play.state = game.new_initial_state(len(seats))
    return _then_play_on(play, set_up)


def op_act(request: dict) -> dict:
    """The deciding human takes action ``action`` (an index into the step's actions)."""
    play = _kept(_games, request, "game", "game")
    if play.last.get("status") != "decide":
        raise BadRequest(f"game {play.number} is not waiting for a decision (it is "
                         f"{_STATUS_WORDS[play.last.get('status')]})")
    legal = play.state.legal_actions()
    index = _whole(request, "action", 0, len(legal) - 1)
    return _then_play_on(play, lambda: _apply(play, legal[index]))


def op_advance(request: dict) -> dict:
    """Bots alone: the next bot decision, and the rolls and draws after it. After a hot-seat
    game's last look: the next person's, or the final view."""
    play = _kept(_games, request, "game", "game")
    if play.last.get("status") == "last look":
        return _respond(play)
    if play.last.get("status") != "watch":
        raise BadRequest(f"game {play.number} cannot advance: it is {_STATUS_WORDS[play.last.get('status')]}")
    _play_on(play, bot_moves=1)
    return _respond(play)


def op_view(request: dict) -> dict:
    """The step answer sent last, again."""
    return _kept(_games, request, "game", "game").last


def op_log(request: dict) -> dict:
    """The game's log, as `rulelang run` writes it (the referee's record)."""
    return {"log": _kept(_games, request, "game", "game").log.getvalue()}


def op_simulate_start(request: dict) -> dict:
    """A simulation of ``games`` bot games, played by `simulate_more`."""
    bots = _seats(request, "bots", humans=False)
    options = _options(request)
    seed = _whole(request, "seed", -MAX_SEED, MAX_SEED)
    games = _whole(request, "games", 1, MAX_SIM_GAMES)
    game, diagnostics, name, _ = _load(request, options, warnings=False)
    if game is None:
        return {"error": "the rules have errors", **_rules_errors(diagnostics, name)}
    _check_players(game, len(bots))
    number = next(_numbers)
    _keep(_sims, number, Batch(game, bots, seed, games, Stats(game, len(bots))))
    return {"sim": number, "total": games}


def op_simulate_more(request: dict) -> dict:
    """Play up to ``games`` more games of a simulation; the report covers every game so far.
    Once most games fault (at least MAX_FAULTS), the simulation stops: its total becomes the
    games played."""
    sim = _kept(_sims, request, "sim", "simulation")
    wanted = _whole(request, "games", 0, MAX_GAMES_PER_CALL)
    started = time.perf_counter()
    for _ in range(min(wanted, sim.total - sim.done)):
        try:
            state = play_bots(sim.game, sim.bots, sim.seed + sim.done, False)
        except RuntimeFault as fault:
            sim.faults += 1
            sim.first_fault = sim.first_fault or render_full(fault.diagnostic)
        else:
            sim.stats.add(state)
            sim.no_winner += not state.winners
        sim.done += 1
        if sim.faults >= MAX_FAULTS and 2 * sim.faults > sim.done and sim.done < sim.total:
            sim.total, sim.stopped = sim.done, True
            break
    sim.seconds += time.perf_counter() - started
    return {"done": sim.done, "total": sim.total, "report": _report(sim)}


def _report(sim: Batch) -> dict:
    stats = sim.stats
    finished = len(stats.turns)
    shares = []
    for seat, bot in enumerate(sim.bots):
        share, (low, high) = win_share(stats.returns[seat])
        shares.append({"seat": seat + 1, "bot": bot, "share": share,
                       "lo": min(low, share), "hi": max(high, share)})  # rounding never leaves it out
    length = {"mean": sum(stats.turns) / finished, "min": min(stats.turns),
              "max": max(stats.turns)} if finished else None
    return {"win_share": shares, "no_winner": sim.no_winner / finished if finished else 0.0,
            "length": length, "ended_by": dict(stats.endings.most_common()), "faults": sim.faults,
            "seconds": sim.seconds, "fault": sim.first_fault, "stopped": sim.stopped}


def op_scenario(request: dict) -> dict:
    """Run a scenario against the request's rules text (in place of its `game:` file)."""
    scenario = _text(request, "scenario")
    name = _name(request)
    folder = _workspace(name, _text(request, "text"))
    try:
        (folder / SCENARIO_FILE).write_bytes(_naming_game(scenario, name).encode("utf-8", "surrogatepass"))
        with contextlib.chdir(folder):
            result = run_scenario(SCENARIO_FILE)
    finally:
        (folder / SCENARIO_FILE).unlink(missing_ok=True)
    return {"passed": result.passed, "message": result.message}


def _naming_game(scenario: str, name: str) -> str:
    """The scenario with its `game:` line naming ``name``; without one, the line goes in place
    of the first blank line before the sections (or first), so the others keep their numbers."""
    lines = scenario.splitlines(keepends=True)
    blank = None
    for number, line in enumerate(lines):
        if not line.strip():
            blank = number if blank is None else blank
            continue
        if line[0] in " \t#":
            continue
        key = line.partition(":")[0].strip()
        if key == "game":
            lines[number] = f"game: {name}\n"
            return "".join(lines)
        if key in SECTIONS:
            break
    if blank is not None:
        lines[blank] = f"game: {name}\n"
    else:
        lines.insert(0, f"game: {name}\n")
    return "".join(lines)


OPS = {"lint": op_lint, "start": op_start, "act": op_act, "advance": op_advance, "view": op_view,
       "log": op_log, "simulate_start": op_simulate_start, "simulate_more": op_simulate_more,
       "scenario": op_scenario}


# ---------------------------------------------------------------------- playing
_STATUS_WORDS = {"decide": "waiting for a decision", "watch": "played by bots alone: use advance",
                 "last look": "over: a player's last look (advance for the next)",
                 "over": "over", "fault": "stopped by a fault in the rules", None: "not started"}


def _apply(play: Play, action: Any) -> None:
    gamelog.append_action(play.log, play.state, action)  # logged before it is applied, as `run` does
    play.state.apply_action(action)


def _then_play_on(play: Play, first) -> dict:
    """Do ``first`` (the set-up, or a human's action), then play on to the next human decision;
    the step answer. A fault in the rules is kept in the play."""
    try:
        first()
    except RuntimeFault as fault:
        _faulted(play, fault)
        return _respond(play)
    _play_on(play, bot_moves=0)
    return _respond(play)


def _faulted(play: Play, fault: RuntimeFault) -> None:
    play.fault = render_full(fault.diagnostic)
    gamelog.write_fault(play.log, fault.diagnostic.code, fault.diagnostic.message)


def _play_on(play: Play, bot_moves: int) -> None:
    """Take every action no human is asked for: rolls and draws, bots' decisions, a human's
    forced move; stop where a human has a choice to make, or, when bots play alone, where a bot
    is to decide after ``bot_moves`` bot decisions. A fault in the rules is kept in the play."""
    state, humans = play.state, play.humans
    try:
        while not state.is_terminal():
            mover = state.current_player()
            if mover in humans:
                legal = state.legal_actions()
                if len(legal) > 1:
                    return
                action = legal[0]  # a forced move: no need to ask
            elif mover == CHANCE:
                action = gamelog.seeded_action(state, play.seed, None, play.agents)
            else:
                if not humans:
                    if bot_moves == 0:
                        return
                    bot_moves -= 1
                action = gamelog.seeded_action(state, play.seed, play.seats[mover], play.agents)
            _apply(play, action)
    except RuntimeFault as fault:
        _faulted(play, fault)
        return
    if not play.ended:
        gamelog.write_end(play.log, state)
        play.ended = True


def _respond(play: Play) -> dict:
    """The step answer: one viewer's board and trace (since that viewer last saw it), and the
    decider's options. Kept as the play's ``last``."""
    state, seats, humans = play.state, play.seats, play.humans
    hot_seat = len(humans) >= 2
    common = tui.common_view(seats)  # the one human; a spectator in a hot-seat game or bots alone
    seat, viewer, hand_over = None, common, False
    if play.fault is not None:
        status = "fault"
    elif state.is_terminal():
        status = "over"
        looker = _last_look(play) if hot_seat else None
        if looker is not None:  # what the last moves showed this person alone comes first
            status, seat, viewer = "last look", looker, looker
    elif state.current_player() in humans:
        status, seat = "decide", state.current_player()
        viewer = seat
    else:
        status = "watch"
    board, trace = "", []
    if state is not None:
        if hot_seat and status in ("decide", "last look"):
            start, hand_over = play.seen[seat], play.on_screen != seat
            play.on_screen = seat
        elif hot_seat:  # the end: the trace from where the human who saw least left it, as a spectator
            start = min(play.seen.values(), default=play.shown)
        else:
            start = play.shown
        try:
            board = tui.render_board(state, seats, viewer, PLAIN, WIDTH)
            trace = tui.render_events(state, start, seats, PLAIN, viewer, WIDTH)
            end = len(state.events)
        except Exception:
            if status != "fault":
                raise
            end = start  # a state left mid-step by its fault: no board, as little as can be shown
        if hot_seat and status == "decide":
            play.seen[seat] = end
        elif status == "last look":
            play.looked.add(seat)
        elif hot_seat:
            play.seen = dict.fromkeys(play.seen, end)
        play.shown = end
    deciding = status == "decide"
    play.last = {
        "game": play.number, "status": status, "seat": seat, "viewer": viewer,
        "hot_seat": hot_seat, "hand_over": hand_over,
        "title": _title(play, status, seat),
        "board": board, "trace": trace,
        "prompt": printable(state.prompt()) if deciding else "",
        "picked": [printable(p) for p in state.picked_so_far(seat)] if deciding else [],
        "actions": tui.menu_texts(state) if deciding else [],
        "result": tui.render_result(state, seats, WIDTH) if status == "over" else None,
        "fault": play.fault,
    }
    return play.last


def _last_look(play: Play) -> int | None:
    """The next human of a finished hot-seat game whose view of the last moves shows more
    than the spectator's (a card revealed to them), or None."""
    state = play.state
    for human in play.humans:
        if human in play.looked:
            continue
        if tui.seen_alone(state, play.seen.get(human, play.shown), play.seats, PLAIN, human, WIDTH) is not None:
            return human
        play.looked.add(human)
    return None


def _title(play: Play, status: str, seat: int | None) -> str:
    state = play.state
    if status == "decide":
        return tui.seat_label(seat, play.seats)
    if status == "last look":
        return tui.seat_label(seat, play.seats) + ": the game is over"
    if status == "watch" and 0 <= state.current_player() < state.n:
        return tui.seat_label(state.current_player(), play.seats) + " to play"
    name = printable(state.game.name) if state is not None else "the game"
    return f"{name}: game over" if status == "over" else f"{name}: stopped by a fault in the rules"
