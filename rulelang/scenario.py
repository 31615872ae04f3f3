"""Scenarios: scripted games that check a rules file, written as data.

A scenario file (``*.scenario``) names a rules file, plays it with scripted dice, draws and
decisions, and checks the position along the way and at the end::

    # Taking from an opponent needs the exact total
    game: ../../../games/some-dice-game.rules
    players: 2
    given:
        move row where number == 36 to pile of seat(1)
    steps:
        roll star star star star 4 4 4 4
        choose star
        expect options: stop | roll again
        check count(kept) == 4
    expect:
        top(pile of seat(1)).number == 36
    events:
        roll 4 4 4 4 star star star star
        not: to discard
    events as player 2:
        roll 4 4 4 4 star star star star

The format (header lines ``HEADERS``, sections ``SECTIONS``, steps ``STEP_KINDS``, and how a
pattern matches an action) is documented for designers in docs/language.md, Part 6; a test
keeps that section listing every step. ``run_scenario(path)`` plays a file and returns a
``ScenarioResult``; ``python -m rulelang.scenario FILE...`` runs files from the command line.
"""

from __future__ import annotations

import math
import os
import random
import re
import sys
from typing import Any

import attrs

from . import files
from . import model as m
from . import nodes as n
from .diagnostics import RuntimeFault, did_you_mean, render_full
from .limits import Limits
from .parser import parse
from .pipeline import coerce_options, parse_file
from .runtime import CHANCE, TERMINAL, State
from .source import Source, Span
from .variants import resolve

HEADERS = ("game", "players", "option", "seed", "forced", "xfail")
SECTIONS = ("given", "steps", "expect", "events")
TRACE_LINES = 15
_INLINE_COMMENT = re.compile(r"\s+#\s.*$")


class ScenarioError(Exception):
    """The scenario file itself is malformed (or its game does not load)."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


class ScenarioFailure(Exception):
    """A step or an expectation of the scenario did not hold."""


@attrs.frozen
class Step:
    """One line of ``steps:``: ``kind`` is roll, choose, expect-..., check; ``arg`` its text."""

    line: int
    kind: str
    arg: str
    text: str


@attrs.frozen
class Scenario:
    path: str
    title: str
    game: str
    players: int | None
    options: dict[str, str]
    xfail: str | None
    seed: int | None
    given: tuple[int, int, int] | None     # lines (1-based) of `given:`, its first and last statement
    steps: tuple[Step, ...]
    expects: tuple[tuple[int, str], ...]    # (line, condition)
    events: tuple[tuple[int, str], ...]     # (line, substring or "not: substring")
    lines: tuple[str, ...]
    # `events as player 2:`, `events as spectator:`: (the viewer, its lines as ``events``)
    viewed_events: tuple[tuple[Any, tuple[tuple[int, str], ...]], ...] = ()
    forced_played: bool = False  # `forced: played`: a decision with one option is played as it comes


@attrs.define
class ScenarioResult:
    """The outcome of a scenario: ``passed``, and when not, a readable ``message``."""

    path: str
    passed: bool
    message: str = ""
    state: State | None = None
    steps_run: int = 0

    def __bool__(self) -> bool:
        return self.passed


# ---------------------------------------------------------------------- reading the file


_SMALL_NUMBER = re.compile(r"\d{1,18}")  # a count, a seed, a face: never thousands of digits


def _cut(text: str, most: int = 40) -> str:
    """Text from the file, at most ``most`` characters of it, for a message."""
    return text if len(text) <= most else text[:most] + "..."


def _strip_comment(text: str) -> str:
    return _INLINE_COMMENT.sub("", text).rstrip()


def load_scenario(path: str | os.PathLike) -> Scenario:
    """Parse a scenario file (no game is loaded); raises ScenarioError."""
    path = str(path)
    try:  # (a regular file of a bounded size: a fifo or a device never blocks the run)
        raw = files.read_text(path, Limits().file_bytes)
    except files.FileRefused as refused:
        raise ScenarioError(path, None, f"{refused.code}: {refused.message}") from None
    lines = tuple(raw.splitlines())
    title = ""
    header: dict[str, Any] = {"options": {}}
    section: str | None = None
    seen: set[str] = set()
    given_lines: list[int] = []
    given_header = 0
    steps: list[Step] = []
    expects: list[tuple[int, str]] = []
    events: list[tuple[int, str]] = []
    viewed: dict[Any, list[tuple[int, str]]] = {}  # `events as VIEWER:` sections
    viewer: Any = "all"
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if not title and section is None:
                title = stripped.lstrip("#").strip()
            continue
        indented = line[0] in " \t"
        if not indented:
            text = _strip_comment(line)
            name, colon, value = text.partition(":")
            name, value = name.strip(), value.strip()
            if not colon:
                raise ScenarioError(path, number, f"expected `key: value` or a section, not `{text}`")
            if name in SECTIONS or name.startswith("events as "):
                if value:
                    raise ScenarioError(path, number, f"`{name}:` opens a section; put its lines below, indented")
                if name in seen:
                    raise ScenarioError(path, number, f"a second `{name}:` section")
                seen.add(name)
                section = name
                viewer = "all" if name in SECTIONS else _viewer(path, number, name[len("events as "):].strip())
                if viewer != "all":
                    viewed[viewer] = []
                if name == "given":
                    given_header = number
                continue
            if section is not None:
                raise ScenarioError(path, number, f"`{name}:` must come before the sections "
                                    f"({', '.join(SECTIONS)}), or be indented inside one")
            if name == "option":
                key, equals, option_value = value.partition("=")
                if not equals or not key.strip():
                    raise ScenarioError(path, number, "write `option: NAME=VALUE`")
                header["options"][key.strip()] = option_value.strip()
            elif name == "players":
                if not _SMALL_NUMBER.fullmatch(value):
                    raise ScenarioError(path, number, f"`players:` takes a number, not `{_cut(value)}`")
                header["players"] = int(value)
            elif name == "seed":
                if not _SMALL_NUMBER.fullmatch(value):
                    raise ScenarioError(path, number, f"`seed:` takes a number of at most 18 digits, not "
                                        f"`{_cut(value)}`")
                header["seed"] = int(value)
            elif name == "forced":
                if value not in ("played", "asked"):
                    raise ScenarioError(path, number, f"`forced:` is `played` (a decision with one option is "
                                        f"played without a step) or `asked` (the default), not `{_cut(value)}`")
                header["forced"] = value == "played"
            elif name in ("game", "xfail"):
                if name in header:
                    raise ScenarioError(path, number, f"a second `{name}:` line")
                if not value:
                    raise ScenarioError(path, number, f"`{name}:` needs a value")
                header[name] = value
            else:
                raise ScenarioError(path, number, f"unknown key `{name}` (expected {', '.join(HEADERS)}, "
                                    f"or a section: {', '.join(SECTIONS)})")
            continue
        if section is None:
            raise ScenarioError(path, number, "an indented line outside any section")
        if section == "given":
            given_lines.append(number)
        elif section == "steps":
            steps.append(_parse_step(path, number, _strip_comment(line).strip()))
        elif section == "expect":
            expects.append((number, _strip_comment(line).strip()))
        else:
            (events if viewer == "all" else viewed[viewer]).append((number, _strip_comment(line).strip()))
    if "game" not in header:
        raise ScenarioError(path, None, "no `game:` line naming the rules file")
    return Scenario(
        path=path, title=title, game=header["game"], players=header.get("players"),
        options=header["options"], xfail=header.get("xfail"), seed=header.get("seed"),
        given=(given_header, given_lines[0], given_lines[-1]) if given_lines else None,
        steps=tuple(steps), expects=tuple(expects), events=tuple(events), lines=lines,
        viewed_events=tuple((who, tuple(found)) for who, found in viewed.items()),
        forced_played=header.get("forced", False))


def _viewer(path: str, number: int, text: str) -> Any:
    """The viewer of an `events as ...:` section: `player N` (seat N-1) or `spectator`."""
    found = re.fullmatch(r"player (\d{1,6})", text)
    if found and int(found[1]) >= 1:
        return int(found[1]) - 1
    if text == "spectator":
        return None
    raise ScenarioError(path, number, f"`events as {_cut(text)}:` names no viewer: write `events as player N:` or "
                        "`events as spectator:`")


# Every step a `steps:` line can hold, as it begins (docs/language.md, Part 6, lists each).
STEP_KINDS = ("roll", "draw", "choose", "check", "expect options:", "expect option:",
              "expect no option:", "expect player:", "expect roll", "expect draw", "expect game over",
              "expect winners:", "expect returns:", "expect fault")
_DRAW_ITEM = re.compile(r'\s*(?:(\d+)\s*x\s+)?("[^"]*"|[^",]+?)\s*(?:,|$)')


def _parse_step(path: str, number: int, text: str) -> Step:
    word, _, rest = text.partition(" ")
    rest = rest.strip()
    if word in ("roll", "draw", "choose", "check"):
        if not rest:
            raise ScenarioError(path, number, f"`{word}` needs an argument")
        if word == "draw":
            _draw_items(path, number, rest)
        return Step(number, word, rest, text)
    if word == "expect":
        for kind in ("options:", "option:", "no option:", "player:", "winners:", "returns:"):
            if rest.startswith(kind):
                return Step(number, "expect " + kind.rstrip(":"), rest[len(kind):].strip(), text)
        if rest in ("roll", "draw", "game over"):
            return Step(number, "expect " + rest, "", text)
        if rest.startswith("fault "):
            return Step(number, "expect fault", rest[len("fault "):].strip(), text)
    raise ScenarioError(path, number, f"unknown step `{text}` (expected roll, draw, choose, check, or expect "
                        "options:/option:/no option:/player:/roll/draw/game over/winners:/returns:/fault)")


def _roll_labels(text: str, faces) -> list:
    """The faces of a `roll` step's group, in order: `3 3 5`, `3, 3, 5`, or with counts,
    `2 x 3, 5` (`N x FACE`, unless the die has a face `x`)."""
    tokens = [_label(t) for t in text.replace(",", " ").split()]
    if "x" in faces:
        return tokens
    labels, i = [], 0
    while i < len(tokens):
        if i + 2 < len(tokens) and tokens[i + 1] == "x" and tokens[i].__class__ is int and tokens[i] >= 0:
            labels.extend([tokens[i + 2]] * tokens[i])
            i += 3
        else:
            labels.append(tokens[i])
            i += 1
    return labels


def _draw_items(path: str, number: int, text: str) -> list[tuple[int, str, bool]]:
    """`card 3, 2 x card 5, "note a 3, 4 or 5"` -> (how many, name, quoted) per item."""
    items, position = [], 0
    while position < len(text):
        found = _DRAW_ITEM.match(text, position)
        if found is None or found.end() == position:
            raise ScenarioError(path, number, f"cannot read the pieces to draw from `{text[position:]}` "
                                "(write `draw NAME, NAME, ...`, `N x NAME`, a name with a comma in double quotes)")
        count, name = found.group(1), found.group(2)
        quoted = name.startswith('"')
        name = name[1:-1] if quoted else name
        if not name.strip() or count == "0":
            raise ScenarioError(path, number, f"an empty piece name in `draw {text}`")
        items.append((int(count or 1), name.strip(), quoted))
        position = found.end()
    if text.rstrip().endswith(","):
        raise ScenarioError(path, number, f"an empty piece name in `draw {text}`")
    return items


# ---------------------------------------------------------------------- compiling with the game


@attrs.frozen
class CompiledScenario:
    game: m.GameDef                    # the game plus the given rule; only its own invariants
    checks: dict[int, m.Check]         # scenario line -> compiled condition


def _game_file(scenario: Scenario) -> str:
    """The rules file a scenario's `game:` names: a `.rules` file, by a path relative to the
    scenario (which may go up: a scenario among the tests names `../../games/x.rules`), or an
    absolute one; any other file is refused (E109) without being opened, so a scenario never
    shows another file's text."""
    named, folder = scenario.game, os.path.dirname(scenario.path)
    if named.endswith(".rules") and "\0" not in named:
        return os.path.normpath(os.path.join(folder, named))
    raise ScenarioError(scenario.path, None, f"error[E109]: `game:` refused: `{named}` is not a `.rules` file")


def compile_scenario(scenario: Scenario) -> CompiledScenario:
    """Load the game and compile the scenario's statements and conditions with it."""
    from .compiler import compile_game

    game_path = _game_file(scenario)
    tree, diagnostics = parse_file(game_path)
    if tree is not None:
        tree, more = resolve(tree, parse_file)
        diagnostics += more
    errors = [d for d in diagnostics if d.is_error]
    if tree is None or errors:
        raise ScenarioError(scenario.path, None, f"the game `{game_path}` does not load:\n"
                            + "\n".join(render_full(d) for d in errors))
    option_values, problems = coerce_options(tree, scenario.options)
    if problems:
        raise ScenarioError(scenario.path, None, "\n".join(render_full(d) for d in problems))

    # A rules text laid out on the scenario's own lines, so that diagnostics and the trace
    # point at the scenario file: the given block becomes a procedure, each condition an
    # invariant; every other line is left blank.
    lines = [""] * len(scenario.lines)
    if scenario.given is not None:
        header, first, last = scenario.given
        lines[header - 1] = "procedure scenario_given:"
        for number in range(first, last + 1):
            lines[number - 1] = scenario.lines[number - 1]
    conditions = [(step.line, step.arg, "check") for step in scenario.steps if step.kind == "check"]
    conditions += [(line, text, "expect") for line, text in scenario.expects]
    for line, text, kind in conditions:
        lines[line - 1] = f"invariant scenario_{kind}_{line}: {text}"
    written = Source(scenario.path, "\n".join(lines) + "\n")
    extra, syntax = parse(written)
    shown = _AsWritten(written, Source(scenario.path, "\n".join(scenario.lines) + "\n"),
                       {line: text for line, text, _ in conditions})
    if extra is None:
        raise ScenarioError(scenario.path, None, "\n".join(render_full(shown(d)) for d in syntax))

    items = list(tree.items)
    for item in extra.items:
        if isinstance(item, n.ProcedureDecl):
            given = n.Rule("given", item.body, span=item.span)
            index = next((i for i, x in enumerate(items) if isinstance(x, n.Section) and x.kind == "setup"), None)
            if index is None:
                items.append(n.Section("setup", (given,), span=item.span))
            else:
                items[index] = attrs.evolve(items[index], body=items[index].body + (given,))
        else:
            items.append(item)
    merged = attrs.evolve(tree, items=tuple(items))
    game, diagnostics = compile_game(merged, option_values)
    errors = [d for d in diagnostics if d.is_error]
    if game is None or errors:
        raise ScenarioError(scenario.path, None, "the scenario does not compile with the game:\n"
                            + "\n".join(render_full(shown(d)) for d in errors))
    own, checks = [], {}
    for check in game.invariants:
        name = game.rules[check.rule].name
        if name.startswith(("scenario_check_", "scenario_expect_")):
            checks[int(name.rsplit("_", 1)[1])] = check
        else:
            own.append(check)
    return CompiledScenario(attrs.evolve(game, invariants=tuple(own)), checks)


class _AsWritten:
    """A diagnostic of the rules text made from a scenario's lines, pointed back at the
    scenario as written: a condition is compiled as `invariant NAME: TEXT` on its own line,
    so its columns move by the difference of where TEXT starts in the two lines."""

    def __init__(self, made: Source, scenario: Source, conditions: dict[int, str]):
        self.made, self.scenario, self.conditions = made, scenario, conditions

    def __call__(self, diagnostic):
        span = diagnostic.span
        if span is None or span.source is not self.made:
            return diagnostic
        line, column = span.line, span.source.line_col(span.start)[1]
        text = self.conditions.get(line)
        if text is not None:  # where the text starts, in the scenario's line and in the made one
            column += self.scenario.line_text(line).find(text) - self.made.line_text(line).find(text)
        start = self.scenario.offset(line, column)
        end = min(start + (span.end - span.start), len(self.scenario.text))
        return attrs.evolve(diagnostic, span=Span(self.scenario, start, end))


# ---------------------------------------------------------------------- matching actions


def _parts(text: str) -> list[str]:
    return sorted(part.strip() for part in text.split(" + "))


def _first_of_each_text(texts: list[str], found: list[int]) -> list[int]:
    """The first of the matched actions that read alike: options that only identical pieces tell
    apart (two cards of a `count`, two table rows of one name) are one option to a scenario, as
    naming one of them in a draw draws any of them."""
    seen: set[str] = set()
    return [i for i in found if not (texts[i] in seen or seen.add(texts[i]))]


def match_actions(texts: list[str], pattern: str) -> list[int]:
    """Indices of the action texts that match a pattern, best level first: the whole text (or
    the text after `PROMPT: `), else its end, else anywhere in it; the last two in whole
    words only, so `card 5` is not found in `card 55` (docs/language.md, Part 6)."""
    quoted = len(pattern) >= 2 and pattern[0] == pattern[-1] == '"'
    wanted = _parts(pattern[1:-1] if quoted else pattern)
    exact = [i for i, t in enumerate(texts)
             if _parts(t) == wanted or (": " in t and _parts(t.split(": ", 1)[1]) == wanted)]
    if exact or quoted:
        return exact
    words = _words(pattern)
    ending = [i for i, t in enumerate(texts) if re.search(words + r"\Z", t)]
    if ending:
        return ending
    return [i for i, t in enumerate(texts) if re.search(words, t)]


def _words(pattern: str) -> str:
    """A regular expression for the pattern that neither starts nor ends inside a word."""
    before = r"(?<!\w)" if re.match(r"\w", pattern) else ""
    after = r"(?!\w)" if re.search(r"\w\Z", pattern) else ""
    return before + re.escape(pattern) + after


def _inside_a_word(texts: list[str], pattern: str) -> str:
    inside = [t for t in texts if pattern in t]
    return f" (it is inside a word of `{inside[0]}`: a pattern matches whole words)" if inside else ""


def _label(token: str) -> Any:
    return int(token) if re.fullmatch(r"-?\d{1,18}", token) else token


# ---------------------------------------------------------------------- running


class _Runner:
    def __init__(self, scenario: Scenario, compiled: CompiledScenario):
        self.scenario = scenario
        self.game = compiled.game
        self.checks = compiled.checks
        self.state: State | None = None
        self.step: Step | None = None
        self.steps_run = 0
        self.trace_viewer: Any = "all"  # whose trace lines a failure shows (`events as ...:`)
        self.expected_fault: str | None = None
        self.faulted_at: Step | None = None
        self.rng = random.Random(scenario.seed) if scenario.seed is not None else None
        # the last step before which `seed:` drew chance: (that step, what it drew), for the
        # failure of a scripted draw or roll the seed already took
        self.seeded: tuple[Step, str] | None = None

    # -- failures
    def fail(self, message: str) -> None:
        raise ScenarioFailure(message)

    def describe_node(self) -> str:
        state = self.state
        if state is None:
            return "  (no state: the set-up did not finish)"
        if self.faulted_at is not None:
            return f"  the game faulted at line {self.faulted_at.line}; the state is left mid-step"
        player = state.current_player()
        if player == TERMINAL:
            return f"  the game is over; winners: {_seats(state.winners)}, returns: {state.returns()}"
        if player == CHANCE and state.prompt() in ("draw", "shuffle"):
            pieces = ", ".join(state.describe_piece(p) for p in state.legal_actions())
            return f"  a {state.prompt()} is pending, from: {pieces}"
        if player == CHANCE:
            groups = ", ".join(f"{len(dice)} {self.game.kinds[k].name} in {state.zone_name(state.where[dice[0]])}"
                               for k, dice in state.pending[2])
            return f"  a roll is pending: {groups} (write `roll` with one group per kind and zone, in this order)"
        lines = [f"  seat {player} (player {player + 1}) is to decide `{state.prompt()}`; legal actions:"]
        lines += [f"    #{a} {state.action_to_string(a)}" for a in state.legal_actions()]
        return "\n".join(lines)

    def action_texts(self) -> list[str]:
        state = self.state
        if state.current_player() < 0:
            return []
        return [state.action_to_string(a) for a in state.legal_actions()]

    # -- steps
    def run(self) -> None:
        try:
            self.state = self.game.new_initial_state(self.scenario.players)
        except RuntimeFault as fault:
            self.fail(f"the set-up (or `given:`) raised a fault:\n{render_full(fault.diagnostic)}")
        except ValueError as error:
            self.fail(str(error))
        self.check_invariants("after the set-up and `given:`")
        for step in self.scenario.steps:
            self.step = step
            self.before_step(step)
            getattr(self, "_" + step.kind.replace(" ", "_"))(step)
            if step.kind in ("roll", "draw", "choose"):
                self.seeded = None  # (what the seed drew before served this step)
            self.steps_run += 1
        if self.scenario.forced_played and self.scenario.steps:  # the sections at the end see them played too
            self.play_forced()
        if not self.scenario.steps and self.rng is not None:
            # no step to draw before: the chance of the set-up (and so `given:`, which runs after
            # it) is drawn from the seed before the sections at the end, as before a first step
            line = min([line for line, _ in self.scenario.expects] or [0])
            self.step = Step(line, "end", "", "")
            self.before_step(self.step)
        self.step = None
        if self.expected_fault is not None:
            self.fail(f"`expect fault {self.expected_fault}` but no roll or choose followed it")
        for line, text in self.scenario.expects:
            self.step = Step(line, "expect", text, text)
            self.evaluate(line, text, "expected at the end")
        self.step = None
        self.check_events()

    def sample_unscripted(self, step: Step) -> None:
        """With `seed:`, chance the next step does not script is drawn from the seed."""
        state = self.state
        if self.rng is None or step.kind in ("draw", "expect draw") or self.faulted_at is not None:
            return
        dice = step.kind in ("roll", "expect roll")  # these leave a pending roll for the step
        while state.current_player() == CHANCE and (not dice or state.prompt() in ("draw", "shuffle")):
            self.seeded = (step, state.prompt())
            self.act(state.sample_chance(self.rng))

    def before_step(self, step: Step) -> None:
        """Chance the step does not script, drawn from `seed:`, and with `forced: played` the
        decisions with one option, in turn until neither is left. Before `expect fault`, no
        forced decision is played: the fault it expects may come from one."""
        while True:
            done = len(self.state.history)
            self.sample_unscripted(step)
            if step.kind != "expect fault":
                self.play_forced()
            if len(self.state.history) == done or self.faulted_at is not None:
                return

    def play_forced(self) -> None:
        """With `forced: played`, the decisions with one option are played (under an `expect
        fault` set before them: a fault they cause is the one expected)."""
        state = self.state
        if not self.scenario.forced_played or self.faulted_at is not None:
            return
        while self.faulted_at is None and state.current_player() >= 0 and len(state.legal_actions()) == 1:
            self.act(state.legal_actions()[0])

    def check_invariants(self, when: str) -> None:
        try:
            broken = self.state.check_invariants()
        except Exception as error:  # an invariant that cannot be evaluated is a failure too
            self.fail(f"evaluating the game's invariants {when} failed: {type(error).__name__}: {error}")
        if broken:
            self.fail(f"the game's invariant(s) {', '.join(broken)} no longer hold {when}")

    def evaluate(self, line: int, text: str, what: str) -> None:
        check = self.checks[line]
        try:
            value = check.test(self.state, [None] * check.slot_count)
        except Exception as error:
            self.fail(f"`{text}` cannot be evaluated: {type(error).__name__}: {error}")
        if not value:
            self.fail(f"`{text}` is false ({what})")

    def act(self, action) -> None:
        if self.faulted_at is not None:
            self.fail(f"the game faulted at line {self.faulted_at.line}; no action can follow")
        expected, self.expected_fault = self.expected_fault, None
        try:
            self.state.apply_action(action)
        except RuntimeFault as fault:
            self.faulted_at = self.step  # the state is left mid-step: nothing more can run
            if expected is not None and fault.diagnostic.code == expected:
                return
            wanted = f"expected fault {expected}, got another" if expected else "unexpected fault"
            self.fail(f"{wanted}:\n{render_full(fault.diagnostic)}")
        if expected is not None:
            self.fail(f"expected a fault {expected}, but the step went through")
        self.check_invariants(f"after line {self.step.line}")

    def _draw(self, step: Step) -> None:
        kinds = {kind.name for kind in self.game.kinds}
        names: list[str] = []
        kind = None
        for count, name, quoted in _draw_items(self.scenario.path, step.line, step.arg):
            first = name.split(" ", 1)[0]
            if not quoted and first not in kinds and kind is not None:
                name = f"{kind} {name}"  # `card 3, 17`: the kind carries over
            kind = name.split(" ", 1)[0]
            names += [name] * count
        for position, name in enumerate(names):
            which = f" (piece {position + 1} of {len(names)} on the line)" if len(names) > 1 else ""
            self.draw_one(name, which, "," in step.arg and '"' not in step.arg)

    def draw_one(self, name: str, which: str, has_comma: bool) -> None:
        state = self.state
        if self.faulted_at is not None:
            self.fail(f"the game faulted at line {self.faulted_at.line}; no step can follow")
        if state.current_player() != CHANCE or state.prompt() not in ("draw", "shuffle"):
            self.fail(f"a draw was scripted{which}, but no draw or shuffle is pending" + self._seed_took("draw"))
        found = [p for p in state.legal_actions() if state.describe_piece(p) == name]
        if not found:  # a die named by its kind alone: whatever face it still shows from its last roll
            kinds = self.game.kinds
            found = [p for p in state.legal_actions()
                     if kinds[state.pieces.kind[p]].is_die and kinds[state.pieces.kind[p]].name == name]
        if not found:
            names = {state.describe_piece(p) for p in state.legal_actions()}
            close = did_you_mean(name, names)
            hint = f"; {close}" if close else " (a name with a comma goes in double quotes)" \
                if has_comma and any("," in other for other in names) else ""
            self.fail(f"no piece `{name}` to draw{which}{hint}")
        self.act(found[0])  # pieces with one name are alike: any of them is the same draw

    def _seed_took(self, kind: str) -> str:
        """Why a scripted draw or roll (``kind``) found none pending, when `seed:` drew one of
        that kind before an earlier step of another kind (a `check`)."""
        if self.seeded is None:
            return ""
        step, drawn = self.seeded
        if step is self.step or (drawn == "roll") != (kind == "roll"):
            return ""
        return (f": `seed:` drew the pending {drawn} before the `{step.kind}` at line {step.line} (with `seed:`, "
                f"chance is drawn before every step but `roll` and `draw`); script the {kind} before that line")

    def _roll(self, step: Step) -> None:
        state = self.state
        if self.faulted_at is not None:
            self.fail(f"the game faulted at line {self.faulted_at.line}; no step can follow")
        if state.current_player() != CHANCE:
            self.fail("a roll was scripted, but no roll is pending" + self._seed_took("roll"))
        if state.prompt() != "roll":
            self.fail(f"a roll was scripted, but a {state.prompt()} is pending: script it with `{state.prompt()} ...`")
        groups = [g.strip() for g in step.arg.split("|")]
        pending = state.pending[2]
        kinds = [self.game.kinds[k].name for k, _ in pending]
        # dice of one kind in several zones (`roll cup of players`) are a group per zone
        zones = [state.zone_name(state.where[dice[0]]) for _, dice in pending]
        shape = " | ".join(f"{kind}{f' in {zone}' if kinds.count(kind) > 1 else ''}: {len(dice)} "
                           f"{'die' if len(dice) == 1 else 'dice'}"
                           for kind, zone, (_, dice) in zip(kinds, zones, pending, strict=True))
        given: list[list | None] = [None] * len(pending)
        for position, group in enumerate(groups):
            name, colon, labels = group.partition(":")
            if colon:  # `KIND: faces` (the next group of that kind) or `ZONE: faces`
                name = name.strip()
                free = [i for i in range(len(pending)) if given[i] is None and name in (kinds[i], zones[i])]
                if not free:
                    self.fail(f"no {name} in this roll; the roll is {shape}" if name not in kinds + zones else
                              f"too many groups for {name}; the roll is {shape}")
                at = free[0]
            else:
                if position >= len(pending) or given[position] is not None:
                    self.fail(f"{len(groups)} groups given; the roll is {shape}")
                at, labels = position, group
            given[at] = _roll_labels(labels, self.game.kinds[pending[at][0]].face_labels)
        flat = []
        for kind, labels, (kind_index, dice) in zip(kinds, given, pending, strict=True):
            if labels is None or len(labels) != len(dice):
                self.fail(f"the roll is {shape}, but {len(labels or [])} {kind} faces were given")
            faces = self.game.kinds[kind_index].face_labels
            for label in labels:
                if label not in faces:
                    self.fail(f"{kind} has no face `{label}` (faces: {', '.join(map(str, dict.fromkeys(faces)))})")
            flat.extend(labels)
        self.act(state.outcome_from_labels(flat))

    def _need_decision(self) -> list[str]:
        if self.faulted_at is not None:
            self.fail(f"the game faulted at line {self.faulted_at.line}; no step can follow")
        player = self.state.current_player()
        if player == CHANCE:
            self.fail(f"a decision was expected, but {self.chance_pending()} is pending")
        if player == TERMINAL:
            self.fail("a decision was expected, but the game is over")
        return self.action_texts()

    def _match(self, texts: list[str], pattern: str) -> list[int]:
        """``match_actions``, also for a pattern copied from the trace's `PROMPT: OPTION` where
        the option's own text is without its prompt (a choice of labelled branches)."""
        found = match_actions(texts, pattern)
        prompt = self.state.prompt()
        if not found and prompt and pattern.startswith(prompt + ": "):
            found = match_actions(texts, pattern[len(prompt) + 2:])
        return found

    def _choose(self, step: Step) -> None:
        texts = self._need_decision()
        if re.fullmatch(r"#\d{1,9}", step.arg):
            index = int(step.arg[1:])
            if index >= len(texts):
                self.fail(f"there is no action {step.arg}")
            self.act(index)
            return
        found = _first_of_each_text(texts, self._match(texts, step.arg))
        if not found:
            self.fail(f"no legal action matches `{step.arg}`{_inside_a_word(texts, step.arg)}")
        if len(found) > 1:
            self.fail(f"`{step.arg}` is ambiguous: it matches " + ", ".join(f"#{i} `{texts[i]}`" for i in found))
        self.act(found[0])

    def _expect_options(self, step: Step) -> None:
        texts = self._need_decision()
        patterns = [p.strip() for p in step.arg.split("|") if p.strip()]
        used: dict[int, str] = {}
        for pattern in patterns:
            found = _first_of_each_text(texts, self._match(texts, pattern))
            if len(found) != 1:
                self.fail(f"`{pattern}` should match exactly one legal action, but it matches {len(found)}")
            if found[0] in used:
                self.fail(f"`{pattern}` and `{used[found[0]]}` match the same legal action `{texts[found[0]]}`")
            used[found[0]] = pattern
        named = {texts[i] for i in used}  # identical options (alike pieces) are one option to a scenario
        extra = list(dict.fromkeys(text for text in texts if text not in named))
        if extra:
            self.fail("more legal actions than expected: " + ", ".join(f"`{t}`" for t in extra))

    def _expect_option(self, step: Step) -> None:
        texts = self._need_decision()
        if not self._match(texts, step.arg):
            self.fail(f"no legal action matches `{step.arg}`{_inside_a_word(texts, step.arg)}")

    def _expect_no_option(self, step: Step) -> None:
        texts = self._need_decision()
        found = self._match(texts, step.arg)
        if found:
            self.fail(f"`{step.arg}` should not be legal, but matches " + ", ".join(f"`{texts[i]}`" for i in found))

    def _expect_player(self, step: Step) -> None:
        player = self.state.current_player()
        if str(player) != step.arg.strip():
            who = f"{self.chance_pending()} is pending" if player == CHANCE else "the game is over" if player == TERMINAL \
                else f"seat {player} is to decide"
            self.fail(f"seat {step.arg} should be to decide, but {who}")

    def chance_pending(self) -> str:
        """`a roll`, `a draw` or `a shuffle`: the pending chance node, as a step names it."""
        prompt = self.state.prompt()
        return f"a {prompt}" if prompt in ("draw", "shuffle") else "a roll"

    def _expect_roll(self, step: Step) -> None:
        if self.state.current_player() != CHANCE or self.chance_pending() != "a roll":
            self.fail("a roll should be pending")

    def _expect_draw(self, step: Step) -> None:
        if self.state.current_player() != CHANCE or self.chance_pending() == "a roll":
            self.fail("a draw or a shuffle should be pending")

    def _expect_game_over(self, step: Step) -> None:
        if not self.state.is_terminal():
            self.fail("the game should be over")

    def _expect_winners(self, step: Step) -> None:
        self._expect_game_over(step)
        tokens = step.arg.replace(",", " ").split()
        if not all(re.fullmatch(r"\d{1,6}", t) for t in tokens):
            self.fail(f"`expect winners:` takes seat numbers (0 for the first player), not `{_cut(step.arg)}`")
        wanted = sorted(int(t) for t in tokens)
        if sorted(self.state.winners) != wanted:
            self.fail(f"the winners should be {_seats(wanted)}, not {_seats(self.state.winners)} "
                      f"(scores by seat: {self.state.scores()})")

    def _expect_returns(self, step: Step) -> None:
        tokens = step.arg.replace(",", " ").split()
        if not all(re.fullmatch(r"-?\d{1,18}(\.\d{1,18})?", t) for t in tokens):
            self.fail(f"`expect returns:` takes numbers, one per seat, not `{_cut(step.arg)}`")
        wanted = [float(t) for t in tokens]
        got = self.state.returns()
        if len(got) != len(wanted) or not all(math.isclose(a, b) for a, b in zip(got, wanted, strict=False)):
            self.fail(f"the returns should be {wanted}, not {got} (scores by seat: {self.state.scores()})")

    def _expect_fault(self, step: Step) -> None:
        if self.expected_fault is not None:
            self.fail("two `expect fault` lines in a row")
        self.expected_fault = step.arg

    def _check(self, step: Step) -> None:
        if self.faulted_at is not None:
            self.fail(f"the game faulted at line {self.faulted_at.line}; nothing can be checked after it")
        self.evaluate(step.line, step.arg, "checked here")

    # -- events
    def check_events(self) -> None:
        self._check_lines(self.state.event_lines(), self.scenario.events, "")
        for viewer, events in self.scenario.viewed_events:
            if viewer is not None and viewer >= self.state.n:
                self.step = Step(events[0][0] - 1 if events else 0, "event", "", "")
                self.fail(f"`events as player {viewer + 1}:` names no seat of this {self.state.n}-player game")
            self.trace_viewer = viewer  # a failure shows the lines searched
            self._check_lines(self.state.event_lines(0, viewer), events,
                              " seen by " + ("a spectator" if viewer is None else f"player {viewer + 1}"))
        self.trace_viewer = "all"

    def _check_lines(self, lines: list[str], events, seen_by: str) -> None:
        """The ``events`` (line, text) of one section, found in order in ``lines``."""
        position = 0
        for number, text in events:
            self.step = Step(number, "event", text, text)
            if text.startswith("not:"):
                unwanted = text[len("not:"):].strip()
                words = _words(unwanted)
                hits = [line for line in lines if re.search(words, line)]
                if hits:
                    self.fail(f"no trace line{seen_by} should contain `{unwanted}`, but this one does:\n    {hits[0]}")
                continue
            words = _words(text)
            for index in range(position, len(lines)):
                if re.search(words, lines[index]):
                    position = index + 1
                    break
            else:
                earlier = any(re.search(words, line) for line in lines[:position])
                self.fail(f"no trace line{seen_by} after the previous match contains `{text}`"
                          + (" (it appears earlier: check the order)" if earlier else ""))


def _seats(seats) -> str:
    return "[" + ", ".join(f"seat {s}" for s in seats) + "]"


def run_scenario(path: str | os.PathLike) -> ScenarioResult:
    """Play a scenario file; never raises for a failing or malformed scenario."""
    path = str(path)
    try:
        scenario = load_scenario(path)
        compiled = compile_scenario(scenario)
    except ScenarioError as error:
        return ScenarioResult(path, False, f"{error}")
    runner = _Runner(scenario, compiled)
    try:
        runner.run()
    except ScenarioFailure as failure:
        return ScenarioResult(path, False, _report(runner, str(failure)), runner.state, runner.steps_run)
    return ScenarioResult(path, True, "", runner.state, runner.steps_run)


def _report(runner: _Runner, message: str) -> str:
    scenario = runner.scenario
    step = runner.step
    where = f"{scenario.path}:{step.line}" if step is not None else scenario.path
    lines = [f"{where}: {message}"]
    if scenario.title:
        lines.insert(0, f"scenario: {scenario.title}")
    if step is not None:
        lines.append(f"  the line: {_cut(step.text, 200)}")
    lines.append("now:")
    lines.append(runner.describe_node())
    if runner.state is not None:
        viewer = runner.trace_viewer
        trace = [line for line in runner.state.event_lines(0, viewer) if line]
        seen_by = "" if viewer == "all" else " seen by " + ("a spectator" if viewer is None else f"player {viewer + 1}")
        lines.append(f"last {min(TRACE_LINES, len(trace))} of {len(trace)} trace lines{seen_by}:")
        lines += ["    " + line for line in trace[-TRACE_LINES:]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    failed = 0
    for path in paths:
        result = run_scenario(path)
        print(("ok    " if result.passed else "FAIL  ") + path)
        if not result.passed:
            failed += 1
            print(result.message, end="\n\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
