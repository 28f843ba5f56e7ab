// Play from here: draws the sandbox's board (the position itself is server-side: the link
// holds the match, the seq and the moves; choosing an option is following a link).

import { renderer } from "./boards.js";
import { drawWonders } from "./wotf_board.js";

const state = JSON.parse(document.getElementById("sandbox-state").textContent);
const stage = document.getElementById("board");
const root = document.getElementById("sandbox").dataset;
const labels = { A: `A · ${root.playerA || ""}`, B: `B · ${root.playerB || ""}` };
const game = renderer(state.board);
if (game) stage.replaceChildren(game.draw(state.board, { labels: { A: root.playerA || "seat A", B: root.playerB || "seat B" } }));
else drawWonders(stage, state.board, state.prompt && state.prompt.seat === "B" ? "B" : "A", labels);  // the seat deciding at the bottom
stage.dataset.ready = "1";
