"""Sessions opened only for a request with the session cookie (web/cookiesession.py): without
one the request gets an empty session and no signer is built; with one it is read and its
signature checked exactly as Flask does."""

from __future__ import annotations

import pytest
from flask import Flask, session

from web.cookiesession import CookieSessions


@pytest.fixture
def app():
    app = Flask(__name__)
    app.secret_key = "k" * 32
    app.session_interface = CookieSessions()

    @app.get("/set")
    def set_():
        session["who"] = "ann"
        return "ok"

    @app.get("/who")
    def who():
        return session.get("who", "nobody")
    return app


def test_a_request_without_the_cookie_gets_an_empty_session_without_a_signer(app, monkeypatch):
    def no_signer(*args):
        raise AssertionError("a signer was built")
    monkeypatch.setattr(app.session_interface, "get_signing_serializer", no_signer)
    client = app.test_client()
    assert client.get("/who").data == b"nobody"
    client.set_cookie("theme", "dark")  # another cookie only: still nothing to open
    assert client.get("/who").data == b"nobody"


def test_a_signed_session_cookie_is_read_and_a_forged_one_is_not(app):
    client = app.test_client()
    client.get("/set")
    assert client.get("/who").data == b"ann"
    forged = app.test_client()
    forged.set_cookie("session", "eyJ3aG8iOiJhbm4ifQ.forged.signature")
    assert forged.get("/who").data == b"nobody"
