"""Running a tournament over a store: what the API (``/api/tournaments…``), the console
(``/organize``) and the CLI (``wonders tournament …``) share, without Flask.

:class:`Organizer` holds a store, its token book and its tournament book
(:func:`ledger.tournament.tournament_book`: files beside a file store, a table in PostgreSQL),
the Wonders card pool and the catalogue (``fixtures/catalogue/existence.csv`` joined with the
pool, :func:`catalogue`).  Every change is an event appended to the tournament's log at the
length it was read at (:mod:`ledger.tournament`) -- a desk's change that another writer raced
is read, checked and appended again (:meth:`Organizer._change`); results are read from the matches
(``MatchEnded`` through :meth:`ledger.store.Store.info`).

A tournament is of one game (``TournamentCreated.game``; none: Wonders of The First), and every
table's match is created in it.  A Wonders decklist is read against the catalogue and rule 303
(DBS, catalogue cards entered at the table and pool files of printed stats are Wonders' only);
another game's is read against its pool, then checked by that game's deck rules.

Starting a round (:meth:`Organizer.start_round`) claims it first: its pairing
(``RoundPaired``) and ``RoundStarted`` (the match ids are ``{id}-r{round}-t{table:02d}``) in
one append at the length read, so of two desks (servers, processes, the CLI) starting it at
once exactly one claims it; the other is refused (409) before it creates anything.  Only the
claimant then creates every table's match with its seat and judge tokens (the way
``POST /api/matches`` does: tokens first, never a match without them), all tables as one
creation (:meth:`web.tokens.TokenBook.creating_many`, :meth:`ledger.store.Store.create_many`:
on a file store one ``fsync`` per match file and seven for the round, not eight per table).
Every table's decks are checked before anything is written.  A start that stopped between its
claim and its matches leaves tables without a match: a reissue of such a table's tokens
creates it and shows its links (:meth:`Organizer.reissue`).

A table's set-up (its coin flip and shuffles, drawn when its match is created) comes from the
OS's randomness, or from ``chance(match_id)`` when the organizer is given one: ``wonders
demo`` seeds it from ``--seed``, so a simulated tournament plays the same games again.

Players register themselves (:mod:`web.selfreg`) with the key of an open registration
(:meth:`Organizer.open_registration`; ``RegistrationOpened`` keeps its hash): a
``PlayerRegistered`` made by the same :meth:`Organizer._registered` as the desk's, with the hash
of the player's own token, with which they replace their list (``DecklistReplaced``, checked the
same way).  Both are refused once round 1 is paired: the check and the append are one change at
the length read, so a registration racing round 1's claim is read again and refused.  A lost
player link is replaced by the organizer (:meth:`Organizer.reissue_player_link`,
``PlayerLinkReissued``): the old one stops working at once.  A
tournament takes at most :data:`ledger.tournament.MAX_PLAYERS` players.
"""

from __future__ import annotations

import dataclasses
import hmac
import logging
import os
import random
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ledger.catalogue import (
    BOM,
    Card,
    Catalogue,
    Decklist,
    DecklistError,
    load_catalogue,
    parse_decklist,
    read_decklist,
)
from ledger.csvcells import csv_text
from ledger.errors import ConflictError, LedgerError
from ledger.events import DeckEntry, Event, MatchOpened, SeatInfo, as_seat
from ledger.roundclock import check_minutes
from ledger.store import Store, same_version
from ledger.tournament import (
    MAX_DECKLIST,
    MAX_NAME,
    MAX_PLAYERS,
    MAX_REPLACEMENTS,
    Player,
    RegistrationRefusedError,
    Result,
    Standing,
    Table,
    Tournament,
    TournamentBook,
    TournamentError,
    check_length,
    check_tournament_id,
    clean_name,
    next_round,
    pairings_rows,
    player_name,
    results_rows,
    standings,
    standings_rows,
    tournament_book,
    tournament_slug,
)
from replay.errors import CardDataError
from replay.game import Game
from replay.games import UnknownGameError, game
from replay.recorder import Recorder
from replay.resources import data_root
from web.api.organizer import Entries, check_decks, deck_problems, preset_decks
from web.tokens import ROLES, PgTokenBook, TokenBook, hash_token, new_token

log = logging.getLogger("wonders.web")
GAME = "wotf"  # a tournament's game unless it names another; the catalogue's game (and DBS's)
ATTEMPTS = 8  # a change another process raced is read, checked and appended again this often


@lru_cache(maxsize=1)
def shipped_catalogue() -> Catalogue:
    """The catalogue that ships with the program (``fixtures/catalogue/existence.csv``)."""
    return load_catalogue(data_root() / "catalogue" / "existence.csv")


def catalogue(pool: Any) -> Catalogue:
    """The shipped catalogue joined with the pool's cards (their tiers; pool-only cards)."""
    return shipped_catalogue().with_pool([
        Card(c.name, c.number or "", c.set or "", "Token" if c.token else c.type.title(),
             c.orbital or "", c.dbs, c.rarity or "", c.tier, True) for c in pool])


@dataclass
class TableStart:
    round: int
    table: int
    a: str
    b: str
    match_id: str
    tokens: dict[str, str] | None  # None: a reissue created the match first


@dataclass(frozen=True)
class UnreadableTable:
    """A started table whose match's stored data can't be read (its file damaged: altered by
    hand, cut): its result is unknown, so it is left out of the standings, and no round is
    paired until the file is restored."""

    round: int
    table: int
    match_id: str
    problem: str  # the ledger's one line: which file, line and seq, and why

    def __str__(self) -> str:
        return f"round {self.round} table {self.table} ({self.match_id}): {self.problem}"


class Organizer:
    """The tournament operations over one store (see the module)."""

    def __init__(self, store: Store, tokens: TokenBook | PgTokenBook, pool: Any,
                 book: TournamentBook | None = None,
                 pools: Callable[[str], Any] | None = None,
                 chance: Callable[[str], random.Random] | None = None):
        """``pool``: the Wonders of The First pool; ``pools``: any game's pool by name (the
        server's, given ``--cards``), else each game's shipped pool; ``chance``: the RNG a
        table's set-up is drawn from, by match id (default: the OS's randomness)."""
        self.store, self.tokens, self.pool = store, tokens, pool
        self.chance = chance or (lambda _match_id: random.SystemRandom())
        self.book = book or tournament_book(store)
        self.game = game(GAME)
        self._pools = pools
        self._other_pools: dict[str, Any] = {}
        self._catalogue: Catalogue | None = None
        self._lock = threading.RLock()  # one change at a time in this process
        # An ended match's result, once read, with the store's version of the match it was
        # read at (:meth:`Store.versions`): final while that holds (no take-back, no second
        # ending), so the standings of a long event read only the matches still playing; a
        # match changed since (a file altered or restored by hand) is read again, as a fresh
        # process would.
        self._ended: dict[str, tuple[str, Result]] = {}

    @property
    def catalogue(self) -> Catalogue:
        if self._catalogue is None:
            self._catalogue = catalogue(self.pool)
        return self._catalogue

    def game_of(self, t: Tournament) -> Game:
        """The game every table of ``t`` plays."""
        return game(t.game)

    def pool_for(self, name: str) -> Any:
        """Game ``name``'s card pool (Wonders of The First's: the one this organizer was given)."""
        if name == GAME:
            return self.pool
        if self._pools is not None:
            return self._pools(name)
        if name not in self._other_pools:
            self._other_pools[name] = game(name).default_cards()
        return self._other_pools[name]

    @staticmethod
    def has_catalogue(t: Tournament) -> bool:
        """Whether ``t``'s game is the catalogue's (Wonders of The First): decklists of
        catalogue cards, DBS, cards entered at the table, pool files of printed stats."""
        return t.game == GAME

    def _catalogue_only(self, t: Tournament, what: str) -> None:
        if not self.has_catalogue(t):
            raise TournamentError(f"{t.name} is a {self.game_of(t).title} tournament: {what} "
                                  f"is for {self.game.title} tournaments only (a "
                                  f"{self.game_of(t).title} deck uses the cards of its pool)")

    # -- reading ---------------------------------------------------------------------------

    def load(self, tournament_id: str) -> Tournament:
        return self.book.load(tournament_id)

    def all(self) -> list[Tournament]:
        return [self.book.load(tid) for tid in self.book.ids()]

    def listing(self) -> tuple[list[Tournament], list[str]]:
        """Every tournament of the store that can be read, and the ids of those that can't
        (a log cut or edited by hand; each logged with why): one such log must not hide the
        others from the console, the API's list or the players' list."""
        listed, unreadable = [], []
        for tournament_id in self.book.ids():
            try:
                listed.append(self.book.load(tournament_id))
            except LedgerError as exc:
                log.warning("tournament %s left out (can't be read): %s", tournament_id, exc)
                unreadable.append(tournament_id)
        return listed, unreadable

    def results(self, tournament: Tournament) -> dict[str, Result]:
        """Each started table's match as the store records it: an ended one read once while
        the store's version of it is unchanged (its record is final), the others in one look
        at the store (PostgreSQL: one query for the versions, one for the rest)."""
        return self._results(tournament.match_ids())

    def readable_results(self, tournament: Tournament
                         ) -> tuple[dict[str, Result], dict[str, LedgerError]]:
        """:meth:`results`, and the started tables' matches whose stored data cannot be read
        (match id → the ledger's error), left out of the results: for the pages anyone reads,
        where one damaged match must not hide every other table's pairing and result."""
        try:
            return self.results(tournament), {}
        except LedgerError as exc:
            if not exc.is_stored_data:
                raise
        out: dict[str, Result] = {}
        damaged: dict[str, LedgerError] = {}
        for match_id in tournament.match_ids():  # one at a time: which one is damaged
            try:
                out.update(self._results([match_id]))
            except LedgerError as exc:
                if not exc.is_stored_data:
                    raise
                damaged[match_id] = exc
        return out, damaged

    def checked_results(self, tournament: Tournament
                        ) -> tuple[dict[str, Result], list[UnreadableTable]]:
        """:meth:`readable_results` for the organizer's views and exports (the API, the CSV
        files, the CLI): the results that can be read, and each table whose match can't, in
        round and table order (the caller says so: the server logs it, the CLI prints it)."""
        results, damaged = self.readable_results(tournament)
        unreadable = [UnreadableTable(r.number, tb.table, tb.match_id, str(damaged[tb.match_id]))
                      for r in tournament.rounds for tb in r.tables
                      if tb.match_id is not None and tb.match_id in damaged]
        return results, unreadable

    def _results(self, ids: list[str]) -> dict[str, Result]:
        versions = self.store.versions(ids)  # before the outcomes: never newer than them
        kept = {m: self._ended[m][1] for m in ids
                if m in self._ended and same_version(self._ended[m][0], versions.get(m))}
        unknown = [m for m in ids if m not in kept]
        outcomes = self.store.outcomes(unknown) if unknown else {}
        out = {}
        for match_id in ids:
            known = kept.get(match_id)
            if known is None:
                self._ended.pop(match_id, None)  # changed since, or never read ended
                outcome = outcomes.get(match_id)
                if outcome is None:
                    continue  # not created yet
                known = Result(outcome.ended, outcome.winner)
                version = versions.get(match_id)
                if known.ended and version is not None:  # (None: no version to trust yet)
                    self._ended[match_id] = (version, known)
            out[match_id] = known
        return out

    def standings(self, tournament: Tournament) -> list[Standing]:
        """The standings from the results that can be read (a table whose match can't be
        read is left out: :meth:`checked_results` says which)."""
        return standings(tournament, self.checked_results(tournament)[0])

    def csv(self, tournament: Tournament, kind: str) -> str:
        """An export; a table whose match can't be read is ``unreadable`` in the results and
        left out of the standings."""
        if kind == "pairings":
            rows = pairings_rows(tournament)
        elif kind == "results":
            results, unreadable = self.checked_results(tournament)
            rows = results_rows(tournament, results, {u.match_id for u in unreadable})
        elif kind == "standings":
            rows = standings_rows(self.standings(tournament))
        else:
            raise TournamentError(f"no export {kind!r} (pairings, results or standings)")
        return csv_text(rows)

    # -- changes -----------------------------------------------------------------------------

    def create(self, name: str, tournament_id: str | None = None,
               ruleset: str | None = None, game_name: str = GAME,
               round_minutes: int | None = None) -> Tournament:
        """A tournament of ``game_name`` (``wotf``, ``sow``) under ``ruleset`` (default: the
        game's newest); ``round_minutes`` its rounds' time (``None`` or 0: untimed)."""
        name = check_length(clean_name(name, "a tournament"), "a tournament's name", MAX_NAME)
        minutes = check_minutes(round_minutes or 0)
        try:
            played = game(game_name)
        except UnknownGameError as exc:
            raise TournamentError(f"game: {exc}") from None
        if ruleset is not None and ruleset not in played.rulesets:
            raise TournamentError(f"ruleset {ruleset!r}: {played.title} is played under "
                                  f"{' or '.join(played.rulesets)}")
        tid = check_tournament_id(tournament_id or tournament_slug(name))
        if self.book.exists(tid):
            raise ConflictError(f"tournament {tid!r} already exists; nothing was written")
        self.book.append(tid, 0, [{"type": "TournamentCreated", "tournament_id": tid,
                                   "name": name, "game": played.name,
                                   "ruleset": ruleset or played.rulesets[0],
                                   "round_minutes": minutes or None}])
        return self.load(tid)

    def set_round_time(self, tournament_id: str, minutes: int) -> Tournament:
        """The rounds' time from now on, the round under way included (0: untimed)."""
        minutes = check_minutes(minutes)
        return self._change(tournament_id, lambda _t: [{"type": "RoundClockSet",
                                                        "minutes": minutes}])

    def _change(self, tournament_id: str,
                build: Callable[[Tournament], list[dict[str, Any]]]) -> Tournament:
        """Append the events ``build`` makes from the tournament as it is now.  Changes made in
        this process wait for each other; when another process wrote first, the tournament
        is read again, ``build`` checks again, and the append is retried (a few times)."""
        with self._lock:
            for _attempt in range(ATTEMPTS):
                t = self.load(tournament_id)
                events = build(t)
                try:
                    self.book.append(t.tournament_id, t.length, events)
                except ConflictError:
                    time.sleep(random.uniform(0.01, 0.05))
                    continue
                return self.load(tournament_id)
        raise ConflictError(f"{t.name}: someone else changed the tournament at the same moment; "
                            f"submit again (nothing was written)")

    def pool_of(self, t: Tournament) -> Any:
        """The pool this tournament's tables record with: the server's, and the cards the
        organizer imported (``CardsImported``), an import replacing a same-named card."""
        if not t.cards:
            return self.pool_for(t.game)
        return self._wotf("pool_with")(self.pool, t.cards.values(), f"{t.name}: imported")

    def _wotf(self, name: str) -> Any:
        """One of the Wonders game's real-card operations (not part of the generic protocol)."""
        return getattr(self.game, name)

    def catalogue_of(self, t: Tournament) -> Catalogue:
        """What a decklist's names are looked up in: the catalogue joined with the pool
        (Wonders of The First), else the game's pool alone."""
        if not self.has_catalogue(t):
            return _pool_catalogue(self.pool_of(t))
        return self.catalogue if not t.cards else catalogue(self.pool_of(t))

    def import_cards(self, tournament_id: str, text: str, filename: str) -> tuple[Tournament, list[str]]:
        """A pool file (CSV or TOML, :mod:`replay.wotf.poolimport`) of printed stats: every
        card in it counts as in the pool from now on.  Nothing is written if a row is bad.
        Wonders of The First only."""
        self._catalogue_only(self.load(tournament_id), "importing a pool file of printed stats")
        cards = self._wotf("read_pool_file")(text, filename, self._catalogue_facts)
        t = self._change(tournament_id, lambda _t: [{
            "type": "CardsImported", "file": os.path.basename(filename)[-200:], "cards": cards}])
        return t, [c["name"] for c in cards]

    def _catalogue_facts(self, name: str) -> tuple[str, str, str, str, int, str] | None:
        found = shipped_catalogue().named(name)
        if found is None:
            return None
        return (found.type, found.orbital, found.set, found.number, found.dbs, found.rarity)

    def table_pool(self, t: Tournament, seats: list[SeatInfo]) -> Any:
        """The pool a table's match is created with: the tournament's, plus every catalogue
        card of its decks the pool has no rules data for, as a catalogue entry whose printed
        stats the owner enters at the table (docs/rulings.md R34).  Another game's tables use
        its pool as it is."""
        pool = self.pool_of(t)
        if not self.has_catalogue(t):
            return pool
        facts = []
        for name in sorted({e.card for info in seats for e in (*info.deck, *info.archive)}):
            if name in pool:
                continue
            found = shipped_catalogue().named(name)
            if found is None:
                raise TournamentError(f"{t.name}: card {name!r} is neither in the pool nor "
                                      f"in the catalogue")
            facts.append((found.name, found.type, found.orbital, found.set, found.number,
                          found.dbs, found.rarity))
        if not facts:
            return pool
        try:
            return self._wotf("entered_at_table")(pool, facts)
        except CardDataError as exc:
            raise TournamentError(f"{t.name}: {exc}") from None

    def register(self, tournament_id: str, player: str, decklist: str,
                 preset: str | None = None) -> Tournament:
        """A player (a late entry once round 1 is paired) with a decklist checked against the
        catalogue and rule 303; ``preset``: a pool deck the tables record with instead."""
        player = player_name(player)
        return self._change(tournament_id,
                            lambda t: [self._registered(_room_in(t), player, decklist, preset)])

    # -- players registering themselves ------------------------------------------------------

    def open_registration(self, tournament_id: str) -> tuple[Tournament, str]:
        """A new registration key (``RegistrationOpened`` keeps only its hash): players with
        the link register themselves until it is closed or round 1 is paired; an older key
        stops working.  Returns the tournament and the key (shown once)."""
        key = new_token()

        def build(t: Tournament) -> list[dict[str, Any]]:
            if t.rounds:
                raise TournamentError(f"{t.name}: round 1 is paired; players can no longer "
                                      f"register themselves (register late entries here)")
            return [{"type": "RegistrationOpened", "key_hash": hash_token(key)}]
        return self._change(tournament_id, build), key

    def close_registration(self, tournament_id: str) -> Tournament:
        """Self-registration stops (``RegistrationClosed``); the organizer still registers."""
        def build(t: Tournament) -> list[dict[str, Any]]:
            if t.registration_key_hash is None:
                raise TournamentError(f"{t.name}: registration is not open")
            return [{"type": "RegistrationClosed"}]
        return self._change(tournament_id, build)

    def check_key(self, t: Tournament, key: str) -> None:
        """Refuse (one line) a registration key that is not the open registration's."""
        if t.rounds:
            raise RegistrationRefusedError(f"{t.name}: round 1 is paired, so registration is "
                                           f"closed; late entries register at the organizer's "
                                           f"desk")
        if t.registration_key_hash is None:
            raise RegistrationRefusedError(f"{t.name}: registration is closed; ask the "
                                           f"organizer")
        if not hmac.compare_digest(hash_token(key), t.registration_key_hash):
            raise RegistrationRefusedError(f"{t.name}: this registration link is not (or no "
                                           f"longer) valid; ask the organizer for the current "
                                           f"one")

    def self_register(self, tournament_id: str, key: str, player: str,
                      decklist: str) -> tuple[Tournament, str]:
        """A player registering themselves with the registration ``key``: the organizer's
        checks (:meth:`_registered`: name, duplicates, the game's decklist checks), and a
        player token whose hash the ``PlayerRegistered`` event keeps.  Returns the token."""
        player = player_name(player)
        token = new_token()

        def build(t: Tournament) -> list[dict[str, Any]]:
            self.check_key(t, key)
            event = self._registered(_room_in(t), player, decklist, None)
            return [{**event, "token_hash": hash_token(token)}]
        return self._change(tournament_id, build), token

    def reissue_player_link(self, tournament_id: str,
                            player: str) -> tuple[Tournament, str, str]:
        """A new player link for ``player`` (a lost one: a closed tab, a dead phone): a new
        token whose hash ``PlayerLinkReissued`` keeps, so their old link stops working at once.
        A player registered at the desk gets their first link this way before round 1 is
        paired; after it, only a player who holds a link gets a new one
        (:meth:`ledger.tournament.Tournament.can_reissue_link`).  Returns the tournament, the
        player's name as registered and the token (shown once)."""
        token, name = new_token(), ""

        def build(t: Tournament) -> list[dict[str, Any]]:
            nonlocal name
            found = t.player(player)
            if not t.can_reissue_link(found):
                raise TournamentError(f"{t.name}: round 1 is paired and {found.name} never had "
                                      f"a player link; a link now could only show a list that "
                                      f"is final (it is on the console)")
            name = found.name  # as registered (a player removed just after: still named)
            return [{"type": "PlayerLinkReissued", "player": name,
                     "token_hash": hash_token(token)}]
        return self._change(tournament_id, build), name, token

    def player_of(self, t: Tournament, digest: str) -> Player:
        """The self-registered player whose link's token hashes to ``digest``, or a one-line
        refusal."""
        found = t.player_with_token(digest) if digest else None
        if found is None:
            raise RegistrationRefusedError(f"{t.name}: that is not (or no longer) a player "
                                           f"link of this tournament")
        return found

    def replace_decklist(self, tournament_id: str, digest: str, decklist: str) -> Tournament:
        """A player's new list through their link (``DecklistReplaced``), checked as a
        registration is (the same :meth:`_registered`, the player set aside), while
        registration is open and round 1 not paired, at most :data:`MAX_REPLACEMENTS` times
        a link (each list is in the log for good); ``digest``: the hash of the player's link
        token."""
        def build(t: Tournament) -> list[dict[str, Any]]:
            p = self.player_of(t, digest)
            if not t.is_registration_open:
                raise RegistrationRefusedError(
                    f"{t.name}: " + ("round 1 is paired" if t.rounds else
                                     "registration is closed") +
                    "; your decklist can no longer be replaced (ask the organizer)")
            if p.replaced_with_link >= MAX_REPLACEMENTS:
                raise TournamentError(
                    f"{t.name}: {p.name} has replaced their list {MAX_REPLACEMENTS} times with "
                    f"this link, the most a link may; ask the organizer (a new link from "
                    f"them replaces it {MAX_REPLACEMENTS} times more)")
            others = dataclasses.replace(t, players={n: q for n, q in t.players.items()
                                                     if n != p.name})
            checked = self._registered(others, p.name, decklist, None, new_name=False)
            return [{"type": "DecklistReplaced", "player": p.name,
                     **{k: checked[k] for k in ("deck_text", "cards", "archive", "dbs")}}]
        return self._change(tournament_id, build)

    def _registered(self, t: Tournament, player: str, decklist: str,
                    preset: str | None, new_name: bool = True) -> dict[str, Any]:
        """The ``PlayerRegistered`` event of ``player`` with ``decklist``, checked (the name
        too unless ``new_name`` is false: a replaced decklist keeps the name its log recorded,
        whatever a later check would say of it)."""
        if new_name:
            self._check_new_name(t, player)
        deck = self._decklist(t, check_length(decklist, "the decklist", MAX_DECKLIST))
        if preset:
            presets = preset_decks(self.game_of(t), self.pool_for(t.game))
            if preset not in presets:
                raise TournamentError(f"no preset deck {preset!r} (choose from "
                                      f"{', '.join(sorted(presets))})")
        else:  # tokens are never entered at the table: refused now, not at round 1's start
            self._check_tokens(t, player, deck.archive, "register the player with a preset deck")
        # the game's deck rules (a Wonders decklist with a preset: rule 303 was checked above)
        if not deck.outside_pool and not (preset and self.has_catalogue(t)):
            self._check_pool(player, deck, self.pool_of(t), self.game_of(t))
        return {"type": "PlayerRegistered", "player": player,
                "deck_text": decklist.removeprefix(BOM).strip(), "cards": deck.cards,
                "archive": deck.archive, "dbs": deck.dbs if self.has_catalogue(t) else None,
                "preset": preset or None, "round": len(t.rounds)}

    @staticmethod
    def _check_new_name(t: Tournament, player: str) -> None:
        """Refuse a new name that is a registered player's (in another case, form, with
        invisible characters) or reads the same as one's (:meth:`Tournament.looks_like`)."""
        check_length(player, "a player's name", MAX_NAME)
        same = t.same_player(player)
        if same is not None:
            raise TournamentError(f"{t.name}: {player!r} is registered already" +
                                  (f" (as {same.name!r})" if same.name != player else ""))
        twin = t.looks_like(player)
        if twin is not None:
            odd = min((ch for ch in player if ch not in twin.name), default=player[0],
                      key=str.isascii)  # a character of another script first
            raise TournamentError(
                f"{t.name}: {player!r} reads the same as {twin.name!r}, registered already "
                f"({odd!r} is U+{ord(odd):04X} {unicodedata.name(odd, 'an unnamed character')})"
                f"; choose a name the pages can tell apart")

    def _decklist(self, t: Tournament, text: str) -> Decklist:
        """``text``'s ``count name`` lines: against the catalogue and rule 303 (Wonders of The
        First), else against the game's pool alone, its deck rules checked after
        (:meth:`_check_pool`)."""
        if self.has_catalogue(t):
            return parse_decklist(text, self.catalogue_of(t))
        names = self.catalogue_of(t)
        model = f"1 {names.cards[0].name}" if names.cards else "1 name"
        cards: dict[str, int] = {}
        for _line, count, card in read_decklist(text, names,
                                                f"the {self.game_of(t).title} card pool", model):
            cards[card.name] = cards.get(card.name, 0) + count
        return Decklist(cards, {}, 0)

    def drop(self, tournament_id: str, player: str) -> Tournament:
        """``player`` is not paired from the next round on (still in the standings)."""
        def build(t: Tournament) -> list[dict[str, Any]]:
            found = t.player(player)
            if found.dropped is not None:
                raise TournamentError(f"{t.name}: {found.name} {found.dropped_when} already")
            return [{"type": "PlayerDropped", "player": found.name, "round": len(t.rounds)}]
        return self._change(tournament_id, build)

    def remove(self, tournament_id: str, player: str) -> Tournament:
        """Take back ``player``'s registration before round 1 is paired (``PlayerRemoved``):
        junk registered with the public link, say; after round 1, drop them instead."""
        def build(t: Tournament) -> list[dict[str, Any]]:
            found = t.player(player)
            if t.rounds:
                raise TournamentError(f"{t.name}: round 1 is paired; {found.name} can be "
                                      f"dropped, not removed")
            return [{"type": "PlayerRemoved", "player": found.name}]
        return self._change(tournament_id, build)

    def remove_many(self, tournament_id: str, players: Sequence[str] = (),
                    self_registered_from: str | None = None) -> tuple[Tournament, list[str]]:
        """Take back many registrations at once before round 1 (a flood of junk from someone
        with the registration link): the named ``players`` and, with
        ``self_registered_from``, every player who registered themselves from that one on
        (:meth:`ledger.tournament.Tournament.self_registered_from`).  One ``PlayerRemoved``
        a player, in one append: all of them or, if any is refused (no such player, round 1
        paired), none.  Returns the tournament and the names removed, as registered."""
        removed: list[str] = []

        def build(t: Tournament) -> list[dict[str, Any]]:
            if t.rounds:
                raise TournamentError(f"{t.name}: round 1 is paired; players can be dropped, "
                                      f"not removed")
            chosen = dict.fromkeys(t.player(name).name for name in players)
            if self_registered_from is not None:
                chosen.update(dict.fromkeys(
                    p.name for p in t.self_registered_from(self_registered_from)))
            if not chosen:
                raise TournamentError(f"{t.name}: no player to remove was named")
            removed[:] = list(chosen)
            return [{"type": "PlayerRemoved", "player": name} for name in chosen]
        return self._change(tournament_id, build), removed

    def reinstate(self, tournament_id: str, player: str) -> Tournament:
        """Undo a drop: ``player`` is paired again from the next round paired
        (``PlayerReinstated``); the rounds they missed stay missed."""
        def build(t: Tournament) -> list[dict[str, Any]]:
            found = t.player(player)
            if found.dropped is None:
                raise TournamentError(f"{t.name}: {found.name} is not dropped")
            return [{"type": "PlayerReinstated", "player": found.name, "round": len(t.rounds)}]
        return self._change(tournament_id, build)

    def start_round(self, tournament_id: str) -> tuple[Tournament, list[TableStart]]:
        """Pair the next round (or take a round paired by an older start), claim it by
        appending ``RoundStarted`` and only then create its matches: of two desks starting
        it at once, the one whose claim is refused creates nothing (:meth:`_claim`)."""
        with self._lock:
            t, number = self._claim(tournament_id)
            return self.load(tournament_id), self._create_tables(t, number)

    def _claim(self, tournament_id: str) -> tuple[Tournament, int]:
        """Append the round's pairing (if not paired yet) and its ``RoundStarted`` (match ids
        ``{id}-r{round}-t{table:02d}``) as one change (:meth:`_change`); returns the tournament
        as claimed and the round's number.  A claim another writer raced is tried again,
        unless that writer claimed the round."""
        claimed: list[int] = []  # the round each attempt claimed

        def build(t: Tournament) -> list[dict[str, Any]]:
            if claimed:  # an attempt was raced: by another desk's claim of that round?
                self._refuse_raced(t, claimed[-1])
            current = t.current
            if current is not None and current.started:
                self._refuse_unfinished(t, current)
            events: list[dict[str, Any]] = []
            if current is None or current.started:
                events.append(next_round(t, self._pairing_results(t)))
                tables = [(tb["table"], tb["a"], tb["b"]) for tb in events[0]["tables"]]
                number = events[0]["round"]
            else:  # paired by a start that stopped before its RoundStarted
                tables = [(tb.table, tb.a, tb.b) for tb in current.tables]
                number = current.number
            for _table, a, b in tables:  # every deck checked before anything is written
                self._check_table(t, a, b)
            claimed.append(number)
            return [*events, {"type": "RoundStarted", "round": number, "matches": {
                str(table): _match_id(t, number, table) for table, _a, _b in tables}}]

        return self._change(tournament_id, build), claimed[-1]

    def _pairing_results(self, t: Tournament) -> dict[str, Result]:
        """Every table's result, to pair by; a table whose match can't be read stops the
        pairing, named (the standings it would pair by are not known)."""
        results, unreadable = self.checked_results(t)
        if unreadable:
            raise TournamentError(
                f"{t.name}: the next round can't be paired while a table's match can't be read "
                f"(its result is unknown): {'; '.join(map(str, unreadable))} -- restore the "
                f"file from a backup or an export (wonders import), then pair again; nothing "
                f"was written")
        return results

    def _refuse_raced(self, t: Tournament, number: int) -> None:
        """Another desk's claim of round ``number`` won: its links are with that desk."""
        if len(t.rounds) >= number and t.rounds[number - 1].started:
            raise ConflictError(f"{t.name}: round {number} was started at the same moment by "
                                f"another desk; its links are with them — reissue a table's "
                                f"tokens to see them again (nothing was written)")

    def _refuse_unfinished(self, t: Tournament, current: Any) -> None:
        """A started round some of whose matches don't exist yet: the desk that claimed it
        is creating them, or stopped half-way -- a reissue creates a missing one."""
        missing = [str(tb.table) for tb in current.tables
                   if tb.match_id and not self.store.exists(tb.match_id)]
        if missing:
            raise ConflictError(
                f"{t.name}: round {current.number} was started by another desk (just now, or a "
                f"start that stopped half-way) and table{'s' if len(missing) > 1 else ''} "
                f"{', '.join(missing)} {'have' if len(missing) > 1 else 'has'} no match yet; "
                f"its links are with that desk — reissue a table's tokens to create its match "
                f"and see them (nothing was written)")

    def _create_tables(self, t: Tournament, number: int) -> list[TableStart]:
        """The claimed round's matches, each with its tokens (``None``: a match someone
        created first, by a reissue)."""
        tables = t.rounds[number - 1].tables
        ids = {tb.table: tb.match_id or _match_id(t, number, tb.table) for tb in tables}
        try:
            tokens = self._create_round(t, number, tables, ids)
        except LedgerError as exc:
            raise type(exc)(f"{t.name}: round {number} is started but its matches could not "
                            f"be created ({exc}); reissue every table's tokens of round "
                            f"{number} to create the missing matches and see the links") from None
        return [TableStart(number, tb.table, tb.a, tb.b, ids[tb.table], tokens.get(ids[tb.table]))
                for tb in tables]

    def _create_round(self, t: Tournament, number: int, tables: list[Table],
                      ids: dict[int, str]) -> dict[str, dict[str, str]]:
        """Create every table's match that does not exist yet, with its tokens, as one
        creation (:meth:`web.tokens.TokenBook.creating_many`, :meth:`Store.create_many`):
        the ``fsync`` calls a round costs are one per match file and a few for the whole
        round, not eight per table (PostgreSQL: one connection holds the ids, one
        transaction writes the tokens and one the matches, not a connection and four
        commits per table).  Returns the new tokens by match id (a match created
        meanwhile by another desk's reissue has none)."""
        # every match's first lines made before anything is written (or an id held); a
        # match a reissue created meanwhile is left out by the creation
        openings = {ids[tb.table]: self._opening(t, number, tb, ids[tb.table]) for tb in tables}
        with self.tokens.creating_many(list(openings)) as creation:
            tokens = creation.issue()
            try:
                self.store.create_many([openings[m] for m in creation.ids])
            except ConflictError as exc:  # a file put there without taking its id
                if exc.match_id in creation.ids:
                    creation.not_ours(creation.ids[creation.ids.index(exc.match_id):])
                raise
        return tokens

    def _opening(self, t: Tournament, number: int, tb: Table,
                 match_id: str) -> tuple[MatchOpened, list[Event]]:
        """A table's ``MatchOpened`` and first batch, as :meth:`_create` would write them."""
        a, b = _as_seat(self._seat(t, tb.a), "A"), _as_seat(self._seat(t, tb.b), "B")
        return Recorder.opening(self.table_pool(t, [a, b]),
                                self._opened(t, number, tb.table, match_id, a, b),
                                self.chance(match_id))

    def reissue(self, tournament_id: str, round_no: int, table_no: int,
                role: str) -> tuple[str, dict[str, str]]:
        """New tokens for ``role`` (``A``, ``B``, ``judge`` or ``all``) of a table: the old
        ones stop working.  Returns the match id and the new tokens."""
        t, match_id = self._table_match(tournament_id, round_no, table_no)
        roles = _roles(role)
        issued = self._create_missing(t, round_no, table_no, match_id)
        if issued is not None:  # the start that claimed the round never created it
            self._record_tokens(t, {"type": "TokenReissued", "round": round_no,
                                    "table": table_no, "role": "all"})
            return match_id, issued
        issued = {r: new_token() for r in roles}
        self.tokens.replace_roles(match_id, {r: hash_token(tok) for r, tok in issued.items()})
        self._record_tokens(t, {"type": "TokenReissued", "round": round_no, "table": table_no,
                                "role": role})
        return match_id, issued

    def _create_missing(self, t: Tournament, round_no: int, table_no: int,
                        match_id: str) -> dict[str, str] | None:
        """A started table whose match doesn't exist (its start stopped half-way, or is still
        creating it at another desk) is created now: its three tokens, or ``None`` if the
        match exists (or another desk created it first)."""
        if self.store.exists(match_id):
            return None
        tb = t.table(round_no, table_no)
        try:
            return self._create(t, round_no, table_no, match_id,
                                _as_seat(self._seat(t, tb.a), "A"),
                                _as_seat(self._seat(t, tb.b), "B"))
        except ConflictError:
            return None

    def revoke(self, tournament_id: str, round_no: int, table_no: int, role: str) -> str:
        """``role``'s token of a table stops working (no new one is shown: reissue for that)."""
        t, match_id = self._table_match(tournament_id, round_no, table_no)
        if not self.store.exists(match_id):  # tokens without a match would block its create
            raise TournamentError(f"{t.name}: round {round_no} table {table_no} has no match "
                                  f"yet (its start stopped half-way): reissue its tokens to "
                                  f"create it")
        # a hash no token has: the role is kept, nobody holds it
        self.tokens.replace_roles(match_id, {r: hash_token(secrets.token_urlsafe(48))
                                             for r in _roles(role)})
        self._record_tokens(t, {"type": "TokenRevoked", "round": round_no, "table": table_no,
                                "role": role})
        return match_id

    def _record_tokens(self, t: Tournament, event: dict[str, Any]) -> None:
        """Log a reissue or revoke already in force (the tokens changed first: a log entry
        never claims a change that did not happen)."""
        try:
            self._change(t.tournament_id, lambda _t: [event])
        except ConflictError:
            raise ConflictError(f"{t.name}: the tokens were changed and are in force, but the "
                                f"tournament's log could not record it (someone else changed "
                                f"the tournament at the same moment, repeatedly); nothing "
                                f"else needs doing") from None

    # -- internals -----------------------------------------------------------------------------

    def _check_pool(self, player: str, deck: Decklist, pool: Any, played: Game) -> None:
        info = SeatInfo(as_seat("A"), player, f"{player}'s deck",
                        [DeckEntry(c, n) for c, n in deck.cards.items()],
                        [DeckEntry(c, n) for c, n in deck.archive.items()])
        problems = deck_problems(info, pool, played)
        if problems:  # one line, for a player: no seat yet
            raise DecklistError(f"{player}'s deck is not legal ({played.title}): "
                                + "; ".join(problems[:5]))

    def _check_tokens(self, t: Tournament, name: str, archive: dict[str, int],
                      otherwise: str) -> None:
        """Archive tokens must be in the pool: a token is never entered at the table."""
        pool = self.pool_of(t)
        missing = [c for c in archive if c not in pool]
        if missing:
            raise TournamentError(
                f"{t.name}: {name}'s archive has tokens the card pool has no rules data for "
                f"({', '.join(missing[:5])}{'…' if len(missing) > 5 else ''}): import their "
                f"stats (a pool file), or {otherwise}")

    def _check_table(self, t: Tournament, a: str, b: str) -> None:
        seats = [_as_seat(self._seat(t, a), "A"), _as_seat(self._seat(t, b), "B")]
        check_decks(seats, self.table_pool(t, seats), self.game_of(t))

    def _seat(self, t: Tournament, name: str) -> SeatInfo:
        p = t.player(name)
        if p.preset:
            found = preset_decks(self.game_of(t), self.pool_for(t.game))[p.preset]
            deck = found.load() if hasattr(found, "load") else found
            return SeatInfo(as_seat("A"), name, deck.name, deck.entries(), deck.archive_entries())
        self._check_tokens(t, name, p.archive, "register a preset deck to record with, or "
                                               "drop the player")
        entries = Entries(f"{name}'s deck", [DeckEntry(c, n) for c, n in p.cards.items()],
                          [DeckEntry(c, n) for c, n in p.archive.items()])
        return SeatInfo(as_seat("A"), name, entries.name, entries.entries(),
                        entries.archive_entries())

    def _create(self, t: Tournament, round_no: int, table_no: int, match_id: str,
                a: SeatInfo, b: SeatInfo) -> dict[str, str]:
        opened = self._opened(t, round_no, table_no, match_id, a, b)
        with self.tokens.creating(match_id) as creation:
            tokens = creation.issue()
            try:
                Recorder.open(self.store, self.table_pool(t, [a, b]), opened,
                              self.chance(match_id))
            except ConflictError:
                creation.not_ours()
                raise
        return tokens

    def _opened(self, t: Tournament, round_no: int, table_no: int, match_id: str,
                a: SeatInfo, b: SeatInfo) -> MatchOpened:
        played = self.game_of(t)
        return MatchOpened(match_id=match_id, ruleset=t.ruleset or played.rulesets[0],
                           seats=[a, b], format="constructed", tournament=t.name,
                           round=round_no, table=table_no, game_number=1,
                           previous_loser=None, engine_version=played.engine_version,
                           game=played.name)

    def _table_match(self, tournament_id: str, round_no: int,
                     table_no: int) -> tuple[Tournament, str]:
        t = self.load(tournament_id)
        tb = t.table(round_no, table_no)
        if tb.match_id is None:
            raise TournamentError(f"{t.name}: round {round_no} table {table_no} has not "
                                  f"started")
        return t, tb.match_id


def _room_in(t: Tournament) -> Tournament:
    """``t``, if it has room for one more player (:data:`ledger.tournament.MAX_PLAYERS`)."""
    if len(t.players) >= MAX_PLAYERS:
        raise TournamentError(f"{t.name}: {len(t.players)} players registered, the most a "
                              f"tournament takes ({MAX_PLAYERS})")
    return t


def _pool_catalogue(pool: Any) -> Catalogue:
    """A game's pool as a catalogue of names (no set numbers, no DBS): what a decklist of a
    game without a catalogue is looked up in."""
    return Catalogue([Card(name, in_pool=True) for name in pool.names()])


def _match_id(t: Tournament, round_no: int, table_no: int) -> str:
    return f"{t.tournament_id}-r{round_no}-t{table_no:02d}"


def _as_seat(info: SeatInfo, seat: str) -> SeatInfo:
    return SeatInfo(as_seat(seat), info.player, info.deck_name, info.deck, info.archive)


def _roles(role: str) -> tuple[str, ...]:
    if role == "all":
        return ROLES
    if role not in ROLES:
        raise TournamentError(f"role {role!r}: A, B, judge or all")
    return (role,)
