"""The self-registration events folded (ledger/tournament.py): ``RegistrationOpened`` keeps the
key's hash (a later one replaces it), ``RegistrationClosed`` forgets it, round 1 paired ends
self-registration whatever the log says, ``DecklistReplaced`` replaces a player's list (a
State of Wonder list keeps no DBS), ``PlayerRemoved`` takes a registration back, and a player
is found by their token's hash only."""

from __future__ import annotations

from ledger.tournament import fold


def created(game: str = "wotf") -> dict:
    return {"type": "TournamentCreated", "tournament_id": "cup", "name": "Cup", "game": game,
            "ruleset": None}


def registered(name: str, token_hash: str | None = None, dbs: int | None = 10) -> dict:
    event = {"type": "PlayerRegistered", "player": name, "deck_text": "3 A", "cards": {"A": 3},
             "archive": {}, "dbs": dbs, "preset": None, "round": 0}
    return event if token_hash is None else {**event, "token_hash": token_hash}


def test_opened_replaced_closed_and_round_1_paired():
    t = fold([created(), {"type": "RegistrationOpened", "key_hash": "k1"}])
    assert t.registration_key_hash == "k1" and t.is_registration_open
    t = fold([created(), {"type": "RegistrationOpened", "key_hash": "k1"},
              {"type": "RegistrationOpened", "key_hash": "k2"}])
    assert t.registration_key_hash == "k2"  # the old link stops working
    t = fold([created(), {"type": "RegistrationOpened", "key_hash": "k1"},
              {"type": "RegistrationClosed"}])
    assert t.registration_key_hash is None and not t.is_registration_open
    t = fold([created(), {"type": "RegistrationOpened", "key_hash": "k1"},
              registered("Ann"), registered("Bob"),
              {"type": "RoundPaired", "round": 1, "bye": None,
               "tables": [{"table": 1, "a": "Ann", "b": "Bob"}]}])
    assert t.registration_key_hash == "k1" and not t.is_registration_open


def test_a_replaced_list_a_removed_player_and_the_token_lookup():
    replaced = {"type": "DecklistReplaced", "player": "Ann", "deck_text": "2 B",
                "cards": {"B": 2}, "archive": {"T": 1}, "dbs": 7}
    t = fold([created(), registered("Ann", "h-ann"), registered("Bob"), replaced])
    ann = t.players["Ann"]
    assert (ann.deck_text, ann.cards, ann.archive, ann.dbs, ann.replaced) == (
        "2 B", {"B": 2}, {"T": 1}, 7, 1)
    assert ann.is_self_registered and not t.players["Bob"].is_self_registered
    assert t.player_with_token("h-ann") is ann
    assert t.player_with_token("h-bob") is None and t.player_with_token("") is None
    t = fold([created(), registered("Ann", "h-ann"), registered("Bob"),
              {"type": "PlayerRemoved", "player": "Ann"}])
    assert list(t.players) == ["Bob"] and t.player_with_token("h-ann") is None
    sow = fold([created("sow"), registered("Ann", "h", dbs=None), {**replaced, "dbs": None}])
    assert sow.players["Ann"].dbs is None and sow.players["Ann"].replaced == 1
