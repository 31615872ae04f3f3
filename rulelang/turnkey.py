"""What makes two states of a turn play on alike: the key ``rulelang.analysis`` memoises on.

Two states with the same key have the same future, move for move, so each is valued once:
- **Alike pieces.** Pieces of one kind with the same attributes are interchangeable: a zone is
  keyed by what each piece is and the face it shows (a die's value and number follow from its
  face; nothing else about a piece changes), not by its id. The faces of dice about to be
  rolled are left out: the roll replaces them.
- **Bags.** A zone whose order no rule reads (``GameDef.order_read_zones``, worked out by
  ``rulelang.order_reads``) is keyed as a multiset.
- **Live variables.** Of each running procedure's variables, only those some later statement
  may read (``rulelang.liveness``) are in the key.
- **Dead faces.** Dice in a zone that every way on rolls again before a rule reads it are
  keyed without their faces (``rulelang.faces``), given what the objective reads at the
  turn's end (``leaf_reads``; None keeps every face).
- **Options.** A choice among pieces is keyed by where each option lies: the zone, and the
  place in it when the zone's order counts.
Where a variable, a counter or another option still holds the id of an alike piece, the ids are
kept in the key: merging those states could be wrong, so they are not merged.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from .faces import FaceLiveness
from .liveness import GameLiveness
from .runtime import State


class TurnKeys:
    """``key(state)`` for the states of one game (see the module); ``unordered``: more zone
    indices to key as multisets, beyond those whose order the rules never read."""

    def __init__(self, unordered: frozenset[int] = frozenset(), leaf_reads: frozenset[str] | None = None):
        self.given = unordered
        self.leaf_reads = leaf_reads
        self.faces: FaceLiveness | None = None
        self.dead: dict[tuple, tuple[int, ...]] = {}  # (procedure, pc, waiting) -> zones whose faces are dead
        self.game = None
        self.table = None
        self.zone_count = -1
        self.canon: list[int] = []
        self.alike: frozenset[int] = frozenset()
        self.unordered: frozenset[int] = unordered
        self.liveness: GameLiveness | None = None
        self.bags: list[bool] = []
        self.signatures: dict[tuple, int] = {}  # (kind of alike piece, face) -> its number to the key
        self.groups: dict[tuple, int] = {}  # what pieces alike share -> the number of their kind
        # ``_plan_key`` -> ``_plan``
        self.plans: dict[tuple, tuple] = {}
        self.plan_count = 0  # plans numbered for all refreshes: a number keeps its meaning in the keys made

    def _refresh(self, state: State) -> None:
        if state.game is not self.game:
            self.game = state.game
            self.liveness = GameLiveness(state.game)
            self.faces = FaceLiveness(state.game, self.leaf_reads)
        read = state.game.order_read_zones
        bags = frozenset() if read is None else frozenset(
            i for i in range(len(state.zones)) if state.zone_of(i)[0].name not in read)
        self.unordered = self.given | bags
        self.bags = [i in self.unordered for i in range(len(state.zones))]
        self.keyed_zones = zones_keyer(self.bags)
        self.dead_keyers: dict[tuple[int, ...], Any] = {}  # zones keyed without dice faces -> their keyer
        self.plans = {}
        pieces = self.table = state.pieces  # replaced, never changed, when pieces are made
        self.zone_count = len(state.zones)
        count = len(pieces.kind)
        carriers = {p for column in state.piece_zone for p, zone in enumerate(column) if zone is not None}
        kinds = state.game.kinds
        _, value, number = state.dynamic
        by_sig: dict[tuple, list[int]] = {}
        for p in range(count):
            if p in carriers:  # what it carries goes with it: never alike
                continue
            kind = pieces.kind[p]
            shows = () if kinds[kind].face_labels else (value[p], number[p])
            by_sig.setdefault(_freeze((kind, shows) + tuple(column[p] for column in pieces.columns)), []).append(p)
        canon = list(range(count))
        alike = set()
        for alike_as, members in by_sig.items():
            if len(members) > 1:
                # numbered once for all refreshes: a number keeps its meaning in the keys made
                group = self.groups.setdefault(alike_as, len(self.groups))
                for p in members:
                    canon[p] = -1 - group
                    alike.add(p)
        self.canon, self.alike = canon, frozenset(alike)
        self.mentions: dict[tuple, bool] = {}
        # the counters that may hold a piece's id (the others hold numbers, text, players): None, all
        self.counter_count = len(state.counters)
        self.id_counters = [i for i in range(len(state.counters)) if not state.counter_place(i)[0].numbers_only]
        if len(self.id_counters) == len(state.counters):
            self.id_counters = None
        self.dead = {}
        self.zone_names = [state.zone_of(i)[0].name for i in range(len(state.zones))]
        is_die = [kind.is_die for kind in kinds]
        # A piece neither a die nor alike to another is itself to the key: its number, so that a
        # zone of such pieces is keyed as it is, without a look-up per piece (other pieces'
        # numbers to the key are negative)
        self.plain = frozenset(p for p in range(count) if not is_die[pieces.kind[p]] and p not in alike)
        labels = state.dynamic[0]
        for p in self.plain:
            self.signatures[p, labels[p]] = p
        self.faceless = [self._signature((canon[p], None)) if is_die[pieces.kind[p]] else None
                         for p in range(count)]  # a die as the key sees it where its face is dead
        self.by_faces: dict[tuple, list] = {}  # the faces pieces show -> ``_shown``

    def key(self, state: State) -> tuple:
        if state.pieces is not self.table or state.game is not self.game or len(state.zones) != self.zone_count:
            self._refresh(state)
        pending = state.pending
        waiting = None if pending is None else pending[0]
        stack = state.frames
        if len(stack) == 3:  # (the game's frame, a turn's and a procedure's: unpacked, a third of the time)
            a, b, c = stack
            plan = self.plans.get((waiting, a[0], a[1], a[3], b[0], b[1], b[3], c[0], c[1], c[3]))
        elif len(stack) == 2:
            a, b = stack
            plan = self.plans.get((waiting, a[0], a[1], a[3], b[0], b[1], b[3]))
        else:
            plan = self.plans.get(_plan_key(waiting, stack))
        if plan is None:
            plan = self._plan(waiting, stack, pending)
        frame_keyer, dead, listed, dead_keyer, fast = plan
        if fast is not None:
            found = fast(state, stack)
            if found is not None:
                return found
        # lives: the live values; ids: those that may hold the id of an alike piece (not numbers)
        frames, lives, ids = frame_keyer(stack)
        try:  # frozen only where a live value is not hashable as it is (a list, a set)
            hash(lives)
        except TypeError:
            frames, lives, ids = self._frozen_frames(waiting, stack, frame_keyer.number)
        # What each piece is to the key: a small number for (its kind of alike piece, its face).
        faces = tuple(state.dynamic[0])
        shown = self.by_faces.get(faces)
        if shown is None:
            shown = self._shown(faces)
        sig = shown[0]
        if listed:  # a roll's dice, or a choice's pieces, are placed with one list (``_plan``)
            sig = self._without_faces(state, sig, dead, pending)
            dead = ()
        options = None  # the options of a choice, when they may hold ids of alike pieces
        if pending is None:
            pending_key = None
        elif waiting == "roll":  # the faces of the dice rolled do not count: the roll replaces them
            place = self._place_getter(state, sig)
            pending_key = ("roll", pending[1], tuple((kind, tuple(sorted(map(place, dice))))
                                                     for kind, dice in pending[2]))
        elif waiting == "branch":  # labels and places in the rules: never an id
            given = pending[2]
            pending_key = ("branch", id(pending[1]), () if given is pending[1].fixed else tuple(given), pending[3:])
        else:
            given = pending[2]
            spec = pending[1]
            if waiting == "choose" and spec.then is None and not spec.several:  # (then: pairs; several: done)
                element = spec.element
                if element == "piece":
                    given = tuple(map(self._place_getter(state, sig), given))
                elif element == "pieces":
                    place = self._place_getter(state, sig)
                    given = tuple(tuple(map(place, group)) for group in given)
                else:
                    given = options = _freeze(given)
                    if not self.game.procedures[stack[-1][0]].may_hold_piece(spec.slot):
                        options = None  # numbers, labels, players: never a piece's id
            else:
                given = _freeze(given)
                if waiting == "choose":
                    options = given
            pending_key = (waiting, pending[1] if pending[1].__class__ is int else id(pending[1]), given, pending[3:])
        counters = _freeze(state.counters) if state.counters else ()
        fired = _freeze(state.fired) if state.fired else ()
        if self.id_counters is None:  # every counter may hold an id
            held = counters
        else:
            held = _freeze([state.counters[i] for i in self.id_counters]) if self.id_counters else ()
        if self.alike and (ids or held or fired or options) and self._mentions_alike(
                (ids, held, tuple([f[2] for f in fired]), options) if held or fired or options else ids):
            if dead:
                sig = self._without_faces(state, sig, dead, None)
            at = sig.__getitem__
            zones: tuple = (tuple(map(tuple, state.zones)), tuple([tuple(map(at, zone)) for zone in state.zones]))
        elif dead:
            zones = dead_keyer(state.zones, sig.__getitem__, (shown[1] or self._faceless_shown(shown)).__getitem__,
                               self.plain)
        else:
            zones = self.keyed_zones(state.zones, sig.__getitem__, None, self.plain)
        return (zones, pending_key, frames, counters, fired) + _whose_turn(state)

    def _shown(self, faces: tuple) -> list:
        """[what each piece is to the key, given the faces pieces show; the same with every die
        without its face (made when first asked for)], remembered by the faces."""
        sig = list(map(self.signatures.get, zip(self.canon, faces)))
        if None in sig:  # (a piece's number to the key is never None)
            sig = [s if s is not None else self._signature(shown) for s, shown in zip(sig, zip(self.canon, faces))]
        if len(self.by_faces) > 100_000:
            self.by_faces.clear()
        found = self.by_faces[faces] = [sig, None]
        return found

    def _faceless_shown(self, shown: list) -> list[int]:
        found = shown[1] = [s if f is None else f for s, f in zip(shown[0], self.faceless)]
        return found

    def _without_faces(self, state: State, sig: list[int], dead: tuple[int, ...], pending) -> list[int]:
        """``sig`` with the dice of the ``dead`` zones, and those a pending roll rolls, without
        their faces."""
        sig = list(sig)
        faceless = self.faceless
        for zone in dead:
            for p in state.zones[zone]:
                if faceless[p] is not None:
                    sig[p] = faceless[p]
        if pending is not None and pending[0] == "roll":
            for _, dice in pending[2]:
                for p in dice:
                    sig[p] = faceless[p]  # (dice only are rolled)
        return sig

    def _plan(self, waiting: str | None, stack: list, pending) -> tuple:
        """What keys the states with these frames, the top one waiting for ``waiting``:
        (a function of the frames giving their keys and the live values among them, the zones
        whose dice faces are dead, whether the signatures are one list with those dice, and a
        roll's, without their faces (the places of a roll's dice or of a choice's pieces read
        it), the zone keyer of the dead zones, the plan's own key or None: ``_fast_keyer``). The
        frames are keyed by (the plan's number, the live variables of each frame with any:
        ``rulelang.liveness``): the number stands for each frame's procedure, instruction and
        whether it is a turn's, and what the top one waits for."""
        lives, ids = [], []
        procedures = self.game.procedures
        for i, frame, slots in self._frames_live(waiting, stack):
            if slots is not None and not slots:
                continue
            live = f"tuple(f[{i}][2])" if slots is None else "(" + "".join(f"f[{i}][2][{k}], " for k in slots) + ")"
            lives.append(live)
            if slots is None:
                ids.append(live)
            else:
                held = [k for k in slots if procedures[frame[0]].may_hold_piece(k)]  # (a number is no piece's id)
                if held:
                    ids.append("(" + "".join(f"f[{i}][2][{k}], " for k in held) + ")")
        # The frames are keyed by the plan's number (it stands for their procedures, instructions
        # and turns, and what the top one waits for) and their live values: (number, lives).
        number = self.plan_count = self.plan_count + 1
        made: dict[str, Any] = {}
        exec(f"def frame_keyer(f):\n    lives = ({''.join(v + ', ' for v in lives)})\n"  # noqa: S102 - from numbers
             f"    return ({number}, lives), lives, ({''.join(v + ', ' for v in ids)})\n", made)
        frame_keyer = made["frame_keyer"]
        frame_keyer.number = number
        if not stack or not self.faces.safe_stack(stack):  # a finished game's, or one faces cannot tell: every face
            dead = ()
        else:
            top = stack[-1]
            dead = self.dead.get((top[0], top[1], waiting))
            if dead is None:
                dead = self._dead_zones(top[0], top[1], waiting)
        spec = None if pending is None else pending[1]
        listed = waiting == "roll" or bool(dead and waiting == "choose" and spec.then is None and not spec.several
                                           and spec.element in ("piece", "pieces"))
        dead_keyer = None
        if dead and not listed:
            dead_keyer = self.dead_keyers.get(dead)
            if dead_keyer is None:
                dead_keyer = self.dead_keyers[dead] = zones_keyer(self.bags, dead)
        fast = None
        values = self._plain_pending(waiting, spec)
        if values is not None and not listed and not self.game.move_triggers and (
                not self.alike or not ids and not (self.counter_count and (self.id_counters is None or self.id_counters))):
            may_hold = bool(values and self.alike) and self.game.procedures[stack[-1][0]].may_hold_piece(spec.slot)
            fast = self._fast_keyer(waiting, spec, frame_keyer, bool(lives), dead_keyer, may_hold)
        if len(self.plans) > 10_000:  # (frames of a procedure that runs itself, deep)
            self.plans.clear()
        plan = self.plans[_plan_key(waiting, stack)] = (frame_keyer, dead, listed, dead_keyer, fast)
        return plan

    @staticmethod
    def _plain_pending(waiting: str | None, spec) -> bool | None:
        """What a state waits for, where it is keyed without a piece's place: False for a branch,
        True for a choice of single values (which may be pieces' ids: ``key``'s ``options``),
        else None."""
        if waiting == "branch":
            return False
        if waiting == "choose" and spec.then is None and not spec.several and spec.element not in ("piece", "pieces"):
            return True
        return None

    def _fast_keyer(self, waiting: str, spec, frame_keyer, lives: bool, dead_keyer, may_hold: bool):
        """``key`` for the states of one plan where nothing in the key may hold an alike piece's
        id (no live variable or counter that may, no triggered rule waiting; with ``may_hold``,
        options that may be ids, checked at each state): the same key, without deciding again
        at each state what the plan decides once. None where a live value is not hashable as it
        is (``key`` then freezes it), or where an option may be an alike piece's id."""
        by_faces, shown_of, faceless_shown, plain = self.by_faces, self._shown, self._faceless_shown, self.plain
        mentions_alike, whose_turn = self._mentions_alike, _whose_turn
        zones_of = dead_keyer or self.keyed_zones
        spec_id, fixed, branch = id(spec), spec.fixed if waiting == "branch" else None, waiting == "branch"

        def fast(state: State, stack: list):
            frames, live, _ = frame_keyer(stack)
            if lives:
                try:
                    hash(live)
                except TypeError:
                    return None
            faces = tuple(state.dynamic[0])
            shown = by_faces.get(faces)
            if shown is None:
                shown = shown_of(faces)
            zones = zones_of(state.zones, shown[0].__getitem__,
                             (shown[1] or faceless_shown(shown)).__getitem__ if dead_keyer is not None else None, plain)
            pending = state.pending
            given = pending[2]
            if branch:
                given = () if given is fixed else tuple(given)
            else:
                given = _freeze(given)
                if may_hold and mentions_alike(((), (), (), given)):  # (as ``key`` asks it)
                    return None
            pending_key = (waiting, spec_id, given, pending[3:])
            return (zones, pending_key, frames, _freeze(state.counters) if state.counters else (), ()) + whose_turn(state)

        return fast

    def _live_slots(self, place: tuple) -> list[int] | None:
        """The live slots of a frame at ``place`` (procedure, instruction, what the top frame
        waits for there, else None, whether a turn's), in order; None: every slot."""
        return sorted(self.liveness.of(place[0]).live(place[1], place[2]))

    def _frames_live(self, waiting: str | None, stack: list):
        """(number, frame, its live slots) for each frame of ``stack``, the top one waiting for
        ``waiting``."""
        top = len(stack) - 1
        for i, frame in enumerate(stack):
            yield i, frame, self._live_slots((frame[0], frame[1], waiting if i == top else None, frame[3]))

    def _frozen_frames(self, waiting: str | None, stack: list, number: int) -> tuple[tuple, tuple, tuple]:
        """``_plan``'s frame keyer (``number``: the plan's), where a live value is not hashable
        as it is: (the frames' key, their live values, those that may hold a piece's id)."""
        lives, ids = [], []
        procedures = self.game.procedures
        for _, frame, slots in self._frames_live(waiting, stack):
            if slots is not None and not slots:
                continue
            live = _freeze(tuple(frame[2]) if slots is None else tuple(frame[2][k] for k in slots))
            lives.append(live)
            if slots is None:
                ids.append(live)
            else:
                held = tuple(value for k, value in zip(slots, live) if procedures[frame[0]].may_hold_piece(k))
                if held:
                    ids.append(held)
        return (number, tuple(lives)), tuple(lives), tuple(ids)

    def dead_zones(self, state: State) -> tuple[int, ...]:
        """The zones (by number) whose dice ``state``'s key leaves without their faces: no way
        on reads them before they are rolled again (``rulelang.faces``)."""
        if state.pieces is not self.table or state.game is not self.game or len(state.zones) != self.zone_count:
            self._refresh(state)
        top, pending = state.frames[-1], state.pending
        if not self.faces.safe_stack(state.frames):
            return ()
        return self._dead_zones(top[0], top[1], None if pending is None else pending[0])

    def _dead_zones(self, procedure: int, pc: int, waiting: str | None) -> tuple[int, ...]:
        """The zones (by number) whose dice's faces no way on reads before they are rolled
        again, for a state at ``pc`` of ``procedure`` waiting for ``waiting`` (``rulelang.faces``)."""
        live = self.faces.live(procedure, pc, waiting)
        found = self.dead[procedure, pc, waiting] = tuple(
            i for i, name in enumerate(self.zone_names) if name not in live)
        return found

    def _signature(self, shown: tuple) -> int:
        found = self.signatures.get(shown)
        return found if found is not None else self._new_signature(shown)

    def _mentions_alike(self, values: tuple) -> bool:
        """``_mentions(values, self.alike)``, remembered: the same few values come back often
        (the live values alone, or with the counters, the triggered rules' and the options:
        the answer depends on what the values hold, not on how they are grouped)."""
        found = self.mentions.get(values)
        if found is None:
            if len(self.mentions) > 100_000:
                self.mentions.clear()
            found = self.mentions[values] = _mentions(values, self.alike)
        return found

    def _new_signature(self, shown: tuple) -> int:
        found = self.signatures[shown] = -1 - len(self.signatures)
        return found

    def _place_getter(self, state: State, sig: list[int]):
        """Where a piece lies, as the key sees it: (zone, place in it), or, in a zone keyed as a
        multiset, (zone, -1, what the piece is to the key)."""
        where, zones, unordered = state.where, state.zones, self.unordered

        def place(p: int) -> tuple:
            zone = where[p]
            return (zone, -1, sig[p]) if zone in unordered else (zone, zones[zone].index(p))

        return place


# The rest of a key, after the zones, what is pending, the frames, the counters and the triggered
# rules waiting: whose turn it is and how the game's turns and rounds stand (both keys, ``key``'s
# and a plan's own, end with it).
_whose_turn = attrgetter("player", "first_player", "out", "last_turns", "last_turn_last", "again", "used_once",
                         "finished", "turn_number", "round_number")


def _plan_key(waiting: str | None, stack: list) -> tuple:
    """What a plan is kept by: what the top frame waits for, then each frame's procedure,
    instruction and whether it is a turn's, in one flat tuple (``TurnKeys.key`` builds it
    inline for the usual depths)."""
    return (waiting, *[x for frame in stack for x in (frame[0], frame[1], frame[3])])


def zones_keyer(bags: list[bool], dead: tuple[int, ...] = ()):
    """``f(zones, at, dead_at, plain)``: each zone as a tuple of ``at(piece)`` (``dead_at`` in
    the ``dead`` zones), sorted where ``bags`` says it is a multiset; a zone whose pieces are
    all in the set ``plain`` (``at(piece) == piece``) as it is. One expression per zone: a loop over the
    zones costs more than the work in each."""
    def one(i: int, bag: bool) -> str:
        at = "dead_at" if i in dead else "at"
        if bag:
            return (f"(tuple(sorted(zones[{i}])) if plain.issuperset(zones[{i}]) else "
                    f"tuple(sorted(map({at}, zones[{i}])))) if zones[{i}] else (), ")
        return f"(tuple(zones[{i}]) if plain.issuperset(zones[{i}]) else tuple(map({at}, zones[{i}]))) if zones[{i}] else (), "

    return eval("lambda zones, at, dead_at, plain: (" + "".join(  # noqa: S307 - source is generated
        one(i, bag) for i, bag in enumerate(bags)) + ")", {"sorted": sorted, "map": map, "tuple": tuple})


def _freeze(value: Any) -> Any:
    """A value as a hashable one: lists become tuples, all the way down."""
    cls = value.__class__
    if cls is list or cls is tuple:
        for v in value:
            if v.__class__ in _CONTAINERS:
                return tuple(map(_freeze, value))
        return tuple(value)
    if cls is dict:
        return tuple(sorted((_freeze(k), _freeze(v)) for k, v in value.items()))
    if cls is set or cls is frozenset:
        return frozenset(map(_freeze, value))
    return value


_CONTAINERS = frozenset((list, tuple, dict, set, frozenset))


def _mentions(value: Any, ids: frozenset[int]) -> bool:
    """Whether ``value`` (frozen) holds an integer that is one of ``ids``: maybe a piece, maybe a
    number, so the key keeps the ids. (true counts as 1: a needless id kept only costs merges.)"""
    cls = value.__class__
    if cls is int:
        return value in ids
    if cls is tuple or cls is frozenset:
        if not ids.isdisjoint(value):
            return True
        for item in value:
            if (item.__class__ is tuple or item.__class__ is frozenset) and _mentions(item, ids):
                return True
    return False
