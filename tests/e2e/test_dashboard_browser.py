"""The stats dashboard in a real browser at 1280x800 and 390x844, served by a real
`wonders demo` (issue 18 item 3): nothing overflows sideways, every panel is on the screen,
every chart's CSV downloads with the statistic's rows, the page arrives gzipped.

Screenshots go to ``$WONDERS_SCREENSHOTS`` (docs/screenshots/dashboard.png and
dashboard-phone.png were made with it set, over the README's demo) or to the test's tmp dir.
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import urllib.parse
from pathlib import Path

import duckdb
import pytest

from ledger import stats as named

ROOT = Path(__file__).parents[2]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    store = tmp_path_factory.mktemp("dash-demo") / "wonders-data"
    env = dict(os.environ)
    env.pop("WONDERS_WAREHOUSE", None)
    size = ["16", "4"] if os.environ.get("WONDERS_SCREENSHOTS") else ["6", "2"]  # README's demo
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "demo", "--dir", str(store),
                             "--players", size[0], "--rounds", size[1], "--port", "0"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        lines: list[str] = []
        while not any(line.startswith("serving") for line in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines) + proc.stderr.read()
            lines.append(line)
        base = next(line for line in lines if line.startswith("serving")).split(" on ")[1].split()[0]
        yield base, store
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _tables(store: Path) -> dict[str, named.Table]:
    con = duckdb.connect(str(store / "warehouse.duckdb"), read_only=True)
    try:
        return {name: named.compute(con, name, named.Filters())
                for name in ("cards", "first-player", "matchups", "realms", "dbs")}
    finally:
        con.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_dashboard_fits_and_every_chart_downloads_as_csv(demo, browser, shots, size):
    base, store = demo
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height},
                                  accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    foreign: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: foreign.append(r.url)
            if urllib.parse.urlsplit(r.url).hostname not in (None, "127.0.0.1")
            and not r.url.startswith("data:") else None)
    answer = page.goto(f"{base}/stats")
    assert answer is not None and answer.ok
    assert answer.all_headers().get("content-encoding") == "gzip"
    page.wait_for_selector("#heatmap")

    # no sideways scrolling of the page, and every panel starts and ends on the screen
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{size}: the page is {overflow} px wider than the screen"
    for panel in ("#first-player", "#realms", "#dbs", "#matchups", "#cards"):
        box = page.locator(panel).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, \
            (size, panel, box)
        assert box["width"] >= min(300, width - 40), (size, panel, box)  # not squeezed
    chart = page.locator("#dbs-chart").bounding_box()
    assert chart is not None and chart["width"] > 250

    tables = _tables(store)
    shown = page.locator("#dbs-chart g.datum").count()
    dbs = tables["dbs"].records()
    assert shown == (dbs[-1]["dbs_diff_low"] - dbs[0]["dbs_diff_low"]) // 10 + 1  # every bucket
    page.screenshot(path=str(shots / ("dashboard.png" if size == "desktop"
                                      else "dashboard-phone.png")), full_page=True)

    for name, table in tables.items():
        link = page.locator(f"a.csv[data-chart='{name}']")
        link.scroll_into_view_if_needed()
        with page.expect_download() as info:
            link.click()
        download = info.value
        assert download.suggested_filename == f"wonders-{name}.csv"
        rows = list(csv.reader(io.StringIO(Path(download.path()).read_text())))
        assert rows[0] == table.columns and len(rows) - 1 == len(table.rows), name
    assert errors == [] and foreign == []
    context.close()
