"""A match's events in words, as one reader may read them, for every page and answer that
narrates: the viewer, ``/play`` (through the API's events), the follow stream and the CLI.

A :class:`Narrator` is made for one match, one perspective and the last seq that reader may see.
It redacts each event for the perspective (what it may not see stays "a hidden card"), names the
cards the perspective may name and the seats by their players, and knows which events a later
take-back undid (:func:`undone_by`): those stay in the record and are shown struck through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ledger import line
from ledger.events import Event, MatchOpened, TakenBack


def undone_by(events: Sequence[Event]) -> dict[int, int]:
    """seq -> the seq of the take-back that undid it: the events off the line the match now
    stands on (:mod:`ledger.line`: a take-back returns to the state after its ``to_seq``, as
    the board's fold does); an event taken off twice names the later take-back."""
    if not any(_is_take_back(cls) for cls in set(map(type, events))):
        return {}  # no take-back at all (most matches): found from the events' types at C speed
    return line.undone_by(events)


#: Event class -> whether it is a take-back: :func:`undone_by` runs over every event of a match
#: for each answer that narrates, and a dict lookup costs a fraction of ``isinstance`` against
#: an event class.
_IS_TAKE_BACK: dict[type, bool] = {}


def _is_take_back(cls: type) -> bool:
    found = _IS_TAKE_BACK.get(cls)
    if found is None:
        found = _IS_TAKE_BACK[cls] = issubclass(cls, TakenBack)
    return found


def players_of(opened: Event) -> dict[str, str]:
    """Seat -> player name, as the match's opening records them."""
    if not isinstance(opened, MatchOpened):
        return {}
    return {info.seat: info.player for info in opened.seats if info.player}


class Narrator:
    """Words for the events ``0..last`` of a match (a :class:`web.api.tables.Table` or any
    reading with ``game``, ``events``, ``state`` and ``state_at``) as ``perspective`` sees
    them."""

    def __init__(self, table: Any, perspective: str, last: int | None = None):
        last = table.length - 1 if last is None else min(last, table.length - 1)
        game, events = table.game, table.events[:last + 1]
        self.game, self.perspective, self.last = game, perspective, last
        # Every event written, past ``last`` too: what a viewer may see of an event can take
        # the events of its batch (a bury's order, docs/rulings.md R46), and a batch is
        # written whole even where a delayed reader's view stops inside it.
        self.log: Sequence[Event] = table.events
        self.table, self.events = table, events
        # Hidden as of ``last``: a card face down then and turned face up since stays hidden.
        # Cards are named from the same state, never from a later one: past ``last`` a
        # take-back to the set-up can have shuffled again, and each id (a place in the setup
        # shuffle) then names another card (tests/security/test_takeback_reshuffle_names.py).
        standing = table.state_at(last) if last >= 0 else table.state
        self.hidden: frozenset[str] = frozenset(game.hidden_ids(standing))
        self.names: Mapping[str, str] = game.card_names(standing, perspective, events)
        self.players = players_of(events[0]) if events else {}
        self.cards = getattr(table, "cards", None)  # the match's own (a Table's), if known
        self.undone = undone_by(events)
        self._lines: dict[int, tuple[frozenset[str], Mapping[str, str]]] = {}

    def redact(self, event: Event, seq: int) -> Event:
        """``event`` (the one at ``seq``, as recorded) as this reader may see it."""
        return self.game.redact(event, self.perspective, self._hidden_at(seq), self.log, seq)

    def text(self, event: Event, seq: int) -> str:
        """The sentence of the event at ``seq`` (``event`` as recorded: it is redacted here)."""
        return self.words(self.redact(event, seq), seq)

    def words(self, redacted: Event, seq: int | None = None) -> str:
        """The sentence of an event already redacted for this perspective (the one at
        ``seq``: an event a take-back undid names its cards as the line it was on did)."""
        names = self.names if seq is None or seq not in self.undone else self._line(seq)[1]
        return self.game.narrate(redacted, None, names, self.players, self.cards)

    def _hidden_at(self, seq: int) -> frozenset[str]:
        """The cards hidden in the event at ``seq``: those face down as of ``last`` and, for
        an event a take-back undid, those face down where its line ended too."""
        return self.hidden if seq not in self.undone else self._line(seq)[0]

    def _line(self, seq: int) -> tuple[frozenset[str], Mapping[str, str]]:
        """(hidden, names) for the line the undone event ``seq`` was recorded on: the state
        just before the take-back that undid it (each id named as that line had it; a later
        setup shuffle gives the id another card)."""
        back = self.undone[seq]
        found = self._lines.get(back)
        if found is None:
            ended = self.table.state_at(back - 1)
            hidden = self.hidden | frozenset(self.game.hidden_ids(ended))
            names = self.game.card_names(ended, self.perspective, self.events)
            found = self._lines[back] = (hidden, names)
        return found

    def undone_by(self, seq: int) -> int | None:
        """The seq of the take-back that undid event ``seq``, if one did."""
        return self.undone.get(seq)
