"""The rule machine of a game in progress: the instruction loop that runs the compiled rules
until the next decision or roll (``_run``), triggered rules, choices with parameters, the end
of the game, scores and winners, limits and invariants. A mixin of ``runtime.State``."""

from __future__ import annotations

import math
import re
import sys
from typing import TYPE_CHECKING, Any

from . import knowledge
from .codegen import _ONLY_INT, _freeze, _items, piece_key
from .diagnostics import Diagnostic, RuntimeFault
from .engine_values import SEE_PIECES, _code_of, _kind_of, _value_text, describe_error
from .model import SETUP_PROCEDURE, team_total

if TYPE_CHECKING:
    from . import model as m


class Machine:
    """The rule machine: runs the compiled rules between decisions."""

    # While a choice `by` another player than the current one works out its options: that
    # player, whose eyes tell alike pieces apart (``codegen._subsets``); else None
    deciding: int | None = None

    def _advance(self) -> None:
        self._run()
        if self.game.limits:
            self._check_limits()

    def _check_limits(self) -> None:
        """`limit N per player`: checked whenever the game waits, after every triggered rule,
        if a piece of a kind with a limit went to a player since the last check."""
        if not self.limits_unchecked:
            return
        kinds = self.game.kinds
        for kind_index, limit in self.game.limits:
            held: dict[int, list[int]] = {}
            for p in self.pieces.by_kind[kind_index]:
                owner = self.zone_of(self.where[p])[1]
                if owner is not None:
                    held.setdefault(owner, []).append(p)
            for owner, pieces in held.items():
                if len(pieces) > limit:
                    names = ", ".join(self.pieces.names[p] for p in pieces)
                    rule = self.game.rules[self.limit_rule] if self.limit_rule >= 0 else None
                    where = f" (last moved by rule `{rule.name}`, {rule.where()})" if rule else ""
                    self.pending = None
                    self.fault = RuntimeFault(Diagnostic(
                        "R508", f"player {owner + 1} holds {len(pieces)} {kinds[kind_index].name} ({names}), "
                        f"more than the limit of {limit}{where}", kinds[kind_index].span,
                        help="move the extra one away in a triggered rule: `when move to ZONE of players "
                        "if count(moved_to) > N:`"))
                    raise self.fault
        self.limits_unchecked = False

    def _with_parameters(self, spec: m.ChoiceSpec, slots: list, options: list) -> list:
        """The options of a choice with a parameter: each option with each of its parameter's
        options, in order, or alone (with none) when it has none."""
        then, before = spec.then, (slots[spec.slot], slots[spec.then.slot])
        pairs = []
        for option in options:
            slots[spec.slot] = option
            values = _items(self, then.options(self, slots))
            if then.where is not None:
                kept = []
                for value in values:
                    slots[then.slot] = value
                    if then.where(self, slots):
                        kept.append(value)
                values = kept
            distinct: dict = {}
            for value in values:  # repeated values are offered once, as for `choose`
                distinct.setdefault(_freeze(value), value)
            values = list(distinct.values())
            pairs.extend([(option, v) for v in values] or [(option, None)])
        slots[spec.slot], slots[spec.then.slot] = before
        return pairs

    def _match_triggers(self, indices: tuple[int, ...], pieces: list[int], origins: list[int], to: int,
                        instead: bool) -> list[int]:
        """Queue the triggered rules this move sets off, among those at ``indices`` (the move
        triggers that a move into this zone may set off, all `instead` or none). Before the
        move (``instead``), the pieces that `instead` rules take are removed from it; returns
        the pieces still to move."""
        running = {frame[0] for frame in self.frames}
        procedures = self.game.procedures
        triggers = self.game.move_triggers
        for index in indices:
            trigger = triggers[index]
            if trigger.procedure in running:
                continue  # a rule never triggers itself
            if trigger.targets is not None and to not in trigger.targets(self, []):
                continue
            if trigger.sources is not None:
                sources = trigger.sources(self, [])
                matched = [p for p, o in zip(pieces, origins) if o in sources]
            else:
                matched = list(pieces)
            if not matched:
                continue
            first_origin = origins[pieces.index(matched[0])]
            frame = [matched, first_origin, to] + [None] * (procedures[trigger.procedure].slot_count - 3)
            if trigger.cond is not None and not trigger.cond(self, frame):
                continue
            self.fired.append((len(self.frames) - 1, index, frame))
            if instead:
                pieces = [p for p in pieces if p not in matched]
                origins = [self.where[p] for p in pieces]
        return pieces

    def _rule_at(self) -> int:
        proc, pc = self.frames[-1][0], self.frames[-1][1]
        code = self.game.procedures[proc].code
        return code[pc][3] if pc < len(code) else -1

    def _seat(self, value: Any) -> int:
        """The seat a `by` names; anything else (none, a number that is no seat) is a fault."""
        if value.__class__ is int and 0 <= value < self.n:
            return value
        shown = "none" if value is None else _value_text(value)
        raise RuntimeFault(self._diagnostic(
            "R503", f"`by` names {shown}, which is not a player of this game"))

    def _check_labels(self, spec, options) -> list:
        """Options are told apart by their labels (on the screen, in logs and scenarios): two
        options with one label are a fault, unless they are identical pieces (`count 2`; the
        rows of a table differ by their `row`), of which the first is offered; returns the
        options offered."""
        seen: dict[str, Any] = {}
        kept = None
        for i, option in enumerate(options):
            text = spec.describe(self, option)
            if text in seen:
                first = seen[text]
                if spec.element == "piece" and option.__class__ is int and first.__class__ is int \
                        and piece_key(self, option) == piece_key(self, first):
                    kept = options[:i] if kept is None else kept
                    continue
                raise RuntimeFault(self._diagnostic("R503", f"`{spec.prompt}` has two options labelled "
                                                    f"`{text}`: {self._option_text(spec, first, options.index(first))} "
                                                    f"and {self._option_text(spec, option, i)}"))
            seen[text] = option
            if kept is not None:
                kept.append(option)
        return options if kept is None else kept

    def _option_text(self, spec, option, index: int | None = None) -> str:
        """An option in a fault's message: pieces by what they are, never by their ids; a piece
        not every seat sees by its place among the options (the message is shown to all)."""
        if spec.element == "piece" and option.__class__ is int:
            if index is not None and any(self.sight(self.where[option], seat) != SEE_PIECES for seat in range(self.n)):
                return f"option {index + 1} (a hidden {self.game.kinds[self.pieces.kind[option]].name})"
            return self.describe_piece(option)
        if spec.element == "pieces" and option.__class__ is list:
            return f"[{self.describe_group(option)}]"
        return _value_text(option)

    def _diagnostic(self, code: str, message: str, place: tuple | None = None) -> Diagnostic:
        """A fault at ``place`` (span, rule index), by default the statement running: the
        line of a generated statement function on the stack, or the instruction's."""
        span = None
        rule_text = ""
        if place is None:
            place = self._fused_place(sys._getframe(1))
        if place is None and self.frames:
            place = self._instruction_place(self.frames[-1])
        if place is not None:
            span, rule = place
            if rule >= 0:
                r = self.game.rules[rule]
                rule_text = f" (in rule `{r.name}`, {r.where()})"
        return Diagnostic(code, message + rule_text, span)

    def _instruction_place(self, frame: list) -> tuple:
        """The (span, rule) of the instruction ``frame`` is at."""
        proc = self.game.procedures[frame[0]]
        pc = min(frame[1], len(proc.code) - 1)
        return proc.spans[pc], proc.code[pc][3]

    def _fused_place(self, frame) -> tuple | None:
        """The (span, rule) of the statement a generated statement function runs, from the
        innermost of its frames on the stack (a fault's cost only: nothing runs when none)."""
        tables = self.game.line_tables
        while frame is not None:
            table = tables.get(frame.f_code.co_filename)
            if table is not None:
                return _line_place(table, frame.f_lineno)
            frame = frame.f_back
        return None

    def _fused_at(self, traceback) -> tuple | None:
        """The (span, rule) of the statement where an error left a generated statement function."""
        place = None
        tables = self.game.line_tables
        while traceback is not None:
            table = tables.get(traceback.tb_frame.f_code.co_filename)
            if table is not None:
                place = _line_place(table, traceback.tb_lineno) or place
            traceback = traceback.tb_next
        return place

    def _endless(self) -> None:
        """R502 in a loop of a generated statement function (`loop_budget` is spent)."""
        raise RuntimeFault(self._diagnostic("R502", f"no decision or roll after {self.game.step_limit} steps: "
                                            "an endless loop" + self._owed_note(), self._fused_place(sys._getframe(1))))

    def _owed_note(self) -> str:
        """During the last turns, who is still owed one: a loop of `give a turn to` that never
        names them gives no turn, round after round."""
        if not self.last_turns:
            return ""
        owed = ", ".join(f"player {p + 1}" for p in sorted(self.last_turns))
        return f" (still owed a last turn: {owed}; a turn goes only to a player owed one)"

    def _past_limit(self, what: str) -> Diagnostic:
        """R504 at the `game` header: the file's own `at most N` or, when lower, the `turns` limit."""
        if self.game.run_limits.turns < self.game.turn_limit:
            return Diagnostic("R504", f"the game went past the limit of {self.game.run_limits.turns} {what} in one "
                              "game", self.game.span, help="raise it with `--limit turns=N`")
        return Diagnostic("R504", f"the game went past its limit of {self.game.turn_limit} {what}", self.game.span,
                          help="check that the `end:` section can end the game, or raise `at most N turns` "
                          "in the `game` header")

    def _run(self) -> None:
        """Run instructions until a decision, a chance node or the end of the game."""
        game = self.game
        procedures, limit = game.procedures, game.step_limit
        frame = self.frames[-1]
        procedure, pc, slots, _ = frame
        code = procedures[procedure].code
        steps = 0
        fired = self.fired
        self.work = 0
        self.loop_budget = limit  # times round a loop of a generated function (`_endless`)
        try:
            while True:
                if fired:  # triggered rules run after the statement that set them off, each to its end
                    depth = len(self.frames) - 1
                    waiting = next((k for k, entry in enumerate(fired) if entry[0] == depth), -1)
                    if waiting >= 0:
                        frame[1] = pc
                        _, index, slots = fired.pop(waiting)
                        trigger = self.game.move_triggers[index]
                        if self.tracing:
                            labels = self.dynamic[0]
                            self.events.append((trigger.rule, "trigger", (
                                slots[0], slots[1], slots[2], trigger.instead, [labels[p] for p in slots[0]],
                                self._places((slots[1], slots[2])), trigger.seen_by)))
                        if self.rule_counts is not None:  # statistics without the trace
                            self.count_rule(trigger.rule)
                        frame = [trigger.procedure, 0, slots, False]
                        self.frames.append(frame)
                        code, pc = procedures[trigger.procedure].code, 0
                steps += 1
                if steps > limit:
                    frame[1] = pc
                    raise RuntimeFault(self._diagnostic("R502", f"no decision or roll after {limit} steps: "
                                                        "an endless loop" + self._owed_note()))
                op, a, b, rule = code[pc]
                if op == 0:  # OP_EXEC: statements, which may end by returning where to go on
                    target = a(self, slots)
                    pc = pc + 1 if target is None else target
                elif op == 2:  # OP_JUMP_IF_NOT
                    pc = pc + 1 if a(self, slots) else b
                elif op == 1:  # OP_JUMP
                    pc = a
                elif op == 3:  # OP_CHOOSE
                    frame[1] = pc
                    chooser = self.player if a.chooser is None else self._seat(a.chooser(self, slots))
                    if chooser != self.player:  # whose eyes tell alike pieces apart (`subsets`)
                        self.deciding = chooser
                    try:
                        options = a.options(self, slots)
                        if a.where is not None:  # the options the condition keeps
                            options = a.where(self, slots, options)
                    finally:
                        if chooser != self.player:
                            del self.deciding
                    if options and not isinstance(options[0], list):
                        options = list(dict.fromkeys(options))
                    if a.of_pieces and not a.several and not _ONLY_INT.issuperset(map(type, options)):
                        raise RuntimeFault(self._diagnostic(
                            "R503", f"`{a.prompt}` is a choice of pieces, and one of its options is not a piece"))
                    if a.then is not None:
                        options = self._with_parameters(a, slots, options)
                    if not options:
                        if a.otherwise < 0:
                            raise RuntimeFault(self._diagnostic("R501", f"`{a.prompt}` has no options"))
                        pc = a.otherwise
                        if self.tracing:
                            self.events.append((rule, "otherwise", (a.prompt, chooser,
                                                                    a.in_secret or self.called_in_secret())))
                        continue
                    if a.labelled:
                        options = self._check_labels(a, options)
                    self.pending = ("choose", a, options, chooser)
                    return
                elif op == 4:  # OP_BRANCH
                    frame[1] = pc
                    chooser = self.player if a.chooser is None else self._seat(a.chooser(self, slots))
                    options = a.fixed or [(label, target, once) for label, cond, target, once in a.branches
                                          if (cond is None or cond(self, slots))
                                          and (once is None or self.once_open(once, chooser))]
                    if not options:
                        raise RuntimeFault(self._diagnostic("R501", f"`{a.prompt}` has no open branch"))
                    if a.shared_labels and len({label for label, _, _ in options}) < len(options):
                        raise RuntimeFault(self._diagnostic("R503", f"`{a.prompt}` has two open branches labelled "
                                                            f"alike: {', '.join(label for label, _, _ in options)}"))
                    self.pending = ("branch", a, options, chooser)
                    return
                elif op == 5:  # OP_ROLL
                    frame[1] = pc
                    dice = a(self, slots)
                    if not dice:
                        pc += 1
                        continue
                    if len(set(dice)) != len(dice):  # a die listed twice (`A + B` overlapping) rolls once
                        dice = list(dict.fromkeys(dice))
                    kind_of, where = self.pieces.kind, self.where
                    kinds = set(map(kind_of.__getitem__, dice))
                    if len(kinds) == 1 and len(set(map(where.__getitem__, dice))) == 1:
                        groups = [(kinds.pop(), list(dice))]
                    else:  # alike only within one zone: each cup rolls its own faces
                        by_kind: dict[tuple[int, int], list[int]] = {}
                        for p in dice:
                            by_kind.setdefault((kind_of[p], where[p]), []).append(p)
                        groups = [(kind, group) for (kind, _), group in sorted(by_kind.items())]
                    for kind_index, _ in groups:
                        if self.game.kinds[kind_index].category != "die":  # not is_die
                            raise RuntimeFault(self._diagnostic(
                                "R503", f"`roll` needs dice; {self.game.kinds[kind_index].name} is not a die"))
                    self.pending = ("roll", rule, groups)
                    return
                elif op == 12:  # OP_DRAW
                    frame[1] = pc
                    count = a.count(self, slots)
                    if a.up_to and count.__class__ is int and count < 0:
                        count = 0  # "up to" a hand's size the hand already passes: nothing to draw
                    if count.__class__ is not int or count < 0:
                        raise RuntimeFault(self._diagnostic("R503", f"`draw` needs a count of 0 or more, not "
                                                            f"{_value_text(count)}"))
                    source = a.source(self, slots) if count or a.up_to else None
                    if a.up_to:
                        count = min(count, len(self.zones[source]))
                    if count == 0:
                        pc += 1
                        continue
                    if not self.zones[source]:
                        raise RuntimeFault(self._diagnostic(
                            "R507", f"nothing to draw: {self.zone_name(source)} is empty"))
                    self.pending = ("draw", rule, (source, a.to(self, slots), count))
                    return
                elif op == 13:  # OP_SHUFFLE
                    frame[1] = pc
                    zone = a(self, slots)
                    if self.tracing:
                        self.events.append((rule, "shuffle", zone))
                    if len(self.zones[zone]) < 2 or self.sort_columns[zone] is not None:
                        pc += 1  # nothing to put in order, or a zone that keeps its own
                        continue
                    if self.keeps_knowledge:
                        knowledge.shuffled(self, zone)
                    self.pending = ("shuffle", rule, (zone, len(self.zones[zone])))
                    return
                elif op == 6 or op == 11:  # OP_CALL, OP_TURN
                    frame[1] = pc + 1
                    if op == 11:
                        if self.stop_at_turn_end:  # (analysis) a turn begins: the one valued is over
                            frame[1], self.turn_over = pc, True
                            return
                        self.turn_number += 1
                        if self.turn_number > self.game.turn_limit or self.turn_number > self.game.run_limits.turns:
                            frame[1] = pc
                            raise RuntimeFault(self._past_limit("turns"))
                        if self.tracing:
                            self.events.append((rule, "turn", self.player))
                        if self.used_once:
                            self.reset_once(("turn",))
                    proc = procedures[a]
                    callee = [None] * proc.slot_count
                    if b is not None:  # a procedure's arguments, worked out once, in the caller's frame
                        frame[1] = pc
                        callee[:proc.params] = b(self, slots)
                        frame[1] = pc + 1
                    if len(self.frames) >= self.game.run_limits.call_depth:
                        frame[1] = pc
                        raise RuntimeFault(self._diagnostic(
                            "R513", f"procedures run inside each other more than {self.game.run_limits.call_depth} "
                            "deep: a procedure that runs itself without end"))
                    frame = [a, 0, callee, op == 11]
                    self.frames.append(frame)
                    code, slots, pc = proc.code, callee, 0
                elif op == 7 or op == 8:  # OP_RETURN, OP_END_TURN
                    if op == 8:
                        if not any(f[3] for f in self.frames):
                            frame[1] = pc
                            raise RuntimeFault(self._diagnostic(
                                "R503", "`end turn` runs outside a turn (from the `setup` or `round` section, "
                                "through a procedure or a triggered rule): there is no turn to end"))
                        if self.tracing:
                            self.events.append((rule, "end turn", self.player if a is None and not self.called_in_secret()
                                                else (self.player, True)))
                        while not self.frames[-1][3]:
                            self.frames.pop()
                    ended = self.frames.pop()
                    if fired:  # rules set off in the frames just left are not run
                        fired[:] = [entry for entry in fired if entry[0] < len(self.frames)]
                    frame = self.frames[-1]  # (a copy of the state may share it: its own, before it changes)
                    frame = self.frames[-1] = [frame[0], frame[1], frame[2].copy(), frame[3]]
                    code, slots, pc = procedures[frame[0]].code, frame[2], frame[1]
                    if ended[3] and self.stop_at_turn_end:  # (analysis) the turn valued has ended
                        self.turn_over = True
                        return
                elif op == 10:  # OP_CHECK_END
                    frame[1] = pc
                    if a and (self.round_number > self.game.turn_limit or self.round_number > self.game.run_limits.turns):
                        raise RuntimeFault(self._past_limit("rounds"))
                    if self._game_ends(a):
                        if self.finished:
                            return
                        frame = self.frames[-1]  # the `final` section, from its start
                        code, slots, pc = procedures[frame[0]].code, frame[2], 0
                        continue
                    pc += 1
                elif op == 9:  # OP_END_GAME
                    frame[1] = pc
                    self._finish(rule)
                    if self.finished:
                        return
                    frame = self.frames[-1]  # the `final` section, from its start
                    code, slots, pc = procedures[frame[0]].code, frame[2], 0
        except RuntimeFault:
            raise
        except Exception as error:  # a fault in the rules: name the rule, never a bare traceback
            frame[1] = pc
            place = self._fused_at(error.__traceback__)
            message = describe_error(error)
            if "NoneType" in str(error):
                message += self._none_variables(frame, place)
            raise RuntimeFault(self._diagnostic(_code_of(error), message, place)) from None

    def _none_variables(self, frame: list, place: tuple | None) -> str:
        """The variables the faulting statement names that are none now, as ``: `t` is
        none``, to say which value was none (a fault's cost only)."""
        proc = self.game.procedures[frame[0]]
        span = (place or self._instruction_place(frame))[0]
        if span is None:
            return ""
        text = _STRINGS_AND_COMMENTS.sub(" ", span.source.text[span.start:span.end])
        values: dict[str, list] = {}
        for name, value in zip(proc.slot_names, frame[2]):
            values.setdefault(name, []).append(value)
        names = [name for name in dict.fromkeys(_NAME.findall(text))
                 if name in values and all(v is None for v in values[name])]
        if not names:
            return ""
        return ": " + ", ".join(f"`{name}`" for name in names) + (" is" if len(names) == 1 else " are") + " none"

    def _game_ends(self, after_round: bool) -> bool:
        if self.last_turns is not None:  # the last turns under way: the player's was one of them
            owed = self.last_turns = self.last_turns - self.out - (frozenset() if after_round else {self.player})
            if not owed:
                self._finish(self.last_turns_rule)
                return True
        for check in self.game.ends:
            if check.kind != "end-turn" and (check.kind == "end-round") != after_round:
                continue
            last = check.kind.startswith("end-last-turns")
            if last and self.last_turns is not None:
                continue  # the last turns are given once
            if check.test(self, [None] * check.slot_count):
                if last and self._start_last_turns(check.rule, check.kind == "end-last-turns-all"):
                    continue
                self._finish(check.rule)
                return True
        return False

    def owed_turn(self, seat: int) -> bool:
        """During the last turns: whether ``seat`` takes its turn now (it is owed one, and is
        not the player owed the last of them while others still wait for theirs)."""
        owed = self.last_turns
        return seat in owed and (seat != self.last_turn_last or len(owed) == 1)

    def _start_last_turns(self, rule: int, everyone: bool = False) -> bool:
        """After this player's turn, every other player still in gets one more turn (and, with
        ``everyone``, this player too, last); False when there is nobody to give one to (the
        game ends now)."""
        owed = frozenset(range(self.n)) - self.out - (frozenset() if everyone else {self.player})
        if not owed:
            return False
        self.last_turns, self.last_turns_rule = owed, rule
        if everyone:  # X plays after every other player owed a turn (``owed_turn``)
            self.last_turn_last = self.player
        order = [(self.player + k) % self.n for k in range(1, self.n + 1)]
        if self.tracing:
            self.events.append((rule, "last turns", tuple(p for p in order if p in owed)))
        return True

    def _finish(self, rule: int) -> None:
        """The game ends by ``rule``: the `final` section runs first, if the game has one
        (its end, rule -1, finishes the game for the rule that ended it)."""
        final = self.game.final
        if final is not None and not self.in_final:
            self.in_final = True
            self.end_rule = rule
            if self.fired:
                self.fired.clear()
            self.pending, self.last_turns = None, None
            self.frames = [[final, 0, [None] * self.game.procedures[final].slot_count, False]]
            return
        if self.in_final and rule < 0:
            rule = self.end_rule
        self.finished = True
        if self.fired:
            self.fired.clear()
        self.pending = None
        self.frames = []  # nothing runs any more: a finished state keeps the position, not the program
        self.end_rule = rule
        self.winners = self._winners()
        if self.tracing:
            self.events.append((rule, "game over", tuple(self.winners)))

    def scores(self, lenient: bool = False) -> list[list]:
        """The winner criteria's values for each player, in criteria order; a criterion that
        fails or is not a number is a RuntimeFault naming its rule, or, ``lenient`` (a board or
        a lead during play, when a criterion may not be worked out yet), None."""
        saved, work = self.player, self.work
        table = []
        try:
            for p in range(self.n):
                self.player = p
                row = []
                for c in self.game.criteria:
                    try:
                        value = self._evaluate(c, f"winner rule `{self.game.rules[c.rule].name}`")
                        if value is not None and value.__class__ not in (int, float, bool):
                            raise RuntimeFault(Diagnostic(
                                "R503", f"the winner rule `{self.game.rules[c.rule].name}` ranks players by "
                                f"{_kind_of(value)}, not a number", c.span,
                                help="rank by a number, such as a counter or `count(...)`"))
                    except RuntimeFault:
                        if not lenient:
                            raise
                        value = None
                    row.append(value)
                table.append(row)
        finally:
            self.player = saved
            if lenient:
                self.work = work
        return table

    def _evaluate(self, check: m.Check, what: str) -> Any:
        """A check's value; a Python error in it becomes a RuntimeFault naming ``what``."""
        self.work = 0
        try:
            return check.test(self, [None] * check.slot_count)
        except Exception as error:
            raise RuntimeFault(Diagnostic(_code_of(error), f"{what} cannot be worked out: "
                                          f"{describe_error(error)}", check.span)) from None

    def _winners(self) -> list[int]:
        for check in self.game.no_winner:
            if self._evaluate(check, f"winner rule `{self.game.rules[check.rule].name}`"):
                return []
        table = self.team_scores()
        keys = []
        for row in table:
            key = []
            for check, value in zip(self.game.criteria, row, strict=True):
                # none (nothing to count) ranks last under both `most` and `least`
                key.append(-math.inf if value is None else value if check.kind == "most" else -value)
            keys.append(tuple(key))
        best = max(keys) if keys else None
        team_of = self.game.team_of
        return [p for p in range(self.n) if keys[team_of(p, self.n) if len(keys) < self.n else p] == best]

    def team_scores(self, lenient: bool = False) -> list[list]:
        """``scores`` by team (`teams of N`, team 0, 1, ...): each criterion's value for a team
        is the sum of its players' (true counts 1; none counts nothing, and a team all of whose
        players have none has none). Without teams, ``scores`` itself."""
        table = self.scores(lenient)
        if self.game.team_size == 1:
            return table
        return [[team_total([table[p][k] for p in self.game.team(t, self.n)]) for k in range(len(self.game.criteria))]
                for t in range(self.n // self.game.team_size)]

    def check_invariants(self) -> list[str]:
        """Names of declared invariants that do not hold now; none while the set-up runs (a
        draw of the set-up waiting: what it has not made yet cannot hold)."""
        if any(frame[0] == SETUP_PROCEDURE for frame in self.frames):
            return []
        return [self.game.rules[c.rule].name for c in self.game.invariants
                if not self._evaluate(c, f"invariant `{self.game.rules[c.rule].name}`")]


_STRINGS_AND_COMMENTS = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*')
_NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


def _line_place(table: tuple, line: int | None) -> tuple | None:
    """The (span, rule) of a statement function's source line (its first is the `def`)."""
    return table[line - 2] if line is not None and 2 <= line < len(table) + 2 else None
