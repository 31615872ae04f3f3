"""Variants: a file that ``extends`` another is merged into it here, before checking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from . import nodes as n
from .diagnostics import Diagnostic, did_you_mean, register
from .files import FileRefused, confine

register("E105", "unknown-rule", """
A variant replaces, removes or places a rule next to a rule that its base file does not have.
The help line lists the base's rules with similar names.
""")
register("E106", "bad-extends", """
`extends` names a file that cannot be read, files extend each other in a circle, or a chain
of variants is longer than 16 files.
`extends` takes a path relative to the variant file, and must come first.
""")

Loader = Callable[[str], tuple[n.RulesFile | None, list[Diagnostic]]]


def rule_names(body: tuple) -> list[str]:
    """Every rule name in a block of statements, nested ones included."""
    names: list[str] = []
    for stmt in body:
        if isinstance(stmt, n.Rule):
            names.append(stmt.name)
        for child in _child_blocks(stmt):
            names.extend(rule_names(child))
    return names


def all_rule_names(tree: n.RulesFile) -> list[str]:
    names = []
    for item in tree.items:
        if isinstance(item, (n.Section, n.ProcedureDecl)):
            names.extend(rule_names(item.body))
        elif isinstance(item, n.Rule):  # a triggered rule
            names.extend(rule_names((item,)))
        elif isinstance(item, n.InvariantDecl):
            names.append(item.name)
    return names


def _child_blocks(stmt) -> list[tuple]:
    if isinstance(stmt, (n.Rule, n.Repeat, n.While, n.ForEach, n.When, n.May)):
        return [stmt.body]
    if isinstance(stmt, n.If):
        return [body for _, body in stmt.branches] + [stmt.otherwise]
    if isinstance(stmt, n.Choose):
        return [stmt.otherwise] if stmt.otherwise else []
    if isinstance(stmt, n.ChooseBranch):
        return [b.body for b in stmt.branches]
    return []


def _rebuild(stmt, blocks: list[tuple]):
    if isinstance(stmt, (n.Rule, n.Repeat, n.While, n.ForEach, n.When, n.May)):
        return attrs.evolve(stmt, body=blocks[0])
    if isinstance(stmt, n.If):
        branches = tuple((cond, body) for (cond, _), body in zip(stmt.branches, blocks, strict=False))
        return attrs.evolve(stmt, branches=branches, otherwise=blocks[-1])
    if isinstance(stmt, n.Choose):
        return attrs.evolve(stmt, otherwise=blocks[0]) if blocks else stmt
    if isinstance(stmt, n.ChooseBranch):
        return attrs.evolve(stmt, branches=tuple(attrs.evolve(b, body=body)
                                                 for b, body in zip(stmt.branches, blocks, strict=True)))
    return stmt


def _rewrite(body: tuple, change) -> tuple[tuple, bool]:
    """Apply a change to the rule it names, wherever it is nested; returns (body, found)."""
    out: list = []
    found = False
    for stmt in body:
        if isinstance(stmt, n.Rule) and not found:
            replaced = change(stmt)
            if replaced is not None:
                out.extend(replaced)
                found = True
                continue
        blocks = _child_blocks(stmt)
        if blocks and not found:
            new_blocks = []
            for block in blocks:
                new_block, hit = _rewrite(block, change) if not found else (block, False)
                found = found or hit
                new_blocks.append(new_block)
            stmt = _rebuild(stmt, new_blocks)
        out.append(stmt)
    return tuple(out), found


def _change_for(item):
    if isinstance(item, n.ReplaceRule):
        return lambda rule: [attrs.evolve(rule, body=item.body, span=item.span)] if rule.name == item.name else None
    if isinstance(item, n.RemoveRule):
        return lambda rule: [] if rule.name == item.name else None
    new_rule = n.Rule(item.name, item.body, span=item.span)
    if item.place == "before":
        return lambda rule: [new_rule, rule] if rule.name == item.anchor else None
    return lambda rule: [rule, new_rule] if rule.name == item.anchor else None


def _added_next_to_trigger(item: n.AddRule) -> Diagnostic:
    """`add rule X after T` where T is a triggered rule and X holds no `when`: X would stand at
    the top level, where only triggered rules stand."""
    return Diagnostic(
        "E301", f"`{item.anchor}` is a triggered rule: nothing runs {item.place} it in order", item.span,
        help=f"a new triggered rule is written `rule {item.name}:` at the top level, with `when ...:` "
        f"inside it; to run `{item.name}` in order, add it {item.place} a rule of a section")


def merge(variant: n.RulesFile, base: n.RulesFile) -> tuple[n.RulesFile, list[Diagnostic]]:
    """The base file with the variant's declarations and rule changes applied."""
    diagnostics: list[Diagnostic] = []
    items = [i for i in base.items if not isinstance(i, n.Extends)]

    def named(item) -> str | None:
        return getattr(item, "name", None) if isinstance(item, (
            n.OptionDecl, n.DieDecl, n.PieceDecl, n.ZoneDecl, n.CounterDecl, n.DefineDecl,
            n.ProcedureDecl, n.InvariantDecl, n.ShowDecl)) else None

    for item in variant.items:
        if isinstance(item, n.Extends):
            continue
        if isinstance(item, n.GameDecl):
            old = next((i for i in items if isinstance(i, n.GameDecl)), None)
            if old is not None:
                item = attrs.evolve(
                    item,
                    min_players=item.min_players if item.min_players is not None else old.min_players,
                    max_players=item.max_players if item.max_players is not None else old.max_players,
                    turn_limit=item.turn_limit if item.turn_limit is not None else old.turn_limit,
                    team_size=item.team_size if item.team_size is not None else old.team_size,
                    teams_span=item.teams_span if item.team_size is not None else old.teams_span,
                    doc=item.doc or old.doc)
                items[items.index(old)] = item
            else:
                items.insert(0, item)
            continue
        if isinstance(item, n.Section):
            old = next((i for i in items if isinstance(i, n.Section) and i.kind == item.kind), None)
            if old is not None:
                items[items.index(old)] = attrs.evolve(old, body=old.body + item.body)
            else:
                items.append(item)
            continue
        if isinstance(item, (n.ReplaceRule, n.RemoveRule, n.AddRule)):
            target = item.name if not isinstance(item, n.AddRule) else item.anchor
            change = _change_for(item)
            found = False
            for index, existing in enumerate(items):
                if isinstance(existing, (n.Section, n.ProcedureDecl)):
                    body, hit = _rewrite(existing.body, change)
                    if hit:
                        items[index] = attrs.evolve(existing, body=body)
                        found = True
                        break
                elif isinstance(existing, n.Rule):  # a triggered rule, or one nested in it
                    if (isinstance(item, n.AddRule) and existing.name == item.anchor
                            and not any(isinstance(stmt, n.When) for stmt in item.body)):
                        diagnostics.append(_added_next_to_trigger(item))
                        found = True
                        break
                    body, hit = _rewrite((existing,), change)
                    if hit:
                        items[index:index + 1] = body
                        found = True
                        break
            if not found:
                candidates = all_rule_names(base)
                diagnostics.append(Diagnostic(
                    "E105", f"the base game has no rule `{target}`", item.span,
                    help=did_you_mean(target, candidates) or "`rulelang explain` lists a file's rules"))
            continue
        name = named(item)
        if name is not None:
            old = next((i for i in items if named(i) == name and type(i) is type(item)), None)
            if old is not None:
                if isinstance(item, n.OptionDecl) and not item.doc:
                    item = attrs.evolve(item, doc=old.doc)
                if isinstance(item, n.OptionDecl) and item.bounds is None and old.bounds is not None \
                        and type(item.default) is int and old.bounds[0] <= item.default <= old.bounds[1]:
                    item = attrs.evolve(item, bounds=old.bounds)  # a new default keeps the base's range
                items[items.index(old)] = item
                continue
        items.append(item)
    return n.RulesFile(variant.path, tuple(items), span=variant.span), diagnostics


# Files in one chain of `extends`: each is read and merged in turn, so a long chain costs its
# length times the file size, and real variants stay a few files deep.
MAX_CHAIN = 16


def resolve(tree: n.RulesFile, load: Loader, chain: tuple[str, ...] = (),
            root: str | Path | None = None) -> tuple[n.RulesFile | None, list[Diagnostic]]:
    """Follow ``extends`` (recursively) and merge; ``load`` parses a path. Every file extended
    must lie in the folder tree of ``root`` (default: the folder of the first file): a path
    out of it is refused (E109) and never opened."""
    if root is None:
        root = Path(tree.path).parent
    extends = [i for i in tree.items if isinstance(i, n.Extends)]
    if not extends:
        return tree, []
    if len(extends) > 1:
        return None, [Diagnostic("E106", "a file can extend only one base", extends[1].span)]
    if tree.items[0] is not extends[0]:
        return None, [Diagnostic("E106", "`extends` must come first in the file", extends[0].span,
                                 help="move this line to the top")]
    try:
        base_path = str(confine(extends[0].path, Path(tree.path).parent, root))
    except FileRefused as refused:
        return None, [Diagnostic("E109", f"`extends` refused: {refused.message}", extends[0].span,
                                 help=refused.help)]
    if str(Path(base_path).resolve()) in chain:
        return None, [Diagnostic("E106", f"`{extends[0].path}` extends this file back: a circle", extends[0].span)]
    if len(chain) + 2 > MAX_CHAIN:
        return None, [Diagnostic("E106", f"a chain of variants longer than the limit of {MAX_CHAIN} files",
                                 extends[0].span, help="merge some of the variants into one file")]
    base, diagnostics = load(base_path)
    if base is None:
        if diagnostics and diagnostics[0].code == "E601":
            return None, [Diagnostic("E601", f"the base file {diagnostics[0].message}", extends[0].span,
                                     help=diagnostics[0].help)]
        if not diagnostics or diagnostics[0].code in ("E106", "E107"):
            reason = diagnostics[0].message.split(": ", 1)[-1] if diagnostics else "unreadable"
            return None, [Diagnostic("E106", f"cannot read the base file `{extends[0].path}`: {reason}",
                                     extends[0].span, help="`extends` takes a path relative to this file")]
        return None, diagnostics
    base, more = resolve(base, load, chain + (str(Path(tree.path).resolve()),), root)
    if base is None:
        return None, diagnostics + more
    merged, changes = merge(tree, base)
    return merged, diagnostics + more + changes
