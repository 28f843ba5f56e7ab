"""The tournament API (``/api/tournaments…``) end to end, over a real app and a file store.

Eight players register with the shipped decks pasted as ``count name`` lines; three Swiss
rounds are started through the API (every table's match created with its tokens), one table
played to its end by bots deciding through the seat API and the others ended by the judge's
concession; a player drops before round 3, so round 3 has a bye.  Checked: no rematches, the
bye goes to the lowest-ranked player, recorded as such, and counts as a 2-0 win; the standings
equal a computation by hand from the recorded results (written out here, independent of
:mod:`ledger.tournament`); the CSV exports; decklist errors name the line; reissued and
revoked tokens; late entries; the organizer token is required; the CLI runs a tournament too.
"""

from __future__ import annotations

import csv
import io
import random
import tomllib

import pytest

from replay.games import game
from replay.resources import decks_dir
from tests.web.test_api import ORGANIZER, Api, drive, new_app
from web.cli import main as cli_main
from web.tournaments import shipped_catalogue

DECKS = ["solfera-blaze", "thalwind-sky", "petraia-stone", "boundless-drift",
         "heliosynth-forge", "umbrathene-shade", "thalwind-solfera", "petraia-umbrathene"]
NAMES = ["Ann", "Bob", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hana"]


def decklist(name: str) -> str:
    data = tomllib.loads((decks_dir() / f"{name}.toml").read_text(encoding="utf-8"))
    lines = [f"{n} {card}" for card, n in data["cards"].items()]
    lines += [f"{n}x {card}" for card, n in data.get("archive", {}).items()]
    return "# pasted\n" + "\n".join(lines) + "\n"


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def call(api, method, path, body=None, token=ORGANIZER):
    return api.call(method, path, token, body)


def new_tournament(api, players=8, name="Spring Cup"):
    status, t = call(api, "POST", "/api/tournaments", {"name": name})
    assert status == 201, t
    tid = t["tournament_id"]
    for player, deck in list(zip(NAMES, DECKS, strict=True))[:players]:
        status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                            {"player": player, "decklist": decklist(deck)})
        assert status == 201, data
    return tid


def concede(api, match_id, judge_token, loser):
    status, data = api.call("POST", f"/api/matches/{match_id}/ending", judge_token,
                            {"seat": loser, "kind": "concession"})
    assert status == 201, data


def hand_standings(rounds):
    """Standings by hand: ``rounds`` is a list of (matches [(a, b, winner or None for a
    draw)], bye or None).  A win 3 points, a draw 1, a bye a 2-0 win; one game a match;
    percentages floored at 1/3; byes left out of the opponents' percentages."""
    players: dict[str, dict] = {}

    def rec(name):
        return players.setdefault(name, {"mp": 0, "rounds": 0, "gp": 0, "games": 0, "opp": []})

    for matches, bye in rounds:
        for a, b, winner in matches:
            for me, other in ((a, b), (b, a)):
                r = rec(me)
                r["rounds"] += 1
                r["games"] += 1
                r["opp"].append(other)
                if winner == me:
                    r["mp"] += 3
                    r["gp"] += 3
                elif winner is None:  # a draw: 1 match point, 1 game point
                    r["mp"] += 1
                    r["gp"] += 1
        if bye:
            r = rec(bye)
            r["rounds"] += 1
            r["games"] += 2
            r["mp"] += 3
            r["gp"] += 6
    mw = {n: max(1 / 3, r["mp"] / (3 * r["rounds"])) for n, r in players.items()}
    gw = {n: max(1 / 3, r["gp"] / (3 * r["games"])) for n, r in players.items()}
    out = {}
    for n, r in players.items():
        omw = sum(mw[o] for o in r["opp"]) / len(r["opp"]) if r["opp"] else 0
        ogw = sum(gw[o] for o in r["opp"]) / len(r["opp"]) if r["opp"] else 0
        out[n] = (r["mp"], round(omw, 6), round(gw[n], 6), round(ogw, 6))
    return out


def test_eight_players_three_swiss_rounds_a_drop_and_a_bye(api):
    tid = new_tournament(api)
    history = []  # (matches [(a, b, winner)], bye)
    rng = random.Random(17)
    for number in (1, 2, 3):
        if number == 3:  # a drop: seven players, so a bye
            status, data = call(api, "POST", f"/api/tournaments/{tid}/drops", {"player": "Hana"})
            assert status == 201, data
            table = call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["standings"]
            before = {s["player"]: s for s in table}
        status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
        assert status == 201, started
        assert started["round"] == number
        matches = []
        for i, table in enumerate(started["tables"]):
            assert set(table["tokens"]) == {"A", "B", "judge"}
            assert table["links"]["A"].endswith(f"/play/{table['match_id']}?token={table['tokens']['A']}")
            if number == 1 and i == 0:  # bots play this one to its end through the seat API
                drive(api, table["match_id"], table["tokens"], rng)
                info = call(api, "GET", f"/api/matches/{table['match_id']}")[1]
                assert info["ended"]
                winner = {"A": table["a"], "B": table["b"]}.get(info["winner"])
            else:
                loser = "B" if (table["a"] < table["b"]) else "A"  # the name first in order wins
                concede(api, table["match_id"], table["tokens"]["judge"], loser)
                winner = table["a"] if loser == "B" else table["b"]
            matches.append((table["a"], table["b"], winner))
        history.append((matches, started["bye"]))
        if number == 3:
            assert started["bye"] is not None
            active = [p for p in before if p != "Hana"]
            lowest = min(active, key=lambda p: -before[p]["rank"])
            assert started["bye"] == lowest  # the lowest-ranked active player (none had one)
            assert "Hana" not in {p for t in started["tables"] for p in (t["a"], t["b"])}
        else:
            assert started["bye"] is None
        # the board shows every table ended with its winner by name
        board = call(api, "GET", f"/api/tournaments/{tid}")[1]
        shown = board["rounds"][number - 1]
        assert [t["status"] for t in shown["tables"]] == ["ended"] * len(matches)
        assert [t["result"] for t in shown["tables"]] == [w or "draw" for _a, _b, w in matches]

    met = [frozenset((a, b)) for matches, _bye in history for a, b, _w in matches]
    assert len(met) == len(set(met)), "a rematch"
    expected = hand_standings(history)
    got = call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["standings"]
    assert {s["player"]: (s["points"], round(s["omw"], 6), round(s["gw"], 6), round(s["ogw"], 6))
            for s in got} == expected
    assert [s["rank"] for s in got] == list(range(1, 9))
    points = [s["points"] for s in got]
    assert points == sorted(points, reverse=True)
    bye = history[2][1]
    assert next(s for s in got if s["player"] == bye)["byes"] == 1
    assert next(s for s in got if s["player"] == "Hana")["dropped"]

    status, text = csv_of(api, tid, "standings")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["player"] for r in rows] == [s["player"] for s in got]
    assert rows[0]["points"] == str(got[0]["points"])
    _s, text = csv_of(api, tid, "pairings")
    pairings = list(csv.DictReader(io.StringIO(text)))
    assert len(pairings) == 4 + 4 + 3 + 1  # tables, plus round 3's bye
    assert any(r["table"] == "bye" and r["seat_a"] == bye for r in pairings)
    _s, text = csv_of(api, tid, "results")
    results = list(csv.DictReader(io.StringIO(text)))
    assert [r["winner"] for r in results if r["table"] != "bye"] == \
        [w or "draw" for matches, _b in history for _a, _bb, w in matches]


def test_seven_players_and_three_drops_meet_again_only_where_they_must(api):
    """Seven players; Ann and Gus drop after round 1, Bob after round 2.  In round 4 Eve has
    met the three others left, so one rematch is needed -- but Finn and Dev have never met:
    the round pairs Eve again and Finn with Dev (one rematch), not Eve-Finn and Cleo-Dev (two,
    as the greedy fallback paired it when no rematch-free pairing existed)."""
    tid = new_tournament(api, players=7)
    winners = {1: {"Ann", "Cleo", "Eve"}, 2: {"Eve", "Dev"}, 3: {"Eve", "Finn"}}
    drops = {2: ["Ann", "Gus"], 3: ["Bob"]}
    met: list[frozenset[str]] = []
    for number in (1, 2, 3, 4):
        for player in drops.get(number, []):
            assert call(api, "POST", f"/api/tournaments/{tid}/drops", {"player": player})[0] == 201
        status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
        assert status == 201, started
        pairs = [(t["a"], t["b"]) for t in started["tables"]]
        if number < 4:
            assert not any(frozenset(p) in met for p in pairs), pairs
        for table in started["tables"] if number < 4 else []:
            loser = "B" if table["a"] in winners[number] else "A"
            concede(api, table["match_id"], table["tokens"]["judge"], loser)
        met += [frozenset(p) for p in pairs]
    assert pairs == [("Eve", "Cleo"), ("Finn", "Dev")]
    assert [p for p in pairs if met.count(frozenset(p)) > 1] == [("Eve", "Cleo")]


def csv_of(api, tid, kind):
    response = api.client.get(f"/api/tournaments/{tid}/{kind}.csv",
                              headers={"Authorization": f"Bearer {ORGANIZER}"})
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    return response.status_code, response.get_data(as_text=True)


def test_a_round_needs_the_previous_one_over_and_the_log_is_the_truth(api, tmp_path):
    tid = new_tournament(api, players=4)
    status, _started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201
    status, data = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 422 and "round 1 is not over" in data["message"], data
    log = tmp_path / "store" / ".tournaments" / f"{tid}.jsonl"
    types = [line.split('"type":"')[1].split('"')[0] for line in log.read_text().splitlines()]
    assert types == ["TournamentCreated"] + ["PlayerRegistered"] * 4 + ["RoundPaired",
                                                                        "RoundStarted"]
    # a fresh app over the same store folds the same tournament
    again = Api(new_app(tmp_path))
    assert call(again, "GET", f"/api/tournaments/{tid}")[1] == call(api, "GET", f"/api/tournaments/{tid}")[1]


def test_decklist_errors_are_one_line_naming_the_line(api):
    tid = new_tournament(api, players=0)
    good = decklist("solfera-blaze")
    cases = [
        ("Zed", good.replace("\n", "\nNot A Card Line\n", 1), "line 2"),
        ("Zed", good + "2 Wibble Snark\n", "no card 'Wibble Snark' in the catalogue"),
        ("Zed", "3 Agaric Supreme\n", "exactly 50 (rule 303)"),
        ("Zed", "4 004\n", "allows 3 (rule 303.1)"),
        ("Zed", good + "1 P-046\n", "Symbiosis Tracker is a tracker"),
    ]
    for player, text, expected in cases:
        status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                            {"player": player, "decklist": text})
        assert status == 422, data
        assert "\n" not in data["message"]
        if expected:
            assert expected in data["message"], data["message"]


def test_a_catalogue_deck_registers_with_its_dbs_and_plays_its_cards_as_catalogue_entries(api):
    tid = new_tournament(api, players=1)
    # 50 catalogue cards the pool doesn't have: 3 copies each of Wonders by set number
    pool = game("wotf").default_cards()
    wonders = [c for c in shipped_catalogue().cards if c.type == "Wonder" and c.name not in pool][:17]
    lines = [f"3 {c.number}" for c in wonders[:16]] + [f"2 {wonders[16].name}"]
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                        {"player": "Kai", "decklist": "\n".join(lines)})
    assert status == 201, data
    kai = next(p for p in data["players"] if p["name"] == "Kai")
    assert kai["dbs"] == sum(3 * c.dbs for c in wonders[:16]) + 2 * wonders[16].dbs
    assert kai["cards"][wonders[0].name] == 3
    # The round starts: the cards the pool has no rules data for are recorded as catalogue
    # entries whose printed stats their owner enters at the table (R34,
    # tests/web/test_real_cards.py).
    status, data = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, data
    assert {data["tables"][0]["a"], data["tables"][0]["b"]} == {"Ann", "Kai"}


def test_late_entry_reissue_and_revoke(api):
    tid = new_tournament(api, players=4)
    _s, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    table = started["tables"][0]
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                        {"player": "Ivy", "decklist": decklist("heliosynth-forge")})
    assert status == 201
    assert next(p for p in data["players"] if p["name"] == "Ivy")["entered"] == 1
    mid = table["match_id"]
    old = table["tokens"]
    status, data = call(api, "POST", f"/api/tournaments/{tid}/reissue",
                        {"round": 1, "table": table["table"], "role": "A"})
    assert status == 201, data
    new = data["tokens"]["A"]
    assert set(data["tokens"]) == {"A"} and new != old["A"]
    assert api.call("GET", f"/api/matches/{mid}/state", old["A"])[0] == 401
    assert api.call("GET", f"/api/matches/{mid}/state", new)[0] == 200
    assert api.call("GET", f"/api/matches/{mid}/state", old["B"])[0] == 200  # untouched
    status, data = call(api, "POST", f"/api/tournaments/{tid}/revoke",
                        {"round": 1, "table": table["table"], "role": "judge"})
    assert status == 200, data
    assert api.call("GET", f"/api/matches/{mid}/state", old["judge"])[0] == 401
    # the revoked judge can't end table 1: reissue it and end it
    _s, data = call(api, "POST", f"/api/tournaments/{tid}/reissue",
                    {"round": 1, "table": table["table"], "role": "judge"})
    concede(api, mid, data["tokens"]["judge"], "B")
    for t in started["tables"][1:]:
        concede(api, t["match_id"], t["tokens"]["judge"], "B")
    _s, second = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert "Ivy" in {p for t in second["tables"] for p in (t["a"], t["b"])} | {second["bye"]}
    assert second["bye"] is not None  # five players
    standings = call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["standings"]
    ivy = next(s for s in standings if s["player"] == "Ivy")
    assert ivy["points"] == (3 if second["bye"] == "Ivy" else 0)


def test_the_organizer_token_is_required_and_errors_are_documented(api):
    tid = new_tournament(api, players=2)
    assert call(api, "GET", f"/api/tournaments/{tid}", token=None)[0] == 401
    assert call(api, "GET", f"/api/tournaments/{tid}", token="x" * 40)[0] == 403
    assert call(api, "GET", "/api/tournaments/no-such")[0] == 404
    assert call(api, "POST", "/api/tournaments", {"name": "Spring Cup"})[0] == 409
    assert call(api, "POST", f"/api/tournaments/{tid}/drops", {"player": "Nobody"})[0] == 422
    listed = call(api, "GET", "/api/tournaments")[1]["tournaments"]
    assert listed == [{"tournament_id": tid, "name": "Spring Cup", "game": "wotf", "players": 2,
                       "rounds": 0}]
    doc = call(api, "GET", "/api/openapi.json")[1]
    for path in ("/api/tournaments", "/api/tournaments/{tournament_id}/rounds",
                 "/api/tournaments/{tournament_id}/standings.csv",
                 "/api/tournaments/{tournament_id}/reissue"):
        assert path in doc["paths"], path


def test_the_cli_runs_a_tournament(tmp_path, capsys):
    store = str(tmp_path / "store")

    def run(*args):
        try:
            cli_main([*args])
        except SystemExit as exc:
            assert not exc.code, capsys.readouterr().err
        return capsys.readouterr().out

    assert "tournament club-night" in run("tournament", "create", "Club Night", "--store", store)
    for player, deck in list(zip(NAMES, DECKS, strict=True))[:3]:
        path = tmp_path / f"{deck}.txt"
        path.write_text(decklist(deck), encoding="utf-8")
        assert f"registered {player}" in run("tournament", "register", "club-night", player,
                                             str(path), "--store", store)
    out = run("tournament", "pair", "club-night", "--store", store)
    assert "round 1, 1 table\n" in out and "bye: " in out and "judge=" in out
    bye = out.split("bye: ")[1].strip()
    out = run("tournament", "standings", "club-night", "--store", store)
    assert out.splitlines()[1].split()[:3] == ["1", bye, "3"]  # the bye: 3 points
    text = run("tournament", "export", "club-night", "pairings", "--store", store)
    assert text.startswith("round,table,seat_a,seat_b,match_id\n1,1,")


def test_the_cli_names_the_stores_tournaments_when_an_id_names_none(tmp_path, capsys):
    store = str(tmp_path / "store")

    def error(*args):
        with pytest.raises(SystemExit) as exc:
            cli_main([*args, "--store", store])
        assert exc.value.code == 1
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1, lines  # one line, never a traceback
        return lines[0]

    (tmp_path / "store").mkdir()  # a store with no tournament (a missing one: its own line)
    assert error("tournament", "standings", "club-night") == (
        "error: no tournament 'club-night'; this store has no tournament yet (wonders "
        "tournament create NAME; the standings of a simulated one: wonders stats standings)")
    cli_main(["tournament", "create", "Club Night", "--store", store])
    cli_main(["tournament", "create", "Open", "--store", store])
    capsys.readouterr()
    assert error("tournament", "pair", "club-nite") == (
        "error: no tournament 'club-nite'; this store's tournaments: club-night (Club Night), "
        "open (Open)")
    # the name where the id goes: the id to give
    assert error("tournament", "export", "Club Night", "standings").endswith(
        "; 'Club Night' is the name of tournament 'club-night': give its id")
    # a tournament that exists and refuses: its own message, nothing added
    assert error("tournament", "drop", "club-night", "Nobody") == (
        "error: Club Night: no player named 'Nobody'")
    # a tournament the listing can't read: the error given, alone
    (tmp_path / "store" / ".tournaments" / "broken.jsonl").write_text("not json\n")
    assert error("tournament", "pair", "club-nite") == "error: no tournament 'club-nite'"


def test_the_console_needs_the_organizer_session_and_its_csrf_token(api):
    tid = new_tournament(api, players=2)
    client, origin = api.client, {"Origin": "http://localhost"}
    assert client.get(f"/organize/t/{tid}").status_code == 303  # to the sign-in form
    assert client.get(f"/organize/t/{tid}/standings.csv").status_code == 403
    assert client.post("/organize/login", data={"token": "nope"}, headers=origin).status_code == 401
    assert client.post("/organize/login", data={"token": ORGANIZER}).status_code == 403  # no origin
    assert client.post("/organize/login", data={"token": ORGANIZER},
                       headers=origin).status_code == 303
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)
    assert "Ann" in page and "Bob" in page and "DBS" in page
    csrf = page.split('name="csrf" value="')[1].split('"')[0]
    assert client.post(f"/organize/t/{tid}/rounds", data={"csrf": "forged"},
                       headers=origin).status_code == 403
    started = client.post(f"/organize/t/{tid}/rounds", data={"csrf": csrf}, headers=origin)
    assert started.status_code == 201
    text = started.get_data(as_text=True)
    assert text.count("<svg") == 3 and "Seat A: " in text
    assert client.get(f"/organize/t/{tid}/standings.csv").status_code == 200
    assert client.get(f"/organize/t/{tid}/nonsense.csv").status_code == 404


def test_a_tournament_on_a_postgresql_store(pg_url):
    from tests.web.test_store_app_postgres import pg_app
    api = pg_app(pg_url)
    tid = new_tournament(api, players=3)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    assert started["bye"] is not None
    table = started["tables"][0]
    _s, data = call(api, "POST", f"/api/tournaments/{tid}/reissue",
                    {"round": 1, "table": 1, "role": "judge"})
    assert api.call("GET", f"/api/matches/{table['match_id']}/state", table["tokens"]["judge"])[0] == 401
    concede(api, table["match_id"], data["tokens"]["judge"], "A")
    again = pg_app(pg_url)  # a restart folds the same tournament from the database
    standings = call(again, "GET", f"/api/tournaments/{tid}/standings")[1]["standings"]
    assert [s["points"] for s in standings] == [3, 3, 0]
    assert {standings[0]["player"], standings[1]["player"]} == {table["b"], started["bye"]}
    assert call(again, "GET", f"/api/tournaments/{tid}")[1]["length"] == 1 + 3 + 2 + 1
