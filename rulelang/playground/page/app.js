// The playground page: the editor with the linter's diagnostics, the game picker, play against
// bots or hot seat, a simulation in a Web Worker, scenarios and share links. Every answer comes
// from rulelang itself (rulelang.playground.api, running in Pyodide); this file only shows it.
import { boot } from "./boot.js";

const $ = (id) => document.getElementById(id);
const base = new URL("./", location.href);
const BOTS = ["you", "random", "mc"];
let engine = null; // {call, manifest} once Python has started
let fileName = "game.rules";
let gameInfo = null; // the last lint's {name, min_players, max_players, options}
let currentGame = null; // the number of the game on the table
let watchTimer = null;

// ------------------------------------------------------------------ the editor
const editor = CodeMirror.fromTextArea($("source"), {
  lineNumbers: true,
  gutters: ["CodeMirror-lint-markers"],
  lint: { getAnnotations: lintText, async: true, delay: 300 },
  indentUnit: 4,
  extraKeys: { Tab: (cm) => cm.replaceSelection("    ") },
});

function defineMode(keywords) {
  const words = keywords.map((w) => w.replace(/[^a-z_]/g, "")).filter(Boolean);
  CodeMirror.defineSimpleMode("rules", {
    start: [
      { regex: /#.*/, token: "comment" },
      { regex: /"(?:[^\\"]|\\.)*"?/, token: "string" },
      { regex: /\d+/, token: "number" },
      { regex: new RegExp(`\\b(?:${words.join("|")})\\b`), token: "keyword" },
      { regex: /[A-Za-z_][A-Za-z0-9_]*/, token: "variable" },
    ],
  });
  editor.setOption("mode", "rules");
}

function lintText(text, updateLinting) {
  if (!engine) return updateLinting([]);
  const answer = engine.call({ op: "lint", text, name: fileName });
  if (answer.error) return updateLinting([]);
  showDiagnostics(answer);
  if (answer.game) setGame(answer.game);
  const marks = answer.diagnostics.filter((d) => d.line != null).map((d) => {
    const from = CodeMirror.Pos(d.line - 1, d.col - 1);
    let to = CodeMirror.Pos((d.end_line ?? d.line) - 1, (d.end_col ?? d.col) - 1);
    if (CodeMirror.cmpPos(to, from) <= 0) to = CodeMirror.Pos(from.line, from.ch + 1);
    const help = d.help ? `\nhelp: ${d.help}` : "";
    return { from, to, severity: d.severity, message: `${d.code}: ${d.message}${help}` };
  });
  updateLinting(marks);
}

function showDiagnostics(answer) {
  const list = $("diagnostics");
  list.replaceChildren();
  for (const d of answer.diagnostics) {
    const item = document.createElement("li");
    item.className = d.severity;
    if (d.line != null) item.dataset.line = d.line;
    item.dataset.code = d.code;
    const text = document.createElement("pre");
    text.textContent = d.rendered;
    item.append(text);
    item.onclick = () => {
      if (d.line == null) return;
      editor.setCursor(CodeMirror.Pos(d.line - 1, d.col - 1));
      editor.focus();
    };
    list.append(item);
  }
  const { errors, warnings } = answer;
  $("lint-summary").textContent = errors || warnings
    ? `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`
    : "no problems";
  $("lint-summary").className = errors ? "errors" : "clean";
}

// ------------------------------------------------------------------ game, seats and options
function setGame(info) {
  const same = gameInfo && gameInfo.name === info.name
    && JSON.stringify(gameInfo.options) === JSON.stringify(info.options)
    && gameInfo.min_players === info.min_players && gameInfo.max_players === info.max_players;
  gameInfo = info;
  if (same) return;
  const players = $("players");
  players.min = info.min_players;
  players.max = info.max_players;
  const count = Number(players.value);
  if (!(count >= info.min_players && count <= info.max_players)) players.value = info.min_players;
  drawSeats();
  drawOptions(info.options);
}

function drawSeats() {
  const box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let seat = 0; seat < Number($("players").value); seat += 1) {
    const label = document.createElement("label");
    label.textContent = `player ${seat + 1} `;
    const pick = document.createElement("select");
    pick.className = "seat";
    for (const bot of BOTS) pick.add(new Option(bot, bot));
    pick.value = old[seat] ?? (seat === 0 ? "you" : "random");
    label.append(pick);
    box.append(label);
  }
}

function drawOptions(options) {
  const box = $("options");
  box.replaceChildren();
  for (const option of options ?? []) {
    const label = document.createElement("label");
    label.textContent = `${option.name} `;
    let input;
    if (option.choices) {
      input = document.createElement("select");
      for (const choice of option.choices) input.add(new Option(String(choice), String(choice)));
    } else {
      input = document.createElement("input");
      input.type = typeof option.default === "number" ? "number" : "text";
      if (option.min != null) input.min = option.min;
      if (option.max != null) input.max = option.max;
    }
    input.value = String(option.default);
    input.dataset.option = option.name;
    input.dataset.default = String(option.default);
    label.append(input);
    box.append(label);
  }
}

function chosenOptions() {
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    if (input.value !== input.dataset.default) options[input.dataset.option] = input.value;
  }
  return options;
}

const seats = () => [...$("seats").querySelectorAll("select")].map((s) => s.value);

async function loadGame(file) {
  const response = await fetch(new URL(`games/${file}`, base));
  fileName = file;
  editor.setValue(await response.text());
  editor.clearHistory();
}

// ------------------------------------------------------------------ playing
function clearSeatView() {
  for (const id of ["title", "board", "trace", "prompt", "result"]) $(id).textContent = "";
  $("actions").replaceChildren();
  $("download-log").hidden = true;
}

function startGame() {
  if (!engine) return;
  clearTimeout(watchTimer);
  clearSeatView();
  $("handoff").hidden = true;
  const answer = engine.call({
    op: "start", text: editor.getValue(), name: fileName, seats: seats(),
    options: chosenOptions(), seed: Number($("seed").value) || 0,
  });
  if (answer.diagnostics) {
    showDiagnostics(answer);
    $("result").textContent = "the rules have errors: see the diagnostics under the editor";
    return;
  }
  show(answer);
}

function show(answer) {
  if (answer.error) {
    $("result").textContent = answer.error;
    return;
  }
  currentGame = answer.game;
  if (window.playground) window.playground.lastGame = answer.game;
  if (answer.hand_over) {
    // nothing of the last player's view stays in the page, and the next one's is asked for
    // only once they are at the screen
    clearSeatView();
    $("seatview").hidden = true;
    $("handoff-text").textContent = `Pass to player ${answer.seat + 1}. The other players look away.`;
    $("handoff").hidden = false;
    $("handoff-ready").focus();
    return;
  }
  showView(answer);
}

function showView(answer) {
  $("handoff").hidden = true;
  $("seatview").hidden = false;
  $("title").textContent = answer.title ?? "";
  $("board").textContent = answer.board ?? "";
  const trace = $("trace");
  const lines = (answer.trace ?? []).join("\n");
  if (answer.hot_seat) trace.textContent = lines;
  else if (lines) trace.textContent += (trace.textContent ? "\n" : "") + lines;
  trace.scrollTop = trace.scrollHeight;
  $("prompt").textContent = answer.status === "decide" ? answer.prompt ?? "" : "";
  const buttons = (answer.actions ?? []).map((text, index) => {
    const button = document.createElement("button");
    button.className = "action";
    button.textContent = text;
    button.onclick = () => show(engine.call({ op: "act", game: answer.game, action: index }));
    return button;
  });
  if (answer.status === "last look") {
    // the game is over; what the last moves showed this player alone, then the next one's, then the end
    const done = document.createElement("button");
    done.className = "action";
    done.textContent = "seen: go on";
    done.onclick = () => show(engine.call({ op: "advance", game: answer.game }));
    buttons.push(done);
  }
  $("actions").replaceChildren(...buttons);
  $("result").textContent = answer.status === "fault" ? answer.fault : answer.result ?? "";
  if (answer.status === "watch") {
    watchTimer = setTimeout(() => show(engine.call({ op: "advance", game: answer.game })),
      $("fast").checked ? 0 : 350);
  }
  if (answer.status === "over" || answer.status === "fault") offerLog(answer.game);
}

function offerLog(game) {
  const answer = engine.call({ op: "log", game });
  if (!answer.log) return;
  const link = $("download-log");
  URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([answer.log], { type: "application/x-ndjson" }));
  link.download = fileName.replace(/\.rules$/, "") + ".log.jsonl";
  link.hidden = false;
}

// ------------------------------------------------------------------ simulation (a Web Worker)
let worker = null;

function simulate() {
  if (!worker) {
    worker = new Worker(new URL("worker.js", base), { type: "module" });
    worker.onmessage = ({ data }) => onSimulation(data);
    worker.onerror = (event) => { $("sim-status").textContent = `the worker failed: ${event.message}`; };
  }
  $("sim-run").disabled = true;
  $("sim-status").textContent = "starting Python in the worker…";
  $("sim-chart").replaceChildren();
  $("sim-report").textContent = "";
  worker.postMessage({
    text: editor.getValue(), name: fileName, options: chosenOptions(),
    bots: seats().map((s) => (s === "you" ? "random" : s)),
    seed: Number($("seed").value) || 0, games: Number($("sim-games").value) || 100,
  });
}

function onSimulation(data) {
  if (data.error) {
    $("sim-run").disabled = false;
    $("sim-status").textContent = data.error;
    return;
  }
  const answer = data.progress ?? data.finished;
  $("sim-progress").max = answer.total;
  $("sim-progress").value = answer.done;
  const rate = answer.report.seconds ? answer.done / answer.report.seconds : 0;
  $("sim-status").textContent = `${answer.done}/${answer.total} games, ${rate.toFixed(1)} games/s`;
  drawChart(answer.report);
  if (data.finished) {
    $("sim-run").disabled = false;
    $("sim-status").textContent += " — done";
    $("sim-status").dataset.done = "yes";
  }
}

function drawChart(report) {
  const rows = report.win_share;
  const width = 460, height = 220, pad = 34, barWidth = (width - 2 * pad) / rows.length;
  const y = (share) => height - pad - share * (height - 2 * pad);
  const svg = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="win share by seat">`];
  svg.push(`<line x1="${pad}" y1="${y(0)}" x2="${width - pad}" y2="${y(0)}" stroke="#999"/>`);
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    svg.push(`<text x="2" y="${y(tick) + 4}" font-size="10">${tick}</text>`);
  }
  rows.forEach((row, i) => {
    const x = pad + i * barWidth + barWidth * 0.2, w = barWidth * 0.6, mid = x + w / 2;
    svg.push(`<rect class="bar" x="${x}" y="${y(row.share)}" width="${w}" height="${y(0) - y(row.share)}" fill="#5b7db1"><title>${row.share.toFixed(3)}</title></rect>`);
    svg.push(`<line x1="${mid}" y1="${y(row.lo)}" x2="${mid}" y2="${y(row.hi)}" stroke="#222"/>`);
    svg.push(`<text x="${mid}" y="${height - 12}" font-size="11" text-anchor="middle">${row.seat} ${escapeHtml(row.bot)}</text>`);
  });
  svg.push("</svg>");
  $("sim-chart").innerHTML = svg.join("");
  const lines = rows.map((r) => `seat ${r.seat} (${r.bot}): win share ${r.share.toFixed(3)}  (95% CI ${r.lo.toFixed(3)}-${r.hi.toFixed(3)})`);
  lines.push(`no winner: ${report.no_winner.toFixed(3)}`);
  if (report.length) lines.push(`length: mean ${report.length.mean}, min ${report.length.min}, max ${report.length.max}`);
  for (const [rule, count] of Object.entries(report.ended_by ?? {})) lines.push(`ended by ${rule}: ${count}`);
  if (report.faults) lines.push(`faults: ${report.faults}`);
  $("sim-report").textContent = lines.join("\n");
}

const escapeHtml = (text) => String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

// ------------------------------------------------------------------ scenarios
function runScenario() {
  if (!engine) return;
  const answer = engine.call({
    op: "scenario", text: editor.getValue(), name: fileName, scenario: $("scenario-text").value,
  });
  const out = $("scenario-result");
  out.textContent = answer.error ?? (answer.passed ? "passed" : `FAILED\n${answer.message}`);
  out.dataset.passed = answer.error ? "error" : String(answer.passed);
}

// ------------------------------------------------------------------ share links
async function squeeze(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function unsqueeze(data) {
  const binary = atob(data.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Response(stream).text();
}

async function share() {
  const params = new URLSearchParams({ n: fileName, r: await squeeze(editor.getValue()) });
  const url = new URL(`#${params}`, location.href).href;
  history.replaceState(null, "", url);
  const field = $("share-url");
  field.value = url;
  field.hidden = false;
  field.select();
  navigator.clipboard?.writeText(url).catch(() => {});
}

async function sharedText() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.get("r")) return null;
  try {
    return { name: params.get("n") || "shared.rules", text: await unsqueeze(params.get("r")) };
  } catch {
    $("status").textContent = "the share link is damaged: its rules text could not be read";
    return null;
  }
}

// ------------------------------------------------------------------ start up
function wire() {
  for (const button of document.querySelectorAll("#tabs button")) {
    button.onclick = () => {
      for (const other of document.querySelectorAll("#tabs button")) {
        other.classList.toggle("active", other === button);
        $(`tab-${other.dataset.tab}`).hidden = other !== button;
      }
    };
  }
  $("players").onchange = drawSeats;
  $("start").onclick = startGame;
  $("handoff-ready").onclick = () => showView(engine.call({ op: "view", game: currentGame }));
  $("sim-run").onclick = simulate;
  $("scenario-run").onclick = runScenario;
  $("share").onclick = share;
  $("game").onchange = () => loadGame($("game").value);
}

async function main() {
  wire();
  const say = (text) => { $("status").textContent = `${text}…`; };
  let started;
  try {
    started = await boot(base, say);
  } catch (error) {
    $("status").textContent = `Python did not start: ${error}`;
    return;
  }
  engine = started;
  defineMode(engine.manifest.keywords);
  for (const game of engine.manifest.games) {
    $("game").add(new Option(`${game.name} (${game.file})`, game.file));
  }
  const shared = await sharedText();
  if (shared) {
    fileName = shared.name;
    editor.setValue(shared.text);
  } else {
    const asked = new URLSearchParams(location.search).get("game");
    const games = engine.manifest.games;
    const first = games.find((g) => g.file === asked || g.file === `${asked}.rules`) ?? games[0];
    if (first) {
      $("game").value = first.file;
      await loadGame(first.file);
    }
  }
  editor.performLint();
  window.playground = { call: engine.call, bootSeconds: started.seconds };
  $("status").textContent = `ready (Python started in ${started.seconds.toFixed(1)} s)`;
  $("status").dataset.ready = "yes";
}

main();
