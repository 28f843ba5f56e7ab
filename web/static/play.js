// The /play table page: shows the board from this seat's side (the judge sees everything),
// and the pending prompt as buttons (listed options) or checkboxes (choose N cards).
// Talks to the JSON API with the page's session; writes carry the CSRF token.  A board of
// another game than Wonders (its `game`) is drawn by that game's renderer (boards.js); the
// prompt is drawn from its options / `choose` alone, whatever the game.

import { renderer } from "./boards.js";
import { manualForm } from "./manual.js";
import { cardEntryForm } from "./cardentry.js";  // R34: a catalogue card's printed stats

const root = document.getElementById("play");
const matchId = root.dataset.match;
const role = root.dataset.role;
const csrf = root.dataset.csrf;
const api = `/api/matches/${encodeURIComponent(matchId)}`;
let current = null;   // the last StateOut
let busy = false;
let shownLength = -1; // re-render only when the match moved (keeps ticked boxes while polling)

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function setStatus(text, isError = false) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
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
  if (!response.ok) throw new Error(`${data.message || data.error} (HTTP ${response.status})`);
  return data;
}

async function write(path, body) {
  if (busy) return;
  busy = true;
  try {
    await call("POST", path, body);
    setStatus("recorded");
  } catch (error) {
    setStatus(error.message, true);
  } finally {
    busy = false;
    await refresh();
  }
}

function decide(decision) {
  return write("/decisions", { expected_seq: current.length, decision });
}

// -- the prompt ------------------------------------------------------------------------------

function renderPrompt(prompt) {
  const box = document.getElementById("prompt");
  box.replaceChildren();
  if (!prompt) {
    box.className = "waiting";
    box.append(el("p", {}, "Nothing is pending."));
    return;
  }
  const mine = prompt.yours && role !== "judge";
  box.className = mine ? "" : "waiting";
  const who = prompt.seat === role ? "You" : `Seat ${prompt.seat}`;
  box.append(el("p", { class: "question" }, `${who} — ${prompt.kind}: ${prompt.text}`));
  if (!mine) {
    box.append(el("p", {}, role === "judge" ? "Waiting for the seat to decide." : "Waiting for your opponent."));
    return;
  }
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
      "No answer to this prompt is offered here; ask the judge (or answer it through the API)."));
  }
  const row = el("div", { class: "options" });
  prompt.options.forEach((option) => {
    row.append(el("button", { type: "button", class: "option", onclick: () => decide(option.decision) },
      option.label));
  });
  box.append(row);
}

function renderManual(prompt) {
  // An unscripted card's text: the seat enters what it did, operation by operation (manual.js).
  return manualForm(current.board, role, (ops) =>
    decide({ type: "ManualResolved", card: prompt.card, ops }));
}

function renderRuling() {
  // The judge's ruling: any operation, entered with the form (POST …/manual).
  const box = document.getElementById("ruling");
  if (!box || current.board.over) return;
  box.replaceChildren(manualForm(current.board, "judge", (ops, note) =>
    write("/manual", { ops, note, expected_seq: current.length })));
}

function renderChoice(prompt) {
  // Each entry of `of` is one box (an order prompt may list the same id twice); ticking order
  // is the pick's order when the prompt is ordered.
  const spec = prompt.choose;
  const picked = [];  // indices into spec.of, in ticking order
  const form = el("div", { class: "choice" });
  const hint = spec.min === spec.max ? `exactly ${spec.min}` : `${spec.min} to ${spec.max}`;
  form.append(el("p", {}, `Choose ${hint}${spec.ordered || spec.multiset ? " (in the order you tick them)" : ""}.`));
  const submit = el("button", { type: "button", id: "submit-choice", class: "primary" }, "Submit");
  const redraw = () => {
    form.querySelectorAll("label.pick").forEach((label) => {
      const index = picked.indexOf(Number(label.dataset.index));
      label.querySelector(".order").textContent =
        index >= 0 && (spec.ordered || spec.multiset) ? index + 1 : "";
    });
    submit.disabled = picked.length < spec.min || picked.length > spec.max;
  };
  const seen = new Set();
  spec.of.forEach((id, index) => {
    if (!spec.multiset && seen.has(id)) return;
    seen.add(id);
    const box = el("input", { type: "checkbox", value: id });
    box.addEventListener("change", () => {
      if (box.checked) picked.push(index); else picked.splice(picked.indexOf(index), 1);
      redraw();
    });
    form.append(el("label", { class: "pick", "data-id": id, "data-index": index }, box,
      el("span", { class: "order" }), prompt.labels[id] || id));
  });
  submit.addEventListener("click", () => {
    const answer = prompt.answer || { type: "Answered", kind: prompt.kind };
    decide({ ...answer, pick: picked.map((i) => spec.of[i]) });
  });
  form.append(submit);
  redraw();
  return form;
}

// -- the board -------------------------------------------------------------------------------

function cardLine(card) {
  const bits = [card.name];
  if (card.power !== undefined) bits.push(`(${card.power})`);
  for (const [counter, count] of Object.entries(card.counters || {})) bits.push(`${counter}×${count}`);
  return el("span", { class: `card${card.tapped ? " tapped" : ""}`, title: card.id }, bits.join(" "));
}

function sideSummary(seat, player, label, known = []) {
  const hand = player.hand === null
    ? el("span", {}, `${player.hand_count} hidden card(s)`)
    : el("span", { class: "hand" }, player.hand.map(cardLine));
  return el("div", { class: "side", "data-seat": seat },
    el("strong", {}, `${label} (${seat})`),
    ` energy ${player.energy} · actions ${player.actions} · free attacks ${player.free_attacks}`
      + ` · stones ${player.stones} · deck ${player.deck_count} · abyss ${player.abyss.length}`,
    el("div", {}, "Hand: ", hand),
    known.length ? el("div", { class: "known" }, "Shown to you: ", known.map((card) =>
      el("span", { class: "card" }, `${card.name} (${card.zone === "deck"
        ? `deck, ${card.position} from the top` : card.zone})`))) : "");
}

function renderBoard(state) {
  const b = state.board;
  const game = renderer(b);
  if (game) {
    const labels = role === "judge" ? {} : { [role]: "You", [role === "A" ? "B" : "A"]: "Opponent" };
    document.getElementById("board").replaceChildren(game.draw(b, { me: role, labels }));
    return;
  }
  const me = role === "B" ? "B" : "A";
  const them = me === "A" ? "B" : "A";
  const realms = el("div", { class: "realms" }, b.realms.map((realm) =>
    el("div", { class: `realm${realm.active ? "" : " locked"}`, "data-realm": realm.number },
      el("h3", {}, `Realm ${realm.number} · ${realm.stones.join("/")}`),
      el("div", { class: "theirs" }, realm.cards[them].map(cardLine)),
      el("div", { class: "mine" }, realm.cards[me].map(cardLine)))));
  const board = document.getElementById("board");
  board.replaceChildren(
    sideSummary(them, b.players[them], role === "judge" ? "Seat" : "Opponent", (b.known || {})[them]),
    realms,
    sideSummary(me, b.players[me], role === "judge" ? "Seat" : "You", (b.known || {})[me]));
}

// -- events and take-back --------------------------------------------------------------------

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
  const list = document.getElementById("events");
  list.replaceChildren(...data.events.slice().reverse().map(eventLine));
  const history = document.getElementById("history");
  if (!history) return;
  const ends = data.events.filter((e) => e.seq === e.batch && e.seq < current.length - 1 &&
                                         (e.undone_by === null || e.undone_by === undefined));
  history.replaceChildren(...ends.reverse().map((e) =>
    el("li", { value: e.seq }, el("button", { type: "button", class: "takeback", "data-seq": e.seq,
      onclick: () => write("/takeback", { to_seq: e.seq, reason: "judge take-back from /play",
                                          expected_seq: current.length }) }, "take back to here"),
      " ", short(e.text))));
}

async function refresh() {
  try {
    current = await call("GET", "/state");
  } catch (error) {
    setStatus(error.message, true);
    return;
  }
  const b = current.board;
  const d = current.divergence;
  if (b.over) {
    setStatus(`Match over: ${b.winner ? `${b.winner} wins` : "draw"} (${b.reason}).`);
  } else if (d) {  // shown as recorded; the engine can't continue it
    setStatus(`The engine disagrees with the record at seq ${d.seq}, so this match can be ` +
              `viewed and downloaded but not continued: ${d.message}`, true);
  } else if (!document.getElementById("status").classList.contains("error")) {
    const game = renderer(b);
    setStatus(`${game ? game.status(b) : `Round ${b.round}`} · seq ${current.seq}`);
  }
  if (current.length === shownLength) return;
  shownLength = current.length;
  renderPrompt(current.prompt);
  renderBoard(current);
  if (role === "judge") renderRuling();
  await renderEvents();
  root.dataset.length = current.length;
}

const concede = document.getElementById("concede");
if (concede) {
  concede.addEventListener("click", () => {
    if (window.confirm("Concede this match?")) decide({ type: "Conceded", reason: "conceded at the table" });
  });
}

refresh();
setInterval(() => { if (!busy && !(current && current.board.over)) refresh(); }, 1500);
