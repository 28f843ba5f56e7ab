"""Schema evolution: upcasters rewrite an old raw event (a dict) into its next version.

New fields get defaults and need no upcaster; a breaking change bumps the event type's
version in ``ledger.events.SCHEMA`` and registers one function here per step
(``v`` → ``v + 1``).  Decoding an old line applies the chain of steps, then validates.

A step that only appends fields names them (``adds``), so the old version's fields are known
(:func:`fields_of`) and an old line is held to the canonical rule too: its keys, in order, are
exactly its version's fields.  (``MatchOpened`` v1 is older than this program -- it wrote v2
from its first version -- and its shape was never fixed: only its envelope keys are checked.)
"""

from __future__ import annotations

from collections.abc import Callable

RawEvent = dict
Upcaster = Callable[[RawEvent], RawEvent]

_REGISTRY: dict[tuple[str, int], Upcaster] = {}
_ADDS: dict[tuple[str, int], tuple[str, ...]] = {}  # (type, v) -> fields step v -> v + 1 appends


def upcaster(event_type: str, from_version: int,
             adds: tuple[str, ...] | None = None) -> Callable[[Upcaster], Upcaster]:
    """Register ``fn`` as the step from ``from_version`` to ``from_version + 1``; ``adds``: the
    fields it appends, when that is all it does (else the old version's fields are unknown)."""

    def register(fn: Upcaster) -> Upcaster:
        key = (event_type, from_version)
        if key in _REGISTRY:
            raise ValueError(f"an upcaster for {event_type} v{from_version} is already registered")
        _REGISTRY[key] = fn
        if adds is not None:
            _ADDS[key] = adds
        return fn

    return register


def fields_of(event_type: str, version: int, target: int,
              current: tuple[str, ...]) -> tuple[str, ...] | None:
    """The fields of ``event_type`` at ``version``, in order, from its ``current`` fields at
    ``target`` (the steps walked back); ``None`` past a step that does more than add fields."""
    fields = current
    for step in range(target - 1, version - 1, -1):
        added = _ADDS.get((event_type, step))
        if added is None:
            return None
        fields = tuple(name for name in fields if name not in added)
    return fields


def upcast(event_type: str, version: int, target: int, raw: RawEvent) -> RawEvent:
    """Apply the registered steps from ``version`` up to ``target``."""
    if version > target:
        raise LookupError(f"schema v{version} is newer than this program's v{target}")
    while version < target:
        step = _REGISTRY.get((event_type, version))
        if step is None:
            raise LookupError(f"no upcaster from {event_type} v{version}")
        raw = step(dict(raw))
        version += 1
    return raw


@upcaster("MatchOpened", 1)
def _match_opened_v1(raw: RawEvent) -> RawEvent:
    """v1 named the ruleset ``rules`` and keyed the seats by letter: ``players: {"A": {...}}``.

    v2 has ``ruleset``, a ``seats`` list with the seat letter inside, and ``game``.
    """
    raw["ruleset"] = raw.pop("rules")
    players = raw.pop("players")
    raw["seats"] = [dict(info, seat=seat) for seat, info in sorted(players.items())]
    raw.setdefault("game", "wotf")
    return raw


def _adds_defaults(event_type: str, defaults: RawEvent, from_version: int = 1) -> None:
    """v1 → v2 of an event type that only gained fields: the v1 line meant their defaults."""

    def step(raw: RawEvent) -> RawEvent:
        for key, value in defaults.items():
            raw.setdefault(key, value)
        return raw

    upcaster(event_type, from_version, adds=tuple(defaults))(step)


_adds_defaults("CardMoved", {"face_down": False, "keep_effects": False})
_adds_defaults("TokenCreated", {"blank": False, "definition": None})
_adds_defaults("EffectApplied", {"source": ""})
_adds_defaults("MatchOpened", {"rules_revision": 0, "cards": [], "cards_digest": "",
                               "upgraded_from": ""}, from_version=2)
