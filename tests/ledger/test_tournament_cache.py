"""A book's kept fold (:meth:`ledger.tournament.TournamentBook.load`): a log is folded once
per version of it, and never served stale.

Work is counted, not timed: :func:`ledger.tournament.fold` is wrapped (still folding) and the
tests count its calls.  Checked on a file book: repeated loads of an unchanged log fold it
once, and each equals a fresh fold of the log; an append by another book on the same directory
(another process's view) and by a real ``wonders tournament drop`` subprocess is seen by the
next load; a log edited by hand to the same size (in place: same inode) is read again once its
modification time moves, or its change time when the modification time was set back (``cp -p``
of a backup), and so is one cut back; changing everything a load returned (players,
decklists, rounds, tables, records) leaves the next load as the log says; a copy carries every
field of the state.  On PostgreSQL: another store's append and a row updated by hand are seen.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ledger.tournament as tournament_module
from ledger.tournament import (
    FileTournamentBook,
    Player,
    Round,
    Table,
    Tournament,
    fold,
    tournament_book,
)

REPO = Path(__file__).resolve().parents[2]
TID = "spring-cup"
NAMES = ["Ann", "Bob", "Cleo", "Dev"]


class Folds:
    """:func:`fold` wrapped where the book calls it: every call counted, and made."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.calls = 0
        real = tournament_module.fold

        def counted(events):
            self.calls += 1
            return real(events)
        monkeypatch.setattr(tournament_module, "fold", counted)


def registered(name: str) -> dict:
    return {"type": "PlayerRegistered", "player": name, "deck_text": "50 Card",
            "cards": {"Card": 50}, "archive": {}, "dbs": 10}


def new_log(book, players=NAMES) -> None:
    book.append(TID, 0, [{"type": "TournamentCreated", "tournament_id": TID,
                          "name": "Spring Cup", "game": "wotf", "ruleset": "1.3.2"},
                         *[registered(n) for n in players],
                         {"type": "RoundPaired", "round": 1, "bye": None,
                          "tables": [{"table": 1, "a": "Ann", "b": "Bob"},
                                     {"table": 2, "a": "Cleo", "b": "Dev"}]},
                         {"type": "RoundStarted", "round": 1,
                          "matches": {"1": f"{TID}-r1-t01", "2": f"{TID}-r1-t02"}}])


@pytest.fixture
def book(tmp_path):
    found = FileTournamentBook(tmp_path)
    new_log(found)
    return found


def test_repeated_loads_of_an_unchanged_log_fold_it_once_and_equal_a_fresh_fold(book,
                                                                                  monkeypatch):
    fresh = fold(book.events(TID))
    folds = Folds(monkeypatch)
    loads = [book.load(TID) for _ in range(5)]
    assert folds.calls == 1
    assert all(t == fresh for t in loads)
    assert len({id(t) for t in loads}) == 5  # each a copy of its own


def test_an_append_by_another_book_on_the_directory_is_seen_by_the_next_load(book, tmp_path,
                                                                              monkeypatch):
    folds = Folds(monkeypatch)
    assert book.load(TID).players["Dev"].dropped is None
    other = FileTournamentBook(tmp_path)  # another process's view of the same directory
    length = other.load(TID).length
    other.append(TID, length, [{"type": "PlayerDropped", "player": "Dev", "round": 1}])
    assert folds.calls == 2
    seen = book.load(TID)
    assert seen.players["Dev"].dropped == 1 and seen.length == length + 1
    assert folds.calls == 3
    assert book.load(TID) == seen and folds.calls == 3  # unchanged since: not folded again


def test_a_drop_by_the_cli_in_another_process_is_seen_by_the_next_load(tmp_path, monkeypatch):
    book = FileTournamentBook(tmp_path)
    new_log(book)
    folds = Folds(monkeypatch)
    before = book.load(TID)
    assert book.load(TID) == before and folds.calls == 1
    done = subprocess.run([sys.executable, "-m", "web.cli", "tournament", "drop", TID, "Cleo",
                           "--store", str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Spring Cup: Cleo dropped after round 1"
    after = book.load(TID)
    assert after.players["Cleo"].dropped == 1 and after.length == before.length + 1
    assert folds.calls == 2
    assert after == fold(book.events(TID))


def test_a_log_edited_by_hand_to_the_same_size_is_read_again_when_its_time_moves(book,
                                                                                  monkeypatch):
    path = book.root / f"{TID}.jsonl"
    folds = Folds(monkeypatch)
    assert book.load(TID).name == "Spring Cup"
    assert book.load(TID).name == "Spring Cup" and folds.calls == 1
    was = os.stat(path)
    text = path.read_bytes()
    with open(path, "r+b") as handle:  # in place: the same inode, the same size
        handle.write(text.replace(b'"name":"Spring Cup"', b'"name":"Spring Cap"', 1))
    os.utime(path, ns=(was.st_atime_ns, was.st_mtime_ns + 1_000_000_000))
    now = os.stat(path)
    assert (now.st_ino, now.st_size) == (was.st_ino, was.st_size)
    assert book.load(TID).name == "Spring Cap" and folds.calls == 2


def test_a_log_edited_to_the_same_size_with_its_time_set_back_is_read_again(book,
                                                                             monkeypatch):
    """``cp -p`` of a backup over the log (in place), or an edit then ``touch -d``: the same
    inode, size and modification time; the inode's change time still moves."""
    path = book.root / f"{TID}.jsonl"
    folds = Folds(monkeypatch)
    assert book.load(TID).name == "Spring Cup"
    assert book.load(TID).name == "Spring Cup" and folds.calls == 1
    was = os.stat(path)
    time.sleep(0.05)  # past the file system's clock tick (a few ms), so the change time moves
    text = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.write(text.replace(b'"name":"Spring Cup"', b'"name":"Spring Cap"', 1))
    os.utime(path, ns=(was.st_atime_ns, was.st_mtime_ns))  # set back
    now = os.stat(path)
    assert (now.st_ino, now.st_size, now.st_mtime_ns) == (was.st_ino, was.st_size,
                                                          was.st_mtime_ns)
    assert book.load(TID).name == "Spring Cap" and folds.calls == 2


def test_a_log_cut_back_by_hand_is_read_again(book, monkeypatch):
    path = book.root / f"{TID}.jsonl"
    folds = Folds(monkeypatch)
    assert len(book.load(TID).rounds) == 1
    assert len(book.load(TID).rounds) == 1 and folds.calls == 1
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:3]), encoding="utf-8")  # created, Ann and Bob
    cut = book.load(TID)
    assert list(cut.players) == ["Ann", "Bob"] and cut.rounds == [] and cut.length == 3
    assert folds.calls == 2


def test_changing_what_a_load_returned_leaves_the_next_load_as_the_log_says(book, monkeypatch):
    fresh = fold(book.events(TID))
    folds = Folds(monkeypatch)
    t = book.load(TID)
    t.name = "Changed"
    t.length = 99
    t.players["Ann"].dropped = 3
    t.players["Ann"].cards["Card"] = 1
    t.players["Bob"].archive["Token"] = 2
    del t.players["Cleo"]
    t.players["Eve"] = Player("Eve", "", {}, {}, 0)
    t.rounds[0].tables[0].a = "Eve"
    t.rounds[0].tables[1].match_id = None
    t.rounds[0].tables.append(Table(3, "X", "Y"))
    t.rounds[0].started = False
    t.rounds.append(Round(2, [], None))
    t.reissued.append({"type": "TokenReissued"})
    t.cards["Card"] = {"name": "Card"}
    again = book.load(TID)
    assert folds.calls == 1  # from the kept fold, which the changes did not reach
    assert again == fresh


def test_a_copy_carries_every_field_and_shares_nothing_that_changes():
    def filled(cls, **given):
        """An instance with every field set to something no default is."""
        values = {}
        for f in dataclasses.fields(cls):
            if f.name in given:
                values[f.name] = given[f.name]
            elif f.type in ("str", "str | None"):
                values[f.name] = f"{f.name}-value"
            elif f.type in ("int", "int | None"):
                values[f.name] = 7
            elif f.type == "bool":
                values[f.name] = True
            else:
                raise AssertionError(f"{cls.__name__}.{f.name}: give it a value ({f.type})")
        return cls(**values)

    player = filled(Player, cards={"Card": 50}, archive={"Token": 1})
    table = filled(Table)
    played = filled(Round, tables=[table])
    t = filled(Tournament, players={player.name: player}, rounds=[played],
               reissued=[{"type": "TokenReissued", "round": 1}],
               cards={"Card": {"name": "Card", "abilities": [{"text": "x"}]}})
    copied = t.copy()
    assert copied == t
    assert copied.players[player.name] == player and copied.rounds[0].tables[0] == table
    for left, right in ((copied, t), (copied.players[player.name], player),
                        (copied.rounds[0], played), (copied.rounds[0].tables[0], table)):
        assert left is not right
        for f in dataclasses.fields(left):
            value = getattr(left, f.name)
            if isinstance(value, (dict, list)):
                assert value is not getattr(right, f.name), f.name
    assert copied.cards["Card"]["abilities"] is not t.cards["Card"]["abilities"]


def test_postgres_another_stores_append_and_a_row_updated_by_hand_are_seen(pg_url,
                                                                           monkeypatch):
    from ledger.pgstore import PgStore
    with PgStore(pg_url) as store, PgStore(pg_url) as other:
        book = tournament_book(store)
        new_log(book)
        folds = Folds(monkeypatch)
        first = book.load(TID)
        assert book.load(TID) == first and folds.calls == 1
        tournament_book(other).append(TID, first.length, [
            {"type": "PlayerDropped", "player": "Dev", "round": 1}])
        assert book.load(TID).players["Dev"].dropped == 1 and folds.calls == 2
        with other._tx() as conn:  # by hand: the same length, the same count
            conn.execute("UPDATE wonders_tournament_events SET line = replace(line, "
                         "'Spring Cup', 'Spring Cap') WHERE tournament_id = %s AND seq = 0",
                         [TID])
        assert book.load(TID).name == "Spring Cap" and folds.calls == 3
        assert book.load(TID).name == "Spring Cap" and folds.calls == 3
