"""A seat writing notes without end on its ended match.

Once a match has ended, each seat's token may attach public notes to it (``POST
…/annotations``), each an event appended to the match file.  Nothing bounded how many: against
a real ``wonders serve``, the losing seat's token wrote 5,292 notes of 2,000 characters in 20
seconds -- the match file grew to 12 MB, the public notes list answered 10.9 MB and the
viewer's page 22 MB, for everyone opening the match, and it would go on as long as the token
did.  A seat now writes at most :data:`web.api.notes.MAX_SEAT_NOTES` notes on a match: the
next is refused (403, one line saying so), nothing written; the other seat, the judge and the
organizer still write theirs.
"""

from __future__ import annotations

from tests.web.test_api import ORGANIZER, Api, new_app
from web.api.notes import MAX_SEAT_NOTES


def _note(api, mid, token, text="a note"):
    return api.call("POST", f"/api/matches/{mid}/annotations", token, {"seq": 1, "text": text})


def test_a_seat_cannot_flood_an_ended_match_with_notes(tmp_path, where):
    api = where if where is not None else Api(new_app(tmp_path))
    mid, tokens = api.create()
    length = api.state(mid, tokens["judge"])["length"]
    status, data = api.decide(mid, tokens["A"], {"type": "Conceded", "reason": "gg"}, length)
    assert status == 201, data

    for n in range(MAX_SEAT_NOTES):
        status, data = _note(api, mid, tokens["A"], "x" * 2000)
        assert status == 201, (n, data)
    before = api.state(mid, tokens["judge"])["length"]
    status, data = _note(api, mid, tokens["A"])
    assert status == 403, "a seat wrote notes without end"
    assert f"at most {MAX_SEAT_NOTES}" in data["message"] and "\n" not in data["message"]
    assert api.state(mid, tokens["judge"])["length"] == before  # nothing written

    for token in (tokens["B"], tokens["judge"], ORGANIZER):  # the others still write
        status, data = _note(api, mid, token)
        assert status == 201, data
