"""Which variables of a procedure may still be read: the liveness of its frame slots.

Two states of a turn that differ only in a variable no later statement reads play on alike, so
``rulelang.analysis`` keys a state by its live slots only. A slot is live at an instruction
when some path from there uses it before a choice writes it. The compiler marks each generated
function with the slots its source names (``slots_used``) and each statement function with the
places it may return to (``jumps``); a function without the marks (written by hand, or using
the frame in another way) keeps every slot live, and may go anywhere.
"""

from __future__ import annotations

from . import model as m

_NOTHING: frozenset[int] = frozenset()


class ProcedureLiveness:
    """The live slots of one procedure: ``live(pc)`` before instruction ``pc`` runs, and
    ``live(pc, kind)`` when a state waits at ``pc`` for a decision or an outcome of ``kind``
    ("choose", "branch", "roll", "draw", "shuffle"); ``getter`` gives the live values of a
    frame's slots."""

    def __init__(self, procedure: m.Procedure, returns: list[bool] | None = None):
        code = procedure.code
        size = len(code)
        self._all = frozenset(range(procedure.slot_count))
        nexts = successors(procedure, returns)
        uses: list[frozenset[int]] = []
        kills: list[frozenset[int]] = []
        # whether an instruction's kills hold on every way on (a statement writing a variable
        # before it can return), not only on the first (a choice's)
        kills_every: list[bool] = []
        for op, a, b, _rule in code:
            used, killed = self._all, _NOTHING
            if op == m.OP_EXEC:
                killed = getattr(a, "slots_killed", _NOTHING) if getattr(a, "slots_used", None) is not None \
                    else _NOTHING
                used = self._used(a) - killed
            elif op == m.OP_JUMP_IF_NOT or op == m.OP_ROLL or op == m.OP_SHUFFLE:
                used = self._used(a)
            elif op == m.OP_CHOOSE:
                used, killed = self._choice_uses(a)
            elif op == m.OP_BRANCH:
                used = self._used(a.chooser).union(*(self._used(cond) for _, cond, _, _ in a.branches))
            elif op == m.OP_DRAW:
                used = self._used(a.count) | self._used(a.source) | self._used(a.to)
            elif op in (m.OP_CALL, m.OP_TURN):
                used = self._used(b)
            elif op in (m.OP_JUMP, m.OP_RETURN, m.OP_END_TURN, m.OP_END_GAME, m.OP_CHECK_END):
                used = _NOTHING
            uses.append(used)
            kills.append(killed)
            kills_every.append(op == m.OP_EXEC)
        live = [_NOTHING] * (size + 1)
        changed = True
        while changed:  # backwards to a fixed point: loops carry liveness round
            changed = False
            for pc in range(size - 1, -1, -1):
                out = _NOTHING.union(*(live[t] for t in nexts[pc][1:] if 0 <= t <= size))
                if nexts[pc]:  # the first way on is the one a choice takes after writing its slots
                    out |= live[nexts[pc][0]] - kills[pc] if 0 <= nexts[pc][0] <= size else self._all
                if kills_every[pc]:
                    out -= kills[pc]
                now = uses[pc] | out
                if now != live[pc]:
                    live[pc], changed = now, True
        self._live = live
        self._kills = kills
        self._nexts = nexts

    def _used(self, function) -> frozenset[int]:
        if function is None:
            return _NOTHING
        used = getattr(function, "slots_used", None)
        return self._all if used is None else used

    def _choice_uses(self, spec: m.ChoiceSpec) -> tuple[frozenset[int], frozenset[int]]:
        """What working out a choice's options uses (the option being tested is in its own slot
        then), and the slots the choice writes."""
        killed = {spec.slot}
        used = self._used(spec.options) | self._used(spec.chooser) | self._used(spec.picked) | \
            (self._used(spec.where) - {spec.slot})
        if spec.labelled:  # labels must differ: a fault otherwise
            used |= self._used(spec.describe) - {spec.slot}
        if spec.then is not None:
            killed.add(spec.then.slot)
            used |= (self._used(spec.then.options) - {spec.slot}) | (self._used(spec.then.where) - killed)
        return used, frozenset(killed)

    def live(self, pc: int, waiting: str | None = None) -> frozenset[int]:
        """The live slots at ``pc``; ``waiting``: the kind of decision or outcome the state waits
        for there (the instruction has run up to it), or None."""
        if waiting is None:
            return self._live[pc] if pc < len(self._live) else self._all
        if waiting == "branch":
            return _NOTHING.union(*(self._live[t] for t in self._nexts[pc]))
        after = self._live[pc + 1]
        return after - self._kills[pc] if waiting == "choose" else after


def successors(procedure: m.Procedure, returns: list[bool] | None = None) -> list[tuple[int, ...]]:
    """Where each instruction may go on (a choice: first where it goes after writing its slot);
    ``returns[i]``: whether procedure i may return to its caller (None: all may)."""
    size = len(procedure.code)
    everywhere = tuple(range(size + 1))
    nexts = []
    for pc, (op, a, b, _rule) in enumerate(procedure.code):
        following = everywhere
        if op == m.OP_EXEC:
            jumps = getattr(a, "jumps", None)
            following = everywhere if jumps is None else (pc + 1, *jumps)
        elif op == m.OP_JUMP:
            following = (a,)
        elif op == m.OP_JUMP_IF_NOT:
            following = (pc + 1, b)
        elif op == m.OP_CHOOSE:
            following = (pc + 1,) if a.otherwise < 0 else (pc + 1, a.otherwise)
        elif op == m.OP_BRANCH:
            following = tuple(target for _, _, target, _ in a.branches)
        elif op == m.OP_CALL:
            following = (pc + 1,) if returns is None or returns[a] else ()  # one that ends the turn
        elif op in (m.OP_ROLL, m.OP_SHUFFLE, m.OP_DRAW, m.OP_TURN, m.OP_CHECK_END):
            following = (pc + 1,)
        elif op in (m.OP_RETURN, m.OP_END_TURN, m.OP_END_GAME):
            following = ()
        nexts.append(following)
    return nexts


def _returning(game: m.GameDef) -> list[bool]:
    """Whether each procedure may return to its caller: whether a `return` (or its end) can be
    reached from its start, going past calls of those that may. `end turn` does not return."""
    returns = [False] * len(game.procedures)
    changed = True
    while changed:
        changed = False
        for i, procedure in enumerate(game.procedures):
            if returns[i]:
                continue
            nexts, size = successors(procedure, returns), len(procedure.code)
            seen, todo = {0}, [0]
            while todo and not returns[i]:
                pc = todo.pop()
                if pc >= size or procedure.code[pc][0] == m.OP_RETURN:
                    returns[i] = changed = True
                    break
                for t in nexts[pc]:
                    if t not in seen and t >= 0:
                        seen.add(t)
                        todo.append(t)
    return returns


class GameLiveness:
    """``ProcedureLiveness`` of each procedure of a game, made when first asked for."""

    def __init__(self, game: m.GameDef):
        self.game = game
        self._procedures: dict[int, ProcedureLiveness] = {}
        self._returns = _returning(game)

    def of(self, procedure: int) -> ProcedureLiveness:
        found = self._procedures.get(procedure)
        if found is None:
            found = self._procedures[procedure] = ProcedureLiveness(self.game.procedures[procedure], self._returns)
        return found
