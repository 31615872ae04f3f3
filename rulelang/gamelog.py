"""Game logs: JSON lines that record a game as it is played, and replaying them.

A log is a header line, one line per applied action, and an end line:

    {"rulelang_log": 1, "rules": "games/some-game.rules", "players": 2, "seats": ["you", "mc"],
     "options": {...}, "seed": 7}
    {"turn": 1, "player": "chance", "action": [[0, 2, 2, 3, 4, 4, 5, 5]], "text": "roll 1 3 3 ..."}
    {"turn": 1, "player": 0, "action": 2, "text": "set aside: star"}
    {"end": true, "returns": [1.0, 0.0], "scores": [[9, 27], [4, 25]], "winners": [0]}

The seed and the log together reproduce a game, and a game resumed from a log goes on exactly as
it would have without the interruption: the randomness of every step is drawn from its own
generator, seeded from the game seed and the step number (``step_rng``), so nothing depends on
how many numbers an earlier bot search or roll consumed.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import attrs

from .agents import make_agent, seat_view
from .diagnostics import RuntimeFault
from .runtime import CHANCE, State

LOG_VERSION = 1


class LogError(Exception):
    """A log that cannot be read or used: not JSON lines, no header, a bad action line."""


@attrs.frozen
class GameLog:
    """A log as read back: its header, its action lines (with their line numbers) and the end
    line (None when the game was interrupted)."""

    path: str
    header: dict
    actions: tuple[tuple[int, dict], ...]
    end: dict | None
    dropped_tail: bool = False  # a last line cut short (a crash while writing) was ignored


@attrs.frozen
class Replay:
    """The outcome of replaying a log: the state reached, and the first mismatch if any."""

    state: State
    applied: int
    mismatch: str | None = None

    @property
    def reproduced(self) -> bool:
        return self.mismatch is None


# ---------------------------------------------------------------------- seeds
def step_seed(seed: int, step: int, who: int) -> int:
    """The seed of one step of a seeded game: ``step`` is len(state.history) before the step,
    ``who`` the deciding seat, or CHANCE for a roll. A hash, so that nearby seeds and steps give
    unrelated streams, and stable across Python versions, so that old logs still resume."""
    digest = hashlib.blake2b(f"{seed}:{step}:{who}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def step_rng(seed: int, step: int, who: int) -> random.Random:
    """The generator for one step of a seeded game (see ``step_seed``). Seeding per step,
    rather than one stream per game, lets a resumed game continue exactly as the uninterrupted
    one would have, without re-running the bots' searches."""
    return random.Random(step_seed(seed, step, who))


def seeded_action(state: State, seed: int, bot: str | None = None) -> Any:
    """The action a seeded game takes at this node: a roll drawn with the step's generator, or
    the choice of the bot named ``bot`` (see rulelang.agents.AGENTS) seeded for this step.
    ``rulelang simulate`` and ``rulelang run`` both use it, so a simulated game's seed replays
    that very game in ``rulelang run --seed``."""
    step, player = len(state.history), state.current_player()
    if player == CHANCE:
        return state.sample_chance(step_rng(seed, step, CHANCE))
    if bot is None:
        raise ValueError("a decision needs a bot")
    return make_agent(bot, step_seed(seed, step, player)).choose(seat_view(state))


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


def file_digest(path: str | Path, _seen: tuple[str, ...] = ()) -> str | None:
    """The SHA-256 of a rules file, to tell later whether it changed since the log was made.
    A variant's digest covers the files it extends too (a file that extends none keeps the
    plain SHA-256 of its bytes)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(data)
    extends = _EXTENDS.search(data)
    resolved = str(Path(path).resolve())
    if extends is not None and resolved not in _seen:
        base = Path(path).parent / extends.group(1).decode("utf-8", "replace")
        digest.update(b"\0extends\0" + (file_digest(base, _seen + (resolved,)) or "").encode())
    return digest.hexdigest()


def _write(out: IO[str], record: dict) -> None:
    out.write(json.dumps(record) + "\n")
    out.flush()


def write_header(out: IO[str], rules: str, players: int, seats: list[str], options: dict,
                 seed: int, game: str = "") -> dict:
    """Write the first line of a log, and return it."""
    header = {"rulelang_log": LOG_VERSION, "rules": str(rules), "game": game, "players": players,
              "seats": list(seats), "options": dict(options), "seed": seed,
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
def read_log(path: str | Path) -> GameLog:
    """Read a log; raises LogError (OSError for an unreadable file) when it cannot be used.

    A last line cut short is dropped (``dropped_tail``); any other bad line is an error."""
    text = Path(path).read_text(encoding="utf-8")
    raw = text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    records: list[tuple[int, dict]] = []
    dropped = False
    for number, line in enumerate(raw, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(raw) and not text.endswith("\n"):
                dropped = True
                break
            raise LogError(f"{path}:{number}: not a JSON line") from None
        if not isinstance(record, dict):
            raise LogError(f"{path}:{number}: expected a JSON object")
        records.append((number, record))
    if not records or records[0][1].get("rulelang_log") != LOG_VERSION:
        raise LogError(f"{path}: not a rulelang log (the first line must be a rulelang_log header)")
    header = records[0][1]
    for key, kind in (("rules", str), ("players", int), ("seed", int), ("seats", list),
                      ("options", dict)):
        if key not in header and key in ("seats", "options"):
            continue
        if not isinstance(header.get(key), kind) or isinstance(header.get(key), bool):
            raise LogError(f"{path}:1: the header has no valid `{key}`")
    if "seats" in header and len(header["seats"]) != header["players"]:
        raise LogError(f"{path}:1: the header has {len(header['seats'])} seats for "
                       f"{header['players']} players")
    actions, end = [], None
    for number, record in records[1:]:
        if end is not None:
            raise LogError(f"{path}:{number}: a line after the end of the game")
        if record.get("end"):
            end = record
        elif "action" in record:
            actions.append((number, record))
        elif "fault" not in record:
            raise LogError(f"{path}:{number}: neither an action nor the end of the game")
    return GameLog(str(path), header, tuple(actions), end, dropped)


def rewrite_valid_lines(log: GameLog) -> None:
    """Cut a log whose last line was cut short back to its complete lines, so appending to it
    (when resuming) yields valid JSON lines again."""
    if not log.dropped_tail:
        return
    path = Path(log.path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.rfind("\n") + 1], encoding="utf-8")


# ---------------------------------------------------------------------- replaying
def replay_log(state: State, lines: Iterable[tuple[int, dict]], path: str = "log") -> Replay:
    """Re-apply logged actions to a fresh ``state`` (changed in place), checking that each one
    is legal and is described as the log says. Stops at the first mismatch."""
    applied = 0
    for number, record in lines:
        where = f"{path}:{number}"
        if state.is_terminal():
            return Replay(state, applied, f"{where}: the game is already over")
        action = action_from_json(record.get("action"))
        player = state.current_player()
        expected_player = "chance" if player == CHANCE else player
        if record.get("player") != expected_player:
            return Replay(state, applied, f"{where}: the log has player {record.get('player')!r} "
                          f"to move, the rules have {expected_player!r}")
        if not _is_legal(state, action):
            return Replay(state, applied, f"{where}: {record.get('action')!r} is not a legal action "
                          f"(the log says `{record.get('text')}`)")
        text = state.action_to_string(action)
        if text != record.get("text"):
            return Replay(state, applied, f"{where}: the log says `{record.get('text')}`, "
                          f"the rules give `{text}`")
        try:
            state.apply_action(action)
        except RuntimeFault as fault:
            return Replay(state, applied, f"{where}: {fault}")
        applied += 1
    return Replay(state, applied)


def _is_legal(state: State, action: Any) -> bool:
    # Decisions are indices and draws are pieces: both lists are short.
    if state.current_player() != CHANCE or state.prompt() == "draw":
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
