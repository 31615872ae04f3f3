"""What `rulelang explain` says: diagnostic codes, and a game's rules, options, zones and contents."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from . import nodes as n
from .codegen import TableCell
from .diagnostics import CODES, did_you_mean
from .engine_values import keys_text, shown
from .model import GameDef
from .source import printable


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


# What each limit bounds and the codes that report it (docs/language.md, 3.1).
LIMITS = {
    "file_bytes": ("a rules file, and each file it extends, in bytes", "E601"),
    "pieces": ("pieces made in one game, all kinds together", "E602, R512"),
    "faces": ("faces of one die", "E603"),
    "declarations": ("declarations in a file, variants merged", "E604"),
    "expansion": ("syntax nodes of one use of a define, once expanded", "E605"),
    "number_digits": ("digits of an integer, written or computed", "E606, R511"),
    "work": ("units of work (instructions, items filtered) in one step", "R509"),
    "turns": ("turns or rounds in one game; caps the file's own `at most N turns`", "R504"),
    "idle_actions": ("decisions and rolls in a row without a turn or round beginning", "R510"),
    "log_bytes": ("a game log read by replay or --resume, in bytes", "E702"),
    "log_depth": ("nesting of JSON values in a log", "E701"),
    "call_depth": ("procedures running inside each other", "R513"),
}


def explain_limits() -> str:
    """Every limit with its default, what it bounds and its code: `rulelang explain limits`."""
    from .limits import DEFAULT, LIMIT_NAMES
    rows = [(name, f"{getattr(DEFAULT, name):,}", *LIMITS.get(name, ("", ""))) for name in LIMIT_NAMES]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["Limits on hostile input; raise one with `--limit NAME=VALUE`.", ""]
    lines += [f"{name:<{widths[0]}}  {default:>{widths[1]}}  {what:<{widths[2]}}  {code}".rstrip()
              for name, default, what, code in rows]
    return "\n".join(lines)


def explain_code(topic: str) -> str:
    """A diagnostic code's title and explanation, looked up by code (any case) or kebab-case name;
    `limits` lists the limits."""
    if topic.lower() == "limits":
        return explain_limits()
    entry = CODES.get(topic.upper()) or next((c for c in CODES.values() if c.name == topic.lower()), None)
    if entry is None:
        hint = did_you_mean(topic.upper(), CODES) or \
            did_you_mean(topic.lower(), [c.name for c in CODES.values()])
        raise UnknownTopic(f"no diagnostic code `{printable(_cut(topic))}`", hint or "rulelang explain lists every code")
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
                         (game.no_winner, "winner criterion"), (game.invariants, "invariant")):
        if any(c.rule == index for c in checks):
            return role
    return "rule"


class RulesTree:
    """The syntax of a rules file, for what the compiled game does not keep: the events of
    triggered rules, whole descriptions, and what a variant did to its base."""

    def __init__(self, path: str):
        from .diff import named_items
        from .pipeline import parse_file
        from .variants import resolve
        self.path = path
        tree, _ = parse_file(path)
        self.own: tuple = tree.items if tree is not None else ()  # the file's items, unmerged
        merged, _ = resolve(tree, parse_file) if tree is not None else (None, [])
        items = merged.items if merged is not None else ()

        def declared(kind: type) -> dict:  # the declarations of one kind, by name
            return {item.name: item for item in items if isinstance(item, kind)}

        self.defines: dict[str, n.DefineDecl] = declared(n.DefineDecl)
        self.counters: dict[str, n.CounterDecl] = declared(n.CounterDecl)  # their start values as written
        self.procedures: dict[str, n.ProcedureDecl] = declared(n.ProcedureDecl)
        self.zones: dict[str, n.ZoneDecl] = declared(n.ZoneDecl)
        self.rules: dict[str, n.Rule] = {}
        self.triggered_by: dict[str, n.Rule] = {}  # a rule's name -> the triggered rule holding it
        if merged is not None:
            self.rules = {name: node for (kind, name), node in named_items(merged).items() if kind == "rule"}
            from .variants import rule_names
            for item in merged.items:
                if isinstance(item, n.Rule):
                    for name in rule_names((item,)):
                        self.triggered_by.setdefault(name, item)
        extends = next((i for i in self.own if isinstance(i, n.Extends)), None)
        self.base_path = str(Path(path).parent / extends.path) if extends is not None else None
        self._base: RulesTree | None = None

    def base(self) -> RulesTree | None:
        """The base game's tree, for a variant."""
        if self.base_path is not None and self._base is None:
            self._base = RulesTree(self.base_path)
        return self._base

    def event(self, name: str) -> str:
        """A triggered rule's event, short: ``when move from table to hand of player``."""
        from .diff import event_text, trigger_of
        rule = self.rules.get(name)
        when = trigger_of(rule) if rule is not None and self.triggered_by.get(name) is rule else None
        return event_text(when) if when is not None else ""


def _doc_lines(body: tuple) -> list[str]:
    lines = []
    for stmt in body:
        if not isinstance(stmt, n.Doc):
            break
        lines.append(stmt.text)
    return lines


def _wrap(text: str) -> str:
    return "\n".join(textwrap.wrap(text, 96, break_on_hyphens=False))


def _trigger_lines(tree: RulesTree, name: str) -> list[str]:
    """What sets a triggered rule off: its event, condition and `instead`; for a rule nested in
    a triggered rule, which one."""
    from .diff import source_text, trigger_of
    holder = tree.triggered_by.get(name)
    when = trigger_of(holder) if holder is not None else None
    if when is None:
        return []
    lines = [] if holder.name == name else [f"  part of triggered rule `{holder.name}`"]
    if when.event == "do":
        lines.append(f"  when:    procedure `{when.procedure}` is done (at its end, or at its `end turn`)")
        procedure = tree.procedures.get(when.procedure)
        if procedure is not None and procedure.params:
            lines.append(f"  sees:    its parameters {', '.join(procedure.params)}")
    else:
        lines.append("  when:    a move" + (f" from {source_text(when.source)}" if when.source else "")
                     + (f" to {source_text(when.to)}" if when.to else ""))
    if when.cond is not None:
        lines.append(f"  if:      {source_text(when.cond)}")
    if when.instead:
        lines.append("  instead: the pieces it matches do not move; the rule runs in place of the move")
    return lines


def _variant_lines(tree: RulesTree, name: str) -> tuple[list[str], str]:
    """What a variant file did to a rule (added, replaced, or the rules it holds changed), and
    the replaced base rule's source."""
    from .variants import rule_names
    base = tree.base()
    if base is None:
        return [], ""
    for item in tree.own:
        if isinstance(item, n.ReplaceRule) and item.name == name:
            old = base.rules.get(name)
            if old is None or old.span is None:
                return [f"  replaces the base game's rule `{name}`"], ""
            return ([f"  replaces the base game's rule, {old.span.path}:{old.span.line} (below)"],
                    rule_source(old.span.path, old.span.line))
        if isinstance(item, n.AddRule) and item.name == name:
            anchor = tree.rules.get(item.anchor)
            at = f" ({anchor.span.path}:{anchor.span.line})" if anchor is not None and anchor.span else ""
            return [f"  added by this variant, {item.place} rule `{item.anchor}`{at}"], ""
    for item in tree.own:  # a rule inside a replacement or an added rule: the variant's own text
        if isinstance(item, n.ReplaceRule | n.AddRule) and name in rule_names(item.body):
            where = f" ({item.span.path}:{item.span.line})" if item.span is not None else ""
            return [f"  written by this variant, inside its "
                    f"{'replacement of' if isinstance(item, n.ReplaceRule) else 'added'} rule `{item.name}`{where}"], ""
    old, rule = base.rules.get(name), tree.rules.get(name)
    if old is None:
        return ["  added by this variant"], ""
    if rule is None or rule == old:
        return [f"  from the base game {base.path}, unchanged"], ""
    inside = set(rule_names(rule.body)) | set(rule_names(old.body))
    changed = []
    for item in tree.own:
        verb = {n.ReplaceRule: "replaces", n.RemoveRule: "removes", n.AddRule: "adds"}.get(type(item))
        if verb is not None and item.name in inside:
            changed.append(f"{verb} `{item.name}`")
    what = " and ".join([", ".join(changed[:-1]), changed[-1]] if len(changed) > 1 else changed)
    text = f"from the base game {base.path}; this variant {what or 'changes it'}" + \
        (" inside it" if what else "") + " (the source below is the base's)"
    return textwrap.wrap(text, 96, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False), ""


def explain_name(game: GameDef, topic: str, tree: RulesTree | None = None) -> str:
    """A rule (with its doc and source), option, zone or component of the game, by name. With
    the file's syntax ``tree``, a triggered rule shows its event and condition, and a variant's
    rule what the variant did to it."""
    for index, rule in enumerate(game.rules):
        if rule.name == topic:
            role = rule_role(game, index)
            node = tree.rules.get(rule.name) if tree is not None and role != "invariant" else None
            if node is not None and tree.triggered_by.get(rule.name) is node:
                role = "triggered rule"
            parts = [f"{role} `{rule.name}`  {rule.where()}"]
            replaced = ""
            if tree is not None and node is not None:
                parts.extend(_trigger_lines(tree, rule.name))
                variant, replaced = _variant_lines(tree, rule.name)
                parts.extend(variant)
            doc = " ".join(_doc_lines(node.body)) if node is not None else rule.doc
            if doc:
                parts.append(f"\n{_wrap(doc)}")
            source = rule_source(rule.path, rule.line)
            if source:
                parts.append(f"\n{source}")
            if replaced:
                parts.append(f"\nthe base game's rule, replaced:\n{replaced}")
            return "\n".join(parts)
    for option in game.options:
        if option.name == topic:
            text = f"option `{option.name}` = {value_text(option.default)}{_range_text(option)}"
            return f"{text}\n\n{option.doc}" if option.doc else text
    for zone in game.zones:
        if zone.name == topic:
            decl = tree.zones.get(topic) if tree is not None else None
            return _declared(f"zone `{zone.name}`: {zone_summary(zone, game)}", decl.span if decl else None)
    keyed = [zone for zone in game.zones if zone.name.startswith(topic + "[")]
    if keyed:  # a zone with keys: one zone per key
        decl = tree.zones.get(topic) if tree is not None else None
        keys = ", ".join(printable(zone.name[len(topic) + 1:-1]) for zone in keyed)
        return _declared(f"zone `{topic}`: {zone_summary(keyed[0], game)}, one for each key: {keys}",
                         decl.span if decl else None)
    for kind in game.kinds:
        if kind.name == topic:
            return _declared(f"{kind.category} `{kind.name}`: {kind_summary(kind)}", kind.span)
    for counter in game.counters:
        if counter.name == topic:
            return _declared(f"counter `{counter.name}`, {counter_summary(counter, tree)}", counter.span)
    defines = tree.defines if tree is not None else {}
    if topic in defines:
        return _declared(f"define `{topic}`", defines[topic].span)
    procedures = tree.procedures if tree is not None else {}
    if topic in procedures:
        params = procedures[topic].params
        return _declared(f"procedure `{topic}`{'(' + ', '.join(params) + ')' if params else ''}: run by `do "
                         f"{topic}{'(...)' if params else ''}`", procedures[topic].span)
    for shown_value in game.shown:
        if shown_value.name == topic:
            return _declared(f"show `{topic}`{' per player' if shown_value.per_player else ''}: a value on the "
                             "board", shown_value.span)
    having_face = [kind for kind in game.kinds if kind.face_labels and topic in map(str, kind.face_labels)]
    if having_face:  # a die's face, by its label: every kind of die that has it
        return "\n\n".join(_declared(f"face `{topic}` of {kind.category} `{kind.name}`: {kind_summary(kind)}",
                                     kind.span) for kind in having_face)
    if topic in game.attributes:  # a piece's attribute: the kinds that give it, and its values
        column = game.attributes.index(topic)
        having = [kind for kind in game.kinds if any(piece[column] is not None for piece in kind.pieces)]
        if having:
            values = [piece[column] for kind in having for piece in kind.pieces if piece[column] is not None]
            if any(v.__class__ is TableCell for v in values):  # a column with parameters: an expression per card
                arity = next(v.arity for v in values if v.__class__ is TableCell)
                kinds = ", ".join(f"{kind.category} `{kind.name}`" for kind in having)
                return _declared(f"attribute `{topic}` of {kinds}: a column with {arity} parameter"
                                 f"{'' if arity == 1 else 's'}, each card's own expression, worked out when called "
                                 f"(`X.{topic}({', '.join(['...'] * arity)})`)", having[0].span)
            numbers = sorted(set(v for v in values if v.__class__ is int))
            texts = list(dict.fromkeys([*map(str, numbers), *(shown(v) for v in values if v.__class__ is not int)]))
            listed = ", ".join(texts[:12]) + (", ..." if len(texts) > 12 else "")
            kinds = ", ".join(f"{kind.category} `{kind.name}`" for kind in having)
            return _declared(f"attribute `{topic}` of {kinds}: {listed}", having[0].span)
    named = _pieces_named(game, topic)
    if named:  # a card (or tile) by its name: what it says
        return "\n\n".join(named)
    keyed_counters = [c for c in game.counters if c.keys and topic in map(str, c.keys)]
    if keyed_counters:  # a key of a counter with keys: an entry of each
        return "\n\n".join(_declared(f"key `{topic}` of counter `{c.name}` (`{c.name}[{topic}]`), "
                                      f"{counter_summary(c, tree)}", c.span) for c in keyed_counters)
    keyed_zones = list(dict.fromkeys(z.name.partition("[")[0] for z in game.zones if z.name.endswith(f"[{topic}]")))
    if keyed_zones:  # a key of zones with keys
        decls = [tree.zones.get(name) if tree is not None else None for name in keyed_zones]
        return "\n\n".join(_declared(f"key `{topic}` of zone `{name}` (`{name}[{topic}]`)", decl.span if decl else None)
                             for name, decl in zip(keyed_zones, decls))
    names = [str(key) for c in game.counters for key in c.keys or () if str(key).isidentifier()] + \
        [r.name for r in game.rules] + [o.name for o in game.options] + [z.name for z in game.zones] + \
        [k.name for k in game.kinds] + [c.name for c in game.counters] + list(defines) + [v.name for v in game.shown] \
        + list(procedures) + [str(label) for kind in game.kinds for label in kind.face_labels if str(label).isidentifier()] \
        + list(game.attributes)
    raise UnknownTopic(f"{printable(game.name)} has no rule, option, zone, component, face, counter, key, define, "
                       "show, attribute or procedure "
                       f"`{printable(_cut(topic))}`",
                       did_you_mean(topic, names) or f"rulelang explain --file {game.path} lists them")


def _pieces_named(game: GameDef, topic: str) -> list[str]:
    """Each kind's pieces named ``topic`` (by the attributes that name them, as the trace does,
    with or without the kind's name): their attributes, once for alike ones."""
    found = []
    for kind in game.kinds:
        if not kind.name_columns:
            continue
        alike: dict[str, list] = {}  # (lists in cells: keyed by their text)
        for piece in kind.pieces:
            label = " ".join(shown(piece[c]) for c in kind.name_columns)
            if topic in (label, f"{kind.name} {label}"):
                alike.setdefault(repr(piece), [piece, 0])[1] += 1
        for piece, copies in alike.values():
            attributes = ", ".join(f"{game.attributes[i]} {_cell_text(v)}" for i, v in enumerate(piece)
                                   if v is not None and i not in kind.name_columns and game.attributes[i] != "kind")
            title = f"{kind.category} `{printable(topic)}` of `{kind.name}`" + (f" (× {copies})" if copies > 1 else "")
            found.append(_declared(f"{title}: {printable(attributes) or 'no other attributes'}", kind.span))
    return found


def _cell_text(value: Any) -> str:
    if value.__class__ is TableCell:
        return f"(worked out when called, `X.{value.column}(...)`)"
    if isinstance(value, list):
        return "[" + ", ".join(map(shown, value)) + "]" if value else "empty"
    return shown(value)


def _cut(text: str, most: int = 60) -> str:
    """A word from the command line, at most ``most`` characters of it, for a message."""
    return text if len(text) <= most else text[:most] + "..."


def _declared(title: str, span) -> str:
    """A declaration's title, where it is, and its source lines."""
    if span is None:
        return title
    source = rule_source(span.path, span.line)
    return f"{title}  {span.path}:{span.line}" + (f"\n\n{source}" if source else "")


def zone_summary(zone, game: GameDef | None = None) -> str:
    sort = f" sorted by {game.attributes[zone.sort_column]}" if game is not None and zone.sort_column is not None else ""
    if zone.per_piece:
        kinds = [game.kinds[k].name for k in zone.carried_by] if game is not None else []
        return f"{zone.kind}{sort} on each {' or '.join(kinds) or 'piece'}, {zone.visibility}"
    owner = "per player" if zone.per_player else "shared"
    showing = f", showing {zone.shows}" if zone.shows else ""
    return f"{owner} {zone.kind}{sort}, {zone.visibility}{showing}"


def source_text(node) -> str:
    """A node's text as written in its file (one line: its lines joined by spaces)."""
    span = getattr(node, "span", None)
    if span is None:
        return "..."
    return printable(" ".join(span.source.text[span.start:span.end].split()))


def counter_summary(counter, tree: RulesTree | None = None) -> str:
    """`per player, keys ..., owner only = 0`: a counter as the listing shows it."""
    decl = tree.counters.get(counter.name) if tree is not None else None
    return ("per player" if counter.per_player else "shared") + \
        (f", keys {keys_text(counter.keys)}" if counter.keys else "") + \
        ("" if counter.visibility == "public" else f", {counter.visibility}") + \
        (f", starts as {source_text(decl.initial)}" if decl is not None else "")


def kind_summary(kind) -> str:
    if kind.is_die:
        return "faces " + ", ".join(str(f) for f in kind.face_labels)
    text = f"{len(kind.pieces)} pieces" if kind.pieces else "made by count"
    return text + (f", limit {kind.limit} per player" if kind.limit is not None else "")


def describe_game(game: GameDef, tree: RulesTree | None = None) -> str:
    """Everything a designer looks up: options, components, zones, counters and rules with
    file:line (and, with the syntax ``tree``, the event of each triggered rule)."""
    teams = f", in teams of {game.team_size}" if game.team_size > 1 else ""
    count = str(game.min_players) if game.min_players == game.max_players else f"{game.min_players} to {game.max_players}"
    lines = [f"{game.name}  ({game.path}, {count} player{'s' if game.max_players != 1 else ''}{teams})"]
    if game.doc:
        lines.append(_wrap(game.doc))
    lines.append("\noptions:")
    for o in game.options:
        lines.append(f"  {o.name} = {value_text(o.default)}{_range_text(o)}")
        lines.extend(textwrap.wrap(o.doc, 96, initial_indent=" " * 6, subsequent_indent=" " * 6))
    if not game.options:
        lines.append("  none")
    lines.append("\ncomponents:")
    lines.extend(f"  {k.category} {k.name}: {kind_summary(k)}" for k in game.kinds)
    lines.append("\nzones:")
    lines.extend(f"  {printable(z.name)}: {zone_summary(z, game)}" for z in game.zones)
    lines.append("\ncounters:")
    lines.extend(f"  {c.name}: {counter_summary(c, tree)}" for c in game.counters)
    if not game.counters:
        lines.append("  none")
    if tree is not None and tree.defines:
        lines.append("\ndefines:")
        for name, define in tree.defines.items():
            params = f"({', '.join(define.params)})" if define.params is not None else ""
            lines.append(f"  {name}{params} = {source_text(define.value)}")
    if tree is not None and tree.procedures:
        lines.append("\nprocedures:")
        for name, decl in tree.procedures.items():
            params = f"({', '.join(decl.params)})" if decl.params else ""
            lines.append(f"  {name}{params}  {decl.span.path}:{decl.span.line}" if decl.span is not None else
                         f"  {name}{params}")
    if game.shown:
        lines.append("\nshown on the board:")
        lines.extend(f"  {s.name}{' per player' if s.per_player else ''}  "
                     f"{s.span.path}:{s.span.line}" if s.span is not None else f"  {s.name}" for s in game.shown)
    lines.append("\nrules:")
    width = max((len(r.name) for r in game.rules), default=0)
    for index, r in enumerate(game.rules):
        role = rule_role(game, index)
        tag = "" if role == "rule" else f"  ({role})"
        lines.append(f"  {r.name:<{width}}  {r.where()}{tag}")
        event = tree.event(r.name) if tree is not None and role == "rule" else ""
        if event:  # a triggered rule: its event below it, as an option's description
            lines.append(f"      {event}")
    return "\n".join(lines)


def _range_text(option) -> str:
    """` in LOW to HIGH` for an option with a range, as the rules file writes it."""
    return f" in {option.bounds[0]} to {option.bounds[1]}" if option.bounds else ""
