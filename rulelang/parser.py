"""Parsing: rules text to the syntax tree of rulelang.nodes, or syntax diagnostics."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import re
import sys
import unicodedata

import attrs
import lark
from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.indenter import Indenter
from lark.lexer import PatternStr

from . import nodes as n
from .diagnostics import Diagnostic, did_you_mean, register
from .files import data_folder
from .limits import DEFAULT, Limits
from .source import Source, Span, comment_start, printable

register("E001", "unexpected-token", """
A word or symbol stands where the grammar does not allow it. The message lists what could
stand there instead. Check the line above too: a missing `:` or an unclosed `(` often shows
up on the next line.
""")
register("E002", "unexpected-character", """
A character that is not part of the language (for instance `;` or `{`). Names are letters,
digits and `_`; strings use double quotes.
""")
register("E003", "bad-indentation", """
A line is indented to a depth that matches no enclosing block. Blocks are indented under the
line that opens them (the one ending with `:`), and a block ends when the indentation returns
to an outer level.
""")
register("E005", "too-deep-to-read", """
The file nests so deeply (hundreds of brackets or operators in one expression) that it cannot
be read. Split long expressions with `define` or `let`.
""")
register("E004", "unexpected-end", """
The file ends while a block or a bracket is still open.
""")
register("E006", "mixed-indentation", """
A line's indentation mixes tabs and spaces, or is made of tabs where the enclosing block is
indented with spaces (or the other way round). Editors show a tab as 2, 4 or 8 columns, so such
a line would land in a block it does not seem to be in. Indent with spaces only, or tabs only.
""")
register("E007", "unclosed-bracket", """
A `(`, `[` or string is opened and never closed. The report points at the opening; a string
ends on the line where it starts.
""")
register("E008", "invalid-escape", """
A backslash in a string starts an escape that the language does not know. The escapes are
`\\"` (a quote), `\\\\` (a backslash), `\\n` (a new line) and `\\t` (a tab).
""")
register("E009", "control-character", """
A control character (an escape sequence, a carriage return, a bell, a bidirectional override)
written raw in the file, even in a string or a comment. A terminal would act on it when the
file's text is shown, and a reader cannot see it. In a string, write `\\n` for a new line and
`\\t` for a tab.
""")
register("E602", "too-many-pieces", """
A component declaration would make more pieces than the `pieces` limit (100,000 by default):
`one for each` over long ranges, or a large `count`. The size is worked out before anything
is made. A real game that needs more raises the limit with `--limit pieces=N`.
""")
register("E603", "too-many-faces", """
A die has more faces than the `faces` limit (1,000 by default). A real game that needs more
raises the limit with `--limit faces=N`.
""")
register("E606", "number-too-large", """
An integer written in the file has more digits than the `number_digits` limit (1,000 by
default). A real game that needs more raises the limit with `--limit number_digits=N`.
""")

# Deeper nesting than this (blocks, brackets and operators together, as levels of the syntax
# tree) is refused by the parser, so that every phase after it may recurse over the tree.
MAX_DEPTH = 100


def _grammar_text() -> str:
    return (data_folder("grammar") / "rulelang.lark").read_text("utf-8")


class _BadIndent(Exception):
    def __init__(self, offset: int):
        self.offset = offset


class RulesIndenter(Indenter):
    """Turns indentation into _INDENT/_DEDENT tokens; a bad dedent names its position."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8  # required by Lark's Indenter; unused, as indentation is compared as text

    def process(self, stream):
        self.indents = [""]
        self.last_end = None
        self.open: list[Token] = []  # the brackets open where the parser is, innermost last
        return self._process(stream)

    def _process(self, stream):
        token = None
        for token in stream:
            if token.start_pos and token.start_pos == getattr(self, "last_end", None) \
                    and _WORD_CHAR.match(token.value) and _WORD_CHAR.match(self.last_value[-1:]):
                raise _GluedWords(self.last_start, token.end_pos, self.last_value, token.value)
            self.last_start, self.last_end, self.last_value = token.start_pos, token.end_pos, token.value
            if token.type == self.NL_type:
                yield from self.handle_NL(token)
            else:
                yield token
            if token.type in self.OPEN_PAREN_types:
                self.open.append(token)
            elif token.type in self.CLOSE_PAREN_types and self.open:
                self.open.pop()
        while len(self.indents) > 1:
            self.indents.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, "", token) if token else Token(self.DEDENT_type, "")

    def handle_NL(self, token: Token):
        """Indentation is compared as text, never as a number of columns: a line is indented with
        spaces or with tabs, and a deeper block starts with the indentation of the block around it."""
        if self.open:
            return
        yield token
        indent = token.rsplit("\n", 1)[1]
        line_start = token.end_pos - len(indent)
        for i, char in enumerate(indent):
            if char != indent[0]:
                raise _MixedIndent(line_start + i, "this line's indentation mixes tabs and spaces")
        current = self.indents[-1]
        if indent == current:
            return
        if indent.startswith(current):
            self.indents.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent, token)
            return
        if not current.startswith(indent) and indent and current:
            # Neither is the start of the other: one is tabs, the other spaces.
            raise _MixedIndent(line_start, f"this line is indented with {_whitespace(indent)} where its block is "
                               f"indented with {_whitespace(current)}")
        while len(indent) < len(self.indents[-1]):
            self.indents.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent, token)
        if indent != self.indents[-1]:
            raise _BadIndent(token.end_pos)


def _whitespace(indent: str) -> str:
    return "tabs" if indent.startswith("\t") else "spaces"


_WORD_CHAR = re.compile(r"\w")


class _GluedWords(Exception):
    """Two words the lexer read with nothing between them (`sharedpile` as `shared pile`): where
    only keywords can follow, a keyword is matched at the start of a longer word."""

    def __init__(self, start: int, end: int, first: str, second: str):
        self.start, self.end, self.first, self.second = start, end, first, second


class _MixedIndent(Exception):
    def __init__(self, offset: int, message: str):
        self.offset = offset
        self.message = message


class _Problem(Exception):
    """A syntax problem found while building the tree (a bad escape, a number too large)."""

    def __init__(self, code: str, message: str, start: int, end: int, help: str | None = None):
        self.diagnostic = (code, message, start, end, help)


@functools.cache
def _lark() -> Lark:
    grammar = _grammar_text()
    options = dict(parser="lalr", postlex=RulesIndenter(), propagate_positions=True, maybe_placeholders=True)
    path = parser_cache_file(grammar)
    if not path:
        return Lark(grammar, **options)
    if os.path.exists(path):
        return Lark(grammar, cache=path, **options)
    # Written whole under another name, then renamed: a start alongside never reads half a file
    written = f"{path}.{os.getpid()}.part"
    parser = Lark(grammar, cache=written, **options)
    try:
        os.replace(written, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(written)
    return parser


def parser_cache_file(grammar: str | None = None) -> str | bool:
    """Where Lark keeps the parser tables it works out from the grammar, so that a later start
    loads them (about 0.1 s) instead of working them out again (about 0.5 s): a file in
    ``$RULELANG_PARSER_CACHE``, else in ``$XDG_CACHE_HOME/rulelang`` or ``~/.cache/rulelang``,
    named by a hash of the grammar and the Lark and Python versions (Lark checks them too
    before it uses the file, and builds the tables afresh when it cannot read it). False (no
    file) when ``RULELANG_PARSER_CACHE`` is empty or the folder cannot be made. The tables are
    pickled, so they are kept in a folder of the user's own, never a shared one like /tmp."""
    folder = os.environ.get("RULELANG_PARSER_CACHE")
    if folder is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "rulelang")
    if not folder:
        return False
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return False
    made_by = f"{_grammar_text() if grammar is None else grammar}\0{lark.__version__}\0{sys.version_info[:2]}"
    return os.path.join(folder, f"grammar-{hashlib.sha256(made_by.encode()).hexdigest()[:16]}.lark")


_TOKEN_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "SIGNED_INT": "a number",
    "STRING": "a string",
    "_NL": "the end of the line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
    "$END": "the end of the file",
}


def _describe_terminal(name: str) -> str:
    if name in _TOKEN_WORDS:
        return _TOKEN_WORDS[name]
    for terminal in _lark().terminals:
        if terminal.name == name and isinstance(terminal.pattern, PatternStr):
            return f"`{terminal.pattern.value}`"
    return name.lower()


def _describe_token(token: Token) -> str:
    if token.type == "_NL":
        return "end of line"
    if token.type == "_INDENT":
        return "indentation"
    if token.type == "_DEDENT":
        return "end of block"
    if token.type == "$END":
        return "end of file"
    return f"`{token.value}`"


def _expected_words(expected: set[str]) -> str:
    words = sorted({_describe_terminal(t) for t in expected if not t.startswith("__")})
    if len(words) > 8:
        words = words[:8] + ["..."]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


# Labelled examples of common mistakes (Lark's match_examples): the label is the message.
_MISTAKES = {
    "`N x FACE` takes a whole number written out, 1 or more (`3 x brain`): not a sign, not an option's "
    "name": [
        "die d:\n  faces -2 x a\n",
        "die d:\n  faces n x a\n",
        "die d:\n  faces 1, -2 x a\n",
        "die d:\n  faces a, n x b\n",
    ],
    "a `choose` takes lines of its own: end this line at `rule NAME:` and put the `choose` on the next "
    "line, indented": [
        "turn:\n  rule r: choose n from z as \"p\"\n",
        "turn:\n  rule r: choose n from z\n",
    ],
    '`aloud` comes after the prompt: `choose NAME from C as "PROMPT" aloud`': [
        "turn:\n  choose n from z aloud as \"p\"\n",
    ],
    '`secretly` comes after the prompt: `choose NAME from C as "PROMPT" secretly`': [
        "turn:\n  choose n from z secretly as \"p\"\n",
    ],
    "there is no `[x for x in ...]` in rules: filter with `where` (`ZONE where number > 3`), order with "
    "`sorted(C, KEY)`, or build the list in a `for each` loop (`picks = picks + [x]`)": [
        *(f"turn:\n  let x = [{item} for a in b]\n" for item in
          ("a", "f(a)", "a + 1", "a.b", "(a)", "a[1]", "a of b", "1", '"t"', "a == 1", "-a")),
        *(f"turn:\n  for each p in [{item} for a in b]:\n    pass\n" for item in ("a", "f(a + k)", "a.b")),
    ],
    "`A if C else B` is a value; to do something only when C holds, write `if C:` and the statement "
    "under it, indented": [
        "turn:\n  eliminate player if x\n",
        "turn:\n  move z to y if x\n",
        "turn:\n  x = 1 if y\n",
    ],
    "a rule's line holds a statement: `most EXPR` or `least EXPR` in `winner:`, `game ends when CONDITION` "
    "in `end:`, `NAME = VALUE` to set a value": [
        "winner:\n  rule w: s of player\n",
        "end:\n  rule e: s of player >= 3\n",
        "winner:\n  rule w: s\n",
        "end:\n  rule e: s >= 3\n",
        "winner:\n  rule w: sum(s)\n",
    ],
    "to go through the items in an order, name the key: `for each x in ZONE sorted by number:`": [
        "turn:\n  for each x in z sorted:\n    pass\n",
        "turn:\n  for each x in z sorted number:\n    pass\n",
    ],
    "a kind is declared with `:` and a block under it: `token chip:`, then, indented, `count 1` for one "
    "piece (or `one for each ...`, `count N`, attributes)": [
        *(f"{kind} t\n" for kind in ("tile", "card", "token", "piece")),
        *(f"{kind} t\n\nzone z: shared pile, public\n" for kind in ("tile", "card", "token", "piece")),
    ],
    "a kind's block needs at least one line, indented under it: `count 1` for one piece, `one for each "
    "...`, `count N`, or its attributes": [
        *(f"{kind} t:\n\nzone z: shared pile, public\n" for kind in ("tile", "card", "token", "piece")),
    ],
    "a `:` is missing at the end of the line that opens this block": [
        "setup\n  pass\n",
        "turn\n  rule x:\n    pass\n",
        "die d\n  faces 1 to 6\n",
        "turn:\n  rule x\n    pass\n",
        "turn:\n  repeat\n    break\n",
        "turn:\n  if true\n    pass\n",
    ],
    "`=` is the assignment; to compare, write `==`": [
        "turn:\n  if x = 1:\n    pass\n",
        "turn:\n  if y:\n    pass\n  elif x = 1:\n    pass\n",
        "turn:\n  while x = 1:\n    pass\n",
        "rule r:\n  when do p if x = 1:\n    pass\n",
        "turn:\n  choose:\n    \"a\" if x = 1: pass\n",
        "end:\n  rule e: game ends when x = 1\n",
        "turn:\n  let y = z where x = 1\n",
        "turn:\n  choose c from z where x = 1 as \"p\"\n",
        "turn:\n  move z where x = 1 to y\n",
        "turn:\n  roll z where x = 1\n",
    ],
    # A `when` can follow any top-level item: one example after each kind of item.
    "a triggered rule is `rule NAME:` at the top level, with `when ...:` indented under it": [
        before + "when move to z:\n  pass\n" for before in (
            "", "\n", 'extends "b"\n', 'game "g"\n', 'game "g":\n  players 2 to 4\n',
            "option o = 1\n", 'option o = 1:\n  "d"\n', "die d:\n  faces 1 to 6\n",
            "token t:\n  count 1\n", "zone z: shared set\n", "counter c: shared = 0\n",
            "define x = 1\n", "define f(x) = x\n", "turn:\n  pass\n", "procedure p:\n  pass\n",
            "invariant i: true\n", "replace rule r: pass\n", "replace rule r:\n  pass\n",
            "remove rule r\n", "add rule r after s: pass\n", "add rule r after s:\n  pass\n",
            "rule r: pass\n", "rule r:\n  when do p:\n    pass\n")
    ],
    "a zone is missing after `to`: `when move to ZONE:`": [
        "rule r:\n  when move to:\n    pass\n",
        "rule r:\n  when move to\n    pass\n",
    ],
    "a zone is missing after `from`: `when move from ZONE:`": [
        "rule r:\n  when move from:\n    pass\n",
        "rule r:\n  when move from\n    pass\n",
    ],
    "`when do` names a procedure: `when do PROCEDURE:`": [
        "rule r:\n  when do:\n    pass\n",
    ],
    "`when` is followed by `move` or `do`: `when move to ZONE:` or `when do PROCEDURE:`": [
        "rule r:\n  when:\n    pass\n",
    ],
    'the action `may` offers needs a label in quotes: `may "LABEL":` or `may "LABEL" once per turn:`': [
        "turn:\n  may once per turn:\n    pass\n",
        "turn:\n  may reroll:\n    pass\n",
        "turn:\n  may:\n    pass\n",
        "turn:\n  may by p:\n    pass\n",
    ],
    '`once per ...` comes before `by`: `may "LABEL" once per turn by PLAYER:`': [
        'turn:\n  may "x" by p once per turn:\n    pass\n',
    ],
    "`instead` comes last: `when move ... if CONDITION instead:`": [
        "rule r:\n  when move to z instead if true:\n    pass\n",
    ],
    'the `if` condition comes before `once per ...`: `"LABEL" if CONDITION once per turn:`': [
        f'turn:\n  choose:\n    "a" once per {scope} if true: pass\n' for scope in ("turn", "round", "game")
    ],
    "write `per player`, in the singular": [
        "token t:\n  limit 1 per players\n",
        "counter c: per players = 0\n",
    ],
    "a die has no `limit`: a limit is for tiles, cards, tokens and pieces": [
        "die d:\n  limit 1 per player\n",
    ],
    '`aloud` goes after the first part\'s prompt, and covers both parts: `choose q from C as "PROMPT" aloud then '
    'choose n from ...`': [
        'turn:\n  choose q from z as "x" then choose n from y as "y" aloud\n',
        'turn:\n  choose q from z then choose n from y aloud\n',
    ],
    '`secretly` goes after the first part\'s prompt, and covers both parts: `choose q from C as "PROMPT" secretly '
    'then choose n from ...`': [
        'turn:\n  choose q from z as "x" then choose n from y as "y" secretly\n',
        'turn:\n  choose q from z then choose n from y secretly\n',
    ],
    '`by` comes before `as`: `choose NAME from C by PLAYER as "PROMPT"`': [
        'turn:\n  choose n from y as "x" by p\n',
        'turn:\n  choose as "x" by p:\n    "a": pass\n',
    ],
    '`by` goes on the first part, since one player chooses both: `choose q from C by PLAYER then choose n from ...`': [
        "turn:\n  choose q from z then choose n from y by p\n",
        'turn:\n  choose q from z then choose n from y as "x" by p\n',
        "turn:\n  choose q from z then choose n from y where true by p\n",
    ],
    "`A to B` is for declarations; in a rule, the numbers from A to B are `range(A, B)`": [
        "turn:\n  for each c in 2 to 12:\n    pass\n",
        "turn:\n  let x = 2 to 12\n",
        "turn:\n  x = 2 to 12\n",
        'turn:\n  choose c from 1 to 3 as "p"\n',
        "turn:\n  if x in 1 to 6:\n    pass\n",
    ],
    '`labelled` comes after the prompt: `choose NAME from ... as "PROMPT" labelled EXPR`': [
        'turn:\n  choose c from z labelled c as "p"\n',
    ],
    '`choose` takes its parts in this order: `choose NAME from C where CONDITION, N of them by PLAYER '
    'as "PROMPT" labelled EXPR`': [
        'turn:\n  choose c from z by p where true as "x"\n',
        'turn:\n  choose c from z as "x" where true\n',
    ],
    "a count that is a name or a sum goes in brackets: `draw (N) from ZONE to ZONE`, `create (N) KIND in ZONE`, `deal (N) from ...`": [
        "turn:\n  draw n from z to y\n",
        "turn:\n  draw n + 1 from z to y\n",
        "turn:\n  create n d in z\n",
        "turn:\n  draw count(z) from z to y\n",
        "turn:\n  draw up to count(z) from z to y\n",
        "turn:\n  draw up to n from z to y\n",
        "turn:\n  deal n from z to y of each player\n",
        "turn:\n  deal n + 1 from z to y of each player\n",
        "turn:\n  deal count(z) from z to y of each player\n",
    ],
    "a count that is a name or is worked out goes in brackets: `, 1 to (count(hand)) of them`, `, up to (N) of them`": [
        "turn:\n  choose c from z, 1 to count(z) of them\n",
        "turn:\n  choose c from z, up to count(z) of them\n",
        "turn:\n  choose c from z, n of them\n",
        "turn:\n  choose c from z, 1 to n of them\n",
        "turn:\n  choose c from z, up to n of them\n",
    ],
}

# Labels that fit only some of the lines that stop in their parser state (LALR shares a state
# between statements that end alike, such as the `by PLAYER` of `choose` and of `may`): the
# line of the error must match the pattern too.
_MISTAKE_LINES = {
    '`aloud` goes after the first part\'s prompt, and covers both parts: `choose q from C as "PROMPT" aloud then '
    'choose n from ...`': r"\bthen\s+choose\b.*\baloud\b",
    '`by` comes before `as`: `choose NAME from C by PLAYER as "PROMPT"`': r"^(?!.*\bthen\s+choose\b).*\bas\b.*\bby\b",
    '`by` goes on the first part, since one player chooses both: `choose q from C by PLAYER then choose n from ...`':
        r"\bthen\s+choose\b",
    "a triggered rule is `rule NAME:` at the top level, with `when ...:` indented under it": r"^when\b",
    '`once per ...` comes before `by`: `may "LABEL" once per turn by PLAYER:`': r"^\s*may\b",
    'the `if` condition comes before `once per ...`: `"LABEL" if CONDITION once per turn:`': r'^\s*"',
    "write `per player`, in the singular": r"\bper\s+players\b",
    "a rule's line holds a statement: `most EXPR` or `least EXPR` in `winner:`, `game ends when CONDITION` "
    "in `end:`, `NAME = VALUE` to set a value": r"^\s*rule\s+\w+\s*:(?![^=]*[^=!<>]=[^=])",
    "`A if C else B` is a value; to do something only when C holds, write `if C:` and the statement "
    "under it, indented": r"^\s*(?!if\b)\S.*\bif\b(?!.*\belse\b)",
    "a `choose` takes lines of its own: end this line at `rule NAME:` and put the `choose` on the next "
    "line, indented": r"^\s*rule\s+\w+\s*:\s*choose\b",
    '`aloud` comes after the prompt: `choose NAME from C as "PROMPT" aloud`': r"\baloud\s+as\b",
    '`secretly` comes after the prompt: `choose NAME from C as "PROMPT" secretly`': r"\bsecretly\s+as\b",
    '`secretly` goes after the first part\'s prompt, and covers both parts: `choose q from C as "PROMPT" secretly '
    'then choose n from ...`': r"\bthen\s+choose\b.*\bsecretly\b",
    "there is no `[x for x in ...]` in rules: filter with `where` (`ZONE where number > 3`), order with "
    "`sorted(C, KEY)`, or build the list in a `for each` loop (`picks = picks + [x]`)": r"\[.*\bfor\b",
    "to go through the items in an order, name the key: `for each x in ZONE sorted by number:`":
        r"^\s*for\s+each\b.*\bsorted\b",
    "a die has no `limit`: a limit is for tiles, cards, tokens and pieces": r"^\s*limit\b",
    "`A to B` is for declarations; in a rule, the numbers from A to B are `range(A, B)`": r"\bto\b",
    '`labelled` comes after the prompt: `choose NAME from ... as "PROMPT" labelled EXPR`': r"\blabelled\b.*\bas\b",
    "a count that is a name or a sum goes in brackets: `draw (N) from ZONE to ZONE`, `create (N) KIND in ZONE`, `deal (N) from ...`":
        r"(^|:)\s*(draw|create|deal)\s",
    "a count that is a name or is worked out goes in brackets: `, 1 to (count(hand)) of them`, `, up to (N) of them`":
        r",\s*(\d+\s+to\s+|up\s+to\s+)?[A-Za-z_]",
    '`choose` takes its parts in this order: `choose NAME from C where CONDITION, N of them by PLAYER '
    'as "PROMPT" labelled EXPR`': r"^\s*choose\b",
}


@functools.cache
def _mistake_table() -> dict[tuple[int, str], list[str]]:
    """(parser state, token type) of each labelled example's error -> the labels. Matching on
    the state on top of the stack (not the whole stack, as match_examples does) lets a mistake
    match at any depth of nesting."""
    table: dict[tuple[int, str], list[str]] = {}
    for label, examples in _MISTAKES.items():
        for example in examples:
            try:
                _lark().parse(example)
            except UnexpectedToken as error:
                labels = table.setdefault((error.state.position, error.token.type), [])
                if label not in labels:
                    labels.append(label)
            except (UnexpectedInput, _BadIndent, _MixedIndent, _GluedWords):
                pass
    return table


def _match_mistake(error: UnexpectedInput, text: str) -> str | None:
    state = getattr(error, "state", None)
    token = getattr(error, "token", None)
    if state is None or token is None or not hasattr(state, "position"):
        return None
    start = token.start_pos if token.start_pos is not None else 0
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    for label in _mistake_table().get((state.position, token.type), ()):
        pattern = _MISTAKE_LINES.get(label)
        if pattern is None or re.search(pattern, line):
            return label
    return None


def _acceptable(error: UnexpectedInput) -> set[str]:
    """The terminals the parser really accepts where it stopped. When the lexer stops first,
    Lark lists what it could lex there, which always includes the end of the line (the
    indentation post-lexer asks for it everywhere) and, as LALR merges states, words that
    only fit elsewhere (`as` after the `by` of a `may`): ask the parser instead."""
    expected = set(getattr(error, "expected", None) or ())
    parser = getattr(error, "interactive_parser", None)
    if parser is None or not expected:
        return expected
    try:
        accepted = parser.accepts()
    except Exception:  # a message with too many words beats a traceback
        return expected
    return (expected & (accepted | {"$END"})) or expected


def _syntax_diagnostic(error: Exception, source: Source, text: str) -> Diagnostic:
    if isinstance(error, _GluedWords):
        return Diagnostic("E001", f"unexpected `{error.first}{error.second}`", source.span(error.start, error.end),
                          help=f"write it as two words: `{error.first} {error.second}`")
    if isinstance(error, _MixedIndent):
        return Diagnostic("E006", error.message, source.span(error.offset, error.offset + 1),
                          help="indent each block with spaces only, or with tabs only (the file may use tabs in one "
                          "block and spaces in another)")
    unclosed = _unclosed_bracket(error, text)
    if unclosed is not None:
        return Diagnostic("E007", f"this `{unclosed.value}` is never closed",
                          source.span(unclosed.start_pos, unclosed.end_pos),
                          help=f"close it with `{_CLOSING[unclosed.value]}`")
    if isinstance(error, _BadIndent):
        end = source.text.find("\n", error.offset)
        return Diagnostic(
            "E003",
            "this line's indentation matches no enclosing block",
            source.span(error.offset, end if end >= 0 else len(source.text)),
            help="indent it exactly as deep as the lines of the block it belongs to",
        )
    if isinstance(error, UnexpectedCharacters):
        offset = error.pos_in_stream
        if text[offset] == '"':
            return Diagnostic("E007", "this string is never closed", source.span(offset, offset + 1),
                              help='a string ends with `"` on the line where it starts; write `\\"` for a quote '
                              "inside it")
        char = text[offset]
        if char.isspace() and char not in " \t\n\r":  # looks like a space, and is not one
            name = unicodedata.name(char, "").lower() or "a space character"
            return Diagnostic("E002", f"unexpected character `\\u{ord(char):04x}` ({name})",
                              source.span(offset, offset + 1),
                              help="it looks like a space: type an ordinary space (or a tab) instead")
        return Diagnostic(
            "E002",
            f"unexpected character `{printable(char)}`",
            source.span(offset, offset + 1),
            help="names use letters, digits and `_`; strings use double quotes" if char != "'" else
            "strings use double quotes",
        )
    assert isinstance(error, UnexpectedInput)
    token = getattr(error, "token", None)
    label = _match_mistake(error, text)
    expected = _acceptable(error)
    if isinstance(error, UnexpectedEOF) or (token is not None and token.type == "$END"):
        offset = len(source.text)
        return Diagnostic("E004", "the file ends inside an unfinished block or bracket",
                          source.span(max(0, offset - 1), offset),
                          help=f"expected {_expected_words(expected)}" if expected else None)
    assert isinstance(error, UnexpectedToken)
    start = token.start_pos if token.start_pos is not None else 0
    end = token.end_pos if token.end_pos is not None else start + 1
    if token.type in ("_NL", "_DEDENT", "_INDENT"):
        # Point just after the code of the line where something was missing, not at its
        # comment or at the next line.
        start = _end_of_code(text, text.rfind("\n", 0, start) + 1, start)
        end = start + 1
        if token.type == "_INDENT":  # the over-indented line itself, past blank and comment lines
            start, end = token.end_pos - len(token.value), token.end_pos
            if not label:
                return Diagnostic("E001", "unexpected indentation: no block opens on the line above",
                                  source.span(start, end),
                                  help="indent this line as deep as the one above it, or end the line above "
                                  "with `:` to open a block")
    shown = _describe_token(token)
    word_start = start
    while _is_word_char(text, word_start - 1):
        word_start -= 1
    if word_start < start and _is_word_char(text, start) and not text[word_start].isdigit():
        # A keyword was read as the start of a longer word (`player` of `players`), where a
        # name cannot stand: show the whole word, and the keyword that fits.
        shown = f"`{text[word_start:end]}`"
        label = label or f"did you mean `{text[word_start:start]}`?"
        start = word_start
    if label:
        return Diagnostic("E001", f"unexpected {shown}", source.span(start, end), help=label)
    return Diagnostic("E001", f"unexpected {shown}; expected {_expected_words(expected)}", source.span(start, end),
                      help=_misspelt_keyword(text, start) or _word_help(text, start, end, token, expected))


_BEFORE_FROM = r".*?(?=\s+from\b|$)"
_ZONE_SIGHTS = "`public`, `hidden`, `owner only`, `others only`, `top only` or `secret`"
_COUNTER_SIGHTS = "`public`, `hidden` or `owner only`"


def _word_help(text: str, start: int, end: int, token: Token, expected: set[str]) -> str | None:
    """Help for a word where the grammar wants a keyword: a visibility mistyped or not
    allowed there (`hiden`, `secret` on a counter, two of them), `owner-only`, or a word close
    to one the grammar accepts there."""
    words = {m.group(1) for t in expected if (m := re.fullmatch(r"`([a-z_]+)`", _describe_terminal(t)))}
    line_start = text.rfind("\n", 0, start) + 1
    line = text[line_start:start]
    word = text[start:end]
    if word in ("public", "hidden", "owner") and re.match(r"\s*counter\b[^=]*$", line):
        return "a counter's visibility comes after its starting value: `counter NAME: per player = 0, " \
            f"{'owner only' if word == 'owner' else word}`"
    if {"public", "hidden", "owner"} <= words:  # where a visibility goes
        zone = "secret" in words
        sights = _ZONE_SIGHTS if zone else _COUNTER_SIGHTS
        if word == "secret":
            return f"a counter is {sights}; `secret` is for zones (a counter only its owner sees is `owner only`)"
        if word in ("top", "only"):
            return f"a counter is {sights}; `top only` is for zones"
        if word == "others":
            return f"a counter is {sights}; `others only` is for zones"
        close = did_you_mean(word.lower().replace("_", " ").replace("-", " "),
                             ["public", "hidden", "owner only", "others only", "top only", "secret"] if zone else
                             ["public", "hidden", "owner only"])
        return f"{close} (a {'zone' if zone else 'counter'} is {sights})" if close else \
            f"a {'zone' if zone else 'counter'} is {sights}"
    if words == {"only"}:
        return "write it as two words: `owner only`, `others only`, `top only`"
    block = re.fullmatch(r"\s*rule\s+[A-Za-z_]\w*\s*:\s*(if|for|repeat|while)\s*", line)
    if block:
        keyword = "for each" if block.group(1) == "for" else block.group(1)
        return (f"{'an' if keyword == 'if' else 'a'} `{keyword}` opens a block, which takes lines of its own: "
                f"end this line at `rule NAME:` and put the `{keyword}` on the next line, indented")
    counter = re.fullmatch(r"\s*counter\s+([A-Za-z_]\w*)\s*", line)
    if counter and word == "=":
        return (f"a counter says whose it is before its starting value: `counter {counter.group(1)}: shared "
                f"= ...` (one for the game) or `counter {counter.group(1)}: per player = ...` (one each)")
    if token.value == "," and re.match(r"\s*counter\b", line):
        return f"a counter has one visibility: {_COUNTER_SIGHTS}"
    if re.fullmatch(r"\s*otherwise\s*", line) and word == ":":
        return ("`otherwise:` belongs to a `choose ... from` (what happens when it has no option), "
                "indented under it; for \"do this, or else that\" write a choice with two branches, "
                "`choose:` then `\"take\": ...` and `\"pass\": ...`, or an `if` and `else`")
    if re.fullmatch(r"\s*repeat\s*", line) and re.fullmatch(r"\d+|[A-Za-z_]\w*", word):
        return f"to run a block {word} times write `repeat {word} times:`"
    create = re.search(r"\bcreate\s+([A-Za-z_]\w*)\s+$", line)
    if create and re.fullmatch(r"[A-Za-z_]\w*", word) and create.group(1) != "in":
        return f"a count that is a name goes in brackets: `create ({create.group(1)}) {word} ...`"
    counted = re.search(r"\b(draw|create)\s+(\d+)\s*$", line)
    if counted and word in ("+", "-", "*", "/", "//", "%"):
        rest = text[start:text.find("\n", start) if "\n" in text[start:] else len(text)]
        whole = f"{counted.group(2)} {rest}"
        if counted.group(1) == "create":
            parts = re.match(r"(.*\S)\s+([A-Za-z_]\w*)\s+in\b", whole)
            shown = f"({parts.group(1)}) {parts.group(2)} in" if parts else "(N) KIND in"
        else:
            shown = f"({re.match(_BEFORE_FROM, whole).group(0)}) from"
        return f"a count that is worked out goes in brackets: `{counted.group(1)} {shown} ...`"
    if re.search(r"\bdraw\s+$", line) and re.fullmatch(r"[A-Za-z_]\w*", word):
        return f"a count that is a name goes in brackets: `draw ({word}) from ...`"
    if re.fullmatch(r"\s*continue\s*", line):
        return ("there is no `continue`: put the rest of the loop's block under an `if` that holds "
                "when the rest should run, or leave the loop with `break`")
    if re.fullmatch(r"\s*end\s*", line) and word == "round":
        return ("a turn ends with `end turn` and the game with `end game`; a round ends when every "
                "player has had their turn (`each player takes a turn` in `round:`)")
    starts = re.fullmatch(r"\s*([a-z]+)\s*", line)
    if word in ("=", "+=", "-=") and starts and starts.group(1) in _LINE_WORDS:
        name = starts.group(1)
        return (f"`{name}` is a word of the language that starts a line (`{_LINE_WORDS[name]}`), so a line "
                f"cannot start by setting a variable or counter of that name: rename it, such as `{name}_now`")
    if word == "=" and "==" not in {_describe_terminal(t).strip("`") for t in expected} \
            and re.search(r"\b(if|elif|while|where|when|and|or|not)\b|\(", line):
        return "`=` is the assignment; to compare, write `==`"
    if word in ("<", ">", "<=", ">=", "==", "!=") and re.search(r"(<|>|<=|>=|==|!=)[^=<>]*$", line):
        return f"comparisons do not chain: write `a < b and b < c`, not `a < b {word} c`"
    if token.type == "NAME" or re.fullmatch(r"[A-Za-z_]\w*", word):
        return did_you_mean(word, sorted(words)) if words else None
    return None


# The words that start a line of the language, each with an example: a variable or counter of
# that name cannot be set on a line of its own
_LINE_WORDS = {
    "roll": "roll cup", "draw": "draw 1 from deck to hand of player", "move": "move c to pile",
    "create": "create 5 d6 in cup", "break": "break", "pass": "pass", "end": "end turn", "do": "do fail_turn",
    "each": "each player takes a turn", "give": "give a turn to current", "player": "player takes another turn",
    "least": "least count(hand of player)", "most": "most score of player", "eliminate": "eliminate player",
    "bring": "bring back player", "reveal": "reveal c to player", "repeat": "repeat 3 times:",
    "while": "while cup is not empty:", "choose": "choose c from hand of player", "may": 'may "roll again":',
    "game": "game ends when ...", "rule": "rule throw:", "when": "when move to pile:", "if": "if ...:",
    "elif": "elif ...:", "else": "else:", "for": "for each p in players:", "let": "let x = 1",
}

# The words a statement starts with, for a misspelt one (`rol cup`, `chose c from ...`).
_STATEMENT_WORDS = ("roll", "draw", "deal", "move", "create", "shuffle", "tally", "choose", "let", "repeat", "while",
                    "for", "elif", "else", "pass", "break", "eliminate", "may", "rule", "end", "do")


def _misspelt_keyword(text: str, start: int) -> str | None:
    """`did you mean `roll`?` when the error is at the second word of a line whose first word is
    not a keyword but is close to one that starts a statement: a name followed by a name
    cannot be anything else."""
    line_start = text.rfind("\n", 0, start) + 1
    first = re.fullmatch(r"[ \t]*([A-Za-z_]\w*)[ \t]+", text[line_start:start])
    if first is None or first.group(1) in _STATEMENT_WORDS or not re.match(r"[A-Za-z_(]", text[start:start + 1]):
        return None
    return did_you_mean(first.group(1), _STATEMENT_WORDS)



def _one_to(count: n.Node) -> n.Node:
    """`range(1, COUNT)`: the items of a loop run COUNT times."""
    return n.Call("range", (n.Literal(1, span=count.span), count), span=count.span)


def _joined(first: Span | None, last: Span | None) -> Span | None:
    """The span from the start of ``first`` to the end of ``last``."""
    if first is None or last is None:
        return first or last
    return Span(first.source, first.start, last.end)

_CLOSING = {"(": ")", "[": "]"}
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _unclosed_bracket(error: Exception, text: str) -> Token | None:
    """The innermost bracket open where the parser stopped that the rest of the file never
    closes, when the error is past its line: the real mistake, reported at its opening rather
    than at the declaration where the parser gave up."""
    brackets = getattr(_lark().options.postlex, "open", None)
    if not brackets or not isinstance(error, UnexpectedInput):
        return None
    token = getattr(error, "token", None)
    if isinstance(error, UnexpectedCharacters):
        offset = error.pos_in_stream
    elif isinstance(error, UnexpectedEOF) or token is None or token.type == "$END" or token.start_pos is None:
        offset = len(text)
    else:
        offset = token.start_pos
    # the line (or the file) ended where the parser stopped: a bracket on it never closed is the mistake
    at_line_end = token is None or token.type in ("_NL", "_DEDENT", "$END") or isinstance(error, UnexpectedEOF)
    for bracket in reversed(brackets):
        if ("\n" in text[bracket.start_pos:offset] or at_line_end) and not _closes(text, bracket.start_pos):
            return bracket
    return None


def _closes(text: str, start: int) -> bool:
    """Whether the bracket at ``start`` is closed later in the text (strings and comments skipped)."""
    depth = 0
    i = start
    while i < len(text):
        char = text[i]
        if char == '"':
            end = text.find("\n", i)
            quote = _STRING.match(text, i)
            i = quote.end() if quote else (end if end >= 0 else len(text))
            continue
        if char == "#":
            end = text.find("\n", i)
            i = end if end >= 0 else len(text)
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                return True
        i += 1
    return False


def _is_word_char(text: str, offset: int) -> bool:
    return 0 <= offset < len(text) and (text[offset].isalnum() or text[offset] == "_")


def _end_of_code(text: str, start: int, end: int) -> int:
    """A node's end without the newlines, blank lines and comments that close its last line."""
    end = min(end, len(text))
    while True:
        while end > start and text[end - 1] in " \t\r\n":
            end -= 1
        line_start = max(start, text.rfind("\n", 0, end) + 1)
        cut = comment_start(text[line_start:end])
        if cut < 0:
            return end
        end = line_start + cut


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


def _names_an_option(bounds) -> bool:
    """Whether a bound of `A to B` in a declaration is a name (an option's, worked out later)."""
    return any(b.__class__ is Token and b.type == "NAME" for b in bounds)


def _bound(bound) -> int | str:
    return str(bound) if bound.__class__ is Token and bound.type == "NAME" else bound


def _unquote(token: Token) -> str:
    """A string token's text: the escapes `\\"`, `\\\\`, `\\n` and `\\t` decoded, in one pass."""

    def escape(match: re.Match) -> str:
        char = match.group(1)
        if char not in _ESCAPES:
            start = (token.start_pos or 0) + 1 + match.start()
            raise _Problem("E008", f"unknown escape `\\{printable(char)}` in a string", start, start + 2,
                           help='the escapes are `\\"`, `\\\\`, `\\n` and `\\t`; write `\\\\` for a backslash')
        return _ESCAPES[char]

    return re.sub(r"\\(.)", escape, token[1:-1])


# `N x FACE` writes the face N times, held as N faces: past this many, even a raised limit of
# faces would fill the memory
MOST_FACES_WRITTEN = 1_000_000


def _raise_help(limit: str, needed: int) -> str:
    if needed >= 10 ** 18:  # (`--limit` takes at most 18 digits)
        return "that is more than any limit can be raised to: write fewer"
    return f"if the game really needs this many, raise the limit with `--limit {limit}={needed}`"


def _product(sizes) -> int:
    made = 1
    for values in sizes:
        made *= len(values)
    return made


@v_args(meta=True)
class AstBuilder(Transformer):
    """Turns Lark's parse tree into rulelang.nodes; one method per grammar rule."""

    def __init__(self, source: Source, limits: Limits = DEFAULT):
        super().__init__()
        self.source = source
        self.limits = limits
        self.made = 0  # values made by every range of the file together

    def _int(self, token: Token) -> int:
        digits = len(token.lstrip("-"))
        if digits > self.limits.number_digits:
            raise _Problem("E606", f"a number of {digits} digits, more than the limit of "
                           f"{self.limits.number_digits}", token.start_pos, token.end_pos,
                           help=_raise_help("number_digits", digits))
        try:
            return int(token)
        except ValueError:  # over Python's own bound on converting digits
            raise _Problem("E606", f"a number of {digits} digits is too large to read", token.start_pos,
                           token.end_pos) from None

    def _range(self, meta, low: Token | int, high: Token | int, limit: str) -> range:
        values = range(low if low.__class__ is int else self._int(low), (high if high.__class__ is int else self._int(high)) + 1)
        allowed = getattr(self.limits, limit)
        made = max(0, values.stop - values.start)  # (not len(): a range past sys.maxsize has none)
        if made > allowed:
            code, what = ("E603", "faces") if limit == "faces" else ("E602", "values")
            raise _Problem(code, f"`{low} to {high}` makes {made} {what}, more than the limit of {allowed}",
                           meta.start_pos, meta.end_pos, help=_raise_help(limit, made))
        self.made += made
        if self.made > self.limits.pieces:
            raise _Problem("E602", f"the ranges of this file make more than {self.limits.pieces} values in all, "
                           "the limit of pieces", meta.start_pos, meta.end_pos,
                           help=_raise_help("pieces", self.made))
        return values

    def _span(self, meta) -> Span | None:
        if getattr(meta, "empty", True):
            return None
        return Span(self.source, meta.start_pos, _end_of_code(self.source.text, meta.start_pos, meta.end_pos))

    def _tok_span(self, token: Token) -> Span:
        return Span(self.source, token.start_pos, token.end_pos)

    # -- file and declarations
    def start(self, meta, children):
        return n.RulesFile(self.source.path, tuple(children), span=self._span(meta))

    def extends_decl(self, meta, children):
        return n.Extends(_unquote(children[0]), span=self._span(meta))

    def game_decl(self, meta, children):
        fields: dict = {"doc": ()}
        for item in children[1:]:
            kind, *values = item
            if kind == "players":
                fields["min_players"], fields["max_players"], fields["players_span"] = values
            elif kind == "limit":
                fields["turn_limit"], fields["turns_span"] = values
            elif kind == "teams":
                fields["team_size"], fields["teams_span"] = values
            else:
                fields["doc"] = fields["doc"] + (values[0],)
        return n.GameDecl(_unquote(children[0]), span=self._span(meta), **fields)

    def players_item(self, meta, children):
        low = self._int(children[0])  # `players N`: exactly N
        return ("players", low, low if children[1] is None else self._int(children[1]), self._span(meta))

    def teams_item(self, meta, children):
        return ("teams", self._int(children[0]), self._span(meta))

    def turn_limit_item(self, meta, children):
        return ("limit", self._int(children[0]), self._span(meta))

    def doc_item(self, meta, children):
        return ("doc", _unquote(children[0]))

    def option_decl(self, meta, children):
        name, default, bounds, *doc = children
        if isinstance(default, n.Literal):
            default = default.value
        return n.OptionDecl(str(name), default, tuple(doc), bounds=bounds, span=self._span(meta))

    def option_range(self, meta, children):
        return (children[0], children[1])

    def option_value(self, meta, children):
        value = children[0]
        if isinstance(value, Token):
            return _unquote(value)
        return value.value if isinstance(value, n.Literal) else value

    def doc_line(self, meta, children):
        return _unquote(children[0])

    def die_decl(self, meta, children):
        name, *items = children
        faces: list[n.Face] = []
        attrs_: list[n.AttrDecl] = []
        for item in items:
            if isinstance(item, n.AttrDecl):
                attrs_.append(item)
            else:
                faces.extend(item)
        if len(faces) > self.limits.faces:
            raise _Problem("E603", f"die `{name}` has {len(faces)} faces, more than the limit of {self.limits.faces}",
                           meta.start_pos, _end_of_code(self.source.text, meta.start_pos, meta.end_pos),
                           help=_raise_help("faces", len(faces)))
        return n.DieDecl(str(name), tuple(faces), tuple(attrs_), span=self._span(meta))

    def faces_item(self, meta, children):
        faces: list[n.Face] = []
        for child in children:
            faces.extend(child if isinstance(child, list) else [child])
        return faces

    def face(self, meta, children):
        label, value = children
        label_value = label if label.__class__ is int else str(label)  # a number (signed_int) or a name
        return n.Face(label_value, value, span=self._span(meta))

    def face_times(self, meta, children):
        """`65 x sider`: that face 65 times (alike faces roll as one, with its weight)."""
        times, label, value = children
        count = self._int(times)
        if count < 1:
            raise _Problem("E303", f"`{count} x {label}` makes no face", meta.start_pos, meta.end_pos,
                           help=f"write 1 or more: `1 x {label}` is `{label}`")
        allowed = min(self.limits.faces, MOST_FACES_WRITTEN)
        if count > allowed:
            raise _Problem("E603", f"`{count} x {label}` makes {count} faces, more than the limit of "
                           f"{allowed}", meta.start_pos, meta.end_pos,
                           help=_raise_help("faces", count) if allowed == self.limits.faces else
                           "write the weights smaller: `65 x a, 35 x b` rolls as `13 x a, 7 x b`")
        self._range(meta, 1, count, "faces")  # (counted among the values made, within the limit of pieces)
        return [self.face(meta, [label, value])] * count

    def face_range(self, meta, children):
        span = self._span(meta)
        if _names_an_option(children):
            return n.OptionRange(*map(_bound, children), "faces", span=span)
        values = self._range(meta, children[0], children[1], "faces")
        if not values:
            raise _Problem("E303", f"the range `{children[0]} to {children[1]}` is empty", meta.start_pos,
                           meta.end_pos, help=f"write the lower number first: `{children[1]} to {children[0]}`")
        return [n.Face(v, None, span=span) for v in values]

    def piece_decl(self, meta, children):
        category, name, *items = children
        generators: list[n.Generator] = []
        attrs_: list[n.AttrDecl] = []
        count = limit = limit_span = table = None
        for item in items:
            if isinstance(item, n.AttrDecl):
                attrs_.append(item)
            elif isinstance(item, n.Table):
                if table is not None:
                    raise _Problem("E303", f"`{name}` has two tables", item.span.start, item.span.end,
                                   help="put all its rows in one table")
                table = item
            elif isinstance(item, int):
                count = item
            elif isinstance(item, tuple) and item[0] == "limit":
                limit, limit_span = item[1], item[2]
            else:
                generators.extend(item)
        made = len(table.rows) if table is not None else 1
        for generator in generators:
            made *= len(generator.values)
            if made > self.limits.pieces:  # worked out before any piece is made
                raise _Problem("E602", f"`{name}` makes more than {self.limits.pieces} pieces, the limit",
                               meta.start_pos, _end_of_code(self.source.text, meta.start_pos, meta.end_pos),
                               help=_raise_help("pieces", _product(g.values for g in generators)))
        if table is not None and made > self.limits.pieces:
            raise _Problem("E602", f"`{name}` makes more than {self.limits.pieces} pieces, the limit",
                           meta.start_pos, _end_of_code(self.source.text, meta.start_pos, meta.end_pos),
                           help=_raise_help("pieces", made))
        return n.PieceDecl(category, str(name), tuple(generators), count, tuple(attrs_), limit,
                           span=self._span(meta), limit_span=limit_span, table=table)

    def piece_category(self, meta, children):
        return str(children[0])

    def each_item(self, meta, children):
        return list(children)

    def generator(self, meta, children):
        return n.Generator(str(children[0]), children[1], span=self._span(meta))

    def count_item(self, meta, children):
        count = self._int(children[0])
        if count > self.limits.pieces:
            raise _Problem("E602", f"`count {count}` makes more pieces than the limit of {self.limits.pieces}",
                           meta.start_pos, _end_of_code(self.source.text, meta.start_pos, meta.end_pos),
                           help=_raise_help("pieces", count))
        return count

    def limit_item(self, meta, children):
        return ("limit", self._int(children[0]), self._span(meta))

    def value_list(self, meta, children):
        values: list = []
        for child in children:
            if isinstance(child, list):
                values.extend(child)
            elif isinstance(child, Token):
                values.append(_unquote(child) if child.type == "STRING" else str(child))
            else:
                values.append(child)
        return tuple(values)

    def value_range(self, meta, children):
        if _names_an_option(children):
            return n.OptionRange(*map(_bound, children), "values", span=self._span(meta))
        values = list(self._range(meta, children[0], children[1], "pieces"))
        if not values:
            raise _Problem("E303", f"the range `{children[0]} to {children[1]}` is empty", meta.start_pos,
                           meta.end_pos, help=f"write the lower number first: `{children[1]} to {children[0]}`")
        return values

    def signed_int(self, meta, children):
        return -self._int(children[-1]) if len(children) == 2 else self._int(children[0])

    def attr_item(self, meta, children):
        return n.AttrDecl(str(children[0]), children[1], span=self._span(meta))

    def table_item(self, meta, children):
        columns = tuple(c for c in children if isinstance(c, n.TableColumn))
        rows = tuple(c for c in children if isinstance(c, n.TableRow))
        for row in rows:
            if len(row.cells) != len(columns):
                raise _Problem("E303", f"a row of {len(row.cells)} value(s) in a table of {len(columns)} column(s)",
                               row.span.start, row.span.end,
                               help=f"give one value per column: {', '.join(c.name for c in columns)}")
        return n.Table(columns, rows, span=self._span(meta))

    def table_column(self, meta, children):
        name, params = children
        return n.TableColumn(str(name), params, span=self._span(meta))

    def table_row(self, meta, children):
        return n.TableRow(tuple(children), span=self._span(meta))

    def zone_decl(self, meta, children):
        name, *props, keys = children
        fields = {"per_player": False, "kind": "set", "visibility": "public", "sort_key": None, "shows": None,
                  "keys": () if keys is None else tuple(keys[1])}
        seen: dict[str, str] = {}
        problems = []
        for prop in props:
            words = [str(t) for t in prop]
            text = " ".join(words)
            group = {"shared": "owner", "per": "owner", "sorted": "order", "public": "visibility",
                     "hidden": "visibility", "owner": "visibility", "others": "visibility", "top": "visibility",
                     "secret": "visibility", "showing": "shows"}.get(words[0], "kind")
            if group in seen:
                problems.append(f"says both `{seen[group]}` and `{text}`")
            seen[group] = text
            if words[0] == "shared":
                fields["per_player"] = False
            elif words[0] == "per" and words[1] == "player":
                fields["per_player"] = True
            elif words[0] == "per":
                fields["per_piece"] = words[1]
            elif words[0] == "sorted":
                fields["sort_key"] = words[2]
            elif words[0] == "showing":
                fields["shows"] = words[1]
            elif group == "visibility":
                fields["visibility"] = text
            else:
                fields["kind"] = words[0]
        return n.ZoneDecl(str(name), span=self._span(meta), problems=tuple(problems), **fields)

    def zone_prop(self, meta, children):
        return children

    def counter_decl(self, meta, children):
        name, owner, keys, initial, visibility = children
        key_name, values = keys if keys is not None else (None, ())
        return n.CounterDecl(str(name), owner == "per player", initial, visibility or "public",
                             tuple(values), key_name, span=self._span(meta))

    def counter_keys(self, meta, children):
        return str(children[0]), children[1]

    zone_keys = counter_keys

    def counter_owner(self, meta, children):
        return " ".join(str(t) for t in children)

    def counter_visibility(self, meta, children):
        return " ".join(str(t) for t in children)

    def define_decl(self, meta, children):
        name, params, value = children
        return n.DefineDecl(str(name), params, value, span=self._span(meta))

    def params(self, meta, children):
        return tuple(str(c) for c in children if c is not None)

    def section(self, meta, children):
        kind, *body = children
        return n.Section(kind, tuple(body), span=self._span(meta))

    def section_kind(self, meta, children):
        return str(children[0])

    def procedure_decl(self, meta, children):
        name, params, *body = children
        return n.ProcedureDecl(str(name), tuple(body), params or (), span=self._span(meta))

    def invariant_decl(self, meta, children):
        return n.InvariantDecl(str(children[0]), children[1], span=self._span(meta))

    def show_decl(self, meta, children):
        name, per_player, value = children
        return n.ShowDecl(str(name), value, per_player is not None, span=self._span(meta))

    def per_player_show(self, meta, children):
        return True

    def replace_rule(self, meta, children):
        return n.ReplaceRule(str(children[0]), children[1], span=self._span(meta))

    def remove_rule(self, meta, children):
        return n.RemoveRule(str(children[0]), span=self._span(meta))

    def add_rule(self, meta, children):
        name, place, anchor, body = children
        return n.AddRule(str(name), place, str(anchor), body, span=self._span(meta))

    def rule_place(self, meta, children):
        return str(children[0])

    # -- statements
    def block(self, meta, children):
        return tuple(children)

    def roll_stmt(self, meta, children):
        return n.Roll(children[0], span=self._span(meta))

    def draw_stmt(self, meta, children):
        count, source, to = children
        if isinstance(count, Token):
            count = n.Literal(self._int(count), span=self._tok_span(count))
        return n.Draw(count, source, to, span=self._span(meta))

    def draw_up_to(self, meta, children):
        drawn = self.draw_stmt(meta, children)
        return attrs.evolve(drawn, up_to=True)

    def shuffle_stmt(self, meta, children):
        return n.Shuffle(children[0], span=self._span(meta))

    def say_stmt(self, meta, children):
        return n.Say(tuple(children), span=self._span(meta))

    def tally_stmt(self, meta, children):
        return n.Tally(str(children[0]), children[1], span=self._span(meta))

    def move_stmt(self, meta, children):
        what, to, place = children
        return n.Move(what, to, place, span=self._span(meta))

    def move_place(self, meta, children):
        return str(children[1])

    def create_stmt(self, meta, children):
        count, kind, into = children
        if isinstance(count, Token):
            count = n.Literal(self._int(count), span=self._tok_span(count))
        return n.Create(count, str(kind), into, span=self._span(meta))

    def let_stmt(self, meta, children):
        return n.Let(str(children[0]), children[1], span=self._span(meta))

    def assign_stmt(self, meta, children):
        target, op, value = children
        return n.Assign(target, op, value, span=self._span(meta))

    def assign_op(self, meta, children):
        return str(children[0])

    def attr_name(self, meta, children):
        return str(children[0])

    def target_name(self, meta, children):
        return str(children[0])

    def target(self, meta, children):
        return n.Target(str(children[0]), children[2], children[1], span=self._span(meta))

    def break_stmt(self, meta, children):
        return n.Break(span=self._span(meta))

    def pass_stmt(self, meta, children):
        return n.Pass(span=self._span(meta))

    def end_turn_stmt(self, meta, children):
        return n.EndTurn(span=self._span(meta))

    def another_turn_stmt(self, meta, children):
        return n.AnotherTurn(span=self._span(meta))

    def end_game_stmt(self, meta, children):
        return n.EndGame(span=self._span(meta))

    def do_stmt(self, meta, children):
        return n.Do(str(children[0]), children[1], span=self._span(meta))

    def do_args(self, meta, children):
        return tuple(c for c in children if c is not None)

    def turns_stmt(self, meta, children):
        return n.TakeTurns(children[0], span=self._span(meta))

    def turns_start(self, meta, children):
        return children[0]

    def one_turn_stmt(self, meta, children):
        return n.GiveTurn(children[0], span=self._span(meta))

    def eliminate_stmt(self, meta, children):
        return n.Eliminate(children[0], span=self._span(meta))

    def reveal_stmt(self, meta, children):
        return n.Reveal(children[0], children[1], span=self._span(meta))

    def bring_back_stmt(self, meta, children):
        return n.Eliminate(children[0], back=True, span=self._span(meta))

    def doc_stmt(self, meta, children):
        return n.Doc(_unquote(children[0]), span=self._span(meta))

    def ends_stmt(self, meta, children):
        after, cond = children
        return n.GameEnds(cond, after, span=self._span(meta))

    def after_round(self, meta, children):
        return "round"

    def after_last_turns(self, meta, children):
        return "last turns"

    def after_last_turns_all(self, meta, children):
        return "last turns all"

    def criterion_stmt(self, meta, children):
        return n.Criterion(children[0], children[1], span=self._span(meta))

    def nobody_wins_stmt(self, meta, children):
        return n.Criterion("nobody", children[0], span=self._span(meta))

    def criterion_direction(self, meta, children):
        return str(children[0])

    def rule_stmt(self, meta, children):
        return n.Rule(str(children[0]), children[1], span=self._span(meta))

    def if_stmt(self, meta, children):
        cond, body, *rest = children
        otherwise = rest.pop() if rest and (rest[-1] is None or isinstance(rest[-1], tuple) and
                                             rest[-1] and rest[-1][0] == "else") else None
        branches = [(cond, body)] + [(c, b) for _, c, b in rest]
        return n.If(tuple(branches), otherwise[1] if otherwise else (), span=self._span(meta))

    def elif_clause(self, meta, children):
        return ("elif", children[0], children[1])

    def else_clause(self, meta, children):
        return ("else", children[0])

    def repeat_stmt(self, meta, children):
        count, body = children
        if count is None:
            return n.Repeat(body, span=self._span(meta))
        # `repeat N times:` is `for each` over 1 to N, with a variable no rule can name
        return n.ForEach("(times)", _one_to(count), body, span=self._span(meta))

    def while_stmt(self, meta, children):
        return n.While(children[0], children[1], span=self._span(meta))

    def for_stmt(self, meta, children):
        var, items, order, body = children
        if order is not None:  # `sorted by K` / `starting with p`: the call it stands for, over the items
            func, args, span = order
            items = n.Call(func, (items, *args), span=_joined(items.span, span))
        return n.ForEach(str(var), items, body, span=self._span(meta))

    def for_sorted(self, meta, children):
        return ("sorted", tuple(c for c in children if c is not None), self._span(meta))

    def for_starting(self, meta, children):
        return ("starting_with", (children[-1],), self._span(meta))

    def deal_stmt(self, meta, children):
        """`deal N from SOURCE to ZONE of each player[, starting with p]`: round the table, one
        piece at a time, to the players still in, in seat order from p (player 1 if not
        given): loops of `draw 1` with variables no rule can name. `deal all` deals until
        the source is empty."""
        count, source, zone, key, start = children
        span = self._span(meta)
        if start is None:  # player 1: the same seat in any section (`player` is not, W412)
            start = n.Call("seat", (n.Literal(0, span=span),), span=span)
        seat = n.Name(n.DEALT_TO, span=span)
        one = n.Literal(1, span=span)
        left = n.Name(str(zone), span=self._tok_span(zone))
        if key is not None:  # `slot[k] of each player`: one zone of a declaration with keys
            left = n.Index(left, key, span=_joined(left.span, key.span))
        target = n.Of(left, seat, span=left.span)
        round_ = n.ForEach(n.DEALT_TO, n.Call("starting_with", (n.Name("remaining", span=span), start), span=span),
                           (n.Draw(one, source, target, up_to=count == "all", span=span),), span=span)
        if count == "all":
            pieces_left = n.Compare("is not", source, n.EmptyLiteral(span=source.span), span=source.span)
            return n.While(pieces_left, (round_,), span=span)
        if isinstance(count, Token):
            count = n.Literal(self._int(count), span=self._tok_span(count))
        return n.ForEach("(deal rounds)", _one_to(count), (round_,), span=span)

    def deal_all(self, meta, children):
        return "all"

    def choose_stmt(self, meta, children):
        var, options, where, several, chooser, prompt, label, aloud, then, otherwise = children
        return n.Choose(str(var), options, where, chooser, prompt, otherwise, then, label, several,
                        aloud == "aloud", aloud == "secretly", span=self._span(meta))

    def aloud(self, meta, children):
        return "aloud"

    def secretly(self, meta, children):
        return "secretly"

    def option_label(self, meta, children):
        return children[0]

    def _count(self, child):
        return n.Literal(self._int(child), span=self._tok_span(child)) if isinstance(child, Token) else child

    def several_exactly(self, meta, children):
        return n.Several(self._count(children[0]), span=self._span(meta))

    def several_between(self, meta, children):
        return n.Several(self._count(children[1]), self._count(children[0]), span=self._span(meta))

    def several_up_to(self, meta, children):
        return n.Several(self._count(children[0]), n.Literal(0, span=self._span(meta)), True, span=self._span(meta))

    def then_choose(self, meta, children):
        var, options, where, prompt = children
        return n.ThenChoose(str(var), options, where, prompt, span=self._span(meta))

    def choose_where(self, meta, children):
        return children[0]

    def chooser(self, meta, children):
        return children[0]

    def prompt(self, meta, children):
        return _unquote(children[0])

    def otherwise_clause(self, meta, children):
        return children[0]

    def choose_branches_stmt(self, meta, children):
        chooser, prompt, *branches = children
        return n.ChooseBranch(tuple(branches), chooser, prompt, span=self._span(meta))

    def branch(self, meta, children):
        label, cond, once, body = children
        return n.Branch(_unquote(label), cond, body, once, span=self._span(meta))

    def may_stmt(self, meta, children):
        label, once, chooser, body = children
        return n.May(_unquote(label), body, once, chooser, span=self._span(meta))

    def once(self, meta, children):
        return children[0]

    def once_scope(self, meta, children):
        return str(children[0])

    def when_stmt(self, meta, children):
        event, cond, instead, body = children
        return attrs.evolve(event, body=body, cond=cond, instead=instead is not None, instead_span=instead,
                            span=self._span(meta))

    def move_event(self, meta, children):
        source, to = children
        return n.When("move", (), source=source, to=to)

    def do_event(self, meta, children):
        return n.When("do", (), procedure=str(children[0]), procedure_span=self._tok_span(children[0]))

    def move_from(self, meta, children):
        return children[0]

    def move_to(self, meta, children):
        return children[0]

    def instead(self, meta, children):
        return Span(self.source, meta.start_pos, meta.end_pos)

    # -- expressions
    def filter(self, meta, children):
        return n.Filter(children[0], children[1], span=self._span(meta))

    def conditional(self, meta, children):
        then, cond, otherwise = children
        return n.Conditional(then, cond, otherwise, span=self._span(meta))

    def or_(self, meta, children):
        return n.BoolOp("or", children[0], children[1], span=self._span(meta))

    def and_(self, meta, children):
        return n.BoolOp("and", children[0], children[1], span=self._span(meta))

    def not_(self, meta, children):
        return n.Not(children[0], span=self._span(meta))

    def compare(self, meta, children):
        return n.Compare(children[1], children[0], children[2], span=self._span(meta))

    def comp_op(self, meta, children):
        return " ".join(str(t) for t in children)

    def binary(self, meta, children):
        return n.Binary(children[1], children[0], children[2], span=self._span(meta))

    def add_op(self, meta, children):
        return str(children[0])

    mul_op = add_op

    def negate(self, meta, children):
        return n.Negate(children[0], span=self._span(meta))

    def of(self, meta, children):
        return n.Of(children[0], children[1], span=self._span(meta))

    def attribute(self, meta, children):
        return n.Attribute(children[0], str(children[1]), span=self._span(meta))

    def call(self, meta, children):
        func, *args = children
        return n.Call(str(func), tuple(a for a in args if a is not None), span=self._span(meta))

    def method_call(self, meta, children):
        obj, name, *args = children
        return n.MethodCall(obj, str(name), tuple(a for a in args if a is not None), span=self._span(meta))

    def index(self, meta, children):
        return n.Index(children[0], children[1], span=self._span(meta))

    def name(self, meta, children):
        return n.Name(str(children[0]), span=self._span(meta))

    def tuple_expr(self, meta, children):
        return n.TupleExpr(tuple(children), span=self._span(meta))

    def list_expr(self, meta, children):
        return n.ListExpr(tuple(c for c in children if c is not None), span=self._span(meta))

    def int_literal(self, meta, children):
        return n.Literal(self._int(children[0]), span=self._span(meta))

    def string_literal(self, meta, children):
        return n.Literal(_unquote(children[0]), span=self._span(meta))

    def true_literal(self, meta, children):
        return n.Literal(True, span=self._span(meta))

    def false_literal(self, meta, children):
        return n.Literal(False, span=self._span(meta))

    def none_literal(self, meta, children):
        return n.Literal(None, span=self._span(meta))

    def empty_literal(self, meta, children):
        return n.EmptyLiteral(span=self._span(meta))


def parse_tree(text: str) -> Tree:
    """The raw Lark tree of a text (raises Lark's errors); for tools and tests."""
    return _lark().parse(text if text.endswith("\n") else text + "\n")


# Control characters other than tab and line ends, and the bidirectional overrides.
_CONTROL = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


_DECLARATION = re.compile(r"^[A-Za-z_]", re.MULTILINE)


def _too_many_declarations(source: Source, limits: Limits) -> Diagnostic | None:
    """E604 before parsing, from the lines that start a declaration (no indentation): a file of
    a million declarations is refused without the time to parse it."""
    starts = _DECLARATION.finditer(source.text)
    first_over = next(itertools.islice(starts, limits.declarations, None), None)
    if first_over is None:
        return None
    total = limits.declarations + 1 + sum(1 for _ in starts)
    end = source.text.find("\n", first_over.start())
    return Diagnostic("E604", f"the file has {total} declarations, more than the limit of {limits.declarations}",
                      source.span(first_over.start(), end if end >= 0 else len(source.text)),
                      help=f"if the game really needs this many, raise the limit with `--limit declarations={total}`")


def _too_deep(tree: Tree, source: Source) -> Diagnostic | None:
    """E005 at the first place the tree nests deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            meta = node.meta
            start = 0 if getattr(meta, "empty", True) else meta.start_pos
            while start < len(source.text) - 1 and source.text[start] in " \t\r\n":
                start += 1  # a block starts at the end of the line before it
            end = source.text.find("\n", start)
            return Diagnostic("E005", f"the file nests more than {MAX_DEPTH} levels deep here", source.span(
                start, max(start + 1, end if end >= 0 else len(source.text))),
                help="split deep expressions with `define` or `let`, and deep blocks with `procedure`")
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
    return None


def parse(source: Source, limits: Limits = DEFAULT) -> tuple[n.RulesFile | None, list[Diagnostic]]:
    """Parse one source into a RulesFile, or return the syntax diagnostic that stopped it."""
    text = source.text if source.text.endswith("\n") else source.text + "\n"
    control = _CONTROL.search(source.text)
    if control is not None:
        return None, [Diagnostic("E009", f"a control character `{printable(control.group())}` in the file",
                                 source.span(control.start(), control.end()),
                                 help="remove it; in a string, write `\\n` for a new line and `\\t` for a tab")]
    if text.startswith("\ufeff"):
        text = " " + text[1:]
    too_many = _too_many_declarations(source, limits)
    if too_many is not None:
        return None, [too_many]  # a byte order mark: read as a space, so that offsets stay true
    try:
        tree = _lark().parse(text)
    except (UnexpectedInput, _BadIndent, _MixedIndent, _GluedWords) as error:
        return None, [_syntax_diagnostic(error, source, text)]
    deep = _too_deep(tree, source)
    if deep is not None:
        return None, [deep]
    try:
        return AstBuilder(source, limits).transform(tree), []
    except VisitError as error:
        if isinstance(error.orig_exc, _Problem):
            code, message, start, end, help = error.orig_exc.diagnostic
            end_of_line = source.text.find("\n", start)
            if end_of_line >= 0:
                end = min(end, end_of_line)
            return None, [Diagnostic(code, message, source.span(start, end), help=help)]
        raise error.orig_exc from error
