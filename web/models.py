"""Request and response bodies of the recording API (pydantic models).

These models are the API's contract: views validate every request body with them, and the
OpenAPI document at ``/api/openapi.json`` is generated from their JSON schemas.  Decisions
carry no seat: the seat is the one the caller's token holds.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Seat = Literal["A", "B"]
Perspective = Literal["omniscient", "A", "B", "spectator"]
# pydantic's (Rust) regex: ``$`` is the end of the text, so "m1\n" does not match.
MatchId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")]
CardName = Annotated[str, Field(min_length=1, max_length=120)]
CardId = Annotated[str, Field(min_length=1, max_length=40)]
Copies = Annotated[int, Field(ge=1, le=50)]
Text = Annotated[str, Field(max_length=2000)]


class Body(BaseModel):
    """A request body: unknown fields refused, and strict types -- no coercion: ``"5"`` is not
    an integer, ``true`` is not a number (nor ``1`` a bool), a string is not a list."""

    model_config = ConfigDict(extra="forbid", strict=True)


# -- organizer ---------------------------------------------------------------------------------


class SeatEntry(Body):
    """A player and their deck: card name → copies (rule 303), or a fixture deck by name."""

    player: Annotated[str, Field(min_length=1, max_length=120)]
    deck_name: Annotated[str, Field(max_length=120)] = ""
    deck: dict[CardName, Copies] | None = Field(None, max_length=200)
    archive: dict[CardName, Copies] = Field({}, max_length=50)
    preset: Annotated[str, Field(max_length=120)] | None = Field(
        None, description="name of a deck the game ships (Wonders: a file in fixtures/decks), "
                          "instead of `deck` (and "
                          "`archive`: a preset brings its own archive; sending both is a 400)")

    @model_validator(mode="after")
    def _archive_needs_deck(self) -> SeatEntry:
        if self.preset is not None and self.archive:
            raise ValueError("'archive' goes with 'deck', not with 'preset' (a preset deck "
                             "brings its own archive); send 'deck' and 'archive' instead")
        return self


class CreateMatch(Body):
    match_id: MatchId | None = Field(None, description="default: a fresh random id")
    game: Annotated[str, Field(min_length=1, max_length=40)] = Field(
        "wotf", description="the game the match is played in (`wotf`, `sow`)")
    ruleset: Annotated[str, Field(max_length=40)] | None = Field(
        None, description="one of the game's published rules texts (default: its newest; "
                          "Wonders: 1.3.2 or 1.2)")
    format: Literal["constructed", "prerelease"] = "constructed"
    seats: Annotated[list[SeatEntry], Field(min_length=2, max_length=2,
                                            description="seat A, then seat B")]
    tournament: Annotated[str, Field(max_length=200)] | None = None
    round: Annotated[int, Field(ge=1, le=1000)] | None = None
    table: Annotated[int, Field(ge=1, le=100_000)] | None = None
    game_number: Annotated[int, Field(ge=1, le=9)] = 1
    previous_loser: Seat | None = None


class Tokens(BaseModel):
    A: str
    B: str
    judge: str


class MatchCreated(BaseModel):
    match_id: str
    tokens: Tokens
    seq: int = Field(description="the number of events so far: the next expected_seq")


class MatchSummary(BaseModel):
    match_id: str
    game: str = Field("wotf", description="the game the match is played in")
    players: dict[str, str]
    ruleset: str
    tournament: str | None = None
    round: int | None = None
    table: int | None = None
    length: int
    ended: bool
    winner: str | None = None
    reason: str | None = None
    divergence: DivergenceOut | None = Field(
        None, description="one match only (GET /api/matches/{id}): set when today's engine "
                          "disagrees with the record; never filled in the list")


MATCHES_LIMIT = 100  # matches per page of GET /api/matches by default
MATCHES_MAX_LIMIT = 1000  # the largest page a client may ask for (?limit=)


class MatchList(BaseModel):
    """One page of the matches that pass the filters, by match id: at most ``limit`` of them
    after the ``after`` cursor; ask ``next`` while ``has_more`` is true."""

    matches: list[MatchSummary]
    problems: list[str] = Field([], description="matches of this page's range of ids that "
                                                "can't be read (damaged data), one line each: "
                                                "the match, where and the kind of damage; the "
                                                "others are listed")
    has_more: bool = Field(False, description="more matches pass the filters after this page")
    next: str | None = Field(None, description="the next page's address (the same filters and "
                                               "limit, `after` the last match of this page), "
                                               "while `has_more`")
    limit: int = Field(MATCHES_LIMIT, description=f"the page size used (`?limit=`, default "
                                                  f"{MATCHES_LIMIT}, at most "
                                                  f"{MATCHES_MAX_LIMIT})")


# -- seat ----------------------------------------------------------------------------------------


class ChooseOut(BaseModel):
    of: list[str]
    min: int
    max: int
    ordered: bool = False
    multiset: bool = False


class OptionOut(BaseModel):
    decision: dict[str, Any] = Field(description="send this as `decision` to take the option")
    label: str
    subject: str | None = Field(None, description="a turn option that acts with a card: that "
                                "card's words, distinct for two copies of one card")


class PromptOut(BaseModel):
    """The pending prompt; ``options``/``choose`` only for the seat it is addressed to."""

    seat: str
    kind: str
    text: str = ""
    card: str | None = None
    yours: bool = False
    options: list[OptionOut] = []
    choose: ChooseOut | None = None
    labels: dict[str, str] = Field({}, description="card id → card name for `choose.of`")
    answer: dict[str, Any] | None = Field(
        None, description="a `choose` prompt: the decision to send, with `pick` added (the "
                          "chosen entries of `choose.of`)")
    entry: dict[str, Any] | None = Field(
        None, description="a `stats` prompt (Wonders ruling R34), for its seat: the catalogue "
                          "card whose printed stats to enter (`card`, `name`, `type`, "
                          "`orbital`, `set`, `number`), the ranges (`cost`, `power`: min, max, "
                          "`star`, `required`), the known `classes` (at most `max_classes`), "
                          "`keywords` and the orbitals for `link:`; send `answer` with `cost`, "
                          "`power`, `classes`, `keywords` and `manual` (its text resolves by "
                          "hand) added")


class DivergenceOut(BaseModel):
    """Where today's engine disagrees with the recorded match.  The match is still shown as
    recorded (every state is a fold of the recorded events) and can be downloaded, but not
    continued: writes answer 409 ``diverged``."""

    seq: int = Field(description="the first event today's engine derives differently")
    message: str = Field(description="what differs (recorded vs derived); while the match is "
                                     "live, only the omniscient view reads the details")


DIVERGENCE = Field(None, description="set when today's engine disagrees with the record; "
                                     "null when it re-derives every recorded event")


class PendingOut(BaseModel):
    match_id: str
    length: int = Field(description="events recorded so far: the next expected_seq")
    prompt: PromptOut | None = Field(description="null once the match is over, or when today's "
                                                 "engine disagrees with the record (divergence)")
    divergence: DivergenceOut | None = DIVERGENCE


class StateOut(BaseModel):
    match_id: str
    perspective: Perspective
    seq: int = Field(description="the last event shown")
    length: int = Field(description="events recorded so far: the next expected_seq")
    live: bool
    board: dict[str, Any] = Field(description="the state at seq, folded from the recorded events")
    prompt: PromptOut | None = None
    divergence: DivergenceOut | None = DIVERGENCE


class EventOut(BaseModel):
    seq: int
    at: str
    batch: int
    text: str = Field(description="the event in plain words, as this perspective may read it")
    event: dict[str, Any]
    undone_by: int | None = Field(None, description="the seq of the take-back that undid this "
                                                    "event (it stays in the record), if one did")


EVENTS_LIMIT = 500  # events per page by default
EVENTS_MAX_LIMIT = 2000  # the largest page a client may ask for (?limit=)


class EventsOut(BaseModel):
    """One page of events: at most ``limit`` of them from ``from``; ask again with
    ``from=next_seq`` while ``has_more`` is true."""

    match_id: str
    perspective: Perspective
    events: list[EventOut]
    next_seq: int = Field(description="the seq to ask for next (`?from=`): after the last event "
                                      "of this page; for the public, never past what it may "
                                      "see of a live match")
    has_more: bool = Field(False, description="more events visible to you follow `next_seq` "
                                              "now (this page was cut at `limit`)")
    limit: int = Field(EVENTS_LIMIT, description=f"the page size used (`?limit=`, default "
                                                  f"{EVENTS_LIMIT}, at most {EVENTS_MAX_LIMIT})")
    divergence: DivergenceOut | None = DIVERGENCE


class Concede(Body):
    """A concession: the ledger's own decision, the same in every game."""

    type: Literal["Conceded"]
    reason: Text = ""


class SubmitDecision(Body):
    expected_seq: Annotated[int, Field(ge=0)] = Field(
        description="the match length the decision was made at; stale → 409, nothing written")
    decision: dict[str, Any] = Field(
        description="the decision as the match's game takes it: an option's `decision` from "
                    "GET …/prompt as it is, or for a `choose` prompt its `answer` with `pick` "
                    "(a list of `choose.of`); `{\"type\": \"Conceded\", \"reason\": …}` in "
                    "any game")


class Recorded(BaseModel):
    """What an append wrote: the new events (from the caller's perspective) and the length."""

    seq: int = Field(description="the new length: the next expected_seq")
    events: list[EventOut]


# -- judge ---------------------------------------------------------------------------------------


class TakeBack(Body):
    to_seq: Annotated[int, Field(ge=0)]
    reason: Text = ""
    expected_seq: Annotated[int, Field(ge=0)] | None = None


class Manual(Body):
    """A judge's ruling as primitive operations; which operations there are is the match's
    game's (Wonders: move -- to the top or bottom of a deck --, reveal, look, shuffle, counter,
    resource, tap, control, stone, token, power; docs/api.md, "Manual operations")."""

    ops: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=50)]
    note: Text = ""
    card: CardId | None = None
    expected_seq: Annotated[int, Field(ge=0)] | None = None


class Ending(Body):
    """How the judge ends a match: a concession (recorded as the seat's ``Conceded``), a game
    loss the judge gives (``GameLossGiven``: the match ends with reason ``game_loss``), or a
    draw the judge records (``DrawGiven``: no winner, the reason ``agreed`` or ``time``)."""

    seat: Seat | None = Field(None, description="the seat that concedes or gets the game loss "
                                                "(required for those; a draw names no seat)")
    kind: Literal["concession", "game_loss", "draw"] = "concession"
    draw: Literal["agreed", "time"] | None = Field(
        None, description="with `kind` `draw` (required there, refused otherwise): `agreed` -- "
                          "both players agreed, as the judge confirmed with them -- or `time` "
                          "-- the round's time ran out with the match unfinished")
    reason: Text = ""
    expected_seq: Annotated[int, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _fits_its_kind(self) -> Ending:
        if self.kind == "draw":
            if self.draw is None:
                raise ValueError("a draw says which: 'draw' is 'agreed' (both players agree) "
                                 "or 'time' (the round's time ran out)")
            if self.seat is not None:
                raise ValueError("a draw has no loser: leave 'seat' out")
        else:
            if self.seat is None:
                raise ValueError(f"a {self.kind.replace('_', ' ')} names its seat: 'seat' is "
                                 f"'A' or 'B'")
            if self.draw is not None:
                raise ValueError(f"'draw' goes with kind 'draw', not {self.kind!r}")
        return self


class JudgeCall(Body):
    """A seat asks for the judge (``JudgeCalled``, recorded with the match)."""

    text: Annotated[str, Field(max_length=500)] = ""
    expected_seq: Annotated[int, Field(ge=0)] | None = None


class Note(Body):
    text: Annotated[str, Field(min_length=1, max_length=2000)]
    expected_seq: Annotated[int, Field(ge=0)] | None = None


# -- annotations ---------------------------------------------------------------------------------


class Annotate(Body):
    """A note on the moment ``seq`` of a match (docs/viewer.md, *Annotations*)."""

    seq: Annotated[int, Field(ge=0, description="the event the note is about")]
    text: Annotated[str, Field(min_length=1, max_length=2000)]
    name: Annotated[str, Field(max_length=80, description=(
        "how the author is shown (judge and organizer tokens; a seat is shown as its player)"))] = ""
    expected_seq: Annotated[int, Field(ge=0)] | None = None


class AnnotationOut(BaseModel):
    note: int = Field(description="the seq of the Annotated event (the note's id: `?note=`)")
    seq: int = Field(description="the event the note is about")
    author: Literal["judge", "A", "B", "organizer"]
    name: str
    text: str


class AnnotationsOut(BaseModel):
    match_id: str
    notes: list[AnnotationOut]


# -- play from here -----------------------------------------------------------------------------


class SandboxOut(BaseModel):
    """A sandbox position: the recorded match at ``seq`` (where a seat was prompted) after the
    tried ``moves``; computed in memory, never stored (docs/viewer.md, *Play from here*)."""

    match_id: str
    seq: int = Field(description="the recorded seq the sandbox opened at")
    moves: str = Field(description="the tried moves (`3`: option 3; `p0.2`: picks 0 and 2; "
                                   "`p`: no pick), "
                                   "joined by `-`")
    played: list[str] = Field(description="each tried move's decision, narrated")
    board: dict[str, Any] = Field(description="the omniscient board after the moves")
    prompt: PromptOut | None = Field(description="what is asked now, with its legal options")
    recorded: str | None = Field(description="what was recorded at this point (no move tried "
                                             "yet), narrated")
    recorded_option: int | None = Field(None, description="which of the options the record took "
                                                          "(no move tried yet), if one")


# -- import and errors -------------------------------------------------------------------------


class Imported(BaseModel):
    match_id: str
    length: int
    result: str = Field(description="as recorded (folded from the file)")
    divergence: DivergenceOut | None = DIVERGENCE


class ErrorOut(BaseModel):
    error: str
    message: str


class Health(BaseModel):
    ok: bool
    matches_cached: int
