"""Dead faces (rulelang.faces): the analysis of a turn keys dice whose faces no rule reads
before they are rolled again without their faces. That merges states; it must never change a
value. Each game is analysed with the faces worked out and without (an objective whose
``reads`` is None keeps every face), and the values must agree."""

from __future__ import annotations

import math
import random
from pathlib import Path

import attrs
import pytest
from fuzzing import HypothesisDrawer, mutate
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

import rulelang
from rulelang import analysis, faces
from rulelang.diagnostics import RuntimeFault
from rulelang.pipeline import analyse

ROOT = Path(__file__).resolve().parent.parent
FACES = ROOT / "tests" / "faces"
GAMES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "tests" / "hidden_games").glob("*.rules"))


def both(state, objective, max_states=200_000):
    """The analysis with dead faces left out of keys, and with every face kept."""
    kept = attrs.evolve(objective, reads=None)
    return (analysis.Analysis(state, objective, max_states=max_states),
            analysis.Analysis(state, kept, max_states=max_states))


def every_face_dead(monkeypatch):
    """A wrong reading, to show that a test game would catch it: no face is ever read."""
    monkeypatch.setattr(faces.FaceLiveness, "live", lambda self, procedure, pc, waiting: frozenset())


def check_faces_kept(game, objective, monkeypatch):
    """Worked out, the value is that of keeping every face; dropping every face would change it."""
    worked_out, every_face = both(game.new_initial_state(2), objective)
    assert worked_out.value == pytest.approx(every_face.value, rel=1e-12)
    every_face_dead(monkeypatch)
    wrong = analysis.Analysis(game.new_initial_state(2), objective)
    assert wrong.value != pytest.approx(every_face.value, rel=1e-6)


@pytest.mark.parametrize("name", ["held_variable", "held_parameter", "held_counter", "number_as_piece", "triggered"])
def test_faces_read_later_are_kept(name, monkeypatch):
    """The cup's faces are read after "stop or roll again" through a variable, a parameter, a
    counter or a triggered rule's condition: keeping them gives the value of keeping every
    face, and dropping them would not."""
    game = rulelang.load(FACES / f"{name}.rules")
    check_faces_kept(game, analysis.gain_objective(game), monkeypatch)


def test_dead_faces_merge_states():
    """Nothing reads the cup between "stop or roll again" and the next roll: fewer states,
    the same value."""
    game = rulelang.load(FACES / "rolled_again.rules")
    worked_out, every_face = both(game.new_initial_state(2), analysis.gain_objective(game))
    assert worked_out.value == pytest.approx(every_face.value, rel=1e-12)
    assert worked_out.states < every_face.states


def test_an_objective_that_reads_the_dice_keeps_them(monkeypatch):
    path = FACES / "rolled_again.rules"
    game, objective = analysis.compile_objective(str(path), "sum(cup)")
    assert objective.reads == frozenset({"cup"})
    check_faces_kept(game, objective, monkeypatch)


def test_pickomino_stop_or_roll_again_is_keyed_without_the_cup():
    game = rulelang.load(ROOT / "games" / "pickomino.rules")
    liveness = faces.FaceLiveness(game, analysis.gain_objective(game).reads)
    turn = next(i for i, p in enumerate(game.procedures) if p.name == "turn")
    code = game.procedures[turn].code
    branch = next(pc for pc, instruction in enumerate(code) if game.rules[instruction[3]].name == "stop_or_roll")
    assert "cup" not in liveness.live(turn, branch, "branch")
    assert "kept" in liveness.live(turn, branch, "branch")
    assert liveness.live(turn, branch, "branch") >= {"stack", "grill"}  # the objective's, the end's


def test_extrawurm_stop_or_roll_again_is_keyed_without_the_cup():
    """Extrawurm's triggered rules (a bratwurm for two 1s set aside, a specialist coming with
    its tile) read what they name, not every zone; and a procedure a turn runs (`fail_turn`)
    returns only into turns, not into the set-up that also sets its rules off."""
    game = rulelang.load(ROOT / "games" / "extrawurm.rules")
    liveness = faces.FaceLiveness(game, analysis.gain_objective(game).reads)
    assert not liveness.disabled and game.move_triggers
    turn = next(i for i, p in enumerate(game.procedures) if p.name == "turn")
    code = game.procedures[turn].code
    branch = next(pc for pc, instruction in enumerate(code) if game.rules[instruction[3]].name == "stop_or_roll")
    assert "cup" not in liveness.live(turn, branch, "branch")
    assert {"kept", "stack", "bratwurms"} <= liveness.live(turn, branch, "branch")
    fail_turn = next(i for i, p in enumerate(game.procedures) if p.name == "fail_turn")
    main, setup = [0, 0, [], False], [1, 0, [], False]
    in_turn = [main, [2, 0, [], False], [turn, 0, [], True], [fail_turn, 0, [], False]]
    assert liveness.safe_stack(in_turn) and not liveness.safe_stack([main, setup, [fail_turn, 0, [], False]])


def _states(game, seed: int, count: int):
    """The initial state, then decisions met in a random game."""
    rng = random.Random(seed)
    state = game.new_initial_state(game.min_players)
    found = [state.clone()]
    steps = 0
    while not state.is_terminal() and len(found) < count and steps < 400:
        steps += 1
        if state.current_player() < 0:
            state.apply_action(state.sample_chance(rng))
            continue
        actions = state.legal_actions()
        if len(actions) > 1 and rng.random() < 0.3:
            found.append(state.clone())
        state.apply_action(rng.choice(actions))
    return found


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_every_game_values_alike_with_and_without_dead_faces(path):
    game = rulelang.load(path)
    if not game.criteria:
        pytest.skip("no winner criterion to measure a turn by")
    objective = analysis.gain_objective(game)
    compared = 0
    for state in _states(game, seed=len(path.stem), count=16):
        try:
            worked_out = analysis.Analysis(state, objective, max_states=6000)
            every_face = analysis.Analysis(state, attrs.evolve(objective, reads=None), max_states=12000)
        except (analysis.AnalysisRefused, RuntimeFault):
            continue  # a turn too long to value here: the next state
        compared += 1
        assert math.isclose(worked_out.value, every_face.value, rel_tol=1e-9, abs_tol=1e-12), path.stem
        assert worked_out.states <= every_face.states
        if compared == 3:
            break


def test_the_policy_tells_dice_to_be_rolled_again_by_their_number():
    game = rulelang.load(FACES / "rolled_again.rules")
    result = analysis.Analysis(game.new_initial_state(2), analysis.gain_objective(game))
    lines = result.policy(top=3)
    assert any(line.decision == "rule `stop_or_roll`" and line.situation.startswith("cup: 2 dice; kept: ")
               for line in lines)
    assert any(line.decision.startswith("rule `keep_one`") and line.situation.startswith("cup: 1 2 ")
               for line in lines)  # where the faces are read, they are shown


@pytest.mark.parametrize("name", ["pickomino", "extrawurm"])
def test_a_file_too_tangled_to_work_out_keeps_every_face(monkeypatch, name):
    """Past ``MAX_WORK`` steps (Extrawurm: its triggered rules against its statements, before
    any pass) every face is kept."""
    monkeypatch.setattr(faces, "MAX_WORK", 10)
    game = rulelang.load(ROOT / "games" / f"{name}.rules")
    liveness = faces.FaceLiveness(game, frozenset())
    assert liveness.disabled and liveness.live(0, 0, "choose") == liveness.names


# ---------------------------------------------------------------------- mutated games

DICE_GAMES = [p for p in GAMES + sorted(FACES.glob("*.rules"))
              if "\ndie " in "\n" + p.read_text(encoding="utf-8")]


@settings(max_examples=3 * settings.default.max_examples, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(game=st.sampled_from(DICE_GAMES), data=st.data())
def test_mutated_dice_games_value_alike(tmp_path_factory, game, data):
    """The real dice games mutated as tests/test_fuzz.py mutates them (a number put where a die
    was, a statement moved...): wherever a turn can be valued, dead faces do not change it."""
    texts = [p.read_text(encoding="utf-8") for p in DICE_GAMES]
    text = mutate(game.read_text(encoding="utf-8"), HypothesisDrawer(data), texts)
    path = tmp_path_factory.mktemp("faces") / "mutated.rules"
    path.write_text(text, encoding="utf-8")
    compiled, _ = analyse(str(path))
    assume(compiled is not None and compiled.criteria)
    rng = random.Random(data.draw(st.integers(0, 1000)))
    try:  # a mutant may fault anywhere, from its first step on
        state = compiled.new_initial_state(compiled.min_players)
        for _ in range(rng.randrange(30)):
            if state.is_terminal():
                break
            if state.current_player() < 0:
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assume(not state.is_terminal())
        objective = analysis.gain_objective(compiled)
        worked_out = analysis.Analysis(state, objective, max_states=1500)
        every_face = analysis.Analysis(state, attrs.evolve(objective, reads=None), max_states=3000)
    except (analysis.AnalysisRefused, RuntimeFault):
        reject()
    assert math.isclose(worked_out.value, every_face.value, rel_tol=1e-9, abs_tol=1e-9)
