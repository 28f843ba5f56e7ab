"""A token replaced by another process or server stops working everywhere at once.

An organizer reissues or revokes a table's token from the console of one server, or with
``wonders tournament`` in another process; every other server recording on the same store must
refuse the old token from its next request, not after a restart.  The file book re-reads a
token file that was replaced (a new inode); the PostgreSQL book reads the database on every
check.
"""

from __future__ import annotations

import json

from ledger.stores import open_store
from tests.web.test_api import ORGANIZER, Api, new_app
from web.app import create_app
from web.config import Settings
from web.tokens import TokenBook, hash_token, new_token


def _state(api: Api, mid: str, token: str) -> int:
    return api.call("GET", f"/api/matches/{mid}/state", token)[0]


def test_a_token_replaced_by_another_process_stops_working_on_a_running_server(tmp_path):
    api = Api(new_app(tmp_path))
    mid, old = api.create()
    assert _state(api, mid, old["A"]) == 200  # read once: the server now knows the tokens
    new = TokenBook(tmp_path / "store").issue(mid)  # another process replaces them
    assert _state(api, mid, old["A"]) == 401
    assert _state(api, mid, new["A"]) == 200


def test_a_token_replaced_on_one_postgresql_server_stops_working_on_another(pg_url, postgres_cluster):
    settings = Settings(store=pg_url, organizer_token=ORGANIZER, secret_key="s" * 32)
    first, second = Api(create_app(settings)), Api(create_app(settings))
    mid, old = first.create()
    assert _state(second, mid, old["judge"]) == 200
    # A third server reissues the judge's token (as the organizer console does).
    new = new_token()
    store = open_store(pg_url)
    hashes = dict(store.token_hashes(mid), judge=hash_token(new))
    with store._tx() as conn:
        conn.execute("UPDATE wonders_tokens SET hashes = %s WHERE match_id = %s",
                     [json.dumps(hashes), mid])
    assert _state(first, mid, old["judge"]) == 401
    assert _state(second, mid, old["judge"]) == 401
    assert _state(second, mid, new) == 200
    assert _state(first, mid, old["A"]) == 200  # the other roles' tokens are untouched
