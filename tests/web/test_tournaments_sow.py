"""A State of Wonder tournament, end to end.

Tournaments were of Wonders of The First only: ``POST /api/tournaments`` refused a ``game``
(400), every decklist was read against the Wonders catalogue and rule 303, and every table's
match was created as a Wonders match.  A tournament's game is now chosen at creation (API,
``wonders tournament create --game``, the console's form) and recorded in its
``TournamentCreated``; a State of Wonder tournament runs through a real server (``wonders
serve``): five players register with State of Wonder decks pasted as ``count name`` lines (a
deck that breaks State of Wonder's deck rules, and a Wonders card, refused in one line each),
two Swiss rounds are started, every table's match is a State of Wonder match (its game, its
ruleset, its cards, the tournament's round and table), one table each round is played to its
end by State of Wonder bots deciding through the seat API, the others ended by the judge;
results come from each match's ``MatchEnded``; the standings equal a computation by hand and
have no DBS (a Wonders notion: ``null``, a blank CSV cell, no console column); the CSV exports
name the winners; the Wonders-only pool-file import refuses the tournament in one line (API
and CLI).
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys

import pytest

from ledger.filestore import FileStore
from replay.games import game
from replay.verify import verify_file
from tests.security.live import ROOT, LiveApi, LiveServer
from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_sow_api import play_out
from tests.web.test_tournaments import call, concede, hand_standings
from tests.web.test_tournaments_desk import ORIGIN

SOW = game("sow")
NAMES = ["Ann", "Bob", "Cleo", "Dev", "Eve"]
NOT_FOR_SOW = ("SoW Open is a State of Wonder tournament: importing a pool file of printed "
               "stats is for Wonders of The First tournaments only (a State of Wonder deck "
               "uses the cards of its pool)")


def sow_decks():
    return SOW.sample_decks(SOW.default_cards())


def sow_decklist(deck) -> str:
    """A State of Wonder deck pasted as ``count name`` lines: its State, its Wonder or Hero,
    its 15 cards."""
    return "# pasted\n" + "\n".join(f"{e.count} {e.card}" for e in deck.entries()) + "\n"


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "store")
    yield live
    live.stop()


def csv_rows(desk, path: str) -> list[dict[str, str]]:
    response = desk.client.open(path, "GET", {"Authorization": f"Bearer {ORGANIZER}"})
    assert response.status_code == 200, response.data
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def register(desk, tid: str, player: str, text: str) -> tuple[int, dict]:
    return call(desk, "POST", f"/api/tournaments/{tid}/players",
                {"player": player, "decklist": text})


def test_a_state_of_wonder_tournament_through_a_real_server(server, tmp_path):
    desk = LiveApi(server)
    status, t = call(desk, "POST", "/api/tournaments", {"name": "SoW Open", "game": "sow"})
    assert status == 201, t
    assert t["game"] == "sow" and t["ruleset"] == SOW.rulesets[0]
    tid = t["tournament_id"]
    decks = sow_decks()
    assert len(decks) >= len(NAMES)
    for player, deck in zip(NAMES, decks, strict=False):
        status, t = register(desk, tid, player, sow_decklist(deck))
        assert status == 201, t
    assert {p["name"]: p["dbs"] for p in t["players"]} == dict.fromkeys(NAMES)  # no DBS

    # a deck State of Wonder's rules refuse: one line saying why, nothing registered
    first = decks[0].entries()
    culture = first[2]  # the first card after the State and the Wonder or Hero
    over = sow_decklist(decks[0]) + f"{4 - culture.count} {culture.card}\n"
    status, data = register(desk, tid, "Zed", over)
    assert status == 422 and "\n" not in data["message"], data
    assert data["message"].startswith("decklist: Zed's deck is not legal (State of Wonder): "), data
    assert f"{culture.card!r}: 4 copies" in data["message"]  # at most 3 of a name
    assert "15 cards besides its State and its Wonder or Hero" in data["message"]
    # a Wonders card is no State of Wonder card: the line, and where it was looked for
    status, data = register(desk, tid, "Zed", sow_decklist(decks[0]) + "1 Glow Smith\n")
    assert status == 422 and data["message"] == (
        f"decklist: line {len(first) + 2}: no card 'Glow Smith' in the State of Wonder card "
        f"pool"), data
    assert len(call(desk, "GET", f"/api/tournaments/{tid}")[1]["players"]) == len(NAMES)

    # the Wonders-only import: one line, nothing written (API, and the CLI beside the server)
    status, data = call(desk, "POST", f"/api/tournaments/{tid}/cards",
                        {"filename": "stats.csv", "text": "name,cost,power\nGlow Smith,1,1\n"})
    assert status == 422 and data["message"] == NOT_FOR_SOW, data
    done = subprocess.run([sys.executable, "-m", "web.cli", "tournament", "import-cards", tid,
                           str(_file(tmp_path, "stats.csv", "name,cost,power\nGlow Smith,1,1\n")),
                           "--store", str(server.store)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr == f"error: {NOT_FOR_SOW}\n", done.stderr

    store = FileStore(server.store)
    history = []  # (matches [(a, b, winner)], bye) for the hand computation
    met: set[frozenset[str]] = set()
    for number in (1, 2):
        status, started = call(desk, "POST", f"/api/tournaments/{tid}/rounds")
        assert status == 201, started
        assert started["round"] == number and started["bye"] is not None  # five players
        matches = []
        for i, table in enumerate(started["tables"]):
            pair = frozenset((table["a"], table["b"]))
            assert pair not in met  # no rematch
            met.add(pair)
            opened = next(iter(FileStore.read_file(store.path(table["match_id"])))).event
            assert (opened.game, opened.ruleset) == ("sow", SOW.rulesets[0])
            assert (opened.tournament, opened.round, opened.table) == ("SoW Open", number,
                                                                      table["table"])
            assert [s.player for s in opened.seats] == [table["a"], table["b"]]
            assert opened.cards and all(SOW.definition(SOW.default_cards(), c["name"]) == c
                                        for c in opened.cards)  # State of Wonder's own cards
            if i == 0:  # State of Wonder bots play it to its end through the seat API
                decisions, replay = play_out(desk, store.path, table["match_id"],
                                             table["tokens"], seed=number, check_every=10**6)
                assert decisions > 5 and replay.engine.state.over
                winner = {"A": table["a"], "B": table["b"]}.get(replay.engine.state.winner)
            else:
                loser = "B" if table["a"] < table["b"] else "A"
                concede(desk, table["match_id"], table["tokens"]["judge"], loser)
                winner = table["a"] if loser == "B" else table["b"]
            assert verify_file(store.path(table["match_id"])).ok
            matches.append((table["a"], table["b"], winner))
        history.append((matches, started["bye"]))

    # the board: every table ended, its result by name
    t = call(desk, "GET", f"/api/tournaments/{tid}")[1]
    shown = [(tb["a"], tb["b"], tb["result"]) for r in t["rounds"] for tb in r["tables"]]
    assert all(tb["status"] == "ended" for r in t["rounds"] for tb in r["tables"])
    assert shown == [(a, b, w or "draw") for matches, _bye in history for a, b, w in matches]

    # standings: by hand, from the recorded results; no DBS
    expected = hand_standings(history)
    status, table = call(desk, "GET", f"/api/tournaments/{tid}/standings")
    assert status == 200, table
    got = {s["player"]: (s["points"], round(s["omw"], 6), round(s["gw"], 6), round(s["ogw"], 6))
           for s in table["standings"]}
    assert got == expected
    assert all(s["dbs"] is None for s in table["standings"])

    # the CSV exports: the same columns as a Wonders tournament's, the DBS cell blank
    rows = csv_rows(desk, f"/api/tournaments/{tid}/standings.csv")
    assert list(rows[0]) == ["rank", "player", "points", "wins", "losses", "draws", "byes",
                             "omw_pct", "gw_pct", "ogw_pct", "dbs", "dropped"]
    assert [r["player"] for r in rows] == [s["player"] for s in table["standings"]]
    assert all(r["dbs"] == "" for r in rows)
    assert {r["player"]: int(r["points"]) for r in rows} == {p: v[0] for p, v in expected.items()}
    results = csv_rows(desk, f"/api/tournaments/{tid}/results.csv")
    played = [(r["seat_a"], r["seat_b"], r["winner"]) for r in results if r["table"] != "bye"]
    assert played == shown
    byes = [(r["round"], r["seat_a"]) for r in results if r["table"] == "bye"]
    assert byes == [(str(n), bye) for n, (_m, bye) in enumerate(history, start=1)]
    pairings = csv_rows(desk, f"/api/tournaments/{tid}/pairings.csv")
    assert {r["match_id"] for r in pairings if r["match_id"]} == {
        tb["match_id"] for r in t["rounds"] for tb in r["tables"]}


def _file(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tournament_names_a_game_this_program_has_and_a_ruleset_of_it(tmp_path):
    api = Api(new_app(tmp_path))
    status, data = call(api, "POST", "/api/tournaments", {"name": "Chess Open", "game": "chess"})
    assert status == 400 and data["message"].startswith("game: unknown game 'chess'"), data
    status, data = call(api, "POST", "/api/tournaments",
                        {"name": "SoW Open", "game": "sow", "ruleset": "1.3.2"})
    assert status == 422 and data["message"] == (
        "ruleset '1.3.2': State of Wonder is played under 004"), data
    assert call(api, "GET", "/api/tournaments")[1]["tournaments"] == []  # nothing written
    # no game: Wonders of The First, as before
    status, data = call(api, "POST", "/api/tournaments", {"name": "Spring Cup"})
    assert status == 201 and (data["game"], data["ruleset"]) == ("wotf", "1.3.2")


def test_the_console_creates_and_runs_a_state_of_wonder_tournament(tmp_path):
    api = Api(new_app(tmp_path))
    client = api.client
    assert client.post("/organize/login", data={"token": ORGANIZER},
                       headers=ORIGIN).status_code == 303
    home = client.get("/organize").get_data(as_text=True)
    csrf = home.split('name="csrf" value="')[1].split('"')[0]
    assert '<option value="wotf" selected>Wonders of The First</option>' in home
    assert '<option value="sow">State of Wonder</option>' in home
    created = client.post("/organize/tournaments", headers=ORIGIN,
                          data={"csrf": csrf, "name": "SoW Open", "game": "sow"})
    assert created.status_code == 303, created.get_data(as_text=True)
    tid = "sow-open"
    home = client.get("/organize").get_data(as_text=True)
    assert "State of Wonder · 0 players" in home  # the list names each tournament's game
    for player, deck in zip(NAMES[:3], sow_decks(), strict=False):
        done = client.post(f"/organize/t/{tid}/players", headers=ORIGIN,
                           data={"csrf": csrf, "player": player, "decklist": sow_decklist(deck)})
        assert done.status_code == 303, done.get_data(as_text=True)
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)
    assert "State of Wonder · 3 players" in page and "rules 004" in page
    assert "1 State, 1 Wonder or Hero and 15 more" in page  # the decklist's hint
    assert "<th>DBS</th>" not in page and "DBS " not in page  # no Wonders notion faked
    assert 'id="import-cards"' not in page  # no Wonders pool import
    for name in (d.name for d in sow_decks()):  # the presets are State of Wonder's decks
        assert f'<option value="{name}">' in page
    refused = client.post(f"/organize/t/{tid}/players", headers=ORIGIN,
                          data={"csrf": csrf, "player": "Zed", "decklist": "1 Glow Smith"})
    assert refused.status_code == 422
    assert "line 1: no card &#39;Glow Smith&#39; in the State of Wonder card pool" in \
        refused.get_data(as_text=True)
    links = client.post(f"/organize/t/{tid}/rounds", data={"csrf": csrf}, headers=ORIGIN)
    text = links.get_data(as_text=True)
    assert links.status_code == 201 and "SoW Open · State of Wonder" in text, text
    imported = client.post(f"/organize/t/{tid}/cards", headers=ORIGIN,
                           data={"csrf": csrf, "pool": (io.BytesIO(b"name,cost\nX,1\n"),
                                                         "stats.csv")})
    assert imported.status_code == 422
    assert NOT_FOR_SOW.replace("'", "&#39;") in imported.get_data(as_text=True)
    # a Wonders tournament's page keeps its DBS column and its import form
    client.post("/organize/tournaments", data={"csrf": csrf, "name": "Spring Cup"},
                headers=ORIGIN)
    page = client.get("/organize/t/spring-cup").get_data(as_text=True)
    assert "Wonders of The First · 0 players" in page
    assert "<th>DBS</th>" in page and 'id="import-cards"' in page


def test_the_cli_creates_a_state_of_wonder_tournament(tmp_path, capsys):
    store = str(tmp_path / "store")

    def run(*args):
        from web.cli import main
        try:
            main([*args, "--store", store])
        except SystemExit as exc:
            assert not exc.code, capsys.readouterr().err
        return capsys.readouterr().out

    out = run("tournament", "create", "SoW Night", "--game", "sow")
    assert out == "tournament sow-night: SoW Night (State of Wonder, rules 004)\n"
    for player, deck in zip(NAMES[:3], sow_decks(), strict=False):
        path = _file(tmp_path, f"{player}.txt", sow_decklist(deck))
        out = run("tournament", "register", "sow-night", player, str(path))
        assert out.startswith(f"SoW Night: registered {player};"), out  # no DBS to show
    out = run("tournament", "pair", "sow-night")
    assert "round 1, 1 table\n" in out and "bye: " in out
    mid = out.split(" match ")[1].split()[0]
    opened = next(iter(FileStore.read_file(FileStore(store).path(mid)))).event
    assert opened.game == "sow"
    assert run("tournament", "export", "sow-night", "standings").splitlines()[1].endswith(",,")
    out = run("tournament", "create", "Club Night")  # the default: Wonders of The First
    assert out == "tournament club-night: Club Night (Wonders of The First, rules 1.3.2)\n"
