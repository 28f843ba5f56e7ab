"""What every statistic's :class:`~ledger.stats.Table` says beyond its numbers: its name, row
labels and records (the JSON and CSV of ``wonders stats``).  State of Wonder's ``sieges``
counted from the warehouse independently: the seats that never laid siege are the ``no`` row.
"""

from __future__ import annotations

import pytest

from ledger import stats
from ledger.stats import Table
from tests.ledger.test_warehouse_games import mixed  # noqa: F401 - the shared fixture


def test_sieges_has_a_no_row_for_the_seats_that_never_laid_siege(mixed):  # noqa: F811
    _, con = mixed
    table = stats.compute(con, "sieges", stats.Filters())
    assert table.name == "sieges" and table.columns == stats.COLUMNS["sieges"]
    rows = {r["besieged"]: r for r in table.records()}
    assert sorted(rows) == ["no", "yes"]
    never = con.execute("""
        SELECT count(*), count(*) FILTER (p.result = 'win'), count(DISTINCT match_id)
        FROM players p JOIN matches m USING (match_id)
        WHERE m.game = 'sow' AND NOT EXISTS (SELECT 1 FROM sow_sieges s
                                             WHERE s.match_id = p.match_id
                                             AND s.attacker = p.seat)""").fetchone()
    assert (rows["no"]["games"], rows["no"]["wins"], rows["no"]["matches"]) == never
    assert rows["no"]["wr"] == pytest.approx(never[1] / never[0])


def test_every_statistic_names_its_table(mixed):  # noqa: F811
    _, con = mixed
    for name in stats.STATISTICS:
        table = stats.compute(con, name, stats.Filters())
        assert table.name == name
        assert table.columns == stats.COLUMNS.get(name, table.columns)


def test_a_row_that_does_not_fit_its_columns_is_an_error_not_a_short_record():
    with pytest.raises(ValueError):
        Table("t", ["a", "b"], [(1, 2, 3)]).records()
    with pytest.raises(ValueError):
        Table("t", ["a", "b"], [(1,)]).records()
    assert Table("t", ["a", "b"], [(1, 2)]).records() == [{"a": 1, "b": 2}]
