"""The match list in pages: ``GET /api/matches`` (``limit``, the ``after`` cursor, ``next``)
and the ``/matches`` page (previous / next links), over a real file store.

Both used to answer every match of the store at once."""

from __future__ import annotations

import re

import pytest

from tests.web.test_api import ORGANIZER, SEATS, Api, new_app


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    api = Api(new_app(tmp_path_factory.mktemp("pages")))
    for n in range(7):
        status, _ = api.call("POST", "/api/matches", ORGANIZER,
                             {"seats": SEATS, "tournament": "Cup" if n % 2 else "Open",
                              "match_id": f"m-{n:02d}"})
        assert status == 201
    return api


def _walk(api, first: str) -> list[list[str]]:
    """Every page from ``first``, following ``next``."""
    pages, url = [], first
    while url:
        status, out = api.call("GET", url)
        assert status == 200, out
        pages.append([m["match_id"] for m in out["matches"]])
        assert out["has_more"] == (out["next"] is not None)
        url = out["next"]
    return pages


def test_the_api_lists_matches_a_page_at_a_time(api):
    assert _walk(api, "/api/matches?limit=3") == [["m-00", "m-01", "m-02"],
                                                  ["m-03", "m-04", "m-05"], ["m-06"]]
    status, out = api.call("GET", "/api/matches")  # a client that knows no pages: all 7 fit
    assert status == 200
    assert [m["match_id"] for m in out["matches"]] == [f"m-{n:02d}" for n in range(7)]
    assert (out["has_more"], out["next"], out["limit"]) == (False, None, 100)


def test_the_filters_hold_on_every_page(api):
    assert _walk(api, "/api/matches?tournament=Cup&limit=2") == [["m-01", "m-03"], ["m-05"]]
    status, out = api.call("GET", "/api/matches?tournament=Open&limit=2&after=m-02")
    assert status == 200
    assert [m["match_id"] for m in out["matches"]] == ["m-04", "m-06"] and not out["has_more"]


@pytest.mark.parametrize("query, word", [("limit=0", "limit"), ("limit=1001", "limit"),
                                         ("limit=x", "limit"), ("after=../x", "after=")])
def test_a_page_out_of_bounds_is_one_clear_400(api, query, word):
    status, out = api.call("GET", f"/api/matches?{query}")
    assert status == 400 and word in out["message"], out


def _rows(html: str) -> list[str]:
    return re.findall(r'<tr data-match="([^"]+)"', html)


def test_the_page_lists_matches_fifty_at_a_time_with_previous_and_next(tmp_path, monkeypatch):
    import web.viewer
    monkeypatch.setattr(web.viewer, "LIST_PAGE", 3)  # 7 matches: pages of 3, 3 and 1
    api = Api(new_app(tmp_path))
    for n in range(7):
        assert api.call("POST", "/api/matches", ORGANIZER,
                        {"seats": SEATS, "tournament": "Cup" if n % 2 else "Open",
                         "match_id": f"m-{n:02d}"})[0] == 201
    html = api.client.get("/matches?desc=1").get_data(as_text=True)
    assert _rows(html) == ["m-06", "m-05", "m-04"] and 'rel="prev"' not in html
    assert "7 of 7 matches · 1–3 shown" in html
    following = re.search(r'<a class="next" rel="next" href="([^"]+)"', html).group(1)
    html = api.client.get(following.replace("&amp;", "&")).get_data(as_text=True)
    assert _rows(html) == ["m-03", "m-02", "m-01"] and "page 2 of 3" in html  # the sort kept
    assert 'rel="prev"' in html and 'rel="next"' in html
    html = api.client.get("/matches?tournament=Open&page=2").get_data(as_text=True)
    assert _rows(html) == ["m-06"] and "4 of 7 matches · 4–4 shown" in html  # the filter kept
    assert 'href="/matches?page=1&amp;sort=match&amp;desc=0&amp;tournament=Open"' in html
    html = api.client.get("/matches?tournament=Open&page=9").get_data(as_text=True)
    assert _rows(html) == ["m-06"]  # past the last page: the last
    assert api.client.get("/matches?page=0").status_code == 400
