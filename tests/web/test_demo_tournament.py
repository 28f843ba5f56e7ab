"""``wonders demo`` runs its tournament through the tournament tool (web/demo_tournament.py).

The demo's tournament was simulated as bare match files (tournament, round and table fields,
no tournament log): ``/tournaments`` and ``/organize`` showed nothing.  Now, after a real
``wonders demo --no-serve`` (a subprocess) of each game into one store: each game's tournament
has its log -- created with 50-minute rounds, named players registered with shipped decks and
given a player link each, every round paired and started -- every table's match has ended,
the players' public page lists the tournament with its standings, and ``wonders tournament
standings`` ranks every player.  The same ``--seed`` plays the same games again (each table's set-up too: the
organizer's ``chance``), another seed other games; the tokens and times are not compared.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.events import MatchEnded
from ledger.filestore import FileStore
from ledger.tournament import FileTournamentBook, fold
from web.app import create_app
from web.config import Settings
from web.demo_tournament import player_names

ROOT = Path(__file__).parents[2]
PLAYERS, ROUNDS = 5, 2  # an odd count: a bye each round


def wonders(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "WONDERS_WAREHOUSE"}
    return subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def demo(store: Path, game: str, seed: int = 1) -> subprocess.CompletedProcess[str]:
    done = wonders("demo", "--game", game, "--no-serve", "--dir", str(store), "--players",
                   str(PLAYERS), "--rounds", str(ROUNDS), "--seed", str(seed))
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    data = tmp_path_factory.mktemp("demo") / "wonders-data"
    for game in ("wotf", "sow"):
        demo(data, game)
    return data


@pytest.mark.parametrize(("tid", "game"), [("demo-cup", "wotf"), ("demo-siege", "sow")])
def test_the_store_has_the_tournament_log_every_round_started_every_match_ended(store, tid, game):
    events = FileTournamentBook(store).events(tid)
    kinds = [e["type"] for e in events]
    assert kinds == (["TournamentCreated"] + ["PlayerRegistered"] * PLAYERS
                     + ["PlayerLinkReissued"] * PLAYERS  # a first link each, before round 1
                     + ["RoundPaired", "RoundStarted"] * ROUNDS)
    created = events[0]
    assert (created["game"], created["round_minutes"]) == (game, 50)
    registered = [e for e in events if e["type"] == "PlayerRegistered"]
    assert [e["player"] for e in registered] == player_names(PLAYERS)
    assert all(e["preset"] and e["cards"] for e in registered)  # a shipped deck, pasted
    linked = [e for e in events if e["type"] == "PlayerLinkReissued"]
    assert [e["player"] for e in linked] == player_names(PLAYERS)
    t = fold(events)
    assert [r.bye is not None for r in t.rounds] == [True] * ROUNDS
    ids = t.match_ids()
    assert len(ids) == (PLAYERS // 2) * ROUNDS
    files = FileStore(store)
    for match_id in ids:
        ended = [s.event for s in files.read(match_id) if isinstance(s.event, MatchEnded)]
        assert len(ended) == 1, match_id
        opened = next(iter(files.read(match_id))).event
        assert (opened.game, opened.tournament) == (game, t.name)


def test_the_public_page_lists_each_tournament_with_its_standings(store):
    client = create_app(Settings(store=store, secret_key="s" * 32)).test_client()
    listing = client.get("/tournaments").get_data(as_text=True)
    assert "Demo Cup" in listing and "Demo Siege" in listing
    page = client.get("/tournaments/demo-cup").get_data(as_text=True)
    standings = page.split('<section id="standings">', 1)[1].split('</section>', 1)[0]
    assert all(name in standings for name in player_names(PLAYERS))


@pytest.mark.parametrize("tid", ["demo-cup", "demo-siege"])
def test_the_standings_rank_every_player(store, tid):
    done = wonders("tournament", "standings", tid, "--store", str(store))
    assert done.returncode == 0, done.stderr
    ranked = [line for line in done.stdout.splitlines()[1:] if line.strip()]
    assert len(ranked) == PLAYERS
    assert {name for name in player_names(PLAYERS) if any(name in r for r in ranked)} == \
        set(player_names(PLAYERS))


def _games(store: Path) -> dict[str, list]:
    """Each match's events, without their times (``Stored.at``)."""
    files = FileStore(store)
    return {m: [s.event for s in files.read(m)] for m in sorted(files.ids())}


def test_the_same_seed_plays_the_same_games_another_seed_others(tmp_path):
    for name, seed in (("one", 7), ("two", 7), ("other", 8)):
        demo(tmp_path / name, "wotf", seed)
    one, two, other = (_games(tmp_path / n) for n in ("one", "two", "other"))
    assert list(one) == list(two) == list(other)
    assert one == two
    assert one != other


def test_player_names_are_distinct_up_to_256():
    names = player_names(256)
    assert len(set(names)) == 256 and not any(n.startswith("Player") for n in names)
    assert player_names(3) == names[:3]


def test_match_files_of_the_demo_without_its_tournament_are_one_line_naming_the_way_out(tmp_path):
    data = tmp_path / "d"
    done = wonders("simulate", "--tournament", "Demo Cup", "--players", "2", "--rounds", "1",
                   "--out", str(data))
    assert done.returncode == 0, done.stderr
    done = wonders("demo", "--dir", str(data), "--no-serve")
    assert done.returncode == 1
    assert done.stderr == (f"error: {data} has 1 Demo Cup match files but no Demo Cup tournament "
                           f"(written by an earlier demo or `wonders simulate --tournament`): "
                           f"give the demo another --dir\n")


def test_a_second_run_plays_out_a_table_a_stopped_run_left_unfinished(tmp_path):
    from ledger.stores import open_store
    from web import demo_tournament

    org = demo_tournament.organizer(open_store(tmp_path), 1)
    demo_tournament.create(org, "wotf", 4, 1)
    t, tables = org.start_round("demo-cup")
    demo_tournament.play(org, t, tables[0].match_id, 1)  # table 2 left at its first prompt
    assert [r.ended for r in org.results(t).values()] == [True, False]
    done = wonders("demo", "--dir", str(tmp_path), "--no-serve")
    assert done.returncode == 0, done.stderr
    assert ("reusing the 2 Demo Cup matches already in " in done.stdout
            and "(4 players, 1 round); played out 1 a stopped run left unfinished" in done.stdout)
    assert [r.ended for r in demo_tournament.organizer(open_store(tmp_path), 1)
            .results(t).values()] == [True, True]
