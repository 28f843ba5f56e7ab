"""A /play link naming a match the store doesn't have (a mistyped or stale link) is a 404
saying so, not the form asking for a token -- which no token could ever pass ("That is not a
seat or judge token of this match").  A match that exists opens its form as before, and so
does one whose file is damaged (its page's calls name the damage).  A real app over a file
store."""

from __future__ import annotations

import html

from tests.web.test_api import Api, new_app


def test_an_unknown_match_is_a_404_and_a_known_one_opens(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create()
    client = api.app.test_client()
    for path in ("/play/friday-night-r9-t01", "/play/friday-night-r9-t01?token=abc"):
        answer = client.get(path, headers={"Accept": "text/html"})
        assert answer.status_code == 404, path
        assert "no match 'friday-night-r9-t01'" in html.unescape(answer.get_data(as_text=True))
    entered = client.post("/play/friday-night-r9-t01", data={"token": tokens["A"]},
                          headers={"Origin": "http://localhost"})
    assert entered.status_code == 404
    known = client.get(f"/play/{mid}")
    assert known.status_code == 200 and 'name="token"' in known.get_data(as_text=True)
    assert client.get(f"/play/{mid}?token={tokens['A']}").status_code == 303
    path = tmp_path / "store" / f"{mid}.jsonl"
    assert path.exists(), sorted(p.name for p in path.parent.iterdir())
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]) + b'{"seq": 1, "broken\n')  # a damaged last line
    damaged = api.app.test_client().get(f"/play/{mid}")
    assert damaged.status_code == 200 and 'name="token"' in damaged.get_data(as_text=True)
