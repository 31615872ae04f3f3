"""Conformance of every game in games/ and tests/hidden_games/: one Hypothesis state machine per
rules file (OpenSpiel's generic checks: legal actions, exact chance probabilities, clone, returns,
replay of the log, declared invariants), and seeded random play-outs to the end.

Game files are discovered at collection time, so a new file in games/ is covered without any
change here. A file that does not load is a failure, except a variant whose base file is not
there (yet): that one is skipped.
"""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import event, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from rulelang import nodes as n
from rulelang.diagnostics import render_full
from rulelang.pipeline import analyse, parse_file
from rulelang.runtime import CHANCE, TERMINAL

MANY_OUTCOMES = 5_000  # a roll with more outcomes is sampled, not listed
GAMES_DIR = Path(__file__).resolve().parent.parent / "games"
HIDDEN_GAMES_DIR = Path(__file__).resolve().parent / "hidden_games"  # hidden dice, secret counters
GAME_FILES = sorted(GAMES_DIR.rglob("*.rules")) + sorted(HIDDEN_GAMES_DIR.rglob("*.rules"))

# Hypothesis budget of the state machines: examples follow the loaded profile (conftest.py),
# capped, since one example plays up to STEPS moves (some of them whole stretches of a game).
MAX_EXAMPLES = min(settings.default.max_examples, 25)
STEPS = 40
FAST_FORWARD = 120          # most moves one `play_on` step makes
RANDOM_GAMES = 20
MAX_ACTIONS = 200_000       # a random game still running after this many actions never ends


def _slug(path: Path) -> str:
    base = GAMES_DIR if path.is_relative_to(GAMES_DIR) else HIDDEN_GAMES_DIR.parent
    return re.sub(r"\W", "_", path.relative_to(base).with_suffix("").as_posix())


def missing_base(path: Path) -> Path | None:
    """The base file that a variant (or the variant's base, and so on) extends but is absent."""
    seen: set[Path] = set()
    while path not in seen:
        seen.add(path)
        tree, _ = parse_file(str(path))
        if tree is None:
            return None
        extends = [item for item in tree.items if isinstance(item, n.Extends)]
        if not extends:
            return None
        base = (path.parent / extends[0].path).resolve()
        if not base.is_file():
            return base
        path = base
    return None


def load_game(path: Path):
    """(game, None), or (None, why): a skip reason for a variant without its base, else a failure."""
    game, diagnostics = analyse(str(path), warnings=False)
    if game is not None:
        return game, None
    base = missing_base(path)
    if base is not None:
        return None, pytest.skip.Exception(f"variant of `{base.name}`, which is missing")
    report = "\n\n".join(render_full(d) for d in diagnostics if d.is_error)
    return None, AssertionError(f"{path.name} does not load:\n{report}")


def switches_of(game) -> list[str]:
    """The true/false options of a game (other options keep their default in these tests: a
    number may mean "never end")."""
    return sorted(o.name for o in game.options if isinstance(o.default, bool))


_FLIPPED: dict[tuple[Path, tuple[str, ...]], object] = {}


def with_flipped(path: Path, default_game, flips: tuple[str, ...]):
    """The game compiled with the true/false options in ``flips`` set against their default."""
    if not flips:
        return default_game
    if (path, flips) not in _FLIPPED:
        values = {o.name: not o.default for o in default_game.options if o.name in flips}
        game, diagnostics = analyse(str(path), values, warnings=False)
        assert game is not None, "\n".join(render_full(d) for d in diagnostics)
        _FLIPPED[path, flips] = game
    return _FLIPPED[path, flips]


# ---------------------------------------------------------------------- observing a state


def snapshot(state) -> dict:
    """Everything that must be equal in two states that went through the same moves. The
    outcomes of a roll (1287 for eight dice) are costly to list, and left to the callers."""
    return {
        "history": list(state.history),
        "zones": [list(z) for z in state.zones],
        "counters": list(state.counters),
        "dynamic": [list(column) for column in state.dynamic],
        "current_player": state.current_player(),
        "legal_actions": None if state.is_chance_node() else state.legal_actions(),
        "events": list(state.events),
        "turn": state.turn_number,
        "round": state.round_number,
        "player": state.player,
        "terminal": state.is_terminal(),
        "returns": state.returns(),
    }


def replay(game, players: int, history: list):
    state = game.new_initial_state(players)
    for action in history:
        state.apply_action(action)
    return state


def check_returns(state) -> None:
    returns = state.returns()
    assert len(returns) == state.n
    if not state.is_terminal():
        assert returns == [0.0] * state.n, f"returns before the end: {returns}"
    else:
        assert all(r >= 0 for r in returns), returns
        assert sum(returns) == pytest.approx(1.0) or returns == [0.0] * state.n, returns


def random_action(state, rng: random.Random):
    if state.is_chance_node():
        return state.sample_chance(rng)
    return rng.choice(state.legal_actions())


# ---------------------------------------------------------------------- the state machine


def machine_for(path: Path, default_game) -> type[RuleBasedStateMachine]:
    """A rule-based state machine playing a game: Hypothesis picks the players, the value of
    each true/false option (other options keep their default: a number may mean "never end")
    and the moves."""
    switches = switches_of(default_game)

    def game_with(flips: tuple[str, ...]):
        return with_flipped(path, default_game, flips)

    players = st.integers(default_game.min_players, default_game.max_players)
    flipped = st.sets(st.sampled_from(switches)).map(lambda s: tuple(sorted(s))) if switches else st.just(())

    class GameMachine(RuleBasedStateMachine):
        state = None

        @initialize(players=players, flips=flipped)
        def start(self, players, flips):
            """A new game; ``flips`` names the true/false options set against their default."""
            self.game = game = game_with(flips)
            self.players = players
            self.state = game.new_initial_state(players)
            self.shadow = game.new_initial_state(players)
            self._outcomes = (-1, [])

        def outcomes(self) -> list:
            """chance_outcomes() of the current state, listed once per state (it is costly)."""
            moves = len(self.state.history)
            if self._outcomes[0] != moves:
                self._outcomes = (moves, self.state.chance_outcomes())
            return self._outcomes[1]

        @precondition(lambda self: not self.state.is_terminal())
        @rule(data=st.data())
        def act(self, data):
            """One move: a chance outcome (any, not weighted) or one of the legal decisions."""
            state = self.state
            if state.is_chance_node() and state.chance_outcome_count() > MANY_OUTCOMES:
                action = state.sample_chance(random.Random(data.draw(st.integers(0, 2**32 - 1), label="roll seed")))
            elif state.is_chance_node():
                outcomes = self.outcomes()
                action = outcomes[data.draw(st.integers(0, len(outcomes) - 1), label="outcome")][0]
            else:
                actions = state.legal_actions()
                action = actions[data.draw(st.integers(0, len(actions) - 1), label="decision")]
            note(f"player {state.current_player()}: {state.action_to_string(action)}")
            twin = state.clone()
            before = snapshot(state)
            twin.apply_action(action)
            assert snapshot(state) == before, "applying an action to a clone changed the original"
            state.apply_action(action)
            assert snapshot(twin) == snapshot(state), "the same action on a clone gave another state"

        @precondition(lambda self: not self.state.is_terminal())
        @rule(seed=st.integers(0, 2**32 - 1), moves=st.integers(0, FAST_FORWARD))
        def play_on(self, seed, moves):
            """Moves of a seeded random player, to reach states deep into the game; with
            ``moves=0``, to the end of the game (Hypothesis draws 0 now and then)."""
            rng = random.Random(seed)
            state = self.state
            for _ in range(moves or MAX_ACTIONS):
                if state.is_terminal():
                    break
                state.apply_action(random_action(state, rng))
                assert state.check_invariants() == [], f"after {state.history[-1]!r}"
            event("played to the end" if moves == 0 else "played on")

        @precondition(lambda self: self.state.is_terminal())
        @rule(players=players, flips=flipped)
        def start_again(self, players, flips):
            self.start(players, flips)

        @invariant()
        def actions_are_well_formed(self):
            state = self.state
            if state.is_chance_node() and state.chance_outcome_count() > MANY_OUTCOMES:
                # A big roll (48 dice: 2.9 million outcomes) is sampled, never listed.
                json.dumps(state.action_to_json(state.sample_chance(random.Random(len(state.history)))))
                return
            actions = state.legal_actions()
            if state.is_terminal():
                event("reached the end of a game")
                assert state.current_player() == TERMINAL
                assert actions == []
                assert state.chance_outcomes() == []
            elif state.is_chance_node():
                assert state.current_player() == CHANCE
                outcomes = self.outcomes()
                assert len(outcomes) == state.chance_outcome_count()
                assert actions == [o for o, _ in outcomes]
                assert len(set(actions)) == len(actions), "an outcome is listed twice"
                assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
                assert sum(p for _, p in outcomes) == 1
                sampled = state.sample_chance(random.Random(len(state.history)))
                assert sampled in set(actions), f"sample_chance gave {sampled!r}, not an outcome"
                json.dumps(state.action_to_json(sampled))
            else:
                assert 0 <= state.current_player() < state.n
                assert actions == list(range(len(actions))) and actions, "no legal action"
                assert all(state.action_to_string(a) for a in actions)
                json.dumps([state.action_to_json(a) for a in actions])

        @invariant()
        def declared_invariants_hold(self):
            assert self.state.check_invariants() == []

        @invariant()
        def pieces_are_conserved(self):
            """Every piece ever made is in exactly one zone, the one it records."""
            state, seen = self.state, set()
            for index, zone in enumerate(state.zones):
                for piece in zone:
                    assert piece not in seen, f"{state.pieces.names[piece]} is in two zones"
                    assert state.where[piece] == index
                    seen.add(piece)
            assert len(seen) == len(state.where), "a piece is in no zone"

        @invariant()
        def within_turn_limit(self):
            assert 0 <= self.state.turn_number <= self.game.turn_limit

        @invariant()
        def returns_are_shares(self):
            check_returns(self.state)

        @invariant()
        def clone_is_equal(self):
            twin = self.state.clone()
            assert snapshot(twin) == snapshot(self.state)
            if twin.is_chance_node() and twin.chance_outcome_count() <= MANY_OUTCOMES:
                assert twin.chance_outcomes() == self.outcomes()

        @invariant()
        def history_replays(self):
            """The log alone reproduces the game: the history applied to a fresh state (a
            shadow that follows, so that each step replays only the new moves)."""
            shadow, history = self.shadow, self.state.history
            for action in history[len(shadow.history):]:
                shadow.apply_action(action)
            self.compare_replay(shadow)

        def compare_replay(self, again):
            mine, theirs = snapshot(self.state), snapshot(again)
            for key in ("history", "zones", "events", "counters", "legal_actions"):
                assert theirs[key] == mine[key], f"replaying the history gives other {key}"

        def teardown(self):
            if self.state is not None:
                self.compare_replay(replay(self.game, self.players, self.state.history))

        @invariant()
        def observations_work(self):
            for seat in [None, *range(self.state.n)]:
                assert isinstance(self.state.observation(seat)["zones"], dict)  # (empty where every zone is secret)

    GameMachine.__name__ = GameMachine.__qualname__ = f"GameMachine_{_slug(path)}"
    return GameMachine


def _failing_load_test(problem: BaseException):
    def test_game_loads():
        raise problem

    return test_game_loads


for _path in GAME_FILES:
    _game, _problem = load_game(_path)
    if _game is None:
        globals()[f"test_loads_{_slug(_path)}"] = _failing_load_test(_problem)
        continue
    _case = machine_for(_path, _game).TestCase
    _case.settings = settings(max_examples=MAX_EXAMPLES, stateful_step_count=STEPS)
    globals()[f"TestStateMachine_{_slug(_path)}"] = _case
    del _case  # else pytest collects it a second time


# ---------------------------------------------------------------------- random play-outs


@pytest.mark.parametrize("path", GAME_FILES, ids=_slug)
def test_random_games_end(path: Path):
    """Twenty seeded random games (random players, options flipped at random) to the end."""
    default_game, problem = load_game(path)
    if default_game is None:
        raise problem
    switches = switches_of(default_game)
    for seed in range(RANDOM_GAMES):
        rng = random.Random(seed)
        flips = tuple(name for name in switches if rng.random() < 0.5)
        game = with_flipped(path, default_game, flips)
        players = rng.randint(game.min_players, game.max_players)
        state = game.new_initial_state(players)
        assert state.check_invariants() == [], f"seed {seed}: after the set-up"
        for _ in range(MAX_ACTIONS):
            if state.is_terminal():
                break
            state.apply_action(random_action(state, rng))
            broken = state.check_invariants()
            assert broken == [], f"seed {seed}, move {len(state.history)}: {broken}"
            assert state.turn_number <= game.turn_limit
        else:
            pytest.fail(f"seed {seed}: no end after {MAX_ACTIONS} actions")
        check_returns(state)
        assert replay(game, players, state.history).events == state.events, f"seed {seed}"
