"""The self-registration events folded (ledger/tournament.py): ``RegistrationOpened`` keeps the
key's hash (a later one replaces it), ``RegistrationClosed`` forgets it, round 1 paired ends
self-registration whatever the log says, ``DecklistReplaced`` replaces a player's list (a
State of Wonder list keeps no DBS), ``PlayerRemoved`` takes a registration back, and a player
is found by their token's hash only; ``PlayerLinkReissued`` replaces that hash (the old link
matches nobody), and gives a player registered at the desk a link."""

from __future__ import annotations

import pytest

from ledger.tournament import TournamentError, fold


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


H_OLD, H_NEW, H_BOB = "a" * 64, "b" * 64, "c" * 64


def test_a_reissued_player_link_the_old_hash_stops_matching_and_the_new_one_matches():
    reissued = {"type": "PlayerLinkReissued", "player": "Ann", "token_hash": H_NEW}
    t = fold([created(), registered("Ann", H_OLD), registered("Bob"), reissued])
    ann = t.players["Ann"]
    assert t.player_with_token(H_OLD) is None  # the lost link: nobody's now
    assert t.player_with_token(H_NEW) is ann
    assert ann.is_self_registered and ann.has_link and ann.links_reissued == 1
    assert ann.deck_text == "3 A" and list(t.players) == ["Ann", "Bob"]  # entry order kept
    # a player registered at the desk given a link: has one, did not register themselves
    t = fold([created(), registered("Ann", H_OLD), registered("Bob"),
              {**reissued, "player": "Bob", "token_hash": H_BOB}])
    bob = t.players["Bob"]
    assert t.player_with_token(H_BOB) is bob and bob.has_link and not bob.is_self_registered
    assert t.player_with_token(H_OLD) is t.players["Ann"]  # another player's link untouched
    # twice: only the latest matches
    t = fold([created(), registered("Ann", H_OLD), reissued, {**reissued, "token_hash": H_BOB}])
    assert t.player_with_token(H_NEW) is None and t.player_with_token(H_BOB) is t.players["Ann"]
    assert t.players["Ann"].links_reissued == 2


def test_who_may_be_given_a_link_before_and_after_round_1():
    paired = {"type": "RoundPaired", "round": 1, "bye": None,
              "tables": [{"table": 1, "a": "Ann", "b": "Bob"}]}
    t = fold([created(), registered("Ann", H_OLD), registered("Bob")])
    assert t.can_reissue_link(t.players["Ann"]) and t.can_reissue_link(t.players["Bob"])
    t = fold([created(), registered("Ann", H_OLD), registered("Bob"), paired])
    assert t.can_reissue_link(t.players["Ann"]) and not t.can_reissue_link(t.players["Bob"])


def test_a_reissue_line_that_does_not_fit_is_refused_naming_its_seq():
    base = [created(), registered("Ann", H_OLD)]
    for bad, why in (({"player": "Nobody", "token_hash": H_NEW}, "no field 'Nobody'"),
                     ({"player": "Ann"}, "no field 'token_hash'"),
                     ({"player": "Ann", "token_hash": "not-a-hash"}, "is not a SHA-256")):
        event = {"seq": 2, "type": "PlayerLinkReissued", **bad}
        with pytest.raises(TournamentError) as raised:
            fold([*base, event])
        assert str(raised.value).startswith("tournament log seq 2 ('PlayerLinkReissued'): ")
        assert why in str(raised.value)
