"""`rulelang diff`: what a variant adds, replaces or removes compared with its base."""

from __future__ import annotations

import json
from pathlib import Path

from rulelang import cli

GAMES = Path(__file__).resolve().parent.parent / "games"


def diff(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["diff", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def line_with(out: str, text: str) -> str:
    return next(line for line in out.splitlines() if text in line)


def test_spanish_variant_replaces_a_rule_and_renames_the_game(capsys):
    code, out, _ = diff(capsys, str(GAMES / "pickomino.rules"), str(GAMES / "pickomino-spanish.rules"))
    assert code == 0
    assert 'game: "Pickomino" -> "Pickomino (Spanish seed)"' in out
    assert line_with(out, "game:").endswith("pickomino-spanish.rules:8")
    assert line_with(out, "replaced rule next_lower_tile").endswith("pickomino-spanish.rules:10")
    assert len(out.splitlines()) == 3


def test_tactics_adds_a_rule_zone_and_define_and_replaces_an_invariant(capsys):
    code, out, _ = diff(capsys, str(GAMES / "six-nimmt.rules"), str(GAMES / "six-nimmt-tactics.rules"))
    assert code == 0
    assert line_with(out, "added rule set_aside_high_cards").endswith("six-nimmt-tactics.rules:21")
    assert line_with(out, "added zone unused").endswith("six-nimmt-tactics.rules:10")
    assert line_with(out, "added define cards_in_play").endswith("six-nimmt-tactics.rules:12")
    assert line_with(out, "replaced invariant every_card_somewhere").endswith("six-nimmt-tactics.rules:15")
    assert "removed" not in out


def test_removed_rules_point_at_the_base(capsys):
    code, out, _ = diff(capsys, str(GAMES / "six-nimmt.rules"), str(GAMES / "six-nimmt-professional.rules"))
    assert code == 0
    assert line_with(out, "removed rule smallest_difference").split()[-1].startswith(
        str(GAMES / "six-nimmt.rules:"))


def test_a_file_against_itself_has_no_changes(capsys):
    path = str(GAMES / "six-nimmt-logic.rules")
    code, out, _ = diff(capsys, path, path)
    assert code == 0
    assert out.splitlines() == [f"{path} -> {path}", "  no changes"]


def test_json_output_parses(capsys):
    code, out, _ = diff(capsys, "--format", "json", str(GAMES / "pickomino.rules"),
                        str(GAMES / "pickomino-spanish.rules"))
    assert code == 0
    data = json.loads(out)
    assert {"change": "replaced", "kind": "rule", "name": "next_lower_tile",
            "where": str(GAMES / "pickomino-spanish.rules") + ":10"} in data["changes"]
    game = next(c for c in data["changes"] if c["kind"] == "game")
    assert (game["old"], game["new"]) == ("Pickomino", "Pickomino (Spanish seed)")


def beside(folder: Path, *names: str) -> Path:
    """Copies of games next to a variant (extends stays inside the variant's folder); the first."""
    for name in names:
        (folder / name).write_text((GAMES / name).read_text(encoding="utf-8"), encoding="utf-8")
    return folder / names[0]


def test_option_default_change(tmp_path, capsys):
    base = beside(tmp_path, "pickomino.rules")
    variant = tmp_path / "v.rules"
    variant.write_text(f'extends "{base.name}"\n\noption shorter_game = true\n')
    code, out, _ = diff(capsys, str(base), str(variant))
    assert code == 0
    assert line_with(out, "option shorter_game: false -> true").endswith("v.rules:3")


def test_a_missing_file_exits_2(capsys):
    code, out, error = diff(capsys, str(GAMES / "pickomino.rules"), "no-such-file.rules")
    assert code == 2
    assert out == "" and "E107" in error


def test_errors_in_a_file_exit_1(tmp_path, capsys):
    variant = tmp_path / "v.rules"
    beside(tmp_path, "pickomino.rules")
    variant.write_text('extends "pickomino.rules"\n\nremove rule no_such_rule\n')
    code, _, error = diff(capsys, str(GAMES / "pickomino.rules"), str(variant))
    assert code == 1
    assert "E105" in error


# ---------------------------------------------------------------------- triggered rules (Extrawurm)
def line_of(path: Path, text: str) -> int:
    """The number of the first line of a file holding ``text``."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def test_extrawurm_lists_triggered_rules_with_their_event(capsys):
    variant = GAMES / "extrawurm.rules"
    code, out, _ = diff(capsys, str(GAMES / "pickomino.rules"), str(variant))
    assert code == 0
    for name, event in (("specialist_comes_with_tile", "when move from grill to stack of player"),
                        ("one_specialist", "when move to specialists of players"),
                        ("hen_keeps_tile", "when move from stack of player to grill instead"),
                        ("specialist_lost", "when do fail_turn")):
        row = line_with(out, f"added rule {name} ")
        assert f"extrawurm.rules:{line_of(variant, f'rule {name}:')} " in row
        assert row.endswith(event)
    assert line_with(out, "added rule extra_tiles").endswith(
        f"extrawurm.rules:{line_of(variant, 'rule extra_tiles:')}")
    assert line_with(out, "added rule weasel").endswith(
        f"extrawurm.rules:{line_of(variant, 'add rule weasel after')}")
    assert "removed" not in out


def test_every_line_number_points_at_the_name(capsys):
    """Each change's file:line is the line that declares (or replaces, or adds) the name."""
    code, out, _ = diff(capsys, "--format", "json", str(GAMES / "pickomino.rules"),
                        str(GAMES / "extrawurm.rules"))
    assert code == 0
    changes = json.loads(out)["changes"]
    assert len([c for c in changes if c["kind"] == "rule" and "event" in c]) >= 8
    for change in changes:
        path, _, number = change["where"].rpartition(":")
        text = Path(path).read_text().splitlines()[int(number) - 1]
        name = change["name"] if change["kind"] != "game" else "game"
        assert name in text, (change, text)


def test_replaced_removed_and_nested_triggered_rules(tmp_path, capsys):
    base = beside(tmp_path, "extrawurm.rules", "pickomino.rules")
    variant = tmp_path / "v.rules"
    variant.write_text(f'extends "{base.name}"\n'
                       "\n"
                       "replace rule specialist_lost:\n"
                       "    when move from stack of player to grill:\n"
                       "        move specialists of player to centre\n"
                       "\n"
                       "remove rule crow\n"
                       "\n"
                       "rule feast:\n"
                       "    when move from cup to kept if count(moved where face == 1) >= 4:\n"
                       "        rule first_sausage:\n"
                       "            if supply is not empty:\n"
                       "                move top(supply) to bratwurms of player\n")
    code, out, _ = diff(capsys, str(base), str(variant))
    assert code == 0
    assert line_with(out, "replaced rule specialist_lost").endswith(
        "when move from stack of player to grill (was: when do fail_turn)")
    assert "v.rules:3 " in line_with(out, "replaced rule specialist_lost")
    assert line_with(out, "removed rule crow").endswith("when move from cup to kept")
    assert f"extrawurm.rules:{line_of(base, 'rule crow:')} " in line_with(out, "removed rule crow")
    assert "v.rules:9 " in line_with(out, "added rule feast")
    assert line_with(out, "added rule first_sausage").endswith("v.rules:11")
    assert len(out.splitlines()) == 5

    code, out, _ = diff(capsys, "--format", "json", str(base), str(variant))
    replaced = next(c for c in json.loads(out)["changes"] if c["name"] == "specialist_lost")
    assert (replaced["event"], replaced["old_event"]) == ("when move from stack of player to grill",
                                                          "when do fail_turn")
