// The /play table page, phone first: the board from this seat's side (the judge sees
// everything), the hand, then the pending prompt.  A turn is chosen in two taps (playturn.js);
// other prompts are buttons (listed options) or checkboxes (choose N cards); a `manual` prompt
// is the operations form (manual.js).  The seat not to act reads "Waiting for <name>"; players
// are named as the match records them (MatchOpened), never by seat letter or id.  A seat can
// call the judge; the judge's console (judge.js) shows the call.
// Talks to the JSON API with the page's session; writes carry the CSRF token.  A board of
// another game than Wonders (its `game`) is drawn by that game's renderer (boards.js); the
// prompt is drawn from its options / `choose` alone, whatever the game.

import { renderer } from "./boards.js";
import { JudgeConsole } from "./judge.js";
import { manualForm } from "./manual.js";
import { el, realmTaps, subjectOf, turnChooser } from "./playturn.js";
import { cardEntryForm } from "./cardentry.js";  // docs/rulings.md R34: a catalogue card's printed stats

const root = document.getElementById("play");
const matchId = root.dataset.match;
const role = root.dataset.role;
const csrf = root.dataset.csrf;
const players = JSON.parse(root.dataset.players || "{}");
const api = `/api/matches/${encodeURIComponent(matchId)}`;
let current = null;   // the last StateOut
let busy = false;     // a write and the refresh after it are in flight: no other write
let shownLength = -1; // re-render only when the match moved (keeps ticked boxes while polling)
let shownPrompt = null;  // the prompt drawn (JSON): redrawn only when it changes (keeps input)
let shownBoard = null;   // the board the ruling form was drawn from (JSON)
let picked = null;    // the turn chooser's first tap (a group key), until the prompt changes
let ownLength = -1;   // the match's length after this page's last recorded write
let error = null;     // the error on the status line: {kind: "refresh" | "write", length}

function seatName(seat) {
  return players[seat] || `seat ${seat}`;
}

// Narration names seats by letter ("A plays …", "A's turn ends") and some picks by card id
// ("answers discard: A7"): put the players' names, and the names of cards this page shows, in.
function named(text) {
  const cards = current ? cardNames(current.board) : {};
  return text
    .replace(/\b[AB]\d+\b/g, (id) => cards[id] || id)
    .replace(/\b(A|B)\b(?! match of)/g, (seat) => seatName(seat));
}

function setStatus(text, isError = false) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

// An error stays on the status line while it is true: a failed refresh until one succeeds, a
// refused write until the match moves after it (or a later write is recorded).
function showError(message, kind, red = true) {
  error = { kind, length: null };
  setStatus(message, red);
}

function errorStillTrue() {
  if (!error) return false;
  if (error.kind === "write" && (error.length === null || error.length === current.length)) {
    error.length = current.length;
    return true;
  }
  error = null;
  return false;
}

async function call(method, path, body) {
  const init = { method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.headers["X-CSRF-Token"] = csrf;
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`${api}${path}`, init);
  const data = await response.json().catch(() => ({ error: "bad_response", message: response.statusText }));
  if (!response.ok) {
    throw Object.assign(new Error(`${data.message || data.error} (HTTP ${response.status})`),
                        { status: response.status });
  }
  return data;
}

// A 409 on a write sent from a length this page's own earlier write has moved past: that
// earlier write (a second tap on the same button) is what the match has now.
function alreadyRecorded(failure, body) {
  return failure.status === 409 && body && body.expected_seq !== undefined &&
    body.expected_seq < ownLength;
}

async function write(path, body) {
  if (busy) return;
  busy = true;
  try {
    const done = await call("POST", path, body);
    ownLength = done.seq;
    error = null;
    setStatus("recorded");
  } catch (failure) {
    if (alreadyRecorded(failure, body)) {
      showError("Already recorded: your earlier tap was taken; nothing more was sent.", "write", false);
    } else {
      showError(failure.message, "write");
    }
  } finally {
    try {
      await refresh();  // still busy: a tap on what is on the page until it is redrawn sends nothing
    } finally {
      busy = false;  // even when the redraw's reads fail: the poller and the next tap go on
    }
  }
}

function decide(decision) {
  return write("/decisions", { expected_seq: current.length, decision });
}

// -- names of cards the page shows ----------------------------------------------------------

function cardNames(board) {
  const names = {};
  const add = (card) => { if (card && card.id && card.name) names[card.id] = card.name; };
  for (const realm of board.realms || []) {
    for (const side of Object.values(realm.cards || {})) side.forEach(add);
  }
  for (const player of Object.values(board.players || {})) {
    for (const zone of ["hand", "deck", "abyss", "banishment"]) (player[zone] || []).forEach(add);
  }
  return names;
}

// -- the prompt ------------------------------------------------------------------------------

// What the seat to act is doing, in words: a prompt's kind is an id ("siege_defenders").
// Every kind an engine asks has its words here (tests/web/test_play_waiting_words.py).
const WHAT_FOR = {
  turn: "their turn", manual: "a card's text", stats: "entering a card's printed stats",
  target: "choosing a target", order: "choosing an order", discard: "choosing discards",
  bury_order: "choosing the order of the cards they bury",
  // Wonders of The First's set-up (rules 401, 402.1) and effects
  first: "choosing who plays first", side: "choosing the side of realm 1",
  mulligan: "choosing cards to put back (mulligan)", stone: "choosing a stone to seize",
  may: "deciding yes or no", realm: "choosing a realm", equip: "choosing what to equip",
  amount: "choosing how many",
  // State of Wonder's prompts (docs/sow.md, "Prompts and decisions")
  attackers: "declaring attackers", defenders: "choosing defenders",
  siege_defenders: "defending their city", tactics: "combat tactics",
  damage: "assigning damage", siege: "deciding on a City Siege",
  retreat: "deciding whether to retreat", retrieve: "retrieving a card",
};

function whatFor(prompt) {
  return WHAT_FOR[prompt.kind] || prompt.kind.replace(/_/g, " ");
}

function renderPrompt(prompt) {
  const box = document.getElementById("prompt");
  box.replaceChildren();
  if (!prompt) {
    box.className = "waiting";
    box.append(el("p", {}, current.board.over ? "The match is over." : "Nothing is pending."));
    return;
  }
  const mine = prompt.yours && role !== "judge";
  box.className = mine ? "yours" : "waiting";
  if (!mine) {
    const who = seatName(prompt.seat);
    box.append(el("p", { class: "question waiting-for", "data-seat": prompt.seat },
      `Waiting for ${who} (${whatFor(prompt)})`));
    // the engine's text speaks to the seat it asks ("your turn: …"): only the judge reads it
    if (role === "judge" && prompt.kind !== "turn" && prompt.text) {
      box.append(el("p", { class: "muted" }, named(prompt.text)));
    }
    return;
  }
  const heading = prompt.kind === "turn" ? `Your turn, ${seatName(role)}` : `${seatName(role)}: ${named(prompt.text)}`;
  box.append(el("p", { class: "question" }, heading));
  if (prompt.choose) {
    box.append(renderChoice(prompt));
    return;
  }
  if (prompt.kind === "stats" && prompt.entry) {  // cardentry.js: the card entry form
    box.append(cardEntryForm(prompt.entry, decide));
    return;
  }
  if (prompt.kind === "manual") box.append(renderManual(prompt));
  if (!prompt.options.length && prompt.kind !== "manual") {
    box.append(el("p", { class: "no-options" },
      "No answer to this prompt is offered here; call the judge."));
  }
  if (prompt.kind === "turn") {
    box.append(turnChooser(prompt.options, cardNames(current.board), picked, pick, decide));
    return;
  }
  const row = el("div", { class: "options" });
  prompt.options.forEach((option) => {
    row.append(el("button", { type: "button", class: "option", onclick: () => decide(option.decision) },
      option.label));
  });
  box.append(row);
}

// The turn chooser's first tap (from its buttons, the hand or the board); null: back.
function pick(key) {
  picked = key;
  renderPrompt(current.prompt);
  renderBoard(current);
}

function renderManual(prompt) {
  // An unscripted card's text: the seat enters what it did, operation by operation (manual.js).
  return manualForm(current.board, role, (ops) =>
    decide({ type: "ManualResolved", card: prompt.card, ops }), seatName);
}

function renderRuling() {
  // The judge's ruling: any operation, entered with the form (POST …/manual).
  const box = document.getElementById("ruling");
  if (!box) return;
  if (current.board.over) {
    box.replaceChildren(el("p", {}, "The match has ended."));
    return;
  }
  const board = JSON.stringify(current.board);
  if (board === shownBoard) return;  // keep the ruling being entered while the board is the same
  shownBoard = board;
  box.replaceChildren(manualForm(current.board, "judge", (ops, note) =>
    write("/manual", { ops, note, expected_seq: current.length }), seatName));
}

function renderChoice(prompt) {
  // Each entry of `of` is one box (an order prompt may list the same id twice); ticking order
  // is the pick's order when the prompt is ordered.
  const spec = prompt.choose;
  const picks = [];  // indices into spec.of, in ticking order
  const form = el("div", { class: "choice" });
  const hint = spec.min === spec.max ? `exactly ${spec.min}` : `${spec.min} to ${spec.max}`;
  form.append(el("p", {}, `Choose ${hint}${spec.ordered || spec.multiset ? " (in the order you tick them)" : ""}.`));
  const submit = el("button", { type: "button", id: "submit-choice", class: "primary" }, "Submit");
  const redraw = () => {
    form.querySelectorAll("label.pick").forEach((label) => {
      const index = picks.indexOf(Number(label.dataset.index));
      label.querySelector(".order").textContent =
        index >= 0 && (spec.ordered || spec.multiset) ? index + 1 : "";
    });
    submit.disabled = picks.length < spec.min || picks.length > spec.max;
  };
  const seen = new Set();
  spec.of.forEach((id, index) => {
    if (!spec.multiset && seen.has(id)) return;
    seen.add(id);
    const box = el("input", { type: "checkbox", value: id });
    box.addEventListener("change", () => {
      if (box.checked) picks.push(index); else picks.splice(picks.indexOf(index), 1);
      redraw();
    });
    form.append(el("label", { class: "pick", "data-id": id, "data-index": index }, box,
      el("span", { class: "order" }), prompt.labels[id] || id));
  });
  submit.addEventListener("click", () => {
    const answer = prompt.answer || { type: "Answered", kind: prompt.kind };
    decide({ ...answer, pick: picks.map((i) => spec.of[i]) });
  });
  form.append(submit);
  redraw();
  return form;
}

// -- the board -------------------------------------------------------------------------------

// The groups of the pending turn that act with a card: card id -> group key.
function tappableCards() {
  const prompt = current.prompt;
  if (!prompt || prompt.kind !== "turn" || !prompt.yours || role === "judge") return new Map();
  const out = new Map();
  prompt.options.forEach((option) => {
    const key = subjectOf(option);
    if (key.startsWith("card:")) out.set(key.slice(5), key);
  });
  return out;
}

function cardLine(card, taps) {
  const bits = [card.name];
  if (card.power !== undefined) bits.push(`(${card.power})`);
  for (const [counter, count] of Object.entries(card.counters || {})) bits.push(`${counter}×${count}`);
  const key = taps.get(card.id);
  const cls = `card${card.tapped ? " tapped" : ""}`;
  if (key === undefined) return el("span", { class: cls }, bits.join(" "));
  return el("button", { type: "button", class: `${cls} pickable${picked === key ? " picked" : ""}`,
                        "data-group": key, onclick: () => pick(picked === key ? null : key) },
    bits.join(" "));
}

function sideSummary(seat, player, label, known, taps) {
  const hand = player.hand === null
    ? el("span", {}, `${player.hand_count} hidden card${player.hand_count === 1 ? "" : "s"}`)
    : el("span", { class: "hand" }, player.hand.map((card) => cardLine(card, taps)));
  const stats = [["energy", player.energy], ["actions", player.actions], ["free attacks", player.free_attacks],
                 ["stones", player.stones], ["deck", player.deck_count], ["abyss", player.abyss.length]];
  return el("div", { class: "side", "data-seat": seat },
    el("strong", {}, label),
    el("div", { class: "stats" }, stats.map(([name, value]) => el("span", {}, `${name} ${value}`))),
    el("div", { class: "hand-row" }, "Hand: ", hand),
    known.length ? el("div", { class: "known" }, "Shown to you: ", known.map((card) =>
      el("span", { class: "card" }, `${card.name} (${card.zone === "deck"
        ? `deck, ${card.position} from the top` : card.zone})`))) : "");
}

function sideLabel(seat) {
  if (role === "judge") return seatName(seat);
  return seat === role ? `You (${seatName(seat)})` : seatName(seat);
}

function renderBoard(state) {
  const b = state.board;
  const game = renderer(b);
  if (game) {
    const labels = { A: sideLabel("A"), B: sideLabel("B") };
    document.getElementById("board").replaceChildren(game.draw(b, { me: role, labels }));
    return;
  }
  const me = role === "B" ? "B" : "A";
  const them = me === "A" ? "B" : "A";
  const taps = tappableCards();
  const realmTap = current.prompt && current.prompt.kind === "turn" && role !== "judge"
    ? realmTaps(current.prompt.options, picked) : new Map();
  const realms = el("div", { class: "realms" }, b.realms.map((realm) => {
    const decision = realmTap.get(realm.number);
    const node = el("div", { class: `realm${realm.active ? "" : " locked"}${decision ? " target" : ""}`,
                             "data-realm": realm.number },
      el("h3", {}, `Realm ${realm.number} · ${realm.stones.join("/")}`),
      el("div", { class: "theirs" }, realm.cards[them].map((card) => cardLine(card, taps))),
      el("div", { class: "mine" }, realm.cards[me].map((card) => cardLine(card, taps))));
    if (decision) node.addEventListener("click", (event) => {
      if (event.target.closest("button")) return;
      decide(decision);
    });
    return node;
  }));
  const board = document.getElementById("board");
  board.replaceChildren(
    sideSummary(them, b.players[them], sideLabel(them), (b.known || {})[them] || [], taps),
    realms,
    sideSummary(me, b.players[me], sideLabel(me), (b.known || {})[me] || [], taps));
}

// -- events ----------------------------------------------------------------------------------

function short(text) {
  return text.length > 140 ? `${text.slice(0, 139)}…` : text;
}

// An event a take-back undid stays in the record: struck through, naming the take-back.
function eventLine(e) {
  if (e.undone_by === null || e.undone_by === undefined) {
    return el("li", { value: e.seq, title: e.text }, short(e.text));
  }
  const why = `undone by the take-back at event ${e.undone_by}`;
  return el("li", { value: e.seq, class: "undone", title: `${e.text} (${why})` },
    el("del", {}, short(e.text)), " ", el("small", {}, `(${why})`));
}

async function renderEvents() {
  const from = Math.max(0, current.length - 40);
  const data = await call("GET", `/events?from=${from}`);
  document.getElementById("events").replaceChildren(...data.events.slice().reverse().map((e) =>
    eventLine({ ...e, text: named(e.text) })));
}

const judge = role === "judge" ? new JudgeConsole({
  call, write, names: named, seatName, length: () => current.length, refresh: () => refresh(),
}) : null;

function statusLine(b) {
  const game = renderer(b);
  // round 0 is the set-up (rules 401-402: who goes first, shuffles, opening hands)
  const where = game ? game.status(b, { labels: { A: seatName("A"), B: seatName("B") } })
    : (b.round ? `Round ${b.round}` : "Setting up");
  const prompt = current.prompt;
  if (!prompt) return where;
  if (role !== "judge" && prompt.seat === role) return `${where} · your move`;
  return `${where} · waiting for ${seatName(prompt.seat)}`;
}

async function refresh() {
  try {
    current = await call("GET", "/state");
  } catch (failure) {
    if (!error || error.kind === "refresh") showError(failure.message, "refresh");
    return;
  }
  const b = current.board;
  const d = current.divergence;
  if (b.over) {
    ended();
    // a draw by the rules (405: stones and realms even) is "draw (tied)", not "draw (draw)"
    const why = b.reason === "draw" ? "tied" : b.reason.replace(/_/g, " ");
    setStatus(`Match over: ${b.winner ? `${seatName(b.winner)} wins` : "draw"} (${why}).`);
  } else if (d) {  // shown as recorded; the engine can't continue it
    setStatus(`The engine disagrees with the record at seq ${d.seq}, so this match can be ` +
              `viewed and downloaded but not continued: ${d.message}`, true);
  } else if (!errorStillTrue()) {
    setStatus(statusLine(b));
  }
  if (current.length === shownLength) return;
  shownLength = current.length;
  const prompt = JSON.stringify([current.prompt, b.over]);
  const promptChanged = prompt !== shownPrompt;
  shownPrompt = prompt;
  if (promptChanged) picked = null;
  renderBoard(current);
  if (promptChanged) renderPrompt(current.prompt);  // the answer being entered stays otherwise
  if (judge) {
    renderRuling();
    await judge.render(b);
  }
  await renderEvents();
  root.dataset.length = current.length;
}

// Once the match is over a seat can't concede or call the judge any more: the page offers the
// match's replay and its tournament's page instead.
function ended() {
  const actions = document.getElementById("seat-actions");
  if (actions) actions.hidden = true;
  document.getElementById("after").hidden = false;
}

function seatTools() {
  const concede = document.getElementById("concede");
  if (concede) {
    concede.addEventListener("click", () => {
      if (window.confirm(`Concede this match to ${seatName(role === "A" ? "B" : "A")}?`)) {
        decide({ type: "Conceded", reason: "conceded at the table" });
      }
    });
  }
  const callJudge = document.getElementById("call-judge");
  if (callJudge) {
    callJudge.addEventListener("click", async () => {
      const text = document.getElementById("call-text");
      await write("/judge-call", { text: text.value.trim() });
      if (!error) {
        setStatus("The judge has been called to your table.");
        text.value = "";
      }
    });
  }
}

seatTools();
refresh();
setInterval(() => { if (!busy && !(current && current.board.over)) refresh(); }, 1500);
