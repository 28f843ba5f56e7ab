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

import os
import re

import pytest

from tests.web.damaged_match import alter_first_line, match_path
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, NAMES, call, concede, decklist, new_tournament
from tests.web.test_tournaments_desk import ORIGIN, console
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


def test_a_damaged_table_is_named_and_every_other_table_and_the_standings_still_show(
        started, caplog):
    """One table's match file altered by hand: the public page was a 422 for everyone (no
    player could find their table); now that table reads "unreadable", with no path or byte of
    its file, every other table and the standings show, and the server's log has the detail."""
    api, tid, started_round = started
    first, second = started_round["tables"][0], started_round["tables"][1]
    concede(api, second["match_id"], second["tokens"]["judge"], "B")  # seat A wins table 2
    store = api.app.extensions["wonders"].store.root
    alter_first_line(match_path(api, first["match_id"]), first["a"])

    for address in (f"/tournaments/{tid}", f"/tournaments/{tid}/rounds/1"):
        status, html = page(api, address)
        assert status == 200, html
        by_name = {line[1]: line for line in rows(html)}
        assert by_name[first["a"]][4] == by_name[first["b"]][4] == "unreadable"
        assert by_name[second["a"]][4] == "won" and by_name[second["b"]][4] == "lost"
        assert f"round 1 table {first['table']}" in html.split('id="unreadable"', 1)[1]
        assert f'href="/matches/{first["match_id"]}"' not in html
        assert str(store) not in html and f'{first["a"]}x' not in html
    standings = page(api, f"/tournaments/{tid}")[1].split('id="standings"', 1)[1]
    assert re.search(rf"<td>{re.escape(second['a'])}</td><td>3</td>", standings)
    assert any(first["match_id"] in r.getMessage() and "hash" in r.getMessage()
               for r in caplog.records)


def test_a_tournament_whose_round_time_was_edited_by_hand_is_named_not_a_500(started):
    """A ``RoundClockSet`` of ``"abc"`` typed into the log by hand made ``/tournaments`` (every
    tournament's list) and the tournament's page a 500; now the list names it as unreadable
    and its page is one line."""
    api, tid, _ = started
    new_tournament(api, players=2, name="Second Cup")
    log = api.app.extensions["wonders"].store.root / ".tournaments" / f"{tid}.jsonl"
    with log.open("a", encoding="utf-8") as handle:
        handle.write('{"seq":99,"at":"2026-11-27T10:00:00.000Z","type":"RoundClockSet",'
                     '"minutes":"abc"}\n')
    status, html = page(api, "/tournaments")
    assert status == 200 and "Second Cup" in html
    assert tid in html.split('class="error"', 1)[1]  # named as unreadable
    status, html = page(api, f"/tournaments/{tid}")
    assert status == 404 and "can't be read" in html and "Traceback" not in html


def test_a_table_whose_match_file_is_no_regular_file_is_damage_too(started):
    """A table's match file replaced by a FIFO: the match was a 400 ``ledger`` and the public
    page a 400 for everyone (NotAMatchFileError carried no fields, so it was not known as an
    error about stored data); now it is the damaged match's 422 ``integrity`` line, and on the
    public page that table reads "unreadable" while every other table shows."""
    api, tid, started_round = started
    first, second = started_round["tables"][0], started_round["tables"][1]
    path = match_path(api, first["match_id"])
    path.unlink()
    os.mkfifo(path)
    status, data = api.call("GET", f"/api/matches/{first['match_id']}/state",
                            first["tokens"]["judge"])
    assert (status, data["error"]) == (422, "integrity"), data
    assert data["message"] == (f"match {first['match_id']} cannot be read: not a regular file "
                               f"(wonders verify on the server gives the detail)")
    status, html = page(api, f"/tournaments/{tid}")
    assert status == 200, html
    by_name = {line[1]: line for line in rows(html)}
    assert by_name[first["a"]][4] == "unreadable" and by_name[second["a"]][4] == "playing"


def test_one_unreadable_tournament_hides_none_of_the_others_from_the_organizer(started):
    """A tournament log cut inside its first line made the console's index a 400 ("no
    tournament 'second-cup'") and ``GET /api/tournaments`` a 404: the organizer could reach
    none of the store's tournaments.  Now both list the others and name the unreadable one."""
    api, tid, _ = started
    new_tournament(api, players=2, name="Second Cup")
    log = api.app.extensions["wonders"].store.root / ".tournaments" / "second-cup.jsonl"
    log.write_bytes(log.read_bytes()[:40])
    status, data = call(api, "GET", "/api/tournaments")
    assert status == 200, data
    assert [t["tournament_id"] for t in data["tournaments"]] == [tid]
    assert data["unreadable"] == ["second-cup"]
    client, _csrf, _page = console(api, tid)
    response = client.get("/organize")
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    assert "Harbour Open" in html and "second-cup" in html.split('id="unreadable"', 1)[1]


def test_the_console_board_names_a_damaged_table_and_still_reissues_the_others(started):
    """A table's match file altered: the organizer's console page for the tournament was a 422
    (the board, the clock, reissues and drops out of reach); now the board shows, that table
    reads "unreadable" and is named, and another table's token is still reissued from it."""
    api, tid, started_round = started
    first, second = started_round["tables"][0], started_round["tables"][1]
    alter_first_line(match_path(api, first["match_id"]), first["a"])
    client, csrf, _ = console(api, tid)
    response = client.get(f"/organize/t/{tid}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    assert first["match_id"] in html.split('id="damaged"', 1)[1].split("</p>", 1)[0]
    board = html.split(f'id="r1-t{first["table"]}"', 1)[1].split("</li>", 1)[0]
    assert '<span class="status">unreadable</span>' in board
    assert f'{first["a"]}x' not in html
    response = client.post(f"/organize/t/{tid}/reissue", headers=ORIGIN, data={
        "csrf": csrf, "round": "1", "table": str(second["table"]), "role": "A"})
    assert response.status_code == 201, response.get_data(as_text=True)
    assert "/play/" in response.get_data(as_text=True)  # the new link, shown once
