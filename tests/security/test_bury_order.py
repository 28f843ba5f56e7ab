"""Attack: reading the order the other seat buried a seek's cards in (docs/rulings.md R46).

Crystal Seer seeks three and none may be played: its owner orders the three it buries (R20,
an ``order`` answer), and they go to the bottom of its deck in that order.  Which three went
is public (they were revealed); the order is its owner's.  The other seat reads everything
its token opens -- the pending prompt, the state, the events, the follow stream -- and the
public everything a live match shows; none may name the order.  The owner and the judge read
it, and so does anyone once the match has ended (``?as=omniscient``).  In-process and on a
real ``wonders serve`` (``where``).
"""

from __future__ import annotations

import json
import tomllib

import pytest

from replay.resources import decks_dir
from tests.web.test_api_hidden_info import Table, _public_views, _seat_views
from web.api.handles import handle_of

SEER = "Crystal Seer"  # On Arrival: Seek 3 a Wonder with cost 2 or less
SECRET = "s" * 32  # the secret key of tests.web.test_api.new_app and of LiveServer
PETRAIA = tomllib.loads((decks_dir() / "petraia-stone.toml").read_text(encoding="utf-8"))["cards"]


@pytest.fixture
def table(tmp_path, where):
    """A live match, in-process or on a real ``wonders serve`` (``where``), A playing the
    shipped Petraia deck that holds Crystal Seer."""
    return Table(tmp_path, deck=PETRAIA, api=where, spectator_delay=0)


def _seek_and_bury(t: Table) -> list[str]:
    """The judge puts Crystal Seer in A's hand and three cards on top of A's deck, two of
    them different, none a Wonder of cost 2 or less; A plays the Seer and buries the three
    in an order that is not the revealed one.  Returns the order A chose."""
    seer = t.card("A", SEER)
    deck = [c for c in t.omniscient()["players"]["A"]["deck"] if c["id"] != seer]
    misses = [c for c in deck if not (c["type"] == "wonder" and (c["cost"] or 0) <= 2)]
    top = [misses[0], next(c for c in misses if c["name"] != misses[0]["name"])]
    top.append(next(c for c in misses if c not in top))
    top.sort(key=deck.index)  # they stay in the deck's order: the revealed order
    others = [c for c in deck if c not in top]
    t.rule([{"op": "move", "card": seer, "to_zone": "hand", "seat": "A"},
            *({"op": "move", "card": c["id"], "to_zone": "deck"} for c in others),
            {"op": "resource", "seat": "A", "resource": "actions", "value": 5},
            {"op": "resource", "seat": "A", "resource": "energy", "value": 20}])
    assert [c["id"] for c in t.omniscient()["players"]["A"]["deck"][:3]] == [c["id"] for c in top]
    if t.prompt("A")["prompt"]["seat"] == "B":
        assert t.decide("B", {"type": "Passed"})[0] == 201
    start = t.length()
    t.play("A", seer)
    pending = t.prompt("A")
    while pending["prompt"]["kind"] != "order":  # the Seer's realm, if asked
        status, data = t.decide("A", pending["prompt"]["options"][0]["decision"], pending["length"])
        assert status == 201, data
        pending = t.prompt("A")
    order = [top[1]["id"], top[2]["id"], top[0]["id"]]  # not the revealed order
    offered = pending["prompt"]["choose"]["of"]  # handles: the cards are in a deck
    salt = f"{t.mid}:{pending['length']}"
    assert sorted(offered) == sorted(handle_of(SECRET, salt, cid) for cid in order)
    status, data = t.decide("A", {"type": "Answered", "kind": "order",
                                  "pick": [handle_of(SECRET, salt, cid) for cid in order]},
                            pending["length"])
    assert status == 201, data
    recorded = [e["event"]["pick"] for e in t.get(f"/api/matches/{{mid}}/events?from={start}",
                                                  "judge")["events"]
                if e["event"]["type"] == "Answered" and e["event"]["kind"] == "order"]
    assert recorded == [order]
    return order


def _tells(text: str, order: list[str]) -> str | None:
    """How ``text`` tells the chosen order, if it does."""
    if json.dumps(order) in text or json.dumps(order, separators=(",", ":")) in text:
        return f"the answer {order}"
    if "in this order" in text:
        return "a narrated order"
    return None


def test_the_other_seat_and_the_public_cant_read_a_bury_order(table):
    start = table.length()
    order = _seek_and_bury(table)
    for where, text in {**{f"B {k}": v for k, v in _seat_views(table, "B", start).items()},
                        **{f"public {k}": v for k, v in _public_views(table, start).items()}}.items():
        told = _tells(text, order)
        assert told is None, f"{where} tells the bury order: {told}"
    seen = table.get(f"/api/matches/{{mid}}/events?from={start}", "B")["events"]
    answers = [e for e in seen if e["event"]["type"] == "Answered" and e["event"]["kind"] == "order"]
    assert [a["event"]["pick"] for a in answers] == [["?", "?", "?"]]
    assert answers[0]["text"].endswith("puts the 3 cards in the order of their choice")
    for role in ("A", "judge"):  # the owner and the judge read it
        events = table.get(f"/api/matches/{{mid}}/events?from={start}", role)["events"]
        assert [e["event"]["pick"] for e in events if e["event"]["type"] == "Answered"
                and e["event"]["kind"] == "order"] == [order], role
        assert "in this order" in table.text(f"/api/matches/{{mid}}/events?from={start}", role)


def test_a_delayed_spectator_whose_view_stops_at_the_answer_cant_read_it(table):
    """The public's horizon right at the owner's answer, its moves not yet shown: the answer
    alone must not tell the order (the moves that make it a bury's come after)."""
    if getattr(table.api, "live", False):
        pytest.skip("moves the spectator delay of the in-process app: in-process only")
    start = table.length()
    order = _seek_and_bury(table)
    events = table.get(f"/api/matches/{{mid}}/events?from={start}", "judge")["events"]
    answer = next(e["seq"] for e in events if e["event"]["type"] == "Answered"
                  and e["event"]["kind"] == "order")
    svc = table.api.app.extensions["wonders"]
    svc.settings = svc.settings.model_copy(update={"spectator_delay": table.length() - 1 - answer})
    assert table.get("/api/public/matches/{mid}/state")["seq"] == answer
    for where, text in _public_views(table, start).items():
        told = _tells(text, order)
        assert told is None, f"public {where} at the answer tells the bury order: {told}"


def test_once_the_match_has_ended_the_bury_order_is_public(table):
    start = table.length()
    order = _seek_and_bury(table)
    status, data = table.api.call("POST", f"/api/matches/{table.mid}/ending",
                                  table.tokens["judge"],
                                  {"seat": "B", "kind": "concession", "expected_seq": table.length()})
    assert status == 201, data
    public = table.get(f"/api/public/matches/{{mid}}/events?from={start}&as=omniscient")["events"]
    assert [e["event"]["pick"] for e in public if e["event"]["type"] == "Answered"
            and e["event"]["kind"] == "order"] == [order]
    timeline = table.text(f"/matches/{{mid}}/timeline?from={start}&as=omniscient")
    assert "in this order" in timeline
