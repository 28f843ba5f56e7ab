"""An end-of-battle ability whose card left The World before it resolved (rule 404.3.2 step 6
with 502, ruling R42): the batch is collected before any of it resolves, so under v1.2 a
deathstrike the attacker orders first can kill a Wonder whose own "you may move this to an
adjacent realm" is still waiting.  That move finds no card in The World and does nothing
(Move: "realm to realm"); it ended the simulation in an assertion before."""

from __future__ import annotations

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.simulate import simulate_matches
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks


def test_a_mover_that_died_in_the_end_of_battle_batch_moves_nothing(tmp_path):
    store = FileStore(tmp_path)
    db = default_cards()
    # v1.2, greedy against greedy, seed 12 (ten matches): the seventh has such a batch
    opened = list(simulate_matches(store, db, load_decks(None, db), 10, 12, "1.2",
                                   ("greedy", "greedy"), "y"))
    assert len(opened) == 10
    for match in opened:
        log = list(store.read(match.match_id))
        assert type(log[-1].event).__name__ == "MatchEnded"
        Replay(log, db)  # re-derives exactly as recorded
