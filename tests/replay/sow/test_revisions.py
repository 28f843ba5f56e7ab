"""State of Wonder rules revisions: every revision is documented, a match derives under the
revision it recorded, and the behaviour an older revision derived stays selectable."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from ledger.events import MatchOpened
from replay.errors import NewerRevisionError
from replay.sow import GAME
from replay.sow.conformance import cases_dir, run_case
from replay.sow.evolve import initial_state
from replay.sow.revisions import REVISIONS, RULES_REVISION
from replay.sow.simulate import open_match
from tests.replay.sow.helpers import decks, pool

RULINGS = Path(__file__).resolve().parents[3] / "docs" / "rulings-sow.md"


def test_every_revision_is_listed_in_the_rulings():
    text = RULINGS.read_text(encoding="utf-8")
    assert sorted(REVISIONS) == list(range(1, RULES_REVISION + 1))
    for revision in range(0, RULES_REVISION + 1):
        assert f"\n| {revision} | " in text, f"docs/rulings-sow.md does not list revision {revision}"


def test_a_new_match_records_the_current_revision():
    opened = open_match("rev", (decks()["Ashen Raid"], decks()["Ironhold Walls"]), pool())
    assert opened.rules_revision == RULES_REVISION == GAME.rules_revision


@pytest.mark.parametrize(("recorded", "derives"), [(0, 1), (1, 1), (2, 2)])
def test_a_match_derives_under_its_recorded_revision(recorded: int, derives: int):
    opened = open_match("rev", (decks()["Ashen Raid"], decks()["Ironhold Walls"]), pool())
    match: MatchOpened = msgspec.structs.replace(opened, rules_revision=recorded)
    assert initial_state(match).revision == derives == GAME.effective_revision(recorded)


def test_a_revision_newer_than_the_program_is_a_clear_error():
    with pytest.raises(NewerRevisionError, match="knows up to"):
        GAME.effective_revision(RULES_REVISION + 1)


@pytest.mark.parametrize("name", [
    "combat-17-pitched-battle-with-defenders-left-ends-the-combat-phase", "combat-17-revision-1",
    "static-03-health-lost-with-its-source-destroys", "static-03-revision-1",
    "static-04-a-unit-destroyed-during-tactics-does-not-fight"])
def test_revision_2_and_revision_1_each_keep_their_behaviour(name: str):
    result = run_case(cases_dir() / f"{name}.toml", pool())
    assert result.passed, result.reason
