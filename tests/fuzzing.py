"""What the fuzz test (tests/test_fuzz.py) and the long-run fuzzer (tests/fuzz_long.py) share:
generators of rules text, and the check that a text gives only diagnostics, and, when it
compiles, plays a few games without a bare exception, each within a time bound.

Every generator takes a *drawer* ``r`` with ``r.integers(lo, hi)`` and ``r.choice(items)``:
in the test suite it draws from Hypothesis (so failures shrink), in the long run from a seeded
``random.Random``. Nothing here knows a game: names come from the files in ``games/``."""

from __future__ import annotations

import json
import os
import random
import re
import resource
import select
import signal
import time
import traceback
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from rulelang.agents import RandomAgent, evaluate, seat_view
from rulelang.diagnostics import CODES, RuntimeFault, render_concise, render_full, render_json
from rulelang.limits import Limits
from rulelang.pipeline import analyse
from rulelang.runtime import CHANCE

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").rglob("*.rules"))
GRAMMAR = (ROOT / "grammar" / "rulelang.lark").read_text(encoding="utf-8")

KEYWORDS = sorted(set(re.findall(r'"([^"\s]+)"', GRAMMAR)))
LAYOUT = ["\n", "\n", "\n    ", "\n        ", "\n    ", "    ", "\t", "\\\n", "# note\n"]
ODD = ["'", ";", "{", "\"", "\"text\"", "\"unterminated", "1", "36", "-", "é", "\r\n", "\x00",
       "\ufeff", "\x1b[31m", "\"\\\\n\"", "99999999999999999999", "0"]

BUILTIN_NAMES = ["player", "players", "others", "remaining", "turn_order", "round_number", "turn_number",
                 "player_count", "it", "moved", "moved_from", "moved_to"]
# name: (least, most) arguments, from docs/language.md 2.16
BUILTIN_FUNCTIONS = {"count": (1, 2), "sum": (1, 2), "max": (1, 2), "min": (1, 2), "highest": (1, 3),
                     "lowest": (1, 3), "top": (1, 1), "bottom": (1, 1), "first": (1, 2),
                     "last": (1, 2), "distinct": (1, 1), "subsets": (1, 1), "any": (2, 2),
                     "all": (2, 2), "seat": (1, 1), "sorted": (1, 3), "owner": (1, 1), "abs": (1, 1)}
BUILTIN_FUNCTIONS.update({"position": (2, 2), "runs": (2, 3), "pairs": (1, 2)})
BUILTIN_ATTRIBUTES = ["face", "value", "number", "kind"]  # docs/language.md 2.4, 2.5
LITERALS = ["true", "false", "none", "empty", '"text"', '""']
BINARY = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "is",
          "is not", "and", "or"]

CPU_SECONDS = 5     # per example, CPU time: a hang, whatever the load on the machine
# The engine's own bounds, lowered so that a game whose steps are merely expensive (25 dice in
# Chipo-chipa's `subsets`) faults with R509/R510 well inside CPU_SECONDS: a "hang" is then work
# that the limits do not count, which is what the fuzzer is for.
FUZZ_LIMITS = Limits(work=50_000, idle_actions=2_000)
WALL_SECONDS = 60   # per example, wall clock: a block on a fifo or a terminal uses no CPU
MEMORY_BYTES = 500 * 2 ** 20  # per example, address space beyond what the process had
PLAY_GAMES = 2
PLAY_STEPS = 200


# ---------------------------------------------------------------------- drawers


class RandomDrawer:
    """A drawer over a seeded ``random.Random``, for the long run."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def integers(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, items: Sequence):
        return self.rng.choice(items)


class HypothesisDrawer:
    """A drawer over Hypothesis's ``st.data()``, for the test suite (draws shrink)."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def integers(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))

    def choice(self, items: Sequence):
        return self.data.draw(self.st.sampled_from(items))


# ---------------------------------------------------------------------- names of a game

_DECLARED = re.compile(r"^\s*(?:die|tile|card|token|piece|zone|counter|define|option|procedure"
                       r"|invariant|rule|replace rule|add rule)\s+([A-Za-z_]\w*)", re.M)
_BOUND = re.compile(r"\b(?:let|choose|for each|one for each|and each)\s+([A-Za-z_]\w*)")
_ATTRIBUTE = re.compile(r"^\s+([A-Za-z_]\w*)\s*=[^=]", re.M)
_FACES = re.compile(r"^\s*faces\s+(.*)$", re.M)
_DEFINE_CALL = re.compile(r"^\s*define\s+([A-Za-z_]\w*)\s*\(([^)]*)\)", re.M)
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+")


class Names:
    """The names a game declares or binds (read from its text, so any game will do), for
    expressions that mostly make sense in that game."""

    def __init__(self, text: str):
        code = "\n".join(split_comment(line)[0] for line in text.split("\n"))
        found = set(_DECLARED.findall(code)) | set(_BOUND.findall(code)) | set(_ATTRIBUTE.findall(code))
        for faces in _FACES.findall(code):
            found |= {t for t in _TOKEN.findall(faces) if not t.isdigit()}
        found |= set(BUILTIN_ATTRIBUTES)
        found -= set(KEYWORDS) | {"let", "choose"}
        self.names = sorted(found) or ["x"]
        self.calls = {name: len([p for p in params.split(",") if p.strip()])
                      for name, params in _DEFINE_CALL.findall(code)}


_NAMES: dict[str, Names] = {}


def names_of(text: str) -> Names:
    if text not in _NAMES:
        _NAMES[text] = Names(text)
    return _NAMES[text]


# ---------------------------------------------------------------------- expressions


def expression(r, names: Names, depth: int = 3, top: bool = True) -> str:
    """A rulelang expression over the game's names, built-in names and functions: every
    operator of docs/language.md 2.15. Subexpressions are mostly parenthesised, so that most
    parse; sometimes not, so that precedence is exercised too."""
    if depth <= 0 or r.integers(0, 3) == 0:
        return atom(r, names)
    sub = lambda: expression(r, names, depth - 1, top=False)  # noqa: E731
    kind = r.integers(0, 11)
    if kind <= 2:
        text = f"{sub()} {r.choice(BINARY)} {sub()}"
    elif kind == 3:
        text = f"{r.choice(['not ', '-'])}{sub()}"
    elif kind <= 5:
        function = r.choice(sorted(BUILTIN_FUNCTIONS) + sorted(names.calls))
        least, most = BUILTIN_FUNCTIONS.get(function) or (names.calls[function],) * 2
        arity = r.integers(max(0, least - 1), most + 1) if r.integers(0, 5) == 0 else r.integers(least, most)
        return f"{function}({', '.join(sub() for _ in range(arity))})"
    elif kind == 6:
        return f"{wrap(sub())}.{r.choice(names.names)}"
    elif kind == 7:
        text = f"{r.choice(names.names)} of {sub()}"
    elif kind == 8:
        return f"{wrap(sub())}[{sub()}]"
    elif kind == 9:
        return f"[{', '.join(sub() for _ in range(r.integers(0, 3)))}]"
    elif kind == 10:
        text = f"{sub()} where {sub()}"
    else:
        text = f"{sub()} if {sub()} else {sub()}"
    return text if top or r.integers(0, 4) == 0 else f"({text})"


def wrap(text: str) -> str:
    return text if _TOKEN.fullmatch(text) else f"({text})"


def atom(r, names: Names) -> str:
    kind = r.integers(0, 9)
    if kind <= 1:
        return str(r.integers(0, 40))
    if kind == 2:
        return r.choice(["-1", "0", "1", "10" + "0" * r.integers(1, 40), "4294967296"])
    if kind <= 5:
        return r.choice(names.names)
    if kind <= 7:
        return r.choice(BUILTIN_NAMES)
    return r.choice(LITERALS)


# ---------------------------------------------------------------------- positions of expressions

_COMMENT = re.compile(r'^((?:[^"#]|"(?:[^"\\\n]|\\.)*"?)*)(#.*)?$')


def split_comment(line: str) -> tuple[str, str]:
    """The code of a line and its comment (a # inside a string is not a comment)."""
    m = _COMMENT.match(line)
    return (m.group(1), m.group(2) or "") if m else (line, "")


_END = r"\s*$"
# Where an expression stands, from grammar/rulelang.lark: the named group `e` is the expression.
POSITIONS = [re.compile(p) for p in [
    r"^\s*(?:rule \w+:\s*)?(?:if|elif|while) (?P<e>.+?):" + _END,
    r"\bchoose \w+ from .+? where (?P<e>.+?)(?=\s+(?:by|as)\b|" + _END + ")",
    r"\bchoose \w+ from (?P<e>.+?)(?=\s+(?:where|by|as)\b|" + _END + ")",
    r"^\s*counter \w+:\s*(?:shared|per player)\s*=\s*(?P<e>.+?)" + _END,
    r"^\s*define \w+(?:\([^)]*\))?\s*=\s*(?P<e>.+?)" + _END,
    r"\bgame ends (?:after a round )?when (?P<e>.+?)" + _END,
    r"(?:^|:)\s*(?:most|least) (?P<e>.+?)" + _END,
    r"^\s*invariant \w+:\s*(?P<e>.+?)" + _END,
    r"\bcreate (?P<e>\d+|\(.+\)) \w+ in\b",
    r"\bcreate \w+ in (?P<e>.+?)" + _END,
    r"\blet \w+ = (?P<e>.+?)" + _END,
    r"^\s*(?:rule \w+:\s*)?\w+(?: of .+?)? [+-]?= (?P<e>.+?)" + _END,
    r"\broll (?P<e>.+?)" + _END,
    r"\bmove (?P<e>.+?) to ",
    r"\bmove .+? to (?P<e>.+?)(?= at (?:top|bottom)|" + _END + ")",
    r'^\s*"[^"]*" if (?P<e>.+?)(?: once per \w+)?:',
    r"\bwhen (?:move|do) .*? if (?P<e>.+?)(?: instead)?:",
    r"\bfor each \w+ in (?P<e>.+?):",
    r"\bdraw (?:\d+ |\(.+\) )?from (?P<e>.+?) to ",
    r"\b(?:choose|may)\b.*?\bby (?P<e>[^:]+?)(?= as |:|" + _END + ")",
    r"\bwhere (?P<e>[^():,]+?)(?=\s*\)|\s+(?:to|by|as)\b|:?" + _END + ")",
    r"^\s+(?!let |rule )\w+ = (?P<e>.+?)" + _END,
]]


def expression_sites(lines: list[str]) -> list[tuple[int, int, int, bool]]:
    """Every (line, start, end, in_parentheses) where an expression stands."""
    sites = []
    for i, line in enumerate(lines):
        code, _ = split_comment(line)
        for pattern in POSITIONS:
            for m in pattern.finditer(code):
                if code[:m.start("e")].count('"') % 2:
                    continue  # inside a string
                sites.append((i, m.start("e"), m.end("e"), pattern.pattern.startswith(r"\bcreate (?P<e>")))
    return sites


def indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


# ---------------------------------------------------------------------- mutations
# Each takes the lines of a file (edited in place), the drawer, and the texts of every game.


def delete_line(lines, r, games):
    if lines:
        del lines[r.integers(0, len(lines) - 1)]


def duplicate_line(lines, r, games):
    if lines:
        i = r.integers(0, len(lines) - 1)
        lines.insert(i, lines[i])


def swap_lines(lines, r, games):
    if len(lines) > 1:
        i, j = r.integers(0, len(lines) - 1), r.integers(0, len(lines) - 1)
        lines[i], lines[j] = lines[j], lines[i]


def delete_character(lines, r, games):
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    if candidates:
        i = r.choice(candidates)
        at = r.integers(0, len(lines[i]) - 1)
        lines[i] = lines[i][:at] + lines[i][at + 1:]


def insert_word(lines, r, games):
    if lines:
        i = r.integers(0, len(lines) - 1)
        at = r.integers(0, len(lines[i]))
        word = r.choice(KEYWORDS + ODD + names_of("\n".join(lines)).names)
        lines[i] = f"{lines[i][:at]} {word} {lines[i][at:]}"


def replace_token(lines, r, games):
    """A name or number somewhere in the code replaced by another name, a number or an expression."""
    names = names_of("\n".join(lines))
    tokens = [(i, m.start(), m.end()) for i, line in enumerate(lines)
              for m in _TOKEN.finditer(split_comment(line)[0])]
    if tokens:
        i, start, end = r.choice(tokens)
        kind = r.integers(0, 2)
        new = (r.choice(names.names) if kind == 0 else atom(r, names) if kind == 1
               else f"({expression(r, names)})")
        lines[i] = lines[i][:start] + new + lines[i][end:]


def replace_expression(lines, r, games):
    """An expression where the grammar has one, replaced by a generated one."""
    sites = expression_sites(lines)
    if sites:
        i, start, end, parenthesised = r.choice(sites)
        new = expression(r, names_of("\n".join(lines)), depth=r.integers(0, 3))
        lines[i] = lines[i][:start] + (f"({new})" if parenthesised else new) + lines[i][end:]


def insert_expression(lines, r, games):
    """A new declaration or statement holding a generated expression: a counter's start value, a
    define, an invariant, an end condition, a winner criterion, a condition (if, elif, while, a
    branch of a choose), a create count, a choose, a let."""
    names = names_of("\n".join(lines))
    e = expression(r, names, depth=r.integers(0, 3))
    kind = r.integers(0, 11)
    top_level = {0: f"counter fuzz_counter: {r.choice(['shared', 'per player'])} = {e}",
                 1: f"define fuzz_define = {e}",
                 2: f"invariant fuzz_invariant: {e}"}
    if kind in top_level:
        lines.insert(r.choice([i for i, line in enumerate(lines) if not line[:1].isspace()] + [len(lines)]),
                     top_level[kind])
        return
    if kind in (3, 4):
        section, statement = ("end:", f"rule fuzz_end: game ends when {e}") if kind == 3 else \
            ("winner:", f"rule fuzz_winner: {r.choice(['most', 'least'])} {e}")
        heads = [i for i, line in enumerate(lines) if line.strip() == section]
        if heads:
            lines.insert(heads[0] + 1, "    " + statement)
        else:
            lines += [section, "    " + statement]
        return
    statements = [i for i, line in enumerate(lines) if line[:1] in (" ", "\t") and line.strip()
                  and not line.strip().startswith("#")]
    if not statements:
        return
    i = r.choice(statements)
    pad = indent_of(lines[i])
    new = {5: [f"if {e}:", "    pass"], 6: [f"create ({e}) {r.choice(names.names)} in {r.choice(names.names)}"],
           7: [f"choose fuzz_choice from {e}", "move fuzz_choice to " + r.choice(names.names)],
           8: [f"let fuzz_let = {e}"], 9: [f"while {e}:", "    break"],
           10: ["choose:", f'    "fuzz one" if {e}: pass', '    "fuzz two": pass'],
           11: ["if false:", "    pass", f"elif {e}:", "    pass", "else:", "    pass"]}[kind]
    lines[i:i] = [pad + line for line in new]


def swap_in_block(lines, r, games):
    """Two statement lines of one block (same indentation, no shallower line between) swapped."""
    candidates = [i for i, line in enumerate(lines) if line[:1] in (" ", "\t") and line.strip()]
    if not candidates:
        return
    i = r.choice(candidates)
    pad = indent_of(lines[i])
    siblings = []
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(lines):
            if lines[j].strip():
                if len(indent_of(lines[j])) < len(pad):
                    break
                if indent_of(lines[j]) == pad:
                    siblings.append(j)
            j += step
    if siblings:
        j = r.choice(siblings)
        lines[i], lines[j] = lines[j], lines[i]


def block_at(lines: list[str], i: int) -> int:
    """The end (exclusive) of the block that line i heads: the lines indented deeper than it."""
    pad = len(indent_of(lines[i]))
    end = i + 1
    while end < len(lines) and (not lines[end].strip() or len(indent_of(lines[end])) > pad):
        end += 1
    return end


def duplicate_block(lines, r, games):
    heads = [i for i, line in enumerate(lines) if split_comment(line)[0].rstrip().endswith(":")]
    if heads:
        i = r.choice(heads)
        end = block_at(lines, i)
        lines[end:end] = lines[i:end]


def delete_block(lines, r, games):
    heads = [i for i, line in enumerate(lines) if split_comment(line)[0].rstrip().endswith(":")]
    if heads:
        i = r.choice(heads)
        del lines[i:block_at(lines, i)]


def change_indentation(lines, r, games):
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    if candidates:
        i = r.choice(candidates)
        line, pad = lines[i], indent_of(lines[i])
        lines[i] = r.choice([
            "    " + line, " " + line, "\t" + line, line.lstrip(" \t"), line[min(4, len(pad)):],
            pad.replace("    ", "\t") + line.lstrip(" \t"), pad[:-1] + "\t" + line.lstrip(" \t"),
            "        " + line,
        ])


def splice(lines, r, games):
    """A few lines of another game (or this one) inserted anywhere, reindented or not."""
    other = r.choice(games).split("\n")
    start = r.integers(0, len(other) - 1)
    piece = other[start:start + r.integers(1, 8)]
    at = r.integers(0, len(lines))
    if r.integers(0, 1) and at < len(lines):
        shift = len(indent_of(lines[at])) - len(indent_of(piece[0]))
        piece = [(" " * shift + p) if shift > 0 else p[min(-shift, len(indent_of(p))):] for p in piece]
    lines[at:at] = piece


MUTATIONS = [delete_line, duplicate_line, swap_lines, delete_character, insert_word, replace_token,
             replace_expression, replace_expression, insert_expression, insert_expression,
             swap_in_block, duplicate_block, delete_block, change_indentation, splice]


def mutate(text: str, r, games: list[str], most: int = 4) -> str:
    lines = text.split("\n")
    for _ in range(r.integers(1, most)):
        r.choice(MUTATIONS)(lines, r, games)
    return "\n".join(lines)


def token_soup(r, names: Names, most: int = 80) -> str:
    tokens = KEYWORDS + names.names + LAYOUT + ODD
    return " ".join(r.choice(tokens) for _ in range(r.integers(0, most)))


def expression_in_place(text: str, r) -> str:
    """A game with a generated expression in one place where the grammar has an expression."""
    lines = text.split("\n")
    (replace_expression if r.integers(0, 1) else insert_expression)(lines, r, [])
    return "\n".join(lines)


# ---------------------------------------------------------------------- the check


class Hang(BaseException):
    """An example ran out of time. A BaseException, so that no `except Exception` in the code
    under test turns it into a diagnostic or a runtime fault."""


def address_space() -> int:
    """The bytes of address space this process uses now (Linux), 0 if unknown."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


@contextmanager
def bounded(what: str, cpu: float = CPU_SECONDS, wall: float = WALL_SECONDS,
            memory: int = MEMORY_BYTES):
    """Run the block with at most `cpu` seconds of CPU time, `wall` seconds of wall clock and
    `memory` more bytes of address space; a hang is an AssertionError (a MemoryError stays one).
    The timers repeat each second, in case the code under test swallows the first signal."""
    def expire(signum, frame):
        raise Hang(f"{what}: over {cpu} s of CPU time" if signum == signal.SIGPROF
                   else f"{what}: over {wall} s")
    old_prof = signal.signal(signal.SIGPROF, expire)
    old_alarm = signal.signal(signal.SIGALRM, expire)
    old_memory = resource.getrlimit(resource.RLIMIT_AS)
    used = address_space()
    if used:
        soft = used + memory if old_memory[1] == resource.RLIM_INFINITY else min(used + memory, old_memory[1])
        resource.setrlimit(resource.RLIMIT_AS, (soft, old_memory[1]))
    signal.setitimer(signal.ITIMER_PROF, cpu, 1)
    signal.setitimer(signal.ITIMER_REAL, wall, 1)
    try:
        yield
    except Hang as hang:
        raise AssertionError(f"hang: {hang}") from None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        resource.setrlimit(resource.RLIMIT_AS, old_memory)
        signal.signal(signal.SIGPROF, old_prof)
        signal.signal(signal.SIGALRM, old_alarm)


def check_text(folder: Path, text: str, name: str = "fuzzed.rules", play_seed: int = 0,
               guard: bool = True) -> dict:
    """Write `text` to `folder/name`, analyse it, check the diagnostics, and play a little if it
    compiles. Raises on anything that is not a diagnostic or a runtime fault (AssertionError on a
    hang). Returns what happened: {"compiled": bool, "games": int, "faults": int}."""
    path = folder / name
    path.write_text(text, encoding="utf-8", newline="")
    bound = bounded if guard else _no_bound
    PHASE[0] = "analyse"
    with bound("analyse"):
        game, diagnostics = analyse(str(path), limits=FUZZ_LIMITS)
        check_diagnostics(diagnostics, text)
    errors = [d for d in diagnostics if d.is_error]
    if game is None:
        assert errors, "no game, and no error saying why"
        return {"compiled": False, "games": 0, "faults": 0}
    assert not errors, "a game despite errors"
    PHASE[0] = "play"
    with bound("play"):
        games, faults = play(game, play_seed)
    return {"compiled": True, "games": games, "faults": faults}


PHASE = ["analyse"]  # what check_text is doing, for a finding without a traceback


@contextmanager
def _no_bound(what: str):
    yield


def check_diagnostics(diagnostics, text: str) -> None:
    lines = text.count("\n") + 1
    for d in diagnostics:
        assert d.code in CODES, f"unregistered code {d.code}: {d.message}"
        assert d.message, d.code
        if d.span is not None and d.span.source.text == text:
            # +1: the parser appends a final newline that the source lacks
            assert 0 <= d.span.start <= d.span.end <= len(d.span.source.text) + 1, render_concise(d)
            assert 1 <= d.span.line <= lines, render_concise(d)
        render_full(d)
        render_concise(d)
    render_json(diagnostics)


def play(game, seed: int = 0, games: int = PLAY_GAMES, steps: int = PLAY_STEPS) -> tuple[int, int]:
    """A few short games with random bots, checking the invariants after every step as `--check`
    does. A RuntimeFault ends a game (and must carry a registered, non-empty diagnostic); any other
    exception propagates. Returns (games played, games that faulted)."""
    rng = random.Random(seed)
    faults = 0
    for _game in range(games):
        players = rng.randint(game.min_players, min(game.max_players, game.min_players + 3))
        agents = [RandomAgent(rng.randrange(2 ** 32)) for _ in range(players)]
        try:
            state = game.new_initial_state(players)
            state.check_invariants()
            for _ in range(steps):
                if state.is_terminal():
                    state.returns()
                    state.scores()
                    break
                mover = state.current_player()
                assert mover == CHANCE or (isinstance(mover, int) and 0 <= mover < players), \
                    f"current_player() is not a seat\n{mover!r}, with {players} players"
                if mover == CHANCE:
                    action = state.sample_chance(rng)
                else:
                    view = seat_view(state)
                    action = agents[mover].choose(view)
                    if rng.random() < 0.1:  # a sample replays the game so far: not at every step
                        view.sample_state(rng)
                    evaluate(state, mover)
                state.action_to_string(action)
                state.apply_action(action)
                state.check_invariants()
            state.observation(None)
            for viewer in ("all", None, 0):
                state.event_lines(0, viewer)
            state.information_state_string(0)
        except RuntimeFault as fault:
            faults += 1
            assert fault.diagnostic.code in CODES, fault.diagnostic.code
            assert fault.diagnostic.message, f"{fault.diagnostic.code} with an empty message"
            render_full(fault.diagnostic)
    return games, faults


# ---------------------------------------------------------------------- isolation, findings

PACKAGE = str(ROOT / "rulelang")


def signature(error: BaseException) -> str:
    """What makes a finding distinct: a hang or running out of memory (with the phase), or the
    exception's type and the innermost frame in rulelang/ (the harness's own check if none)."""
    message = str(error)
    if isinstance(error, AssertionError) and message.startswith("hang: "):
        return "hang in " + message[6:].split(":")[0]
    if isinstance(error, MemoryError):
        return f"memory in {PHASE[0]}"
    frames = traceback.extract_tb(error.__traceback__)
    inner = [f for f in frames if f.filename.startswith(PACKAGE)]
    if inner:
        frame = inner[-1]
        return f"{type(error).__name__} at rulelang/{Path(frame.filename).name}:{frame.name}"
    return f"{type(error).__name__} in the harness: {message.splitlines()[0][:60] if message else ''}"


def run_isolated(function, *args, memory: int = MEMORY_BYTES, timeout: float = 90.0) -> dict:
    """``function(*args)`` in a forked child, stdin at /dev/null, with `memory` more bytes of
    address space and `timeout` seconds of wall clock. Returns {"result": ...} or a finding:
    {"signature", "traceback"}. A child killed by a signal, or past the timeout, is a finding."""
    read, write = os.pipe()
    limit = address_space() + memory
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
            try:
                outcome = {"result": function(*args)}
            except BaseException as error:  # noqa: B036 -- everything is a finding here
                outcome = {"signature": signature(error),
                           "traceback": "".join(traceback.format_exception(error))}
            with os.fdopen(write, "wb") as out:
                out.write(json.dumps(outcome, default=str).encode())
        except BaseException:  # noqa: B036
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    with os.fdopen(read, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"signature": "hang (killed)", "traceback": f"no answer in {timeout:.0f} s"}
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if chunks:
        try:
            return json.loads(b"".join(chunks))
        except ValueError:
            pass
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
    return {"signature": f"child died ({how})", "traceback": ""}
