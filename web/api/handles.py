"""Opaque handles for the cards a seat may choose but not tell apart, in its prompt options:
face-down cards (rule 510, Face Down) and cards in a deck (402).

A face-down card's id tells anyone who reads it which card it is -- its controller included,
who must not know either (rule 510: face-down cards are "a means of randomization"); a deck
card's id is its place in the setup shuffle, so deck cards offered by id tell where each one
lies in the deck.  When a prompt offers such cards (Dawn Revealer: "turn target face-down card
you control face up"; Deep Diver: "put target Wonder you own with cost 1 from your deck into
this realm"), a seat is shown a handle for each instead: an HMAC of the app's secret key, the
match, the prompt's seq and the id, so it names nothing and is good for that prompt only.  The
decision's pick is translated back to the id before it reaches the recorder.

Which cards a prompt offers behind handles, and how a pick is turned back, is the game's
(``prompt_view`` and ``seat_decision`` of :class:`replay.game.WebGame`); the web only makes
the handles, so the game never sees the secret key.
"""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "hidden-"


def handle_of(secret: str, salt: str, cid: str) -> str:
    digest = hmac.new(secret.encode(), f"{salt}:{cid}".encode(), hashlib.sha256).hexdigest()
    return PREFIX + digest[:16]
