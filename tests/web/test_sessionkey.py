"""The session key kept with the store (web/sessionkey.py): a /play session signed by one
process is honoured by the next one over the same store, a file store's key file is 0600, and
``WONDERS_SECRET_KEY`` still wins when set."""

from __future__ import annotations

import stat

import pytest

from ledger.stores import open_store
from tests.web.test_api import ORGANIZER, SEATS
from web.app import create_app
from web.config import Settings
from web.errors import ConfigError
from web.sessionkey import KEY_FILE, session_key


def _app(store, **overrides):
    return create_app(Settings(store=store, organizer_token=ORGANIZER, **overrides))


def _seat_session(app, mid, token):
    client = app.test_client()
    entered = client.get(f"/play/{mid}?token={token}")
    assert entered.status_code == 303
    return client.get_cookie("session").value


def test_a_play_session_survives_a_new_process_on_the_same_file_store(tmp_path):
    store = tmp_path / "store"
    first = _app(store)
    created = first.test_client().post("/api/matches", json={"seats": SEATS},
                                       headers={"Authorization": f"Bearer {ORGANIZER}"}).get_json()
    cookie = _seat_session(first, created["match_id"], created["tokens"]["A"])
    key = store / KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    second = _app(store)  # a restart: a new app over the same directory
    assert second.config["SECRET_KEY"] == first.config["SECRET_KEY"] == key.read_text()
    client = second.test_client()
    client.set_cookie("session", cookie)
    page = client.get(f"/play/{created['match_id']}")
    assert page.status_code == 200 and b'data-role="A"' in page.data


def test_a_configured_key_wins_and_no_file_is_written(tmp_path):
    app = _app(tmp_path / "store", secret_key="k" * 32)
    assert app.config["SECRET_KEY"] == "k" * 32
    assert not (tmp_path / "store" / KEY_FILE).exists()


def test_a_cut_short_key_file_is_one_clear_error(tmp_path):
    store = open_store(tmp_path / "store")
    (tmp_path / "store" / KEY_FILE).write_text("abc")
    with pytest.raises(ConfigError, match="holds 3 characters"):
        session_key(store)


def test_every_server_on_one_database_signs_with_the_same_key(pg_url, postgres_cluster):
    one, two = open_store(pg_url), open_store(pg_url)
    first = session_key(one)
    assert len(first) == 64 and session_key(two) == first
