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

Verifying never modifies a file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ledger.errors import LedgerError
from ledger.events import Event, MatchOpened
from ledger.integrity import NEWER, check_file
from replay.wotf.cards import CardDB, definition, definitions_digest
from replay.errors import NewerRevisionError, ReplayError
from replay.replayer import Divergence, Replay
from replay.wotf.revisions import RULES_REVISION, effective

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


def verify_file(path: str | os.PathLike, pool: CardDB, against_current: bool = False) -> Report:
    """Verify one match file at every level (and, if asked, against today's pool and engine)."""
    name = os.path.basename(os.fspath(path))
    check = check_file(path)
    if check.status == NEWER:
        return Report(str(path), NEWER_PROGRAM, check.message)
    if not check.ok:
        return Report(str(path), FAIL, check.message)
    events = [s.event for s in check.events]
    try:
        replay = Replay(events, pool)
    except NewerRevisionError as exc:
        return Report(str(path), NEWER_PROGRAM, f"{name}: {exc}")
    except (LedgerError, ReplayError) as exc:
        text = str(exc)
        opened = events[0] if events and isinstance(events[0], MatchOpened) else None
        prefix = opened.match_id if opened else name
        return Report(str(path), FAIL, text if text.startswith(prefix) else f"{prefix}: {text}")
    s = replay.engine.state
    result = ("in progress" if not s.over else
              f"{s.winner} wins ({s.reason})" if s.winner else f"draw ({s.reason})")
    opened = replay.opened
    report = Report(str(path), OK, f"{replay.match_id}: {len(replay)} events, {result} — intact, "
                    f"re-derived at rules {opened.ruleset} revision "
                    f"{effective(opened.rules_revision)}, schema {opened.schema_version}")
    if against_current:
        report.lines = against_today(events, pool)
    return report


def against_today(events: list[Event], pool: CardDB) -> list[str]:
    """How today's pool and engine differ from what the match recorded (one line each)."""
    opened = events[0]
    assert isinstance(opened, MatchOpened)
    lines: list[str] = []
    if opened.cards:
        lines += card_differences(opened.cards, pool)
    else:
        lines.append(f"schema {opened.schema_version}: the file records no cards; its cards "
                     f"are the pool's")
    today = _as_today(opened, pool)
    try:
        Replay([today, *events[1:]], pool)
    except (LedgerError, ReplayError) as exc:
        seq = exc.seq if isinstance(exc, Divergence) else "?"
        detail = str(exc).split(": ", 1)[-1]
        lines.append(f"today's engine (revision {RULES_REVISION}, today's cards) would diverge "
                     f"at seq {seq}: {detail}")
    else:
        lines.append(f"today's engine (revision {RULES_REVISION}, today's cards) re-derives "
                     f"it unchanged")
    return lines


def card_differences(recorded: list[dict[str, Any]], pool: CardDB) -> list[str]:
    """``card 'X': field old → new`` for every recorded card that today's pool defines
    otherwise (or no longer defines)."""
    out: list[str] = []
    for old in recorded:
        card = old.get("name", "?")
        if card not in pool:
            out.append(f"card {card!r}: no longer in today's pool")
            continue
        new = definition(pool[card])
        for key in sorted(set(old) | set(new), key=_field_order(old, new)):
            if old.get(key) != new.get(key):
                out.append(f"card {card!r}: {key} {_show(old.get(key))} → {_show(new.get(key))}")
    return out


def _field_order(old: dict[str, Any], new: dict[str, Any]):
    order = {k: i for i, k in enumerate([*old, *(k for k in new if k not in old)])}
    return order.__getitem__


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 80 else text[:77] + "…"


def _as_today(opened: MatchOpened, pool: CardDB) -> MatchOpened:
    """The match's opening as if recorded today: today's revision, today's card definitions."""
    if not opened.cards:
        return msgspec.structs.replace(opened, rules_revision=RULES_REVISION)
    names = [d.get("name") for d in opened.cards]
    cards = [definition(pool[n]) for n in names if n in pool]
    return msgspec.structs.replace(opened, rules_revision=RULES_REVISION, cards=cards,
                                   cards_digest=definitions_digest(cards))
