"""Which game a match is: ``MatchOpened.game`` selects it, and its ruleset must be one of that
game's (checked once, in :func:`replay.games.game_of`, before any engine sees the match)."""

from __future__ import annotations

import pytest

from ledger.events import MatchOpened, SeatInfo
from replay.games import UnknownGameError, UnknownRulesetError, game, game_of, names


def opened(game_name: str, ruleset: str) -> MatchOpened:
    return MatchOpened(match_id="m-1", ruleset=ruleset, game=game_name,
                       seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")])


def test_both_games_are_installed_and_selected_by_name():
    assert names() == ["sow", "wotf"]
    assert game_of(opened("wotf", "1.2")).title == "Wonders of The First"
    assert game_of(opened("sow", game("sow").rulesets[0])).title == "State of Wonder"


def test_a_ruleset_of_another_game_is_refused():
    with pytest.raises(UnknownRulesetError, match=r"ruleset '1.3.2' is not one of State of Wonder"):
        game_of(opened("sow", "1.3.2"))
    with pytest.raises(UnknownRulesetError, match=r"Wonders of The First's \(1.3.2, 1.2\)"):
        game_of(opened("wotf", "9"))


def test_an_unknown_game_names_the_games_there_are():
    with pytest.raises(UnknownGameError, match="this program plays sow, wotf"):
        game_of(opened("chess", "1"))


@pytest.mark.parametrize("game_name", ["wotf", "sow"])
def test_address_types_name_every_event_a_game_addresses(game_name, tmp_path):
    # The replayer asks Game.address only of the events of Game.address_types (most events
    # start no round, turn or place): of every other event of simulated matches the game's
    # address is None, and the replay's index is the one that sees every event.
    from ledger.filestore import FileStore
    from replay.index import Index
    from replay.replayer import Replay
    from replay.simulate import simulate_matches

    played = game(game_name)
    db = played.default_cards()
    store = FileStore(tmp_path)
    ids = [o.match_id for o in simulate_matches(store, db, played.sample_decks(db), 3, seed=5,
                                                bots=("greedy", "random"), game_name=game_name)]
    addressed = 0
    for mid in ids:
        events = [stored.event for stored in store.read(mid)]
        full = Index(played)
        for seq, event in enumerate(events):
            if played.address(event) is not None:
                addressed += 1
                assert type(event) in played.address_types, type(event).__name__
            full.see(seq, event)
        index = Replay(events, db).index
        assert (index.rounds, index.turns, index.places) == (full.rounds, full.turns, full.places)
    assert addressed > 30
