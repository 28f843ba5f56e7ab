"""``wonders demo`` as a real subprocess: play, ingest, (re)use, serve (the tournament's page and
the console, signed in with the organizer token it prints), errors."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import duckdb

from ledger.filestore import FileStore

ROOT = Path(__file__).parents[2]


def _wonders(*args, cwd=ROOT):
    env = dict(os.environ)
    env.pop("WONDERS_WAREHOUSE", None)
    return subprocess.run([sys.executable, "-m", "web.cli", *args], check=False, capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


def test_demo_simulates_and_ingests_then_reuses(tmp_path):
    data = tmp_path / "wonders-data"
    done = _wonders("demo", "--dir", str(data), "--players", "4", "--rounds", "2", "--no-serve")
    assert done.returncode == 0, done.stderr
    assert "4 players, 2 Swiss rounds (4 matches)" in done.stdout
    files = sorted(data.glob("*.jsonl"))
    assert [f.stem for f in files] == ["demo-cup-r1-t01", "demo-cup-r1-t02", "demo-cup-r2-t01",
                                       "demo-cup-r2-t02"]
    assert all(info.ended for info in FileStore(data).list())
    con = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM matches").fetchone()[0] == 4
    finally:
        con.close()
    again = _wonders("demo", "--dir", str(data), "--no-serve")
    assert again.returncode == 0 and "reusing the 4 Demo Cup matches" in again.stdout
    assert "0 new" in again.stdout


def _start_demo(data: Path) -> tuple[subprocess.Popen, list[str]]:
    """``wonders demo`` serving ``data`` on a free port, and what it printed up to the end of
    its practice table's block (its last line: the note under the links)."""
    env = dict(os.environ)
    env.pop("WONDERS_WAREHOUSE", None)
    env.pop("WONDERS_ORGANIZER_TOKEN", None)  # the server makes one and prints it
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "demo", "--dir", str(data),
                             "--players", "2", "--rounds", "1", "--port", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    printed: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [printed.put(line) for line in proc.stdout], daemon=True).start()
    lines = [""]
    while not lines[-1].startswith("  (each link in its own browser"):
        try:  # (a bound, not a measure: a demo that stops printing fails here, not hangs)
            lines.append(printed.get(timeout=120))
        except queue.Empty:
            _stop(proc)
            raise AssertionError("the demo printed no practice table:\n" + "".join(lines)) \
                from None
    return proc, lines[1:]


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=10)


def test_demo_serves_the_pages_at_the_printed_url(tmp_path):
    proc, lines = _start_demo(tmp_path / "d")
    try:
        line = next(line for line in lines if line.startswith("Wonders demo at "))
        url = line.split()[3]
        assert url.startswith("http://127.0.0.1:")
        assert f"tournament: {url}/tournaments/demo-cup" in line
        for path, needle in (("/matches", "demo-cup-r1-t01"), ("/stats", "First player"),
                             ("/matches/demo-cup-r1-t01", "initial-step"),
                             ("/tournaments", "Demo Cup"),
                             ("/tournaments/demo-cup", "Amara Okafor")):
            with urllib.request.urlopen(url + path, timeout=10) as response:
                assert needle in response.read().decode()
        token = next(line for line in lines if line.startswith("organizer token: ")).split()[2]
        assert (f"organizer console: {url}/organize  —  sign in with the token above; set "
                f"WONDERS_ORGANIZER_TOKEN to choose it\n") in lines
        console = _signed_in_console(url, token)
        assert "Demo Cup" in console and 'name="token"' not in console  # not the sign-in form
    finally:
        _stop(proc)


def _practice_links(lines: list[str]) -> dict[str, str]:
    """The practice block's links by label (``seat A, Amara Okafor``, ``judge``, ``watch it``)."""
    start = next(i for i, line in enumerate(lines) if line.startswith("a table to play yourself"))
    rows = [line.strip().rsplit(" ", 1) for line in lines[start + 1:-1]]
    return {label.strip().rstrip(":"): link for label, link in rows}


def _play_page(link: str) -> tuple[int, str]:
    """A ``/play`` link opened as a browser does: the token's 303 to the bare page, with the
    session cookie it set; the page's status and HTML."""
    import http.cookiejar
    import urllib.error

    browser = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    try:
        with browser.open(link, timeout=10) as response:
            assert "token=" not in response.url  # the token left the address bar
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_demo_prints_the_links_to_play_a_table_and_they_open_its_seats(tmp_path):
    """Issue: every tournament table is played to its end and their tokens were shown nowhere,
    so a newcomer could watch but never record.  The demo prints a practice table's seat and
    judge links (and its viewer); each opens /play as that role at a match waiting for a
    decision, and the tournament has no table more.  A second start gives new links: the old
    ones no longer open the table, the match is the same one."""
    data = tmp_path / "d"
    proc, lines = _start_demo(data)
    try:
        url = next(line for line in lines if line.startswith("Wonders demo at ")).split()[3]
        links = _practice_links(lines)
        assert list(links) == ["seat A, Amara Okafor", "seat B, Mateo García", "judge",
                               "watch it"], lines
        assert links["watch it"] == f"{url}/matches/practice-demo-cup"
        for label, role in (("seat A, Amara Okafor", "A"), ("seat B, Mateo García", "B"),
                            ("judge", "judge")):
            assert links[label].startswith(f"{url}/play/practice-demo-cup?token=")
            status, page = _play_page(links[label])
            assert status == 200 and f'data-role="{role}"' in page, (label, status)
        token = links["seat A, Amara Okafor"].split("token=")[1]
        request = urllib.request.Request(f"{url}/api/matches/practice-demo-cup/prompt",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["prompt"]["seat"] in ("A", "B")  # not ended
        with urllib.request.urlopen(links["watch it"], timeout=10) as response:
            assert "Amara Okafor" in response.read().decode()
        with urllib.request.urlopen(f"{url}/tournaments/demo-cup", timeout=10) as response:
            page = response.read().decode()
            assert "demo-cup-r1-t01" in page and "practice-demo-cup" not in page
    finally:
        _stop(proc)
    practice = FileStore(data).path("practice-demo-cup").read_bytes()
    proc, lines = _start_demo(data)
    try:
        again = _practice_links(lines)
        assert again["judge"] != links["judge"]
        assert _play_page(links["seat A, Amara Okafor"].replace(url, _url(lines)))[0] == 401
        assert _play_page(again["seat A, Amara Okafor"])[0] == 200
    finally:
        _stop(proc)
    assert FileStore(data).path("practice-demo-cup").read_bytes() == practice


def _url(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("Wonders demo at ")).split()[3]


def _signed_in_console(url: str, token: str) -> str:
    """``/organize`` after signing in with ``token`` as its form does (a session cookie)."""
    import http.cookiejar
    import urllib.parse

    browser = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    form = urllib.parse.urlencode({"token": token}).encode()
    request = urllib.request.Request(f"{url}/organize/login", form, {"Origin": url})
    with browser.open(request, timeout=10) as response:  # 303 to /organize, followed
        return response.read().decode()


def test_demo_errors_are_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    done = _wonders("demo", "--dir", str(blocker), "--no-serve")
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr


def test_a_busy_port_is_one_line_naming_the_way_out(tmp_path):
    import socket

    data = tmp_path / "d"
    assert _wonders("demo", "--dir", str(data), "--players", "2", "--rounds", "1",
                    "--no-serve").returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _wonders("demo", "--dir", str(data), "--port", str(port))
    assert done.returncode == 1
    assert done.stderr == (f"error: cannot listen on 127.0.0.1:{port}: address already in use "
                           f"(another server is running there? choose another --port, or "
                           f"--port 0 for any free port); nothing was played\n")


def _player_links(lines: list[str]) -> dict[str, str]:
    """The players' block: each player's own link by their name."""
    start = next(i for i, line in enumerate(lines) if line.startswith("each player's own page"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("  (a player link"))
    rows = [line.strip().rsplit(" ", 1) for line in lines[start + 1:end]]
    return {name.strip().rstrip(":"): link for name, link in rows}


def test_the_demo_prints_each_players_own_link_and_it_opens_their_page(tmp_path):
    """Issue: the demo's players had no player link (registered at the desk, never given
    one), so a newcomer could not open a player's own page (/tournaments/<id>/me).  Each
    player now gets a link at registration, and each start of the demo gives them new ones and
    prints them by name: each opens that player's page (their name, their list, final: round 1
    is paired).  A second start's links replace the first's, which then are refused."""
    from web.demo_tournament import player_names

    data = tmp_path / "d"
    proc, lines = _start_demo(data)
    try:
        url = _url(lines)
        links = _player_links(lines)
        assert list(links) == player_names(2), lines
        for name, link in links.items():
            assert link.startswith(f"{url}/tournaments/demo-cup/me?token="), link
            status, page = _play_page(link)
            assert status == 200 and f"<h1>{name}</h1>" in page, (name, status)
            assert 'id="final"' in page and "Round 1 is paired" in page
        others = [n for n in player_names(2) if n != "Amara Okafor"]
        status, page = _play_page(links["Amara Okafor"])
        assert not any(f"<h1>{n}</h1>" in page for n in others)
    finally:
        _stop(proc)
    proc, again = _start_demo(data)
    try:
        fresh = _player_links(again)
        assert list(fresh) == player_names(2) and fresh["Amara Okafor"] != links["Amara Okafor"]
        assert _play_page(links["Amara Okafor"].replace(url, _url(again)))[0] == 403
        assert _play_page(fresh["Amara Okafor"])[0] == 200
    finally:
        _stop(proc)


def test_a_tournament_whose_players_never_had_links_says_so_in_one_line(tmp_path):
    """A demo directory from before the players had links (their tables paired): no player
    can be given a first one after round 1 (the tournament tool refuses), so the demo says
    so instead of a link, and still serves."""
    from ledger.stores import open_store
    from replay.games import game
    from web import demo_tournament
    from web.api.organizer import preset_decks

    org = demo_tournament.organizer(open_store(tmp_path / "d"), 1)
    org.create("Demo Cup", "demo-cup", None, "wotf", demo_tournament.ROUND_MINUTES)
    presets = preset_decks(game("wotf"), org.pool_for("wotf"))
    key = sorted(presets)[0]
    for name in demo_tournament.player_names(2):  # registered at the desk, as before
        org.register("demo-cup", name, demo_tournament.decklist(presets[key]), preset=key)
    t, tables = org.start_round("demo-cup")
    demo_tournament.play(org, t, tables[0].match_id, 1)
    proc, lines = _start_demo(tmp_path / "d")
    try:
        (said,) = [line for line in lines if line.startswith("each player's own page")]
        assert said == ("each player's own page: none (Demo Cup's players never had a player "
                        "link and round 1 is paired: a demo made before they had them; give the "
                        "demo another --dir)\n")
    finally:
        _stop(proc)
