"""Run every reproduction of hostile input (``../shared/repro/reliability`` by default) through
the commands that used to fail, each in a child process limited to 10 s and 500 MB, and print a
table: exit code, seconds, peak memory, the diagnostic code, and whether a traceback appeared.

    python benchmarks/check_reproductions.py [FOLDER]

A rules file is linted; one that lints clean is also played (`run` with random bots and
`--check`, and `simulate --check`). Every log is replayed and resumed. A line passes when the
command ends in time, within memory, without a traceback, and either exits 1 or 2 with a
diagnostic code or exits 0 on a file that is valid (the "silently wrong" cases, now right)."""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECONDS, MEMORY = 10, 500 * 1024 * 1024
CODE = re.compile(r"\b([EWR]\d{3})\b")


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(args: list[str], cwd: Path) -> tuple[int, float, int, str, bool]:
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "rulelang", *args], cwd=cwd, capture_output=True,
                              text=True, errors="replace", timeout=SECONDS, preexec_fn=limited,
                              stdin=subprocess.DEVNULL)
        code, out = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as timeout:
        code, out = -9, str(timeout.stdout or "") + str(timeout.stderr or "")
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024  # MB, the largest child so far
    found = CODE.search(out)
    return code, seconds, peak, found.group(1) if found else "", "Traceback" in out


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "repro" / "reliability"
    pickomino = str(ROOT / "games" / "pickomino.rules")
    cases: list[tuple[str, list[str]]] = []
    for path in sorted(folder.glob("*.rules")):
        cases.append((f"lint {path.name}", ["lint", path.name]))
        cases.append((f"run {path.name}", ["run", path.name, "--bot", "random", "--fast", "--check",
                                           "--log", "/tmp/rulelang-repro.jsonl"]))
        cases.append((f"simulate {path.name}", ["simulate", path.name, "--games", "20", "--check"]))
    for path in sorted((folder / "logs").glob("*.jsonl")):
        name = f"logs/{path.name}"
        cases.append((f"replay {name}", ["replay", name]))
        cases.append((f"resume {name}", ["run", "--resume", name, "--fast"]))
        cases.append((f"resume {name} --rules", ["run", "--resume", name, "--fast", "--rules", pickomino]))
    cases.append(("run --log /dev/full", ["run", pickomino, "--seats", "random,random", "--fast",
                                          "--log", "/dev/full"]))
    failed = 0
    print(f"{'':4} {'command':58} {'exit':>4} {'s':>5} {'MB':>4}  code")
    for label, args in cases:
        code, seconds, peak, diagnostic, traceback = run(args, folder)
        ok = code >= 0 and seconds < SECONDS and not traceback and (code == 0 or (code in (1, 2) and diagnostic)
                                                                      or "/dev/full" in label)
        failed += not ok
        print(f"{'ok' if ok else 'FAIL':4} {label[:58]:58} {code:>4} {seconds:5.1f} {peak:>4}  {diagnostic}"
              f"{'  TRACEBACK' if traceback else ''}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
