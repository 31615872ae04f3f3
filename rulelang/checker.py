"""Lint checks over a merged syntax tree: each check is a function named after the problem
it finds, registered with its code; its docstring is what ``rulelang explain CODE`` prints."""

from __future__ import annotations

import itertools
import operator
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
        elif isinstance(node, n.OptionRange):  # `1 to sides`
            names.update(bound for bound in (node.low, node.high) if isinstance(bound, str))
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


@check("W424", "unused-parameter")
def unused_parameter(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A parameter of a `define` that its value never reads: every call passes it for nothing,
    and the value reads something else instead (`define next_in(p) = first(others ...)` works
    out the player after the current one, whatever `p` is)."""
    for item in tree.items:
        if isinstance(item, n.DefineDecl) and item.params:
            read = {node.id for node in walk(item.value) if isinstance(node, n.Name)}
            for param in item.params:
                if param not in read:
                    yield Diagnostic("W424", f"define `{item.name}` never reads its parameter `{param}`", item.span,
                                     help=f"read `{param}` where the value depends on it, or remove the parameter")


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
        if isinstance(item, n.ProcedureDecl) and item.name not in used and \
                item.name not in ("main", "setup", "round", "turn", "final"):  # (E102 says it)
            yield Diagnostic("W405", f"procedure `{item.name}` is never run", item.span,
                             help=f"run it with `do {item.name}`")


@check("W406", "unused-component")
def unused_component(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A component kind that is never created: the game never has such pieces (however often
    a rule names the kind: `count(card)` is then 0, and a draw from an empty deck faults)."""
    created = {node.kind for node in walk(tree.items) if isinstance(node, n.Create)}
    for item in tree.items:
        if isinstance(item, (n.DieDecl, n.PieceDecl)) and item.name not in created:
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
    """The statement blocks right under a node, found by shape (a tuple of nodes, or the tuples in
    a tuple of pairs, like the branches of `if`), so that new block statements need no change."""
    if not isinstance(node, n.Node):
        return []
    blocks = []
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        if isinstance(value, tuple) and value and all(isinstance(v, n.Node) for v in value):
            blocks.append(value)
        elif isinstance(value, tuple):
            blocks += [part for pair in value if isinstance(pair, tuple)
                       for part in pair if isinstance(part, tuple) and part]
    return blocks


# Built-in functions whose arguments after the first are worked out for each item of the first
# (`count(tray, face == 4)`): there, `it` and bare attributes are that item.
_PER_ITEM = {"sum", "max", "min", "count", "any", "all", "highest", "lowest", "sorted", "runs", "pairs"}


@check("W408", "shadowed-it")
def shadowed_it(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """`it` inside a condition that is itself inside another: it is the item of the inner one
    (`shown where count(tray, face == it) >= 4`: `it` is a die of `tray`, not the item of
    `shown`), which is rarely what was meant. To compare with the outer item, pass it to a
    define: `define how_many(dice, f) = count(dice, face == f)`, then
    `shown where how_many(tray, it) >= 4`. Where the inner item is meant, say so the same way:
    `define short(p) = all([left of p, right of p], count(it) <= 3)`, then
    `all(players, short(it))`. An `it` compared with a constant (`it == none`, `it > 0`) is not
    warned about: it can only mean the inner item."""
    defines = {item.name for item in tree.items if isinstance(item, n.DefineDecl)}

    def against_a_constant(node, scopes) -> bool:  # `count(sheet of it, it == none)`: the inner item
        return isinstance(node, n.Compare) and len(scopes) >= 2 and _its_against_a_constant(node)

    for name, scopes in _in_item_scopes(tree.items, [], defines, against_a_constant):
        if name.id != "it" or len(scopes) < 2:
            continue
        inner, outer = scopes[-1], scopes[-2]
        chosen = outer.removeprefix("`where` of `choose ").removesuffix("`") if outer.startswith("`where` of") else None
        yield Diagnostic("W408", f"`it` here is the item of the inner {inner}, not of the {outer} around it",
                         name.span, help=f"to mean the option, write its name, `{chosen}`" if chosen else
                         f"to say which item is meant, move the inner {inner} into a define "
                         f"that takes the outer item, `define NAME(x) = ...`: there `x` is the outer item and `it` "
                         f"the inner one; then write `NAME(it)` in its place")


def _in_item_scopes(node, scopes: list[str], defines: set[str], skip=None) -> Iterator[tuple[n.Name, list[str]]]:
    """Every name under ``node``, with the names of the item scopes around it (`where`, the
    conditions of `count(...)` and the like), outermost first. ``skip(node, scopes)``: a
    subtree not to go into."""
    if isinstance(node, n.Name):
        yield node, scopes
        return
    if skip is not None and skip(node, scopes):
        return
    if isinstance(node, n.Filter):
        yield from _in_item_scopes(node.source, scopes, defines, skip)
        yield from _in_item_scopes(node.cond, scopes + ["`where`"], defines, skip)
        return
    if isinstance(node, (n.Choose, n.ThenChoose)) and node.where is not None:  # `it` is the option there
        for field in attrs.fields(type(node)):
            if field.name not in ("span", "where"):
                yield from _in_item_scopes(getattr(node, field.name), scopes, defines, skip)
        yield from _in_item_scopes(node.where, scopes + [f"`where` of `choose {node.var}`"], defines, skip)
        return
    if isinstance(node, n.Call) and node.func in _PER_ITEM and node.func not in defines and node.args:
        yield from _in_item_scopes(node.args[0], scopes, defines, skip)
        for arg in node.args[1:]:
            yield from _in_item_scopes(arg, scopes + [f"`{node.func}(...)`"], defines, skip)
        return
    if isinstance(node, n.Node):
        for field in attrs.fields(type(node)):
            if field.name != "span":
                yield from _in_item_scopes(getattr(node, field.name), scopes, defines, skip)
    elif isinstance(node, tuple):
        for item in node:
            yield from _in_item_scopes(item, scopes, defines, skip)


@check("W418", "shadowed-by-attribute")
def shadowed_by_attribute(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A shared counter or zone, an option or a define with the name of a piece attribute, and that name
    written inside a condition about pieces (`where`, `count(cup, ...)`, `any`...): there it is
    each item's attribute (when the items are pieces), so the counter cannot be read there.
    With `counter face`, `count(cup, face == face)` compares each die's face with itself.
    Rename the counter (`bid_face`), or read it into a variable first: `let f = face`, then
    `count(cup, face == f)`."""
    attributes = {"face", "value", "number", "kind"}
    declared: dict[str, tuple[str, n.Node]] = {}
    local: set[str] = set()
    for item in tree.items:
        if isinstance(item, (n.DieDecl, n.PieceDecl)):
            attributes.update(a.name for a in item.attrs)
            attributes.update(g.name for g in getattr(item, "generators", ()))
            if getattr(item, "table", None) is not None:
                attributes.update(c.name for c in item.table.columns if not c.is_copies)
                attributes.add("row")
        elif isinstance(item, (n.CounterDecl, n.ZoneDecl)):
            if not item.per_player:  # (one of each player's is read `NAME of P`, never bare)
                declared[item.name] = ("counter" if isinstance(item, n.CounterDecl) else "zone", item)
        elif isinstance(item, n.OptionDecl):
            declared[item.name] = ("option", item)
        elif isinstance(item, n.DefineDecl):
            if not item.params:
                declared[item.name] = ("define", item)
            local.update(item.params or ())
        elif isinstance(item, n.ProcedureDecl):
            local.update(item.params)
    for node in walk(tree.items):  # a variable of that name is read first, before an attribute
        if isinstance(node, (n.Let, n.Choose, n.ThenChoose, n.ForEach)):
            local.add(node.name if isinstance(node, n.Let) else node.var)
    clashing = {name for name in declared if name in attributes and name not in local}
    if not clashing:
        return
    defines = {item.name for item in tree.items if isinstance(item, n.DefineDecl)}
    first: dict[str, n.Name] = {}
    for name, scopes in _in_item_scopes(tree.items, [], defines):
        if scopes and name.id in clashing:
            first.setdefault(name.id, name)
    for name, use in first.items():
        what, decl = declared[name]
        where = use.span.where() if use.span is not None else "a condition"
        yield Diagnostic("W418", f"{what} `{name}` has the name of a piece attribute: inside a condition "
                         f"about pieces, `{name}` is the attribute, never the {what}",
                         decl.span, notes=(f"`{name}` at {where} is each item's attribute",),
                         help=f"rename the {what}; or read it before the condition, `let {name[0]} = {name}`, "
                         f"and use `{name[0]}` inside")


@check("W419", "shadows-a-face")
def shadows_a_face(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A counter, zone, option, define, variable or kind of piece with the name of a die's face
    label, and that name written in a rule: a name is looked up among the game's own names first, so
    the bare name always reads the counter (or the kind's pieces), never the face. With `faces 1, 2, heart, energy` and `counter
    energy`, `count(cup, face == energy)` compares each face with the counter's value. Rename
    the counter (`energy_cubes`)."""
    faces: dict[str, str] = {}
    for item in tree.items:
        if isinstance(item, n.DieDecl):
            for face in item.faces:
                if isinstance(face, n.Face) and isinstance(face.label, str):  # (not `1 to sides`)
                    faces.setdefault(face.label, item.name)
    if not faces:
        return
    declared = {item.name: (kind, item) for item in tree.items
                for kind, cls in (("counter", n.CounterDecl), ("zone", n.ZoneDecl), ("option", n.OptionDecl),
                                  ("define", n.DefineDecl), ("kind", n.PieceDecl), ("kind", n.DieDecl))
                if isinstance(item, cls) and item.name in faces}
    for node in walk(tree.items):  # variables: `let brain = 0`, `for each brain in ...`, `choose brain ...`
        name = node.name if isinstance(node, n.Let) else node.var if isinstance(node, (n.ForEach, n.Choose)) \
            else None
        if name in faces and name not in declared:
            declared[name] = ("variable", node)
    if not declared:
        return
    first: dict[str, n.Name] = {}
    for node in walk(tree.items):
        if isinstance(node, n.Name) and node.id in declared:
            first.setdefault(node.id, node)
    for name, use in first.items():
        what, decl = declared[name]
        where = use.span.where() if use.span is not None else "a rule"
        yield Diagnostic("W419", f"{what} `{name}` has the name of a face of `{faces[name]}`: written in a rule, "
                         f"`{name}` is the {what}, never the face", decl.span,
                         notes=(f"`{name}` at {where} reads the {what}",),
                         help=f"rename the {what}, such as "
                         f"`{name}_{_RENAMED.get(what, what)}`")


_RENAMED = {"counter": "count", "variable": "count", "kind": "token"}  # W419's suggested suffix


@check("W420", "kinds-seen-face-down")
def kinds_seen_face_down(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """Pieces of two kinds or more are created in a `hidden` or `owner only` zone. A seat that
    sees only how many pieces such a zone holds still sees how many of each kind, and which
    kind each piece drawn from it is: a kind is a card's back. With `card tempura` and `card
    sashimi` dealt face down, every hand shows to everyone. Make one kind, with an attribute for
    what tells the cards apart: `card dish: one for each name in tempura, sashimi`."""
    zones = {item.name: item for item in tree.items
             if isinstance(item, n.ZoneDecl) and item.visibility in ("hidden", "owner only", "others only") and item.per_piece is None}
    if not zones:
        return
    dice = {item.name for item in tree.items if isinstance(item, n.DieDecl)}
    created: dict[str, dict[str, n.Create]] = {}
    for node in walk(tree.items):
        if isinstance(node, n.Create) and node.kind not in dice:
            for zone in _zones_named(node.into, tree) & zones.keys():
                created.setdefault(zone, {}).setdefault(node.kind, node)
    for zone, kinds in created.items():
        if len(kinds) >= 2:
            names = list(kinds)
            yield Diagnostic("W420", f"zone `{zone}` is {zones[zone].visibility}, and pieces of {len(names)} kinds are "
                             f"created in it ({', '.join(f'`{k}`' for k in names)}): a seat that sees only how many "
                             "pieces it holds sees how many of each kind, as it sees a card's back",
                             kinds[names[1]].span, help=f"make one kind, with an attribute for what tells them apart: "
                             f"`card {zone}_card: one for each name in {', '.join(names)}`")


@check("W421", "face-label-twice")
def face_label_twice(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """Two faces of a die have one label and different values (`faces star = 1, star = 5`):
    the trace shows `star` for both, the rules compare `face == star` for both, and a scenario
    cannot script the second. Give each its own label (`star1 = 1, star5 = 5`). A face written
    twice with the same value is fine: it is twice as likely."""
    for item in tree.items:
        if not isinstance(item, n.DieDecl):
            continue
        values: dict[tuple, object] = {}
        for face in item.faces:
            if not isinstance(face, n.Face):  # `1 to sides`: numbers, each its own label
                continue
            value = face.value if face.value is not None else face.label if isinstance(face.label, int) else 0
            key = (face.label.__class__, face.label)
            if key in values and values[key] != value:
                yield Diagnostic("W421", f"two faces of `{item.name}` are labelled `{face.label}`, worth {values[key]} "
                                 f"and {value}: the trace and a scenario cannot tell them apart", face.span or item.span,
                                 help=f"give each its own label, such as `{face.label}{value} = {value}`")
                break
            values.setdefault(key, value)


@check("W422", "none-in-a-list")
def none_in_a_list(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """`none` written as an item of a list (`[none] + offers`): a list leaves out the items that
    are none, so it is never there, and a choice never offers it. To let a player pass, give
    the choice a branch of its own (`choose: "pass": ...`), or, for a group of pieces,
    `[empty] + subsets(C)`."""
    for node in walk(tree.items):
        if isinstance(node, n.ListExpr):
            for item in node.items:
                if isinstance(item, n.Literal) and item.value is None:
                    yield Diagnostic("W422", "`none` in a list is left out: the list never holds it, and a choice "
                                     "from it never offers it", item.span,
                                     help='to let a player pass, give the choice a branch: `choose as "PROMPT":` with '
                                     '`"pass": ...` and a branch that chooses from the list')


def _its_against_a_constant(node: n.Compare) -> bool:
    """`it == none`, `it > 0`: `it` compared with a constant, which tests the inner item (the
    outer one would count all of the inner items or none of them)."""
    sides = (node.left, node.right)
    return any(isinstance(a, n.Name) and a.id == "it" for a in sides) and \
        any(isinstance(b, n.Literal) for b in sides)


@check("W409", "never-runs")
def never_runs(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A rule or branch that can never run: an `if`, `elif`, `while`, choice branch or `when`
    condition that is false for every value its options may take (a `true`/`false` option, or
    a number option with a range, `option rounds = 6 in 1 to 10`: options can be changed on
    the command line, so only a condition false for all of them counts); a `when do NAME` rule
    for a procedure that no `do` runs; a `when move to ZONE` rule when nothing ever moves,
    draws or creates a piece into ZONE; a `game ends after a round when` condition when the
    `round` section loops without a `break` (turns given by `give a turn to`), so that no round
    ever ends. Fix the condition, or remove the rule."""
    options = _option_values(tree)
    procedures_run = {node.name for node in walk(tree.items) if isinstance(node, n.Do)}
    procedures = {item.name for item in tree.items if isinstance(item, n.ProcedureDecl)}
    destinations = _destinations(tree)
    for node in walk(tree.items):
        conditions = []
        if isinstance(node, n.If):
            conditions = [cond for cond, _ in node.branches]
        elif isinstance(node, (n.While, n.Branch, n.When)) and node.cond is not None:
            conditions = [node.cond]
        for cond in conditions:
            if _always_false(cond, options):
                yield Diagnostic("W409", "this condition is false whatever the options are: what it guards never "
                                 "runs", cond.span, help="fix the condition, or remove what it guards")
        if isinstance(node, n.When) and node.event == "do" and node.procedure in procedures - procedures_run:
            yield Diagnostic("W409", f"this rule never runs: no `do {node.procedure}` runs the procedure",
                             node.procedure_span or node.span, help=f"run it with `do {node.procedure}`, or remove the rule")
        if isinstance(node, n.When) and node.event == "move" and node.to is not None and \
                (zone := _never_filled(node.to, tree, destinations)):
            yield Diagnostic("W409", f"this rule never runs: nothing moves a piece to `{zone}`",
                             node.to.span, help="check the zone's name, or remove the rule")


    endless = _endless_round_loop(tree)
    if endless is not None:
        for item in tree.items:
            if isinstance(item, n.Section) and item.kind == "end":
                for node in walk(item.body):
                    if isinstance(node, n.GameEnds) and node.after_round:
                        yield Diagnostic("W409", "this condition is never checked: the `round` section never ends, "
                                         "so no round does", node.span,
                                         notes=(f"the loop at {endless.span.where()} has no `break`",)
                                         if endless.span is not None else (),
                                         help="write `game ends when ...`, checked after every turn, or `break` "
                                         "out of the round's loop")


def _endless_round_loop(tree: n.RulesFile) -> n.Node | None:
    """A `repeat:` (or `while true:`) in the `round` section with no `break` of its own, which
    keeps the round from ever ending (it gives turns: `give a turn to`)."""
    for item in tree.items:
        if isinstance(item, n.Section) and item.kind == "round":
            for node in walk(item.body):
                if (isinstance(node, n.Repeat) or isinstance(node, n.While) and isinstance(node.cond, n.Literal)
                        and node.cond.value is True) and not _breaks_out(node.body):
                    return node
    return None


def _breaks_out(body) -> bool:
    """Whether a loop's ``body`` holds a `break` of its own (not one of an inner loop)."""
    for stmt in body if isinstance(body, tuple) else (body,):
        if isinstance(stmt, tuple):
            if _breaks_out(stmt):
                return True
        elif isinstance(stmt, n.Break):
            return True
        elif isinstance(stmt, n.Node) and not isinstance(stmt, (n.Repeat, n.While, n.ForEach)) and any(
                _breaks_out(getattr(stmt, field.name)) for field in attrs.fields(type(stmt))
                if field.name != "span" and isinstance(getattr(stmt, field.name), (tuple, n.Node))):
            return True
    return False


def _never_filled(expr: n.Node, tree: n.RulesFile, destinations: set[str] | None) -> str | None:
    """The zone ``expr`` names when nothing ever moves, draws or creates a piece into it."""
    if destinations is None:
        return None
    zones = _zones_named(expr, tree)
    return sorted(zones)[0] if zones and not zones & destinations else None


@check("W410", "choice-never-has-options")
def choice_without_options(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A `choose ... from` without `otherwise:` that can never have an option: its `where` is
    false for every item of a literal list (`choose n from [1, 2, 3] where n > 3`), or it chooses
    from a zone that nothing ever moves, draws or creates a piece into. When a choice has no
    option and no `otherwise`, the game stops there with fault R501; fix the list or the
    condition, or add `otherwise:` with what happens then."""
    options = _option_values(tree)
    destinations = _destinations(tree)
    for node in walk(tree.items):
        if not isinstance(node, n.Choose) or node.otherwise is not None:
            continue
        if isinstance(node.options, n.ListExpr) and node.where is not None and len(node.options.items) <= 1000 and all(
                isinstance(item, n.Literal) for item in node.options.items) and all(
                _always_false(node.where, {**options, node.var: [item.value], "it": [item.value]})
                for item in node.options.items):
            yield Diagnostic("W410", "this choice never has an option: the condition is false for every item",
                             node.where.span, help="fix the condition, or add `otherwise:` for when nothing can be chosen")
        elif zone := _never_filled(node.options, tree, destinations):
            yield Diagnostic("W410", f"this choice never has an option: nothing puts a piece in `{zone}`",
                             node.options.span, help="check the zone's name, or add `otherwise:`")


@check("W412", "player-outside-a-turn")
def player_outside_a_turn(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """`player` (or `others`) is read in the `setup` or `round` section, outside any turn. There it names the
    player of the latest turn (player 1 before the first turn), not each player in turn: a
    trick won in the `round` section of a game without turns goes to player 1 every time. For
    every player, write `for each p in players:` and use `p`; for a player the round picked
    (the leader of a trick), keep it in a counter (`counter leader: shared = seat(0)`). So does
    a choice there without `by`: the player of the latest turn makes it; say who with `by`."""
    for item in tree.items:
        if not (isinstance(item, n.Section) and item.kind in ("setup", "round", "final")):
            continue
        for node in walk(item.body):
            if isinstance(node, (n.Choose, n.ChooseBranch, n.May)) and node.chooser is None:
                yield Diagnostic("W412", f"a choice in the `{item.kind}` section without `by` is made by the player "
                                 "of the latest turn (player 1 before the first turn), not by a player the section "
                                 "names", node.span, help="say who chooses: `by seat(0)`, a counter that holds a "
                                 "player (`by leader`), or, for each player, `for each p in players:` and `by p`")
            elif isinstance(node, n.Name) and node.id == "player":
                yield Diagnostic("W412", f"`player` in the `{item.kind}` section is the player of the latest turn "
                                 "(player 1 before the first turn), not each player", node.span,
                                 help="for every player, write `for each p in players:` and use `p`")
            elif isinstance(node, n.Name) and node.id == "others":
                yield Diagnostic("W412", f"`others` in the `{item.kind}` section is every player but the one of the "
                                 "latest turn (player 1 before the first turn)", node.span,
                                 help="name the players from one the round keeps in a counter: "
                                 "`players where it != leader`, or `seat(leader + 1)` for the next one")


@check("W415", "shared-owner-only-zone")
def shared_owner_only_zone(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A shared zone that is `owner only` (or `others only`). Nobody owns a shared zone, so every
    player sees only how many pieces it holds, as for a `hidden` zone: write `hidden` to say so,
    or make the zone `per player` for a zone only its owner sees (or all but its owner). (A
    shared counter cannot be `owner only` at all: error E303.)"""
    for item in tree.items:
        if isinstance(item, n.ZoneDecl) and item.visibility in ("owner only", "others only") \
                and not item.per_player and item.per_piece is None:
            yield Diagnostic("W415", f"zone `{item.name}` is shared, so nobody owns it: `{item.visibility}` shows "
                             "every player only how many pieces it holds", item.span,
                             help=f"write `hidden` for that, or `zone {item.name}: per player ..., "
                             f"{item.visibility}` for a zone of each player that "
                             + ("only its owner sees" if item.visibility == "owner only" else "all but its owner see"))


@check("W414", "endless-loop")
def endless_loop(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A `repeat:` (or a `while` whose condition nothing in it can change: `while true:`, or a
    body that changes nothing) with no way out: no `break` of its own, no `end turn`, no `end
    game`, no `do` of a procedure (which may end the turn) and no turns inside it. It runs until
    the game stops with fault R502 or R510. Add a `break` where the loop should stop, often in
    a branch of a choice (`"stop": break`)."""
    if any(isinstance(node, (n.EndTurn, n.EndGame)) for item in tree.items
           if isinstance(item, n.Rule) for node in walk(item)):
        return  # a triggered rule may end the turn from inside any loop
    for node in walk(tree.items):
        endless = isinstance(node, n.Repeat) or (isinstance(node, n.While) and (
            (isinstance(node.cond, n.Literal) and node.cond.value is True)
            or not any(isinstance(inner, _CHANGES) for inner in walk(node.body))))  # nothing can change its condition
        untouched = not endless and isinstance(node, n.While) and _condition_untouched(node, tree)
        if (endless or untouched) and not _leaves(node.body):
            names = sorted({f"`{m.id}`" for m in walk(node.cond) if isinstance(m, n.Name)}) if untouched else ()
            yield Diagnostic("W414", f"this loop never ends: nothing in it changes {', '.join(names)}, which its "
                             "condition reads, nor breaks out, ends the turn or ends the game" if untouched else
                             "this loop never ends: nothing in it breaks out, ends the turn or ends the game",
                             node.span, help=f"change {names[0] if names else 'what the condition reads'} inside "
                             "the loop, or leave it with `break`" if untouched else 'add `break` where it should stop, for instance in a choice: '
                             '`"stop": break`')


def _condition_untouched(loop: n.While, tree: n.RulesFile) -> bool:
    """Whether a `while` condition reads only counters, variables and options, none of which
    its body sets (no `do`, which may set counters, and no move where a triggered rule may)."""
    declared = {item.name: type(item) for item in tree.items if isinstance(item, (n.CounterDecl, n.OptionDecl))}
    names = {node.id for node in walk(loop.cond) if isinstance(node, n.Name)}
    bound = {node.name for node in walk(tree.items) if isinstance(node, n.Let)}
    if not names or not names <= set(declared) | bound or names & _BUILTIN_READS:
        return False
    if any(isinstance(node, (n.Call, n.MethodCall)) for node in walk(loop.cond)):
        return False  # (a define's body is not looked into)
    triggers = any(isinstance(item, n.Rule) and any(isinstance(w, n.When) for w in walk(item)) for item in tree.items)
    for node in walk(loop.body):
        if isinstance(node, (n.Do, n.TakeTurns, n.GiveTurn)):
            return False
        if triggers and isinstance(node, (n.Move, n.Draw, n.Create, n.Roll, n.Shuffle)):
            return False
        written = node.target.name if isinstance(node, n.Assign) else node.name if isinstance(node, n.Let) else \
            node.var if isinstance(node, (n.Choose, n.ThenChoose, n.ForEach)) else None
        if written in names:
            return False
    return True


_BUILTIN_READS = frozenset(("player", "players", "others", "remaining", "turn_order", "round_number", "turn_number",
                            "player_count", "it"))


# Statements that change the state, and with it what a `while` condition may read.
_CHANGES = (n.Roll, n.Draw, n.Shuffle, n.Move, n.Create, n.Let, n.Assign, n.Do, n.TakeTurns, n.GiveTurn,
            n.Eliminate, n.Choose, n.ChooseBranch, n.May)


def _leaves(body) -> bool:
    """Whether a loop's ``body`` holds a way out of it."""
    for stmt in body if isinstance(body, tuple) else (body,):
        if isinstance(stmt, tuple):  # (an `if`'s condition and block, and the like)
            if _leaves(stmt):
                return True
            continue
        if isinstance(stmt, (n.Repeat, n.While, n.ForEach)):
            # an inner loop's `break` leaves the inner loop only
            if any(isinstance(node, (n.EndTurn, n.EndGame, n.Do, n.TakeTurns, n.GiveTurn)) for node in walk(stmt)):
                return True
            continue
        if isinstance(stmt, (n.Break, n.EndTurn, n.EndGame, n.Do, n.TakeTurns, n.GiveTurn)):
            return True
        if isinstance(stmt, n.Node) and any(_leaves(getattr(stmt, field.name)) for field in attrs.fields(type(stmt))
                                            if field.name != "span" and isinstance(getattr(stmt, field.name),
                                                                                    (tuple, n.Node))):
            return True
    return False


@check("W411", "stop-can-only-fail")
def stop_can_only_fail(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A choice branch (or `may`) after which the turn can only end in failure: whatever
    happens next, it runs a procedure that ends the turn and that an `otherwise:` runs too (the
    procedure the game uses when a turn fails). In

        repeat:
            ...
            choose:
                "stop": break
                "roll again": pass
        do bust

    choosing "stop" always ends in `bust`. The option stays legal, but a player who takes it
    loses the turn for sure: remove the branch, give it a condition (`"stop" if total > 0:`),
    or make what follows it depend on the game (`if count(kept) < 2: do bust`). Only what
    can be proved from the rules' shape is reported (no condition is guessed at)."""
    flow = _Flow()
    if any(isinstance(node, n.When) and (node.instead or not all(map(flow.plain, node.body)))
           for node in walk(tree.items)):
        return  # a triggered rule could leave from any statement
    procedures = {item.name: item.body for item in tree.items if isinstance(item, n.ProcedureDecl)}
    failing = set()
    for node in walk(tree.items):
        if isinstance(node, n.Choose) and node.otherwise:
            outcome = flow.run(node.otherwise)
            if outcome[0] == "do" and outcome[1] in procedures and flow.ends_turn(procedures[outcome[1]]):
                failing.add(outcome[1])
    if not failing:
        return
    for item in tree.items:
        if isinstance(item, (n.Section, n.ProcedureDecl)):
            yield from _failing_branches([(item, item.body)], failing, flow)


def _failing_branches(path: list, failing: set[str], flow: _Flow) -> Iterator[Diagnostic]:
    """W411 for every branch in the block at the end of ``path`` ((owner, block) pairs from a
    section or procedure down to here) and in the rules and loops below it."""
    for index, node in enumerate(path[-1][1]):
        bodies = [(b, b.body) for b in node.branches] if isinstance(node, n.ChooseBranch) else (
            [(node, node.body)] if isinstance(node, n.May) else [])
        after: dict[tuple, tuple] = {}  # the branches of one choice mostly end alike
        for branch, body in bodies:
            ending = flow.run(body)
            if ending not in after:
                after[ending] = _after(ending, path, index, flow)
            outcome = after[ending]
            if outcome[0] == "do" and outcome[1] in failing:
                yield Diagnostic("W411", f"after `{branch.label}` the turn can only fail: it always ends in "
                                 f"`{outcome[1]}`, as when a choice has no option", branch.span,
                                 help="remove the branch, give it a condition (`\"stop\" if ...:`), or make what "
                                 "follows it depend on the game")
        if isinstance(node, (n.Rule, n.Repeat, n.While, n.ForEach)):
            yield from _failing_branches([*path, (node, node.body)], failing, flow)


_LOOPS = (n.Repeat, n.While, n.ForEach)


def _after(outcome: tuple, path: list, index: int, flow: _Flow) -> tuple:
    """How the turn certainly goes on after the statement at ``index`` of the innermost block
    ended with ``outcome``: the rest of that block, then of the blocks around it (a `break`
    leaves the innermost loop)."""
    level, start = len(path) - 1, index + 1
    while outcome[0] in ("fall", "break"):
        if outcome[0] == "break":
            while level > 0 and not isinstance(path[level][0], _LOOPS):
                level -= 1
            if not isinstance(path[level][0], _LOOPS):
                return ("unknown",)
        else:
            outcome = flow.run(path[level][1], start)
            if outcome[0] != "fall":
                continue
            if not isinstance(path[level][0], n.Rule) or level == 0:
                return ("unknown",)  # a loop goes round again; a section or procedure ends as usual
        inner = path[level][0]
        level -= 1
        start = _position(path[level][1], inner) + 1
        outcome = ("fall",)
    return outcome


def _position(block: tuple, node) -> int:
    return next(i for i, statement in enumerate(block) if statement is node)


# Statements that never leave their block and wait for no decision.
_PLAIN = (n.Roll, n.Draw, n.Shuffle, n.Tally, n.Say, n.Move, n.Create, n.Let, n.Assign, n.Pass, n.Doc)


class _Flow:
    """How statements certainly go on, worked out once for each statement and block (so that a
    file of many branches costs no more than its size)."""

    def __init__(self) -> None:
        self._plain: dict[int, bool] = {}
        self._outcomes: dict[int, list[tuple]] = {}

    def plain(self, statement) -> bool:
        """Whether a statement only does plain things (or `if`s of them): it never leaves early."""
        key = id(statement)
        if key not in self._plain:
            self._plain[key] = isinstance(statement, _PLAIN) or (isinstance(statement, (n.If, n.Rule)) and all(
                self.plain(inner) for block in _blocks(statement) for inner in block))
        return self._plain[key]

    def run(self, block: tuple, start: int = 0) -> tuple:
        """How ``block[start:]`` certainly ends: ("do", NAME) when it runs that procedure,
        ("break",), ("fall",) off its end, or ("unknown",) when that depends on the game."""
        key = id(block)
        if key not in self._outcomes:
            outcomes = [("fall",)] * (len(block) + 1)
            for i in range(len(block) - 1, -1, -1):
                statement = block[i]
                if isinstance(statement, n.Do):
                    outcomes[i] = ("do", statement.name)
                elif isinstance(statement, n.Break):
                    outcomes[i] = ("break",)
                elif isinstance(statement, n.Rule):
                    inner = self.run(statement.body)
                    outcomes[i] = outcomes[i + 1] if inner[0] == "fall" else inner
                else:
                    outcomes[i] = outcomes[i + 1] if self.plain(statement) else ("unknown",)
            self._outcomes[key] = outcomes
        return self._outcomes[key][start]

    def ends_turn(self, body: tuple) -> bool:
        """Whether a procedure's body certainly reaches `end turn`."""
        for statement in body:
            if isinstance(statement, n.EndTurn):
                return True
            if isinstance(statement, n.Rule) and not self.plain(statement):
                return self.ends_turn(statement.body)
            if not self.plain(statement):
                return False
        return False


@check("W426", "none-after-otherwise")
def none_after_otherwise(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A `choose NAME ...` whose `otherwise:` block goes on (it ends no turn, leaves no loop,
    runs no procedure), while the statements after the choice read NAME. With no option, NAME
    is then `none` (or what it held before), and reading it is a fault (R503) in the middle of
    a game, or a silent wrong value:

        choose b from range(1, chips of player) as "bet"
        otherwise:
            pass
        bet of player = b          # `b` is none when the player has no chips

    Leave the block in `otherwise:` (`end turn`, `break`, `do PROCEDURE`), or read NAME only
    after checking it: `if b != none:`. Only a block certainly going on is reported, and
    `move NAME to ...` is no read: moving none moves nothing."""
    flow = _Flow()
    for node in walk(tree.items):
        for body in _blocks(node):
            for index, statement in enumerate(body):
                if not isinstance(statement, n.Choose) or not statement.otherwise:
                    continue
                if flow.run(statement.otherwise) != ("fall",):
                    continue
                names = {statement.var} | ({statement.then.var} if statement.then is not None else set())
                rest = body[index + 1:]
                guarded = {side.id for compare in walk(rest) if isinstance(compare, n.Compare)
                           for side, other in ((compare.left, compare.right), (compare.right, compare.left))
                           if isinstance(side, n.Name) and isinstance(other, n.Literal) and other.value is None}
                if names & guarded:  # (a pair: checking one part checks the other)
                    continue
                set_in_otherwise = {target.name for target in walk(statement.otherwise) if isinstance(target, n.Target)}
                # `move NAME to ...` moves nothing when NAME is none: the docs give it as a way to write it
                moved = {id(x.what) for x in walk(rest) if isinstance(x, n.Move) and isinstance(x.what, n.Name)}
                read = next((name for name in sorted(names - set_in_otherwise)
                             if any(isinstance(x, n.Name) and x.id == name and id(x) not in moved
                                    for x in walk(rest))), None)
                if read is not None:
                    yield Diagnostic("W426", f"with no option, `otherwise:` goes on and the rules after the choice "
                                     f"read `{read}`, which is then `none` (or what it held before)",
                                     statement.otherwise[-1].span,
                                     help=f"leave the block here (`end turn`, `break`, `do PROCEDURE`), or check "
                                     f"`if {read} != none:` before reading it")


def _zones_named(expr, tree: n.RulesFile) -> set[str]:
    """The zones an expression names when it is one zone (`bag`, `hand of player`), else none."""
    if isinstance(expr, n.Of):
        expr = expr.left
    keyed = {item.name for item in tree.items if isinstance(item, n.ZoneDecl) and item.keys}
    if isinstance(expr, n.Name) and expr.id in keyed:  # `discard`: a list of zones, not the pieces in them
        return set()
    if isinstance(expr, n.Index) and isinstance(expr.obj, n.Name):  # `row[2]`: a zone of one with keys
        expr = expr.obj if expr.obj.id in keyed else expr
    if isinstance(expr, n.Name):
        zones = {item.name for item in tree.items if isinstance(item, n.ZoneDecl) and not item.per_piece}
        return {expr.id} & zones
    return set()


# The syntax known to put no piece anywhere (Move, Draw and Create are read for their places).
# Names under any other node (syntax added later) count as places pieces may be put.
_PUTS_NOTHING = (
    n.Literal, n.EmptyLiteral, n.Name, n.Attribute, n.MethodCall, n.Call, n.Index, n.Of, n.Filter,
    n.Conditional, n.BoolOp, n.Not, n.Negate, n.Compare, n.Binary, n.ListExpr, n.Rule, n.Roll,
    n.Shuffle, n.Tally, n.Say, n.Let, n.Target, n.Assign, n.Break, n.Pass, n.EndTurn, n.AnotherTurn, n.EndGame, n.Do,
    n.TakeTurns, n.GiveTurn, n.Eliminate, n.Reveal, n.Doc, n.GameEnds, n.Criterion, n.If, n.Repeat, n.While, n.ForEach,
    n.Choose, n.ThenChoose, n.Branch, n.ChooseBranch, n.May, n.When, n.Section, n.ProcedureDecl,
    n.InvariantDecl, n.ShowDecl, n.DefineDecl, n.CounterDecl, n.ZoneDecl, n.OptionDecl, n.GameDecl,
    n.Extends, n.DieDecl, n.PieceDecl, n.Face, n.AttrDecl, n.Generator, n.TableColumn, n.TableRow,
    n.Table, n.ReplaceRule, n.RemoveRule, n.AddRule,
)


def _destinations(tree: n.RulesFile) -> set[str] | None:
    """The names in every place pieces are moved, drawn or created into; None when some place
    is not written with a zone's name (a variable, a define), so that it could be any zone."""
    zones = {item.name for item in tree.items if isinstance(item, n.ZoneDecl)}
    found: set[str] = set()
    for node in walk(tree.items):
        places = []
        if isinstance(node, (n.Move, n.Draw)):
            places = [node.to]
        elif isinstance(node, n.Create):
            places = [node.into]
        elif not isinstance(node, _PUTS_NOTHING):
            found |= {name.id for name in walk(node) if isinstance(name, n.Name)}
        for place in places:
            names = {name.id for name in walk(place) if isinstance(name, n.Name)}
            if not names & zones:
                return None
            found |= names
    return found


# The most work `never_runs` spends on one condition: option values tried times its size.
_MOST_CASES = 100_000
_UNKNOWN = object()


def _option_values(tree: n.RulesFile) -> dict[str, list]:
    """Every value each `true`/`false` option, or number option with a small range, may take;
    names that a rule also binds (let, for each, choose, parameters) are left out."""
    bound = {node.name for node in walk(tree.items) if isinstance(node, n.Let)}
    bound |= {node.var for node in walk(tree.items) if isinstance(node, (n.ForEach, n.Choose, n.ThenChoose))}
    values: dict[str, list] = {}
    for item in tree.items:
        if not isinstance(item, n.OptionDecl) or item.name in bound:
            continue
        if isinstance(item.default, bool):
            values[item.name] = [False, True]
        elif item.bounds is not None and item.bounds[1] - item.bounds[0] < 1000:
            values[item.name] = list(range(item.bounds[0], item.bounds[1] + 1))
    return values


def _always_false(cond, options: dict[str, list]) -> bool:
    """Whether a condition is `false` for every combination of the values of the names it reads."""
    nodes = list(walk(cond))
    names = sorted({node.id for node in nodes if isinstance(node, n.Name)})
    if any(name not in options for name in names):
        return False
    cases = len(nodes)  # the work: each case walks the condition once
    for name in names:
        cases *= len(options[name])
        if cases > _MOST_CASES:
            return False
    return all(_value(cond, dict(zip(names, combo, strict=True))) is False
               for combo in itertools.product(*(options[name] for name in names)))


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_LARGEST = 10 ** 30  # beyond it a product is not worked out (a chain of them would grow without end)


def _value(expr, env: dict):
    """The value of an expression of literals and known names, or _UNKNOWN."""
    if isinstance(expr, n.Literal):
        return expr.value
    if isinstance(expr, n.Name):
        return env.get(expr.id, _UNKNOWN)
    if isinstance(expr, n.Not):
        operand = _value(expr.operand, env)
        return (not operand) if isinstance(operand, bool) else _UNKNOWN
    if isinstance(expr, n.BoolOp):
        left, right = _value(expr.left, env), _value(expr.right, env)
        short = expr.op == "or"  # `or` is decided by a true side, `and` by a false one
        if left is short or right is short:
            return short
        return (not short) if left is (not short) and right is (not short) else _UNKNOWN
    if isinstance(expr, n.Negate):
        operand = _value(expr.operand, env)
        return -operand if _is_int(operand) else _UNKNOWN
    if isinstance(expr, (n.Compare, n.Binary)):
        table = _COMPARE if isinstance(expr, n.Compare) else _ARITH
        left, right = _value(expr.left, env), _value(expr.right, env)
        if expr.op not in table or _UNKNOWN in (left, right) or type(left) is not type(right):
            return _UNKNOWN
        if expr.op not in ("==", "!=") and not _is_int(left):
            return _UNKNOWN
        result = table[expr.op](left, right)
        return _UNKNOWN if _is_int(result) and abs(result) > _LARGEST else result
    return _UNKNOWN


@check("W427", "unused-variable")
def unused_variable(tree: n.RulesFile, used: set[str]) -> Iterator[Diagnostic]:
    """A variable made by `let` that no rule reads: the turn (or the procedure, or the
    triggered rule) where it is made never names it again, so its value is worked out for
    nothing. Often a leftover, or a slip in the name of what is read instead:

        let best = highest(hand of player)
        move first(hand of player) to table      # `best` meant?

    Remove the line, or read the variable where it was meant. (`x += 1` counts as a read.)"""
    for item in tree.items:
        if not isinstance(item, (n.Section, n.ProcedureDecl, n.Rule)):
            continue
        nodes = list(walk(item.body))
        read = {x.id for x in nodes if isinstance(x, n.Name)} | \
            {x.target.name for x in nodes if isinstance(x, n.Assign) and x.op != "="}
        reported: set[str] = set()
        for node in nodes:
            if isinstance(node, n.Let) and node.name not in read and node.name not in reported:
                reported.add(node.name)
                yield Diagnostic("W427", f"variable `{node.name}` is made here and never read", node.span,
                                 help="remove the line, or read the variable where it was meant")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


LINT_CHECKS = (unused_option, unused_zone, unused_define, undocumented_option, unused_procedure,
               unused_component, statement_after_end, shadowed_it, never_runs, choice_without_options,
               stop_can_only_fail, player_outside_a_turn, endless_loop, shared_owner_only_zone,
               shadowed_by_attribute, shadows_a_face, kinds_seen_face_down, face_label_twice, none_in_a_list,
               unused_parameter, none_after_otherwise, unused_variable)


def lint(tree: n.RulesFile) -> list[Diagnostic]:
    """All lint warnings of a merged file (warnings from a base file are not repeated)."""
    used = used_names(tree)
    found = [d for check_ in LINT_CHECKS for d in check_(tree, used)]
    return [d for d in found if d.span is None or d.span.path == tree.path]
