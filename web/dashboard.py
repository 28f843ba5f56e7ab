"""The stats dashboard ``/stats``: the named statistics of :mod:`ledger.stats`, drawn as SVG.

The page shows the ``cards`` table (sortable, every rate with its games and 95% interval),
the first-player number, the match-up heatmap, realm control and win rate by DBS difference.
The numbers are the warehouse's (``wonders ingest``); this module only calls
:func:`ledger.stats.compute` and turns the tables into chart geometry -- nothing is recounted.

The warehouse file is ``app.config["WONDERS_WAREHOUSE"]``, else the ``WONDERS_WAREHOUSE``
environment variable, else ``<store>/warehouse.duckdb`` (for a ``postgresql://`` store,
``./warehouse.duckdb``).  It is opened read-only per request
(so ``wonders ingest`` can update it while the server runs) and a rendered page is kept until
the file changes.
"""

from __future__ import annotations

import os
from pathlib import Path

from flask import Blueprint, current_app, render_template, request

from ledger import stats as named
from ledger.warehouse import connect
from web.api.common import query_int, services
from web.errors import MalformedRequestError

bp = Blueprint("dashboard", __name__)
WAREHOUSE_ENV = "WONDERS_WAREHOUSE"
CARD_SORTS = ("card", "deck_games", "deck_wr", "played_wr", "oh_wr", "gih_wr", "gns_wr", "iwd",
              "avg_first_round")
RULESETS = ("1.3.2", "1.2")


def warehouse_path() -> Path:
    configured = current_app.config.get("WONDERS_WAREHOUSE") or os.environ.get(WAREHOUSE_ENV)
    if configured:
        return Path(configured)
    store = services().settings.store
    return store / "warehouse.duckdb" if isinstance(store, Path) else Path("warehouse.duckdb")


@bp.get("/stats")
def stats():
    path = warehouse_path()
    filters = _filters()
    sort = request.args.get("sort", "gih_wr")
    if sort not in CARD_SORTS:
        raise MalformedRequestError(f"sort={sort!r}: use one of {', '.join(CARD_SORTS)}")
    descending = request.args.get("desc", "1") == "1"
    if not path.exists():
        return render_template("stats.html", missing=str(path), filters=filters, data=None,
                               tournaments=[], sort=sort, descending=descending)
    data, tournaments = _computed(path, filters)
    cards = sorted(data["cards"].records(), key=lambda r: _sort_key(r, sort), reverse=descending)
    return render_template(
        "stats.html", missing=None, filters=filters, tournaments=tournaments, sort=sort,
        descending=descending, cards=cards, data=data, first=_first(data["first-player"]),
        heatmap=heatmap(data["matchups"]), realms=realm_chart(data["realms"]),
        dbs=dbs_chart(data["dbs"]))


def _filters() -> named.Filters:
    tournament = request.args.get("tournament") or None
    ruleset = request.args.get("ruleset") or None
    if ruleset is not None and ruleset not in RULESETS:
        raise MalformedRequestError(f"ruleset={ruleset!r}: use one of {', '.join(RULESETS)}")
    return named.Filters(ruleset, tournament, query_int("min_games", 0, 0, 10**6),
                         query_int("dbs_bucket", 10, 1, 1000))


def _computed(path: Path, filters: named.Filters) -> tuple[dict, list[str]]:
    """The statistics under ``filters``, cached until the warehouse file changes."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, filters)
    cache: dict = current_app.extensions.setdefault("wonders_stats", {})
    if key not in cache:
        con = connect(path, read_only=True)
        try:
            data = {name: named.compute(con, name, filters)
                    for name in ("cards", "first-player", "matchups", "realms", "dbs")}
            tournaments = [r[0] for r in con.execute(
                "SELECT DISTINCT tournament FROM matches WHERE tournament IS NOT NULL "
                "ORDER BY 1").fetchall()]
        finally:
            con.close()
        if len(cache) > 64:
            cache.clear()
        cache[key] = (data, tournaments)
    return cache[key]


def _sort_key(record: dict, sort: str):
    value = record[sort]
    if sort == "card":
        return (0, value)
    return (1, value) if value is not None else (0, 0)


def _first(table: named.Table) -> dict:
    return table.records()[0]


# -- chart geometry (drawn by stats.html as SVG) --------------------------------------------

WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 520, 220, 40, 34, 12


def rate_bars(items: list[tuple[str, float | None, float | None, float | None, int]]) -> dict:
    """Bars of rates in [0, 1] with their interval whiskers: ``(label, rate, low, high, n)``."""
    plot_h = HEIGHT - BOTTOM - TOP
    step = (WIDTH - LEFT - 10) / max(1, len(items))

    def y(value: float) -> float:  # a rate -> its pixel row
        return TOP + plot_h * (1 - value)
    bars = []
    for i, (label, value, low, high, n) in enumerate(items):
        x = LEFT + i * step + step * 0.15
        w = step * 0.7
        bar = {"label": label, "n": n, "x": x, "w": w, "cx": x + w / 2, "value": value,
               "low": low, "high": high}
        if value is not None and low is not None and high is not None:
            bar.update(y=y(value), h=plot_h * value, y_low=y(low), y_high=y(high))
        bars.append(bar)
    ticks = [{"y": y(t), "label": f"{int(t * 100)}%"} for t in (0, 0.25, 0.5, 0.75, 1)]
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "bottom": HEIGHT - BOTTOM,
            "half": y(0.5), "bars": bars, "ticks": ticks}


def realm_chart(table: named.Table) -> dict:
    """How often the match winner held each realm's stone at the end (realm control)."""
    return rate_bars([(f"realm {r['realm']}", r["winner_held_rate"], r["winner_held_rate_low"],
                       r["winner_held_rate_high"], r["decided_games"]) for r in table.records()])


def dbs_chart(table: named.Table) -> dict:
    """Win rate by DBS-difference bucket (own deck's DBS minus the opponent's)."""
    return rate_bars([(f"{r['dbs_diff_low']:+}", r["wr"], r["wr_low"], r["wr_high"], r["games"])
                      for r in table.records()])


def heatmap(table: named.Table) -> dict:
    """The match-up matrix: a cell per (archetype, opponent), coloured by win rate."""
    records = table.records()
    names = sorted({r["archetype"] for r in records} | {r["opponent"] for r in records})
    cell, left, top = 46, 150, 110
    pos = {name: i for i, name in enumerate(names)}
    cells = [{"x": left + pos[r["opponent"]] * cell, "y": top + pos[r["archetype"]] * cell,
              "size": cell, "fill": _heat(r["wr"]), "rate": r["wr"], "games": r["games"],
              "low": r["wr_low"], "high": r["wr_high"], "row": r["archetype"],
              "col": r["opponent"]} for r in records]
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
