// The card entry form of the /play page (Wonders ruling R34): a catalogue card the pool has no
// rules data for is in your hand (or elsewhere in your sight) for the first time, and the
// engine asks you for what is printed on the physical card -- its cost, power, classes and
// keywords, and whether its rules text does more than its keywords (then that text resolves
// by hand, through the manual prompt).  Everything is chosen from the ranges and lists the
// prompt's `entry` gives (GET …/prompt), checked here first and by the server again; the
// answer is the CardStatsEntered decision (docs/api.md, docs/format.md).

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const WHOLE = /^[0-9]{1,3}$/;

// Why the entered values can't be sent (one line), or null.
function problem(entry, values) {
  const { cost, power, classes } = values;
  if (!WHOLE.test(cost) || Number(cost) < entry.cost.min || Number(cost) > entry.cost.max) {
    return `Cost: a whole number from ${entry.cost.min} to ${entry.cost.max}.`;
  }
  if (power === "" && entry.power.required) return `${entry.name} is a Wonder: enter its power.`;
  if (power !== "" && power !== "*" &&
      (!WHOLE.test(power) || Number(power) < entry.power.min || Number(power) > entry.power.max)) {
    return `Power: a whole number from ${entry.power.min} to ${entry.power.max}, or *.`;
  }
  if (classes.length > entry.max_classes) return `At most ${entry.max_classes} classes.`;
  return null;
}

// The form for `entry` (a stats prompt's), calling `send(decision)` with the answer.
export function cardEntryForm(entry, send) {
  const chosen = [];
  const facts = [entry.set && entry.number ? `${entry.set} ${entry.number}` : null,
    entry.type, entry.orbital].filter(Boolean).join(" · ");
  const cost = el("input", { id: "entry-cost", type: "number", inputmode: "numeric",
    min: entry.cost.min, max: entry.cost.max, required: "" });
  const power = el("input", { id: "entry-power", type: "text", inputmode: "numeric",
    pattern: "[0-9]{1,2}|\\*", placeholder: entry.power.required ? "e.g. 4 (or *)" : "none",
    autocomplete: "off" });
  const classInput = el("input", { id: "entry-class", list: "entry-classes", autocomplete: "off",
    placeholder: "type or pick a class" });
  const classList = el("datalist", { id: "entry-classes" },
    entry.classes.map((name) => el("option", { value: name })));
  const chips = el("ul", { class: "entry-chips", "aria-label": "classes chosen" });
  const line = el("p", { class: "entry-problem", role: "alert" });
  const drawChips = () => chips.replaceChildren(...chosen.map((name, i) => el("li", {},
    name, " ", el("button", { type: "button", "aria-label": `remove ${name}`,
      onclick: () => { chosen.splice(i, 1); drawChips(); } }, "×"))));
  const addClass = () => {
    const name = classInput.value.trim();
    const known = entry.classes.find((c) => c.toLowerCase() === name.toLowerCase());
    if (!known) {
      line.textContent = name ? `“${name}” is not a known class: pick one from the list.` : "";
      return;
    }
    if (!chosen.includes(known)) chosen.push(known);
    classInput.value = "";
    line.textContent = "";
    drawChips();
  };
  const keywords = el("fieldset", { class: "entry-keywords" }, el("legend", {}, "Keywords"),
    entry.keywords.map((k) => el("label", { class: "pick" },
      el("input", { type: "checkbox", value: k, name: "keyword" }), k)));
  const link = el("select", { id: "entry-link" }, el("option", { value: "" }, "no link"),
    entry.link.map((o) => el("option", { value: `link:${o}` }, `${o} link`)));
  keywords.append(el("label", { class: "pick" }, link));
  const manual = el("input", { id: "entry-manual", type: "checkbox", checked: "" });
  const form = el("form", { class: "cardentry", novalidate: "" },
    el("p", { class: "entry-card" }, el("strong", {}, entry.name), facts ? ` — ${facts}` : ""),
    el("p", {}, "Read these from the card in your hand. Your opponent sees them once the card is played."),
    el("div", { class: "entry-numbers" },
      el("label", { for: "entry-cost" }, "Cost ", cost),
      el("label", { for: "entry-power" }, "Power ", power)),
    el("div", { class: "entry-classes" },
      el("label", { for: "entry-class" }, "Classes "), classInput, classList,
      el("button", { type: "button", onclick: addClass }, "Add class"), chips),
    keywords,
    el("label", { class: "pick" }, manual,
      "Its rules text does more than its keywords (you will enter what it does when it applies)"),
    line,
    el("button", { type: "submit", class: "option" }, "Record these stats"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (classInput.value.trim()) addClass();
    const values = {
      cost: cost.value.trim(), power: power.value.trim(), classes: chosen.slice(),
    };
    const why = problem(entry, values);
    if (why) {
      line.textContent = why;
      return;
    }
    const picked = [...keywords.querySelectorAll("input[name=keyword]:checked")].map((i) => i.value);
    if (link.value) picked.push(link.value);
    send({
      ...entry.answer,
      cost: Number(values.cost),
      power: values.power === "" ? null : (values.power === "*" ? "*" : Number(values.power)),
      classes: values.classes,
      keywords: picked,
      manual: manual.checked,
    });
  });
  return form;
}
