// The judge's console on the /play page: the calls for the judge not yet answered, take-back
// to any batch end of the match with a confirmation that lists what will be undone, endings
// (a concession, a game loss -- a penalty recorded as its own event --, or a draw, agreed by
// both players or at time, recorded as the judge's DrawGiven), notes.  Rulings use
// the manual operations form (manual.js), drawn by play.js.
//
// The console reads the whole match (every event, page by page, kept as they come: the log is
// append-only) and follows take-backs itself to know which events still count ("the line").

import { el } from "./playturn.js";

const JUDGE_ACTS = new Set(["JudgeNote", "TakenBack", "ManualEffect", "GameLossGiven", "DrawGiven"]);
const QUIET = new Set(["JudgeNote", "JudgeCalled", "Annotated"]);  // batches a take-back need not offer
const SHOWN_UNDONE = 60;  // the confirmation lists at most this many undone events, then a count

// Events of the current line (take-backs left out): a take-back returns to the state after its
// `to_seq`, so the line after it is the line as it stood after `to_seq` (ledger/line.py, as the
// board's fold): each event follows the one before it, a take-back follows its `to_seq`.
export function currentLine(events) {
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  const line = [];
  let seq = events.length ? events[events.length - 1].seq : -1;
  while (bySeq.has(seq)) {
    const e = bySeq.get(seq);
    const to = e.event.type === "TakenBack" ? e.event.to_seq : null;
    if (to !== null && Number.isInteger(to) && to >= 0 && to < seq) {
      seq = to;
      continue;
    }
    if (e.event.type !== "TakenBack") line.push(e);
    seq -= 1;
  }
  return line.reverse();
}

// The calls made since the judge last acted (a note, a take-back, a ruling, a game loss).
export function openCalls(events) {
  let calls = [];
  for (const e of events) {
    if (e.event.type === "JudgeCalled") calls.push(e);
    else if (JUDGE_ACTS.has(e.event.type)) calls = [];
  }
  return calls;
}

// The points a take-back may return to: ends of batches on the current line (the last one is
// now), each with the events taking back to it would undo.
export function takeBackPoints(line) {
  const points = [];
  line.forEach((e, index) => {
    if (e.seq !== e.batch || index === line.length - 1 || e.seq === 0) return;
    const undone = line.slice(index + 1);
    if (undone.every((x) => QUIET.has(x.event.type))) return;
    if (QUIET.has(e.event.type)) return;  // the same point as the batch before the note
    points.push({ seq: e.seq, undone });
  });
  return points.reverse();  // the latest first
}

// A take-back row's words after "Undo": the first undone event's sentence (a State of Wonder
// sentence ends with a full stop: dropped, the row goes on) and how many later batches go too.
export function undoLabel(text, later) {
  const said = text.replace(/\.$/, "");
  if (later < 1) return said;
  return `${said}, and ${later} later ${later === 1 ? "batch" : "batches"}`;
}

export class JudgeConsole {
  // `ctx`: {call(method, path, body), write(path, body), names(text), seatName(seat),
  //         length(), refresh()}
  constructor(ctx) {
    this.ctx = ctx;
    this.events = [];
    this.confirming = null;  // the take-back point whose confirmation is open
    this.reason = "";  // its reason as typed so far (kept when the list is redrawn)
  }

  async load() {
    let from = this.events.length;
    for (;;) {
      const page = await this.ctx.call("GET", `/events?from=${from}&limit=2000`);
      this.events.push(...page.events);
      if (!page.has_more) break;
      from = page.next_seq;
    }
  }

  async render(board) {
    await this.load();
    this.renderCalls();
    this.renderHistory(board);
    this.renderEnding(board);
    this.renderNote(board);
  }

  renderCalls() {
    const box = document.getElementById("calls");
    const calls = openCalls(this.events);
    box.hidden = !calls.length;
    if (!calls.length) {
      box.replaceChildren();
      return;
    }
    box.replaceChildren(
      el("h2", {}, "Called to the table"),
      el("ul", {}, calls.map((c) => el("li", { class: "call", "data-seat": c.event.seat },
        `${this.ctx.seatName(c.event.seat)} calls the judge`, c.event.text ? `: ${c.event.text}` : ""))),
      el("button", { type: "button", id: "answer-call", class: "primary", onclick: () =>
        this.ctx.write("/notes", { text: `The judge answers the call of ${calls.map((c) =>
          this.ctx.seatName(c.event.seat)).join(" and ")}.`, expected_seq: this.ctx.length() }) },
      "On my way (note it)"));
  }

  describe(e) {
    return this.ctx.names(e.text);
  }

  renderHistory(board) {
    const list = document.getElementById("history");
    const points = board.over ? [] : takeBackPoints(currentLine(this.events));
    const typing = list.contains(document.activeElement);  // the confirmation's reason
    list.replaceChildren(...points.map((point) => this.pointRow(point)));
    if (typing) list.querySelector(".confirm input[name=reason]")?.focus();
    if (!points.length) list.append(el("li", { class: "none" }, board.over
      ? "The match has ended: its record is final." : "Nothing to take back yet."));
  }

  pointRow(point) {
    const first = point.undone.find((e) => !QUIET.has(e.event.type)) || point.undone[0];
    const batches = new Set(point.undone.map((e) => e.batch)).size;
    const row = el("li", { class: "point", "data-seq": point.seq },
      el("button", { type: "button", class: "takeback", "data-seq": point.seq,
                     onclick: () => this.confirm(point) }, "Undo"),
      " ", el("span", { class: "undo-label" }, undoLabel(this.describe(first), batches - 1)));
    if (this.confirming === point.seq) row.append(this.confirmation(point));
    return row;
  }

  confirm(point) {
    if (this.confirming !== point.seq) this.reason = "";
    this.confirming = point.seq;
    this.renderHistory({ over: false });
    document.querySelector("#history .confirm")?.scrollIntoView({ block: "nearest" });
  }

  confirmation(point) {
    const shown = point.undone.slice(0, SHOWN_UNDONE);
    const reason = el("input", { type: "text", name: "reason", maxlength: "500",
                                 placeholder: "why (recorded with the take-back)" });
    reason.value = this.reason;
    reason.addEventListener("input", () => { this.reason = reason.value; });
    return el("div", { class: "confirm", role: "alertdialog" },
      el("p", {}, `Take the match back to event ${point.seq}? This undoes ${point.undone.length} event${point.undone.length === 1 ? "" : "s"}:`),
      el("ol", { class: "undone", start: String(point.undone[0].seq) },
        shown.map((e) => el("li", { value: String(e.seq) }, this.describe(e)))),
      point.undone.length > shown.length
        ? el("p", {}, `… and ${point.undone.length - shown.length} more.`) : "",
      el("label", {}, "Reason ", reason),
      el("div", { class: "options" },
        el("button", { type: "button", id: "confirm-takeback", class: "primary danger-fill", onclick: () => {
          this.confirming = null;
          this.ctx.write("/takeback", { to_seq: point.seq, expected_seq: this.ctx.length(),
                                        reason: reason.value || "judge take-back from /play" });
        } }, "Take back"),
        el("button", { type: "button", class: "cancel", onclick: () => {
          this.confirming = null;
          this.renderHistory({ over: false });
        } }, "Cancel")));
  }

  renderEnding(board) {
    const box = document.getElementById("ending");
    if (board.over) {
      box.replaceChildren(el("p", {}, "The match has ended."));
      return;
    }
    if (box.dataset.drawn) return;  // keep what the judge is typing while the page polls
    box.dataset.drawn = "1";
    const seat = el("select", { name: "seat" },
      ["A", "B"].map((s) => el("option", { value: s }, this.ctx.seatName(s))));
    // A draw (docs/rulings.md R45) names no seat: the seat list hides while one is chosen.
    const kind = el("select", { name: "kind" },
      el("option", { value: "concession" }, "concedes"),
      el("option", { value: "game_loss" }, "gets a game loss (penalty)"),
      el("option", { value: "draw:agreed" }, "Draw: both players agree"),
      el("option", { value: "draw:time" }, "Draw at time: the round's time ran out"));
    const isDraw = () => kind.value.startsWith("draw:");
    const reason = el("input", { type: "text", name: "reason", maxlength: "500", placeholder: "reason" });
    const confirmBox = el("div", { class: "confirm", hidden: "" });
    kind.addEventListener("change", () => {
      seat.hidden = isDraw();
      confirmBox.hidden = true;  // the sentence to confirm is another one now
    });
    const sentence = () => {
      const why = reason.value ? ` (${reason.value})` : "";
      if (kind.value === "draw:agreed") {
        return `${this.ctx.seatName("A")} and ${this.ctx.seatName("B")} draw: both players agree to it${why}. ` +
               "Ask both of them first. The match ends with no winner and its record becomes final.";
      }
      if (kind.value === "draw:time") {
        return `${this.ctx.seatName("A")} and ${this.ctx.seatName("B")} draw at time: the round's time ran ` +
               `out with the match unfinished${why}. The match ends with no winner and its record becomes final.`;
      }
      const loser = this.ctx.seatName(seat.value);
      const winner = this.ctx.seatName(seat.value === "A" ? "B" : "A");
      const how = kind.value === "game_loss" ? "a game loss" : "concession";
      return `${loser} loses by ${how}${why}; ${winner} wins. The match ends and its record becomes final.`;
    };
    const body = () => (isDraw()
      ? { kind: "draw", draw: kind.value.slice("draw:".length) }
      : { seat: seat.value, kind: kind.value });
    const ask = () => {
      confirmBox.hidden = false;
      confirmBox.replaceChildren(
        el("p", {}, sentence()),
        el("div", { class: "options" },
          el("button", { type: "button", id: "confirm-ending", class: "primary danger-fill", onclick: () => {
            confirmBox.hidden = true;
            this.ctx.write("/ending", { ...body(), reason: reason.value, expected_seq: this.ctx.length() });
          } }, "End the match"),
          el("button", { type: "button", class: "cancel", onclick: () => { confirmBox.hidden = true; } },
            "Cancel")));
    };
    box.replaceChildren(el("div", { class: "fields" }, seat, kind, reason),
      el("button", { type: "button", id: "end-match", onclick: ask }, "End the match…"), confirmBox);
  }

  renderNote(board) {
    const box = document.getElementById("note");
    if (box.dataset.drawn) return;
    box.dataset.drawn = "1";
    const text = el("textarea", { name: "note", rows: "2", maxlength: "2000",
                                  placeholder: "what happened, a warning, a ruling's reason" });
    box.replaceChildren(text, el("button", { type: "button", id: "add-note", onclick: async () => {
      if (!text.value.trim()) return;
      await this.ctx.write("/notes", { text: text.value.trim(), expected_seq: this.ctx.length() });
      text.value = "";
    } }, "Add the note"));
    if (board.over) box.hidden = true;
  }
}
