"""A triggered ability waiting to resolve (501/502): plain data, shared by every component.

From rules revision 6 a batch of triggers waiting to resolve is recorded (``TriggersQueued``)
and held in the state (``GameState.stack``): :class:`Trigger`'s fields are part of the match
file format (``docs/format.md``) -- change them only with a new event type.
"""

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
