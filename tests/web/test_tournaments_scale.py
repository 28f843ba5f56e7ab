"""The desk of a big event: what a 300-player tournament did to the console.

Measured through a real server (300 players, nine rounds of random results): the
tournament's page listed every table of every round with its token forms -- 1,350 tables,
1.76 MB, 262,000 px tall on a 390 px phone, the standings 229,000 px down, 26 s to load --
and every page read every match file twice (the board's results, then the standings' again:
5-8 s a page, and every desk action answers with that page).  Now:

* the page shows the latest round's board in full (with a tally naming the tables still
  playing, each a link to its card) and one line per earlier round, linking to that round's
  own page (``/organize/t/<id>/rounds/<n>``, the same cards and forms); section links at the
  top; the matches' results are read once per page;
* an ended match's result is read from the store once (it is final: no take-back, no second
  ending); later pages and standings read only the matches still playing.
"""

from __future__ import annotations

import re
import time

import pytest

from ledger.fileversion import GRANULARITY_NS
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import call, concede, new_tournament
from tests.web.test_tournaments_desk import console


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def _round(api, tid, ended=None):
    """Start the next round; the judge ends its first ``ended`` tables (all: None)."""
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    for table in started["tables"][:ended]:
        concede(api, table["match_id"], table["tokens"]["judge"], "B")
    return started


def _tables(page: str) -> list[str]:
    """The ids of the table cards on a page (``r<round>-t<table>``)."""
    return re.findall(r'<li class="table [a-z-]+" id="(r\d+-t\d+)"', page)


def test_the_page_shows_the_latest_round_and_links_the_earlier_ones(api):
    tid = new_tournament(api, players=8)
    _round(api, tid)
    _round(api, tid)
    third = _round(api, tid, ended=2)  # two tables ended, two still playing
    client, _csrf, page = console(api, tid)
    assert _tables(page) == [f"r3-t{n}" for n in (1, 2, 3, 4)]  # not rounds 1 and 2's
    live = [t["table"] for t in third["tables"][2:]]
    assert (f'4 tables: 2 ended, 2 live — still playing: <a href="#r3-t{live[0]}">table '
            f'{live[0]}</a>, <a href="#r3-t{live[1]}">table {live[1]}</a>') in page
    for number in (1, 2):
        assert f'<a href="/organize/t/{tid}/rounds/{number}">Round {number}</a>' in page
    assert '<a href="#standings">Standings</a>' in page and 'id="standings"' in page
    earlier = client.get(f"/organize/t/{tid}/rounds/1").get_data(as_text=True)
    assert _tables(earlier) == [f"r1-t{n}" for n in (1, 2, 3, 4)]
    assert earlier.count('name="role"') == 4  # each table's reissue / revoke form
    assert 'id="standings"' not in earlier and f'href="/organize/t/{tid}/rounds/3"' in earlier
    missing = client.get(f"/organize/t/{tid}/rounds/4", headers={"Accept": "text/html"})
    assert missing.status_code == 404 and "no round 4" in missing.get_data(as_text=True)
    signed_out = Api(api.app).client  # a fresh client: no session
    assert signed_out.get(f"/organize/t/{tid}/rounds/1").status_code == 303


def test_an_ended_match_is_read_once_and_a_live_one_every_time(api, monkeypatch):
    store = api.app.extensions["wonders"].store
    # looking from past a coarse file-system clock's tick: a match file just written has a
    # version to keep its result under (read within one of its last write, it has none and
    # is read again: ledger.fileversion)
    monkeypatch.setattr(store, "now_ns", lambda: time.time_ns() + GRANULARITY_NS + 10**9)
    tid = new_tournament(api, players=8)
    _round(api, tid)
    second = _round(api, tid, ended=3)  # one table of round 2 still playing
    read: list[str] = []
    info = store.info
    monkeypatch.setattr(store, "info", lambda match_id: read.append(match_id) or info(match_id))
    first = call(api, "GET", f"/api/tournaments/{tid}/standings")[1]
    # round 1's results were read (and kept) when round 2 was paired: round 2's are read now
    assert read == [t["match_id"] for t in second["tables"]]
    read.clear()
    again = call(api, "GET", f"/api/tournaments/{tid}/standings")[1]
    assert again == first and read == [second["tables"][3]["match_id"]]  # the live one only
    concede(api, second["tables"][3]["match_id"], second["tables"][3]["tokens"]["judge"], "A")
    read.clear()
    ended = call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["standings"]
    assert read == [second["tables"][3]["match_id"]]  # read once more: now it has ended
    assert sum(s["points"] for s in ended) == 3 * 8
    read.clear()
    console(api, tid)
    assert read == []  # the page's board and standings: nothing read again


def test_a_result_read_within_a_clock_tick_of_its_match_file_is_read_again(api, monkeypatch):
    """A match that ended within a coarse file-system clock's tick of the look (FAT: 2 s) has
    no version to keep its result under -- a same-size edit in that tick would leave the same
    stat --: it is read at every look until its file is older, then kept."""
    store = api.app.extensions["wonders"].store
    now = {"ns": time.time_ns()}
    monkeypatch.setattr(store, "now_ns", lambda: now["ns"])  # the real time, held still
    tid = new_tournament(api, players=4)
    tables = _round(api, tid, ended=2)["tables"]
    read: list[str] = []
    info = store.info
    monkeypatch.setattr(store, "info", lambda match_id: read.append(match_id) or info(match_id))
    ids = sorted(t["match_id"] for t in tables)
    for _ in range(2):
        read.clear()
        call(api, "GET", f"/api/tournaments/{tid}/standings")
        assert sorted(read) == ids  # within the tick: read again each time
    now["ns"] += GRANULARITY_NS + 10**9  # past it: read once more, then kept
    read.clear()
    call(api, "GET", f"/api/tournaments/{tid}/standings")
    assert sorted(read) == ids
    read.clear()
    call(api, "GET", f"/api/tournaments/{tid}/standings")
    assert read == []
