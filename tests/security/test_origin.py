"""Issue 13, finding 9: the posts that change the /play session (entering with a token, leaving)
accepted cross-site posts: a page anywhere could log a visitor into a table (with a token of
its choosing) or out of one.  They now need an ``Origin`` -- or, without one, a ``Referer`` --
naming the host the request was sent to; anything else is a 403 and the session is unchanged.
The organizer token must be at least 32 characters.
"""

from __future__ import annotations

import pytest

from tests.web.test_api import Api, new_app
from web.config import Settings
from web.errors import ConfigError

HOST = "localhost"  # Flask's test client sends Host: localhost


@pytest.fixture
def table(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create(previous_loser="B")
    return api, mid, tokens


def _enter(api, mid, token, headers):
    return api.client.post(f"/play/{mid}", data={"token": token}, headers=headers)


def _seated(api, mid) -> bool:
    page = api.client.get(f"/play/{mid}").get_data(as_text=True)
    return 'data-role="' in page


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "https://localhost.evil.example"},
    {"Origin": "http://localhost:8001"},  # another port is another origin
    {"Origin": "null"},  # a sandboxed or privacy-stripped cross-site form
    {"Origin": "http://evil.example", "Referer": f"http://{HOST}/play/x"},  # Origin wins
    {"Referer": "http://evil.example/page"},
    {"Referer": "not a url"},
    {},  # no Origin and no Referer: nothing says it came from this site
], ids=["other-site", "lookalike", "other-port", "null", "origin-wins", "referer", "junk", "none"])
def test_a_cross_site_login_post_is_refused_and_the_session_is_unchanged(table, headers):
    api, mid, tokens = table
    response = _enter(api, mid, tokens["B"], headers)
    assert response.status_code == 403, response.get_data(as_text=True)
    assert not _seated(api, mid)


@pytest.mark.parametrize("headers", [
    {"Origin": f"http://{HOST}"},
    {"Origin": f"http://{HOST}:80"},  # the default port, written out
    {"Referer": f"http://{HOST}/play/some-table"},
])
def test_a_same_site_login_post_enters_the_table(table, headers):
    api, mid, tokens = table
    response = _enter(api, mid, tokens["B"], headers)
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/play/{mid}")
    assert _seated(api, mid)


def test_a_cross_site_logout_post_is_refused_and_the_seat_stays(table):
    api, mid, tokens = table
    assert _enter(api, mid, tokens["B"], {"Origin": f"http://{HOST}"}).status_code == 303
    for headers in ({"Origin": "http://evil.example"}, {"Referer": "http://evil.example/"}, {}):
        response = api.client.post(f"/play/{mid}/leave", headers=headers)
        assert response.status_code == 403
        assert _seated(api, mid)
    response = api.client.post(f"/play/{mid}/leave", headers={"Origin": f"http://{HOST}"})
    assert response.status_code == 303 and not _seated(api, mid)


def test_the_origin_check_follows_the_host_the_request_was_sent_to(table):
    api, mid, tokens = table
    headers = {"Host": "tables.example:8000", "Origin": "http://tables.example:8000"}
    assert _enter(api, mid, tokens["B"], headers).status_code == 303
    headers = {"Host": "tables.example:8000", "Origin": f"http://{HOST}"}
    assert _enter(api, mid, tokens["B"], headers).status_code == 403


# -- the organizer token ----------------------------------------------------------------------------


@pytest.mark.parametrize("length", [16, 20, 31])
def test_an_organizer_token_shorter_than_32_characters_is_refused(tmp_path, length):
    with pytest.raises(ConfigError, match="WONDERS_ORGANIZER_TOKEN"):
        Settings.from_env({"WONDERS_STORE": str(tmp_path), "WONDERS_ORGANIZER_TOKEN": "x" * length})
    with pytest.raises(ValueError):
        Settings(store=tmp_path, organizer_token="x" * length)


def test_an_organizer_token_of_32_characters_is_enough(tmp_path):
    settings = Settings.from_env({"WONDERS_STORE": str(tmp_path), "WONDERS_ORGANIZER_TOKEN": "x" * 32})
    assert settings.organizer_token == "x" * 32
