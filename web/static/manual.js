// The manual operations form of the /play page: a judge's ruling (POST …/manual) or a seat's
// answer to a `manual` prompt (a ManualResolved decision), entered field by field -- the
// operation, the card, the zone, the position, the seat, the amount -- from lists filled from
// the board the page shows.  Cards are listed by name and where they are, never by id.  Each
// "Add" puts one operation on the list; "Record" sends the list (docs/api.md, docs/format.md).

const OPS = {
  move: "move a card",
  reveal: "reveal a card",
  look: "look at a card",
  shuffle: "shuffle a deck",
  counter: "add counters",
  tap: "tap / untap",
  power: "change power",
  resource: "set a resource",
  control: "give control",
  stone: "set a stone",
  token: "create a token",
};
// A seat's own answer may shuffle its own deck ("… then shuffle your deck", rules revision 8).
const SEAT_OPS = ["move", "reveal", "look", "shuffle", "counter", "tap", "power", "resource", "token"];
const FIELDS = {  // which fields each operation uses
  move: ["card", "place", "to_zone", "position", "realm", "seat"],
  reveal: ["card", "place", "seat"],
  look: ["card", "place", "seat"],
  shuffle: ["seat"],
  counter: ["card", "counter", "amount"],
  tap: ["card", "tapped"],
  power: ["card", "amount", "duration"],
  resource: ["seat", "resource", "amount"],
  control: ["card", "seat"],
  stone: ["realm", "seat"],
  token: ["seat", "name", "realm"],
};
const SEAT_LABEL = {  // what the seat list means for each operation
  move: "under the control of", reveal: "to", look: "who looks", shuffle: "whose deck",
  resource: "seat", control: "to seat", stone: "to seat", token: "for seat",
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function select(name, options) {
  const box = el("select", { name, "data-field": name });
  for (const [value, label] of options) box.append(el("option", { value }, label));
  return box;
}

// How a seat is named in labels: the player's name once the page gives it (manualForm's
// `seatName`), else the seat's letter.
let nameOf = (seat) => seat;

// Every card the board shows (and every card this viewer was shown), labelled by name and place.
export function boardCards(board) {
  const cards = [];
  const seen = new Set();
  const add = (card, where) => {
    if (!card || !card.id || card.id === "?" || seen.has(card.id)) return;
    seen.add(card.id);
    cards.push({ id: card.id, name: card.name, label: `${card.name} — ${where}` });
  };
  for (const realm of board.realms || []) {
    for (const seat of ["A", "B"]) {
      for (const card of realm.cards[seat] || []) add(card, `${nameOf(seat)}'s, realm ${realm.number}`);
    }
  }
  for (const [seat, player] of Object.entries(board.players || {})) {
    (player.hand || []).forEach((card) => add(card, `${nameOf(seat)}'s hand`));
    (player.deck || []).forEach((card, i) => add(card, `${nameOf(seat)}'s deck, ${i + 1} from the top`));
    (player.abyss || []).forEach((card) => add(card, `${nameOf(seat)}'s abyss`));
    (player.banishment || []).forEach((card) => add(card, `${nameOf(seat)}'s banishment`));
  }
  for (const [seat, player] of Object.entries(board.players || {})) {
    // A deck this viewer can't see: any of its cards by its place from the top ("look at the
    // top three cards", "the bottom card"), given in the place field; the server turns
    // `deck:<seat>:<n>` into the card before anything is recorded.
    if (player.deck !== null && player.deck !== undefined) continue;
    const count = player.deck_count || 0;
    if (count > 0) {
      cards.push({ id: `deck:${seat}:`, name: `a card of ${nameOf(seat)}'s deck`, places: count,
                   label: `a card of ${nameOf(seat)}'s deck, by its place (1 to ${count} from the top)` });
    }
  }
  for (const [seat, known] of Object.entries(board.known || {})) {
    for (const card of known) {
      const where = card.zone === "deck" ? `deck, ${card.position} from the top` : card.zone;
      add(card, `${nameOf(seat)}'s ${where} (shown to you)`);
    }
  }
  return cards;
}

// What a `deck:<seat>:<n>` place is called, or null for a card id.
export function placeName(id) {
  const match = /^deck:([AB]):([0-9]+)$/.exec(id || "");
  return match ? `card ${match[2]} from the top of ${nameOf(match[1])}'s deck` : null;
}

// A readable line for one operation (card names, never ids).
export function describeOp(op, names) {
  const card = op.card ? names[op.card] || placeName(op.card) || "a card" : "";
  switch (op.op) {
    case "move": {
      const where = op.to_zone === "world" ? `realm ${op.realm}`
        : op.to_zone === "deck" ? `the ${op.value || "bottom"} of its owner's deck` : `the ${op.to_zone}`;
      return `move ${card} to ${where}${op.seat ? ` (under ${nameOf(op.seat)}'s control)` : ""}`;
    }
    case "reveal": return `reveal ${card} to ${op.seat ? nameOf(op.seat) : "everyone"}`;
    case "look": return `${nameOf(op.seat)} looks at ${card}`;
    case "shuffle": return `shuffle ${nameOf(op.seat)}'s deck`;
    case "counter": return `${op.value} ${op.counter} counter${Math.abs(Number(op.value)) === 1 ? "" : "s"} on ${card}`;
    case "tap": return `${op.value ? "tap" : "untap"} ${card}`;
    case "power": return `${op.value >= 0 ? "+" : ""}${op.value} power to ${card} (${op.duration})`;
    case "resource": return `${nameOf(op.seat)}'s ${op.resource} become ${op.value}`;
    case "control": return `${nameOf(op.seat)} gets control of ${card}`;
    case "stone": return `the stone of realm ${op.realm} goes to ${nameOf(op.seat)}`;
    case "token": return `a ${op.name} token for ${nameOf(op.seat)} in realm ${op.realm}`;
    default: return op.op;
  }
}

// The form.  `who`: "judge" (every operation, a note) or a seat (its own answer: no control,
// no stone -- those are the judge's; a shuffle of its own deck only, which the server checks).
// `send(ops, note)` records the list; `seatName(seat)` names a seat in every label.
export function manualForm(board, who, send, seatName = (seat) => seat) {
  nameOf = seatName;
  const cards = boardCards(board);
  const names = Object.fromEntries(cards.map((c) => [c.id, c.name]));
  const ops = [];
  const kinds = who === "judge" ? Object.keys(OPS) : SEAT_OPS;
  const fields = {
    op: select("op", kinds.map((k) => [k, OPS[k]])),
    card: select("card", cards.map((c) => [c.id, c.label])),
    place: el("input", { name: "place", "data-field": "place", type: "number", min: "1",
                         step: "1", value: "1", size: "4" }),
    to_zone: select("to_zone", ["hand", "deck", "abyss", "banishment", "world"].map((z) => [z, z])),
    position: select("position", [["bottom", "bottom of the deck"], ["top", "top of the deck"]]),
    realm: select("realm", [1, 2, 3, 4, 5, 6, 7].map((n) => [String(n), `realm ${n}`])),
    seat: select("seat", [["", "—"], ["A", nameOf("A")], ["B", nameOf("B")]]),
    counter: el("input", { name: "counter", "data-field": "counter", value: "+1", size: "6" }),
    amount: el("input", { name: "amount", "data-field": "amount", type: "number", value: "1", step: "any" }),
    resource: select("resource", ["energy", "actions", "faith", "free_attacks"].map((r) => [r, r])),
    duration: select("duration", [["round", "this round"], ["ever", "from now on"]]),
    tapped: select("tapped", [["true", "tap"], ["false", "untap"]]),
    name: el("input", { name: "name", "data-field": "name", size: "16", placeholder: "token name" }),
  };
  const labels = {};
  const row = el("div", { class: "manual-fields" });
  for (const [key, input] of Object.entries(fields)) {
    const caption = { op: "operation", place: "place from the top" }[key] || key.replace("_", " ");
    labels[key] = el("span", {}, caption);
    row.append(el("label", { class: "manual-field", "data-for": key }, labels[key], " ", input));
  }
  const list = el("ol", { class: "manual-ops" });
  const note = el("input", { name: "note", "data-field": "note", size: "40", placeholder: "note (what the ruling is)" });
  const problem = el("p", { class: "manual-problem", role: "alert" });
  const record = el("button", { type: "button", class: "primary", "data-action": "record" }, "Record");
  const add = el("button", { type: "button", "data-action": "add" }, "Add");

  const show = () => {
    const op = fields.op.value;
    const used = new Set(FIELDS[op]);
    if (op === "move" && fields.to_zone.value !== "deck") used.delete("position");
    if (op === "move" && fields.to_zone.value !== "world") used.delete("realm");
    const byPlace = cards.find((c) => c.id === fields.card.value && c.places);
    if (!byPlace) used.delete("place");
    else fields.place.max = String(byPlace.places);
    for (const label of row.querySelectorAll("label.manual-field")) {
      const key = label.dataset.for;
      label.hidden = key !== "op" && !used.has(key);
    }
    labels.seat.textContent = SEAT_LABEL[op] || "seat";
    const everyone = fields.seat.querySelector("option[value='']");
    everyone.textContent = op === "reveal" ? "everyone" : "—";
    record.disabled = ops.length === 0;
  };
  const redraw = () => {
    list.replaceChildren(...ops.map((op, i) => {
      const drop = el("button", { type: "button", class: "drop" }, "remove");
      drop.addEventListener("click", () => { ops.splice(i, 1); redraw(); });
      return el("li", {}, describeOp(op, names), " ", drop);
    }));
    show();
  };
  const read = () => {
    const op = { op: fields.op.value };
    const used = new Set(FIELDS[op.op]);
    const seat = fields.seat.value || null;
    if (used.has("card")) {
      if (!fields.card.value) throw new Error("choose a card");
      op.card = fields.card.value;
      const byPlace = cards.find((c) => c.id === op.card && c.places);
      if (byPlace) {  // a card of a deck this viewer can't see, by its place from the top
        const n = Number(fields.place.value);
        if (!Number.isInteger(n) || n < 1 || n > byPlace.places) {
          throw new Error(`the place is a whole number from 1 to ${byPlace.places}`);
        }
        op.card = `${op.card}${n}`;
      }
    }
    if (used.has("seat")) op.seat = seat;
    if (op.op === "move") {
      op.to_zone = fields.to_zone.value;
      if (op.to_zone === "deck") op.value = fields.position.value;
      if (op.to_zone === "world") op.realm = Number(fields.realm.value);
    }
    if (used.has("realm") && op.op !== "move") op.realm = Number(fields.realm.value);
    if (used.has("amount")) {
      const amount = Number(fields.amount.value);
      if (fields.amount.value === "" || !Number.isFinite(amount)) throw new Error("the amount is a number");
      op.value = amount;
    }
    if (used.has("counter")) op.counter = fields.counter.value || "+1";
    if (used.has("resource")) op.resource = fields.resource.value;
    if (used.has("duration")) op.duration = fields.duration.value;
    if (used.has("tapped")) op.value = fields.tapped.value === "true" ? 1 : 0;
    if (used.has("name")) op.name = fields.name.value.trim();
    if (["look", "shuffle", "resource", "control", "token"].includes(op.op) && !op.seat) {
      throw new Error(`${OPS[op.op]}: choose a seat`);
    }
    if (op.op === "stone" && !op.seat) op.value = "center";
    return op;
  };
  fields.op.addEventListener("change", show);
  fields.card.addEventListener("change", show);
  fields.to_zone.addEventListener("change", show);
  add.addEventListener("click", () => {
    try {
      ops.push(read());
      problem.textContent = "";
    } catch (error) {
      problem.textContent = error.message;
    }
    redraw();
  });
  record.addEventListener("click", () => { if (ops.length) send(ops.slice(), note.value); });
  const form = el("div", { class: "manual", id: who === "judge" ? "ruling-form" : "manual-form" },
    el("p", { class: "hint" },
      "Add each operation in turn, then record them. Several cards put back on top in an order: ",
      "add a move to the top of the deck for each, the one to end lowest first."),
    row, add, list, problem);
  if (who === "judge") form.append(note, " ");
  form.append(record);
  show();
  return form;
}
