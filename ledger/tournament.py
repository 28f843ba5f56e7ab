"""Tournaments: an append-only log of tournament events, folded into a :class:`Tournament`.

The log is the truth: a tournament's state is never stored, only its events, one JSON object
per line (``seq``, ``at``, ``type`` and the event's fields), appended by
:meth:`TournamentBook.append` at an expected length (a stale writer is a
:class:`~ledger.errors.ConflictError`, nothing written).  :func:`fold` replays them:

* ``TournamentCreated`` -- ``tournament_id``, ``name``, ``game`` (the game every table plays:
  ``wotf``, ``sow``; a log without one is of ``wotf``), ``ruleset``, ``round_minutes`` (a
  round's time, :mod:`ledger.roundclock`; absent or ``null``: untimed);
* ``RoundClockSet`` -- ``minutes``: the round time from now on (0: untimed), the round
  under way included;
* ``PlayerRegistered`` -- ``player`` (the name: the identity in a tournament), ``deck_text``,
  ``cards`` and ``archive`` (name → copies), ``dbs`` (the deck's DBS total; ``null`` in a
  game without one, such as State of Wonder), ``preset`` (a
  pool deck the tables record with, if any), ``round`` (0 before round 1; later: a late
  entry, who enters with no points), ``token_hash`` (a player who registered themselves: the
  SHA-256 of their player link's token; absent for the organizer's registrations);
* ``DecklistReplaced`` -- ``player``, ``deck_text``, ``cards``, ``archive``, ``dbs``: a
  player's new list (through their player link, before round 1 is paired);
* ``PlayerLinkReissued`` -- ``player``, ``token_hash``: the SHA-256 of the player's new link
  token, given by the organizer (a lost link): their old link stops matching at once; a
  player registered at the desk gets a link this way (before round 1 is paired);
* ``RegistrationOpened`` -- ``key_hash``: the SHA-256 of the registration link's key; a
  second one replaces the first (the old link stops working);
* ``RegistrationClosed`` -- self-registration stops (the organizer still registers);
* ``PlayerRemoved`` -- ``player``: a registration taken back before round 1 is paired (junk
  from someone with the public registration link, say), as if it never was;
* ``PlayerDropped`` -- ``player``, ``round`` (the last round they were paired in);
* ``PlayerReinstated`` -- ``player``, ``round`` (rounds paired by then): a dropped player (a
  mis-tapped drop, say) is paired again from the next round paired;
* ``RoundPaired`` -- ``round``, ``tables`` (``table``, ``a``, ``b``: seat A, seat B),
  ``bye`` (the player given the bye, or ``null``);
* ``RoundStarted`` -- ``round``, ``matches`` (table → match id, one match per table); its
  ``at`` starts the round's clock;
* ``TokenReissued`` / ``TokenRevoked`` -- ``round``, ``table``, ``role`` (``A``, ``B``,
  ``judge``, or ``all``): a record that a table's token was replaced (the token itself is
  kept only as a hash, by the token book).

Results are not events of the tournament: a table's result is its match's ``MatchEnded``
(read through the store by the caller and passed to :func:`standings` as
``{match_id: Result}``), so the match record stays the one truth about who won.

Pairing (:func:`pair`) is Swiss: players ordered by the standings, the lowest-ranked active
player without a bye gets the bye when the count is odd, and the rest are paired top-down,
each with the best-ranked player they have not met as long as the players left can still be
paired with the fewest rematches possible (a maximum matching, :mod:`ledger.matching`): no two
players meet twice while a rematch-free pairing exists, and no more rematches than needed when
none does.
Standings (:func:`standings`): 3 match points a win, 1 a draw, a bye a 2-0 match win; tie
breaks opponents' match-win %, game-win %, opponents' game-win %, each percentage at least
1/3; a bye is left out of the opponents' percentages (see ``docs/organizer.md``).

Two books keep the logs, beside the store like the token book: :class:`FileTournamentBook`
(``<store>/.tournaments/<id>.jsonl``, appended under an exclusive ``flock`` and fsynced) and
:class:`PgTournamentBook` (the ``wonders_tournament_events`` table, keyed by id and seq).
A book keeps each log's fold under the log's version and hands out copies
(:meth:`TournamentBook.load`): a log is read and folded again only once anyone changed it.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import fcntl
import functools
import hashlib
import hmac
import itertools
import json
import os
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ledger import fileversion
from ledger.errors import ConflictError, LedgerError
from ledger.foldcache import FoldCache
from ledger.lookalike import reads_alike, visible
from ledger.matching import Matching
from ledger.store import MATCH_ID

SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
EVENT_TYPES = ("TournamentCreated", "PlayerRegistered", "PlayerDropped", "PlayerReinstated",
               "RoundPaired", "RoundStarted", "TokenReissued", "TokenRevoked", "CardsImported",
               "RoundClockSet", "RegistrationOpened", "RegistrationClosed",
               "DecklistReplaced", "PlayerRemoved", "PlayerLinkReissued")
MAX_ROUND_MINUTES = 600  # a round's time at most (ten hours: beyond any round of a card game)
MAX_PLAYERS = 1024  # players a tournament registers (at the desk or by themselves)
MAX_NAME = 120  # characters of a new player's or tournament's name
MAX_DECKLIST = 20_000  # characters of a decklist as registered or replaced
#: Lists a player link replaces at most (each is a DecklistReplaced of up to MAX_DECKLIST
#: characters in the log, read whole by every later change): a player fixing their list needs
#: a few; the organizer's new link for them gives as many again.
MAX_REPLACEMENTS = 20
MAX_POOL_FILE = 1_000_000  # bytes of a pool file imported at a desk (the console, the CLI)
FLOOR = 1 / 3  # the percentages' floor
WIN, DRAW = 3, 1  # match (and game) points


class TournamentError(LedgerError):
    """An operation the tournament's state refuses (the message says why, in one line)."""


class UnknownTournamentError(LedgerError):
    """No tournament of that id."""


class UnknownPlayerError(TournamentError):
    """No player of that name in the tournament (removed, or never registered)."""


class RegistrationRefusedError(TournamentError):
    """A self-registration or a player link refused: a wrong or replaced key, a token that is
    no player's, registration closed or round 1 paired (one line saying which)."""


def player_name(name: str) -> str:
    """A player's name as registered: NFC (a decomposed ``Zoë`` is the composed one), spaces
    collapsed; refused (one line) when it has a control character or nothing visible."""
    return clean_name(name, "a player")


#: The explicit direction embeddings, overrides and isolates (and their ends), U+202A-U+202E
#: and U+2066-U+2069: in a name they reorder how it and the text after it on its line are shown
#: (``"\u202EnnA"`` reads "Ann"; the seat after an opponent's name, the table after the players
#: in a title, turned round).  A name in Arabic or Hebrew is shown right to left by its letters.
DIRECTION_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_name(name: str, whose: str) -> str:
    """A name as kept (``whose``: "a player", "a tournament"): NFC, whitespace runs (line
    separators too) as one space; one line refusing a control character, a direction control
    (:data:`DIRECTION_CONTROLS`) or no visible character."""
    name = " ".join(unicodedata.normalize("NFC", name).split())
    bad = next((ch for ch in name if unicodedata.category(ch) in ("Cc", "Cs")), None)
    if bad is not None:
        raise TournamentError(f"{whose}'s name can't contain a control character "
                              f"(U+{ord(bad):04X})")
    turn = next((ch for ch in name if ch in DIRECTION_CONTROLS), None)
    if turn is not None:
        raise TournamentError(f"{whose}'s name can't contain a text direction control "
                              f"(U+{ord(turn):04X}): it would turn round how the name and the "
                              f"text after it are shown")
    if not visible(name):  # nothing but what is drawn as nothing: a Hangul filler, a blank
        raise TournamentError(f"{whose} needs a name (this one has no visible character)"
                              if name else f"{whose} needs a name")
    return name


def check_length(text: str, what: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else one line refusing it (never cut:
    a cut decklist can still be a legal one, with a line of the player's gone)."""
    if len(text) > limit:
        raise TournamentError(f"{what} is {len(text)} characters; at most {limit}")
    return text


@functools.lru_cache(maxsize=4096)
def player_key(name: str) -> str:
    """What makes two names one player's: case folded, invisible format characters (a
    zero-width space) and spaces ignored.  Kept for the names last asked about (the players'
    page sorts 300 names by it on every request)."""
    text = unicodedata.normalize("NFC", name)
    return " ".join("".join(ch for ch in text if unicodedata.category(ch) != "Cf")
                    .split()).casefold()


def check_tournament_id(tournament_id: str) -> str:
    if not SAFE_ID.fullmatch(tournament_id):
        raise TournamentError(f"tournament id {tournament_id[:80]!r}: letters, digits, '.', "
                              f"'_' and '-' (at most 64), starting with a letter or digit")
    return tournament_id


def tournament_slug(name: str) -> str:
    """An ASCII id from a tournament's name: accents dropped ("Tournoi d'été" →
    ``tournoi-d-ete``); a name with no ASCII letter or digit left (``東京オープン``) gets
    ``t-`` and 8 hex digits of its SHA-256, the same for the same name.  The tournament tool
    and ``wonders simulate --tournament`` both name a tournament so."""
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", name)
                    if not unicodedata.combining(ch))
    slug = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in plain.casefold())
    slug = "-".join(part for part in slug.split("-") if part)[:48].strip("-")
    return slug or "t-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


# -- the state ---------------------------------------------------------------------------------


@dataclass
class Player:
    name: str
    deck_text: str
    cards: dict[str, int]
    archive: dict[str, int]
    dbs: int | None  # None: the game has no Deck Balance Score (State of Wonder)
    preset: str | None = None
    entered: int = 0  # the round before which they entered (0: from the start)
    dropped: int | None = None  # the last round they were paired in, once dropped
    token_hash: str | None = None  # their player link's hash (None: they have no link)
    replaced: int = 0  # how often they replaced their decklist
    self_registered: bool = False  # registered themselves (the registration link)
    links_reissued: int = 0  # how often the organizer gave them a new player link
    registered_at: str = ""  # their PlayerRegistered line's ``at`` (UTC)
    replaced_with_link: int = 0  # lists replaced with their current link

    def copy(self) -> Player:
        """A copy sharing nothing that can be changed (its decklist's counts copied; every
        other field, present or added later, carried by ``replace``)."""
        return dataclasses.replace(self, cards=dict(self.cards), archive=dict(self.archive))

    @property
    def is_self_registered(self) -> bool:
        return self.self_registered

    @property
    def has_link(self) -> bool:
        """Whether they hold a player link: registered themselves, or given one."""
        return self.token_hash is not None

    @property
    def dropped_when(self) -> str:
        """``dropped before round 1`` or ``dropped after round N`` (``''`` while active)."""
        if self.dropped is None:
            return ""
        return "dropped before round 1" if self.dropped == 0 else \
            f"dropped after round {self.dropped}"


@dataclass
class Table:
    table: int
    a: str
    b: str
    match_id: str | None = None


@dataclass
class Round:
    number: int
    tables: list[Table]
    bye: str | None
    started: bool = False
    started_at: str = ""  # the RoundStarted line's ``at`` (UTC): when its clock started

    def copy(self) -> Round:
        """A copy sharing nothing that can be changed (its tables copied)."""
        return dataclasses.replace(self, tables=[dataclasses.replace(t) for t in self.tables])


@dataclass
class Tournament:
    tournament_id: str
    name: str
    game: str
    ruleset: str | None
    created_at: str = ""
    players: dict[str, Player] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)
    length: int = 0  # events folded: the next append's expected length
    reissued: list[dict[str, Any]] = field(default_factory=list)
    # Cards an organizer imported (a pool file): name -> definition, the latest import of a
    # name winning; they count as in the pool for registration and round start.
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    round_minutes: int | None = None  # a round's time (None: untimed)
    registration_key_hash: str | None = None  # the open registration link's (None: closed)

    def copy(self) -> Tournament:
        """A copy sharing nothing that can be changed: what a book's kept fold hands out
        (:meth:`TournamentBook.load`), so no caller can change the fold the next one gets.
        Its players and rounds are copied by their own ``copy``, its other containers deeply;
        every other field, present or added later, is carried by ``replace``."""
        return dataclasses.replace(
            self, players={n: p.copy() for n, p in self.players.items()},
            rounds=[r.copy() for r in self.rounds], reissued=copy.deepcopy(self.reissued),
            cards=copy.deepcopy(self.cards))

    @property
    def is_registration_open(self) -> bool:
        """Whether players may register themselves (and replace their lists): opened, not
        closed since, and round 1 not paired yet (late entries are the organizer's)."""
        return self.registration_key_hash is not None and not self.rounds

    @property
    def active(self) -> list[str]:
        return [p.name for p in self.players.values() if p.dropped is None]

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def table(self, round_no: int, table_no: int) -> Table:
        if not 1 <= round_no <= len(self.rounds):
            raise TournamentError(f"{self.name}: no round {round_no} (rounds paired: "
                                  f"{len(self.rounds)})")
        for table in self.rounds[round_no - 1].tables:
            if table.table == table_no:
                return table
        raise TournamentError(f"{self.name}: round {round_no} has no table {table_no}")

    def player(self, name: str) -> Player:
        """The player of that name (as registered, or the same name in another case)."""
        found = self.players.get(name) or self.same_player(name)
        if found is None:
            raise UnknownPlayerError(f"{self.name}: no player named {name[:120]!r}")
        return found

    def can_reissue_link(self, player: Player) -> bool:
        """Whether the organizer may give ``player`` a new player link: anyone before round
        1 is paired (a link replaces the list while registration is open); after, only a
        player who holds one (a lost or leaked link: the new one shows the list, as the old
        one did) -- a first link then could only show a list that is final."""
        return not self.rounds or player.has_link

    def same_player(self, name: str) -> Player | None:
        """The player whose name is ``name`` up to case, Unicode form and invisible
        characters (:func:`player_key`), if any."""
        key = player_key(name)
        return next((p for p in self.players.values() if player_key(p.name) == key), None)

    def looks_like(self, name: str) -> Player | None:
        """Another player whose name reads as ``name`` on a page though it is not the same
        name (:func:`ledger.lookalike.reads_alike`: ``"\u0410nn"`` (a Cyrillic A) beside
        ``"Ann"``, ``"Kirn"`` beside ``"Kim"``), if any: a registration's check refuses it."""
        key = player_key(name)
        return next((p for p in self.players.values()
                     if reads_alike(p.name, name) and player_key(p.name) != key), None)

    def self_registered_from(self, name: str) -> list[Player]:
        """The players who registered themselves, from ``name`` (one of them) on, in the
        order they registered: a burst of junk from someone with the registration link, to
        be removed at once.  Players the desk registered meanwhile are not among them."""
        first = self.player(name)
        if not first.is_self_registered:
            raise TournamentError(f"{self.name}: {first.name} did not register themselves "
                                  f"(the desk did)")
        names = list(self.players)
        return [p for p in (self.players[n] for n in names[names.index(first.name):])
                if p.is_self_registered]

    def player_with_token(self, digest: str) -> Player | None:
        """The self-registered player whose link's token hashes to ``digest``; every
        player's hash is compared (``hmac.compare_digest``), whichever matched."""
        found = None
        for p in self.players.values():
            if p.token_hash is not None and hmac.compare_digest(p.token_hash, digest):
                found = p
        return found

    def match_ids(self) -> list[str]:
        return [t.match_id for r in self.rounds for t in r.tables if t.match_id]


def fold(events: Iterable[dict[str, Any]]) -> Tournament:
    """The tournament its events describe (the first must be ``TournamentCreated``).  A line
    that does not fit its event (edited by hand: a field missing, a round time that is not a
    number of minutes, a time that is not one) is a :class:`TournamentError` naming its seq."""
    state: Tournament | None = None
    for event in events:
        if not isinstance(event, dict):
            raise TournamentError(f"a tournament log line is an object, not {event!r:.80}")
        try:
            state = _folded(state, event)
        except (KeyError, ValueError, TypeError, IndexError, AttributeError) as exc:
            raise TournamentError(f"tournament log seq {event.get('seq')!r} "
                                  f"({event.get('type')!r}): {_why(exc)}") from None
    if state is None:
        raise TournamentError("an empty tournament log")
    return state


def _why(exc: Exception) -> str:
    return f"no field {exc}" if isinstance(exc, KeyError) else str(exc)[:200]


def _folded(state: Tournament | None, event: dict[str, Any]) -> Tournament:
    """``state`` after one event (see :func:`fold`)."""
    kind = event.get("type")
    if state is None:
        if kind != "TournamentCreated":
            raise TournamentError(f"a tournament log starts with TournamentCreated, not "
                                  f"{kind!r}")
        state = Tournament(event["tournament_id"], event["name"], event.get("game", "wotf"),
                           event.get("ruleset"), event.get("at", ""))
        state.round_minutes = _minutes(event.get("round_minutes"))
    elif kind == "PlayerRegistered":
        state.players[event["player"]] = Player(
            event["player"], event.get("deck_text", ""), dict(event.get("cards", {})),
            dict(event.get("archive", {})), _dbs(event.get("dbs", 0)), event.get("preset"),
            int(event.get("round", 0)), token_hash=event.get("token_hash"),
            self_registered=event.get("token_hash") is not None,
            registered_at=_when(event.get("at")))
    elif kind == "PlayerLinkReissued":
        _relinked(state.players[event["player"]], event["token_hash"])
    elif kind == "DecklistReplaced":
        _replace_deck(state.players[event["player"]], event)
    elif kind == "RegistrationOpened":
        state.registration_key_hash = event["key_hash"]
    elif kind == "RegistrationClosed":
        state.registration_key_hash = None
    elif kind == "PlayerRemoved":
        del state.players[event["player"]]
    elif kind == "PlayerDropped":
        state.players[event["player"]].dropped = int(event.get("round", 0))
    elif kind == "PlayerReinstated":
        state.players[event["player"]].dropped = None
    elif kind == "RoundPaired":
        state.rounds.append(Round(int(event["round"]),
                                  [Table(int(t["table"]), t["a"], t["b"])
                                   for t in event["tables"]], event.get("bye")))
    elif kind == "RoundStarted":
        played = state.rounds[int(event["round"]) - 1]
        for table in played.tables:
            table.match_id = _match_id(event["matches"].get(str(table.table)))
        played.started = True
        played.started_at = _at(event.get("at", ""))
    elif kind == "RoundClockSet":
        state.round_minutes = _minutes(event["minutes"])
    elif kind in ("TokenReissued", "TokenRevoked"):
        state.reissued.append(dict(event))
    elif kind == "CardsImported":
        for card in event.get("cards", []):
            state.cards[card["name"]] = dict(card)
    elif kind != "TournamentCreated":
        raise TournamentError(f"unknown tournament event {kind!r}")
    state.length += 1
    return state


def _match_id(value: Any) -> str | None:
    """A table's match id as logged (``None``: none yet): a store's match id, or refused."""
    if value is not None and not (isinstance(value, str) and MATCH_ID.fullmatch(value)):
        raise ValueError(f"match id {value!r:.80} is not a match id")
    return value


def is_round_minutes(value: Any) -> bool:
    """Whether ``value`` is a round time: whole minutes from 0 (untimed) to the most."""
    return isinstance(value, int) and not isinstance(value, bool) and \
        0 <= value <= MAX_ROUND_MINUTES


def parse_at(text: str) -> datetime:
    """A log line's ``at`` (ISO 8601, UTC, ``Z``) as an aware datetime."""
    return _iso(text).astimezone(UTC)


def _iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _minutes(value: Any) -> int | None:
    """A round time as logged: whole minutes from 0 (``None``: untimed) to the most."""
    if value is None:
        return None
    if not is_round_minutes(value):
        raise ValueError(f"round time {value!r} is not a whole number of minutes from 0 to "
                         f"{MAX_ROUND_MINUTES}")
    return value or None


def _at(value: Any) -> str:
    """A line's ``at`` a round's clock starts from: ISO 8601 with its offset (``Z``), or none."""
    if value == "":
        return value
    if not isinstance(value, str) or _iso(value).tzinfo is None:
        raise ValueError(f"at {value!r} is not a time in UTC")
    return value


def _when(value: Any) -> str:
    """A registration's ``at`` as shown: a time in UTC, or ``''`` (a log written by hand
    without one, or with something else: only what the console shows of it, not refused)."""
    try:
        return _at(value) if isinstance(value, str) else ""
    except ValueError:
        return ""


def _replace_deck(player: Player, event: dict[str, Any]) -> None:
    """A player's new list; a pool deck they were registered with no longer stands for it (a
    player registered at the desk with a preset who was given a link, then replaced it: the
    tables record the new list)."""
    player.preset = None
    player.deck_text = event.get("deck_text", "")
    player.cards = dict(event.get("cards", {}))
    player.archive = dict(event.get("archive", {}))
    player.dbs = _dbs(event.get("dbs", 0))
    player.replaced += 1
    player.replaced_with_link += 1


def _relinked(player: Player, token_hash: Any) -> None:
    """``player``'s new link: only its hash matches from now on (the old one no longer)."""
    if not (isinstance(token_hash, str) and SHA256_HEX.fullmatch(token_hash)):
        raise ValueError(f"token_hash {token_hash!r:.80} is not a SHA-256 (64 hex digits)")
    player.token_hash = token_hash
    player.links_reissued += 1
    player.replaced_with_link = 0


def _dbs(value: Any) -> int | None:
    """A registration's DBS: ``null`` in a game without one stays ``None``."""
    return None if value is None else int(value)


# -- results and standings -----------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """A table's match as the store records it: ``winner`` a seat (``A``/``B``) or ``None``
    (a draw, if ended)."""

    ended: bool
    winner: str | None = None


@dataclass
class Record:
    """One player's results so far (ended matches and byes only)."""

    player: str
    opponents: list[str] = field(default_factory=list)  # real opponents of ended matches
    wins: int = 0
    losses: int = 0
    draws: int = 0
    byes: int = 0
    dropped: bool = False

    @property
    def points(self) -> int:
        return WIN * (self.wins + self.byes) + DRAW * self.draws

    @property
    def played(self) -> int:  # rounds with a result, byes included
        return self.wins + self.losses + self.draws + self.byes

    @property
    def game_points(self) -> int:  # one game a match; a bye is two games won
        return WIN * (self.wins + 2 * self.byes) + DRAW * self.draws

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws + 2 * self.byes

    @property
    def mwp(self) -> float:
        return max(FLOOR, self.points / (WIN * self.played)) if self.played else FLOOR

    @property
    def gwp(self) -> float:
        return max(FLOOR, self.game_points / (WIN * self.games)) if self.games else FLOOR


@dataclass(frozen=True)
class Standing:
    rank: int
    player: str
    points: int
    wins: int
    losses: int
    draws: int
    byes: int
    omw: float
    gw: float
    ogw: float
    dbs: int | None
    dropped: bool


def records(tournament: Tournament, results: dict[str, Result]) -> dict[str, Record]:
    """Every player's record from the rounds and the matches' results."""
    out = {name: Record(name, dropped=p.dropped is not None)
           for name, p in tournament.players.items()}
    for played in tournament.rounds:
        if played.bye is not None and played.started:
            out[played.bye].byes += 1
        for table in played.tables:
            result = results.get(table.match_id or "")
            if result is None or not result.ended:
                continue
            one, two = out[table.a], out[table.b]
            one.opponents.append(two.player)
            two.opponents.append(one.player)
            if result.winner is None:
                one.draws += 1
                two.draws += 1
            else:
                winner, loser = (one, two) if result.winner == "A" else (two, one)
                winner.wins += 1
                loser.losses += 1
    return out


def standings(tournament: Tournament, results: dict[str, Result]) -> list[Standing]:
    """The standings, best first: match points, then OMW%, GW%, OGW% (then the name).  Each
    player's percentages are worked out once, not once per opponent who met them."""
    recs = records(tournament, results)
    mwp = {name: rec.mwp for name, rec in recs.items()}
    gwp = {name: rec.gwp for name, rec in recs.items()}

    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    rows = []
    for name, rec in recs.items():
        omw = mean([mwp[o] for o in rec.opponents])
        ogw = mean([gwp[o] for o in rec.opponents])
        rows.append(((-rec.points, -round(omw, 9), -round(gwp[name], 9), -round(ogw, 9),
                      name.casefold()), rec, omw, ogw))
    rows.sort(key=lambda r: r[0])
    return [Standing(rank, rec.player, rec.points, rec.wins, rec.losses, rec.draws, rec.byes,
                     omw, gwp[rec.player], ogw, tournament.players[rec.player].dbs, rec.dropped)
            for rank, (_key, rec, omw, ogw) in enumerate(rows, start=1)]


# -- pairing -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    tables: list[tuple[str, str]]
    bye: str | None
    rematches: int  # pairs who met before (the fewest possible; 0 whenever none is needed)


def pair(order: Sequence[str], met: dict[str, set[str]], had_bye: set[str]) -> Pairing:
    """Swiss pairing of ``order`` (active players, best first).  With an odd count the bye
    goes to the lowest-ranked player without one (once every player has had one: the
    lowest), passing up the ranking to the next player without one only when that avoids a
    rematch; never a second bye while someone has had none.  The others are paired
    top-down, each with the best-ranked player they have not met such that the players
    left can still be paired with the fewest rematches possible: none whenever a
    rematch-free pairing exists, else a rematch only for a player who can't avoid one.
    Whether they can is answered by a maximum matching of the pairs not met yet
    (:class:`ledger.matching.Matching`), in polynomial time for any field and history."""
    players = list(order)
    index = {p: i for i, p in enumerate(players)}
    everybody = set(range(len(players)))
    allowed = [everybody - {i} - {index[q] for q in met.get(p, ()) if q in index}
               for i, p in enumerate(players)]
    everyone = Matching(allowed, range(len(players)))
    bye, matching = _bye(players, had_bye, everyone)
    tables = []
    left = [i for i in range(len(players)) if i != bye]
    while left:
        first, others = left[0], left[1:]
        # not met first, best-ranked first; then the rematches, only if unavoidable
        choices = itertools.chain((p for p in others if p in allowed[first]),
                                  (p for p in others if p not in allowed[first]))
        for partner in choices:
            after = matching.without(first, partner)
            if after.size == matching.size - (partner in allowed[first]):
                break  # the players left still pair with the fewest rematches
        tables.append((players[first], players[partner]))
        left = [i for i in others if i != partner]
        matching = after
    return Pairing(tables, None if bye is None else players[bye],
                   sum(1 for a, b in tables if b in met.get(a, set())))


def _bye(players: list[str], had_bye: set[str],
         everyone: Matching) -> tuple[int | None, Matching]:
    """The bye (an index, ``None`` for an even count) and the maximum matching of the others:
    the lowest-ranked player without a bye (any player once all have had one) whose absence
    leaves the fewest rematches -- it passes up the ranking only to avoid one."""
    if len(players) % 2 == 0:
        return None, everyone
    without = [i for i in reversed(range(len(players))) if players[i] not in had_bye]
    best: tuple[int, Matching] | None = None
    for candidate in without or list(reversed(range(len(players)))):
        rest = everyone.without(candidate)
        if best is None or rest.size > best[1].size:
            best = (candidate, rest)
        if rest.size == len(players) // 2:
            break  # nobody meets twice
    assert best is not None
    return best


def next_round(tournament: Tournament, results: dict[str, Result]) -> dict[str, Any]:
    """The ``RoundPaired`` event of the next round (the previous round must be over)."""
    current = tournament.current
    if current is not None:
        if not current.started:
            raise TournamentError(f"{tournament.name}: round {current.number} is paired but "
                                  f"not started; start it first")
        pending = [t.table for t in current.tables
                   if not results.get(t.match_id or "", Result(False)).ended]
        if pending:
            raise TournamentError(f"{tournament.name}: round {current.number} is not over "
                                  f"(table{'s' if len(pending) > 1 else ''} "
                                  f"{', '.join(map(str, pending))} still playing)")
    active = set(tournament.active)
    if len(active) < 2:
        players = f"{len(active)} active player{'' if len(active) == 1 else 's'}"
        raise TournamentError(f"{tournament.name}: {players}; a round needs at least 2")
    order = [s.player for s in standings(tournament, results) if s.player in active]
    met: dict[str, set[str]] = {}
    for played in tournament.rounds:
        for t in played.tables:
            met.setdefault(t.a, set()).add(t.b)
            met.setdefault(t.b, set()).add(t.a)
    had_bye = {r.bye for r in tournament.rounds if r.bye}
    found = pair(order, met, had_bye)
    number = len(tournament.rounds) + 1
    return {"type": "RoundPaired", "round": number, "bye": found.bye,
            "tables": [{"table": i, "a": a, "b": b}
                       for i, (a, b) in enumerate(found.tables, start=1)]}


# -- CSV ---------------------------------------------------------------------------------------


def pairings_rows(tournament: Tournament) -> list[list[str]]:
    rows = [["round", "table", "seat_a", "seat_b", "match_id"]]
    for played in tournament.rounds:
        for t in played.tables:
            rows.append([str(played.number), str(t.table), t.a, t.b, t.match_id or ""])
        if played.bye:
            rows.append([str(played.number), "bye", played.bye, "", ""])
    return rows


def result_of(table: Table, result: Result | None) -> str:
    """``A``/``B`` wins as the winner's name, ``draw``, or ``playing``."""
    if result is None or not result.ended:
        return "playing" if table.match_id else "not started"
    if result.winner is None:
        return "draw"
    return table.a if result.winner == "A" else table.b


def results_rows(tournament: Tournament, results: dict[str, Result],
                 unreadable: frozenset[str] | set[str] = frozenset()) -> list[list[str]]:
    """Every table's result, a row each (``unreadable``: the ids of matches whose stored data
    can't be read, whose winner reads ``unreadable``)."""
    rows = [["round", "table", "seat_a", "seat_b", "winner", "match_id"]]
    for played in tournament.rounds:
        for t in played.tables:
            winner = "unreadable" if t.match_id in unreadable else \
                result_of(t, results.get(t.match_id or ""))
            rows.append([str(played.number), str(t.table), t.a, t.b, winner, t.match_id or ""])
        if played.bye and played.started:
            rows.append([str(played.number), "bye", played.bye, "", played.bye, ""])
    return rows


def standings_rows(table: list[Standing]) -> list[list[str]]:
    rows = [["rank", "player", "points", "wins", "losses", "draws", "byes", "omw_pct",
             "gw_pct", "ogw_pct", "dbs", "dropped"]]
    for s in table:
        rows.append([str(s.rank), s.player, str(s.points), str(s.wins), str(s.losses),
                     str(s.draws), str(s.byes), f"{100 * s.omw:.2f}", f"{100 * s.gw:.2f}",
                     f"{100 * s.ogw:.2f}", "" if s.dbs is None else str(s.dbs),
                     "yes" if s.dropped else ""])
    return rows


# -- the books -----------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _line(seq: int, event: dict[str, Any]) -> str:
    if event.get("type") not in EVENT_TYPES:
        raise TournamentError(f"unknown tournament event {event.get('type')!r}")
    return json.dumps({"seq": seq, "at": _now(), **event}, ensure_ascii=False,
                      separators=(",", ":"))


class TournamentBook:
    """What every book answers: the events of a tournament, appended at an expected length.

    A load folds the log once per version of it (a file's text, :class:`LogVersion`; a table's
    rows) and keeps the fold (:class:`~ledger.foldcache.FoldCache`): while the log is
    unchanged, a load is that check (one ``stat`` of a file older than a clock tick;
    PostgreSQL: one query) and a copy of the fold (:meth:`Tournament.copy`: a caller can't
    change what the next one gets); once anyone changed it -- this book, another process, a
    hand edit -- the next load reads and folds it again."""

    def __init__(self) -> None:
        self._folds: FoldCache[Tournament] = FoldCache()
        self._folding = threading.Lock()  # one fold at a time: a crowd's loads fold once

    def events(self, tournament_id: str) -> list[dict[str, Any]]:
        return self.read(tournament_id)[1] or []

    def read(self, tournament_id: str, known: Hashable = None
             ) -> tuple[Hashable, list[dict[str, Any]] | None]:
        """The log's version (``None``: no log) and its events -- ``None`` instead when the
        version is ``known`` (unchanged: nothing read).  The version is taken before the
        events are read: events appended meanwhile may be read too (the next load then reads
        again), never fewer than the version says."""
        raise NotImplementedError

    def append(self, tournament_id: str, expected: int, events: list[dict[str, Any]]) -> int:
        raise NotImplementedError

    def ids(self) -> list[str]:
        raise NotImplementedError

    def load(self, tournament_id: str) -> Tournament:
        check_tournament_id(tournament_id)
        kept = self._folds.get(tournament_id)
        version, events = self.read(tournament_id, None if kept is None else kept[0])
        if events is None and kept is not None:  # unchanged since it was folded
            if version is not kept[0]:  # read again, the same log: kept under what was read
                self._folds.put(tournament_id, version, kept[1])
            return kept[1].copy()
        return self._folded(tournament_id, version, events or []).copy()

    def _folded(self, tournament_id: str, version: Hashable,
                events: list[dict[str, Any]]) -> Tournament:
        """``events`` (the log at ``version``) folded and kept; folded once when a crowd's
        loads found the same change."""
        if not events:
            raise UnknownTournamentError(f"no tournament {tournament_id!r}")
        with self._folding:
            kept = self._folds.get(tournament_id)
            if kept is not None and kept[0] == version:
                return kept[1]  # folded meanwhile by another load of the same log
            folded = fold(events)
            self._folds.put(tournament_id, version, folded)
        return folded

    def exists(self, tournament_id: str) -> bool:
        return bool(SAFE_ID.fullmatch(tournament_id)) and bool(self.events(tournament_id))


@dataclass(frozen=True)
class LogVersion:
    """A file log's version: the digest of its text (equal digests, the same events: the same
    fold), and the file's version when it was read (:func:`ledger.fileversion.version`, not
    compared): while that is settled and the file's stat still says it, a load reads nothing;
    an unsettled one (the log read within a file system's tick of its last write) never
    says so, and the log is read again."""

    digest: bytes
    found: Hashable = field(compare=False)


class FileTournamentBook(TournamentBook):
    """``<store>/.tournaments/<id>.jsonl``: one line per event, appended under a lock.  Its
    version (:class:`LogVersion`): its text's digest, and the file's device, inode, size,
    modification and change times (``os.stat``) as they were when it was read -- a load reads
    the file only when they moved (an append by another process -- a second server on the
    directory, the CLI --, a log cut back, or one replaced or edited by hand to the same size),
    or when the file was written within :data:`ledger.fileversion.GRANULARITY_NS` of its last
    read (a file system with a coarse clock could have hidden a same-size edit in that tick:
    "racy clean", as git's index); it folds again only when the text differs.

    ``stat`` (of a path or an open descriptor) and ``clock`` (the wall clock, in ns) are a
    seam: a test gives the real files whole-second times to play a coarse file system."""

    def __init__(self, store_root: str | os.PathLike,
                 stat: Callable[[Any], os.stat_result] = os.stat,
                 clock: Callable[[], int] = time.time_ns):
        super().__init__()
        self._stat, self._clock = stat, clock
        self.root = Path(store_root) / ".tournaments"
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def _path(self, tournament_id: str) -> Path:
        return self.root / f"{check_tournament_id(tournament_id)}.jsonl"

    def read(self, tournament_id: str, known: Hashable = None
             ) -> tuple[Hashable, list[dict[str, Any]] | None]:
        path = self._path(tournament_id)
        if isinstance(known, LogVersion):
            try:  # (an unsettled version never equals a stat: read again)
                if fileversion.identity(self._stat(path)) == known.found:
                    return known, None
            except FileNotFoundError:
                return None, []
        read_at = self._clock()  # before the read: a write after it is in a later tick
        try:
            with open(path, encoding="utf-8") as handle:
                found = self._stat(handle.fileno())  # before reading: never newer
                text = handle.read()
        except FileNotFoundError:
            return None, []
        except UnicodeDecodeError as exc:
            raise TournamentError(f"{path}: a tournament log that is not UTF-8 text "
                                  f"(byte {exc.start})") from None
        version = LogVersion(hashlib.sha256(text.encode("utf-8")).digest(),
                             fileversion.version(found, read_at))
        if version == known:
            return version, None  # the same text: the fold kept stands
        # lines end at "\n" only: a name may hold U+0085 or U+2028, which splitlines() splits at.
        # The last piece is "" after the final newline, else a torn line -- a writer stopped
        # mid-append, or a write still landing as this reads -- never acknowledged, whatever
        # it ends with: not an event.  (A piece an older program's
        # append ended with a newline of its own is skipped unless it ends in "}".)
        whole = text.split("\n")[:-1]
        return version, [_parsed(line, f"{path}:{n}") for n, line in enumerate(whole, start=1)
                         if line.strip() and line.endswith("}")]

    def ids(self) -> list[str]:
        return sorted(p.stem for p in self.root.glob("*.jsonl"))

    def append(self, tournament_id: str, expected: int, events: list[dict[str, Any]]) -> int:
        path = self._path(tournament_id)
        with self._lock, _locked(self.root / ".lock"):
            have = self.events(tournament_id)
            if len(have) != expected:
                raise ConflictError(f"tournament {tournament_id}: {len(have)} events, not "
                                    f"{expected} (someone wrote first); nothing was written")
            lines = "".join(_line(expected + i, e) + "\n" for i, e in enumerate(events))
            size = _cut_torn_tail(path) or None
            try:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(lines)
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError:  # a full disk, say: nothing of the batch was acknowledged
                _take_back(path, size)
                raise
        return expected + len(events)


def _parsed(line: str, where: str) -> Any:
    """A log line's JSON, or a :class:`TournamentError` naming where (a line edited by hand
    into something that is not JSON; the fold checks what it holds)."""
    try:
        return json.loads(line)
    except ValueError as exc:
        raise TournamentError(f"{where}: a tournament log line is not JSON ({exc})") from None


def _cut_torn_tail(path: Path) -> int:
    """Cut the log's torn last line off, if it has one, and return its size (0: no log, or
    nothing whole in it).  Called under the log's lock, where no writer is writing: a line
    without its newline was left by one that died and was never acknowledged (appended after,
    it would become a line of the log for good, and one ending in "}" is no JSON)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0
    whole = data.rfind(b"\n") + 1
    if whole < len(data):
        os.truncate(path, whole)
    return whole


def _take_back(path: Path, size: int | None) -> None:
    """Cut a tournament's log back to ``size`` bytes (``None``: it had no event, remove it)
    after a batch failed to be written or synced: its whole lines would read as events that
    were never acknowledged -- half a round's pairings, say."""
    try:
        if size is None:
            path.unlink(missing_ok=True)
        else:
            os.truncate(path, size)
    except OSError:
        pass  # the disk refuses even that: a torn last line is skipped when read


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class PgTournamentBook(TournamentBook):
    """A PostgreSQL store's tournaments: the ``wonders_tournament_events`` table, one row per
    event keyed by (tournament id, seq), so a second writer at a seq is refused by the key."""

    def __init__(self, store: Any):
        super().__init__()
        self.store = store  # its table is the store's own (created with the others at open)

    def read(self, tournament_id: str, known: Hashable = None
             ) -> tuple[Hashable, list[dict[str, Any]] | None]:
        """Its version: the log's row count, last seq and the sum of its rows' ``xmin`` (the
        transaction that wrote each row version: a row updated or replaced by hand changes
        it); one connection, the lines fetched only when that changed."""
        check_tournament_id(tournament_id)
        with self.store._tx() as conn:
            row = conn.execute("SELECT count(*), max(seq), sum(xmin::text::bigint) FROM "
                               "wonders_tournament_events WHERE tournament_id = %s",
                               [tournament_id]).fetchone()
            version = None if not row[0] else tuple(int(v) for v in row)
            if version is None:
                return None, []
            if version == known:
                return known, None
            rows = conn.execute("SELECT line FROM wonders_tournament_events WHERE "
                                "tournament_id = %s ORDER BY seq", [tournament_id]).fetchall()
        return version, [_parsed(row[0], f"tournament {tournament_id} seq {n}")
                         for n, row in enumerate(rows)]

    def ids(self) -> list[str]:
        with self.store._tx() as conn:
            rows = conn.execute("SELECT DISTINCT tournament_id FROM wonders_tournament_events "
                                "ORDER BY tournament_id").fetchall()
        return [row[0] for row in rows]

    def append(self, tournament_id: str, expected: int, events: list[dict[str, Any]]) -> int:
        check_tournament_id(tournament_id)
        with self.store._tx() as conn:
            (have,) = conn.execute("SELECT count(*) FROM wonders_tournament_events WHERE "
                                   "tournament_id = %s", [tournament_id]).fetchone()
            if have != expected:
                raise ConflictError(f"tournament {tournament_id}: {have} events, not "
                                    f"{expected} (someone wrote first); nothing was written")
            for i, event in enumerate(events):
                conn.execute("INSERT INTO wonders_tournament_events (tournament_id, seq, line) "
                             "VALUES (%s, %s, %s)",
                             [tournament_id, expected + i, _line(expected + i, event)])
        return expected + len(events)


def tournament_book(store: Any) -> TournamentBook:
    """The book of a store: files beside a file store's matches, a table in PostgreSQL."""
    root = getattr(store, "root", None)
    if hasattr(store, "_tx"):
        return PgTournamentBook(store)
    if root is not None:
        return FileTournamentBook(root)
    raise TypeError(f"{store!r} keeps no tournaments")
