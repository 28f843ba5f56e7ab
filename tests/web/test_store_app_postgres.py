"""The Flask app on a PostgreSQL store (Flask's test client): a match's whole life through the
API, the listing filtered by the store, one match's summary, import and download (the file
byte-identical to the lines recorded), the viewer's list and a restart that finds it all."""

from __future__ import annotations

import random

from ledger.stores import open_store
from replay.replayer import Replay
from replay.wotf.cards import default_cards
from tests.web.test_api import ORGANIZER, Api, drive
from web.app import create_app
from web.config import Settings


def pg_app(url):
    return Api(create_app(Settings(store=url, organizer_token=ORGANIZER, secret_key="s" * 32)))


def test_a_match_recorded_listed_downloaded_and_imported_on_postgresql(pg_url, postgres_cluster):
    api = pg_app(pg_url)
    assert isinstance(api.app.extensions["wonders"].settings.store, str)
    mid, tokens = api.create(tournament="PG Open", round=2, table=5)
    other, _ = api.create(tournament="PG Open", round=3, table=1)
    assert drive(api, mid, tokens, random.Random(5)) > 10
    # listing, filtered by the store; one match's summary
    status, listed = api.call("GET", "/api/matches?tournament=PG%20Open&round=2")
    assert status == 200 and [m["match_id"] for m in listed["matches"]] == [mid]
    status, listed = api.call("GET", "/api/matches?ended=false")
    assert [m["match_id"] for m in listed["matches"]] == [other]
    status, one = api.call("GET", f"/api/matches/{mid}")
    assert status == 200 and one["ended"] and one["tournament"] == "PG Open"
    assert api.call("GET", "/api/matches/nope")[0] == 404
    assert api.call("GET", "/api/matches/bad%20id")[0] == 400
    # the download is the lines as recorded, and they re-derive
    response = api.client.get(f"/api/public/matches/{mid}/file")
    assert response.status_code == 200
    data = response.get_data()
    store = open_store(pg_url)
    try:
        assert data == store.export_lines(mid)
        Replay(list(store.read(mid)), default_cards())
    finally:
        store.close()
    # import it into another database: stored byte for byte, with fresh tokens
    target = pg_app(postgres_cluster.schema_url())
    status, out = target.call("POST", "/api/import", ORGANIZER, raw=data)
    assert status == 201, out
    assert set(out["tokens"]) == {"A", "B", "judge"}
    assert target.client.get(f"/api/public/matches/{mid}/file").get_data() == data
    assert target.call("POST", "/api/import", ORGANIZER, raw=data)[0] == 409
    # the viewer lists both matches; a restarted app on the same database finds everything
    page = api.client.get("/matches").get_data(as_text=True)
    assert mid in page and other in page
    restarted = pg_app(pg_url)
    assert restarted.state(mid, tokens["judge"])["length"] == one["length"]
    assert restarted.call("GET", f"/api/matches/{mid}/state", "x" * 43)[0] == 401


def test_a_database_that_went_away_is_a_503_in_one_line(pg_url):
    api = pg_app(pg_url)
    api.create()
    api.app.extensions["wonders"].store.pool.close()  # as if the database had gone away
    status, out = api.call("GET", "/api/matches")
    assert status == 503 and out["error"] == "unavailable"
    assert out["message"].startswith("PostgreSQL store postgresql://")
    assert "\n" not in out["message"]
