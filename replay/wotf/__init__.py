"""Wonders of The First: the first game of Wonders Ledger (rules 000–003 in ``../shared/rules``).

Its events (:mod:`replay.wotf.events`), state and ``evolve``, rules engine (setup, rounds,
turns, battles, keywords and the ability language), cards, perspectives, narration, bots,
facts for analytics and its conformance runner.  Importing this package registers its event
types with the ledger; ``GAME`` is its :class:`replay.game.Game`.
"""

from pathlib import Path as _Path

from replay.native import check_build as _check_build

_check_build(_Path(__file__).parent)  # no compiled module older than its source (setup.py)

from replay.wotf import events as _events  # noqa: E402, F401 -- registers the event types
