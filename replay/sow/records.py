"""Self-contained match records: the card definitions a State of Wonder file embeds.

``complete_opened`` writes into ``MatchOpened`` the engine version, the rules revision and the
canonical definition of every card either seat's deck names, with their SHA-256
(``cards_digest``); ``match_cards`` reads them back (checking the digest), so the file alone
replays the match whatever the shipped pool has become.
"""

from __future__ import annotations

import msgspec

from ledger.events import MatchOpened
from replay.errors import CardDataError
from replay.sow.cards import CardPool, definitions_digest
from replay.sow.revisions import ENGINE_VERSION, RULES_REVISION

#: How many pools of recorded cards are kept (by ``cards_digest``) for the next match of the
#: same cards: making one validates every definition, ~7% of re-deriving a match.
POOLS_KEPT = 64
_POOLS: dict[tuple[str, tuple[tuple[str, str], ...]], CardPool] = {}


def seat_card_names(opened: MatchOpened) -> list[str]:
    return sorted({e.card for info in opened.seats for e in (*info.deck, *info.archive)})


def complete_opened(opened: MatchOpened, pool: CardPool) -> MatchOpened:
    names = seat_card_names(opened)
    unknown = [n for n in names if n not in pool]
    if unknown:
        raise CardDataError(f"match {opened.match_id}: unknown card(s) {unknown}")
    definitions = pool.definitions(names)
    return msgspec.structs.replace(
        opened, game="sow", engine_version=ENGINE_VERSION,
        rules_revision=opened.rules_revision or RULES_REVISION, cards=definitions,
        cards_digest=definitions_digest(definitions))


def match_cards(opened: MatchOpened, pool: CardPool) -> CardPool:
    """The cards of one match: its embedded definitions (checked), else the pool's.  Matches
    of the same recorded cards share one pool (a pool never changes)."""
    where = f"match {opened.match_id}"
    if opened.cards:
        digest = definitions_digest(opened.cards)
        if digest != opened.cards_digest:
            raise CardDataError(f"{where}: the recorded card definitions do not match their "
                                "digest (cards_digest): the file was altered")
        # the same digest: the same definitions (SHA-256); the faction names they are shown
        # by (display only: today's pool's) are part of the key
        key = (digest, tuple(sorted(pool.factions.items())))
        cards = _POOLS.get(key)
        if cards is None:
            cards = CardPool.from_definitions(opened.cards, where, pool.factions)
            if len(_POOLS) >= POOLS_KEPT:
                _POOLS.clear()
            _POOLS[key] = cards
    else:
        cards = pool
    for name in seat_card_names(opened):
        if name not in cards:
            raise CardDataError(f"{where}: a seat uses unknown card {name!r}")
    return cards
