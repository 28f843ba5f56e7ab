"""Issue 13, findings 8 and 9: events come in bounded pages, and the public never learns how far
a live match has gone beyond the spectator delay.

One unpaginated events request returned 24.8 MB; now both events endpoints (public and seat)
answer at most ``limit`` events (default 500, at most 2000) with ``next_seq`` and
``has_more``.  A live match's public answers (state, events) used to carry its true length.
"""

from __future__ import annotations

import random

import pytest

from tests.web.test_api import Api, drive, new_app
from tests.web.test_api_judge_public import _step
from tests.web.test_shown_as_recorded import _record_some, diverge

DEFAULT, MAX = 500, 2000


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished match longer than one default page: a played match (some 400-550 events)
    with 150 judge's notes recorded along the way."""
    api = Api(new_app(tmp_path_factory.mktemp("pages")))
    mid, tokens = api.create(match_id="pages-1")
    _step(api, mid, tokens, random.Random(3), 10)
    for n in range(150):
        status, data = api.call("POST", f"/api/matches/{mid}/notes", tokens["judge"],
                                {"text": f"note {n}"})
        assert status == 201, data
    drive(api, mid, tokens, random.Random(3))
    length = api.state(mid, tokens["judge"])["length"]
    assert DEFAULT < length < 2 * DEFAULT
    return api, mid, tokens, length


def _walk(api, path, token=None, limit=None):
    """Every page of an events endpoint, following next_seq; returns (events, pages)."""
    events, pages, start = [], 0, 0
    while True:
        query = f"?from={start}" + (f"&limit={limit}" if limit else "")
        status, page = api.call("GET", path + query, token)
        assert status == 200, page
        pages += 1
        assert len(page["events"]) <= (limit or DEFAULT)
        events += page["events"]
        if not page["has_more"]:
            return events, pages
        assert page["next_seq"] == page["events"][-1]["seq"] + 1 > start
        start = page["next_seq"]


@pytest.mark.parametrize("who", ["public", "judge", "A"])
def test_events_come_in_pages_of_at_most_the_default_limit(finished, who):
    api, mid, tokens, length = finished
    path = f"/api/public/matches/{mid}/events" if who == "public" else f"/api/matches/{mid}/events"
    token = None if who == "public" else tokens[who]
    status, page = api.call("GET", path, token)
    assert status == 200
    assert len(page["events"]) == DEFAULT and page["has_more"] is True
    assert page["next_seq"] == DEFAULT and page["limit"] == DEFAULT
    events, pages = _walk(api, path, token)
    assert [e["seq"] for e in events] == list(range(length)) and pages == 2


@pytest.mark.parametrize("who", ["public", "judge"])
def test_small_pages_add_up_to_the_whole_match(finished, who):
    api, mid, tokens, length = finished
    path = f"/api/public/matches/{mid}/events" if who == "public" else f"/api/matches/{mid}/events"
    token = None if who == "public" else tokens[who]
    whole, _ = _walk(api, path, token, limit=MAX)
    paged, pages = _walk(api, path, token, limit=37)
    assert paged == whole and pages == -(-length // 37)
    status, last = api.call("GET", f"{path}?from={length}", token)
    assert status == 200 and last["events"] == [] and not last["has_more"]
    assert last["next_seq"] == length


@pytest.mark.parametrize("query", ["limit=0", f"limit={MAX + 1}", "limit=-1", "limit=many",
                                   "limit=100000000"])
def test_a_limit_outside_the_bounds_is_a_400(finished, query):
    api, mid, tokens, _ = finished
    for path, token in ((f"/api/public/matches/{mid}/events", None),
                        (f"/api/matches/{mid}/events", tokens["judge"])):
        status, data = api.call("GET", f"{path}?{query}", token)
        assert status == 400 and "limit" in data["message"], (path, query, data)


def test_the_openapi_document_describes_the_pages(finished):
    api = finished[0]
    status, doc = api.call("GET", "/api/openapi.json")
    assert status == 200
    schema = doc["components"]["schemas"]["EventsOut"]
    assert {"events", "next_seq", "has_more", "limit"} <= set(schema["properties"])
    for path in ("/api/public/matches/{match_id}/events", "/api/matches/{match_id}/events"):
        params = {p["name"]: p for p in doc["paths"][path]["get"]["parameters"]}
        assert params["limit"]["schema"]["maximum"] == MAX and params["limit"]["schema"]["minimum"] == 1
        assert "from" in params


# -- a live match's length stays behind the delay ---------------------------------------------------


@pytest.fixture
def live(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=5))
    mid, tokens = api.create()
    _step(api, mid, tokens, random.Random(5), 12)
    length = api.state(mid, tokens["judge"])["length"]
    return api, mid, tokens, length


def test_the_public_state_of_a_live_match_does_not_tell_its_true_length(live):
    api, mid, _tokens, length = live
    status, view = api.call("GET", f"/api/public/matches/{mid}/state")
    assert status == 200 and view["live"] and view["seq"] == length - 1 - 5
    assert view["length"] == view["seq"] + 1  # was the true length: 5 events ahead of the delay
    response = api.client.get(f"/api/public/matches/{mid}/state")
    assert str(length) not in {v for _k, v in response.headers if _k.lower() != "content-length"}


def test_public_events_of_a_live_match_stop_at_the_delay_whatever_is_asked(live):
    api, mid, _tokens, length = live
    visible = length - 1 - 5
    for query in ("", "?limit=1", f"?from={visible}", f"?from={visible + 1}", f"?from={length - 1}",
                  f"?from={length + 50}", f"?from={visible}&limit={MAX}"):
        status, page = api.call("GET", f"/api/public/matches/{mid}/events{query}")
        assert status == 200, page
        assert all(e["seq"] <= visible for e in page["events"]), query
        assert page["next_seq"] <= visible + 1, query
        assert not page["has_more"] or page["next_seq"] <= visible, query
    status, page = api.call("GET", f"/api/public/matches/{mid}/events?from={visible + 1}")
    assert page["events"] == [] and page["has_more"] is False and page["next_seq"] == visible + 1


def test_public_pages_of_a_live_match_walk_up_to_the_delay_and_no_further(live):
    api, mid, _tokens, length = live
    events, _pages = _walk(api, f"/api/public/matches/{mid}/events", limit=3)
    assert [e["seq"] for e in events] == list(range(length - 5))


def test_a_divergence_mark_past_the_delay_is_not_shown_to_spectators(tmp_path):
    """The seq of a divergence mark past the delay would tell how far the match has gone."""
    recorder = Api(new_app(tmp_path, spectator_delay=0))
    mid, tokens = recorder.create()
    _record_some(recorder, mid, tokens)
    where = diverge(tmp_path / "store" / f"{mid}.jsonl")
    length = recorder.state(mid, tokens["judge"])["length"]  # a fresh read of the file
    api = Api(new_app(tmp_path, spectator_delay=length - where))  # shows up to where - 1
    assert api.state(mid, tokens["judge"])["divergence"]["seq"] == where  # the judge sees it
    status, view = api.call("GET", f"/api/public/matches/{mid}/state")
    assert status == 200 and view["seq"] == where - 1 and view["divergence"] is None
    status, page = api.call("GET", f"/api/public/matches/{mid}/events")
    assert status == 200 and page["divergence"] is None
    status, summary = api.call("GET", f"/api/matches/{mid}")
    assert status == 200 and summary["divergence"] is None
    shown = Api(new_app(tmp_path, spectator_delay=length - 1 - where))  # shows up to where
    status, view = shown.call("GET", f"/api/public/matches/{mid}/state")
    assert view["seq"] == where and view["divergence"]["seq"] == where
