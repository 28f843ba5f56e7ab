"""Opaque handles for face-down cards in a seat's prompt options (rule 510, Face Down).

A card id names a place in the public deck list (replay/perspective.py), so a face-down card's
id tells anyone who reads it which card it is -- its controller included, who must not know
either (rule 510: face-down cards are "a means of randomization").  When a prompt offers
face-down cards (Dawn Revealer: "turn target face-down card you control face up"), a seat is
shown a handle for each instead: an HMAC of the app's secret key, the match, the prompt's
seq and the id, so it names nothing and is good for that prompt only.  The decision's pick is
translated back to the id before it reaches the recorder.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from replay.wotf.engine import Engine
from replay.wotf.state import GameState

PREFIX = "face-down-"


def handle_of(secret: str, salt: str, cid: str) -> str:
    digest = hmac.new(secret.encode(), f"{salt}:{cid}".encode(), hashlib.sha256).hexdigest()
    return PREFIX + digest[:16]


def is_face_down(state: GameState, pick: Any) -> bool:
    card = state.cards.get(pick) if isinstance(pick, str) else None
    return card is not None and card.zone == "world" and card.face_down


def handles(engine: Engine, secret: str, salt: str) -> dict[str, str]:
    """Handle -> card id, for every face-down card the pending prompt offers."""
    prompt = engine.prompt
    if prompt is None or prompt.kind in ("turn", "manual", "chance"):
        return {}
    offered = prompt.choose.of if prompt.choose is not None else prompt.options
    return {handle_of(secret, salt, cid): cid for cid in offered
            if is_face_down(engine.state, cid)}


def hidden(pick: Any, engine: Engine, secret: str, salt: str) -> Any:
    """``pick`` as a seat may see it: a face-down card becomes its handle."""
    return handle_of(secret, salt, pick) if is_face_down(engine.state, pick) else pick


def arranged(offered: list[tuple[Any, str | None]]) -> list[tuple[Any, str | None]]:
    """Offered ``(pick, face-down label or None)`` pairs in the order a seat sees them: the
    face-up picks as the engine lists them, then the face-down handles sorted by the handle
    itself (an HMAC, so a random order each prompt): where a handle stands says nothing about
    which card it is (the engine lists cards in card-id order)."""
    shown = [(pick, label) for pick, label in offered if label is None]
    down = sorted(((pick, label) for pick, label in offered if label is not None),
                  key=lambda item: str(item[0]))
    return shown + down


def raw_ids(pick: Any, engine: Engine) -> bool:
    """Whether ``pick`` names a face-down card by its id instead of by a handle: a seat never
    sees those ids, so such an answer is refused like any wrong one (without saying why, so
    the refusal confirms nothing about the card)."""
    picks = pick if isinstance(pick, list) else [pick]
    return any(is_face_down(engine.state, p) for p in picks if isinstance(p, str))


def label(engine: Engine, cid: str) -> str:
    return f"a face-down card in realm {engine.state.cards[cid].realm}"


def revealed(pick: Any, known: dict[str, str]) -> Any:
    """A decision's pick with the handles of this prompt turned back into card ids."""
    if isinstance(pick, list):
        return [known.get(p, p) if isinstance(p, str) else p for p in pick]
    return known.get(pick, pick) if isinstance(pick, str) else pick
