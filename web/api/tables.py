"""The per-process cache of live tables: one folded timeline (and, lazily, one recorder) per match.

Reading a match is folding its recorded events (DESIGN.md sections 2 and 4): each
:class:`Table` keeps the match's :class:`~replay.timeline.Timeline` (for a file of schema ≤ 2,
the engine's re-derivation, :func:`~replay.timeline.open_timeline`), extended with new events as
the file grows, and every read -- state, events, the viewer, the download -- is built from it.
No read needs today's engine to show a match of schema 3.

Writing needs the engine at the pending prompt: the :class:`~replay.recorder.Recorder`, made on
first need by re-deriving the recorded events (which is also *verification*).  If today's engine
disagrees with the record (a :class:`~replay.replayer.Divergence`), the table still serves every
read -- with a divergence mark, :meth:`Table.divergence` -- but refuses writes
(:class:`DivergedError`, 409): the match can be viewed and downloaded, not continued.  The
verification is computed lazily, once per match length, and never fails a read.

Another worker (thread or process, on this machine or another over one database) may append
to the same match.  Before each use the table compares the store's head of the match
(:meth:`ledger.store.Store.head`: length and last hash, cheap in every backend) with the head
it last saw; if someone else appended a batch the timeline is extended and the recorder is
made again on its next use.  Writers to one match are serialised twice: a lock per table
inside the process, and the store's ``expected_seq`` check across processes (a stale writer
gets a conflict, and nothing is written).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ledger.codec import Stored
from ledger.events import Event, MatchOpened
from ledger.store import Head, Store
from replay.errors import ReplayError
from replay.game import Game, Rules
from replay.games import game_of
from replay.index import Index
from replay.reading import Reading
from replay.recorder import Recorder
from replay.replayer import NO_SNAPSHOTS, SNAPSHOT_EVERY, Divergence, Replay
from replay.timeline import Timeline, open_timeline
from web.errors import WebError

T = TypeVar("T")
#: How many of the last stored events a table keeps (:meth:`Table.recent`): the new events a
#: live follower sends next are among them (at most twice as many are held between trims).
TAIL = 128
Pools = Callable[[str], Any]  # a game's name -> this app's card pool of that game
log = logging.getLogger("wonders.web")


@dataclass(frozen=True)
class Mark:
    """Where today's engine disagrees with a recorded match: the first seq, and what differs."""

    seq: int
    message: str


class DivergedError(WebError):
    """A write to a match today's engine disagrees with: it can be shown, not continued."""

    status, kind = 409, "diverged"


class Table:
    """One match as this process knows it; use it only inside :meth:`Tables.using`."""

    def __init__(self, store: Store, pools: Pools, match_id: str):
        self.store, self.match_id = store, match_id
        self.lock = threading.RLock()
        # Before reading: a batch appended meanwhile is read again (None: look next time).
        self.seen: Head | None = store.head(match_id)
        self.refreshed_at = time.monotonic()  # when the store's head was last read
        stored = list(store.read(match_id))
        opened = stored[0].event
        if not isinstance(opened, MatchOpened):
            raise ReplayError(f"{match_id}: seq 0 is not MatchOpened")
        self.game: Game = game_of(opened)
        self.db = db = pools(self.game.name)  # the card pool of the match's game
        self.timeline: Reading = open_timeline(stored, db)
        # The last events read or written, as stored (envelopes: at, batch): a live follower
        # takes the new ones from here rather than reading the file again (:meth:`recent`).
        self._tail: list[Stored] = stored[-TAIL:]
        self.cards = reading_cards(self.timeline, db)  # the match's own, its tokens included
        self._recorder: Recorder | None = None
        # This process's own re-derivation, extended as the match grows (:meth:`_verify`);
        # its engine goes to a recorder when a write needs one (and it is then dropped).
        self._verified: Replay | None = None
        self._mark: Mark | None = None
        self._checked = -1  # the length the engine last re-derived (``_mark`` is for it)
        self._views: dict[tuple, Any] = {}  # rendered views of the current length
        self._views_length = -1

    # -- freshness -------------------------------------------------------------------------

    def refresh(self) -> None:
        """Fold what another writer appended since this table last looked."""
        self.refreshed_at = time.monotonic()
        head = self.store.head(self.match_id)
        if head == self.seen:
            return
        if head.length > self.length:
            self._grow()
        self.seen = head

    def _grow(self) -> None:
        self._fold(list(self.store.read(self.match_id, self.length)))

    def _fold(self, stored: list[Stored]) -> None:
        """Fold appended events (the stand-in tokens they define are folded with them)."""
        self.timeline.extend(stored)
        tail = self._tail
        tail += stored
        if len(tail) > 2 * TAIL:  # trimmed now and then, not at every batch
            del tail[:-TAIL]

    def recent(self, first: int, last: int) -> list[Stored] | None:
        """The stored events ``first``..``last`` if they are among the last ones this table
        read or wrote (``None``: read them from the store)."""
        tail = self._tail
        if not tail or first < tail[0].seq or last > tail[-1].seq or first > last:
            return None
        start = first - tail[0].seq
        return tail[start:start + last - first + 1]

    def after_append(self) -> None:
        """After our own append the head is not read at once: the next use reads it anyway
        (:meth:`refresh`), finds the length we folded -- or more, if someone appended right
        after, which it then folds -- and remembers it.  One read of the head per append saved."""
        self.seen = None

    # -- recording -------------------------------------------------------------------------

    @property
    def recorder(self) -> Recorder:
        """The recorder at the pending prompt; :class:`DivergedError` if today's engine
        disagrees with the record (the match can't be continued)."""
        recorder = self._resume()
        if recorder is None:
            mark = self._mark
            raise DivergedError(
                f"match {self.match_id}: the engine disagrees with the record at seq "
                f"{mark.seq if mark else '?'}, so the match can be viewed and downloaded but "
                f"not continued")
        return recorder

    def engine(self) -> Rules | None:
        """The engine at the pending prompt, or ``None`` when it disagrees with the record
        (do not change it): the recorder's, else the re-derivation's (which a read leaves
        to be extended at the next length)."""
        recorder = self._recorder
        if recorder is not None and recorder.length == self.length:
            return recorder.engine
        if self._checked == self.length and self._mark is not None:
            return None
        replay = self._verified
        if replay is None or len(replay) != self.length:
            replay = self._verify()
        return replay.engine if replay is not None else None

    def append(self, write: Callable[[Recorder], list[Stored]]) -> list[Stored]:
        """Run one recorder write and fold what it appended; on any error (a stale seq is a
        ``ConflictError``) the table checks the file again before its next use, and the error
        goes on to the caller."""
        recorder = self.recorder
        try:
            stored = write(recorder)
        except Exception:
            self.seen = None  # look again before the next use (the recorder may have reloaded)
            raise
        self._fold(stored)
        if recorder.length == self.length:
            self._checked = self.length  # the engine derived what it appended
        self.after_append()
        return stored

    def adopt(self, recorder: Recorder) -> None:
        """Continue from the recorder that wrote this match in this process (a create): its
        engine is at the pending prompt of exactly what the file holds, so the first use does
        not re-derive the match to get there."""
        if recorder.match_id == self.match_id and recorder.length == self.length:
            self._recorder, self._checked, self._mark = recorder, self.length, None

    def _resume(self) -> Recorder | None:
        """The recorder for the timeline's length, from the re-derivation at that length
        (:meth:`_verify`) whose engine it takes over; ``None`` if the engine disagrees."""
        recorder = self._recorder
        if recorder is not None and recorder.length == self.length:
            return recorder
        self._recorder = None
        if self._checked == self.length and self._mark is not None:
            return None
        replay = self._verified
        if replay is None or len(replay) != self.length:
            replay = self._verify()
        if replay is not None:  # its engine, at the pending prompt, becomes the recorder's
            self._verified = None  # (the recorder moves that engine on)
            self._recorder = Recorder(self.store, self.db, replay.opened, replay.engine,
                                      len(replay))
        return self._recorder

    def _verify(self) -> Replay | None:
        """Re-derive the recorded events up to the timeline's length (once per length):
        extending this table's earlier re-derivation by the events appended since -- a
        process that reads a match another process records (a live follower, a polled
        board) derives each event once, not the whole match at each new length -- or, with
        none, from the start.  Sets the divergence mark; never raises."""
        self._checked = self.length
        replay = self._verified
        if replay is not None and len(replay) < self.length:
            replay, self._mark = rederive_more(replay, self.timeline.events[len(replay):])
        elif replay is None or len(replay) != self.length:
            replay, self._mark = rederive(self.timeline.events, self.db, NO_SNAPSHOTS)
        else:
            self._mark = None
        self._verified = replay
        return replay

    # -- reading ---------------------------------------------------------------------------

    def divergence(self) -> Mark | None:
        """Where today's engine disagrees with the record (``None``: it re-derives it all).
        Computed at most once per length; never raises."""
        if self._checked != self.length:
            recorder = self._recorder
            if recorder is not None and recorder.length == self.length:
                self._checked, self._mark = self.length, None  # the recorder derived it
            else:
                self._verify()
        return self._mark

    def view(self, key: tuple, render: Callable[[], T]) -> T:
        """A rendered view of the match as it is now, computed once per length and ``key``
        (many readers poll the same state: a seat, the judge, spectators)."""
        if self._views_length != self.length:
            self._views, self._views_length = {}, self.length
        cached = self._views.get(key)
        if cached is None:
            cached = self._views[key] = render()
        return cached

    @property
    def length(self) -> int:
        return len(self.timeline)

    @property
    def events(self) -> list[Event]:
        """The recorded events (``events[seq]``)."""
        return self.timeline.events

    @property
    def index(self) -> Index:
        """Rounds, turns and battles by seq (:class:`~replay.replayer.Index`)."""
        return self.timeline.index

    @property
    def opened(self) -> MatchOpened:
        return self.timeline.opened  # events[0], as the reading keeps it

    @property
    def state(self) -> Any:
        """The state after the last recorded event (do not change it)."""
        return final_state(self.timeline)

    def state_at(self, seq: int) -> Any:
        """The state after event ``seq``, folded from the record."""
        if seq == self.length - 1:
            return self.state
        return self.timeline.state_at(seq)


def rederive(events: Sequence[Event], db: Any, snapshot_every: int = SNAPSHOT_EVERY
             ) -> tuple[Replay | None, Mark | None]:
    """Verify a match: re-derive its events through today's engine.  Returns the replay, or
    where the engine disagrees with the record; never raises."""
    try:
        return Replay(events, db, snapshot_every), None
    except Exception as exc:  # noqa: BLE001 - never fail a read because verification broke
        return None, _mark_of(exc)


def rederive_more(replay: Replay, events: Sequence[Event]) -> tuple[Replay | None, Mark | None]:
    """Verify newly recorded events: extend a re-derivation by them (:meth:`Replay.extend`).
    Returns the replay, or where the engine disagrees; never raises (nor reuses ``replay``
    after a failure: its state is then partial)."""
    try:
        replay.extend(events)
    except Exception as exc:  # noqa: BLE001 - never fail a read because verification broke
        return None, _mark_of(exc)
    return replay, None


def _mark_of(exc: Exception) -> Mark:
    """Where and why a re-derivation failed."""
    if isinstance(exc, Divergence):
        return Mark(exc.seq, _what_differs(exc))
    if isinstance(exc, ReplayError):  # e.g. a card today's pool no longer has
        return Mark(0, f"today's engine cannot re-derive this match: {exc}")
    log.exception("re-deriving a match failed", exc_info=exc)
    return Mark(0, f"today's engine cannot re-derive this match ({type(exc).__name__})")


def reading_cards(reading: Reading, pool: Any) -> Any:
    """The cards of a match as its reader needs them: those its file records (``pool``'s for
    a file of schema ≤ 2).  The stand-in tokens its events define are part of the state a
    board is drawn from, so no reader adds to a match's cards."""
    if isinstance(reading, Replay):
        return reading.game.cards_of(reading.engine)  # schema ≤ 2: the re-derivation's
    return reading.game.match_cards(reading.opened, pool)


def final_state(reading: Reading) -> Any:
    """The state after a reading's last event (do not change it)."""
    if isinstance(reading, Replay):
        return reading.engine.state  # schema ≤ 2: the re-derivation's
    if isinstance(reading, Timeline):
        return reading.state
    return reading.state_at(len(reading) - 1)


def _what_differs(exc: Divergence) -> str:
    """A divergence's message without the ``<match> seq <n>: `` its ``str`` starts with."""
    text = str(exc)
    prefix = f"{exc.match_id} seq {exc.seq}: "
    return text[len(prefix):] if text.startswith(prefix) else text


class Tables:
    """The cache: match id → :class:`Table`, created on first use."""

    def __init__(self, store: Store, pools: Pools, capacity: int = 1000):
        self.store, self.pools, self.capacity = store, pools, capacity
        self._tables: OrderedDict[str, Table] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tables)

    def using(self, match_id: str, work: Callable[[Table], T],
              fresh_within: float | None = None) -> T:
        """Run ``work`` on the match's fresh table while holding its lock.

        ``fresh_within``: seconds; a table whose head was read more recently than that is not
        read again (a live follow stream, which polls anyway: the streams on a match and its
        seats' requests share the head reads).  Every other use reads the head."""
        table = self._get(match_id)
        with table.lock:
            if fresh_within is None or time.monotonic() - table.refreshed_at >= fresh_within:
                table.refresh()
            return work(table)

    def _get(self, match_id: str) -> Table:
        with self._lock:
            table = self._tables.get(match_id)
            if table is not None:
                self._tables.move_to_end(match_id)
                return table
        self.store.check_id(match_id)  # a malformed id fails here, before anything is read
        fresh = Table(self.store, self.pools, match_id)  # outside the cache lock: folding is slow
        with self._lock:
            table = self._tables.setdefault(match_id, fresh)
            while len(self._tables) > self.capacity:  # an evicted table is refolded on next use
                self._tables.popitem(last=False)
            return table

    def adopt(self, recorder: Recorder) -> None:
        """Cache the table of a match this process has just created, with the recorder that
        created it (:meth:`Table.adopt`): a new match is used at once, by its seats."""
        fresh = Table(self.store, self.pools, recorder.match_id)
        fresh.adopt(recorder)
        with self._lock:
            self._tables[recorder.match_id] = fresh
            self._tables.move_to_end(recorder.match_id)
            while len(self._tables) > self.capacity:
                self._tables.popitem(last=False)

    def forget(self, match_id: str) -> None:
        with self._lock:
            self._tables.pop(match_id, None)
