"""Errors on browser routes are HTML pages with one clear line; the API and the pages' own JSON
fetches keep ``{error, message}`` (issue 18 item 2)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.web.test_api import Api, new_app

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


@pytest.mark.parametrize("path,status,line", [
    ("/matches/no-such-match", 404, "no-such-match"),
    ("/play/bad%20id!", 400, ""),
    ("/stats?sort=nonsense", 400, "sort='nonsense'"),
    ("/stats?min_games=many", 400, "min_games"),
    ("/organize/t/x/nothing-here", 404, ""),
])
def test_a_browser_route_answers_an_error_as_a_page(api, path, status, line):
    response = api.client.get(path, headers=BROWSER)
    assert response.status_code == status
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    message = re.search(r'<p class="error">(.*?)</p>', html, re.DOTALL)
    assert message and "\n" not in message.group(1).strip()
    assert line in unescape(message.group(1))
    assert "Traceback" not in html and '"error":' not in html
    assert '<meta name="viewport"' in html  # phone-first, like every page


def test_the_api_and_the_pages_fetches_keep_json(api):
    for path in ("/api/matches/no-such-match/state", "/api/public/matches/no-such-match/events"):
        response = api.client.get(path, headers=BROWSER)  # even a browser: the API is JSON
        assert response.mimetype == "application/json", path
        assert set(response.get_json()) == {"error", "message"}
    for accept in ("*/*", "application/json", None):  # fetch() and scripts
        headers = {"Accept": accept} if accept else {}
        response = api.client.get("/matches/no-such-match/timeline", headers=headers)
        assert response.status_code == 404 and response.get_json()["error"] == "not_found"


@pytest.mark.parametrize("method,path,allowed", [
    ("DELETE", "/api/matches", {"GET", "HEAD", "OPTIONS", "POST"}),
    ("PUT", "/api/matches/m-1/decisions", {"POST", "OPTIONS"}),
    ("TRACE", "/api/health", {"GET", "HEAD", "OPTIONS"}),
    ("PATCH", "/matches/m-1", {"GET", "HEAD", "OPTIONS"}),
])
def test_a_method_the_resource_has_not_is_a_405_naming_the_ones_it_has(api, method, path,
                                                                        allowed):
    """RFC 9110 15.5.6: a 405 carries ``Allow``; the error handler's one-line answer dropped
    the header werkzeug puts on it (schemathesis: "405 without required Allow header")."""
    response = api.client.open(path, method=method)
    assert response.status_code == 405
    assert response.get_json()["error"] == "method_not_allowed"
    assert {m.strip() for m in response.headers.get("Allow", "").split(",")} == allowed
