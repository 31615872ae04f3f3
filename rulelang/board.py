"""The pieces, zones and counters of a game in progress, and the effects rules have on them:
moves (with sorted zones and carried zones), creation, rolls and draws, counters, players put
out, `once per` branches and tallies. A mixin of ``runtime.State``: it reads and writes the
state's storage (``zones``, ``where``, ``dynamic``, ``pieces``, ``counters``)."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any

from . import knowledge
from .diagnostics import Diagnostic, RuntimeFault
from .engine_values import PieceTable, _code_of, _hashable, _named, describe_error
from .limits import LimitExceeded

if TYPE_CHECKING:
    from . import model as m


class Board:
    """Storage and effects: the State's pieces, zones and counters."""

    def _init_counters(self) -> None:
        places = self.game.counter_places
        if not places:
            return  # the class's empty tuple: nothing to copy
        shared = places[:self.counter_base]
        values: list = []
        self.counters = values  # filled as it goes: a start value may read an earlier counter
        for i, key in shared + tuple(place for place in places[self.counter_base:] for _ in range(self.n)):
            c = self.game.counters[i]
            try:
                frame = [c.keys[key]] if key >= 0 else []  # a counter with keys: the start value may read its key
                values.append(self._checked_number(c.initial(self, frame), "the number"))
            except Exception as error:  # a fault in a start value: name the counter
                raise RuntimeFault(Diagnostic(
                    _code_of(error), f"the start value of counter `{c.name}` cannot be worked out: "
                    f"{describe_error(error)}", c.span)) from None

    def _checked_number(self, value: Any, what: str) -> Any:
        if value.__class__ is int and not -self.big_number < value < self.big_number:
            raise LimitExceeded("R511", f"{what} has more than {self.number_digits} digits")
        return value

    def reset_once(self, scopes: tuple[str, ...]) -> None:
        """Open again the `once per ...` branches of these scopes (a new turn or round)."""
        once_scopes = self.game.once_scopes
        self.used_once = frozenset(key for key in self.used_once if once_scopes[key[0]] not in scopes)

    def once_open(self, once: int, seat: int) -> bool:
        """Whether a `once per ...` branch is still open for this seat."""
        return (once, seat) not in self.used_once

    def _apply_draw(self, pending: tuple, piece) -> bool:
        """Move the drawn piece; True when more pieces of the same `draw` are to come."""
        source, to, remaining = pending[2]
        if piece.__class__ is not int or piece not in self.zones[source]:
            raise RuntimeFault(self._diagnostic("R506", f"{piece!r} is not a piece in {self.zone_name(source)}"))
        self.move([piece], to, False, pending[1])
        if remaining <= 1:
            return False
        if not self.zones[source]:
            self.pending = None
            self.fault = RuntimeFault(self._diagnostic(
                "R507", f"nothing to draw: {self.zone_name(source)} is empty ({remaining - 1} more wanted)"))
            raise self.fault
        self.pending = ("draw", pending[1], (source, to, remaining - 1))
        return True

    def say(self, text: str, rule: int, secret: bool = False) -> None:
        """`say ...`: a line of the trace (``secret``: the referee's alone)."""
        if self.tracing:
            self.events.append((rule, "say", (text,) if secret else text))

    def tally(self, name: str, key: Any) -> None:
        """`tally NAME by KEY`: one more of this outcome, for statistics."""
        if key.__class__ is list:
            key = tuple(map(_hashable, key))
        tallies = dict(self.tallies)
        tallies[(name, key)] = tallies.get((name, key), 0) + 1
        self.tallies = tallies

    def shuffle_left(self) -> list[int]:
        """The pieces a pending shuffle has not placed yet: one of them goes next, below those placed."""
        zone, left = self.pending[2]
        return self.zones[zone][:left]

    def _apply_shuffle(self, pending: tuple, piece) -> bool:
        """Place the piece picked next: it goes under the pieces already placed, so the first
        picked ends on top. True when more picks are to come (the last piece left needs none)."""
        zone, left = pending[2]
        pieces = self.zones[zone]
        if piece.__class__ is not int or piece not in pieces[:left]:
            raise RuntimeFault(self._diagnostic("R506", f"{piece!r} is not a piece left to shuffle in "
                                                f"{self.zone_name(zone)}"))
        pieces.remove(piece)
        pieces.insert(left - 1, piece)
        if left - 1 <= 1:
            return False
        self.pending = ("shuffle", pending[1], (zone, left - 1))
        return True

    def _places(self, zones, to: int = -1) -> dict | None:
        """Where the carriers of the carried zones among ``zones`` and ``to`` lie now, for an
        event's line (``zone_name``); None when there is none."""
        base = self.piece_zone_base
        if len(self.zones) == base:
            return None
        found = {z: self.where[self.carried[z - base][1]] for z in (*zones, to) if z >= base}
        return found or None

    def zone_of(self, index: int) -> tuple[m.ZoneDef, int | None]:
        """The zone definition of a zone instance, and its owner's seat (None when shared, or
        carried by a piece)."""
        if index < self.zone_base:
            return self.game.zones[index], None
        if index >= self.piece_zone_base:
            return self.game.zones[self.carried[index - self.piece_zone_base][0]], None
        ordinal, owner = divmod(index - self.zone_base, self.n)
        return self.game.zones[self.zone_base + ordinal], owner

    def zone_index(self, name: str, owner: int | None = None) -> int:
        for zone in self.game.zones:
            if zone.name == name and not zone.per_piece:
                if zone.per_player:
                    return self.zone_base + zone.ordinal * self.n + (owner or 0)
                return zone.ordinal
        raise KeyError(name)

    def move(self, pieces: list[int], to: int, at_bottom: bool, rule: int) -> None:
        game = self.game
        into = self.zone_of(to) if game.move_triggers or game.limits else None  # (definition, owner)
        if game.move_triggers:
            tested = game.triggers_by_zone.get(into[0].name, game.triggers_anywhere)
            if tested[0]:
                pieces = self._match_triggers(tested[0], pieces, [self.where[p] for p in pieces], to, True)
                if not pieces:
                    return
        if game.limits and into[1] is not None:
            limited, kind_of = game.limited_kinds, self.pieces.kind
            if any(kind_of[p] in limited for p in pieces):
                self.limit_rule = rule
                self.limits_unchecked = True
        self.work += len(pieces)
        if self.work > self.work_budget:
            raise LimitExceeded("R509", f"more work in one step than the limit of {self.work_budget} "
                                f"(moving {len(pieces)} pieces)")
        zones, where = self.zones, self.where
        below = self._below_tops(pieces) if self.tracing else None
        if len(pieces) == 1:  # the usual move (a draw, a chosen piece)
            origins = [where[pieces[0]]]
            zones[origins[0]].remove(pieces[0])
        else:
            origins = list(map(where.__getitem__, pieces))
            source = zones[origins[0]] if origins else None
            if source is not None and len(source) == len(pieces) and source == pieces and source is not pieces:
                source.clear()  # a whole zone, in its order
            elif len(pieces) > 8:  # many pieces: one pass over each zone they leave, not one per piece
                gone = set(pieces)
                if len(gone) != len(pieces):
                    pieces, origins = self._once_each(pieces)
                for origin in set(origins):
                    zones[origin][:] = [p for p in zones[origin] if p not in gone]
            else:
                try:
                    for p, origin in zip(pieces, origins):
                        zones[origin].remove(p)
                except ValueError:  # a piece listed twice: the first removal took it
                    pieces, origins = self._once_each(pieces)
                    for p, origin in zip(pieces, origins):
                        if p in zones[origin]:
                            zones[origin].remove(p)
        target = zones[to]
        sort_column = self.sort_columns[to]
        if sort_column is not None:
            # A sorted zone stays sorted (create sorts it too): each piece goes after its equals.
            key = self.pieces.sort_key_column(sort_column).__getitem__
            for p in pieces:
                bisect.insort_right(target, p, key=key)
                where[p] = to
        else:
            for p in pieces:
                where[p] = to
            if at_bottom:
                target[0:0] = pieces
            else:
                target.extend(pieces)
        if self.tracing:
            # `pieces` is the caller's fresh list, never changed afterwards: kept as it is.
            self.events.append((rule, "move", (pieces, origins, to, list(map(self.dynamic[0].__getitem__, pieces)),
                                               self._places(origins, to) if self.carried else None, below)))
        if self.keeps_knowledge:
            knowledge.moved(self, pieces, origins, to)
        if game.move_triggers and tested[1]:
            self._match_triggers(tested[1], pieces, origins, to, False)

    def _below_tops(self, pieces: list[int]) -> frozenset[int] | None:
        """The pieces moved out of a `top only` zone from under its top piece (the trace names
        only its top to who sees no more of it), or None."""
        tops = self.top_only_zones
        if not tops:
            return None
        where, zones = self.where, self.zones
        below = frozenset(p for p in pieces if where[p] in tops and zones[where[p]][-1] != p)
        return below or None

    @property
    def top_only_zones(self) -> frozenset[int]:
        """The zone instances whose visibility is `top only`."""
        found = self.__dict__.get("_top_only")
        if found is None or found[0] != len(self.zones):
            found = self._top_only = (len(self.zones), frozenset(
                i for i in range(len(self.zones)) if self.zone_of(i)[0].visibility == "top only"))
        return found[1]

    def _once_each(self, pieces: list[int]) -> tuple[list[int], list[int]]:
        """A move's pieces without repeats (`(cup where face < 4) + (cup where face == 1)`
        lists each 1 twice; it moves once), and where each lies."""
        pieces = list(dict.fromkeys(pieces))
        return pieces, list(map(self.where.__getitem__, pieces))

    def create(self, kind_index: int, count: int | None, into: int, rule: int) -> None:
        kind = self.game.kinds[kind_index]
        room = self.game.run_limits.pieces - len(self.pieces.kind)
        wanted = len(kind.pieces) if count is None else count
        if wanted.__class__ is not int:
            raise TypeError(f"`create` needs a whole number of pieces, not {type(wanted).__name__}")
        if wanted < 0:
            raise ValueError(f"`create` needs a count of 0 or more, not {wanted}")
        if wanted > room:
            raise LimitExceeded("R512", f"`create` of {wanted} {kind.name} would make more than the "
                                f"limit of {self.game.run_limits.pieces} pieces in a game")
        rows = kind.pieces if count is None else (kind.pieces[0],) * count if kind.pieces else ()
        old = self.pieces
        start, added = len(old.kind), len(rows)
        new = list(range(start, start + added))
        number_column = self.game.attributes.index("number")
        value_column = self.game.attributes.index("value")
        by_kind = list(old.by_kind)
        by_kind[kind_index] = old.by_kind[kind_index] + new
        names = [kind.name if kind.is_die or not kind.name_columns or any(row[c] is None for c in kind.name_columns)
                 else " ".join([kind.name] + [str(row[c]) for c in kind.name_columns]) for row in rows]
        # A new table, never a changed one: clones made before still share the old.
        self.pieces = table = PieceTable(
            old.kind + [kind_index] * added,
            [column + [row[i] for row in rows] for i, column in enumerate(old.columns)],
            by_kind, old.names + names)
        self.where.extend([into] * added)
        if kind_index in self.game.limited_kinds:
            self.limits_unchecked = True
        labels_out, values_out, numbers_out = self.own_dynamic()
        labels_out.extend([None] * added)
        if kind.is_die:
            values_out.extend([None] * added)
            numbers_out.extend([None] * added)
        else:
            values_out.extend(row[value_column] for row in rows)
            numbers_out.extend(row[number_column] for row in rows)
        sort_column = self.sort_columns[into]
        if sort_column is not None:
            self.zones[into] = sorted(self.zones[into] + new, key=table.sort_key_column(sort_column).__getitem__)
        else:
            self.zones[into].extend(new)
        carriers = [(i, z) for i, z in enumerate(self.game.zones) if z.per_piece]
        if carriers:
            self._make_carried_zones(carriers, kind_index, new)
        if self.tracing:
            self.events.append((rule, "create", (tuple(new), into, self._places((into,)))))
        if self.keeps_knowledge:
            knowledge.created(self, new, into)

    def _make_carried_zones(self, carriers: list, kind_index: int, new: list[int]) -> None:
        piece_zone, carried = [list(table) for table in self.piece_zone], list(self.carried)
        sort_columns = list(self.sort_columns)
        for ordinal, (zone_index, zone) in enumerate(carriers):
            for p in new:
                if kind_index in zone.carried_by:
                    piece_zone[ordinal].append(len(self.zones))
                    carried.append((zone_index, p))
                    self.zones.append([])
                    sort_columns.append(zone.sort_column)
                else:
                    piece_zone[ordinal].append(None)
        self.piece_zone, self.carried, self.sort_columns = piece_zone, carried, sort_columns

    def set_counter(self, index: int, value: Any, rule: int, is_seat: bool = False, pieces: bool = False,
                    secret: bool = False) -> None:
        """A counter set to ``value`` (``is_seat``: a player; ``pieces``: a piece or pieces,
        which the trace names where each viewer sees them, so it keeps where they lie; None:
        as the counter holds, set from a variable that reads as any value). ``secret``: whose
        counter it is, or that it is set, was worked out from what some seat cannot see, so the
        line is its owner's alone (``HiddenValues``)."""
        if pieces is None:
            counter = self.counter_of(index)[0]
            pieces, is_seat = counter.holds_pieces, counter.holds_player
        if value.__class__ is int and not -self.big_number < value < self.big_number:
            raise LimitExceeded("R511", f"{self.counter_name(index)} would get a number of more "
                                f"than {self.number_digits} digits")
        old = self.counters[index]
        self.counters[index] = value
        if self.keeps_knowledge and self.seen_counters:
            knowledge.counter_set(self, index, value)
        if self.tracing and not (old.__class__ is value.__class__ and old == value and not pieces
                                 and self._plainly_public(index)):
            # (a public counter set to what it holds changes nothing: no line; a hidden one's
            # line says only that it was set, and its absence would tell the value)
            kind = "secret set" if secret else "set"
            if pieces:
                where = self.where
                places = tuple(where[p] if p.__class__ is int else None for p in
                               (value if value.__class__ is list else [value]))
                self.events.append((rule, kind, (index, value, False, places)))
            else:
                self.events.append((rule, kind, (index, value, is_seat)))

    def _plainly_public(self, index: int) -> bool:
        """Whether every seat sees the counter slot's value. An entry set by a key some seat
        may not know counts too: the board shows every entry, so a line for a value that did
        not change would only name the key."""
        return self.counter_of(index)[0].visibility == "public"

    def eliminate(self, who: Any, rule: int, back: bool = False) -> None:
        """`eliminate`: a player, or a list of players, is out for the rest of the game;
        one already out stays out, silently. ``back`` (`bring back`): they are in again; one
        who is in stays in, silently."""
        for seat in who if isinstance(who, list) else [who]:
            if seat.__class__ is not int or not 0 <= seat < self.n:
                raise ValueError(f"`{'bring back' if back else 'eliminate'}` names {_named(seat)}, which is not "
                                 "a player of this game")
            if (seat in self.out) == back:
                self.out = self.out - {seat} if back else self.out | {seat}
                if self.tracing:
                    self.events.append((rule, "back" if back else "out", seat))

    def another_turn(self, rule: int) -> None:
        """`player takes another turn`: when the turn in progress ends, its player takes the
        next one too (written twice in a turn, still one more)."""
        if not any(frame[3] for frame in self.frames):
            raise ValueError("`player takes another turn` runs outside a turn (from the `setup` or `round` section, "
                             "through a procedure or a triggered rule): there is no turn to follow")
        if not self.again:
            self.again = True
            if self.tracing:
                self.events.append((rule, "again", self.player))

    def reveal(self, pieces: list, who: Any, rule: int, secret: bool = False) -> None:
        """`reveal`: one player sees ``pieces`` where they lie; the trace tells the others that
        they did (which pieces, only as far as they see them), unless ``secret``: shown to whom,
        or whether anything is, was worked out from what some seat cannot see."""
        self._reveal(pieces, self.turn_start(who, "`reveal ... to`"), rule, secret)

    def reveal_to_each(self, pieces: list, seats: list, rule: int, secret: bool = False) -> None:
        """`reveal ... to` a list of players: to each in turn, a line each; to every player of
        the game, one line that every viewer reads, spectators too (the table sees it)."""
        seats = [self.turn_start(seat, "`reveal ... to`") for seat in seats]
        if len(seats) < self.n or set(seats) != set(range(self.n)):
            for seat in seats:
                self._reveal(pieces, seat, rule, secret)
            return
        self._reveal(pieces, None, rule)

    def _reveal(self, pieces: list, seat: int | None, rule: int, secret: bool = False) -> None:
        """``pieces`` shown to ``seat`` (None: to every player), its trace line and what it tells."""
        if not pieces:
            return
        if self.tracing:
            zones = list(map(self.where.__getitem__, pieces))
            self.events.append((rule, "reveal", (tuple(pieces), zones, seat, [self.dynamic[0][p] for p in pieces],
                                                 self._places(zones) if self.carried else None,
                                                 secret or self.called_in_secret())))
        if self.keeps_knowledge:
            for shown_to in range(self.n) if seat is None else (seat,):
                knowledge.revealed(self, pieces, shown_to)

    def turn_start(self, seat: Any, what: str = "`starting with`") -> int:
        """The seat a `starting with` (or ``what``) names (a number wraps around, as `seat(i)` does)."""
        if seat.__class__ is not int:
            raise ValueError(f"{what} names {_named(seat)}, which is not a player of this game")
        return seat % self.n

    def _apply_roll(self, pending: tuple, outcome) -> None:
        groups = pending[2]
        if len(groups) == 1 and outcome.__class__ is tuple and len(outcome) == 1:  # one kind of dice
            kind_index, dice = groups[0]
            faces = outcome[0]
            kind = self.game.kinds[kind_index]
            labels = kind.face_labels
            if faces.__class__ is tuple and len(faces) == len(dice) and list(faces) == sorted(faces) \
                    and (not faces or (0 <= faces[0] and faces[-1] < len(labels))):
                labels_out, values_out, numbers_out = self.own_dynamic() if self.dynamic_shared else self.dynamic
                values, numbers = kind.face_values, kind.face_numbers
                for p, f in zip(dice, faces):
                    labels_out[p] = labels[f]
                    values_out[p] = values[f]
                    numbers_out[p] = numbers[f]
                if self.tracing:
                    self.events.append((pending[1], "roll", list(zip(
                        dice, map(labels_out.__getitem__, dice), map(self.where.__getitem__, dice)))))
                if self.keeps_knowledge:
                    knowledge.rolled(self, dice)
                return
        if outcome.__class__ is not tuple or len(outcome) != len(groups):
            raise RuntimeFault(self._diagnostic("R506", f"{outcome!r} is not an outcome of this roll"))
        kinds = self.game.kinds
        for (kind_index, dice), faces in zip(groups, outcome):
            count = len(kinds[kind_index].face_labels)
            if faces.__class__ is not tuple or len(faces) != len(dice) or list(faces) != sorted(faces) \
                    or (faces and not (0 <= faces[0] and faces[-1] < count)):
                raise RuntimeFault(self._diagnostic("R506", f"{outcome!r} is not an outcome of this roll"))
        labels_out, values_out, numbers_out = self.own_dynamic()
        for (kind_index, dice), faces in zip(groups, outcome):
            kind = kinds[kind_index]
            labels, values, numbers = kind.face_labels, kind.face_values, kind.face_numbers
            for p, f in zip(dice, faces):
                labels_out[p] = labels[f]
                values_out[p] = values[f]
                numbers_out[p] = numbers[f]
        if self.tracing:
            where = self.where
            self.events.append((pending[1], "roll", [(p, labels_out[p], where[p]) for _, dice in groups for p in dice]))
        if self.keeps_knowledge:
            knowledge.rolled(self, [p for _, dice in groups for p in dice])

    def counter_of(self, index: int) -> tuple[m.CounterDef, int | None]:
        """The definition of a counter slot, and its owner's seat (None when shared)."""
        counter, _, owner = self.counter_place(index)
        return counter, owner

    def counter_place(self, index: int) -> tuple[m.CounterDef, int, int | None]:
        """The definition of a counter slot, the position of its key (-1 for a counter without
        keys), and its owner's seat (None when shared)."""
        if index < self.counter_base:
            i, key = self.game.counter_places[index]
            return self.game.counters[i], key, None
        place, owner = divmod(index - self.counter_base, self.n)
        i, key = self.game.counter_places[self.counter_base + place]
        return self.game.counters[i], key, owner
