"""Diagnostics as data: one type, one registry of codes, and the ways to present them."""

from __future__ import annotations

import difflib
import enum
import inspect
import json
import unicodedata
from collections.abc import Callable, Iterable

import attrs

from .source import Span, comment_start, printable


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@attrs.frozen
class Code:
    """A registered diagnostic code: ``code`` (E101), kebab-case ``name`` and the explanation."""

    code: str
    name: str
    severity: Severity
    explanation: str


# Bands: E0xx syntax, E1xx names, E2xx types, E3xx structure, W4xx lint warnings, R5xx runtime faults.
CODES: dict[str, Code] = {}


def register(code: str, name: str, explanation: str) -> Code:
    """Register a code; the band letter sets the severity (W is a warning, anything else an error)."""
    if code in CODES and CODES[code].name != name:  # two meanings for one code: a mistake here
        raise ValueError(f"{code} is `{CODES[code].name}` already, not `{name}`")
    severity = Severity.WARNING if code.startswith("W") else Severity.ERROR
    entry = Code(code, name, severity, explanation.strip())
    CODES[code] = entry
    return entry


def check(code: str, name: str) -> Callable[[Callable], Callable]:
    """Decorator for a check function: its docstring is what ``rulelang explain CODE`` prints."""

    def decorate(function: Callable) -> Callable:
        register(code, name, inspect.cleandoc(function.__doc__ or name))
        function.code = code
        return function

    return decorate


@attrs.frozen
class Diagnostic:
    """One problem found in a rules file: a code, a message, where, and what might fix it."""

    code: str
    message: str
    span: Span | None = attrs.field(default=None, eq=False)
    notes: tuple[str, ...] = ()
    help: str | None = None

    @property
    def severity(self) -> Severity:
        entry = CODES.get(self.code)
        return entry.severity if entry else Severity.ERROR

    @property
    def name(self) -> str:
        entry = CODES.get(self.code)
        return entry.name if entry else "unknown"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


class RulesError(Exception):
    """Raised by the public API when a rules file has errors; carries every diagnostic found."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(render_concise(d) for d in self.diagnostics))


class RuntimeFault(Exception):
    """A fault in a rules file found while playing: carries one diagnostic naming the rule."""

    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic
        self.partial = None  # a fault in the set-up: the state as far as the set-up went
        super().__init__(render_concise(diagnostic))


# At most this many names are compared with a misspelt one (those nearest in length), so that a
# file with thousands of names and thousands of typos is not quadratic.
MAX_CANDIDATES = 500


def similar_names(name: str, candidates: Iterable[str], limit: int = 3) -> list[str]:
    """Names close to a misspelt one, best first."""
    names = set(candidates)
    if len(names) > MAX_CANDIDATES:
        # A close match is of about the same length (a ratio of 0.6 allows no more than this).
        names = sorted(c for c in names if 2 * abs(len(c) - len(name)) <= len(name) + 1)[:MAX_CANDIDATES]
    return difflib.get_close_matches(name, sorted(names), n=limit, cutoff=0.6)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A help line suggesting similar names, or None when nothing is close."""
    close = similar_names(name, candidates)
    if not close:
        return None
    return "did you mean " + " or ".join(f"`{c}`" for c in close) + "?"


def _location(diagnostic: Diagnostic) -> str:
    return printable(diagnostic.span.where()) if diagnostic.span else "<unknown>"


def _shown(text: str) -> str:
    """Source text as a terminal shows it: control characters escaped, a tab as four spaces."""
    return printable(text, keep_tabs=True).replace("\t", "    ")


def _width(text: str) -> int:
    """The columns a terminal gives text: two for a wide character (CJK, most emoji), none
    for a combining mark, so that a caret stands under the characters it marks."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
               for char in text)


def render_concise(diagnostic: Diagnostic) -> str:
    """``path:line:col: CODE message``, one line (control characters shown escaped)."""
    return f"{_location(diagnostic)}: {diagnostic.code} {printable(diagnostic.message)}"


def render_full(diagnostic: Diagnostic) -> str:
    """The rustc-style report: title, place, the source line with a caret under the span, help.
    Text from the file (the line, names and labels in messages) is shown with control characters
    escaped, the caret kept under the characters it marks."""
    lines = [f"{diagnostic.severity.value}[{diagnostic.code}]: {printable(diagnostic.message)}"]
    span = diagnostic.span
    if span is not None:
        lines.append(f"  --> {_location(diagnostic)}")
        text = span.source.line_text(span.line)
        gutter = " " * len(str(span.line))
        start = span.column - 1
        if span.end_line == span.line:
            end = span.end_column - 1
        else:  # a block: the caret runs under the code of its first line, not under a comment
            code = text if comment_start(text) < 0 else text[:comment_start(text)]
            end = len(code.rstrip())
        lines.append(f"{gutter} |")
        lines.append(f"{span.line} | {_shown(text)}")
        caret = "^" * max(1, _width(_shown(text[start:end])))
        lines.append(f"{gutter} | {' ' * _width(_shown(text[:start]))}{caret}")
    for note in diagnostic.notes:
        lines.append(f"  = note: {printable(note)}")
    if diagnostic.help:
        lines.append(f"  = help: {printable(diagnostic.help)}")
    return "\n".join(lines)


def to_json_object(diagnostic: Diagnostic) -> dict:
    """A JSON-ready dict with every field of the diagnostic."""
    span = diagnostic.span
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "path": span.path if span else None,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "end_line": span.end_line if span else None,
        "end_column": span.end_column if span else None,
        "notes": list(diagnostic.notes),
        "help": diagnostic.help,
    }


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    return json.dumps([to_json_object(d) for d in diagnostics], indent=2)
