"""Opaque handles for face-down cards in a seat's prompt options (rule 510, Face Down).

A card id names a place in the public deck list (replay/perspective.py), so a face-down card's
id tells anyone who reads it which card it is -- its controller included, who must not know
either (rule 510: face-down cards are "a means of randomization").  When a prompt offers
face-down cards (Dawn Revealer: "turn target face-down card you control face up"), a seat is
shown a handle for each instead: an HMAC of the app's secret key, the match, the prompt's
seq and the id, so it names nothing and is good for that prompt only.  The decision's pick is
translated back to the id before it reaches the recorder.

Which cards a prompt offers face down, and how a pick is turned back, is the game's
(``prompt_view`` and ``seat_decision`` of :class:`replay.game.WebGame`); the web only makes
the handles, so the game never sees the secret key.
"""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "face-down-"


def handle_of(secret: str, salt: str, cid: str) -> str:
    digest = hmac.new(secret.encode(), f"{salt}:{cid}".encode(), hashlib.sha256).hexdigest()
    return PREFIX + digest[:16]
