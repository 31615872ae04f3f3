"""`rulelang fmt`: the canonical layout of a rules file, worked out from the token stream.

The formatter knows no construct of the language: it reads the tokens of the grammar's lexer
(after the indentation post-lexer, which gives the block depth of each line) and the text
between them (comments, blank lines, continued lines), and lays them out again: 4 spaces per
block, one space between tokens except around brackets, dots, commas and colons, and after a
unary minus. New syntax needs no change here. Only whitespace ever changes.
"""

from __future__ import annotations

import attrs
from lark import Token

from .diagnostics import Diagnostic
from .parser import _lark, parse
from .pipeline import read_source

INDENT = "    "
_OPEN, _CLOSE = ("(", "["), (")", "]")
_NO_SPACE_BEFORE = {")", "]", ",", ":", "."}
_NO_SPACE_AFTER = {"(", "[", "."}
# Words that are values, not operators: a `-` after them is a subtraction.
_VALUE_WORDS = {"true", "false", "none", "empty"}


@attrs.frozen
class _Line:
    """One logical line: its block depth and its tokens (a line continued inside brackets or
    after a backslash is one logical line)."""

    depth: int
    tokens: tuple[Token, ...]
    indents: tuple[str, ...]  # the author's indentation of each open block, outermost first


def format_source(text: str) -> str:
    """The canonical layout of a rules text that parses (the caller checks that first)."""
    bom = text.startswith("\ufeff")
    text = text.replace("\r\n", "\n")
    text = (" " + text[1:]) if bom else text
    if not text.endswith("\n"):
        text += "\n"
    lines = _logical_lines(text)
    out: list[str] = []
    previous_end = 0
    for i, line in enumerate(lines):
        gap = text[previous_end:line.tokens[0].start_pos]
        if i == 0:
            out.extend(_leading(gap))
        else:
            out[-1] += _trailing_comment(text, out[-1], lines[i - 1], gap.split("\n")[0])
            out.extend(_between(gap, lines, i))
        out.append(INDENT * line.depth + _join(text, line))
        previous_end = line.tokens[-1].end_pos
    if lines:
        rest = text[previous_end:].split("\n")
        out[-1] += _trailing_comment(text, out[-1], lines[-1], rest[0])
        out.extend(_comment_lines(rest[1:], lines[-1].indents, blank_ok=True))
    else:
        out.extend(_leading(text))
    while out and not out[-1]:
        out.pop()
    return ("\ufeff" if bom else "") + "\n".join(out) + "\n"


def _logical_lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    current: list[Token] = []
    indents = [""]
    starts: tuple[str, ...] = ("",)
    # The tokens as the parser reads them (the lexer knows where a keyword is a plain name).
    for token in _lark().parse_interactive(text).iter_parse():
        if token.type == "_INDENT":
            indents.append(str(token))
        elif token.type == "_DEDENT":
            indents.pop()
        elif token.type == "_NL":
            if current:
                lines.append(_Line(len(starts) - 1, tuple(current), starts))
                current = []
        else:
            if not current:
                starts = tuple(indents)
            current.append(token)
    if current:
        lines.append(_Line(len(starts) - 1, tuple(current), starts))
    return lines


def _join(text: str, line: _Line) -> str:
    """A logical line's tokens with canonical spacing; a continued line keeps its line breaks."""
    parts = [str(line.tokens[0])]
    start = text.rfind("\n", 0, line.tokens[0].start_pos) + 1
    own_indent = text[start:line.tokens[0].start_pos]
    new_indent = INDENT * line.depth
    for before_before, before, token in zip((None, *line.tokens), line.tokens, line.tokens[1:]):
        gap = text[before.end_pos:token.start_pos]
        if "\n" in gap:
            parts.append(_continuation(gap, own_indent, new_indent))
        else:
            parts.append(_space(before_before, before, token, gap))
        parts.append(str(token))
    return "".join(parts)


def _continuation(gap: str, own_indent: str, new_indent: str) -> str:
    """The text between two tokens of one logical line on different lines: comments and a
    backslash kept, each line's indentation moved with its block's (a line less indented than
    the one it continues goes one level deeper than it)."""
    segments = gap.split("\n")
    first = segments[0].strip()
    pieces = [(" " if first == "\\" else "  ") + first if first else ""]
    for segment in segments[1:]:
        body = segment.lstrip(" \t")
        indent = segment[:len(segment) - len(body)]
        if indent.startswith(own_indent):
            indent = new_indent + indent[len(own_indent):]
        elif body or segment is segments[-1]:  # less indented than the line it continues: deeper
            indent = new_indent + INDENT
        pieces.append(indent + body.rstrip() if body.strip() else (indent if segment is segments[-1] else ""))
    return "\n".join(pieces)


def _space(before_before: Token | None, before: Token, token: Token, gap: str) -> str:
    left, right = str(before), str(token)
    if right in _NO_SPACE_BEFORE or left in _NO_SPACE_AFTER:
        return ""
    if left == "," and len(gap) > 1 and gap.strip(" ") == "":
        return gap  # columns the author lined up (table rows, lists) stay lined up
    if right in _OPEN and _is_value(before):
        return ""  # a call or an index
    if left == "-" and not _is_value(before_before):
        return ""  # a sign
    return " "


def _is_value(token: Token | None) -> bool:
    """Whether a token ends a value (so a `-` after it subtracts and a `(` after it calls)."""
    return token is not None and (token.type in ("NAME", "INT", "STRING") or str(token) in _CLOSE
                                  or str(token) in _VALUE_WORDS)


def _trailing_comment(text: str, code: str, line: _Line, segment: str) -> str:
    """A comment after the code of a line: at its column if the code still fits before it."""
    comment = segment.strip()
    if not comment:
        return ""
    last = line.tokens[-1]
    start = text.rfind("\n", 0, last.end_pos) + 1
    column = last.end_pos - start + (len(segment) - len(segment.lstrip()))
    width = len(code.rsplit("\n", 1)[-1])
    return " " * max(2, column - width) + comment


def _leading(gap: str) -> list[str]:
    """The comments before the first line: blank lines at the start of the file dropped."""
    lines = _comment_lines(gap.split("\n")[:-1], ("",), blank_ok=True)
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def _between(gap: str, lines: list[_Line], i: int) -> list[str]:
    """The comment and blank lines between logical lines i-1 and i."""
    previous, line = lines[i - 1], lines[i]
    indents = line.indents if len(line.indents) > len(previous.indents) else previous.indents
    block_start = line.depth > previous.depth
    out = _comment_lines(gap.split("\n")[1:-1], indents, blank_ok=not block_start)
    if line.depth == 0 and "" not in out and _apart(lines, i):
        out.insert(0, "")
    return out


def _apart(lines: list[_Line], i: int) -> bool:
    """Whether the top-level items before and at line i need a blank line between them: one
    of them is a block, and they start with different words (a run of options with their
    descriptions, or of triggered rules, may stay together as its author wrote it)."""
    start = i - 1
    while start > 0 and lines[start].depth > 0:
        start -= 1
    block = i - start > 1 or (i + 1 < len(lines) and lines[i + 1].depth > 0)
    return block and str(lines[start].tokens[0]) != str(lines[i].tokens[0])


def _comment_lines(segments: list[str], indents: tuple[str, ...], blank_ok: bool) -> list[str]:
    """Whole lines of comments (and blank lines: runs kept as one), indented like the block
    whose indentation they had."""
    out: list[str] = []
    for segment in segments:
        body = segment.strip()
        if not body:
            if blank_ok and out[-1:] != [""]:
                out.append("")
            continue
        own = segment[:len(segment) - len(segment.lstrip())]
        depth = max(d for d, indent in enumerate(indents) if own.startswith(indent))
        out.append(INDENT * depth + body)
        blank_ok = True
    return out


def format_file(path: str) -> tuple[str | None, str | None, list[Diagnostic]]:
    """A file's text and its formatted text, or the diagnostics that stop it being formatted
    (it cannot be read, or does not parse)."""
    source, problems = read_source(path)
    if source is None:
        return None, None, problems
    tree, problems = parse(source)
    if tree is None:
        return source.text, None, problems
    return source.text, format_source(source.text), []
