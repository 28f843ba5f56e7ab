"""The simulator: bots play matches (or a Swiss tournament) into a store, reproducibly.

Everything random comes from ``random.Random`` instances derived from the seed -- the chance
seat, each bot, the deck assignment, the pairings -- and the recorded time comes from a
:class:`SimClock` derived from the seed too, so the same arguments give byte-identical files.

``bulk=True`` writes each finished match durably at once (recorded batch by batch in a
:class:`~ledger.buffered.MatchBuffer`, then the store's ``import_lines``: one write and one
fsync of the file, and one of the directory) instead of one fsync per batch; the bytes are
the same.  Only for simulation: the live recorder acknowledges a decision once it is on disk.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from ledger.buffered import MatchBuffer
from ledger.codec import format_time
from ledger.events import DeckEntry, MatchEnded, MatchOpened, SeatInfo
from ledger.store import Store
from ledger.tournament import pair, tournament_slug
from replay.games import game
from replay.recorder import Recorder

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class SimClock:
    """A deterministic clock: starts at a seed-derived moment, ticks a few seconds per call."""

    def __init__(self, seed: int, start: datetime = EPOCH):
        self.rng = random.Random(f"clock:{seed}")
        self.now = start + timedelta(minutes=self.rng.randrange(0, 60 * 24 * 300))

    def __call__(self) -> str:
        self.now += timedelta(milliseconds=self.rng.randrange(2000, 45000))
        return format_time(self.now)


@dataclass(frozen=True)
class Entrant:
    """A simulated player: a name, a deck and a bot."""

    name: str
    deck_name: str
    deck: list[DeckEntry]
    archive: list[DeckEntry]
    bot: str


@dataclass
class Standing:
    entrant: Entrant
    points: int = 0
    wins: int = 0
    byes: int = 0
    opponents: list[str] = field(default_factory=list)


def play_match(store: Store, db: Any, opened: MatchOpened, seed: int,
               bots: tuple[str, str], clock: Callable[[], str] | None = None,
               bulk: bool = False) -> MatchOpened:
    """Record one bot-vs-bot match into ``store``; returns its ``MatchOpened``.  ``bulk``:
    play it into memory and write the finished file at once (the module docstring)."""
    if bulk:
        buffer = MatchBuffer()
        play_match(buffer, db, opened, seed, bots, clock)
        store.import_lines(buffer.export_lines(opened.match_id), f"simulated {opened.match_id}")
        return opened
    recorder = Recorder.open(store, db, opened, rng=random.Random(f"chance:{seed}"),
                             clock=clock or SimClock(seed))
    play_out(recorder, seed, bots)
    return opened


def play_out(recorder: Recorder, seed: int, bots: tuple[str, str]) -> None:
    """The bots (named ``bots``, seeded from ``seed``) decide at every seat's prompt of the
    recorder's match until it ends."""
    makers = recorder.game.bots
    players = {"A": makers[bots[0]](random.Random(f"A:{seed}")),
               "B": makers[bots[1]](random.Random(f"B:{seed}"))}
    while recorder.engine.prompt is not None:
        prompt = recorder.engine.prompt
        recorder.submit(players[prompt.seat].decide(recorder.engine, prompt))
    recorder.engine.close()  # the match is over: freed now, not by the garbage collector


def _opened(match_id: str, a: Entrant, b: Entrant, ruleset: str | None, game_name: str = "wotf",
            **meta: Any) -> MatchOpened:
    played = game(game_name)
    seats = [SeatInfo("A", a.name, a.deck_name, a.deck, a.archive),
             SeatInfo("B", b.name, b.deck_name, b.deck, b.archive)]
    return MatchOpened(match_id=match_id, ruleset=ruleset or played.rulesets[0], seats=seats,
                       game=game_name, engine_version=played.engine_version, **meta)


def entrants(decks: Sequence, bots: Sequence[str], count: int, rng: random.Random) -> list[Entrant]:
    """``count`` players, each with a seeded choice of deck and the bots in turn."""
    out = []
    for i in range(count):
        deck = decks[rng.randrange(len(decks))]
        out.append(Entrant(f"Player {i + 1:02d}", deck.name, deck.entries(),
                           deck.archive_entries(), bots[i % len(bots)]))
    return out


def simulate_matches(store: Store, db: Any, decks: Sequence, count: int, seed: int,
                     ruleset: str | None = None, bots: Sequence[str] = ("greedy", "greedy"),
                     prefix: str = "m", rules_revision: int = 0,
                     game_name: str = "wotf", bulk: bool = False) -> Iterator[MatchOpened]:
    """``count`` independent matches, ids ``m-0001`` …; yields each as it is written.
    ``rules_revision`` records them under an earlier rules revision (default: the current);
    ``bulk`` writes each finished match at once (the module docstring)."""
    rng = random.Random(f"decks:{seed}")
    for i in range(count):
        a_deck, b_deck = decks[rng.randrange(len(decks))], decks[rng.randrange(len(decks))]
        a = Entrant(f"{bots[0]} bot", a_deck.name, a_deck.entries(), a_deck.archive_entries(), bots[0])
        b = Entrant(f"{bots[-1]} bot", b_deck.name, b_deck.entries(), b_deck.archive_entries(), bots[-1])
        match_seed = rng.randrange(2**63)
        opened = _opened(f"{prefix}-{i + 1:04d}", a, b, ruleset, game_name,
                         rules_revision=rules_revision)
        yield play_match(store, db, opened, match_seed, (a.bot, b.bot), SimClock(match_seed),
                         bulk)


def simulate_tournament(store: Store, db: Any, decks: Sequence, name: str, players: int,
                        rounds: int, seed: int, ruleset: str | None = None,
                        bots: Sequence[str] = ("greedy",),
                        game_name: str = "wotf", bulk: bool = False,
                        tournament_id: str | None = None) -> Iterator[MatchOpened]:
    """A Swiss tournament (its matches ``<tournament_id>-r1-t01`` …, by default the id made
    from its name): each round orders players by match points (3 win, 1 draw; ties in
    a seeded random order) and pairs them with the tournament tool's :func:`~ledger.tournament.pair`
    (no rematch while a rematch-free pairing exists; the bye, 3 points, to the lowest-ranked
    player without one)."""
    rng = random.Random(f"tournament:{seed}")
    table = {e.name: Standing(e) for e in entrants(decks, bots, players, rng)}
    slug = tournament_id or tournament_slug(name)
    clock = SimClock(seed)
    for round_no in range(1, rounds + 1):
        order = sorted(table.values(), key=lambda st: (-st.points, rng.random()))
        pairs, bye = _pair(order, table)
        if bye is not None:
            bye.points += 3
            bye.byes += 1
        for number, (one, two) in enumerate(pairs, start=1):
            match_seed = rng.randrange(2**63)
            opened = _opened(f"{slug}-r{round_no}-t{number:02d}", one.entrant, two.entrant,
                             ruleset, game_name, tournament=name, round=round_no, table=number)
            play_match(store, db, opened, match_seed, (one.entrant.bot, two.entrant.bot), clock,
                       bulk)
            _score(store, opened.match_id, one, two)
            yield opened


def _pair(order: list[Standing], table: dict[str, Standing]
          ) -> tuple[list[tuple[Standing, Standing]], Standing | None]:
    """The round's tables and bye, by the tournament tool's Swiss pairing."""
    met = {st.entrant.name: set(st.opponents) for st in order}
    had_bye = {st.entrant.name for st in order if st.byes}
    found = pair([st.entrant.name for st in order], met, had_bye)
    bye = table[found.bye] if found.bye is not None else None
    return [(table[a], table[b]) for a, b in found.tables], bye


def _score(store: Store, match_id: str, one: Standing, two: Standing) -> None:
    winner = None
    for stored in store.read(match_id):
        if isinstance(stored.event, MatchEnded):
            winner = stored.event.winner
    one.opponents.append(two.entrant.name)
    two.opponents.append(one.entrant.name)
    if winner is None:
        one.points += 1
        two.points += 1
    else:
        victor = one if winner == "A" else two
        victor.points += 3
        victor.wins += 1
