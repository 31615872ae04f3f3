"""Source text and spans: where in which file a piece of syntax came from."""

from __future__ import annotations

import bisect

import attrs


def comment_start(line: str) -> int:
    """Where a `#` comment starts in a line (outside strings), or -1."""
    in_string = escaped = False
    for i, char in enumerate(line):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "#":
            return i
    return -1


@attrs.frozen(eq=False)
class Source:
    """One rules file's text, with a line index for turning offsets into line and column."""

    path: str
    text: str
    _line_starts: tuple[int, ...] = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        starts = [0]
        for index, char in enumerate(self.text):
            if char == "\n":
                starts.append(index + 1)
        object.__setattr__(self, "_line_starts", tuple(starts))

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line] + 1

    def offset(self, line: int, column: int) -> int:
        """The character offset of a 1-based line and column (within the text)."""
        line = max(1, min(line, len(self._line_starts)))
        return min(self._line_starts[line - 1] + max(0, column - 1), len(self.text))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline."""
        if not 1 <= line <= len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def span(self, start: int, end: int | None = None) -> Span:
        """A span from character offsets."""
        return Span(self, start, start if end is None else end)


@attrs.frozen(eq=False)
class Span:
    """A range of characters in a source; never part of equality of the nodes that carry it."""

    source: Source
    start: int
    end: int

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def line(self) -> int:
        return self.source.line_col(self.start)[0]

    @property
    def column(self) -> int:
        return self.source.line_col(self.start)[1]

    @property
    def end_line(self) -> int:
        return self.source.line_col(self.end)[0]

    @property
    def end_column(self) -> int:
        return self.source.line_col(self.end)[1]

    def where(self) -> str:
        """``path:line:col``, the way compilers name a place."""
        return f"{self.path}:{self.line}:{self.column}"

    def __repr__(self) -> str:
        return f"<Span {self.where()}>"


_CONTROL_ESCAPES = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\x1b": "\\e"}


def printable(text: str, keep_tabs: bool = False) -> str:
    """Text safe to write to a terminal: control characters (escape sequences, carriage returns,
    bells, bidi overrides, zero-width and invisible characters such as a BOM) shown escaped, e.g. ``\\x1b`` as ``\\e``, so that a rules file or a log
    written by someone else cannot redraw the screen. Everything a terminal shows (rule names,
    labels, source excerpts, piece names) goes through it."""
    out = []
    for char in text:
        code = ord(char)
        if char == "\t" and keep_tabs:
            out.append(char)
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or 0x200B <= code <= 0x200F \
                or 0x2028 <= code <= 0x202E or 0x2060 <= code <= 0x2069 or code == 0xFEFF:
            out.append(_CONTROL_ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"))
        else:
            out.append(char)
    return "".join(out)
