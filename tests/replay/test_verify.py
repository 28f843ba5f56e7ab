"""Verify in levels, records that outlive today's pool and engine, and ``wonders upgrade``
(issue 12, points 3, 5, 6 and 7).

A match file of schema 3 carries its cards: changing a card's cost, abilities, ability order,
reminder text, name or DBS in today's pool leaves it verifying and viewing identically, and
``--against-current`` names the changed card and field.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import msgspec
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.events import MatchOpened
from ledger.filestore import FileStore
from replay.replayer import Divergence, Replay
from replay.resources import cards_dir, golden_dir
from replay.simulate import simulate_matches
from replay.timeline import Timeline
from replay.verify import FAIL, NEWER_PROGRAM, OK, verify_file
from replay.wotf.cards import CardDB, ability_key, default_cards
from replay.wotf.decks import load_decks
from replay.wotf.events import STACK_EVENTS, CardPlayed, TriggerResolved
from replay.wotf.evolve import fold
from replay.wotf.perspective import board
from replay.wotf.revisions import RULES_REVISION
from replay.wotf.state import state_hash
from replay.wotf.upgrade import UpgradeError, upgrade

ROOT = Path(__file__).resolve().parents[2]
POOL = default_cards()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """A finished schema-3 match with scripted decks (abilities, two-ability cards)."""
    store = FileStore(tmp_path_factory.mktemp("rec"))
    [opened] = simulate_matches(store, POOL, load_decks(None, POOL), 1, seed=3001,
                                ruleset="1.3.2", bots=("greedy", "random"), prefix="v")
    return store.path(opened.match_id)


def _used(path: Path) -> list[str]:
    opened = next(iter(FileStore.read_file(path))).event
    return [d["name"] for d in opened.cards]


def _changed(name: str, **fields) -> CardDB:
    return POOL.with_cards([POOL[name].model_copy(update=fields)])


def _views(path: Path, db: CardDB) -> list[str]:
    """What a viewer shows at every 25th seq: the omniscient board, hashed."""
    timeline = Timeline(list(FileStore.read_file(path)))
    return [hashlib.sha256(msgspec.json.encode(board(timeline.state_at(seq), db))).hexdigest()
            for seq in range(0, len(timeline), 25)]


@pytest.mark.parametrize("change", ["cost", "abilities", "ability order", "reminder text",
                                    "name", "dbs"])
def test_a_pool_change_leaves_a_recorded_match_as_it_was(recorded, change):
    wonder = next(n for n in _used(recorded) if POOL[n].type == "wonder" and POOL[n].abilities)
    card = POOL[wonder]
    if change == "cost":
        today, field = _changed(card.name, cost=card.cost + 3), "cost"
    elif change == "abilities":
        today, field = _changed(card.name, abilities=()), "abilities"
    elif change == "ability order":  # another ability first: its own moves to position 2
        extra = next(c.abilities[0] for c in POOL if c.abilities and c.name != card.name)
        today, field = _changed(card.name, abilities=(extra, *card.abilities)), "abilities"
    elif change == "reminder text":
        today, field = _changed(card.name, text=card.text + " (Reminder: it is a Wonder.)"), "text"
    elif change == "dbs":
        today, field = _changed(card.name, dbs=card.dbs + 7), "dbs"
    else:
        renamed = card.model_copy(update={"name": card.name + " Reborn"})
        today = CardDB([c for c in POOL if c.name != card.name] + [renamed])
        field = "no longer in today's pool"
    before = verify_file(recorded, POOL)
    after = verify_file(recorded, today, against_current=True)
    assert before.status == after.status == OK, after.message
    assert after.message == before.message
    assert any(f"card {card.name!r}: {field}" in line for line in after.lines), after.lines
    # Viewing never reads the pool: the board at every seq is the same with either pool.
    recorded_cards = Replay(list(FileStore.read_file(recorded)), today).db
    assert _views(recorded, recorded_cards) == _views(recorded, Replay(
        list(FileStore.read_file(recorded)), POOL).db)


def test_against_current_says_where_todays_engine_would_diverge():
    """The revision-1 golden match names abilities by position (revision 3 named them by
    stable ids) and meets Equip's revision-2 choice: today's engine diverges."""
    report = verify_file(golden_dir() / "golden-s3-r1-132-0001.jsonl", POOL, against_current=True)
    assert report.status == OK and "revision 1" in report.message
    today = f"today's engine (revision {RULES_REVISION}, today's cards)"
    assert any(line.startswith(f"{today} would diverge at seq ") for line in report.lines), \
        report.lines
    same = verify_file(golden_dir() / f"golden-s3-r{RULES_REVISION}-132-0001.jsonl", POOL,
                       against_current=True)
    assert same.lines == [f"{today} re-derives it unchanged"]


# (golden-s3-r5-12 plays Drone Swarm: revision 8's one target realm for its two tokens, R28,
# makes today's engine diverge there, so the v1.2 file here is golden-s3-r4-12; the v1.3.2
# files of revisions 3-5 have fliers, whose moves revision 10 records as triggers, R42, so
# today's engine diverges there too: the files here are the v1.2 ones of revisions 3 and 4.)
@pytest.mark.parametrize("name", ["golden-s3-r3-12-0001", "golden-s3-r4-12-0001"])
def test_against_current_an_old_revision_re_derives_unchanged_without_its_stack(name):
    """Today's engine records the stack (revision 6), which a file of revision ≤ 5 never held:
    compared as that file records its outcomes, a match whose play today's rules derive the
    same way is reported unchanged, not diverging at its first resolution."""
    path = golden_dir() / f"{name}.jsonl"
    report = verify_file(path, POOL, against_current=True)
    assert report.status == OK, report.message
    assert report.lines[-1] == (f"today's engine (revision {RULES_REVISION}, today's cards) "
                                f"re-derives it unchanged"), report.lines
    # Compared as if the file were of today's revision, it lacks the stack events.
    events = [s.event for s in FileStore.read_file(path)]
    today = msgspec.structs.replace(events[0], rules_revision=RULES_REVISION)
    Replay([today, *events[1:]], POOL, recorded=events[0])
    stack = "|".join(cls.__name__ for cls in STACK_EVENTS)
    with pytest.raises(Divergence, match=f"engine derives ({stack}) "):
        Replay([today, *events[1:]], POOL)


def test_against_current_still_reports_a_changed_card_that_changes_the_play():
    """A real difference: the revision-5 golden match against a pool where a Wonder it played
    costs more than its player had -- today's engine refuses that play."""
    path = golden_dir() / "golden-s3-r5-132-0001.jsonl"
    played = next(s.event.name for s in FileStore.read_file(path)
                  if isinstance(s.event, CardPlayed) and POOL[s.event.name].type == "wonder")
    today = _changed(played, cost=99)
    report = verify_file(path, today, against_current=True)
    assert report.status == OK, report.message  # the file itself re-derives from its own cards
    assert f"card {played!r}: cost" in report.lines[0], report.lines
    assert report.lines[-1].startswith(f"today's engine (revision {RULES_REVISION}, today's "
                                       f"cards) would diverge at seq "), report.lines


def test_stable_ability_ids_survive_reordering_and_rewording(recorded):
    """Revision 3: abilities are named by stable ids, not positions, and their wording is
    presentation -- a reworded card in today's pool still re-derives the match unchanged."""
    opened = next(iter(FileStore.read_file(recorded))).event
    assert opened.rules_revision == RULES_REVISION >= 3
    keys = [s.event.ability for s in FileStore.read_file(recorded)
            if isinstance(s.event, TriggerResolved) and s.event.ability.startswith("ab:")]
    name = keys[0][3:].rsplit("#", 1)[0]
    card = POOL[name]
    assert not keys[0].rsplit("#", 1)[1].isdigit()  # a name, not a position
    reworded = tuple(a.model_copy(update={"text": a.text + " (reworded)"}) for a in card.abilities)
    lines = verify_file(recorded, _changed(name, abilities=reworded), against_current=True).lines
    assert any(f"card {name!r}: abilities" in line for line in lines), lines
    assert lines[-1].endswith("re-derives it unchanged"), lines
    other = next(c.abilities[0] for c in POOL if c.abilities and c.name != name)
    moved = card.model_copy(update={"abilities": (other, *card.abilities)})
    assert ability_key(moved, 1, 3) == ability_key(card, 0, 3) != ability_key(moved, 1, 2)


def test_a_torn_or_cut_final_batch_is_reported_not_ok(recorded, tmp_path):
    data = recorded.read_bytes()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data[:-40])
    report = verify_file(torn, POOL)
    assert report.status == FAIL and "torn final batch" in report.message
    lines = data.splitlines(keepends=True)
    last_batch = msgspec.json.decode(lines[-1])["batch"]
    assert msgspec.json.decode(lines[-2])["batch"] == last_batch, "needs a batch of ≥ 2 lines"
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:-1]))
    report = verify_file(cut, POOL)
    assert report.status == FAIL and "cut" in report.message
    assert torn.read_bytes() == data[:-40]  # verifying never repairs


def test_a_file_from_a_newer_program_is_reported_as_such(recorded, tmp_path):
    events = [s for s in FileStore.read_file(recorded)]
    newer = msgspec.structs.replace(events[0].event, rules_revision=99)
    path = tmp_path / "newer.jsonl"
    prev, out = GENESIS, []
    for s in events:
        line, prev = encode_line(newer if s.seq == 0 else s.event, s.seq, s.at, s.batch, prev)
        out.append(line)
    path.write_bytes(b"\n".join(out) + b"\n")
    report = verify_file(path, POOL)
    assert report.status == NEWER_PROGRAM and "newer than this program" in report.message
    cli = subprocess.run([sys.executable, "-m", "web.cli", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert cli.returncode == 2 and cli.stdout.startswith("NEWER"), cli.stdout


def test_verify_against_current_from_the_command_line_with_another_pool(recorded, tmp_path):
    """``--cards DIR`` is today's pool: one card's cost changed in its file."""
    pool = tmp_path / "cards"
    shutil.copytree(cards_dir(), pool)
    wonder = next(n for n in _used(recorded) if POOL[n].type == "wonder")
    for path in pool.glob("*.toml"):
        text = path.read_text()
        if f'name = "{wonder}"' in text:
            cost = next(c for c in tomllib.loads(text)["card"] if c["name"] == wonder)["cost"]
            head, tail = text.split(f'name = "{wonder}"', 1)
            tail = tail.replace(f"cost = {cost}\n", f"cost = {cost + 2}\n", 1)
            path.write_text(head + f'name = "{wonder}"' + tail)
    cli = subprocess.run([sys.executable, "-m", "web.cli", "verify", "--against-current",
                          "--cards", str(pool), str(recorded)], cwd=ROOT, capture_output=True,
                         text=True)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert f"card {wonder!r}: cost {cost} → {cost + 2}" in cli.stdout


# -- old files --------------------------------------------------------------------------------


LEGACY = sorted(p for p in golden_dir().glob("golden-*.jsonl") if not p.name.startswith("golden-s3"))


def test_old_schema_2_files_still_verify():
    assert LEGACY
    for path in LEGACY:
        report = verify_file(path, POOL)
        assert report.status == OK and "schema 2" in report.message, report.message


@pytest.mark.parametrize("path", LEGACY[:2] + LEGACY[-2:], ids=lambda p: p.stem)
def test_upgrade_writes_a_self_contained_schema_3_copy(path, tmp_path):
    stored = list(FileStore.read_file(path))
    before = path.read_bytes()
    opened = upgrade(stored, POOL, FileStore(tmp_path))
    assert path.read_bytes() == before
    copy = list(FileStore(tmp_path).read(opened.match_id))
    first = copy[0].event
    assert isinstance(first, MatchOpened)
    assert first.schema_version == 3 and first.upgraded_from == stored[-1].hash
    assert first.rules_revision == 1 and first.cards
    assert any(type(s.event).__name__ == "DeckOrdered" for s in copy)
    # The copy re-derives by itself, its fold is its state, and the match came out the same.
    replay, old = Replay(copy, CardDB()), Replay(stored, POOL)
    assert state_hash(fold([s.event for s in copy])) == state_hash(replay.engine.state)
    for attribute in ("winner", "reason", "round"):
        assert getattr(replay.engine.state, attribute) == getattr(old.engine.state, attribute)
    assert [r.stones for r in replay.engine.state.realms] == \
        [r.stones for r in old.engine.state.realms]


def test_upgrade_keeps_a_take_back(tmp_path):
    """A schema-2 file with a take-back (written as that schema recorded it)."""
    from ledger.events import TakenBack
    from replay.wotf.bots import RandomBot, answer_chance
    from replay.wotf.engine import Engine
    from replay.wotf.legacy import legacy_outcomes
    from tests.replay.helpers import opened, small_db

    db, rng = small_db(), random.Random(8)
    old = msgspec.structs.replace(opened(), schema_version=2)
    store = FileStore(tmp_path / "old")
    store.create(old)
    engine, length, ends = Engine.for_match(old, db), 1, []
    assert engine.start() == []  # set-up waits for the coin flip at once
    bot = RandomBot(rng)
    while len(ends) < 40 and engine.prompt is not None:
        prompt = engine.prompt
        fed = answer_chance(prompt, rng) if prompt.kind == "chance" else bot.decide(engine)
        batch = engine.decide(fed)
        batch = [batch[0], *legacy_outcomes(batch[1:])]
        store.append("m-test", batch, length)
        length += len(batch)
        ends.append(length - 1)
    store.append("m-test", [TakenBack(ends[len(ends) // 2], "judge", "misplay")], length)
    stored = list(store.read("m-test"))
    Replay(stored, db)  # the schema-2 file verifies
    result = upgrade(stored, db, FileStore(tmp_path / "new"))
    copy = list(FileStore(tmp_path / "new").read(result.match_id))
    taken = copy[-1].event
    assert isinstance(taken, TakenBack) and taken.to_seq != ends[len(ends) // 2]
    replay = Replay(copy, db)
    assert state_hash(replay.engine.state) == state_hash(replay.state_at(taken.to_seq))
    assert state_hash(Timeline(copy).state) == state_hash(replay.engine.state)


def test_upgrade_renumbers_what_a_note_is_about(tmp_path):
    """``Annotated.about`` names a seq, like ``TakenBack.to_seq``: the copy (which inserts the
    outcomes schema 2 did not record) is about the same moment -- a fed event, an outcome, the
    opening -- not whatever event now has the old seq."""
    from ledger.events import Annotated
    from replay.wotf.legacy import legacy_equal

    golden = golden_dir() / "golden-132-0001.jsonl"
    stored = list(FileStore.read_file(golden))
    fed = next(s.seq for s in stored[201:] if stored[s.seq - 1].seq == stored[s.seq - 1].batch)
    outcome = next(s.seq for s in stored[200:] if type(s.event).__name__ == "RoundStarted")
    data, prev, seq = golden.read_bytes(), stored[-1].hash, len(stored)
    for about in (outcome, fed, 0):
        line, prev = encode_line(Annotated(about, "judge", "Jo", f"about {about}"), seq,
                                 "2030-01-01T00:00:01.000Z", seq, prev)
        data, seq = data + line + b"\n", seq + 1
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / golden.name).write_bytes(data)
    run = subprocess.run([sys.executable, "-m", "web.cli", "upgrade", str(tmp_path / "old"),
                          str(tmp_path / "new")], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    copy = list(FileStore.read_file(tmp_path / "new" / golden.name))
    notes = [s.event for s in copy if isinstance(s.event, Annotated)]
    assert [n.text for n in notes] == [f"about {outcome}", f"about {fed}", "about 0"]
    assert notes[0].about != outcome and notes[2].about == 0
    for note, about in zip(notes, (outcome, fed, 0), strict=True):
        mine, theirs = copy[note.about], stored[about]
        assert type(mine.event) is type(theirs.event) and mine.at == theirs.at, note
    assert legacy_equal(copy[notes[0].about].event, stored[outcome].event)


def test_upgrade_of_a_schema_3_file_is_refused(recorded, tmp_path):
    with pytest.raises(UpgradeError, match="already schema 3"):
        upgrade(list(FileStore.read_file(recorded)), POOL, FileStore(tmp_path))


def test_wonders_upgrade_then_verify_from_the_command_line(tmp_path):
    src = tmp_path / "old"
    src.mkdir()
    for path in [*LEGACY[:2], golden_dir() / "golden-s3-r2-12-0001.jsonl"]:
        shutil.copy(path, src)
    run = subprocess.run([sys.executable, "-m", "web.cli", "upgrade", str(src), str(tmp_path / "new")],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("2 upgraded, 1 already schema 3, 0 failed")
    check = subprocess.run([sys.executable, "-m", "web.cli", "verify", str(tmp_path / "new")],
                           cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0 and "schema 3" in check.stdout, check.stdout
