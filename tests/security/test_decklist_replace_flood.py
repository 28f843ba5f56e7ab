"""Attack: one player link replaces its decklist without end, and the tournament's log grows.

A player link replaces the player's list while registration is open (``DecklistReplaced``:
the whole list, up to 20,000 characters -- a comment line pads it -- written to the
tournament's log and fsynced).  Before, nothing bounded how often: one link (a junk
self-registration's, from the public registration link) sent 600 lists in a minute and the
log reached 12 MB, every change of the tournament (the organizer's drop, round start) read it
whole twice, and it only grows, for the rest of the day.  Now a link replaces the list at most
:data:`~ledger.tournament.MAX_REPLACEMENTS` times (a player fixing their list needs a few);
past it the replace is refused in one line, nothing written, the list sent before standing;
the organizer's new link for the player gives as many again.  Against the app in-process and
a real ``wonders serve``.
"""

from __future__ import annotations

from html import unescape

from ledger.tournament import MAX_REPLACEMENTS
from tests.security.test_player_link_reissued import Browser, csrf_of, self_register
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament


def _length(api, tid):
    return call(api, "GET", f"/api/tournaments/{tid}")[1]["length"]


def _replaced(api, tid, name):
    players = call(api, "GET", f"/api/tournaments/{tid}")[1]["players"]
    return next(p for p in players if p["name"] == name)["replaced"]


def test_a_link_replaces_its_list_a_bounded_number_of_times(tmp_path, where):
    api = where if where is not None else Api(new_app(tmp_path))
    tid = new_tournament(api, players=1, name="Replace Cup")
    status, _html, phone = self_register(api, where, tid, "Zed", DECKS[2])
    assert status == 303
    status, html = phone.open(f"/tournaments/{tid}/me")
    csrf = csrf_of(html)
    lists = [decklist(DECKS[3]), decklist(DECKS[4])]  # two legal lists, sent in turn
    for i in range(MAX_REPLACEMENTS):
        status, html = phone.open(f"/tournaments/{tid}/me/decklist",
                                  {"csrf": csrf, "decklist": lists[i % 2]})
        assert status == 303, (i, html[:300])
    length = _length(api, tid)

    status, html = phone.open(f"/tournaments/{tid}/me/decklist",
                              {"csrf": csrf, "decklist": lists[MAX_REPLACEMENTS % 2]})
    assert status == 422, html[:300]
    assert (f"Replace Cup: Zed has replaced their list {MAX_REPLACEMENTS} times with this link, "
            f"the most a link may; ask the organizer") in unescape(html)
    assert _length(api, tid) == length and _replaced(api, tid, "Zed") == MAX_REPLACEMENTS

    # the organizer's new link for Zed: as many again
    status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Zed"})
    assert status == 201, data
    fresh = Browser(api, where)
    assert fresh.open(data["link"][data["link"].index("/tournaments/"):])[0] == 303
    status, html = fresh.open(f"/tournaments/{tid}/me")
    status, html = fresh.open(f"/tournaments/{tid}/me/decklist",
                              {"csrf": csrf_of(html), "decklist": lists[0]})
    assert status == 303, html[:300]
    assert _replaced(api, tid, "Zed") == MAX_REPLACEMENTS + 1


def test_the_bound_is_a_few_dozen():
    """Enough for a player fixing their list, few enough that a link's lists stay small
    beside the tournament's log (each up to 20,000 characters)."""
    assert 10 <= MAX_REPLACEMENTS <= 50
