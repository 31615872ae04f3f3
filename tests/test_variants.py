"""Variants keep their base game working.

The Extrawurm issue asks that games/extrawurm.rules, which `extends "pickomino.rules"`, leave
Pickomino itself alone: the base game's own scenarios (tests/scenarios/pickomino/) still pass
unchanged, and the merged Extrawurm game still holds every named rule of pickomino.rules but the
ones the variant replaces or removes, unchanged. The Extrawurm rules themselves are checked by
the scenarios in tests/scenarios/extrawurm/.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs
import pytest

import rulelang
from rulelang import nodes as n
from rulelang.pipeline import parse_file
from rulelang.scenario import load_scenario, run_scenario
from rulelang.variants import all_rule_names, resolve

ROOT = Path(__file__).parent
GAMES = ROOT.parent / "games"
PICKOMINO = GAMES / "pickomino.rules"
EXTRAWURM = GAMES / "extrawurm.rules"
PICKOMINO_SCENARIOS = sorted((ROOT / "scenarios" / "pickomino").glob("*.scenario"))


def _parsed(path: Path) -> n.RulesFile:
    tree, diagnostics = parse_file(str(path))
    assert tree is not None and not [d for d in diagnostics if d.is_error], diagnostics
    return tree


def _merged(path: Path) -> n.RulesFile:
    merged, diagnostics = resolve(_parsed(path), parse_file)
    assert merged is not None and not [d for d in diagnostics if d.is_error], diagnostics
    return merged


def _named_rules(node, found: dict[str, n.Rule]) -> dict[str, n.Rule]:
    """Every `rule NAME:` node in a tree, nested ones included, by name."""
    if isinstance(node, n.Rule):
        found.setdefault(node.name, node)
    if attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            _named_rules(getattr(node, field.name), found)
    elif isinstance(node, (tuple, list)):
        for item in node:
            _named_rules(item, found)
    return found


def _changes(variant: n.RulesFile, base: n.RulesFile) -> tuple[set[str], set[str]]:
    """The base's rule names that the variant replaces (`replace rule`, or an invariant declared
    again with the same name) and those it removes."""
    base_invariants = {i.name for i in base.items if isinstance(i, n.InvariantDecl)}
    replaced = {i.name for i in variant.items if isinstance(i, n.ReplaceRule)}
    replaced |= {i.name for i in variant.items if isinstance(i, n.InvariantDecl) and i.name in base_invariants}
    removed = {i.name for i in variant.items if isinstance(i, n.RemoveRule)}
    return replaced, removed


def test_pickomino_scenarios_exist_and_play_pickomino() -> None:
    assert len(PICKOMINO_SCENARIOS) >= 20
    for path in PICKOMINO_SCENARIOS:
        game = os.path.normpath(path.parent / load_scenario(path).game)
        assert Path(game).resolve() == PICKOMINO.resolve(), f"{path.name} plays {game}, not pickomino.rules"


@pytest.mark.parametrize("path", PICKOMINO_SCENARIOS, ids=lambda p: p.name)
def test_base_scenarios_still_pass_with_extrawurm_in_place(path: Path) -> None:
    """Each scenario of the base game passes, as written, now that a variant extends the base."""
    assert EXTRAWURM.exists()
    scenario = load_scenario(path)
    assert scenario.xfail is None, f"{path.name} is marked xfail: {scenario.xfail}"
    result = run_scenario(os.path.relpath(path))
    assert result.passed, result.message


def test_extrawurm_extends_pickomino() -> None:
    tree = _parsed(EXTRAWURM)
    assert isinstance(tree.items[0], n.Extends) and tree.items[0].path == "pickomino.rules"


def test_merged_extrawurm_keeps_every_pickomino_rule() -> None:
    base, variant, merged = _parsed(PICKOMINO), _parsed(EXTRAWURM), _merged(EXTRAWURM)
    replaced, removed = _changes(variant, base)
    base_names, merged_names = all_rule_names(base), all_rule_names(merged)
    assert len(set(base_names)) == len(base_names)
    # the variant's changes name rules the base has
    assert replaced | removed <= set(base_names)
    missing = [name for name in base_names if name not in removed and name not in merged_names]
    assert not missing, f"rules of pickomino.rules missing from the merged Extrawurm game: {missing}"
    for name in removed:
        assert name not in merged_names
    # and the variant's own rules come on top
    added = {i.name for i in variant.items if isinstance(i, n.AddRule)}
    triggered = {i.name for i in variant.items if isinstance(i, n.Rule)}
    assert added | triggered <= set(merged_names)
    assert not (added | triggered) & set(base_names)


def test_unreplaced_pickomino_rules_are_unchanged_in_extrawurm() -> None:
    """A base rule that the variant does not replace, and in which it places no new rule, is the
    very same rule in the merged game (spans are not part of node equality)."""
    base, variant, merged = _parsed(PICKOMINO), _parsed(EXTRAWURM), _merged(EXTRAWURM)
    replaced, removed = _changes(variant, base)
    base_rules, merged_rules = _named_rules(base, {}), _named_rules(merged, {})
    unchanged = 0
    for name, rule in base_rules.items():
        if name in removed:
            continue
        inside = set(_named_rules(rule, {}))
        if inside & replaced or set(_named_rules(merged_rules[name], {})) != inside:
            continue  # the variant changes this rule, or one nested in it, on purpose
        assert merged_rules[name] == rule, f"rule `{name}` of pickomino.rules differs in Extrawurm"
        unchanged += 1
    assert unchanged >= 10
    # the replaced rules take the variant's text, at the base rule's place
    for name in replaced & set(merged_rules):
        assert Path(merged_rules[name].span.path).name == "extrawurm.rules", name


def test_replaced_invariants_take_the_variants_declaration() -> None:
    merged = _merged(EXTRAWURM)
    invariants = {i.name: i for i in merged.items if isinstance(i, n.InvariantDecl)}
    assert Path(invariants["sixteen_tiles"].span.path).name == "extrawurm.rules"
    assert Path(invariants["worms_bounded"].span.path).name == "extrawurm.rules"


def test_pickomino_alone_has_none_of_extrawurm() -> None:
    """Loading the base game is not affected by the variant: no Extrawurm component or rule."""
    game = rulelang.load(str(PICKOMINO))
    kinds = {kind.name for kind in game.kinds}
    assert kinds == {"pickomino_die", "domino"}
    names = {rule.name for rule in game.rules}
    assert not names & {"golden_die", "weasel", "bratwurm", "crow", "one_specialist", "small_tiles_stay"}
    assert not game.move_triggers
    state = game.new_initial_state(2)
    assert len(state.zones[state.zone_index("grill", None)]) == 16


def test_extrawurm_components() -> None:
    game = rulelang.load(str(EXTRAWURM))
    kinds = {kind.name: kind for kind in game.kinds}
    assert list(kinds).index("pickomino_die") < list(kinds).index("golden"), \
        "scenario rolls give the pickomino_die group before the golden group"
    assert tuple(kinds["golden"].face_labels) == (1, "worm")
    assert dict(zip(kinds["golden"].face_labels, kinds["golden"].face_values, strict=True)) == {1: 1, "worm": 5}
