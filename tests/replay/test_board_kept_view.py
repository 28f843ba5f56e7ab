"""The board drawn through an engine's kept view is the board a fresh view draws.

The API draws a match's head through the engine it holds at that state
(:func:`replay.wotf.perspective.engine_board`): the engine's ``View`` keeps facts (powers,
keywords in force, the cards in each realm) from one event to the next and forgets them as
``Engine.emit`` says each event may have changed them.  A kept fact that an event should have
dropped would show a stale board, so here, after every event of random matches with the
sample decks (scripted cards, statics, counters) under both rulesets (1.3.2 and 1.2), every
perspective's board -- and the cards a perspective knows (``known_board``, asked of every
card) -- through the engine's view equals the one a fresh view draws, of the engine's state
and of the state folded from the events the engine emitted (the log is the truth: DESIGN.md
section 2).  The golden matches (schema 2 and 3, rules revisions 1 to 8) are checked at the
end of every batch, as a reading process re-derives them.  A deliberately broken view (one
that keeps every fact across every event) is caught by the same check.
"""

import random

import pytest

from ledger.events import MatchOpened, SeatInfo
from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.timeline import Timeline
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from replay.wotf.engine import Engine
from replay.wotf.perspective import PERSPECTIVES, board, engine_board, known_board
from replay.wotf.queries import View
from tests.replay.helpers import play_out
from tests.replay.test_golden import MATCHES

DB = default_cards()
DECKS = load_decks(None, db=DB)


def assert_same_boards(engine: Engine, folded=None, where: str = "") -> None:
    """Every perspective's board (and known cards) through ``engine``'s kept view equals a
    fresh view's, of its state and of ``folded`` (the state the record folds to)."""
    every = sorted(engine.state.cards)
    for perspective in PERSPECTIVES:
        kept = engine_board(engine, perspective)
        fresh = board(engine.state, engine.db, perspective, view=View(engine.state, engine.db))
        assert kept == fresh, f"{where}: stale {perspective} board through the kept view"
        if folded is not None:
            assert kept == board(folded, engine.db, perspective), \
                f"{where}: the {perspective} board differs from the folded state's"
        assert known_board(engine.state, engine.db, perspective, every, view=engine.view) == \
            known_board(engine.state, engine.db, perspective, every), \
            f"{where}: stale {perspective} known cards through the kept view"


def _play(a: int, b: int, seed: int, ruleset: str) -> int:
    """A random match checked after every event; returns how many events were checked."""
    seats = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
             for seat, deck in (("A", DECKS[a]), ("B", DECKS[b]))]
    opened = MatchOpened(match_id="kept", ruleset=ruleset, seats=seats)
    engine = Engine.for_match(opened, DB)
    timeline = Timeline([opened])

    def on_emit(event):
        timeline.extend([event])
        assert_same_boards(engine, timeline.state, f"{ruleset} seed {seed} seq {len(timeline) - 1}")

    engine.on_emit = on_emit
    engine.start()
    play_out(engine, random.Random(seed))
    assert engine.state.over
    return len(timeline)


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_the_kept_views_board_is_a_fresh_ones_after_every_event(ruleset):
    checked = sum(_play(a % len(DECKS), b % len(DECKS), seed, ruleset)
                  for a, b, seed in ((0, len(DECKS) - 1, 11), (1, 2, 12), (3, 0, 13)))
    assert checked > 300


def test_a_view_that_keeps_every_fact_is_caught(monkeypatch):
    # Keeping the view across every event (counters, taps, moves ...) shows a stale board.
    from replay.wotf import engine as engine_module
    from replay.wotf import events as ev
    every = frozenset(cls for cls in vars(ev).values()
                      if isinstance(cls, type) and issubclass(cls, ev.Event))
    monkeypatch.setattr(engine_module, "_KEEPS_VIEW", every)
    monkeypatch.setattr(engine_module, "STRUCTURAL", frozenset())
    with pytest.raises(AssertionError, match="stale"):
        for seed in range(10):
            _play(seed % len(DECKS), (seed * 7 + 3) % len(DECKS), seed, "1.3.2")


def _batches(stored) -> list[list]:
    out: list[list] = []
    for s in stored:
        if out and out[-1][-1].batch == s.batch:
            out[-1].append(s)
        else:
            out.append([s])
    return out


@pytest.mark.parametrize("path", sorted(MATCHES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_golden_matches_re_derived_batch_by_batch(path):
    stored = list(FileStore.read_file(path))
    batches = _batches(stored)
    first = len(batches[0]) + (len(batches[1]) if len(batches) > 1 else 0)
    replay = Replay(stored[:first], DB)  # set-up and its outcomes, as a first read finds them
    timeline = Timeline(stored[:first]) if replay.opened.schema_version >= 3 else None
    assert_same_boards(replay.engine, timeline.state if timeline else None, f"{path.stem} 0")
    done = first
    for batch in batches[2:]:
        if done >= len(stored):
            break
        replay.extend(batch)
        if timeline is not None:
            timeline.extend(batch)
        done += len(batch)
        assert_same_boards(replay.engine, timeline.state if timeline else None,
                           f"{path.stem} seq {done - 1}")
    assert done == len(stored) and replay.engine.state.over
