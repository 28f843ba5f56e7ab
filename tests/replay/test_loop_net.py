"""503 through new cards (revision 10, R18's net): Hollow Mimic's "On Arrival: create a token
copy of target Wonder with cost 3 or less" copying a Hollow Mimic makes a token whose own
arrival copies again -- a new source at every repetition, so the loop count per card never
grew, and a player (here the random bot) picking Mimics went on until the engine ran out of
stack (RecursionError).  From revision 10 the ability is prevented once it is nested more than
``LOOP_NET_DEPTH`` deep, whatever cards it is on; the match goes on and re-derives."""

from __future__ import annotations

import random

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.simulate import simulate_matches
from replay.wotf.cards import default_cards
from replay.wotf.decks import Deck

#: Test cards added to the pool after seed 112 was found (R47's, in fixtures/cards/rulings.toml):
#: left out of the draw, so the seed still deals the decks of the review.
LATER = frozenset({"Slay and Learn", "Mourner", "Theft and Purge"})


def _random_decks(db, seed: int) -> list[Deck]:
    """Four 50-card decks drawn from the whole pool (as it was, :data:`LATER`), scripted cards
    most of all (seed 112: two of them hold a Hollow Mimic)."""
    names = [c.name for c in db if "Token" not in c.name and c.name not in LATER]
    scripted = [c.name for c in db if getattr(c, "set", "") == "Scripted" and "Token" not in c.name]
    tokens = [c.name for c in db if "Token" in c.name]
    rng = random.Random(seed)
    decks = []
    for k in range(4):
        deck: dict[str, int] = {}
        while sum(deck.values()) < 50:
            name = rng.choice(scripted if rng.random() < 0.7 else names)
            deck[name] = min(3, deck.get(name, 0) + 1)
        decks.append(Deck(name=f"r{k}", cards=deck,
                          archive={t: 1 for t in rng.sample(tokens, min(3, len(tokens)))}))
    return decks


def test_a_copy_loop_through_new_tokens_is_prevented_and_the_match_goes_on(tmp_path):
    db = default_cards()
    store = FileStore(tmp_path)
    opened = list(simulate_matches(store, db, _random_decks(db, 112), 2, 112, "1.3.2",
                                   ("random", "greedy"), prefix="s112", bulk=True))
    prevented = 0
    for match in opened:
        log = list(store.read(match.match_id))
        assert type(log[-1].event).__name__ == "MatchEnded"
        Replay(log, db)  # re-derives exactly as recorded
        prevented += sum("prevented: endless loop (rule 503)" in str(s.event) for s in log)
    assert prevented == 1
