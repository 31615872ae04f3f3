"""Playing at the terminal: the board as plain text, the trace, human prompts and the play loop.

No curses: the board is printed as lines, so a game reads the same in a terminal, a pipe or a
CI log. Colour is used only on a terminal (and never with NO_COLOR set).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import sys
import textwrap
import time
from collections.abc import Callable
from typing import IO, Any

from . import gamelog
from .diagnostics import Diagnostic, RuntimeFault
from .engine_values import SEE_COUNT, seats_text, shown
from .model import OP_BRANCH, OP_CHOOSE
from .runtime import CHANCE, State, TraceUnavailable
from .source import printable

try:
    import termios
except ImportError:  # not a POSIX system: type-ahead is not discarded
    termios = None  # type: ignore[assignment]

HUMAN = "you"
QUIT_WORDS = ("q", "quit", "exit")
# Cursor home, erase the screen, erase the scrollback (xterm's E3; terminals without it ignore it).
CLEAR_SCREEN = "\x1b[H\x1b[2J\x1b[3J"


class Style:
    """ANSI styling, or none at all when ``enabled`` is false."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled and text else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def accent(self, text: str) -> str:
        return self._wrap("1;33", text)

    def good(self, text: str) -> str:
        return self._wrap("1;32", text)


def wants_colour(stream: IO[str]) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set."""
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def seat_label(seat: int, seats: list[str]) -> str:
    """``player 2 (mc)``: the numbering the trace uses, with who plays the seat."""
    return f"player {seat + 1} ({seats[seat]})"


# ---------------------------------------------------------------------- the board
class KindNames(list):
    """The kinds' names, in order, with ``faces``: each die kind's face labels -> their place
    in its `faces` line (a pool of dice shows in that order: `9 10 jack ace`)."""

    faces: dict[str, dict[str, int]] = {}


def compact_items(items: list[str], kind_names: list[str], pool: bool = False,
                  implied: str | None = None) -> str:
    """Pieces as the observation names them (``tile 21``, ``die showing 4``),
    grouped by kind: ``card 21 22 23``. Pools (unordered zones) are sorted. The ``implied``
    kind (one the zone's name already says, as `coins` says `coin`) is left unnamed:
    its labels alone, or how many there are."""
    if not items:
        return "—"
    groups: dict[str, list[str]] = {}
    dice: set[str] = set()  # kinds shown by their faces: `d6 3 3 5` reads better than counts
    for item in items:
        kind = next((k for k in sorted(kind_names, key=len, reverse=True)
                     if item == k or item.startswith(k + " ")), item)
        rest = item[len(kind):].strip()
        if rest.startswith("showing "):
            dice.add(kind)
        groups.setdefault(kind, []).append(rest.removeprefix("showing ").strip())
    parts = []
    faces = getattr(kind_names, "faces", {})
    for kind, labels in groups.items():
        if pool and kind in faces:  # a die's faces in the order its `faces` line gives them
            order = faces[kind]
            labels.sort(key=lambda label: (order.get(label, len(order)), _label_key(label)))
        elif pool:
            labels.sort(key=_label_key)
        if kind == implied:
            parts.append(" ".join(labels) if all(labels) else str(len(labels)))
        elif not any(labels):
            parts.append(kind if len(labels) == 1 else f"{len(labels)} x {kind}")
        else:
            shown = [label or "-" for label in labels]  # "-": no face yet (a die not rolled)
            if kind not in dice:  # alike pieces side by side as one: `30 x copper`
                shown = [label if count == 1 else f"{count} x {label}"
                         for label, count in ((label, len(list(run))) for label, run in itertools.groupby(shown))]
            spaced = any(" " in label for label in shown)
            parts.append(kind + " " + (", " if spaced else " ").join(shown))
    return " · ".join(parts)


def _has_secret_choices(game) -> bool:
    """Whether some choice of the game is made in secret, or some procedure called so
    (``ChoiceSpec.in_secret``, ``Procedure.secret_calls``)."""
    return any(procedure.secret_calls or any(op in (OP_CHOOSE, OP_BRANCH) and a.in_secret
                                             for op, a, _, _ in procedure.code)
               for procedure in game.procedures)


def implied_kind(zone_name: str, kind_names: list[str]) -> str | None:
    """The kind a zone's name already says: a zone named as the kind or its plural
    (`coins` holding `coin`)."""
    return next((k for k in kind_names if zone_name in (k, k + "s", k + "es")), None)


def _label_key(label: str) -> tuple:
    number = label.lstrip("-")
    return (0, int(label), "") if number.isdigit() else (1, 0, label)


def zone_text(seen: Any, kind_names: list[str], pool: bool = False, implied: str | None = None,
              known: list[str] | None = None) -> str:
    """One zone of an observation: its pieces, or what is known of a hidden zone (``?`` when
    not even the count is known), with ``known``, the pieces in it the viewer was shown."""
    text = _zone_text(seen, kind_names, pool, implied)
    if known and text not in ("?", "—"):
        text += "; you know " + printable(compact_items(known, kind_names, pool, implied))
    return text


def known_pieces(state: State, viewer: int | None | str) -> dict[str, list[str]]:
    """For a seat, the pieces it knows (shown to it, seen arrive, dice seen rolled) in each zone
    whose pieces it does not see, by the zone's name as the seat reads it."""
    if viewer.__class__ is not int or state.knows is None:
        return {}
    bit, knows, found = 1 << viewer, state.knows, {}
    for index, pieces in enumerate(state.zones):
        if pieces and state.sight(index, viewer) == SEE_COUNT:
            mine = [state.describe_piece(p) for p in pieces if knows[p] & bit]
            if mine:
                found[state.zone_name(index, viewer)] = mine
    return found


def _zone_text(seen: Any, kind_names: list[str], pool: bool = False, implied: str | None = None) -> str:
    if isinstance(seen, list):
        return printable(compact_items([str(item) for item in seen], kind_names, pool, implied))
    if not isinstance(seen, dict) or "count" not in seen:
        return "?"
    count = seen["count"]
    if "top" in seen:
        if not count:
            return "—"
        top = printable(compact_items([str(seen["top"])], kind_names, implied=implied))
        return f"top {top} ({count})"
    kinds = seen.get("kinds") or {}
    if count and len(kinds) > 1:  # kinds are seen, as a card's back is: how many of each
        return f"{count} hidden (" + ", ".join(f"{n} {printable(kind)}" for kind, n in kinds.items()) + ")"
    return f"{count} hidden" if count else "—"


_UNSEEN = object()  # a counter or score missing from the observation


def _value_text(value: Any, seat: bool = False) -> str:
    """A counter's or a score's value; ``?`` for one the viewer may not see (absent from the
    observation, or given as what is known of it). ``seat``: a counter that holds a player, whose
    seat number is written as the trace writes it, `player 2`."""
    if value is None:
        return "—"
    if seat and value.__class__ in (int, list, tuple):
        return printable(seats_text(value))
    return "?" if value is _UNSEEN or isinstance(value, dict) else printable(shown(value))


def render_board(state: State, seats: list[str], viewer: int | None | str, style: Style,
                 width: int = 100) -> str:
    """The board as ``viewer`` sees it (None: a spectator, "all": the referee): header, shared
    zones and counters, then one row per player with their zones, counters and the winner
    criteria (scores). Everything but the table's shape comes from ``state.observation(viewer)``,
    so the board shows no more than the viewer may see."""
    game = state.game
    seen = _everything_seen(state) if viewer == "all" else state.observation(viewer)
    zones_seen, counters_seen = seen.get("zones", {}), seen.get("counters", {})
    kinds = KindNames(k.name for k in game.kinds)
    kinds.faces = {k.name: {str(label): i for i, label in reversed(list(enumerate(k.face_labels)))}
                   for k in game.kinds if k.is_die}
    mover = state.current_player()
    title = f"{printable(game.name)} · round {state.round_number}"
    # a game played in rounds alone (`round:`) has no turns to count; a decision of the `round`
    # section, between turns, is in none
    in_turn = state.turn_number and (state.is_terminal() or any(frame[3] for frame in state.frames))
    if in_turn:
        title += f" · turn {state.turn_number}"
    if state.is_terminal():
        title += " · game over"
    elif in_turn and 0 <= state.player < state.n:
        title += f" · {seat_label(state.player, seats)} to play"
        if 0 <= mover < state.n and mover != state.player:
            title += f" · {seat_label(mover, seats)} to choose"
    elif 0 <= mover < state.n:  # no turns: whoever decides now (a secret pick, in seat order)
        title += f" · {seat_label(mover, seats)} to choose"
    lines = [style.bold(title)]

    shared = [z for z in game.zones if not z.per_player and not z.per_piece]  # carried zones show on their piece
    shared_counters = [c for c in game.counters if not c.per_player and not c.keys]
    sheets = [c for c in game.counters if c.keys]  # counters with keys: a line of `key:value` each
    shown_shared, shown_rows = state.shown_values(viewer)  # `show`: the same visibility as scores
    name_width = max([len(z.name) for z in shared] + [len(c.name) for c in shared_counters]
                     + [len(z.name.partition("[")[0]) + 5 for z in shared if "[" in z.name]
                     + [len(c.name) for c in sheets if not c.per_player]
                     + [len(name) for name in shown_shared] + [4])
    known = known_pieces(state, viewer)
    families: dict[str, int] = {}  # zones with keys: how many zones each declaration has
    for zone in shared:
        if "[" in zone.name:
            families[zone.name.partition("[")[0]] = families.get(zone.name.partition("[")[0], 0) + 1
    folded: dict[str, int] = {}  # of a declaration with many keys, the empty zones: one line for them
    for zone in shared:
        text = zone_text(zones_seen.get(zone.name), kinds, zone.kind == "pool", implied_kind(zone.name, kinds),
                         known.get(zone.name))
        family = zone.name.partition("[")[0]
        if text == "—" and families.get(family, 0) > _FOLDED_KEYS:
            folded[family] = folded.get(family, 0) + 1
            continue
        lines.extend(_wrapped(f"  {zone.name:<{name_width}}  ", text, width, kinds))
    for family, empty in folded.items():
        lines.append(f"  {family + '[...]':<{name_width}}  — ({empty} empty)")
    for counter in shared_counters:
        lines.append(f"  {counter.name:<{name_width}}  "
                     f"{_value_text(counters_seen.get(counter.name, _UNSEEN), counter.holds_player)}")
    for name, value in shown_shared.items():
        lines.append(f"  {name:<{name_width}}  {_value_text(value)}")
    for counter in (c for c in sheets if not c.per_player):
        lines.extend(_wrapped(f"  {counter.name:<{name_width}}  ", _sheet_text(counter, "", counters_seen), width))

    zones = [z for z in game.zones if z.per_player]
    counters = [c for c in game.counters if c.per_player and not c.keys]
    criteria = [game.rules[c.rule].name for c in game.criteria]
    per_player_shown = [s.name for s in game.shown if s.per_player]
    header = ["player"] + [z.name for z in zones] + [c.name for c in counters] + per_player_shown + criteria
    rows = []
    # A winner criterion that reads what not every seat sees shows `?` until the game ends.
    scores = state.scores(lenient=True)  # (a criterion that cannot be worked out yet shows `—`)
    for p in range(state.n):
        row = [f"{p + 1} {seats[p]}" + (" (out)" if p in seen.get("out", ()) else "")]
        row += [zone_text(zones_seen.get(f"{z.name} of player {p + 1}"), kinds, z.kind == "pool",
                          implied_kind(z.name, kinds), known.get(f"{z.name} of player {p + 1}")) for z in zones]
        row += [_value_text(counters_seen.get(f"{c.name} of player {p + 1}", _UNSEEN), c.holds_player) for c in counters]
        row += [_value_text(shown_rows[p][name]) for name in per_player_shown]
        row += [_value_text(v) if state.sees_score(i, viewer, p) else "?" for i, v in enumerate(scores[p])]
        rows.append(row)
    marks = ["> " if p == mover or (mover < 0 and p == state.player and not state.is_terminal())
             else "  " for p in range(state.n)]
    if state.is_terminal():
        marks = ["* " if p in state.winners else "  " for p in range(state.n)]
    lines.append("")
    table = render_table(header, rows, marks, Style(False))
    if max(len(line) for line in table) <= width:
        lines.extend(render_table(header, rows, marks, style))
    else:  # too wide for a table: one block a player, `column value` pairs wrapped
        seat_width = max(len(row[0]) for row in rows)
        for mark, row in zip(marks, rows, strict=True):
            pairs = [_pair(name, value) for name, value in zip(header[1:], row[1:], strict=True)]
            block = _wrapped(f"{mark}{row[0]:<{seat_width}}  ", "  ".join(pairs), width)
            lines.extend(style.accent(line) if mark.strip() else line for line in block)
    for counter in (c for c in sheets if c.per_player):
        for p in range(state.n):
            prefix = f"  {counter.name} of {seat_label(p, seats)}: "
            lines.extend(_wrapped(prefix, _sheet_text(counter, f" of player {p + 1}", counters_seen), width))
    return "\n".join(lines)


_FOLDED_KEYS = 6  # a declaration with more keys than this shows its empty zones as one line


def _sheet_text(counter, owner: str, counters_seen: dict) -> str:
    """A counter with keys on one line: `2:0 3:1 4:?`; an entry not seen is `?`."""
    return " ".join(f"{printable(shown(key))}:"
                    f"{_value_text(counters_seen.get(f'{counter.name}[{shown(key)}]{owner}', _UNSEEN), counter.holds_player)}"
                    for key in counter.keys)


def _everything_seen(state: State) -> dict:
    """The referee's board: every zone's pieces (a deck in its order, a shared `secret` zone
    no seat sees), every seat's observation merged for the rest (each counter as the seat that
    knows most of it sees it), and the counters no seat sees."""
    merged = state.observation(None)
    merged = {**merged, "zones": dict(state.observation("all").get("zones", {})),
              "counters": dict(merged.get("counters", {}))}
    for seat in range(state.n):
        seen = state.observation(seat)
        for name, value in seen.get("counters", {}).items():
            if not isinstance(value, dict):
                merged["counters"][name] = value
    holding_pieces = {c.name for c in state.game.counters if c.holds_pieces}
    # A counter no seat sees (`hidden`) shows its value to the referee, as the trace does; so
    # does a card no seat sees (one in the deck) that a counter holds
    for name, value in state.observation("all").get("counters", {}).items():
        if name not in merged["counters"] or name.split(" of ")[0].split("[")[0] in holding_pieces:
            merged["counters"][name] = value
    merged.pop("scores", None)  # the referee sees every score
    return merged


def render_table(header: list[str], rows: list[list[str]], marks: list[str], style: Style) -> list[str]:
    """Columns padded to their widest cell; ``marks`` prefix each row (the player to move)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    out = [style.dim("  " + "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())]
    for mark, row in zip(marks, rows, strict=True):
        text = "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        out.append(style.accent(mark + text) if mark.strip() else mark + text)
    return out


_GLUE = "\x00"  # stands for a space that a line is never broken at
_BRACKETED = re.compile(r" ?\[[^\]]*\]")


def _atomic(text: str) -> str:
    return text.replace(" ", _GLUE)


def _pair(name: str, value: str) -> str:
    """`column value` for a player's block: broken between pieces only, never between the
    column and its first piece, nor inside or before what a piece shows, `(ATTRIBUTE VALUE)`."""
    value = re.sub(r"\([^)]*\)", lambda m: _atomic(m.group()), value)
    value = re.sub(r"(\S) (\()", lambda m: m.group(1) + _GLUE + m.group(2), value)
    first, _, rest = value.partition(" ")
    return f"{name}{_GLUE}{first}" + (f" {rest}" if rest else "")


def _wrapped(prefix: str, text: str, width: int, kind_names: list[str] | tuple = ()) -> list[str]:
    """Text wrapped after a prefix, never inside ``[...]`` (what a piece carries, kept with
    the piece: ``25 [on: token star]``), nor between a kind's name and its first
    piece (``card 21``)."""
    text = _BRACKETED.sub(lambda m: _atomic(m.group()), text)
    for kind in kind_names:
        text = re.sub(rf"(^|· ){re.escape(kind)} ", lambda m: m.group()[:-1] + _GLUE, text)
    lines = textwrap.wrap(text, width=max(width, len(prefix) + 20), initial_indent=prefix,
                          subsequent_indent=" " * len(prefix), break_on_hyphens=False,
                          break_long_words=False) or [prefix]
    return [line.replace(_GLUE, " ") for line in lines]


# ---------------------------------------------------------------------- the trace
def short_path(path: str) -> str:
    """A rules file's path as the trace shows it: relative to here if below here, else its
    file name (the full path is in the log header)."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return os.path.basename(path)
    return os.path.basename(path) if relative.startswith("..") else relative


def render_events(state: State, start: int, seats: list[str], style: Style,
                  viewer: int | None | str = "all", width: int | None = None) -> list[str]:
    """The trace from event ``start`` on, as ``viewer`` may see it (a seat, None for a spectator,
    "all"): turns and rounds as headings, every other event with the rule (and file:line) that
    caused it, dimmed. With a ``width``, a longer event is wrapped, its rule on the last line
    (or a line of its own)."""
    events = state.events[start:]
    # Events do not carry their turn's number: count back from the state's.
    turn = state.turn_number - sum(1 for e in events if e[1] == "turn")
    paths = {r.path: short_path(r.path) for r in state.game.rules}
    out = []
    lines = state.event_lines(start, viewer)
    for i, (event, line) in enumerate(zip(events, lines, strict=True)):
        kind, line = event[1], printable(line)
        if not line:  # an event this viewer does not know happened
            continue
        if i + 1 < len(lines) and lines[i + 1] == lines[i] and kind not in ("turn", "round"):
            continue  # the same line again and again (cards dealt face down): said once, counted
        repeats = 1
        while i - repeats >= 0 and lines[i - repeats] == lines[i]:
            repeats += 1
        if repeats > 1:
            text, bracket, rule = line.rpartition("  [")
            line = f"{text} (× {repeats})  [{rule}" if bracket else f"{line} (× {repeats})"
        if kind == "turn":
            turn += 1
            out.append(style.bold(f"── turn {turn} · {seat_label(event[2], seats)} ──"))
            continue
        if kind == "round":
            out.append(style.bold(f"══ round {event[2]} ══"))
            continue
        text, bracket, rule = line.rpartition("  [")
        if not bracket:
            text, rule = line, ""
        name, comma, where = rule.partition(", ")
        path, colon, number = where.rpartition(":")
        if comma and colon and path in paths:
            rule = f"{name}, {paths[path]}:{number}"
        body = f"  {text:<46}" if rule else f"  {text}"
        tag = f"[{rule}" if rule else ""
        if width is not None and len(body.rstrip()) + 2 + len(tag) > width:
            *first, last = _wrap_keeping(text, width)
            if tag and len(last) + 2 + len(tag) > width and width - len(tag) - 2 >= 40:
                # wrapped shorter, so that the rule ends the event's last line
                *first, last = _wrap_keeping(text, width - len(tag) - 2)
            if tag and len(last) + 2 + len(tag) > width:  # (a very long rule: on a line of its own)
                first, last = first + [last], " " * max(2, min(48, width - len(tag) - 2))
            out.extend(style.bold(line) if kind == "choose" else line for line in first)
            body = last
        if kind == "choose":
            body = style.bold(body)
        out.append((body + "  " + style.dim(tag)).rstrip() if tag else body.rstrip())
    return out


_KEPT_TOGETHER = re.compile(r"\b(player|seat|round|turn) (\d+)")


def _wrap_keeping(text: str, width: int) -> list[str]:
    """A trace line wrapped to ``width`` (indented as the trace is), `player 2` never split."""
    lines = textwrap.wrap(_KEPT_TOGETHER.sub("\\1\u00a0\\2", text), width, initial_indent="  ",
                          subsequent_indent="      ", break_on_hyphens=False) or [""]
    return [line.replace("\u00a0", " ") for line in lines]


# ---------------------------------------------------------------------- human decisions
def menu_texts(state: State) -> list[str]:
    """The legal actions as the menu shows them to the player deciding: their full text, except
    that a piece the player cannot see is named by its place only."""
    viewer = state.current_player()
    return [printable(state.action_to_string(a, viewer)) for a in state.legal_actions()]


def menu_lines(texts: list[str], prompt: str, width: int) -> list[str]:
    """The numbered options, one a line; a long menu whose options all begin with the prompt
    (`commit: 1` ... `commit: 48`) says the prompt once and lays the rest out in columns."""
    lines = [f"  {i:>2}  {text}" for i, text in enumerate(texts, start=1)]
    head = prompt + ": "
    if len(texts) <= 12 or not all(t.startswith(head) for t in texts):
        return lines
    cells = [f"{i:>{len(str(len(texts)))}}  {t[len(head):]}" for i, t in enumerate(texts, start=1)]
    cell_width = max(map(len, cells)) + 3
    columns = max(1, (width - 2) // cell_width)
    if columns == 1:
        return lines
    rows = -(-len(cells) // columns)
    grid = [f"  {prompt}:"]
    for r in range(rows):
        row = [cells[c * rows + r] for c in range(columns) if c * rows + r < len(cells)]
        grid.append("  " + "".join(cell.ljust(cell_width) for cell in row).rstrip())
    return grid


def parse_choice(answer: str, texts: list[str]) -> tuple[int | None, str | None]:
    """The option an answer picks: a number 1..k, or the unique start of an option's text.
    Returns (index, None) or (None, what is wrong)."""
    answer = answer.strip()
    if not answer:
        return None, f"type a number from 1 to {len(texts)}"
    if answer.isdigit():
        number = int(answer)
        if 1 <= number <= len(texts):
            return number - 1, None
        return None, f"there is no option {number}: type a number from 1 to {len(texts)}"
    lowered = answer.lower()
    exact = [i for i, t in enumerate(texts) if lowered in (t.lower(), t.lower().partition(": ")[2])]
    if len(exact) == 1:
        return exact[0], None
    # The start of the text, or of what follows the prompt ("s" for "set aside: star").
    starts = [i for i, t in enumerate(texts)
              if t.lower().startswith(lowered) or t.lower().partition(": ")[2].startswith(lowered)]
    if len(starts) == 1:
        return starts[0], None
    if starts:
        return None, f"`{answer}` could be " + ", ".join(f"{i + 1} ({texts[i]})" for i in starts)
    return None, f"no option starts with `{answer}`"


class Terminal:
    """Where a game is shown and human decisions are read: ``out`` and ``inp`` (the standard
    streams by default), or a ``read(prompt)`` function in their place."""

    def __init__(self, out: IO[str] | None = None, read: Callable[[str], str] | None = None,
                 colour: bool | None = None, pause: float = 0.0, inp: IO[str] | None = None):
        self.out = out or sys.stdout
        self.inp = inp
        self.read = read or self._read_line
        self.style = Style(wants_colour(self.out) if colour is None else colour)
        self.pause = pause

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def width(self) -> int:
        return min(shutil.get_terminal_size((100, 24)).columns, 120)

    def _read_line(self, prompt: str) -> str:
        inp = self.inp or sys.stdin
        if inp is sys.stdin and self.out is sys.stdout:
            return input(prompt)
        self.out.write(prompt)
        self.out.flush()
        line = inp.readline()
        if not line:
            raise EOFError
        return line.rstrip("\r\n")

    def discard_typeahead(self) -> None:
        """Drop what was typed before the prompt (keys pressed while the bots played), so that
        it cannot become a decision. Only on a terminal: piped input is the answers."""
        inp = self.inp or sys.stdin
        try:
            fd = inp.fileno()
            if termios is not None and os.isatty(fd):
                termios.tcflush(fd, termios.TCIFLUSH)
        except (AttributeError, OSError, ValueError):  # no descriptor (a StringIO), or closed
            pass

    def answer(self, prompt: str) -> str:
        """One line typed after ``prompt``, type-ahead discarded (EOFError at the end of input)."""
        self.discard_typeahead()
        return self.read(prompt)

    def clear(self) -> None:
        """Erase the screen and, where the terminal can, its scrollback. Off a terminal (a pipe,
        a file) a form feed marks the page."""
        self.out.write(CLEAR_SCREEN if self.out.isatty() else "\f\n")
        self.out.flush()

    def hand_over(self, seat: int) -> bool:
        """The screen cleared for the next player at the same keyboard: nothing but "pass to
        player N" until they press Enter, then a clean screen. False when they quit instead."""
        self.clear()
        try:
            word = self.answer(self.style.accent(f"pass to player {seat + 1}, press Enter") + " ")
        except EOFError:
            self.say()
            return False
        self.clear()
        return word.strip().lower() not in QUIT_WORDS

    def ask(self, state: State, seats: list[str], board: Callable[[], None]) -> Any | None:
        """A human's decision: the legal actions numbered, re-asked until valid.
        None when the player quits (q, or end of input)."""
        texts = menu_texts(state)
        seat = state.current_player()
        prompt = printable(state.prompt())
        # Labelled branches (and `may`) do not repeat their prompt in each option: say it once.
        about = "" if prompt == "choose" or all(t.startswith(prompt + ": ") for t in texts) else f" {prompt}?"
        self.say(self.style.accent(f"{seat_label(seat, seats)}, your choice:{about}"))
        picked = state.picked_so_far(seat)
        if picked:
            self.say(f"  picked so far: {printable(', '.join(picked))}")
        for line in menu_lines(texts, prompt, self.width()):
            self.say(line)
        while True:
            try:
                answer = self.answer(f"choose 1-{len(texts)} (b board, ? help, q quit) > ")
            except EOFError:
                self.say()
                return None
            word = answer.strip().lower()
            if word in QUIT_WORDS:
                return None
            if word in ("?", "h", "help"):
                self.say("  type an option's number, or the start of its text; b shows the board "
                         "again; q stops the game (the log is kept, so it can be resumed)")
                continue
            if word in ("b", "board"):
                board()
                for line in menu_lines(texts, prompt, self.width()):
                    self.say(line)
                continue
            index, problem = parse_choice(answer, texts)
            if index is not None:
                return state.legal_actions()[index]
            self.say(f"  {printable(problem)}")


# ---------------------------------------------------------------------- the play loop
def invariant_fault(state: State, names: list[str], after: str, turn: int) -> RuntimeFault:
    """An R505 fault naming the first invariant that does not hold (with its span), after the
    action ``after`` taken in ``turn``."""
    game = state.game
    span = next((c.span for c in game.invariants if game.rules[c.rule].name == names[0]), None)
    more = f" (also: {', '.join(names[1:])})" if len(names) > 1 else ""
    when = "the set-up" if after == SET_UP else f"`{after}` in turn {turn}"
    return RuntimeFault(Diagnostic("R505", f"invariant `{names[0]}` does not hold after {when}{more}", span))


SET_UP = "the set-up"  # ``invariant_fault``'s ``after`` for a set-up that breaks an invariant


def turn_start(state: State) -> int:
    """The index of the event that started the current turn (0 before the first turn): a
    resumed game shows its trace from there, not from the set-up."""
    events = state.events  # asked once: a lazy trace checks its replay at each ask
    for index in range(len(events) - 1, -1, -1):
        if events[index][1] == "turn":
            return index
    return 0


def play(state: State, seats: list[str], seed: int, terminal: Terminal,
         log: IO[str] | None = None, check: bool = False, shown: int = 0,
         watch: int | None | str = None, seeding: int = gamelog.SEEDING) -> bool:
    """Play ``state`` to the end at the terminal: humans (seat "you") are asked, bots (names
    from AGENTS) choose with seeds derived from ``seed``, rolls are drawn likewise. Every action
    is logged before it is applied (``seeding``: rulelang.seeding's scheme). True when the game ended, False when a human quit.
    The trace is shown from event ``shown`` on.

    What is shown is one viewer's view, never more: with one human, that seat's; with none,
    ``watch``'s (None: a spectator, "all": the referee, or a seat). With two or more humans at
    one keyboard (hot seat) the bots' moves are shown as a spectator sees them, and before a
    human decides, unless their own view is already on screen, the screen is cleared and handed
    over: that player then sees what happened since their last decision, as they may see it.
    Raises RuntimeFault on a fault in the rules (or a broken invariant with ``check``)."""
    humans = [p for p, s in enumerate(seats) if s == HUMAN]
    hot_seat = len(humans) >= 2
    common = common_view(seats, watch)
    style = terminal.style
    board_turn = None
    on_screen: int | None = None  # hot seat: the human whose own view the screen shows
    seen = dict.fromkeys(humans, shown)  # hot seat: each human's trace, shown in their view, up to here
    agents: dict = {}  # the bots, kept from step to step (gamelog.seeded_action)

    def show_board(viewer: int | None | str) -> None:
        terminal.say(render_board(state, seats, viewer, style, terminal.width()))

    def show_trace(start: int, viewer: int | None | str) -> None:
        nonlocal shown
        for line in render_events(state, start, seats, style, viewer, terminal.width()):
            terminal.say(line)
        shown = len(state.events)

    if check and (broken := state.check_invariants()):
        raise invariant_fault(state, broken, SET_UP, 0)
    # In a game with choices made in secret (a `may` only with the jack in hand), a human's turn
    # is handed over as it begins, decision or not: a hand-over only when one came would tell
    # the table that it did.
    secret_choices = hot_seat and _has_secret_choices(state.game)
    handed_turn = None
    while not state.is_terminal():
        mover = state.current_player()
        if secret_choices and state.turn_number != handed_turn and state.player in humans \
                and any(frame[3] for frame in state.frames):
            handed_turn = state.turn_number
            if on_screen != state.player:
                if not terminal.hand_over(state.player):
                    return False
                on_screen = state.player
                show_trace(seen[state.player], state.player)
                seen[state.player] = shown
        if mover in humans and len(state.legal_actions()) > 1:
            start = shown
            if hot_seat and on_screen != mover:
                if not terminal.hand_over(mover):
                    return False
                on_screen, start = mover, seen[mover]
            show_trace(start, mover)
            if hot_seat:
                seen[mover] = shown
            terminal.say()
            show_board(mover)
            action = terminal.ask(state, seats, lambda seat=mover: show_board(seat))
            if action is None:
                return False
        elif mover in humans:
            action = state.legal_actions()[0]  # a forced move: no need to ask
            if hot_seat:  # handed over all the same: skipping it would tell the others it was forced
                start = shown
                if on_screen != mover:
                    if not terminal.hand_over(mover):
                        return False
                    on_screen, start = mover, seen[mover]
                show_trace(start, mover)
                seen[mover] = shown
                terminal.say(style.dim(f"  (one option only: {printable(state.action_to_string(action, mover))})"))
            else:
                show_trace(shown, common)
                terminal.say(style.dim(f"  ({seat_label(mover, seats)} has one option only)"))
        else:
            if mover != CHANCE:  # rolls and draws in a row are shown together: a deal reads as one
                show_trace(shown, common)
            # the board once a turn (once a round in a game without turns)
            if not humans and mover != CHANCE and board_turn != (state.turn_number, state.round_number):
                terminal.say()
                show_board(common)
                board_turn = (state.turn_number, state.round_number)
            if mover != CHANCE and terminal.pause:
                time.sleep(terminal.pause)
            action = gamelog.seeded_action(state, seed, None if mover == CHANCE else seats[mover], agents,
                                           seeding)
        text, turn = state.action_to_string(action), state.turn_number
        if log is not None:
            gamelog.append_action(log, state, action)
        before = len(state.events)
        try:
            state.apply_action(action)
            if hot_seat and mover in humans and len(state.events) > before and state.events[before][1] == "choose" \
                    and state.events[before][2][0] == mover:  # their own choice's line is no news to them
                seen[mover] = max(seen[mover], before + 1)
        except RuntimeFault:
            with contextlib.suppress(TraceUnavailable):
                show_trace(shown, common)  # what led to the fault, up to it
            raise
        if check and (broken := state.check_invariants()):
            show_trace(shown, common)
            raise invariant_fault(state, broken, text, turn)
    if on_screen is not None:  # the game is over: no one's hand stays up for the others
        # What the last moves showed a human alone (a card revealed to them) reaches them first.
        width = terminal.width()
        for human in humans:
            own = seen_alone(state, seen[human], seats, style, human, width)
            if own is None:
                continue
            if on_screen != human and not terminal.hand_over(human):
                break
            on_screen = human
            for line in own:
                terminal.say(line)
            try:
                terminal.answer(style.accent("the game is over; press Enter") + " ")
            except EOFError:
                terminal.say()
                break
        terminal.clear()
        shown = min(seen.values())
    show_trace(shown, common)
    return True


def seen_alone(state: State, start: int, seats: list[str], style: Style, viewer: int,
               width: int | None = None) -> list[str] | None:
    """``viewer``'s trace from event ``start`` on, when it shows more than a spectator's (a card
    revealed to them), else None: a hot-seat game's last look."""
    own = render_events(state, start, seats, style, viewer, width)
    return own if own != render_events(state, start, seats, style, None, width) else None


def common_view(seats: list[str], watch: int | None | str = None) -> int | None | str:
    """The view shown when no human is deciding (and at the end): the one human's, a
    spectator's in a hot-seat game, ``watch``'s when bots play alone."""
    humans = [p for p, s in enumerate(seats) if s == HUMAN]
    return humans[0] if len(humans) == 1 else None if humans else watch


def render_result(state: State, seats: list[str], width: int | None = None) -> str:
    """Who won, and by which rule the game ended (on a second line if too long for ``width``)."""
    game = state.game
    names = [seat_label(p, seats) for p in state.winners]
    if not names:
        verdict = "no winner"
    elif len(names) == 1:
        verdict = f"winner: {names[0]}"
    else:
        verdict = "shared win: " + ", ".join(names)
    if state.end_rule >= 0:
        rule = game.rules[state.end_rule]
        why = f"(the game ended by rule `{rule.name}`, {short_path(rule.path)}:{rule.line})"
        verdict += f"\n  {why}" if width is not None and len(verdict) + 2 + len(why) > width else f"  {why}"
    return verdict
