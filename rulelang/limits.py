"""The limits that keep a rules file or a log written by someone else from using unbounded time or
memory. Each has a name, a default and its own diagnostic code; a designer whose real game needs
more raises one with ``--limit NAME=VALUE`` on the command line (or ``limits=`` from Python)."""

from __future__ import annotations

from typing import Any

import attrs

from .source import printable


@attrs.frozen
class Limits:
    """Every limit, with its default. ``rulelang explain limits`` lists them."""

    file_bytes: int = 100_000            # a rules file, and each file it extends (games are ~10 KB)
    pieces: int = 100_000                # pieces made in one game, all kinds together
    faces: int = 1_000                   # faces of one die kind
    declarations: int = 10_000           # declarations in one file, after variants are merged
    expansion: int = 100_000             # syntax nodes of one expression once defines are expanded
    number_digits: int = 1_000           # digits of an integer, written or computed
    work: int = 1_000_000                # units of work (instructions, items filtered) in one step
    turns: int = 10_000                  # turns or rounds in one game; caps the file's `at most N turns`
    idle_actions: int = 10_000           # decisions and rolls without a turn or round beginning
    log_bytes: int = 50_000_000          # a game log read by replay or --resume
    log_depth: int = 20                  # nesting of JSON values in a log
    call_depth: int = 1_000              # procedures running inside each other (`do` within `do`)

    def replace(self, **changes: Any) -> Limits:
        return attrs.evolve(self, **changes)


# Python writes integers of at most 4,300 digits (a guard against slow conversions); a number
# that a game computes must still print in the log and the summary.
MAXIMUM = {"number_digits": 4_000}

LIMIT_NAMES = tuple(field.name for field in attrs.fields(Limits))
DEFAULT = Limits()


def parse_limit(text: str) -> tuple[str, int]:
    """``name=value`` from a command line; raises ValueError with a message fit to print."""
    name, sep, value = text.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or name not in LIMIT_NAMES:
        raise ValueError(f"unknown limit `{text}`; limits: {', '.join(LIMIT_NAMES)}")
    digits = value.strip().replace("_", "")
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"limit `{name}` takes a whole number, not `{printable(value[:40])}`")
    if len(digits) > 18:
        raise ValueError(f"limit `{name}` takes a number of at most 18 digits")
    number = int(digits)
    if number < 1:
        raise ValueError(f"limit `{name}` must be at least 1")
    if name in MAXIMUM and number > MAXIMUM[name]:
        raise ValueError(f"limit `{name}` can be at most {MAXIMUM[name]}")
    return name, number


class LimitExceeded(Exception):
    """A limit reached while playing, raised where the work is done (generated code, effects);
    the runtime turns it into a RuntimeFault with ``code`` that names the rule."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message
