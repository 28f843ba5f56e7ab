"""Wonders of The First behind the recording API: request bodies of a seat's decisions and of
a judge's ruling, the pending prompt as a seat may see it (face-down cards as handles), and
what a seat may enter itself.

The web asks for these through :class:`replay.game.Game` (``decision``, ``prompt_view``,
``seat_decision``, ``ruling``); nothing here knows about HTTP.  Bodies are pydantic models,
strict (no coercion) and closed (unknown fields refused); a malformed body raises
``ValueError`` (pydantic's ``ValidationError``), which the web answers with a 400.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, Union

import msgspec
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from ledger.events import Conceded, Event
from replay.game import Refused
from replay.wotf.engine import Engine
from replay.wotf.entry import entry_form, known_classes
from replay.wotf.events import (
    ActivationDeclared,
    Answered,
    AttackDeclared,
    CardStatsEntered,
    DrawDeclared,
    HarvestDeclared,
    ManualEffect,
    ManualOp,
    ManualResolved,
    Passed,
    PlayDeclared,
)
from replay.wotf.labels import card_words, option_labels
from replay.wotf.manual import at_positions, why_not_seat_ops
from replay.wotf.state import GameState

Seat = Literal["A", "B"]
CardId = Annotated[str, Field(min_length=1, max_length=40)]
Text = Annotated[str, Field(max_length=2000)]
PICK_MAX = 200  # characters of a picked string (see PickItem)


class Body(BaseModel):
    """A request body: unknown fields refused, strict types (``"5"`` is not an integer)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Pass(Body):
    type: Literal["Passed"]


class Draw(Body):
    type: Literal["DrawDeclared"]


class Play(Body):
    type: Literal["PlayDeclared"]
    card: CardId
    realm: Annotated[int, Field(ge=1, le=7)] | None = None
    targets: Annotated[list[CardId], Field(max_length=20)] = []


class Attack(Body):
    type: Literal["AttackDeclared"]
    realm: Annotated[int, Field(ge=1, le=7)]


class Activate(Body):
    type: Literal["ActivationDeclared"]
    card: CardId
    ability: Annotated[int, Field(ge=0, le=20)] = 0
    targets: Annotated[list[CardId], Field(max_length=20)] = []


class Harvest(Body):
    type: Literal["HarvestDeclared"]
    cards: Annotated[list[CardId], Field(max_length=60)]


# A picked string may be a trigger in an order prompt, "<card id>:ab:<card name>#<ability id>"
# (an end-of-battle ability of "Stormcaller Adept" is 47 characters): 40 refused such answers.
PickItem = Union[Annotated[int, Field(ge=-1000, le=1000)],  # noqa: UP007 - a runtime alias
                 Annotated[str, Field(max_length=PICK_MAX)]]


class Answer(Body):
    type: Literal["Answered"]
    kind: Annotated[str, Field(max_length=20)]
    pick: PickItem | Annotated[list[PickItem], Field(max_length=100)] | None = None


class Concede(Body):
    type: Literal["Conceded"]
    reason: Text = ""


class ManualOpIn(Body):
    """One primitive operation (``ManualOp``); value types are checked here, the names it
    uses (cards, realms) by the rules side."""

    op: Literal["move", "counter", "resource", "tap", "control", "stone", "token", "power",
                "reveal", "look", "shuffle"]
    card: CardId | None = None
    seat: Seat | None = None
    to_zone: Literal["hand", "deck", "abyss", "banishment", "world"] | None = None
    realm: Annotated[int, Field(ge=1, le=7)] | None = None
    counter: Annotated[str, Field(max_length=40)] | None = None
    resource: Literal["energy", "actions", "faith", "free_attacks"] | None = None
    value: Annotated[float, Field(ge=-1000, le=1000)] | Annotated[str, Field(max_length=40)] | None = None
    name: Annotated[str, Field(max_length=120)] | None = None
    duration: Literal["round", "ever"] | None = None

    @model_validator(mode="after")
    def _value_fits_op(self) -> ManualOpIn:
        numeric = isinstance(self.value, (int, float))
        if self.op in ("resource", "control") and self.seat is None:
            raise ValueError(f"a {self.op} op needs a seat")
        if self.op in ("resource", "counter", "power") and not numeric:
            raise ValueError(f"a {self.op} op needs a numeric value")
        if self.op == "stone" and self.seat is None and self.value not in (None, "center", "A", "B"):
            raise ValueError("a stone op's value is center, A or B")
        return self


class ResolveManually(Body):
    """The answer to a ``manual`` prompt: what an unscripted card's text did, as operations."""

    type: Literal["ManualResolved"]
    card: CardId
    ops: Annotated[list[ManualOpIn], Field(max_length=50)] = []


class EnterStats(Body):
    """The answer to a ``stats`` prompt (ruling R34): the printed stats of the catalogue card
    it names, read from the physical card.  Ranges and lists: the prompt's ``entry``."""

    type: Literal["CardStatsEntered"]
    card: CardId
    cost: Annotated[int, Field(ge=0, le=30)]
    power: Annotated[int, Field(ge=0, le=99)] | Literal["*"] | None = None
    classes: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]],
                       Field(max_length=6)] = []
    keywords: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]],
                        Field(max_length=12)] = []
    manual: bool = True


Decision = Annotated[Pass | Draw | Play | Attack | Activate | Harvest | Answer | Concede
                     | ResolveManually | EnterStats, Field(discriminator="type")]
DECISION = TypeAdapter(Decision)
OPS = TypeAdapter(Annotated[list[ManualOpIn], Field(min_length=1, max_length=50)])


def decision(seat: str, body: Mapping[str, Any]) -> Event:
    """The ledger event for a decision body (JSON data), for the caller's seat."""
    return to_event(seat, DECISION.validate_json(json.dumps(body)))


def ruling(ops: list[Any], note: str, card: str | None) -> Event:
    """A judge's ruling: primitive operations (``ManualEffect``)."""
    checked = OPS.validate_json(json.dumps(ops))
    return ManualEffect("judge", [ManualOp(**op.model_dump()) for op in checked], note, card)


def to_event(seat: Any, decision: Any) -> Event:
    if isinstance(decision, Pass):
        return Passed(seat)
    if isinstance(decision, Draw):
        return DrawDeclared(seat)
    if isinstance(decision, Play):
        return PlayDeclared(seat, decision.card, decision.realm, list(decision.targets))
    if isinstance(decision, Attack):
        return AttackDeclared(seat, decision.realm)
    if isinstance(decision, Activate):
        return ActivationDeclared(seat, decision.card, decision.ability, list(decision.targets))
    if isinstance(decision, Harvest):
        return HarvestDeclared(seat, list(decision.cards))
    if isinstance(decision, Answer):
        return Answered(seat, decision.kind, decision.pick)
    if isinstance(decision, Concede):
        return Conceded(seat, decision.reason)
    if isinstance(decision, ResolveManually):
        return ManualResolved(seat, decision.card, [ManualOp(**op.model_dump()) for op in decision.ops])
    if isinstance(decision, EnterStats):  # name and zone: from the match (seat_decision)
        return CardStatsEntered(seat, decision.card, "", "", {
            "cost": decision.cost, "power": decision.power, "classes": list(decision.classes),
            "keywords": list(decision.keywords), "manual": decision.manual})
    raise TypeError(f"unknown decision {type(decision).__name__}")


# -- cards a seat may choose but not tell apart: face down (rule 510), in a deck (402) -----


def is_face_down(state: GameState, pick: Any) -> bool:
    card = state.cards.get(pick) if isinstance(pick, str) else None
    return card is not None and card.zone == "world" and card.face_down


def is_unseen(state: GameState, pick: Any) -> bool:
    """Whether a card offered to a seat must stand behind a handle: a face-down card (which
    card it is is hidden, rule 510) or a card in a deck.  A deck card's id is its place in
    the setup shuffle (``A13``: thirteenth from the top; :mod:`replay.wotf.instances`), so
    until a later shuffle the deck's order *is* its ids' order: a deck target offered by id
    ("put target Wonder with cost 1 from your deck") told the seat where each such card lies
    in its deck, which no one may know (402)."""
    return is_face_down(state, pick) or _is_deck_card(pick, state)


def _offered(engine: Engine) -> list[Any]:
    prompt = engine.prompt
    if prompt is None or prompt.kind in ("turn", "manual", "chance"):
        return []
    return list(prompt.choose.of if prompt.choose is not None else prompt.options)


def handles(engine: Engine, handle: Callable[[str], str]) -> dict[str, str]:
    """Handle -> card id, for every face-down or deck card the pending prompt offers."""
    return {handle(cid): cid for cid in _offered(engine) if is_unseen(engine.state, cid)}


def raw_ids(pick: Any, engine: Engine) -> bool:
    """Whether ``pick`` names a face-down or deck card by its id instead of by a handle."""
    picks = pick if isinstance(pick, list) else [pick]
    return any(is_unseen(engine.state, p) for p in picks if isinstance(p, str))


def unseen_label(engine: Engine, cid: str, players: Mapping[str, str] | None = None) -> str:
    """A handle's label: a face-down card by where it is; a deck card by its name and whose
    deck (the seat chooses among them by name: copies of a card read alike, in no order)."""
    card = engine.state.cards[cid]
    if card.zone == "deck":
        return f"{card.name} ({dict(players or {}).get(card.owner, card.owner)}'s deck)"
    return f"a face-down card in realm {card.realm}"


def arranged(offered: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Face-up picks as the engine lists them, then the handles (face-down and deck cards)
    sorted by the handle itself (an HMAC: where a handle stands says nothing about which
    card it is, nor where it lies in a deck)."""
    shown = [(pick, label) for pick, label in offered if label is None]
    down = sorted(((pick, label) for pick, label in offered if label is not None),
                  key=lambda item: str(item[0]))
    return shown + down


def revealed(pick: Any, known: dict[str, str]) -> Any:
    if isinstance(pick, list):
        return [known.get(p, p) if isinstance(p, str) else p for p in pick]
    return known.get(pick, pick) if isinstance(pick, str) else pick


def _is_deck_card(pick: Any, state: GameState) -> bool:
    card = state.cards.get(pick) if isinstance(pick, str) else None
    return card is not None and card.zone == "deck"


def offers_hidden_cards(engine: Engine) -> bool:
    """Whether the pending prompt's options name cards in a deck or face down: the engine's
    own words about them (a refusal listing the options) would show what the seat may not see."""
    return any(_is_deck_card(o, engine.state) or is_face_down(engine.state, o)
               for o in _offered(engine))


# -- the pending prompt as a perspective sees it ------------------------------------------------


def prompt_view(engine: Engine, view: str, handle: Callable[[str], str],
                players: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The pending prompt; its options only for the seat it addresses (or the omniscient
    view); a face-down card offered to a seat is shown as ``handle(id)``; ``players`` (seat ->
    player) names the seats in the options' labels (:mod:`replay.wotf.labels`)."""
    prompt = engine.prompt
    if prompt is None:
        return None
    out: dict[str, Any] = {"seat": prompt.seat, "kind": prompt.kind, "text": prompt.text,
                           "card": prompt.card, "yours": view == prompt.seat}
    if prompt.kind == "stats" and view not in (prompt.seat, "omniscient"):
        # R34: which card is being entered is the owner's to know while it is hidden.
        out.update(card=None, text=f"{prompt.seat} is entering a card's printed stats")
        return out
    if view not in (prompt.seat, "omniscient"):
        return out  # the other seat's options would show that seat's hand
    if prompt.kind == "stats":
        out["entry"] = entry_form(engine, prompt)
        return out
    names = {cid: c.name for cid, c in engine.state.cards.items()}
    if prompt.kind == "turn":
        out["options"] = turn_options(engine.legal_options(), engine.state)
    elif prompt.kind == "manual":
        out["options"] = [{"decision": {"type": "ManualResolved", "card": prompt.card, "ops": []},
                           "label": "It did nothing"}]
    else:
        _offer_picks(out, engine, view, handle, names, players)
    return out


def _offer_picks(out: dict[str, Any], engine: Engine, view: str, handle: Callable[[str], str],
                 names: dict[str, str], players: Mapping[str, str] | None = None) -> None:
    prompt = engine.prompt
    assert prompt is not None

    def shown(pick: Any) -> tuple[Any, str | None]:
        if view != "omniscient" and is_unseen(engine.state, pick):
            return handle(pick), unseen_label(engine, pick, players)
        return pick, None
    if prompt.choose is None:
        offered = arranged([shown(o) for o in prompt.options])
        words = option_labels([pick for pick, _ in offered], engine.state, view, players)
        out["options"] = [{"decision": {"type": "Answered", "kind": prompt.kind, "pick": pick},
                           "label": label or word} for (pick, label), word in
                          zip(offered, words, strict=True)]
        return
    c = prompt.choose
    offered = arranged([shown(cid) for cid in c.of])
    out["choose"] = {"of": [pick for pick, _ in offered], "min": c.min, "max": c.max,
                     "ordered": c.ordered, "multiset": c.multiset}
    out["labels"] = _pick_labels(offered, engine.state, view, names, players)
    out["answer"] = {"type": "Answered", "kind": prompt.kind}


def _pick_labels(offered: list[tuple[Any, str | None]], state: GameState, view: str,
                 names: dict[str, str], players: Mapping[str, str] | None) -> dict[Any, str]:
    """A pick-N prompt's labels: a card by its name, and, where two shown cards would read
    alike, by name and where (:func:`replay.wotf.labels.option_labels`: whose, the realm or
    zone, the board's marks, then "the first", "the second").  Handles keep their own words
    (deck copies read alike on purpose: their order is hidden)."""
    labels = {pick: label or _choice_label(pick, names) for pick, label in offered}
    seen = Counter(labels[pick] for pick, label in offered if label is None)
    alike = [pick for pick, label in offered
             if label is None and seen[labels[pick]] > 1 and pick in state.cards]
    labels.update(zip(alike, option_labels(alike, state, view, players), strict=True))
    return labels


def _choice_label(pick: Any, names: dict[str, str]) -> str:
    """A pick-N option by name: a card's name; an order prompt's trigger of one ability
    about another card (``card@subject``, rule 502, revision 8) as "Card, for Subject"."""
    if not isinstance(pick, str):
        return str(pick)
    if pick in names:
        return names[pick]
    source, _, subject = pick.partition("@")
    card = source.split(":", 1)[0]
    if subject and card in names and subject in names:
        return f"{names[card]}, for {names[subject]}"
    return pick


def _without_seat(event: Any) -> dict[str, Any]:
    data = msgspec.to_builtins(event)
    data.pop("seat", None)
    data.pop("auto", None)
    return data


def turn_options(options: list[Any], state: GameState) -> list[dict[str, Any]]:
    """A turn prompt's options, each its decision, its label and, when it acts with a card,
    ``subject``: that card's words (:func:`replay.wotf.labels.card_words`), distinct for two
    copies, so no two options read alike."""
    words = card_words([cid for o in options for cid in _cards_of(o)], state)
    out = []
    for option in options:
        shown: dict[str, Any] = {"decision": _without_seat(option), "label": turn_label(option, words)}
        card = getattr(option, "card", None)
        if card is not None:
            shown["subject"] = words.get(card, card)
        out.append(shown)
    return out


def _cards_of(option: Any) -> list[str]:
    card = getattr(option, "card", None)
    return [card] if card is not None else list(getattr(option, "cards", []))


def turn_label(option: Any, words: Mapping[str, str]) -> str:
    """An option in words; ``words``: card id -> the card's words (its name, or more)."""
    kind = type(option).__name__
    if kind == "Passed":
        return "Pass"
    if kind == "DrawDeclared":
        return "Draw a card"
    if kind == "PlayDeclared":
        where = f" into realm {option.realm}" if option.realm is not None else ""
        return f"Play {words.get(option.card, option.card)}{where}"
    if kind == "AttackDeclared":
        return f"Attack in realm {option.realm}"
    if kind == "ActivationDeclared":
        return f"Activate {words.get(option.card, option.card)} (ability {option.ability + 1})"
    if kind == "HarvestDeclared":
        return "Harvest " + ", ".join(words.get(cid, cid) for cid in option.cards)
    return kind


# -- a seat's decision before the engine sees it ------------------------------------------------


def seat_decision(engine: Engine, seat: str, event: Event,
                  handle: Callable[[str], str]) -> tuple[Event, bool]:
    """The decision as the engine takes it (face-down handles turned into ids), and whether
    a refusal must conceal the engine's words (its options are deck or face-down cards).
    Raises :class:`Refused`: a manual answer touching what is not the seat's (forbidden),
    or a face-down card named by its id (concealed, like any wrong answer)."""
    prompt = engine.prompt
    if isinstance(event, CardStatsEntered):
        return _entry(engine, seat, event), False
    if isinstance(event, ManualResolved) and prompt is not None and \
            (prompt.seat, prompt.kind) == (seat, "manual"):
        event = msgspec.structs.replace(event, ops=at_positions(engine.state, event.ops))
        why = why_not_seat_ops(engine.state, seat, event.ops)
        if why is not None:
            raise Refused(why, forbidden=True)
    conceal = prompt is not None and prompt.seat == seat and offers_hidden_cards(engine) \
        and isinstance(event, Answered)
    if not isinstance(event, Answered):
        return event, conceal
    known = handles(engine, handle)
    if not known:
        return event, conceal
    if raw_ids(event.pick, engine):
        raise Refused("", conceal=True)
    return msgspec.structs.replace(event, pick=revealed(event.pick, known)), conceal


def _entry(engine: Engine, seat: str, event: CardStatsEntered) -> CardStatsEntered:
    """A seat's stats entry as the engine takes it: the card's name and zone from the match,
    and its classes from the known list (the form's check, before the engine's)."""
    c = engine.state.cards.get(event.card)
    prompt = engine.prompt
    if c is None or prompt is None or (prompt.kind, prompt.seat, prompt.card) != \
            ("stats", seat, event.card):
        raise Refused(f"no stats entry of {event.card} is pending for seat {seat}; GET the "
                      f"prompt for what is asked")
    known = known_classes(engine.db)
    unknown = [cls for cls in event.stats.get("classes", []) if cls not in known]
    if unknown:
        raise Refused(f"{c.name}: unknown class {unknown[0]!r} (choose from the prompt's "
                      f"entry.classes)")
    return msgspec.structs.replace(event, name=c.name, zone=c.zone)
