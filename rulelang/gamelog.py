"""Game logs: JSON lines that record a game as it is played, and replaying them.

A log is a header line, one line per applied action, and an end line:

    {"rulelang_log": 1, "record": "referee", "rules": "../games/some-game.rules", "players": 2,
     "seats": ["you", "mc"], "options": {...}, "seed": 7}
    {"turn": 1, "player": "chance", "action": [[0, 2, 2, 3, 4, 4, 5, 5]], "text": "roll 1 3 3 ..."}
    {"turn": 1, "player": 0, "action": 2, "text": "set aside: star"}
    {"end": true, "returns": [1.0, 0.0], "scores": [[9, 27], [4, 25]], "winners": [0]}

The rules path is relative to the log's folder (``rules_of_log`` keeps it inside that folder's
tree, or the working folder's).

The log is the referee's record (``"record": "referee"``): it holds every hidden piece and die
face, so it is not for the players' eyes; ``rulelang replay LOG --as SEAT`` shows one seat's view
and ``--out FILE`` writes it as that player's transcript.

The seed and the log together reproduce a game, and a game resumed from a log goes on exactly as
it would have without the interruption: the randomness of every step is drawn from its own
generator, made from the game seed and the step number (rulelang.seeding, whose scheme the
header records as ``"seeding"``), so nothing depends on how many numbers an earlier bot search
or roll consumed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import attrs

from .diagnostics import RuntimeFault, register
from .files import FileRefused, confine, find_rules, inside, is_bundled, read_bytes
from .limits import DEFAULT, Limits
from .runtime import CHANCE, State
from .seeding import SCHEMES, SEEDING, seeded_action, step_rng, step_seed  # noqa: F401

LOG_VERSION = 1
# The longest number a game may compute (the most `number_digits` allows) with its sign: scores
# and option values in a log written by `run` are no longer.
MAX_INT_DIGITS = 4_001

register("E701", "invalid-log", """
A game log that rulelang cannot use: not JSON lines, no `rulelang_log` header, or a field of
the wrong type or out of range (a seat that is not a name, JSON nested more deeply than the
limit, a number too long). The message names the log and the line. Logs are written by `rulelang run`;
a log edited by hand, or written by someone else, is checked field by field before use.
""")
register("E702", "log-too-large", """
A game log is larger than the limit (50,000,000 bytes by default). Raise the limit with
`--limit log_bytes=N` if a real game needs it. (JSON nested more deeply than `log_depth`, 20
levels by default, is an invalid log, E701.)
""")
register("E703", "log-does-not-match", """
A game log does not match its rules: an action that is not legal there, a text that differs,
or an end line where the rules go on. The message names the line where they part.
""")


class LogError(Exception):
    """A log that cannot be read or used (``code`` E701, E702, E703; ``line`` when known)."""

    def __init__(self, message: str, code: str = "E701"):
        super().__init__(message)
        self.code = code
        self.message = message


@attrs.frozen
class GameLog:
    """A log as read back: its header, its action lines (with their line numbers) and the end
    line (None when the game was interrupted)."""

    path: str
    header: dict
    actions: tuple[tuple[int, dict], ...]
    end: dict | None
    dropped_tail: bool = False  # a last line cut short (a crash while writing) was ignored
    fault: dict | None = None  # the line saying the game stopped on a fault (`write_fault`)


@attrs.frozen
class Replay:
    """The outcome of replaying a log: the state reached, and the first mismatch if any."""

    state: State
    applied: int
    mismatch: str | None = None
    fault: str | None = None  # the code of the fault the log stopped on, met again at its last action

    @property
    def reproduced(self) -> bool:
        return self.mismatch is None


# ---------------------------------------------------------------------- actions as JSON
def action_to_json(action: Any) -> Any:
    """A decision index stays an int; a chance outcome (tuples of face indices) becomes lists."""
    if isinstance(action, tuple):
        return [action_to_json(a) for a in action]
    return action


def action_from_json(value: Any) -> Any:
    """The inverse of ``action_to_json``: nested lists become tuples of tuples."""
    if isinstance(value, list):
        return tuple(action_from_json(v) for v in value)
    return value


# ---------------------------------------------------------------------- writing
def default_log_path(rules: str, directory: str | Path = "logs") -> Path:
    """``logs/<game-stem>-<timestamp>.jsonl``, made unique if a log of that name exists."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(directory) / f"{Path(rules).stem}-{stamp}"
    path = base.with_suffix(".jsonl")
    counter = 2
    while path.exists():
        path = Path(f"{base}-{counter}.jsonl")
        counter += 1
    return path


_EXTENDS = re.compile(rb'^extends[ \t]+"([^"]*)"', re.M)


def file_digest(path: str | Path, _seen: tuple[str, ...] = (), root: str | Path | None = None) -> str | None:
    """The SHA-256 of a rules file, to tell later whether it changed since the log was made.
    A variant's digest covers the files it extends too (a file that extends none keeps the
    plain SHA-256 of its bytes). Files are read as the pipeline reads them: regular files
    within the size limit, ``extends`` confined to the tree of ``root`` (the first file's folder)."""
    root = Path(path).parent if root is None else root
    try:
        data = read_bytes(path, DEFAULT.file_bytes)
    except FileRefused:
        return None
    digest = hashlib.sha256(data)
    extends = _EXTENDS.search(data)
    resolved = str(Path(path).resolve())
    if extends is not None and resolved not in _seen:
        try:
            base = confine(extends.group(1).decode("utf-8", "replace"), Path(path).parent, root)
        except FileRefused:
            base = None
        digest.update(b"\0extends\0" + ((file_digest(base, _seen + (resolved,), root) if base else None)
                                         or "").encode())
    return digest.hexdigest()


def rules_for_log(rules: str | Path, log_path: str | Path) -> str:
    """The rules path a log's header records: relative to the log's folder, where replays look."""
    try:
        return Path(os.path.relpath(Path(rules).resolve(), Path(log_path).resolve().parent)).as_posix()
    except ValueError:  # another drive (Windows)
        return str(rules)


def rules_of_log(log: GameLog) -> Path:
    """The rules file a log names: a `.rules` file, relative to the log's folder, inside the
    log's folder tree or the working folder's (where `rulelang run` put both the log and the
    rules); raises FileRefused (E109) otherwise, without opening it."""
    return confine_log_rules(log.header["rules"], Path(log.path).parent)


def log_rules_root(rules: str | Path, log_path: str | Path) -> str:
    """The folder tree a log's rules file was found in (`rules_of_log`), where its ``extends``
    must stay: the log's folder, else the working folder, else (a shipped game) its own."""
    for folder in (Path(log_path).parent, Path.cwd()):
        if inside(rules, folder):
            return str(folder)
    return str(Path(rules).parent)


def confine_log_rules(named: str, folder: Path) -> Path:
    """``named`` from a log in ``folder``, confined as `rules_of_log` says; raises FileRefused."""
    if not named.endswith(".rules"):
        raise FileRefused("E109", f"`{named}` is not a `.rules` file", help="give the rules with `--rules FILE`")
    if not os.path.isabs(named) and "\0" not in named and inside(folder / named, Path.cwd()):
        # named from the working folder, as it is there (`nothanks.rules`, not `logs/../nothanks.rules`)
        found = Path(os.path.relpath((folder / named).resolve(), Path.cwd()))
    else:
        try:
            found = confine(named, folder, folder)
        except FileRefused:
            found = None
    if (found is None or not found.exists()) and "/" not in named and "\\" not in named:
        # A bare file name, as a log of a game shipped with rulelang records it, and no such
        # file beside the log: the shipped game of that name (a log can pick one of those,
        # never read another file).
        bundled = find_rules(named)
        if bundled != named and is_bundled(bundled):
            return Path(bundled)
    if found is None:
        return confine(named, folder, folder)  # raises FileRefused, as before
    return found


def _write(out: IO[str], record: dict) -> None:
    out.write(json.dumps(record) + "\n")
    out.flush()


def write_header(out: IO[str], rules: str, players: int, seats: list[str], options: dict,
                 seed: int, game: str = "", log_path: str | Path | None = None) -> dict:
    """Write the first line of a log, and return it. With ``log_path``, the rules path is
    written relative to the log's folder (where replays look for it). The log is the
    referee's record: it holds every seat's decisions and every roll and draw."""
    # A game shipped with rulelang and played from outside the folder it is in: its file name,
    # which a replay finds from anywhere (`confine_log_rules`).
    shipped = is_bundled(rules) and not inside(Path(rules), Path.cwd())
    named = Path(rules).name if shipped else \
        rules_for_log(rules, log_path) if log_path is not None else str(rules)
    header = {"rulelang_log": LOG_VERSION, "record": "referee",
              "rules": named,  # a game shipped with rulelang: its file name, found from anywhere
              "game": game, "players": players,
              "seats": list(seats), "options": dict(options), "seed": seed, "seeding": SEEDING,
              "rules_sha256": file_digest(rules)}
    _write(out, header)
    return header


def append_action(out: IO[str], state: State, action: Any) -> None:
    """Log an action of ``state``'s current node; call it before applying the action."""
    player = state.current_player()
    _write(out, {"turn": state.turn_number, "player": "chance" if player == CHANCE else player,
                 "action": action_to_json(action), "text": state.action_to_string(action)})


def write_end(out: IO[str], state: State) -> None:
    """Log the end of a finished game: returns, score table and winners."""
    _write(out, {"end": True, "returns": state.returns(), "scores": state.scores(),
                 "winners": list(state.winners)})


def write_fault(out: IO[str], code: str, message: str) -> None:
    """Log why a game stopped on a fault (replays ignore this line)."""
    _write(out, {"fault": code, "message": message})


# ---------------------------------------------------------------------- reading
def read_log(path: str | Path, limits: Limits = DEFAULT) -> GameLog:
    """Read a log; raises LogError when it cannot be used (E701 with the line, E702 when too
    large or too deep; an unreadable file is E701 too). Every field is checked for its type and
    range before anything uses it. A last line cut short is dropped (``dropped_tail``)."""
    try:
        data = read_bytes(path, limits.log_bytes)
    except FileRefused as refused:
        if refused.code == "E601":
            raise LogError(f"{path}: the log is larger than the limit of {limits.log_bytes} bytes",
                           "E702") from None
        raise LogError(refused.message) from None
    try:
        text = data.decode("utf-8-sig")  # (a byte-order mark that an editor put first is no line)
    except UnicodeDecodeError:
        raise LogError(f"{path}: not a rulelang log (not UTF-8 text)") from None
    raw = text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    records: list[tuple[int, dict]] = []
    dropped = False
    for number, line in enumerate(raw, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        if line.count("[") + line.count("{") > limits.log_depth and _depth(line) > limits.log_depth:
            raise LogError(f"{where}: JSON nested more than {limits.log_depth} levels deep "
                           "(raise the limit with `--limit log_depth=N`)")
        try:
            record = json.loads(line, parse_int=_small_int, parse_constant=_no_constant)
        except LogError as error:
            raise LogError(f"{where}: {error.message}") from None
        except (ValueError, RecursionError):
            if number == len(raw) and not text.endswith("\n"):
                dropped = True
                break
            raise LogError(f"{where}: not a JSON line") from None
        if not isinstance(record, dict):
            raise LogError(f"{where}: expected a JSON object")
        records.append((number, record))
    if not records or records[0][1].get("rulelang_log") != LOG_VERSION:  # (blank lines before it are skipped)
        raise LogError(f"{path}: not a rulelang log (the first line must be a rulelang_log header)")
    header = records[0][1]
    _check_header(header, f"{path}:{records[0][0]}")
    actions, end, fault = [], None, None
    for number, record in records[1:]:
        where = f"{path}:{number}"
        if end is not None:
            raise LogError(f"{where}: a line after the end of the game")
        if record.get("end"):
            end = record
        elif "action" in record:
            _check_action_line(record, where)
            actions.append((number, record))
        elif "fault" in record:
            fault = record
        else:
            raise LogError(f"{where}: neither an action nor the end of the game")
    return GameLog(str(path), header, tuple(actions), end, dropped, fault)


def _small_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise LogError(f"a number of {len(text)} digits, more than the {MAX_INT_DIGITS} a log uses")
    return int(text)


def _no_constant(text: str):
    raise LogError(f"`{text}` is not a number a log uses")


def _depth(line: str) -> int:
    """How deeply JSON brackets nest in a line, strings skipped: checked before json.loads, whose
    recursion a deep line would exhaust."""
    depth = deepest = 0
    in_string = escaped = False
    for char in line:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _is_int(value: Any) -> bool:
    return value.__class__ is int


def _check_header(header: dict, where: str) -> None:
    def bad(key: str, what: str) -> LogError:
        return LogError(f"{where}: the header's `{key}` must be {what}")

    rules = header.get("rules")
    if not isinstance(rules, str) or not rules or "\0" in rules or len(rules) > 4096:
        raise bad("rules", "the path of a rules file")
    players = header.get("players")
    if not _is_int(players) or not 1 <= players <= 1000:
        raise bad("players", "a number of players from 1 to 1000")
    if not _is_int(header.get("seed")):
        raise bad("seed", "a whole number")
    if header.get("seeding", 1) not in SCHEMES or not _is_int(header.get("seeding", 1)):
        raise bad("seeding", "a seeding scheme: " + " or ".join(map(str, SCHEMES)))
    if "seats" in header:
        seats = header["seats"]
        if not isinstance(seats, list) or not all(isinstance(s, str) and len(s) <= 100 for s in seats):
            raise bad("seats", "a list of seat names (`you` or a bot)")
        if len(seats) != players:
            raise LogError(f"{where}: the header has {len(seats)} seats for {players} players")
    if "options" in header:
        options = header["options"]
        if not isinstance(options, dict) or not all(
                isinstance(v, (str, int, bool)) and not isinstance(v, float) for v in options.values()):
            raise bad("options", "an object of option names and values (text, numbers, true or false)")
    for key in ("game", "rules_sha256"):
        if header.get(key) is not None and not isinstance(header[key], str):
            raise bad(key, "text")


def _check_action_line(record: dict, where: str) -> None:
    player = record.get("player")
    if not (player == "chance" or (_is_int(player) and 0 <= player < 1000)):
        raise LogError(f"{where}: `player` must be a seat number or \"chance\"")
    if "turn" in record and not _is_int(record["turn"]):
        raise LogError(f"{where}: `turn` must be a whole number")
    if not isinstance(record.get("text", ""), str):
        raise LogError(f"{where}: `text` must be text")
    if not _valid_action(record.get("action"), 3):
        raise LogError(f"{where}: `action` must be a number, or lists of face numbers")


def _valid_action(value: Any, depth: int) -> bool:
    """A decision index (int), a drawn piece (int) or a roll (lists of lists of ints)."""
    if _is_int(value):
        return value >= 0
    if isinstance(value, list) and depth > 1 and len(value) <= 10_000:
        return all(_valid_action(v, depth - 1) for v in value)
    return False


def rewrite_header(log: GameLog, rules: str | Path) -> None:
    """Name ``rules`` (and its digest) in the header of ``log``'s file: the rules a resumed game
    plays on with, which replayed its actions so far."""
    path = Path(log.path)
    lines = path.read_text(encoding="utf-8-sig").split("\n")
    header = dict(log.header, rules=rules_for_log(rules, path), rules_sha256=file_digest(rules))
    first = next(i for i, line in enumerate(lines) if line.strip())  # (blank lines may come before it)
    lines[first] = json.dumps(header)
    path.write_text("\n".join(lines), encoding="utf-8")


def rewrite_valid_lines(log: GameLog) -> None:
    """Cut a log whose last line was cut short back to its complete lines, so appending to it
    (when resuming) yields valid JSON lines again."""
    if not log.dropped_tail:
        return
    path = Path(log.path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.rfind("\n") + 1], encoding="utf-8")


# ---------------------------------------------------------------------- replaying
def replay_log(state: State, lines: Iterable[tuple[int, dict]], path: str = "log",
               fault: dict | None = None) -> Replay:
    """Re-apply logged actions to a fresh ``state`` (changed in place), checking that each one
    is legal and is described as the log says. Stops at the first mismatch. ``fault``: the
    log's fault line; the same fault at its last action is the log reproduced (``Replay.fault``)."""
    applied = 0
    lines = list(lines)
    last = lines[-1][0] if lines else None
    for number, record in lines:
        where = f"{path}:{number}"
        if state.is_terminal():
            return Replay(state, applied, f"{where}: the game is already over")
        action = action_from_json(record.get("action"))
        player = state.current_player()
        expected_player = "chance" if player == CHANCE else player
        if record.get("player") != expected_player:
            return Replay(state, applied, f"{where}: the log has {_mover_words(record.get('player'))} "
                          f"to move, the rules have {_mover_words(expected_player)}")
        if not _is_legal(state, action):
            return Replay(state, applied, f"{where}: {record.get('action')!r} is not a legal action "
                          f"(the log says `{record.get('text')}`)")
        text = state.action_to_string(action)
        if text != record.get("text"):
            return Replay(state, applied, f"{where}: the log says `{record.get('text')}`, "
                          f"the rules give `{text}`")
        try:
            state.apply_action(action)
        except RuntimeFault as met:
            if fault is not None and number == last and fault.get("fault") == met.diagnostic.code:
                return Replay(state, applied + 1, None, met.diagnostic.code)
            return Replay(state, applied, f"{where}: {met}")
        applied += 1
    return Replay(state, applied)


def _is_legal(state: State, action: Any) -> bool:
    # Decisions are indices and draws are pieces: both lists are short.
    if state.current_player() != CHANCE or state.prompt() in ("draw", "shuffle"):
        return isinstance(action, int) and not isinstance(action, bool) and action in state.legal_actions()
    # A roll: check the face indices here, without enumerating every outcome (1287 for eight
    # dice, with Fractions).
    if not isinstance(action, tuple) or not action:
        return False
    for faces in action:
        if not isinstance(faces, tuple) or list(faces) != sorted(faces):
            return False
        if not all(isinstance(f, int) and not isinstance(f, bool) and f >= 0 for f in faces):
            return False
    try:
        state.action_to_string(action)  # an index past the last face fails here
    except (IndexError, ValueError):
        return False
    return True


def compare_end(state: State, end: dict) -> str | None:
    """None when the replayed game ends as the log's end line says, else what differs."""
    if not state.is_terminal():
        return "the log says the game is over, but the replayed game goes on"
    got = {"returns": state.returns(), "scores": json.loads(json.dumps(state.scores())),
           "winners": list(state.winners)}
    for key, value in got.items():
        if key in end and end[key] != value:
            return f"the log's end has {key} {end[key]}, the replay has {value}"
    return None


def _mover_words(player) -> str:
    """Who moves, as the trace says it: `chance`, `player 2` (a log's seat counts from 0)."""
    if player == "chance":
        return "chance (a roll, draw or shuffle)"
    return f"player {player + 1}" if _is_int(player) else repr(player)
