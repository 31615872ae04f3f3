"""What a value may reveal: the compile-time analysis that marks the choices whose value the
other seats must not see (ChoiceSpec.private) and who may see a winner criterion before the end
(Check.seen_by). It follows every flow a value takes (defines and their arguments, every
assignment of a variable, loops, `if` conditions, procedures called under them, the pieces a
triggered rule sees moved) and, when in doubt, says private: over-hiding only shows
`(hidden)` or `?` where a value could have shown."""

from __future__ import annotations

from typing import Any

import attrs

from . import nodes as n

PUBLIC, OWN, PRIVATE = 0, 1, 2  # seen by all; by the current `player` only; by nobody for sure


@attrs.frozen
class Value:
    """What reading a value may reveal: ``count`` of how many items it holds, ``items`` of
    which they are (or of the value itself); ``me`` when it is the current `player`;
    ``not_me`` when it is a player (or players) other than the current one (`others`)."""

    count: int
    items: int
    me: bool = False
    not_me: bool = False

    @property
    def level(self) -> int:
        return max(self.count, self.items)


def _level(level: int, me: bool = False) -> Value:
    return Value(level, level, me)


_PUBLIC = _level(PUBLIC)
_WORST = _level(PRIVATE)
_PLAYER_NAMES = ("players", "others", "remaining", "turn_order", "round_number", "turn_number", "player_count")


class _Params(dict):
    """The parameters of a define (or of a table column) while its value is read, each as
    private as the argument it was given. Unlike a frame's variables, a menu counts them as it
    counts their arguments (``_x_Name``): `face_of(cup)` in a label reads the cup."""


_PIECE_FUNCTIONS = frozenset({"first", "last", "top", "bottom", "highest", "lowest", "sorted"})


def _yields_pieces(node: n.Node, c: Any) -> bool:
    """Whether an expression plainly gives pieces, as written: a zone or a kind, a filter, a
    sum of them, or a piece taken from one (`first(hand of p)`, `top(deck)`)."""
    if isinstance(node, n.Name):
        return node.id in c.zones or node.id in c.kinds
    if isinstance(node, n.Of):
        return isinstance(node.left, n.Name) and node.left.id in c.zones
    if isinstance(node, n.Filter):
        return _yields_pieces(node.source, c)
    if isinstance(node, n.Call):
        return node.func in _PIECE_FUNCTIONS and bool(node.args) and _yields_pieces(node.args[0], c)
    if isinstance(node, n.Binary):
        return node.op == "+" and (_yields_pieces(node.left, c) or _yields_pieces(node.right, c))
    if isinstance(node, n.Index):
        return _yields_pieces(node.obj, c)
    return False


class HiddenValues:
    """The analysis over one game's declarations (the compiler's tables)."""

    def __init__(self, compiler: Any):
        self.c = compiler
        zones = list(compiler.zones.values())
        # A collection of every piece of a kind may hold pieces of any zone.
        self.anywhere = Value(PRIVATE if any(z.visibility == "secret" for z in zones) else PUBLIC,
                              PRIVATE if any(z.visibility not in ("public", "top only") for z in zones) else PUBLIC)
        self._defines: dict[tuple, Value] = {}
        self._expanding: set[tuple] = set()
        self.choices: dict[int, bool] = {}  # id(Choose node) -> private
        self.says: dict[int, tuple[int, Any]] | None = {}  # id(Say node) -> its worst part's level, and that part
        # id(a choice's node: Choose, ChooseBranch, May) -> whether it is reached under a
        # condition some seat cannot see (`if any(hand of player, ...): may ...`): that there is
        # a decision at all tells what the condition holds, so its line shows to its chooser only
        self.in_secret: dict[int, bool] = {}  # (and id(Do node) -> the same, of a `do`)
        # While ``in_secret`` is worked out, in order: a variable holding a piece moved where
        # every seat sees it reads as public until it is set again (`move c to discard`, then
        # `if c.rank == 8:`); the branch of a labelled choice, and an `otherwise` block, run in
        # the open (their line shows which)
        self._existence_pass = False
        self._public_names: set[str] | frozenset[str] = frozenset()
        self._chosen_names: frozenset[str] = frozenset()  # set only by a choice with an `otherwise`
        self._exit_level = PUBLIC  # the worst condition an `end turn` met so far stands under
        self._procedure_exits: dict[str, int] = {}  # the same, at the end of each procedure
        # counters with keys an entry of which is set with a key worked out from what some seat
        # may not see (`sheet[b] of player = 1`, b chosen in secret): their trace hides the key
        self.secret_keys: set[str] = set()
        # public counters set to pieces (`marked = first(hand of seat(1))`) -> the worst level of
        # those pieces: the board names a piece only where a seat sees it, so what is read of
        # them is as private as the pieces
        self.piece_counters: dict[str, int] = {}
        self.piece_counts: dict[str, int] = {}  # the same, of how many pieces they hold
        # id(Choose node) -> the levels of its options' items, of how many they are, of its
        # condition, of its label and of its parameter's items and count (`then choose`), the
        # worst over every way it is reached (``menu_reveals``)
        self.menus: dict[int, tuple[int, ...]] = {}
        # While a menu is read (``_menu``): its `by`; which zone a menu reads counts as known
        # (the levels of variables are the worst over the procedure: a lint must not guess)
        self._chooser: n.Node | None = None
        self._in_menu = False
        self._menu_option: tuple[str, int] | None = None  # a label's: the choice's name, its options' level
        self._zones_named = False  # a zone written in a list is an option to name (``_item``)
        try:
            self._solve()
        except RecursionError:  # nested too deeply (E304 elsewhere): every choice private
            self.choices = {}
            self.says = None

    # ------------------------------------------------------------------ results
    def choice_private(self, stmt: n.Choose) -> bool:
        return self.choices.get(id(stmt), True)

    def said(self, stmt: n.Say) -> tuple[int, Any]:
        """How private the worst part of a `say` is (PUBLIC: every seat may read the line), and that part."""
        if self.says is None:  # (the analysis gave up)
            return PRIVATE, None
        return self.says.get(id(stmt), (PUBLIC, None))

    def decision_in_secret(self, stmt: n.Node) -> bool:
        """Whether a choice (or a `do`) of a section or procedure is made only where something
        some seat cannot see holds, there."""
        return self.in_secret.get(id(stmt), False)

    def menu_reveals(self, stmt: n.Choose, of_pieces: bool, then_of_pieces: bool = False) -> str | None:
        """What the menu of a choice shows its chooser that the chooser may not see (for
        W416): "options", "condition", "label" or "parameter", or None. The chooser sees their
        own things (level OWN: the current player's, and those of the player `by` names, written
        the same way, `hand of p ... by p`). A choice among pieces hides the pieces the chooser
        does not see (a blind pick), but not how many there are, nor which of them a condition
        keeps."""
        found = self.menus.get(id(stmt))
        if found is None:
            return None
        items, count, condition, label, then_items, then_count = found
        options = count if of_pieces else items
        parameter = then_count if then_of_pieces else then_items
        for what, level in (("options", options), ("condition", condition), ("label", label),
                            ("parameter", parameter)):
            if level >= PRIVATE:
                return what
        return None

    def trigger_seen_by(self, when: n.When) -> str:
        """Who may see the `triggered:` line of a rule triggered by a move, since that it fired
        tells what its condition read: "all" (no condition, or one that reads nothing
        hidden; an `instead` rule, whose effect shows anyway), "movers" (the condition reads
        hidden things only through the moved pieces: whoever sees them at either end of the
        move) or "referee" (it reads something else a seat may not see)."""
        if when.instead or when.cond is None:
            return "all"
        try:
            env = dict(self._trigger_frame(when)[1])
            if self.expr(when.cond, env, None).level == PUBLIC:
                return "all"
            env.update(moved=_PUBLIC, moved_from=_PUBLIC, moved_to=_PUBLIC)
            return "movers" if self.expr(when.cond, env, None).level == PUBLIC else "referee"
        except RecursionError:
            return "referee"

    def criterion(self, node: n.Node) -> str:
        """Who sees a winner criterion's value in a player's row: "all", "owner" (that row's
        player, the value reading only their own things) or "none"."""
        try:
            level = self.expr(node, None, None).level
        except RecursionError:
            level = PRIVATE
        return ("all", "owner", "none")[level]

    # ------------------------------------------------------------------ expressions
    def expr(self, node: n.Node, env: dict | None, element: Value | None) -> Value:
        """``env``: the variables in reach (None in a define or a criterion: no locals);
        ``element``: the item a `where`, `any`, `count`... condition is testing."""
        if self._in_menu and self._chooser is not None and node == self._chooser:
            return Value(PUBLIC, PUBLIC, True)  # the chooser, however it reaches a define: `low(p) ... by p`
        method = getattr(self, "_x_" + type(node).__name__, None)
        if method is None:
            return _WORST
        return method(node, env, element)

    def _x_Literal(self, node, env, element):
        return _PUBLIC

    _x_EmptyLiteral = _x_Literal

    def _x_TupleExpr(self, node, env, element):
        return _level(max(self._item(i, env, element).level for i in node.items))

    def _x_ListExpr(self, node, env, element):
        level = max([self._item(i, env, element).level for i in node.items], default=PUBLIC)
        return _level(level)  # none is left out of a list: its length depends on its items too

    def _item(self, node, env, element) -> Value:
        """An item of a list written out. In a menu, a zone there is an option to pick (`choose
        src from [deck, pile]`): which zone it is shows, not what it holds."""
        if self._in_menu or self._zones_named:
            if isinstance(node, n.Name) and node.id in self.c.zones and node.id not in (env or ()):
                return _PUBLIC
            if isinstance(node, n.Of) and isinstance(node.left, n.Name) and node.left.id in self.c.zones:
                return _level(self.expr(node.right, env, element).level)
        return self.expr(node, env, element)

    def _x_Name(self, node, env, element):
        name, c = node.id, self.c
        if isinstance(env, _Params):  # in a define: its parameters, as private as their arguments
            if name in env:  # (worked out where the define is called, so in a menu only what it reads)
                return env[name]
        elif self._menu_option is not None and name == self._menu_option[0]:
            return _level(self._menu_option[1])
        if env is not None and name in env:
            found = env[name]  # (a menu's: only what it reads itself, ``_menu``)
            return Value(PUBLIC, PUBLIC, found.me, found.not_me) if self._in_menu else found
        if element is not None and (name == "it" or name in c.attributes):
            return element if name == "it" else _level(element.level)
        if name == "player":  # in a menu chosen `by` another, the current player is not the chooser
            return Value(PUBLIC, PUBLIC, not (self._in_menu and self._chooser is not None))
        if name == "others":  # (likewise: `by` another, the chooser may be one of them)
            return Value(PUBLIC, PUBLIC, False, not (self._in_menu and self._chooser is not None))
        if name in _PLAYER_NAMES or name in c.options or name in c.face_labels or name in c.key_labels:
            return _PUBLIC
        if name in c.defines:
            return self._define(c.defines[name], ())
        if name in c.zones:
            if c.zones[name].keys and (self._in_menu or self._zones_named):
                return _PUBLIC  # a list of zones to pick from (as `[row_1, row_2]`, ``_item``): which shows
            return self._zone(c.zones[name], None)
        if name in c.kinds:
            return self.anywhere
        if name in c.counters:
            if c.counters[name].visibility != "public":
                return _WORST
            # a public counter set to pieces shows them only where each seat sees them (a
            # menu's reading counts only what it reads itself, as for variables: ``_menu``)
            return _level(PUBLIC if self._in_menu else self.piece_counters.get(name, PUBLIC))
        return _WORST

    def _define(self, decl: n.DefineDecl, args: tuple[Value, ...]) -> Value:
        key = (decl.name, args, self._in_menu, self._chooser)  # (a menu's reading differs: ``_menu``)
        if key in self._defines:
            return self._defines[key]
        if key in self._expanding or len(args) != len(decl.params or ()):
            return _WORST  # refers to itself, or a wrong call: an error elsewhere
        self._expanding.add(key)
        try:
            value = self.expr(decl.value, _Params(zip(decl.params or (), args, strict=True)), None)
        finally:
            self._expanding.discard(key)
        self._defines[key] = value
        return value

    def _zone(self, decl: n.ZoneDecl, owner: Value | None) -> Value:
        base = owner.level if owner is not None and not self._in_menu else PUBLIC  # which zone it is
        mine = OWN if owner is not None and owner.me and decl.per_player else PRIVATE
        # another player's `others only` zone shows its pieces to the chooser of a menu
        facing = OWN if self._in_menu and owner is not None and owner.not_me and decl.per_player else PRIVATE
        count, items = {"public": (PUBLIC, PUBLIC), "top only": (PUBLIC, PUBLIC), "hidden": (PUBLIC, PRIVATE),
                        "owner only": (PUBLIC, mine), "others only": (PUBLIC, facing),
                        "secret": (mine, mine)}.get(decl.visibility, (PRIVATE, PRIVATE))
        return Value(max(base, count), max(base, items))

    def _x_Of(self, node, env, element):
        c = self.c
        left, key = node.left, PUBLIC
        if isinstance(left, n.Index) and isinstance(left.obj, n.Name) and (
                left.obj.id in c.counters or self._keyed_zone(left.obj.id, env)):
            # `climbed[k] of p`, `expedition[c.colour] of p`: which entry, which zone
            left, key = left.obj, self.expr(left.index, env, element).level
        if not isinstance(left, n.Name):
            return _WORST
        owner = self.expr(node.right, env, element)
        me = owner.me or (self._chooser is not None and node.right == self._chooser)  # (a menu's, ``_menu``)
        owner = Value(max(owner.level, key), max(owner.level, key), me, owner.not_me)
        name = left.id
        if name in c.zones:
            if c.zones[name].keys and left is node.left and (self._in_menu or self._zones_named):
                return _level(owner.level)  # `expedition of player`: a list of zones to pick from (``_item``)
            return self._zone(c.zones[name], owner)
        if name in c.counters:
            visibility = c.counters[name].visibility
            if visibility == "public":
                return _level(max(owner.level, PUBLIC if self._in_menu else self.piece_counters.get(name, PUBLIC)))
            if visibility == "owner only" and owner.me:
                return _level(max(owner.level, OWN))
        return _WORST

    def _x_MethodCall(self, node, env, element):
        return self._column(node.name, self.expr(node.obj, env, element),
                            tuple(self.expr(a, env, element) for a in node.args))

    def _column(self, name: str, piece: Value, args: tuple[Value, ...]) -> Value:
        """A table column with parameters, called like a define: what any of its cells may
        reveal with these arguments (the row's plain columns are public), and which piece."""
        key = ("column " + name, (piece,) + args, self._in_menu, self._chooser)  # (as ``_define``'s)
        if key in self._defines:
            return self._defines[key]
        if key in self._expanding:
            return _WORST
        self._expanding.add(key)
        try:
            level = max([piece.level] + [a.level for a in args])
            for params, cell, plain in self.c.table_cells(name):
                if len(params) == len(args):
                    env = _Params.fromkeys(plain, _PUBLIC)
                    env.update(zip(params, args, strict=True))
                    level = max(level, self.expr(cell, env, None).level)
        finally:
            self._expanding.discard(key)
        self._defines[key] = value = _level(level)
        return value

    def _x_Call(self, node, env, element):
        c, name = self.c, node.func
        if name in c.defines:
            return self._define(c.defines[name], tuple(self.expr(a, env, element) for a in node.args))
        if name in c.param_columns:  # `fires(d)` about each card of a condition
            return self._column(name, element or _WORST, tuple(self.expr(a, env, element) for a in node.args))
        if name == "keys":  # a counter's keys are written in the rules
            return _PUBLIC
        if name in ("product", "text") and node.args:
            return _level(max(self.expr(a, env, element).level for a in node.args))
        if not node.args:
            return _WORST
        family = self._zone_family(node.args[0], env, element)
        if family is not None and len(node.args) > 1 and name not in ("subsets", "runs", "first", "last"):
            # `sum(down of player, count(it))`: the items are zones, which every seat can name;
            # each is read as the zone it is (how many pieces a hidden one holds is public)
            which, one = family
            return _level(max([which] + [self.expr(key, env, one).level for key in node.args[1:]]))
        first = self.expr(node.args[0], env, element)
        if name == "seat":
            return Value(first.level, first.level, first.me)
        if name == "subsets" and len(node.args) == 1:  # hidden pieces are never alike: 2^n - 1 groups
            return Value(first.count, first.items)
        if name == "subsets":  # (C, K): as many groups as n and K say
            return Value(max(first.count, self.expr(node.args[1], env, element).level), first.items)
        if name == "count" and len(node.args) == 1:
            return _level(first.count)
        if name in ("first", "last", "top", "bottom") and len(node.args) == 1:  # whether there is one: the count
            return Value(first.count, max(first.count, first.items), False, first.not_me)
        level = first.level
        keys = node.args[1:2] if name == "runs" else node.args[1:]
        for key in keys:  # a condition or keys (a ranking's tie-breaks), about each item
            level = max(level, self.expr(key, env, _level(first.level)).level)
        for arg in node.args[2:] if name == "runs" else ():  # `runs`' step
            level = max(level, self.expr(arg, env, element).level)
        return _level(level)

    def _zone_family(self, node: n.Node, env, element) -> tuple[int, Value] | None:
        """For the zones of a declaration with keys (`down`, `down of player`): how private
        which zones they are, and what reading one of them reveals; None for anything else."""
        c = self.c
        if isinstance(node, n.Name) and self._keyed_zone(node.id, env):
            return PUBLIC, self._zone(c.zones[node.id], None)
        if isinstance(node, n.Of) and isinstance(node.left, n.Name) and self._keyed_zone(node.left.id, env):
            owner = self.expr(node.right, env, element)
            return owner.level, self._zone(c.zones[node.left.id], owner)
        return None

    def _x_Attribute(self, node, env, element):
        return _level(self.expr(node.obj, env, element).level)

    def _x_Index(self, node, env, element):
        if isinstance(node.obj, n.Name) and self._keyed_zone(node.obj.id, env):  # `row[2]`: one zone, by its key
            key = PUBLIC if self._in_menu else self.expr(node.index, env, element).level  # (as ``_zone``'s owner)
            zone = self._zone(self.c.zones[node.obj.id], None)
            return Value(max(zone.count, key), max(zone.items, key))
        return _level(max(self.expr(node.obj, env, element).level, self.expr(node.index, env, element).level))

    def _keyed_zone(self, name: str, env) -> bool:
        """Whether ``name`` is a zone declared with keys here (not a variable of that name)."""
        return name in self.c.zones and bool(self.c.zones[name].keys) and not (env is not None and name in env)

    def _x_Filter(self, node, env, element):
        source = self.expr(node.source, env, element)
        level = max(source.level, self.expr(node.cond, env, _level(source.level)).level)
        return Value(level, level, False, source.not_me)  # (some of `others` are still not the player)

    def _x_Conditional(self, node, env, element):
        cond = self.expr(node.cond, env, element).level
        then, other = self.expr(node.then, env, element), self.expr(node.otherwise, env, element)
        return Value(max(cond, then.count, other.count), max(cond, then.items, other.items),
                     then.me and other.me and cond == PUBLIC)

    def _x_Compare(self, node, env, element):
        left = self.expr(node.left, env, element)
        if node.op in ("is", "is not") and isinstance(node.right, n.EmptyLiteral):
            return _level(left.count)
        return _level(max(left.level, self.expr(node.right, env, element).level))

    def _x_Binary(self, node, env, element):
        left, right = self.expr(node.left, env, element), self.expr(node.right, env, element)
        if node.op == "+":  # joined collections: how many, and which, from both
            return Value(max(left.count, right.count), max(left.items, right.items))
        return _level(max(left.level, right.level))

    def _x_BoolOp(self, node, env, element):
        return _level(max(self.expr(node.left, env, element).level, self.expr(node.right, env, element).level))

    def _x_Not(self, node, env, element):
        return _level(self.expr(node.operand, env, element).level)

    _x_Negate = _x_Not

    # ------------------------------------------------------------------ statements
    def _solve(self) -> None:
        """Every frame (section, procedure, triggered rule) to a fixed point: a variable holds
        the worst of all its assignments, made under the worst condition that reaches them."""
        c = self.c
        self.called: dict[str, int] = {}  # procedure -> the worst condition it is called under
        self.move_pc = PUBLIC  # the worst condition any piece moves under (triggers run then)
        frames: list[tuple[tuple, dict, Any]] = []
        for section in c.sections.values():
            frames.append((section.body, {}, lambda: PUBLIC))
        self.proc_envs: dict[str, dict] = {}  # procedure -> its frame's variables (parameters too)
        for name, decl in c.procedures.items():
            self.proc_envs[name] = {param: _PUBLIC for param in decl.params}
            frames.append((decl.body, self.proc_envs[name], lambda name=name: self.called.get(name, PUBLIC)))
        for _, when in c.triggers:
            frames.append(self._trigger_frame(when))
        for body, env, _ in frames:
            for name in _bound_names(body):
                env.setdefault(name, _PUBLIC)
        changed = True
        while changed:
            before = (self.called.copy(), self.move_pc, self.choices.copy(), self.piece_counters.copy(),
                      self.piece_counts.copy(), [dict(env) for _, env, _ in frames])
            for body, env, entry in frames:
                self._block(body, env, entry())
            self._defines.clear()  # (worked out with the counters' levels as they were)
            changed = before != (self.called, self.move_pc, self.choices, self.piece_counters, self.piece_counts,
                                 [env for _, env, _ in frames])
        # Which choices and calls stand under a condition some seat cannot see within their own
        # section or procedure (a procedure called under one is the call's business: the same
        # procedure called in the open shows its choices, ``State.choice_in_secret``): one more
        # pass with every frame entered in the open, the variables as solved
        self._existence_pass = True
        bodies = {id(decl.body): decl for decl in c.procedures.values()}
        self._ending = _procedures_ending_turns(c.procedures)
        self._shown_args: dict[tuple[str, int], bool] = {}  # (procedure, parameter): given only what all see
        try:
            for _ in range(2):  # the second time, the parameters given only what all see count as public
                self.in_secret = {}
                shown = {key for key, public in self._shown_args.items() if public}
                for body, env, _ in frames:
                    self._chosen_names = _chosen_only(body)
                    decl = bodies.get(id(body))
                    # the frame's own variables worked out again in order, from its own entry (a
                    # procedure called under a hidden condition is the call's business); what
                    # it is given (parameters, a triggered rule's pieces) as solved
                    bound = _bound_names(body)
                    start = {name: _PUBLIC if name in bound else value for name, value in env.items()}
                    if decl is not None:
                        for i, param in enumerate(decl.params):
                            if (decl.name, i) in shown:
                                start[param] = _PUBLIC
                    for _ in range(2):  # twice: a loop's next time round reads what its last set
                        self._public_names, self._exit_level = set(), PUBLIC
                        self._block(body, start, PUBLIC)
                    if decl is not None:  # a `do` of it: what follows runs only where it did not end the turn
                        self._procedure_exits[decl.name] = self._exit_level
        finally:
            self._existence_pass, self._public_names = False, frozenset()
        # id(body of a section, procedure or triggered rule) -> its variables that may hold what
        # some seat does not see, with the level (OWN: every seat but the current player's; a
        # redeal cannot work them out again: ``knowledge.sample_state``)
        self.private_names = {id(body): {name: value.level for name, value in env.items() if value.level >= OWN}
                              for body, env, _ in frames}

    def _trigger_frame(self, when: n.When):
        env: dict[str, Value] = {}
        if when.event == "move":
            ends = [self.expr(z, None, None) if z is not None else self.anywhere for z in (when.source, when.to)]
            # a moved piece is seen by whoever sees it at either end
            env["moved"] = Value(min(e.count for e in ends), min(e.items for e in ends))
            env["moved_from"], env["moved_to"] = ends

            def entry():
                return max(self.move_pc, self.expr(when.cond, env, None).level if when.cond is not None else PUBLIC)
        else:
            def entry():
                # the procedure's parameters, as private as anything they were given or set to
                for param in getattr(self.c.procedures.get(when.procedure), "params", ()):
                    self._assign(env, param, self.proc_envs[when.procedure].get(param, _PUBLIC), PUBLIC)
                cond = self.expr(when.cond, env, None).level if when.cond is not None else PUBLIC
                return max(self.called.get(when.procedure, PUBLIC), cond)
        return when.body, env, entry

    def _mark_secret(self, stmt: n.Node, secret: bool) -> None:
        """``in_secret`` for a statement: secret on any way it is reached."""
        if secret:
            self.in_secret[id(stmt)] = True

    def _secret_chooser(self, stmt: n.Node, env: dict) -> bool:
        """Whether who makes a choice (`by`) is worked out from what some seat cannot see."""
        return self._existence_pass and stmt.chooser is not None and self.expr(stmt.chooser, env, None).level > PUBLIC

    def _condition_level(self, cond: n.Node, env: dict) -> int:
        """What an `if` condition may reveal; while ``in_secret`` is worked out, whether a choice
        with an `otherwise` block found an option (`c != none`) is public: its line shows it."""
        if self._existence_pass and isinstance(cond, n.Compare) and cond.op in ("==", "!=", "is", "is not") \
                and isinstance(cond.left, n.Name) and cond.left.id in self._chosen_names \
                and isinstance(cond.right, n.Literal) and cond.right.value is None:
            return PUBLIC
        return self.expr(cond, env, None).level

    def _shows_itself(self, stmt: n.If) -> bool:
        """Whether each branch of an `if` that ends the turn starts with a line every seat reads
        (`passes += 1` with a public counter, a piece moved where all see it): that it ran, and
        so its condition, is public anyway."""
        def shown(block) -> bool:
            for inner in block:
                if isinstance(inner, n.Assign) and inner.op in ("+=", "-=") and isinstance(inner.value, n.Literal) \
                        and inner.value.value.__class__ is int and inner.value.value != 0 \
                        and inner.target.name in self.c.counters and inner.target.key is None \
                        and self.c.counters[inner.target.name].visibility == "public":
                    return True
                if isinstance(inner, n.Move) and self._shown_zone(inner.to) and isinstance(inner.what, n.Name):
                    return True
                if isinstance(inner, (n.EndTurn, n.EndGame)) or not isinstance(inner, (n.Doc, n.Pass, n.Let)):
                    return False
            return False

        blocks = [body for _, body in stmt.branches] + ([stmt.otherwise] if stmt.otherwise else [])
        return all(shown(block) for block in blocks if _ends_turn(n.Rule("", block), self._ending))

    def _shown_zone(self, node: n.Node) -> bool:
        """Whether a zone written as ``node`` shows every piece moved there to every seat."""
        if isinstance(node, n.Of):
            node = node.left
        zone = self.c.zones.get(node.id) if isinstance(node, n.Name) else None
        return zone is not None and zone.visibility in ("public", "top only")

    def _assign(self, env: dict, name: str, value: Value, pc: int) -> None:
        if name in self._public_names:  # set again after it was shown: what it holds now counts
            self._public_names.discard(name)
            env[name] = Value(max(value.count, pc), max(value.items, pc), value.me and pc == PUBLIC)
            return
        old = env.get(name, _PUBLIC)
        env[name] = Value(max(old.count, value.count, pc), max(old.items, value.items, pc),
                          old.me and value.me and pc == PUBLIC)

    def _block(self, body: tuple, env: dict, pc: int) -> None:
        for stmt in body:
            if self._existence_pass:
                # after an `end turn` under a condition, what follows runs only where it failed
                pc = max(pc, self._exit_level)
            self._stmt(stmt, env, pc)
            if self._existence_pass and isinstance(stmt, n.If) and _ends_turn(stmt, self._ending) \
                    and not self._shows_itself(stmt):
                self._exit_level = max(self._exit_level, pc, *(self._condition_level(cond, env)
                                                              for cond, _ in stmt.branches))
            elif self._existence_pass and isinstance(stmt, n.Do):
                self._exit_level = max(self._exit_level, self._procedure_exits.get(stmt.name, PUBLIC))
            if self._existence_pass and pc > PUBLIC and isinstance(stmt, n.Move) and self._shown_zone(stmt.to) \
                    and (isinstance(stmt.what, n.Name) or (isinstance(stmt.what, n.Call) and stmt.what.func in (
                        "top", "first", "last", "bottom", "highest", "lowest"))):
                # a piece moved where every seat sees it: its line shows that this block runs
                pc = PUBLIC

    def _menu(self, stmt: n.Choose, env: dict) -> tuple[int, ...]:
        """The levels of what a choice's menu shows, seen by its chooser: its options' items,
        how many they are, its condition, its label, its parameter's options' items and how
        many. The chooser's own things (`hand of p` chosen `by p`) count as the current
        player's do (OWN). Only what the menu reads itself counts: a variable is taken as seen
        (its level is the worst over the whole procedure, too coarse for a warning)."""
        self._chooser, self._in_menu = stmt.chooser, True
        try:
            options = self.expr(stmt.options, env, None)
            where = self.expr(stmt.where, env, _level(options.level)).level if stmt.where is not None else PUBLIC
            label = PUBLIC
            if stmt.label is not None:  # the label is read of each option: its name stands for the option
                self._menu_option = (stmt.var, options.items)
                try:
                    label = self.expr(stmt.label, env, _level(options.level)).level
                finally:
                    self._menu_option = None
            items = count = PUBLIC  # the parameter's
            if stmt.then is not None:  # worked out for each option of the first part, under its name
                option = Value(PUBLIC, PUBLIC, options.me, options.not_me)
                second = self.expr(stmt.then.options, {**(env or {}), stmt.var: option}, None)
                items, count = second.items, second.count
                if stmt.then.where is not None:
                    condition = self.expr(stmt.then.where, env, _level(second.level)).level
                    items, count = max(items, condition), max(count, condition)
            return options.items, options.count, where, label, items, count
        finally:
            self._chooser, self._in_menu = None, False

    def _stmt(self, stmt: n.Node, env: dict, pc: int) -> None:
        if isinstance(stmt, n.Rule):
            self._block(stmt.body, env, pc)
        elif isinstance(stmt, n.Let):
            self._assign(env, stmt.name, self.expr(stmt.value, env, None), pc)
        elif isinstance(stmt, n.Assign):
            if stmt.target.name in env and stmt.target.owner is None:
                self._assign(env, stmt.target.name, self.expr(stmt.value, env, None), pc)
            else:
                if stmt.target.key is not None and self.expr(stmt.target.key, env, None).level > PUBLIC:
                    self.secret_keys.add(stmt.target.name)
                counter = self.c.counters.get(stmt.target.name)
                if self._existence_pass and counter is not None and counter.visibility != "public":
                    # whose counter changed, or that it did, worked out from what some seat cannot
                    # see (`chips of p += 1`, p picked in secret): its line is its owner's alone
                    owner = PUBLIC if stmt.target.owner is None else self.expr(stmt.target.owner, env, None).level
                    self._mark_secret(stmt, pc > PUBLIC or owner > PUBLIC)
                if stmt.target.name in self.c.counters and _yields_pieces(stmt.value, self.c):
                    value = self.expr(stmt.value, env, None)
                    name = stmt.target.name
                    self.piece_counters[name] = max(pc, value.level, self.piece_counters.get(name, PUBLIC))
                    self.piece_counts[name] = max(pc, value.count, self.piece_counts.get(name, PUBLIC))
        elif isinstance(stmt, n.If):
            for cond, body in stmt.branches:
                pc = max(pc, self._condition_level(cond, env))  # a later branch runs because earlier ones did not
                self._block(body, env, pc)
            self._block(stmt.otherwise, env, pc)
        elif isinstance(stmt, (n.Repeat, n.While)):
            cond = self.expr(stmt.cond, env, None).level if isinstance(stmt, n.While) else PUBLIC
            self._block(stmt.body, env, max(pc, cond, self._exits(stmt.body, env)))
        elif isinstance(stmt, n.ForEach):
            items = self.expr(stmt.items, env, None)
            # set afresh, not joined with the loops before it of the same name: a loop's variable
            # holds that loop's items only, in the body analysed next
            env[stmt.var] = _level(max(items.level, pc))
            self._block(stmt.body, env, max(pc, items.count, self._exits(stmt.body, env)))
        elif isinstance(stmt, n.Choose):
            self._mark_secret(stmt, pc > PUBLIC or self._secret_chooser(stmt, env))
            options = first = self.expr(stmt.options, env, None)
            where = self.expr(stmt.where, env, _level(first.level)).level if stmt.where is not None else PUBLIC
            # `secretly`: what was chosen is the chooser's alone (another seat's than the current
            # player's, when `by` names one: no seat's for sure); whether there was an option
            # still shows (`level`, for the `otherwise` block)
            secret = PUBLIC if not stmt.secretly else OWN if stmt.chooser is None else PRIVATE
            level = max(options.level, where)
            said = PUBLIC if stmt.aloud else None  # `aloud`: what was chosen is everyone's
            self._assign(env, stmt.var, _level(max(level, secret) if said is None else said), pc)
            if stmt.then is not None:  # the parameter's options are worked out from the first part
                then = stmt.then
                options = self.expr(then.options, env, None)
                second = options.level
                if then.where is not None:
                    second = max(second, self.expr(then.where, env, _level(options.level)).level)
                # which pairs there are shows both parts: the pair is as private as the worse
                level = max(level, second)
                self._assign(env, then.var, _level(max(level, secret) if said is None else said), pc)
                self._assign(env, stmt.var, _level(max(level, secret) if said is None else said), pc)
            # a label read from what some seat cannot see is as private
            label = self.expr(stmt.label, env, _level(first.level)).level if stmt.label is not None else PUBLIC
            shown = max(level, label, secret)
            if shown > PUBLIC and stmt.then is None and isinstance(stmt.options, n.ListExpr):
                # `choose src from [deck, pile]`: which zone was chosen shows, not what it holds
                # (the variable stays as private: `top(src)` reads the zone)
                self._zones_named = True
                try:
                    shown = max(self.expr(stmt.options, env, None).level, where, label, secret)
                finally:
                    self._zones_named = False
            self.choices[id(stmt)] = not stmt.aloud and (self.choices.get(id(stmt), False) or shown > PUBLIC)
            level = max(level, label)
            shown = self._menu(stmt, env)
            before = self.menus.get(id(stmt), (PUBLIC,) * 6)
            self.menus[id(stmt)] = tuple(max(a, b) for a, b in zip(before, shown, strict=True))
            if stmt.otherwise is not None:
                self._block(stmt.otherwise, env, pc if self._existence_pass else max(pc, level))
        elif isinstance(stmt, n.ChooseBranch):
            self._mark_secret(stmt, pc > PUBLIC or self._secret_chooser(stmt, env))
            for branch in stmt.branches:
                cond = self.expr(branch.cond, env, None).level if branch.cond is not None else PUBLIC
                self._block(branch.body, env, pc if self._existence_pass else max(pc, cond))
        elif isinstance(stmt, n.May):
            self._mark_secret(stmt, pc > PUBLIC or self._secret_chooser(stmt, env))
            self._block(stmt.body, env, pc)
        elif isinstance(stmt, n.Reveal):
            if self._existence_pass:  # to whom, and whether anything is shown, as private as what decides it
                # (a piece chosen with an `otherwise` block: whether there is one shows in the choice's line)
                count = PUBLIC if isinstance(stmt.pieces, n.Name) and stmt.pieces.id in self._chosen_names \
                    else self.expr(stmt.pieces, env, None).count
                self._mark_secret(stmt, pc > PUBLIC or self.expr(stmt.to, env, None).level > PUBLIC or count > PUBLIC)
        elif isinstance(stmt, n.EndTurn):
            self._mark_secret(stmt, pc > PUBLIC)
        elif isinstance(stmt, n.Say) and self._existence_pass:  # (in order: a piece moved to the table shows)
            self._mark_secret(stmt, pc > PUBLIC)
            for part in stmt.parts:
                level = self.expr(part, env, None).level
                if level > self.says.get(id(stmt), (PUBLIC, None))[0]:
                    self.says[id(stmt)] = (level, part)
        elif isinstance(stmt, n.Do):
            self._mark_secret(stmt, pc > PUBLIC)
            self.called[stmt.name] = max(self.called.get(stmt.name, PUBLIC), pc)
            decl, callee = self.c.procedures.get(stmt.name), self.proc_envs.get(stmt.name)
            if self._existence_pass and decl is not None and stmt.args is not None:
                for i, arg in enumerate(stmt.args):  # (solved already: the pass changes no other frame)
                    key = (stmt.name, i)
                    self._shown_args[key] = self._shown_args.get(key, True) and \
                        self.expr(arg, env, None).level == PUBLIC
            elif decl is not None and stmt.args is not None and len(stmt.args) == len(decl.params):
                for param, arg in zip(decl.params, stmt.args, strict=True):
                    self._assign(callee, param, self.expr(arg, env, None), pc)
        elif isinstance(stmt, (n.Move, n.Draw, n.Create)):
            self.move_pc = max(self.move_pc, pc)
            if self._existence_pass and isinstance(stmt, n.Move) and isinstance(stmt.what, n.Name) \
                    and stmt.what.id in env and self._shown_zone(stmt.to):
                self._public_names.add(stmt.what.id)
                env[stmt.what.id] = _PUBLIC

    def _exits(self, body: tuple, env: dict) -> int:
        """The worst condition a `break` in a loop's body stands under: how often the body
        runs depends on it."""
        worst = PUBLIC
        for stmt in body:
            if isinstance(stmt, n.If) and _breaks(stmt):
                worst = max([worst] + [self._condition_level(cond, env) for cond, _ in stmt.branches])
            elif self._existence_pass and isinstance(stmt, (n.Choose, n.ChooseBranch, n.May)):
                continue  # which option, or that there was none, shows in its line
            elif isinstance(stmt, n.Choose) and stmt.otherwise is not None and _breaks(stmt):
                worst = PRIVATE
            elif isinstance(stmt, (n.ChooseBranch, n.May)) and _breaks(stmt):
                worst = max(worst, *(self.expr(b.cond, env, None).level for b in getattr(stmt, "branches", ())
                                     if b.cond is not None), PUBLIC)
        return worst


def _walk_statements(body):
    for stmt in body:
        yield stmt
        for child in _child_blocks(stmt):
            yield from _walk_statements(child)


def _child_blocks(stmt):
    if isinstance(stmt, n.If):
        return [b for _, b in stmt.branches] + [stmt.otherwise]
    if isinstance(stmt, n.ChooseBranch):
        return [b.body for b in stmt.branches]
    if isinstance(stmt, n.Choose):
        return [stmt.otherwise or ()]
    if isinstance(stmt, (n.Rule, n.Repeat, n.While, n.ForEach, n.May)):
        return [stmt.body]
    return []


def _procedures_ending_turns(procedures: dict) -> set[str]:
    """The procedures that may end the turn: with an `end turn`, or calling one that may,
    however deep (each body walked once, then its callers followed back)."""
    callers: dict[str, set[str]] = {}
    ending = []
    for name, decl in procedures.items():
        for stmt in _walk_statements(decl.body):
            if isinstance(stmt, n.EndTurn):
                ending.append(name)
            elif isinstance(stmt, n.Do):
                callers.setdefault(stmt.name, set()).add(name)
    found: set[str] = set()
    while ending:
        name = ending.pop()
        if name not in found:
            found.add(name)
            ending.extend(callers.get(name, ()))
    return found


def _ends_turn(stmt, ending: set[str]) -> bool:
    """Whether an `end turn` (or a `do` of a procedure in ``ending``) stands anywhere inside
    ``stmt``. (An `end game` shows itself: every seat reads that the game is over.)"""
    for block in _child_blocks(stmt):
        for inner in block:
            if isinstance(inner, n.EndTurn) or (isinstance(inner, n.Do) and inner.name in ending) \
                    or _ends_turn(inner, ending):
                return True
    return False


def _breaks(stmt) -> bool:
    """Whether a `break` inside ``stmt`` (not in a loop of its own) leaves the enclosing loop."""
    for block in _child_blocks(stmt):
        for inner in block:
            if isinstance(inner, n.Break):
                return True
            if not isinstance(inner, (n.Repeat, n.While, n.ForEach)) and _breaks(inner):
                return True
    return False


def _chosen_only(body) -> frozenset[str]:
    """The variables of a frame set only by choices with an `otherwise` block (none there)."""
    chosen, other = set(), set()
    for stmt in _walk_statements(body):
        if isinstance(stmt, n.Choose) and stmt.then is None and stmt.several is None:
            (chosen if stmt.otherwise is not None else other).add(stmt.var)
        elif isinstance(stmt, (n.Let, n.ForEach)):
            other.add(stmt.name if isinstance(stmt, n.Let) else stmt.var)
        elif isinstance(stmt, n.Assign):
            other.add(stmt.target.name)
    return frozenset(chosen - other)


def _bound_names(body) -> set[str]:
    """The variables a frame binds: `let`, `for each`, `choose`."""
    names = set()
    for stmt in _walk_statements(body):
        if isinstance(stmt, n.Let):
            names.add(stmt.name)
        elif isinstance(stmt, (n.ForEach, n.Choose)):
            names.add(stmt.var)
            if isinstance(stmt, n.Choose) and stmt.then is not None:
                names.add(stmt.then.var)
    return names
