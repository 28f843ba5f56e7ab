"""The named meta-game statistics, as SQL over the warehouse plus Wilson intervals.

Each statistic is a function ``(con, Filters) -> Table``.  DuckDB does the counting; the
intervals are computed in Python by :mod:`ledger.intervals` (written once, tested against
published values).  Definitions (also in ``docs/analytics.md``):

* a **game** is one seat of one *finished* match (a ``MatchEnded`` in force); a **win** is a
  game whose seat is the match winner; a draw is a game that is not a win.  A win rate is
  ``wins / games``, always reported with ``games`` and a Wilson 95% interval;
* ``--game``, ``--ruleset`` and ``--tournament`` filter the matches (every statistic works for
  every game unless it names a game's own table: ``realms``, ``dbs`` are Wonders', ``sieges``
  State of Wonder's); ``--min-games`` drops rows with
  fewer games (for ``cards``: games with the card in the deck).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import msgspec

from ledger.duckfile import foreign_file_problem
from ledger.errors import LedgerError
from ledger.intervals import newcombe, rate, wilson
from ledger.rows import MatchRow, sql_columns


class StatisticError(LedgerError):
    """A statistic cannot be computed: unknown name, bad option or a failing query."""


@dataclass(frozen=True)
class Filters:
    ruleset: str | None = None
    tournament: str | None = None
    min_games: int = 0
    dbs_bucket: int = 10
    game: str | None = None  # only matches of this game ("wotf", "sow"); None: every game
    #: only the matches of the tournament of this id (``matches.tournament_id``) -- a name
    #: (``tournament``) may be shared by several
    tournament_id: str | None = None


class Table(msgspec.Struct):
    """A statistic's result: column names and rows (plain Python values)."""

    name: str
    columns: list[str]
    rows: list[tuple]

    def records(self) -> list[dict]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


_FILTERED = """($game IS NULL OR game = $game)
           AND ($ruleset IS NULL OR ruleset = $ruleset)
           AND ($tournament IS NULL OR tournament = $tournament)
           AND ($id_of_tournament IS NULL OR tournament_id = $id_of_tournament)"""
_MATCHES = f"""
WITH m AS (SELECT * FROM matches WHERE ended
           AND {_FILTERED})
"""
_OPPONENTS = "players p JOIN players o ON o.match_id = p.match_id AND o.seat <> p.seat"


def _query(con: duckdb.DuckDBPyConnection, sql: str, filters: Filters, **extra: object) -> list[tuple]:
    params = {"ruleset": filters.ruleset, "tournament": filters.tournament,
              "id_of_tournament": filters.tournament_id, "game": filters.game, **extra}
    used = {k: v for k, v in params.items() if f"${k}" in sql}
    try:
        return con.execute(sql, used).fetchall()
    except duckdb.Error as exc:
        lacking = _lacking_columns(con)
        if lacking:
            raise StatisticError(
                f"the warehouse was made by an older program (matches has no "
                f"{', '.join(lacking)}): run `wonders ingest STORE --db FILE` again to bring it "
                f"up to date") from None
        raise StatisticError(f"query failed: {_first_line(exc)}") from None


def _lacking_columns(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The ``matches`` columns of :class:`ledger.rows.MatchRow` the warehouse lacks (one an
    older program made, not ingested into since; none if it has no ``matches`` at all)."""
    have = {r[0] for r in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = 'matches'").fetchall()}
    return [name for name in sql_columns(MatchRow) if have and name not in have]


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _with_interval(wins: int, games: int) -> tuple:
    low, high = wilson(wins, games)
    return rate(wins, games), low, high


def _rate_columns(prefix: str) -> list[str]:
    return [f"{prefix}_games", f"{prefix}_wr", f"{prefix}_wr_low", f"{prefix}_wr_high"]


def match_counts(con: duckdb.DuckDBPyConnection, filters: Filters) -> tuple[int, int]:
    """How many matches pass ``filters`` (``min_games`` aside), and how many of them have
    finished -- what a statistic counts; the two tell why a statistic has no row."""
    found = _query(con, f"SELECT count(*), count(*) FILTER (ended) FROM matches "
                        f"WHERE {_FILTERED}", filters)[0]
    return int(found[0]), int(found[1] or 0)


# -- cards ---------------------------------------------------------------------------------

CARD_GROUPS = ("deck", "played", "oh", "gih", "gns")


def cards(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """Per card: win rates in deck, when played, in the opening hand (OH), in hand (GIH:
    opening hand or drawn), not seen (GNS), improvement when drawn (IWD = GIH - GNS, with
    Newcombe's interval) and the average round of its first play in a game."""
    rows = _query(con, _MATCHES + """
        , g AS (SELECT cg.card, (p.result = 'win')::INTEGER AS won, cg.opening, cg.in_hand,
                       cg.played, cg.first_round_played
                FROM card_games cg JOIN players p USING (match_id, seat) JOIN m USING (match_id))
        SELECT card,
               count(*), coalesce(sum(won), 0),
               count(*) FILTER (played), coalesce(sum(won) FILTER (played), 0),
               count(*) FILTER (opening), coalesce(sum(won) FILTER (opening), 0),
               count(*) FILTER (in_hand), coalesce(sum(won) FILTER (in_hand), 0),
               count(*) FILTER (NOT in_hand), coalesce(sum(won) FILTER (NOT in_hand), 0),
               avg(first_round_played)
        FROM g GROUP BY card HAVING count(*) >= $min_games
    """, filters, min_games=filters.min_games)
    columns = ["card"] + [c for group in CARD_GROUPS for c in _rate_columns(group)]
    columns += ["iwd", "iwd_low", "iwd_high", "avg_first_round"]
    out = []
    for row in rows:
        counts = [(int(row[i]), int(row[i + 1])) for i in range(1, 11, 2)]
        values: list = [row[0]]
        for games, wins in counts:
            values += [games, *_with_interval(wins, games)]
        (gih_games, gih_wins), (gns_games, gns_wins) = counts[3], counts[4]
        gih, gns = rate(gih_wins, gih_games), rate(gns_wins, gns_games)
        iwd = gih - gns if gih is not None and gns is not None else None
        values += [iwd, *newcombe(gih_wins, gih_games, gns_wins, gns_games), row[11]]
        out.append(tuple(values))
    out.sort(key=lambda r: (-(r[columns.index("gih_wr")] or -1.0), r[0]))
    return Table("cards", columns, out)


#: The columns of each named statistic (the plain-Python reference uses the same).
COLUMNS = {
    "first-player": ["games", "first_wins", "draws", "first_wr", "first_wr_low", "first_wr_high"],
    "matchups": ["archetype", "opponent", "games", "wins", "wr", "wr_low", "wr_high"],
    "realms": ["realm", "battles", "seizures", "decided_games", "winner_held", "winner_held_rate",
               "winner_held_rate_low", "winner_held_rate_high", "loser_held", "loser_held_rate"],
    "dbs": ["dbs_diff_low", "dbs_diff_high", "games", "wins", "wr", "wr_low", "wr_high"],
    "rulesets": ["ruleset", "matches", "avg_rounds", "draw_rate", "stones_finish_rate",
                 "first_games", "first_wr", "first_wr_low", "first_wr_high",
                 "battles_per_match", "seizures_per_match",
                 "battles", "attacker_wr", "attacker_wr_low", "attacker_wr_high"],
    "standings": ["tournament", "rank", "player", "matches", "match_points", "game_wins",
                  "games", "omw", "tournament_id"],
    "endings": ["game", "reason", "matches", "share"],
    "sieges": ["besieged", "games", "wins", "wr", "wr_low", "wr_high", "matches"],
}


# -- first player --------------------------------------------------------------------------


def first_player(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """Win rate of the seat that took the first turn of round 1 (401)."""
    games, wins, draws = _query(con, _MATCHES + """
        SELECT count(*), count(*) FILTER (winner_seat = first_seat),
               count(*) FILTER (winner_seat IS NULL)
        FROM m WHERE first_seat IS NOT NULL""", filters)[0]
    return Table("first-player", COLUMNS["first-player"],
                 [(games, wins, draws, *_with_interval(wins, games))])


# -- matchups ------------------------------------------------------------------------------


def matchups(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """Win rate of each archetype (the deck's main orbitals) against each other archetype;
    a mirror counts both seats, so its rate is 50% less half its draws."""
    rows = _query(con, _MATCHES + f"""
        SELECT p.main_orbitals, o.main_orbitals, count(*), count(*) FILTER (p.result = 'win')
        FROM {_OPPONENTS} JOIN m ON m.match_id = p.match_id
        GROUP BY ALL HAVING count(*) >= $min_games ORDER BY 1, 2""",
                  filters, min_games=filters.min_games)
    return Table("matchups", COLUMNS["matchups"],
                 [(a, b, games, wins, *_with_interval(wins, games)) for a, b, games, wins in rows])


# -- realms --------------------------------------------------------------------------------


def realms(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """Per realm: battles fought, stones seized, and how often the match winner held (at
    least one of) the realm's stones at the end of the match -- and, for comparison, how
    often the loser did (a realm that does not go with winning is held as often by both)."""
    battles = dict(_query(con, _MATCHES + """
        SELECT realm, count(*) FROM battles JOIN m USING (match_id) GROUP BY realm""", filters))
    seized = dict(_query(con, _MATCHES + """
        SELECT realm, count(*) FROM seizures JOIN m USING (match_id) GROUP BY realm""", filters))
    held = {r[0]: r[1:] for r in _query(con, _MATCHES + """
        SELECT rs.realm, count(*),
               count(*) FILTER ((m.winner_seat = 'A' AND rs.stones_a > 0)
                                OR (m.winner_seat = 'B' AND rs.stones_b > 0)),
               count(*) FILTER ((m.winner_seat = 'A' AND rs.stones_b > 0)
                                OR (m.winner_seat = 'B' AND rs.stones_a > 0))
        FROM realm_stones rs JOIN m USING (match_id) WHERE m.winner_seat IS NOT NULL
        GROUP BY rs.realm""", filters)}
    rows = []
    for realm in sorted(set(battles) | set(seized) | set(held)):
        decided, winner_held, loser_held = held.get(realm, (0, 0, 0))
        rows.append((realm, battles.get(realm, 0), seized.get(realm, 0), decided, winner_held,
                     *_with_interval(winner_held, decided), loser_held, rate(loser_held, decided)))
    return Table("realms", COLUMNS["realms"], rows)


# -- DBS -----------------------------------------------------------------------------------


def dbs(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """Win rate by DBS difference (own deck's DBS total minus the opponent's, 303.2), in
    buckets ``[low, low + width)``.  Wonders of The First's matches only: State of Wonder has
    no DBS (its players' totals are 0, which would fill the bucket of a difference of 0)."""
    if filters.dbs_bucket < 1:
        raise StatisticError(f"the DBS bucket width must be at least 1, got {filters.dbs_bucket}")
    rows = _query(con, _MATCHES + f"""
        SELECT CAST(floor((p.dbs_total - o.dbs_total) / $width) AS BIGINT) * $width,
               count(*), count(*) FILTER (p.result = 'win')
        FROM {_OPPONENTS} JOIN m ON m.match_id = p.match_id
        WHERE m.game = 'wotf'
        GROUP BY 1 HAVING count(*) >= $min_games ORDER BY 1""",
                  filters, width=filters.dbs_bucket, min_games=filters.min_games)
    return Table("dbs", COLUMNS["dbs"],
                 [(low, low + filters.dbs_bucket, games, wins, *_with_interval(wins, games))
                  for low, games, wins in rows])


# -- rulesets ------------------------------------------------------------------------------


def rulesets(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """The headline numbers side by side, one row per ruleset.  The stones and battle columns
    are Wonders of The First's (its ``battles`` and ``seizures`` tables, its stones): taken
    over a ruleset's Wonders matches, and ``None`` for a ruleset with none (State of Wonder's
    has no stones, and its battles are ``sow_battles``: 0 battles per match was false)."""
    per_match = _query(con, _MATCHES + """
        SELECT ruleset, count(*), avg(rounds_played), count(*) FILTER (winner_seat IS NULL),
               count(*) FILTER (reason = 'stones' AND game = 'wotf'),
               count(*) FILTER (first_seat IS NOT NULL),
               count(*) FILTER (first_seat IS NOT NULL AND winner_seat = first_seat),
               count(*) FILTER (game = 'wotf')
        FROM m GROUP BY ruleset ORDER BY ruleset""", filters)
    battles = {r[0]: r[1:] for r in _query(con, _MATCHES + """
        SELECT m.ruleset, count(*), count(*) FILTER (b.result = 'attacker')
        FROM battles b JOIN m USING (match_id) GROUP BY m.ruleset""", filters)}
    seized = dict(_query(con, _MATCHES + """
        SELECT m.ruleset, count(*) FROM seizures s JOIN m USING (match_id)
        GROUP BY m.ruleset""", filters))
    rows = []
    for ruleset, games, avg_rounds, draws, by_stones, fp_games, fp_wins, wotf in per_match:
        fought, attacker_wins = battles.get(ruleset, (0, 0))
        if wotf:
            stones_battles = (by_stones / wotf, fought / wotf, seized.get(ruleset, 0) / wotf,
                              fought, *_with_interval(attacker_wins, fought))
        else:
            stones_battles = (None,) * 7
        rows.append((ruleset, games, avg_rounds, draws / games, stones_battles[0],
                     fp_games, *_with_interval(fp_wins, fp_games), *stones_battles[1:]))
    return Table("rulesets", COLUMNS["rulesets"], rows)


# -- standings -----------------------------------------------------------------------------

MIN_MATCH_WIN = 1 / 3  # the usual floor of a match-win percentage in opponents' averages


def standings(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """Per tournament: each player's match points (3 a match win, 1 a draw), game wins and
    opponents' match-win percentage (the mean of each opponent's match points / (3 x matches),
    floored at 1/3).  A tournament is its id (``tournament_id``) where the matches record one,
    else its name (a match created with a tournament's name under another id); two tournaments
    of the same name are ranked apart.  A match is a pairing (tournament, round, table): its
    games are the match files with that pairing; whoever won more of them won the match.
    Byes are not recorded in match files, so they are not counted."""
    rows = _query(con, _MATCHES + f"""
        , g AS (SELECT m.tournament_id AS tid, m.tournament, m.round, m.table_no, p.player,
                       o.player AS opponent, p.result
                FROM {_OPPONENTS} JOIN m ON m.match_id = p.match_id
                WHERE m.tournament IS NOT NULL),
        pairing AS (SELECT tid, tournament, round, table_no, player, min(opponent) AS opponent,
                           count(*) FILTER (result = 'win') AS gw,
                           count(*) FILTER (result = 'loss') AS gl, count(*) AS games
                    FROM g GROUP BY tid, tournament, round, table_no, player),
        scored AS (SELECT *, CASE WHEN gw > gl THEN 3 WHEN gw = gl THEN 1 ELSE 0 END AS points
                   FROM pairing),
        total AS (SELECT tid, tournament, player, count(*) AS matches, sum(points) AS points,
                         sum(gw) AS game_wins, sum(games) AS games,
                         greatest(sum(points) / (3.0 * count(*)), $floor) AS mwp
                  FROM scored GROUP BY tid, tournament, player),
        omw AS (SELECT s.tid, s.tournament, s.player, avg(t.mwp) AS omw
                FROM scored s JOIN total t ON t.tid IS NOT DISTINCT FROM s.tid
                     AND t.tournament = s.tournament AND t.player = s.opponent
                GROUP BY s.tid, s.tournament, s.player)
        SELECT t.tournament,
               rank() OVER (PARTITION BY t.tid, t.tournament
                            ORDER BY t.points DESC, o.omw DESC, t.game_wins DESC) AS rank,
               t.player, t.matches, t.points, t.game_wins, t.games, o.omw, t.tid
        FROM total t JOIN omw o ON o.tid IS NOT DISTINCT FROM t.tid
             AND o.tournament = t.tournament AND o.player = t.player
        ORDER BY t.tournament, t.tid NULLS FIRST, rank, t.player""", filters, floor=MIN_MATCH_WIN)
    return Table("standings", COLUMNS["standings"], [tuple(r) for r in rows])


# -- ad-hoc SQL ----------------------------------------------------------------------------


def sql(db_path: str, query: str) -> Table:
    """Run ``query`` on a read-only connection that can touch no file but the warehouse."""
    problem = foreign_file_problem(Path(db_path))
    if problem:
        raise StatisticError(problem)
    try:
        con = duckdb.connect(str(db_path), read_only=True,
                             config={"enable_external_access": "false"})
    except duckdb.Error as exc:
        raise StatisticError(f"{db_path}: cannot open the warehouse read-only "
                             f"({_first_line(exc)})") from None
    try:
        cursor = con.execute(query)
        # DuckDB answers a statement with no result (";", a comment) with no cursor at all.
        if cursor is None or cursor.description is None:
            return Table("sql", [], [])
        columns = [d[0] for d in cursor.description]
        return Table("sql", columns, [tuple(r) for r in cursor.fetchall()])
    except duckdb.Error as exc:
        raise StatisticError(f"sql: {_first_line(exc)}") from None
    finally:
        con.close()


# -- endings (every game) and sieges (State of Wonder) ---------------------------------------


def endings(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """How matches end, per game: each reason's count and share of the game's finished matches
    (Wonders: stones, tiebreak, deck_out …; State of Wonder: progress, state_destroyed …)."""
    rows = _query(con, _MATCHES + """
        SELECT game, coalesce(reason, '?'), count(*),
               count(*) / sum(count(*)) OVER (PARTITION BY game)
        FROM m GROUP BY game, reason ORDER BY game, count(*) DESC, reason""", filters)
    return Table("endings", COLUMNS["endings"], [tuple(r) for r in rows])


def sieges(con: duckdb.DuckDBPyConnection, filters: Filters) -> Table:
    """State of Wonder: does laying siege win?  A game is one seat of a finished match; the
    win rate of the seats that besieged their opponent at least once, and of those that never
    did, each with its games and interval."""
    rows = _query(con, _MATCHES + """
        , g AS (SELECT p.match_id, p.seat, (p.result = 'win')::INTEGER AS won,
                       EXISTS (SELECT 1 FROM sow_sieges s WHERE s.match_id = p.match_id
                               AND s.attacker = p.seat) AS besieged
                FROM players p JOIN m USING (match_id) WHERE m.game = 'sow')
        SELECT besieged, count(*), coalesce(sum(won), 0), count(DISTINCT match_id)
        FROM g GROUP BY besieged ORDER BY besieged DESC""", filters)
    out = [("yes" if besieged else "no", games, wins, *_with_interval(wins, games), matches)
           for besieged, games, wins, matches in rows]
    return Table("sieges", COLUMNS["sieges"], out)


#: The statistics of one game's own tables, and that game (the others count every game).
GAME_OF = {"realms": "wotf", "dbs": "wotf", "sieges": "sow"}

STATISTICS: dict[str, Callable[[duckdb.DuckDBPyConnection, Filters], Table]] = {
    "cards": cards,
    "first-player": first_player,
    "matchups": matchups,
    "realms": realms,
    "dbs": dbs,
    "rulesets": rulesets,
    "standings": standings,
    "endings": endings,
    "sieges": sieges,
}


def tournament_filter(con: duckdb.DuckDBPyConnection, given: str) -> dict[str, str]:
    """The filter of the tournament ``given`` (:class:`Filters`' ``tournament_id`` or
    ``tournament``): its id -- what ``wonders tournament`` and the pages use, unique -- when
    the warehouse has matches of a tournament of that id (``matches.tournament_id``), else
    its name as the matches record it (``MatchOpened.tournament``, which several tournaments
    may share: a weekly "Friday Cup").  A tournament the warehouse has no match of is an
    error naming those it has."""
    [(by_id,)] = _query(con, "SELECT count(*) FROM matches WHERE tournament_id = $id_of_tournament",
                        Filters(), id_of_tournament=given)
    if by_id:
        return {"tournament_id": given}
    names = [r[0] for r in _query(con, "SELECT DISTINCT tournament FROM matches WHERE "
                                  "tournament IS NOT NULL ORDER BY tournament", Filters())]
    if given in names:
        return {"tournament": given}
    has = (f"its tournaments: {', '.join(map(repr, names[:10]))}{' …' if len(names) > 10 else ''}"
           if names else "it has no tournament's matches")
    raise StatisticError(f"no tournament {given!r} in the warehouse ({has})")


def check_ruleset(con: duckdb.DuckDBPyConnection, ruleset: str, game: str | None = None) -> str:
    """``ruleset`` if the warehouse has a match of it (of ``game``, if given); else an error
    naming the rulesets it has, each with its game: a misspelt ``--ruleset`` is no empty
    statistic."""
    has = _query(con, "SELECT DISTINCT game, ruleset FROM matches ORDER BY game, ruleset",
                 Filters())
    if any(r == ruleset and game in (None, g) for g, r in has):
        return ruleset
    of = f" {game}" if game else ""
    listed = ", ".join(f"{r!r} ({g})" for g, r in has) or "none: it has no match"
    raise StatisticError(f"no{of} match of ruleset {ruleset!r} in the warehouse "
                         f"(its rulesets: {listed})")


def compute(con: duckdb.DuckDBPyConnection, name: str, filters: Filters) -> Table:
    """The statistic ``name`` (one of :data:`STATISTICS`) under ``filters``."""
    if name not in STATISTICS:
        raise StatisticError(f"unknown statistic {name!r} (choose from "
                             f"{', '.join(STATISTICS)}, sql)")
    return STATISTICS[name](con, filters)
