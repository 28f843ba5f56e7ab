"""Rules revisions (issue 12, point 5): every revision is documented, and a match records and
keeps the revision it was played under."""

from pathlib import Path

import msgspec
import pytest

from ledger.events import MatchOpened
from replay.errors import NewerRevisionError
from replay.wotf.evolve import initial_state
from replay.wotf.revisions import REVISIONS, RULES_REVISION, effective
from tests.replay.helpers import opened

RULINGS = Path(__file__).resolve().parents[2] / "docs" / "rulings.md"


def test_every_revision_is_listed_in_the_rulings():
    text = RULINGS.read_text()
    assert sorted(REVISIONS) == list(range(1, RULES_REVISION + 1))
    for revision in range(0, RULES_REVISION + 1):
        assert f"\n| {revision} | " in text, f"docs/rulings.md does not list revision {revision}"


def test_a_match_derives_under_its_recorded_revision():
    for recorded, expected in ((0, 1), (1, 1), (2, 2), (RULES_REVISION, RULES_REVISION)):
        match: MatchOpened = msgspec.structs.replace(opened(), rules_revision=recorded)
        state = initial_state(match)
        assert state.revision == expected == effective(recorded)


def test_a_revision_newer_than_the_program_is_a_clear_error():
    with pytest.raises(NewerRevisionError, match="newer than this program"):
        effective(RULES_REVISION + 1)
