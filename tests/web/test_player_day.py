"""A player's own page on tournament day (``/tournaments/<id>/me``, web/player_day.py): their
situation first -- this round's table, opponent (by name), seat and result -- then each earlier
round of theirs and their standing, over a real app and a file store, the tournament driven
through the organizer's API.

Seven players registered at the desk (round 1 has a bye), each given a player link before
round 1 (``POST …/player-links``) and opening it on their own phone.  Checked: before round 1
no round or standing shows; round 1 paired: a player's table, opponent, seat and "playing",
the other seat's page theirs, no seat link (where it comes from is said instead), no other
player's decklist; a table ended: "won" / "lost" (a judge's draw: "draw") and the
standing the standings API computes (place, points, W-L-D); the bye; a dropped player (said,
not paired in round 2, round 1 kept among the earlier rounds); a table whose match file is
damaged: the page opens and says that table can't be read, as the tournament's page does.
"""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.web.test_api import Api, new_app
from tests.web.test_selfreg import Phone
from tests.web.test_tournaments import DECKS, NAMES, call, concede, decklist, new_tournament

PLAYERS = 7  # an odd count: round 1 has a bye


@pytest.fixture
def day(tmp_path):
    """A tournament of seven players registered at the desk, each with their phone opened on
    their player link (given by the organizer before round 1)."""
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=PLAYERS, name="Harbour Open")
    phones = {}
    for name in NAMES[:PLAYERS]:
        status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links",
                            {"player": name})
        assert status == 201, data
        phone = Phone(api)
        assert phone.get(data["link"].removeprefix("http://localhost"))[0] == 303
        phones[name] = phone
    return api, tid, phones


def start(api, tid):
    status, data = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, data
    return data


def mine(phones, tid, name):
    status, html, _ = phones[name].get(f"/tournaments/{tid}/me")
    assert status == 200, html
    return html


def _text(cls: str, html: str) -> str:
    found = re.search(rf'class="[^"]*\b{cls}\b[^"]*">(.*?)</', html, re.S)
    return unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip() if found else ""


def section(html: str, sid: str) -> str | None:
    found = re.search(rf'<(section|ol|p)[^>]*id="{sid}"[^>]*>(.*?)</\1>', html, re.S)
    return found.group(2) if found else None


def this_round(html: str) -> dict[str, str] | None:
    """This round's box as the page shows it (None: no such box)."""
    box = section(html, "this-round")
    if box is None:
        return None
    return {"round": _text("round-number", box), "table": _text("table-number", box),
            "opponent": _text("opp", box), "seat": _text("seat", box),
            "outcome": _text("outcome", box), "text": unescape(re.sub(r"<[^>]+>", " ", box))}


def earlier(html: str) -> list[list[str]]:
    """Each earlier round's line: round, table, opponent, outcome."""
    found = section(html, "earlier-rounds")
    if found is None:
        return []
    return [[_text("round-number", item), _text("table-number", item), _text("opp", item),
             _text("outcome", item)]
            for item in re.findall(r"<li[^>]*>(.*?)</li>", found, re.S)]


def standing(html: str) -> dict[str, str] | None:
    box = section(html, "standing")
    if box is None:
        return None
    return {k: _text(k, box) for k in ("place", "of", "points", "record")}


def api_standing(api, tid, name):
    status, data = call(api, "GET", f"/api/tournaments/{tid}/standings")
    assert status == 200, data
    row = next(s for s in data["standings"] if s["player"] == name)
    return {"place": str(row["rank"]), "of": str(len(data["standings"])),
            "points": str(row["points"]),
            "record": f"{row['wins'] + row['byes']}-{row['losses']}-{row['draws']}"}


def test_before_round_1_the_page_has_no_round_and_no_standing(day):
    _api, tid, phones = day
    html = mine(phones, tid, "Ann")
    assert this_round(html) is None and standing(html) is None and earlier(html) == []
    assert "your table shows here once round 1 is paired" in unescape(section(html, "no-round"))
    assert decklist(DECKS[0]).splitlines()[1] in html  # her own list, as before


def test_round_1_paired_each_player_sees_their_table_opponent_and_seat(day):
    api, tid, phones = day
    started = start(api, tid)
    table = started["tables"][0]
    a, b = table["a"], table["b"]
    html = mine(phones, tid, a)
    assert this_round(html) | {"text": ""} == {
        "round": "1", "table": str(table["table"]), "opponent": b, "seat": "A",
        "outcome": "playing", "text": ""}
    # where the seat link comes from is said; no seat link, no token on the page
    assert "table slip" in this_round(html)["text"] and "/play/" not in html
    for token in table["tokens"].values():
        assert token not in html
    # the other seat's page shows theirs
    assert this_round(mine(phones, tid, b)) | {"text": ""} == {
        "round": "1", "table": str(table["table"]), "opponent": a, "seat": "B",
        "outcome": "playing", "text": ""}
    # a player never sees another player's list: none of Bob's cards that Ann's deck lacks
    own = {line.split(" ", 1)[1] for line in decklist(DECKS[NAMES.index(a)]).splitlines()[1:]}
    theirs = {line.split(" ", 1)[1] for line in decklist(DECKS[NAMES.index(b)]).splitlines()[1:]}
    assert theirs - own and not [card for card in theirs - own if card in html]
    assert earlier(html) == []
    assert standing(html) == api_standing(api, tid, a)  # round 1 under way: nothing ended yet
    assert standing(html)["points"] == "0"


def test_a_table_ended_shows_the_result_and_the_standing(day):
    api, tid, phones = day
    started = start(api, tid)
    table = started["tables"][0]
    a, b = table["a"], table["b"]
    concede(api, table["match_id"], table["tokens"]["judge"], "B")  # seat A wins
    html = mine(phones, tid, a)
    assert this_round(html)["outcome"] == "won"
    assert "table slip" not in this_round(html)["text"]  # the match is over: no seat link to find
    assert standing(html) == api_standing(api, tid, a)
    assert standing(html)["points"] == "3" and standing(html)["record"] == "1-0-0"
    html = mine(phones, tid, b)
    assert this_round(html)["outcome"] == "lost"
    assert standing(html) == api_standing(api, tid, b) and standing(html)["record"] == "0-1-0"
    drawn = started["tables"][1]  # the judge's draw at time: 1 point each
    status, data = api.call("POST", f"/api/matches/{drawn['match_id']}/ending",
                            drawn["tokens"]["judge"],
                            {"kind": "draw", "draw": "time", "reason": "round time"})
    assert status == 201, data
    for name in (drawn["a"], drawn["b"]):
        html = mine(phones, tid, name)
        assert this_round(html)["outcome"] == "draw"
        assert standing(html) == api_standing(api, tid, name)
        assert standing(html)["points"] == "1" and standing(html)["record"] == "0-0-1"


def test_the_bye(day):
    api, tid, phones = day
    started = start(api, tid)
    html = mine(phones, tid, started["bye"])
    box = this_round(html)
    assert box["outcome"] == "bye" and box["table"] == "" and box["opponent"] == ""
    assert "bye" in box["text"] and "table slip" not in box["text"]
    assert standing(html) == api_standing(api, tid, started["bye"])
    assert standing(html)["points"] == "3" and standing(html)["record"] == "1-0-0"


def test_a_dropped_player_is_told_and_their_earlier_round_kept(day):
    api, tid, phones = day
    started = start(api, tid)
    for table in started["tables"]:
        concede(api, table["match_id"], table["tokens"]["judge"], "B")
    first = started["tables"][0]
    a, b = first["a"], first["b"]
    assert call(api, "POST", f"/api/tournaments/{tid}/drops", {"player": b})[0] == 201
    html = mine(phones, tid, b)
    assert "dropped after round 1" in unescape(section(html, "dropped") or "")
    second = start(api, tid)
    html = mine(phones, tid, b)
    box = this_round(html)
    assert box["round"] == "2" and box["table"] == "" and "not paired" in box["text"]
    assert earlier(html) == [["1", str(first["table"]), a, "lost"]]
    assert standing(html) == api_standing(api, tid, b)
    # a player still in: round 2 now, round 1 among the earlier rounds
    html = mine(phones, tid, a)
    assert earlier(html) == [["1", str(first["table"]), b, "won"]]
    assert this_round(html)["round"] == "2"
    assert this_round(html)["outcome"] in ("playing", "bye")
    assert section(html, "dropped") is None
    assert second["bye"] != b and b not in [p for t in second["tables"] for p in (t["a"], t["b"])]


def test_a_table_whose_match_cannot_be_read_still_opens_the_page(day):
    api, tid, phones = day
    started = start(api, tid)
    first, second = started["tables"][0], started["tables"][1]
    concede(api, second["match_id"], second["tokens"]["judge"], "B")
    store = api.app.extensions["wonders"].store.root
    path = store / f"{first['match_id']}.jsonl"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[0] = lines[0].replace(f'"{first["a"]}"', f'"{first["a"]}x"', 1)  # altered by hand
    path.write_text("\n".join(lines), encoding="utf-8")
    for name, opponent in ((first["a"], first["b"]), (first["b"], first["a"])):
        html = mine(phones, tid, name)
        box = this_round(html)
        assert box["outcome"] == "unreadable" and box["opponent"] == opponent
        assert "can't be read" in box["text"]
        assert str(store) not in html and f'{first["a"]}x' not in html
        assert standing(html) == api_standing(api, tid, name)  # its result left out
    html = mine(phones, tid, second["a"])
    assert this_round(html)["outcome"] == "won" and standing(html)["points"] == "3"


def test_this_rounds_ended_table_links_its_replay_as_earlier_rounds_do(day):
    """This round's box had no replay link once its table ended (only earlier rounds had one):
    a player who had just lost wanted to look back at the match.  Now an ended table's result
    links its viewer; a table still playing links nothing."""
    api, tid, phones = day
    table = start(api, tid)["tables"][0]
    html = mine(phones, tid, table["a"])
    assert 'id="my-replay"' not in html  # still playing
    concede(api, table["match_id"], table["tokens"]["judge"], "B")
    html = mine(phones, tid, table["a"])
    assert this_round(html)["outcome"] == "won"
    assert f'id="my-replay" href="/matches/{table["match_id"]}"' in html
