"""A round's clock (ledger.roundclock): the round time a tournament's log sets, the clock a
started round reads against the time now, and the times an organizer may set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ledger.roundclock import MAX_ROUND_MINUTES, check_minutes, parse_at, round_clock
from ledger.tournament import TournamentError, fold

START = "2026-11-27T14:05:00.000Z"


def log(*later: dict) -> list[dict]:
    return [{"seq": 0, "at": "2026-11-27T13:00:00.000Z", "type": "TournamentCreated",
             "tournament_id": "cup", "name": "Cup", "game": "wotf", "ruleset": "1.3.2",
             "round_minutes": 50},
            {"seq": 1, "at": "2026-11-27T14:04:00.000Z", "type": "RoundPaired", "round": 1,
             "tables": [{"table": 1, "a": "Ann", "b": "Bob"}], "bye": None},
            {"seq": 2, "at": START, "type": "RoundStarted", "round": 1,
             "matches": {"1": "cup-r1-t01"}}, *later]


def at(minutes: float) -> datetime:
    return parse_at(START) + timedelta(minutes=minutes)


def test_a_started_round_counts_down_from_its_start():
    t = fold(log())
    assert t.round_minutes == 50 and t.rounds[0].started_at == START
    clock = round_clock(t, t.rounds[0], at(15))
    assert clock is not None
    assert clock.ends_at == datetime(2026, 11, 27, 14, 55, tzinfo=UTC)
    assert clock.seconds_left == 35 * 60 and not clock.is_up and clock.words == "35 min left"
    assert clock.ends_at_iso == "2026-11-27T14:55:00.000Z"  # what every browser parses
    assert round_clock(t, t.rounds[0], at(49.5)).words == "under a minute left"
    over = round_clock(t, t.rounds[0], at(56.25))
    assert over.is_up and over.seconds_left == -375 and over.words == "time is up (6 min over)"


def test_setting_the_time_moves_the_round_under_way_and_zero_stops_the_clock():
    t = fold(log({"seq": 3, "at": "2026-11-27T14:50:00.000Z", "type": "RoundClockSet",
                  "minutes": 55}))
    assert round_clock(t, t.rounds[0], at(50)).seconds_left == 5 * 60
    t = fold(log({"seq": 3, "at": "2026-11-27T14:50:00.000Z", "type": "RoundClockSet",
                  "minutes": 0}))
    assert t.round_minutes is None and round_clock(t, t.rounds[0], at(50)) is None


def test_an_untimed_tournament_and_a_round_not_started_have_no_clock():
    untimed = log()
    untimed[0] = {k: v for k, v in untimed[0].items() if k != "round_minutes"}  # older logs
    t = fold(untimed)
    assert t.round_minutes is None and round_clock(t, t.rounds[0]) is None
    t = fold(log()[:2])  # paired, not started
    assert round_clock(t, t.rounds[0]) is None


@pytest.mark.parametrize("minutes", [-1, MAX_ROUND_MINUTES + 1, True, "50", 2.5])
def test_a_round_time_is_a_whole_number_of_minutes_in_range(minutes):
    with pytest.raises(TournamentError, match="whole number of minutes"):
        check_minutes(minutes)


def test_the_range_s_ends_are_allowed():
    assert check_minutes(0) == 0 and check_minutes(MAX_ROUND_MINUTES) == MAX_ROUND_MINUTES


def _edited(seq: int, **fields) -> list[dict]:
    events = log()
    events[seq] = {**events[seq], **fields}
    return events


@pytest.mark.parametrize("events, where, why", [
    (log({"seq": 3, "at": START, "type": "RoundClockSet", "minutes": "abc"}), "seq 3",
     "round time 'abc'"),
    (log({"seq": 3, "at": START, "type": "RoundClockSet", "minutes": -5}), "seq 3",
     "round time -5"),
    (log({"seq": 3, "at": START, "type": "RoundClockSet", "minutes": 10**9}), "seq 3",
     "round time 1000000000"),
    (log({"seq": 3, "at": START, "type": "RoundClockSet"}), "seq 3", "no field 'minutes'"),
    (_edited(0, round_minutes="50"), "seq 0", "round time '50'"),
    (_edited(0, round_minutes=10**12), "seq 0", "round time 1000000000000"),
    (_edited(2, at="garbage"), "seq 2", "garbage"),
    (_edited(2, at="2026-11-27T14:05:00"), "seq 2", "not a time in UTC"),
    (_edited(2, at=5), "seq 2", "at 5"),
])
def test_a_log_edited_by_hand_to_a_clock_no_one_can_read_is_refused_naming_its_line(
        events, where, why):
    """Such a log folded (a ValueError, a round ending before it started or in the year 3928)
    and the players' pages, the console and the API then failed with a 500 -- ``/tournaments``
    too, for every tournament of the store."""
    with pytest.raises(TournamentError, match=where) as refused:
        fold(events)
    assert why in str(refused.value)


@pytest.mark.parametrize("match_id", ["../../etc/passwd", "", 7, ["cup-r1-t01"]])
def test_a_round_started_with_a_match_id_no_store_has_is_refused_naming_its_line(match_id):
    """A RoundStarted whose table names ``../../etc/passwd`` (edited by hand) folded, and the
    tournament's public page was then a 400 for everyone ("match id … is not valid"); now the
    log is refused at that line, as any line that does not fit its event."""
    events = log()
    events[2] = {**events[2], "matches": {"1": match_id}}
    with pytest.raises(TournamentError, match=r"seq 2 \('RoundStarted'\): match id"):
        fold(events)
