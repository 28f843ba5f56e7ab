"""Manual effects: a judge's ruling applied as explicit primitive operations (DESIGN.md 2).

Each :class:`~ledger.events.ManualOp` is applied as given; nothing is checked against the
rules, because the point of a manual effect is to record what the rules engine cannot express.
:func:`why_not_manual` only checks that every operation names things that exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.events import ManualEffect, ManualOp

if TYPE_CHECKING:
    from replay.engine import Engine

ZONES = ("hand", "deck", "abyss", "banishment", "world")
RESOURCES = ("energy", "actions", "faith", "free_attacks")


def why_not_manual(engine: "Engine", effect: ManualEffect) -> str | None:
    s = engine.state
    for n, op in enumerate(effect.ops, start=1):
        where = f"manual op {n} ({op.op})"
        if op.op in ("move", "counter", "tap", "control") and op.card not in s.cards:
            return f"{where}: no card {op.card!r}"
        if op.op == "move" and (op.to_zone not in ZONES or (op.to_zone == "world" and not op.realm)):
            return f"{where}: move needs to_zone in {ZONES} (and a realm for world)"
        if op.op in ("resource", "control", "stone") and op.seat not in ("A", "B", None):
            return f"{where}: bad seat {op.seat!r}"
        if op.op == "resource" and op.resource not in RESOURCES:
            return f"{where}: resource must be one of {RESOURCES}"
        if op.op == "stone" and not (op.realm and 1 <= op.realm <= 7):
            return f"{where}: stone needs a realm 1..7"
        if op.op == "counter" and not isinstance(op.value, (int, float)):
            return f"{where}: counter needs a numeric value (the change)"
    return None


def apply_manual(engine: "Engine", effect: ManualEffect) -> None:
    for op in effect.ops:
        _APPLY[op.op](engine, op)


def _move(engine: "Engine", op: ManualOp) -> None:
    c = engine.state.cards[op.card]
    if op.to_zone == "world" and c.zone == "world":
        c.realm = op.realm
        return
    engine.move(op.card, op.to_zone, "manual", realm=op.realm, controller=op.seat or c.owner)


def _counter(engine: "Engine", op: ManualOp) -> None:
    engine.add_counters(op.card, op.counter or "+1", int(op.value))


def _resource(engine: "Engine", op: ManualOp) -> None:
    setattr(engine.state.players[op.seat], op.resource, op.value)


def _tap(engine: "Engine", op: ManualOp) -> None:
    engine.state.cards[op.card].tapped = bool(op.value if op.value is not None else True)


def _control(engine: "Engine", op: ManualOp) -> None:
    engine.state.cards[op.card].controller = op.seat


def _stone(engine: "Engine", op: ManualOp) -> None:
    owner = op.seat or str(op.value or "center")
    engine.state.realms[op.realm - 1].stones = [owner]


_APPLY = {"move": _move, "counter": _counter, "resource": _resource, "tap": _tap,
          "control": _control, "stone": _stone}
