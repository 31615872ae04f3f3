"""What a variant changes compared with a base game: the two merged syntax trees, compared by name."""

from __future__ import annotations

from typing import Any

import attrs

from . import nodes as n
from .diagnostics import Diagnostic
from .pipeline import analyse, parse_file
from .variants import resolve

# The kinds of named things compared, in the order they are reported.
KINDS = ("option", "component", "zone", "counter", "define", "procedure", "rule", "invariant", "show")
_DECLS = {n.OptionDecl: "option", n.DieDecl: "component", n.PieceDecl: "component",
          n.ZoneDecl: "zone", n.CounterDecl: "counter", n.DefineDecl: "define",
          n.ProcedureDecl: "procedure", n.InvariantDecl: "invariant", n.ShowDecl: "show"}


@attrs.frozen
class Change:
    """One difference: ``change`` is added, replaced, removed or changed (an option default or
    a field of the game header, with ``old`` and ``new``)."""

    change: str
    kind: str
    name: str
    where: str
    label: str = ""  # the word shown for the kind: die, tile, card... for components
    old: Any = None
    new: Any = None
    event: str = ""  # a triggered rule's event: ``when move from table to hand of player``
    old_event: str = ""  # a replaced triggered rule's event before, when it changed

    def as_json(self) -> dict[str, Any]:
        data = {"change": self.change, "kind": self.kind, "name": self.name, "where": self.where}
        if self.change == "changed":
            data.update(old=self.old, new=self.new)
        if self.event:
            data["event"] = self.event
        if self.old_event:
            data["old_event"] = self.old_event
        return data


def load_merged(path: str) -> tuple[n.RulesFile | None, list[Diagnostic]]:
    """The file with its variants merged, or None and the error diagnostics."""
    game, diagnostics = analyse(path, warnings=False)
    if game is None:
        return None, [d for d in diagnostics if d.is_error]
    tree, _ = parse_file(path)
    merged, _ = resolve(tree, parse_file)
    return merged, []


def _where(node: n.Node) -> str:
    span = node.span
    return f"{span.path}:{span.line}" if span is not None else "?"


def source_text(node: n.Node) -> str:
    """The text a node was written as, on one line (``?`` for a node without a span)."""
    span = node.span
    if span is None:
        return "?"
    return " ".join(span.source.text[span.start:span.end].split())


def trigger_of(rule: n.Rule) -> n.When | None:
    """The ``when`` of a triggered rule (a rule at the top level holding one ``when``), or None."""
    events = [stmt for stmt in rule.body if not isinstance(stmt, n.Doc)]
    return events[0] if len(events) == 1 and isinstance(events[0], n.When) else None


def event_text(when: n.When, condition: bool = False) -> str:
    """A trigger's event as written: ``when move from table to hand of player``,
    ``when do score_round``; with ``condition``, its ``if ...`` too. ``instead`` is kept."""
    if when.event == "do":
        text = f"when do {when.procedure}"
    else:
        text = "when move"
        if when.source is not None:
            text += f" from {source_text(when.source)}"
        if when.to is not None:
            text += f" to {source_text(when.to)}"
    if condition and when.cond is not None:
        text += f" if {source_text(when.cond)}"
    return text + " instead" if when.instead else text


def _event(node: n.Node) -> str:
    when = trigger_of(node) if isinstance(node, n.Rule) else None
    return event_text(when) if when is not None else ""


def _without_rules(value: Any) -> Any:
    """A node with the named rules nested in it left out, so that a rule compares by its own
    statements only (a nested rule is compared on its own)."""
    if isinstance(value, tuple):
        return tuple(_without_rules(v) for v in value if not isinstance(v, n.Rule))
    if isinstance(value, n.Node):
        changes = {f.name: _without_rules(getattr(value, f.name))
                   for f in attrs.fields(type(value)) if f.name != "span"}
        return attrs.evolve(value, **changes)
    return value


def _rules(body: tuple, found: dict[str, n.Rule]) -> None:
    for stmt in body:
        if isinstance(stmt, n.Rule):
            found.setdefault(stmt.name, stmt)
        if isinstance(stmt, n.Node):
            for field in attrs.fields(type(stmt)):
                value = getattr(stmt, field.name)
                if isinstance(value, tuple):
                    _rules(_flatten(value), found)


def _flatten(value: tuple) -> tuple:
    """The nodes of a tuple field, with the bodies of ``If`` branches ((cond, body) pairs) opened."""
    out: list = []
    for item in value:
        if isinstance(item, tuple):
            out.extend(_flatten(item))
        elif isinstance(item, n.Node):
            out.append(item)
    return tuple(out)


def named_items(tree: n.RulesFile) -> dict[tuple[str, str], n.Node]:
    """Every named thing of a merged tree, keyed by (kind, name), in file order."""
    found: dict[tuple[str, str], n.Node] = {}
    rules: dict[str, n.Rule] = {}
    for item in tree.items:
        kind = _DECLS.get(type(item))
        if kind is not None:
            found.setdefault((kind, item.name), item)
        if isinstance(item, (n.Section, n.ProcedureDecl)):
            _rules(item.body, rules)
        elif isinstance(item, n.Rule):  # a triggered rule, and the rules nested in its `when`
            _rules((item,), rules)
    found.update({("rule", name): rule for name, rule in rules.items()})
    return found


def _label(kind: str, node: n.Node) -> str:
    if isinstance(node, n.DieDecl):
        return "die"
    if isinstance(node, n.PieceDecl):
        return node.category
    return kind


def compare(base: n.RulesFile, variant: n.RulesFile) -> list[Change]:
    """The changes from the merged base to the merged variant."""
    changes: list[Change] = []
    old_game = next((i for i in base.items if isinstance(i, n.GameDecl)), None)
    new_game = next((i for i in variant.items if isinstance(i, n.GameDecl)), None)
    if old_game is not None and new_game is not None:
        fields = [("name", old_game.name, new_game.name),
                  ("players", _players(old_game), _players(new_game)),
                  ("turn limit", old_game.turn_limit, new_game.turn_limit)]
        changes += [Change("changed", "game", field, _where(new_game), "game", old, new)
                        for field, old, new in fields if old != new]
    old_items, new_items = named_items(base), named_items(variant)
    found: list[Change] = []
    for key, node in new_items.items():
        kind, name = key
        old = old_items.get(key)
        if old is None:
            found.append(Change("added", kind, name, _where(node), _label(kind, node),
                                event=_event(node)))
        elif isinstance(node, n.OptionDecl) and node.default != old.default:
            found.append(Change("changed", kind, name, _where(node), "option",
                                old.default, node.default))
        elif _without_rules(node) != _without_rules(old):
            event, old_event = _event(node), _event(old)
            found.append(Change("replaced", kind, name, _where(node), _label(kind, node),
                                event=event, old_event=old_event if old_event != event else ""))
    for key, node in old_items.items():
        if key not in new_items:
            found.append(Change("removed", key[0], key[1], _where(node), _label(key[0], node),
                                event=_event(node)))
    return changes + sorted(found, key=lambda c: KINDS.index(c.kind))


def _players(game: n.GameDecl) -> str:
    low, high = game.min_players, game.max_players
    return "?" if low is None else str(low) if high in (None, low) else f"{low} to {high}"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


def format_text(base: str, variant: str, changes: list[Change]) -> str:
    """One line a change: what changed, its file:line, and a triggered rule's event."""
    rows = []
    for c in changes:
        if c.kind == "game":
            show = _value if c.name == "name" else str
            left = f"{'game' if c.name == 'name' else c.name}: {show(c.old)} -> {show(c.new)}"
        elif c.change == "changed":
            left = f"option {c.name}: {_value(c.old)} -> {_value(c.new)}"
        else:
            left = f"{c.change} {c.label} {c.name}"
        event = c.event
        if c.old_event:
            event = f"{event or 'not triggered'} (was: {c.old_event})"
        rows.append((left, c.where, event))
    width = max((len(left) for left, _, _ in rows), default=0)
    where_width = max((len(where) for _, where, event in rows if event), default=0)
    lines = [f"{base} -> {variant}"]
    lines += [f"  {left.ljust(width)}   {where.ljust(where_width)}   {event}".rstrip()
              for left, where, event in rows] or ["  no changes"]
    return "\n".join(lines)


def to_json(base: str, variant: str, changes: list[Change]) -> dict[str, Any]:
    return {"base": base, "variant": variant, "changes": [c.as_json() for c in changes]}
