// Board renderers by game, shared by the viewer and /play: `renderer(board)` picks one by the
// board's `game` (a Wonders board has none: it is drawn by the page itself).  A renderer
// takes the board view model (names, never ids) and returns one element; no build step, no
// external assets, and it wraps down to a 390 px wide phone.

function el(tag, cls, ...children) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// -- State of Wonder: two cities by area, and the pitched-battle zone -----------------------

const SEATS = ["A", "B"];

// A seat as the page names it: its label (the player's name) where the page gives one.
function who(seat, labels = {}) {
  return labels[seat] || `seat ${seat}`;
}

function sowCard(card, owner, labels = {}) {
  const node = el("div", `sow-card ${card.type}${card.exhausted ? " exhausted" : ""}`);
  node.dataset.name = card.name;
  const head = el("div", "sow-card-head", el("span", "name", card.name));
  if ("attack" in card) head.append(el("span", "stats", `${card.attack}/${card.health}`));
  else if ("health" in card) head.append(el("span", "stats", `♥${card.health}`));
  node.append(head);
  const bits = [card.type];
  if (owner) bits.push(who(owner, labels));
  if (card.exhausted) bits.push("exhausted");
  if (card.damage) bits.push(`damage ${card.damage}`);
  if ("progress" in card) bits.push(`progress ${card.progress}/${card.progress_rate}`);
  if (card.counters) bits.push(`counters ${card.counters}`);
  node.append(el("div", "sow-card-meta", bits.join(" · ")));
  return node;
}

function sowArea(label, key, content) {
  const area = el("div", `sow-area area-${key}`, el("div", "sow-area-label", label));
  area.dataset.area = key;
  if (typeof content === "number") {  // a hidden area: only how many cards it holds
    area.classList.add("hidden-area");
    area.dataset.count = String(content);
    area.append(el("span", "count", `${content} hidden card${content === 1 ? "" : "s"}`));
  } else if (!content.length) {
    area.append(el("span", "empty", "—"));
  } else if (typeof content[0] === "string") {  // names (culture, Wonder area, discard)
    area.append(el("div", "names", content.map((name) => el("span", "sow-name", name))));
  } else {
    area.append(el("div", "cards", content.map((card) => sowCard(card))));
  }
  return area;
}

function sowCity(seat, city, board, label) {
  const node = el("section", `sow-city seat-${seat}`);
  node.dataset.seat = seat;
  const toAct = board.turn_player === seat && !board.over ? " · to act" : "";
  const head = el("div", "sow-city-head", el("strong", `seat-${seat}`, `${label ? `${label} · city` : `City ${seat}`}${toAct}`));
  const stats = [["gold", city.gold], ["income", city.income]];
  if (city.progress) stats.push(["progress", `${city.progress.card} ${city.progress.counters}/${city.progress.target}`]);
  if (city.besieging) stats.push(["besieging", "yes"]);
  for (const [name, value] of stats) {
    const s = el("span", "stat", el("span", "label", name), el("b", null, value));
    s.dataset.stat = name;
    head.append(s);
  }
  node.append(head,
    sowArea("Attackers", "attackers", city.attackers),
    sowArea("Fortifications", "fortifications", city.fortifications),
    sowArea("Units", "units", city.units),
    sowArea("Buildings", "buildings", city.buildings),
    sowArea("State", "state", city.state),
    sowArea("Wonder area", "wonder_area", city.wonder_area),
    sowArea("Culture", "culture", city.culture),
    sowArea("Discard", "discard", city.discard));
  return node;
}

export function sowBoard(board, options = {}) {
  const me = options.me && SEATS.includes(options.me) ? options.me : null;
  const order = me ? [me === "A" ? "B" : "A", me] : ["B", "A"];
  const labels = options.labels || {};
  const battle = el("section", "sow-battle",
    el("div", "sow-area-label", "Pitched battle"),
    board.pitched_battle.length
      ? el("div", "cards", board.pitched_battle.map((card) => sowCard(card, card.owner, labels)))
      : el("span", "empty", "no battle"));
  battle.dataset.area = "pitched_battle";
  const root = el("div", "sow-board");
  root.dataset.game = "sow";
  root.append(sowCity(order[0], board.cities[order[0]], board, labels[order[0]]), battle,
              sowCity(order[1], board.cities[order[1]], board, labels[order[1]]));
  return root;
}

export function sowStatus(board, options = {}) {
  const labels = options.labels || {};
  const why = (board.reason || "").replace(/_/g, " ");  // "state_destroyed": an id, in words
  const result = board.over ? (board.winner ? `${who(board.winner, labels)} wins (${why})` : `draw (${why})`) : "";
  return [`turn ${board.turn || "–"}`, board.turn_player ? `${who(board.turn_player, labels)} to act` : "",
          board.phase ? `phase ${board.phase}` : "", result].filter(Boolean).join(" · ");
}

// game name -> {draw(board, options) -> element, status(board, options) -> text}; options:
// {me: the seat at the bottom, labels: {A: name, B: name}, how the page names the seats}
const RENDERERS = { sow: { draw: sowBoard, status: sowStatus } };

export function renderer(board) {
  return (board && board.game && RENDERERS[board.game]) || null;
}
