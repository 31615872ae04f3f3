"""Lint checks over a merged syntax tree: each check is a function named after the problem
it finds, registered with its code; its docstring is what ``rulelang explain CODE`` prints."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from . import nodes as n
from .diagnostics import Diagnostic, check


def walk(node) -> Iterator:
    """Every node below (and including) ``node``, depth first."""
    if isinstance(node, n.Node):
        yield node
        for field in attrs.fields(type(node)):
            if field.name != "span":
                yield from walk(getattr(node, field.name))
    elif isinstance(node, tuple):
        for item in node:
            yield from walk(item)


def used_names(tree: n.RulesFile) -> set[str]:
    """Names that some expression or statement refers to."""
    names: set[str] = set()
    for node in walk(tree.items):
        if isinstance(node, n.Name):
            names.add(node.id)
        elif isinstance(node, n.Target):
            names.add(node.name)
        elif isinstance(node, n.Create):
            names.add(node.kind)
        elif isinstance(node, n.Do):
            names.add(node.name)
        elif isinstance(node, n.Call):
            names.add(node.func)
    return names


@check("W401", "unused-option")
def unused_option(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """An option that no rule reads: changing it on the command line would change nothing."""
    for item in tree.items:
        if isinstance(item, n.OptionDecl) and item.name not in used:
            yield Diagnostic("W401", f"option `{item.name}` is never used", item.span,
                             help="use it in a rule, or remove it")


@check("W402", "unused-zone")
def unused_zone(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A zone that no rule mentions: nothing can ever be in it."""
    for item in tree.items:
        if isinstance(item, n.ZoneDecl) and item.name not in used:
            yield Diagnostic("W402", f"zone `{item.name}` is never used", item.span)


@check("W403", "unused-define")
def unused_define(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A `define` that no rule uses."""
    for item in tree.items:
        if isinstance(item, n.DefineDecl) and item.name not in used:
            yield Diagnostic("W403", f"define `{item.name}` is never used", item.span)


@check("W404", "undocumented-option")
def undocumented_option(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """An option without a description. Players choose options from the command line and
    `rulelang explain`; each needs a sentence saying what it changes."""
    for item in tree.items:
        if isinstance(item, n.OptionDecl) and not item.doc:
            yield Diagnostic("W404", f"option `{item.name}` has no description", item.span,
                             help='add an indented line with a string under it: `"what it changes"`')


@check("W405", "unused-procedure")
def unused_procedure(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A procedure that no `do` runs."""
    for item in tree.items:
        if isinstance(item, n.ProcedureDecl) and item.name not in used:
            yield Diagnostic("W405", f"procedure `{item.name}` is never run", item.span,
                             help=f"run it with `do {item.name}`")


@check("W406", "unused-component")
def unused_component(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A component kind that is never created: the game never has such pieces."""
    for item in tree.items:
        if isinstance(item, (n.DieDecl, n.PieceDecl)) and item.name not in used:
            yield Diagnostic("W406", f"`{item.name}` is never created", item.span,
                             help=f"add `create {item.name} in some_zone` to the set-up")


@check("W407", "statement-after-end")
def statement_after_end(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A statement after `break`, `end turn` or `end game` in the same block: it never runs."""
    for node in walk(tree.items):
        for body in _blocks(node):
            for before, after in zip(body, body[1:], strict=False):
                if isinstance(before, (n.Break, n.EndTurn, n.EndGame)):
                    yield Diagnostic("W407", "this statement never runs", after.span,
                                     help="it follows a statement that leaves the block")
                    break


def _blocks(node) -> list[tuple]:
    if isinstance(node, (n.Rule, n.Repeat, n.While, n.ForEach, n.Section, n.ProcedureDecl, n.When, n.May)):
        return [node.body]
    if isinstance(node, n.If):
        return [b for _, b in node.branches] + [node.otherwise]
    if isinstance(node, n.Branch):
        return [node.body]
    return []


# Built-in functions whose arguments after the first are worked out for each item of the first
# (`count(tray, face == 4)`): there, `it` and bare attributes are that item.
_PER_ITEM = {"sum", "max", "min", "count", "any", "all", "highest", "lowest", "sorted", "runs", "pairs"}


@check("W408", "shadowed-it")
def shadowed_it(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """`it` inside a condition that is itself inside another: it is the item of the inner one
    (`shown where count(tray, face == it) >= 4`: `it` is a die of `tray`, not the item of
    `shown`), which is rarely what was meant. To compare with the outer item, pass it to a
    define: `define how_many(dice, f) = count(dice, face == f)`, then
    `shown where how_many(tray, it) >= 4`."""
    defines = {item.name for item in tree.items if isinstance(item, n.DefineDecl)}
    found: list[tuple[n.Node, str, str]] = []
    _its(tree.items, [], defines, found)
    for name, inner, outer in found:
        yield Diagnostic("W408", f"`it` here is the item of the inner {inner}, not of the {outer} around it",
                         name.span, help="to use the outer item, pass it to a define: "
                         "`define how_many(dice, f) = count(dice, face == f)`, then `how_many(tray, it)`")


def _its(node, scopes: list[str], defines: set[str], found: list) -> None:
    """Every `it` under ``node`` with two or more item scopes around it (``scopes``: their names)."""
    if isinstance(node, n.Name):
        if node.id == "it" and len(scopes) >= 2:
            found.append((node, scopes[-1], scopes[-2]))
        return
    if isinstance(node, n.Filter):
        _its(node.source, scopes, defines, found)
        _its(node.cond, scopes + ["`where`"], defines, found)
        return
    if isinstance(node, n.Call) and node.func in _PER_ITEM and node.func not in defines and node.args:
        _its(node.args[0], scopes, defines, found)
        for arg in node.args[1:]:
            _its(arg, scopes + [f"`{node.func}(...)`"], defines, found)
        return
    if isinstance(node, n.Node):
        for field in attrs.fields(type(node)):
            if field.name != "span":
                _its(getattr(node, field.name), scopes, defines, found)
    elif isinstance(node, tuple):
        for item in node:
            _its(item, scopes, defines, found)


LINT_CHECKS = (unused_option, unused_zone, unused_define, undocumented_option, unused_procedure,
               unused_component, statement_after_end, shadowed_it)


def lint(tree: n.RulesFile) -> list[Diagnostic]:
    """All lint warnings of a merged file (warnings from a base file are not repeated)."""
    used = used_names(tree)
    found = [d for check_ in LINT_CHECKS for d in check_(tree, used)]
    return [d for d in found if d.span is None or d.span.path == tree.path]
