"""The balance lab: simulate on many processes and on a Dask cluster with the same results,
per-game output, plots, balance metrics, Ctrl-C, and `compare` on a variant and its base."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest
from test_hostile_runtime import MOSTLY_FINE

from rulelang import batch, cli, lab, pipeline, simulate

ROOT = Path(__file__).resolve().parent.parent
PICKOMINO = str(ROOT / "games" / "pickomino.rules")
EXTRAWURM = str(ROOT / "games" / "extrawurm.rules")
SOMETIMES = MOSTLY_FINE  # a game that faults on one roll in six


def simulate_json(capsys, *args: str) -> tuple[int, dict]:
    code = cli.main(["simulate", *args, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    report.pop("seconds"), report.pop("games_per_second")
    return code, report


def test_the_report_is_the_same_for_any_number_of_jobs(capsys):
    args = (PICKOMINO, "--games", "20", "--seed", "4", "--players", "3")
    code, one = simulate_json(capsys, *args)
    assert code == 0 and one["finished"] == 20
    assert simulate_json(capsys, *args, "--jobs", "2") == (0, one)
    bots = (PICKOMINO, "--games", "6", "--seed", "1", "--bots", "mc:rollouts=2,random", "--rotate")
    assert simulate_json(capsys, *bots) == simulate_json(capsys, *bots, "--jobs", "2")


def test_faults_and_the_stop_after_them_are_the_same_for_any_number_of_jobs(tmp_path, capsys):
    rules = tmp_path / "sometimes.rules"
    rules.write_text(SOMETIMES, encoding="utf-8")
    args = (str(rules), "--games", "60", "--seed", "1", "--max-faults", "3")
    code, one = simulate_json(capsys, *args)
    assert code == 1 and one["stopped_after_faults"] is None and len(one["faults"]) > 3
    assert simulate_json(capsys, *args, "--jobs", "2") == (1, one)
    hang = str(ROOT / "tests" / "hostile" / "hang_repeat_roll.rules")
    args = (hang, "--games", "50", "--limit", "idle_actions=20", "--max-faults", "3", "--seed", "1")
    code, one = simulate_json(capsys, *args)
    assert code == 1 and one["stopped_after_faults"] == 3 and one["games"] == 3
    assert simulate_json(capsys, *args, "--jobs", "2") == (1, one)


def test_a_dask_cluster_plays_the_same_games(capsys):
    distributed = pytest.importorskip("distributed")
    args = (PICKOMINO, "--games", "12", "--seed", "9")
    _, one = simulate_json(capsys, *args)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        code, there = simulate_json(capsys, *args, "--cluster", cluster.scheduler_address)
    assert (code, there) == (0, one)


def test_an_unreachable_cluster_is_a_usage_error(capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(batch, "CLUSTER_TIMEOUT", "1s")
    code = cli.main(["simulate", PICKOMINO, "--games", "2", "--cluster", "tcp://127.0.0.1:9"])
    assert code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err


def test_per_game_results_as_csv_and_json_lines(tmp_path, capsys):
    csv_path, jsonl_path = tmp_path / "games.csv", tmp_path / "games.jsonl"
    for path in (csv_path, jsonl_path):
        assert cli.main(["simulate", PICKOMINO, "--games", "20", "--seed", "2", "--out", str(path)]) == 0
    report = capsys.readouterr().out
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    games = [json.loads(line) for line in jsonl_path.read_text(encoding="utf-8").splitlines()]
    assert [int(r["seed"]) for r in rows] == [g["seed"] for g in games] == list(range(2, 22))
    assert rows[0]["bots"] == "random random" and rows[0]["ended_by"] == "grill_empty"
    assert {"seat1_most_worms", "seat2_highest_tile", "lead_changes", "fault"} <= set(rows[0])
    first = games[0]
    assert set(first["winners"]) <= {1, 2} and set(first["scores"][0]) == {"most_worms", "highest_tile"}
    assert first["turns"] == int(rows[0]["turns"]) and first["fault"] is None
    assert "balance (95% confidence intervals):" in report and "first-player advantage" in report
    assert cli.main(["simulate", PICKOMINO, "--games", "2", "--out", str(tmp_path / "games.txt")]) == 2
    assert "--out writes .csv or .jsonl files" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_plots_are_written(tmp_path, capsys, fmt):
    pytest.importorskip("matplotlib")
    folder = tmp_path / "plots"
    assert cli.main(["simulate", PICKOMINO, "--games", "20", "--seed", "1", "--plot", str(folder),
                     "--plot-format", fmt]) == 0
    files = sorted(p.name for p in folder.iterdir())
    assert files == sorted(f"{name}.{fmt}" for name in
                           ("scores-most_worms", "scores-highest_tile", "win-share", "turns"))
    assert all((folder / name).stat().st_size > 0 for name in files)


def test_plots_without_matplotlib_say_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert cli.main(["simulate", PICKOMINO, "--games", "2", "--plot", str(tmp_path)]) == 2
    assert "--plot needs matplotlib: python -m pip install 'rulelang[lab]'" in capsys.readouterr().err


def test_balance_metrics_and_a_bots_win_share_with_rotated_seats(capsys):
    code, report = simulate_json(capsys, PICKOMINO, "--games", "8", "--seed", "1",
                                 "--bots", "mc:rollouts=2,random", "--rotate")
    balance = report["balance"]
    assert set(balance) == {"first_player_advantage", "lead_changes", "turns", "rounds", "endings", "bots"}
    low, high = balance["turns"]["ci95"]
    assert low <= balance["turns"]["value"] <= high
    assert set(balance["bots"]) == {"mc:rollouts=2", "random"}
    assert balance["bots"]["mc:rollouts=2"]["games"] == 8
    assert [s["bot"] for s in report["seats"]] == ["rotated", "rotated"]
    job = batch.Job(PICKOMINO, (), pipeline.DEFAULT, ("a", "b", "c"), 0, rotate=True)
    assert [job.seats(i) for i in range(3)] == [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]]


def test_a_bots_win_share_interval_stays_between_0_and_1():
    """Few games and a bot that wins three of four: a normal interval would pass 100%."""
    results = [batch.GameResult(i, ("mc", "random", "random"), (0,) if i < 3 else (1,), ((),) * 3, 10, "end", 0)
               for i in range(4)]
    shares = lab.balance(results, 3)["bots"]
    for name, expected in (("mc", 0.75), ("random", 0.125)):
        low, high = shares[name]["ci95"]
        assert shares[name]["value"] == expected and 0.0 <= low < expected < high <= 1.0


def test_ctrl_c_keeps_the_games_played_and_exits_130(capsys, monkeypatch):
    played = []
    real = batch.play_bots

    def play_then_stop(*args, **kwargs):
        if len(played) == 5:
            raise KeyboardInterrupt
        played.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(batch, "play_bots", play_then_stop)
    assert cli.main(["simulate", PICKOMINO, "--games", "300", "--seed", "1"]) == 130
    captured = capsys.readouterr()
    assert "interrupted: results of the games played so far" in captured.err
    assert "Pickomino: 5 games" in captured.out and "balance" in captured.out


def test_ctrl_c_on_a_process_pool_keeps_the_parts_done():
    game, _ = pipeline.analyse(PICKOMINO, warnings=False)
    job = batch.Job(PICKOMINO, (), pipeline.DEFAULT, ("random", "random"), 1)

    def stop(_games: int) -> None:
        raise KeyboardInterrupt

    played = batch.run(job, game, 400, jobs=2, progress=stop)
    assert played.simulation.interrupted
    assert 0 < len(played.results) < 400 and len(played.simulation.stats.turns) == len(played.results)


def test_compare_reports_paired_differences(capsys):
    assert cli.main(["compare", PICKOMINO, EXTRAWURM, "--games", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "20 paired games" in out and "difference" in out and "95% CI" in out
    assert cli.main(["compare", PICKOMINO, EXTRAWURM, "--games", "20", "--seed", "1", "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["pairs"] == 20
    worms = result["statistics"]["most_worms seat 1"]
    assert worms["difference"] == pytest.approx(worms["variant"] - worms["base"])
    assert worms["ci95"][0] > 0  # Extrawurm hands out more worms, even to random bots
    same = lab.compare(*[batch.run(batch.Job(PICKOMINO, (), pipeline.DEFAULT, ("random",) * 2, 1),
                                   pipeline.analyse(PICKOMINO, warnings=False)[0], 10).results] * 2,
                       2, ["most_worms"], ["most_worms"])
    assert all(row["difference"] == 0 for row in same["statistics"].values())


def test_compare_sets_an_option_in_each_file_that_has_it(capsys):
    """crow_every_turn is Extrawurm's own option: set for the variant alone; an option neither
    file has is E108 naming both."""
    assert cli.main(["compare", PICKOMINO, EXTRAWURM, "--games", "4", "--seed", "1", "--format", "json",
                     "--option", "crow_every_turn=true", "--option", "shorter_game=true"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"] == 4
    assert cli.main(["compare", PICKOMINO, EXTRAWURM, "--games", "4", "--option", "nothing=1"]) == 2
    err = capsys.readouterr().err
    assert "neither" in err and "has an option `nothing`" in err and "crow_every_turn" in err


def test_plain_progress_shows_rate_and_time_left():
    stream = io.StringIO()
    with lab.PlainProgress(10, stream, every=0) as progress:
        progress(4)
        progress(6)
    text = stream.getvalue()
    assert "\r4/10 games, " in text and "games/s" in text and "s left" in text and "\r10/10 games" in text


def test_merging_refuses_a_stats_field_it_does_not_know():
    game, _ = pipeline.analyse(PICKOMINO, warnings=False)
    part = simulate.Stats(game, 2)
    part.novel = []
    with pytest.raises(TypeError, match="Stats.novel"):
        simulate.merge_stats(simulate.Stats(game, 2), part)


def test_a_worker_without_the_game_compiles_it_from_its_path(monkeypatch):
    """What a Dask worker on another machine does: the same rules, so the same games."""
    monkeypatch.setattr(batch, "_GAMES", {})
    job = batch.Job(PICKOMINO, (("shorter_game", "true"),), pipeline.DEFAULT, ("random",) * 2, 3)
    part = batch._play_elsewhere(job, 0, 3)
    assert part.stats.game is None and [r.seed for r in part.results] == [3, 4, 5]
    game, _ = pipeline.analyse(PICKOMINO, {"shorter_game": "true"}, warnings=False)
    here = batch.play_part(job, game, 0, 3)
    assert part.results == here.results


def test_watching_the_lead_changes_no_game():
    """The batch (which watches every step for the leader) plays the games one loop plays."""
    game, _ = pipeline.analyse(PICKOMINO, warnings=False)
    one = simulate.play_games(game, ["random", "mc:rollouts=2"], 7, 3, False).report(PICKOMINO, {})
    job = batch.Job(PICKOMINO, (), pipeline.DEFAULT, ("random", "mc:rollouts=2"), 7)
    parts = batch.run(job, game, 3).simulation.report(PICKOMINO, {})
    for report in (one, parts):
        report.pop("seconds"), report.pop("games_per_second")
    assert one == parts


def test_a_worker_that_cannot_read_the_rules_is_a_clear_error(tmp_path, capsys, monkeypatch):
    distributed = pytest.importorskip("distributed")
    rules = tmp_path / "gone.rules"
    rules.write_text((ROOT / "games" / "pickomino.rules").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(batch.Job, "keep", lambda job, game: rules.unlink())  # the worker's copy is gone
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        code = cli.main(["simulate", str(rules), "--games", "2", "--cluster", cluster.scheduler_address])
    assert code == 2
    assert "a Dask worker failed: RuntimeError: " in capsys.readouterr().err


def test_no_first_player_advantage_where_nobody_wins():
    """A cooperative game lost every time has no seat that won more: none to measure, not -1/n."""
    results = [batch.GameResult(seed=s, bots=("random", "random"), winners=(), scores=((0,), (0,)), turns=1, rounds=1,
                          ended_by="t", fault=None, lead_changes=0) for s in range(5)]
    report = lab.balance(results, 2)
    assert "first_player_advantage" not in report
    assert any("no game had a winner" in line for line in lab.format_balance(report, 2))


def test_no_lead_changes_to_count_in_games_played_in_the_set_up():
    """The lead is looked at after each turn and round: a game played in its set-up alone has
    none, so there is nothing to measure (it showed 0 lead changes, with a CI)."""
    results = [batch.GameResult(seed=s, bots=("random", "random"), winners=(0,), scores=((1,), (0,)), turns=0,
                                rounds=0, ended_by="t", fault=None, lead_changes=0) for s in range(5)]
    report = lab.balance(results, 2)
    assert report["lead_changes"] is None
    assert any("lead changes per game   none to measure" in line for line in lab.format_balance(report, 2))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the workers in /proc")
def test_sigterm_stops_a_process_pool_as_ctrl_c_does():
    """`kill` (SIGTERM) of `simulate --jobs 2`: the finished games are reported, the exit code
    is 130, and no worker outlives the command (they were left running, writing tracebacks)."""
    import subprocess
    import time

    def children(pid: int) -> list[int]:
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
        return found

    command = subprocess.Popen([sys.executable, "-m", "rulelang", "simulate", PICKOMINO, "--games", "100000",
                                "--jobs", "2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline and command.poll() is None:
        time.sleep(0.2)
        workers = children(command.pid)
    time.sleep(1)
    command.terminate()
    out, err = command.communicate(timeout=60)
    assert command.returncode == 130, err
    assert "interrupted: results of the games played so far" in err and "Traceback" not in err
    time.sleep(0.5)
    assert len(workers) >= 2 and not [w for w in workers if Path(f"/proc/{w}").exists()]


def test_a_lead_that_never_changed_in_a_few_games_may_still_change():
    """Three games without a lead change give an interval above 0 (the exact Poisson bound of
    none seen in three), where a normal interval would shrink to a point; a count that cannot
    happen at all (turns in a game of rounds alone) keeps its point."""
    from rulelang.lab import _counted_ci
    mean, (low, high) = _counted_ci([0, 0, 0], may_happen=True)
    assert mean == 0 and low == 0 and abs(high - 1.2296) < 1e-3
    assert _counted_ci([0, 0, 0]) == (0.0, (0.0, 0.0))


def test_a_team_game_says_partners_share_a_win():
    """In a game of teams every win is a team's: the note says so, and counts only games won by
    more than one team as shared (it said every game had a shared win)."""
    path = str(Path(__file__).parent / "scenarios" / "designer-games" / "euchre.rules")
    game, _ = pipeline.analyse(path, warnings=False)
    report = simulate.play_games(game, ["random"] * 4, 1, 4, False).report(path, {})
    assert report["teams"] and report["shared_wins"] == 0
    text = simulate.format_report(report)
    assert "(a team's win counts 1/k to each of its k players)" in text and "shared win" not in text
