"""Real cards through the web (docs/rulings.md R34): a tournament deck of catalogue cards the
pool has no rules data for is played -- each card's owner enters its printed stats through the
seat API the first time it sees it; the other seat sees neither which card nor its stats while
it is hidden, and its stats on the board once it is public; bad values are refused with one
line.  An organizer imports pool files (CSV, TOML) through the API and the CLI; a bad file is
refused whole with one line per bad row naming file, line and field."""

from __future__ import annotations

import random

import pytest

from ledger.events import MatchOpened
from replay.games import game
from tests.web.test_api import ORGANIZER, Api, choose, new_app
from tests.web.test_tournaments import decklist, new_tournament
from web.cli import main as cli_main
from web.tournaments import shipped_catalogue

STATS = {"cost": 1, "power": 4, "classes": ["Monster"], "keywords": ["guardian"],
         "manual": True}


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def call(api, method, path, body=None, token=ORGANIZER):
    return api.call(method, path, token, body)


def catalogue_wonders(n=17):
    pool = game("wotf").default_cards()
    return [c for c in shipped_catalogue().cards
            if c.type == "Wonder" and c.name not in pool][:n]


def catalogue_deck() -> str:
    wonders = catalogue_wonders()
    return "\n".join([f"3 {c.number}" for c in wonders[:16]] + [f"2 {wonders[16].name}"])


def start_kai_vs_ann(api, tid=None):
    tid = tid or new_tournament(api, players=1)
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                        {"player": "Kai", "decklist": catalogue_deck()})
    assert status == 201, data
    status, data = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, data
    table = data["tables"][0]
    kai = "A" if table["a"] == "Kai" else "B"
    return tid, table["match_id"], table["tokens"], kai


def opened_of(api, mid) -> MatchOpened:
    store = api.app.extensions["wonders"].store
    first = next(iter(store.read(mid))).event
    assert isinstance(first, MatchOpened)
    return first


def test_a_catalogue_deck_plays_and_its_owner_enters_the_stats(api):
    _tid, mid, tokens, kai = start_kai_vs_ann(api)
    ann = "B" if kai == "A" else "A"
    recorded = {d["name"]: d for d in opened_of(api, mid).cards}
    entry = recorded[catalogue_wonders()[0].name]
    assert entry["entered_at_table"] is True and "cost" not in entry and "power" not in entry
    assert entry["number"] == catalogue_wonders()[0].number and entry["set"] == "Existence"
    rng, entered, public = random.Random(4), [], None
    for _ in range(400):
        status, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens[ann])
        prompt = pending["prompt"]
        assert prompt is not None, "the match ended before a catalogue card was public"
        seat = prompt["seat"]
        if prompt["kind"] == "stats":
            # The other seat: that an entry is pending, never which card.
            assert seat == kai and prompt["card"] is None and prompt["entry"] is None
            assert not any(c.name in prompt["text"] for c in catalogue_wonders())
            status, mine = api.call("GET", f"/api/matches/{mid}/prompt", tokens[kai])
            form = mine["prompt"]["entry"]
            assert form["name"] in recorded and form["type"] == "wonder"
            assert form["power"]["required"] and "Monster" in form["classes"]
            assert "guardian" in form["keywords"]
            status, data = api.decide(mid, tokens[kai], {**form["answer"], **STATS},
                                      mine["length"])
            assert status == 201, data
            entered.append(form["name"])
            continue
        status, mine = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
        status, data = api.decide(mid, tokens[seat], choose(mine["prompt"], rng), mine["length"])
        assert status == 201, data
        status, state = api.call("GET", f"/api/matches/{mid}/state", tokens[ann])
        shown = [c for realm in state["board"]["realms"] for c in realm["cards"][kai]
                 if c["name"] in entered]
        if shown:
            public = shown[0]
            break
    assert entered and public is not None
    # Ann's board shows the entered stats once the card is in The World.
    assert (public["cost"], public["power"], public["keywords"]) == (1, 4, ["guardian"])
    # Ann's events never named a card entered in Kai's hand, nor its stats.
    status, page = api.call("GET", f"/api/matches/{mid}/events?limit=2000", tokens[ann])
    entries = [e for e in page["events"] if e["event"]["type"] == "CardStatsEntered"]
    assert entries and all(e["event"]["name"] == "?" and e["event"]["stats"] == {}
                           for e in entries if e["event"]["zone"] == "hand")
    assert all("enters the printed stats of a card in hand" in e["text"] for e in entries
               if e["event"]["zone"] == "hand")
    # Kai's own events name them.
    status, page = api.call("GET", f"/api/matches/{mid}/events?limit=2000", tokens[kai])
    assert {e["event"]["name"] for e in page["events"]
            if e["event"]["type"] == "CardStatsEntered"} == set(entered)


@pytest.mark.parametrize("bad, status, words", [
    ({"cost": 31, "power": 2}, 400, "cost"),
    ({"cost": 2, "power": -1}, 400, "power"),
    ({"cost": 2, "power": 2, "classes": ["Wizardly Thing"]}, 422, "unknown class 'Wizardly Thing'"),
    ({"cost": 2, "power": 2, "keywords": ["teleport"]}, 422, "unknown keyword 'teleport'"),
    ({"cost": 2}, 422, "enter its printed power"),
    ({"cost": 2, "power": 2, "text": "Draw a card."}, 400, "text"),
])
def test_bad_stats_are_refused_with_one_line_and_nothing_is_written(api, bad, status, words):
    _tid, mid, tokens, kai = start_kai_vs_ann(api)
    rng = random.Random(1)
    for _ in range(40):
        _, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens[kai])
        prompt = pending["prompt"]
        if prompt["kind"] == "stats" and prompt["yours"]:
            break
        seat = prompt["seat"]
        _, mine = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
        api.decide(mid, tokens[seat], choose(mine["prompt"], rng), mine["length"])
    else:
        pytest.fail("no stats prompt")
    form = prompt["entry"]
    got, data = api.decide(mid, tokens[kai], {**form["answer"], **bad}, pending["length"])
    assert got == status, data
    assert words in data["message"] and "\n" not in data["message"]
    _, after = api.call("GET", f"/api/matches/{mid}/prompt", tokens[kai])
    assert after["length"] == pending["length"] and after["prompt"]["card"] == form["card"]
    # The other seat can't answer it.
    other = "B" if kai == "A" else "A"
    got, data = api.decide(mid, tokens[other], {**form["answer"], **STATS}, pending["length"])
    assert got == 422 and "\n" not in data["message"], data


POOL_CSV = """name,cost,power,classes,keywords,tier
{0},2,5,Monster,flying,secondary
{1},3,4,Monster;Rite,,secondary
"""


def test_an_imported_pool_file_puts_its_cards_in_the_pool(api):
    wonders = catalogue_wonders()
    tid = new_tournament(api, players=1)
    text = POOL_CSV.format(wonders[0].name, wonders[1].name)
    status, data = call(api, "POST", f"/api/tournaments/{tid}/cards",
                        {"filename": "stats.csv", "text": text})
    assert status == 201, data
    assert data["imported"] == [wonders[0].name, wonders[1].name]
    assert call(api, "GET", f"/api/tournaments/{tid}")[1]["imported_cards"] == sorted(
        [wonders[0].name, wonders[1].name])
    _tid, mid, _tokens, _kai = start_kai_vs_ann(api, tid)
    recorded = {d["name"]: d for d in opened_of(api, mid).cards}
    imported = recorded[wonders[0].name]
    assert (imported["cost"], imported["power"], imported["keywords"]) == (2, 5, ["flying"])
    assert "entered_at_table" not in imported  # its stats are in the pool: nothing to enter
    assert imported["number"] == wonders[0].number and imported["dbs"] == wonders[0].dbs
    assert recorded[wonders[2].name]["entered_at_table"] is True


def test_a_bad_pool_file_is_refused_whole_one_line_per_bad_row(api):
    wonders = catalogue_wonders()
    tid = new_tournament(api, players=1)
    _, before = call(api, "GET", f"/api/tournaments/{tid}")
    text = (f"name,cost,power,keywords\n{wonders[0].name},2,5,\n{wonders[1].name},two,4,\n"
            f"{wonders[2].name},1,3,teleport\nNo Such Card,1,1,\n")
    status, data = call(api, "POST", f"/api/tournaments/{tid}/cards",
                        {"filename": "stats.csv", "text": text})
    assert status == 422, data
    lines = data["message"].removeprefix("pool file: ").splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith("stats.csv: line 3: field 'cost'")
    assert lines[1].startswith("stats.csv: line 4") and "keywords" in lines[1] and \
        "teleport" in lines[1]
    assert lines[2].startswith("stats.csv: line 5") and "'type'" in lines[2]
    _, after = call(api, "GET", f"/api/tournaments/{tid}")
    assert after["length"] == before["length"]  # nothing imported


def test_the_cli_imports_a_toml_pool_file_and_refuses_a_bad_one(tmp_path, capsys):
    store = str(tmp_path / "store")

    def run(*args, ok=True):
        code = 0
        try:
            cli_main([*args])
        except SystemExit as exc:
            code = exc.code or 0
        out = capsys.readouterr()
        assert (code == 0) == ok, out.err
        return out.out + out.err

    run("tournament", "create", "Real Cards", "--store", store)
    wonders = catalogue_wonders()
    good = tmp_path / "pool.toml"
    good.write_text(f'[[card]]\nname = "{wonders[0].name}"\ncost = 4\npower = 6\n'
                    f'keywords = ["rage"]\n\n[[card]]\nname = "Homebrew Land"\ntype = "land"\n',
                    encoding="utf-8")
    out = run("tournament", "import-cards", "real-cards", str(good), "--store", store)
    assert f"imported 2 cards from pool.toml: {wonders[0].name}, Homebrew Land" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('[[card]]\nname = "Homebrew Wonder"\ncost = 1\n\n[[card]]\nname = '
                   f'"{wonders[1].name}"\ncost = -2\n', encoding="utf-8")
    out = run("tournament", "import-cards", "real-cards", str(bad), "--store", store, ok=False)
    assert "bad.toml: line 1 (Homebrew Wonder): field 'type'" in out
    assert "bad.toml: line 5" in out and "field 'cost'" in out
    assert "Traceback" not in out
    path = tmp_path / "ann.txt"
    path.write_text(decklist("solfera-blaze"), encoding="utf-8")
    run("tournament", "register", "real-cards", "Ann", str(path), "--store", store)


def test_the_console_imports_a_pool_file_and_shows_each_bad_row(api):
    import io

    wonders = catalogue_wonders()
    tid = new_tournament(api, players=1)
    client, origin = api.client, {"Origin": "http://localhost"}
    assert client.post("/organize/login", data={"token": ORGANIZER},
                       headers=origin).status_code == 303
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)
    assert 'id="import-cards"' in page
    csrf = page.split('name="csrf" value="')[1].split('"')[0]
    bad = f"name,cost,power\n{wonders[0].name},x,1\n{wonders[1].name},1,y\n"
    answer = client.post(f"/organize/t/{tid}/cards", headers=origin,
                         content_type="multipart/form-data",
                         data={"csrf": csrf, "pool": (io.BytesIO(bad.encode()), "bad.csv")})
    assert answer.status_code == 422
    text = answer.get_data(as_text=True)
    assert "bad.csv: line 2: field &#39;cost&#39;" in text and \
        "<br>bad.csv: line 3: field &#39;power&#39;" in text
    good = POOL_CSV.format(wonders[0].name, wonders[1].name)
    answer = client.post(f"/organize/t/{tid}/cards", headers=origin,
                         content_type="multipart/form-data",
                         data={"csrf": csrf, "pool": (io.BytesIO(good.encode()), "good.csv")})
    assert answer.status_code == 303
    assert "Imported: 2 cards." in client.get(f"/organize/t/{tid}").get_data(as_text=True)
    forged = client.post(f"/organize/t/{tid}/cards", headers=origin,
                         content_type="multipart/form-data",
                         data={"csrf": "forged", "pool": (io.BytesIO(good.encode()), "good.csv")})
    assert forged.status_code == 403


def test_imports_and_catalogue_entries_on_a_postgresql_store(pg_url):
    from tests.web.test_store_app_postgres import pg_app
    api = pg_app(pg_url)
    wonders = catalogue_wonders()
    tid = new_tournament(api, players=1, name=f"PG Real Cards {random.randrange(10**9)}")
    status, data = call(api, "POST", f"/api/tournaments/{tid}/cards",
                        {"filename": "stats.csv",
                         "text": POOL_CSV.format(wonders[0].name, wonders[1].name)})
    assert status == 201, data
    again = pg_app(pg_url)  # another server on the same database folds the same import
    _tid, mid, _tokens, _kai = start_kai_vs_ann(again, tid)
    recorded = {d["name"]: d for d in opened_of(again, mid).cards}
    assert recorded[wonders[0].name]["cost"] == 2
    assert recorded[wonders[2].name]["entered_at_table"] is True


@pytest.mark.parametrize("filename, text, words", [
    ("stats.csv", "\ufeffname,cost,power\nNo Such Card,1,x\n", "stats.csv: line 2: field 'power'"),
    ("stats.csv", "nom,cost\nA,1\n", "stats.csv: line 1: the header needs a 'name' column"),
    ("pool.toml", "card = 3\n", "pool.toml: 'card' must be an array of tables"),
    ("pool.toml", "[[card]]\nname = 'X'\ntype = 'wonder'\npower = 1\nflavour = 'y'\n",
     "pool.toml: line 1 (X): field 'flavour'"),
    ("pool.toml", "[[card\n", "pool.toml: not TOML"),
])
def test_malformed_pool_files_get_one_clear_line_each(api, filename, text, words):
    tid = new_tournament(api, players=1)
    status, data = call(api, "POST", f"/api/tournaments/{tid}/cards",
                        {"filename": filename, "text": text})
    assert status == 422, data
    assert words in data["message"] and "Traceback" not in data["message"]
