"""The long-run fuzzer: the generators of the fuzz test (tests/fuzzing.py) in a loop, for as long
as asked, each case in a forked child bounded in time and memory.

    python tests/fuzz_long.py --minutes 60 --out /tmp/fuzz-findings [--jobs 2] [--seed 1]

Findings are grouped by class: the exception's type and innermost frame in rulelang/, or a hang
or running out of memory in analyse or play. The classes the fuzz test already knows to be open
(KNOWN_OPEN_CLASSES in tests/test_fuzz.py) are only counted; the first case of any other class
is shrunk (whole lines
deleted while the class stays the same) and written to OUT as CLASS.rules, with CLASS.txt holding
the traceback, the seed and the case before shrinking. At the end it prints the cases run, how
many were lint-clean, the games played, and the findings by class. Not collected by pytest."""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzzing import (  # noqa: E402 -- after the path above
    CPU_SECONDS,
    GAMES,
    ROOT,
    RandomDrawer,
    check_text,
    expression_in_place,
    mutate,
    names_of,
    run_isolated,
    token_soup,
)
from test_fuzz import KNOWN_OPEN_CLASSES  # noqa: E402

TEXTS = {game: game.read_text(encoding="utf-8") for game in GAMES}
ALL_NAMES = names_of("\n".join(TEXTS.values()))
KINDS = ("token soup", "mutated game", "expression in place")


def make_case(seed: int) -> tuple[str, Path | None, str]:
    """The case for a seed: (kind, the game it comes from or None, text). Same seed, same case."""
    r = RandomDrawer(random.Random(seed))
    kind = r.choice(KINDS)
    if kind == "token soup":
        return kind, None, token_soup(r, ALL_NAMES)
    game = r.choice(GAMES)
    if kind == "mutated game":
        return kind, game, mutate(TEXTS[game], r, list(TEXTS.values()), most=6)
    return kind, game, expression_in_place(TEXTS[game], r)


def folder_for(workdir: Path, game: Path | None) -> Path:
    return workdir if game is None else workdir / game.relative_to(ROOT / "games").parent


def _run(folder: str, text: str, name: str, seed: int) -> dict:
    return check_text(Path(folder), text, name, play_seed=seed)


def run_case(workdir: Path, game: Path | None, text: str, name: str, seed: int, timeout: float) -> dict:
    return run_isolated(_run, str(folder_for(workdir, game)), text, name, seed, timeout=timeout)


def shrink(text: str, wanted: str, attempt, seconds: float) -> str:
    """Delete chunks of lines, then single lines, while `attempt(text)` still gives the class
    `wanted`; stop after `seconds`."""
    lines = text.split("\n")
    stop = time.monotonic() + seconds
    chunk = max(1, len(lines) // 2)
    while time.monotonic() < stop:
        changed, i = False, 0
        while i < len(lines) and time.monotonic() < stop:
            candidate = lines[:i] + lines[i + chunk:]
            if candidate and attempt("\n".join(candidate)).get("signature") == wanted:
                lines, changed = candidate, True
            else:
                i += chunk
        if not changed:
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
    for size in (3, 2):  # lines that only go together: a block's head and its body
        i = 0
        while i < len(lines) and time.monotonic() < stop:
            candidate = lines[:i] + lines[i + size:]
            if candidate and attempt("\n".join(candidate)).get("signature") == wanted:
                lines = candidate
            else:
                i += 1
    return "\n".join(lines)


def slug(signature: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "-", signature).strip("-")[:100]


def worker(job: int, seed: int, stop: float, out: str, timeout: float, shrink_seconds: float) -> dict:
    """Cases with seeds seed, seed + 1, ... until the clock passes `stop`; returns the counts."""
    workdir = Path(tempfile.mkdtemp(prefix=f"fuzz-long-{job}-"))
    for game in GAMES:
        target = workdir / game.relative_to(ROOT / "games")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(game, target)
    for game in GAMES:  # built once here, not in every child: the parser and whatever is cached
        check_text(folder_for(workdir, game), TEXTS[game], f"warm-{job}.rules")
    counts: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    new: list[str] = []
    case_seed = seed
    try:
        while time.time() < stop:
            kind, game, text = make_case(case_seed)
            name = f"{game.stem if game else 'soup'}-fuzz-{job}.rules"
            outcome = run_case(workdir, game, text, name, case_seed, timeout)
            counts["cases"] += 1
            if "result" in outcome:
                result = outcome["result"]
                counts["lint-clean"] += result["compiled"]
                counts["games played"] += result["games"]
                counts["runtime faults"] += result["faults"]
            else:
                found = outcome["signature"]
                classes[found] += 1
                if classes[found] == 1 and found not in KNOWN_OPEN_CLASSES and claim(Path(out), found):
                    new.append(found)
                    record(Path(out), found, outcome, kind, game, text, case_seed, shrink_seconds,
                           lambda t, g=game, n=name, s=case_seed: run_case(workdir, g, t, n, s, timeout))
            case_seed += 1
    except KeyboardInterrupt:
        pass
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"counts": dict(counts), "classes": dict(classes), "new": new}


def claim(out: Path, signature: str) -> bool:
    """True for the first job to find this class (in this run or an earlier one into OUT)."""
    try:
        os.close(os.open(out / f"{slug(signature)}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def record(out: Path, signature: str, outcome: dict, kind: str, game: Path | None, text: str,
           seed: int, shrink_seconds: float, attempt) -> None:
    budget = shrink_seconds if not signature.startswith(("hang", "memory", "child")) else shrink_seconds / 2
    small = shrink(text, signature, attempt, budget)
    again = attempt(small)
    base = f" (beside games/{game.relative_to(ROOT / 'games').parent})" if game else ""
    (out / f"{slug(signature)}.rules").write_text(
        f"# {signature}: found by tests/fuzz_long.py, seed {seed}, {kind}{base}\n{small}\n", encoding="utf-8")
    (out / f"{slug(signature)}.txt").write_text(
        f"class: {signature}\nseed: {seed}\nkind: {kind}\ngame: {game}\n\n"
        f"traceback of the shrunk case:\n{again.get('traceback', '')}\n"
        f"traceback of the first case:\n{outcome.get('traceback', '')}\n"
        f"the first case:\n{text}\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to run (default 10)")
    parser.add_argument("--out", default="fuzz-findings", help="folder for the findings")
    parser.add_argument("--jobs", type=int, default=1, help="processes to run (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="first case's seed (default: random)")
    parser.add_argument("--timeout", type=float, default=4 * CPU_SECONDS,
                        help="wall-clock seconds for one case before it is a hang")
    parser.add_argument("--shrink-seconds", type=float, default=60.0,
                        help="time spent shrinking each new finding")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seed = args.seed if args.seed is not None else random.randrange(2 ** 40)
    stop = time.time() + 60 * args.minutes
    print(f"fuzzing for {args.minutes:g} minutes with {args.jobs} job(s) from seed {seed}; findings in {out}",
          flush=True)
    jobs = [(job, seed + job * 10 ** 9, stop, str(out), args.timeout, args.shrink_seconds)
            for job in range(args.jobs)]
    if args.jobs == 1:
        results = [worker(*jobs[0])]
    else:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            results = pool.starmap(worker, jobs)
    counts: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    new: list[str] = []
    for result in results:
        counts.update(result["counts"])
        classes.update(result["classes"])
        new += result["new"]
    for key in ("cases", "lint-clean", "games played", "runtime faults"):
        print(f"{key}: {counts[key]}")
    print(f"findings: {sum(classes.values())} in {len(classes)} class(es), {len(new)} new in {out}")
    for signature, count in classes.most_common():
        note = ("  (known: tests/test_fuzz.py KNOWN_OPEN_CLASSES)" if signature in KNOWN_OPEN_CLASSES
                else f"  (new: {slug(signature)}.rules)" if signature in new else "")
        print(f"  {count:6}  {signature}{note}")
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
