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


def test_option_default_change(tmp_path, capsys):
    base = GAMES / "pickomino.rules"
    variant = tmp_path / "v.rules"
    variant.write_text(f'extends "{base}"\n\noption shorter_game = true\n')
    code, out, _ = diff(capsys, str(base), str(variant))
    assert code == 0
    assert line_with(out, "option shorter_game: false -> true").endswith("v.rules:3")


def test_a_missing_file_exits_2(capsys):
    code, out, error = diff(capsys, str(GAMES / "pickomino.rules"), "no-such-file.rules")
    assert code == 2
    assert out == "" and "E107" in error


def test_errors_in_a_file_exit_1(tmp_path, capsys):
    variant = tmp_path / "v.rules"
    variant.write_text(f'extends "{GAMES / "pickomino.rules"}"\n\nremove rule no_such_rule\n')
    code, _, error = diff(capsys, str(GAMES / "pickomino.rules"), str(variant))
    assert code == 1
    assert "E105" in error
