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
        self.getters: dict[tuple, Any] = {}  # (procedure, pc, waiting) -> the live values' getter

    def _refresh(self, state: State) -> None:
        if state.game is not self.game:
            self.game = state.game
            self.liveness = GameLiveness(state.game)
            self.faces = FaceLiveness(state.game, self.leaf_reads)
            self.getters = {}
        read = state.game.order_read_zones
        bags = frozenset() if read is None else frozenset(
            i for i in range(len(state.zones)) if state.zone_of(i)[0].name not in read)
        self.unordered = self.given | bags
        self.bags = [i in self.unordered for i in range(len(state.zones))]
        self.keyed_zones = zones_keyer(self.bags)
        self.dead_keyers: dict[tuple[int, ...], Any] = {}  # zones keyed without dice faces -> their keyer
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
        getters = self.getters
        frames = []
        lives = []  # the live values that are there: where an id of an alike piece may hide
        top = state.frames[-1]
        for frame in state.frames:
            getter = getters.get((frame[0], frame[1], waiting if frame is top else None, frame[3]))
            if getter is None:
                getter = self._getter((frame[0], frame[1], waiting if frame is top else None, frame[3]))
            if getter.__class__ is tuple:  # nothing live: the frame's key, made once
                frames.append(getter)
                continue
            keyed = getter(frame[2])
            live = keyed[2]
            try:  # frozen only where a live value is not hashable as it is (a list, a set)
                hash(live)
            except TypeError:
                live = _freeze(live)
                keyed = (keyed[0], keyed[1], live, keyed[3])
            lives.append(live)
            frames.append(keyed)
        frames = tuple(frames)
        # What each piece is to the key: a small number for (its kind of alike piece, its face).
        faces = tuple(state.dynamic[0])
        shown = self.by_faces.get(faces)
        if shown is None:
            shown = self._shown(faces)
        sig = shown[0]
        dead = self.dead.get((top[0], top[1], waiting))
        if dead is None:
            dead = self._dead_zones(top[0], top[1], waiting)
        # Dice about to roll, or whose faces are dead, are keyed without their faces: the zone
        # keyer reads dead zones from the signatures without faces (``shown[1]``); the places of
        # a roll's dice or of options need one list, with those dice replaced in it.
        if waiting == "roll" or (dead and waiting == "choose" and pending[1].then is None
                                 and not pending[1].several and pending[1].element in ("piece", "pieces")):
            sig = self._without_faces(state, sig, dead, pending)
            dead = ()
        options = None  # the options of a choice, when they may hold ids of alike pieces
        if pending is None:
            pending_key = None
        elif waiting == "roll":  # the faces of the dice rolled do not count: the roll replaces them
            where, zones, unordered = state.where, state.zones, self.unordered  # (``_place_getter``, inline)
            pending_key = ("roll", pending[1], tuple((kind, tuple(sorted([
                (where[p], -1, sig[p]) if where[p] in unordered else (where[p], zones[where[p]].index(p))
                for p in dice]))) for kind, dice in pending[2]))
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
            else:
                given = _freeze(given)
                if waiting == "choose":
                    options = given
            pending_key = (waiting, pending[1] if pending[1].__class__ is int else id(pending[1]), given, pending[3:])
        counters = _freeze(state.counters) if state.counters else ()
        fired = _freeze(state.fired) if state.fired else ()
        if self.alike and (lives or counters or fired or options) and self._mentions_alike(
                (tuple(lives), counters, tuple([f[2] for f in fired]), options)):
            if dead:
                sig = self._without_faces(state, sig, dead, None)
            at = sig.__getitem__
            zones: tuple = (tuple(map(tuple, state.zones)), tuple([tuple(map(at, zone)) for zone in state.zones]))
        elif dead:
            keyer = self.dead_keyers.get(dead)
            if keyer is None:
                keyer = self.dead_keyers[dead] = zones_keyer(self.bags, dead)
            zones = keyer(state.zones, sig.__getitem__, (shown[1] or self._faceless_shown(shown)).__getitem__,
                          self.plain)
        else:
            zones = self.keyed_zones(state.zones, sig.__getitem__, None, self.plain)
        return (zones, pending_key, frames, counters, fired, state.player, state.first_player, state.out,
                state.last_turns, state.used_once, state.finished, state.turn_number, state.round_number)

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

    def _getter(self, place: tuple):
        """The getter of a frame's key at ``place`` (procedure, instruction, what the top frame
        waits for there, else None, whether the frame is a turn's): a function of the frame's
        slots giving (procedure, instruction, its live variables (``rulelang.liveness``), whether
        a turn's). Where none is live, the frame's key itself stands for the getter."""
        live = sorted(self.liveness.of(place[0]).live(place[1], place[2]))
        if not live:
            getter = self.getters[place] = (place[0], place[1], (), place[3])
            return getter
        getter = self.getters[place] = eval(  # noqa: S307 - source is generated from numbers
            f"lambda s: ({place[0]!r}, {place[1]!r}, ({''.join(f's[{i}], ' for i in live)}), {place[3]!r})")
        return getter

    def dead_zones(self, state: State) -> tuple[int, ...]:
        """The zones (by number) whose dice ``state``'s key leaves without their faces: no way
        on reads them before they are rolled again (``rulelang.faces``)."""
        if state.pieces is not self.table or state.game is not self.game or len(state.zones) != self.zone_count:
            self._refresh(state)
        top, pending = state.frames[-1], state.pending
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
        """``_mentions(values, self.alike)``, remembered: the same few values come back often."""
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
        one(i, bag) for i, bag in enumerate(bags)) + ")", {"sorted": sorted, "map": map, "tuple": tuple, "all": all})


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
