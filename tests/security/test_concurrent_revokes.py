"""Two desks revoking different tokens of one table at the same moment: both revokes hold.

The organizer's reissue and revoke used to read the table's token hashes, change one role and
write the whole set back; two at once each wrote back the role the other had just revoked,
and a revoked token worked again.  Each change now replaces only its own roles, against the
stored set as it is at that moment (the file book under the match's lock file, PostgreSQL in
one ``UPDATE``)."""

from __future__ import annotations

import threading

from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import call, new_tournament

ROUNDS = 8


def _started(api):
    tid = new_tournament(api, players=2)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    return tid, started["tables"][0]


def _race(api, tid, table) -> None:
    """Reissue both seats' tokens, then revoke A and B from two threads released at once;
    neither new token may still work."""
    for _ in range(ROUNDS):
        _s, fresh = call(api, "POST", f"/api/tournaments/{tid}/reissue",
                         {"round": 1, "table": table["table"], "role": "all"})
        tokens = fresh["tokens"]
        go = threading.Barrier(2)
        answers: list[int] = []
        threads = [threading.Thread(target=_revoke, args=(api, tid, table, role, go, answers))
                   for role in "AB"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert answers == [200, 200], answers
        for role in "AB":
            status = api.call("GET", f"/api/matches/{table['match_id']}/state", tokens[role])[0]
            assert status == 401, f"seat {role}'s revoked token still works"
        assert api.call("GET", f"/api/matches/{table['match_id']}/state",
                        tokens["judge"])[0] == 200  # a role nobody revoked is untouched


def test_two_revokes_at_once_both_hold_on_a_file_store(tmp_path):
    api = Api(new_app(tmp_path))
    _race(api, *_started(api))


def test_two_revokes_at_once_both_hold_on_postgresql(pg_url):
    from tests.web.test_store_app_postgres import pg_app
    api = pg_app(pg_url)
    _race(api, *_started(api))


def _revoke(api, tid, table, role: str, go: threading.Barrier, answers: list[int]) -> None:
    go.wait(timeout=10)
    answers.append(call(api, "POST", f"/api/tournaments/{tid}/revoke",
                        {"round": 1, "table": table["table"], "role": role})[0])
