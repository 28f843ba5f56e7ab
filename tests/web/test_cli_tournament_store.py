"""``wonders tournament`` given a store directory that isn't there (a typo of ``--store``, or
run from the wrong directory) says so in one line and writes nothing; only ``create`` makes a
store.  Before, ``standings``, ``export`` and the rest made the directory (with its
``.pending``, ``.tokens`` and ``.tournaments``) and answered "this store has no tournament
yet" -- a reader that wrote, and an organizer sent looking for a tournament that was in the
other directory.  Real subprocesses on real directories."""

from __future__ import annotations

from tests.web.test_tournaments import DECKS, decklist
from tests.web.test_tournaments_desk import wonders


def test_a_missing_store_is_one_line_and_stays_missing(tmp_path):
    store = tmp_path / "wonders-dta"  # the typo
    deck = tmp_path / "ann.txt"
    deck.write_text(decklist(DECKS[0]), encoding="utf-8")
    for args in (("standings", "club-night"), ("export", "club-night", "results"),
                 ("register", "club-night", "Ann", str(deck)), ("pair", "club-night"),
                 ("drop", "club-night", "Ann"), ("clock", "club-night", "50"),
                 ("open-registration", "club-night")):
        done = wonders(*args, store=store)
        assert done.returncode == 1, (args, done.stdout)
        assert done.stderr == (f"error: {store}: not a store directory (no such directory); a "
                               f"tournament is made in one with wonders tournament create NAME "
                               f"--store DIR\n"), args
        assert not store.exists(), args
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a store\n", encoding="utf-8")
    done = wonders("standings", "club-night", store=a_file)
    assert done.returncode == 1 and "is a file" in done.stderr
    assert a_file.read_text(encoding="utf-8") == "not a store\n"
    done = wonders("create", "Club Night", store=store)  # create makes the store
    assert done.returncode == 0, done.stderr
    assert wonders("standings", "club-night", store=store).returncode == 0
