"""An end-of-battle ability whose card left The World before it resolved (rule 404.3.2 step 6
with 502, ruling R42): the batch is collected before any of it resolves, so under v1.2 a
deathstrike the attacker orders first can kill a Wonder whose own "you may move this to an
adjacent realm" is still waiting.  That move finds no card in The World and does nothing
(Move: "realm to realm"); it ended the simulation in an assertion before."""

from __future__ import annotations

from pathlib import Path

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.simulate import simulate_matches
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks

CARDS = Path(__file__).resolve().parents[2] / "fixtures" / "cards"


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


#: A card of the kind card data may hold (no shipped card has it): "End of battle: portal this".
PORTAL_PROBE = '''
[[card]]
name = "Portal Probe"
type = "wonder"
classes = ["Elf"]
cost = 3
power = 2
orbital = "Thalwind"
set = "Scripted"
dbs = 5
text = "End of battle: portal this."
[[card.abilities]]
when = "battle_end"
text = "End of battle: portal this."
effects = [{ do = "portal", target = { pick = "this" } }]
'''

#: v1.2: A attacks realm 2 with the Probe and ties B's deathstrike Wonder; A orders B's
#: deathstrike first (502), which destroys the Probe; then its own "portal this" resolves.
PORTAL_CASE = {
    "name": "end-of-battle-portal-of-a-card-that-died-first", "rules": "1.2",
    "source": "404.3.2 step 6 with 502 (R42); Portal: banish, then return to The World",
    "cards": {"Filler": {"type": "wonder", "power": 1, "cost": 9},
              "Biter": {"type": "wonder", "power": 2, "cost": 1, "keywords": ["deathstrike"]}},
    "state": {"round": 4, "turn": "A", "A": {"deck": ["Filler"] * 5},
              "B": {"deck": ["Filler"] * 5},
              "world": [{"id": "probe", "card": "Portal Probe", "controller": "A", "realm": 2},
                        {"id": "biter", "card": "Biter", "controller": "B", "realm": 2}]},
    "steps": [{"player": "A", "action": "attack", "realm": 2},
              {"player": "A", "expect_prompt": "order", "pick": ["biter", "probe"]}],
    "expect": {"turn": "B", "cards": {"probe": {"zone": "abyss"}, "biter": {"zone": "world"}}},
}


def test_a_card_that_died_in_the_end_of_battle_batch_is_not_portalled(tmp_path):
    """Its "portal this" finds it in The Abyss: nothing to portal (it was moved from The Abyss
    to banishment, then the engine stopped in an assertion: "a portalled card was in The
    World")."""
    from replay.wotf.cards import load_cards
    from replay.wotf.conformance import run_case

    (tmp_path / "probe.toml").write_text(PORTAL_PROBE)
    db = load_cards([*sorted(CARDS.glob("*.toml")), tmp_path / "probe.toml"])
    result = run_case(PORTAL_CASE, db)
    assert result.passed, result.line()
