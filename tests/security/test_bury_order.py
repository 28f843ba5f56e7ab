"""Attack: reading the order the other seat buried a seek's cards in (docs/rulings.md R46).

Crystal Seer seeks three and none may be played: its owner orders the three it buries (R20,
a ``bury_order`` answer from rules revision 12), and they go to the bottom of its deck in that
order.  Which three went
is public (they were revealed); the order is its owner's.  The other seat reads everything
its token opens -- the pending prompt, the state, the events, the follow stream -- and the
public everything a live match shows; none may name the order.  The owner and the judge read
it, and so does anyone once the match has ended (``?as=omniscient``).  In-process and on a
real ``wonders serve`` (``where``).

Then revision 12's redaction by the answer's kind, on the events the engine records: a
bury's ``bury_order`` answer is hidden from the moment it is written -- the last event of a
log, the first owner's answer of a group of both seats' cards -- while an ``order`` answer
(triggers, 502) is read as recorded at once; at revision 11, where both were ``order``
answers, the one at the end of a log stays hidden until what follows tells which it is.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ledger.events import Event, MatchOpened
from ledger.filestore import FileStore
from replay.resources import decks_dir
from replay.wotf import conformance as C
from replay.wotf import narrate, perspective
from replay.wotf.cards import CardDB, default_cards, parse_card
from replay.wotf.engine import Engine
from replay.wotf.events import Answered, AttackDeclared, CardMoved, PlayDeclared
from tests.replay.logged import CASES
from tests.replay.test_bury_order_visibility import BOTH, MASS
from tests.web.test_api_hidden_info import Table, _public_views, _seat_views
from web.api.handles import handle_of

KIND = "bury_order"  # a bury's order prompt at the revision a live match records (12)
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
    while pending["prompt"]["kind"] != KIND:  # the Seer's realm, if asked
        status, data = t.decide("A", pending["prompt"]["options"][0]["decision"], pending["length"])
        assert status == 201, data
        pending = t.prompt("A")
    order = [top[1]["id"], top[2]["id"], top[0]["id"]]  # not the revealed order
    offered = pending["prompt"]["choose"]["of"]  # handles: the cards are in a deck
    salt = f"{t.mid}:{pending['length']}"
    assert sorted(offered) == sorted(handle_of(SECRET, salt, cid) for cid in order)
    status, data = t.decide("A", {"type": "Answered", "kind": KIND,
                                  "pick": [handle_of(SECRET, salt, cid) for cid in order]},
                            pending["length"])
    assert status == 201, data
    recorded = [e["event"]["pick"] for e in t.get(f"/api/matches/{{mid}}/events?from={start}",
                                                  "judge")["events"]
                if e["event"]["type"] == "Answered" and e["event"]["kind"] == KIND]
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
    answers = [e for e in seen if e["event"]["type"] == "Answered" and e["event"]["kind"] == KIND]
    assert [a["event"]["pick"] for a in answers] == [["?", "?", "?"]]
    assert answers[0]["text"].endswith("buries the 3 cards in the order of their choice")
    for role in ("A", "judge"):  # the owner and the judge read it
        events = table.get(f"/api/matches/{{mid}}/events?from={start}", role)["events"]
        assert [e["event"]["pick"] for e in events if e["event"]["type"] == "Answered"
                and e["event"]["kind"] == KIND] == [order], role
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
                  and e["event"]["kind"] == KIND)
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
            and e["event"]["kind"] == KIND] == [order]
    timeline = table.text(f"/matches/{{mid}}/timeline?from={start}&as=omniscient")
    assert "in this order" in timeline


# -- revision 12: a bury's answer told by its kind, on the events the engine records ----------

OTHERS = ("B", "spectator")  # every reader but the owner and the omniscient view
GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "matches"


def _opened(revision: int) -> MatchOpened:
    """The ``MatchOpened`` of a golden match recorded at ``revision``: seq 0 of a log, where the
    redaction reads the revision the match was recorded at."""
    first = next(iter(FileStore.read_file(GOLDEN / f"golden-s3-r{revision}-132-0001.jsonl"))).event
    assert isinstance(first, MatchOpened) and first.rules_revision == revision
    return first


def _engine(data: dict[str, Any], revision: int, db: CardDB | None = None
            ) -> tuple[Engine, list[Event]]:
    """A position (a conformance case's tables) at ``revision``, and its log from seq 0."""
    db = db or C._case_cards(data.get("cards", {}), default_cards())
    state = C.build_state(data["state"], data.get("rules", "1.3.2"), db)
    state.revision = revision
    engine = Engine(db, state)
    return engine, [_opened(revision), *engine.start()]


def _read(log: list[Event], seq: int, who: str) -> Any:
    """The pick of the answer at ``seq`` as ``who`` reads it, from ``log`` as far as written."""
    return perspective.redact_event(log[seq], who, (), log, seq).pick


def _changed(log: list[Event], who: str) -> set[int]:
    """The seqs of ``log`` ``who`` reads otherwise than recorded."""
    return {seq for seq, e in enumerate(log)
            if perspective.redact_event(e, who, (), log, seq) != e}


def _case(name: str) -> dict[str, Any]:
    return tomllib.loads(next(CASES.rglob(f"{name}.toml")).read_text(encoding="utf-8"))


def _both_seats(revision: int) -> tuple[Engine, list[Event], int]:
    """A (test) card buries two of each seat's cards from The Abyss: A orders its own, and
    its answer is the last event written while B is asked.  The engine, the log and the seq
    of A's answer."""
    db = C._case_cards(BOTH["cards"], default_cards()).with_cards([parse_card(MASS, "mass")])
    engine, log = _engine(BOTH, revision, db)
    kind = "bury_order" if revision >= 12 else "order"
    log += engine.decide(PlayDeclared("A", "mass", None, []))
    log += engine.decide(Answered("A", "target", ["x1", "x2", "y1", "y2"]))
    log += engine.decide(Answered("A", kind, ["x2", "x1"]))
    assert engine.prompt is not None and (engine.prompt.seat, engine.prompt.kind) == ("B", kind)
    return engine, log, len(log) - 1


def test_revision_12_hides_the_first_owners_answer_while_the_other_owner_chooses():
    """Nothing is written after A's answer yet, and none is needed: its kind says it is a
    bury's.  B's answer, once written, is hidden from A and the public the same way, and
    every other event but the group's moves reads as recorded."""
    engine, log, seq = _both_seats(12)
    assert isinstance(log[seq], Answered) and log[seq].kind == "bury_order"
    for who in OTHERS:
        assert _read(log, seq, who) == ["?", "?"], who
        assert _read(log[:seq + 1], seq, who) == ["?", "?"], who
        assert _changed(log, who) == {seq}, who
    assert _read(log, seq, "A") == _read(log, seq, "omniscient") == ["x2", "x1"]
    seen = perspective.redact_event(log[seq], "spectator", (), log, seq)
    assert narrate.narrate(seen, None, {}).endswith("buries the 2 cards in the order of their choice")
    log += engine.decide(Answered("B", "bury_order", ["y2", "y1"]))
    answer_b = seq + 1
    assert isinstance(log[answer_b], Answered) and log[answer_b].seat == "B"
    moves = {n for n, e in enumerate(log) if isinstance(e, CardMoved) and e.reason == "bury"}
    assert len(moves) == 4
    for who in ("A", "spectator"):
        assert _read(log, answer_b, who) == ["?", "?"], who
    for who in ("B", "spectator"):
        assert _read(log, seq, who) == ["?", "?"], who
    assert _read(log, answer_b, "B") == ["y2", "y1"] and _read(log, seq, "A") == ["x2", "x1"]
    hidden_from = {"A": {answer_b}, "B": {seq}, "spectator": {seq, answer_b}}
    for who, answers in hidden_from.items():
        changed = _changed(log, who)
        assert answers <= changed and changed - answers <= moves, who


def test_revision_12_hides_a_bury_answer_at_the_end_of_a_log():
    """A seek's bury answer read from a log that ends with it (a reader whose events stop
    there): hidden from B and the public, the owner's to read."""
    engine, log = _engine(_case("ab-seek-buries-with-a-bury-order-prompt"), 12)
    log += engine.decide(PlayDeclared("A", "seer", 2, []))
    log += engine.decide(Answered("A", "bury_order", ["s2", "s3", "s1"]))
    seq = next(n for n, e in enumerate(log) if isinstance(e, Answered) and e.kind == "bury_order")
    for who in OTHERS:
        assert _read(log[:seq + 1], seq, who) == ["?", "?", "?"], who
        assert _read(log, seq, who) == ["?", "?", "?"], who
    assert _read(log[:seq + 1], seq, "A") == ["s2", "s3", "s1"]


def _fliers(revision: int) -> tuple[list[Event], int]:
    """Two fliers attack; the active player's order of their end-of-battle triggers (502) is
    an ``order`` answer, public.  The log and the answer's seq."""
    engine, log = _engine(_case("c-flying-the-attacker-orders-the-fliers"), revision)
    log += engine.decide(AttackDeclared("A", 2))
    assert engine.prompt is not None and engine.prompt.kind == "order"
    assert engine.prompt.choose is not None
    log += engine.decide(Answered("A", "order", list(reversed(engine.prompt.choose.of))))
    return log, next(n for n, e in enumerate(log) if isinstance(e, Answered) and e.kind == "order")


def test_revision_12_reads_an_order_of_triggers_at_the_end_of_a_log_as_recorded():
    """Exactly the bury's answer is hidden: an order of triggers at the end of a log is read as
    recorded at once, nothing after it needed."""
    log, seq = _fliers(12)
    recorded = log[seq].pick
    for who in OTHERS:
        assert _read(log[:seq + 1], seq, who) == recorded, who
        assert _changed(log, who) == set(), who


def test_revision_11_still_waits_for_what_follows_an_order_answer():
    """Revision 11 recorded a bury's order as an ``order`` answer too: the same order of
    triggers at the end of a log is hidden until the events after it show it is not a bury's
    (today's inference, kept for the matches recorded then)."""
    log, seq = _fliers(11)
    recorded = log[seq].pick
    for who in OTHERS:
        assert _read(log[:seq + 1], seq, who) == ["?"] * len(recorded), who
        assert _read(log, seq, who) == recorded, who
    _, log, seq = _both_seats(11)
    for who in OTHERS:
        assert _read(log, seq, who) == ["?", "?"], who
