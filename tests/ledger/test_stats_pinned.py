"""Statistics on a warehouse written by hand, each figure computed by hand: the order of the
``cards`` table (by win rate in hand, best first; a card never in hand, or never winning
there, after every card that won in hand) and the ``realms`` rows of a realm where no battle
was fought (its stones were held: zero battles, zero seizures)."""

from __future__ import annotations

import pytest

from ledger import stats
from ledger.warehouse import connect


@pytest.fixture
def con(tmp_path):
    """Two ended Wonders matches, A winning both."""
    con = connect(tmp_path / "w.duckdb")
    for match_id in ("m1", "m2"):
        con.execute("INSERT INTO matches (match_id, game, ruleset, ended, winner_seat) "
                    "VALUES (?, 'wotf', '1.3.2', true, 'A')", [match_id])
        con.execute("INSERT INTO players (match_id, seat, player, result) VALUES "
                    "(?, 'A', 'Ann', 'win'), (?, 'B', 'Bob', 'loss')", [match_id, match_id])
    yield con
    con.close()


def _card_game(con, match_id: str, seat: str, card: str, in_hand: bool) -> None:
    con.execute("INSERT INTO card_games (match_id, seat, card, copies, opening, in_hand, played)"
                " VALUES (?, ?, ?, 1, false, ?, false)", [match_id, seat, card, in_hand])


def test_cards_are_ordered_by_win_rate_in_hand_and_the_cards_never_won_in_hand_come_last(con):
    _card_game(con, "m1", "A", "Zephyr Hawk", True)  # in hand, won: GIH 100%
    _card_game(con, "m1", "B", "Arrow Rain", True)  # in hand, lost: GIH 0%
    _card_game(con, "m2", "B", "Moss Golem", False)  # never in hand: no GIH rate
    _card_game(con, "m2", "A", "Ember Fox", True)  # in hand, won
    _card_game(con, "m1", "A", "Ember Fox", True)
    _card_game(con, "m2", "B", "Ember Fox", True)  # in hand, lost: GIH 2 of 3
    table = stats.compute(con, "cards", stats.Filters())
    rates = [(r["card"], r["gih_wr"]) for r in table.records()]
    assert rates[0] == ("Zephyr Hawk", 1.0)
    assert rates[1] == ("Ember Fox", pytest.approx(2 / 3))
    # 0% and no rate at all tie, after every card that won in hand; by name among them
    assert rates[2:] == [("Arrow Rain", 0.0), ("Moss Golem", None)]


def test_a_realm_where_no_battle_was_fought_counts_no_battles(con):
    con.execute("INSERT INTO battles (match_id, seq, realm, attacker, result, winner_seat) VALUES"
                " ('m1', 5, 1, 'A', 'attacker', 'A'), ('m2', 7, 1, 'A', 'attacker', 'A')")
    con.execute("INSERT INTO seizures (match_id, seq, realm, seat, from_side) VALUES"
                " ('m1', 6, 1, 'A', 'center')")
    con.execute("INSERT INTO realm_stones (match_id, realm, stones_a, stones_b, stones_center)"
                " VALUES ('m1', 1, 1, 0, 0), ('m1', 2, 0, 1, 0), ('m2', 2, 1, 0, 0)")
    rows = {r["realm"]: r for r in stats.compute(con, "realms", stats.Filters()).records()}
    assert sorted(rows) == [1, 2]
    assert (rows[1]["battles"], rows[1]["seizures"]) == (2, 1)
    assert (rows[2]["battles"], rows[2]["seizures"]) == (0, 0)
    # realm 2: decided in both matches; the winner (A) held it in m2, the loser in m1
    assert (rows[2]["decided_games"], rows[2]["winner_held"], rows[2]["loser_held"]) == (2, 1, 1)
