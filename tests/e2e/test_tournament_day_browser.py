"""Issue 17's Show: a whole tournament day in one browser test.

An organizer, on a phone at /organize, registers eight players by pasting decklists (seven
shipped pool decks and Kai's, which holds catalogue cards the pool has no rules data for), then
pairs and starts three Swiss rounds from the console.  In round 1, Kai's table is recorded on two
390x844 touch phones (taps per decision counted and printed): Kai enters a catalogue card's
printed stats in the form and plays it, and the judge (a third phone) takes one batch back
through the confirmation.  Every other table, and rounds 2 and 3 entirely, are played by bots
deciding through the seat API over HTTP: a table with an even number is played to its end, an
odd one is ended by the judge's concession after twelve bot decisions (so results come both
from a match's own end and from an ending the judge records).  Before round 3 the organizer
drops a player, so round 3 has a bye.  The console's standings and its CSV must equal a hand
computation of the recorded results (tests/web/test_tournaments.py's ``hand_standings``: 3/1/0,
the 1/3 floor, a bye a 2-0 win left out of the opponents' percentages; docs/organizer.md).

A real ``wonders serve`` subprocess, Playwright with Debian's Chromium (``/usr/bin/chromium``);
skipped where it is missing (tests/e2e/conftest.py).  Screenshots (the console at the end of the
day, tournament-day.png; a player's phone finding their table on the public page,
tournament-public.png; Kai's phone choosing the realm of the catalogue card,
tournament-day-phone.png; the judge's take-back, judge-phone.png and judge-desktop.png, by
test_play_browser's helper) go to ``$WONDERS_SCREENSHOTS`` or the test's tmp dir.
"""

from __future__ import annotations

import csv
import io
import json
import random
import urllib.error
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import sync_playwright

from tests.e2e.helpers import CHROMIUM, FLAGS, ORGANIZER, api_call
from tests.e2e.test_play_browser import (
    PHONE,
    act,
    enter,
    no_overflow,
    reload,
    report,
    take_back_the_draw,
)
from tests.web.test_api import choose
from tests.web.test_real_cards import catalogue_wonders
from tests.web.test_tournaments import decklist, hand_standings

PLAYERS = [("Ann", "solfera-blaze"), ("Bob", "thalwind-sky"), ("Cleo", "petraia-stone"),
           ("Dev", "boundless-drift"), ("Eve", "heliosynth-forge"), ("Finn", "umbrathene-shade"),
           ("Gus", "thalwind-solfera")]
KAI = "Kai"
# Kai's deck: Ann's pool deck with four of its threes swapped for three copies each of four
# catalogue Wonders (rule 303.1: a card the pool doesn't know counts as secondary, 3 copies).
SWAPPED = ["Dawn Empress", "Sun Knight of the North", "Magma Serpent of the South",
           "Glow Smith of the East"]
PLAYS_PER_SEAT = 2
# A bot's answer to the card entry form (R34): a 1-cost Monster of power 4, no further text.
STATS = {"cost": 1, "power": 4, "classes": ["Monster"], "keywords": [], "manual": False}


class HttpApi:
    """``tests.web.test_api.Api``'s two calls over real HTTP, so its bots (``drive``) decide
    through the running server's seat API."""

    def __init__(self, base: str):
        self.base = base

    def call(self, method, path, token=None, body=None):
        try:
            return 200, api_call(self.base, method, path, token or "", body)
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def decide(self, mid, token, decision, expected_seq):
        status, data = self.call("POST", f"/api/matches/{mid}/decisions", token,
                                 {"expected_seq": expected_seq, "decision": decision})
        return (201 if status == 200 else status), data


def kai_decklist() -> tuple[str, list[str]]:
    """Kai's pasted decklist (catalogue cards by set number) and the catalogue cards' names."""
    wonders = catalogue_wonders(4)
    base = decklist("solfera-blaze").splitlines()
    kept = [line for line in base if not any(line.endswith(f" {name}") for name in SWAPPED)]
    return "\n".join(kept + [f"3 {c.number}" for c in wonders]) + "\n", [c.name for c in wonders]


# -- the console -----------------------------------------------------------------------------


def register(page, name: str, text: str) -> None:
    page.fill("#register input[name=player]", name)
    page.fill("#register textarea[name=decklist]", text)
    page.click("#register button[type=submit]")
    page.wait_for_selector(f"#players li:has(input[name=player][value='{name}'])")
    assert not page.locator("p.error").count(), page.locator("p.error").inner_text()


def start_round(page, number: int) -> tuple[list[dict], str | None]:
    """Press the console's start button; the tables read from the links page (names, match id,
    tokens from the seat and judge URLs) and the bye."""
    page.click("#start button[type=submit]")
    page.wait_for_selector("section.links")
    assert page.locator("h1").inner_text() == f"Round {number}"
    no_overflow(page)
    tables = []
    for section in page.locator("section.links").all():
        table: dict = {"tokens": {}}
        for figure in section.locator("figure.code").all():
            caption = figure.locator("figcaption strong").inner_text()
            url = figure.locator("a.url").inner_text()
            role = "judge" if caption == "Judge" else caption[5]
            table["tokens"][role] = parse_qs(urlsplit(url).query)["token"][0]
            table["match_id"] = urlsplit(url).path.rsplit("/", 1)[1]
            if role != "judge":
                table[role.lower()] = caption.split(": ", 1)[1]
        tables.append(table)
    bye = page.locator("p:has-text('Bye:')")
    name = bye.inner_text().split(": ", 1)[1] if bye.count() else None
    page.click("text=Back to")
    page.wait_for_selector("#board")
    return tables, name


def winner_of(base: str, table: dict) -> str | None:
    info = api_call(base, "GET", f"/api/matches/{table['match_id']}", ORGANIZER)
    assert info["ended"], info
    return {"A": table["a"], "B": table["b"]}.get(info["winner"])


def by_bots(base: str, table: dict, number: int, rng: random.Random) -> str:
    """Bots decide through the seat API: to the end, or a few decisions then a concession."""
    bots = HttpApi(base)
    if number % 2 == 0:
        count = bot_decisions(bots, table, rng, 3000)
        return f"played to its end by bots ({count} decisions)"
    bot_decisions(bots, table, rng, 12)
    loser = rng.choice("AB")
    api_call(base, "POST", f"/api/matches/{table['match_id']}/ending", table["tokens"]["judge"],
             {"seat": loser, "kind": "concession"})
    return f"12 bot decisions, then {table[loser.lower()]} conceded"


def bot_decisions(bots: HttpApi, table: dict, rng: random.Random, limit: int) -> int:
    """Random legal decisions through the seat API (``tests.web.test_api.choose``) until the
    match ends or ``limit`` were made; a catalogue card's stats are answered with ``STATS``."""
    mid, tokens = table["match_id"], table["tokens"]
    for count in range(limit):
        pending = bots.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]
        if pending["prompt"] is None:
            return count
        seat = pending["prompt"]["seat"]
        mine = bots.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        prompt = mine["prompt"]
        decision = {**prompt["entry"]["answer"], **STATS} if prompt["kind"] == "stats" \
            else choose(prompt, rng)
        status, data = bots.decide(mid, tokens[seat], decision, mine["length"])
        assert status == 201, data
    assert limit < 3000, "the match did not end"
    return limit


# -- the phone table -------------------------------------------------------------------------


def enter_stats(page) -> int:
    """Kai fills the card entry form (cardentry.js) for the card it names; the taps (typing a
    field counts as one tap)."""
    form = page.locator("form.cardentry")
    form.wait_for()
    no_overflow(page)
    form.locator("#entry-cost").fill("1")
    form.locator("#entry-power").fill("4")
    form.locator("#entry-class").fill("Monster")
    form.locator("button", has_text="Add class").tap()
    form.locator("#entry-manual").uncheck()
    before = page.get_attribute("#play", "data-length")
    form.locator("button[type=submit]").tap()
    page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{before}'")
    return 6  # cost, power, class typed; add class, untick "more than its keywords", submit


def play_named(page, names: list[str], shot: Path | None) -> tuple[str, int] | None:
    """Two taps: a catalogue card in Kai's hand, then its realm; None if none is in hand."""
    reload(page)
    page.locator("#prompt.yours button.option").first.wait_for()
    before = page.get_attribute("#play", "data-length")
    cards = page.locator("#board button.card.pickable")
    card = next((cards.nth(i) for i in range(cards.count())
                 if any(n in cards.nth(i).inner_text() for n in names)), None)
    if card is None:
        return None
    card.tap()
    page.locator("#prompt button.detail").first.wait_for()
    no_overflow(page)
    if shot is not None:
        page.screenshot(path=str(shot), full_page=True)
    target = page.locator("#board .realm.target")
    (target.first if target.count() else page.locator("#prompt button.detail").first).tap()
    page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{before}'")
    return "turn: play a catalogue card", 2


def on_phones(browser, base: str, table: dict, names: list[str], shots: Path):
    """The table recorded by tapping on two phones; the judge takes one batch back."""
    mid, tokens = table["match_id"], table["tokens"]
    kai = "A" if table["a"] == KAI else "B"
    pages = {role: enter(browser, base, mid, tokens[role]) for role in ("A", "B", "judge")}
    pages["desk"] = enter(browser, base, mid, tokens["judge"],
                          viewport={"width": 1280, "height": 900})
    tally: list[tuple[str, int]] = []
    plays = {"A": 0, "B": 0}
    catalogue_played = drew = False
    for _ in range(300):
        state = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])
        prompt = state["prompt"]
        if prompt is None:
            break
        seat, kind = prompt["seat"], prompt["kind"]
        if kind == "stats":
            tally.append(("enter a catalogue card's stats", enter_stats(pages[seat])))
            continue
        turn = kind == "turn"
        if turn and seat == kai and not catalogue_played and drew:
            played = play_named(pages[seat], names, shots / "tournament-day-phone.png")
            if played:
                tally.append(played)
                catalogue_played = True
                opponent = pages["B" if kai == "A" else "A"]
                reload(opponent)  # the card and its entered stats, now public, on the other phone
                assert any(n in opponent.inner_text("#board") for n in names)
                continue
        listed = prompt.get("options") or []
        can_draw = any(o["decision"]["type"] == "DrawDeclared" for o in listed)
        # the first turn draws (the judge takes it back); Kai draws until a catalogue card comes
        draw = turn and can_draw and (not drew or (seat == kai and not catalogue_played))
        play = turn and not draw and plays[seat] < PLAYS_PER_SEAT
        options = len(listed)
        what, taps = act(pages[seat], play, draw, None, options)
        tally.append((what, taps))
        plays[seat] += what == "turn: play a card"
        if draw and not drew:
            drew = True
            take_back_the_draw(pages, base, mid, tokens, seat,
                               state["board"]["players"][seat]["hand_count"], shots)
    assert catalogue_played, "Kai never held a catalogue card"
    other = "B" if kai == "A" else "A"
    pages[other].reload()
    pages[other].wait_for_selector("#status:has-text('Match over')")
    for page in pages.values():
        assert not page.errors, page.errors
    recorded(base, mid, tokens["judge"], kai, names)
    return tally


def recorded(base: str, mid: str, judge: str, kai: str, names: list[str]) -> None:
    """The match record holds the stats as typed, Kai's catalogue card played, the take-back."""
    events = [e["event"] for e in
              api_call(base, "GET", f"/api/matches/{mid}/events?from=0", judge)["events"]]
    entered = [e for e in events if e["type"] == "CardStatsEntered"]
    assert entered and all(e["seat"] == kai and e["name"] in names for e in entered)
    assert entered[0]["stats"] == {"cost": 1, "power": 4, "classes": ["Monster"],
                                   "keywords": [], "manual": False}
    assert any(e["type"] == "CardPlayed" and e["seat"] == kai and e["name"] in names
               for e in events)
    assert [e["type"] for e in events].count("TakenBack") == 1
    assert events[-1]["type"] == "MatchEnded"


# -- the day ---------------------------------------------------------------------------------


def test_a_tournament_day_console_phones_judge_bots_and_standings(server, shots):
    base = server
    rng = random.Random(17)
    kai_text, names = kai_decklist()
    history: list[tuple[list[tuple[str, str, str | None]], str | None]] = []
    how: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        console = browser.new_context(**PHONE).new_page()
        console.goto(f"{base}/organize")
        console.fill("input[name=token]", ORGANIZER)
        console.click("button[type=submit]")
        console.fill("input[name=name]", "Tournament Day")
        console.click("text=Create")
        console.wait_for_url("**/organize/t/tournament-day")
        for name, deck in PLAYERS:
            register(console, name, decklist(deck))
        register(console, KAI, kai_text)
        for number in (1, 2, 3):
            dropped = None
            if number == 3:  # the last in the standings drops: seven players, a bye
                rows = console.locator("#standings tbody tr")
                dropped = rows.last.locator("td").nth(1).inner_text().split()[0]
                row = console.locator(f"#players li:has(input[name=player][value='{dropped}'])")
                row.locator("summary", has_text="Drop").click()  # asks first
                row.locator("button", has_text=f"Yes, drop {dropped}").click()
                console.wait_for_selector(
                    f"#players li:has(input[name=player][value='{dropped}']) >> text=dropped")
            tables, bye = start_round(console, number)
            assert (bye is not None) == (number == 3)
            if bye:
                how.append(f"round 3: {dropped} dropped, bye to {bye}")
            results = []
            for i, table in enumerate(tables):
                assert dropped not in (table["a"], table["b"])
                if number == 1 and KAI in (table["a"], table["b"]):
                    tally = on_phones(browser, base, table, names, shots)
                    report(tally)
                    played = [taps for what, taps in tally if not what.startswith("enter")]
                    print(f"  without the card entry forms (typing a field counted as a tap): "
                          f"{len(played)} decisions, {sum(played)} taps, "
                          f"{sum(played) / len(played):.2f} taps per decision")
                    how.append(f"round 1 table {i + 1}: two phones, to the end")
                else:
                    how.append(f"round {number} table {i + 1}: {by_bots(base, table, i + 1, rng)}")
                results.append((table["a"], table["b"], winner_of(base, table)))
            history.append((results, bye))
            console.reload()  # the latest round's board; an earlier round is a link to its own
            assert console.locator("#board .table.ended").count() == len(results)
            assert console.locator("#board ul.rounds a").count() == len(history) - 1
        no_overflow(console)
        console.screenshot(path=str(shots / "tournament-day.png"), full_page=True)
        shown = console_standings(console)
        # A player's own phone, no token: the public page finds their table and the same
        # standings (docs/organizer.md, "The players' page").
        final_a, final_b, final_winner = history[-1][0][0]
        player = browser.new_context(**PHONE).new_page()
        player.goto(f"{base}/tournaments/tournament-day")
        no_overflow(player)
        assert console_standings(player) == shown
        player.fill("input[name=player]", final_a.lower())
        player.click("button:has-text('Find')")
        player.wait_for_url("**player=*")
        line = player.locator("li.seating", has_text=final_a)
        assert line.locator(".opp").inner_text() == final_b
        assert line.locator(".outcome").inner_text() == \
            ("draw" if final_winner is None else "won" if final_winner == final_a else "lost")
        assert "DBS" not in player.content()
        no_overflow(player)
        player.screenshot(path=str(shots / "tournament-public.png"), full_page=True)
        text = console.request.get(f"{base}/organize/t/tournament-day/standings.csv").text()
        results = console.request.get(f"{base}/organize/t/tournament-day/results.csv").text()
        browser.close()
    print("\n" + "\n".join(how))
    met = [frozenset((a, b)) for matches, _bye in history for a, b, _w in matches]
    assert len(met) == len(set(met)), "a rematch"
    expected = hand_standings(history)
    assert shown == {p: (mp, *(f"{100 * x:.1f}" for x in rest))
                     for p, (mp, *rest) in expected.items()}
    points = [mp for mp, *_rest in shown.values()]
    assert points == sorted(points, reverse=True)  # ranked by points first
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["player"]: (int(r["points"]), r["omw_pct"], r["gw_pct"], r["ogw_pct"])
            for r in rows} == {p: (mp, *(f"{100 * x:.2f}" for x in rest))
                               for p, (mp, *rest) in expected.items()}
    assert [r["player"] for r in rows] == list(shown)  # the same order as the page
    won = [r["winner"] for r in csv.DictReader(io.StringIO(results)) if r["table"] != "bye"]
    assert won == [w or "draw" for matches, _bye in history for _a, _b, w in matches]


def console_standings(page) -> dict[str, tuple]:
    """The console's standings table: player → (points, OMW, GW, OGW as shown)."""
    out = {}
    for row in page.locator("#standings tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        out[cells[1].split()[0]] = (int(cells[2]), cells[4], cells[5], cells[6])
    return out
