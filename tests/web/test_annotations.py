"""Annotations (issue 18, item 4): who may write them, that they are recorded in the log (after
``MatchEnded`` too) and the file still verifies, and that they travel with the file through
download and import."""

from __future__ import annotations

import random

from replay.verify import verify_file
from tests.web.test_api import ORGANIZER, Api, drive, new_app


def _notes(api, mid):
    status, data = api.call("GET", f"/api/public/matches/{mid}/annotations")
    assert status == 200, data
    return data["notes"]


def test_the_judge_and_organizer_annotate_live_a_seat_only_once_ended(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=0))
    mid, tokens = api.create()
    status, data = api.call("POST", f"/api/matches/{mid}/annotations", tokens["judge"],
                            {"seq": 1, "text": "the setup looks right"})
    assert status == 201, data
    assert data["events"][0]["event"]["type"] == "Annotated"
    note_seq = data["events"][0]["seq"]
    status, data = api.call("POST", f"/api/matches/{mid}/annotations", tokens["A"],
                            {"seq": 1, "text": "my hand is great"})
    assert status == 403 and "once it has ended" in data["message"]
    status, data = api.call("POST", f"/api/matches/{mid}/annotations", ORGANIZER,
                            {"seq": 2, "text": "a coach's view", "name": "Coach Kim"})
    assert status == 201, data
    status, data = api.call("POST", f"/api/matches/{mid}/annotations", None,
                            {"seq": 2, "text": "anonymous"})
    assert status == 401
    status, data = api.call("POST", f"/api/matches/{mid}/annotations", tokens["judge"],
                            {"seq": 10_000, "text": "the future"})
    assert status == 422 and "outside 0.." in data["message"]
    notes = _notes(api, mid)
    first = notes[0]
    assert (first["note"], first["seq"], first["author"], first["name"]) == \
        (note_seq, 1, "judge", "Judge")
    assert notes[1]["name"] == "Coach Kim" and notes[1]["author"] == "organizer"

    drive(api, mid, tokens, random.Random(3))  # the match goes on past the notes and ends
    path = api.app.extensions["wonders"].store.path(mid)
    assert verify_file(path).ok
    status, data = api.call("POST", f"/api/matches/{mid}/annotations", tokens["B"],
                            {"seq": 3, "text": "I should have attacked", "name": "Not me"})
    assert status == 201, data
    after = _notes(api, mid)[-1]
    assert after["author"] == "B" and after["name"] != "Not me"  # a seat is shown as its player
    report = verify_file(path)  # after MatchEnded: the chain grew and the file re-derives
    assert report.ok, report.message


def test_notes_travel_with_the_downloaded_file_into_an_import(tmp_path):
    source = Api(new_app(tmp_path / "source"))
    mid, tokens = source.create(match_id="noted-1")
    drive(source, mid, tokens, random.Random(7))
    status, _ = source.call("POST", f"/api/matches/{mid}/annotations", tokens["A"],
                            {"seq": 5, "text": "here it turned"})
    assert status == 201
    response = source.client.get(f"/api/public/matches/{mid}/file")
    assert response.status_code == 200
    target = Api(new_app(tmp_path / "target"))
    status, out = target.call("POST", "/api/import", ORGANIZER, raw=response.data,
                              headers={"Content-Type": "application/x-ndjson"})
    assert status == 201, out
    assert _notes(target, mid) == _notes(source, mid) and _notes(target, mid)[0]["text"] == \
        "here it turned"
