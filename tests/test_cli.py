"""The command line, run in-process: lint, run (with logs, replay and resume), explain, simulate."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulelang import cli, gamelog, tui

ROOT = Path(__file__).resolve().parent.parent
PICKOMINO = str(ROOT / "games" / "pickomino.rules")


def run_cli(*argv: str) -> tuple[int, str, str]:
    """main() with stdout and stderr captured (for module-scoped fixtures, where capsys is not)."""
    out, error = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(error):
        code = cli.main(list(argv))
    return code, out.getvalue(), error.getvalue()


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, str]:
    """One bots-only game of Pickomino (mc bots, the default), seeded, with its log."""
    log = tmp_path_factory.mktemp("logs") / "game.jsonl"
    code, out, _ = run_cli("run", PICKOMINO, "--players", "2", "--seed", "11", "--fast", "--log", str(log))
    assert code == 0
    return log, out


def log_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def broken_rules(tmp_path: Path) -> Path:
    text = Path(PICKOMINO).read_text().replace("if cup is empty or", "if cupp is empty or")
    path = tmp_path / "broken.rules"
    path.write_text(text)
    return path


# ---------------------------------------------------------------------- lint
def test_lint_good_file_exits_0(capsys):
    assert cli.main(["lint", PICKOMINO]) == 0
    assert "0 errors" in capsys.readouterr().err


def test_lint_broken_file_shows_code_place_and_caret(tmp_path, capsys):
    path = broken_rules(tmp_path)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "cupp" in t)
    assert cli.main(["lint", str(path)]) == 1
    captured = capsys.readouterr()
    assert "error[E101]" in captured.out
    assert f"{path}:{line}:" in captured.out
    assert "^^^^" in captured.out
    assert "did you mean `cup`" in captured.out
    assert "1 error, " in captured.err


def test_lint_concise_and_json(tmp_path, capsys):
    path = broken_rules(tmp_path)
    assert cli.main(["lint", "--format", "concise", str(path)]) == 1
    assert f"{path}:" in capsys.readouterr().out
    assert cli.main(["lint", "--format", "json", str(path), PICKOMINO]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in data] == ["E101"]
    assert data[0]["path"] == str(path) and data[0]["line"] > 0


def test_lint_missing_file_exits_2(tmp_path, capsys):
    missing = str(tmp_path / "nope.rules")
    assert cli.main(["lint", missing]) == 2
    assert "E107" in capsys.readouterr().out
    assert cli.main(["lint", "--format", "json", missing]) == 2
    assert json.loads(capsys.readouterr().out)[0]["path"] == missing


def test_bad_usage_exits_2(capsys):
    assert cli.main([]) == 2
    assert cli.main(["lint"]) == 2
    assert cli.main(["run", PICKOMINO, "--bot", "genius", "--fast"]) == 2
    assert cli.main(["run", PICKOMINO, "--players", "9", "--fast"]) == 2
    assert cli.main(["run", PICKOMINO, "--seats", "you,mcc", "--fast"]) == 2
    assert "did you mean `mc`" in capsys.readouterr().err


def test_counts_past_what_a_run_can_hold_exit_2(capsys):
    """A count too big to keep (a result per game, a line of play on the stack) is a usage
    error, not a MemoryError or an OverflowError."""
    assert cli.main(["simulate", PICKOMINO, "--games", "10000000000", "--quiet"]) == 2
    assert cli.main(["compare", PICKOMINO, PICKOMINO, "--games", "10000000000"]) == 2
    assert cli.main(["analyze", PICKOMINO, "--max-steps", "99999999999999999999"]) == 2
    err = capsys.readouterr().err
    assert "--games takes 1 to 10,000,000" in err and "--max-steps takes at most 10,000" in err


def test_unknown_option_is_a_diagnostic(tmp_path, capsys):
    code = cli.main(["run", PICKOMINO, "--option", "shorter=yes", "--log", str(tmp_path / "x.jsonl")])
    assert code == 1
    assert "E108" in capsys.readouterr().err


# ---------------------------------------------------------------------- run, replay, resume
def test_run_bots_writes_a_log(played):
    log, out = played
    assert "seed 11" in out and "winner" in out
    assert "most_worms" in out  # the score columns are the winner rules
    lines = log_lines(log)
    header, end = lines[0], lines[-1]
    assert header["rulelang_log"] == 1 and header["players"] == 2 and header["seed"] == 11
    assert header["seats"] == ["mc", "mc"]
    assert end["end"] is True and len(end["returns"]) == 2 and end["winners"]
    assert lines[1]["player"] == "chance" and isinstance(lines[1]["action"], list)
    assert all("text" in line for line in lines[1:-1])


def test_replay_reproduces(played, capsys):
    log, _ = played
    assert cli.main(["replay", str(log), "--rules", PICKOMINO]) == 0
    out = capsys.readouterr().out
    assert "reproduces: yes" in out
    assert "pickomino.rules:" in out  # the trace names rules


def test_replay_reports_a_mismatch(played, tmp_path, capsys):
    log, _ = played
    lines = log.read_text().splitlines()
    record = json.loads(lines[3])
    record["text"] = "something else"
    lines[3] = json.dumps(record)
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")
    assert cli.main(["replay", "--quiet", str(tampered), "--rules", PICKOMINO]) == 1
    assert "reproduces: no" in capsys.readouterr().out


def test_resume_a_truncated_log_plays_the_same_game(played, tmp_path, capsys):
    log, _ = played
    lines = log.read_text().splitlines()
    actions = lines[1:-1]
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text("\n".join([lines[0], *actions[: len(actions) // 2]]) + "\n")
    assert cli.main(["run", "--resume", str(truncated), "--fast", "--rules", PICKOMINO]) == 0
    assert "resumed after" in capsys.readouterr().out
    assert truncated.read_text().splitlines() == lines
    assert cli.main(["replay", "--quiet", str(truncated), "--rules", PICKOMINO]) == 0


def test_resume_of_a_finished_game_checks_its_recorded_end(played, tmp_path, capsys):
    log, _ = played
    lines = log.read_text().splitlines()
    end = json.loads(lines[-1])
    end["winners"], end["returns"] = [7], [1, 2, 3]
    wrong = tmp_path / "wrong_end.jsonl"
    wrong.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    assert cli.main(["run", "--resume", str(wrong), "--fast", "--rules", PICKOMINO]) == 1
    assert "E703" in capsys.readouterr().err


def test_a_log_after_a_byte_order_mark_and_blank_lines_replays_and_resumes(played, tmp_path, capsys):
    log, _ = played
    lines = log.read_text().splitlines()
    marked = tmp_path / "marked.jsonl"
    marked.write_text("\ufeff\n\n" + "\n".join(lines[:8]) + "\n", encoding="utf-8")
    assert cli.main(["run", "--resume", str(marked), "--fast", "--rules", PICKOMINO]) == 0
    assert cli.main(["replay", "--quiet", str(marked), "--rules", PICKOMINO]) == 0
    capsys.readouterr()


def test_resume_drops_a_line_cut_short(played, tmp_path, capsys):
    log, _ = played
    lines = log.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:6]) + "\n" + lines[6][:10])
    assert cli.main(["run", "--resume", str(cut), "--fast", "--rules", PICKOMINO]) == 0
    assert cut.read_text().splitlines() == lines
    capsys.readouterr()


def test_resume_with_other_rules_names_them_in_the_log(tmp_path, capsys, monkeypatch):
    """A game resumed with --rules FILE, another file than the log's, goes on under FILE: the
    log's header names FILE from then on, so that the whole log replays."""
    monkeypatch.chdir(tmp_path)
    text = Path(PICKOMINO).read_text()
    Path("base.rules").write_text(text)
    Path("other.rules").write_text("# the same game, another file\n" + text)
    assert cli.main(["run", "base.rules", "--seats", "random,random", "--seed", "3", "--fast",
                     "--log", "game.jsonl"]) == 0
    lines = Path("game.jsonl").read_text().splitlines()
    Path("game.jsonl").write_text("\n".join(lines[:6]) + "\n")
    capsys.readouterr()
    assert cli.main(["run", "--resume", "game.jsonl", "--fast", "--rules", "other.rules"]) == 0
    err = capsys.readouterr().err
    assert "the log was written with `base.rules`; it is replayed with other.rules" in err
    assert "the log's header now names other.rules" in err
    assert json.loads(Path("game.jsonl").read_text().splitlines()[0])["rules"] == "other.rules"
    assert cli.main(["replay", "--quiet", "game.jsonl"]) == 0
    assert "has changed" not in capsys.readouterr().err


def test_resume_a_finished_game(played, capsys):
    log, _ = played
    assert cli.main(["run", "--resume", str(log), "--fast", "--rules", PICKOMINO]) == 0
    assert "is over" in capsys.readouterr().out


def test_human_seat_reprompts_and_quits(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("9\nzzz\n\nq\n"))
    log = tmp_path / "human.jsonl"
    code = cli.main(["run", PICKOMINO, "--seats", "you,random", "--seed", "3", "--log", str(log)])
    out = capsys.readouterr().out
    assert code == 0
    assert "there is no option 9" in out
    assert "no option starts with `zzz`" in out
    assert "resume with: rulelang run --resume" in out
    lines = log_lines(log)
    assert lines[0]["seats"] == ["you", "random"]
    assert not any(line.get("end") for line in lines)


def test_human_plays_to_the_end_of_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    log = tmp_path / "human.jsonl"
    code = cli.main(["run", PICKOMINO, "--seats", "you,random", "--seed", "3", "--log", str(log), "--check"])
    assert code == 0
    assert "winner" in capsys.readouterr().out or not log_lines(log)[-1].get("end")
    assert cli.main(["replay", "--quiet", str(log), "--rules", PICKOMINO]) == 0


def test_parse_choice():
    texts = ["set aside: 1", "set aside: 5", "set aside: worm", "stop"]
    assert tui.parse_choice("2", texts) == (1, None)
    assert tui.parse_choice("w", texts) == (2, None)
    assert tui.parse_choice("STOP", texts) == (3, None)
    assert tui.parse_choice("set aside: 5", texts) == (1, None)
    assert tui.parse_choice("set", texts)[0] is None
    assert tui.parse_choice("0", texts)[0] is None
    assert tui.parse_choice("", texts)[0] is None


def test_compact_items_groups_kinds():
    items = ["pickomino_die showing worm", "pickomino_die showing 3", "pickomino_die showing 1"]
    assert tui.compact_items(items, ["pickomino_die"], pool=True) == "pickomino_die 1 3 worm"
    assert tui.compact_items(["domino 21", "domino 30"], ["domino"]) == "domino 21 30"
    assert tui.compact_items([], ["domino"]) == "—"


def test_outcomes_round_trip_through_json():
    outcome = ((0, 2, 5), (1,))
    assert gamelog.action_from_json(json.loads(json.dumps(gamelog.action_to_json(outcome)))) == outcome
    assert gamelog.action_from_json(3) == 3


# ---------------------------------------------------------------------- explain
def test_explain_code(capsys):
    assert cli.main(["explain", "E101"]) == 0
    out = capsys.readouterr().out
    assert "unknown-name" in out and "not declared anywhere" in out
    assert cli.main(["explain", "R505"]) == 0  # runtime codes are registered too
    assert cli.main(["explain", "E999"]) == 1


def test_explain_rule_of_a_file(capsys):
    assert cli.main(["explain", "set_aside", "--file", PICKOMINO]) == 0
    out = capsys.readouterr().out
    assert f"{PICKOMINO}:45" in out
    assert "Set aside every die" in out
    assert "choose symbol from new_symbols" in out


def test_explain_a_name_after_the_file(capsys):
    """`explain FILE NAME`, the order a designer types, is `explain NAME --file FILE`."""
    assert cli.main(["explain", "set_aside", "--file", PICKOMINO]) == 0
    expected = capsys.readouterr().out
    assert cli.main(["explain", PICKOMINO, "set_aside"]) == 0
    assert capsys.readouterr().out == expected
    assert cli.main(["explain", "set_aside", "take_tile"]) == 2
    assert "explain FILE.rules take_tile" in capsys.readouterr().err


def test_explain_unknown_rule_suggests(capsys):
    assert cli.main(["explain", "take_tyle", "--file", PICKOMINO]) == 1
    assert "did you mean `take_tile`" in capsys.readouterr().err


def test_explain_a_face_by_its_label(capsys):
    assert cli.main(["explain", PICKOMINO, "worm"]) == 0
    assert capsys.readouterr().out.startswith("face `worm` of die `pickomino_die`: faces 1, 2, 3, 4, 5, worm")
    assert cli.main(["explain", PICKOMINO, "wurm"]) == 1
    assert "did you mean `worm`" in capsys.readouterr().err


def test_explain_a_face_names_every_kind_that_has_it(tmp_path, capsys):
    rules = tmp_path / "shared.rules"
    rules.write_text('game "Shared faces":\n    players 2\n\ndie green_die:\n    faces brain, feet, shotgun\n\n'
                     'die red_die:\n    faces feet, shotgun, shotgun\n\nturn:\n    rule r: end game\n\n'
                     'winner:\n    rule w: most 0\n')
    assert cli.main(["explain", str(rules), "shotgun"]) == 0
    out = capsys.readouterr().out
    assert "face `shotgun` of die `green_die`" in out and "face `shotgun` of die `red_die`" in out


def test_explain_a_key_and_a_column_with_parameters(capsys):
    """A key of a counter or of zones with keys, a table column with parameters, and a card, by name."""
    cities = str(ROOT / "tests/scenarios/designer-games/lost-cities-full.rules")
    assert cli.main(["explain", cities, "yellow"]) == 0
    out = capsys.readouterr().out
    assert "key `yellow` of zone `expedition` (`expedition[yellow]`)" in out and "zone `discard`" in out
    yahtzee = str(ROOT / "tests/language/five_dice.rules")
    assert cli.main(["explain", yahtzee, "twos"]) == 0
    assert "key `twos` of counter `sheet` (`sheet[twos]`), per player" in capsys.readouterr().out
    warnings = str(ROOT / "tests/language/tables.rules")
    assert cli.main(["explain", warnings, "fires"]) == 0
    out = capsys.readouterr().out
    assert "attribute `fires` of card `warning`: a column with 1 parameter" in out and "<fires" not in out
    assert cli.main(["explain", str(ROOT / "games/pickomino.rules"), "25"]) == 0
    assert capsys.readouterr().out.startswith("tile `25` of `domino`: worms 2")
    assert cli.main(["explain", str(ROOT / "tests/scenarios/designer-games/seven-wonders.rules"), "baths"]) == 0
    assert "card `baths` of `building`: colour blue, cost stone" in capsys.readouterr().out


def test_explain_file_lists_the_game(capsys):
    assert cli.main(["explain", "--file", PICKOMINO]) == 0
    out = capsys.readouterr().out
    for text in ("shorter_game = false", "pickomino_die", "grill", "grill_empty", "end condition"):
        assert text in out
    assert "\ncounters:\n  none\n" in out


def test_explain_a_rules_file_given_as_the_topic_lists_the_game(capsys):
    assert cli.main(["explain", "--file", PICKOMINO]) == 0
    listed = capsys.readouterr().out
    assert cli.main(["explain", PICKOMINO]) == 0
    assert capsys.readouterr().out == listed


def test_explain_file_lists_the_counters(capsys):
    assert cli.main(["explain", "--file", str(ROOT / "examples" / "pig.rules")]) == 0
    out = capsys.readouterr().out
    assert "\ncounters:\n  turn_total: shared, starts as 0\n  score: per player, starts as 0\n\nrules:" in out


def test_explain_file_lists_defines_shows_and_how_zones_are_sorted(capsys):
    assert cli.main(["explain", PICKOMINO]) == 0
    out = capsys.readouterr().out
    assert "  grill: shared row sorted by number, public\n" in out
    assert "\ndefines:\n  total = sum(kept)\n" in out
    assert "\nshown on the board:\n  kept_total  " in out
    assert cli.main(["explain", "kept_total", "--file", PICKOMINO]) == 0
    assert "show `kept_total`: a value on the board" in capsys.readouterr().out


# ---------------------------------------------------------------------- triggered rules, limits
ENGINE_GAMES = sorted(str(p) for p in (ROOT / "tests" / "scenarios" / "engine").glob("*.rules"))
DIAGNOSTICS = ROOT / "tests" / "diagnostics"


def test_lint_files_with_triggered_rules_carried_zones_and_limits(capsys):
    files = [str(ROOT / "games" / "extrawurm.rules"), str(DIAGNOSTICS / "trigger_clean.rules"), *ENGINE_GAMES]
    assert cli.main(["lint", *files]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().err


def test_lint_a_variant_of_a_missing_triggered_rule(capsys, monkeypatch):
    monkeypatch.chdir(DIAGNOSTICS)
    assert cli.main(["lint", "--format", "json", "variant_unknown_trigger.rules"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(d["code"], d["line"]) for d in data] == [("E105", 4), ("E105", 8)]
    assert "`six_scores`" in data[0]["help"] and "`bust_costs`" in data[1]["help"]


def test_explain_r508(capsys):
    assert cli.main(["explain", "R508"]) == 0
    out = capsys.readouterr().out
    assert "limit-broken" in out and "limit N per player" in out and "triggered rule" in out


def test_explain_a_triggered_rule(capsys):
    extrawurm = str(ROOT / "games" / "extrawurm.rules")
    assert cli.main(["explain", "specialist_lost", "--file", extrawurm]) == 0
    out = capsys.readouterr().out
    assert "rule `specialist_lost`" in out and "when do fail_turn:" in out


def test_explain_file_lists_limits(capsys):
    assert cli.main(["explain", "--file", str(DIAGNOSTICS / "trigger_clean.rules")]) == 0
    assert "limit 1 per player" in capsys.readouterr().out


EXTRAWURM = str(ROOT / "games" / "extrawurm.rules")


def line_of(path: str, text: str) -> int:
    return next(i for i, line in enumerate(Path(path).read_text().splitlines(), start=1) if text in line)


def test_explain_triggered_rule_shows_event_condition_and_description(capsys):
    assert cli.main(["explain", "hen_keeps_tile", "--file", EXTRAWURM]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"triggered rule `hen_keeps_tile`  {EXTRAWURM}:{line_of(EXTRAWURM, 'rule hen_keeps_tile:')}"
    assert "  when:    a move from stack of player to grill" in lines
    assert '  if:      holds(player, "sitting_hen")' in lines
    assert any(line.startswith("  instead: ") for line in lines)
    assert "  added by this variant" in lines
    # every line of the description, not only the first
    description = " ".join(out.split("\n\n")[1].split())
    assert description.startswith("On a failed turn the sitting hen's holder loses the hen")
    assert "READING: a holder with no tile fails as usual." in description
    assert "when move from stack of player to grill if" in out  # the source


def test_explain_when_do_rule(capsys):
    assert cli.main(["explain", "specialist_lost", "--file", EXTRAWURM]) == 0
    out = capsys.readouterr().out
    assert out.startswith("triggered rule `specialist_lost`")
    assert "  when:    procedure `fail_turn` is done" in out


def test_explain_rules_a_variant_adds_and_replaces(capsys):
    assert cli.main(["explain", "weasel", "--file", EXTRAWURM]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"rule `weasel`  {EXTRAWURM}:{line_of(EXTRAWURM, 'add rule weasel')}")
    assert f"added by this variant, after rule `roll_dice` ({PICKOMINO}:44)" in out
    assert 'may "throw again (weasel)" once per turn:' in out

    assert cli.main(["explain", "next_lower_tile", "--file", EXTRAWURM]) == 0
    out = capsys.readouterr().out
    assert f"replaces the base game's rule, {PICKOMINO}:64" in out
    new, _, old = out.partition("the base game's rule, replaced:")
    assert "exact_only != true" in new and "exact_only" not in old
    assert "offered = offered + highest(grill where number < total)" in old

    assert cli.main(["explain", "take_tile", "--file", EXTRAWURM]) == 0
    out = capsys.readouterr().out
    assert "this variant replaces `next_lower_tile` and adds `small_tiles_stay` inside it" in " ".join(out.split())

    assert cli.main(["explain", "gather_dice", "--file", EXTRAWURM]) == 0
    assert f"from the base game {PICKOMINO}, unchanged" in capsys.readouterr().out


def test_explain_a_rule_written_inside_a_variants_replacement(tmp_path, capsys):
    """A rule nested in a `replace rule` is the variant's own, even where the base has a rule of
    that name inside the rule replaced."""
    (tmp_path / "base.rules").write_text(
        'game "Base":\n    players 2\n\ndie d6:\n    faces 1 to 6\n\nzone cup: shared pool, public\n'
        'counter score: per player = 0\n\nsetup:\n    rule one_die: create d6 in cup\n\nturn:\n'
        '    rule play:\n        roll cup\n        rule inner:\n            score of player += first(cup).value\n\n'
        'end:\n    rule e: game ends when turn_number >= 10\n\nwinner:\n    rule w: most score of player\n')
    variant = tmp_path / "variant.rules"
    variant.write_text('extends "base.rules"\n\nreplace rule play:\n    roll cup\n    rule inner:\n'
                       '        score of player += 2 * first(cup).value\n')
    assert cli.main(["explain", str(variant), "inner"]) == 0
    out = capsys.readouterr().out
    assert f"written by this variant, inside its replacement of rule `play` ({variant}:3)" in out
    assert "from the base game" not in out and "2 * first(cup).value" in out


def test_explain_an_attribute_names_its_kinds_and_values(capsys):
    assert cli.main(["explain", PICKOMINO, "worms"]) == 0
    assert capsys.readouterr().out.startswith(f"attribute `worms` of tile `domino`: 1, 2, 3, 4  {PICKOMINO}:")


def test_explain_file_lists_triggers_and_carried_zones(capsys):
    assert cli.main(["explain", "--file", EXTRAWURM]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.lstrip().startswith("specialist_comes_with_tile "))
    assert lines[row + 1] == "      when move from grill to stack of player"
    assert "  perch: set on each domino or small_domino, public" in lines
    assert "  token specialist: 5 pieces, limit 1 per player" in lines


# ---------------------------------------------------------------------- simulate
def test_simulate_prints_win_shares(capsys):
    assert cli.main(["simulate", PICKOMINO, "--games", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "20 games" in out and "95% CI" in out and "%" in out
    assert "grill_empty 100.0%" in out
    assert "avg most_worms" in out


def test_simulate_json_shares_sum_to_one(capsys):
    assert cli.main(["simulate", PICKOMINO, "--games", "10", "--seed", "2", "--players", "3",
                     "--format", "json", "--check"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["finished"] == 10
    assert sum(s["share"] for s in report["seats"]) == pytest.approx(1.0)


def test_simulate_counts_triggered_rules_and_labelled_choices(capsys):
    """A designer measures a variant: how often each triggered rule fires and each power is used."""
    extrawurm = str(ROOT / "games" / "extrawurm.rules")
    assert cli.main(["simulate", extrawurm, "--games", "20", "--seed", "1", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "triggered rules (times per game" in out and "bratwurm" in out
    assert "labelled choices (times per game)" in out and "stop_or_roll" in out
    assert cli.main(["simulate", extrawurm, "--games", "20", "--seed", "1", "--players", "3",
                     "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert 0 < report["triggered"]["back_to_the_centre"]["games"] <= 1
    assert set(report["choices"]["stop_or_roll"]) == {"stop", "roll again"}


def test_simulated_game_is_the_run_game(tmp_path, capsys):
    """A simulated game's seed replays that very game in `rulelang run`."""
    assert cli.main(["simulate", PICKOMINO, "--games", "1", "--seed", "5", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    log = tmp_path / "g.jsonl"
    assert cli.main(["run", PICKOMINO, "--seats", "random,random", "--seed", "5", "--log", str(log)]) == 0
    end = log_lines(log)[-1]
    assert [s["wins"] for s in report["seats"]] == end["returns"]


def test_an_option_outside_its_range_is_refused(capsys):
    """`option row_length = 5 in 1 to 10`: --option row_length=0 is E110, naming the range."""
    six_nimmt = str(ROOT / "games" / "six-nimmt.rules")
    assert cli.main(["simulate", six_nimmt, "--games", "1", "--option", "row_length=0"]) == 1
    error = capsys.readouterr().err
    assert "error[E110]: option `row_length` takes values from 1 to 10, not 0" in error
    assert "help: give `row_length` a value from 1 to 10" in error
    assert cli.main(["explain", "row_length", "--file", six_nimmt]) == 0
    assert "option `row_length` = 5 in 1 to 10" in capsys.readouterr().out


def test_bots_take_options(tmp_path, capsys):
    """`NAME:OPTION=VALUE` gives a bot its options; a wrong one is a usage error naming them."""
    assert cli.main(["simulate", PICKOMINO, "--games", "2", "--seed", "3", "--bots", "mc:rollouts=2,random"]) == 0
    assert "mc:rollouts=2" in capsys.readouterr().out
    assert cli.main(["simulate", PICKOMINO, "--games", "1", "--bots", "mc:rolouts=2,random"]) == 2
    assert "bot `mc` has no option `rolouts` (its options: rollouts," in capsys.readouterr().err
    log = tmp_path / "g.jsonl"
    assert cli.main(["run", PICKOMINO, "--seats", "mc:rollouts=2,random", "--seed", "5", "--fast",
                     "--log", str(log)]) == 0
    capsys.readouterr()
    assert cli.main(["replay", str(log)]) == 0


@pytest.mark.parametrize("bot, message", [
    ("mc:rollouts=abc", "option `rollouts` takes a whole number, 0 or more, not `abc`"),
    ("solver:budget=-1", "option `budget` takes a whole number, 0 or more, not `-1`"),
    ("ismcts:c=fast", "option `c` takes a number, 0 or more, not `fast`"),
    ("mc:horizon=3", "option `horizon` takes a word, not `3`"),
    ("deduce:max_worlds=true", "option `max_worlds` takes a whole number, 0 or more, not `true`"),
])
def test_a_bot_option_of_the_wrong_type_is_a_usage_error(bot, message, capsys):
    assert cli.main(["run", PICKOMINO, "--bot", bot, "--fast"]) == 2
    assert message in capsys.readouterr().err


def test_mc_round_takes_the_options_of_mc():
    from rulelang.agents import check_bot
    assert check_bot("mc_round:rollouts=2") is None and check_bot("mc_round:horizon=turn") is None


def test_bundled_games_play_from_an_empty_folder(tmp_path):
    """The games ship with the package: `rulelang run chipo-chipa.rules` works from any folder,
    its log names the game by file name, and the log replays from there."""
    run = subprocess.run([sys.executable, "-m", "rulelang", "run", "chipo-chipa.rules", "--seats",
                          "random,random", "--seed", "1", "--fast", "--log", "game.jsonl"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert json.loads((tmp_path / "game.jsonl").read_text().splitlines()[0])["rules"] == "chipo-chipa.rules"
    replay = subprocess.run([sys.executable, "-m", "rulelang", "replay", "game.jsonl"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert "reproduces: yes" in replay.stdout, replay.stderr
    listed = subprocess.run([sys.executable, "-m", "rulelang", "games"], capture_output=True, text=True,
                            cwd=tmp_path)
    assert "chipo-chipa.rules" in listed.stdout and "6 qui prend" in listed.stdout


def test_a_local_file_wins_over_a_bundled_game(tmp_path, monkeypatch, capsys):
    (tmp_path / "pickomino.rules").write_text((ROOT / "tests" / "diagnostics" / "clean_game.rules").read_text())
    monkeypatch.chdir(tmp_path)
    assert cli.main(["explain", "--file", "pickomino.rules"]) == 0
    assert capsys.readouterr().out.startswith("Mini")
    assert cli.main(["explain", "--file", "six-nimmt"]) == 0  # no such local file: the bundled game
    assert capsys.readouterr().out.startswith("6 qui prend")


def test_rulelang_test_runs_scenarios(tmp_path, capsys):
    """`rulelang test PATH...`: ok or FAIL per scenario file (a folder: all below it), and a count."""
    assert cli.main(["test", str(ROOT / "tests" / "scenarios" / "gang-of-dice")]) == 0
    out = capsys.readouterr().out
    assert out.count("ok    ") >= 10 and out.rstrip().endswith("passed, 0 failed")
    broken = tmp_path / "broken.scenario"
    broken.write_text(f"game: {PICKOMINO}\nplayers: 2\nsteps:\n    check player == seat(1)\n")
    assert cli.main(["test", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  " in out and "0 passed, 1 failed" in out


def test_python_dash_m(tmp_path):
    result = subprocess.run([sys.executable, "-m", "rulelang", "lint", str(tmp_path / "none.rules")],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2
    assert "E107" in result.stdout
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------- faults
def variant_of_pickomino(tmp_path: Path, old: str, new: str) -> str:
    text = Path(PICKOMINO).read_text()
    assert old in text
    path = tmp_path / "variant.rules"
    path.write_text(text.replace(old, new))
    return str(path)


def test_check_stops_at_a_broken_invariant(tmp_path, capsys):
    rules = variant_of_pickomino(tmp_path, "invariant worms_bounded: sum(stack of players, worms) <= 40",
                                 "invariant grill_full: count(grill) >= 15")
    log = tmp_path / "g.jsonl"
    assert cli.main(["run", rules, "--seed", "2", "--bot", "random", "--check", "--log", str(log)]) == 1
    err = capsys.readouterr().err
    assert "R505" in err and "grill_full" in err and "^^^" in err
    assert log_lines(log)[-1]["fault"] == "R505"


def test_runtime_fault_is_a_diagnostic(tmp_path, capsys):
    rules = variant_of_pickomino(tmp_path, "at most 2000 turns", "at most 3 turns")
    assert cli.main(["run", rules, "--seed", "1", "--bot", "random", "--log", str(tmp_path / "g.jsonl")]) == 1
    captured = capsys.readouterr()
    assert "error[R504]" in captured.err and "Traceback" not in captured.err
    assert cli.main(["simulate", rules, "--games", "3", "--seed", "7"]) == 1
    out = capsys.readouterr().out
    assert "fault in the game with seed 7: R504" in out
    assert "rulelang run" in out and "--seed 7" in out


def test_unusable_logs_exit_2(tmp_path, capsys):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    assert cli.main(["replay", str(junk)]) == 2
    assert cli.main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert cli.main(["run", "--resume", str(junk)]) == 2
    assert "not a JSON line" in capsys.readouterr().err


def test_a_card_game_with_draws_replays_and_resumes(tmp_path, capsys):
    log = tmp_path / "six.jsonl"
    rules = str(ROOT / "games" / "six-nimmt.rules")
    assert cli.main(["run", rules, "--seats", "random,random", "--seed", "4", "--fast",
                     "--option", "threshold=3", "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    assert any('"text": "draw ox' in line for line in lines)
    assert cli.main(["replay", "--quiet", str(log), "--rules", rules]) == 0
    truncated = tmp_path / "half.jsonl"
    truncated.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    assert cli.main(["run", "--resume", str(truncated), "--fast", "--rules", rules]) == 0
    assert truncated.read_text().splitlines() == lines
    capsys.readouterr()


# ---------------------------------------------------------------------- Extrawurm at the terminal
def extrawurm_holding_the_weasel():
    """Extrawurm for 3, after player 1 took tile 25 (and so the weasel) with five worms."""
    from rulelang import load
    state = load(EXTRAWURM).new_initial_state(3)

    def pick(text: str) -> None:
        state.apply_action(state.legal_actions()[tui.menu_texts(state).index(text)])

    state.apply_action(state.outcome_from_labels(["worm"] * 5 + [1, 2, 3]))
    pick("set aside: worm")
    pick("stop")
    pick("take: domino 25 from grill")
    return state


def test_extrawurm_board_shows_what_tiles_carry_and_players_hold():
    from rulelang import load
    state = load(EXTRAWURM).new_initial_state(3)
    board = tui.render_board(state, ["you", "random", "random"], 0, tui.Style(False), 100)
    lines = board.splitlines()
    assert all(len(line) <= 100 for line in lines), board
    for tile, role in (("11", "canned_worm"), ("21", "sitting_hen"), ("25", "weasel"), ("27", "golden_die")):
        assert any(f"{tile} [perch: specialist {role}]" in line for line in lines), board  # never split
    assert "  supply      7 x bratwurm" in lines
    assert lines[-4].split() == ["player", "stack", "specialists", "bratwurms", "most_worms", "highest_tile"]

    state = extrawurm_holding_the_weasel()
    board = tui.render_board(state, ["you", "random", "random"], 0, tui.Style(False), 100)
    assert "[perch: specialist weasel]" not in board
    row = next(line for line in board.splitlines() if line.startswith("  1 you"))
    assert row.split()[2:8] == ["top", "domino", "25", "(1)", "weasel", "—"]


def test_extrawurm_board_narrower_than_the_table():
    state = extrawurm_holding_the_weasel()
    board = tui.render_board(state, ["you", "random", "random"], 0, tui.Style(False), 72)
    assert all(len(line) <= 72 for line in board.splitlines()), board
    assert "specialists weasel" in board and "most_worms 2" in board


def test_the_weasel_is_offered_to_a_human_as_a_move():
    state = extrawurm_holding_the_weasel()
    answers: list[str] = []

    def read(prompt: str) -> str:
        if "throw again (weasel)" in tui.menu_texts(state):
            answers.append("throw")
            return "throw"
        return "q" if answers else "1"

    out = io.StringIO()
    assert tui.play(state, ["you", "random", "random"], 7, tui.Terminal(out=out, read=read, colour=False)) is False
    text = out.getvalue()
    assert answers == ["throw"]
    assert "player 1 (you), your choice: throw again (weasel)?\n   1  throw again (weasel)\n   2  decline\n" in text
    assert "player 1 chooses throw again (weasel)" in text
    assert text.count("   1  throw again (weasel)") == 1  # once per turn


def test_extrawurm_bots_game_logs_replays_and_resumes(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    log = tmp_path / "extrawurm.jsonl"
    assert cli.main(["run", EXTRAWURM, "--seats", "random,random,random", "--seed", "90", "--fast",
                     "--check", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "winner" in out and "[perch: specialist" in out
    # board and trace fit 100 columns: long events wrap, their rule on the last line
    assert all(len(line) <= 100 for line in out.splitlines() if not line.startswith("log: ")), \
        max(out.splitlines(), key=len)
    assert "[specialist_comes_with_tile, games/extrawurm.rules:" in out or \
        f"[specialist_comes_with_tile, {EXTRAWURM}:" in out
    lines = log.read_text().splitlines()
    texts = [json.loads(line).get("text") for line in lines[1:-1]]
    assert "throw again (weasel)" in texts and "decline" in texts
    assert any(t and t.startswith("set aside:") for t in texts)
    assert cli.main(["replay", str(log), "--rules", EXTRAWURM]) == 0
    out = capsys.readouterr().out
    assert "reproduces: yes" in out and "triggered:" in out and "[specialist_comes_with_tile, " in out
    for cut in (len(lines) // 3, texts.index("decline") + 1):
        truncated = tmp_path / f"cut{cut}.jsonl"
        truncated.write_text("\n".join(lines[:cut]) + "\n")
        assert cli.main(["run", "--resume", str(truncated), "--fast", "--rules", EXTRAWURM]) == 0
        assert truncated.read_text().splitlines() == lines
    capsys.readouterr()


def test_human_plays_extrawurm_to_the_end_of_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 300))
    log = tmp_path / "human.jsonl"
    code = cli.main(["run", EXTRAWURM, "--seats", "you,random,random", "--seed", "5", "--log", str(log), "--check"])
    assert code == 0
    out = capsys.readouterr().out
    assert "player 1 (you), your choice:" in out and "  bratwurms" in out
    assert cli.main(["replay", "--quiet", str(log), "--rules", EXTRAWURM]) == 0


def test_a_changed_base_file_is_noticed_when_a_variant_log_is_replayed(tmp_path, capsys):
    base = tmp_path / "pickomino.rules"
    base.write_text(Path(PICKOMINO).read_text())
    variant = tmp_path / "variant.rules"
    variant.write_text('extends "pickomino.rules"\n\noption shorter_game = true\n')
    log = tmp_path / "variant.jsonl"
    assert cli.main(["run", str(variant), "--seats", "random,random", "--seed", "2", "--fast",
                     "--log", str(log)]) == 0
    assert cli.main(["replay", "--quiet", str(log)]) == 0
    assert "has changed" not in capsys.readouterr().err
    base.write_text(base.read_text() + "\n# a comment\n")
    assert cli.main(["replay", "--quiet", str(log)]) == 0
    assert "(or a file it extends) has changed since the log was written" in capsys.readouterr().err
    import hashlib
    assert gamelog.file_digest(PICKOMINO) == hashlib.sha256(Path(PICKOMINO).read_bytes()).hexdigest()


def test_a_variant_log_kept_elsewhere_replays_from_the_rules_folder(tmp_path, capsys, monkeypatch):
    # The rules are found through the working folder, so their `extends` is confined there,
    # not to the log's folder.
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "pickomino.rules").write_text(Path(PICKOMINO).read_text())
    (rules / "variant.rules").write_text('extends "pickomino.rules"\n\noption shorter_game = true\n')
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "variant.jsonl"
    monkeypatch.chdir(rules)
    assert cli.main(["run", "variant.rules", "--seats", "random,random", "--seed", "2", "--fast",
                     "--log", str(log)]) == 0
    assert json.loads(log.read_text().splitlines()[0])["rules"] == "../rules/variant.rules"
    capsys.readouterr()
    assert cli.main(["replay", "--quiet", str(log)]) == 0
    actions = [json.loads(line).get("action") for line in log.read_text().splitlines()[1:-1]]
    few_dice = next(i for i, a in enumerate(actions) if isinstance(a, list) and len(a[0]) <= 2)  # a short turn left
    assert cli.main(["analyze", "--log", str(log), "--at", str(few_dice), "--top", "1"]) == 0
    err = capsys.readouterr().err
    assert "E109" not in err and "has changed" not in err


def test_replay_names_the_rules_from_the_working_folder(tmp_path, monkeypatch, capsys):
    """A log in logs/ records `../game.rules`; its replay names the file as it is from the
    working folder, `game.rules:LINE`, not `logs/../game.rules:LINE`."""
    shutil.copy(ROOT / "examples" / "pig.rules", tmp_path / "pig.rules")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "pig.rules", "--seats", "random,random", "--seed", "2", "--fast"]) == 0
    log = next((tmp_path / "logs").glob("pig-*.jsonl"))
    capsys.readouterr()
    assert cli.main(["replay", str(log.relative_to(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "pig.rules:" in out and "../" not in out
