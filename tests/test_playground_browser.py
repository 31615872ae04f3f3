"""The playground in a real browser: Debian's headless Chromium, driven by Playwright.

The site is built once (`rulelang playground build`), served on a free local port, and each
test opens it afresh. A screenshot of each step is kept in ``test-artefacts/playground/`` (or
under ``$RULELANG_TEST_ARTEFACTS``). Without Chromium the tests are skipped, except under CI,
where a missing browser is a failure: `.ci/run` installs it.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rulelang import gamelog
from rulelang.pipeline import load
from rulelang.playground import build

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTEFACTS = Path(os.environ.get("RULELANG_TEST_ARTEFACTS", ROOT / "test-artefacts")) / "playground"
# What the probe of this machine found Chromium needs headless in a closed network.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BOOT_MS = 180_000

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("no Chromium here (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    build.build_site(folder)
    return folder


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def url(site):
    # What `python -m http.server -d SITE` runs: the site needs no server of its own.
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


def open_page(browser, url: str, query: str = ""):
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url + query)
    page.wait_for_selector("#status[data-ready=yes]", timeout=BOOT_MS)
    page.errors = errors
    return page


@pytest.fixture
def page(browser, url):
    page = open_page(browser, url, "?game=pickomino.rules")
    yield page
    assert page.errors == []
    page.context.close()


def snap(page, name: str) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=True)


def editor_call(page, script: str, *args):
    """Run ``script`` with ``cm`` bound to the page's CodeMirror editor."""
    return page.evaluate(f"(args) => {{ const cm = document.querySelector('.CodeMirror').CodeMirror; {script} }}",
                         list(args))


def lint_settled(page, errors: int) -> None:
    word = "no problems" if errors == 0 else f"{errors} error"
    page.wait_for_function(f"document.getElementById('lint-summary').textContent.startsWith({word!r})"
                           if errors else
                           "!/error/.test(document.getElementById('lint-summary').textContent)"
                           " && document.getElementById('lint-summary').textContent !== ''")


def test_pickomino_loads_with_its_rules_and_no_errors(page):
    source = (ROOT / "games" / "pickomino.rules").read_text(encoding="utf-8")
    assert editor_call(page, "return cm.getValue();") == source
    lint_settled(page, 0)
    assert page.locator("#game").input_value() == "pickomino.rules"
    assert page.locator(".cm-keyword").count() > 10  # colouring from the grammar's keywords
    snap(page, "01-loaded")


def test_a_broken_line_shows_its_diagnostic_at_that_line_and_the_fix_clears_it(page):
    lines = editor_call(page, "return cm.getValue().split('\\n');")
    number = next(i for i, text in enumerate(lines, 1) if re.match(r"\s+rule \w+:", text))
    original = lines[number - 1]
    broken = original.replace("rule ", "rule rule ", 1)
    editor_call(page, "cm.replaceRange(args[1], {line: args[0], ch: 0}, {line: args[0]});",
                number - 1, broken)
    item = page.locator(f"#diagnostics li.error[data-line='{number}']")
    item.wait_for(timeout=30_000)
    assert f"pickomino.rules:{number}:" in item.inner_text()
    assert "^" in item.inner_text()  # the caret under the span
    marked = editor_call(page, "const info = cm.lineInfo(args[0]);"
                         " return !!(info.gutterMarkers && info.gutterMarkers['CodeMirror-lint-markers']);",
                         number - 1)
    assert marked
    snap(page, "02-broken-line")
    editor_call(page, "cm.replaceRange(args[1], {line: args[0], ch: 0}, {line: args[0]});",
                number - 1, original)
    page.locator("#diagnostics li.error").first.wait_for(state="detached", timeout=30_000)
    lint_settled(page, 0)
    snap(page, "03-fixed")


def play_to_the_end(page, limit: int = 3000) -> int:
    """Click the first option of every decision until the result shows; the clicks taken."""
    clicks = 0
    while clicks < limit:
        page.wait_for_function("document.querySelector('#actions button') || "
                               "document.getElementById('result').textContent || "
                               "!document.getElementById('handoff').hidden")
        if page.locator("#handoff").is_visible():
            page.click("#handoff-ready")
            continue
        if page.locator("#result").inner_text().strip():
            return clicks
        page.locator("#actions button").first.click()
        clicks += 1
    raise AssertionError(f"no result after {limit} decisions")


def test_a_game_against_a_bot_plays_to_the_end(page):
    page.click("#start")
    page.locator("#actions button").first.wait_for()
    trace = page.locator("#trace").inner_text()
    assert re.search(r"roll .*\[roll_dice, pickomino\.rules:\d+\]", trace)  # each line names its rule
    snap(page, "04-first-decision")
    clicks = play_to_the_end(page)
    assert clicks > 0
    assert re.search(r"winner|no winner|shared win", page.locator("#result").inner_text())
    assert page.locator("#download-log").is_visible()
    snap(page, "05-game-over")


def test_hot_seat_shows_no_other_hand(browser, url, tmp_path):
    page = open_page(browser, url, "?game=six-nimmt")
    assert page.input_value("#game") == "six-nimmt.rules"  # the short form of ?game= works
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    selects = page.locator("#seats select")
    selects.nth(0).select_option("you")
    selects.nth(1).select_option("you")
    selects.nth(2).select_option("random")
    page.click("#start")
    checked = 0
    for _ in range(12):  # the first decisions of both humans, each behind a hand-over
        page.wait_for_function("document.querySelector('#actions button') || "
                               "!document.getElementById('handoff').hidden || "
                               "document.getElementById('result').textContent")
        if page.locator("#handoff").is_visible():
            assert page.locator("#board").inner_text() == ""  # nothing left of the last view
            page.click("#handoff-ready")
            page.locator("#actions button").first.wait_for()
        seat = int(re.search(r"player (\d+)", page.locator("#title").inner_text()).group(1)) - 1
        hands = hands_now(page, tmp_path)
        dom = page.content()
        board = page.locator("#board").inner_text()
        own = hands[seat]
        for other, hand in enumerate(hands):
            if other == seat or not hand:
                continue
            for card in hand:
                assert not card_in(card, dom), f"player {other + 1}'s {card} is in player {seat + 1}'s page"
            assert re.search(rf"^\s+{other + 1} \w+\s+hand {len(hand)} hidden", board, re.M)
        assert all(card_in(card, board) for card in own)  # so cards are named as the check expects
        if checked == 0:
            snap(page, "06-hot-seat")
        checked += 1
        page.locator("#actions button").first.click()
    assert checked >= 4
    assert page.errors == []
    page.context.close()


def hands_now(page, folder: Path) -> list[list[str]]:
    """Each seat's hand, from the referee's log replayed outside the page (the page never
    shows it: the test asks the engine for the log)."""
    log = page.evaluate("() => window.playground.call({op: 'log', game: window.playground.lastGame}).log")
    path = folder / "hot-seat.log.jsonl"
    path.write_text(log, encoding="utf-8")
    record = gamelog.read_log(path)
    state = load(ROOT / "games" / "six-nimmt.rules").new_initial_state(record.header["players"])
    assert gamelog.replay_log(state, record.actions).reproduced
    zones = state.observation("all")["zones"]
    return [zones[f"hand of player {seat + 1}"] for seat in range(record.header["players"])]


def card_in(card: str, text: str) -> bool:
    """Whether ``text`` names the card ``ox 15 (bullheads 2)``, also as a board lists a hand's
    later cards: ``15 (bullheads 2)``."""
    number_and_rest = card.split(" ", 1)[1]
    return re.search(rf"(?<![\d.]){re.escape(number_and_rest)}", text) is not None


def test_a_scenario_runs_from_the_page(page):
    page.click("#tabs button[data-tab=scenario]")
    scenario = (ROOT / "tests" / "scenarios" / "pickomino" / "game-ends-when-grill-empty-most-worms-wins.scenario")
    page.fill("#scenario-text", scenario.read_text(encoding="utf-8"))
    page.click("#scenario-run")
    page.wait_for_selector("#scenario-result[data-passed=true]")
    snap(page, "07-scenario-passed")
    page.fill("#scenario-text", scenario.read_text(encoding="utf-8").replace("players: 2", "players: 9"))
    page.click("#scenario-run")
    page.wait_for_selector("#scenario-result[data-passed=false], #scenario-result[data-passed=error]")


def test_a_simulation_runs_in_a_worker_and_draws_win_shares(page):
    page.click("#tabs button[data-tab=simulate]")
    page.fill("#sim-games", "40")
    page.click("#sim-run")
    page.wait_for_selector("#sim-status[data-done=yes]", timeout=BOOT_MS)
    assert page.locator("#sim-chart rect.bar").count() == 2
    assert "win share" in page.locator("#sim-report").inner_text()
    snap(page, "08-simulation")


def test_a_share_link_carries_the_rules_text(page, browser, url):
    editor_call(page, "cm.setValue(cm.getValue() + '\\n# my variant\\n');")
    page.click("#share")
    # the text is compressed by a stream: the link is written a moment after the click
    page.wait_for_function("document.querySelector('#share-url').value.includes('r=')")
    link = page.locator("#share-url").input_value()
    assert "#" in link and "r=" in link
    other = open_page(browser, link.replace(url, url, 1), "")
    text = editor_call(other, "return cm.getValue();")
    assert text.endswith("# my variant\n")
    other.context.close()
