"""The typed events of a match: what a stream of the ledger is made of.

Every event is a frozen, tagged ``msgspec.Struct`` with a past-tense name; ``Event`` is
one closed union of them all.  Events are of four kinds (DESIGN.md section 2):

* **decisions** -- what a seat chose at a prompt (``PlayDeclared``, ``Answered`` ...);
* **chance** -- what randomness produced (``CoinFlipped``, ``DeckShuffled``);
* **outcomes** -- what the rules derived (``CardMoved``, ``BattleResolved``, ``MatchEnded`` ...);
* **administration** -- corrections and notes (``TakenBack``, ``ManualEffect``, ``JudgeNote``,
  ``Conceded``).

``SCHEMA`` maps each event type to its current schema version; a breaking change bumps the
version and registers an upcaster in :mod:`ledger.upcast`.  Tags are never reused.

Card instances are named by stable ids that name nothing: ``A1`` … ``A50`` for seat A's deck
in the order of its recorded setup shuffle (``DeckOrdered``; files of schema ≤ 2 numbered them in
deck-list order), ``A-T1`` … for its archive, ``A-t1`` … for tokens made in play; events carry
the card *name* beside the id so a log reads on its own.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Union

import msgspec

Seat = Literal["A", "B"]
#: A number an event records: JSON has no infinity, so ±∞ (rule 1: stats and resources may be
#: infinite) is recorded as the string "inf" / "-inf"; ``float("inf")`` reads it back.
Num = Union[float, Literal["inf", "-inf"]]
Zone = Literal["deck", "hand", "world", "abyss", "banishment", "gone", "archive", "played"]
Pick = Union[int, str, list[Union[int, str]], None]


class _Event(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=False):
    """Base of every event: frozen, tagged by class name in the ``type`` field."""


class _NumericEvent(_Event, frozen=True):
    """An event with numbers that may be infinite: they are recorded as :data:`Num`."""

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if isinstance(value, float) and not math.isfinite(value):
                msgspec.structs.force_setattr(self, name, recorded_number(value))


def recorded_number(value: float) -> "Num":
    """``value`` as an event records it: ±∞ as "inf" / "-inf" (see :data:`Num`)."""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return 0.0 if math.isnan(value) else value


# --------------------------------------------------------------------------------------
# Match metadata
# --------------------------------------------------------------------------------------


class DeckEntry(msgspec.Struct, frozen=True):
    card: str
    count: int = 1


class SeatInfo(msgspec.Struct, frozen=True):
    seat: Seat
    player: str
    deck_name: str = ""
    deck: list[DeckEntry] = []
    archive: list[DeckEntry] = []


class MatchOpened(_Event, frozen=True):
    """Seq 0 of every stream: who plays what, under which rules (rules 303, 401)."""

    match_id: str
    ruleset: Literal["1.3.2", "1.2"]
    seats: list[SeatInfo]
    game: str = "wotf"
    format: str = "constructed"
    tournament: str | None = None
    round: int | None = None
    table: int | None = None
    game_number: int = 1
    previous_loser: Seat | None = None
    engine_version: str = ""
    schema_version: int = 3  # of the match file: 3 since events are fold-complete
    rules_revision: int = 0  # the engine's revision of what it derives (0: before revisions)
    # Schema 3: the canonical definition of every card either seat can use (decks and
    # archives) and the SHA-256 of their canonical JSON, so the file alone replays the match.
    cards: list[dict[str, Any]] = []
    cards_digest: str = ""
    upgraded_from: str = ""  # ``wonders upgrade``: the head hash of the file this copies


# --------------------------------------------------------------------------------------
# Decisions
# --------------------------------------------------------------------------------------


class PlayDeclared(_Event, frozen=True):
    """A seat plays a card from hand (rule 404.2)."""

    seat: Seat
    card: str
    realm: int | None = None
    targets: list[str] = []


class AttackDeclared(_Event, frozen=True):
    """A seat attacks with all its Wonders in a realm (rule 404.3)."""

    seat: Seat
    realm: int


class DrawDeclared(_Event, frozen=True):
    """A seat spends an action to draw (rule 404.1)."""

    seat: Seat


class ActivationDeclared(_Event, frozen=True):
    """A seat activates a card's ability (rule 404.4)."""

    seat: Seat
    card: str
    ability: int = 0
    targets: list[str] = []


class HarvestDeclared(_Event, frozen=True):
    """A seat harvests any number of cards at once (Harvest, rule 404.4)."""

    seat: Seat
    cards: list[str]


class Passed(_Event, frozen=True):
    """A seat passes its turn (rule 404.5); ``auto`` when the engine passed for it."""

    seat: Seat
    auto: bool = False


class Answered(_Event, frozen=True):
    """A seat's answer to a non-turn prompt (mulligan, order, target, may, stone, realm …)."""

    seat: Seat
    kind: str
    pick: Pick = None
    auto: bool = False  # taken by the engine: the prompt had exactly one legal option


# --------------------------------------------------------------------------------------
# Chance
# --------------------------------------------------------------------------------------


class CoinFlipped(_Event, frozen=True):
    """The coin flip of rule 401: ``winner`` chooses the first player."""

    winner: Seat


class DeckShuffled(_Event, frozen=True):
    """A deck was shuffled; ``order`` is the full permutation, top card first."""

    seat: Seat
    order: list[str]


class DeckOrdered(_Event, frozen=True):
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


class FirstPlayerChosen(_Event, frozen=True):
    seat: Seat
    chosen_by: Seat


class RealmSideChosen(_Event, frozen=True):
    """Rule 401: the second player chooses whether realm 1 is on their left or right."""

    seat: Seat
    side: Literal["left", "right"]


class Mulliganed(_Event, frozen=True):
    """Rule 402.1: ``cards`` went to the bottom of the deck in this order."""

    seat: Seat
    cards: list[str]


class RoundStarted(_Event, frozen=True):
    round: int
    first: Seat


class RealmOpened(_Event, frozen=True):
    realm: int


class ResourcesChanged(_NumericEvent, frozen=True):
    """A seat's resources changed; the new totals (``None`` = unchanged) and why."""

    seat: Seat
    reason: str
    energy: Num | None = None
    actions: int | None = None
    free_attacks: int | None = None
    faith: Num | None = None


class CardMoved(_Event, frozen=True):
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


class CardPlayed(_NumericEvent, frozen=True):
    """Rule 404.2: a card was played, its cost paid."""

    seat: Seat
    card: str
    name: str
    realm: int | None = None
    energy_paid: Num = 0
    action_spent: bool = True


class TokenCreated(_Event, frozen=True):
    """A token came into being (203): a printed one leaves the archive; a stand-in is new.
    ``blank``: a copy of a card whose text is blank copies the blank text (Copy)."""

    seat: Seat
    card: str
    name: str
    realm: int
    blank: bool = False
    definition: dict[str, Any] | None = None  # a stand-in token: its definition (203)


class TriggerResolved(_Event, frozen=True):
    """A triggered ability resolved (rule 501); ``ability`` names the keyword or ability."""

    card: str
    name: str
    ability: str
    controller: Seat
    detail: str = ""


class CounterChanged(_Event, frozen=True):
    card: str
    counter: str
    delta: int
    total: int


class CardTapped(_Event, frozen=True):
    card: str
    tapped: bool


class ControlChanged(_Event, frozen=True):
    card: str
    controller: Seat


class EffectApplied(_NumericEvent, frozen=True):
    """A continuous or "this round" effect began on a card (e.g. guardian's +2, stun)."""

    card: str
    effect: str
    amount: Num = 0
    duration: str = "round"
    source: str = ""  # the card (or seat, for control) the effect comes from


class EffectsEnded(_Event, frozen=True):
    """A card's effects ended: its "this round" ones at round end (403.5), or ``all`` of
    them (a delayed return that happened)."""

    card: str
    until: Literal["round", "all"] = "round"


class Equipped(_Event, frozen=True):
    """Equip: an equipment card attached to a Wonder."""

    card: str
    wonder: str


class Unequipped(_Event, frozen=True):
    """An equipment card was left behind by its Wonder (it stays in The World)."""

    card: str


class AbilitiesCopied(_Event, frozen=True):
    """Symbiosis: ``card`` copied keywords and abilities of ``source``, locked in on resolution."""

    card: str
    source: str
    keywords: list[str] = []
    abilities: list[str] = []


class EventCounted(_Event, frozen=True):
    """A game event some rule counts (rule 511: "the third time …"; seizes, deaths, a
    once-per-game ability spent) reached ``total``."""

    key: str
    total: int


class BattleStarted(_Event, frozen=True):
    realm: int
    attacker: Seat
    defender: Seat
    free_attack: bool = False


class BattleResolved(_NumericEvent, frozen=True):
    """Rule 404.3.2 step 4: both power totals and the result."""

    realm: int
    attacker: Seat
    attacker_power: Num
    defender_power: Num
    result: Literal["attacker", "defender", "tie"]


class StoneSeized(_Event, frozen=True):
    """Rule 404.3.2 step 5: a stone of ``realm`` moved from ``from_side`` to ``seat``."""

    realm: int
    seat: Seat
    from_side: Literal["center", "A", "B"]


class StonesSet(_Event, frozen=True):
    """A judge's ruling set the stones of a realm (DESIGN.md section 2, admin operations)."""

    realm: int
    stones: list[Literal["center", "A", "B"]]


class SeizePrevented(_Event, frozen=True):
    """Protector: a protector counter stopped the seizure (rule: Protector)."""

    realm: int
    card: str


class RealmBanished(_Event, frozen=True):
    """A realm was banished with everything in it (Banishment; v1.3.2: it is now inactive)."""

    realm: int


class TurnsBegan(_Event, frozen=True):
    """403.2: the round's turns begin with ``first``; pass counts start afresh."""

    first: Seat


class TurnEnded(_Event, frozen=True):
    """A turn ended (403.2): ``next`` takes the next turn, or ``None`` when the round's turns
    are over (403.4, 404.5.1)."""

    seat: Seat
    next: Seat | None


class RoundEnded(_Event, frozen=True):
    round: int


class MatchEnded(_Event, frozen=True):
    """Rule 405: who won and why; ``stones`` is the final stone count per seat."""

    winner: Seat | None
    reason: Literal["stones", "tiebreak", "draw", "deck_out", "concession", "game_loss"]
    stones: dict[str, int]


# --------------------------------------------------------------------------------------
# Administration
# --------------------------------------------------------------------------------------


class TakenBack(_Event, frozen=True):
    """A correction: from here on, the state is the state after event ``to_seq``."""

    to_seq: int
    by: str = "judge"
    reason: str = ""


class ManualOp(msgspec.Struct, frozen=True):
    """One primitive operation of a manual effect: move a card, create a token, add counters,
    set a resource, set a power modifier for a duration, tap/untap, change control, seize or
    move a stone."""

    op: Literal["move", "counter", "resource", "tap", "control", "stone", "token", "power"]
    card: str | None = None
    seat: Seat | None = None
    to_zone: Zone | None = None
    realm: int | None = None
    counter: str | None = None
    resource: str | None = None
    value: float | str | None = None
    name: str | None = None  # token: the token's name (a printed token or a stand-in)
    duration: Literal["round", "ever"] | None = None  # power: how long the modifier lasts


class ManualEffect(_Event, frozen=True):
    """A ruling the engine cannot express, applied as given (DESIGN.md section 2)."""

    by: str
    ops: list[ManualOp]
    note: str = ""
    card: str | None = None


class ManualResolved(_Event, frozen=True):
    """A seat's answer to a ``manual`` prompt: what an unscripted card's text did, as
    primitive operations (DESIGN.md section 3, "Unscripted cards still record")."""

    seat: Seat
    card: str
    ops: list[ManualOp] = []


class JudgeNote(_Event, frozen=True):
    judge: str
    text: str


class Conceded(_Event, frozen=True):
    seat: Seat
    reason: str = ""


Event = Union[
    MatchOpened,
    PlayDeclared,
    AttackDeclared,
    DrawDeclared,
    ActivationDeclared,
    HarvestDeclared,
    Passed,
    Answered,
    ManualResolved,
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
    MatchEnded,
    TakenBack,
    ManualEffect,
    JudgeNote,
    Conceded,
]

EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in Event.__args__}  # type: ignore[attr-defined]

DECISIONS = frozenset(
    {"PlayDeclared", "AttackDeclared", "DrawDeclared", "ActivationDeclared", "HarvestDeclared",
     "Passed", "Answered", "ManualResolved"}
)
CHANCE = frozenset({"CoinFlipped", "DeckShuffled", "DeckOrdered"})
ADMIN = frozenset({"TakenBack", "ManualEffect", "JudgeNote", "Conceded"})

#: Current schema version of each event type (1 unless a breaking change bumped it).
SCHEMA: dict[str, int] = {name: 1 for name in EVENT_TYPES}
SCHEMA["MatchOpened"] = 3  # v2 added ``game``; v3 ``rules_revision``
# v2 of these added fields the fold needs (see ledger.upcast): a v1 line stays canonical as v1.
SCHEMA["CardMoved"] = 2  # face_down, keep_effects
SCHEMA["TokenCreated"] = 2  # blank
SCHEMA["EffectApplied"] = 2  # source


def kind_of(event_type: str) -> str:
    """The kind of an event type: decision, chance, admin or outcome."""
    if event_type in DECISIONS:
        return "decision"
    if event_type in CHANCE:
        return "chance"
    if event_type in ADMIN:
        return "admin"
    return "outcome"
