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
SMALL = {"samples": 8, "max_worlds": 64, "chains": 4, "chain_steps": 2000, "budget": 2000, "rollouts": 4, "max_steps": 60}


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


def test_chains_keep_worlds_that_fit_every_answer():
    """Beyond the limit of a listing, the chains' worlds each fit all the answers the seat heard,
    and carried on, they fit the next ones too (rulelang.chains)."""
    from rulelang.chains import Chains

    state = _settled(HIDDEN / "code_breaker.rules")
    kept, rng = Chains(), random.Random(3)
    for question in ("sum of the digits", "is the first digit odd"):
        state.apply_action(seat_view(state, 0).labels.index(question))
        while state.current_player() == 1:
            state.apply_action(random.Random(1).choice(state.legal_actions()))
        view = seat_view(state, 0)
        assert view.worlds(10) is None
        worlds = view.chain_worlds(kept, 6, 4000, rng)
        assert worlds and sum(p for _, p in worlds) == pytest.approx(1.0)
        lines = state.event_lines(viewer=0)
        for world, _ in worlds:
            digits = sum(world.dynamic[0][p] for p in world.zones[world.zone_index("code")])
            assert any(line.startswith(f"answer = {digits} ") for line in lines)
            assert world.observation_string(0) == view.observation_string()


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


def test_deduce_does_not_guess_wrong_to_see_the_answer_when_that_puts_it_out():
    """deduce_guess_then_out.rules: a wrong guess shows the answer, then eliminates the guesser.
    Naming the card it holds tells the seat the answer but leaves it no decision to use it in:
    a guess worth nothing, not a question. It names one of the two cards it does not hold."""
    for seed in range(8):
        state = _settled(HIDDEN / "deduce_guess_then_out.rules", seed=seed)
        held = state.describe_piece(state.zones[state.zone_index("hand", 0)][0]).split()[-1]
        view = seat_view(state, 0)
        assert view.labels[make_agent("deduce", seed).choose(view)] != f"guess: {held}"


@pytest.mark.parametrize("name", ["guess_die.rules", "let_peek.rules"])
def test_deduce_cannot_beat_a_die_nobody_shows(name):
    game = rulelang.load(HIDDEN / name)
    wins = sum(play_game(game.new_initial_state(2), [make_agent("deduce", 7919 + g), make_agent("random", g)],
                         random.Random(g)).returns()[0] for g in range(30))
    assert wins < 15


@pytest.mark.parametrize("bot", ["mc", "ismcts", "deduce"])
def test_a_replay_that_ends_a_hidden_draw_loop_sooner_does_not_fit(bot):
    """draw_until.rules: a possible game whose hidden card ends the other player's draws
    sooner reaches a decision where the game drew again; the bots drop it, never a traceback."""
    game = rulelang.load(HIDDEN / "draw_until.rules")
    for g in range(3):
        state = play_game(game.new_initial_state(2), [make_agent(bot, g, **SMALL if bot == "deduce" else {}),
                                                      make_agent("random", g)], random.Random(g))
        assert state.is_terminal()


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


def test_worlds_carried_from_decision_to_decision_are_the_worlds_listed_afresh():
    """A Belief carried on plays only the new steps, and lists what a listing from the start
    lists: the same games with the same probabilities, in the same order."""
    from rulelang.belief import Belief, state_key

    state = _settled(HIDDEN / "code_breaker.rules", seed=3)
    kept, rng = Belief(), random.Random(8)
    for _ in range(5):
        carried = seat_view(state, 0).worlds(100, kept)
        fresh = seat_view(state, 0).worlds(100)
        assert [(state_key(w), p) for w, p in carried] == [(state_key(w), p) for w, p in fresh]
        while True:  # on to seat 1's next decision and back
            state.apply_action(rng.choice(state.legal_actions()) if state.current_player() >= 0
                               else state.sample_chance(rng))
            if state.is_terminal() or state.current_player() == 0:
                break
        if state.is_terminal():
            break
    other = _settled(HIDDEN / "code_breaker.rules", seed=4)  # another game: listed afresh
    assert len(seat_view(other, 0).worlds(100, kept)) == len(seat_view(other, 0).worlds(100))
    assert seat_view(other, 0).worlds(10, kept) is None


def test_a_bot_kept_and_reseeded_decides_as_a_new_one():
    """simulate and run keep one bot per seat and reseed it at each step (gamelog.seeded_action):
    the game is the one that new bots at every step would play."""
    from rulelang import gamelog

    game = rulelang.load(HIDDEN / "code_breaker.rules")
    played = []
    for agents in (None, {}):
        state, actions = game.new_initial_state(2), []
        while not state.is_terminal():
            bot = None if state.current_player() == CHANCE else ("deduce:considered=16", "mc:rollouts=2")[
                state.current_player()]
            actions.append(gamelog.seeded_action(state, 11, bot, agents))
            state.apply_action(actions[-1])
        played.append(actions)
    assert played[0] == played[1]


def test_bot_specs_carry_options():
    from rulelang.agents import check_bot, parse_bot

    assert parse_bot("deduce:max_worlds=64:discount=0.5:horizon=round") == (
        "deduce", {"max_worlds": 64, "discount": 0.5, "horizon": "round"})
    assert make_agent("deduce:max_worlds=64", 1).max_worlds == 64
    assert check_bot("deduce:considered=8") is None
    assert "no option `maxworlds`" in check_bot("deduce:maxworlds=3")
    assert "not OPTION=VALUE" in check_bot("mc:8")
    assert check_bot("dedcue") == "unknown bot `dedcue`"
