"""The deduction bot (`deduce`) and the worlds it keeps: exact where they are few, sampled where
not, asked by information gain, and better than chance only where the rules let it deduce."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulelang
from rulelang import deduce
from rulelang.agents import make_agent, play_game, seat_view
from rulelang.runtime import CHANCE

ROOT = Path(__file__).resolve().parent.parent
HIDDEN = ROOT / "tests" / "hidden_games"
SMALL = {"samples": 8, "max_worlds": 64, "budget": 2000, "rollouts": 4, "max_steps": 60}


def _settled(path: Path, players: int = 2, seed: int = 1):
    """A new game of ``path`` with its opening rolls and draws made."""
    state = rulelang.load(path).new_initial_state(players)
    rng = random.Random(seed)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    return state


def test_entropy_and_gain():
    assert deduce.entropy([1, 1, 1, 1]) == pytest.approx(2.0)
    assert deduce.gain([0.25] * 4, ["yes", "yes", "no", "no"]) == pytest.approx(1.0)
    assert deduce.gain([0.25] * 4, ["a", "b", "c", "d"]) == pytest.approx(2.0)
    assert deduce.gain([0.25] * 4, ["x"] * 4) == pytest.approx(0.0)


def test_worlds_of_a_hidden_die_are_its_six_faces():
    worlds = seat_view(_settled(HIDDEN / "guess_die.rules"), 0).worlds(100)
    assert len(worlds) == 6
    assert all(p == pytest.approx(1 / 6) for _, p in worlds)
    assert sorted(w.dynamic[0][w.zones[w.zone_index("cup", 1)][0]] for w, _ in worlds) == [1, 2, 3, 4, 5, 6]


def test_worlds_are_filtered_by_the_answers_and_merged():
    state = _settled(HIDDEN / "code_breaker.rules")
    view = seat_view(state, 0)
    assert len(view.worlds(100)) == 64
    assert view.worlds(10) is None  # more than the limit: the bot samples instead
    state.apply_action(view.labels.index("sum of the digits"))
    answer = next(line for line in state.event_lines(viewer=0) if line.startswith("answer = "))
    worlds = seat_view(state, 0).worlds(100)
    sums = {sum(w.dynamic[0][p] for p in w.zones[w.zone_index("code")]) for w, _ in worlds}
    assert sums == {int(answer.split()[2])}
    assert sum(p for _, p in worlds) == pytest.approx(1.0)
    assert len(worlds) < 64


def test_worlds_weigh_chance_and_hidden_choices():
    """secret_count.rules: a 4 or better (1/2), then a uniform choice of 1 or 5 chips: player 1's
    worlds hold 5 chips with probability 1/4, so deduce guesses "few"."""
    state = rulelang.load(HIDDEN / "secret_count.rules").new_initial_state(2)
    state.apply_action(((5,),))
    state.apply_action(1)  # player 2 hides 5 chips
    view = seat_view(state, 0)
    vault = state.zone_index("vault", 1)
    many = sum(p for w, p in view.worlds(100) if len(w.zones[vault]) == 5)
    assert many == pytest.approx(0.25)
    assert view.labels[make_agent("deduce", 3).choose(view)] == "few"


def test_deduce_breaks_the_code_far_more_often_than_chance():
    game = rulelang.load(HIDDEN / "code_breaker.rules")
    wins = {"deduce": 0.0, "random": 0.0}
    for bot in wins:
        for g in range(6):
            agents = [make_agent(bot, 100 + 2 * g), make_agent("random", 101 + 2 * g)]
            wins[bot] += play_game(game.new_initial_state(2), agents, random.Random(g)).returns()[0]
    assert wins["deduce"] >= 4 and wins["random"] <= 1


@pytest.mark.parametrize("way", [1, 2])
def test_deduce_follows_a_guess_of_several_choices(way):
    """digit_by_digit: the guess is three choices in a row, followed in every world; with 2,
    each digit is checked as it is named, so the worlds part as the guess goes on."""
    game = rulelang.load(HIDDEN / "code_breaker.rules", digit_by_digit=way)
    wins = sum(play_game(game.new_initial_state(2), [make_agent("deduce", 40 + g), make_agent("random", g)],
                         random.Random(g)).returns()[0] for g in range(2))
    assert wins == 2


def test_deduce_guesses_at_once_when_one_world_is_left():
    """Six yes/no answers tell the code: the bot guesses it, right, with rounds to spare."""
    state = rulelang.load(HIDDEN / "code_breaker.rules", rounds=9).new_initial_state(2)
    state.apply_action(state.sample_chance(random.Random(2)))
    for question in ("is the first digit above 2", "is the second digit above 2",
                     "is the third digit above 2", "is the first digit odd", "is the second digit odd",
                     "is the third digit odd"):
        view = seat_view(state, 0)
        state.apply_action(view.labels.index(question))
    assert len(seat_view(state, 0).worlds(100)) == 1
    bot = make_agent("deduce", 1)
    while not state.is_terminal():
        view = seat_view(state, 0)
        state.apply_action(bot.choose(view))
    assert state.returns() == [1.0, 0.0]
    assert "guess" in state.event_lines(viewer=0)[-4]


@pytest.mark.parametrize("name", ["guess_die.rules", "let_peek.rules"])
def test_deduce_cannot_beat_a_die_nobody_shows(name):
    game = rulelang.load(HIDDEN / name)
    wins = sum(play_game(game.new_initial_state(2), [make_agent("deduce", 7919 + g), make_agent("random", g)],
                         random.Random(g)).returns()[0] for g in range(30))
    assert wins < 15


def test_deduce_plays_six_nimmt_from_samples():
    """Too many worlds to list: the bot samples them (view.sample_state) and plays on, as mc
    where nothing it can do tells it anything."""
    state = _settled(ROOT / "games" / "six-nimmt.rules", players=3, seed=4)
    bot = make_agent("deduce", 1, **SMALL)
    view = seat_view(state)
    beliefs = bot.beliefs(view)
    assert 1 <= len(beliefs) <= SMALL["samples"]
    assert all(w.observation_string(view.seat) == view.observation_string() for w, _ in beliefs)
    rng = random.Random(5)
    for _ in range(3):  # a few of its decisions, each from its own samples
        while state.current_player() != 0:
            player = state.current_player()
            legal = state.legal_actions()
            state.apply_action(state.sample_chance(rng) if player == CHANCE else rng.choice(legal))
        view = seat_view(state)
        action = bot.choose(view)
        assert action in view.legal_actions
        state.apply_action(action)
