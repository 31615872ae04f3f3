"""Which zones' order a rules file may read.

Most zones are bags to the rules: `sum(kept)`, `kept.face`, `count(cup)`, `move kept to cup`
read what a zone holds, never in which order. Two states whose zones hold the same pieces in
another order then play on alike, which `rulelang analyze` uses to value each only once.

A zone's order is read when the zone's pieces reach (through variables, defines, parameters
and filters) an operation whose result depends on order:
- `first`, `last`, `top`, `bottom`, `highest`, `lowest` (the first on ties), `sorted` (equal
  keys keep their order), `position` and `runs`, on their collection;
- an index `C[i]`, a `for each` loop, `draw` and `shuffle`;
- `==` or `!=` between collections (the compiler lists those comparisons);
- a `move` into a zone whose order is read (the pieces arrive in their order).
The reading is cautious: a name is followed through every place it is given a value, whatever
the scope; `moved` in a triggered rule is anything any move or draw moves; and `it` where no
collection defines it counts as every zone.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from . import nodes as n

ORDER_FUNCTIONS = frozenset({"first", "last", "top", "bottom", "highest", "lowest", "sorted", "position", "runs"})
# Functions whose result is a number, a truth value or text: no order goes through them.
SCALAR_FUNCTIONS = frozenset({"count", "sum", "max", "min", "any", "all", "pairs", "abs", "seat", "owner",
                              "text", "range"})
EVERY = "*"  # stands for every zone


def zones_whose_order_is_read(tree: n.RulesFile, collection_compares: Iterable[n.Node] = ()) -> frozenset[str] | None:
    """The names of the zones of ``tree`` whose order some rule may read (see the module), all
    of them when a name cannot be traced; ``collection_compares`` are the `==`/`!=` nodes the
    compiler found comparing collections. None (every zone, as for a game not worked out) when
    the names go too deep to follow: thousands of variables each made from the last."""
    try:
        return _OrderReads(tree, frozenset(collection_compares)).result()
    except RecursionError:
        return None


class _OrderReads:
    def __init__(self, tree: n.RulesFile, compares: frozenset[n.Node]):
        self.zones = {item.name for item in tree.items if isinstance(item, n.ZoneDecl)}
        # zones declared with keys: `row[2]` picks one of them by its key, which reads no order
        # zones and counters declared with keys: `row[2]`, `box[ones]` pick one of them by its key,
        # which reads no order
        self.keyed = {item.name for item in tree.items if isinstance(item, (n.ZoneDecl, n.CounterDecl)) and item.keys}
        self.defines = {item.name: item for item in tree.items if isinstance(item, n.DefineDecl)}
        self.procedures = {item.name: item for item in tree.items if isinstance(item, n.ProcedureDecl)}
        self.compares = compares
        self.bindings: dict[str, list[tuple[n.Node, tuple]]] = {}
        self.sinks: list[tuple[n.Node, tuple]] = []
        self.moves: list[tuple[tuple[n.Node, tuple], tuple[n.Node, tuple]]] = []
        self._resolving: set[str] = set()
        self._named: dict[str, frozenset[str]] = {}
        for item in tree.items:
            self._walk(item, ())

    def result(self) -> frozenset[str]:
        read: set[str] = set()
        for node, env in self.sinks:
            read |= self.zones_of(node, env)
        changed = True
        while changed and EVERY not in read:
            changed = False
            for (what, what_env), (to, to_env) in self.moves:
                into = self.zones_of(to, to_env)
                if EVERY in into or not into.isdisjoint(read):
                    more = self.zones_of(what, what_env) - read
                    if more:
                        read |= more
                        changed = True
        return frozenset(self.zones) if EVERY in read else frozenset(read)

    # -- where order is read, and where names get values
    def _bind(self, name: str, value: n.Node | None, env: tuple) -> None:
        if value is not None:
            self.bindings.setdefault(name, []).append((value, env))

    def _moved(self, what: n.Node, to: n.Node, env: tuple) -> None:
        """What a triggered rule may see of this move: `moved` and the zone it came from are
        among what was moved, `moved_to` among where it went."""
        self._bind("moved", what, env)
        self._bind("moved_from", what, env)
        self._bind("moved_to", to, env)

    def _walk(self, node, env: tuple) -> None:
        if isinstance(node, tuple):
            for item in node:
                self._walk(item, env)
            return
        if not isinstance(node, n.Node):
            return
        if isinstance(node, n.Filter):
            self._walk(node.source, env)
            self._walk(node.cond, env + (node.source,))
            return
        if isinstance(node, n.Call):
            self._call(node, env)
            return
        if isinstance(node, n.Index):
            if not (isinstance(node.obj, n.Name) and node.obj.id in self.keyed):
                self.sinks.append((node.obj, env))
        elif isinstance(node, n.Compare) and node in self.compares:
            self.sinks.extend(((node.left, env), (node.right, env)))
        elif isinstance(node, n.ForEach):
            self.sinks.append((node.items, env))
            self._bind(node.var, node.items, env)
        elif isinstance(node, n.Draw):
            self.sinks.append((node.source, env))
            self._moved(node.source, node.to, env)
        elif isinstance(node, n.Shuffle):
            self.sinks.append((node.zone, env))
        elif isinstance(node, n.Move):
            self.moves.append(((node.what, env), (node.to, env)))
            self._moved(node.what, node.to, env)
        elif isinstance(node, n.Create):
            self._bind("moved_to", node.into, env)
        elif isinstance(node, n.Let):
            self._bind(node.name, node.value, env)
        elif isinstance(node, n.Assign):
            self._bind(node.target.name, node.value, env)
        elif isinstance(node, n.CounterDecl):
            self._bind(node.name, node.initial, env)
        elif isinstance(node, n.Do) and node.args and node.name in self.procedures:
            for param, arg in zip(self.procedures[node.name].params, node.args):
                self._bind(param, arg, env)
        elif isinstance(node, (n.Choose, n.ThenChoose)):
            self._bind(node.var, node.options, env)
            for field in attrs.fields(type(node)):
                value = getattr(node, field.name)
                self._walk(value, env + (node.options,) if field.name == "where" else env)
            return
        for field in attrs.fields(type(node)):
            if field.name != "span":
                self._walk(getattr(node, field.name), env)

    def _call(self, node: n.Call, env: tuple) -> None:
        args = node.args
        if node.func in ORDER_FUNCTIONS and args:
            self.sinks.append((args[0], env))
        define = self.defines.get(node.func)
        if define is not None and define.params:
            for param, arg in zip(define.params, args):
                self._bind(param, arg, env)
        if args:
            self._walk(args[0], env)
            for arg in args[1:]:  # per-item arguments: `it` is an item of the first
                self._walk(arg, env + (args[0],))

    # -- which zones' order a value carries
    def zones_of(self, node, env: tuple) -> frozenset[str]:
        if isinstance(node, tuple):
            return frozenset().union(*(self.zones_of(item, env) for item in node))
        if not isinstance(node, n.Node):
            return frozenset()
        if isinstance(node, n.Name):
            return self._name(node.id, env)
        if isinstance(node, n.Filter):
            return self.zones_of(node.source, env)
        if isinstance(node, n.Call):
            if node.func in SCALAR_FUNCTIONS:
                return frozenset()
            define = self.defines.get(node.func)
            if define is not None and define.params:
                # its parameters carry their arguments' zones, from every call (``_call``)
                return self.zones_of(define.value, env)
            found = self.zones_of(node.args, env)
            return found | self.zones_of(define.value, env) if define is not None else found
        if isinstance(node, (n.Compare, n.BoolOp, n.Not, n.Negate, n.Literal, n.EmptyLiteral)):
            return frozenset()
        found: frozenset[str] = frozenset()
        for field in attrs.fields(type(node)):
            if field.name != "span":
                found |= self.zones_of(getattr(node, field.name), env)
        return found

    def _name(self, name: str, env: tuple) -> frozenset[str]:
        if name in self.zones:
            return frozenset({name})
        if name == "it":
            return self.zones_of(env[-1], env[:-1]) if env else frozenset({EVERY})
        found = self._named.get(name)
        if found is not None:
            return found
        if name in self._resolving:  # a name given a value from itself: its other values count
            return frozenset()
        self._resolving.add(name)
        found = frozenset()
        define = self.defines.get(name)
        if define is not None and not define.params:
            found |= self.zones_of(define.value, ())
        for value, value_env in self.bindings.get(name, ()):
            found |= self.zones_of(value, value_env)
        self._resolving.discard(name)
        if not self._resolving:  # only a name resolved from the outside is complete
            self._named[name] = found
        return found
