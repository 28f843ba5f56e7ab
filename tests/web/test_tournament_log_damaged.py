"""A tournament log damaged by hand or by the disk: a whole line that is not JSON, or bytes that
are not UTF-8, answered 500 "unhandled error" on the players' pages and the API (the fold
named a line that didn't fit its event, but ``json.loads`` failed before it).  Now each is one
line naming the log and where, like any other damaged log; the list of tournaments goes on."""

from __future__ import annotations

import pytest

from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import call, new_tournament


@pytest.mark.parametrize("damage", [b'{"seq": 3, "type": "PlayerDropped", oops}\n',
                                    b'{"seq": 3, "type": "PlayerDropped", "player": "\xff"}\n'])
def test_a_log_line_that_is_not_json_or_not_text_is_one_clear_answer(tmp_path, damage):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=2)
    path = api.app.extensions["wonders"].store.root / ".tournaments" / f"{tid}.jsonl"
    with open(path, "ab") as handle:
        handle.write(damage)
    status, data = call(api, "GET", f"/api/tournaments/{tid}")
    assert status == 422, data
    assert tid in data["message"] and "\n" not in data["message"], data
    assert "not JSON" in data["message"] or "not UTF-8" in data["message"], data
    client = api.app.test_client()
    page = client.get(f"/tournaments/{tid}")
    assert page.status_code != 500 and "Traceback" not in page.get_data(as_text=True)
    listing = client.get("/tournaments")
    assert listing.status_code == 200, listing.get_data(as_text=True)
