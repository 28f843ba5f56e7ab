"""The demo's tournament, run through the tournament tool (:class:`web.tournaments.Organizer`,
what the console ``/organize`` and ``wonders tournament`` use), its tables played by bots.

The tournament is created with 50-minute rounds; its players, with plausible names
(:func:`player_names`), register with the game's shipped decks (Wonders of The First: the
deck files, pasted as ``count name`` lines, recorded as presets; State of Wonder: its sample
decks); each round is started by :meth:`~web.tournaments.Organizer.start_round` (Swiss
pairing, every table's match created with its tokens) and every table's match is then played
to its end by the game's bots (:func:`replay.simulate.play_out`), round after round.  So the
store holds the tournament's log as a real event leaves it: the players' pages
(``/tournaments``) and the console show it.

Everything the games depend on comes from the seed: the decks dealt, each table's set-up
(the organizer's ``chance``), the bots and the chance they meet.  The tokens and the times
written are not (the organizer's own: the OS's randomness and the clock).

Each player is given a player link once registered (before round 1 is paired: after it the
tool gives a first link to no one), and each start of the demo gives them new ones
(:func:`player_links`) that it prints by name: a newcomer opens a player's own page
(``/tournaments/<id>/me``).

Every tournament table is played to its end, so no seat of it has anything left to do: the
newcomer's table is a practice match (:func:`practice_table`), outside the tournament, between
its first two players with their decks, left at its first prompt, whose seat and judge tokens
the demo prints as ``/play`` links.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ledger.events import MatchOpened, SeatInfo, as_seat
from ledger.store import Store
from ledger.tournament import Tournament
from replay.games import game
from replay.recorder import Recorder
from replay.simulate import play_out
from web.api.organizer import preset_decks
from web.tokens import ROLES, hash_token, new_token, token_book
from web.tournaments import Organizer

TOURNAMENTS = {"wotf": ("Demo Cup", "demo-cup"), "sow": ("Demo Siege", "demo-siege")}
ROUND_MINUTES = 50
BOTS = ("greedy", "greedy")
#: Sixteen given names and sixteen family names: player i is given name i % 16 with family
#: name (i % 16 + i // 16) % 16, so the first 16 players and up to 256 in all are distinct.
GIVEN = ["Amara", "Mateo", "Yuki", "Priya", "Lars", "Fatima", "Kwame", "Sofia", "Hiroshi",
         "Chloé", "Ibrahim", "Ingrid", "Diego", "Mei", "Tomasz", "Aroha"]
FAMILY = ["Okafor", "García", "Tanaka", "Sharma", "Lindqvist", "Haddad", "Mensah", "Rossi",
          "Nakamura", "Dubois", "Kaya", "Olsen", "Hernández", "Chen", "Nowak", "Walker"]


def player_names(count: int) -> list[str]:
    """``count`` (at most 256) distinct players' names, the same ones every time."""
    if not 0 <= count <= len(GIVEN) * len(FAMILY):
        raise ValueError(f"{count} players: the demo names at most {len(GIVEN) * len(FAMILY)}")
    n = len(GIVEN)
    return [f"{GIVEN[i % n]} {FAMILY[(i % n + i // n) % n]}" for i in range(count)]


def organizer(store: Store, seed: int) -> Organizer:
    """The tournament tool over ``store``, each table's set-up drawn from ``seed``."""
    return Organizer(store, token_book(store), game("wotf").default_cards(),
                     chance=lambda match_id: random.Random(f"set-up:{seed}:{match_id}"))


def create(org: Organizer, game_name: str, players: int, seed: int) -> Tournament:
    """The game's demo tournament with ``players`` registered, each with a shipped deck dealt
    from ``seed``."""
    name, tid = TOURNAMENTS[game_name]
    org.create(name, tid, None, game_name, ROUND_MINUTES)
    presets = preset_decks(game(game_name), org.pool_for(game_name))
    rng = random.Random(f"decks:{seed}")
    keys = sorted(presets)
    for player in player_names(players):
        key = keys[rng.randrange(len(keys))]
        org.register(tid, player, decklist(presets[key]), preset=key)
    for player in player_names(players):  # a first link, while round 1 is not paired
        org.reissue_player_link(tid, player)
    return org.load(tid)


def decklist(preset: Any) -> str:
    """A shipped deck pasted as ``count name`` lines (its archive's tokens too)."""
    deck = preset.load() if hasattr(preset, "load") else preset
    return "".join(f"{e.count} {e.card}\n" for e in (*deck.entries(), *deck.archive_entries()))


def play_rounds(org: Organizer, tournament_id: str, rounds: int, seed: int) -> Iterator[str]:
    """Start rounds until the tournament has ``rounds``, every table's match played to its
    end before the next round starts; yields each match's id as it ends."""
    t = org.load(tournament_id)
    while len(t.rounds) < rounds:
        t, tables = org.start_round(tournament_id)
        for table in tables:
            play(org, t, table.match_id, seed)
            yield table.match_id


def finish(org: Organizer, tournament_id: str, seed: int) -> Iterator[str]:
    """The started tables whose match has not ended (a run stopped half-way), played to their
    end; yields each one's id."""
    t = org.load(tournament_id)
    for match_id, result in org.results(t).items():
        if not result.ended:
            play(org, t, match_id, seed)
            yield match_id


def play(org: Organizer, t: Tournament, match_id: str, seed: int) -> None:
    """The bots play table ``match_id`` of ``t`` from where it stands to its end."""
    match_seed = random.Random(f"match:{seed}:{match_id}").randrange(2**63)
    recorder = Recorder.resume(org.store, org.pool_of(t), match_id,
                               rng=random.Random(f"chance:{match_seed}"))
    play_out(recorder, match_seed, BOTS)


def player_links(org: Organizer, tournament_id: str) -> dict[str, str]:
    """Each player's new player-link token, by name, in registration order: every start of the
    demo gives them new ones (only their hashes are kept, in ``PlayerLinkReissued``), and the
    links printed before stop working.  A player who never had a link is left out (after round
    1 the tournament tool gives none: a tournament an older demo made)."""
    t = org.load(tournament_id)
    tokens: dict[str, str] = {}
    for player in t.players.values():
        if t.can_reissue_link(player):
            _t, name, token = org.reissue_player_link(tournament_id, player.name)
            tokens[name] = token
    return tokens


@dataclass(frozen=True)
class Practice:
    """The newcomer's table: its match, its players (seat A's, seat B's) and its tokens by
    role (``A``, ``B``, ``judge``), issued now."""

    match_id: str
    players: tuple[str, str]
    tokens: dict[str, str]


def practice_table(org: Organizer, tournament_id: str) -> Practice:
    """A practice match between the tournament's first two players, with their decks, for a
    newcomer to play at ``/play`` -- no tournament's table, so nothing of the tournament
    changes.  Made once (its set-up drawn from the organizer's ``chance``); every later call
    gives its three roles new tokens (only their hashes are kept, so the ones printed
    before can't be shown again), and the links printed before stop working."""
    t = org.load(tournament_id)
    match_id = f"practice-{tournament_id}"
    if org.store.exists(match_id):
        seats = org.store.info(match_id).opened.seats
        tokens = {role: new_token() for role in ROLES}
        org.tokens.replace_roles(match_id, {r: hash_token(tok) for r, tok in tokens.items()})
        return Practice(match_id, (seats[0].player, seats[1].player), tokens)
    a, b = list(t.players)[:2]
    seats = [_seat(org, t, a, "A"), _seat(org, t, b, "B")]
    played = game(t.game)
    opened = MatchOpened(match_id=match_id, ruleset=t.ruleset or played.rulesets[0],
                         seats=seats, format="constructed", engine_version=played.engine_version,
                         game=played.name)
    with org.tokens.creating(match_id) as creation:  # the tokens first, as every create
        tokens = creation.issue()
        Recorder.open(org.store, org.table_pool(t, seats), opened, org.chance(match_id))
    return Practice(match_id, (a, b), tokens)


def _seat(org: Organizer, t: Tournament, name: str, seat: str) -> SeatInfo:
    """``name``'s seat with the shipped deck they registered (every demo player has one)."""
    found = preset_decks(game(t.game), org.pool_for(t.game))[t.player(name).preset or ""]
    deck = found.load() if hasattr(found, "load") else found
    return SeatInfo(as_seat(seat), name, deck.name, deck.entries(), deck.archive_entries())
