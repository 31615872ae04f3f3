"""The whole pipeline in one place: read, parse, merge variants, lint, compile."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from . import nodes as n
from .checker import lint
from .compiler import compile_game, declarations_problem
from .diagnostics import Diagnostic, RulesError, register
from .files import FileRefused, read_text
from .limits import DEFAULT, Limits
from .model import GameDef
from .parser import parse
from .source import Source, printable
from .variants import resolve

register("E107", "unreadable-file", """
The rules file cannot be read: it does not exist, is a folder, a device or a pipe rather than
a regular file, or is not UTF-8 text.
""")
register("E108", "unknown-option", """
An option given on the command line or to `rulelang.load` that the game does not declare,
or a value of the wrong type for it (options take the type of their default).
""")

register("E110", "option-out-of-range", """
An option declared with a range, `option threshold = 66 in 1 to 500`, was given a value
outside it (on the command line, to `rulelang.load`, or as its own default), or the range
itself cannot be: a range is for a number option, and its first bound is not above its second.
Give a value within the range, or widen the range if the game allows it.
""")


def read_source(path: str, limits: Limits = DEFAULT) -> tuple[Source | None, list[Diagnostic]]:
    """A rules file as a Source: only a regular file of UTF-8 text within the size limit."""
    try:
        return Source(str(path), read_text(path, limits.file_bytes)), []
    except FileRefused as refused:
        return None, [Diagnostic(refused.code, refused.message, help=refused.help)]


def parse_file(path: str, limits: Limits = DEFAULT) -> tuple[n.RulesFile | None, list[Diagnostic]]:
    source, diagnostics = read_source(path, limits)
    if source is None:
        return None, diagnostics
    return parse(source, limits)


def analyse(path: str, options: dict[str, Any] | None = None, warnings: bool = True,
            limits: Limits = DEFAULT, root: str | None = None) -> tuple[GameDef | None, list[Diagnostic]]:
    """Parse, merge, lint and compile a rules file; returns the game (or None) and every diagnostic.
    ``extends`` stays inside the folder tree of ``root`` (default: the file's own folder)."""
    tree, diagnostics = parse_file(path, limits)
    if tree is None:
        return None, diagnostics
    merged, more = resolve(tree, lambda base: parse_file(base, limits), root=root)
    diagnostics += more
    too_many = declarations_problem(merged, limits) if merged is not None else None
    diagnostics += [too_many] if too_many else []  # before lint, which would read every one
    if merged is None or any(d.is_error for d in diagnostics):
        return None, diagnostics
    if warnings:
        diagnostics += lint(merged)
    option_values, option_problems = coerce_options(merged, options or {}, limits.number_digits)
    diagnostics += option_problems
    game, compile_diagnostics = compile_game(merged, option_values, limits)
    diagnostics += compile_diagnostics
    if any(d.is_error for d in diagnostics):
        return None, diagnostics
    if game is not None and limits != DEFAULT:
        game = attrs.evolve(game, run_limits=limits)
    return game, diagnostics


def coerce_options(tree: n.RulesFile, given: dict[str, Any],
                   digits: int = DEFAULT.number_digits) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Convert option values (strings from a command line, or Python values) to the type of each
    option's default; a number has at most ``digits`` digits, written in ASCII."""
    declared = {i.name: i for i in tree.items if isinstance(i, n.OptionDecl)}
    values: dict[str, Any] = {}
    problems: list[Diagnostic] = [d for decl in declared.values() for d in _range_problems(decl)]
    for name, raw in given.items():
        if name not in declared:
            from .diagnostics import did_you_mean
            problems.append(Diagnostic("E108", f"the game has no option `{name}`",
                                       help=did_you_mean(name, declared) or
                                       "options: " + (", ".join(declared) or "none")))
            continue
        default = declared[name].default
        try:
            values[name] = _coerce(raw, default)
            if type(values[name]) is int and len(str(abs(values[name]))) > digits:
                problems.append(Diagnostic("E606", f"option `{name}` has more digits than the limit of "
                                           f"{digits}", declared[name].span))
                continue
        except ValueError:
            problems.append(Diagnostic("E108", f"option `{name}` takes {_value_word(default)}, "
                                       f"not `{printable(str(raw))}`", declared[name].span))
            continue
        bounds = declared[name].bounds
        if bounds is not None and type(values[name]) is int and not bounds[0] <= values[name] <= bounds[1]:
            problems.append(Diagnostic("E110", f"option `{name}` takes values from {bounds[0]} to {bounds[1]}, "
                                       f"not {values.pop(name)}", declared[name].span,
                                       help=f"give `{name}` a value from {bounds[0]} to {bounds[1]}"))
    return values, problems


def _value_word(default: Any) -> str:
    """What an option takes, in words: its default's type."""
    if isinstance(default, bool):
        return "true or false"
    return "whole numbers" if isinstance(default, int) else "words" if isinstance(default, str) else "values"


def _range_problems(decl: n.OptionDecl) -> list[Diagnostic]:
    """E110 for a range that cannot be: on an option that is no number, empty, or without the
    option's own default in it."""
    if decl.bounds is None:
        return []
    low, high = decl.bounds
    if type(decl.default) is not int:
        return [Diagnostic("E110", f"option `{decl.name}` has a range, but its default is not a number",
                           decl.span, help="a range (`in 1 to 500`) is for a number option")]
    if low > high:
        return [Diagnostic("E110", f"the range of option `{decl.name}` is empty: {low} is above {high}",
                           decl.span, help=f"write the lower bound first: `in {high} to {low}`")]
    if not low <= decl.default <= high:
        return [Diagnostic("E110", f"the default of option `{decl.name}`, {decl.default}, is not in its range "
                           f"{low} to {high}", decl.span, help="change the default or the range")]
    return []


def _coerce(raw: Any, default: Any) -> Any:
    if not isinstance(raw, str):
        if isinstance(default, bool) and not isinstance(raw, bool):
            raise ValueError(raw)
        if isinstance(default, int) and not isinstance(default, bool) and type(raw) is not int:
            raise ValueError(raw)
        return raw
    if isinstance(default, bool):
        lowered = raw.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise ValueError(raw)
    if default is None and raw.strip().lower() == "none":  # (an option that starts as none)
        return None
    if isinstance(default, int):
        text = raw.strip().removeprefix("-").removeprefix("+")
        if not (text.isascii() and text.isdigit()) or len(text) > 4_300:
            raise ValueError(raw)
        return int(raw)
    return raw


def load(path: str | Path, limits: Limits = DEFAULT, **options: Any) -> GameDef:
    """Load a rules file as a game, with options set; raises RulesError on any error."""
    game, diagnostics = analyse(str(path), options, warnings=False, limits=limits)
    if game is None:
        raise RulesError([d for d in diagnostics if d.is_error])
    return game
