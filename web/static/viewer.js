// The replay viewer: steps through a match with one JSON fetch per step (cached, prefetched),
// keyboard and scrubber controls, jumps by round / turn / battle, perspectives, deep links and
// live polling.  The server decides what a perspective may see; this file only draws it.
// A board of another game than Wonders (its `game`) is drawn by that game's renderer
// (web/static/boards.js).

import { renderer } from "./boards.js";
import { drawWonders, el } from "./wotf_board.js";

const root = document.getElementById("viewer");
const matchId = root.dataset.match;
const $ = (id) => document.getElementById(id);
const base = `/matches/${encodeURIComponent(matchId)}`;

const view = {
  step: JSON.parse($("initial-step").textContent),
  timeline: JSON.parse($("initial-timeline").textContent),
  cache: new Map(),       // `${perspective}:${seq}` -> step JSON
  wanted: null,           // the latest request ({seq, perspective}) until drawn: older answers
                          // are dropped, and steps count from it (every quick press counts)
  timer: null,            // play/pause interval
  pressedAt: null,        // performance.now() of the key press being answered
  focusNote: null,        // the note a link opened (?note=K: the seq of its Annotated event)
};
{
  const asked = new URLSearchParams(location.search).get("note");
  if (asked !== null && /^\d+$/.test(asked)) view.focusNote = Number(asked);
}
view.cache.set(`${view.step.perspective}:${view.step.seq}`, view.step);

// -- drawing ------------------------------------------------------------------------------

function bottomSeat(perspective) {
  return perspective === "B" ? "B" : "A";  // "view as B" puts B at the bottom
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
  holder.replaceChildren(game.draw(step.board, { me: step.perspective, labels: playerNames() }));
}

function draw(step) {
  const b = step.board;
  const game = renderer(b);
  if (game) drawOther(step, game);
  else drawWonders($("board"), b, bottomSeat(step.perspective), seatLabels());
  const when = b.round && step.kind !== "RoundStarted" ? `Round ${b.round} — ` : "";
  const d = step.divergence;
  const here = d && d.seq === step.seq;
  $("current").textContent = `${when}${step.text}  (#${step.seq})` +
    (here ? "  ⚠ today's engine derives something else here" : "");
  $("current").title = $("current").textContent;  // the dock shows two lines at most
  $("current").classList.toggle("diverged-here", Boolean(here));
  const names = playerNames();
  // "state_destroyed": an id, in words; "draw" (rule 405: stones and realms even) reads "tied"
  const why = b.reason === "draw" ? "tied" : (b.reason || "").replace(/_/g, " ");
  const result = b.over ? (b.winner ? `${names[b.winner] || b.winner} wins (${why})` : `draw (${why})`) : "";
  $("status").textContent = game ? [step.live ? "● live" : "", game.status(b, { labels: names })].filter(Boolean).join(" · ")
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
  $("sandbox-link").href = `${base}/sandbox?seq=${step.seq}`;
  $("sandbox-link").hidden = step.live;
  $("note-seq").textContent = String(step.seq);
  const focused = (view.timeline.notes || []).find((n) => n.note === view.focusNote);
  if (!focused || focused.seq !== step.seq) view.focusNote = null;  // a note's link holds its moment only
  drawNotesHere(step.seq);
  history.replaceState(null, "", view.focusNote !== null ? `${link}&note=${view.focusNote}` : link);
}

// The players' names by seat (the status line and State of Wonder's board name them so).
function playerNames() {
  return view.timeline.players || {};
}

// Where a battle of a game without realms was fought: the defender's city, by its player
// (State of Wonder's index gives the defending seat, "A").
function cityOf(seat) {
  const name = playerNames()[seat];
  return name ? `${name}'s city` : `seat ${seat}`;
}

function seatLabels() {
  const players = view.timeline.players || {};
  return Object.fromEntries(Object.entries(players).map(([seat, name]) => [seat, `${seat} · ${name}`]));
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
  if (e.undone_by !== undefined && e.undone_by !== null) {  // struck through: a take-back undid it
    li.classList.add("undone");
    li.title = `undone by the take-back at event ${e.undone_by}`;
    li.append(el("span", "mark", `undone (#${e.undone_by})`));
  }
  li.addEventListener("click", () => go(e.seq));
  return li;
}

// -- notes: on the scrubber, under their event in the list, and beside the current event ----

function noteNode(n, tag = "div") {
  const node = el(tag, `note${n.note === view.focusNote ? " focus" : ""}`);
  node.dataset.note = n.note;
  node.dataset.about = n.seq;
  const link = el("a", "note-link", "link");
  link.href = `${base}?seq=${n.seq}&as=${encodeURIComponent(view.step.perspective)}&note=${n.note}`;
  link.title = "a link to this moment with this note";
  node.append(el("span", "note-by", `✎ ${n.name}`), " ", el("span", "note-text", n.text), " ", link);
  return node;
}

function notesAbout(seq) {
  return (view.timeline.notes || []).filter((n) => n.seq === seq);
}

function drawNotesInList() {
  const list = $("events");
  for (const old of list.querySelectorAll("li.note")) old.remove();
  for (const n of view.timeline.notes || []) {
    const target = list.querySelector(`li.ev[data-seq="${n.seq}"]`);
    if (target) target.after(noteNode(n, "li"));
  }
}

function drawNotesHere(seq) {
  const here = notesAbout(seq);
  $("notes-here").replaceChildren(...here.map((n) => noteNode(n)));
  const focused = $("notes-here").querySelector(".note.focus");
  if (focused) focused.scrollIntoView({ block: "nearest" });
}

// -- the scrubber's marks: rounds, turns, battles and notes, by seq --------------------------

function drawMarks(t) {
  const track = $("marks");
  const last = Math.max(1, t.last);
  const at = (seq) => `${(100 * seq / last).toFixed(3)}%`;
  const marks = [];
  const mark = (cls, seq, title, text) => {
    const m = el("button", `mark ${cls}`, text);
    m.type = "button";
    m.style.left = at(seq);
    m.dataset.seq = seq;
    m.title = title;
    m.tabIndex = -1;
    m.addEventListener("click", () => go(seq));
    marks.push(m);
    return m;
  };
  const rounds = t.has_rounds !== false;
  for (const x of t.turns) mark("turn", x.seq, rounds ? `round ${x.round}, turn ${x.turn} (${x.seat})` : `turn ${x.turn} (${x.seat})`);
  for (const r of t.rounds) mark("round", r.seq, `round ${r.round}`, String(r.round));
  for (const x of t.battles) mark("battle", x.seq, rounds ? `battle #${x.number}: round ${x.round}, realm ${x.realm}` : `battle #${x.number} at ${cityOf(x.realm)}`);
  for (const n of t.notes || []) mark("note", n.seq, `✎ ${n.name}: ${n.text}`).dataset.note = n.note;
  track.replaceChildren(...marks);
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
  if (!select) return;  // a menu the page leaves out (no rounds in State of Wonder)
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
  fillSelect($("jump-battle"), t.battles.map((x) => [x.seq, rounds ? `#${x.number}: round ${x.round}, realm ${x.realm}` : `#${x.number}: at ${cityOf(x.realm)}`]));
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

// The step asked for last: the one on screen, or the one still being fetched.
function requested() {
  return view.wanted || view.step;
}

async function go(seq, perspective = requested().perspective) {
  const last = view.timeline.last;
  seq = Math.max(0, Math.min(seq, last));
  const request = { seq, perspective };
  view.wanted = request;
  try {
    const step = await fetchStep(seq, perspective);
    if (view.wanted !== request) return;  // a later request superseded this one
    view.wanted = null;
    view.step = step;
    draw(step);
    prefetch(seq, perspective);
  } catch (err) {
    if (view.wanted === request) view.wanted = null;  // steps count from the drawn one again
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
  drawNotesInList();
  drawJumps(view.timeline);
  drawMarks(view.timeline);
  drawDivergence(view.timeline);
  await go(requested().seq, perspective);  // a step asked for just before the switch counts
}

// -- keyboard and buttons --------------------------------------------------------------------

function roundSeq(n) {
  const r = view.timeline.rounds.find((x) => x.round === n);
  return r ? r.seq : null;
}

// Steps count from the step asked for last, not the one on screen: quick presses each count.
const KEYS = {
  ArrowRight: () => requested().seq + 1, j: () => requested().seq + 1,
  ArrowLeft: () => requested().seq - 1, k: () => requested().seq - 1,
  Home: () => 0, End: () => view.timeline.last,
};

document.addEventListener("keydown", (event) => {
  if (event.target.closest("textarea, select, input:not([type=range])") || event.ctrlKey || event.metaKey || event.altKey) return;
  let target = null;
  if (event.key in KEYS) target = KEYS[event.key]();
  else if (/^[1-9]$/.test(event.key)) target = roundSeq(Number(event.key));
  else if (event.key === " ") { event.preventDefault(); play(view.timer === null); return; }
  if (target === null) return;
  event.preventDefault();
  const clamped = Math.max(0, Math.min(target, view.timeline.last));
  if (clamped === requested().seq) return;
  view.pressedAt = performance.now();
  go(clamped);
});

$("first").addEventListener("click", () => go(0));
$("prev").addEventListener("click", () => go(requested().seq - 1));
$("next").addEventListener("click", () => go(requested().seq + 1));
$("last").addEventListener("click", () => go(view.timeline.last));
$("play").addEventListener("click", () => play(view.timer === null));
$("speed").addEventListener("change", () => { if (view.timer !== null) play(true); });
$("scrubber").addEventListener("input", (e) => go(Number(e.target.value)));
for (const id of ["jump-round", "jump-turn", "jump-battle"]) {
  if ($(id)) $(id).addEventListener("change", (e) => { if (e.target.value !== "—") go(Number(e.target.value)); e.target.blur(); });
}
$("perspective").addEventListener("change", (e) => { switchPerspective(e.target.value); e.target.blur(); });

// -- swipe to step (phones): left = next, right = previous ----------------------------------

{
  let start = null;
  $("board").addEventListener("touchstart", (e) => {
    const t = e.changedTouches[0];
    start = { x: t.clientX, y: t.clientY, at: performance.now() };
  }, { passive: true });
  $("board").addEventListener("touchend", (e) => {
    if (start === null) return;
    const t = e.changedTouches[0];
    const dx = t.clientX - start.x, dy = t.clientY - start.y;
    start = null;
    if (Math.abs(dx) < 40 || Math.abs(dx) < 1.5 * Math.abs(dy)) return;  // a scroll, not a swipe
    view.pressedAt = performance.now();
    go(requested().seq + (dx < 0 ? 1 : -1));
  }, { passive: true });
}

// -- adding a note (judge or organizer token; a seat's once the match has ended) ------------

$("note-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const out = $("note-result");
  const token = $("note-token").value.trim();
  const body = { seq: view.step.seq, text: $("note-text").value.trim() };
  if ($("note-name").value.trim()) body.name = $("note-name").value.trim();
  out.textContent = "";
  const response = await fetch(`/api/matches/${encodeURIComponent(matchId)}/annotations`, {
    method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) { out.textContent = answer.message || response.statusText; out.className = "error"; return; }
  out.textContent = "Note added.";
  out.className = "muted";
  $("note-text").value = "";
  view.focusNote = answer.events[0].seq;
  view.cache.clear();  // the log grew: every step's `last` changed
  await switchPerspective(view.step.perspective);  // the list, the marks and the notes again
});

// -- live matches ----------------------------------------------------------------------------

async function poll() {
  if (!view.timeline.live) return;
  const t = view.timeline;
  try {
    let response = await fetch(`${base}/timeline?as=${t.perspective}&from=${t.last + 1}`);
    let fresh = response.ok ? await response.json() : null;
    // A take-back undid events already listed: the whole list again, each with its undone_by
    // (and the round of the state it returned to).
    const retaken = fresh !== null && fresh.events.some((e) => e.kind === "TakenBack");
    if (retaken) {
      response = await fetch(`${base}/timeline?as=${t.perspective}&from=0`);
      fresh = response.ok ? await response.json() : null;
    }
    if (fresh !== null) {
      const following = requested().seq === t.last;  // a press still being fetched counts
      if (fresh.last !== t.last || !fresh.live) view.cache.clear();  // steps carry live/last
      if (retaken) {
        $("events").replaceChildren();
        delete $("events").dataset.round;
      }
      appendEvents(fresh.events);
      if (!retaken) fresh.events = t.events.concat(fresh.events);
      view.timeline = fresh;
      drawNotesInList();
      drawJumps(fresh);
      drawMarks(fresh);
      drawDivergence(fresh);
      if (!fresh.live) for (const o of $("perspective").options) o.disabled = false;
      if (following && fresh.last !== t.last) await go(fresh.last);
      else if (fresh.last !== t.last || !fresh.live) await go(requested().seq);
    }
  } finally {
    if (view.timeline.live) setTimeout(poll, 1000);
  }
}

// The dock (current event, scrubber, controls) stays in view; the event list fits below it.
new ResizeObserver(() => {
  document.documentElement.style.setProperty("--dock-h", `${$("dock").offsetHeight}px`);
}).observe($("dock"));

appendEvents(view.timeline.events);
drawNotesInList();
drawJumps(view.timeline);
drawMarks(view.timeline);
drawDivergence(view.timeline);
draw(view.step);
prefetch(view.step.seq, view.step.perspective);
if (view.timeline.live) setTimeout(poll, 1000);
