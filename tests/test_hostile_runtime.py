"""Hostile input while playing, reading files and reading logs: a diagnostic or a fault naming
the rule, a nonzero exit, never a traceback, never a hang. The cases in ``tests/hostile/`` are
the reproductions of issue 8 (runtime, files and logs)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import rulelang
from rulelang import cli, gamelog, load
from rulelang.files import FileRefused, confine, read_text
from rulelang.limits import Limits
from rulelang.pipeline import analyse

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
PICKOMINO = str(ROOT / "games" / "pickomino.rules")


def main(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---------------------------------------------------------------------- faults while playing
# (file, extra arguments, the code, text of the message). Each is played by bots with a log.
FAULTS = [
    ("counter_div0.rules", ["--seats", "random"], "R503", "the start value of counter `c`"),
    ("end_turn_outside_a_turn.rules", [], "R503", "end_turn_outside_a_turn.rules:8:16"),
    ("invariant_div0.rules", ["--check"], "R503", "invariant `sane` cannot be worked out: division by zero"),
    ("hyp_invariant_index_typeerror.rules", ["--check"], "R503", "invariant `inv` cannot be worked out"),
    ("memoryerror_empty_message.rules", [], "R512", "limit of 100000 pieces"),
    ("dynamic_create.rules", [], "R512", "(in rule `s`, "),
    ("dos_squaring.rules", [], "R511", "(in rule `r`"),
    ("dos_nested_filter.rules", [], "R509", "more work in one step than the limit of 1000000"),
    ("mc_bot_list_criterion.rules", [], "R503", "the winner rule `w` ranks players by a list, not a number"),
    ("hang_repeat_roll.rules", ["--limit", "idle_actions=300"], "R510", "(in rule `spin`"),
    ("sum_of_pairs.rules", [], "R503", "`sum` works on numbers, and one of its items is a list or a pair"),
    ("none_variable.rules", [], "R503", "a piece that is not there): `t` is none (in rule `r`, "),
]


@pytest.mark.parametrize(("name", "extra", "code", "text"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_fault_names_its_rule(name, extra, code, text, tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    seats = [] if "--seats" in extra else ["--seats", "random,random"]
    exit_code, _, err = main(capsys, "run", HOSTILE / name, *seats, *extra, "--seed", "1", "--fast",
                             "--log", log)
    assert exit_code == 1
    assert f"error[{code}]" in err and text in err, err
    assert f"{name}:" in err  # file:line
    if log.exists() and log.read_text():
        assert json.loads(log.read_text().splitlines()[-1]).get("fault", code) == code


def test_a_draw_that_runs_out_midway_shows_its_trace_and_replays(tmp_path, capsys):
    """R507 comes after the first card of a `draw 2` was drawn: the trace so far is shown, and
    the log, whose last action is that card, replays to the same fault."""
    log = tmp_path / "game.jsonl"
    code, out, err = main(capsys, "run", HOSTILE / "draw_past_the_end.rules", "--seats", "random,random",
                          "--seed", "1", "--fast", "--log", log)
    assert code == 1 and "error[R507]" in err and "move 1 c from deck to hand of player 2" in out
    code, out, _ = main(capsys, "replay", log, "--rules", HOSTILE / "draw_past_the_end.rules")
    assert code == 0 and "reproduces: yes (the game stops on fault R507" in out


def test_no_progress_stops_the_log_growing(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    code, _, _ = main(capsys, "run", HOSTILE / "hang_repeat_roll.rules", "--seats", "random,random",
                      "--seed", "1", "--fast", "--log", log, "--limit", "idle_actions=50")
    assert code == 1
    assert len(log.read_text().splitlines()) == 1 + 50 + 1 + 1  # header, 51 rolls, the fault


def test_a_decision_loop_without_a_way_out_ends(tmp_path, capsys):
    """A draft whose loop never ends (from fuzzing): R510 under simulate, promptly."""
    for name in ("six-nimmt.rules", "six-nimmt-tactics.rules"):
        shutil.copy(ROOT / "games" / name, tmp_path / name)
    shutil.copy(HOSTILE / "hang_fuzz_six_nimmt_logic_draft.rules", tmp_path / "draft.rules")
    code, out, _ = main(capsys, "simulate", tmp_path / "draft.rules", "--games", "2", "--seed", "1",
                        "--limit", "idle_actions=500")
    assert code == 1
    assert "R510" in out and "2 of 2 games faulted" in out


def test_the_work_limit_can_be_raised(capsys):
    code, out, _ = main(capsys, "simulate", PICKOMINO, "--games", "1", "--limit", "work=5")
    assert code == 1 and "R509 more work in one step than the limit of 5" in out
    assert main(capsys, "simulate", PICKOMINO, "--games", "2", "--seed", "1")[0] == 0


def test_a_bad_limit_is_a_usage_error(capsys):
    code, _, err = main(capsys, "run", PICKOMINO, "--limit", "speed=3")
    assert code == 2 and "unknown limit `speed=3`" in err


def test_limits_reach_the_compiled_game():
    game = load(PICKOMINO, limits=Limits(work=123))
    assert game.run_limits.work == 123
    assert game.new_initial_state(2).work_budget == 123


# ---------------------------------------------------------------------- simulate
MOSTLY_FINE = """\
game "Sometimes":
    players 2 to 2
die d:
    faces 1 to 6
zone cup: shared pool, public
counter c: shared = 0
setup:
    rule make: create 1 d in cup
turn:
    rule r:
        roll cup
        if sum(cup) == 6:
            c = 1 / 0
        end game
winner:
    rule w: most c
"""


def test_simulate_reports_each_faulted_game_and_goes_on(tmp_path, capsys):
    rules = tmp_path / "sometimes.rules"
    rules.write_text(MOSTLY_FINE)
    code, out, _ = main(capsys, "simulate", rules, "--games", "30", "--seed", "1", "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert report["games"] == 30 and 0 < len(report["faults"]) < 30
    assert report["finished"] == 30 - len(report["faults"])
    fault = report["faults"][0]
    assert fault["code"] == "R503" and "division by zero (in rule `r`, " in fault["message"]
    assert fault["where"].endswith("sometimes.rules:13:13")
    code, out, _ = main(capsys, "simulate", rules, "--games", "30", "--seed", "1")
    assert f"{len(report['faults'])} of 30 games faulted" in out
    assert f"fault in the game with seed {fault['seed']}: R503" in out


def test_simulate_stops_after_max_faults(capsys):
    code, out, _ = main(capsys, "simulate", HOSTILE / "hang_repeat_roll.rules", "--games", "50",
                        "--limit", "idle_actions=20", "--max-faults", "3")
    assert code == 1
    assert "3 of 3 games faulted" in out and "stopped after 3 faulted games, most of those played" in out


def test_escapes_in_names_are_shown_escaped():
    """A file with control characters is E009; a name that holds one all the same (made by a
    tool, or a piece renamed) reaches the trace escaped."""
    state = rulelang.load(ROOT / "games" / "pickomino.rules").new_initial_state(2)
    state.pieces.names[0] = "domino\x1b]0;PWNED\x07"
    state.events.append((-1, "move", ([0], [0], 0, None)))
    line = state.event_lines(len(state.events) - 1)[0]
    assert "\x1b" not in line and "\\e]0;PWNED" in line


# ---------------------------------------------------------------------- reading files
def test_only_regular_files_are_read(tmp_path):
    fifo = tmp_path / "fifo.rules"
    os.mkfifo(fifo)
    for path, reason in ((fifo, "not a regular file"), ("/dev/zero", "not a regular file"),
                         (tmp_path, "it is a folder"), (tmp_path / "none.rules", "no such file")):
        with pytest.raises(FileRefused) as refused:
            read_text(path, 1000)
        assert refused.value.code == "E107" and reason in refused.value.message


def test_a_file_over_the_size_limit_is_refused(tmp_path):
    big = tmp_path / "big.rules"
    big.write_text("# " + "x" * 200 + "\n")
    _, diagnostics = analyse(str(big), limits=Limits(file_bytes=100))
    assert [d.code for d in diagnostics] == ["E601"]
    assert "more than the limit of 100" in diagnostics[0].message


def test_binary_content_is_never_parsed_or_shown(tmp_path):
    secret = tmp_path / "secret.rules"
    secret.write_bytes(b"password=hunter2\xff\xfe\n")
    variant = tmp_path / "v.rules"
    variant.write_text('extends "secret.rules"\n')
    _, diagnostics = analyse(str(variant))
    assert [d.code for d in diagnostics] == ["E106"]
    assert "not UTF-8 text" in diagnostics[0].message
    assert all("hunter2" not in (d.message + str(d.help)) for d in diagnostics)


def extends_diagnostic(tmp_path: Path, target: str):
    folder = tmp_path / "game"
    folder.mkdir(exist_ok=True)
    variant = folder / "v.rules"
    variant.write_text(f'# a variant\nextends "{target}"\n')
    _, diagnostics = analyse(str(variant))
    assert len(diagnostics) == 1, diagnostics
    return diagnostics[0]


@pytest.mark.parametrize("target", ["/etc/passwd", "/dev/zero", "/proc/self/environ", "../outside.rules",
                                    "sub/../../outside.rules", "~/x.rules"])
def test_extends_out_of_the_tree_is_refused_at_its_line(tmp_path, target):
    fifo = tmp_path / "outside.rules"
    os.mkfifo(fifo)  # opening it would block: a refusal proves it was never opened
    d = extends_diagnostic(tmp_path, target)
    assert d.code == "E109" and d.span.line == 2 and d.span.column == 1 and d.help


def test_a_link_out_of_the_tree_is_refused(tmp_path):
    (tmp_path / "outside.rules").write_text("game \"Secret\"\n")
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "base.rules").symlink_to(tmp_path / "outside.rules")
    assert extends_diagnostic(tmp_path, "base.rules").code == "E109"


def test_extends_inside_the_tree_may_go_up_and_down(tmp_path):
    root = tmp_path / "root"
    (root / "variants").mkdir(parents=True)
    shutil.copy(PICKOMINO, root / "pickomino.rules")
    variant = root / "variants" / "v.rules"
    variant.write_text('extends "../pickomino.rules"\n\noption shorter_game = true\n')
    game, diagnostics = analyse(str(variant), root=str(root))
    assert game is not None, diagnostics
    _, diagnostics = analyse(str(variant))  # the root is the variant's own folder
    assert [d.code for d in diagnostics] == ["E109"]


def test_confine_keeps_relative_paths_in_the_tree(tmp_path):
    assert confine("a/b.rules", tmp_path, tmp_path) == tmp_path / "a" / "b.rules"
    with pytest.raises(FileRefused):
        confine("../b.rules", tmp_path, tmp_path)


# ---------------------------------------------------------------------- logs
HOSTILE_LOGS = [
    ("deep_nested_500.jsonl", "E701", "deep_nested_500.jsonl:2: JSON nested more than 20 levels"),
    ("huge_index_5000.jsonl", "E701", "huge_index_5000.jsonl:2: a number of 5000 digits"),
    ("seats_dict.jsonl", "E701", "seats_dict.jsonl:1: the header's `seats`"),
    ("seats_nested.jsonl", "E701", "seats_nested.jsonl:1: the header's `seats`"),
    ("rules_passwd.jsonl", "E109", "`/etc/passwd` is not a `.rules` file"),
    ("rules_devzero.jsonl", "E109", "`/dev/zero` is not a `.rules` file"),
    ("rules_environ.jsonl", "E109", "`/proc/self/environ` is not a `.rules` file"),
]


@pytest.mark.parametrize(("name", "code", "text"), HOSTILE_LOGS, ids=[c[0] for c in HOSTILE_LOGS])
def test_a_hostile_log_is_refused(name, code, text, capsys, tmp_path):
    log = tmp_path / name
    shutil.copy(HOSTILE / "saved_logs" / name, log)
    for argv in (("replay", log), ("run", "--resume", log)):
        exit_code, _, err = main(capsys, *argv)
        assert exit_code == 2 and f"error[{code}]" in err and text in err, err
        assert "root:" not in err  # nothing of /etc/passwd


def test_a_deep_line_is_refused_before_json_parses_it(tmp_path, capsys):
    log = tmp_path / "deep.jsonl"
    header = json.loads((HOSTILE / "saved_logs" / "end_early.jsonl").read_text().splitlines()[0])
    log.write_text(json.dumps(header) + '\n{"player": 0, "action": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    code, _, err = main(capsys, "replay", log)
    assert code == 2 and "JSON nested more than 20 levels" in err


def test_a_log_over_the_size_limit_is_refused(tmp_path, capsys):
    log = tmp_path / "big.jsonl"
    shutil.copy(HOSTILE / "saved_logs" / "end_early.jsonl", log)
    code, _, err = main(capsys, "replay", log, "--limit", "log_bytes=100")
    assert code == 2 and "error[E702]" in err and "limit of 100 bytes" in err


@pytest.mark.parametrize("header_change", [{"players": True}, {"players": 10**9}, {"seed": "7"},
                                           {"options": {"a": [1]}}, {"rules": ""}, {"game": 3}])
def test_header_fields_are_checked(header_change, tmp_path):
    lines = (HOSTILE / "saved_logs" / "end_early.jsonl").read_text().splitlines()
    header = json.loads(lines[0]) | header_change
    log = tmp_path / "x.jsonl"
    log.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    with pytest.raises(gamelog.LogError) as error:
        gamelog.read_log(log)
    assert error.value.code == "E701" and error.value.message.startswith(f"{log}:1: ")


@pytest.mark.parametrize("line", ['{"player": -1, "action": 0}', '{"player": 0, "action": -2}',
                                  '{"player": 0, "action": [[[[1]]]]}', '{"player": 0, "action": NaN}',
                                  '{"player": 0, "action": 0, "text": 5}', '{"player": [], "action": 0}'])
def test_action_fields_are_checked(line, tmp_path):
    header = (HOSTILE / "saved_logs" / "end_early.jsonl").read_text().splitlines()[0]
    log = tmp_path / "x.jsonl"
    log.write_text(header + "\n" + line + "\n")
    with pytest.raises(gamelog.LogError) as error:
        gamelog.read_log(log)
    assert error.value.code == "E701" and error.value.message.startswith(f"{log}:2: ")


def test_a_log_that_ends_early_says_what_is_wrong(tmp_path, capsys):
    log = tmp_path / "early.jsonl"
    shutil.copy(HOSTILE / "saved_logs" / "end_early.jsonl", log)
    code, _, err = main(capsys, "run", "--resume", log, "--rules", PICKOMINO, "--fast")
    assert code == 1
    assert f"error[E703]: {log}:12: the log says the game is over, but the replayed game goes on" in err
    code, out, _ = main(capsys, "replay", "--quiet", log, "--rules", PICKOMINO)
    assert code == 1 and "the log says the game is over, but the replayed game goes on" in out


def test_a_log_finds_its_rules_beside_it(tmp_path, capsys):
    shutil.copy(PICKOMINO, tmp_path / "pickomino.rules")
    log = tmp_path / "logs" / "g.jsonl"
    assert main(capsys, "run", tmp_path / "pickomino.rules", "--seats", "random,random", "--seed", "3",
                "--fast", "--log", log)[0] == 0
    header = json.loads(log.read_text().splitlines()[0])
    assert header["rules"] == "../pickomino.rules" and header["record"] == "referee"
    code, _, err = main(capsys, "replay", "--quiet", log)  # ../ leaves the log's folder
    assert code == 2 and "error[E109]" in err and "--rules FILE" in err
    assert main(capsys, "replay", "--quiet", log, "--rules", tmp_path / "pickomino.rules")[0] == 0
    beside = tmp_path / "g.jsonl"
    assert main(capsys, "run", tmp_path / "pickomino.rules", "--seats", "random,random", "--seed", "3",
                "--fast", "--log", beside)[0] == 0
    assert json.loads(beside.read_text().splitlines()[0])["rules"] == "pickomino.rules"
    assert main(capsys, "replay", "--quiet", beside)[0] == 0


def test_the_resume_hint_names_the_rules_when_needed(tmp_path, monkeypatch, capsys):
    import io
    import sys
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    log = tmp_path / "human.jsonl"
    code, out, _ = main(capsys, "run", PICKOMINO, "--seats", "you,random", "--seed", "3", "--log", log)
    assert code == 0 and f"rulelang run --resume {log} --rules {PICKOMINO}" in out


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_log_that_cannot_be_written_is_a_clean_error(capsys):
    code, _, err = main(capsys, "run", PICKOMINO, "--seats", "random,random", "--fast", "--log", "/dev/full")
    assert code == 2 and "cannot write the log /dev/full: no space left on device" in err


# ------------------------------------------------------------- red-team findings on main (8)
def pig_like(setup: str = "pass", header: str = "at most 50 turns", play: str = "roll cup") -> str:
    """A small game around the given setup lines, turn body and game header line."""
    return f"""game "Probe":
    players 2 to 2
    {header}

die d6:
    faces 1 to 6

zone cup: shared pool, public
zone a: shared pool, public
zone b: shared pool, public
counter score: per player = 0

setup:
    rule probe:
        {setup}
    rule one_die: create 1 d6 in cup

turn:
    rule play:
        {play}

end:
    rule done: game ends when turn_number >= 4

winner:
    rule highest_score: most score of player
"""


def test_simulate_averages_scores_too_large_for_a_float(tmp_path, capsys):
    rules = tmp_path / "big.rules"
    big = " * ".join(["1" + "0" * 40] * 10)  # 401 digits, under the number_digits limit
    rules.write_text(pig_like(play=f"roll cup\n        score of player = {big}"))
    for fmt in ("text", "json"):
        code, out, _ = main(capsys, "simulate", rules, "--games", "3", "--format", fmt)
        assert code == 0 and "1" + "0" * 400 in out


def test_number_digits_stays_printable(capsys):
    code, _, err = main(capsys, "run", PICKOMINO, "--limit", "number_digits=5000")
    assert code == 2 and "at most 4000" in err
    code, _, err = main(capsys, "run", PICKOMINO, "--limit", "work=\u0661\u0660")
    assert code == 2 and "whole number" in err


WORK = {  # setup lines that each do unbounded work in one step unless every item counts
    "move": "create 20000 d6 in a\n        let i = 0\n        while i < 1000:\n"
            "            move a to b\n            move b to a\n            i += 1",
    "concat": "let x = [1, 2]\n        let i = 0\n        while i < 40:\n            x = x + x\n            i += 1",
    "distinct": "let x = [1, 2]\n        let i = 0\n        while i < 1000:\n            let d = distinct(x)\n"
                "            x = x + [i]\n            i += 1",
    "in": "let x = [0]\n        let i = 0\n        while i < 3000:\n            if -1 in x:\n                pass\n"
          "            x = x + [i]\n            i += 1",
    "equal": "let x = [0]\n        let i = 0\n        while i < 3000:\n            if x == x:\n                pass\n"
             "            x = x + [i]\n            i += 1",
    "for_each": "create 20000 d6 in a\n        for each d in a:\n            pass",
}


@pytest.mark.parametrize("name", list(WORK))
def test_collection_work_counts_against_the_limit(name, tmp_path, capsys):
    rules = tmp_path / f"{name}.rules"
    rules.write_text(pig_like(setup=WORK[name]))
    code, _, err = main(capsys, "run", rules, "--seats", "random,random", "--fast", "--seed", "1",
                        "--limit", "work=10000", "--log", tmp_path / "game.jsonl")
    assert code == 1 and "error[R509]" in err and "(in rule `probe`" in err, err


def test_a_long_chain_of_variants_is_refused(tmp_path, capsys):
    (tmp_path / "c0.rules").write_text(pig_like())
    for k in range(1, 40):
        (tmp_path / f"c{k}.rules").write_text(f'extends "c{k - 1}.rules"\n')
    code, out, _ = main(capsys, "lint", tmp_path / "c15.rules")
    assert code == 0, out
    for argv in (["lint", "c39.rules"], ["diff", "c0.rules", "c39.rules"], ["explain", "play", "--file", "c39.rules"]):
        code, out, err = main(capsys, *argv[:-1], tmp_path / argv[-1]) if argv[0] != "diff" else \
            main(capsys, "diff", tmp_path / "c0.rules", tmp_path / "c39.rules")
        assert code != 0 and "error[E106]" in out + err and "limit of 16 files" in out + err


def test_the_turns_limit_caps_the_files_own_bound(tmp_path, capsys):
    rules = tmp_path / "forever.rules"
    rules.write_text(pig_like(header="at most 999999999999 turns").replace(
        "game ends when turn_number >= 4", "game ends when turn_number < 0"))
    code, _, err = main(capsys, "run", rules, "--seats", "random,random", "--fast", "--seed", "1",
                        "--limit", "turns=30", "--log", tmp_path / "game.jsonl")
    assert code == 1 and "error[R504]" in err and "limit of 30 turns" in err and "--limit turns=N" in err, err


def test_a_log_with_a_long_score_replays(tmp_path, capsys):
    rules = tmp_path / "big.rules"
    rules.write_text(pig_like(play="roll cup\n        score of player = " + "1" + "0" * 60))
    log = tmp_path / "game.jsonl"
    code, _, _ = main(capsys, "run", rules, "--seats", "random,random", "--fast", "--seed", "1", "--log", log)
    assert code == 0
    code, out, _ = main(capsys, "replay", log)
    assert code == 0 and "reproduces: yes" in out


@pytest.mark.parametrize(("value", "text"), [("1" + "0" * 1000, "error[E606]"), ("\u0661\u0662", "error[E108]")])
def test_option_values_are_checked(value, text, capsys):
    code, _, err = main(capsys, "run", ROOT / "examples" / "pig.rules", "--seats", "random,random", "--fast",
                        "--option", f"target={value}")
    assert code != 0 and text in err, err


def test_an_int_option_is_not_a_boolean():
    from rulelang.pipeline import _coerce
    with pytest.raises(ValueError):
        _coerce(True, 100)


def test_simulate_refuses_zero_players(capsys):
    code, _, err = main(capsys, "simulate", ROOT / "examples" / "pig.rules", "--games", "2", "--players", "0")
    assert code == 2 and "not 0" in err


@pytest.mark.parametrize("value", ['[""]', "[1, 2]", "players"])
def test_a_variable_of_pieces_keeps_holding_pieces(value, tmp_path):
    shutil.copy(PICKOMINO, tmp_path / "pickomino.rules")
    (tmp_path / "v.rules").write_text(f'extends "pickomino.rules"\n\nreplace rule next_lower_tile: offered = {value}\n')
    _, diagnostics = analyse(str(tmp_path / "v.rules"))
    assert [d.code for d in diagnostics if d.is_error] == ["E201"]


@pytest.mark.parametrize(("line", "expected"), [
    ('let m = max([1, "a", 5, none])\n        if m != 5:\n            let bad = 1 / 0', None),
    ('let m = min(["a", 3, 2])\n        if m != 2:\n            let bad = 1 / 0', None),
    ('let s = sorted(["b", 3, 1])\n        if first(s) != 1 or last(s) != "b":\n            let bad = 1 / 0', None),
    ('let x = first(["a"])\n        if x < 3:\n            pass', "`<` cannot compare a label with a number"),
    ('let x = first(["a"])\n        let s = seat(x)', "a value of the wrong kind here"),
])
def test_mixed_values_play_as_documented_or_fault_in_words(line, expected, tmp_path, capsys):
    rules = tmp_path / "mixed.rules"
    rules.write_text(pig_like(setup=line))
    code, _, err = main(capsys, "run", rules, "--seats", "random,random", "--fast", "--seed", "1",
                        "--log", tmp_path / "game.jsonl")
    if expected is None:
        assert code == 0, err
    else:
        assert code == 1 and expected in err and "(in rule `probe`" in err and "instances" not in err, err


def test_invisible_characters_are_shown_escaped(capsys):
    from rulelang.source import printable
    assert printable("a\u200bb\ufeffc\u2028d\u2060") == "a\\u200bb\\ufeffc\\u2028d\\u2060"
    code, out, err = main(capsys, "explain", "\x1b[2J\x1b]0;x\x07")
    assert code != 0 and "\x1b" not in out + err and "\x07" not in out + err


@pytest.mark.parametrize(("topic", "text"), [("total", "define `total`"), ("score", "counter `score`")])
def test_explain_names_counters_and_defines(topic, text, tmp_path, capsys):
    rules = tmp_path / "g.rules"
    rules.write_text(pig_like().replace("\nsetup:", "\ndefine total = count(cup)\n\nsetup:"))
    code, out, _ = main(capsys, "explain", topic, "--file", rules)
    assert code == 0 and text in out and "g.rules:" in out
