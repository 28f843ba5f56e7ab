"""The organizer's desk: mistakes that can be undone, and what the desk is told.

* a drop was one tap with no undo: the console now asks a second tap ("Yes, drop Ann"), and a
  dropped player is reinstated (``PlayerReinstated``; API ``…/reinstatements``, console,
  ``wonders tournament reinstate``), paired again from the next round;
* a revoke was one tap with "all tokens" chosen by default: the console's token list now starts
  at "which token?" (a choice is required), and a revoke answers a confirmation naming the
  round, the table, its players and whose token; only its *Yes* revokes;
* one person registered twice (``Ann``/``ann``/``ANN``, a composed and a decomposed ``Zoë``),
  a zero-width-space name shown blank, a NUL byte in a name written into the CSV: names are
  NFC, compared case-insensitively, and refused when invisible or holding a control character;
* a tournament named ``Tournoi d'été`` or ``東京オープン`` could not be created (its id kept the
  letters the id pattern refuses): the id is ASCII (``tournoi-d-ete``; ``t-`` and a hash when
  nothing ASCII is left), the name is kept as given;
* two registration desks at once: of 16 concurrent registrations 13 were refused (409, "3
  events, not 1"): a desk's change is now read, checked and appended again when another writer
  came first (and changes in one server wait for each other);
* a deck with a catalogue token in its archive (no rules data in the pool) registered, then
  made pairing round 1 fail for everyone: it is refused at registration, saying why;
* a drop before round 1 said "dropped after round 0": it says "dropped before round 1";
* a decklist file saved with a byte order mark was refused on its first line, a near miss had
  no "did you mean";
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.security.live import ROOT, LiveApi, LiveServer
from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_tournaments import call, decklist, new_tournament

ORIGIN = {"Origin": "http://localhost"}


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def wonders(*args: str, store) -> subprocess.CompletedProcess:
    """``wonders tournament …`` as a real subprocess over ``store``."""
    return subprocess.run([sys.executable, "-m", "web.cli", "tournament", *args, "--store",
                           str(store)], cwd=ROOT, capture_output=True, text=True)


def console(api, tid):
    """The signed-in console's client and the page's CSRF token."""
    client = api.client
    assert client.post("/organize/login", data={"token": ORGANIZER},
                       headers=ORIGIN).status_code == 303
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)
    return client, page.split('name="csrf" value="')[1].split('"')[0], page


def _paired(started) -> set[str]:
    return {p for t in started["tables"] for p in (t["a"], t["b"])} | {started["bye"]} - {None}


def test_a_dropped_player_is_reinstated_and_paired_from_the_next_round(api, tmp_path):
    tid = new_tournament(api, players=4)
    assert call(api, "POST", f"/api/tournaments/{tid}/drops", {"player": "Dev"})[0] == 201
    status, data = call(api, "POST", f"/api/tournaments/{tid}/reinstatements", {"player": "Dev"})
    assert status == 201 and not next(p for p in data["players"] if p["name"] == "Dev")["dropped"]
    status, data = call(api, "POST", f"/api/tournaments/{tid}/reinstatements", {"player": "Dev"})
    assert status == 422 and data["message"] == "Spring Cup: Dev is not dropped", data
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201 and _paired(started) == {"Ann", "Bob", "Cleo", "Dev"}
    for table in started["tables"]:
        api.call("POST", f"/api/matches/{table['match_id']}/ending", table["tokens"]["judge"],
                 {"seat": "B", "kind": "concession"})
    # the CLI, a real subprocess: drop after round 1, then reinstate before round 2
    store = tmp_path / "store"
    done = wonders("drop", tid, "Cleo", store=store)
    assert done.stdout.strip() == "Spring Cup: Cleo dropped after round 1", done.stderr
    done = wonders("reinstate", tid, "Cleo", store=store)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Spring Cup: Cleo reinstated; paired again from round 2"
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201 and "Cleo" in _paired(started)
    log = (store / ".tournaments" / f"{tid}.jsonl").read_text()
    assert log.count('"type":"PlayerReinstated"') == 2  # the log says what happened


def test_the_console_drops_on_a_second_tap_and_reinstates(api):
    tid = new_tournament(api, players=3)
    client, csrf, page = console(api, tid)
    assert '<summary>Drop</summary>' in page and "Yes, drop Bob" in page  # a second tap
    dropped = client.post(f"/organize/t/{tid}/drops", data={"csrf": csrf, "player": "Bob"},
                          headers=ORIGIN)
    assert dropped.status_code == 303
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)
    assert "Yes, drop Bob" not in page and ">Reinstate</button>" in page
    back = client.post(f"/organize/t/{tid}/reinstatements", data={"csrf": csrf, "player": "Bob"},
                       headers=ORIGIN)
    assert back.status_code == 303
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    assert next(p for p in t["players"] if p["name"] == "Bob")["dropped"] is None


def test_the_console_asks_before_a_revoke_naming_the_table_and_the_token(api):
    tid = new_tournament(api, players=2)
    _s, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    table = started["tables"][0]
    mid, tokens = table["match_id"], table["tokens"]
    client, csrf, page = console(api, tid)
    assert '<option value="" selected disabled>which token?</option>' in page
    assert '<option value="all">' in page and '<option value="all" selected' not in page
    form = {"csrf": csrf, "round": "1", "table": "1"}
    refused = client.post(f"/organize/t/{tid}/revoke", data=form, headers=ORIGIN)
    assert refused.status_code == 422  # no token chosen: nothing revoked
    assert "choose which token to revoke" in refused.get_data(as_text=True)
    asked = client.post(f"/organize/t/{tid}/revoke", data={**form, "role": "A"}, headers=ORIGIN)
    text = asked.get_data(as_text=True)
    assert asked.status_code == 200
    assert (f"Revoke {table['a']}&#39;s seat token (A) of round 1, table 1 "
            f"({table['a']} vs {table['b']})?") in text, text
    assert api.call("GET", f"/api/matches/{mid}/state", tokens["A"])[0] == 200  # not yet
    done = client.post(f"/organize/t/{tid}/revoke", data={**form, "role": "A",
                                                          "confirm": "yes"}, headers=ORIGIN)
    assert done.status_code == 303
    assert api.call("GET", f"/api/matches/{mid}/state", tokens["A"])[0] == 401
    assert api.call("GET", f"/api/matches/{mid}/state", tokens["B"])[0] == 200  # untouched
    asked = client.post(f"/organize/t/{tid}/revoke", data={**form, "role": "all"},
                        headers=ORIGIN).get_data(as_text=True)
    assert "Revoke all three tokens (" in asked and "and the judge&#39;s) of round 1" in asked
    refused = client.post(f"/organize/t/{tid}/reissue", data=form, headers=ORIGIN)
    assert refused.status_code == 422 and "choose which token to reissue" in \
        refused.get_data(as_text=True)


def test_the_cli_registers_a_decklist_file_with_a_byte_order_mark_and_suggests_a_name(api,
                                                                                    tmp_path):
    tid = new_tournament(api, players=0)
    path = tmp_path / "ann.txt"
    path.write_bytes(decklist("solfera-blaze").encode("utf-8-sig"))  # Notepad's UTF-8
    done = wonders("register", tid, "Ann", str(path), store=tmp_path / "store")
    assert done.returncode == 0 and "registered Ann" in done.stdout, done.stderr
    path.write_text(decklist("solfera-blaze").replace("Glow Smith", "Glow Smiht"))
    done = wonders("register", tid, "Bob", str(path), store=tmp_path / "store")
    assert done.returncode == 1 and "did you mean 'Glow Smith'?" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("name, says", [
    ("ann", "Spring Cup: 'ann' is registered already (as 'Ann')"),
    ("ANN", "Spring Cup: 'ANN' is registered already (as 'Ann')"),
    ("Zo\u0065\u0308", "Spring Cup: 'Zoë' is registered already"),  # decomposed
    ("\u200b", "a player needs a name (this one has no visible character)"),
    ("\u200b \u00a0", "a player needs a name (this one has no visible character)"),
    ("Eve\x00", "a player's name can't contain a control character (U+0000)"),
    ("Eve\x1b[31m", "a player's name can't contain a control character (U+001B)"),
])
def test_one_person_is_one_player_and_a_name_must_be_visible(api, name, says):
    tid = new_tournament(api, players=0)
    for first in ("Ann", "Zo\u00eb"):
        assert call(api, "POST", f"/api/tournaments/{tid}/players",
                    {"player": first, "decklist": decklist("solfera-blaze")})[0] == 201
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                        {"player": name, "decklist": decklist("thalwind-sky")})
    assert (status, data["message"]) == (422, says)
    names = [p["name"] for p in call(api, "GET", f"/api/tournaments/{tid}")[1]["players"]]
    assert names == ["Ann", "Zo\u00eb"]  # nothing written
    # another case finds the player: a drop of "ZOË" drops Zoë
    status, data = call(api, "POST", f"/api/tournaments/{tid}/drops", {"player": "ZO\u00cb"})
    assert status == 201 and data["players"][1]["dropped"] == 0


def test_a_tournament_with_a_non_ascii_name_gets_an_ascii_id_and_keeps_its_name(api, tmp_path):
    status, t = call(api, "POST", "/api/tournaments", {"name": "Tournoi d\u2019\u00e9t\u00e9"})
    assert status == 201 and t["tournament_id"] == "tournoi-d-ete", t
    assert t["name"] == "Tournoi d\u2019\u00e9t\u00e9"
    done = wonders("create", "\u6771\u4eac\u30aa\u30fc\u30d7\u30f3", store=tmp_path / "store")
    assert done.returncode == 0, done.stderr
    tid = done.stdout.split()[1].rstrip(":")
    assert tid.startswith("t-") and len(tid) == 10 and tid.isascii(), done.stdout
    assert call(api, "GET", f"/api/tournaments/{tid}")[1]["name"] == "\u6771\u4eac\u30aa\u30fc\u30d7\u30f3"
    again = wonders("create", "\u6771\u4eac\u30aa\u30fc\u30d7\u30f3", store=tmp_path / "store")
    assert again.returncode == 1 and f"tournament {tid!r} already exists" in again.stderr
    client, csrf, _page = console(api, "tournoi-d-ete")
    made = client.post("/organize/tournaments", data={"csrf": csrf, "name": "Coupe \u00c9t\u00e9"},
                       headers=ORIGIN)
    assert made.status_code == 303 and made.headers["Location"].endswith("/organize/t/coupe-ete")


def test_two_desks_on_two_servers_register_sixteen_players_at_once(tmp_path):
    store = tmp_path / "store"
    servers = [LiveServer(store), LiveServer(store)]  # two processes over one store
    try:
        desks = [LiveApi(server) for server in servers]
        assert call(desks[0], "POST", "/api/tournaments", {"name": "Desk Cup"})[0] == 201
        deck = decklist("solfera-blaze")

        def register(i: int):
            return call(desks[i % 2], "POST", "/api/tournaments/desk-cup/players",
                        {"player": f"P{i}", "decklist": deck})

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(register, range(16)))
        assert [status for status, _ in answers] == [201] * 16, \
            [data for status, data in answers if status != 201][:2]
        t = call(desks[1], "GET", "/api/tournaments/desk-cup")[1]
        assert sorted(p["name"] for p in t["players"]) == sorted(f"P{i}" for i in range(16))
        # a drop and a late registration at the same moment: both done
        with ThreadPoolExecutor(2) as pool:
            drop = pool.submit(call, desks[0], "POST", "/api/tournaments/desk-cup/drops",
                               {"player": "P3"})
            late = pool.submit(call, desks[1], "POST", "/api/tournaments/desk-cup/players",
                               {"player": "Quinn", "decklist": deck})
            assert drop.result()[0] == 201 and late.result()[0] == 201
    finally:
        for server in servers:
            server.stop()


def test_a_token_the_pool_cannot_record_is_refused_at_registration_not_at_round_one(api):
    tid = new_tournament(api, players=0)
    token = "Bella the Noble"  # a catalogue token, not in the card pool
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                        {"player": "Ann", "decklist": decklist("solfera-blaze") + f"1 {token}\n"})
    assert status == 422, data
    assert data["message"] == (
        f"Spring Cup: Ann's archive has tokens the card pool has no rules data for ({token}): "
        f"import their stats (a pool file), or register the player with a preset deck"), data
    for name, deck in (("Bob", "thalwind-sky"), ("Cleo", "petraia-stone")):
        assert call(api, "POST", f"/api/tournaments/{tid}/players",
                    {"player": name, "decklist": decklist(deck)})[0] == 201
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started  # round 1 starts for the others


def test_a_drop_before_round_one_says_so_everywhere(api, tmp_path):
    tid = new_tournament(api, players=2)
    store = tmp_path / "store"
    done = wonders("drop", tid, "Ann", store=store)
    assert done.stdout.strip() == "Spring Cup: Ann dropped before round 1", done.stderr
    again = wonders("drop", tid, "Ann", store=store)
    assert again.stderr.strip() == "error: Spring Cup: Ann dropped before round 1 already"
    _client, _csrf, page = console(api, tid)
    assert "dropped before round 1" in page and "after round 0" not in page


def test_a_tournament_name_with_a_line_separator_or_a_control_character(api, tmp_path):
    """The ASCII ids let such names reach the log: a U+0085 or U+2028 inside a name split the
    log's line when read back (a 500 ever after); now whitespace is collapsed, a control
    character refused, and the log is split at newlines only."""
    status, t = call(api, "POST", "/api/tournaments", {"name": "Caf\u00e9\u2028Night"})
    assert status == 201 and t["name"] == "Caf\u00e9 Night", t
    status, data = call(api, "POST", "/api/tournaments", {"name": "\u0098 CO\u0085sg"})
    assert (status, data["message"]) == (422, "a tournament's name can't contain a control "
                                              "character (U+0098)")
    line = '{"seq":0,"at":"x","type":"TournamentCreated","tournament_id":"nel","name":"A\u0085B"}'
    (tmp_path / "store" / ".tournaments" / "nel.jsonl").write_text(line + "\n", encoding="utf-8")
    assert call(api, "GET", "/api/tournaments/nel")[1]["name"] == "A\u0085B"  # an old log reads
