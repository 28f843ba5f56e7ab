"""Verify a match file, in levels (DESIGN.md section 4; issue 12, point 6).

1. **intact** (:func:`ledger.integrity.check_file`): every line is byte-identical to the
   canonical encoding of its event, hashes and chains; a torn or cut final batch is reported,
   not "OK"; a file from a newer program is reported as such, distinct from corruption.
2. **re-derived**: the engine at the file's recorded ruleset and rules revision, with the
   cards the file records (schema 3; older files: the pool given), re-derives every outcome and
   accepts every decision (:class:`~replay.replayer.Replay`).
3. **against current** (optional): which recorded cards differ from today's pool (card, field,
   old → new), and whether today's engine -- today's revision and today's cards -- would
   re-derive the match unchanged, or where it would diverge.

Verifying never modifies a file.  :func:`verify_file` checks a file (and says whether a
writer holds a torn one); :func:`verify_lines` checks a match's lines from any store
(:meth:`ledger.store.Store.export_lines`: byte for byte as stored), and
:func:`verify_stored` a match of a store by them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ledger.errors import LedgerError
from ledger.events import Event, MatchOpened
from ledger.integrity import NEWER, FileCheck, check_bytes, check_file
from ledger.store import SUFFIX, Store, misnamed
from replay.errors import NewerRevisionError, ReplayError
from replay.game import Game
from replay.games import game_of
from replay.replayer import NO_SNAPSHOTS, Divergence, Replay

OK, FAIL, NEWER_PROGRAM = "OK", "FAIL", "NEWER"


@dataclass
class Report:
    """What verifying one file found; ``lines`` are the ``--against-current`` findings."""

    path: str
    status: str  #: OK, FAIL or NEWER
    message: str
    lines: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == OK


def verify_file(path: str | os.PathLike, pool: Any = None, against_current: bool = False,
                match_id: str | None = None, shown: str | None = None) -> Report:
    """Verify one match file at every level (and, if asked, against today's pool and engine).
    ``match_id``: the match the file must be -- a store directory's file is named
    ``<match_id>.jsonl`` (a file given by itself may be named anything).  ``shown``: how the
    report and its messages name the file (default: ``path``)."""
    name = shown if shown is not None else str(path)
    return verify_check(check_file(path, name), name, os.path.basename(os.fspath(path)), pool,
                        against_current, match_id)


def verify_lines(data: bytes, name: str, pool: Any = None, against_current: bool = False,
                 where: str | None = None, match_id: str | None = None) -> Report:
    """Verify a match's lines (``name``: how messages name them, e.g. ``<match>.jsonl``;
    ``where``: the report's path, default ``name``; ``match_id``: the match they must be)
    at every level."""
    return verify_check(check_bytes(data, name), where or name, name, pool, against_current,
                        match_id)


def verify_stored(store: Store, match_id: str, against_current: bool = False,
                  where: str | None = None) -> Report:
    """Verify a match of any store by its lines as stored (:meth:`Store.export_lines`), at
    every level; a store that will not give them -- damage it finds itself, as a line stored
    past a PostgreSQL match's head -- is a failure with its message, not the end of a run."""
    name = f"{match_id}{SUFFIX}"
    try:
        data = store.export_lines(match_id)
    except LedgerError as exc:
        return Report(where or name, FAIL, str(exc))
    return verify_lines(data, name, None, against_current, where, match_id)


def verify_check(check: FileCheck, path: str, name: str, pool: Any = None,
                 against_current: bool = False, match_id: str | None = None) -> Report:
    """Verify at every level, from the intact check of a match's lines (``match_id``: the
    match they must be, else a misnamed file: a failure)."""
    if check.status == NEWER:
        return Report(str(path), NEWER_PROGRAM, check.message)
    if not check.ok:
        return Report(str(path), FAIL, check.message)
    events = [s.event for s in check.events]
    if match_id is not None and isinstance(events[0], MatchOpened) and \
            events[0].match_id != match_id:
        return Report(str(path), FAIL, misnamed(check.path, events[0]))
    try:
        if pool is None and events and isinstance(events[0], MatchOpened):
            pool = game_of(events[0]).default_cards()
        replay = Replay(events, pool, NO_SNAPSHOTS)  # verified, never seeked
    except NewerRevisionError as exc:
        return Report(str(path), NEWER_PROGRAM, f"{name}: {exc}")
    except (LedgerError, ReplayError) as exc:
        text = str(exc)
        opened = events[0] if events and isinstance(events[0], MatchOpened) else None
        prefix = opened.match_id if opened else name
        return Report(str(path), FAIL, text if text.startswith(prefix) else f"{prefix}: {text}")
    s = replay.engine.state
    replay.engine.close()  # freed now, not by the garbage collector (a verify of many files)
    result = ("in progress" if not s.over else
              f"{s.winner} wins ({s.reason})" if s.winner else f"draw ({s.reason})")
    opened = replay.opened
    report = Report(str(path), OK, f"{replay.match_id}: {len(replay)} events, {result} — intact, "
                    f"re-derived at rules {opened.ruleset} revision "
                    f"{replay.game.effective_revision(opened.rules_revision)}, "
                    f"schema {opened.schema_version}")
    if against_current:
        report.lines = against_today(events, pool)
    return report


def against_today(events: list[Event], pool: Any) -> list[str]:
    """How today's pool and engine differ from what the match recorded (one line each)."""
    opened = events[0]
    assert isinstance(opened, MatchOpened)
    game = game_of(opened)
    current = game.rules_revision
    lines: list[str] = []
    if opened.cards:
        lines += card_differences(opened.cards, pool, game)
    else:
        lines.append(f"schema {opened.schema_version}: the file records no cards; its cards "
                     f"are the pool's")
    today = _as_today(opened, pool, game)
    try:
        # Compared as the file records them: today's engine may record bookkeeping that the
        # file's revision held without recording it (Game.as_recorded).
        Replay([today, *events[1:]], pool, NO_SNAPSHOTS, recorded=opened)
    except (LedgerError, ReplayError) as exc:
        seq = exc.seq if isinstance(exc, Divergence) else "?"
        detail = str(exc).split(": ", 1)[-1]
        lines.append(f"today's engine (revision {current}, today's cards) would diverge "
                     f"at seq {seq}: {detail}")
    else:
        lines.append(f"today's engine (revision {current}, today's cards) re-derives "
                     f"it unchanged")
    return lines


def card_differences(recorded: list[dict[str, Any]], pool: Any, game: Game) -> list[str]:
    """``card 'X': field old → new`` for every recorded card that today's pool defines
    otherwise (or no longer defines)."""
    out: list[str] = []
    for old in recorded:
        card = old.get("name", "?")
        new = game.definition(pool, card)
        if new is None:
            out.append(f"card {card!r}: no longer in today's pool")
            continue
        for key in sorted(set(old) | set(new), key=_field_order(old, new)):
            if old.get(key) != new.get(key):
                out.append(f"card {card!r}: {key} {_show(old.get(key))} → {_show(new.get(key))}")
    return out


def _field_order(old: dict[str, Any], new: dict[str, Any]) -> Callable[[str], int]:
    order = {k: i for i, k in enumerate([*old, *(k for k in new if k not in old)])}
    return order.__getitem__


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 80 else text[:77] + "…"


def _as_today(opened: MatchOpened, pool: Any, game: Game) -> MatchOpened:
    """The match's opening as if recorded today: today's revision, today's card definitions."""
    if not opened.cards:
        return msgspec.structs.replace(opened, rules_revision=game.rules_revision)
    found = (game.definition(pool, d.get("name", "")) for d in opened.cards)
    cards = [d for d in found if d is not None]
    return msgspec.structs.replace(opened, rules_revision=game.rules_revision, cards=cards,
                                   cards_digest=game.definitions_digest(cards))
