"""The words of the seat and public API's refusals, which a client shows its user as one line:
a wrong answer to a prompt whose options the seat may not fully see (the same sentence,
whatever the answer, and never the engine's words, which would list hidden cards), a bad
``?as=`` perspective, and the ``X-Wonders-Divergence`` header's one line of printable ASCII."""

from __future__ import annotations

import pytest

from tests.web.test_api_hidden_info import Table, _deep_diver_looks_into_the_deck, _face_down
from web.api.public import header_text


@pytest.fixture
def table(tmp_path):
    return Table(tmp_path, spectator_delay=0)


def test_a_wrong_answer_to_a_prompt_over_hidden_cards_is_one_fixed_sentence(table):
    _deep_diver_looks_into_the_deck(table)
    mid = table.mid
    pending = table.prompt("A")
    for pick, shown in (("A999", "'A999'"), (["A1", "A2"], "['A1', 'A2']")):
        status, data = table.decide("A", {"type": "Answered", "kind": "target", "pick": pick},
                                    pending["length"])
        assert status == 422, data
        assert data["message"] == (
            f"match {mid}: {shown} does not answer the pending 'target' prompt; "
            f"GET /api/matches/{mid}/prompt lists its options as you may see them")
    assert table.length() == pending["length"]


def test_naming_a_face_down_card_by_its_id_gets_the_same_sentence(table):
    # Refused before the engine sees it (a seat names face-down cards by the prompt's
    # handles): the same words as any other wrong answer, so they say nothing of the card.
    dawn = table.card("A", "Dawn Revealer")
    wonders, _ = _face_down(table, dawn)
    if table.prompt("A")["prompt"]["seat"] == "B":
        assert table.decide("B", {"type": "Passed"})[0] == 201
    table.play("A", dawn)
    pending, mid = table.prompt("A"), table.mid
    status, data = table.decide("A", {"type": "Answered", "kind": "target", "pick": wonders[0]},
                                pending["length"])
    assert status == 422, data
    assert data["message"] == (
        f"match {mid}: {wonders[0]!r} does not answer the pending 'target' prompt; "
        f"GET /api/matches/{mid}/prompt lists its options as you may see them")
    assert table.length() == pending["length"]


def test_a_public_perspective_that_does_not_exist_is_named(table):
    status, data = table.api.call("GET", f"/api/public/matches/{table.mid}/state?as=C")
    assert status == 400
    assert data["message"] == "as='C': use spectator, A, B or omniscient"


def test_a_header_line_is_printable_ascii_with_the_rest_escaped():
    assert header_text("seq 12: Ann\u2019s «Gale Falcon»\tattacks") == \
        "seq 12: Ann\\u2019s \\u00abGale Falcon\\u00bb\\u0009attacks"
    assert header_text(" ~") == " ~"  # the printable range's ends are kept
    assert header_text("\x7f\x1f") == "\\u007f\\u001f"


def test_a_header_line_is_cut_at_its_limit():
    assert header_text("x" * 600) == "x" * 500
    escaped = header_text("é" * 100)  # the limit counts the escaped line's characters
    assert len(escaped) == 500 and escaped == ("\\u00e9" * 100)[:500]
    assert header_text("abcdef", limit=3) == "abc"


def test_a_stats_entry_nobody_asked_for_is_refused_in_the_engines_words(tmp_path):
    # Nothing hidden is at stake (the seat names its own card): the engine's words, with
    # the match, and nothing recorded.
    table = Table(tmp_path, spectator_delay=0)
    before = table.length()
    status, data = table.decide("A", {"type": "CardStatsEntered", "card": "A1", "cost": 1,
                                      "power": 1})
    assert status == 422, data
    assert data["message"] == (f"match {table.mid}: no stats entry of A1 is pending for seat A; "
                               f"GET the prompt for what is asked")
    assert table.length() == before
