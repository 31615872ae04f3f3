"""What each viewer may see of a game in progress, and the trace: sight of zones and counters,
observations and information states, actions and events as text. A mixin of
``runtime.State``: nothing here changes the game."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from .diagnostics import RuntimeFault
from .engine_values import (
    _CHANCE_KINDS,
    CHANCE,
    IN_SECRET,
    SEE_COUNT,
    SEE_NOTHING,
    SEE_PIECES,
    TERMINAL,
    _value_text,
    seats_text,
    shown,
)
from .source import printable

if TYPE_CHECKING:
    from . import model as m


class Views:
    """What each viewer sees, and the trace as text. A viewer is a seat (0..n-1), None (a
    spectator: public information only) or "all" (the referee: everything); docs/language.md,
    "What each seat sees", is the model in words."""

    def prompt(self) -> str:
        if self.finished:
            return ""
        if self.pending[0] in _CHANCE_KINDS:
            return self.pending[0]
        return self.pending[1].prompt

    def picked_so_far(self, viewer: int | None | str = "all") -> list[str]:
        """At a step of a choice of several pieces, the pieces its chooser picked before it, as
        ``viewer`` may read them (for the chooser's eyes: the others see only how many): by
        name, or, where the viewer cannot see the piece (a blind pick), `a hidden card (2) from
        ...` by its place among those picked; otherwise empty."""
        if self.finished or self.pending is None or self.pending[0] != "choose" or self.pending[1].picked is None:
            return []
        spec = self.pending[1]
        picked = spec.picked(self, self.frames[-1][2])
        if not spec.of_pieces:  # players or values: as the steps' lines show them
            if (spec.private or spec.in_secret) and viewer not in ("all", self.pending[3]):
                return []
            return [spec.describe(self, p) for p in picked]
        return [self._hidden_piece_text(p, i + 1, viewer) or self.describe_piece(p) for i, p in enumerate(picked)]

    def _hidden_piece_text(self, piece, place: int, viewer) -> str | None:
        """`a hidden card (PLACE) from ZONE` where ``viewer`` does not see ``piece``, else None."""
        if viewer == "all" or piece is None or self.sight(self.where[piece], viewer) == SEE_PIECES:
            return None
        kind = self.game.kinds[self.pieces.kind[piece]].name
        return f"a hidden {kind} ({place}) from {self.zone_name(self.where[piece], viewer)}"

    def action_to_string(self, action, viewer: int | None | str = "all") -> str:
        """A readable name of an action of the current node, as ``viewer`` may read it (the
        referee's by default): a piece in a zone the viewer cannot see (a blind pick from
        another's hand) is named by its place only, `a hidden card (2) from hand of player 2`."""
        if self.pending is None:
            return str(action)
        if self.pending[0] in ("choose", "branch") and (
                action.__class__ is not int or not 0 <= action < len(self.pending[2])):
            raise RuntimeFault(self._diagnostic("R506", f"action {action!r} is not one of the "
                                                f"{len(self.pending[2])} legal actions"))
        if viewer != "all" and self.pending[0] == "choose":
            spec, options = self.pending[1], self.pending[2]
            if spec.then is not None and (spec.of_pieces or spec.then.of_pieces):
                def hidden(piece, part: int) -> str | None:  # its place among the part's pieces
                    if self.sight(self.where[piece], viewer) == SEE_PIECES:
                        return None
                    places = list(dict.fromkeys(option[part] for option in options))
                    return self._hidden_piece_text(piece, places.index(piece) + 1, viewer)

                return f"{spec.prompt}: {spec.describe(self, options[action], hidden)}"
            if spec.of_pieces:
                hidden_text = self._hidden_piece_text(options[action], action + 1, viewer)
                if hidden_text is not None:
                    return f"{spec.prompt}: {hidden_text}"
            elif spec.element == "pieces" and spec.labelled is False and options[action]:
                group = options[action]
                if any(self.sight(self.where[p], viewer) != SEE_PIECES for p in group if p.__class__ is int):
                    # each piece by its place among those the groups offer
                    places = list(dict.fromkeys(p for option in options for p in option or ()))
                    return f"{spec.prompt}: " + " + ".join(
                        self._hidden_piece_text(p, places.index(p) + 1, viewer) or self.describe_piece(p)
                        for p in group)
        if self.pending[0] == "shuffle":
            zone = self.pending[2][0]
            if viewer != "all" and (self.sight(zone, viewer) != SEE_PIECES
                                    or self.zone_of(zone)[0].visibility == "top only"):
                return f"shuffle {self.zone_name(zone, viewer)}"
            return f"shuffle {self.zone_name(zone, viewer)}: {self.describe_piece(action)} next"
        if self.pending[0] == "draw":
            source = self.where[action]
            sight = self.sight(source, viewer)
            if sight != SEE_PIECES:  # the card drawn from a deck the viewer does not see
                kind = self.game.kinds[self.pieces.kind[action]].name if sight == SEE_COUNT else "piece"
                return f"draw a hidden {kind} from {self.zone_name(source, viewer)}"
            return f"draw {self.describe_piece(action)} from {self.zone_name(source, viewer)}"
        if self.pending[0] == "roll":
            by_kind: dict[str, list[str]] = {}  # as the trace writes a roll: kinds named when several
            for (kind_index, _), faces in zip(self.pending[2], action, strict=True):
                kind = self.game.kinds[kind_index]
                by_kind.setdefault(kind.name, []).extend(str(kind.face_labels[f]) for f in faces)
            if len(by_kind) == 1:
                return "roll " + " ".join(next(iter(by_kind.values())))
            return "roll " + ", ".join(f"{name} {' '.join(labels)}" for name, labels in by_kind.items())
        value = self.pending[2][action]
        if self.pending[0] == "choose":
            spec = self.pending[1]
            return f"{spec.prompt}: {spec.describe(self, value)}"
        return value[0]

    def action_to_json(self, action) -> Any:
        """A JSON form of an action of the current node."""
        if self.pending[0] == "draw":
            return {"draw": self.piece_json(action)}
        if self.pending[0] == "shuffle":
            return {"shuffle": self.piece_json(action)}
        if self.pending[0] == "roll":
            return {"roll": self._outcome_labels(action)}
        value = self.pending[2][action]
        if self.pending[0] == "choose":
            return {"index": action, "choice": self.pending[1].to_json(self, value)}
        return {"index": action, "choice": value[0]}

    def _outcome_labels(self, outcome) -> list:
        labels = []
        for (kind_index, _), faces in zip(self.pending[2], outcome, strict=True):
            kind = self.game.kinds[kind_index]
            labels.extend(kind.face_labels[f] for f in faces)
        return labels

    def outcome_from_labels(self, labels: list) -> tuple:
        """The chance outcome that shows these face labels (for scripted dice)."""
        self._need_roll()
        remaining = list(labels)
        outcome = []
        for kind_index, dice in self.pending[2]:
            kind = self.game.kinds[kind_index]
            taken = remaining[: len(dice)]
            remaining = remaining[len(dice):]
            try:
                outcome.append(tuple(sorted(kind.face_labels.index(label) for label in taken)))
            except ValueError as error:
                raise RuntimeFault(self._diagnostic("R506", f"no face {error} on {kind.name}")) from None
            if len(taken) != len(dice):
                raise RuntimeFault(self._diagnostic("R506", f"{len(labels)} faces given for a roll of "
                                                    f"{sum(len(d) for _, d in self.pending[2])} dice"))
        if remaining:
            raise RuntimeFault(self._diagnostic("R506", f"{len(labels)} faces given for a roll of "
                                                f"{sum(len(d) for _, d in self.pending[2])} dice"))
        return tuple(outcome)

    def describe_piece(self, p: int, where: bool = False, label: Any = ...) -> str:
        text = self.pieces.names[p]
        if label is ...:
            label = self.dynamic[0][p]
        if label is not None:
            text += f" showing {label}"
        if where:
            text += f" from {self.zone_name(self.where[p])}"
        return text

    def describe_group(self, pieces: list[int], labels: tuple | None = None) -> str:
        """Pieces as one text: `2 x d6 showing 5 + d6 showing 1`; `nothing` for none."""
        if not pieces:
            return "nothing"
        counts: dict[str, int] = {}
        for i, p in enumerate(pieces):
            name = self.describe_piece(p, label=labels[i] if labels is not None else ...)
            counts[name] = counts.get(name, 0) + 1
        return " + ".join(name if c == 1 else f"{c} x {name}" for name, c in counts.items())

    def piece_json(self, p: int) -> dict:
        data = {"id": p, "kind": self.game.kinds[self.pieces.kind[p]].name}
        if self.dynamic[2][p] is not None:
            data["number"] = self.dynamic[2][p]
        if self.dynamic[0][p] is not None:
            data["face"] = self.dynamic[0][p]
        return data

    def counter_name(self, index: int, with_key: bool = True) -> str:
        """`score of player 2`, `pot`: a counter slot by name (without its key: `sheet of player 2`)."""
        counter, key, owner = self.counter_place(index)
        name = counter.name if key < 0 or not with_key else f"{counter.name}[{shown(counter.keys[key])}]"
        return name if owner is None else f"{name} of player {owner + 1}"

    def zone_name(self, index: int, viewer: int | None | str = "all", places: dict | None = None,
                  keyed: bool = False) -> str:
        """`hand of player 2`, `deck`, `tag of gem 5`: a zone by name, as ``viewer`` may read
        it. A zone a piece carries names its carrier only to a viewer who sees the carrier where
        it lies (now, or where ``places`` says it lay when an event happened; not there: not
        seen): `tag of a hidden gem` to the others. ``keyed``: a `secret` zone with its key (a
        piece shown to the viewer where it lies shows where that is)."""
        if index >= self.piece_zone_base:
            zone_index, piece = self.carried[index - self.piece_zone_base]
            zone = self.game.zones[zone_index]
            if viewer != "all":
                place = self.where[piece] if places is None else places.get(index)
                if place is None or self.sight(place, viewer) != SEE_PIECES:
                    carriers = {self.game.kinds[k].name for k in zone.carried_by}
                    return f"{zone.name} of a hidden {carriers.pop() if len(carriers) == 1 else 'piece'}"
            return f"{zone.name} of {self.pieces.names[piece]}"
        zone, owner = self.zone_of(index)
        name = zone.name
        if viewer != "all" and not keyed and zone.visibility == "secret" and self.sight(index, viewer) == SEE_NOTHING:
            name = self._secret_zone_name(zone)
        return name if owner is None else f"{name} of player {owner + 1}"

    def _secret_zone_name(self, zone) -> str:
        """A `secret` zone as a viewer who sees nothing of it reads it: without its key, which
        may follow from what the piece moved there is (`vault[c.colour]`)."""
        return zone.name.split("[", 1)[0]

    def sight(self, zone_index: int, viewer: int | None | str) -> int:
        """What ``viewer`` sees of a zone: SEE_PIECES (the pieces, and what dice show; also
        `top only` zones, whose pieces everyone saw arrive), SEE_COUNT (how many of each kind)
        or SEE_NOTHING (another player's `secret` zone, or a shared or carried one)."""
        if viewer == "all":
            return SEE_PIECES
        zone, owner = self.zone_of(zone_index)
        visibility = zone.visibility
        if visibility == "public" or visibility == "top only":
            return SEE_PIECES
        if visibility == "hidden":
            return SEE_COUNT
        if visibility == "others only":  # a hand held facing away: the owner, and a spectator, count it
            return SEE_PIECES if owner is not None and viewer is not None and owner != viewer else SEE_COUNT
        if owner is not None and owner == viewer:
            return SEE_PIECES
        return SEE_COUNT if visibility == "owner only" else SEE_NOTHING

    def _sees(self, zone_index: int, viewer) -> bool:
        return self.sight(zone_index, viewer) == SEE_PIECES

    def pieces_text(self, value, places, viewer) -> str:
        """A counter's piece, or list of pieces, as ``viewer`` reads it: each by name where the
        viewer sees it (``places``: the zone where each lay; None: where each lies now), else
        `a hidden KIND`; a piece's number never shows (it would tell which card it is)."""
        items = value if value.__class__ is list else [value]
        if places is None:
            places = [self.where[p] if p.__class__ is int else None for p in items]
        names = []
        for p, place in zip(items, places, strict=False):
            if p.__class__ is not int:
                names.append(shown(p))
            elif viewer == "all" or (place is not None and self.sight(place, viewer) == SEE_PIECES):
                names.append(self.describe_piece(p))
            else:
                names.append(f"a hidden {self.game.kinds[self.pieces.kind[p]].name}")
        return "[" + ", ".join(names) + "]" if value.__class__ is list else names[0]

    def choice_shown(self, chooser: int, seen_in, viewer) -> bool:
        """Whether a choice whose trace event says ``seen_in`` (``State._choice_seen_in``)
        shows to ``viewer``: it reads `(hidden)` otherwise."""
        if seen_in is None or viewer == "all":
            return True
        for zone in seen_in if seen_in.__class__ is tuple else (seen_in,):
            if (viewer != chooser) if zone < 0 else not self._sees(zone, viewer):
                return False
        return True

    def sees_counter(self, index: int, viewer: int | None | str) -> bool:
        """Whether ``viewer`` sees a counter's value: `public` ones, its own `owner only` ones."""
        if viewer == "all":
            return True
        counter, owner = self.counter_of(index)
        return counter.visibility == "public" or (
            counter.visibility == "owner only" and owner is not None and owner == viewer)

    def observation(self, player: int | None | str) -> dict:
        """What a seat may see now (None: a spectator, "all": the referee): every zone it sees
        (pieces, or ``{"count", "kinds"}``, or ``{"count", "top"}``; another's `secret` zone
        is left out) and every counter whose value it sees."""
        self.check_viewer(player)
        zones: dict[str, Any] = {}
        unnamed: dict[str, list[int]] = {}  # carried zones whose carriers the seat does not see
        for index, pieces in enumerate(self.zones):
            sight = self.sight(index, player)
            if sight == SEE_NOTHING:
                continue
            zone = self.zone_of(index)[0]
            name = self.zone_name(index, player)
            if index >= self.piece_zone_base and player != "all" and " of a hidden " in name:
                if pieces:  # all such zones of a kind as one: which holds what would tell them apart
                    unnamed.setdefault(name, []).extend(pieces)
                continue
            if name in zones:  # zones carried by identical pieces (`count 2`): one entry each
                name = next(f"{name} ({k})" for k in itertools.count(2) if f"{name} ({k})" not in zones)
            if zone.visibility == "top only" and player != "all":
                zones[name] = {"count": len(pieces), "top": self._shown(pieces[-1], zone, player) if pieces else None}
            elif sight == SEE_PIECES:
                zones[name] = [self._shown(p, zone, player) for p in pieces]
            else:
                zones[name] = {"count": len(pieces), "kinds": self._kind_counts(pieces)}
        for name in sorted(unnamed):
            pieces = unnamed[name]
            zone = self.zone_of(self.where[pieces[0]])[0]
            if self.sight(self.where[pieces[0]], player) == SEE_PIECES:
                zones[name] = sorted(self._shown(p, zone, player) for p in pieces)
            else:
                zones[name] = {"count": len(pieces), "kinds": self._kind_counts(sorted(pieces))}
        counters = {}
        for index in range(len(self.counters)):
            if self.sees_counter(index, player) and not self._count_unseen(index, self.counters[index], player):
                value = self.counters[index]
                if value is not None:
                    counter = self.counter_place(index)[0]
                    if counter.holds_pieces:
                        value = self.pieces_text(value, None, player)  # named, never by number
                    elif counter.holds_player and value.__class__ in (int, list, tuple):
                        value = seats_text(value)  # as the trace and the board write it
                counters[self.counter_name(index)] = value
        return {
            "current_player": self.current_player(),
            "round": self.round_number,
            "turn": self.turn_number,
            "zones": zones,
            "counters": counters,
            "out": sorted(self.out),
        }

    def sees_score(self, criterion: int, viewer: int | None | str, row: int | None = None) -> bool:
        """Whether ``viewer`` may see a winner criterion's value in player ``row``'s row now (of
        every row when ``row`` is None): always at the end; before it, unless the criterion reads
        something not every seat sees, and then in its own row if it reads only its own secrets."""
        seen_by = self.game.criteria[criterion].seen_by
        return viewer == "all" or self.finished or seen_by == "all" or (
            seen_by == "owner" and row is not None and viewer == row)

    def shown_values(self, viewer: int | None | str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The `show` values as ``viewer`` may see them: (the game's, each player's row's). One
        that reads what the viewer may not see is `?` (as a winner criterion's is, until the
        end), one that cannot be worked out now (the top of an empty zone) `—`."""
        shared: dict[str, Any] = {}
        rows: list[dict[str, Any]] = [{} for _ in range(self.n)]
        saved, work = self.player, self.work
        try:
            for shown in self.game.shown:
                for p in (range(self.n) if shown.per_player else (saved,)):
                    row = p if shown.per_player else None
                    seen = viewer == "all" or self.finished or shown.seen_by == "all" or (
                        shown.seen_by == "owner" and viewer == (row if shown.per_player else saved))
                    value = "?"
                    if seen:
                        self.player = p
                        try:
                            value = self._shown_text(shown.kind, shown.test(self, [None] * shown.slot_count))
                        except Exception:  # a display never stops the game: the rules' faults show elsewhere
                            value = "—"
                    (rows[p] if shown.per_player else shared)[shown.name] = value
        finally:
            self.player, self.work = saved, work
        return shared, rows

    def _shown_text(self, kind: str, value: Any) -> Any:
        """A shown value as the board writes it: pieces by name, a player by seat, true/false."""
        if value is None:
            return None
        if kind == "piece":
            return self.describe_piece(value)
        if kind in ("zone", "zones", "zonelist"):  # the pieces in it (a zone's number means nothing)
            value = [p for zone in ([value] if kind == "zone" else value) for p in self.zones[zone]]
            kind = "pieces"
        if kind == "pieces":
            return self.describe_group(list(value)) if value else "nothing"
        if kind == "player" or (kind == "players" and value.__class__ in (list, tuple)):
            return seats_text(value)
        return _value_text(value) if isinstance(value, bool) else value

    def observation_string(self, seat: int | None | str) -> str:
        """``observation(seat)`` as canonical text: equal for two states that look the same
        to the seat now; no piece ids, nothing it cannot see."""
        seen = self.observation(seat)
        mover = seen["current_player"]
        who = "game over" if mover == TERMINAL else "chance" if mover == CHANCE else f"player {mover + 1}"
        lines = [f"round {seen['round']}, turn {seen['turn']}, to move: {who}"]
        for name, zone in seen["zones"].items():
            if isinstance(zone, list):
                lines.append(f"{name}: " + (", ".join(zone) or "empty"))
            elif "top" in zone:
                lines.append(f"{name}: {zone['count']}, top {zone['top'] or 'none'}")
            else:
                kinds = ", ".join(f"{count} {kind}" for kind, count in zone["kinds"].items())
                lines.append(f"{name}: {zone['count']} hidden" + (f" ({kinds})" if kinds else "") if zone["count"]
                             else f"{name}: empty")  # (an empty zone reads alike to whoever sees its count)
        lines.extend(f"{name} = {_value_text(value)}" for name, value in seen["counters"].items())
        if seen["out"]:
            lines.append("out: " + ", ".join(f"player {p + 1}" for p in seen["out"]))
        return "\n".join(lines)

    def information_state_string(self, seat: int | None | str) -> str:
        """Everything a seat has seen so far, as canonical text: its view of the trace from the
        start, then its observation now. Two states with the same string are the same to the
        seat. Needs the trace: recorded, or rebuilt by replay (a look-ahead copy or a
        determinized sample has none: ``trace_mode`` "off")."""
        self.check_viewer(seat)
        label = "referee" if seat == "all" else "spectator" if seat is None else f"player {seat + 1}"
        done, lines = self.seen_lines.get(seat, (0, ()))
        if done != len(self.events):
            lines += tuple(line for line in map(self.format_event, self.events[done:], itertools.repeat(seat)) if line)
            self.seen_lines = {**self.seen_lines, seat: (len(self.events), lines)}
        return "\n".join([f"view of {label}", *lines, "--", self.observation_string(seat)])

    def _kind_counts(self, pieces: list[int]) -> dict[str, int]:
        """How many pieces of each kind, in the order kinds are declared."""
        kind_of = self.pieces.kind
        counts = [0] * len(self.game.kinds)
        for p in pieces:
            counts[kind_of[p]] += 1
        return {k.name: c for k, c in zip(self.game.kinds, counts, strict=True) if c}

    def _counted(self, pieces: list[int]) -> str:
        """Pieces a viewer only counts, as `create` lines count them: ``2 card``, ``1 d6 + 3 chip``."""
        return " + ".join(f"{count} {kind}" for kind, count in self._kind_counts(pieces).items())

    def _shown(self, piece: int, zone: m.ZoneDef, viewer: int | None | str = None) -> str:
        """A piece as a board shows it: its name, and the attribute its zone is `showing`."""
        text = self.describe_piece(piece)
        if zone.shows is not None:
            column = self.game.attributes.index(zone.shows)
            text += f" ({zone.shows} {self.pieces.columns[column][piece]})"
        for table in self.piece_zone:
            carried = table[piece] if piece < len(table) else None
            if carried is not None and self.zones[carried]:
                carried_zone = self.zone_of(carried)[0]
                sight = self.sight(carried, viewer)
                if sight == SEE_NOTHING:
                    continue
                if carried_zone.visibility == "public" or viewer == "all":
                    what = self.describe_group(self.zones[carried])
                elif carried_zone.visibility == "top only":  # as a `top only` zone shows: how many, the top
                    what = f"{len(self.zones[carried])}, top {self.describe_piece(self.zones[carried][-1])}"
                else:
                    what = f"{len(self.zones[carried])} hidden"
                text += f" [{carried_zone.name}: {what}]"
        return text

    def event_lines(self, start: int = 0, viewer: int | None | str = "all") -> list[str]:
        """The trace from event ``start`` on, one line per event, each with the rule (file:line)
        that caused it, as ``viewer`` may see it (a seat; None: a spectator; "all": the referee,
        who sees everything): what it cannot see is counted, or left out (see ``format_event``);
        an empty line is an event the viewer does not know happened (a triggered rule whose
        firing would tell what it read), kept so that two viewers' lines line up.
        Control characters from the rules file are shown escaped."""
        self.check_viewer(viewer)
        return [printable(self.format_event(e, viewer)) for e in self.events[start:]]

    def check_viewer(self, viewer: Any) -> None:
        """A viewer is a seat of this game, None (a spectator) or "all" (the referee); anything
        else is a ValueError, never silently a spectator."""
        if viewer is not None and viewer != "all" and (viewer.__class__ is not int or not 0 <= viewer < self.n):
            raise ValueError(f"a viewer is a seat 0..{self.n - 1}, None (a spectator) or \"all\", not {viewer!r}")

    def _moved_text(self, pieces, origins, to: int, labels, viewer, below=None) -> str:
        """Moving pieces as a viewer sees them: named where it sees them at either end, counted
        by kind where it sees only how many, `pieces` (no count) where it sees neither end.
        ``below``: pieces taken from under the top of a `top only` zone, which shows its top
        piece only (after a shuffle nobody knows what lies under it)."""
        if viewer == "all":
            return self.describe_group(list(pieces), labels)
        sight_to = self.sight(to, viewer)
        named, counted, unseen = [], [], False
        for i, (p, origin) in enumerate(zip(pieces, origins, strict=True)):
            at_origin = SEE_COUNT if below is not None and p in below else self.sight(origin, viewer)
            sight = sight_to if sight_to == SEE_PIECES else max(sight_to, at_origin)
            if sight == SEE_PIECES:
                named.append(i)
            elif sight == SEE_COUNT:
                counted.append(p)
            else:
                unseen = True
        parts = []
        if named:
            parts.append(self.describe_group([pieces[i] for i in named], [labels[i] for i in named]))
        if counted:
            parts.append(self._counted(counted))
        if unseen or not parts:
            parts.append("pieces")
        return " + ".join(parts)

    def _count_unseen(self, index: int, value, viewer, places: tuple | None = None) -> bool:
        """Whether a counter set to pieces, how many of which some seat may not know (`many =
        deck where number > secret`), holds one ``viewer`` does not see (where it lay, in
        ``places``): its value is then shown as a change only, since a list would count them."""
        if viewer == "all" or not self.counter_place(index)[0].hides_count:
            return False
        if value is None:
            return True
        pieces = value if value.__class__ is list else [value]
        if not pieces:
            return True  # none: that the list is empty is as telling as its length
        if places is None:
            places = tuple(self.where[p] if p.__class__ is int else None for p in pieces)
        return any(place is not None and self.sight(place, viewer) != SEE_PIECES for place in places)

    def _sees_none_of(self, viewer, *zones: int) -> bool:
        """Whether ``viewer`` sees nothing at all of any of these zones (not even how many
        pieces they hold: others' `secret` zones): what happens only there gives it no line."""
        return viewer != "all" and all(self.sight(zone, viewer) == SEE_NOTHING for zone in zones)

    def _roll_text(self, payload: list, viewer) -> str:
        """A roll: the faces of the dice the viewer sees; of the others, how many dice rolled in
        each zone it only counts, and only the zone for another's `secret` zone."""
        seen: dict[int, list[tuple[int, Any]]] = {}  # by zone: dice in several cups say whose are whose
        unseen: dict[int, list[int]] = {}
        for p, label, zone in payload:
            if self._sees(zone, viewer):
                seen.setdefault(zone, []).append((p, label))
            else:
                unseen.setdefault(zone, []).append(p)
        parts = []
        for zone, dice in seen.items() if seen or unseen else [(None, [])]:
            by_kind: dict[str, list[str]] = {}
            for p, label in dice:
                by_kind.setdefault(self.game.kinds[self.pieces.kind[p]].name, []).append(str(label))
            text = " ".join(next(iter(by_kind.values()))) if len(by_kind) == 1 else \
                ", ".join(f"{name} {' '.join(labels)}" for name, labels in by_kind.items())
            parts.append(text if len(seen) < 2 else f"{text} in {self.zone_name(zone, viewer, {})}")
        for zone, dice in unseen.items():
            counted = self._counted(dice) if self.sight(zone, viewer) == SEE_COUNT else "dice"
            parts.append(f"{counted} in {self.zone_name(zone, viewer, {})}")
        return "roll " + "; ".join(parts)

    def _by_zone(self, pieces, labels, zones, viewer, places: dict, to: int | None = None,
                 below=None, keyed: bool = False) -> list[tuple[str, str]]:
        """(zone name, its pieces) for each zone the pieces lie in (``zones``, one per piece), by
        name: who had what. The pieces are named for a viewer who sees them all; for a move
        (``to``: where they go), each group as ``_moved_text`` shows it to ``viewer``: what it
        does not see, counted, as the zones' sizes tell anyway."""
        by_zone: dict[str, list[int]] = {}
        for k, zone in enumerate(zones):
            by_zone.setdefault(self.zone_name(zone, viewer, places, keyed), []).append(k)
        # player by player (as `box of players` lists them), then by declaration and key: an
        # order of the rules, never of what the pieces are (a sorted list of hidden cards)
        groups = sorted(by_zone.items(), key=lambda item: self._zone_order(zones[item[1][0]], item[0]))
        if to is None or viewer == "all":
            return [(name, self.describe_group([pieces[k] for k in ks], [labels[k] for k in ks]))
                    for name, ks in groups]
        return [(name, self._moved_text([pieces[k] for k in ks], [zones[k] for k in ks], to,
                                        [labels[k] for k in ks], viewer, below))
                for name, ks in groups]

    def _zone_order(self, index: int, name: str) -> tuple:
        """Where a zone comes in a move's groups: shared zones first, then each player's."""
        if index >= self.piece_zone_base:
            return (-1, index, name)
        owner = self.zone_of(index)[1]
        return (-1 if owner is None else owner, index, name)

    def format_event(self, event: tuple, viewer: int | None | str = "all") -> str:
        """One event as a line of the trace, as ``viewer`` may see it (``event_lines``)."""
        rule, kind, payload = event
        if kind == "move":
            pieces, origins, to, labels = payload[:4]
            if self.game.has_secret_zones and self._sees_none_of(viewer, to, *origins):
                return ""  # (a line would tell that something moved: how many times, or whether)
            places = payload[4] or {} if len(payload) > 4 else {}
            sources = sorted({self.zone_name(o, viewer, places) for o in origins})
            below = payload[5] if len(payload) > 5 else None
            if len(sources) > 1:
                # pieces from several zones: which came from where (a trick gathered), named as
                # a move from one zone names them
                what = ", ".join(f"{group} from {name}" for name, group in
                                 self._by_zone(pieces, labels, origins, viewer, places, to, below))
                text = f"move {what} to {self.zone_name(to, viewer, places)}"
            else:
                what = self._moved_text(pieces, origins, to, labels, viewer, below)
                text = f"move {what} from {', '.join(sources)} to {self.zone_name(to, viewer, places)}"
        elif kind == "trigger":
            moved, source, to, instead, labels = payload[:5]
            places = payload[5] or {} if len(payload) > 5 else {}
            seen_by = payload[6] if len(payload) > 6 else "all"
            if self.game.has_secret_zones and self._sees_none_of(viewer, source, to):
                return ""
            if viewer != "all" and seen_by != "all" and (seen_by == "referee" or SEE_PIECES not in (
                    self.sight(source, viewer), self.sight(to, viewer))):
                return ""  # that it fired would tell what its condition read: no line
            what = self._moved_text(moved, [source] * len(moved), to, labels, viewer)
            route = f"from {self.zone_name(source, viewer, places)} to {self.zone_name(to, viewer, places)}"
            text = f"instead: {what} does not move {route}" if instead else f"triggered: {what} moved {route}"
        elif kind == "reveal":
            pieces, zones, seat, labels = payload[:4]
            if len(payload) > 5 and payload[5] and seat is not None and viewer not in ("all", seat):
                return ""  # shown to whom, or whether at all, told by what this viewer cannot see
            places = payload[4] or {} if len(payload) > 4 else {}
            to_them = viewer == seat or seat is None  # (shown where the pieces lie, keys and all)
            names = sorted({self.zone_name(z, viewer, places, to_them) for z in zones})
            if (viewer == "all" or to_them) and len(names) > 1:  # whose are whose
                text = f"{'every player' if seat is None else f'player {seat + 1}'} sees " + "; ".join(
                    f"{group} in {name}" for name, group in self._by_zone(pieces, labels, zones, viewer, places,
                                                                         keyed=to_them))
            else:
                if viewer == "all" or viewer == seat or seat is None:  # (None: every player, the table)
                    what = self.describe_group(list(pieces), labels)
                else:  # named only where this viewer sees them anyway
                    what = self._moved_text(pieces, zones, zones[0], labels, viewer)
                text = f"{'every player' if seat is None else f'player {seat + 1}'} sees {what} in {', '.join(names)}"
        elif kind == "roll":
            if self.game.has_secret_zones and self._sees_none_of(viewer, *{zone for _, _, zone in payload}):
                return ""  # dice rolled where the viewer sees nothing: a line would count the rolls
            text = self._roll_text(payload, viewer)
        elif kind == "choose":
            player, prompt, choice, seen_in = payload[:4]  # a fifth: True for a labelled branch
            # a piece shows to whoever sees where it was chosen (a blind pick, not even to its
            # chooser); a value computed from hidden things (-1) to its chooser only; a choice
            # made only where what others cannot see holds (-2, ``in_secret``): not even that
            # it was made
            if seen_in == IN_SECRET and viewer not in ("all", player):
                return ""
            if not self.choice_shown(player, seen_in, viewer):
                # its chooser knows where it picked blind: the place, as the menu named it
                choice = payload[5] if viewer == player and len(payload) > 5 else "(hidden)"
            text = f"player {player + 1} chooses {choice}" if prompt is None else \
                f"player {player + 1} chooses {prompt}: {choice}"
        elif kind == "create":
            pieces, into = payload[:2]
            if self.game.has_secret_zones and self._sees_none_of(viewer, into):
                return ""  # how many is secret, and so is how many times pieces were made there
            into_name = self.zone_name(into, viewer, payload[2] or {} if len(payload) > 2 else {})
            kinds = ", ".join(dict.fromkeys(self.game.kinds[self.pieces.kind[p]].name for p in pieces)) or "pieces"
            text = f"create {len(pieces)} {kinds} in {into_name}"
        elif kind == "turn":
            text = f"turn of player {payload + 1}"
        elif kind == "say":
            if payload.__class__ is tuple:  # said only where what some seat cannot see holds
                if viewer != "all":
                    return ""
                payload = payload[0]
            text = payload
        elif kind == "end turn" and payload.__class__ is tuple:  # ended where what others cannot see held
            if viewer not in ("all", payload[0]):
                return ""
            text = f"player {payload[0] + 1}'s turn ends"
        elif kind == "end turn":
            text = f"player {payload + 1}'s turn ends"
        elif kind == "again":
            text = f"player {payload + 1} takes another turn after this one"
        elif kind == "round":
            text = f"round {payload}"
        elif kind == "out":
            text = f"player {payload + 1} is out"
        elif kind == "back":
            text = f"player {payload + 1} is back in"
        elif kind == "everyone out":
            text = "every player is out"
        elif kind == "no turn":
            text = f"no turn for player {payload[0] + 1}: " + ("they are out" if payload[1] else "they have had their last turn")
        elif kind == "last turns":
            text = "a last turn for " + ", ".join(f"player {p + 1}" for p in payload)
        elif kind == "game over":
            names = ", ".join(f"player {p + 1}" for p in payload)
            text = f"game over; winner(s): {names}" if payload else "game over; no winner"
        elif kind == "secret set":  # whose, or whether, told by what some seat cannot see
            if viewer != "all" and (viewer != self.counter_place(payload[0])[2]
                                    or not self.sees_counter(payload[0], viewer)):
                return ""
            return self.format_event((rule, "set", payload), viewer)
        elif kind == "set" and (not self.sees_counter(payload[0], viewer)
                                or len(payload) > 3 and self._count_unseen(payload[0], payload[1], viewer, payload[3])):
            # which entry changed would tell a key worked out in secret (a box chosen in secret)
            text = f"{self.counter_name(payload[0], not self.counter_place(payload[0])[0].secret_keys)} changes"
        elif kind == "set" and len(payload) > 3:  # pieces, where they lay
            text = f"{self.counter_name(payload[0])} = {self.pieces_text(payload[1], payload[3], viewer)}"
        elif kind == "set":
            index, value, is_seat = payload
            # a counter set to a player anywhere holds players: written as the board writes them
            is_seat = is_seat or self.counter_place(index)[0].holds_player
            text = f"{self.counter_name(index)} = {seats_text(value) if is_seat else shown(value)}"
        elif kind == "otherwise":
            prompt, chooser = payload[:2]
            if len(payload) > 2 and payload[2] and viewer not in ("all", chooser):
                return ""  # a choice made only where what the viewer cannot see holds (``in_secret``)
            text = f"player {chooser + 1} has nothing to choose for `{prompt}`: its `otherwise` block runs"
        elif kind == "shuffle":
            if self.game.has_secret_zones and self._sees_none_of(viewer, payload):
                return ""
            text = f"shuffle {self.zone_name(payload, viewer)}"
        else:
            text = f"{kind} {payload}"
        if rule >= 0:
            r = self.game.rules[rule]
            return f"{text}  [{r.name}, {r.where()}]"
        return text
