// The replay viewer: steps through a match with one JSON fetch per step (cached, prefetched),
// keyboard and scrubber controls, jumps by round / turn / battle, perspectives, deep links and
// live polling.  The server decides what a perspective may see; this file only draws it.
// A board of another game than Wonders (its `game`) is drawn by that game's renderer
// (web/static/boards.js).

import { renderer } from "./boards.js";

const root = document.getElementById("viewer");
const matchId = root.dataset.match;
const $ = (id) => document.getElementById(id);
const base = `/matches/${encodeURIComponent(matchId)}`;

const view = {
  step: JSON.parse($("initial-step").textContent),
  timeline: JSON.parse($("initial-timeline").textContent),
  cache: new Map(),       // `${perspective}:${seq}` -> step JSON
  wanted: null,           // the seq the latest request asked for (older answers are dropped)
  timer: null,            // play/pause interval
  pressedAt: null,        // performance.now() of the key press being answered
};
view.cache.set(`${view.step.perspective}:${view.step.seq}`, view.step);

// -- drawing ------------------------------------------------------------------------------

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function num(x) {
  return Number.isInteger(x) ? String(x) : (Math.round(x * 100) / 100).toString();
}

function cardNode(card, names) {
  const node = el("div", `card ${card.type}${card.tapped ? " tapped" : ""}${card.token ? " token" : ""}`);
  node.dataset.card = card.id;
  const head = el("div", "card-head");
  head.append(el("span", "name", card.name));
  if ("power" in card) head.append(el("span", "power", num(card.power)));
  node.append(head);
  const bits = [card.type + (card.token ? " token" : "")];
  if (card.tapped) bits.push("tapped");
  for (const [name, n] of Object.entries(card.counters || {})) bits.push(`${name} ×${n}`);
  if (card.equipped_to) bits.push(`equipped to ${names[card.equipped_to] || card.equipped_to}`);
  if (card.keywords && card.keywords.length) bits.push(card.keywords.join(", "));
  node.append(el("div", "card-meta", bits.join(" · ")));
  node.title = `${card.name} (${card.orbital}, cost ${card.cost})`;
  return node;
}

function stoneLabel(stone) {
  return stone === "A" || stone === "B" ? stone : "center";
}

function drawRealms(board) {
  const names = {};
  for (const realm of board.realms) for (const side of ["A", "B"]) for (const c of realm.cards[side]) names[c.id] = c.name;
  const realms = [];
  for (const realm of board.realms) {
    const node = el("div", `realm${realm.active ? "" : " locked"}`);
    node.dataset.realm = realm.number;
    const head = el("div", "realm-head");
    head.append(el("span", "realm-no", `Realm ${realm.number}`));
    head.append(el("span", "lock", realm.active ? "" : "locked"));
    const stones = el("div", "stones");
    for (const stone of realm.stones) {
      const s = el("span", `stone stone-${stoneLabel(stone)}`, stoneLabel(stone));
      stones.append(s);
    }
    node.dataset.stones = realm.stones.join(",");
    node.append(head, stones);
    for (const side of ["B", "A"]) {
      const col = el("div", `side side-${side}`);
      col.dataset.side = side;
      for (const card of realm.cards[side]) col.append(cardNode(card, names));
      node.append(col);
    }
    realms.push(node);
  }
  $("realms").replaceChildren(...realms);
}

function drawSeat(board, seat) {
  const p = board.players[seat];
  const panel = $(`seat-${seat}`);
  const turn = board.turn === seat && !board.over ? " · to act" : "";
  const head = el("div", "seat-head");
  head.append(el("strong", `seat-${seat}`, `${seat}${turn}`));
  const stats = [["energy", num(p.energy)], ["actions", p.actions], ["free attacks", p.free_attacks],
                 ["faith", num(p.faith)], ["stones", p.stones], ["deck", p.deck_count],
                 ["abyss", p.abyss.length], ["hand", p.hand_count]];
  for (const [name, value] of stats) {
    const s = el("span", "stat");
    s.dataset.stat = name.replace(" ", "_");
    s.append(el("span", "label", name), el("b", null, value));
    head.append(s);
  }
  const hand = el("div", "hand");
  hand.dataset.count = p.hand_count;
  if (p.hand === null) {
    hand.classList.add("hidden-hand");
    for (let i = 0; i < p.hand_count; i++) hand.append(el("div", "card back", "?"));
  } else {
    for (const card of p.hand) hand.append(cardNode(card, {}));
  }
  panel.replaceChildren(head, hand);
}

function drawEventMarks(seq) {
  const list = $("events");
  const old = list.querySelector("li.now");
  if (old) old.classList.remove("now");
  const now = list.querySelector(`li[data-seq="${seq}"]`);
  if (now) {
    now.classList.add("now");
    const box = list.parentElement;  // scroll the event list only, never the page
    const top = now.offsetTop;  // the aside is the offset parent (position: relative)
    if (top < box.scrollTop || top + now.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = top - box.clientHeight / 2;
    }
  }
}

function drawOther(step, game) {
  const stage = $("board");
  let holder = $("game-board");
  if (!holder) {
    holder = el("div", "game-board");
    holder.id = "game-board";
    stage.replaceChildren(holder);
  }
  holder.replaceChildren(game.draw(step.board, { me: step.perspective }));
}

function draw(step) {
  const b = step.board;
  const game = renderer(b);
  if (game) drawOther(step, game);
  else {
    drawRealms(b);
    drawSeat(b, "A");
    drawSeat(b, "B");
  }
  const when = b.round && step.kind !== "RoundStarted" ? `Round ${b.round} — ` : "";
  const d = step.divergence;
  const here = d && d.seq === step.seq;
  $("current").textContent = `${when}${step.text}  (#${step.seq})` +
    (here ? "  ⚠ today's engine derives something else here" : "");
  $("current").classList.toggle("diverged-here", Boolean(here));
  const result = b.over ? (b.winner ? `${b.winner} wins (${b.reason})` : `draw (${b.reason})`) : "";
  $("status").textContent = game ? [step.live ? "● live" : "", game.status(b)].filter(Boolean).join(" · ")
    : [step.live ? "● live" : "", `round ${b.round || "–"}`,
       b.phase ? `phase ${b.phase}` : "", result].filter(Boolean).join(" · ");
  $("scrubber").max = String(view.timeline.last);
  $("scrubber").value = String(step.seq);
  $("position").textContent = `event ${step.seq} of ${view.timeline.last}`;
  drawEventMarks(step.seq);
  const board = $("board");
  board.classList.toggle("after-divergence", Boolean(d && step.seq >= d.seq));
  board.dataset.perspective = step.perspective;
  board.dataset.seq = String(step.seq);  // last: tests and timings wait for this
  if (view.pressedAt !== null) {
    board.dataset.renderMs = (performance.now() - view.pressedAt).toFixed(2);
    view.pressedAt = null;
  }
  const link = `${base}?seq=${step.seq}&as=${step.perspective}`;
  $("deeplink").href = link;
  history.replaceState(null, "", link);
}

// -- the divergence mark: where today's engine disagrees with the record ---------------------

function drawDivergence(t) {
  const d = t.divergence;
  let banner = $("divergence");
  for (const li of $("events").querySelectorAll("li.diverged")) {
    li.classList.remove("diverged");
    li.querySelector(".mark")?.remove();
  }
  if (!d) { if (banner) banner.remove(); return; }
  if (!banner) {
    banner = el("p", "diverged");
    banner.id = "divergence";
    banner.setAttribute("role", "alert");
    root.querySelector(".titlebar").append(banner);
  }
  banner.dataset.seq = String(d.seq);
  const jump = el("a", null, `event #${d.seq}`);
  jump.id = "divergence-jump";
  jump.href = `${base}?seq=${d.seq}&as=${encodeURIComponent(t.perspective)}`;
  jump.addEventListener("click", (e) => { e.preventDefault(); go(d.seq); });
  banner.replaceChildren("⚠ Today's engine disagrees with this record at ", jump,
    `: ${d.message}. The match is shown as recorded (and can be downloaded).`);
  const li = $("events").querySelector(`li[data-seq="${d.seq}"]`);
  if (li) {
    li.classList.add("diverged");
    li.append(el("span", "mark", "⚠ diverges"));
  }
}

// -- the event list and the jump menus ------------------------------------------------------

function eventItem(e) {
  const li = el("li", `ev ev-${e.kind}`);
  li.dataset.seq = e.seq;
  li.append(el("span", "seq", e.seq), el("span", "text", e.text));
  li.addEventListener("click", () => go(e.seq));
  return li;
}

function appendEvents(events) {
  const list = $("events");
  let lastRound = list.dataset.round ? Number(list.dataset.round) : -1;
  const items = [];
  for (const e of events) {
    if (e.round !== lastRound && view.timeline.has_rounds !== false) {
      items.push(el("li", "round-head", e.round ? `Round ${e.round}` : "Before round 1"));
      lastRound = e.round;
    }
    items.push(eventItem(e));
  }
  list.dataset.round = String(lastRound);
  list.append(...items);
}

function fillSelect(select, options) {
  const keep = select.value;
  select.replaceChildren(el("option", null, "—"), ...options.map(([value, label]) => {
    const o = el("option", null, label);
    o.value = String(value);
    return o;
  }));
  select.value = keep && [...select.options].some((o) => o.value === keep) ? keep : "—";
}

function drawJumps(t) {
  fillSelect($("jump-round"), t.rounds.map((r) => [r.seq, `round ${r.round}`]));
  const rounds = t.has_rounds !== false;  // a game without rounds (State of Wonder) counts turns only
  fillSelect($("jump-turn"), t.turns.map((x) => [x.seq, rounds ? `round ${x.round}, turn ${x.turn} (${x.seat})` : `turn ${x.turn} (${x.seat})`]));
  fillSelect($("jump-battle"), t.battles.map((x) => [x.seq, rounds ? `#${x.number}: round ${x.round}, realm ${x.realm}` : `#${x.number}: at ${x.realm}`]));
  const allowed = new Set(t.perspectives);
  for (const o of $("perspective").options) o.disabled = !allowed.has(o.value);
}

// -- moving ---------------------------------------------------------------------------------

async function fetchStep(seq, perspective) {
  const key = `${perspective}:${seq}`;
  if (view.cache.has(key)) return view.cache.get(key);
  const response = await fetch(`${base}/step?seq=${seq}&as=${encodeURIComponent(perspective)}`);
  if (!response.ok) throw new Error((await response.json()).message || response.statusText);
  const step = await response.json();
  if (view.cache.size > 2000) view.cache.clear();
  view.cache.set(key, step);
  return step;
}

async function go(seq, perspective = view.step.perspective) {
  const last = view.timeline.last;
  seq = Math.max(0, Math.min(seq, last));
  view.wanted = `${perspective}:${seq}`;
  try {
    const step = await fetchStep(seq, perspective);
    if (view.wanted !== `${perspective}:${seq}`) return;  // a later request superseded this one
    view.step = step;
    draw(step);
    prefetch(seq, perspective);
  } catch (err) {
    $("current").textContent = `error: ${err.message}`;
  }
}

function prefetch(seq, perspective) {
  for (const next of [seq + 1, seq - 1]) {
    if (next >= 0 && next <= view.timeline.last) fetchStep(next, perspective).catch(() => {});
  }
}

function play(on) {
  clearInterval(view.timer);
  view.timer = null;
  $("play").textContent = on ? "⏸ pause" : "▶ play";
  if (!on) return;
  view.timer = setInterval(() => {
    if (view.step.seq >= view.timeline.last) { if (!view.timeline.live) play(false); return; }
    go(view.step.seq + 1);
  }, Number($("speed").value));
}

async function switchPerspective(perspective) {
  const response = await fetch(`${base}/timeline?as=${encodeURIComponent(perspective)}`);
  if (!response.ok) { $("current").textContent = `error: ${response.statusText}`; return; }
  view.timeline = await response.json();
  $("events").replaceChildren();
  delete $("events").dataset.round;
  appendEvents(view.timeline.events);
  drawJumps(view.timeline);
  drawDivergence(view.timeline);
  await go(view.step.seq, perspective);
}

// -- keyboard and buttons --------------------------------------------------------------------

function roundSeq(n) {
  const r = view.timeline.rounds.find((x) => x.round === n);
  return r ? r.seq : null;
}

const KEYS = {
  ArrowRight: () => view.step.seq + 1, j: () => view.step.seq + 1,
  ArrowLeft: () => view.step.seq - 1, k: () => view.step.seq - 1,
  Home: () => 0, End: () => view.timeline.last,
};

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input[type=text], select") || event.ctrlKey || event.metaKey || event.altKey) return;
  let target = null;
  if (event.key in KEYS) target = KEYS[event.key]();
  else if (/^[1-9]$/.test(event.key)) target = roundSeq(Number(event.key));
  else if (event.key === " ") { event.preventDefault(); play(view.timer === null); return; }
  if (target === null) return;
  event.preventDefault();
  const clamped = Math.max(0, Math.min(target, view.timeline.last));
  if (clamped === view.step.seq) return;
  view.pressedAt = performance.now();
  go(clamped);
});

$("first").addEventListener("click", () => go(0));
$("prev").addEventListener("click", () => go(view.step.seq - 1));
$("next").addEventListener("click", () => go(view.step.seq + 1));
$("last").addEventListener("click", () => go(view.timeline.last));
$("play").addEventListener("click", () => play(view.timer === null));
$("speed").addEventListener("change", () => { if (view.timer !== null) play(true); });
$("scrubber").addEventListener("input", (e) => go(Number(e.target.value)));
for (const id of ["jump-round", "jump-turn", "jump-battle"]) {
  $(id).addEventListener("change", (e) => { if (e.target.value !== "—") go(Number(e.target.value)); e.target.blur(); });
}
$("perspective").addEventListener("change", (e) => { switchPerspective(e.target.value); e.target.blur(); });

// -- live matches ----------------------------------------------------------------------------

async function poll() {
  if (!view.timeline.live) return;
  const t = view.timeline;
  try {
    const response = await fetch(`${base}/timeline?as=${t.perspective}&from=${t.last + 1}`);
    if (response.ok) {
      const fresh = await response.json();
      const following = view.step.seq === t.last;
      if (fresh.last !== t.last || !fresh.live) view.cache.clear();  // steps carry live/last
      appendEvents(fresh.events);
      fresh.events = t.events.concat(fresh.events);
      view.timeline = fresh;
      drawJumps(fresh);
      drawDivergence(fresh);
      if (!fresh.live) for (const o of $("perspective").options) o.disabled = false;
      if (following && fresh.last !== t.last) await go(fresh.last);
      else if (fresh.last !== t.last || !fresh.live) await go(view.step.seq);
    }
  } finally {
    if (view.timeline.live) setTimeout(poll, 1000);
  }
}

appendEvents(view.timeline.events);
drawJumps(view.timeline);
drawDivergence(view.timeline);
draw(view.step);
prefetch(view.step.seq, view.step.perspective);
if (view.timeline.live) setTimeout(poll, 1000);
