"""The stats dashboard ``/stats``: the named statistics of :mod:`ledger.stats`, drawn as SVG.

The page shows the ``cards`` table (sortable, every rate with its games and 95% interval),
the first-player number, the match-up heatmap, and each game's own charts: realm control and
win rate by DBS difference for Wonders of The First, sieges for State of Wonder -- each drawn
only when the page's matches include that game's.  A warehouse holding both games is read
one game at a time (``?game=``) or both together (the shared statistics count every game).
The numbers are the warehouse's (``wonders ingest``); this module only calls
:func:`ledger.stats.compute` and turns the tables into chart geometry -- nothing is recounted.

Small samples do not mislead by default: a rate over fewer than ``min_n`` games (default
:data:`MIN_SAMPLE`) is drawn muted -- a pale bar, a grey heatmap cell, a grey table cell -- and
sorts after the rates over enough games; among those a rate column sorts by its Wilson
interval's lower bound (``rank=low``; ``rank=rate`` sorts by the rate itself).  A mirror
match-up has no win rate of its own (both seats are the same archetype), so its cell is blank.
The realm chart compares, per realm, how often the match winner held its stone with how often
the loser did; the DBS chart's axis is linear, one slot per bucket from the lowest to the
highest difference seen, empty buckets included.  Every chart is also a CSV:
``/stats/<name>.csv`` with the page's filters.

The warehouse file is ``app.config["WONDERS_WAREHOUSE"]``, else the ``WONDERS_WAREHOUSE``
environment variable, else ``<store>/warehouse.duckdb`` (for a ``postgresql://`` store,
``./warehouse.duckdb``).  It is opened read-only per request
(so ``wonders ingest`` can update it while the server runs: an ingest holds the file only
while it loads, and a request waits for that, up to :data:`LOAD_WAIT` seconds, then answers
503 in one line) and a rendered page is kept until the file changes.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
from flask import Blueprint, Response, current_app, render_template, request

from ledger import stats as named
from ledger.csvcells import csv_text
from ledger.warehouse import WarehouseError, connect
from replay.games import archetype_names, game, names
from web import tournament_menu
from web.api.common import query_int, services
from web.errors import MalformedRequestError, NotFoundError
from web.organize import signed_in

bp = Blueprint("dashboard", __name__)
WAREHOUSE_ENV = "WONDERS_WAREHOUSE"
CARD_SORTS = ("card", "deck_games", "deck_wr", "played_wr", "oh_wr", "gih_wr", "gns_wr", "iwd",
              "avg_first_round")
#: A rate column and the column of its interval's lower bound (what ``rank=low`` sorts by).
LOWER_BOUNDS = {"deck_wr": "deck_wr_low", "played_wr": "played_wr_low", "oh_wr": "oh_wr_low",
                "gih_wr": "gih_wr_low", "gns_wr": "gns_wr_low", "iwd": "iwd_low"}
#: The games behind each rate column (IWD: both of its rates').
SAMPLES = {"deck_wr": ("deck_games",), "played_wr": ("played_games",), "oh_wr": ("oh_games",),
           "gih_wr": ("gih_games",), "gns_wr": ("gns_games",), "iwd": ("gih_games", "gns_games")}
RANKS = ("low", "rate")
MIN_SAMPLE = 10  # games: a rate over fewer is drawn muted (?min_n= changes it)
#: Seconds a request waits for an ingest's load (it holds the warehouse file alone while it
#: loads) before answering 503.
LOAD_WAIT = 10.0
CHARTS = ("cards", "first-player", "matchups", "realms", "dbs", "sieges")  # each also a CSV
#: The charts of one game's own tables, and that game.
GAME_CHARTS = {"realms": "wotf", "dbs": "wotf", "sieges": "sow"}


def warehouse_path() -> Path:
    configured = current_app.config.get("WONDERS_WAREHOUSE") or os.environ.get(WAREHOUSE_ENV)
    if configured:
        return Path(configured)
    store = services().settings.store
    return store / "warehouse.duckdb" if isinstance(store, Path) else Path("warehouse.duckdb")


@bp.get("/stats")
def stats() -> str:
    path = warehouse_path()
    filters, notice = _filters(keep_game=True)
    min_n = query_int("min_n", MIN_SAMPLE, 0, 10**6)
    sort, rank = request.args.get("sort", "gih_wr"), request.args.get("rank", "low")
    if sort not in CARD_SORTS:
        raise MalformedRequestError(f"sort={sort!r}: use one of {', '.join(CARD_SORTS)}")
    if rank not in RANKS:
        raise MalformedRequestError(f"rank={rank!r}: use low (the interval's lower bound) or "
                                    f"rate")
    descending = request.args.get("desc", "1") == "1"
    page = {"filters": filters, "sort": sort, "rank": rank, "descending": descending,
            "min_n": min_n, "notice": notice}
    if not path.exists():
        return render_template("stats.html", missing=True, where=_shown_path(path), data=None,
                               tournaments=[], games=[], rulesets=[], **page)
    data, choices = _computed(path, filters)
    page["notice"] = notice or _unknown_tournament(filters, choices)
    page["chosen_tournament"] = tournament_menu.selected(choices["tournaments"],
                                                         filters.tournament)
    cards = sorted(data["cards"].records(), key=lambda r: _sort_key(r, sort, rank, min_n),
                   reverse=descending)
    return render_template(
        "stats.html", missing=None, cards=cards, data=data, shown=_shown(filters, choices),
        **choices,
        first=_first(data["first-player"]),
        heatmap=heatmap(data["matchups"], min_n, archetype_names(services().pool)),
        realms=realm_chart(data["realms"], min_n),
        dbs=dbs_chart(data["dbs"], filters.dbs_bucket, min_n),
        sieges=siege_chart(data["sieges"], min_n),
        no_matchups=why_no_matchups(data["matchups"], data["match_counts"], filters),
        first_play=_first_play(filters.game, choices["games"]), **page)


def _unknown_tournament(filters: named.Filters, choices: dict) -> str | None:
    """The notice for a ``tournament`` the warehouse has no match of (a link with a typo, or
    a tournament not ingested yet): the form can't show it selected, and every panel is
    empty."""
    given = filters.tournament
    if given is None or given in choices["tournament_names"] or any(
            value == given for value, _label in choices["tournaments"]):
        return None
    return (f"The warehouse has no match of tournament {given[:80]!r}: every panel is empty. "
            f"Pick one of its tournaments above.")


def why_no_matchups(table: named.Table, counts: tuple[int, int],
                    filters: named.Filters) -> str | None:
    """Why the match-up panel is empty, in one line (``None``: it is not): no match passes the
    filters, none of those has finished (a match-up counts finished matches), or every
    match-up has fewer games than ``min_games``."""
    if table.rows:
        return None
    matches, finished = counts
    if not matches:
        filtered = filters.game or filters.ruleset or filters.tournament
        return ("No match-up: no match of the warehouse passes these filters." if filtered
                else "No match-up: the warehouse holds no match yet.")
    if not finished:
        said = ("the 1 match under these filters has not finished" if matches == 1 else
                f"none of the {matches} matches under these filters has finished")
        return f"No match-up yet: {said} (a match-up counts finished matches)."
    if filters.min_games:
        return (f"No match-up has {filters.min_games} games or more (Min. games): lower it to "
                f"see them.")
    return "No match-up: the finished matches under these filters record no archetype."


def _shown_path(path: Path) -> str | None:
    """The warehouse file's path as a page may show it: to the organizer signed in at
    ``/organize`` only (a path on the server is not the public's business), else ``None``."""
    return str(path) if signed_in() else None


def _first_play(chosen: str | None, shown: list[tuple[str, str]]) -> str:
    """The cards table's last column: the mean round of a card's first play, or its turn in a
    game without rounds (State of Wonder: ``first_round_played`` is a turn, docs/analytics.md);
    with games of both kinds in the table (``shown``: name, title), the heading says which
    counts turns."""
    def counts_turns(name: str) -> bool:
        return getattr(game(name), "round_of", None) is None

    if chosen:
        return "Avg. first turn" if counts_turns(chosen) else "Avg. first round"
    by_turn = [title for name, title in shown if counts_turns(name)]
    if by_turn and len(by_turn) < len(shown):
        return f"Avg. first round ({', '.join(by_turn)}: turn)"
    return "Avg. first turn" if by_turn else "Avg. first round"


@bp.get("/stats/<name>.csv")
def chart_csv(name: str) -> Response:
    """One chart's numbers as CSV (the statistic's own columns), under the page's filters."""
    if name not in CHARTS:
        raise NotFoundError(f"/stats/{name}.csv: no such chart (use one of {', '.join(CHARTS)})")
    path = warehouse_path()
    if not path.exists():
        at = _shown_path(path)
        raise NotFoundError(f"no warehouse {'at ' + at + ' ' if at else ''}yet: "
                            f"run `wonders ingest` first")
    table = _computed(path, _filters()[0])[0][name]
    return Response(csv_text([table.columns, *table.rows]), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="wonders-{name}.csv"'})


def _filters(keep_game: bool = False) -> tuple[named.Filters, str | None]:
    """The page's filters, and a notice for the page.  A ruleset of another game than the one
    chosen is refused (400) -- except, with ``keep_game``, the page's: its form sends the
    ruleset picked before the game was changed, so the game is kept, the ruleset dropped and
    the notice says so."""
    tournament = request.args.get("tournament") or None
    played = request.args.get("game") or None
    if played is not None and played not in names():
        raise MalformedRequestError(f"game={played!r}: use one of {', '.join(names())}")
    ruleset, notice = request.args.get("ruleset") or None, None
    if ruleset is not None and ruleset not in rulesets(played):
        title = game(played).title if played else ""
        if keep_game and played and ruleset in rulesets():
            ruleset, notice = None, (f"Ruleset {request.args['ruleset']} is not {title}'s: "
                                     f"every ruleset of {title} is shown.")
        else:
            of = f"{title}'s rulesets" if played else "one of"
            raise MalformedRequestError(f"ruleset={ruleset!r}: use {of} "
                                        f"{', '.join(rulesets(played))}")
    return named.Filters(ruleset, tournament, query_int("min_games", 0, 0, 10**6),
                         query_int("dbs_bucket", 10, 1, 1000), played), notice


def rulesets(played: str | None = None) -> list[str]:
    """The rulesets of a game, or of every game this program plays."""
    return [ruleset for name in ([played] if played else names())
            for ruleset in game(name).rulesets]


def _shown(filters: named.Filters, choices: dict) -> set[str]:
    """The charts the page draws: the shared ones, and a game's own where the page's matches
    may include that game's (its game chosen, or every game while the warehouse has it)."""
    games = {filters.game} if filters.game else {name for name, _ in choices["games"]}
    return {chart for chart in CHARTS
            if chart not in GAME_CHARTS or GAME_CHARTS[chart] in games}


def _computed(path: Path, filters: named.Filters) -> tuple[dict, dict]:
    """The statistics under ``filters``, cached until the warehouse file changes."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, filters)
    cache: dict = current_app.extensions.setdefault("wonders_stats", {})
    if key not in cache:
        try:
            con = connect(path, read_only=True, wait=LOAD_WAIT)
        except WarehouseError as exc:  # its message names the file: the organizer's alone
            shown = _shown_path(path) or "the warehouse file"
            raise type(exc)(str(exc).replace(str(path), shown)) from None
        try:
            resolved = _resolved(con, filters)
            data: dict[str, Any] = {name: named.compute(con, name, resolved) for name in CHARTS}
            data["match_counts"] = named.match_counts(con, resolved)  # why a panel is empty
            choices = _choices(con)
        finally:
            con.close()
        if len(cache) > 64:
            cache.clear()
        cache[key] = (data, choices)
    return cache[key]


def _choices(con: duckdb.DuckDBPyConnection) -> dict:
    """What the page's filters offer: the warehouse's tournaments (:mod:`web.tournament_menu`:
    a tournament by its id where its matches record one -- names are not unique, a weekly
    "Friday Cup" -- else by its name, and a shared name by itself),
    and its games (name, title) with their rulesets (ruleset, game title)."""
    found = con.execute(
        "SELECT DISTINCT tournament_id, tournament FROM matches WHERE tournament IS NOT NULL "
        "ORDER BY tournament, tournament_id NULLS FIRST").fetchall()
    tournaments = tournament_menu.options((name, tid) for tid, name in found)
    present = {r[0] for r in con.execute("SELECT DISTINCT game FROM matches").fetchall()}
    games = [(name, game(name).title) for name in names() if name in present]
    return {"tournaments": tournaments, "tournament_names": {name for _, name in found},
            "games": games, "rulesets": [(ruleset, title) for name, title in games
                                         for ruleset in game(name).rulesets]}


def _resolved(con: duckdb.DuckDBPyConnection, filters: named.Filters) -> named.Filters:
    """The page's ``tournament`` as the statistics filter it: an id where the warehouse has
    a tournament of that id, else a name (:func:`ledger.stats.tournament_filter`); one it has
    no match of stays a name, which selects no games."""
    if filters.tournament is None:
        return filters
    try:
        which = named.tournament_filter(con, filters.tournament)
    except named.StatisticError:
        return filters
    return replace(filters, tournament=which.get("tournament"),
                   tournament_id=which.get("tournament_id"))


def _sort_key(record: dict, sort: str, rank: str = "rate", min_n: int = 0) -> tuple[int, int, Any]:
    """A card row's place: by the column; a rate by its interval's lower bound with
    ``rank=low`` (an n=1 card at 100% has a lower bound near 20%), and a rate over fewer than
    ``min_n`` games after every rate over enough of them -- small samples do not top the
    table."""
    value = record[LOWER_BOUNDS[sort]] if rank == "low" and sort in LOWER_BOUNDS else record[sort]
    if sort == "card":
        return (0, 0, value)
    enough = int(sort not in SAMPLES or min(record[c] for c in SAMPLES[sort]) >= min_n)
    return (enough, 1, value) if value is not None else (enough, 0, 0)


def _first(table: named.Table) -> dict:
    return table.records()[0]


# -- chart geometry (drawn by stats.html as SVG) --------------------------------------------

WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 520, 220, 40, 34, 12


def rate_bars(items: list[tuple[str, float | None, float | None, float | None, int]],
              min_n: int = 0) -> dict:
    """Bars of rates in [0, 1] with their interval whiskers: ``(label, rate, low, high, n)``;
    a bar over fewer than ``min_n`` games is ``muted``."""
    plot_h, y = HEIGHT - BOTTOM - TOP, rate_y
    step = (WIDTH - LEFT - 10) / max(1, len(items))
    bars = []
    for i, (label, value, low, high, n) in enumerate(items):
        x = LEFT + i * step + step * 0.15
        w = step * 0.7
        bar = {"label": label, "n": n, "x": x, "w": w, "cx": x + w / 2, "value": value,
               "low": low, "high": high, "muted": n < min_n}
        if value is not None and low is not None and high is not None:
            bar.update(y=y(value), h=plot_h * value, y_low=y(low), y_high=y(high))
        bars.append(bar)
    ticks = [{"y": y(t), "label": f"{int(t * 100)}%"} for t in (0, 0.25, 0.5, 0.75, 1)]
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "bottom": HEIGHT - BOTTOM,
            "half": y(0.5), "bars": bars, "ticks": ticks}


def rate_y(value: float) -> float:
    """A rate in [0, 1] -> its pixel row in a chart."""
    return TOP + (HEIGHT - BOTTOM - TOP) * (1 - value)


def realm_chart(table: named.Table, min_n: int = 0) -> dict:
    """How often the match winner held each realm's stone at the end (the bars), against how
    often the loser did (each realm's reference mark): a realm that goes with winning has its
    bar above its mark.  There is no 50% line: "held" is not a coin flip (both, one or neither
    player may hold a realm's stones at the end)."""
    records = table.records()
    chart = rate_bars([(f"realm {r['realm']}", r["winner_held_rate"], r["winner_held_rate_low"],
                        r["winner_held_rate_high"], r["decided_games"]) for r in records], min_n)
    for bar, r in zip(chart["bars"], records, strict=True):
        loser = r.get("loser_held_rate")
        bar["reference"] = loser
        if loser is not None:
            bar["y_reference"] = rate_y(loser)
    chart["half"] = None
    return chart


def dbs_chart(table: named.Table, width: int, min_n: int = 0) -> dict:
    """Win rate by DBS-difference bucket (own deck's DBS minus the opponent's) on a linear
    axis: one slot per bucket from the lowest to the highest seen, empty ones included (no
    bar, n=0), each labelled by its range."""
    seen = {r["dbs_diff_low"]: r for r in table.records()}
    lows = range(min(seen), max(seen) + width, width) if seen else range(0)
    items = []
    for low in lows:
        r = seen.get(low)
        label = f"{low:+}…{low + width - 1:+}" if width > 1 else f"{low:+}"
        items.append((label, r["wr"], r["wr_low"], r["wr_high"], r["games"]) if r else
                     (label, None, None, None, 0))
    chart = rate_bars(items, min_n)
    chart["dense"] = len(items) > 6  # labels turned to fit
    return chart


def siege_chart(table: named.Table, min_n: int = 0) -> dict:
    """State of Wonder's sieges: the win rate of the seats that laid siege at least once, and
    of those that never did (:func:`ledger.stats.sieges`)."""
    labels = {"yes": "laid siege", "no": "never did"}
    return rate_bars([(labels[r["besieged"]], r["wr"], r["wr_low"], r["wr_high"], r["games"])
                      for r in table.records()], min_n)


def heatmap(table: named.Table, min_n: int = 0, shown: dict[str, str] | None = None) -> dict:
    """The match-up matrix: a cell per (archetype, opponent), coloured by win rate; a mirror
    cell is blank (it has no win rate of its own), a cell under ``min_n`` games grey.  An
    archetype recorded by id is labelled with its name in ``shown`` (State of Wonder's
    factions: :func:`replay.games.archetype_names`)."""
    shown = shown or {}
    records = [dict(r, archetype=shown.get(r["archetype"], r["archetype"]),
                    opponent=shown.get(r["opponent"], r["opponent"])) for r in table.records()]
    names = sorted({r["archetype"] for r in records} | {r["opponent"] for r in records})
    cell, left, top = 46, 150, 110
    pos = {name: i for i, name in enumerate(names)}
    cells = []
    for r in records:
        mirror, few = r["archetype"] == r["opponent"], r["games"] < min_n
        cells.append({"x": left + pos[r["opponent"]] * cell, "y": top + pos[r["archetype"]] * cell,
                      "size": cell, "fill": "#ffffff" if mirror else _heat(None if few else r["wr"]),
                      "rate": None if mirror else r["wr"], "games": r["games"],
                      "low": r["wr_low"], "high": r["wr_high"], "row": r["archetype"],
                      "col": r["opponent"], "mirror": mirror, "muted": few and not mirror})
    labels = [{"name": n, "at": i * cell + cell / 2} for i, n in enumerate(names)]
    return {"cells": cells, "labels": labels, "left": left, "top": top, "cell": cell,
            "width": left + cell * len(names) + 90, "height": top + cell * len(names) + 10}


def _heat(rate: float | None) -> str:
    """Blue above 50%, red below, white at 50% (grey without games)."""
    if rate is None:
        return "#e5e7eb"
    t = max(-1.0, min(1.0, (rate - 0.5) * 2))
    if t >= 0:
        return f"rgb({int(255 - 180 * t)},{int(255 - 120 * t)},255)"
    return f"rgb(255,{int(255 + 150 * t)},{int(255 + 170 * t)})"
