"""A judge's /play session over a big event: every table entered added to the session cookie
and none was let go -- 4,142 bytes after 61 tables, past the ~4 KB a browser keeps of a cookie
(Werkzeug warned "Browsers may silently ignore cookies larger than this"), so the judge's
browser kept the old cookie and each new table's token landed back on the form.  Now the
session keeps the latest :data:`web.play.TABLES_KEPT` tables; an earlier one is entered again
with its token.  A real app over a file store, one browser (test client) for the judge."""

from __future__ import annotations

import pytest

from tests.web.test_api import Api, new_app
from web.play import TABLES_KEPT

TABLES = TABLES_KEPT + 30  # a day's walk past the cap: ~4.1 KB of cookie without it
COOKIE_LIMIT = 4093  # what Werkzeug warns at (the size browsers are held to keep)


@pytest.fixture
def judged(tmp_path):
    """A judge's browser that entered ``TABLES`` tables, one after the other."""
    api = Api(new_app(tmp_path))
    judge = api.app.test_client()
    tables = [api.create() for _ in range(TABLES)]
    for mid, tokens in tables:
        assert judge.get(f"/play/{mid}?token={tokens['judge']}").status_code == 303
    return api, judge, tables


def cookie_bytes(api, judge) -> int:
    cookie = judge.get_cookie(api.app.session_interface.get_cookie_name(api.app))
    return len(cookie.key) + len(cookie.value)


def test_the_session_cookie_stays_under_a_browsers_limit(judged):
    api, judge, _tables = judged
    assert cookie_bytes(api, judge) < COOKIE_LIMIT


def test_the_latest_tables_stay_entered_and_an_earlier_one_is_entered_again(judged):
    _api, judge, tables = judged
    for mid, _tokens in tables[-TABLES_KEPT:]:
        assert judge.get(f"/api/matches/{mid}/state").status_code == 200, mid
    mid, tokens = tables[0]
    assert judge.get(f"/api/matches/{mid}/state").status_code == 401  # let go: the earliest
    assert 'name="token"' in judge.get(f"/play/{mid}").get_data(as_text=True)  # the form
    assert judge.get(f"/play/{mid}?token={tokens['judge']}").status_code == 303
    assert judge.get(f"/api/matches/{mid}/state").status_code == 200
    latest, _ = tables[-1]
    assert judge.get(f"/api/matches/{latest}/state").status_code == 200  # still kept
    second, _ = tables[TABLES - TABLES_KEPT]  # the earliest still kept before the new entry
    assert judge.get(f"/api/matches/{second}/state").status_code == 401  # let go for it


def test_entering_a_kept_table_again_keeps_it_as_the_latest(judged):
    api, judge, tables = judged
    early, tokens = tables[TABLES - TABLES_KEPT]  # the earliest kept
    assert judge.get(f"/play/{early}?token={tokens['judge']}").status_code == 303
    new_mid, new_tokens = api.create()
    assert judge.get(f"/play/{new_mid}?token={new_tokens['judge']}").status_code == 303
    assert judge.get(f"/api/matches/{early}/state").status_code == 200  # entered again: kept
    let_go, _ = tables[TABLES - TABLES_KEPT + 1]  # now the earliest: let go for the new one
    assert judge.get(f"/api/matches/{let_go}/state").status_code == 401
