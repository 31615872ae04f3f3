"""Seeded games: each step's randomness drawn from the game seed, the step and the seat.

A seeded game (``rulelang run --seed``, ``rulelang simulate``) draws every roll and every bot's
choice from a generator of that step alone, made from the seed, the step number (the length of
the history before it) and who acts. So a game resumed from its log goes on exactly as the
uninterrupted one would have, without re-running the bots' searches, and a simulated game's
seed replays that very game in ``rulelang run``.

Two schemes; a log records the one it was played with (``"seeding"``):

- 2, the default: a counter-based generator (splitmix64) keyed by seed, step and seat. Making
  one costs a few integer operations, so a batch of random games runs at the speed of a plain
  loop with one generator.
- 1, logs written before the ``seeding`` field: a blake2b hash of ``"seed:step:who"`` seeding
  a Mersenne Twister. Resuming such a log goes on with it.
"""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING, Any

from .agents import make_agent, seat_view
from .engine_values import CHANCE

if TYPE_CHECKING:
    from .runtime import State

SEEDING = 2
SCHEMES = (1, 2)

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_UNIT = 2.0 ** -53


def _mix(z: int) -> int:
    """splitmix64: one step of the counter, then its finaliser."""
    z = (z + _GOLDEN) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


_game_keys: dict[int, int] = {}


def _game_key(seed: int) -> int:
    key = _game_keys.get(seed)
    if key is None:
        folded = seed if 0 <= seed <= _MASK else int.from_bytes(
            hashlib.blake2b(str(seed).encode(), digest_size=8).digest(), "big")
        if len(_game_keys) > 4096:
            _game_keys.clear()
        key = _game_keys[seed] = _mix(folded)
    return key


class StepRandom:
    """The generator of one step (scheme 2): splitmix64 from the step's key. It has the parts
    of ``random.Random`` a step uses: ``random()``, ``getrandbits(k)``, ``randbelow(n)`` and
    ``choice(seq)``, each exact (``randbelow`` rejects rather than rounds)."""

    __slots__ = ("_counter",)

    def __init__(self, key: int):
        self._counter = key

    def _next(self) -> int:
        z = self._counter = (self._counter + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def random(self) -> float:
        z = self._counter = (self._counter + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return ((z ^ (z >> 31)) >> 11) * _UNIT

    def getrandbits(self, k: int) -> int:
        bits, filled = 0, 0
        while filled < k:
            bits |= self._next() << filled
            filled += 64
        return bits & ((1 << k) - 1)

    def randbelow(self, n: int) -> int:
        k = n.bit_length()
        if k <= 64:  # the common case: the top k bits of one draw
            while True:
                r = self._next() >> (64 - k)
                if r < n:
                    return r
        while True:
            r = self.getrandbits(k)
            if r < n:
                return r

    def choice(self, seq):
        return seq[self.randbelow(len(seq))]


def step_seed(seed: int, step: int, who: int, seeding: int = SEEDING) -> int:
    """The seed of one step: ``step`` is len(state.history) before the step, ``who`` the
    deciding seat, or CHANCE for a roll. Stable across Python versions, so old logs resume."""
    if seeding == 1:
        digest = hashlib.blake2b(f"{seed}:{step}:{who}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big")
    return _mix(_mix(_game_key(seed) ^ step) ^ (who & _MASK))


def step_rng(seed: int, step: int, who: int, seeding: int = SEEDING) -> random.Random | StepRandom:
    """The generator of one step of a seeded game (see ``step_seed``)."""
    if seeding == 1:
        return random.Random(step_seed(seed, step, who, 1))
    return StepRandom(step_seed(seed, step, who))


def seeded_action(state: State, seed: int, bot: str | None = None, agents: dict | None = None,
                  seeding: int = SEEDING) -> Any:
    """The action a seeded game takes at this node: a roll drawn with the step's generator, or
    the choice of the bot ``bot`` (a spec: rulelang.agents.parse_bot) seeded for this step.
    ``agents``: a game's bots by seat, kept from step to step and reseeded (``Agent.reseed``),
    so that a bot keeps what it has worked out. With scheme 2, the ``random`` bot draws its
    option with the step's generator itself (it has nothing to keep)."""
    step, player = len(state.history), state.current_player()
    if player == CHANCE:
        return state.sample_chance(step_rng(seed, step, CHANCE, seeding))
    if bot is None:
        raise ValueError("a decision needs a bot")
    if seeding != 1 and bot == "random":
        legal = state.legal_actions()
        return legal[StepRandom(step_seed(seed, step, player)).randbelow(len(legal))]
    if agents is None:
        return make_agent(bot, step_seed(seed, step, player, seeding)).choose(seat_view(state))
    agent = agents.get((player, bot))
    if agent is None:
        agent = agents[player, bot] = make_agent(bot, step_seed(seed, step, player, seeding))
    else:
        agent.reseed(step_seed(seed, step, player, seeding))
    return agent.choose(seat_view(state))


def random_playout(state: State, seed: int, watch: Any = None) -> State:
    """Play ``state`` to its end as ``seeded_action`` would (scheme 2) with a ``random`` bot
    in every seat: the same game, without a call per step. What ``rulelang simulate`` plays
    when every seat is ``random``. ``watch``, if given, is called with the state after each step."""
    game_key, chance_who = _game_key(seed), CHANCE & _MASK
    history = state.history
    step = StepRandom(0)  # one generator, its counter set at each step: as a new one per step
    mask, golden = _MASK, _GOLDEN
    while not state.finished:
        player = state.current_player()
        # _mix(_mix(game_key ^ step) ^ who), as step_seed works it out, written out: a call
        # costs as much as the arithmetic
        z = ((game_key ^ len(history)) + golden) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z = (((z ^ (z >> 31)) ^ (chance_who if player == CHANCE else player)) + golden) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        step._counter = z ^ (z >> 31)
        if player == CHANCE:
            state.apply_action(state.sample_chance(step))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[step.randbelow(len(legal))])
        if watch is not None:
            watch(state)
    return state
