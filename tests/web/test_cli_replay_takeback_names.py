"""``wonders replay --at N`` of an event a take-back to seq 0 undid names its cards as the
table read them.  The take-back starts the game again with new setup shuffles, and each id (a
place in the shuffle) then names another card; before, the command named every event's cards
from the file's last state: "Ann harvests Ember Herald" where the table had read "Ann
harvests Solfera Forge" (the same defect as the web's, tests/security/
test_takeback_reshuffle_names.py).  ``wonders replay`` as a real subprocess."""

from __future__ import annotations

import shutil

from tests.web.restarted_match import restarted
from tests.web.test_api import Api, new_app
from tests.web.test_cli_analytics import ok


def _naming(api, mid: str, tokens: dict) -> tuple[list[int], object]:
    """Some late events that name cards, and a copy of the file as it is now."""
    events = api.call("GET", f"/api/matches/{mid}/events?limit=2000", tokens["judge"])[1]
    naming = [e["seq"] for e in events["events"]
              if e["seq"] > 30 and any(w in e["text"] for w in ("harvests", "'s ability",
                                                                "discards"))][:4]
    path = api.app.extensions["wonders"].store.path(mid)
    return naming, shutil.copy(path, path.parent.parent / "before.jsonl")


def test_an_undone_event_keeps_its_card_names_after_a_new_setup_shuffle(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=0))
    mid, _tokens, _back, (naming, before) = restarted(
        api, lambda mid, tokens: _naming(api, mid, tokens))
    assert naming
    path = api.app.extensions["wonders"].store.path(mid)
    for seq in naming:
        for view in ("A", "omniscient"):
            was = ok("replay", before, "--at", seq, "--as", view).stdout
            now = ok("replay", path, "--at", seq, "--as", view).stdout
            assert now.splitlines()[0] == was.splitlines()[0], (seq, view)
