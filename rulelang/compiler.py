"""Compilation: a checked syntax tree to a GameDef, with names resolved to integers and
expressions turned into closures, so that a step of the runtime does no lookup by name."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from . import model as m
from . import nodes as n
from .diagnostics import Diagnostic, did_you_mean, register

register("E101", "unknown-name", """
A name that is not declared anywhere: not a zone, component, counter, option, define, local
variable, face label, attribute or built-in. The help line lists declared names that are
spelt alike.
""")
register("E102", "duplicate-name", """
Two declarations, or two rules, share a name. Every zone, component, counter, option,
define, procedure and rule needs its own name, so that variants and messages can refer to it.
""")
register("E103", "unknown-function", """
A call to a function that is neither built in (count, sum, max, min, highest, lowest, top,
bottom, first, last, distinct, subsets, any, all, seat, abs) nor a `define`.
""")
register("E104", "wrong-arguments", """
A function or define is called with the wrong number of arguments.
""")
register("E201", "wrong-type", """
A value of one type is used where another is needed, for instance a number where a zone is
expected (`move x to 3`), or `of` applied to something that is not a per-player zone or counter.
""")
register("E202", "needs-owner", """
A per-player zone or counter is named without saying whose: write `stack of player`,
`stack of others` or `score of seat(0)`.
""")
register("E301", "misplaced-statement", """
A statement stands where it has no meaning: `break` outside a loop, `game ends` outside the
`end` section, `most`/`least` outside the `winner` section, `end turn` in the set-up, or
`each player takes a turn` outside the `round` section.
""")
register("E302", "missing-section", """
A game needs a `turn` section (or a `round` section that says what a round is), and a
`winner` section that says who wins.
""")
register("E303", "invalid-declaration", """
A declaration that cannot be used as written: a player range whose minimum exceeds its
maximum, a zone with two visibilities, a die without faces, a recursive define.
""")

NUMERIC = {"int", "bool"}
COLLECTIONS = {"pieces", "zone", "zones", "values", "players", "subsets"}
SINGLE_FOR = {"pieces": "piece", "zone": "piece", "zones": "piece", "values": "any",
              "players": "player", "subsets": "pieces"}
BUILTIN_NAMES = ("player", "players", "others", "round_number", "turn_number", "player_count", "it")
FUNCTIONS = ("count", "sum", "max", "min", "highest", "lowest", "top", "bottom", "first", "last",
             "distinct", "subsets", "any", "all", "seat", "abs")

Fn = Callable[[Any, list], Any]


class CompileError(Exception):
    """Raised internally to abandon one expression after its diagnostic was recorded."""


class Scope:
    """Local names of a procedure being compiled: name -> (slot, type); and a filter element."""

    def __init__(self, parent: Scope | None = None, element: tuple[int, str] | None = None):
        self.parent = parent
        self.names: dict[str, tuple[int, str]] = {}
        self.element = element if element is not None else (parent.element if parent else None)

    def lookup(self, name: str) -> tuple[int, str] | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def all_names(self) -> list[str]:
        names, scope = [], self
        while scope is not None:
            names.extend(scope.names)
            scope = scope.parent
        return names


class Slots:
    """Allocates frame slots for one procedure."""

    def __init__(self):
        self.names: list[str] = []

    def new(self, name: str) -> int:
        self.names.append(name)
        return len(self.names) - 1


class Compiler:
    """Compiles one merged RulesFile (variants already applied) with given option values."""

    def __init__(self, tree: n.RulesFile, options: dict[str, Any]):
        self.tree = tree
        self.option_values = options
        self.diagnostics: list[Diagnostic] = []
        self.game: n.GameDecl | None = None
        self.options: dict[str, n.OptionDecl] = {}
        self.kinds: dict[str, n.DieDecl | n.PieceDecl] = {}
        self.zones: dict[str, n.ZoneDecl] = {}
        self.counters: dict[str, n.CounterDecl] = {}
        self.defines: dict[str, n.DefineDecl] = {}
        self.procedures: dict[str, n.ProcedureDecl] = {}
        self.sections: dict[str, n.Section] = {}
        self.invariants: list[n.InvariantDecl] = []
        self.rules: list[m.RuleDef] = []
        self.rule_names: dict[str, int] = {}
        self.face_labels: dict[Any, str] = {}
        self.attributes: list[str] = ["face", "value", "number", "kind"]
        self._expanding: list[str] = []
        self._collect()

    # ------------------------------------------------------------------ diagnostics
    def error(self, code: str, message: str, node: n.Node | None, help: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, message, node.span if node else None, help=help))

    # ------------------------------------------------------------------ declarations
    def _collect(self) -> None:
        seen: dict[str, n.Node] = {}

        def declare(name: str, node: n.Node, table: dict) -> None:
            if name in seen:
                first = seen[name].span
                self.diagnostics.append(Diagnostic(
                    "E102", f"`{name}` is declared twice", node.span,
                    notes=(f"first declared at {first.where()}",) if first else ()))
                return
            seen[name] = node
            table[name] = node

        for item in self.tree.items:
            if isinstance(item, n.GameDecl):
                self.game = item
            elif isinstance(item, n.OptionDecl):
                declare(item.name, item, self.options)
            elif isinstance(item, (n.DieDecl, n.PieceDecl)):
                declare(item.name, item, self.kinds)
            elif isinstance(item, n.ZoneDecl):
                declare(item.name, item, self.zones)
            elif isinstance(item, n.CounterDecl):
                declare(item.name, item, self.counters)
            elif isinstance(item, n.DefineDecl):
                declare(item.name, item, self.defines)
            elif isinstance(item, n.ProcedureDecl):
                declare(item.name, item, self.procedures)
            elif isinstance(item, n.Section):
                if item.kind in self.sections:
                    self.error("E102", f"a second `{item.kind}` section", item,
                               help="put all the rules of a section under one heading")
                else:
                    self.sections[item.kind] = item
            elif isinstance(item, n.InvariantDecl):
                self.invariants.append(item)
        for kind in self.kinds.values():
            if isinstance(kind, n.DieDecl):
                for face in kind.faces:
                    if isinstance(face.label, str):
                        self.face_labels.setdefault(face.label, kind.name)
            else:
                for generator in kind.generators:
                    self._add_attribute(generator.name)
            for attr in kind.attrs:
                self._add_attribute(attr.name)

    def _add_attribute(self, name: str) -> None:
        if name not in self.attributes:
            self.attributes.append(name)

    def _new_rule(self, name: str, node: n.Node, doc: str = "") -> int:
        if name in self.rule_names:
            first = self.rules[self.rule_names[name]]
            self.diagnostics.append(Diagnostic(
                "E102", f"a second rule named `{name}`", node.span,
                notes=(f"first rule `{name}` is at {first.where()}",),
                help="give each rule its own name"))
        span = node.span
        self.rules.append(m.RuleDef(name, span.path if span else "<unknown>", span.line if span else 0, doc))
        self.rule_names.setdefault(name, len(self.rules) - 1)
        return len(self.rules) - 1

    # ------------------------------------------------------------------ entry point
    def compile(self) -> m.GameDef | None:
        game = self.game or n.GameDecl("untitled")
        min_players = game.min_players or 1
        max_players = game.max_players or max(min_players, 1)
        if min_players > max_players:
            self.error("E303", f"the player range {min_players} to {max_players} is empty", game)
        options = self._compile_options()
        kinds = tuple(self._compile_kind(k) for k in self.kinds.values())
        zones = self._compile_zones()
        counters = self._compile_counters()
        self.kind_defs = {k.name: (i, k) for i, k in enumerate(kinds)}
        self.zone_defs = {z.name: z for z in zones}
        self.counter_defs = {c.name: c for c in counters}
        self.proc_index = {name: i for i, name in enumerate(
            ["main", "setup", "round", "turn"] + list(self.procedures))}
        procedures: list[m.Procedure | None] = [None] * len(self.proc_index)
        if "turn" not in self.sections and "round" not in self.sections:
            self.error("E302", "the game has no `turn` section", self.tree,
                       help="add `turn:` with the rules of one player's turn")
        if "winner" not in self.sections:
            self.error("E302", "the game has no `winner` section", self.tree,
                       help="add `winner:` with a rule such as `most sum(stack of player, worms)`")
        procedures[1] = self._compile_procedure("setup", self.sections.get("setup"), "setup")
        procedures[3] = self._compile_procedure("turn", self.sections.get("turn"), "turn")
        if "round" in self.sections:
            procedures[2] = self._compile_procedure("round", self.sections["round"], "round")
        else:
            procedures[2] = self._default_round()
        for name, decl in self.procedures.items():
            procedures[self.proc_index[name]] = self._compile_procedure(name, decl, "procedure")
        procedures[0] = self._main()
        ends = self._compile_checks(self.sections.get("end"), "end")
        criteria = self._compile_checks(self.sections.get("winner"), "winner")
        invariants = tuple(self._compile_invariant(inv) for inv in self.invariants)
        if any(d.is_error for d in self.diagnostics):
            return None
        return m.GameDef(
            name=game.name, path=self.tree.path, min_players=min_players, max_players=max_players,
            turn_limit=game.turn_limit or 10_000, options=options, attributes=tuple(self.attributes),
            kinds=kinds, zones=zones, counters=counters, rules=tuple(self.rules),
            procedures=tuple(procedures), main=0, ends=ends, criteria=criteria,
            invariants=invariants, doc=" ".join(game.doc))

    def _compile_options(self) -> tuple[m.OptionDef, ...]:
        result = []
        for decl in self.options.values():
            value = self.option_values.get(decl.name, decl.default)
            result.append(m.OptionDef(decl.name, decl.default, value, " ".join(decl.doc)))
        return tuple(result)

    def _compile_kind(self, decl: n.DieDecl | n.PieceDecl) -> m.KindDef:
        index = {name: i for i, name in enumerate(self.attributes)}
        static_attrs = decl.attrs
        if isinstance(decl, n.DieDecl):
            if not decl.faces:
                self.error("E303", f"die `{decl.name}` has no faces", decl)
            labels = tuple(f.label for f in decl.faces)
            values = tuple(f.value if f.value is not None else (f.label if isinstance(f.label, int) else 0)
                           for f in decl.faces)
            row = self._evaluate_attrs(decl, {}, static_attrs, index)
            return m.KindDef(decl.name, "die", labels, values, (row,), span=decl.span)
        combos = itertools.product(*(g.values for g in decl.generators)) if decl.generators else [()]
        rows = []
        for combo in combos:
            given = {g.name: v for g, v in zip(decl.generators, combo, strict=True)}
            rows.append(self._evaluate_attrs(decl, given, static_attrs, index))
        if decl.count is not None and not decl.generators:
            rows = rows * decl.count
        return m.KindDef(decl.name, decl.category, pieces=tuple(rows), span=decl.span)

    def _evaluate_attrs(self, decl, given: dict, attrs_: tuple, index: dict) -> tuple:
        values = dict(given)
        values["kind"] = decl.name
        for attr in attrs_:
            scope = Scope()
            slots = Slots()
            for name in values:
                scope.names[name] = (slots.new(name), "any")
            try:
                fn, _ = self.expr(attr.value, scope, slots)
                frame = [values[name] for name in slots.names[: len(values)]] + [None] * 8
                values[attr.name] = fn(None, frame)
            except CompileError:
                values[attr.name] = None
            except Exception as error:  # an attribute must compute from constants alone
                self.error("E201", f"attribute `{attr.name}` cannot be computed: {error}", attr)
                values[attr.name] = None
        row = [None] * len(self.attributes)
        for name, value in values.items():
            if name in index:
                row[index[name]] = value
        return tuple(row)

    def _compile_zones(self) -> tuple[m.ZoneDef, ...]:
        shared = [z for z in self.zones.values() if not z.per_player]
        per_player = [z for z in self.zones.values() if z.per_player]
        result = []
        for ordinal, z in enumerate(shared):
            result.append(self._zone_def(z, ordinal))
        for ordinal, z in enumerate(per_player):
            result.append(self._zone_def(z, ordinal))
        return tuple(result)

    def _zone_def(self, z: n.ZoneDecl, ordinal: int) -> m.ZoneDef:
        column = None
        if z.sort_key is not None:
            if z.sort_key not in self.attributes:
                self.error("E101", f"zone `{z.name}` is sorted by unknown attribute `{z.sort_key}`", z,
                           help=did_you_mean(z.sort_key, self.attributes))
            else:
                column = self.attributes.index(z.sort_key)
        return m.ZoneDef(z.name, z.per_player, z.kind, z.visibility, column, ordinal)

    def _compile_counters(self) -> tuple[m.CounterDef, ...]:
        shared = [c for c in self.counters.values() if not c.per_player]
        per_player = [c for c in self.counters.values() if c.per_player]
        result = []
        for group in (shared, per_player):
            for ordinal, c in enumerate(group):
                try:
                    fn, _ = self.expr(c.initial, Scope(), Slots())
                except CompileError:
                    fn = _const(0)
                result.append(m.CounterDef(c.name, c.per_player, fn, ordinal))
        return tuple(result)

    def _compile_invariant(self, inv: n.InvariantDecl) -> m.Check:
        rule = self._new_rule(inv.name, inv)
        slots = Slots()
        try:
            fn = self.truth(inv.cond, Scope(), slots)
        except CompileError:
            fn = _const(True)
        return m.Check(rule, fn, "invariant", len(slots.names), span=inv.span)

    def _compile_checks(self, section: n.Section | None, kind: str) -> tuple[m.Check, ...]:
        checks = []
        if section is None:
            return ()
        for stmt in section.body:
            if not isinstance(stmt, n.Rule):
                self.error("E301", f"the `{kind}` section holds named rules only", stmt,
                           help="write `rule name: ...`")
                continue
            rule = self._new_rule(stmt.name, stmt, _doc_of(stmt.body))
            for inner in stmt.body:
                if isinstance(inner, n.Doc):
                    continue
                slots = Slots()
                try:
                    if kind == "end" and isinstance(inner, n.GameEnds):
                        fn = self.truth(inner.cond, Scope(), slots)
                        checks.append(m.Check(rule, fn, "end-round" if inner.after_round else "end-turn",
                                              len(slots.names), span=inner.span))
                    elif kind == "winner" and isinstance(inner, n.Criterion):
                        fn, _ = self.expr(inner.value, Scope(), slots)
                        checks.append(m.Check(rule, fn, inner.direction, len(slots.names), span=inner.span))
                    else:
                        expected = "`game ends when ...`" if kind == "end" else "`most ...` or `least ...`"
                        self.error("E301", f"the `{kind}` section's rules hold {expected}", inner)
                except CompileError:
                    pass
        return tuple(checks)

    # ------------------------------------------------------------------ procedures
    def _main(self) -> m.Procedure:
        code = _Code(self, Slots(), "main", -1)
        code.emit(m.OP_CALL, self.proc_index["setup"])
        top = code.here()

        def next_round(st, fr):
            st.round_number += 1
            st.events.append((-1, "round", st.round_number))

        code.emit(m.OP_EXEC, next_round)
        code.emit(m.OP_CALL, self.proc_index["round"])
        code.emit(m.OP_CHECK_END, True)
        code.emit(m.OP_JUMP, top)
        return code.finish()

    def _default_round(self) -> m.Procedure:
        code = _Code(self, Slots(), "round", -1)
        self._emit_take_turns(code)
        code.emit(m.OP_RETURN)
        return code.finish()

    def _emit_take_turns(self, code: _Code) -> None:
        index = code.slots.new("(turn index)")

        def reset(st, fr):
            fr[index] = 0

        def choose_seat(st, fr):
            st.player = (st.first_player + fr[index]) % st.n
            fr[index] += 1

        code.emit(m.OP_EXEC, reset)
        top = code.here()
        end = code.label()
        code.emit(m.OP_JUMP_IF_NOT, lambda st, fr: fr[index] < st.n, end)
        code.emit(m.OP_EXEC, choose_seat)
        code.emit(m.OP_TURN, self.proc_index["turn"])
        code.emit(m.OP_CHECK_END, False)
        code.emit(m.OP_JUMP, top)
        code.place(end)

    def _compile_procedure(self, name: str, decl: n.Section | n.ProcedureDecl | None, kind: str) -> m.Procedure:
        code = _Code(self, Slots(), name, -1)
        code.section = kind
        if decl is not None:
            code.block(decl.body, Scope())
        code.emit(m.OP_RETURN)
        return code.finish()

    # ------------------------------------------------------------------ expressions
    def truth(self, node: n.Node, scope: Scope, slots: Slots) -> Fn:
        fn, kind = self.expr(node, scope, slots)
        return _truth(fn, kind)

    def expr(self, node: n.Node, scope: Scope, slots: Slots) -> tuple[Fn, str]:
        """Compile an expression to (closure(state, frame), type)."""
        method = getattr(self, "_x_" + type(node).__name__, None)
        if method is None:
            self.error("E201", f"{type(node).__name__} is not an expression", node)
            raise CompileError
        return method(node, scope, slots)

    def collection(self, node: n.Node, scope: Scope, slots: Slots) -> tuple[Fn, str]:
        """Compile an expression used as a collection: returns a closure giving a list."""
        fn, kind = self.expr(node, scope, slots)
        return _as_list(fn, kind), _collection_type(kind)

    def _x_Literal(self, node, scope, slots):
        value = node.value
        kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else \
            "none" if value is None else "str"
        return _const(value), kind

    def _x_EmptyLiteral(self, node, scope, slots):
        return (lambda st, fr: []), "values"

    def _x_ListExpr(self, node, scope, slots):
        parts = [self.expr(item, scope, slots) for item in node.items]
        fns = [fn for fn, _ in parts]
        kinds = {k for _, k in parts}
        kind = "pieces" if kinds <= {"piece"} and kinds else "players" if kinds == {"player"} else "values"

        def make(st, fr):
            return [v for v in (f(st, fr) for f in fns) if v is not None]

        return make, kind

    def _x_Name(self, node, scope, slots):
        name = node.id
        local = scope.lookup(name)
        if local is not None:
            slot, kind = local
            return (lambda st, fr: fr[slot]), kind
        if scope.element is not None:
            slot, element_kind = scope.element
            if name == "it":
                return (lambda st, fr: fr[slot]), element_kind
            if name in self.attributes and element_kind in ("piece", "any"):
                return _attribute_of_slot(self.attributes.index(name), name, slot), _attr_type(name)
        if name == "player":
            return (lambda st, fr: st.player), "player"
        if name == "players":
            return (lambda st, fr: list(range(st.n))), "players"
        if name == "others":
            return (lambda st, fr: [(st.player + i) % st.n for i in range(1, st.n)]), "players"
        if name == "round_number":
            return (lambda st, fr: st.round_number), "int"
        if name == "turn_number":
            return (lambda st, fr: st.turn_number), "int"
        if name == "player_count":
            return (lambda st, fr: st.n), "int"
        if name in self.options:
            value = self.option_values.get(name, self.options[name].default)
            return _const(value), "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "str"
        if name in self.defines:
            return self._expand_define(self.defines[name], (), node, scope, slots)
        if name in self.zones:
            zone = self.zone_defs[name]
            if zone.per_player:
                self.error("E202", f"`{name}` is a zone of each player; say whose", node,
                           help=f"write `{name} of player` or `{name} of others`")
                raise CompileError
            ordinal = zone.ordinal
            return _const(ordinal), "zone"
        if name in self.kinds:
            kind_index = self.kind_defs[name][0]
            return (lambda st, fr: st.pieces.by_kind[kind_index]), "pieces"
        if name in self.counters:
            counter = self.counter_defs[name]
            if counter.per_player:
                self.error("E202", f"`{name}` is a counter of each player; say whose", node,
                           help=f"write `{name} of player`")
                raise CompileError
            ordinal = counter.ordinal
            return (lambda st, fr: st.counters[ordinal]), "int"
        if name in self.face_labels:
            return _const(name), "label"
        if name == "it":
            self.error("E101", "`it` is used outside a `where` filter", node,
                       help="`it` names the item being tested in `items where ...`")
            raise CompileError
        self.error("E101", f"unknown name `{name}`", node, help=did_you_mean(name, self._known_names(scope)))
        raise CompileError

    def _known_names(self, scope: Scope) -> list[str]:
        names = list(scope.all_names()) + list(BUILTIN_NAMES)
        for table in (self.options, self.defines, self.zones, self.kinds, self.counters, self.face_labels):
            names.extend(table)
        if scope.element is not None:
            names.extend(self.attributes)
        return names

    def _expand_define(self, decl: n.DefineDecl, args: tuple, node, scope, slots):
        params = decl.params or ()
        if len(args) != len(params):
            self.error("E104", f"`{decl.name}` takes {len(params)} argument(s), not {len(args)}", node)
            raise CompileError
        if decl.name in self._expanding:
            self.error("E303", f"define `{decl.name}` refers to itself", node)
            raise CompileError
        inner = Scope(None, element=None)
        setters = []
        for param, arg in zip(params, args, strict=True):
            fn, kind = self.expr(arg, scope, slots)
            slot = slots.new(f"({decl.name}.{param})")
            inner.names[param] = (slot, kind)
            setters.append((slot, fn))
        self._expanding.append(decl.name)
        try:
            body, kind = self.expr(decl.value, inner, slots)
        finally:
            self._expanding.pop()
        if not setters:
            return body, kind

        def call(st, fr):
            for slot, fn in setters:
                fr[slot] = fn(st, fr)
            return body(st, fr)

        return call, kind

    def _x_Attribute(self, node, scope, slots):
        obj, kind = self.expr(node.obj, scope, slots)
        if node.name not in self.attributes:
            self.error("E101", f"unknown attribute `{node.name}`", node,
                       help=did_you_mean(node.name, self.attributes))
            raise CompileError
        column = self.attributes.index(node.name)
        get = _attribute_getter(column, node.name)
        if kind in ("piece", "any"):
            def one(st, fr):
                p = obj(st, fr)
                return None if p is None else get(st, p)
            return one, _attr_type(node.name)
        if kind in ("pieces", "zone", "zones"):
            items = _as_list(obj, kind)
            return (lambda st, fr: [get(st, p) for p in items(st, fr)]), "values"
        self.error("E201", f"`.{node.name}` needs a piece or a collection of pieces, not {_a(kind)}", node)
        raise CompileError

    def _x_Of(self, node, scope, slots):
        if not isinstance(node.left, n.Name) or (node.left.id not in self.zones and node.left.id not in self.counters):
            self.error("E201", "`of` follows the name of a per-player zone or counter", node.left,
                       help=did_you_mean(getattr(node.left, "id", ""), list(self.zones) + list(self.counters)))
            raise CompileError
        owner, owner_kind = self.expr(node.right, scope, slots)
        name = node.left.id
        if owner_kind not in ("player", "players", "any"):
            self.error("E201", f"`{name} of ...` needs a player or players, not {_a(owner_kind)}", node.right)
            raise CompileError
        if name in self.zones:
            zone = self.zone_defs[name]
            if not zone.per_player:
                self.error("E201", f"`{name}` is a shared zone; it has no owner", node,
                           help=f"write just `{name}`")
                raise CompileError
            ordinal = zone.ordinal
            if owner_kind == "players":
                return (lambda st, fr: [st.zone_base + ordinal * st.n + p for p in owner(st, fr)]), "zones"
            return (lambda st, fr: st.zone_base + ordinal * st.n + owner(st, fr)), "zone"
        counter = self.counter_defs[name]
        if not counter.per_player:
            self.error("E201", f"`{name}` is a shared counter; it has no owner", node, help=f"write just `{name}`")
            raise CompileError
        ordinal = counter.ordinal
        if owner_kind == "players":
            return (lambda st, fr: [st.counters[st.counter_base + ordinal * st.n + p] for p in owner(st, fr)]), "values"
        return (lambda st, fr: st.counters[st.counter_base + ordinal * st.n + owner(st, fr)]), "int"

    def _x_Filter(self, node, scope, slots):
        source, kind = self.collection(node.source, scope, slots)
        element_kind = SINGLE_FOR.get(kind, "any")
        slot = slots.new("(item)")
        inner = Scope(scope, element=(slot, element_kind))
        cond = self.truth(node.cond, inner, slots)

        def keep(st, fr):
            out = []
            for item in source(st, fr):
                fr[slot] = item
                if cond(st, fr):
                    out.append(item)
            return out

        return keep, kind

    def _x_Conditional(self, node, scope, slots):
        cond = self.truth(node.cond, scope, slots)
        then, then_kind = self.expr(node.then, scope, slots)
        other, other_kind = self.expr(node.otherwise, scope, slots)
        kind = then_kind if then_kind == other_kind or other_kind == "none" else \
            other_kind if then_kind == "none" else "any"
        return (lambda st, fr: then(st, fr) if cond(st, fr) else other(st, fr)), kind

    def _x_BoolOp(self, node, scope, slots):
        left = self.truth(node.left, scope, slots)
        right = self.truth(node.right, scope, slots)
        if node.op == "and":
            return (lambda st, fr: left(st, fr) and right(st, fr)), "bool"
        return (lambda st, fr: left(st, fr) or right(st, fr)), "bool"

    def _x_Not(self, node, scope, slots):
        operand = self.truth(node.operand, scope, slots)
        return (lambda st, fr: not operand(st, fr)), "bool"

    def _x_Negate(self, node, scope, slots):
        operand, kind = self.expr(node.operand, scope, slots)
        self._need_number(kind, node.operand, "`-`")
        return (lambda st, fr: -operand(st, fr)), "int"

    def _need_number(self, kind: str, node: n.Node, what: str) -> None:
        if kind not in NUMERIC and kind not in ("any", "label"):
            self.error("E201", f"{what} needs a number, not {_a(kind)}", node)
            raise CompileError

    def _x_Compare(self, node, scope, slots):
        op = node.op
        if op in ("in", "not in"):
            left, _ = self.expr(node.left, scope, slots)
            right, right_kind = self.expr(node.right, scope, slots)
            if right_kind not in COLLECTIONS and right_kind != "any":
                self.error("E201", f"`{op}` needs a collection on its right, not {_a(right_kind)}", node.right)
                raise CompileError
            items = _as_list(right, right_kind)
            if op == "in":
                return (lambda st, fr: left(st, fr) in items(st, fr)), "bool"
            return (lambda st, fr: left(st, fr) not in items(st, fr)), "bool"
        if op in ("is", "is not") and isinstance(node.right, n.EmptyLiteral):
            items, _ = self.collection(node.left, scope, slots)
            if op == "is":
                return (lambda st, fr: not items(st, fr)), "bool"
            return (lambda st, fr: bool(items(st, fr))), "bool"
        left, left_kind = self._comparand(node.left, node.right, scope, slots)
        right, right_kind = self._comparand(node.right, node.left, scope, slots)
        if left_kind in ("zone", "zones") or right_kind in ("zone", "zones"):
            left, right = _as_list(left, left_kind), _as_list(right, right_kind)
        if op in ("==", "is"):
            return (lambda st, fr: left(st, fr) == right(st, fr)), "bool"
        if op in ("!=", "is not"):
            return (lambda st, fr: left(st, fr) != right(st, fr)), "bool"
        for kind, side in ((left_kind, node.left), (right_kind, node.right)):
            self._need_number(kind, side, f"`{op}`")
        compare = {"<": _lt, "<=": _le, ">": _gt, ">=": _ge}[op]
        return (lambda st, fr: compare(left(st, fr), right(st, fr))), "bool"

    def _comparand(self, node, other, scope, slots):
        # `kind == red_die` compares with the kind's name, not with its pieces.
        if isinstance(node, n.Name) and node.id in self.kinds and scope.lookup(node.id) is None:
            if isinstance(other, n.Name) and other.id == "kind" or \
                    isinstance(other, n.Attribute) and other.name == "kind":
                return _const(node.id), "str"
        return self.expr(node, scope, slots)

    def _x_Binary(self, node, scope, slots):
        left, left_kind = self.expr(node.left, scope, slots)
        right, right_kind = self.expr(node.right, scope, slots)
        if node.op == "+" and (left_kind in COLLECTIONS or right_kind in COLLECTIONS):
            a, b = _as_list(left, left_kind), _as_list(right, right_kind)
            kinds = {_collection_type(left_kind), _collection_type(right_kind)} - {"values"}
            kind = kinds.pop() if len(kinds) == 1 else "values"
            return (lambda st, fr: a(st, fr) + b(st, fr)), kind
        self._need_number(left_kind, node.left, f"`{node.op}`")
        self._need_number(right_kind, node.right, f"`{node.op}`")
        operation = {"+": _add, "-": _sub, "*": _mul, "/": _div, "%": _mod}[node.op]
        return (lambda st, fr: operation(left(st, fr), right(st, fr))), "int"

    def _x_Index(self, node, scope, slots):
        items, kind = self.collection(node.obj, scope, slots)
        index, _ = self.expr(node.index, scope, slots)

        def at(st, fr):
            values = items(st, fr)
            i = index(st, fr)
            return values[i] if -len(values) <= i < len(values) else None

        return at, SINGLE_FOR.get(kind, "any")

    def _x_Call(self, node, scope, slots):
        name = node.func
        if name in self.defines:
            return self._expand_define(self.defines[name], node.args, node, scope, slots)
        if name not in FUNCTIONS:
            self.error("E103", f"unknown function `{name}`", node,
                       help=did_you_mean(name, list(FUNCTIONS) + list(self.defines)))
            raise CompileError
        args = node.args
        arity = {"seat": (1, 1), "abs": (1, 1), "top": (1, 1), "bottom": (1, 1), "first": (1, 1),
                 "last": (1, 1), "distinct": (1, 1), "subsets": (1, 1)}.get(name, (1, 2))
        if not arity[0] <= len(args) <= arity[1]:
            expected = str(arity[0]) if arity[0] == arity[1] else f"{arity[0]} or {arity[1]}"
            self.error("E104", f"`{name}` takes {expected} argument(s), not {len(args)}", node)
            raise CompileError
        if name == "seat":
            index, _ = self.expr(args[0], scope, slots)
            return (lambda st, fr: index(st, fr) % st.n), "player"
        if name == "abs":
            value, kind = self.expr(args[0], scope, slots)
            return (lambda st, fr: abs(value(st, fr))), "int"
        if name in ("top", "bottom"):
            zone, kind = self.expr(args[0], scope, slots)
            position = -1 if name == "top" else 0
            if kind == "zone":
                def end_of(st, fr):
                    pieces = st.zones[zone(st, fr)]
                    return pieces[position] if pieces else None
                return end_of, "piece"
            if kind == "zones":
                def ends_of(st, fr):
                    return [st.zones[z][position] for z in zone(st, fr) if st.zones[z]]
                return ends_of, "pieces"
            self.error("E201", f"`{name}` needs a zone, not {_a(kind)}", args[0])
            raise CompileError
        items, kind = self.collection(args[0], scope, slots)
        element = SINGLE_FOR.get(kind, "any")
        if name in ("first", "last"):
            position = 0 if name == "first" else -1
            return (lambda st, fr: (items(st, fr) or [None])[position]), element
        if name == "distinct":
            return (lambda st, fr: list(dict.fromkeys(items(st, fr)))), kind
        if name == "subsets":
            return (lambda st, fr: _subsets(st, items(st, fr))), "subsets"
        key = None
        if len(args) == 2:
            slot = slots.new("(item)")
            inner = Scope(scope, element=(slot, element))
            if name in ("any", "all", "count"):
                test = self.truth(args[1], inner, slots)
            else:
                test, _ = self.expr(args[1], inner, slots)

            def key(st, fr, item, test=test, slot=slot):
                fr[slot] = item
                return test(st, fr)
        elif element == "piece":
            value_column = 1 if name in ("sum", "max", "min") else 2  # value; or number for highest

            def key(st, fr, item, column=value_column):
                return st.dynamic[column][item] if column != 2 or st.dynamic[2][item] is not None \
                    else st.dynamic[1][item]
        if name == "count":
            if key is None:
                return (lambda st, fr: len(items(st, fr))), "int"
            return (lambda st, fr: sum(1 for i in items(st, fr) if key(st, fr, i))), "int"
        if name in ("any", "all"):
            if key is None:
                self.error("E104", f"`{name}` takes a collection and a condition", node)
                raise CompileError
            if name == "any":
                return (lambda st, fr: any(key(st, fr, i) for i in items(st, fr))), "bool"
            return (lambda st, fr: all(key(st, fr, i) for i in items(st, fr))), "bool"
        if key is None:
            def key(st, fr, item):
                return item
        if name == "sum":
            return (lambda st, fr: sum(_number(key(st, fr, i)) for i in items(st, fr))), "int"
        if name in ("max", "min"):
            pick = max if name == "max" else min

            def extreme(st, fr):
                values = [v for v in (key(st, fr, i) for i in items(st, fr)) if v is not None]
                return pick(values) if values else None

            return extreme, "int"
        # highest / lowest: the item with the greatest / least key (the first one on ties)
        best = max if name == "highest" else min

        def extreme_item(st, fr):
            candidates = [(key(st, fr, i), i) for i in items(st, fr)]
            candidates = [c for c in candidates if c[0] is not None]
            if not candidates:
                return None
            target = best(c[0] for c in candidates)
            return next(i for k, i in candidates if k == target)

        return extreme_item, element


class _Code:
    """Emits the instructions of one procedure; knows the enclosing rule and loops."""

    def __init__(self, compiler: Compiler, slots: Slots, name: str, rule: int):
        self.compiler = compiler
        self.slots = slots
        self.name = name
        self.rule = rule
        self.section = "main"
        self.code: list[list] = []
        self.spans: list = []
        self.loop_ends: list[list] = []
        self._span = None

    def emit(self, op: int, a: Any = None, b: Any = None) -> int:
        self.code.append([op, a, b, self.rule])
        self.spans.append(self._span)
        return len(self.code) - 1

    def here(self) -> int:
        return len(self.code)

    def label(self) -> list:
        return [None]  # patched by place()

    def place(self, label: list) -> None:
        label[0] = len(self.code)

    def finish(self) -> m.Procedure:
        code = []
        for op, a, b, rule in self.code:
            a = a[0] if isinstance(a, list) and op in (m.OP_JUMP,) else a
            b = b[0] if isinstance(b, list) else b
            if op == m.OP_CHOOSE and isinstance(a, dict):
                a = m.ChoiceSpec(**{**a, "otherwise": a["otherwise"][0] if a["otherwise"] else -1})
            if op == m.OP_BRANCH:
                a = m.BranchSpec(tuple((label, cond, target[0]) for label, cond, target in a[0]), a[1], a[2])
            code.append((op, a, b, rule))
        return m.Procedure(self.name, tuple(code), tuple(self.spans), len(self.slots.names),
                           tuple(self.slots.names))

    # -- statements
    def block(self, body: tuple, scope: Scope) -> None:
        for stmt in body:
            self._span = stmt.span
            method = getattr(self, "_s_" + type(stmt).__name__, None)
            if method is None:
                self.compiler.error("E301", f"{_describe_stmt(stmt)} cannot stand here", stmt)
                continue
            try:
                method(stmt, scope)
            except CompileError:
                pass

    def expr(self, node, scope):
        return self.compiler.expr(node, scope, self.slots)

    def truth(self, node, scope):
        return self.compiler.truth(node, scope, self.slots)

    def _s_Doc(self, stmt, scope):
        pass

    def _s_Pass(self, stmt, scope):
        pass

    def _s_Rule(self, stmt, scope):
        outer = self.rule
        self.rule = self.compiler._new_rule(stmt.name, stmt, _doc_of(stmt.body))
        self.block(stmt.body, scope)
        self.rule = outer

    def _s_Roll(self, stmt, scope):
        dice, kind = self.compiler.collection(stmt.dice, scope, self.slots)
        if kind not in ("pieces", "any"):
            self.compiler.error("E201", f"`roll` needs dice, not {_a(kind)}", stmt.dice)
            raise CompileError
        self.emit(m.OP_ROLL, dice)

    def _s_Move(self, stmt, scope):
        what, kind = self.expr(stmt.what, scope)
        to, to_kind = self.expr(stmt.to, scope)
        if to_kind != "zone":
            self.compiler.error("E201", f"`move ... to` needs a zone, not {_a(to_kind)}", stmt.to,
                                help="for a player's zone write `stack of player`")
            raise CompileError
        if kind not in ("piece", "pieces", "zone", "zones", "any"):
            self.compiler.error("E201", f"`move` needs pieces, not {_a(kind)}", stmt.what)
            raise CompileError
        pieces = _as_list(what, kind)
        at_bottom = stmt.place == "bottom"
        rule = self.rule

        def move(st, fr):
            chosen = list(pieces(st, fr))
            if chosen:
                st.move(chosen, to(st, fr), at_bottom, rule)

        self.emit(m.OP_EXEC, move)

    def _s_Create(self, stmt, scope):
        if stmt.kind not in self.compiler.kinds:
            self.compiler.error("E101", f"unknown component `{stmt.kind}`", stmt,
                                help=did_you_mean(stmt.kind, self.compiler.kinds))
            raise CompileError
        kind_index, _ = self.compiler.kind_defs[stmt.kind]
        count = self.expr(stmt.count, scope)[0] if stmt.count is not None else None
        into, into_kind = self.expr(stmt.into, scope)
        if into_kind != "zone":
            self.compiler.error("E201", f"`create ... in` needs a zone, not {_a(into_kind)}", stmt.into)
            raise CompileError
        rule = self.rule

        def create(st, fr):
            st.create(kind_index, None if count is None else count(st, fr), into(st, fr), rule)

        self.emit(m.OP_EXEC, create)

    def _s_Let(self, stmt, scope):
        value, kind = self.expr(stmt.value, scope)
        if stmt.name in scope.names:
            slot = scope.names[stmt.name][0]
        else:
            slot = self.slots.new(stmt.name)
        scope.names[stmt.name] = (slot, kind)
        self.emit(m.OP_EXEC, _store(slot, value, kind))

    def _s_Assign(self, stmt, scope):
        target = stmt.target
        value, kind = self.expr(stmt.value, scope)
        local = scope.lookup(target.name)
        if local is not None and target.owner is None:
            slot, old_kind = local
            if stmt.op != "=":
                value = _combine(stmt.op, lambda st, fr, s=slot: fr[s], value)
            self.emit(m.OP_EXEC, _store(slot, value, kind))
            return
        if target.name not in self.compiler.counters:
            self.compiler.error("E101", f"`{target.name}` is neither a variable nor a counter", target,
                                help=did_you_mean(target.name, scope.all_names() + list(self.compiler.counters))
                                or "declare variables with `let name = value`")
            raise CompileError
        counter = self.compiler.counter_defs[target.name]
        ordinal = counter.ordinal
        rule = self.rule
        if counter.per_player:
            if target.owner is None:
                self.compiler.error("E202", f"`{target.name}` is a counter of each player; say whose", target,
                                    help=f"write `{target.name} of player`")
                raise CompileError
            owner, _ = self.expr(target.owner, scope)

            def index(st, fr):
                return st.counter_base + ordinal * st.n + owner(st, fr)
        else:
            def index(st, fr):
                return ordinal
        op = stmt.op

        def assign(st, fr):
            i = index(st, fr)
            new = value(st, fr)
            if op == "+=":
                new = st.counters[i] + new
            elif op == "-=":
                new = st.counters[i] - new
            st.set_counter(i, new, rule)

        self.emit(m.OP_EXEC, assign)

    def _s_Break(self, stmt, scope):
        if not self.loop_ends:
            self.compiler.error("E301", "`break` outside a loop", stmt,
                                help="`break` leaves the innermost `repeat`, `while` or `for each`")
            return
        self.emit(m.OP_JUMP, self.loop_ends[-1])

    def _s_EndTurn(self, stmt, scope):
        if self.section in ("setup", "round"):
            self.compiler.error("E301", f"`end turn` in the `{self.section}` section", stmt)
            return
        self.emit(m.OP_END_TURN)

    def _s_EndGame(self, stmt, scope):
        self.emit(m.OP_END_GAME)

    def _s_Do(self, stmt, scope):
        if stmt.name not in self.compiler.procedures:
            self.compiler.error("E101", f"unknown procedure `{stmt.name}`", stmt,
                                help=did_you_mean(stmt.name, self.compiler.procedures))
            return
        self.emit(m.OP_CALL, self.compiler.proc_index[stmt.name])

    def _s_TakeTurns(self, stmt, scope):
        if self.section != "round":
            self.compiler.error("E301", "`each player takes a turn` belongs in the `round` section", stmt)
            return
        self.compiler._emit_take_turns(self)

    def _s_GameEnds(self, stmt, scope):
        self.compiler.error("E301", "`game ends when ...` belongs in the `end` section", stmt,
                            help="to end the game from here, write `end game`")

    def _s_Criterion(self, stmt, scope):
        self.compiler.error("E301", f"`{stmt.direction} ...` belongs in the `winner` section", stmt)

    def _s_If(self, stmt, scope):
        end = self.label()
        for cond_node, body in stmt.branches:
            self._span = cond_node.span
            cond = self.truth(cond_node, scope)
            next_branch = self.label()
            self.emit(m.OP_JUMP_IF_NOT, cond, next_branch)
            self.block(body, Scope(scope))
            self.emit(m.OP_JUMP, end)
            self.place(next_branch)
        if stmt.otherwise:
            self.block(stmt.otherwise, Scope(scope))
        self.place(end)

    def _loop(self, body, scope, cond=None) -> None:
        top = self.here()
        end = self.label()
        if cond is not None:
            self.emit(m.OP_JUMP_IF_NOT, cond, end)
        self.loop_ends.append(end)
        self.block(body, Scope(scope))
        self.loop_ends.pop()
        self.emit(m.OP_JUMP, top)
        self.place(end)

    def _s_Repeat(self, stmt, scope):
        self._loop(stmt.body, scope)

    def _s_While(self, stmt, scope):
        self._loop(stmt.body, scope, self.truth(stmt.cond, scope))

    def _s_ForEach(self, stmt, scope):
        items, kind = self.compiler.collection(stmt.items, scope, self.slots)
        list_slot = self.slots.new("(for items)")
        var_slot = self.slots.new(stmt.var)

        def start(st, fr):
            fr[list_slot] = list(items(st, fr))

        def step(st, fr):
            pending = fr[list_slot]
            if not pending:
                return False
            fr[var_slot] = pending[0]
            fr[list_slot] = pending[1:]
            return True

        self.emit(m.OP_EXEC, start)
        inner = Scope(scope)
        inner.names[stmt.var] = (var_slot, SINGLE_FOR.get(kind, "any"))
        self._loop(stmt.body, inner, step)

    def _chooser(self, node, scope):
        if node is None:
            return None
        fn, kind = self.expr(node, scope)
        if kind not in ("player", "any"):
            self.compiler.error("E201", f"`by` needs a player, not {_a(kind)}", node)
            raise CompileError
        return fn

    def _s_Choose(self, stmt, scope):
        options, kind = self.compiler.collection(stmt.options, scope, self.slots)
        element = SINGLE_FOR.get(kind, "any")
        slot = scope.names[stmt.var][0] if stmt.var in scope.names else self.slots.new(stmt.var)
        scope.names[stmt.var] = (slot, element)
        # The condition sees the option under its name and, like `where`, its attributes.
        where = self.truth(stmt.where, Scope(scope, element=(slot, element))) if stmt.where is not None else None
        chooser = self._chooser(stmt.chooser, scope)
        otherwise = self.label() if stmt.otherwise is not None else None
        spec = {
            "options": options, "where": where, "slot": slot, "test_slot": slot, "chooser": chooser,
            "prompt": stmt.prompt or f"choose {stmt.var}", "describe": _describer(element),
            "to_json": _jsoner(element), "otherwise": otherwise,
        }
        self.emit(m.OP_CHOOSE, spec)
        if otherwise is not None:
            after = self.label()
            self.emit(m.OP_JUMP, after)
            self.place(otherwise)
            self.block(stmt.otherwise, Scope(scope))
            self.place(after)

    def _s_ChooseBranch(self, stmt, scope):
        chooser = self._chooser(stmt.chooser, scope)
        end = self.label()
        branches = []
        index = self.emit(m.OP_BRANCH, None)
        for branch in stmt.branches:
            cond = self.truth(branch.cond, scope) if branch.cond is not None else None
            target = self.label()
            branches.append((branch.label, cond, target))
            self.place(target)
            self._span = branch.span
            self.block(branch.body, Scope(scope))
            self.emit(m.OP_JUMP, end)
        self.place(end)
        self.code[index][1] = (branches, chooser, stmt.prompt or "choose")


# ---------------------------------------------------------------------- helpers


def _doc_of(body: tuple) -> str:
    return body[0].text if body and isinstance(body[0], n.Doc) else ""


def _describe_stmt(stmt) -> str:
    return {"Extends": "`extends`", "GameDecl": "`game`"}.get(type(stmt).__name__, type(stmt).__name__)


def _a(kind: str) -> str:
    words = {"int": "a number", "bool": "a true/false value", "str": "a string", "label": "a face label",
             "none": "none", "piece": "a piece", "pieces": "a collection of pieces", "zone": "a zone",
             "zones": "several zones", "values": "a list of values", "player": "a player",
             "players": "a list of players", "subsets": "a list of groups", "any": "a value"}
    return words.get(kind, kind)


def _const(value):
    return lambda st, fr: value


def _attr_type(name: str) -> str:
    return {"face": "label", "value": "int", "number": "int", "kind": "str"}.get(name, "any")


def _attribute_getter(column: int, name: str):
    if name in ("face", "value", "number"):
        dynamic = ("face", "value", "number").index(name)
        return lambda st, p: st.dynamic[dynamic][p]
    return lambda st, p: st.pieces.columns[column][p]


def _attribute_of_slot(column: int, name: str, slot: int):
    if name in ("face", "value", "number"):
        dynamic = ("face", "value", "number").index(name)
        return lambda st, fr: st.dynamic[dynamic][fr[slot]]
    return lambda st, fr: st.pieces.columns[column][fr[slot]]


def _as_list(fn, kind: str):
    if kind == "zone":
        return lambda st, fr: st.zones[fn(st, fr)]
    if kind == "zones":
        def gather(st, fr):
            out = []
            for z in fn(st, fr):
                out.extend(st.zones[z])
            return out
        return gather
    if kind in ("pieces", "values", "players", "subsets"):
        return fn
    if kind == "any":
        def loose(st, fr):
            value = fn(st, fr)
            return value if isinstance(value, list) else [] if value is None else [value]
        return loose
    return lambda st, fr: [] if (value := fn(st, fr)) is None else [value]


def _collection_type(kind: str) -> str:
    if kind in ("zone", "zones", "piece"):
        return "pieces"
    if kind == "player":
        return "players"
    if kind in COLLECTIONS:
        return kind
    return "values"


def _truth(fn, kind: str):
    if kind == "bool":
        return fn
    if kind in ("piece", "player", "label", "none", "str"):
        return lambda st, fr: fn(st, fr) is not None
    if kind == "int":
        return lambda st, fr: bool(fn(st, fr))
    if kind == "zone":
        return lambda st, fr: bool(st.zones[fn(st, fr)])
    if kind == "zones":
        return lambda st, fr: any(st.zones[z] for z in fn(st, fr))
    if kind in COLLECTIONS:
        return lambda st, fr: bool(fn(st, fr))

    def loose(st, fr):
        value = fn(st, fr)
        return bool(value) if isinstance(value, (list, bool)) else value is not None

    return loose


def _store(slot: int, value, kind: str):
    def store(st, fr):
        fr[slot] = value(st, fr)
    return store


def _combine(op: str, old, value):
    if op == "+=":
        return lambda st, fr: old(st, fr) + value(st, fr)
    return lambda st, fr: old(st, fr) - value(st, fr)


def _number(value):
    return 0 if value is None or isinstance(value, str) else value


def _add(a, b):
    return a + b


def _sub(a, b):
    return a - b


def _mul(a, b):
    return a * b


def _div(a, b):
    return a // b


def _mod(a, b):
    return a % b


def _lt(a, b):
    return a is not None and b is not None and a < b


def _le(a, b):
    return a is not None and b is not None and a <= b


def _gt(a, b):
    return a is not None and b is not None and a > b


def _ge(a, b):
    return a is not None and b is not None and a >= b


def _subsets(st, pieces: list) -> list[list[int]]:
    """Every distinct non-empty group of pieces; dice of one kind showing one face are alike."""
    groups: dict[tuple, list[int]] = {}
    for p in pieces:
        groups.setdefault((st.pieces.kind[p], st.dynamic[0][p]), []).append(p)
    keys = list(groups)
    result = []
    for counts in itertools.product(*(range(len(groups[k]) + 1) for k in keys)):
        if any(counts):
            chosen = []
            for k, c in zip(keys, counts, strict=True):
                chosen.extend(groups[k][:c])
            result.append(chosen)
    result.sort(key=len)
    return result


def _describer(element: str):
    if element == "piece":
        return lambda st, p: st.describe_piece(p, where=True)
    if element == "pieces":
        return lambda st, ps: st.describe_group(ps)
    if element == "player":
        return lambda st, p: f"player {p + 1}"
    return lambda st, v: str(v)


def _jsoner(element: str):
    if element == "piece":
        return lambda st, p: st.piece_json(p)
    if element == "pieces":
        return lambda st, ps: [st.piece_json(p) for p in ps]
    if element == "player":
        return lambda st, p: {"seat": p}
    return lambda st, v: v


def compile_game(tree: n.RulesFile, options: dict[str, Any] | None = None) -> tuple[m.GameDef | None, list[Diagnostic]]:
    """Compile a merged syntax tree; returns the definition (None on errors) and diagnostics."""
    compiler = Compiler(tree, options or {})
    game = compiler.compile()
    return game, compiler.diagnostics
