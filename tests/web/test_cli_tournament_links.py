"""``wonders tournament pair`` prints each table's /play links, not only its tokens: an
organizer running the day from the CLI hands out links (as the console and the API do), on
the address ``--url`` gives (the server as the players reach it; `open-registration` and
`reissue-link` take the same option).  Before, the CLI printed ``A=<token> B=<token>
judge=<token>`` and the organizer had to build ``/play/<match>?token=…`` by hand.  Its lines
count as people write them ("1 table", "1 player") and name a removed player as registered;
``standings`` shows every name whole.

The CLI runs as a real subprocess on a file store, and the printed links are opened on a real
``wonders serve`` over that store: each enters its table in its role."""

from __future__ import annotations

import http.client
import re
from urllib.parse import urlsplit

from tests.e2e.helpers import start_server, stop_server
from tests.web.test_tournaments import DECKS, decklist
from tests.web.test_tournaments_desk import wonders


def opens_table(url: str) -> int:
    """The status of a GET of ``url``, redirects not followed (303: the token entered)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", f"{parts.path}?{parts.query}")
        return connection.getresponse().status
    finally:
        connection.close()


def test_pair_prints_every_seat_and_judge_link_and_they_open_the_table(tmp_path):
    store = tmp_path / "store"
    assert wonders("create", "Club Night", store=store).returncode == 0
    for player, deck in (("Ann", DECKS[0]), ("Bob", DECKS[1]), ("Cy", DECKS[2])):
        path = tmp_path / f"{deck}.txt"
        path.write_text(decklist(deck), encoding="utf-8")
        done = wonders("register", "club-night", player, str(path), store=store)
        assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("; 3 players")
    proc, base = start_server(store)
    try:
        done = wonders("pair", "club-night", "--url", base + "/", store=store)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == "Club Night: round 1, 1 table"
        table = re.fullmatch(r"table 1: (\w+) \(A\) vs (\w+) \(B\)  match (\S+)  A=(\S+) B=(\S+) "
                             r"judge=(\S+)", lines[1])
        assert table is not None, lines[1]
        a, b, match_id, *tokens = table.groups()
        wanted = [f"  {a} (seat A): {base}/play/{match_id}?token={tokens[0]}",
                  f"  {b} (seat B): {base}/play/{match_id}?token={tokens[1]}",
                  f"  judge: {base}/play/{match_id}?token={tokens[2]}"]
        assert lines[2:5] == wanted
        assert lines[5].startswith("bye: ")
        for line in wanted:
            assert opens_table(line.split(": ", 1)[1]) == 303  # the token entered its table
        assert opens_table(f"{base}/play/{match_id}?token=not-a-token") == 401
    finally:
        stop_server(proc)


def test_the_default_address_and_a_removal_named_as_registered(tmp_path):
    store = tmp_path / "store"
    assert wonders("create", "Club Night", store=store).returncode == 0
    for player, deck in (("Ann", DECKS[0]), ("Bob", DECKS[1])):
        path = tmp_path / f"{deck}.txt"
        path.write_text(decklist(deck), encoding="utf-8")
        first = wonders("register", "club-night", player, str(path), store=store)
        assert first.returncode == 0, first.stderr
        if player == "Ann":
            assert first.stdout.strip().endswith("; 1 player")
    path = tmp_path / "zed.txt"
    path.write_text(decklist(DECKS[2]), encoding="utf-8")
    assert wonders("register", "club-night", "Zed Junk", str(path), store=store).returncode == 0
    done = wonders("remove", "club-night", "ZED JUNK", store=store)
    assert done.stdout.strip() == "Club Night: Zed Junk removed; 2 players", done.stderr
    done = wonders("pair", "club-night", store=store)
    assert done.returncode == 0, done.stderr
    assert "  judge: http://127.0.0.1:5000/play/club-night-r1-t01?token=" in done.stdout


def test_standings_show_every_name_whole_and_aligned(tmp_path):
    """``standings`` cut a name at 24 characters ("Ann-Sophie Müller-Lüdens"): two players
    sharing 24 first characters read as one.  Now the column is as wide as the longest name."""
    store = tmp_path / "store"
    assert wonders("create", "Club Night", store=store).returncode == 0
    names = ["Ann-Sophie Müller-Lüdenscheidt", "Ann-Sophie Müller-Lüdenscheid", "Bob"]
    for player, deck in zip(names, DECKS, strict=False):
        path = tmp_path / f"{deck}.txt"
        path.write_text(decklist(deck), encoding="utf-8")
        assert wonders("register", "club-night", player, str(path), store=store).returncode == 0
    done = wonders("standings", "club-night", store=store)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name in names:
        assert any(f" {name} " in line for line in lines[1:]), (name, done.stdout)
    points = lines[0].index("pts") + 2  # where the header's "pts" ends: each row's points
    assert all(line[points] == "0" and line[points + 1] == " " for line in lines[1:]), \
        done.stdout


def test_a_url_no_phone_can_open_is_one_line_and_nothing_is_written(tmp_path):
    """``--url cup.example`` (no scheme) printed ``cup.example/play/…?token=…`` for every seat:
    links no phone or QR scanner opens, on a round now started.  Now each command that prints
    links refuses such an address in one line (exit 2) before it changes anything."""
    store = tmp_path / "store"
    assert wonders("create", "Club Night", store=store).returncode == 0
    for player, deck in (("Ann", DECKS[0]), ("Bob", DECKS[1])):
        path = tmp_path / f"{deck}.txt"
        path.write_text(decklist(deck), encoding="utf-8")
        assert wonders("register", "club-night", player, str(path), store=store).returncode == 0
    log = store / ".tournaments" / "club-night.jsonl"
    before = log.read_bytes()
    for command in (("pair", "club-night"), ("open-registration", "club-night"),
                    ("reissue-link", "club-night", "Ann")):
        for url in ("cup.example", "notaurl", "http://cup.example:port", "ftp://cup.example"):
            done = wonders(*command, "--url", url, store=store)
            assert done.returncode == 2, (command, url, done.stdout)
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
            assert f"{url!r} is not a server address" in lines[0]
            assert "https://HOST" in lines[0] and not done.stdout
    assert log.read_bytes() == before  # no round paired, no registration opened, no link
    done = wonders("pair", "club-night", "--url", "https://cup.example/", store=store)
    assert done.returncode == 0, done.stderr
    assert "  Ann (seat A): https://cup.example/play/club-night-r1-t01?token=" in done.stdout
