"""The command line: run (play at the terminal), lint, fmt, replay, explain, simulate, compare,
analyze, diff, test, games and playground.

Exit codes: 0 clean, 1 errors found in the rules (or a fault while playing), 2 a usage or I/O
problem, 130 interrupted. Bad input never shows a traceback: rules errors are diagnostics.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import random
import re
import signal
import sys
import threading
from pathlib import Path
from typing import IO, Any

from . import batch, diff, explain, gamelog, lab, simulate, tui
from .agents import AGENTS, check_bot
from .diagnostics import (
    Diagnostic,
    RuntimeFault,
    did_you_mean,
    render_concise,
    render_full,
    to_json_object,
)
from .engine_values import shown as value_text
from .files import FileRefused, bundled_games, confine, find_rules
from .limits import DEFAULT, LIMIT_NAMES, Limits, parse_limit
from .model import GameDef
from .pipeline import analyse
from .runtime import CHANCE, State, TraceUnavailable
from .source import printable

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
MAX_GAMES = 10_000_000  # games in one batch (`simulate`, `compare`)
MAX_TURN_STEPS = 10_000  # `analyze --max-steps`
PRE_TURN_STEPS = 10_000  # `analyze`: steps played before the first turn, at most
CODE_PATTERN = re.compile(r"^[A-Za-z]\d{3}$")


class UsageError(Exception):
    """Bad arguments that argparse cannot see (exit 2)."""


# ---------------------------------------------------------------------- helpers
def err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """``k=v`` pairs from --option; values stay strings (the pipeline converts them)."""
    options = {}
    for pair in pairs or []:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise UsageError(f"--option takes name=value, not `{pair}`")
        options[name.strip()] = value.strip()
    return options


def parse_limits(pairs: list[str] | None) -> Limits:
    """``--limit NAME=VALUE`` (repeatable) over the defaults."""
    changes = {}
    for pair in pairs or []:
        try:
            name, value = parse_limit(pair)
        except ValueError as error:
            raise UsageError(str(error)) from None
        changes[name] = value
    return DEFAULT.replace(**changes) if changes else DEFAULT


def load_game(path: str, options: dict[str, Any], limits: Limits = DEFAULT,
              root: str | None = None) -> tuple[GameDef | None, int]:
    """Analyse a rules file for playing; on errors print them and give the exit code."""
    game, diagnostics = analyse(path, options, warnings=False, limits=limits, root=root)
    if game is not None:
        return game, EXIT_OK
    errors = [d for d in diagnostics if d.is_error]
    for i, d in enumerate(errors):
        err(render_full(d) + ("\n" if i < len(errors) - 1 else ""))  # a blank line between, as `lint` does
    return None, EXIT_USAGE if any(d.code == "E107" for d in diagnostics) else EXIT_ERRORS


def report_fault(fault: RuntimeFault, log_path: Path | None = None) -> int:
    err(render_full(fault.diagnostic))
    if log_path is not None:
        err(f"the log up to the fault is in {log_path}")
    return EXIT_ERRORS


def option_values(game: GameDef) -> dict[str, Any]:
    return {o.name: o.value for o in game.options}


def bot_spec(text: str) -> str:
    """A bot as --bot, --bots and --seats name it, `NAME` or `NAME:OPTION=VALUE:...`, checked
    (a UsageError says what is wrong) and with its name in lower case."""
    name, _, options = text.strip().partition(":")
    spec = name.strip().lower() + (":" + options if options else "")
    problem = check_bot(spec)
    if problem is None:
        return spec
    if name.strip().lower() not in AGENTS:
        hint = did_you_mean(name.strip().lower(), AGENTS)
        raise UsageError(f"unknown bot `{name.strip()}`; bots: {', '.join(AGENTS)}" + (f"; {hint}" if hint else ""))
    raise UsageError(f"{problem}; a bot's options are NAME:OPTION=VALUE, e.g. deduce:max_worlds=8192")


def resolve_seats(game: GameDef, players: int | None, seats: str | None, bot: str,
                  interactive: bool) -> list[str]:
    """The player of each seat ("you" or a bot name), from --players, --seats and --bot."""
    bot = bot_spec(bot)
    if seats:
        names = [s.strip() for s in seats.split(",")]
        resolved = []
        for name in names:
            if name.lower() in ("you", "human", "me"):
                resolved.append(tui.HUMAN)
            elif name.lower() == "bot":
                resolved.append(bot)
            elif name.split(":")[0].strip().lower() in AGENTS:
                resolved.append(bot_spec(name))
            else:
                hint = did_you_mean(name, ["you", "bot", *AGENTS])
                raise UsageError(f"unknown seat `{name}`: a seat is `you`, `bot` or a bot name "
                                 f"({', '.join(AGENTS)})" + (f"; {hint}" if hint else ""))
        if players is not None and players != len(resolved):
            raise UsageError(f"--players {players} but --seats names {len(resolved)} seats")
        players = len(resolved)
    else:
        players = game.min_players if players is None else players
        resolved = [tui.HUMAN if interactive and p == 0 else bot for p in range(players)]
    if not game.min_players <= players <= game.max_players:
        raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, "
                         f"not {players}")
    return resolved


# ---------------------------------------------------------------------- run
def cmd_run(args: argparse.Namespace) -> int:
    """Play a game at the terminal, logging it; or resume one from its log."""
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    limits = parse_limits(args.limit)
    if args.resume:
        for flag, value in (("--players", args.players), ("--seed", args.seed), ("--option", args.option)):
            if value:
                raise UsageError(f"{flag} cannot be used with --resume: the log sets it")
        if args.log:
            raise UsageError("--log cannot be used with --resume: the game goes on in the log it resumes "
                             "(copy the log first to keep the original)")
        if args.rules and args.file:
            raise UsageError("give the rules FILE or --rules FILE, not both")
        return resume(args, interactive, limits)
    if args.rules:
        raise UsageError("--rules is for --resume; to play a game, give its rules FILE")
    if not args.file:
        raise UsageError("run needs a rules FILE (or --resume LOG)")
    args.file = find_rules(args.file)
    game, code = load_game(args.file, parse_options(args.option), limits)
    if game is None:
        return code
    seats = resolve_seats(game, args.players, args.seats, args.bot, interactive)
    watch = resolve_watch(args.as_seat, seats)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    log_path = Path(args.log) if args.log else gamelog.default_log_path(args.file)
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = log_path.open("w", encoding="utf-8")
    except OSError as error:
        err(f"error: cannot write the log {log_path}: {error.strerror or error}")
        return EXIT_USAGE
    try:
        with log:
            gamelog.write_header(log, args.file, len(seats), seats, option_values(game), seed, game.name,
                                 log_path)
            terminal = make_terminal(args)
            try:
                state = game.new_initial_state(len(seats))
            except RuntimeFault as fault:  # the set-up as far as it went, then the fault
                if fault.partial is not None:
                    with contextlib.suppress(TraceUnavailable, LookupError, TypeError, ValueError):
                        for line in tui.render_events(fault.partial, 0, seats, terminal.style,
                                                      tui.common_view(seats, watch), terminal.width()):
                            terminal.say(line)  # (a help: the fault below is what counts)
                gamelog.write_fault(log, fault.diagnostic.code, fault.diagnostic.message)
                return report_fault(fault, log_path)
            terminal.say(terminal.style.bold(printable(
                f"{game.name}: {len(seats)} player{'' if len(seats) == 1 else 's'}, seed {seed}")))
            terminal.say(", ".join(tui.seat_label(p, seats) for p in range(len(seats))))
            changed = [printable(f"{o.name}={value_text(o.value)}") for o in game.options if o.value != o.default]
            if changed:
                terminal.say("options: " + ", ".join(changed))
            terminal.say(f"log: {log_path}")
            return drive(state, seats, seed, terminal, log, log_path, args.check,
                         rules_hint=resume_rules_hint(args.file, log_path), watch=watch)
    except BrokenPipeError:
        raise  # the reader of stdout went away: main says nothing more
    except OSError as error:
        return log_write_error(log_path, error)


def log_write_error(log_path: Path, error: OSError) -> int:
    err(f"error: cannot write the log {log_path}: {(error.strerror or str(error)).lower()}")
    return EXIT_USAGE


def resume_rules_hint(rules: str, log_path: Path) -> str:
    """` --rules FILE` when a resume will need it: the rules lie outside the log's folder tree."""
    folder = log_path.parent
    try:  # strictly the log's own tree: the resume may run from another folder
        confine(gamelog.rules_for_log(rules, log_path), folder, folder)
    except FileRefused:
        return f" --rules {rules}"
    return ""


def resolve_watch(as_seat: str | None, seats: list[str]) -> int | None | str:
    """The view a game of bots alone is shown in (--as): a seat 1..n, `all` (the referee's),
    or by default a spectator's (public information only)."""
    if as_seat is None:
        return None
    if tui.HUMAN in seats:
        raise UsageError("--as is for games of bots alone: a human seat sees its own view")
    word = as_seat.strip().lower()
    if word in ("all", "referee"):
        return "all"
    if word in ("spectator", "none"):
        return None
    if word.isascii() and word.isdigit() and len(word) <= 6 and 1 <= int(word) <= len(seats):
        return int(word) - 1
    raise UsageError(f"--as takes a seat from 1 to {len(seats)}, `spectator` or `all`, not `{printable(as_seat[:40])}`")


def make_terminal(args: argparse.Namespace) -> tui.Terminal:
    pause = 0.0 if args.fast or not sys.stdout.isatty() else 0.6
    return tui.Terminal(pause=pause)


def drive(state: State, seats: list[str], seed: int, terminal: tui.Terminal, log: IO[str],
          log_path: Path, check: bool, shown: int = 0, rules_hint: str = "",
          watch: int | None | str = None, seeding: int = gamelog.SEEDING) -> int:
    """Play on to the end (or a quit), then show the result; faults and Ctrl-C stop cleanly."""
    resume_hint = f"resume with: rulelang run --resume {log_path}{rules_hint}"
    try:
        finished = tui.play(state, seats, seed, terminal, log, check, shown, watch, seeding)
    except RuntimeFault as fault:
        gamelog.write_fault(log, fault.diagnostic.code, fault.diagnostic.message)
        return report_fault(fault, log_path)
    except KeyboardInterrupt:
        err(f"\ninterrupted; the game so far is logged in {log_path}\n{resume_hint}")
        return EXIT_INTERRUPTED
    if not finished:
        terminal.say(f"game stopped; the log is kept in {log_path}\n{resume_hint}")
        return EXIT_OK
    gamelog.write_end(log, state)
    show_final(state, seats, terminal, watch)
    terminal.say(f"log: {log_path}")
    return EXIT_OK


def show_final(state: State, seats: list[str], terminal: tui.Terminal,
               watch: int | None | str = None) -> None:
    terminal.say()
    terminal.say(tui.render_board(state, seats, tui.common_view(seats, watch), terminal.style,
                                  terminal.width()))
    terminal.say()
    terminal.say(terminal.style.good(tui.render_result(state, seats, terminal.width())))


def replay_file(path: str, rules: str | None = None, limits: Limits = DEFAULT):
    """Read a log, load its game and replay it: (log, game, replay), or an exit code after
    saying what went wrong. The log's rules path is relative to the log's folder and must stay
    in its tree; ``rules`` (given on the command line) overrides it."""
    try:
        log_data = gamelog.read_log(path, limits)
    except gamelog.LogError as error:
        err(printable(f"error[{error.code}]: {error.message}"))
        return EXIT_USAGE
    header = log_data.header
    root = None
    if rules is None:
        try:
            rules = str(gamelog.rules_of_log(log_data))
        except FileRefused as refused:
            err(printable(f"error[E109]: {path}:1: the log's rules file is refused: {refused.message}"))
            err("  = help: give the rules file on the command line: --rules FILE")
            return EXIT_USAGE
        root = gamelog.log_rules_root(rules, path)
    if header.get("rules_sha256") and gamelog.file_digest(rules, root=root) not in (None, header["rules_sha256"]):
        other = False
        if root is None:  # the rules given on the command line: the log's own, or another file?
            try:
                other = Path(gamelog.rules_of_log(log_data)).resolve() != Path(rules).resolve()
            except FileRefused:
                other = True
        if other:
            err(printable(f"warning: the log was written with `{header.get('rules')}`; it is replayed with "
                          f"{rules}, which differs from it"))
        else:
            err(f"warning: {printable(rules)} (or a file it extends) has changed since the log was written")
    game, code = load_game(rules, header.get("options") or {}, limits, root)
    if game is None:
        return code
    players = header["players"]
    if not game.min_players <= players <= game.max_players:
        err(printable(f"error[E701]: {path}:1: {game.name} is for {game.min_players} to "
                      f"{game.max_players} players, not {players}"))
        return EXIT_USAGE
    unknown = [s for s in header.get("seats", []) if s != tui.HUMAN and check_bot(str(s)) is not None]
    if unknown:
        err(printable(f"error[E701]: {path}:1: unknown seat `{unknown[0]}` in the header"))
        return EXIT_USAGE
    replay = gamelog.replay_log(game.new_initial_state(players), log_data.actions, path, log_data.fault)
    return log_data, game, replay


def resume(args: argparse.Namespace, interactive: bool, limits: Limits = DEFAULT) -> int:
    """Replay a log (checking that it reproduces) and play on, appending to the same log."""
    rules = args.rules or args.file
    loaded = replay_file(args.resume, rules, limits)
    if isinstance(loaded, int):
        return loaded
    log_data, game, replay = loaded
    header, state = log_data.header, replay.state
    seats = list(header.get("seats") or ["random"] * header["players"])
    if args.seats:
        seats = resolve_seats(game, header["players"], args.seats, args.bot, interactive)
    watch = resolve_watch(args.as_seat, seats)
    seed = header["seed"]
    if not replay.reproduced:
        err(printable(f"error[E703]: the log does not reproduce: {replay.mismatch}"))
        return EXIT_ERRORS
    if replay.fault is not None:
        report_fault(state.fault)
        err(printable(f"the game in {args.resume} stopped on this fault, so it cannot go on; fix the rules "
                      "and start a new game"))
        return EXIT_ERRORS
    terminal = make_terminal(args)
    if log_data.end is not None and not state.is_terminal():
        line = log_data.actions[-1][0] + 1 if log_data.actions else 2
        err(printable(f"error[E703]: {args.resume}:{line}: the log says the game is over, but the "
                      f"replayed game goes on (turn {state.turn_number}, {replay.applied} actions)"))
        err("  = help: the log does not match its rules; remove its end line to play on from there")
        return EXIT_ERRORS
    if state.is_terminal():
        mismatch = gamelog.compare_end(state, log_data.end) if log_data.end is not None else None
        if mismatch is not None:
            err(printable(f"error[E703]: {args.resume}: the log does not match its rules: {mismatch}"))
            return EXIT_ERRORS
        terminal.say(f"the game in {args.resume} is over")
        show_final(state, seats, terminal, watch)
        return EXIT_OK
    if log_data.dropped_tail:
        err(f"warning: the last line of {args.resume} was cut short and is dropped")
    gamelog.rewrite_valid_lines(log_data)
    log_path = Path(args.resume)
    if rules and header.get("rules_sha256") and gamelog.file_digest(rules) not in (None, header["rules_sha256"]):
        # the game goes on with other rules (they replayed its start): the log names them from
        # now on, so that it replays whole
        gamelog.rewrite_header(log_data, rules)
        err(printable(f"note: the log's header now names {rules}, the rules that play on"))
    terminal.say(terminal.style.bold(printable(f"{game.name}: resumed after {replay.applied} actions "
                                               f"(turn {state.turn_number}), seed {seed}")))
    terminal.say(", ".join(tui.seat_label(p, seats) for p in range(len(seats))))
    try:
        log = log_path.open("a", encoding="utf-8")
    except OSError as error:
        err(f"error: cannot append to the log {log_path}: {error.strerror or error}")
        return EXIT_USAGE
    try:
        with log:
            return drive(state, seats, seed, terminal, log, log_path, args.check, tui.turn_start(state),
                         f" --rules {rules}" if rules else "", watch, header.get("seeding", 1))
    except BrokenPipeError:
        raise  # the reader of stdout went away: main says nothing more
    except OSError as error:
        return log_write_error(log_path, error)


# ---------------------------------------------------------------------- lint
def _lint_limit(text: str) -> tuple[str, int]:
    try:
        return parse_limit(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def cmd_lint(args: argparse.Namespace) -> int:
    """Analyse rules files and print every diagnostic."""
    everything: list[tuple[str, Diagnostic]] = []
    limits = Limits().replace(**dict(args.limit))
    for path in map(find_rules, args.files):
        _, diagnostics = analyse(path, warnings=not args.no_warnings, limits=limits)
        everything.extend((path, d) for d in diagnostics if d.is_error or not args.no_warnings)
    if args.format == "json":
        objects = []
        for path, d in everything:
            data = to_json_object(d)
            data["path"] = data["path"] or path
            objects.append(data)
        print(json.dumps(objects, indent=2))
    else:
        for path, d in everything:
            if args.format == "concise":
                line = render_concise(d)
                print(line.replace("<unknown>", path, 1) if d.span is None else line)
            else:
                print(render_full(d) if d.span else render_full(d) + f"\n  --> {path}")
                print()
    errors = sum(d.is_error for _, d in everything)
    warnings = len(everything) - errors
    if args.format == "full":
        err(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}")
    if any(d.code == "E107" for _, d in everything):
        return EXIT_USAGE
    return EXIT_ERRORS if errors else EXIT_OK


# ---------------------------------------------------------------------- fmt
def cmd_fmt(args: argparse.Namespace) -> int:
    """Lay rules files out canonically: rewrite them, or with --check / --diff only report."""
    from .formatter import format_file

    changed, refused = [], []
    unreadable = False
    for path in args.files:
        old, new, problems = format_file(path)
        if new is None:
            refused.append(path)
            unreadable = unreadable or any(d.code == "E107" for d in problems)
            for d in problems:
                err(render_full(d) if d.span else render_full(d) + f"\n  --> {printable(path)}")
            continue
        if new == old:
            continue
        changed.append(path)
        if args.diff:
            for line in difflib.unified_diff(old.splitlines(), new.splitlines(), path, path, lineterm=""):
                print(printable(line))
        elif args.check:
            print(printable(f"would reformat {path}"))
        else:
            try:
                Path(path).write_text(new, encoding="utf-8", newline="")
            except OSError as error:
                err(f"error: cannot write {printable(path)}: {(error.strerror or str(error)).lower()}")
                return EXIT_USAGE
            print(printable(f"reformatted {path}"))
    kept = len(args.files) - len(changed) - len(refused)
    verb = "would be reformatted" if args.check or args.diff else "reformatted"
    err(f"{len(changed)} file{'s' * (len(changed) != 1)} {verb}, {kept} unchanged"
        + (f", {len(refused)} not formatted (errors)" if refused else ""))
    if unreadable:
        return EXIT_USAGE
    return EXIT_ERRORS if refused or (changed and (args.check or args.diff)) else EXIT_OK


# ---------------------------------------------------------------------- replay
def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a log, print its trace, and say whether the rules reproduce it."""
    loaded = replay_file(args.log, args.rules, parse_limits(args.limit))
    if isinstance(loaded, int):
        return loaded
    log_data, _, replay = loaded
    state, mismatch = replay.state, replay.mismatch
    if mismatch is None and log_data.end is not None:
        mismatch = gamelog.compare_end(state, log_data.end)
    viewer: int | str | None = "all"  # the log is the referee's record; --as shows another view
    if args.seat is not None:
        word = args.seat.strip().lower()
        if word in ("spectator", "none"):
            viewer = None
        elif word in ("all", "referee"):
            viewer = "all"
        elif not (word.isascii() and word.isdigit() and len(word) <= 6) or not 1 <= int(word) <= state.n:
            raise UsageError(f"--as takes a seat from 1 to {state.n}, `spectator` or `all`, not `{printable(args.seat[:40])}`")
        else:
            viewer = int(word) - 1
    if args.out and args.seat is None:  # (the referee's, which names every hidden card, only when asked)
        raise UsageError("--out writes a transcript as one viewer sees it: say whose with --as SEAT, "
                         "`--as spectator` or `--as all`")
    lines = [line for line in state.event_lines(0, viewer) if line]
    if viewer.__class__ is int and not state.fault:
        lines += ["", f"what player {viewer + 1} sees now:",
                  *map(printable, state.observation_string(viewer).splitlines())]
    if args.out:
        try:
            Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
        except OSError as error:
            err(f"error: cannot write {args.out}: {(error.strerror or str(error)).lower()}")
            return EXIT_USAGE
        whose = "the referee's" if viewer == "all" else "a spectator's" if viewer is None else f"player {viewer + 1}'s"
        print(f"{whose} transcript written to {printable(args.out)}")
    elif not args.quiet:
        for line in lines:
            print(line)
    if viewer == "all":  # (how many steps there were is the referee's: a seat may not know it)
        print(f"{replay.applied} actions replayed from {args.log}")
    else:
        print(f"replayed from {args.log}")
    if mismatch is None and replay.fault is not None:
        print(f"reproduces: yes (the game stops on fault {replay.fault}, as the log says)")
        return EXIT_OK
    if mismatch is None:
        print("reproduces: yes" if log_data.end is not None else
              "reproduces: yes (the log ends before the game does)")
        return EXIT_OK
    print(printable(f"reproduces: no: {mismatch}"))
    err(printable(f"error[E703]: {args.log}: the log does not match its rules: {mismatch}"))
    return EXIT_ERRORS


# ---------------------------------------------------------------------- explain
def cmd_explain(args: argparse.Namespace) -> int:
    """Explain a diagnostic code, a rule (or other name) of a game, or list a game's contents."""
    explain.import_all_codes()
    topic = args.topic
    if topic and not args.file and topic.endswith(".rules"):  # `explain FILE [NAME]`
        args.file, topic = topic, args.name
    elif args.name is not None:
        err(f"error: `explain` takes one topic; `{args.name}` is a second")
        err(f"  = help: a name in a game: `rulelang explain FILE.rules {args.name}` or "
            f"`rulelang explain {args.name} --file FILE.rules`")
        return EXIT_USAGE
    try:
        if topic and (CODE_PATTERN.match(topic) or not args.file):
            print(explain.explain_code(topic))
            return EXIT_OK
        if not args.file:
            print(explain.list_codes())
            return EXIT_OK
        args.file = find_rules(args.file)
        game, code = load_game(args.file, {})
        if game is None:
            return code
        tree = explain.RulesTree(args.file)
        print(explain.describe_game(game, tree) if topic is None else explain.explain_name(game, topic, tree))
        return EXIT_OK
    except explain.UnknownTopic as unknown:
        err(f"error: {unknown.message}")
        err(f"  = help: {unknown.help}")
        return EXIT_ERRORS


# ---------------------------------------------------------------------- simulate
def cmd_simulate(args: argparse.Namespace) -> int:
    """Play many bot games and report win shares, scores, how games end and balance metrics."""
    _check_batch_args(args)
    if args.out and Path(args.out).suffix.lower() not in lab.OUT_FORMATS:
        raise UsageError(f"--out writes .csv or .jsonl files, not `{printable(args.out)}`")
    if args.plot:
        try:
            lab.require_pyplot()
        except batch.LabMissing as error:
            raise UsageError(str(error)) from None
    options = parse_options(args.option)
    args.file = find_rules(args.file)
    limits = parse_limits(args.limit)
    game, code = load_game(args.file, options, limits)
    if game is None:
        return code
    bots = resolve_bots(game, args.players, args.bots)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    job = batch.Job(os.path.abspath(args.file), tuple(options.items()), limits, tuple(bots), seed,
                    args.check, args.rotate)
    played = play_batch(args, job, game)
    if played.simulation.interrupted:
        err("interrupted: results of the games played so far")
    report = played.simulation.report(args.file, options)
    if args.rotate:
        report["rotated"] = True
        for entry in report["seats"]:
            entry["bot"] = "rotated"
    report["balance"] = lab.balance(played.results, len(bots))
    criteria = report["criteria"]
    try:
        if args.out:
            lab.write_results(args.out, played.results, criteria, len(bots))
        plots = lab.plot(args.plot, played.results, criteria, len(bots), game.name, args.plot_format) \
            if args.plot else []
    except OSError as error:
        err(f"error: cannot write {printable(error.filename or args.out or args.plot)}: "
            f"{(error.strerror or str(error)).lower()}")
        return EXIT_USAGE
    if args.format == "json":
        print(json.dumps(report, indent=2))
    else:
        print("\n".join([simulate.format_report(report), *lab.format_balance(report["balance"], len(bots))]))
    if args.out and not args.quiet:
        err(f"per-game results written to {printable(args.out)}")
    if plots and not args.quiet:
        err("plots written: " + ", ".join(printable(str(p)) for p in plots))
    if played.simulation.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_ERRORS if played.simulation.faults else EXIT_OK


def _check_batch_args(args: argparse.Namespace) -> None:
    if not 1 <= args.games <= MAX_GAMES:
        raise UsageError(f"--games takes 1 to {MAX_GAMES:,}: each game's result is kept for the report; "
                         "for more, run several batches with other --seed values")
    if args.max_faults < 1:
        raise UsageError("--max-faults must be at least 1")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.jobs > 1 and args.cluster:
        raise UsageError("--jobs and --cluster do not go together: a cluster has its own workers")


def play_batch(args: argparse.Namespace, job: batch.Job, game: GameDef) -> batch.Batch:
    """Play ``args.games`` games of ``job`` as the options say (jobs, cluster), with a progress
    bar on a terminal; a missing optional package or an unreachable cluster is a UsageError."""
    bar = lab.progress_bar(args.games) if sys.stderr.isatty() and not args.quiet else None
    shown = []

    def started() -> None:  # after the worker processes start: none inherits the bar's thread
        if bar is not None:
            shown.append(bar.__enter__())

    try:
        return batch.run(job, game, args.games, args.jobs, args.cluster, bar, args.max_faults, started)
    except (batch.LabMissing, batch.ClusterProblem) as error:
        raise UsageError(str(error)) from None
    finally:
        if shown:
            bar.__exit__(None, None, None)


# ---------------------------------------------------------------------- analyze
def cmd_analyze(args: argparse.Namespace) -> int:
    """The exact value of best play for one turn, and the best-play policy (rulelang.analysis)."""
    import time
    from fractions import Fraction

    from . import analysis

    if args.top < 0 or args.max_states < 1 or args.max_steps < 1:
        raise UsageError("--top, --max-states and --max-steps take positive numbers")
    if args.max_steps > MAX_TURN_STEPS:
        raise UsageError(f"--max-steps takes at most {MAX_TURN_STEPS:,}: the analysis follows a line of play "
                         "that deep on the stack")
    limits = parse_limits(args.limit)
    options = parse_options(args.option)
    root = None
    if args.log is not None:
        loaded = replay_file(args.log, args.file and find_rules(args.file), limits)
        if isinstance(loaded, int):
            return loaded
        log_data, _, _ = loaded
        rules = args.file and find_rules(args.file) or str(gamelog.rules_of_log(log_data))
        root = None if args.file else gamelog.log_rules_root(rules, args.log)
        options = {**(log_data.header.get("options") or {}), **options}
        players = log_data.header["players"]
    else:
        if args.file is None:
            raise UsageError("give a rules file, or a log with --log")
        if args.at is not None:
            raise UsageError("--at needs --log")
        rules = find_rules(args.file)
        players = args.players
    objective_text = args.objective or "gain"
    objective = None
    if objective_text in ("gain", "success"):
        game, code = load_game(rules, options, limits, root)
        if game is None:
            return code
    else:
        game, objective = analysis.compile_objective(rules, objective_text, options, limits, root)
        if game is None:
            problems = objective
            for i, d in enumerate(problems):
                err(render_full(d) + ("\n" if i < len(problems) - 1 else ""))
            return EXIT_ERRORS
    players = game.min_players if players is None else players
    if not game.min_players <= players <= game.max_players:
        raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {players}")
    state = game.new_initial_state(players)
    if args.log is not None:
        actions = list(log_data.actions)
        at = len(actions) if args.at is None else args.at
        if not 0 <= at <= len(actions):
            raise UsageError(f"--at takes 0 to {len(actions)}, the steps of the log")
        replay = gamelog.replay_log(state, actions[:at], args.log)
        if replay.mismatch is not None:
            err(printable(f"error: {replay.mismatch}"))
            return EXIT_ERRORS
        state = replay.state
    # A deal at the start (draws, shuffles; any roll of the set-up, before the first round or
    # turn) is not the turn's play: one deal, from the seed. Draws the turn itself makes (a
    # turn that starts by drawing from a cup) are its play, and valued.
    deal_seed = 0 if args.seed is None else args.seed
    dealer, dealt = random.Random(deal_seed), 0
    while not state.is_terminal() and state.current_player() == CHANCE and (
            (state.prompt() in ("draw", "shuffle") and not any(frame[3] for frame in state.frames))
            or state.round_number == state.turn_number == 0):
        state.apply_action(state.sample_chance(dealer))
        dealt += 1
    # Decisions of the round before the first turn (a bet, a draft) are not the turn either: they
    # are played at random from the same seed, and so is the chance among them, up to the
    # turn. A game with no turns (played in rounds alone) is analysed from where it stands.
    before: list[str] = []
    if args.log is None and state.turn_number == 0 and not state.is_terminal():
        ahead, steps, played, deals = state.clone(), 0, [], 0
        try:
            while not ahead.is_terminal() and ahead.turn_number == 0 and steps < PRE_TURN_STEPS:
                if ahead.current_player() == CHANCE:
                    ahead.apply_action(ahead.sample_chance(dealer))
                    deals += 1
                else:
                    action = dealer.choice(ahead.legal_actions())
                    played.append(ahead.action_to_string(action))
                    ahead.apply_action(action)
                steps += 1
        except RuntimeFault:
            err(printable(f"rulelang analyze: the rules faulted while the round's decisions before the first turn "
                          f"were played at random with seed {deal_seed} ({'; '.join(played) or 'none yet'}); "
                          "`--seed N` plays others"))
            raise
        if ahead.turn_number == 1 and not ahead.is_terminal():  # else no turn came: from where it stood
            state, before, dealt = ahead, played, dealt + deals
    if dealt == 0 and not before and args.seed is not None:
        raise UsageError("--seed deals the draws, shuffles and set-up rolls at the start, and this start has none")
    # On a terminal the count is rewritten in place; elsewhere (a pipe, a log) a line now and then
    progress = _AnalysisProgress(args.max_states, sys.stderr.isatty()) if args.format == "text" else None
    try:
        if objective is None:
            objective = (analysis.gain_objective if objective_text == "gain" else analysis.success_objective)(game)
        flat = args.format == "text" and not state.is_terminal() and analysis.flat_objective(state, objective)
        if flat:
            err("note: in 24 random plays of this turn the objective never changed: where best play cannot "
                "change it either, every line of play is worth the same (a winner rule scored in `round:`, or "
                "one a single turn rarely moves); `--objective EXPR` values what the turn does change")
        started = time.perf_counter()
        try:
            result = analysis.Analysis(state, objective, args.exact, args.max_states, args.max_steps,
                                       progress=progress)
        finally:
            if progress is not None:
                progress.done()
        seconds = time.perf_counter() - started
        policy = result.policy(args.top)
        if flat and any(line.runner_up is not None and line.runner_up_value != line.value for line in policy):
            err("note: the search found lines of play worth more than others after all: the note above does not "
                "apply to this turn")
    except analysis.AnalysisRefused as refused:
        err(printable(f"rulelang analyze: the turn cannot be analysed: {refused}"))
        return EXIT_USAGE

    def number(value) -> Any:
        if args.format == "json":
            return str(value) if isinstance(value, Fraction) else value
        if isinstance(value, Fraction):
            return f"{value} (~{float(value):.4f})" if value.denominator != 1 else str(value)
        # (a number the objective gave as a whole one is shown as the others are)
        if isinstance(value, float) or (not args.exact and isinstance(value, int) and not isinstance(value, bool)):
            return f"{value:.4f}"
        return str(value)

    where = f"round {state.round_number}" + (f", turn {state.turn_number}" if state.turn_number else "")
    if args.format == "json":
        print(json.dumps({
            "game": game.name, "players": players, "seat": result.seat, "at": where,
            "objective": objective.name, "value": number(result.value), "exact": args.exact,
            "states": result.states, "seconds": round(seconds, 3), "reads_unseen": list(result.sees_hidden),
            "dealt": {"steps": dealt, "seed": deal_seed} if dealt else None,
            "played_before": before,
            "policy": [{"decision": line.decision, "probability": number(line.probability),
                        "situation": line.situation, "best": line.best,
                        "value": number(line.value), "runner_up": line.runner_up,
                        "runner_up_value": None if line.runner_up is None else number(line.runner_up_value)}
                       for line in policy]}, indent=2))
        return EXIT_OK
    decides = "turn" if state.turn_number else "decision"  # (a game played in rounds alone has no turns)
    print(printable(f"{game.name}, {players} player{'s' if players != 1 else ''}: player {result.seat + 1}'s "
                    f"{decides}, from {where}"))
    print(printable(f"objective: {objective.text}"))
    if dealt:
        print(f"the deal at the start ({dealt} draws, shuffles and set-up rolls) was dealt with seed "
              f"{deal_seed}; `--seed N` deals another")
    if before:
        print(printable(f"before the first turn, the round's decisions were played at random with seed {deal_seed}: "
                        + "; ".join(before)))
    print(f"value of best play: {number(result.value)}")
    if result.sees_hidden:
        others_decide = any(node[1] == "min" for node in result.nodes.values())
        print(printable(SEES_HIDDEN.format(", ".join(f"`{name}`" for name in result.sees_hidden),
                                           OTHERS_SEE_TOO if others_decide else UPPER_BOUND)))
    print(f"{result.states:,} states valued in {seconds:.2f} s")
    if policy:
        print(f"\nbest play, decision by decision, the {args.top} likeliest situations of each (chance of "
              "reaching it, what the player sees: best option = value; runner-up = value):")
        decision = None
        for line in policy:
            if line.decision != decision:
                decision = line.decision
                print(printable(f"{decision or 'a decision'}:"))
            runner = "" if line.runner_up is None else f"; {line.runner_up} = {number(line.runner_up_value)}"
            print(printable(f"{number(line.probability):>8}  {line.situation}: {line.best} = {number(line.value)}{runner}"))
    return EXIT_OK


class _AnalysisProgress:
    """How far a long analysis has got, on stderr: the states valued so far, of the most it may
    value, rewritten in place every few seconds on a terminal, else a line every half minute
    (nothing for one that ends sooner)."""

    def __init__(self, most: int, in_place: bool = True):
        import time
        self.clock = time.perf_counter
        self.started = self.last = self.clock()
        self.most, self.in_place = most, in_place
        self.every, self.shown = (2.0 if in_place else 30.0), False

    def __call__(self, states: int) -> None:
        now = self.clock()
        if now - self.last >= self.every:
            self.last, self.shown = now, True
            text = (f"{states:,} states valued, of at most {self.most:,} (--max-states) "
                    f"({now - self.started:.0f} s; Ctrl-C stops)")
            sys.stderr.write(f"\r  {text}" if self.in_place else f"rulelang analyze: {text}\n")
            sys.stderr.flush()

    def done(self) -> None:
        if self.shown and self.in_place:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


SEES_HIDDEN = ("note: the rules may read what some seat does not see ({}), and the analysis sees everything: "
               "where a decision depends on it, this is the value of play that sees it ({}), and the policy "
               "may use it")
UPPER_BOUND = "for the player, an upper bound on best play"
# other seats decide in the turn, and see what the player hides: seeing helps both sides
OTHERS_SEE_TOO = ("other players decide in this turn too, and are valued as seeing everything as well, so the "
                  "value is no bound on best play either way")


def resolve_bots(game: GameDef, players: int | None, bots_arg: str | None) -> list[str]:
    """The bot of each seat, from --bots (one bot for every seat, or one per seat) and --players."""
    bots = [bot_spec(b) for b in (bots_arg or "random").split(",")]
    if players is None:
        players = len(bots) if len(bots) > 1 else game.min_players
    if not game.min_players <= players <= game.max_players:
        raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, "
                         f"not {players}")
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise UsageError(f"--bots names {len(bots)} bots for {players} players")
    if not game.min_players <= players <= game.max_players:
        raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, "
                         f"not {players}")
    return bots


# ---------------------------------------------------------------------- compare
def cmd_compare(args: argparse.Namespace) -> int:
    """Play a variant and its base on common random numbers and report paired differences."""
    _check_batch_args(args)
    options = parse_options(args.option)
    limits = parse_limits(args.limit)
    games, paths, given = [], [], []
    declared: set[str] = set()
    for path in (args.base, args.variant):  # each file takes the options it declares
        paths.append(find_rules(path))
        game, code = load_game(paths[-1], {}, limits)
        if game is None:
            return code
        own = {name: value for name, value in options.items() if name in {o.name for o in game.options}}
        declared.update(o.name for o in game.options)
        if own:
            game, code = load_game(paths[-1], own, limits)
            if game is None:
                return code
        games.append(game)
        given.append(own)
    unknown = [name for name in options if name not in declared]
    if unknown:
        err(printable(f"error[E108]: neither {paths[0]} nor {paths[1]} has an option `{unknown[0]}`"))
        err(printable(f"  = help: options: {', '.join(sorted(declared)) or 'none'}"))
        return EXIT_USAGE
    bots = resolve_bots(games[0], args.players, args.bots)
    resolve_bots(games[1], len(bots), ",".join(bots))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    played = []
    for path, game, own in zip(paths, games, given):
        job = batch.Job(os.path.abspath(path), tuple(own.items()), limits, tuple(bots), seed)
        played.append(play_batch(args, job, game))
        if played[-1].simulation.interrupted:
            err("interrupted: nothing to compare")
            return EXIT_INTERRUPTED
    criteria = [[game.rules[c.rule].name for c in game.criteria] for game in games]
    result = lab.compare(played[0].results, played[1].results, len(bots), *criteria)
    result.update({"base": paths[0], "variant": paths[1], "games": args.games, "seed": seed,
                   "bots": bots, "options": options})
    if args.format == "json":
        print(json.dumps(result, indent=2))
    else:
        header = (f"{printable(games[1].name)} against {printable(games[0].name)}: {args.games} games each, "
                  f"{len(bots)} players ({', '.join(bots)}), seeds {seed}..{seed + args.games - 1}")
        print(lab.format_compare(result, paths[0], paths[1], header))
    faulted = False
    for side, path, part in (("base", paths[0], played[0]), ("variant", paths[1], played[1])):
        for seed_of_game, diagnostic in part.simulation.faults[:3]:  # the rules' faults: named, exit 1
            faulted = True
            where = f" ({diagnostic.span.where()})" if diagnostic.span is not None else ""
            err(printable(f"fault in the {side} ({path}) game with seed {seed_of_game}: {diagnostic.code} "
                          f"{diagnostic.message}{where}"))
    return EXIT_ERRORS if faulted else EXIT_OK


# ---------------------------------------------------------------------- diff
def cmd_diff(args: argparse.Namespace) -> int:
    """Show what a variant adds, replaces or removes compared with a base game."""
    trees, problems = [], []
    for path in (args.base, args.variant):
        tree, diagnostics = diff.load_merged(path)
        trees.append(tree)
        problems.extend((path, d) for d in diagnostics)
    if problems:
        for path, d in problems:
            err(render_full(d) if d.span else render_full(d) + f"\n  --> {path}")
        return EXIT_USAGE if any(d.code == "E107" for _, d in problems) else EXIT_ERRORS
    changes = diff.compare(trees[0], trees[1])
    if args.format == "json":
        print(json.dumps(diff.to_json(args.base, args.variant, changes), indent=2))
    else:
        print(diff.format_text(args.base, args.variant, changes))
    return EXIT_OK


# ---------------------------------------------------------------------- arguments
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rulelang", description="A rules language for tabletop "
                                     "dice and card games: play, check and balance rules files.")
    from . import __version__
    parser.add_argument("--version", action="version", version=f"rulelang {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser("run", help="play a game at the terminal (humans and bots)",
                         description="Play a game. Seats are `you` or a bot; without a terminal "
                         "all seats are bots.")
    run.add_argument("file", nargs="?", metavar="FILE", help="the rules file")
    run.add_argument("--players", type=int, help="number of players (default: the game's minimum)")
    run.add_argument("--seats", "--bots", help="who plays each seat, e.g. you,mc,random")
    run.add_argument("--bot", default="mc", help=f"the bot for bot seats ({', '.join(AGENTS)}; default mc), "
                     "with options as NAME:OPTION=VALUE, e.g. deduce:max_worlds=8192")
    run.add_argument("--seed", type=int, help="seed for dice and bots (default: random, printed)")
    run.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a game option")
    run.add_argument("--fast", action="store_true", help="no pause between bot moves")
    run.add_argument("--log", metavar="PATH", help="where to write the game log "
                     "(default logs/<game>-<time>.jsonl)")
    run.add_argument("--resume", metavar="LOG", help="replay a log and play on from its end")
    run.add_argument("--rules", metavar="FILE", help="with --resume: the rules file, instead of the "
                     "one the log names")
    run.add_argument("--check", action="store_true", help="check the invariants after every step")
    add_limit_option(run)
    run.add_argument("--as", dest="as_seat", metavar="SEAT", help="bots alone: show seat SEAT's "
                     "view (1..n), or `all` (the referee's); default: a spectator's")
    run.set_defaults(handler=cmd_run)

    lint = sub.add_parser("lint", help="check rules files and print diagnostics")
    lint.add_argument("files", nargs="+", metavar="FILE")
    lint.add_argument("--format", choices=("full", "concise", "json"), default="full")
    lint.add_argument("--no-warnings", action="store_true", help="show errors only")
    lint.add_argument("--limit", action="append", default=[], type=_lint_limit, metavar="NAME=VALUE",
                      help="raise a limit, e.g. `pieces=200000` (docs/language.md, 3.1)")
    lint.set_defaults(handler=cmd_lint)

    fmt = sub.add_parser("fmt", help="lay rules files out canonically (rewrites them in place)",
                         description="Rewrite each FILE in the canonical layout: 4-space blocks, one "
                         "space around operators and after commas, comments kept. Only whitespace changes.")
    fmt.add_argument("files", nargs="+", metavar="FILE")
    mode = fmt.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; list the files that would "
                      "change and exit 1 if any would")
    mode.add_argument("--diff", action="store_true", help="change nothing; print a unified diff of the "
                      "changes and exit 1 if there are any")
    fmt.set_defaults(handler=cmd_fmt)

    replay = sub.add_parser("replay", help="replay a game log and check it reproduces")
    replay.add_argument("log", metavar="LOG")
    replay.add_argument("--quiet", action="store_true", help="do not print the trace")
    replay.add_argument("--rules", metavar="FILE", help="the rules file, instead of the one the log names")
    add_limit_option(replay)
    replay.add_argument("--as", dest="seat", metavar="SEAT",
                        help="show what player SEAT (1, 2, ...) saw, or `spectator` (public information "
                        "only), not the referee's whole record (`all`, the default)")
    replay.add_argument("--out", metavar="FILE", help="write the transcript as --as sees it to FILE; --as is needed here (a seat, "
                        "spectator or all), so that the referee's record of every hidden card is never written by "
                        "accident")
    replay.set_defaults(handler=cmd_replay)

    explain_ = sub.add_parser("explain", help="explain a diagnostic code, or a game's rules",
                             description="`explain E101` explains a code; `explain F.rules RULE` (or "
                             "`explain RULE --file F`) shows a rule or another name of a game; `explain F.rules` "
                             "(or `explain --file F`) lists the game's contents.")
    explain_.add_argument("topic", nargs="?", metavar="CODE|RULE|FILE")
    explain_.add_argument("name", nargs="?", metavar="NAME", help="with FILE first: a name in that game")
    explain_.add_argument("--file", metavar="FILE", help="the rules file the rule is in")
    explain_.set_defaults(handler=cmd_explain)

    simulate_ = sub.add_parser("simulate", help="play many bot games: win shares, scores, endings")
    simulate_.add_argument("file", metavar="FILE")
    simulate_.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    simulate_.add_argument("--players", type=int, help="number of players")
    simulate_.add_argument("--bots", "--seats", help="bot per seat, e.g. random,mc (default: random for all); "
                           "options as NAME:OPTION=VALUE, e.g. deduce:considered=128,random; "
                           f"bots: {', '.join(AGENTS)}")
    simulate_.add_argument("--seed", type=int, help="seed of the first game (game i uses seed+i)")
    simulate_.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a game option")
    simulate_.add_argument("--check", action="store_true", help="check the invariants after every step")
    simulate_.add_argument("--format", choices=("text", "json"), default="text")
    simulate_.add_argument("--max-faults", type=int, default=5, metavar="N",
                           help="stop the batch once N games faulted, if most games so far did (default 5)")
    simulate_.add_argument("--rotate", action="store_true", help="game i moves every bot i seats on, "
                           "so each bot plays each seat equally (for a bot's win share against others)")
    add_batch_options(simulate_)
    simulate_.add_argument("--out", metavar="FILE", help="write each game's result to FILE "
                           "(.csv or .jsonl): seed, bots, winners, scores, turns, ending rule, fault")
    simulate_.add_argument("--plot", metavar="DIR", help="draw score distributions, win share by seat "
                           "and game length into DIR (needs rulelang[lab])")
    simulate_.add_argument("--plot-format", choices=("png", "svg"), default="png")
    add_limit_option(simulate_)
    simulate_.set_defaults(handler=cmd_simulate)

    compare_ = sub.add_parser("compare", help="a variant against its base: paired differences with CIs",
                              description="Play BASE and VARIANT on the same seeds (common random numbers: "
                              "the same dice wherever the games take the same steps) and report the "
                              "paired difference of each statistic with a 95% confidence interval.")
    compare_.add_argument("base", metavar="BASE")
    compare_.add_argument("variant", metavar="VARIANT")
    compare_.add_argument("--games", type=int, default=200, help="games of each file (default 200)")
    compare_.add_argument("--players", type=int, help="number of players")
    compare_.add_argument("--bots", "--seats", help="bot per seat, e.g. mc,random (default: random for all)")
    compare_.add_argument("--seed", type=int, help="seed of the first game (game i uses seed+i)")
    compare_.add_argument("--option", action="append", metavar="NAME=VALUE",
                          help="set a game option, in each file that has it (an option only the "
                          "variant declares is set for the variant alone)")
    compare_.add_argument("--format", choices=("text", "json"), default="text")
    add_batch_options(compare_)
    add_limit_option(compare_)
    compare_.set_defaults(handler=cmd_compare, max_faults=10**9, check=False, rotate=False)
    analyze_ = sub.add_parser(
        "analyze", help="the exact value of best play for one turn, and the best-play policy",
        description="Expectimax over every roll outcome (exact probabilities) and every option of one turn, "
        "from a turn's start (the game's first turn, or a log's state with --log and --at), until the turn "
        "ends. The player whose turn it is plays best; another seat deciding in that turn plays worst for "
        "them. Objectives: `gain` (default: the first winner rule's value for the player at the turn's end "
        "minus at the start; for a `least` rule, start minus end), `success` (the chance that the turn gains "
        "something under that rule), or any rules expression worked out for the player at the turn's end "
        "(true counts 1). A turn that does not end within --max-steps steps, can come back to a state it was "
        "in, or has more than --max-states states is refused (exit 2).")
    analyze_.add_argument("file", nargs="?", metavar="FILE", help="the rules file (with --log: instead of the log's)")
    analyze_.add_argument("--players", type=int, help="number of players (default: the game's minimum)")
    analyze_.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a game option")
    analyze_.add_argument("--log", metavar="LOG", help="analyse from a state of this game log")
    analyze_.add_argument("--at", type=int, metavar="N", help="with --log: the state after N steps (default: the end)")
    analyze_.add_argument("--seed", type=int, metavar="N", help="deal the draws and shuffles at the start (a deal "
                          "of cards before the turn), and the set-up's rolls, with this seed (default 0); the rest "
                          "is analysed")
    analyze_.add_argument("--objective", metavar="gain|success|EXPR", help="what the turn is worth (default: gain)")
    analyze_.add_argument("--exact", action="store_true", help="exact fractions instead of floats")
    analyze_.add_argument("--top", type=int, default=20, metavar="N", help="situations listed per decision in the policy (default 20)")
    analyze_.add_argument("--format", choices=("text", "json"), default="text")
    analyze_.add_argument("--max-states", type=int, default=2_000_000, metavar="N",
                          help="refuse a turn with more states than this (default 2,000,000)")
    analyze_.add_argument("--max-steps", type=int, default=400, metavar="N",
                          help="refuse a turn that does not end within N steps (default 400)")
    add_limit_option(analyze_)
    analyze_.set_defaults(handler=cmd_analyze)

    diff_ = sub.add_parser("diff", help="what a variant adds, replaces or removes from a base game")
    diff_.add_argument("base", metavar="BASE")
    diff_.add_argument("variant", metavar="VARIANT")
    diff_.add_argument("--format", choices=("text", "json"), default="text")
    diff_.set_defaults(handler=cmd_diff)

    test_ = sub.add_parser("test", help="run scenario files: scripted dice and decks, expected outcomes",
                           description="Play each scenario file (a folder: every *.scenario below it) and "
                           "say ok or FAIL; a failure shows the step, the state and the last trace lines.")
    test_.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders")
    test_.set_defaults(handler=cmd_test)

    games_ = sub.add_parser("games", help="list the games that ship with rulelang",
                            description="The games installed with rulelang: `rulelang run NAME.rules` "
                            "plays one from any folder (a local file of that name wins).")
    games_.set_defaults(handler=cmd_games)

    playground = sub.add_parser("playground", help="the browser playground: build its static site, or serve it",
                                description="A static site that runs rulelang in the browser (Pyodide). "
                                "Its npm packages are downloaded once into a cache folder and checked.")
    action = playground.add_subparsers(dest="action", metavar="ACTION", required=True)
    build_ = action.add_parser("build", help="write the site into DIR")
    build_.add_argument("dir", metavar="DIR")
    serve_ = action.add_parser("serve", help="build the site and serve it over HTTP (Ctrl-C stops)")
    serve_.add_argument("--dir", metavar="DIR", help="build into DIR (default: a temporary folder)")
    serve_.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve_.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    for each in (build_, serve_):
        each.add_argument("--cache", metavar="DIR", help="the npm tarball cache (default: "
                          "$RULELANG_CACHE or ~/.cache/rulelang/npm)")
    playground.set_defaults(handler=cmd_playground)
    return parser


def cmd_test(args: argparse.Namespace) -> int:
    """Run scenario files; exit 1 when one fails."""
    from . import scenario

    paths: list[str] = []
    for given in args.paths:
        folder = Path(given)
        if folder.is_dir():
            paths += [str(p) for p in sorted(folder.rglob("*.scenario"))]
        else:
            paths.append(given)
    if not paths:
        raise UsageError("no scenario files found in " + ", ".join(args.paths))
    failed = 0
    for path in paths:
        result = scenario.run_scenario(path)
        print(printable(("ok    " if result.passed else "FAIL  ") + path))
        if not result.passed:
            failed += 1
            print("\n".join(printable(line) for line in result.message.split("\n")), end="\n\n")
    print(f"{len(paths) - failed} passed, {failed} failed")
    return EXIT_ERRORS if failed else EXIT_OK


def cmd_games(args: argparse.Namespace) -> int:
    """List the bundled games: file name, title and player counts."""
    rows = []
    for path in bundled_games():
        game, _ = analyse(str(path), warnings=False)
        if game is not None:
            rows.append((path.name, game.name, f"{game.min_players}-{game.max_players} players"))
    width = max((len(r[0]) for r in rows), default=0)
    title = max((len(r[1]) for r in rows), default=0)
    for name, game_name, players in rows:
        print(printable(f"{name:<{width}}  {game_name:<{title}}  {players}"))
    if rows:
        print(f"\nplay one with `rulelang run {rows[0][0]}`, from any folder")
    return EXIT_OK


def cmd_playground(args: argparse.Namespace) -> int:
    """Build the playground's site (and serve it); a failed download or check exits 2."""
    import tempfile

    from .playground import build

    cache = Path(args.cache) if args.cache else None
    if args.action == "serve" and not 0 <= args.port <= 65535:
        raise UsageError(f"--port takes 0 to 65535, not {args.port}")
    try:
        if args.action == "build":
            summary = build.build_site(Path(args.dir), cache)
            print(f"built {summary['files']} files ({summary['bytes'] / 1e6:.1f} MB) in {args.dir}")
            print(f"serve it with `rulelang playground serve --dir {args.dir}`")
            return EXIT_OK
        with tempfile.TemporaryDirectory(prefix="rulelang-playground-") as temporary:
            site = Path(args.dir or temporary)
            build.build_site(site, cache)
            build.serve(site, args.host, args.port)
    except build.BuildError as error:
        raise UsageError(str(error)) from None
    return EXIT_OK


def add_batch_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="play on N processes (default 1); the results are the same for any N")
    parser.add_argument("--cluster", metavar="ADDRESS", help="play on the Dask cluster whose scheduler "
                        "is at ADDRESS, e.g. tcp://host:8786 (needs rulelang[lab]; the workers read "
                        "the rules file from the same path)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_limit_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", action="append", metavar="NAME=VALUE",
                        help=f"raise (or lower) a limit, e.g. work=5000000; limits: {', '.join(LIMIT_NAMES)}")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    previous = _stop_on_sigterm()
    try:
        return args.handler(args)
    except UsageError as error:
        err(f"rulelang {args.command}: error: {error}")
        return EXIT_USAGE
    except RuntimeFault as fault:  # e.g. a fault in the set-up, before any log exists
        return report_fault(fault)
    except TraceUnavailable as error:  # a defect of rulelang's, said in words, never a traceback
        err(printable(f"rulelang {args.command}: error: the trace cannot be shown: {error}"))
        return EXIT_ERRORS
    except KeyboardInterrupt:
        err("\ninterrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`| head`): say nothing more, and let the exit flush go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    finally:
        if previous is not False:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _stop_on_sigterm():
    """Make SIGTERM (`kill`, a job scheduler's stop) stop a command as Ctrl-C does: a game keeps
    its log, a simulation its finished games and its workers no longer outlive it. Returns the
    handler it replaced (None: one not set from Python; False where signals cannot be set:
    not the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return False

    def stop(signum, frame):
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, stop)
