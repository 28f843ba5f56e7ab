"""The events of Wonders of The First: what its matches are made of, beyond the core ones.

Registered with the ledger (:mod:`ledger.registry`) under game ``wotf`` when this module is
imported.  Kinds (DESIGN.md section 2):

* **decisions** -- what a seat chose at a prompt (``PlayDeclared``, ``Answered`` ...);
* **chance** -- what randomness produced (``CoinFlipped``, ``DeckShuffled``, ``DeckOrdered``);
* **outcomes** -- what the rules derived (``CardMoved``, ``BattleResolved`` ...);
* **administration** -- a judge's ruling as primitive operations (``ManualEffect``).

Card instances are named by stable ids that name nothing: ``A1`` … ``A50`` for seat A's deck
in the order of its recorded setup shuffle (``DeckOrdered``; files of schema ≤ 2 numbered them in
deck-list order), ``A-T1`` … for its archive, ``A-t1`` … for tokens made in play; events carry
the card *name* beside the id so a log reads on its own.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ledger import registry
from ledger.events import (  # the core events, re-exported: a Wonders match holds them too
    Conceded,
    DeckEntry,
    Event,
    JudgeNote,
    MatchEnded,
    MatchOpened,
    Num,
    NumericEvent,
    Seat,
    SeatInfo,
    TakenBack,
    recorded_number,
)
from replay.wotf.trigger import Trigger

__all__ = [
    "CHANCE",
    "DECISIONS",
    "EVENTS",
    "STACK_EVENTS",
    "Conceded",
    "DeckEntry",
    "Event",
    "JudgeNote",
    "MatchEnded",
    "MatchOpened",
    "Num",
    "NumericEvent",
    "Pick",
    "Seat",
    "SeatInfo",
    "TakenBack",
    "Zone",
    "recorded_number",
]

Zone = Literal["deck", "hand", "world", "abyss", "banishment", "gone", "archive", "played"]
Pick = int | str | list[int | str] | None


# --------------------------------------------------------------------------------------
# Decisions
# --------------------------------------------------------------------------------------


class PlayDeclared(Event, frozen=True):
    """A seat plays a card from hand (rule 404.2)."""

    seat: Seat
    card: str
    realm: int | None = None
    targets: list[str] = []

class AttackDeclared(Event, frozen=True):
    """A seat attacks with all its Wonders in a realm (rule 404.3)."""

    seat: Seat
    realm: int

class DrawDeclared(Event, frozen=True):
    """A seat spends an action to draw (rule 404.1)."""

    seat: Seat

class ActivationDeclared(Event, frozen=True):
    """A seat activates a card's ability (rule 404.4)."""

    seat: Seat
    card: str
    ability: int = 0
    targets: list[str] = []

class HarvestDeclared(Event, frozen=True):
    """A seat harvests any number of cards at once (Harvest, rule 404.4)."""

    seat: Seat
    cards: list[str]

class Passed(Event, frozen=True):
    """A seat passes its turn (rule 404.5); ``auto`` when the engine passed for it."""

    seat: Seat
    auto: bool = False

class Answered(Event, frozen=True):
    """A seat's answer to a non-turn prompt (mulligan, order, target, may, stone, realm …)."""

    seat: Seat
    kind: str
    pick: Pick = None
    auto: bool = False  # taken by the engine: the prompt had exactly one legal option

class ManualResolved(Event, frozen=True):
    """A seat's answer to a ``manual`` prompt: what an unscripted card's text did, as
    primitive operations (DESIGN.md section 3, "Unscripted cards still record")."""

    seat: Seat
    card: str
    ops: list[ManualOp] = []

class CardStatsEntered(Event, frozen=True):
    """A seat entered the printed stats of one of its catalogue cards the pool has no rules
    data for (docs/rulings.md R34), the first time it saw it: ``stats`` holds ``cost``,
    ``power``, ``classes``, ``keywords`` and ``manual`` as printed on the physical card.  The
    fold adds them to the match's cards (``GameState.defined``), for every copy of ``name``.
    ``zone``: where ``card`` was (a seat's hand is hidden from the other seat: so is this
    event, until the card is public)."""

    seat: Seat
    card: str
    name: str
    zone: str
    stats: dict[str, Any] = {}

# --------------------------------------------------------------------------------------
# Chance
# --------------------------------------------------------------------------------------


class CoinFlipped(Event, frozen=True):
    """The coin flip of rule 401: ``winner`` chooses the first player."""

    winner: Seat

class DeckShuffled(Event, frozen=True):
    """A deck was shuffled; ``order`` is the full permutation, top card first."""

    seat: Seat
    order: list[str]

class DeckOrdered(Event, frozen=True):
    """402: a seat's deck shuffled for the match, top card first, as card *names* (schema 3).

    Card instance ids are drawn by this shuffle: the card at position k is ``<seat><k>``, so
    an id names nothing -- the public deck list and the ids of hidden cards can't be joined
    (DESIGN.md section 2).  Like every chance event it is hidden from the seats while the
    match is live.
    """

    seat: Seat
    cards: list[str]

# --------------------------------------------------------------------------------------
# Outcomes
# --------------------------------------------------------------------------------------


class FirstPlayerChosen(Event, frozen=True):
    seat: Seat
    chosen_by: Seat

class RealmSideChosen(Event, frozen=True):
    """Rule 401: the second player chooses whether realm 1 is on their left or right."""

    seat: Seat
    side: Literal["left", "right"]

class Mulliganed(Event, frozen=True):
    """Rule 402.1: ``cards`` went to the bottom of the deck in this order."""

    seat: Seat
    cards: list[str]

class RoundStarted(Event, frozen=True):
    round: int
    first: Seat

class RealmOpened(Event, frozen=True):
    realm: int

class ResourcesChanged(NumericEvent, frozen=True):
    """A seat's resources changed; the new totals (``None`` = unchanged) and why."""

    seat: Seat
    reason: str
    energy: Num | None = None
    actions: int | Num | None = None  # infinite from rules revision 7 (R26): "inf"
    free_attacks: int | Num | None = None
    faith: Num | None = None

class CardMoved(Event, frozen=True):
    """A card changed area or realm (rules 301.06, Move); ``reason`` says why."""

    card: str
    name: str
    owner: Seat
    from_zone: Zone
    to_zone: Zone
    reason: str
    from_realm: int | None = None
    to_realm: int | None = None
    controller: Seat | None = None
    face_down: bool = False  # in The World after the move, face down (Face Down)
    keep_effects: bool = False  # leaving The World it keeps its effects (Portal)

class CardPlayed(NumericEvent, frozen=True):
    """Rule 404.2: a card was played, its cost paid."""

    seat: Seat
    card: str
    name: str
    realm: int | None = None
    energy_paid: Num = 0
    action_spent: bool = True

class TokenCreated(Event, frozen=True):
    """A token came into being (203): a printed one leaves the archive; a stand-in is new.
    ``blank``: a copy of a card whose text is blank copies the blank text (Copy)."""

    seat: Seat
    card: str
    name: str
    realm: int
    blank: bool = False
    definition: dict[str, Any] | None = None  # a stand-in token: its definition (203)

class TriggerResolved(Event, frozen=True):
    """A triggered ability resolved (rule 501); ``ability`` names the keyword or ability."""

    card: str
    name: str
    ability: str
    controller: Seat
    detail: str = ""

class CounterChanged(Event, frozen=True):
    card: str
    counter: str
    delta: int
    total: int

class CardTapped(Event, frozen=True):
    card: str
    tapped: bool

class ControlChanged(Event, frozen=True):
    card: str
    controller: Seat

class EffectApplied(NumericEvent, frozen=True):
    """A continuous or "this round" effect began on a card (e.g. guardian's +2, stun)."""

    card: str
    effect: str
    amount: Num = 0
    duration: str = "round"
    source: str = ""  # the card (or seat, for control) the effect comes from

class EffectsEnded(Event, frozen=True):
    """A card's effects ended: its "this round" ones at round end (403.5), or ``all`` of
    them (a delayed return that happened)."""

    card: str
    until: Literal["round", "all"] = "round"

class Equipped(Event, frozen=True):
    """Equip: an equipment card attached to a Wonder."""

    card: str
    wonder: str

class Unequipped(Event, frozen=True):
    """An equipment card was left behind by its Wonder (it stays in The World)."""

    card: str

class AbilitiesCopied(Event, frozen=True):
    """Symbiosis: ``card`` copied keywords and abilities of ``source``, locked in on resolution."""

    card: str
    source: str
    keywords: list[str] = []
    abilities: list[str] = []

class EventCounted(Event, frozen=True):
    """A game event some rule counts (rule 511: "the third time …"; seizes, deaths, a
    once-per-game ability spent) reached ``total``."""

    key: str
    total: int

class BattleStarted(Event, frozen=True):
    realm: int
    attacker: Seat
    defender: Seat
    free_attack: bool = False

class BattleResolved(NumericEvent, frozen=True):
    """Rule 404.3.2 step 4: both power totals and the result."""

    realm: int
    attacker: Seat
    attacker_power: Num
    defender_power: Num
    result: Literal["attacker", "defender", "tie"]

class StoneSeized(Event, frozen=True):
    """Rule 404.3.2 step 5: a stone of ``realm`` moved from ``from_side`` to ``seat``."""

    realm: int
    seat: Seat
    from_side: Literal["center", "A", "B"]

class StonesSet(Event, frozen=True):
    """A judge's ruling set the stones of a realm (DESIGN.md section 2, admin operations)."""

    realm: int
    stones: list[Literal["center", "A", "B"]]

class SeizePrevented(Event, frozen=True):
    """Protector: a protector counter stopped the seizure (rule: Protector)."""

    realm: int
    card: str

class RealmBanished(Event, frozen=True):
    """A realm was banished with everything in it (Banishment; v1.3.2: it is now inactive)."""

    realm: int

class TurnsBegan(Event, frozen=True):
    """403.2: the round's turns begin with ``first``; pass counts start afresh."""

    first: Seat

class TurnEnded(Event, frozen=True):
    """A turn ended (403.2): ``next`` takes the next turn, or ``None`` when the round's turns
    are over (403.4, 404.5.1)."""

    seat: Seat
    next: Seat | None

class RoundEnded(Event, frozen=True):
    round: int

# --------------------------------------------------------------------------------------
# Outcomes: the stack (recorded from rules revision 6; see GameState.stack)
# --------------------------------------------------------------------------------------


class TriggersQueued(Event, frozen=True):
    """502: simultaneous triggered abilities, in the order the active player chose (or the
    order they triggered in, when they are all the same ability), wait to resolve: the batch
    goes on the stack, innermost, and each leaves it as it begins to resolve
    (``TriggerDequeued``).  A lone trigger resolves at once and is not queued."""

    triggers: list[Trigger]

class TriggerDequeued(Event, frozen=True):
    """The first trigger of the innermost batch of ``TriggersQueued`` -- ``source``'s
    ``ability`` -- begins to resolve: it leaves the batch, and an emptied batch leaves the
    stack (so a batch queued while it resolves sits above the batch it came from)."""

    source: str
    ability: str

class ResolutionStarted(Event, frozen=True):
    """``source``'s scripted ``ability`` begins to do its effects (501, 507): it is on the
    stack, innermost, until its ``ResolutionEnded`` (503 counts its repetitions there)."""

    source: str
    ability: str

class ResolutionEnded(Event, frozen=True):
    """``source``'s ``ability`` did its effects: it leaves the stack.  When nothing resolves
    any more, the loops stated meanwhile are over."""

    source: str
    ability: str

class TriggersDeferred(Event, frozen=True):
    """501 (rules revision 13): ``triggers`` were set off in the middle of the innermost
    resolving effect, by one of its operations (a death, an arrival, a move, a change of
    control …), in the order they triggered: they wait until that effect is finished
    (``EffectFinished``), then resolve as one batch in the active player's order (502)."""

    triggers: list[Trigger]

class EffectFinished(Event, frozen=True):
    """501 (rules revision 13): the innermost resolving effect -- ``source``'s ``ability`` --
    did its last operation; the triggers waiting for it (``TriggersDeferred``) now resolve,
    in the order of the ``order`` answer before this event when they differ (502), and what
    they set off no longer waits for it.  It leaves the stack at its ``ResolutionEnded``."""

    source: str
    ability: str

class LoopStated(Event, frozen=True):
    """503, a voluntary loop: the controller of ``source``'s ``ability`` stated that it
    repeats ``times`` more times (0: it ends now, "making a different choice")."""

    source: str
    ability: str
    times: int

class LoopRepeated(Event, frozen=True):
    """503: one of the stated repetitions of ``source``'s ``ability`` begins (one fewer left)."""

    source: str
    ability: str

class TargetingStarted(Event, frozen=True):
    """An effect of ``source``, controlled by ``controller``, chose targets, and abilities
    react to it ("whenever … would target"): they resolve before the effect goes on."""

    source: str
    controller: Seat

class EffectNullified(Event, frozen=True):
    """Nullify: an ability of ``card`` nullified the effect of ``source`` that is choosing
    targets (the innermost ``TargetingStarted``): it does nothing more."""

    source: str
    card: str

class TargetingEnded(Event, frozen=True):
    """The abilities reacting to ``source``'s targeting resolved; the effect goes on (or,
    nullified, stops)."""

    source: str

class FlightScheduled(Event, frozen=True):
    """v1.2 Flying: the attacking fliers ``cards`` may move at the end of the turn."""

    cards: list[str]

class FlightsCleared(Event, frozen=True):
    """v1.2 Flying: the scheduled fliers ``cards`` leave the stack -- at the end of the turn,
    when each may now fly, or at the start of a turn (fliers of a battle fought outside a
    turn, which don't fly)."""

    cards: list[str]

# --------------------------------------------------------------------------------------
# Administration (a judge's ruling as primitive operations)
# --------------------------------------------------------------------------------------


class ManualOp(msgspec.Struct, frozen=True):
    """One primitive operation of a manual effect: move a card, create a token, add counters,
    set a resource, set a power modifier for a duration, tap/untap, change control, seize or
    move a stone; reveal a card (to ``seat``, or to all), let ``seat`` look at a card, shuffle
    ``seat``'s deck (its order a ``DeckShuffled`` chance event).  A ``move`` to a deck goes to
    the bottom unless ``value`` is ``"top"``."""

    op: Literal["move", "counter", "resource", "tap", "control", "stone", "token", "power",
                "reveal", "look", "shuffle"]
    card: str | None = None
    seat: Seat | None = None
    to_zone: Zone | None = None
    realm: int | None = None
    counter: str | None = None
    resource: str | None = None
    value: float | str | None = None
    name: str | None = None  # token: the token's name (a printed token or a stand-in)
    duration: Literal["round", "ever"] | None = None  # power: how long the modifier lasts

class CardPutOnTop(Event, frozen=True):
    """A card just put into its owner's deck goes to the top of it, not the bottom (a manual
    ``move`` with ``value="top"``: "put it on top of its owner's deck")."""

    card: str
    owner: Seat


class ManualEffect(Event, frozen=True):
    """A ruling the engine cannot express, applied as given (DESIGN.md section 2)."""

    by: str
    ops: list[ManualOp]
    note: str = ""
    card: str | None = None


EVENTS: tuple[type[Event], ...] = (
    PlayDeclared,
    AttackDeclared,
    DrawDeclared,
    ActivationDeclared,
    HarvestDeclared,
    Passed,
    Answered,
    ManualResolved,
    CardStatsEntered,
    CoinFlipped,
    DeckShuffled,
    DeckOrdered,
    FirstPlayerChosen,
    RealmSideChosen,
    Mulliganed,
    RoundStarted,
    RealmOpened,
    ResourcesChanged,
    CardMoved,
    CardPlayed,
    TokenCreated,
    TriggerResolved,
    CounterChanged,
    CardTapped,
    ControlChanged,
    EffectApplied,
    EffectsEnded,
    Equipped,
    Unequipped,
    AbilitiesCopied,
    EventCounted,
    StonesSet,
    TurnsBegan,
    TurnEnded,
    BattleStarted,
    BattleResolved,
    StoneSeized,
    SeizePrevented,
    RealmBanished,
    RoundEnded,
    TriggersQueued,
    TriggerDequeued,
    ResolutionStarted,
    ResolutionEnded,
    LoopStated,
    LoopRepeated,
    TargetingStarted,
    EffectNullified,
    TargetingEnded,
    FlightScheduled,
    FlightsCleared,
    ManualEffect,
    CardPutOnTop,
    TriggersDeferred,
    EffectFinished,
)
#: The events that change only the stack (``GameState.stack``), recorded from revision 6.
STACK_EVENTS: tuple[type[Event], ...] = (
    TriggersQueued, TriggerDequeued, ResolutionStarted, ResolutionEnded, LoopStated,
    LoopRepeated, TargetingStarted, EffectNullified, TargetingEnded, FlightScheduled,
    FlightsCleared, TriggersDeferred, EffectFinished)
__all__ += [cls.__name__ for cls in EVENTS] + ["ManualOp", "Trigger"]

DECISIONS = frozenset(
    {"PlayDeclared", "AttackDeclared", "DrawDeclared", "ActivationDeclared", "HarvestDeclared",
     "Passed", "Answered", "ManualResolved", "CardStatsEntered"}
)
CHANCE = frozenset({"CoinFlipped", "DeckShuffled", "DeckOrdered"})

registry.register(
    "wotf", EVENTS,
    kinds={**{n: "decision" for n in DECISIONS}, **{n: "chance" for n in CHANCE},
           "ManualEffect": "admin"},
    # v2 of these added fields the fold needs (see ledger.upcast): a v1 line stays canonical as v1.
    schema={"CardMoved": 2,  # face_down, keep_effects
            "TokenCreated": 2,  # blank
            "EffectApplied": 2})  # source
