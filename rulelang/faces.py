"""Which dice faces may still be read: the faces the analysis of a turn can leave out of a key.

A push-your-luck game may ask "stop or roll again?" while the dice left in the cup still show
what they rolled. Whatever the player answers, nothing reads those faces again before
`roll cup` replaces them: on "stop" the turn ends, and the next turn rolls the cup before it
looks at it. Two such states that differ only in those faces play on alike, so
``rulelang.turnkey`` keys the dice of a zone whose faces are dead without their faces, as it
already keys the dice about to roll.

The faces of a zone's dice are **live** at an instruction when some way on from there reads a
piece of that zone before a roll of the whole zone replaces their faces:
- **Reads.** The compiler marks each generated function with the zones whose pieces its source
  names (``zones_read``; ``ExpressionCompiler.zone_mark``). A zone pieces are only put into is
  not read (`move kept to cup` reads `kept`, not `cup`), unless it is kept sorted. Pieces
  reached by kind, or through a zone a piece carries, and a value of any type read or moved as
  a piece (a number may stand for a piece), count as every zone. A function without the mark
  (written by hand) reads every zone.
- **Variables and counters.** A variable may hold pieces of any zone read where it is named or
  chosen into (every scope, every place: flow-insensitive), a procedure's parameter those of
  its calls' arguments, and a counter those of anything that names a counter; but a variable
  or a game's counters that the compiler knows hold only numbers, text, players or none
  (``Procedure.may_hold_piece``, ``CounterDef.numbers_only``) hold no piece.
- **Kills.** `roll Z` of a whole shared zone replaces the faces of its dice.
- **Calls and turns.** A call goes on into the procedure called; a return goes back to after
  every call of its procedure. The analysis stops where a turn ends or another begins
  (``State.stop_at_turn_end``), so nothing is read past either but what the turn is valued by.
- **The turn's end.** The analysis stops where its turn ends, where a turn begins, at the
  first decision or roll after its round is over, or at the end of the game, and values the
  state by its objective. So at every
  decision, roll, draw or shuffle, at the end checks and at the game's end, the zones the
  objective reads (``leaf_reads``) are live, with those the end conditions and winner rules read.

- **Triggered rules.** A statement whose moves may put pieces into a zone a triggered rule's
  `to` may name (a draw: any zone) may set that rule off: its condition is read there, and its
  procedure runs after the statement, before what follows it (and before or after the other
  rules the statement set off), like a call. Its `moved_from` and `moved_to` stand for the
  zones its `from` and `to` name (any zone where one is left out); `moved` for those its `to`
  names (`instead`: and its `from`), and those the statements that set it off and any
  triggered rule may move pieces into.
- **Procedures a turn runs** return only into turns: a state in one of them run from the set-up
  or a round's statements keeps every face (``safe_stack``).
- **Zones pieces carry** share their name (`perch of t` for every tile `t`): a rule reading one
  reads them all.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import model as m
from .liveness import _returning, successors

EVERY = "*"  # in a set of zone names: every zone
COUNTERS = "@counters"  # in what an objective reads: whatever the counters may hold (no zone name)
MAX_WORK = 5_000_000  # instructions visited in all passes of a fixed point, before giving up


class _TooMuchWork(Exception):
    pass


def function_reads(function) -> frozenset[str]:
    """The zones a compiled function names for reading (``EVERY`` when it is not marked)."""
    found = getattr(function, "zones_read", None)
    return frozenset((EVERY,)) if found is None else found


def objective_reads(function) -> frozenset[str]:
    """What a function valued at a turn's end reads: the zones it names, and ``COUNTERS``
    when it reads a counter (which may hold pieces)."""
    found = function_reads(function)
    return found | {COUNTERS} if getattr(function, "uses_counters", True) else found


def instruction_functions(op: int, a, b) -> list:
    """The compiled functions an instruction runs (its procedure's frame is theirs)."""
    if op == m.OP_CHOOSE:
        found = [a.options, a.chooser, a.picked, a.where]
        if a.labelled:  # labels must differ (a fault otherwise); other descriptions only show
            found.append(a.describe)
        if a.then is not None:
            found += [a.then.options, a.then.where]
        return [f for f in found if f is not None]
    if op == m.OP_BRANCH:
        return [f for f in (a.chooser, *(cond for _, cond, _, _ in a.branches)) if f is not None]
    if op == m.OP_DRAW:
        return [a.count, a.source, a.to]
    if op in (m.OP_CALL, m.OP_TURN):
        return [b] if b is not None else []
    if op in (m.OP_EXEC, m.OP_JUMP_IF_NOT, m.OP_ROLL, m.OP_SHUFFLE):
        return [a]
    return []


def reads_anywhere(game: m.GameDef) -> frozenset[str]:
    """The zones any rule of the game may read (names, ``EVERY`` for any zone), with
    ``COUNTERS`` when one reads a counter: its instructions, the conditions of its triggers
    (the zones of a `when move` are named, not read), end conditions and winner rules (not its
    invariants, which play does not run)."""
    functions = [f for procedure in game.procedures for op, a, b, _ in procedure.code
                 for f in instruction_functions(op, a, b)]
    functions += [trigger.cond for trigger in game.move_triggers if trigger.cond is not None]  # (its zones: named)
    functions += [check.test for check in game.ends + game.criteria + game.no_winner]
    return frozenset().union(*map(objective_reads, functions))


def reads_in_turn(game: m.GameDef) -> frozenset[str]:
    """``reads_anywhere``, of the rules a turn may run only: the `turn:` section, the
    procedures it runs (`do`, `when do`), every triggered rule, end conditions and winner rules;
    not the set-up nor the rest of a round. A game whose turn section is empty (a `round:`
    that does everything) reads what any rule reads."""
    procedures = game.procedures
    reached = _reached(procedures, [m.TURN_PROCEDURE] + [trigger.procedure for trigger in game.move_triggers])
    if not any(op not in (m.OP_RETURN, m.OP_JUMP) for op, _, _, _ in procedures[m.TURN_PROCEDURE].code):
        return reads_anywhere(game)
    functions = [f for index in sorted(reached) for op, a, b, _ in procedures[index].code
                 for f in instruction_functions(op, a, b)]
    functions += [trigger.cond for trigger in game.move_triggers if trigger.cond is not None]
    functions += [check.test for check in game.ends + game.criteria + game.no_winner]
    return frozenset().union(*map(objective_reads, functions))


def _reached(procedures, starts: list[int], more=None) -> set[int]:
    """The procedures ``starts`` run, and those they run (`do`, a turn), to the end; ``more(index,
    pc)``: more procedures an instruction runs (the triggered rules it sets off)."""
    reached, waiting = set(), list(starts)
    while waiting:
        index = waiting.pop()
        if index in reached or not 0 <= index < len(procedures):
            continue
        reached.add(index)
        for pc, (op, a, _b, _rule) in enumerate(procedures[index].code):
            if op in (m.OP_CALL, m.OP_TURN):
                waiting.append(a)
            if more is not None:
                waiting += more(index, pc)
    return reached


def _moves_into(op: int, a, b) -> frozenset[str] | None:
    """The zones an instruction's moves may put pieces into (``moves_into``; a draw: any zone),
    None when it moves nothing."""
    if op == m.OP_DRAW:
        return frozenset((EVERY,))
    found = [f.moves_into for f in instruction_functions(op, a, b) if getattr(f, "moves_into", None) is not None]
    return frozenset().union(*found) if found else None


class FaceLiveness:
    """For a game and the zones its analysis reads at a turn's end (``leaf_reads``, names;
    None: every zone), ``live(procedure, pc, waiting)``: the names of the zones whose dice's
    faces may still be read from a state waiting there."""

    def __init__(self, game: m.GameDef, leaf_reads: Iterable[str] | None):
        self.game = game
        names = frozenset(zone.name for zone in game.zones)
        self.names = names
        self.disabled = leaf_reads is None
        if self.disabled:
            return
        self._procedures = game.procedures
        self._size = sum(len(p.code) + 1 for p in game.procedures)
        try:
            self._returns = _returning(game)
            self._nexts = [successors(p, self._returns) for p in game.procedures]
            self._fires = self._firing()
            self.turn_world = self._in_turns()
            self._origins = self._slot_origins()
            ends = [check.test for check in game.ends + game.criteria + game.no_winner]
            leaf = frozenset(leaf_reads).union(*(objective_reads(f) for f in ends))
            if COUNTERS in leaf:
                leaf = (leaf - {COUNTERS}) | self._origins.get(COUNTERS, frozenset())
            self.leaf = self._expand(leaf)
            self._uses, self._kills = self._uses_and_kills()
            # what each triggered rule reads where it may be set off: its condition's reads
            self._trigger_reads = [self._expand(self._reads(trigger.cond, trigger.procedure))
                                   if trigger.cond is not None else frozenset() for trigger in game.move_triggers]
            self._live = self._flow()
        except _TooMuchWork:
            self.disabled = True

    def _another_pass(self, passes: int, cost: int | None = None) -> int:
        """Count a pass of a fixed point (``cost``: its steps, else one per instruction); a file
        so large or so tangled that the passes add up past ``MAX_WORK`` keeps every face live."""
        if (passes + 1) * (self._size if cost is None else cost) > MAX_WORK:
            raise _TooMuchWork
        return passes + 1

    # -- the triggered rules a statement may set off
    def _firing(self) -> list[list[tuple[int, ...]]]:
        """For each instruction of each procedure, the triggered rules (indices into
        ``GameDef.move_triggers``) its moves may set off: those whose `to` may name a zone the
        move may put pieces into (``moves_into``; a draw, any zone). They run after it, before
        what follows it, like a call."""
        triggers = self.game.move_triggers
        if len(triggers) * self._size > MAX_WORK:  # (a file of many triggered rules and statements)
            raise _TooMuchWork
        # where each instruction's moves may put pieces (None: it moves nothing)
        self._into = [[_moves_into(op, a, b) for op, a, b, _rule in procedure.code] for procedure in self._procedures]
        return [[() if into is None else tuple(
                    k for k, trigger in enumerate(triggers)
                    if EVERY in into or trigger.target_zones is None or into & trigger.target_zones)
                 for into in row] for row in self._into]

    def _in_turns(self) -> frozenset[int]:
        """The procedures a turn runs: the `turn:` section, what it calls and the triggered
        rules it sets off, and theirs. Their returns are followed only into turns: a state in one
        of them run from elsewhere (the set-up) is keyed with every face (``safe_stack``)."""
        triggers = self.game.move_triggers
        return frozenset(_reached(self._procedures, [m.TURN_PROCEDURE],
                                  lambda index, pc: [triggers[k].procedure for k in self._fires[index][pc]]))

    def safe_stack(self, stack) -> bool:
        """Whether ``live`` holds for a state with these frames: no procedure a turn runs was
        run there from outside a turn (its return would go where ``live`` does not look)."""
        world = getattr(self, "turn_world", None)
        if self.disabled or world is None:
            return True
        return not any(frame[0] in world and stack[i - 1][0] not in world and not frame[3]
                       for i, frame in enumerate(stack) if i)

    def _trigger_slots(self) -> dict:
        """(procedure, slot) -> the zones whose pieces a triggered rule's `moved` (slot 0),
        `moved_from` (1) and `moved_to` (2) may stand for when it reads them: `moved_from` the
        zones its `from` names, `moved_to` those its `to` names (any zone where one is left
        out); `moved`, the pieces where they went (`instead`: where they still are), or where the
        statement that set it off, or a triggered rule run before it, took them on."""
        every = frozenset((EVERY,))
        procedures = self._procedures
        triggers = self.game.move_triggers
        # where the triggered rules, and what they call, may put pieces
        taken = frozenset().union(*(into for index in _reached(procedures, [t.procedure for t in triggers])
                                    for into in self._into[index] if into is not None))
        # where the statements that set each rule off may put pieces (a block may move them on
        # before the rule runs)
        onward: list[frozenset[str]] = [frozenset()] * len(triggers)
        for index, row in enumerate(self._fires):
            for pc, ks in enumerate(row):
                for k in ks:
                    onward[k] = onward[k] | self._into[index][pc]
        origins: dict = {}
        for k, trigger in enumerate(triggers):
            sources = function_reads(trigger.sources) if trigger.sources is not None else every
            targets = trigger.target_zones if trigger.target_zones is not None else every
            moved = targets | taken | onward[k] | (sources if trigger.instead else frozenset())
            for slot, zones in enumerate((moved, sources, targets)[:procedures[trigger.procedure].slot_count]):
                key = (trigger.procedure, slot)
                origins[key] = origins.get(key, frozenset()) | zones
        return origins

    # -- what each function reads, through variables and counters
    def _slot_origins(self) -> dict:
        """(procedure, slot) -> the zones whose pieces the slot may hold; COUNTERS -> those a
        counter may hold: to a fixed point, since a variable may be made from another."""
        origins: dict = self._trigger_slots()  # (the engine fills slots 0 to 2 of a triggered rule)
        # a counter set only to numbers, text, players or none holds no piece (CounterDef.numbers_only)
        pieces_in_counters = not all(counter.numbers_only for counter in self.game.counters)
        writes = []  # (function, procedure, the slots it names or writes, whether it names counters)
        for index, procedure in enumerate(self._procedures):
            every = frozenset(range(procedure.slot_count))
            for op, a, b, _rule in procedure.code:
                for function in instruction_functions(op, a, b):
                    used = getattr(function, "slots_used", None)
                    slots = every if used is None else used
                    if op == m.OP_CHOOSE and function is a.options:
                        slots = slots | {a.slot}
                    if op == m.OP_CHOOSE and a.then is not None and function is a.then.options:
                        slots = slots | {a.then.slot}
                    writes.append((function, index, slots, getattr(function, "uses_counters", True)))
                if op in (m.OP_CALL, m.OP_TURN) and b is not None:  # arguments become parameters
                    callee = self._procedures[a]
                    writes.append((b, index, None, getattr(b, "uses_counters", True), a, range(callee.params)))
        changed, passes = True, 0
        while changed:
            changed, passes = False, self._another_pass(passes)
            for entry in writes:
                function, index, slots, counters = entry[:4]
                read = self._reads(function, index, origins)
                # (a variable of numbers holds no piece)
                procedure, written = (entry[4], entry[5]) if len(entry) > 4 else (index, slots)
                targets = [(procedure, slot) for slot in written if self._procedures[procedure].may_hold_piece(slot)]
                if counters and pieces_in_counters:
                    targets.append(COUNTERS)
                for target in targets:
                    before = origins.get(target, frozenset())
                    if not read <= before:
                        origins[target] = before | read
                        changed = True
        return origins

    def _reads(self, function, procedure: int, origins: dict | None = None) -> frozenset[str]:
        origins = self._origins if origins is None else origins
        read = function_reads(function)
        used = getattr(function, "slots_used", None)
        slots = range(self._procedures[procedure].slot_count) if used is None else used
        more = [origins.get((procedure, slot), frozenset()) for slot in slots]
        if getattr(function, "uses_counters", True):
            more.append(origins.get(COUNTERS, frozenset()))
        return read.union(*more)

    def _expand(self, names: frozenset[str]) -> frozenset[str]:
        return self.names if EVERY in names else names

    # -- the flow
    def _uses_and_kills(self) -> tuple[list, list]:
        uses, kills = [], []
        pending = (m.OP_CHOOSE, m.OP_BRANCH, m.OP_ROLL, m.OP_DRAW, m.OP_SHUFFLE, m.OP_TURN, m.OP_END_TURN,
                   m.OP_END_GAME, m.OP_CHECK_END)
        for index, procedure in enumerate(self._procedures):
            here_uses, here_kills = [], []
            for op, a, b, _rule in procedure.code:
                killed = frozenset()
                if op == m.OP_ROLL and getattr(a, "whole_zone", None) is not None:
                    zone = next((z for z in self.game.zones if z.name == a.whole_zone), None)
                    if zone is not None and not zone.per_player:
                        killed = frozenset((zone.name,))
                read = frozenset().union(*(self._reads(f, index) for f in instruction_functions(op, a, b)))
                read = self._expand(read) - killed  # the roll's own zone is not read: it is rolled
                if op in pending:
                    read |= self.leaf
                here_uses.append(read)
                here_kills.append(killed)
            uses.append(here_uses)
            kills.append(here_kills)
        return uses, kills

    def _flow(self) -> list[list[frozenset[str]]]:
        """Live zones before each instruction of each procedure (index ``len(code)``: its end),
        backwards to a fixed point over every procedure at once."""
        procedures = self._procedures
        live = [[frozenset()] * (len(p.code) + 1) for p in procedures]
        calls: list[list[tuple[int, int]]] = [[] for _ in procedures]  # procedure -> (caller, pc) of its calls
        # a triggered rule's procedure -> the instructions that may set it off (it returns to what follows them)
        sites: list[list[tuple[int, int]]] = [[] for _ in procedures]
        triggers = self.game.move_triggers
        world = self.turn_world
        for index, procedure in enumerate(procedures):
            reached = self._reachable(index)  # (a call after `end turn` returns nowhere)
            outside = index not in world  # (a return from a procedure a turn runs goes back into a turn)
            for pc, (op, a, _b, _rule) in enumerate(procedure.code):
                if pc not in reached:
                    continue
                if op in (m.OP_CALL, m.OP_TURN) and not (outside and a in world):
                    calls[a].append((index, pc))
                for k in self._fires[index][pc]:
                    if not (outside and triggers[k].procedure in world):
                        sites[triggers[k].procedure].append((index, pc))
        fired = [(index, pc, ks) for index, row in enumerate(self._fires) for pc, ks in enumerate(row) if ks]
        cost = self._size + sum(len(ks) for _, _, ks in fired) + sum(map(len, sites))
        changed, passes = True, 0
        while changed:
            changed, passes = False, self._another_pass(passes, cost)
            # what the rules each statement may set off read from their start (once a pass: the
            # fixed point ends on a pass that changes nothing, so it ends with them up to date)
            set_off = [[frozenset()] * len(p.code) for p in procedures]
            for index, pc, ks in fired:
                set_off[index][pc] = frozenset().union(
                    *(self._trigger_reads[k] | live[triggers[k].procedure][0] for k in ks))
            for index, procedure in enumerate(procedures):
                code, here, nexts = procedure.code, live[index], self._nexts[index]
                size = len(code)
                # (a turn's end, like a turn's start, is where the analysis stops: ``stop_at_turn_end``)
                back = frozenset().union(*(self.leaf if procedures[c].code[pc][0] == m.OP_TURN else live[c][pc + 1]
                                           for c, pc in calls[index]),
                                         *(live[c][t] for c, pc in sites[index] for t in self._nexts[c][pc]
                                           if 0 <= t < len(live[c])),
                                         *(set_off[c][pc] for c, pc in sites[index]))
                if here[size] != back:
                    here[size], changed = back, True
                for pc in range(size - 1, -1, -1):
                    op, a = code[pc][0], code[pc][1]
                    out = frozenset().union(*(here[t] for t in nexts[pc] if 0 <= t <= size))
                    if op == m.OP_RETURN:
                        out = here[size]
                    elif op == m.OP_END_TURN or op == m.OP_TURN:
                        out = self.leaf
                    elif op == m.OP_CALL:
                        out = out | live[a][0] | here[pc + 1]
                    # (and the rules it may set off: run after it, before what follows)
                    now = self._uses[index][pc] | (out - self._kills[index][pc]) | set_off[index][pc]
                    if now != here[pc]:
                        here[pc], changed = now, True
        return live

    def _reachable(self, procedure: int) -> set[int]:
        """The instructions of a procedure that its start leads to."""
        nexts, size = self._nexts[procedure], len(self._procedures[procedure].code)
        reached, waiting = set(), [0]
        while waiting:
            pc = waiting.pop()
            if 0 <= pc < size and pc not in reached:
                reached.add(pc)
                waiting.extend(nexts[pc])
        return reached

    def live(self, procedure: int, pc: int, waiting: str | None) -> frozenset[str]:
        """The zones whose dice's faces may still be read from a state at ``pc`` of
        ``procedure``, waiting there for a decision or an outcome of kind ``waiting`` (None: about
        to run it). Every zone when the game is not worked out (see the module)."""
        if self.disabled:
            return self.names
        here = self._live[procedure]
        if waiting is None or pc >= len(self._procedures[procedure].code):
            return here[min(pc, len(here) - 1)] | self.leaf
        nexts = self._nexts[procedure][pc]
        out = frozenset().union(*(here[t] for t in nexts if 0 <= t < len(here)))
        for k in self._fires[procedure][pc]:  # (a draw's move may set off triggered rules)
            out = out | self._trigger_reads[k] | self._live[self.game.move_triggers[k].procedure][0]
        if waiting == "roll":  # its function has run: what follows, less the rolled zone
            return (out - self._kills[procedure][pc]) | self.leaf
        return self._uses[procedure][pc] | out
