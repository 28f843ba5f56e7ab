"""What a match file of schema ≤ 2 recorded, so it keeps verifying (issue 12, point 7).

Before schema 3 the engine changed state without an event in several places (equipping,
symbiosis copies, effects ending, turns ending, counted events, a judge's operations), and
three outcome types had fewer fields.  Such a file is verified by re-deriving it and comparing
only what it could have recorded: the outcome types of schema 2, on the fields of schema 2.
:data:`SCHEMA2_FIELDS` is that record, frozen; it never changes.
"""

from __future__ import annotations

import msgspec

from ledger.events import Event

#: The outcome and decision types of schema 2, each with the fields it had (frozen record).
SCHEMA2_FIELDS: dict[str, tuple[str, ...]] = {
    name: tuple(fields.split()) for name, fields in {
        "MatchOpened": "match_id ruleset seats game format tournament round table game_number "
                       "previous_loser engine_version schema_version",
        "PlayDeclared": "seat card realm targets",
        "AttackDeclared": "seat realm",
        "DrawDeclared": "seat",
        "ActivationDeclared": "seat card ability targets",
        "HarvestDeclared": "seat cards",
        "Passed": "seat auto",
        "Answered": "seat kind pick auto",
        "ManualResolved": "seat card ops",
        "CoinFlipped": "winner",
        "DeckShuffled": "seat order",
        "FirstPlayerChosen": "seat chosen_by",
        "RealmSideChosen": "seat side",
        "Mulliganed": "seat cards",
        "RoundStarted": "round first",
        "RealmOpened": "realm",
        "ResourcesChanged": "seat reason energy actions free_attacks faith",
        "CardMoved": "card name owner from_zone to_zone reason from_realm to_realm controller",
        "CardPlayed": "seat card name realm energy_paid action_spent",
        "TokenCreated": "seat card name realm",
        "TriggerResolved": "card name ability controller detail",
        "CounterChanged": "card counter delta total",
        "CardTapped": "card tapped",
        "ControlChanged": "card controller",
        "EffectApplied": "card effect amount duration",
        "BattleStarted": "realm attacker defender free_attack",
        "BattleResolved": "realm attacker attacker_power defender_power result",
        "StoneSeized": "realm seat from_side",
        "SeizePrevented": "realm card",
        "RealmBanished": "realm",
        "RoundEnded": "round",
        "MatchEnded": "winner reason stones",
        "TakenBack": "to_seq by reason",
        "ManualEffect": "by ops note card",
        "JudgeNote": "judge text",
        "Conceded": "seat reason",
    }.items()
}

#: Outcomes of schema 2 the engine emitted only for a judge's or a seat's manual operation
#: since schema 3 (before, the operation changed the state silently).
_SILENT_BEFORE = frozenset({"manual"})


def legacy_outcomes(outcomes: list[Event]) -> list[Event]:
    """The engine's outcomes as a schema-2 file would have recorded them."""
    return [e for e in outcomes if type(e).__name__ in SCHEMA2_FIELDS and not _was_silent(e)]


def _was_silent(event: Event) -> bool:
    """A manual operation's outcome that schema 2 applied without an event: a resource set by
    hand, a card moved by hand within The World.  (A tap or a change of control set by a
    seat's manual answer was silent too, but carries no reason to tell it from the rules'
    own; no file of schema 2 we know of has one.)"""
    name = type(event).__name__
    moved_within = getattr(event, "from_zone", None) == getattr(event, "to_zone", False)
    if name == "ResourcesChanged" or (name == "CardMoved" and moved_within):
        return getattr(event, "reason", "") in _SILENT_BEFORE
    return False


def legacy_equal(mine: Event, theirs: Event) -> bool:
    """Equal on the fields a schema-2 file recorded."""
    name = type(mine).__name__
    if name != type(theirs).__name__:
        return False
    fields = [f for f in SCHEMA2_FIELDS.get(name, ()) if f != "detail"]  # presentation
    a, b = msgspec.to_builtins(mine), msgspec.to_builtins(theirs)
    return all(_same(a.get(f), b.get(f)) for f in fields)


def _same(x: object, y: object) -> bool:
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return float(x) == float(y)
    return x == y
