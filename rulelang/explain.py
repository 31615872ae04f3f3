"""What `rulelang explain` says: diagnostic codes, and a game's rules, options, zones and contents."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from .diagnostics import CODES, did_you_mean
from .model import GameDef


class UnknownTopic(LookupError):
    """Nothing to explain under that name: the error, and the help that goes with it."""

    def __init__(self, message: str, help: str):
        super().__init__(message)
        self.message = message
        self.help = help


def import_all_codes() -> None:
    """Import every module that registers diagnostic codes."""
    from . import checker, compiler, parser, pipeline, runtime, variants  # noqa: F401


def list_codes() -> str:
    """Every registered diagnostic code with its name, one a line, in code order."""
    return "\n".join(f"{code.code}  {code.name}" for code in sorted(CODES.values(), key=lambda c: c.code))


def explain_code(topic: str) -> str:
    """A diagnostic code's title and explanation, looked up by code (any case) or kebab-case name."""
    entry = CODES.get(topic.upper()) or next((c for c in CODES.values() if c.name == topic.lower()), None)
    if entry is None:
        hint = did_you_mean(topic.upper(), CODES) or \
            did_you_mean(topic.lower(), [c.name for c in CODES.values()])
        raise UnknownTopic(f"no diagnostic code `{topic}`", hint or "rulelang explain lists every code")
    return f"{entry.code} {entry.name} ({entry.severity.value})\n\n{entry.explanation}"


def rule_source(path: str, line: int) -> str:
    """The text of a rule, numbered: its first line and every deeper-indented line after it."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    if not 1 <= line <= len(lines):
        return ""
    first = lines[line - 1]
    indent = len(first) - len(first.lstrip())
    block = [first]
    for text in lines[line:]:
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        block.append(text)
    while block and not block[-1].strip():
        block.pop()
    width = len(str(line + len(block)))
    return "\n".join(f"{line + i:>{width}} | {text[indent:]}" for i, text in enumerate(block))


def value_text(value: Any) -> str:
    """An option value as a rules file writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, str) else str(value)


def rule_role(game: GameDef, index: int) -> str:
    for checks, role in ((game.ends, "end condition"), (game.criteria, "winner criterion"),
                         (game.invariants, "invariant")):
        if any(c.rule == index for c in checks):
            return role
    return "rule"


def explain_name(game: GameDef, topic: str) -> str:
    """A rule (with its doc and source), option, zone or component of the game, by name."""
    for index, rule in enumerate(game.rules):
        if rule.name == topic:
            parts = [f"{rule_role(game, index)} `{rule.name}`  {rule.where()}"]
            if rule.doc:
                parts.append(f"\n{rule.doc}")
            source = rule_source(rule.path, rule.line)
            if source:
                parts.append(f"\n{source}")
            return "\n".join(parts)
    for option in game.options:
        if option.name == topic:
            text = f"option `{option.name}` = {value_text(option.default)}"
            return f"{text}\n\n{option.doc}" if option.doc else text
    for zone in game.zones:
        if zone.name == topic:
            return f"zone `{zone.name}`: {zone_summary(zone)}"
    for kind in game.kinds:
        if kind.name == topic:
            return f"{kind.category} `{kind.name}`: {kind_summary(kind)}"
    names = [r.name for r in game.rules] + [o.name for o in game.options] + \
        [z.name for z in game.zones] + [k.name for k in game.kinds]
    raise UnknownTopic(f"{game.name} has no rule, option, zone or component `{topic}`",
                       did_you_mean(topic, names) or f"rulelang explain --file {game.path} lists them")


def zone_summary(zone) -> str:
    owner = "per player" if zone.per_player else "shared"
    return f"{owner} {zone.kind}, {zone.visibility}"


def kind_summary(kind) -> str:
    if kind.is_die:
        return "faces " + ", ".join(str(f) for f in kind.face_labels)
    return f"{len(kind.pieces)} pieces" if kind.pieces else "made by count"


def describe_game(game: GameDef) -> str:
    """Everything a designer looks up: options, components, zones, counters and rules with
    file:line."""
    lines = [f"{game.name}  ({game.path}, {game.min_players} to {game.max_players} players)"]
    if game.doc:
        lines.append(game.doc)
    lines.append("\noptions:")
    for o in game.options:
        lines.append(f"  {o.name} = {value_text(o.default)}")
        lines.extend(textwrap.wrap(o.doc, 96, initial_indent=" " * 6, subsequent_indent=" " * 6))
    if not game.options:
        lines.append("  none")
    lines.append("\ncomponents:")
    lines.extend(f"  {k.category} {k.name}: {kind_summary(k)}" for k in game.kinds)
    lines.append("\nzones:")
    lines.extend(f"  {z.name}: {zone_summary(z)}" for z in game.zones)
    lines.append("\ncounters:")
    lines.extend(f"  {c.name}: {'per player' if c.per_player else 'shared'}" for c in game.counters)
    if not game.counters:
        lines.append("  none")
    lines.append("\nrules:")
    width = max((len(r.name) for r in game.rules), default=0)
    for index, r in enumerate(game.rules):
        role = rule_role(game, index)
        tag = "" if role == "rule" else f"  ({role})"
        lines.append(f"  {r.name:<{width}}  {r.where()}{tag}")
    return "\n".join(lines)
