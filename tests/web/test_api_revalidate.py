"""A polled board is revalidated, not sent again (issue 19; :func:`web.api.common.revalidated`):
the state answers carry an ``ETag`` naming their bytes, and a client that sends it back as
``If-None-Match`` gets ``304`` and no body until the board moves.  The tag is given only to a
caller who may read the board, and names one perspective's bytes: another seat's tag is no
good for this seat.  The /play page polls every 1.5 s; a browser revalidates by itself."""

from __future__ import annotations

import gzip
import http.client
import json
import random

import pytest

from tests.e2e.helpers import start_server, stop_server
from tests.web.test_api import ORGANIZER, SEATS, Api, choose, new_app


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path, spectator_delay=0))


def state(api, mid, token=None, tag=None, public=False, **headers):
    if tag is not None:
        headers["If-None-Match"] = tag
    path = f"/api/{'public/' if public else ''}matches/{mid}/state"
    return api.client.get(path, headers={**headers, **(
        {"Authorization": f"Bearer {token}"} if token else {})})


def decide_once(api, mid, tokens):
    prompt = api.state(mid, tokens["A"])["prompt"]
    seat = prompt["seat"]
    prompt = api.state(mid, tokens[seat])["prompt"]
    status, data = api.decide(mid, tokens[seat], choose(prompt, random.Random(1)),
                              api.state(mid, tokens[seat])["length"])
    assert status == 201, data


def test_an_unchanged_board_is_304_without_a_body_and_a_moved_one_is_sent_again(api):
    mid, tokens = api.create()
    first = state(api, mid, tokens["A"])
    tag = first.headers["ETag"]
    assert first.status_code == 200 and tag.startswith('"') and len(tag) > 10
    assert first.headers["Cache-Control"] == "private, no-cache"  # a seat's view: no shared cache
    again = state(api, mid, tokens["A"], tag)
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == tag
    assert state(api, mid, tokens["A"], f'"other", {tag}').status_code == 304  # a list of tags
    assert state(api, mid, tokens["A"], f"W/{tag}").status_code == 304  # weak comparison
    assert state(api, mid, tokens["A"], '"stale"').status_code == 200
    decide_once(api, mid, tokens)
    moved = state(api, mid, tokens["A"], tag)
    assert moved.status_code == 200 and moved.headers["ETag"] != tag
    assert moved.get_json()["length"] > first.get_json()["length"]


def test_a_tag_is_good_only_for_the_perspective_it_came_from_and_only_with_a_token(api):
    mid, tokens = api.create()
    tag_a = state(api, mid, tokens["A"]).headers["ETag"]
    tag_b = state(api, mid, tokens["B"]).headers["ETag"]
    tag_judge = state(api, mid, tokens["judge"]).headers["ETag"]
    assert len({tag_a, tag_b, tag_judge}) == 3  # each perspective sees other bytes
    assert state(api, mid, tokens["B"], tag_a).status_code == 200
    assert state(api, mid, tokens["B"], tag_b).status_code == 304
    no_token = state(api, mid, None, tag_a)
    assert no_token.status_code == 401 and "ETag" not in no_token.headers
    wrong = state(api, mid, "not-a-token-of-this-match", tag_a)
    assert wrong.status_code == 401 and "ETag" not in wrong.headers


def test_the_gzip_answers_tag_revalidates_the_same_board(api):
    mid, tokens = api.create()
    packed = state(api, mid, tokens["A"], **{"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    tag = packed.headers["ETag"]  # the compressor's '"<tag>:gzip"'
    assert json.loads(gzip.decompress(packed.data))["perspective"] == "A"
    again = state(api, mid, tokens["A"], tag, **{"Accept-Encoding": "gzip"})
    assert again.status_code == 304 and again.data == b""
    assert state(api, mid, tokens["A"], tag).status_code == 304  # the same bytes, plain


def test_the_public_board_revalidates_too_and_may_be_kept_by_any_cache(api):
    mid, tokens = api.create()
    first = state(api, mid, public=True)
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-cache"
    assert state(api, mid, tag=first.headers["ETag"], public=True).status_code == 304
    decide_once(api, mid, tokens)
    assert state(api, mid, tag=first.headers["ETag"], public=True).status_code == 200


def test_the_openapi_document_names_the_etag_and_the_304():
    from web.api.openapi import document
    paths = document("t", "v")["paths"]
    for path in ("/api/matches/{match_id}/state", "/api/public/matches/{match_id}/state"):
        answers = paths[path]["get"]["responses"]
        assert "ETag" in answers["200"]["headers"] and "304" in answers


def test_a_real_server_answers_304_on_a_kept_alive_connection(tmp_path):
    """Through waitress: the 304 has no body, so the same connection serves the next request."""
    proc, address = start_server(tmp_path / "store", ORGANIZER)
    try:
        host, port = address.split("//")[1].rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("POST", "/api/matches", json.dumps({"seats": SEATS}),
                     {"Authorization": f"Bearer {ORGANIZER}", "Content-Type": "application/json"})
        created = json.loads(conn.getresponse().read())
        path = f"/api/matches/{created['match_id']}/state"
        auth = {"Authorization": f"Bearer {created['tokens']['A']}"}
        conn.request("GET", path, headers=auth)
        first = conn.getresponse()
        body, tag = first.read(), first.getheader("ETag")
        for _ in range(3):
            conn.request("GET", path, headers={**auth, "If-None-Match": tag})
            again = conn.getresponse()
            assert again.status == 304 and again.read() == b"" and again.getheader("ETag") == tag
        conn.request("GET", path, headers=auth)
        assert conn.getresponse().read() == body
    finally:
        stop_server(proc)
