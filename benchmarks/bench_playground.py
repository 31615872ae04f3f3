"""The playground in a browser: the first load, and random games in the browser against the CLI.

    python benchmarks/bench_playground.py                  # Pickomino, 2 players, 3 rounds
    python benchmarks/bench_playground.py --games 50 --rounds 5 --game six-nimmt.rules

It builds the site (`rulelang playground build`), serves it on a free local port and opens it
in Debian's headless Chromium through Playwright (`pip install playwright`,
`apt-get install chromium`).

- **First load**: from navigation to "ready" (Pyodide started, the wheels unpacked, rulelang
  imported, the first game loaded and linted), in a fresh browser context each time, so
  nothing is cached by the page; the best and the worst of `--loads`.
- **Random games**: the same batch of seeded random-bot games (the playground's `simulate`
  requests) played in the browser's Pyodide and in this CPython, in interleaved rounds (the
  order alternating), wall time; the best round of each counts. CPU time is printed for
  CPython only: the browser's is not measurable from here.
Seconds are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path

from rulelang.playground import api, build

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def batch_request(text: str, name: str, players: int, games: int, seed: int) -> tuple[dict, dict]:
    start = {"op": "simulate_start", "text": text, "name": name, "bots": ["random"] * players,
             "options": {}, "seed": seed, "games": games}
    return start, {"op": "simulate_more", "games": games}


def cpython_round(start: dict, more: dict) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    sim = json.loads(api.handle(json.dumps(start)))["sim"]
    answer = json.loads(api.handle(json.dumps({**more, "sim": sim})))
    assert answer["done"] == start["games"], answer
    return time.perf_counter() - wall, time.process_time() - cpu


BROWSER_ROUND = """([start, more]) => {
  const call = window.playground.call;
  const t = performance.now();
  const sim = call(start).sim;
  const answer = call({...more, sim});
  if (answer.done !== start.games) throw new Error(JSON.stringify(answer));
  return (performance.now() - t) / 1000;
}"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="pickomino.rules", help="a file of the site's games/")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=20, help="games per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--loads", type=int, default=3, help="first loads to time")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder)
        started = time.perf_counter()
        build.build_site(site)
        print(f"site built in {time.perf_counter() - started:.1f} s "
              f"({sum(f.stat().st_size for f in site.rglob('*') if f.is_file()) / 1e6:.1f} MB)")
        server = build.make_server(site, "127.0.0.1", 0, quiet=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/?game={args.game}"
        text = (site / "games" / args.game).read_text(encoding="utf-8")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            loads, boots = [], []
            for _ in range(args.loads):
                context = browser.new_context()
                page = context.new_page()
                t = time.perf_counter()
                page.goto(url)
                page.wait_for_selector("#status[data-ready=yes]", timeout=300_000)
                loads.append(time.perf_counter() - t)
                boots.append(page.evaluate("() => window.playground.bootSeconds"))
                context.close()
            print(f"first load (navigation to ready): best {min(loads):.2f} s, worst {max(loads):.2f} s; "
                  f"of which Python and the wheels: best {min(boots):.2f} s")
            page = browser.new_context().new_page()
            page.goto(url)
            page.wait_for_selector("#status[data-ready=yes]", timeout=300_000)
            start, more = batch_request(text, args.game, args.players, args.games, args.seed)
            page.evaluate(BROWSER_ROUND, [{**start, "games": 2}, {**more, "games": 2}])  # warm-up
            cpython_round({**start, "games": 2}, {**more, "games": 2})
            browser_walls, cpython_walls, cpython_cpus = [], [], []
            for r in range(args.rounds):
                order = ("browser", "cpython") if r % 2 == 0 else ("cpython", "browser")
                for engine in order:
                    if engine == "browser":
                        browser_walls.append(page.evaluate(BROWSER_ROUND, [start, more]))
                    else:
                        wall, cpu = cpython_round(start, more)
                        cpython_walls.append(wall)
                        cpython_cpus.append(cpu)
            browser.close()
        server.shutdown()
    games = args.games
    print(f"{args.game}, {args.players} players, {games} random games a round, best of {args.rounds}:")
    print(f"  browser (Pyodide): {games / min(browser_walls):8.1f} games/s wall")
    print(f"  CLI (CPython):     {games / min(cpython_walls):8.1f} games/s wall, "
          f"{games / min(cpython_cpus):.1f} games/s CPU")
    print(f"  browser/CLI: {min(cpython_walls) / min(browser_walls):.2f} (wall)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
