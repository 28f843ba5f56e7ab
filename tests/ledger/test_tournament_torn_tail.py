"""A tournament log whose last line was torn -- a writer stopped in the middle of an append
(the machine losing power, the disk filling), or a write still landing when another process
(the CLI beside a server, ``--processes``) reads the log -- where the torn piece happens to
end in ``}``: the end of the event's ``cards`` or ``archive``.

Before, a torn last line was skipped only if it did not end in ``}``: this one was parsed,
was no JSON, and the whole tournament was refused ("a tournament log line is not JSON") by
every page, the API and the CLI; the next append refused too, and an append after a torn
piece that did not end in ``}`` put a newline after it, so a piece became a line of the log
for good.  Now only a line ended by its newline is an event (what a writer acknowledged ends
with one), and an append under the log's lock first cuts a torn tail off (its writer is dead:
writers append under the lock), so the log stays whole lines.
"""

from __future__ import annotations

import json

from ledger.tournament import FileTournamentBook

CREATED = {"type": "TournamentCreated", "tournament_id": "cup", "name": "Cup"}
ANN = {"type": "PlayerRegistered", "player": "Ann", "dbs": 3, "cards": {"Sun Knight": 3}}


def _book(tmp_path, torn: str) -> tuple[FileTournamentBook, object]:
    book = FileTournamentBook(tmp_path)
    assert book.append("cup", 0, [CREATED]) == 1
    path = tmp_path / ".tournaments" / "cup.jsonl"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(torn)  # a writer died here (or is still writing)
    return book, path


def test_a_torn_last_line_ending_in_a_brace_is_no_event(tmp_path):
    book, _path = _book(tmp_path, '{"seq":1,"type":"PlayerRegistered","cards":{"Sun Knight":3}')
    assert book.load("cup").length == 1  # read by another process: not an error


def test_an_append_cuts_the_torn_tail_off(tmp_path):
    for torn in ('{"seq":1,"type":"PlayerRegistered","cards":{"Sun Knight":3}',
                 '{"seq":1,"type":"PlayerReg'):
        book, path = _book(tmp_path / str(len(torn)), torn)
        assert book.append("cup", 1, [ANN]) == 2
        lines = path.read_text(encoding="utf-8").split("\n")
        assert lines[-1] == "" and [json.loads(line)["seq"] for line in lines[:-1]] == [0, 1]
        assert list(book.load("cup").players) == ["Ann"]
        assert book.append("cup", 2, [{"type": "PlayerDropped", "player": "Ann"}]) == 3
