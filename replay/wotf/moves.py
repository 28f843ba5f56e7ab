"""Primitive moves: the smallest changes the rules make, each one event or a few.

Drawing, moving a card between areas (301.06), counters, ongoing effects, tapping, control,
tokens, revealing, and the end of the match (405).  A component of the engine that needs
nothing but the :class:`~replay.wotf.table.Table`: every other part changes the state
through these or through ``emit`` directly.
"""

from __future__ import annotations

from typing import Any

from ledger.events import MatchEnded
from replay.wotf.cards import Card, definition
from replay.wotf.events import (
    CardMoved,
    CardTapped,
    ControlChanged,
    CounterChanged,
    EffectApplied,
    TokenCreated,
    TriggerResolved,
    Unequipped,
)
from replay.wotf.revisions import EQUIP_LEAVES_REVISION
from replay.wotf.selectors import Context
from replay.wotf.state import SEATS, Seat, Zone, other
from replay.wotf.table import MatchOver, Table


class Moves:
    """Primitive moves through a table."""

    def __init__(self, t: Table):
        self.t = t

    # -- cards between areas -------------------------------------------------------------

    def draw(self, seat: Seat, reason: str = "draw") -> None:
        deck = self.t.state.players[seat].deck
        if deck:
            self.move(deck[0], "hand", reason)
        self.check_decks()

    def move(self, cid: str, to_zone: Zone, reason: str, realm: int | None = None,
             controller: Seat | None = None, face_down: bool = False,
             keep_effects: bool = False) -> None:
        """Move a card between areas (301.06); leaving The World removes counters and effects
        (:func:`replay.wotf.evolve.evolve` of ``CardMoved``).

        A token put anywhere but The World ceases to exist (203) after the move is seen.
        """
        state = self.t.state
        c = state.cards[cid]
        from_zone, from_realm = c.zone, c.realm
        to_controller = (controller or c.owner) if to_zone == "world" else None
        self.t.emit(CardMoved(cid, c.name, c.owner, from_zone, to_zone, reason, from_realm,
                              realm if to_zone == "world" else None, to_controller,
                              face_down=face_down, keep_effects=keep_effects))
        if from_zone == "world" and to_zone not in ("world", "abyss") and \
                state.revision >= EQUIP_LEAVES_REVISION:
            # Equip: "If the equipped Wonder leaves The World its equipment remains in the
            # realm" -- unequipped, however it left (banished, portalled, ...; R44; a death,
            # into The Abyss, is Effects.leave_dying's, as before).
            for item in [i.id for i in state.cards.values() if i.equipped_to == cid]:
                self.t.emit(Unequipped(item))
        if c.token and to_zone not in ("world", "gone"):
            self.t.emit(CardMoved(cid, c.name, c.owner, to_zone, "gone", "token ceases to exist"))
        if from_zone == "deck" and state.revision >= 5:
            # 405: "If at any time a deck has no cards, that player loses" -- whatever took
            # the card (a draw, a deny, a seek, a card played from the deck, a manual move).
            # Before revision 5 only draws and deny checked.
            self.check_decks()

    # -- the end of the match (405) ------------------------------------------------------

    def check_decks(self) -> None:
        """405: a player whose deck has no cards loses at once (both at once: a draw)."""
        state = self.t.state
        empty = [seat for seat in SEATS if not state.players[seat].deck]
        if not empty or state.over:
            return
        self.end_match(None if len(empty) == 2 else other(empty[0]), "deck_out")
        raise MatchOver

    def end_match(self, winner: Seat | None, reason: str) -> None:
        stones: dict[str, int] = {seat: self.t.view.stones_of(seat) for seat in SEATS}
        self.t.emit(MatchEnded(winner, reason, stones))

    # -- counters and effects ------------------------------------------------------------

    def add_counters(self, cid: str, kind: str, amount: int) -> int:
        """Put (or remove, if negative) counters; +1 and −1 counters cancel at once (Counters)."""
        c = self.t.state.cards[cid]
        counters = dict(c.counters)
        counters[kind] = max(0, counters.get(kind, 0) + amount)
        changes = [(kind, counters[kind] - c.counters.get(kind, 0))]
        if kind in ("+1", "-1"):
            cancel = min(counters.get("+1", 0), counters.get("-1", 0))
            if cancel:
                counters["+1"] -= cancel
                counters["-1"] -= cancel
                changes = [("+1", counters["+1"] - c.counters.get("+1", 0)),
                           ("-1", counters["-1"] - c.counters.get("-1", 0))]
        for name, delta in changes:
            if delta:
                self.t.emit(CounterChanged(cid, name, delta, counters.get(name, 0)))
        return c.counters.get(kind, 0)

    def add_effect(self, cid: str, kind: str, value: int | float, until: str, source: str) -> None:
        duration = "round" if until == "round" else "ever"
        self.t.emit(EffectApplied(cid, kind, value, duration, source))

    def set_tapped(self, cid: str, tapped: bool, by: Seat | None = None) -> bool:
        """Tap or untap; ``by`` is the player whose effect or cost taps it ("Opponents can't
        tap", R22)."""
        c = self.t.state.cards[cid]
        if c.tapped == tapped or self.t.view.cant(cid, "be_tapped" if tapped else "untap", by):
            return False  # you can only untap a tapped card (Tap)
        self.t.emit(CardTapped(cid, tapped))
        return True

    def set_controller(self, cid: str, seat: Seat) -> bool:
        c = self.t.state.cards[cid]
        if c.controller == seat or (self.t.view.cant(cid, "be_controlled")
                                    and seat != c.controller):
            return False
        self.t.emit(ControlChanged(cid, seat))
        return True

    # -- tokens (203) ----------------------------------------------------------------------

    def stand_in(self, name: str | None, type_: str, spec: Any, orbital: str | None = None) -> Card:
        """The card definition of a stand-in token (203): only what the effect defines (a
        name already defined in this match keeps its first definition)."""
        power = spec.power if spec is not None else 1
        classes = tuple(spec.classes) if spec is not None else ()
        label = name or " ".join(classes) or "Token"
        card_name = f"{label} token ({power})" if type_ == "wonder" else f"{label} {type_} token"
        if card_name in self.t.db:
            return self.t.db[card_name]
        return Card(name=card_name, type=type_, classes=classes, orbital=orbital,
                    power=power if type_ == "wonder" else None, token=True,
                    keywords=tuple(spec.keywords) if spec is not None else ())

    def place_token(self, seat: Seat, card_name: str, realm: int, printed: str | None = None,
                    blank: bool = False, stand_in: Card | None = None) -> str:
        """Put a token into The World (a printed one leaves the archive for good, 303.3).
        A stand-in's definition is recorded by the event that creates it."""
        s = self.t.state
        cid = printed if printed is not None else f"{seat}-t{s.next_token}"
        name = s.cards[printed].name if printed is not None else card_name
        # A stand-in's definition is recorded by every event that creates one; evolve folds it
        # into the state (its first definition), where the match's cards are read.
        recorded = definition(stand_in) if stand_in is not None else None
        self.t.emit(TokenCreated(seat, cid, name, realm, blank=blank, definition=recorded))
        self.move(cid, "world", "token created", realm=realm, controller=seat)
        if self.t.view.enters_in_banishment(realm):  # v1.2 301.2 (revision 9): and so ceases (203)
            self.move(cid, "banishment", "banished realm")
        return cid

    # -- revealing -----------------------------------------------------------------------

    def emit_reveal(self, ctx: Context, cards: list[str]) -> None:
        """Reveal: show cards to every player (they stay where they are)."""
        names = ", ".join(f"{cid} {self.t.state.cards[cid].name}" for cid in cards) or "nothing"
        self.t.emit(TriggerResolved(ctx.source, self.t.view.definition(ctx.source).name, "reveal",
                                    ctx.controller, f"reveals {names}"))
