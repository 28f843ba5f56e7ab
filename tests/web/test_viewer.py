"""The viewer's pages and JSON through Flask's test client, over real simulated match files.

The board each step returns must be the replayer's state through ``replay.wotf.perspective``; a live
match is shown only as a delayed spectator view; the match list filters and sorts.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.simulate import simulate_matches, simulate_tournament
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from replay.wotf.narrate import narrate
from replay.wotf.perspective import board, card_names, redact_event
from tests.web.test_api import ORGANIZER, SEATS, Api, choose, drive, new_app
from web.app import create_app
from web.config import Settings


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("viewer") / "store"
    db = default_cards()
    fs = FileStore(root)
    decks = load_decks(None, db)
    list(simulate_tournament(fs, db, decks, "Spring Cup", 4, 1, seed=3))
    list(simulate_matches(fs, db, decks, 2, seed=5, ruleset="1.2"))
    return root


@pytest.fixture
def api(store):
    return Api(create_app(Settings(store=store, organizer_token=ORGANIZER, secret_key="s" * 32)))


def _ids(html: str) -> list[str]:
    return re.findall(r'<tr data-match="([^"]+)"', html)


def _page(api, url):
    response = api.client.get(url)
    assert response.status_code == 200, response.data[:300]
    return response.get_data(as_text=True)


def test_the_list_shows_every_match_and_filters_by_each_field(api, store):
    every = sorted(p.stem for p in store.glob("*.jsonl"))
    assert sorted(_ids(_page(api, "/matches"))) == every
    assert _ids(_page(api, "/matches?tournament=Spring+Cup")) == ["spring-cup-r1-t01",
                                                                  "spring-cup-r1-t02"]
    assert sorted(_ids(_page(api, "/matches?ruleset=1.2"))) == ["m-0001", "m-0002"]
    infos = {i.match_id: i for i in FileStore(store).list()}
    player = infos["m-0001"].opened.seats[1].player
    shown = _ids(_page(api, f"/matches?player={player.lower()}"))
    assert "m-0001" in shown and all(
        player in {s.player for s in infos[m].opened.seats} for m in shown)
    card = infos["m-0002"].opened.seats[0].deck[0].card
    shown = _ids(_page(api, f"/matches?card={card}"))
    assert "m-0002" in shown and all(
        card in {e.card for s in infos[m].opened.seats for e in s.deck} for m in shown)
    for result in ("A", "B", "draw"):
        expected = sorted(m for m, i in infos.items() if (i.winner or "draw") == result)
        assert sorted(_ids(_page(api, f"/matches?result={result}"))) == expected
    assert _ids(_page(api, "/matches?result=live")) == []
    assert "No match fits" in _page(api, "/matches?card=no-such-card")


def test_the_list_sorts_both_ways_and_refuses_unknown_keys(api, store):
    lengths = {i.match_id: i.length for i in FileStore(store).list()}
    down = _ids(_page(api, "/matches?sort=events&desc=1"))
    assert [lengths[m] for m in down] == sorted(lengths.values(), reverse=True)
    up = _ids(_page(api, "/matches?sort=events&desc=0"))
    assert [lengths[m] for m in up] == sorted(lengths.values())
    status, data = api.call("GET", "/matches?sort=colour")
    assert status == 400 and "sort='colour'" in data["message"]
    status, data = api.call("GET", "/matches?result=won")
    assert status == 400 and "result" in data["message"]
    assert api.client.get("/").headers["Location"].endswith("/matches")


@pytest.mark.parametrize("perspective", ["omniscient", "A", "B", "spectator"])
def test_each_step_is_the_replayers_board_from_the_perspective(api, store, perspective):
    replay = Replay(list(FileStore.read_file(store / "spring-cup-r1-t01.jsonl")), default_cards())
    for seq in [*random.Random(perspective).sample(range(len(replay)), 25), 0, len(replay) - 1]:
        status, step = api.call("GET", f"/matches/spring-cup-r1-t01/step?seq={seq}&as={perspective}")
        assert status == 200, step
        expected = json.loads(json.dumps(board(replay.state_at(seq), replay.db, perspective)))
        assert step["board"] == expected
        names = card_names(replay.engine.state, perspective, replay.events)
        players = {s.seat: s.player for s in replay.events[0].seats}  # seats read as players
        assert step["text"] == narrate(redact_event(replay.events[seq], perspective), names=names,
                                       players=players)
        assert (step["seq"], step["last"], step["live"]) == (seq, len(replay) - 1, False)


def test_the_timeline_narrates_every_event_and_indexes_rounds_turns_battles(api, store):
    replay = Replay(list(FileStore.read_file(store / "m-0001.jsonl")), default_cards())
    status, t = api.call("GET", "/matches/m-0001/timeline?as=B")
    assert status == 200
    assert [e["seq"] for e in t["events"]] == list(range(len(replay)))
    names = card_names(replay.engine.state, "B", replay.events)
    players = {s.seat: s.player for s in replay.events[0].seats}
    assert [e["text"] for e in t["events"]] == [narrate(redact_event(e, "B"), names=names,
                                                        players=players)
                                               for e in replay.events]
    assert {r["round"]: r["seq"] for r in t["rounds"]} == replay.index.rounds
    assert [(b["seq"], b["round"], b["realm"]) for b in t["battles"]] == replay.index.battles
    assert [b["number"] for b in t["battles"]] == list(range(1, len(replay.index.battles) + 1))
    assert [x["seq"] for x in t["turns"]] == [m.seq for m in replay.index.turns]
    rounds = [e["round"] for e in t["events"]]
    assert rounds == sorted(rounds) and rounds[-1] == max(replay.index.rounds)
    player_a = players["A"]  # B's view: A's draws are hidden cards, named by nothing
    assert any(text.startswith(f"{player_a} draws a hidden card")
               for text in (e["text"] for e in t["events"]))
    status, tail = api.call("GET", f"/matches/m-0001/timeline?as=B&from={len(replay) - 3}")
    assert [e["seq"] for e in tail["events"]] == [len(replay) - 3, len(replay) - 2, len(replay) - 1]


def test_the_page_embeds_the_asked_step_and_perspective(api):
    html = _page(api, "/matches/m-0002?seq=40&as=B")
    step = json.loads(re.search(r'id="initial-step">(.*?)</script>', html, re.DOTALL).group(1))
    assert (step["seq"], step["perspective"]) == (40, "B")
    assert '<option value="B" selected>' in html
    assert step["board"]["players"]["A"]["hand"] is None
    step = json.loads(re.search(r'id="initial-step">(.*?)</script>', _page(api, "/matches/m-0002"),
                                re.DOTALL).group(1))
    assert (step["seq"], step["perspective"]) == (0, "omniscient")
    status, data = api.call("GET", "/matches/m-0002/step?seq=1&as=judge")
    assert status == 400 and "judge" in data["message"]
    status, data = api.call("GET", "/matches/no-such-match/step")
    assert status == 404


def test_a_live_match_is_a_delayed_spectator_view_only(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=3))
    status, created = api.call("POST", "/api/matches", ORGANIZER,
                               {"seats": [{"player": "</script><b>Eve", "preset": "solfera-blaze"},
                                          SEATS[1]]})
    mid, tokens = created["match_id"], created["tokens"]
    rng = random.Random(4)
    for _ in range(12):
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]
        seat = pending["prompt"]["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        assert api.decide(mid, tokens[seat], choose(prompt["prompt"], rng), prompt["length"])[0] == 201
    length = api.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]["length"]

    html = _page(api, f"/matches/{mid}?as=A")
    assert "</script><b>Eve" not in html  # the player's name cannot break out of the page
    step = json.loads(re.search(r'id="initial-step">(.*?)</script>', html, re.DOTALL).group(1))
    assert (step["perspective"], step["seq"], step["live"]) == ("spectator", length - 4, True)
    assert "This match is live" in html
    assert all(p["hand"] is None for p in step["board"]["players"].values())
    status, data = api.call("GET", f"/matches/{mid}/step?seq=1&as=A")
    assert status == 403 and "live" in data["message"]
    status, data = api.call("GET", f"/matches/{mid}/step?seq={length - 1}")
    assert status == 400 and f"0..{length - 4}" in data["message"]
    status, t = api.call("GET", f"/matches/{mid}/timeline")
    assert t["last"] == length - 4 and t["perspectives"] == ["spectator"] and t["live"]
    assert "draws a hidden card" in " ".join(e["text"] for e in t["events"] if "draws" in e["text"])
    assert _ids(_page(api, "/matches?result=live")) == [mid]

    drive(api, mid, tokens, rng)
    status, t = api.call("GET", f"/matches/{mid}/timeline?as=omniscient")
    assert status == 200 and not t["live"] and t["perspectives"][0] == "omniscient"
    status, step = api.call("GET", f"/matches/{mid}/step?seq={t['last']}&as=A")
    assert status == 200 and step["board"]["over"]


def test_a_rendered_step_is_cached_and_served_identically(api):
    first = api.client.get("/matches/m-0001/step?seq=77&as=A").data
    cache = api.app.extensions["wonders_steps"]
    assert any(key[0] == "m-0001" and key[-2:] == ("A", 77) for key in cache._items)
    assert api.client.get("/matches/m-0001/step?seq=77&as=A").data == first


def test_the_event_list_reads_as_sentences(api, store):
    """Every event of the simulated matches gets a sentence, not the terse ``describe`` form."""
    for path in sorted(store.glob("*.jsonl")):
        _, t = api.call("GET", f"/matches/{path.stem}/timeline?as=omniscient")
        for event in t["events"]:
            assert not event["text"].startswith(event["kind"]), event
        stored_events = list(FileStore.read_file(path))
        players = {s.seat: s.player for s in stored_events[0].event.seats}  # seats read as players
        for stored in stored_events:
            e = stored.event
            if type(e).__name__ == "CardMoved" and e.reason.startswith("destroyed:") \
                    and e.from_zone == "world":
                assert t["events"][stored.seq]["text"] == f"{players[e.owner]}'s {e.name} is destroyed"


def test_an_unreadable_file_is_named_and_the_rest_are_listed(store, tmp_path):
    mine = tmp_path / "store"
    mine.mkdir()
    (mine / "m-0001.jsonl").write_bytes((store / "m-0001.jsonl").read_bytes())
    (mine / "broken.jsonl").write_text("this is not a match file\n")
    api = Api(create_app(Settings(store=mine, organizer_token=ORGANIZER, secret_key="s" * 32)))
    html = _page(api, "/matches")
    assert _ids(html) == ["m-0001"]
    (problem,) = re.findall(r'class="error problem">([^<]*)</p>', html)
    assert problem.startswith("unreadable: broken at line 1: a line that is not a ledger event")
    assert "this is" not in problem and str(tmp_path) not in html


def test_the_list_says_why_a_match_ended_in_words(tmp_path):
    """A reason is an id ("state_destroyed", "deck_out"): the list reads it in words, as the
    /play status line does ("Ann wins · state destroyed")."""
    from replay.games import game
    sow = game("sow")
    pool = sow.default_cards()
    store = tmp_path / "store"
    for seed in range(1, 20):
        (opened,) = simulate_matches(FileStore(store), pool, sow.sample_decks(pool), 1, seed,
                                     prefix=f"s{seed}", game_name="sow")
        last = list(FileStore.read_file(store / f"{opened.match_id}.jsonl"))[-1].event
        if last.reason == "state_destroyed":
            break
    assert last.reason == "state_destroyed"
    api = Api(create_app(Settings(store=store, organizer_token=ORGANIZER, secret_key="s" * 32)))
    html = _page(api, "/matches")
    assert "wins · state destroyed" in html and "state_destroyed" not in html


def test_a_tournament_match_without_round_or_table_reads_its_tournament_alone(tmp_path):
    """POST /api/matches may name a tournament and leave round and table out (docs/api.md):
    the list reads "Friday Night", not "Friday Night · RNone · TNone"; a round alone reads
    "· R2"."""
    api = Api(new_app(tmp_path))
    for extra in ({}, {"round": 2}):
        status, _ = api.call("POST", "/api/matches", ORGANIZER,
                             {"seats": SEATS, "tournament": "Friday Night", **extra})
        assert status == 201
    html = _page(api, "/matches")
    cells = re.findall(r'<td data-label="Tournament">([^<]*)</td>', html)
    assert sorted(cells) == ["Friday Night", "Friday Night · R2"]
    assert "None" not in html
    for match_id in _ids(html):  # the viewer's heading likewise
        heading = _page(api, f"/matches/{match_id}")
        assert "Friday Night · " in heading and "None" not in heading


def _rehashed(line: bytes) -> bytes:
    """``line`` with its hash recomputed (a tool that rewrote the line and its hash)."""
    import hashlib
    cut = line.rindex(b',"hash":"')
    return line[:cut] + b',"hash":"%s"}' % hashlib.sha256(line[:cut] + b"}").hexdigest().encode()


def test_a_damaged_live_match_is_listed_without_a_byte_of_its_line(tmp_path):
    """A damaged line of a live match may hold what no one may see yet (a deck, a hand): the
    list says which match, where and what kind of damage, and quotes nothing of the line --
    nor the file's path on the server."""
    api = Api(new_app(tmp_path))
    status, created = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    assert status == 201
    path = next(tmp_path.rglob(f"{created['match_id']}.jsonl"))
    lines = path.read_bytes().split(b"\n")
    assert b'"card":"Sun Knight"' in lines[0]
    # the same event, but a name escaped: canonical JSON would not escape it
    lines[0] = _rehashed(lines[0].replace(b'"card":"Sun Knight"', b'"card":"\\u0053un Knight"', 1))
    path.write_bytes(b"\n".join(lines))
    html = _page(api, "/matches")
    (problem,) = re.findall(r'class="error problem">([^<]*)</p>', html)
    assert problem == (f"unreadable: {created['match_id']} at line 1 (seq 0): a line not in "
                       f"its canonical encoding (wonders verify on the server gives the detail)")
    assert "Sun" not in problem and str(tmp_path) not in html


def test_two_tournaments_of_one_name_are_listed_and_filtered_apart(tmp_path):
    """A second "Friday Cup" (another id): the list's filter offered the name once and
    ?tournament=fri-2 (the id /stats and the tournament pages use) found no match; now the
    filter takes an id or a name, offers each tournament by its id labelled with it, and a
    shared name shows its id in the list."""
    db = default_cards()
    fs = FileStore(tmp_path / "store")
    decks = load_decks(None, db)
    for tid, seed in (("fri-1", 3), ("fri-2", 4)):
        list(simulate_tournament(fs, db, decks, "Friday Cup", 2, 1, seed=seed, tournament_id=tid))
    list(simulate_tournament(fs, db, decks, "Spring Cup", 2, 1, seed=5))
    api = Api(create_app(Settings(store=tmp_path / "store", secret_key="s" * 32)))
    assert _ids(_page(api, "/matches?tournament=fri-2")) == ["fri-2-r1-t01"]
    assert _ids(_page(api, "/matches?tournament=Friday+Cup")) == ["fri-1-r1-t01", "fri-2-r1-t01"]
    assert _ids(_page(api, "/matches?tournament=Spring+Cup")) == ["spring-cup-r1-t01"]
    html = _page(api, "/matches?tournament=fri-2")
    assert re.findall(r'<option value="([^"]*)" ?(selected)?>([^<]*)</option>',
                      html.split('name="tournament"')[1].split("</select>")[0]) == [
        ("", "", "any"), ("Friday Cup", "", "Friday Cup (all 2)"),
        ("fri-1", "", "Friday Cup (fri-1)"), ("fri-2", "selected", "Friday Cup (fri-2)"),
        ("spring-cup", "", "Spring Cup")]
    cells = re.findall(r'<td data-label="Tournament">([^<]*)</td>', _page(api, "/matches"))
    assert sorted(cells) == ["Friday Cup (fri-1) · R1 · T1", "Friday Cup (fri-2) · R1 · T1",
                             "Spring Cup · R1 · T1"]


def test_the_view_as_menu_names_each_seat_by_its_player(api, store):
    """The menu read 'omniscient, A, B, spectator': which player is B was left to the reader."""
    opened = FileStore(store).info("m-0001").opened
    html = _page(api, "/matches/m-0001")
    menu = re.search(r'<select id="perspective">(.*?)</select>', html, re.S)[1]
    assert re.findall(r'<option value="([^"]+)" ?(?:selected)?>([^<]*)</option>', menu) == [
        ("omniscient", "omniscient"), *((s.seat, f"{s.seat} · {s.player}") for s in opened.seats),
        ("spectator", "spectator")]
