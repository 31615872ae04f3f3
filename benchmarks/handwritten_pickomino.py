"""Hand-written Pickomino (Heckmeck) engine: the plain-Python speed baseline
that benchmarks/bench_games.py compares the interpreted rulelang version against.

Lean plain code, as a competent Python programmer writes it with the same State API: dice
drawn with random(), no needless copies or re-validation, no micro-tricks beyond that. The
compiled/hand-written ratio means something only against a lean baseline.
OpenSpiel-like protocol: current_player() is a seat, CHANCE or TERMINAL.

Action forms:
  chance : a sorted tuple of faces, e.g. (1, 3, 3, "worm")   (faces ordered as FACES)
  seat   : ("keep", face)  face in 1..5 or "worm"
           ("stop",) / ("roll",)
           ("take", tile)   take tile from the grill (tile S, or highest below S)
           ("steal", tile)  steal tile S from the top of another player's stack
"""
import math
import random
import time
from fractions import Fraction
from itertools import combinations_with_replacement

CHANCE = -1
TERMINAL = -4

FACES = (1, 2, 3, 4, 5, "worm")
FACE_ORDER = {face: i for i, face in enumerate(FACES)}
FACE_VALUE = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, "worm": 5}
NUM_DICE = 8
TILES = list(range(21, 37))
KEEP = {face: ("keep", face) for face in FACES}
DECIDE = [("stop",), ("roll",)]  # shared: callers do not change the lists they are given


def tile_worms(tile):
    return (tile - 21) // 4 + 1


class PickominoState:
    def __init__(self, num_players: int):
        if not 2 <= num_players <= 7:
            raise ValueError("Pickomino is for 2 to 7 players")
        self.num_players = num_players
        self.grill = list(TILES)          # face-up tiles, kept in ascending order
        self.face_down = []               # tiles out of the game
        self.stacks = [[] for _ in range(num_players)]  # last element = top tile
        self.player = 0
        self.start_turn()                 # phase: roll | keep | decide | take | over

    def start_turn(self):
        self.kept = {}                    # face -> number of dice set aside
        self.kept_dice = 0
        self.kept_sum = 0
        self.rolled = ()
        self.take_options = []
        self.phase = "roll"

    # ---- protocol -------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self.phase == "roll":
            return CHANCE
        return self.player

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def legal_actions(self) -> list:
        phase = self.phase
        if phase == "keep":
            rolled, kept = self.rolled, self.kept
            return [KEEP[f] for f in FACES if f in rolled and f not in kept]
        if phase == "decide":
            return DECIDE
        if phase == "take":
            return self.take_options
        return []

    def sample_chance(self, rng: random.Random):
        draw = rng.random
        counts = [0] * 6
        for _ in range(NUM_DICE - self.kept_dice):
            counts[int(draw() * 6)] += 1
        dice = []
        for face, count in zip(FACES, counts):
            dice += [face] * count
        return tuple(dice)

    def chance_outcomes(self) -> list:
        n = NUM_DICE - self.kept_dice
        outcomes = []
        for combo in combinations_with_replacement(FACES, n):
            ways = math.factorial(n)
            for face in FACES:
                ways //= math.factorial(combo.count(face))
            outcomes.append((combo, Fraction(ways, 6 ** n)))
        return outcomes

    def apply_action(self, action) -> None:
        if self.phase == "roll":
            self.apply_roll(action)
        elif self.phase == "keep":
            self.apply_keep(action)
        elif self.phase == "decide" and action == ("stop",):
            self.stop()
        elif self.phase == "decide" and action == ("roll",):
            self.phase = "roll"
        elif self.phase == "take":
            self.apply_take(action)
        else:
            raise ValueError(f"illegal action {action!r} in phase {self.phase}")

    # ---- turn steps -----------------------------------------------------
    def apply_roll(self, dice):
        if len(dice) != NUM_DICE - self.kept_dice:
            raise ValueError(f"wrong number of dice in {dice!r}")
        self.rolled = tuple(dice)
        if all(face in self.kept for face in self.rolled):
            self.fail_turn()              # nothing new: the turn fails
        else:
            self.phase = "keep"

    def apply_keep(self, action):
        face = action[1]
        if face not in self.rolled or face in self.kept:
            raise ValueError(f"illegal action {action!r}")
        count = self.rolled.count(face)
        self.kept[face] = count
        self.kept_dice += count
        self.kept_sum += count * FACE_VALUE[face]
        self.rolled = ()
        if self.kept_dice == NUM_DICE or len(self.kept) == len(FACES):
            self.stop()                   # forced stop
        else:
            self.phase = "decide"

    def stop(self):
        if "worm" not in self.kept:
            self.fail_turn()
            return
        total = self.kept_sum
        options = []
        if total in self.grill:
            options.append(("take", total))
        for seat, stack in enumerate(self.stacks):
            if seat != self.player and stack and stack[-1] == total:
                options.append(("steal", total))
        if total not in self.grill:
            lower = [t for t in self.grill if t < total]
            if lower:
                options.append(("take", lower[-1]))
        if not options:
            self.fail_turn()
        else:
            self.take_options = options
            self.phase = "take"

    def apply_take(self, action):
        if action not in self.take_options:
            raise ValueError(f"illegal action {action!r}")
        kind, tile = action
        if kind == "take":
            self.grill.remove(tile)
        else:
            for seat, stack in enumerate(self.stacks):
                if seat != self.player and stack and stack[-1] == tile:
                    stack.pop()
                    break
        self.stacks[self.player].append(tile)
        self.end_turn()

    def fail_turn(self):
        returned = None
        stack = self.stacks[self.player]
        if stack:
            returned = stack.pop()
            self.grill.append(returned)
            self.grill.sort()
        if self.grill and self.grill[-1] != returned:
            self.face_down.append(self.grill.pop())
        self.end_turn()

    def end_turn(self):
        self.start_turn()
        if not self.grill:
            self.phase = "over"           # no face-up tile left: game ends
        else:
            self.player = (self.player + 1) % self.num_players

    # ---- results --------------------------------------------------------
    def returns(self) -> list:
        if not self.is_terminal():
            return [0.0] * self.num_players
        scores = [sum(tile_worms(t) for t in stack) for stack in self.stacks]
        best = max(scores)
        tied = [p for p in range(self.num_players) if scores[p] == best]
        high = {p: max(self.stacks[p], default=0) for p in tied}
        best_tile = max(high.values())
        winners = [p for p in tied if high[p] == best_tile]
        return [1.0 / len(winners) if p in winners else 0.0
                for p in range(self.num_players)]

    def clone(self) -> "PickominoState":
        other = PickominoState.__new__(PickominoState)
        other.__dict__.update(self.__dict__)
        other.grill = list(self.grill)
        other.face_down = list(self.face_down)
        other.stacks = [list(s) for s in self.stacks]
        other.kept = dict(self.kept)
        other.take_options = list(self.take_options)
        return other


def play_random_game(num_players: int, rng: random.Random) -> list:
    state = PickominoState(num_players)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state.returns()


def check_tiles(state):
    tiles = state.grill + state.face_down + [t for s in state.stacks for t in s]
    assert sorted(tiles) == TILES, f"tiles lost or duplicated: {sorted(tiles)}"
    assert state.grill == sorted(state.grill), "grill out of order"


def play_checked_game(num_players, rng):
    """Same driver loop as play_random_game, with the tile check after every step."""
    state = PickominoState(num_players)
    check_tiles(state)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        check_tiles(state)
    return state.returns()


if __name__ == "__main__":
    games, players = 2000, 4
    for n in range(1, NUM_DICE + 1):
        probe = PickominoState(2)
        probe.kept_dice = NUM_DICE - n
        outcomes = probe.chance_outcomes()
        assert sum(p for _, p in outcomes) == 1, f"probabilities for {n} dice"
        assert len(outcomes) == math.comb(n + 5, 5)

    rng = random.Random(1)
    start = time.perf_counter()
    fast = [play_random_game(players, rng) for _ in range(games)]
    elapsed = time.perf_counter() - start

    rng = random.Random(1)
    checked = [play_checked_game(players, rng) for _ in range(games)]
    assert checked == fast, "checked run diverged from timed run"
    assert all(abs(sum(r) - 1.0) < 1e-9 for r in fast)

    wins = [sum(r[p] for r in fast) for p in range(players)]
    print(f"{games} random {players}-player games in {elapsed:.2f}s: "
          f"{games / elapsed:.0f} games/s")
    print("wins per seat:", [round(w, 1) for w in wins])
    print("sanity checks passed (16 tiles after every step, chance sums = 1)")
