"""A match damaged after a running server read it as ended (``Organizer``'s kept results).

The organizer keeps an ended match's result once read (its record is final), so the standings
of a long event read only the matches still playing.  It kept it for good: a match file
altered by hand after the server had read its ending still counted as that ending, and the
next round was paired on a result the file no longer supported -- while a fresh process (the
CLI, a restarted server) named the table unreadable and refused to pair.  Now a kept result
holds only while the store's version of the match is the one it was read at (a file's stat
identity; PostgreSQL: its row's version), so the running server answers as a fresh one does.
On PostgreSQL the benefit is counted: an unchanged ended match is not asked of the store again.
"""

from __future__ import annotations

import os
import time

from tests.web.damaged_match import alter_first_line, cli_standings, match_path, round_one_ended
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import call


def test_a_match_damaged_after_it_was_read_as_ended_is_unreadable_to_the_running_server(
        tmp_path):
    api = Api(new_app(tmp_path))
    tid, first, second = round_one_ended(api)
    status, body = call(api, "GET", f"/api/tournaments/{tid}/standings")
    assert status == 200 and body["unreadable"] == [], body  # both read as ended: kept
    points = {s["player"]: s["points"] for s in body["standings"]}
    assert points[first["a"]] == points[second["a"]] == 3
    store = api.app.extensions["wonders"].store.root
    alter_first_line(match_path(api, first["match_id"]), first["a"])

    status, body = call(api, "GET", f"/api/tournaments/{tid}/standings")
    assert status == 200, body
    assert [(u["round"], u["table"], u["match_id"]) for u in body["unreadable"]] == [
        (1, first["table"], first["match_id"])]
    points = {s["player"]: s["points"] for s in body["standings"]}
    assert points[first["a"]] == 0 and points[second["a"]] == 3  # the win is no longer known
    status, t = call(api, "GET", f"/api/tournaments/{tid}")
    table = next(tb for tb in t["rounds"][0]["tables"] if tb["table"] == first["table"])
    assert (table["status"], table["result"]) == ("unreadable", "unreadable")

    before = t["length"]
    status, body = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 422, body
    assert f"round 1 table {first['table']} ({first['match_id']})" in body["message"]
    assert call(api, "GET", f"/api/tournaments/{tid}")[1]["length"] == before  # not paired

    # a fresh process says the same
    done = cli_standings(tid, store)
    assert done.returncode == 0, done.stderr
    assert f"round 1 table {first['table']} ({first['match_id']})" in done.stderr


def test_a_match_restored_after_it_was_damaged_counts_again(tmp_path):
    api = Api(new_app(tmp_path))
    tid, first, _second = round_one_ended(api)
    path = match_path(api, first["match_id"])
    good = path.read_bytes()
    assert call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["unreadable"] == []
    alter_first_line(path, first["a"])
    assert len(call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["unreadable"]) == 1
    path.write_bytes(good)  # restored from a backup
    status, body = call(api, "GET", f"/api/tournaments/{tid}/standings")
    assert status == 200 and body["unreadable"] == [], body
    assert {s["player"]: s["points"] for s in body["standings"]}[first["a"]] == 3


def test_a_same_size_edit_with_its_time_set_back_is_seen_by_the_running_server(tmp_path):
    """``cp -p`` of another file over it, or an edit then ``touch -d``: the same inode, size
    and modification time; the inode's change time still moves (the summaries the file store
    keeps are keyed on it too)."""
    api = Api(new_app(tmp_path))
    tid, first, _second = round_one_ended(api)
    path = match_path(api, first["match_id"])
    assert call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["unreadable"] == []
    was = os.stat(path)
    time.sleep(0.05)  # past the file system's clock tick (a few ms), so the change time moves
    data = path.read_bytes()
    name = f'"{first["a"]}"'.encode()
    with open(path, "r+b") as handle:  # in place, one letter of seat A's name changed
        handle.write(data.replace(name, name[:2] + bytes([name[2] ^ 0x20]) + name[3:], 1))
    os.utime(path, ns=(was.st_atime_ns, was.st_mtime_ns))  # set back
    now = os.stat(path)
    assert (now.st_ino, now.st_size, now.st_mtime_ns) == (was.st_ino, was.st_size,
                                                          was.st_mtime_ns)
    body = call(api, "GET", f"/api/tournaments/{tid}/standings")[1]
    assert [u["match_id"] for u in body["unreadable"]] == [first["match_id"]]
    assert call(api, "POST", f"/api/tournaments/{tid}/rounds")[0] == 422


def test_postgres_an_altered_row_is_followed_and_an_unchanged_ended_match_not_asked_again(
        pg_url, monkeypatch):
    """On PostgreSQL a match's result is its row of ``wonders_matches`` (what a fresh
    process's standings read): a row changed by hand after the server read it is followed;
    while no row changes, an ended match is not asked of the store again (counted)."""
    import psycopg

    from tests.web.test_store_app_postgres import pg_app
    api = pg_app(pg_url)
    tid, first, second = round_one_ended(api)
    store = api.app.extensions["wonders"].store
    asked: list[str] = []
    real = store.outcomes

    def counted(match_ids):
        match_ids = list(match_ids)
        asked.extend(match_ids)
        return real(match_ids)
    monkeypatch.setattr(store, "outcomes", counted)
    points = {s["player"]: s["points"]
              for s in call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["standings"]}
    assert points[first["a"]] == points[second["a"]] == 3
    assert sorted(asked) == sorted([first["match_id"], second["match_id"]])
    asked.clear()
    for _ in range(3):
        assert call(api, "GET", f"/api/tournaments/{tid}/standings")[0] == 200
    assert asked == []  # both ended, unchanged: kept

    with psycopg.connect(pg_url, autocommit=True) as conn:  # by hand: B won table 1
        conn.execute("UPDATE wonders_matches SET winner = 'B' WHERE match_id = %s",
                     [first["match_id"]])
    points = {s["player"]: s["points"]
              for s in call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["standings"]}
    assert asked == [first["match_id"]]  # only the changed one read again
    assert points[first["a"]] == 0 and points[first["b"]] == 3
