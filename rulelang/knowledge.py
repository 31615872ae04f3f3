"""Who knows what: per-seat knowledge of pieces, dice faces and counters, and determinization.

The engine keeps, in games with anything not public, one bitmask of seats per piece (bit s set:
seat s knows this piece is where it is, and for a die, its face) and, for counters some seat
cannot see, the last value each seat saw. The hooks below keep them up to date as pieces move,
are created and rolled and as counters are set; a game where everything is public keeps none.

``sample_state(state, seat, rng)`` is OpenSpiel's ``resample_from_infostate``: a copy of the
state where everything the seat cannot see is dealt or rolled again (see docs/language.md,
section 4, "Bots"). ``SeatView`` is what a bot gets: the seat's view, never the State.
"""

from __future__ import annotations

import random
import weakref
from typing import TYPE_CHECKING, Any

from . import several
from .diagnostics import RuntimeFault

if TYPE_CHECKING:
    from .runtime import State

SAMPLE_TRIES = 16  # samples tried before the bot settles for one its seat could tell apart
_SEERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tracks_knowledge(game) -> bool:
    """Whether a game hides anything (a zone or a counter not public): only then is knowledge kept."""
    return any(z.visibility != "public" for z in game.zones) or \
        any(getattr(c, "visibility", "public") != "public" for c in game.counters)


def _mask(visibility: str, owner: int | None, everyone: int) -> int:
    """The seats (a bitmask) that see what is in a zone or a counter of this visibility."""
    if visibility in ("public", "top only"):
        return everyone
    if visibility in ("owner only", "secret") and owner is not None:
        return 1 << owner
    if visibility == "others only" and owner is not None:
        return everyone & ~(1 << owner)
    return 0


def zone_seers(state: State, index: int) -> int:
    """The seats that see the pieces of a zone instance (a `top only` zone: its top)."""
    try:
        table = state.seers_table  # copied with the state: one lookup per game and player count
    except AttributeError:
        table = _SEERS.setdefault(state.game, {}).get(state.n)
        if table is None:
            everyone = (1 << state.n) - 1
            table = [_mask(*_zone_visibility(state, i), everyone) for i in range(state.piece_zone_base)]
            _SEERS[state.game][state.n] = table
        state.seers_table = table
    if index < len(table):
        return table[index]
    zone, owner = state.zone_of(index)
    return _mask(zone.visibility, owner, (1 << state.n) - 1)


def _zone_visibility(state: State, index: int) -> tuple[str, int | None]:
    zone, owner = state.zone_of(index)
    return zone.visibility, owner


def counter_seers(state: State, index: int) -> int:
    """The seats that see a counter slot: `public` all, `owner only` its owner, `hidden` none."""
    everyone = (1 << state.n) - 1
    counter, owner = state.counter_of(index)
    return _mask(getattr(counter, "visibility", "public"), owner, everyone)


# ---------------------------------------------------------------------- hooks (runtime.py)
def start(state: State) -> None:
    """Knowledge at the start of a game: counters' first values are known to all (the rules
    compute them); pieces are created later, through ``created``."""
    state.keeps_knowledge = True  # the hooks below run as the state plays
    state.knows = []
    # Per zone, every bit set in the masks of its pieces (or more: pieces that leave do not
    # clear it): a move needs no walk of a zone it leaves when no seat it hides from can know
    # anything there (a deal from a deck nobody has seen into).
    state.zone_knows = {}
    state.seen_counters = {i: (value,) * state.n for i, value in enumerate(state.counters)
                           if counter_seers(state, i) != (1 << state.n) - 1}


def forget(state: State) -> None:
    """Keep no knowledge in this state (a look-ahead copy, a replay, a determinized sample):
    its play does not depend on it, and a sample's true knowledge would tell what is hidden."""
    state.keeps_knowledge = False
    state.knows = state.zone_knows = state.seen_counters = None


def adopt(state: State, source: State) -> None:
    """Give ``state`` the knowledge ``source`` kept while playing the same game (a lazy
    state's shadow), and keep it from now on."""
    state.keeps_knowledge = True
    state.knows, state.zone_knows = list(source.knows), dict(source.zone_knows)
    state.seen_counters = dict(source.seen_counters)


def created(state: State, new: list[int], into: int) -> None:
    """Created pieces are known to every seat (the rules say what they are and where they go),
    except that the other seats do not see what goes into a `secret` zone."""
    mask = (1 << state.n) - 1
    if state.zone_of(into)[0].visibility == "secret":
        mask = zone_seers(state, into)
    state.knows.extend([mask] * len(new))
    state.zone_knows[into] = state.zone_knows.get(into, 0) | mask


def moved(state: State, pieces: list[int], origins: list[int], to: int) -> None:
    """A move shows the pieces to the seats that see where they go, or see every zone they
    leave (the move event names them). The other seats lose track of these pieces and of what
    stayed in the zones they left, since they cannot tell which pieces went."""
    knows = state.knows
    everyone = (1 << state.n) - 1
    shown = zone_seers(state, to)
    if shown != everyone:  # (a move into a zone everyone sees shows the pieces to everyone)
        sources = set(origins)
        from_mask = everyone
        for o in sources:
            from_mask &= zone_seers(state, o)
        shown |= from_mask
    for p in pieces:
        knows[p] = shown
    zone_knows = state.zone_knows
    zone_knows[to] = zone_knows.get(to, 0) | shown
    if shown != everyone:
        kept = shown | ~everyone
        zones = state.zones
        for o in sources:
            known = zone_knows.get(o, 0)
            if known & ~kept:  # else no piece there is known to a seat this move hides from
                for q in zones[o]:
                    knows[q] &= kept
                zone_knows[o] = known & kept


def revealed(state: State, pieces: list[int], seat: int) -> None:
    """`reveal`: the seat knows these pieces where they lie (until they move where it does not
    see them)."""
    bit, knows, where, zone_knows = 1 << seat, state.knows, state.where, state.zone_knows
    for p in pieces:
        knows[p] |= bit
        zone_knows[where[p]] = zone_knows.get(where[p], 0) | bit


def order_seers(state: State, index: int) -> int:
    """The seats that see the order of a zone's pieces (a `top only` zone: nobody, its top aside)."""
    return 0 if state.zone_of(index)[0].visibility == "top only" else zone_seers(state, index)


def shuffled(state: State, index: int) -> None:
    """A shuffle: the seats that do not see the zone's order lose track of where each of its
    pieces lies in it (they still see its count, or its top)."""
    kept = order_seers(state, index) | ~((1 << state.n) - 1)
    knows = state.knows
    for p in state.zones[index]:
        knows[p] &= kept
    state.zone_knows[index] = state.zone_knows.get(index, 0) & kept


def rolled(state: State, dice: list[int]) -> None:
    """A die's new face is known to the seats that see the zone it is rolled in."""
    knows, where = state.knows, state.where
    seers: dict[int, int] = {}
    for p in dice:
        zone = where[p]
        if zone not in seers:
            seers[zone] = zone_seers(state, zone)
        knows[p] = seers[zone]
    zone_knows = state.zone_knows
    for zone, mask in seers.items():
        zone_knows[zone] = zone_knows.get(zone, 0) | mask


def counter_set(state: State, index: int, value: Any) -> None:
    """Seats that see a counter remember the value they last saw."""
    if index in state.seen_counters:
        seers, old = counter_seers(state, index), state.seen_counters[index]
        state.seen_counters[index] = tuple(value if seers >> s & 1 else old[s] for s in range(state.n))


# ---------------------------------------------------------------------- what a seat sees
def information_state(state: State, seat: int) -> str:
    """Everything ``seat`` has seen so far, as one canonical text."""
    return state.information_state_string(seat)


def observation(state: State, seat: int) -> str:
    """What ``seat`` sees now, as text."""
    return state.observation_string(seat)


def _deal(state: State, seat: int, rng: random.Random) -> State:
    """One determinization (see ``sample_state``), not yet checked against the observation."""
    copy = state.clone(tracing=False)
    forget(copy)
    copy.events, copy.history = [], []  # the true history would tell hidden rolls
    knows, kinds, kind_of = state.knows, state.game.kinds, state.pieces.kind
    bit = 1 << seat
    places: dict[int, list[tuple[int, int]]] = {}  # kind: (zone, position) of each unknown piece
    secret: dict[tuple[int, int], list[int]] = {}  # (zone definition, kind): its zones' unknown pieces
    pool: dict[int, list[int]] = {}                # kind: every unknown piece, in id order
    faces = []                                     # dice whose face the seat does not know
    definitions = state.game.zones
    for index, zone in enumerate(copy.zones):
        if not zone:
            continue
        definition = state.zone_of(index)[0]
        seen = zone_seers(state, index) & bit
        top_only = definition.visibility == "top only"
        if seen and not top_only:
            continue
        hidden_count = definition.visibility == "secret"
        last = len(zone) - 1
        for position, p in enumerate(zone):
            if knows[p] & bit or (top_only and position == last):
                continue
            kind = kind_of[p]
            if kinds[kind].is_die:
                faces.append(p)
            elif hidden_count:
                secret.setdefault((definitions.index(definition), kind), []).append(p)
                pool.setdefault(kind, []).append(p)
            else:
                places.setdefault(kind, []).append((index, position))
                pool.setdefault(kind, []).append(p)
    touched = set()
    taken: dict[int, int] = {}  # a piece dealt again: the piece dealt to its place
    for kind in sorted(pool):
        dealt = sorted(pool[kind])
        rng.shuffle(dealt)
        fixed = places.get(kind, ())
        for (index, position), p in zip(fixed, dealt, strict=False):
            taken[state.zones[index][position]] = p
            copy.zones[index][position] = p
            copy.where[p] = index
            touched.add(index)
        rest = dealt[len(fixed):]
        # A `secret` zone's count is not seen: each definition's unknown pieces of this kind are
        # shared as evenly as possible among its instances the seat cannot see.
        for (definition, k), pieces in sorted(secret.items()):
            if k != kind:
                continue
            mine, rest = rest[:len(pieces)], rest[len(pieces):]
            taken.update(zip(pieces, mine))
            targets = sorted(_secret_instances(state, definition, seat))
            gone = set(pieces)
            for index in targets:
                copy.zones[index] = [q for q in copy.zones[index] if q not in gone]
            for i, p in enumerate(mine):
                index = targets[i % len(targets)]
                copy.zones[index].append(p)
                copy.where[p] = index
                touched.add(index)
    # A piece the seat knows may lie in a zone it does not see at a place it never saw (shown
    # to it after another's blind pick): its place is dealt again too, among the places of its
    # kind (a card's back shows), except a `top only` zone's top. The options of a blind pick
    # follow the places; a variable follows a piece the seat knows, and the place of one it
    # does not (a card picked blind).
    by_place: dict[int, int] = {}
    for index, places_of in placed_unseen(state, seat).items():
        zone = copy.zones[index]
        for positions in places_of.values():
            shuffled = sorted(zone[i] for i in positions)  # (from the pieces alone, not their true places)
            rng.shuffle(shuffled)
            for i, p in zip(positions, shuffled, strict=True):
                zone[i] = p
                copy.where[p] = index
                by_place[state.zones[index][i]] = p
                if not knows[state.zones[index][i]] & bit:
                    taken[state.zones[index][i]] = p
        touched.add(index)
    for index in touched:
        column = copy.sort_columns[index]
        if column is not None:
            copy.zones[index].sort(key=copy.pieces.sort_key_column(column).__getitem__)
    if faces:
        labels_out, values_out, numbers_out = copy.own_dynamic()
        for p in faces:
            if labels_out[p] is None:
                continue  # never rolled: the seat knows it shows nothing
            kind = kinds[kind_of[p]]
            face = int(rng.random() * len(kind.face_labels))
            labels_out[p], values_out[p] = kind.face_labels[face], kind.face_values[face]
            numbers_out[p] = kind.face_labels[face] if kind.face_labels[face].__class__ is int else None
    for index, values in state.seen_counters.items():
        if not counter_seers(state, index) & bit:
            copy.counters[index] = values[seat]
    _follow_pieces(copy, {p: q for p, q in taken.items() if p != q},
                   {p: q for p, q in {**taken, **by_place}.items() if p != q} if by_place else None)
    return copy


def placed_unseen(state: State, seat: int) -> dict[int, dict[int, list[int]]]:
    """The zones ``seat`` does not see that hold a piece it knows, unsorted: for each, the
    places of each kind (below the top of a `top only` zone), whose pieces a redeal deals
    again among those places."""
    knows, kind_of, bit = state.knows, state.pieces.kind, 1 << seat
    found: dict[int, dict[int, list[int]]] = {}
    for index, zone in enumerate(state.zones):
        if len(zone) < 2 or state.sort_columns[index] is not None or zone_seers(state, index) & bit:
            continue
        if not any(knows[p] & bit for p in zone):
            continue
        places_of: dict[int, list[int]] = {}
        below = len(zone) - 1 if state.zone_of(index)[0].visibility == "top only" else len(zone)
        for position in range(below):
            places_of.setdefault(kind_of[zone[position]], []).append(position)
        places_of = {kind: places for kind, places in places_of.items() if len(places) > 1}
        if places_of:
            found[index] = places_of
    return found


def _follow_pieces(copy: State, taken: dict[int, int], options_taken: dict[int, int] | None = None) -> None:
    """What the rules hold of a piece dealt again (``taken``: the piece now in its place), in
    a variable known to hold pieces (``Procedure.piece_slots``), a counter that holds pieces
    and the options of the choice pending, becomes the piece dealt to its place: else a bot
    would play on with the true card there (a blind pick, a card held in a `let`)."""
    if not taken and not options_taken:
        return
    get = taken.get

    def piece(p):
        return get(p, p) if p.__class__ is int else p

    def pieces(group):
        return group.__class__(map(piece, group)) if group.__class__ in (list, tuple) else group

    procedures = copy.game.procedures
    copy.frames = [[procedure, pc, slots.copy(), turn] for procedure, pc, slots, turn in copy.frames]  # (shared)
    for frame in copy.frames:
        slots = frame[2]
        for i, kind in enumerate(procedures[frame[0]].piece_slots[:len(slots)]):
            value = slots[i]
            if kind is None or value is None:
                continue
            if kind == "piece":
                slots[i] = piece(value)
            elif kind == "pieces":
                slots[i] = pieces(value)
            elif kind == "for pieces" and value.__class__ is tuple:  # (the items, the place of the next)
                slots[i] = (pieces(value[0]), value[1])
            elif kind == "several":  # (pool, keys, picked, position, low, high, blind): several.start
                pool, keys, picked, position, low, high, blind = value
                keys = [(key[0], piece(key[1])) if key[0] == several.HIDDEN else key for key in keys]
                slots[i] = (pieces(pool), keys, pieces(picked), position, low, high, blind)
    for index, value in enumerate(copy.counters):
        if value is not None and copy.counter_place(index)[0].holds_pieces:
            copy.counters[index] = pieces(value) if value.__class__ is list else piece(value)
    pending = copy.pending
    if pending is not None and pending[0] == "choose":
        if options_taken is not None:  # the options are places: they follow the places
            get = options_taken.get
        spec = pending[1]
        first = piece if spec.of_pieces else pieces if spec.element == "pieces" else None
        second = piece if spec.then is not None and spec.then.of_pieces else None
        if first is None and second is None:
            return
        first, second = first or _same, second or _same
        options = [first(o) for o in pending[2]] if spec.then is None else \
            [(first(a), b if b is None else second(b)) for a, b in pending[2]]
        copy.pending = (pending[0], spec, options, *pending[3:])


def private_values(state: State, seat: int) -> bool:
    """Whether a running rule holds a value (not pieces) it may have worked out from what
    ``seat`` does not see (``Procedure.private_slots``: from what only the current player sees,
    when ``seat`` is another, or from what any seat may not): a redeal keeps such a value as it
    is, so a determinization must come from a replay. Read from where the rules are, never from
    the values, so two states a seat cannot tell apart answer alike."""
    procedures = state.game.procedures
    worst = max((max(procedures[frame[0]].private_slots, default=0) for frame in state.frames), default=0)
    return worst >= 2 or (worst == 1 and seat != state.player)


def _same(value):
    return value


def _secret_instances(state: State, definition: int, seat: int) -> set[int]:
    """The instances of a `secret` zone definition that ``seat`` cannot see."""
    zone = state.game.zones[definition]
    if not zone.per_player:
        return {zone.ordinal}
    first = state.zone_base + zone.ordinal * state.n
    return {first + s for s in range(state.n) if s != seat}


def sample_state(state: State, seat: int, rng: random.Random, seen: str | None = None) -> State:
    """A copy of ``state`` as ``seat`` might believe it to be, drawn with ``rng``, by redealing
    (the fallback of ``SeatView.sample_state``, which replays the game first): every piece it
    does not know is dealt again among the places of unknown pieces of the same kind (each zone
    keeps its count of each kind; sorted zones stay sorted), every die face it does not know is
    rolled again, every counter it cannot see takes the last value it saw. A redeal keeps what
    the rules hold besides pieces and counters (variables, where each rule is running), and
    the number of pieces in zones the seat does not see. A sample whose observation for the
    seat differs from the true one is drawn again, up to SAMPLE_TRIES times; then the last is
    used. A game that hides nothing gives a plain copy. ``seen``: the seat's observation of
    ``state``, when the caller has it already."""
    if state.knows is None:
        copy = state.clone(tracing=False)
        copy.events, copy.history = [], []
        return copy
    if seen is None:
        seen = observation(state, seat)
    for _ in range(SAMPLE_TRIES):
        copy = _deal(state, seat, rng)
        if observation(copy, seat) == seen:
            return copy
    return copy


# ---------------------------------------------------------------------- determinization by replay
REPLAY_TRIES = 2  # replays tried for one sample before it is dealt again instead (``sample_state``)
STEP_TRIES = 6    # outcomes tried for one step the seat did not see whole, before a replay fails
SEARCH_TRIES = 60  # draws tried in all by one replay
GIVE_UP = 1       # samples in a row with no replay that fits, before a view only deals again
DEEP_SEARCH = 20  # times SEARCH_TRIES, for a state a redeal cannot follow (``private_values``)
CHAIN_PATHS = 4  # paths moved about for such a state when no replay fits (``SeatView._moved_sample``)
CHAIN_MOVES = 50  # moves of those paths in one sample
CHAIN_MOVES_ON = 10  # in a later sample of the same view, when every path kept fits already
RUN = -100  # the mover of a step of ``Seen`` that stands for any number of chance steps the seat saw nothing of


class Seen:
    """What a seat has seen of a game, step by step: for each action of the history, the action
    itself where the seat saw it (its own decisions, choices shown to it, rolls and draws it saw
    whole, and rolls whose every die it saw later, before the die was rolled again; None
    otherwise) and the lines of the trace the seat saw it make. ``start`` is the game after the
    steps before the first one the seat did not see (every replay begins there), ``drawn`` the
    pieces the seat sees drawn after it. Nothing else of the true game is kept, so two states
    with the same information state give the same ``Seen``."""

    __slots__ = ("start", "steps", "drawn", "observation", "texts")

    def __init__(self, start: State, steps: list, drawn: frozenset, observation: str,
                 texts: dict | None = None):
        self.start, self.steps, self.drawn, self.observation = start, steps, drawn, observation
        # another's choice the seat saw, by step: the text of the option taken, with which a
        # replay whose menu reads alike takes it at once (it only saves a copy: a replay whose
        # menu differs finds the option by the lines the seat saw, ``seen_choice``)
        self.texts = texts or {}


def _sees_chance(state: State, seat: int) -> bool:
    """Whether ``seat`` sees the whole outcome of the pending roll or draw."""
    kind, _, detail = state.pending
    bit = 1 << seat
    if kind == "roll":
        where = state.where
        return all(zone_seers(state, where[p]) & bit for _, dice in detail for p in dice)
    if kind == "shuffle":
        return bool(order_seers(state, detail[0]) & bit)
    source, to, _ = detail
    return bool((zone_seers(state, source) | zone_seers(state, to)) & bit)


def _made_in_secret(state: State, event: int, seat: int) -> bool:
    """Whether the step whose events begin at ``event`` was another seat's choice made in
    secret (``in_secret``): its line shows the seat nothing, not even that it was made."""
    from .engine_values import IN_SECRET

    for _, kind, payload in state.events[event:]:
        if kind == "choose":
            return payload[3] == IN_SECRET and payload[0] != seat
    return False


def _choice_shown(state: State, event: int, seat: int) -> bool:
    """Whether the choice recorded as ``state.events[event]`` shows to ``seat`` (its line is not
    `(hidden)`; see ``State.format_event``)."""
    _, kind, payload = state.events[event]
    return kind != "choose" or state.choice_shown(payload[0], payload[3], seat)


def _new_lines(state: State, start: int, seat: int, end: int | None = None) -> tuple[str, ...]:
    """The lines of events ``start:end`` as ``seat`` sees them, without those of events it
    does not know happened (empty lines)."""
    return tuple(line for line in (state.format_event(e, seat) for e in state.events[start:end]) if line)


def seen_steps(state: State, seat: int) -> Seen | None:
    """The game so far as ``seat`` saw it (``Seen``), by playing the history again from the
    start; None when that does not give the seat's information state (a state changed by hand)."""
    from .runtime import CHANCE, TraceUnavailable, initial_state

    if state.trace_mode == "off":  # a look-ahead copy or a sample: its history is not the game's
        return None
    replay = initial_state(state.game, state.n, trace="eager")  # read after every step
    try:
        if _new_lines(replay, 0, seat) != _new_lines(state, 0, seat, len(replay.events)):
            return None
    except TraceUnavailable:  # a lazily traced state changed by hand
        return None
    bit = 1 << seat
    steps: list = []
    unseen_dice: dict[int, int] = {}  # a die rolled where the seat did not see it: that step
    blind_rolls: dict[int, set] = {}  # a roll step: its dice the seat has not seen since
    for action in state.history:
        mover = replay.current_player()
        shown = mover == seat or (mover == CHANCE and _sees_chance(replay, seat))
        is_draw = mover == CHANCE and replay.pending[0] == "draw"
        rolled = [p for _, dice in replay.pending[2] for p in dice] \
            if mover == CHANCE and replay.pending[0] == "roll" else []
        for p in rolled:  # rolled again: what it showed before is never seen now
            unseen_dice.pop(p, None)
        before = len(replay.events)
        try:
            # the option's text, to tell a replay's menu alike at once (``replay_sample``)
            text = replay.action_to_string(action) if mover != CHANCE and mover != seat else None
            replay.apply_action(action)
        except RuntimeFault:  # a history this game cannot play again
            return None
        lines = _new_lines(replay, before, seat)
        secret = False
        if mover != CHANCE and mover != seat:
            shown = _choice_shown(replay, before, seat)
            secret = _made_in_secret(replay, before, seat)
        if rolled and not shown:
            unknown = {p for p in rolled if not replay.knows[p] & bit}
            blind_rolls[len(steps)] = unknown
            unseen_dice.update(dict.fromkeys(unknown, len(steps)))
        steps.append([action, shown, lines, mover, is_draw, text, secret])
        for p in [p for p, step in unseen_dice.items() if replay.knows[p] & bit]:
            blind_rolls[unseen_dice.pop(p)].discard(p)  # the die shows to the seat, unrolled since
    if len(replay.events) != len(state.events) or \
            replay.information_state_string(seat) != state.information_state_string(seat):
        return None
    for step, dice in blind_rolls.items():
        steps[step][1] = not dice
    first = next((i for i, step in enumerate(steps) if not step[1]), len(steps))
    start = initial_state(state.game, state.n, trace="eager")  # replays compare lines step by step
    for step in steps[:first]:
        start.apply_action(step[0])
    forget(start)  # replays need no knowledge: they compare lines
    kept: list = []
    texts: dict[int, str] = {}  # another's choice the seat saw: its option's text, by step
    for action, shown, lines, mover, is_draw, text, secret in steps[first:]:
        if secret and (not lines or (kept and kept[-1][2] != RUN)):
            # another seat's choice made only where what the seat cannot see holds (``in_secret``):
            # not a step of its own, since whether there was one is not seen; what followed it
            # (`turn of player 2`) goes with the step before, and a replay plays such choices
            # where its own game has them (``_step``, ``hidden_run``)
            if lines:
                kept[-1] = (kept[-1][0], kept[-1][1] + lines, *kept[-1][2:])
            continue
        if not shown and mover == CHANCE and not lines:
            # rolls, draws and shuffles that show the seat nothing, not even a line: how many
            # there were is not seen either (a shuffle of another's `secret` zone has a step per
            # piece), so a replay plays as many of them as its own game has (``RUN``)
            if not kept or kept[-1][2] != RUN:
                kept.append((None, (), RUN, False))
            continue
        if shown and text is not None:
            texts[len(kept)] = text
        kept.append((action if shown else None, lines, mover, is_draw))
    drawn = frozenset(step[0] for step in kept if step[0] is not None and step[3])
    return Seen(start, kept, drawn, state.observation_string(seat), texts)


def _secret_choice(replay: State, seat: int) -> bool:
    """Whether a replay waits for another seat's choice made only where what ``seat`` cannot
    see holds (``in_secret``): that it is made at all shows the seat nothing."""
    return not replay.finished and replay.choice_in_secret() and replay.pending[3] != seat


def _secret_choice_run(replay: State, seat: int, rng: random.Random) -> State | None:
    """Such a choice played in a replay: one of its options, in a random order, that shows the
    seat no line (the replay after it), or None when each shows one."""
    actions = replay.legal_actions()
    rng.shuffle(actions)
    for action in actions:
        probe = _played(replay, action)
        if probe is not None and not _new_lines(probe, len(replay.events), seat):
            return probe
    return None


def _played(replay: State, action) -> State | None:
    """A copy of ``replay`` with ``action`` played, or None where the rules fault."""
    probe = replay.clone()
    try:
        probe.apply_action(action)
    except RuntimeFault:
        return None
    return probe


def hidden_run(replay: State, seat: int, rng: random.Random, reserved: set, limit: int) -> State | None:
    """A ``RUN`` step played in a replay: chance steps drawn anew (a draw avoids ``reserved``),
    and other seats' choices made in secret (``_secret_choice``), for as long as they show the
    seat no line, however many (none, too); the replay after them, or None past ``limit``
    steps or where the rules fault."""
    from .runtime import CHANCE

    for _ in range(limit):
        if _secret_choice(replay, seat):
            played = _secret_choice_run(replay, seat, rng)
            if played is None:
                return replay  # each option shows the seat something: the run ended before it
            replay = played
            continue
        if replay.finished or replay.pending is None or replay.current_player() != CHANCE \
                or _sees_chance(replay, seat):
            return replay
        probe = replay.clone()
        if probe.pending[0] == "draw":
            pieces = probe.zones[probe.pending[2][0]]
            free = [p for p in pieces if p not in reserved] or pieces
            action = free[int(rng.random() * len(free))]
        else:
            action = probe.sample_chance(rng)
        before = len(probe.events)
        try:
            probe.apply_action(action)
        except RuntimeFault:
            return None
        if _new_lines(probe, before, seat):
            return replay  # this step shows the seat something: the run ended before it
        replay = probe
    return None


def at_step(replay: State, mover: int, is_draw: bool) -> bool:
    """Whether a replay waits for the kind of step the seat saw: the same mover and, for
    chance, a draw where it saw one. A hidden card can end a rule's loop sooner in a replay
    than in the game, and then the replay is elsewhere: it does not fit."""
    from .runtime import CHANCE

    pending = replay.pending
    if replay.finished or pending is None or replay.current_player() != mover:
        return False
    return mover != CHANCE or is_draw == (pending[0] == "draw")


def _candidates(replay: State, mover: int, is_draw: bool, reserved: set, rng: random.Random):
    """Actions to try for a step the seat did not see whole, drawn with ``rng``: chance drawn
    anew (a draw avoids the pieces the seat sees drawn later), STEP_TRIES times; a choice:
    every legal one, in a random order. (A value the rules work out from a hidden choice, kept
    in a `let`, is right only in a replay: a redeal keeps the true one.)"""
    from .runtime import CHANCE

    if not at_step(replay, mover, is_draw):
        return  # the replay went elsewhere (a hidden draw ended a loop sooner): no action fits here
    if mover != CHANCE:  # every option, in a random order: one left untried may be the only one that fits
        actions = replay.legal_actions()
        rng.shuffle(actions)
        yield from actions
        return
    if is_draw:
        pieces = replay.zones[replay.pending[2][0]]
        free = [p for p in pieces if p not in reserved] or pieces
        if not free:
            return
        for _ in range(min(STEP_TRIES, len(free))):
            yield free[int(rng.random() * len(free))]
        return
    for _ in range(STEP_TRIES):
        yield replay.sample_chance(rng)


def _step(replay: State, action, lines: tuple[str, ...], seat: int) -> bool:
    """Apply ``action`` to the replay: whether it gives the lines the seat saw at this step,
    with those of other seats' choices made in secret that follow it in the replay, where the
    lines seen call for more (``seen_steps`` puts what followed such a choice with the step
    before it)."""
    before = len(replay.events)
    try:
        replay.apply_action(action)
    except RuntimeFault:  # the replay went elsewhere: this action does not fit
        return False
    got = _new_lines(replay, before, seat)
    while got != lines and got == lines[:len(got)] and _secret_choice(replay, seat):
        for option in replay.legal_actions():  # (the first that goes on as the seat saw)
            probe = _played(replay, option)
            more = () if probe is None else _new_lines(probe, before, seat)
            if probe is not None and more == lines[:len(more)] and len(more) > len(got):
                break
        else:
            return False
        replay.apply_action(option)  # (the replay is the caller's: played on in place)
        got = more
    return got == lines


def _option_text(replay: State, action) -> str | None:
    """The referee's text of an option of a replay's pending choice, or None when it has none."""
    try:
        return replay.action_to_string(action)
    except RuntimeFault:
        return None


def seen_choice(before: State, action, lines: tuple[str, ...], seat: int) -> tuple[State, Any] | None:
    """Another seat's choice that ``seat`` saw, played in a replay (a copy of ``before``): its
    menu there may differ from the game's, when the options hang on what the seat does not
    see (a branch open only with a high die), so the option taken is the one that gives the
    lines the seat saw: ``action`` where it does, else another. (The replay after it, the
    option), or None when no option does."""
    replay = before.clone()
    if _step(replay, action, lines, seat):
        return replay, action
    for other in before.legal_actions():
        if other != action:
            replay = before.clone()
            if _step(replay, other, lines, seat):
                return replay, other
    return None


def replay_sample(seen: Seen, seat: int, rng: random.Random, search: int = SEARCH_TRIES) -> State | None:
    """One determinization by replay: the game played again from ``seen.start``, each step the
    seat saw taken as it was, each other step drawn anew with ``rng`` (chance with its true
    probabilities, another player's hidden choice uniformly) so that the lines the seat sees
    match; where no draw fits, the search goes back to the last step drawn and draws it again,
    ``search`` draws in all, and as many steps in all as two replays. None when that fails or the end does not look the same to the seat."""
    from .runtime import CHANCE

    steps = seen.steps
    replay, reserved, i = seen.start.clone(), set(seen.drawn), 0
    open_steps: list = []  # steps drawn anew: (index, the replay before it, its candidates left)
    tries = search
    work = 2 * len(steps) + search  # steps played in all: a search never costs much more than two replays
    while i < len(steps):
        work -= 1
        if work < 0:
            return None
        action, lines, mover, is_draw = steps[i]
        if mover != RUN and ((mover != CHANCE and replay.current_player() == CHANCE)
                             or (_secret_choice(replay, seat) and replay.pending[3] != mover)):
            # chance steps the seat would see nothing of, in this replay and not in the game
            # (a shuffle of one piece has no step), and another seat's choices made in secret
            # there (one of the seat that moves next may be the step itself): as many as the
            # replay has
            ran = hidden_run(replay, seat, rng, reserved, work)
            replay = replay if ran is None else ran
        if mover == RUN:
            ran = hidden_run(replay, seat, rng, reserved, work)
            if ran is not None:
                replay, i = ran, i + 1
                continue
        elif action is not None and mover != CHANCE and mover != seat:
            if _option_text(replay, action) == seen.texts.get(i):  # the same menu entry: no copy needed
                if _step(replay, action, lines, seat):
                    i += 1
                    continue
            else:
                found = seen_choice(replay, action, lines, seat)
                if found is not None:
                    replay, i = found[0], i + 1
                    continue
        elif action is not None:
            if is_draw:
                reserved.discard(action)
            if _step(replay, action, lines, seat):
                i += 1
                continue
        else:
            open_steps.append((i, replay, set(reserved), _candidates(replay, mover, is_draw, reserved, rng)))
        while open_steps:
            j, before, kept, candidates = open_steps[-1]
            for candidate in candidates:
                tries -= 1
                if tries < 0:
                    return None
                replay = before.clone()
                if _step(replay, candidate, steps[j][1], seat):
                    reserved, i = set(kept), j + 1
                    break
            else:
                open_steps.pop()
                continue
            break
        else:
            return None
    if not replay.finished and (replay.current_player() == CHANCE or _secret_choice(replay, seat)):
        replay = hidden_run(replay, seat, rng, reserved, work + 1) or replay
    if replay.observation_string(seat) != seen.observation:
        return None
    replay.tracing = False
    replay.events, replay.history, replay.seen_lines = [], [], {}
    forget(replay)
    return replay


class SeatView:
    """What one seat may know when it decides, and all a bot gets: the seat, its legal actions
    and their labels, its information state and observation (text), and ``sample_state(rng)``,
    a determinized State consistent with what the seat has seen. The true state is kept
    private; a bot that reaches for it through private attributes is a defect."""

    __slots__ = ("seat", "legal_actions", "__state", "__seen", "__labels", "__steps", "__misses", "__chains")

    def __init__(self, state: State, seat: int | None = None):
        self.__state = state
        self.__seen = self.__labels = self.__steps = self.__chains = None
        self.__misses = 0
        self.seat = state.current_player() if seat is None else seat
        self.legal_actions = state.legal_actions(self.seat)

    @property
    def labels(self) -> list[str]:
        """The legal actions as text (`PROMPT: PIECE from ZONE`), worked out when asked."""
        if self.__labels is None:
            state = self.__state
            self.__labels = [state.action_to_string(a, self.seat) for a in self.legal_actions] \
                if self.seat == state.current_player() else []
        return self.__labels

    def information_state_string(self) -> str:
        """Everything the seat has seen so far: equal for two states it cannot tell apart."""
        return information_state(self.__state, self.seat)

    def observation_string(self) -> str:
        """What the seat sees now."""
        if self.__seen is None:
            self.__seen = observation(self.__state, self.seat)
        return self.__seen

    def sample_state(self, rng: random.Random) -> State:
        """A determinized State: everything the seat cannot see drawn again with ``rng``
        (OpenSpiel's resample_from_infostate). The game is played again from the start along
        what the seat saw (``replay_sample``), up to REPLAY_TRIES times; when no replay fits,
        the state is dealt again instead (``sample_state``), and after GIVE_UP such samples in
        a row this view only deals. Bots may play the result forward freely."""
        state = self.__state
        if state.knows is None:
            return sample_state(state, self.seat, rng)
        if self.__steps is None:
            self.__steps = seen_steps(state, self.seat) or False
        if self.__steps and self.__misses < GIVE_UP:
            for _ in range(REPLAY_TRIES):
                sample = replay_sample(self.__steps, self.seat, rng)
                if sample is not None:
                    self.__misses = 0
                    return sample
            self.__misses += 1
        if self.__steps and private_values(state, self.seat):
            # a redeal would keep what the rules worked out from hidden things (`let v =
            # card.number`, the card chosen in secret): search on, longer, for a replay, then
            # move about paths that fit (``chains``); a path that only comes close beats a
            # redeal, which would hand the bot the true value
            if self.__chains is None:  # (once moves have begun for this view, they go on)
                for _ in range(REPLAY_TRIES):
                    sample = replay_sample(self.__steps, self.seat, rng, SEARCH_TRIES * DEEP_SEARCH)
                    if sample is not None:
                        return sample
            sample = self._moved_sample(rng)
            if sample is not None:
                return sample
        return sample_state(state, self.seat, rng, self.observation_string())

    def _moved_sample(self, rng: random.Random) -> State | None:
        """A game that fits what the seat saw (or comes closest), by local moves of paths kept
        for this view from one call to the next (``chains.worlds``); None when no path plays."""
        from . import chains

        if self.__chains is None:
            self.__chains = chains.Chains()
        kept = self.__chains
        # paths that fit already need fewer moves to part from the samples drawn before
        moves = CHAIN_MOVES_ON if kept.misfits and not any(kept.misfits) and kept.continues(self.__steps) \
            else CHAIN_MOVES
        found = chains.worlds(self.__steps, self.seat, kept, CHAIN_PATHS,
                              moves * max(1, len(self.__steps.steps)), rng, closest=True)
        if not found:
            return None
        pick, game = rng.random(), found[-1][0]
        for world, share in found:
            pick -= share
            if pick < 0:
                game = world
                break
        sample = game.clone(tracing=False)
        sample.events, sample.history, sample.seen_lines = [], [], {}
        forget(sample)
        return sample

    def chain_worlds(self, kept, count: int, budget: int, rng: random.Random) -> list[tuple[State, float]] | None:
        """``count`` States that fit all the seat has seen, kept in ``kept`` (a
        ``chains.Chains`` the bot carries) and moved about by local moves, ``budget`` steps
        played in all (``chains.worlds``); None when the game cannot be replayed or no path
        fits yet."""
        from . import chains

        state = self.__state
        if state.knows is None:
            return None
        if self.__steps is None:
            self.__steps = seen_steps(state, self.seat) or False
        return chains.worlds(self.__steps, self.seat, kept, count, budget, rng) if self.__steps else None

    def worlds(self, limit: int, kept=None) -> list[tuple[State, float]] | None:
        """Every State the seat cannot tell from the true one, with its probability, found by
        replaying every way of what it did not see (``belief.worlds``); None when there are more
        than ``limit`` ways or the game cannot be replayed (then sample instead). ``kept``: a
        ``belief.Belief`` the bot carries from its last decision, so that only new steps are
        played. The States are to read, not to change: play on copies."""
        from . import belief

        state = self.__state
        if state.knows is None:
            return [(sample_state(state, self.seat, random.Random(0)), 1.0)]
        if self.__steps is None:
            self.__steps = seen_steps(state, self.seat) or False
        return belief.worlds(self.__steps, self.seat, limit, kept) if self.__steps else None
