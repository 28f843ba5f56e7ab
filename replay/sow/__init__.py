"""State of Wonder: the second game of Wonders Ledger (rules text 004 in ``../shared/rules``).

Its events (:mod:`replay.sow.events`), state and ``evolve``, rules engine (setup, turns, the
Main Phase, combat with pitched battles and city sieges, retrieval, the end phase), cards and
decks, perspectives, narration, bots, facts for analytics and its conformance runner.
Importing this package registers its event types with the ledger; ``GAME`` is its
:class:`replay.game.Game`.  Rulings on what the text leaves open: ``docs/rulings-sow.md``.
"""

from replay.sow import events as _events  # noqa: F401 -- registers the event types
from replay.sow.game import GAME

__all__ = ["GAME"]
