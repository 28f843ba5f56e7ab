"""The tournaments' public pages (``/tournaments``, ``/tournaments/<id>``, its rounds): a
player finds their table by name without any token, and nothing of a deck or a token shows.

Seven players (so round 1 has a bye) register with the shipped decks; round 1 starts through
the API; one table ends by concession.  Checked, anonymously: every player of the round is on
one line, sorted by name, with table, seat, opponent and their own result (won / lost /
playing / bye); the tally names the tables still playing; ``?player=`` finds one player (case
aside); the standings rank the winner and the bye first; no token, no decklist card and no
Deck Balance Score is in the page; an unknown tournament or round is a 404 with one line.
"""

from __future__ import annotations

import re

import pytest

from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, NAMES, call, concede, decklist, new_tournament
from tests.web.test_tournaments_desk import console
from web.tournament_pages import is_found

PLAYERS = 7  # an odd count: round 1 has a bye


@pytest.fixture
def started(tmp_path):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=PLAYERS, name="Harbour Open")
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    return api, tid, started


def page(api, path):
    response = api.client.get(path)  # no token, no session: anyone
    return response.status_code, response.get_data(as_text=True)


def rows(html: str) -> list[list[str]]:
    """The pairings' lines as the page shows them: table, player, seat, opponent, result (or
    the one line of an empty list)."""
    found = html.split('<ol class="seatings" id="seatings">', 1)[1].split("</ol>", 1)[0]
    out = []
    for item in re.findall(r"<li[^>]*>(.*?)</li>", found, re.S):
        def text(cls: str, item: str = item) -> str:
            match = re.search(rf'class="[^"]*\b{cls}\b[^"]*">(.*?)</', item, re.S)
            return re.sub(r"<[^>]+>", "", match.group(1)).strip() if match else ""
        if 'class="who"' not in item:  # the empty list's one line
            out.append([re.sub(r"<[^>]+>", "", item).strip()])
            continue
        out.append([text("table-number") or "—", text("name"), text("seat"), text("opp"),
                    text("outcome")])
    return out


def test_every_player_finds_their_table_by_name_and_no_token_or_deck_shows(started):
    api, tid, started_round = started
    first = started_round["tables"][0]
    concede(api, first["match_id"], first["tokens"]["judge"], "B")  # seat A wins table 1

    status, html = page(api, f"/tournaments/{tid}")
    assert status == 200, html
    lines = rows(html)
    names = [line[1] for line in lines]
    assert names == sorted(NAMES[:PLAYERS])  # each player once, by name
    by_name = {line[1]: line for line in lines}
    a, b = first["a"], first["b"]
    assert by_name[a][0] == str(first["table"]) and by_name[a][2] == "A"
    assert by_name[a][3] == b and by_name[a][4] == "won"
    assert by_name[b][3] == a and by_name[b][4] == "lost"
    bye = started_round["bye"]
    assert by_name[bye][0] == "—" and by_name[bye][3] == "has the bye" and by_name[bye][4] == "bye"
    still = sorted(t["table"] for t in started_round["tables"][1:])
    assert all(by_name[t["a"]][4] == "playing" for t in started_round["tables"][1:])
    assert f"3 tables: 1 ended, still playing: {', '.join(map(str, still))}" in html
    assert f'href="/matches/{first["match_id"]}"' in html  # watch the table

    # The standings: the winner and the bye on 3 points, the loser on 0; no DBS column.
    standings = html.split('id="standings"', 1)[1]
    first_place = sorted([a, bye])[0]
    assert re.search(rf"<td>1</td><td>{re.escape(first_place)}( <span[^<]*</span>)?</td>"
                     rf"<td>3</td><td>1-0-0</td>", standings)  # a bye counts as a win
    assert "DBS" not in html
    # Nothing a seat or the judge records with, nothing of a deck.
    for table in started_round["tables"]:
        for token in table["tokens"].values():
            assert token not in html
    assert "token=" not in html
    cards = {line.split(" ", 1)[1] for line in decklist(DECKS[0]).splitlines()[1:]}
    assert cards and not [card for card in cards if card in html]  # Ann's deck


def test_find_your_table_narrows_to_the_names_that_contain_it(started):
    api, tid, _ = started
    status, html = page(api, f"/tournaments/{tid}?player=ANN")
    assert status == 200
    assert [line[1] for line in rows(html)] == ["Ann"]
    assert "1 of 7 players match" in html
    status, html = page(api, f"/tournaments/{tid}?player=zz")
    assert [line[0] for line in rows(html)] == ["No player's name contains “zz”."]


def test_the_list_and_the_rounds_and_what_is_not_there(started):
    api, tid, _ = started
    status, html = page(api, "/tournaments")
    assert status == 200 and "Harbour Open" in html and f"/tournaments/{tid}" in html
    status, html = page(api, f"/tournaments/{tid}/rounds/1")
    assert status == 200 and len(rows(html)) == PLAYERS and 'id="standings"' not in html
    for path in (f"/tournaments/{tid}/rounds/2", "/tournaments/no-such-cup"):
        status, html = page(api, path)
        assert status == 404, (path, html)
        assert "Traceback" not in html


def test_a_tournament_still_registering_says_so(tmp_path):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=2, name="Open Door")
    status, html = page(api, f"/tournaments/{tid}")
    assert status == 200
    assert "No round has been paired yet" in html and 'id="standings"' not in html
    assert "Registration is open" not in html  # only once the organizer opens it (test_selfreg)


def test_a_later_round_is_listed_by_name_not_by_table(started):
    """Round 2 is paired by the standings, so its tables are not in name order; the page is."""
    api, tid, first_round = started
    for table in first_round["tables"]:
        concede(api, table["match_id"], table["tokens"]["judge"], "A")  # every seat B wins
    status, second = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, second
    by_table = [name for t in second["tables"] for name in (t["a"], t["b"])]
    assert by_table != sorted(by_table)  # else this test would show nothing
    status, html = page(api, f"/tournaments/{tid}")
    names = [line[1] for line in rows(html)]
    assert names == sorted(names) and len(names) == PLAYERS
    assert "Round 2" in html and f'/tournaments/{tid}/rounds/1"' in html


def test_the_console_shows_the_organizer_the_public_page_to_share(started):
    api, tid, _ = started
    _, _, console_page = console(api, tid)
    assert f'href="/tournaments/{tid}"' in console_page
    assert f"http://localhost/tournaments/{tid}" in console_page  # the address to share


@pytest.mark.parametrize("wanted, name, found", [
    ("o brien", "Finn Ó Brien", True), ("ZOË", "Zoë Park", True), ("zoe", "Zoë Park", True),
    ("ann", "Hana Sato", False), ("", "Ann", True)])
def test_a_search_finds_a_name_case_and_accents_aside(wanted, name, found):
    assert is_found(wanted, name) is found


def test_an_unreadable_tournament_is_named_in_the_list_and_the_others_still_show(started, caplog):
    api = started[0]
    new_tournament(api, players=2, name="Second Cup")
    log = api.app.extensions["wonders"].store.root / ".tournaments" / "second-cup.jsonl"
    log.write_bytes(log.read_bytes()[:40])  # cut inside its first line
    status, html = page(api, "/tournaments")
    assert status == 200 and "Harbour Open" in html
    assert "second-cup" in html and "can't be read" in html
    assert str(log) not in html  # the server's path is for its log
    assert any("second-cup" in r.getMessage() for r in caplog.records)
