"""A match file whose seat names the tournament desk would refuse, imported.

A player's name chosen at registration is refused with a text direction control (it turns the
text round: ``"\\u202eveE"`` reads "Eve"), a control character (a line break) or nothing
visible (a Hangul filler) -- ``tests/security/test_direction_controls_in_names.py``,
``test_lookalike_names_unseen.py``.  A match file's seats carry names too, written by
whoever made the file, and an import (``POST /api/import``: a match recorded elsewhere,
brought to the organizer) took them as they were: against a real ``wonders serve``, the file
with ``"\\u202eveE"`` at seat A imported (201) and the public match list showed its player as
the name turned round ("Eve"); a name with a line break or of a Hangul filler alone, the same.  A create
(``POST /api/matches``) took such names too.  Now both refuse them, one line naming the seat,
nothing stored.
"""

from __future__ import annotations

import msgspec
import pytest

from tests.security.import_files import ORGANIZER, call, legal_seats, match_file, stored
from tests.web.test_api import SEATS

BAD = {"turned": "\u202eveE", "line-break": "Eve\nMal", "blank": "\u3164"}


@pytest.mark.parametrize("kind", list(BAD))
def test_an_import_with_a_name_the_desk_refuses_is_refused(import_server, kind):
    base, store = import_server.base, import_server.store
    seats = legal_seats()
    seats[0] = msgspec.structs.replace(seats[0], player=BAD[kind])
    match_id = f"named-{kind}"
    status, out = call(base, "POST", "/api/import", ORGANIZER, match_file(match_id, seats))
    assert status == 422, (status, out)
    assert "seat A" in out["message"] and "\n" not in out["message"], out
    assert stored(store, match_id) == []


def test_a_plain_import_still_imports(import_server):
    base = import_server.base
    status, out = call(base, "POST", "/api/import", ORGANIZER, match_file("named-ok", legal_seats()))
    assert status == 201, out


@pytest.mark.parametrize("kind", list(BAD))
def test_a_create_with_such_a_name_is_refused(import_server, kind):
    import json
    import urllib.request
    base = import_server.base
    seats = [dict(s) for s in SEATS]
    seats[0]["player"] = BAD[kind]
    request = urllib.request.Request(base + "/api/matches", method="POST",
                                     data=json.dumps({"seats": seats}).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {ORGANIZER}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, out = response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        status, out = exc.code, json.loads(exc.read())
    assert status == 422, (status, out)
    assert "seat A" in out["message"], out
