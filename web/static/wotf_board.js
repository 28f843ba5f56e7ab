// The Wonders of The First board, drawn by the replay viewer and the sandbox ("play from
// here"): the seven realms with their stones and cards, and each seat's panel.  The viewer's
// seat sits at the bottom (`bottom`: "A" or "B"; omniscient and spectator views put A there).
// Names only, never ids in the text; no build step, no external assets.

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function num(x) {
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
  if (card.equipped_to) bits.push(`equipped to ${names[card.equipped_to] || "a Wonder"}`);
  if (card.keywords && card.keywords.length) bits.push(card.keywords.join(", "));
  node.append(el("div", "card-meta", bits.join(" · ")));
  node.title = `${card.name} (${card.orbital}, cost ${card.cost})`;
  return node;
}

function stoneLabel(stone) {
  return stone === "A" || stone === "B" ? stone : "center";
}

function realmNode(realm, names, order) {
  const node = el("div", `realm${realm.active ? "" : " locked"}`);
  node.dataset.realm = realm.number;
  const head = el("div", "realm-head");
  head.append(el("span", "realm-no", `Realm ${realm.number}`));
  if (!realm.active) head.append(" ", el("span", "lock", "locked"));
  const stones = el("div", "stones");
  for (const stone of realm.stones) stones.append(el("span", `stone stone-${stoneLabel(stone)}`, stoneLabel(stone)));
  node.dataset.stones = realm.stones.join(",");
  node.append(head, stones);
  for (const [i, side] of order.entries()) {
    const col = el("div", `side side-${side}${i === 0 ? " side-top" : " side-bottom"}`);
    col.dataset.side = side;
    for (const card of realm.cards[side]) col.append(cardNode(card, names));
    node.append(col);
  }
  return node;
}

function seatPanel(panel, board, seat, label) {
  const p = board.players[seat];
  const turn = board.turn === seat && !board.over ? " · to act" : "";
  const head = el("div", "seat-head");
  head.append(el("strong", `seat-${seat}`, `${label || seat}${turn}`));
  const stats = [["energy", num(p.energy)], ["actions", p.actions], ["free attacks", p.free_attacks],
                 ["faith", num(p.faith)], ["stones", p.stones], ["deck", p.deck_count],
                 ["abyss", p.abyss.length], ["hand", p.hand_count]];
  for (const [name, value] of stats) {
    const s = el("span", "stat");
    s.dataset.stat = name.replace(" ", "_");
    s.append(el("span", "label", name), " ", el("b", null, value));
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

// Fill `stage` (a #board section) with the opponent's panel, the realms and the viewer's
// panel; the elements keep their ids (#seat-A, #realms, #seat-B) whichever way round.
export function drawWonders(stage, board, bottom, labels = {}) {
  const below = bottom === "B" ? "B" : "A";
  const above = below === "A" ? "B" : "A";
  const panel = (seat) => {
    let node = stage.querySelector(`#seat-${seat}`);
    if (!node) { node = el("div", "seat-panel"); node.id = `seat-${seat}`; }
    return node;
  };
  let realms = stage.querySelector("#realms");
  if (!realms) { realms = el("div", "realms"); realms.id = "realms"; }
  const names = {};
  for (const realm of board.realms) for (const side of ["A", "B"]) for (const c of realm.cards[side]) names[c.id] = c.name;
  realms.replaceChildren(...board.realms.map((r) => realmNode(r, names, [above, below])));
  const top = panel(above), low = panel(below);
  seatPanel(top, board, above, labels[above]);
  seatPanel(low, board, below, labels[below]);
  top.classList.add("seat-top"); top.classList.remove("seat-bottom");
  low.classList.add("seat-bottom"); low.classList.remove("seat-top");
  if (stage.firstElementChild !== top || stage.lastElementChild !== low || stage.children.length !== 3) {
    stage.replaceChildren(top, realms, low);
  }
  stage.dataset.bottom = below;
}
