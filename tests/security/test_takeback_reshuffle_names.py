"""Attack: reading a seat's new deck order from the words of events a take-back undid.

A judge's take-back to seq 0 starts the game again: the set-up's coin flip and shuffles are
drawn afresh (docs/api.md), so each card id -- its place in the setup shuffle -- now names
another card.  The undone events stay in the record, struck through; before, every answer
narrated them with the names of the match's *current* state: once the new shuffles were
recorded, "Feather Seer's ability starts resolving" stood where the table had read "Gust Step's
ability ..." -- B10 was now the tenth card of Bob's new shuffle, still in his deck -- for Ann,
for Bob and for every spectator (and a delayed spectator's events, before the take-back, were
named from the head's state the same way).  The judge's record of what happened changed its
words too.  Now an event is named from the state of the line it was recorded on.
"""

from __future__ import annotations

from tests.web.restarted_match import restarted
from tests.web.test_api import Api, new_app

PERSPECTIVES = ("A", "B", "judge", "public")


def _texts(api, mid: str, tokens: dict, who: str) -> dict[int, str]:
    if who == "public":
        status, data = api.call("GET", f"/api/public/matches/{mid}/events?limit=2000")
    else:
        status, data = api.call("GET", f"/api/matches/{mid}/events?limit=2000", tokens[who])
    assert status == 200, data
    return {e["seq"]: e["text"] for e in data["events"]}


def test_undone_events_keep_their_words_after_a_new_setup_shuffle(tmp_path, where):
    api = where or Api(new_app(tmp_path, spectator_delay=0))
    mid, tokens, _back, before = restarted(api, lambda mid, tokens: {
        who: _texts(api, mid, tokens, who) for who in PERSPECTIVES})
    for who in PERSPECTIVES:
        after = _texts(api, mid, tokens, who)
        changed = {seq: (text, after[seq]) for seq, text in before[who].items()
                   if after[seq] != text}
        assert not changed, (who, sorted(changed.items())[:3])


def test_a_delayed_spectator_reads_no_name_of_a_shuffle_past_its_delay(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=40))
    mid, tokens, back, before = restarted(
        api, lambda mid, tokens: _texts(api, mid, tokens, "public"))
    after = _texts(api, mid, tokens, "public")
    assert max(after) < back["events"][0]["seq"]  # the take-back is past the delay
    changed = {seq: (text, after[seq]) for seq, text in before.items() if after[seq] != text}
    assert not changed, sorted(changed.items())[:3]
