"""Seeded games (rulelang.seeding): one generator per step, a batch path for random bots, and
logs of the old scheme that still resume as they were played."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from rulelang import CHANCE, cli, gamelog, pipeline, seeding, simulate

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.rules"))


def played_step_by_step(game, players: int, seed: int, seeding_scheme: int) -> list:
    state = game.new_initial_state(players)
    while not state.is_terminal():
        bot = None if state.current_player() == CHANCE else "random"
        state.apply_action(seeding.seeded_action(state, seed, bot, {}, seeding_scheme))
    return state.history


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_batch_path_plays_the_game_a_seed_names(path):
    """`simulate` with random bots plays, without a call per step, the very game that
    `rulelang run --seed` plays step by step."""
    game = pipeline.load(path)
    players = game.min_players
    for seed in (0, 7):
        batch = simulate.play_bots(game, ["random"] * players, seed, check=False)
        assert batch.history == played_step_by_step(game, players, seed, seeding.SEEDING)


def test_step_generators_are_exact_and_independent():
    rng = seeding.StepRandom(seeding.step_seed(1, 0, 0))
    draws = Counter(rng.randbelow(6) for _ in range(60_000))
    assert set(draws) == set(range(6)) and all(9_000 < n < 11_000 for n in draws.values())
    assert all(0.0 <= rng.random() < 1.0 for _ in range(1000))
    assert rng.getrandbits(200) < 1 << 200 and rng.randbelow(1 << 100) < 1 << 100
    keys = {seeding.step_seed(seed, step, who) for seed in range(20) for step in range(50)
            for who in (CHANCE, 0, 1)}
    assert len(keys) == 20 * 50 * 3
    assert seeding.step_seed(-5, 3, 1) == seeding.step_seed(-5, 3, 1) != seeding.step_seed(5, 3, 1)
    assert seeding.step_seed(10 ** 30, 0, 0) != seeding.step_seed(10 ** 30 + 1, 0, 0)


def test_a_log_of_the_first_scheme_resumes_with_it(tmp_path, capsys):
    """A log written before the `seeding` field (scheme 1: blake2b and a Mersenne Twister per
    step) goes on, when resumed, exactly as the uninterrupted game did."""
    rules = str(ROOT / "games" / "pickomino.rules")
    game = pipeline.load(rules)
    state = game.new_initial_state(2)
    log_path = tmp_path / "old.jsonl"
    with log_path.open("w") as log:
        header = gamelog.write_header(log, rules, 2, ["random", "random"], {}, 4, game.name, log_path)
        while not state.is_terminal():
            bot = None if state.current_player() == CHANCE else "random"
            action = seeding.seeded_action(state, 4, bot, {}, 1)
            gamelog.append_action(log, state, action)
            state.apply_action(action)
        gamelog.write_end(log, state)
    lines = log_path.read_text().splitlines()
    header.pop("seeding")
    lines[0] = json.dumps(header)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:len(lines) // 2]) + "\n")
    assert cli.main(["run", "--resume", str(cut), "--fast", "--rules", rules]) == 0
    assert cut.read_text().splitlines() == lines
    capsys.readouterr()


def test_a_log_names_its_scheme_and_an_unknown_one_is_refused(tmp_path, capsys):
    rules = str(ROOT / "games" / "pickomino.rules")
    log = tmp_path / "game.jsonl"
    assert cli.main(["run", rules, "--seats", "random,random", "--seed", "3", "--fast",
                     "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["seeding"] == seeding.SEEDING
    header["seeding"] = 99
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(header)] + lines[1:3]) + "\n")
    capsys.readouterr()
    assert cli.main(["run", "--resume", str(bad), "--fast", "--rules", rules]) == 2
    assert "`seeding` must be a seeding scheme: 1 or 2" in capsys.readouterr().err
