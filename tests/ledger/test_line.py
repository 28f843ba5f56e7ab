"""The line a match stands on after its take-backs (``ledger.line``), the one every reader
counts: a take-back returns to the events in force after its ``to_seq`` -- the board's fold."""

from ledger.events import JudgeNote, MatchOpened, TakenBack
from ledger.line import line_of, undone_by


def _match(*later):
    return [MatchOpened("m", "1.3.2", [])] + [JudgeNote("judge", str(n)) for n in range(1, 5)] + \
        list(later)


def test_a_take_back_undoes_the_events_after_its_to_seq():
    events = _match(TakenBack(2), JudgeNote("judge", "6"), TakenBack(1))
    assert line_of(events) == [0, 1, 7]
    assert undone_by(events) == {3: 5, 4: 5, 2: 7, 5: 7, 6: 7}


def test_a_take_back_to_an_undone_seq_returns_to_that_line():
    # 0..4, 5 takes back to 2 (3 and 4 undone), 6, 7 takes back to 4: 3 and 4 count again
    events = _match(TakenBack(2), JudgeNote("judge", "6"), TakenBack(4), JudgeNote("judge", "8"))
    assert line_of(events) == [0, 1, 2, 3, 4, 7, 8]
    assert undone_by(events) == {5: 7, 6: 7}


def test_an_event_undone_twice_names_the_later_take_back():
    # 5 undoes 3, 4; 7 brings them back (and undoes 5, 6); 8 undoes 3..7
    events = _match(TakenBack(2), JudgeNote("judge", "6"), TakenBack(4), TakenBack(2))
    assert line_of(events) == [0, 1, 2, 8]
    assert undone_by(events) == {3: 8, 4: 8, 5: 7, 6: 7, 7: 8}


def test_a_take_back_to_no_earlier_seq_undoes_nothing():
    """A file no recorder wrote (``wonders verify`` reports it): read without looping."""
    events = _match(TakenBack(5), TakenBack(9), TakenBack(-1))
    assert line_of(events) == list(range(8))
    assert undone_by(events) == {}
