"""A triggered ability waiting to resolve (501/502): plain data, shared by every component."""

from __future__ import annotations

import msgspec

from ledger.events import Seat

#: Keyword abilities that trigger when their card arrives (On Arrival).
ON_ARRIVAL = ("rage", "call", "symbiosis")


class Trigger(msgspec.Struct, frozen=True):
    """A triggered ability waiting to resolve: whose, which, and where it happened."""

    source: str
    controller: Seat
    ability: str
    realm: int | None = None
    subject: str | None = None  # the card the triggering event is about ("it")
