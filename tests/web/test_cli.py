"""The `wonders` command line, run as a real subprocess: simulate → verify, determinism,
tampering found with the right seq, and errors as one line without a traceback."""

import filecmp
import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.filestore import FileStore
from replay.wotf.events import BattleResolved

REPO = Path(__file__).resolve().parents[2]


def wonders(*args, check=False):
    done = subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(done.stderr)
    return done


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim")
    wonders("simulate", "--matches", 3, "--seed", 4, "--out", out, "--bots", "greedy,random",
            check=True)
    return out


def test_simulate_then_verify_passes(store):
    files = sorted(store.glob("*.jsonl"))
    assert [f.name for f in files] == ["m-0001.jsonl", "m-0002.jsonl", "m-0003.jsonl"]
    done = wonders("verify", store)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("OK   m-000") == 3
    assert done.stdout.strip().endswith("3 passed, 0 failed")


def test_the_same_seed_gives_identical_bytes(store, tmp_path):
    wonders("simulate", "--matches", 3, "--seed", 4, "--out", tmp_path, "--bots",
            "greedy,random", check=True)
    for name in ("m-0001.jsonl", "m-0002.jsonl", "m-0003.jsonl"):
        assert filecmp.cmp(store / name, tmp_path / name, shallow=False)


def test_bulk_simulation_writes_the_same_bytes(store, tmp_path):
    wonders("simulate", "--matches", 3, "--seed", 4, "--out", tmp_path, "--bots",
            "greedy,random", "--bulk", check=True)
    for name in ("m-0001.jsonl", "m-0002.jsonl", "m-0003.jsonl"):
        assert filecmp.cmp(store / name, tmp_path / name, shallow=False)


def test_a_tournament_fills_its_metadata(tmp_path):
    wonders("simulate", "--tournament", "Spring Cup", "--players", 5, "--rounds", 2,
            "--seed", 2, "--out", tmp_path, check=True)
    infos = FileStore(tmp_path).list()
    assert len(infos) == 4  # 5 players: 2 tables a round (one bye), 2 rounds
    assert {(i.opened.round, i.opened.table) for i in infos} == {(1, 1), (1, 2), (2, 1), (2, 2)}
    assert all(i.opened.tournament == "Spring Cup" and i.ended for i in infos)


def test_a_second_simulation_into_a_store_takes_another_prefix(tmp_path):
    """An analyst's corpus of both games (or two tournaments of one name) in one store: a
    second run with the same ids is one line naming --prefix, another --prefix adds beside."""
    wonders("simulate", "--matches", 1, "--seed", 2, "--out", tmp_path, check=True)
    again = wonders("simulate", "--game", "sow", "--matches", 1, "--out", tmp_path)
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert again.stderr.strip().splitlines() == [
        f"error: match 'm-0001' already exists in {tmp_path} (wrote 0 match files before it): "
        f"give another --prefix to add matches beside those there"]
    wonders("simulate", "--game", "sow", "--matches", 1, "--out", tmp_path, "--prefix", "sow",
            check=True)
    for seed in (1, 2):
        wonders("simulate", "--tournament", "Café Cup", "--players", 2, "--rounds", 1,
                "--seed", seed, "--out", tmp_path, *(["--prefix", "cafe-2"] if seed == 2 else []),
                check=True)
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == [
        "cafe-2-r1-t01.jsonl", "cafe-cup-r1-t01.jsonl", "m-0001.jsonl", "sow-0001.jsonl"]
    bad = wonders("simulate", "--matches", 1, "--out", tmp_path, "--prefix", "a b")
    assert bad.returncode == 2 and "--prefix" in bad.stderr and "Traceback" not in bad.stderr


def _copy(store, tmp_path):
    target = tmp_path / "m-0001.jsonl"
    target.write_bytes((store / "m-0001.jsonl").read_bytes())
    return target


def test_verify_reports_a_flipped_byte_with_its_seq(store, tmp_path):
    path = _copy(store, tmp_path)
    lines = path.read_bytes().split(b"\n")
    line = bytearray(lines[40])
    at = line.index(b'"type":"') + 9
    line[at] ^= 0x01
    lines[40] = bytes(line)
    path.write_bytes(b"\n".join(lines))
    done = wonders("verify", path)
    assert done.returncode == 1
    assert f"FAIL {path}:41: seq 40: hash mismatch" in done.stdout  # file, line and seq


def test_verify_reports_a_deleted_line(store, tmp_path):
    path = _copy(store, tmp_path)
    lines = path.read_bytes().split(b"\n")
    del lines[25]
    path.write_bytes(b"\n".join(lines))
    done = wonders("verify", path)
    assert done.returncode == 1
    assert "seq 26" in done.stdout and "chain" in done.stdout


def test_verify_reports_an_edited_outcome_with_the_engine_view(store, tmp_path):
    path = _copy(store, tmp_path)
    events = list(FileStore.read_file(path))
    index = next(i for i, s in enumerate(events) if isinstance(s.event, BattleResolved))
    out, prev = [], GENESIS
    for i, stored in enumerate(events):
        event = stored.event
        if i == index:
            event = msgspec.structs.replace(event, attacker_power=event.attacker_power + 1)
        line, prev = encode_line(event, stored.seq, stored.at, stored.batch, prev)
        out.append(line)
    path.write_bytes(b"\n".join(out) + b"\n")
    done = wonders("verify", path)
    assert done.returncode == 1
    assert f"m-0001 seq {index}: recorded BattleResolved" in done.stdout
    assert "engine derives BattleResolved" in done.stdout


def test_replay_prints_the_board_and_json(store):
    done = wonders("replay", store / "m-0002.jsonl", "--at", 60, "--as", "B", check=True)
    assert "m-0002 @ seq 60" in done.stdout and "realms:" in done.stdout
    assert " hidden cards" in done.stdout and "(s)" not in done.stdout  # B's view hides A's hand
    data = json.loads(wonders("replay", store / "m-0002.jsonl", "--json", check=True).stdout)
    assert data["over"] is True and data["players"]["A"]["hand"] is not None


@pytest.mark.parametrize("args,fragment", [
    (["verify", "no/such/dir"], "no such file"),
    (["replay", "missing.jsonl"], "does not exist"),
    (["simulate", "--out", "x", "--bots", "clever"], "unknown bot"),
    (["simulate", "--frobnicate"], "no such option"),
    (["conformance", "nowhere"], "no such file"),
])
def test_errors_are_one_line_without_traceback(args, fragment):
    done = wonders(*args)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and fragment in lines[0].lower()


def test_a_bad_file_is_one_line_too(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not a match\n")
    done = wonders("replay", bad)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_cards_and_wonders_cards_choose_the_pool(tmp_path, store):
    import os

    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / "two.toml").write_text('[[card]]\nname = "Pebble"\ntype = "wonder"\npower = 1\n'
                                   '[[card]]\nname = "Boulder"\ntype = "wonder"\npower = 3\n')
    for args, env in ((["--cards", pool], {}), ([], {"WONDERS_CARDS": str(pool)})):
        done = subprocess.run([sys.executable, "-m", "web.cli", "cards", "validate", *map(str, args)],
                              cwd=REPO, capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, **env))
        assert done.stdout.splitlines()[0] == "2 cards OK"
        assert done.returncode != 0 and "unknown card" in done.stderr  # the shipped decks' cards
    # A match file carries its cards (schema 3): another pool can't change its verification.
    done = wonders("verify", "--cards", pool, store)
    assert done.returncode == 0 and "schema 3" in done.stdout, done.stdout
    assert wonders("verify", store).returncode == 0


@pytest.mark.parametrize("command", [["cards", "validate"], ["verify", "x.jsonl"], ["conformance"],
                                     ["simulate", "--out", "{tmp}/x"], ["replay", "x.jsonl"],
                                     ["demo", "--no-serve", "--dir", "{tmp}/demo"], ["serve"]])
def test_an_empty_pool_is_one_line(tmp_path, command):
    done = wonders(*[a.format(tmp=tmp_path) for a in command], "--cards", tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode != 0 and "cards OK" not in done.stdout
    assert lines == [f"error: card pool {tmp_path} is empty: no card files (*.toml)"]


def test_conformance_runs_the_shipped_cases_by_default():
    done = wonders("conformance", "--quiet")
    assert done.returncode == 0, done.stdout[-2000:]
    assert done.stdout.splitlines()[-1].endswith(" passed, 0 failed")


@pytest.mark.parametrize("game", ["wotf", "sow"])
@pytest.mark.parametrize("named", ["empty", "x.toml", "no-such-dir"])
def test_conformance_of_a_path_without_cases_is_an_error(tmp_path, game, named):
    """An explicitly named directory without a case (also one called x.toml) or a path that
    is not there runs nothing: one error line and exit 1, never "0 passed, 0 failed"."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "x.toml").mkdir()
    done = wonders("conformance", "--game", game, tmp_path / named)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and "passed" not in done.stdout, done.stdout
    why = "no such file or directory" if named == "no-such-dir" else "no conformance cases"
    assert lines == [f"error: {tmp_path / named}: {why}" + (
        "" if named == "no-such-dir" else " (*.toml) in this directory")]


@pytest.mark.parametrize("args,message", [
    (["--turn", 3], "--turn needs --round (a turn of that round)"),
    (["--at", 5, "--round", 2], "--at and --round given together: --at, --round and --battle "
                                "are exclusive (give one)"),
    (["--round", 2, "--battle", 1], "--round and --battle given together: --at, --round and "
                                    "--battle are exclusive (give one)"),
])
def test_replay_positions_that_contradict_are_usage_errors(store, args, message):
    done = wonders("replay", store / "m-0001.jsonl", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"error: {message}"]


def test_replay_goes_to_a_turn_of_a_state_of_wonder_match(tmp_path):
    """docs/sow.md: State of Wonder is addressed by turns (it has no rounds). ``--turn N``
    alone goes to its N-th turn; it said "--turn needs --round", and any --round "was not
    played", so no turn of such a match could be reached."""
    wonders("simulate", "--game", "sow", "--matches", 1, "--seed", 3, "--out", tmp_path,
            check=True)
    done = wonders("replay", tmp_path / "m-0001.jsonl", "--turn", 7)
    assert done.returncode == 0, done.stderr
    assert ": Turn 7: " in done.stdout.splitlines()[0] and "\nturn 7 " in done.stdout
    done = wonders("replay", tmp_path / "m-0001.jsonl", "--turn", 999)
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and line.startswith(
        "error: Invalid value for --at/--round/--turn/--battle: there is no turn 999 (the "
        "match has "), line


def test_a_store_path_that_is_a_file_is_one_line_saying_so(tmp_path):
    """`--store FILE` / `--out FILE` / a copy's DST that is a file said only "FILE: File exists"
    (mkdir's errno); a path under a file said "Not a directory"."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a store\n")
    source = tmp_path / "src"
    wonders("simulate", "--matches", 1, "--out", source, check=True)
    for target in (a_file, a_file / "store"):
        for args in (("simulate", "--matches", 1, "--out", target),
                     ("copy", source, target),
                     ("tournament", "create", "Cup", "--store", target),
                     ("serve", "--store", target, "--port", 0),
                     ("ingest", target, "--db", tmp_path / "w.duckdb")):
            done = wonders(*args)
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            assert done.returncode != 0 and len(lines) == 1, (args, done.stderr)
            assert lines[0] == f"error: {target}: not a store directory ({a_file} is a file)", lines
    assert a_file.read_text() == "not a store\n"


def test_a_store_path_linked_to_nothing_says_so(tmp_path):
    """A store directory that is a symbolic link to a directory that is not there (a disk not
    mounted) was called a file: "X: not a store directory (X is a file)"."""
    link = tmp_path / "store"
    link.symlink_to(tmp_path / "mnt" / "wonders")
    for args in (("simulate", "--matches", 1, "--out", link),
                 ("tournament", "create", "Cup", "--store", link)):
        done = wonders(*args)
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert done.returncode != 0 and lines == [
            f"error: {link}: not a store directory ({link} is a symbolic link to "
            f"{tmp_path / 'mnt' / 'wonders'}, which does not exist)"], (args, done.stderr)
    assert not (tmp_path / "mnt").exists()


def test_the_readme_command_table_names_every_command_and_only_real_options():
    """README's "What you can do" table is how a newcomer learns the CLI: every command and
    tournament sub-command is in it (`tournament reinstate` was missing), and every option it
    shows exists (with `--help`'s spelling)."""
    import re

    import click

    from web.cli import cli

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `wonders ")]
    usage = {}
    for row in rows:
        shown = row.split("`")[1].replace("\\|", "|")
        usage.setdefault(shown.split()[1], []).append(shown)
    assert set(cli.commands) <= set(usage), set(cli.commands) - set(usage)
    tournament = cli.commands["tournament"]
    assert isinstance(tournament, click.Group)
    named = re.search(r"wonders tournament ([a-z|-]+)", " ".join(usage["tournament"])).group(1)
    assert set(named.split("|")) == set(tournament.commands), named
    for name, shown in usage.items():
        command = cli.commands[name]
        commands = command.commands.values() if isinstance(command, click.Group) else [command]
        options = {opt for c in commands for p in c.params for opt in p.opts}
        for flag in re.findall(r"--[a-z-]+", " ".join(shown)):
            assert flag in options, (name, flag)


def test_copying_again_into_a_backup_writes_nothing(tmp_path):
    """docs/deploy.md's backup, `wonders copy /srv/wonders /backup/wonders` run again: every
    match already there was written out again in full (a temporary file, fsynced, then
    removed) before it was found identical -- a whole store's worth of writes per run, and in a
    backup directory this user may not write to, 'Permission denied' instead of SAME."""
    source, backup = tmp_path / "source", tmp_path / "backup"
    wonders("simulate", "--matches", 2, "--out", source, check=True)
    wonders("copy", source, backup, check=True)
    before = backup.stat().st_mtime_ns
    done = wonders("copy", source, backup, check=True)
    assert done.stdout.splitlines()[-1].startswith("0 copied, 2 already there, 0 failed")
    assert backup.stat().st_mtime_ns == before  # no file was made (or removed) in it


def test_upgrading_again_reports_the_copies_already_there(tmp_path):
    """`wonders upgrade OLD NEW` run a second time (say, after more old files were added to
    OLD) failed every file upgraded before ("match … already exists", exit 1), and a copy cut
    short (a full disk, a kill) stayed behind half-written, blocking every later run.  The copy
    is made in memory and written in one durable write; one already there with the same bytes
    is reported as such."""
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    golden = REPO / "fixtures" / "matches" / "golden-12-0001.jsonl"
    (old / golden.name).write_bytes(golden.read_bytes())
    first = wonders("upgrade", old, new, check=True)
    assert first.stdout.splitlines()[-1] == "1 upgraded, 0 already schema 3, 0 failed"
    made = (new / golden.name).read_bytes()
    again = wonders("upgrade", old, new)
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.splitlines() == [
        f"SAME golden-12-0001: its schema 3 copy is already in {new}, byte-identical",
        "0 upgraded, 0 already schema 3, 1 already upgraded, 0 failed"]
    assert (new / golden.name).read_bytes() == made
    (new / golden.name).write_bytes(made.splitlines(keepends=True)[0])  # another copy's start
    other = wonders("upgrade", old, new)
    assert other.returncode == 1 and "left as it is" in other.stdout, other.stdout
    assert (new / golden.name).read_bytes() == made.splitlines(keepends=True)[0]


def test_verify_of_a_tournament_log_says_what_it_is(tmp_path):
    """A tournament's log (a file store's ``.tournaments/<id>.jsonl``) given to verify said only
    "not a ledger line (Object missing required field `v`)"; now the same line says what the
    file is and which command reads it."""
    from tests.web.test_api import Api, new_app
    from tests.web.test_tournaments import new_tournament

    tid = new_tournament(Api(new_app(tmp_path)), players=2)
    (log,) = tmp_path.glob(f"**/.tournaments/{tid}.jsonl")
    done = wonders("verify", log)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert line.endswith(f": this is the log of tournament {tid}, not a match file (wonders "
                         f"tournament standings {tid} --store <the store> reads it)")
