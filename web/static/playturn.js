// The two-tap turn chooser of the /play page.  The engine's prompt lists every legal turn
// action (`options`, each a decision and a label); shown flat that is up to 34 buttons ("Play
// Glow Smith into realm 1…4").  Here they are grouped by what they act with -- a card (its
// `card`), or the kind of action (attack, harvest, draw, pass) -- so a turn action is two taps:
// the card (a button here, or the card itself in the hand / on the board), then the realm or
// target.  A group of one option is one tap.  Every legal option stays reachable: each is in
// exactly one group, and nothing is offered that the prompt did not list.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// What an option acts with: its card, else its kind of action.
export function subjectOf(option) {
  const d = option.decision;
  return d.card !== undefined && d.card !== null ? `card:${d.card}` : `type:${d.type}`;
}

// The options grouped by subject, in the order the engine listed them.
export function groupOptions(options) {
  const groups = new Map();
  options.forEach((option) => {
    const key = subjectOf(option);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(option);
  });
  return groups;
}

function firstWord(label) {
  return label.split(" ")[0];
}

// The first tap's label: the option itself if it is alone, else its verb and card ("Play Glow
// Smith"), or its verb ("Attack", "Harvest").  The card in the API's words (`subject`), which
// tell two copies apart ("Glow Smith (copy 2)", "Neon Spider in realm 3"); else its name.
export function groupLabel(key, options, names) {
  if (options.length === 1) return options[0].label;
  const verb = firstWord(options[0].label);
  if (!key.startsWith("card:")) return verb;
  return `${verb} ${options[0].subject || names[key.slice(5)] || "a card"}`;
}

function differs(options, field) {
  return new Set(options.map((o) => JSON.stringify(o.decision[field] ?? null))).size > 1;
}

// The second tap's label: what tells the options of one group apart (the realm, the ability,
// the targets, the cards), else the option's own label.
export function detailLabel(option, options, names) {
  const d = option.decision;
  const parts = [];
  if (d.realm !== undefined && d.realm !== null && differs(options, "realm")) parts.push(`Realm ${d.realm}`);
  if (d.ability !== undefined && differs(options, "ability")) parts.push(`ability ${d.ability + 1}`);
  if (Array.isArray(d.targets) && d.targets.length && differs(options, "targets")) {
    parts.push(`on ${d.targets.map((id) => names[id] || "a hidden card").join(", ")}`);
  }
  if (Array.isArray(d.cards) && differs(options, "cards")) {
    parts.push(d.cards.map((id) => names[id] || "a card").join(", "));
  }
  if (!parts.length) return option.label;
  const text = parts.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// The chooser: the first taps (groups), and once one is picked its second taps.  `picked` is
// the group key kept across redraws; `choose(key)` picks a group (null: back to the groups);
// `decide(decision)` records one.
export function turnChooser(options, names, picked, choose, decide) {
  const groups = groupOptions(options);
  const box = el("div", { class: "turn" });
  const chosen = picked !== null ? groups.get(picked) : undefined;
  if (chosen === undefined) {
    const row = el("div", { class: "options groups" });
    for (const [key, group] of groups) {
      const lone = group.length === 1;
      row.append(el("button", {
        type: "button", class: `option group${lone ? " lone" : ""}`, "data-group": key,
        onclick: () => (lone ? decide(group[0].decision) : choose(key)),
      }, groupLabel(key, group, names), lone ? "" : el("span", { class: "count" }, ` ${group.length}`)));
    }
    // "then where" only where a first tap leads to a second (a card with several uses)
    const twoTaps = [...groups.values()].some((group) => group.length > 1);
    box.append(el("p", { class: "hint" }, twoTaps
      ? "Tap a card (here, in your hand or on the board), then where." : "Tap what you do."), row);
    return box;
  }
  box.append(el("p", { class: "question" }, `${groupLabel(picked, chosen, names)}: choose`));
  const row = el("div", { class: "options details" });
  chosen.forEach((option) => {
    row.append(el("button", { type: "button", class: "option detail", title: option.label,
                              onclick: () => decide(option.decision) },
      detailLabel(option, chosen, names)));
  });
  row.append(el("button", { type: "button", class: "back", onclick: () => choose(null) }, "Back"));
  box.append(row);
  return box;
}

// Realm numbers a picked group can be finished with by tapping the realm on the board: each
// such realm names exactly one option of the group.
export function realmTaps(options, picked) {
  if (picked === null) return new Map();
  const group = groupOptions(options).get(picked) || [];
  const byRealm = new Map();
  group.forEach((option) => {
    const realm = option.decision.realm;
    if (realm === undefined || realm === null) return;
    byRealm.set(realm, byRealm.has(realm) ? null : option.decision);
  });
  for (const [realm, decision] of byRealm) if (decision === null) byRealm.delete(realm);
  return byRealm;
}
